"""The `bytes` phase: NDJSON bytes all the way to a folded session, side by side with the floor.

Owns: the byte stream of a workload (its updates as `session/update` lines, cut into reads of
`READ_SIZE` bytes), and the three readers timed over it:
- `acp_bytes`: acp-core's framing and decoding (`decode_ndjson`: line splitting, then each
  line decoded: the hot `session/update` shapes straight from the bytes by the compiled
  decoder where the `fast` extra has msgspec, any other line parsed (UTF-8 and JSON rules)
  and decoded (`decode_message`)), routing by `sessionId`, and `fold` of each read's updates
  into that session's state;
- `acp_bytes_parsed`: the same without the compiled decoder (the framing's parser, orjson
  with the `fast` extra, then `decode_message`: `feed_ndjson`'s path);
- `acp_bytes_stdlib`: the same with the standard library's parser and no compiled decoder
  where the `fast` extra is installed;
- `acp_connection`: the same bytes through a `ClientConnection` (`receive_bytes`), which also
  runs the session's machine, the message checks, the exchange rules and the judge across
  sessions on every update, and keeps the client engine's bookkeeping and its view (a
  read's run of updates for one session is one engine step, its plain chunks folded): what
  a client built on the connection pays;
- `floor_bytes`: the practical floor over the same reads: split lines by hand, `json.loads`,
  route, and the mutable floor fold.
Must not know: timing (run.py times these), other phases.
"""

from __future__ import annotations

import json
from collections.abc import Iterator
from contextlib import contextmanager
from typing import Any

import acp_core
from benchmarks.floor import fold_floor, new_floor_state

#: Bytes per read, as a stdio transport would get them.
READ_SIZE = 64 * 1024


def ndjson_reads(session_id: str, wire: list[dict[str, Any]]) -> list[bytes]:
    """The workload's updates as NDJSON `session/update` lines, cut into reads."""
    encode = acp_core.encode_ndjson
    data = b"".join(
        encode(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"sessionId": session_id, "update": update},
            }
        )
        for update in wire
    )
    return [data[i : i + READ_SIZE] for i in range(0, len(data), READ_SIZE)]


def acp_bytes(session_id: str, reads: list[bytes]) -> dict[str, acp_core.SessionState]:
    feed, fold = acp_core.connection.decode_ndjson, acp_core.fold
    notification = acp_core.UpdateSessionNotification
    decoder = acp_core.NdjsonDecoder()
    states = {session_id: acp_core.new_session(session_id)}
    for data in reads:
        decoder, events = feed(decoder, data)
        runs: dict[str, list[Any]] = {}
        for message in events:
            if type(message) is notification and message.session_id in states:
                runs.setdefault(message.session_id, []).append(message.update)
        for sid, updates in runs.items():
            states[sid] = fold(states[sid], updates)
    return states


@contextmanager
def _without_compiled() -> Iterator[None]:
    # `decode_ndjson` with every line parsed, then decoded (msgspec left out).
    from acp_core._wire import _codec_ndjson

    readers = dict(_codec_ndjson._READERS)
    for strict in (False, True):
        pure = _codec_ndjson._pure_reader(strict, acp_core.DEFAULT_REVISION)
        _codec_ndjson._READERS[strict, acp_core.DEFAULT_REVISION] = pure
    try:
        yield
    finally:
        _codec_ndjson._READERS.clear()
        _codec_ndjson._READERS.update(readers)


def acp_bytes_parsed(session_id: str, reads: list[bytes]) -> dict[str, acp_core.SessionState]:
    """`acp_bytes` without the compiled decoder (the `fast` extra's msgspec): each line is
    parsed by the framing's parser (orjson with the extra), then decoded by the codec."""
    with _without_compiled():
        return acp_bytes(session_id, reads)


def acp_bytes_stdlib(session_id: str, reads: list[bytes]) -> dict[str, acp_core.SessionState]:
    """`acp_bytes` with the standard library's JSON parser and no compiled decoder even where
    the `fast` extra (orjson, msgspec) is installed (the reference path), to show what the
    extra buys in the same run."""
    from acp_core._wire import _framing

    chosen = _framing._parse, _framing._value
    _framing._parse, _framing._value = _framing._parse_stdlib, _framing._value_stdlib  # type: ignore[misc]
    try:
        with _without_compiled():
            return acp_bytes(session_id, reads)
    finally:
        _framing._parse, _framing._value = chosen  # type: ignore[misc]


def open_client(session_id: str) -> acp_core.ClientConnection:
    """A client connection with `session_id` open (set up outside the timed loop)."""
    conn = acp_core.new_client_connection(acp_core.Implementation("bench", "0"))
    conn = acp_core.connection_step(conn, acp_core.NewSession("/bench")).connection
    answer = {"jsonrpc": "2.0", "id": 0, "result": {"sessionId": session_id}}
    return acp_core.receive_bytes(conn, acp_core.encode_ndjson(answer)).connection


def acp_connection(conn: acp_core.ClientConnection, reads: list[bytes]) -> Any:
    receive = acp_core.receive_bytes
    for data in reads:
        conn = receive(conn, data).connection
    return conn


def floor_bytes(session_id: str, reads: list[bytes]) -> dict[str, Any]:
    loads = json.loads
    states = {session_id: new_floor_state(session_id)}
    pending = b""
    for data in reads:
        *lines, pending = (pending + data).split(b"\n")
        runs: dict[str, list[Any]] = {}
        for line in lines:
            params = loads(line)["params"]
            sid = params["sessionId"]
            if sid in states:
                runs.setdefault(sid, []).append(params["update"])
        for sid, updates in runs.items():
            fold_floor(states[sid], updates)
    return states
