"""The Streamable HTTP profile's server, and its WebSocket upgrade, as an ASGI 3 application.

Owns: `asgi_app`, `Agent`, `AgentLink`, the host's request check (`Authorize`,
`bearer_token`): the bytes of each HTTP request in, the pure core's
answers out; one agent connection per `Acp-Connection-Id` (drawn here with `secrets`), the
open SSE responses of each connection's streams, and the tasks each connection runs; on the
same path, an ASGI "websocket" scope is one agent connection for the life of the socket, one
JSON-RPC message per text frame each way, and the close codes (1009 for a frame over
`max_frame`, 1011 when the agent fails, 1001 at shutdown); a socket whose reader is more than
`max_buffered_bytes` behind is dropped.
Must not know: which stream a message belongs on, what a status code means for the
protocol, what a frame that is not JSON is answered, or what an agent answers
(`http_receive`/`http_send`, `decode_frame` and the agent connection decide all of it).

Over the ~600-line guide on purpose: one job, the one ASGI application a host mounts on one
path, whose two scopes ("http" and "websocket") share its connections, tasks, shutdown and
authorization. The seam if it grows: the "websocket" scope's loop into a module of its own.

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

A WebSocket is simpler: no routing. The handler accepts the upgrade (with the connection id
in an `Acp-Connection-Id` header, as the TypeScript SDK 2.4.0 does), runs the connection's
tasks in its own task group (no lifespan needed), and steps every text frame in
(`decode_frame`, whose `FramingError` the connection answers -32700 and goes on); every
message a step sends is one text frame, queued for a writer task in the order sent. The ASGI
server's `send` waits while the socket is full (uvicorn and hypercorn both do), so the queue
grows only while the client reads nothing; past `HttpLimits.max_buffered_bytes` characters the
connection ends and the handler's cancel scope drops the socket. Binary frames are ignored, as
both official SDKs do. The socket closing ends the connection.
"""

from __future__ import annotations

import contextlib
import math
import secrets
from collections.abc import Awaitable, Callable, Coroutine, MutableMapping
from typing import Any, Final, Protocol, TypeVar

import anyio
from anyio.abc import TaskGroup, TaskStatus
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream

from acp_core import connection_step
from acp_core.connection import (
    AgentConnection,
    ConnectionStep,
    FramingError,
    HttpRequest,
    HttpResponse,
    HttpSent,
    HttpServer,
    Parsed,
    decode_frame,
    encode_frame,
    http_receive,
    http_send,
    http_stream_closed,
    new_http_server,
)
from acp_core.errors import ArgumentError

__all__ = ["Agent", "AgentLink", "Authorize", "asgi_app", "bearer_token"]

Scope = MutableMapping[str, Any]
Message = MutableMapping[str, Any]
Receive = Callable[[], Awaitable[Message]]
Send = Callable[[Message], Awaitable[None]]
App = Callable[[Scope, Receive, Send], Awaitable[None]]
T = TypeVar("T")

#: Largest POST body read (bigger ones are answered 413 before anything sees them).
MAX_BODY = 8 * 1024 * 1024
#: Largest WebSocket text frame stepped (a bigger one closes the socket with 1009).
MAX_FRAME = MAX_BODY

#: WebSocket close codes (RFC 6455, section 7.4.1).
CLOSE_NORMAL = 1000
CLOSE_GOING_AWAY = 1001
CLOSE_POLICY = 1008
CLOSE_TOO_BIG = 1009
CLOSE_INTERNAL_ERROR = 1011


#: A host's check of one request's headers (names lower-cased), run before anything else of
#: the request is read: None lets it in, else the status it is refused with (401 or 403).
Authorize = Callable[[tuple[tuple[str, str], ...]], "int | None"]


def bearer_token(token: str) -> Authorize:
    """The check that lets in a request with `Authorization: Bearer <token>`: no token (or
    another scheme) is refused 401, another token 403 (compared in constant time)."""
    wanted = token.encode()

    def check(headers: tuple[tuple[str, str], ...]) -> int | None:
        given = next((v for k, v in headers if k == "authorization"), None)
        scheme, _, value = (given or "").partition(" ")
        if given is None or scheme.lower() != "bearer":
            return 401
        return None if secrets.compare_digest(value.strip().encode(), wanted) else 403

    return check


class Agent(Protocol):
    """What `make_agent` returns for one connection.

    Attributes:
        connection: the agent connection to start from (`acp_core.new_agent_connection`);
            read once, after which `AgentLink.connection` is the current value.
    """

    connection: AgentConnection

    async def on_event(self, event: object) -> None:
        """One event of a step that received a client message, in order, one at a time."""


class _Trace(Protocol):
    def append(self, entry: dict[str, Any], /) -> None: ...


