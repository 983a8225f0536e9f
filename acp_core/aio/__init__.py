"""Real I/O for acp-core, on anyio (so the same code runs on asyncio and on trio).

Owns: hosting acp-core connections over real transports and keeping their sessions: the
Streamable HTTP profile's server as an ASGI 3 application (`asgi_app`, which also takes the
WebSocket upgrade on the same path: one message per text frame), with `Agent` (what a host
writes per connection), `AgentLink` (how that agent steps its connection) and the host's
request check (`Authorize`, `bearer_token`); stdio, both ends (`serve_stdio`: an agent
on this process's stdin and stdout, the same `Agent` and `AgentLink`, or on any
`ByteReader`/`ByteWriter`; `spawn_stdio`: a child agent's pipes as a `RemoteTransport`); the
client side of both profiles (`connect`, on httpx and wsproto, giving a `RemoteTransport`;
`ClientLink` steps a client connection over it; `TransportError`); the session store
(`SessionStore`, its SQLite default `SqliteStore`, and `StoreError`s).
Must not know: the protocol's rules (the agent connection judges them) or the profile's
routing (the pure core's `http_receive`/`http_send` decide it); this package only moves
bytes, draws connection ids and keeps tasks. Nothing outside `acp_core.aio` imports it
(tests/test_purity.py), and it needs the `http` extra: `pip install 'acp-core[http]'`.
"""

from __future__ import annotations

from ._asgi import Agent, AgentLink, Authorize, asgi_app, bearer_token
from ._client import ClientLink, RemoteTransport, TransportError, connect
from ._stdio import ByteReader, ByteWriter, serve_stdio, spawn_stdio
from ._store import (
    SessionDamaged,
    SessionStore,
    SqliteStore,
    StoreError,
    StoreLocked,
    StoreVersionError,
)

__all__ = [
    "Agent",
    "AgentLink",
    "Authorize",
    "ByteReader",
    "ByteWriter",
    "ClientLink",
    "RemoteTransport",
    "SessionDamaged",
    "SessionStore",
    "SqliteStore",
    "StoreError",
    "StoreLocked",
    "StoreVersionError",
    "TransportError",
    "asgi_app",
    "bearer_token",
    "connect",
    "serve_stdio",
    "spawn_stdio",
]
