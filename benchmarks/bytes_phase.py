"""The `bytes` phase: NDJSON bytes all the way to a folded session, side by side with the floor.

Owns: the byte stream of a workload (its updates as `session/update` lines, cut into reads of
`READ_SIZE` bytes), and the three readers timed over it:
- `acp_bytes`: acp-core's framing (`feed_ndjson`: line splitting, UTF-8 and JSON parsing),
  envelope decode (`decode_message`), routing by `sessionId`, and `fold` of each read's
  updates into that session's state;
- `acp_bytes_stdlib`: the same with the standard library's parser where the `fast` extra
  (orjson) is installed;
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
    feed, decode, fold, parsed = (
        acp_core.feed_ndjson,
        acp_core.decode_message,
        acp_core.fold,
        acp_core.Parsed,
    )
    notification = acp_core.UpdateSessionNotification
    decoder = acp_core.NdjsonDecoder()
    states = {session_id: acp_core.new_session(session_id)}
    for data in reads:
        decoder, events = feed(decoder, data)
        runs: dict[str, list[Any]] = {}
        for event in events:
            if type(event) is parsed:
                message = decode(event.value)
                if type(message) is notification and message.session_id in states:
                    runs.setdefault(message.session_id, []).append(message.update)
        for sid, updates in runs.items():
            states[sid] = fold(states[sid], updates)
    return states


def acp_bytes_stdlib(session_id: str, reads: list[bytes]) -> dict[str, acp_core.SessionState]:
    """`acp_bytes` with the standard library's JSON parser even where the `fast` extra is
    installed (the framing's reference path), to show what the extra buys in the same run."""
    from acp_core._wire import _framing

    chosen = _framing._parse
    _framing._parse = _framing._parse_stdlib  # type: ignore[misc]
    try:
        return acp_bytes(session_id, reads)
    finally:
        _framing._parse = chosen  # type: ignore[misc]


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