class _Host(Protocol):
    # What steps a link's connection and moves what it sends: `asgi_app`, `serve_stdio`.
    def step(self, link: AgentLink, input: object) -> ConnectionStep: ...


class AgentLink:
    """One hosted connection, as its agent sees it: the current connection value, steps,
    waits and background tasks (a turn runs as one: `start_soon`)."""

    def __init__(self, app: _Host, connection_id: str) -> None:
        self._app = app
        self.connection_id = connection_id
        self._connection: AgentConnection | None = None
        self._changed = anyio.Event()
        self._group: TaskGroup | None = None
        #: What ended the connection when its agent raised (else None).
        self.error: Exception | None = None
        #: Set by the agent to record the connection's traffic: `trace.append(entry)` gets
        #: `{"from": "client" | "agent", "message": ...}` per message, in the order the
        #: connection took them (docs/trace-format.md).
        self.trace: _Trace | None = None
        #: Set by the agent to keep each step durably before it counts (`serve_stdio` only):
        #: `keep(step)` is called before the step is kept or sent; raising an `AcpError`
        #: refuses it (the connection stays as it was, nothing is sent, the caller of `step`
        #: gets the error, and a client request it refused is answered `-32603`).
        self.keep: Callable[[ConnectionStep], None] | None = None

    @property
    def connection(self) -> AgentConnection:
        """The connection's current value."""
        assert self._connection is not None  # set before make_agent's agent is ever called
        return self._connection

    def step(self, input: object) -> tuple[object, ...]:
        """Step the connection with `input` (an intent, a `SessionIntent`, ...), route what
        it sends to its SSE streams (or its WebSocket), and return the step's events."""
        return self._app.step(self, input).events

    def full_step(self, input: object) -> ConnectionStep:
        """As `step`, returning the whole `ConnectionStep` (its `ids`: the request id the
        connection chose for a `RequestPermission`, ...)."""
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
        #: A WebSocket connection: its outbound frames, and the code it closes with.
        self.socket: MemoryObjectSendStream[str] | None = None
        self.close_code = CLOSE_NORMAL
        #: Characters of frames queued and not yet taken by the ASGI server's `send`.
        self.queued = 0
        #: Cancelled to drop a WebSocket whose reader fell too far behind.
        self.abort: anyio.CancelScope | None = None


def asgi_app(
    make_agent: Callable[[AgentLink], Agent],
    *,
    path: str = "/acp",
    server: HttpServer | None = None,
    max_frame: int = MAX_FRAME,
    authorize: Authorize | None = None,
    cors_origins: tuple[str, ...] = (),
) -> App:
    """An ASGI 3 application serving the Streamable HTTP profile and WebSocket at `path`.

    `make_agent(link)` is called once per `initialize` POST (a new connection) and once per
    WebSocket upgrade, and returns the agent for it; `server` sets the HTTP limits
    (`new_http_server(HttpLimits(...))`); a WebSocket text frame longer than `max_frame`
    characters closes its socket with 1009 (Message Too Big). `authorize(headers)` (for
    instance `bearer_token(T)`) sees every request's headers before its body or any frame
    is read: a refused request is answered with the status it returns (a refused WebSocket
    upgrade: 403) and touches no connection.

    CORS is off: a browser page of another origin gets no `Access-Control-*` header, so it
    cannot read an answer. `cors_origins` names the origins (`"https://app.example"`, exact
    matches) whose pages may: their requests' answers and streams carry
    `Access-Control-Allow-Origin` and expose the `Acp-*` headers, and their preflight
    (`OPTIONS` with `Origin`) is answered 204 before `authorize` runs (a browser sends no
    credentials on a preflight); every other request of theirs still passes `authorize`.
    """
    served = new_http_server() if server is None else server
    if type(cors_origins) is not tuple or not all(type(o) is str for o in cors_origins):
        msg = f"cors_origins must be a tuple of origin strings, not {cors_origins!r}"
        raise ArgumentError(msg)
    return _App(make_agent, path, served, max_frame, authorize, frozenset(cors_origins))


