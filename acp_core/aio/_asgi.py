"""The Streamable HTTP profile's server as an ASGI 3 application, on anyio.

Owns: `asgi_app`, `Agent`, `AgentLink`: the bytes of each HTTP request in, the pure core's
answers out; one agent connection per `Acp-Connection-Id` (drawn here with `secrets`), the
open SSE responses of each connection's streams, and the tasks each connection runs.
Must not know: which stream a message belongs on, what a status code means for the
protocol, or what an agent answers (`http_receive`/`http_send` and the agent connection
decide all of it).

Theory of operation. The endpoint's `HttpServer` and every connection's `AgentConnection`
are values changed only by synchronous code between two awaits, so each change is atomic on
the event loop and no lock is needed: a POST's body is read (awaited), then in one go it is
judged (`http_receive`), stepped into its connection (`connection_step`), and every message
the step sends is routed (`http_send`) and queued on the open SSE response of its stream
(an unbounded in-memory queue, drained by that response's task). The events of inbound
steps go, in order, to one serial task per connection that awaits `Agent.on_event`; the
agent's own steps (`AgentLink.step`) take the same synchronous path. The tasks live in a
task group opened by the ASGI lifespan protocol (uvicorn and hypercorn speak it); a
server without it gets 500 for every request.
"""

from __future__ import annotations

import math
import secrets
from collections.abc import Awaitable, Callable, Coroutine, MutableMapping
from typing import Any, Protocol, TypeVar

import anyio
from anyio.abc import TaskGroup, TaskStatus
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from acp_core import connection_step
from acp_core.connection import (
    AgentConnection,
    HttpRequest,
    HttpResponse,
    HttpSent,
    HttpServer,
    Parsed,
    http_receive,
    http_send,
    http_stream_closed,
    new_http_server,
)

__all__ = ["Agent", "AgentLink", "asgi_app"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]
T = TypeVar("T")

#: Largest POST body read (bigger ones are answered 413 before anything sees them).
MAX_BODY = 8 * 1024 * 1024


class Agent(Protocol):
    """What `make_agent` returns for one connection.

    Attributes:
        connection: the agent connection to start from (`acp_core.new_agent_connection`);
            read once, after which `AgentLink.connection` is the current value.
    """

    connection: AgentConnection

    async def on_event(self, event: object) -> None:
        """One event of a step that received a client message, in order, one at a time."""


class AgentLink:
    """One hosted connection, as its agent sees it: the current connection value, steps,
    waits and background tasks (a turn runs as one: `start_soon`)."""

    def __init__(self, app: _App, connection_id: str) -> None:
        self._app = app
        self.connection_id = connection_id
        self._connection: AgentConnection | None = None
        self._changed = anyio.Event()
        self._group: TaskGroup | None = None
        #: What ended the connection when its agent raised (else None).
        self.error: Exception | None = None

    @property
    def connection(self) -> AgentConnection:
        """The connection's current value."""
        assert self._connection is not None  # set before make_agent's agent is ever called
        return self._connection

    def step(self, input: object) -> tuple[object, ...]:
        """Step the connection with `input` (an intent, a `SessionIntent`, ...), route what
        it sends to its SSE streams, and return the step's events."""
        return self._app.step(self, input)

    async def wait_until(self, ready: Callable[[AgentConnection], T | None]) -> T:
        """Wait until `ready(connection)` returns something other than None or False."""
        while not (found := ready(self.connection)):
            await self._changed.wait()
        return found

    def start_soon(self, function: Callable[..., Coroutine[Any, Any, Any]], *args: object) -> None:
        """Run `function(*args)` in this connection's tasks (cancelled when it ends)."""
        assert self._group is not None
        self._group.start_soon(function, *args)

    def _notify(self) -> None:
        self._changed.set()
        self._changed = anyio.Event()


