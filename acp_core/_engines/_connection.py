"""One entry point for both connection sides: `connection_step` and `receive_bytes`.

Owns: the dispatch on the connection's type, nothing else.
Must not know: what any input means (`_engines/_connection_agent.py`,
`_engines/_connection_client.py`).
"""

from __future__ import annotations

from typing import Any

import attrs

from acp_core._errors import ArgumentError
from acp_core._wire._framing import feed_ndjson

from ._connection_agent import AgentConnection, agent_connection_step
from ._connection_client import client_connection_step
from ._connection_client_state import ClientConnection
from ._connection_values import ConnectionStep

__all__ = ["connection_step", "receive_bytes"]


def connection_step(conn: AgentConnection | ClientConnection, input: object) -> ConnectionStep:
    """Apply one input to a connection: `(connection', outbound, events)`.

    Pure: the given connection is unchanged. Received input (bytes' events, messages) is never
    refused: it is answered or reported as a `Finding` event.

    Raises:
        LocalProtocolError: a host input is illegal here (nothing changed).
        ArgumentError: `conn` is not a connection (also a `TypeError`).
    """
    if type(conn) is AgentConnection:
        return agent_connection_step(conn, input)
    if type(conn) is ClientConnection:
        return client_connection_step(conn, input)
    msg = f"not a connection: {type(conn).__name__}"
    raise ArgumentError(msg)


def receive_bytes(conn: AgentConnection | ClientConnection, data: bytes) -> ConnectionStep:
    """Feed bytes read from the peer (any split): frame, decode, route, step; the outbound
    to write (`.data` as bytes) and the events, in order. Never raises for any bytes.

    Raises:
        ArgumentError: `conn` is not a connection (also a `TypeError`).
    """
    if type(conn) is not AgentConnection and type(conn) is not ClientConnection:
        msg = f"not a connection: {type(conn).__name__}"
        raise ArgumentError(msg)
    decoder, framed = feed_ndjson(conn.decoder, data)
    conn = attrs.evolve(conn, decoder=decoder)
    wire: list[dict[str, Any]] = []
    events: list[object] = []
    for event in framed:
        conn, outbound, found = connection_step(conn, event)
        wire.extend(outbound)
        events.extend(found)
    return ConnectionStep(conn, tuple(wire), tuple(events))