class _App:
    def __init__(
        self,
        make_agent: Callable[[AgentLink], Agent],
        path: str,
        server: HttpServer,
        max_frame: int = MAX_FRAME,
        authorize: Authorize | None = None,
        cors_origins: frozenset[str] = frozenset(),
    ) -> None:
        self.make_agent = make_agent
        self.cors_origins = cors_origins
        self.authorize = authorize
        self.path = path
        self.server = server
        self.max_frame = max_frame
        self.hosted: dict[str, _Hosted] = {}
        self.group: TaskGroup | None = None

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] == "lifespan":
            await self._lifespan(receive, send)
        elif scope["type"] == "http":
            await self._http(scope, receive, send)
        elif scope["type"] == "websocket":
            await self._websocket(scope, receive, send)

    async def _lifespan(self, receive: Receive, send: Send) -> None:
        async with anyio.create_task_group() as group:
            await receive()  # lifespan.startup
            self.group = group
            await send({"type": "lifespan.startup.complete"})
            await receive()  # lifespan.shutdown
            for connection_id, hosted in list(self.hosted.items()):
                hosted.close_code = CLOSE_GOING_AWAY
                self._close(connection_id)
            self.group = None
            group.cancel_scope.cancel()
        await send({"type": "lifespan.shutdown.complete"})

    # -- requests ----------------------------------------------------------------------------

    async def _http(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["path"] != self.path:
            await _respond(send, _text(404, "Not Found"))
            return
        origin = _origin(scope)
        if origin is not None and origin in self.cors_origins:
            send = _with_cors(send, origin)
            if scope["method"] == "OPTIONS":
                await _respond(send, _PREFLIGHT)
                return
        refused = self._refused(scope)
        if refused is not None:
            await _respond(send, refused)
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
            events = self.step(hosted.link, Parsed(got.inbound)).events
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
            events = self.step(link, Parsed(message)).events
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
            hosted.close_code = CLOSE_INTERNAL_ERROR
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

    def _refused(self, scope: Scope) -> HttpResponse | None:
        # The host's check, on the headers alone: the answer says nothing of any connection.
        if self.authorize is None:
            return None
        headers = tuple(
            (k.decode("latin-1").lower(), v.decode("latin-1")) for k, v in scope["headers"]
        )
        status = self.authorize(headers)
        if status is None:
            return None
        if status == 401:
            return HttpResponse(
                401,
                (("Content-Type", "text/plain"), ("WWW-Authenticate", "Bearer")),
                b"Unauthorized",
            )
        return _text(status, "Forbidden")

    # -- WebSocket -----------------------------------------------------------------------------

    async def _websocket(self, scope: Scope, receive: Receive, send: Send) -> None:
        if (await receive())["type"] != "websocket.connect":
            return
        if scope["path"] != self.path:
            await send({"type": "websocket.close", "code": 1008})  # the server answers 403
            return
        if self._refused(scope) is not None:
            await send({"type": "websocket.close", "code": CLOSE_POLICY})  # answered 403
            return
        connection_id = secrets.token_hex(16)
        link = AgentLink(self, connection_id)
        hosted = _Hosted(link)
        writer, frames = anyio.create_memory_object_stream[str](math.inf)
        hosted.socket = writer
        self.hosted[connection_id] = hosted
        gone = anyio.Event()  # the client closed (or dropped) the socket
        try:
            with anyio.CancelScope() as hosted.abort:
                await self._ws_serve(hosted, frames, gone, receive, send)
        finally:
            self._close(connection_id)

    async def _ws_serve(
        self,
        hosted: _Hosted,
        frames: MemoryObjectReceiveStream[str],
        gone: anyio.Event,
        receive: Receive,
        send: Send,
    ) -> None:
        connection_id = hosted.link.connection_id
        async with anyio.create_task_group() as group:
            await send({
                "type": "websocket.accept",
                "headers": [(b"acp-connection-id", connection_id.encode())],
            })  # fmt: skip
            group.start_soon(self._ws_writer, hosted, frames, gone, send)
            with contextlib.suppress(RuntimeError):  # make_agent raised: closes 1011
                await group.start(self._run, hosted)
            await self._ws_reader(hosted, receive)
            gone.set()
            self._close(connection_id)

    async def _ws_reader(self, hosted: _Hosted, receive: Receive) -> None:
        # Every frame in, until the socket closes; after a close of ours, frames are read
        # (and dropped: the connection is gone) until the client's close arrives.
        while True:
            message = await receive()
            if message["type"] == "websocket.disconnect":
                return
            text = message.get("text")
            if message["type"] != "websocket.receive" or text is None or hosted.closed:
                continue  # a binary frame: ignored, as both official SDKs do
            event: Parsed | FramingError = decode_frame(text, max_size=self.max_frame)
            if isinstance(event, FramingError) and event.kind == "too_long":
                hosted.close_code = CLOSE_TOO_BIG
                self._close(hosted.link.connection_id)
                continue
            events = self.step(hosted.link, event).events
            if events and not hosted.closed:
                hosted.events_in.send_nowait(events)

    async def _ws_writer(
        self,
        hosted: _Hosted,
        frames: MemoryObjectReceiveStream[str],
        gone: anyio.Event,
        send: Send,
    ) -> None:
        # The frames in the order the steps sent them; once the connection ends, the close.
        try:
            async with frames:
                async for text in frames:
                    if gone.is_set():
                        return
                    await send({"type": "websocket.send", "text": text})
                    hosted.queued -= len(text)
            if not gone.is_set():
                await send({"type": "websocket.close", "code": hosted.close_code})
        except OSError:  # the client went away mid-send (ASGI: an OSError subclass)
            return

    # -- steps ---------------------------------------------------------------------------------

    def step(self, link: AgentLink, input: object) -> ConnectionStep:
        hosted = self.hosted.get(link.connection_id)
        if hosted is None or hosted.closed:
            return ConnectionStep(link._connection, (), ())
        stepped = connection_step(link.connection, input)
        link._connection, outbound, _ = stepped
        if link.trace is not None:
            if isinstance(input, Parsed):
                link.trace.append({"from": "client", "message": input.value})
            for message in outbound:
                link.trace.append({"from": "agent", "message": message})
        if hosted.socket is not None:  # a WebSocket: every message is one frame, in order
            for message in outbound:
                text = encode_frame(message)
                hosted.queued += len(text)
                hosted.socket.send_nowait(text)
            if hosted.queued > self.server.limits.max_buffered_bytes:
                # The reader is that far behind (the ASGI server's send waits for the
                # socket): the connection ends, and the socket is dropped, not closed,
                # since a close frame would wait behind the same backlog.
                hosted.close_code = CLOSE_POLICY
                self._close(link.connection_id)
                if hosted.abort is not None:
                    hosted.abort.cancel()
            link._notify()
            return stepped
        # (HTTP takes no batches, so no reply array comes; were one to, each reply would go
        # to the stream of the POST it answers)
        replies: list[dict[str, Any]] = []
        for message in outbound:
            if isinstance(message, list):
                replies.extend(message)
            else:
                replies.append(message)
        for message in replies:
            self.server, sent = http_send(self.server, link.connection_id, message)
            self._deliver(hosted, sent)
            if self.hosted.get(link.connection_id) is not hosted:  # closed meanwhile
                break
        link._notify()
        return stepped

    def _deliver(self, hosted: _Hosted, sent: HttpSent) -> None:
        if sent.closed:
            self._close(hosted.link.connection_id)
        elif sent.initialize is not None:
            hosted.initialize = sent.initialize
            hosted.initialized.set()
        elif sent.data and sent.stream is not None:
            writer = hosted.streams.get(sent.stream)
            if writer is None:
                return
            try:
                writer.send_nowait(sent.data)
            except (anyio.BrokenResourceError, anyio.ClosedResourceError):
                # The response's reader is gone (the client dropped the stream) and its task
                # has not yet said so: the stream closes here; the event stays kept, and a
                # reader that comes back with Last-Event-ID gets it.
                del hosted.streams[sent.stream]
                connection_id = hosted.link.connection_id
                self.server = http_stream_closed(self.server, connection_id, sent.stream)

    def _close(self, connection_id: str) -> None:
        hosted = self.hosted.pop(connection_id, None)
        if hosted is None:
            return
        hosted.closed = True
        for writer in hosted.streams.values():
            writer.close()
        hosted.streams.clear()
        if hosted.socket is not None:
            hosted.socket.close()
        hosted.events_in.close()
        if hosted.link._group is not None:
            hosted.link._group.cancel_scope.cancel()
        hosted.initialized.set()
        if connection_id in self.server.connections:  # over a limit, or the agent failed
            connections = self.server.connections.delete(connection_id)
            self.server = HttpServer(self.server.limits, connections)


def _text(status: int, message: str) -> HttpResponse:
    return HttpResponse(status, (("Content-Type", "text/plain"),), message.encode())


#: What a browser page of an allowed origin may send and read (`asgi_app(cors_origins=...)`).
_CORS_EXPOSED: Final = b"acp-connection-id, acp-session-id"
_PREFLIGHT: Final = HttpResponse(
    204,
    (
        ("Access-Control-Allow-Methods", "GET, POST, DELETE"),
        (
            "Access-Control-Allow-Headers",
            "authorization, content-type, accept, acp-connection-id, acp-session-id, last-event-id",
        ),
        ("Access-Control-Max-Age", "600"),
    ),
    b"",
)


def _origin(scope: Scope) -> str | None:
    for key, value in scope["headers"]:
        if key.lower() == b"origin":
            return str(value.decode("latin-1"))
    return None


def _with_cors(send: Send, origin: str) -> Send:
    # Every answer to an allowed origin, streams included, says so (and that it varies by it).
    extra = [
        (b"access-control-allow-origin", origin.encode("latin-1")),
        (b"access-control-expose-headers", _CORS_EXPOSED),
        (b"vary", b"origin"),
    ]

    async def cors_send(message: Any) -> None:
        if message["type"] == "http.response.start":
            message = {**message, "headers": [*message.get("headers", []), *extra]}
        await send(message)

    return cors_send


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
