"""One entry point for both connection sides: `connection_step` and `receive_bytes`.

Owns: the dispatch on the connection's type, nothing else.
Must not know: what any input means (`_connection_agent.py`, `_connection_client.py`).
"""

from __future__ import annotations

from ._connection_agent import AgentConnection, agent_connection_step, receive_agent_bytes
from ._connection_client import client_connection_step, receive_client_bytes
from ._connection_client_state import ClientConnection
from ._connection_values import ConnectionStep

__all__ = ["connection_step", "receive_bytes"]


def connection_step(conn: AgentConnection | ClientConnection, input: object) -> ConnectionStep:
    """Apply one input to a connection: `(connection', outbound, events)`.

    Pure: the given connection is unchanged. Received input (bytes' events, messages) is never
    refused: it is answered or reported as a `Finding` event.

    Raises:
        LocalProtocolError: a host input is illegal here (nothing changed).
        TypeError: `conn` is not a connection.
    """
    if type(conn) is AgentConnection:
        return agent_connection_step(conn, input)
    if type(conn) is ClientConnection:
        return client_connection_step(conn, input)
    msg = f"not a connection: {type(conn).__name__}"
    raise TypeError(msg)


def receive_bytes(conn: AgentConnection | ClientConnection, data: bytes) -> ConnectionStep:
    """Feed bytes read from the peer (any split): frame, decode, route, step; the outbound
    to write (`.data` as bytes) and the events, in order. Never raises for any bytes."""
    if type(conn) is AgentConnection:
        return receive_agent_bytes(conn, data)
    if type(conn) is ClientConnection:
        return receive_client_bytes(conn, data)
    msg = f"not a connection: {type(conn).__name__}"
    raise TypeError(msg)