class _Hosted:
    """One connection's I/O side: its agent, its open streams, its serial event queue."""

    def __init__(self, link: AgentLink) -> None:
        self.link = link
        self.agent: Agent | None = None
        self.streams: dict[str, MemoryObjectSendStream[bytes]] = {}
        self.initialized = anyio.Event()
        self.initialize: HttpResponse | None = None
        events: tuple[
            MemoryObjectSendStream[tuple[object, ...]],
            MemoryObjectReceiveStream[tuple[object, ...]],
        ] = anyio.create_memory_object_stream[tuple[object, ...]](math.inf)
        self.events_in, self.events_out = events
        self.closed = False


def asgi_app(
    make_agent: Callable[[AgentLink], Agent],
    *,
    path: str = "/acp",
    server: HttpServer | None = None,
) -> App:
    """An ASGI 3 application serving the Streamable HTTP profile at `path`.

    `make_agent(link)` is called once per `initialize` POST (a new connection) and returns
    the agent for it; `server` sets the limits (`new_http_server(HttpLimits(...))`).
    """
    return _App(make_agent, path, new_http_server() if server is None else server)


class _App:
    def __init__(
        self, make_agent: Callable[[AgentLink], Agent], path: str, server: HttpServer
    ) -> None:
        self.make_agent = make_agent
        self.path = path
        self.server = server
        self.hosted: dict[str, _Hosted] = {}
        self.group: TaskGroup | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        async with anyio.create_task_group() as group:
            await receive()  # lifespan.startup
            self.group = group
            await send({"type": "lifespan.startup.complete"})
            await receive()  # lifespan.shutdown
            for connection_id in list(self.hosted):
                self._close(connection_id)
            self.group = None
            group.cancel_scope.cancel()
        await send({"type": "lifespan.shutdown.complete"})

    # -- requests ----------------------------------------------------------------------------

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["path"] != self.path:
            await _respond(send, _text(404, "Not Found"))
            return
        if self.group is None:
            await _respond(send, _text(500, "asgi_app needs the ASGI lifespan protocol"))
            return
        body = await _read_body(receive)
        if body is None:
            await _respond(send, _text(413, "Payload Too Large"))
            return
        headers = tuple((k.decode("latin-1"), v.decode("latin-1")) for k, v in scope["headers"])
        request = HttpRequest(scope["method"], headers, body)
        new_id = secrets.token_hex(16) if request.method.upper() == "POST" else None
        self.server, got = http_receive(self.server, request, new_connection_id=new_id)
        connection_id = got.connection_id
        if got.closed and connection_id is not None:
            self._close(connection_id)
        if got.response is None and connection_id is not None and got.inbound is not None:
            await self._initialize(connection_id, got.inbound, send)
            return
        if got.opened is not None and got.response is not None and connection_id is not None:
            await self._stream(connection_id, got.opened.stream, got.response, receive, send)
            return
        if got.inbound is not None and connection_id in self.hosted:
            hosted = self.hosted[connection_id]
            events = self.step(hosted.link, Parsed(got.inbound))
            if events:
                hosted.events_in.send_nowait(events)
        if got.response is not None:
            await _respond(send, got.response)

    async def _initialize(self, connection_id: str, message: dict[str, Any], send: Send) -> None:
        assert self.group is not None
        link = AgentLink(self, connection_id)
        hosted = _Hosted(link)
        self.hosted[connection_id] = hosted
        await self.group.start(self._run, hosted)
        if not hosted.closed:
            events = self.step(link, Parsed(message))
            if events:
                hosted.events_in.send_nowait(events)
            await hosted.initialized.wait()
        answer = hosted.initialize or _text(500, "The agent closed the connection")
        await _respond(send, answer)

    async def _run(self, hosted: _Hosted, *, task_status: TaskStatus[None]) -> None:
        # The connection's tasks: the serial event task, and whatever the agent starts.
        try:
            async with anyio.create_task_group() as group:
                hosted.link._group = group
                agent = self.make_agent(hosted.link)
                hosted.agent = agent
                hosted.link._connection = agent.connection
                task_status.started()
                async with hosted.events_out:
                    async for events in hosted.events_out:
                        for event in events:
                            await agent.on_event(event)
        except Exception as e:  # the agent failed: this connection ends, the others go on
            hosted.link.error = e
            self._close(hosted.link.connection_id)
        finally:
            hosted.initialized.set()

    async def _stream(
        self, connection_id: str, key: str, first: HttpResponse, receive: Receive, send: Send
    ) -> None:
        hosted = self.hosted.get(connection_id)
        writer, reader = anyio.create_memory_object_stream[bytes](math.inf)
        if hosted is None or hosted.closed:
            writer.close()
        else:
            hosted.streams[key] = writer
        await send({
            "type": "http.response.start",
            "status": first.status,
            "headers": _headers(first.headers),
        })  # fmt: skip
        await send({"type": "http.response.body", "body": first.body, "more_body": True})
        try:
            async with anyio.create_task_group() as group:

                async def watch() -> None:
                    while (await receive())["type"] != "http.disconnect":
                        pass
                    group.cancel_scope.cancel()

                group.start_soon(watch)
                async with reader:
                    async for data in reader:
                        await send({"type": "http.response.body", "body": data, "more_body": True})
                await send({"type": "http.response.body", "body": b"", "more_body": False})
                group.cancel_scope.cancel()
        finally:
            if hosted is not None and hosted.streams.get(key) is writer:
                del hosted.streams[key]
                self.server = http_stream_closed(self.server, connection_id, key)

    # -- steps ---------------------------------------------------------------------------------

    def step(self, link: AgentLink, input: object) -> tuple[object, ...]:
        hosted = self.hosted.get(link.connection_id)
        if hosted is None or hosted.closed:
            return ()
        link._connection, outbound, events = connection_step(link.connection, input)
        for message in outbound:
            self.server, sent = http_send(self.server, link.connection_id, message)
            self._deliver(hosted, sent)
            if self.hosted.get(link.connection_id) is not hosted:  # closed meanwhile
                break
        link._notify()
        return events

    def _deliver(self, hosted: _Hosted, sent: HttpSent) -> None:
        if sent.closed:
            self._close(hosted.link.connection_id)
        elif sent.initialize is not None:
            hosted.initialize = sent.initialize
            hosted.initialized.set()
        elif sent.data and sent.stream is not None:
            writer = hosted.streams.get(sent.stream)
            if writer is not None:
                writer.send_nowait(sent.data)

    def _close(self, connection_id: str) -> None:
        hosted = self.hosted.pop(connection_id, None)
        if hosted is None:
            return
        hosted.closed = True
        for writer in hosted.streams.values():
            writer.close()
        hosted.streams.clear()
        hosted.events_in.close()
        if hosted.link._group is not None:
            hosted.link._group.cancel_scope.cancel()
        hosted.initialized.set()
        if connection_id in self.server.connections:  # over a limit, or the agent failed
            connections = self.server.connections.delete(connection_id)
            self.server = HttpServer(self.server.limits, connections)


def _text(status: int, message: str) -> HttpResponse:
    return HttpResponse(status, (("Content-Type", "text/plain"),), message.encode())


def _headers(headers: tuple[tuple[str, str], ...]) -> list[tuple[bytes, bytes]]:
    return [(k.lower().encode("latin-1"), v.encode("latin-1")) for k, v in headers]


async def _respond(send: Send, response: HttpResponse) -> None:
    await send({
        "type": "http.response.start",
        "status": response.status,
        "headers": _headers(response.headers),
    })  # fmt: skip
    await send({"type": "http.response.body", "body": response.body})


async def _read_body(receive: Receive) -> bytes | None:
    parts: list[bytes] = []
    size = 0
    while True:
        message = await receive()
        if message["type"] == "http.disconnect":
            return b"".join(parts)
        chunk = message.get("body", b"")
        size += len(chunk)
        if size > MAX_BODY:
            return None
        parts.append(chunk)
        if not message.get("more_body", False):
            return b"".join(parts)
