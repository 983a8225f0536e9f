"""One entry point for both connection sides: `connection_step` and `receive_bytes`.

Owns: the dispatch on the connection's type and the routing of the inputs both sides take
(framing output, received messages, session intents, the host's answers) to the side's
handlers (`SideInputs`), nothing else; on the client side, a read's runs of session updates
go to `_engines/_connection_client_updates.py` (one step a run, the same connection and
events as one step a message), and a client's read at the default revision is framed with
the compiled decoder of the hot `session/update` lines where it is installed
(`_client_read`).
Must not know: what any input means (`_engines/_connection_agent.py`,
`_engines/_connection_client.py`), the shapes the compiled decoder takes.

The compiled decoder changes how fast, never what: a line it takes becomes a `HotLine`
(its message and its bytes), which a run of updates takes as decoded, and which is parsed
again (`parse_line`) when it is stepped alone, so the general path sees exactly the
`Parsed` value `feed_ndjson` gives (tests/test_connection_update_runs.py compares a
connection fed the same bytes with the compiled decoder on and off).
"""

from __future__ import annotations

import functools
from collections.abc import Callable

import attrs

from acp_core._errors import ArgumentError, LocalProtocolError, bytes_argument
from acp_core._wire._codec_ndjson import compiled_decoder
from acp_core._wire._framing import (
    FramingError,
    NdjsonDecoder,
    Parsed,
    feed_lines,
    feed_ndjson,
    parse_line,
)
from acp_core._wire._revision import DEFAULT_REVISION

from ._connection_agent import AGENT_INPUTS, AgentConnection
from ._connection_client import CLIENT_INPUTS
from ._connection_client_state import ClientConnection
from ._connection_client_updates import HotLine, receive_update_run
from ._connection_values import (
    AnswerRequest,
    ConnectionStep,
    FailRequest,
    Outbound,
    SessionIntent,
    SideInputs,
)
from ._intents import Received

__all__ = ["connection_step", "receive_bytes"]


def connection_step(conn: AgentConnection | ClientConnection, input: object) -> ConnectionStep:
    """Apply one input to a connection: `(connection', outbound, events)`.

    Inputs of both sides: `Parsed` / `FramingError` (from the framing), `Received(message)`
    (decoded by the host: judged as the checker judges its encoding; what the host's own
    decoding tolerated is gone, so only a `Parsed` value shows D1 for it), a
    `SessionIntent`, `AnswerRequest` / `FailRequest`. The agent side also takes
    `OpenSession`; the client side its connection intents (`Initialize`, `NewSession`,
    `ResumeSession`, `CloseSession`, `SetConfigOption`, `SendRequest`, `SendNotification`,
    `CancelRequest`).

    Pure: the given connection is unchanged. Received input (bytes' events, messages) is never
    refused: it is answered or reported as a `Finding` event.

    Raises:
        LocalProtocolError: a host input is illegal here (nothing changed).
        ArgumentError: `conn` is not a connection (also a `TypeError`).
    """
    if type(conn) is AgentConnection:
        return _route(AGENT_INPUTS, conn, input)
    if type(conn) is ClientConnection:
        return _route(CLIENT_INPUTS, conn, input)
    msg = f"not a connection: {type(conn).__name__}"
    raise ArgumentError(msg)


def _route(side: SideInputs, conn: object, input: object) -> ConnectionStep:
    b = side.build(conn)
    kind = type(input)
    if kind is Parsed:
        side.received_value(b, input.value)  # type: ignore[attr-defined]
    elif kind is FramingError:
        b.send(input.reply)  # type: ignore[attr-defined]
        b.finding("F1", input.detail)  # type: ignore[attr-defined]
    elif kind is Received:
        side.receive_message(b, input.message)  # type: ignore[attr-defined]
    elif kind is SessionIntent:
        side.session_intent(b, input)
    elif kind is AnswerRequest or kind is FailRequest:
        side.host_answer(b, input)
    elif not side.own_input(b, input):
        raise LocalProtocolError("E0", f"not {side.what}: {kind.__name__}")
    step: ConnectionStep = b.done()
    return step


def receive_bytes(conn: AgentConnection | ClientConnection, data: bytes) -> ConnectionStep:
    """Feed bytes read from the peer (any split): frame, decode, route, step; the outbound
    to write (`.data` as bytes) and the events, in order. Never raises for any bytes.

    Raises:
        ArgumentError: `conn` is not a connection (also a `TypeError`).
    """
    if type(conn) is not AgentConnection and type(conn) is not ClientConnection:
        msg = f"not a connection: {type(conn).__name__}"
        raise ArgumentError(msg)
    framed: tuple[Parsed | FramingError | HotLine, ...]
    if type(conn) is ClientConnection:
        decoder, framed = _client_read(conn, data)
    else:
        decoder, framed = feed_ndjson(conn.decoder, data)
    conn = attrs.evolve(conn, decoder=decoder)
    wire: list[Outbound] = []
    events: list[object] = []
    ids: list[int | str | None] = []
    at, end = 0, len(framed)
    while at < end:
        run = receive_update_run(conn, framed, at) if type(conn) is ClientConnection else None
        if run is not None:  # the agent's updates for one session, received as one step
            step, taken = run
            at += taken
        else:
            item = framed[at]
            if type(item) is tuple:  # a hot line stepped alone: the value the framing gives
                item = parse_line(item[1])
            step = connection_step(conn, item)
            at += 1
        conn = step.connection
        wire.extend(step.outbound)
        events.extend(step.events)
        ids.extend(step.ids)
    return ConnectionStep(conn, tuple(wire), tuple(events), tuple(ids))


def _client_read(
    conn: ClientConnection, data: bytes
) -> tuple[NdjsonDecoder, tuple[Parsed | FramingError | HotLine, ...]]:
    # `feed_ndjson`'s framing; at the default revision, with the compiled decoder installed,
    # the hot `session/update` lines come decoded (a v1 agent's lines never run: not worth it).
    # Bytes that are not bytes are refused as `feed_ndjson` refuses them (the same message).
    read = _hot_line_reader() if conn.revision is DEFAULT_REVISION and conn.v1 is None else None
    if read is None:
        return feed_ndjson(conn.decoder, data)
    return feed_lines(conn.decoder, bytes_argument(data, "feed_ndjson"), read)


@functools.cache
def _hot_line_reader() -> Callable[[bytes], Parsed | FramingError | HotLine] | None:
    # Built on first use: msgspec (about 10 ms) is imported by the first client read, never by
    # importing acp-core. None where it is not installed (every line is parsed).
    if compiled_decoder() == "none":
        return None
    from acp_core._wire._codec_compiled import compiled_notification

    parse = parse_line

    def read(line: bytes) -> Parsed | FramingError | HotLine:
        message = compiled_notification(line)
        return parse(line) if message is None else (message, line)

    return read
