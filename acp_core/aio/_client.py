"""The client side of the remote transports: Streamable HTTP on httpx, WebSocket on wsproto.

Owns: `connect` (a URL in, an open `RemoteTransport` out, closed when the block ends),
`RemoteTransport` (JSON-RPC messages out with `send`, framed messages in with `receive`,
whichever the profile), `ClientLink` (a `ClientConnection` stepped over a transport: the same
intents and events as on stdio), and `TransportError`.
Must not know: what a message means beyond its `id`, `method` and `sessionId` (the client
connection judges the protocol), or the SSE and frame formats (the pure core's `feed_sse`
and `decode_frame` read them).

Theory of operation. Over HTTP, the first message sent must be the `initialize` request: it
is POSTed alone, its 200 answer is the first message received, and its `Acp-Connection-Id`
header names the connection from then on. A task then reads the connection's SSE stream
(GET); the first message naming a session id (`params.sessionId`) opens that session's
stream before it is POSTed (the server keeps what comes for a stream nobody reads, so
nothing is lost by opening it late). Every later message is POSTed in the order `send` was
called (one at a time) and must be answered 202; the answer to an agent's request carries
the `Acp-Session-Id` of the stream the request came on. A stream that drops is opened again
with the `Last-Event-ID` its decoder last saw, so the server sends each event once; a GET
answered 404 (the connection is gone) ends the transport, which `receive` then reports as
`EOFError`, as end of input on stdio. Leaving the `connect` block sends DELETE.
Over WebSocket, one text frame per message each way, on wsproto over an anyio TCP stream
(TLS for `wss://`); the socket closing ends the transport. Either way at most `MAX_QUEUED`
received messages wait for `receive`; past that the reading stops until the host takes one
(the server's buffers and TCP hold the rest), and an SSE event or frame longer than
`MAX_MESSAGE` is a `FramingError`, never a bigger buffer.
"""

from __future__ import annotations

import contextlib
import ssl
from collections.abc import AsyncIterator, Iterable
from typing import Any, Protocol
from urllib.parse import urlsplit

import anyio
import httpx
from anyio.abc import ByteStream, TaskGroup
from anyio.streams.memory import MemoryObjectReceiveStream, MemoryObjectSendStream
from wsproto import ConnectionType, WSConnection
from wsproto.events import (
    AcceptConnection,
    CloseConnection,
    Event,
    Ping,
    RejectConnection,
    RejectData,
    Request,
    TextMessage,
)
from wsproto.utilities import LocalProtocolError as WsProtocolError

from acp_core import connection_step
from acp_core._errors import AcpError, ArgumentError
from acp_core._wire._http import params_session, route_key  # the server's own routing keys
from acp_core.connection import (
    CONNECTION_STREAM,
    HEADER_CONNECTION_ID,
    HEADER_SESSION_ID,
    ClientConnection,
    ConnectionStep,
    FramingError,
    Parsed,
    SseDecoder,
    decode_frame,
    encode_frame,
    feed_sse,
)

__all__ = ["ClientLink", "RemoteTransport", "TransportError", "connect"]

#: Largest message received (a longer SSE event or WebSocket frame is a `FramingError`).
MAX_MESSAGE = 8 * 1024 * 1024
_JSON = {"Content-Type": "application/json", "Accept": "application/json, text/event-stream"}
#: No read timeout on the streams (an idle agent sends nothing); a connect still times out.
_STREAM_TIMEOUT = httpx.Timeout(10.0, read=None)
#: Messages received and not yet taken by `receive`: past it, the transport stops reading
#: (the server's own buffers, then TCP, hold the rest), so a host that reads nothing for a
#: while holds at most this many.
MAX_QUEUED = 1024
#: Opens of a stream in a row that bring no event before the transport gives up on it.
_MAX_REOPENS = 3
#: A reopened stream the server still thinks is read (409) is asked for again, a little later.
_MAX_BUSY, _BUSY_PAUSE = 100, 0.05


class TransportError(AcpError):
    """The remote end refused or broke the transport (the message says how; `status` is the
    HTTP status when there was one)."""

    def __init__(self, message: str, status: int | None = None) -> None:
        super().__init__(message)
        self.status = status


class RemoteTransport(Protocol):
    """JSON-RPC messages to and from one remote agent connection."""

    #: The connection's id (`Acp-Connection-Id`), once the server gave one.
    connection_id: str | None

    async def send(self, message: dict[str, Any]) -> None:
        """Send one message (in order with every other `send`).

        Raises:
            TransportError: the server refused it or the transport is gone.
        """

    async def receive(self) -> Parsed | FramingError:
        """The next message from the agent (a frame that is not JSON: a `FramingError`).

        Raises:
            EOFError: the transport ended (the server closed it, or it broke).
        """


_Inbound = tuple[MemoryObjectSendStream["Parsed | FramingError"],
                 MemoryObjectReceiveStream["Parsed | FramingError"]]  # fmt: skip


def _queue() -> _Inbound:
    # Closed by the side that reads once the transport ended: `receive` takes what is
    # queued, then raises EOFError.
    return anyio.create_memory_object_stream["Parsed | FramingError"](MAX_QUEUED)


async def _next(inbound: MemoryObjectReceiveStream[Parsed | FramingError]) -> Any:
    try:
        return await inbound.receive()
    except (anyio.EndOfStream, anyio.ClosedResourceError):
        raise EOFError from None


async def _put(
    inbound: MemoryObjectSendStream[Parsed | FramingError], event: Parsed | FramingError
) -> None:
    # Waits while MAX_QUEUED messages wait for the host (the reading stops meanwhile).
    with contextlib.suppress(anyio.ClosedResourceError, anyio.BrokenResourceError):
        await inbound.send(event)


class _HttpTransport:
    def __init__(
        self, client: httpx.AsyncClient, url: str, headers: dict[str, str], group: TaskGroup
    ) -> None:
        self.client = client
        self.url = url
        self.headers = headers
        self.group = group
        self.connection_id: str | None = None
        self.inbound_in, self.inbound = _queue()
        self.lock = anyio.Lock()
        self.streams: set[str] = set()
        #: The stream each agent request came on (its answer names that session).
        self.routes: dict[str, str] = {}
        self.ended = False

    async def send(self, message: dict[str, Any]) -> None:
        async with self.lock:
            if self.ended:
                raise TransportError("the connection is closed")
            if self.connection_id is None:
                await self._initialize(message)
                return
            headers = {**self.headers, **_JSON, HEADER_CONNECTION_ID: self.connection_id}
            if "method" in message:
                session_id = params_session(message)
            else:
                session_id = self.routes.pop(route_key(message.get("id")) or "", None) or None
            if session_id is not None:
                headers[HEADER_SESSION_ID] = session_id
                self._open(session_id)
            response = await self._request("POST", headers, encode_frame(message).encode())
            if response.status_code != 202:
                raise _refused("POST", response)

    async def _initialize(self, message: dict[str, Any]) -> None:
        if message.get("method") != "initialize" or "id" not in message:
            raise TransportError("the first message over HTTP must be the initialize request")
        headers = {**self.headers, **_JSON}
        response = await self._request("POST", headers, encode_frame(message).encode())
        connection_id = response.headers.get(HEADER_CONNECTION_ID)
        if response.status_code != 200 or not connection_id:
            raise _refused("initialize", response)
        self.connection_id = connection_id
        self.inbound_in.send_nowait(decode_frame(response.text, max_size=MAX_MESSAGE))
        self._open(CONNECTION_STREAM)

    async def _request(self, method: str, headers: dict[str, str], body: bytes) -> httpx.Response:
        try:
            return await self.client.request(method, self.url, headers=headers, content=body)
        except httpx.HTTPError as e:
            raise TransportError(f"{method} {self.url} failed: {type(e).__name__} {e}") from None

    def _open(self, key: str) -> None:
        if key not in self.streams:
            self.streams.add(key)
            self.group.start_soon(self._stream, key)

    async def _stream(self, key: str) -> None:
        # One SSE stream, read until the connection is gone; reopened where it broke, with
        # the id of the last complete event (a broken event is read again whole).
        assert self.connection_id is not None
        last: str | None = None
        failures = 0  # opens in a row that brought nothing
        busy = 0  # 409s in a row
        while not self.ended and failures < _MAX_REOPENS:
            headers = {**self.headers, "Accept": "text/event-stream"}
            headers[HEADER_CONNECTION_ID] = self.connection_id
            if key != CONNECTION_STREAM:
                headers[HEADER_SESSION_ID] = key
            if last is not None:
                headers["Last-Event-ID"] = last
            decoder = SseDecoder(max_buffer=MAX_MESSAGE, last_event_id=last)
            failures += 1
            try:
                request = self.client.build_request(
                    "GET", self.url, headers=headers, timeout=_STREAM_TIMEOUT
                )
                response = await self.client.send(request, stream=True)
                try:
                    if response.status_code == 409 and busy < _MAX_BUSY:
                        # The server has not yet seen our last reader of it go: again.
                        busy += 1
                        failures -= 1
                        await anyio.sleep(_BUSY_PAUSE)
                        continue
                    if response.status_code != 200:
                        break  # 404: the connection is gone; anything else: refused
                    busy = 0
                    async for data in response.aiter_bytes():
                        decoder, events = feed_sse(decoder, data)
                        for event in events:
                            failures = 0
                            last = event.id
                            await self._received(key, event.data)
                finally:
                    await response.aclose()
            except (httpx.HTTPError, AcpError):
                continue  # dropped (or an event over the limit): open it again
        self._end()

    async def _received(self, key: str, data: str) -> None:
        event = decode_frame(data, max_size=MAX_MESSAGE)
        if isinstance(event, Parsed) and isinstance(event.value, dict):
            message = event.value
            request_key = route_key(message.get("id"))
            if "method" in message and request_key is not None:
                self.routes[request_key] = key
        if not self.ended:
            await _put(self.inbound_in, event)

    def _end(self) -> None:
        self.ended = True
        self.inbound_in.close()

    async def receive(self) -> Parsed | FramingError:
        event: Parsed | FramingError = await _next(self.inbound)
        return event

    async def aclose(self) -> None:
        connection_id, ended = self.connection_id, self.ended
        self.ended = True
        if connection_id is not None and not ended:
            headers = {**self.headers, HEADER_CONNECTION_ID: connection_id}
            with contextlib.suppress(httpx.HTTPError):
                await self.client.request("DELETE", self.url, headers=headers)


class _WsTransport:
    def __init__(self, stream: ByteStream) -> None:
        self.stream = stream
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.connection_id: str | None = None
        self.inbound_in, self.inbound = _queue()
        self.lock = anyio.Lock()
        self.ended = False

    async def _write(self, event: Event) -> None:
        await self.stream.send(self.ws.send(event))

    async def _events(self) -> list[Event]:
        try:
            data: bytes | None = await self.stream.receive()
        except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
            data = None
        self.ws.receive_data(data)
        return list(self.ws.events())

    async def handshake(self, host: str, target: str, headers: dict[str, str]) -> None:
        extra = [(k.encode("latin-1"), v.encode("latin-1")) for k, v in headers.items()]
        await self._write(Request(host=host, target=target, extra_headers=extra))
        while True:
            for event in await self._events():
                if isinstance(event, AcceptConnection):
                    found = {k.decode().lower(): v.decode() for k, v in event.extra_headers}
                    self.connection_id = found.get(HEADER_CONNECTION_ID.lower())
                    return
                if isinstance(event, (RejectConnection, RejectData)):
                    status = getattr(event, "status_code", None)
                    raise TransportError(f"the WebSocket upgrade was refused ({status})", status)
                if isinstance(event, CloseConnection):
                    raise TransportError("the server closed the socket during the upgrade")

    async def read(self) -> None:
        parts: list[str] = []
        try:
            while not self.ended:
                events = await self._events()
                if not events and self.ws.state.name == "CLOSED":
                    break
                for event in events:
                    if isinstance(event, TextMessage):
                        parts.append(event.data)
                        if event.message_finished:
                            text, parts = "".join(parts), []
                            await _put(self.inbound_in, decode_frame(text, max_size=MAX_MESSAGE))
                    elif isinstance(event, Ping):
                        async with self.lock:
                            await self._write(event.response())
                    elif isinstance(event, CloseConnection):
                        with contextlib.suppress(Exception):
                            async with self.lock:
                                await self._write(event.response())
                        return
                if self.ws.state.name == "CLOSED":
                    return
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            return
        finally:
            self.ended = True
            self.inbound_in.close()

    async def send(self, message: dict[str, Any]) -> None:
        async with self.lock:
            if self.ended:
                raise TransportError("the socket is closed")
            try:
                await self._write(TextMessage(encode_frame(message)))
            except WsProtocolError:
                raise TransportError("the server is closing the socket") from None
            except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as e:
                raise TransportError(f"the socket broke: {e}") from None

    async def receive(self) -> Parsed | FramingError:
        event: Parsed | FramingError = await _next(self.inbound)
        return event

    async def aclose(self) -> None:
        if not self.ended:
            with contextlib.suppress(Exception):
                async with self.lock:
                    await self._write(CloseConnection(1000))
        with contextlib.suppress(Exception):
            await self.stream.aclose()


def _refused(what: str, response: httpx.Response) -> TransportError:
    text = response.text.strip()[:200]
    return TransportError(f"{what} answered {response.status_code}: {text}", response.status_code)


@contextlib.asynccontextmanager
async def connect(
    url: str, *, headers: Iterable[tuple[str, str]] = (), token: str | None = None
) -> AsyncIterator[RemoteTransport]:
    """Open a transport to the agent at `url` (`http://`/`https://`: Streamable HTTP;
    `ws://`/`wss://`: WebSocket); it is closed (HTTP: DELETE) when the block ends.

    `headers` go on every request (and the upgrade); `token` adds `Authorization: Bearer T`.

    Raises:
        TransportError: the server could not be reached or refused the WebSocket upgrade.
        ArgumentError: `url` has another scheme.
    """
    given = dict(headers)
    if token is not None:
        given["Authorization"] = f"Bearer {token}"
    parts = urlsplit(url)
    if parts.scheme not in ("http", "https", "ws", "wss"):
        msg = f"connect takes an http://, https://, ws:// or wss:// URL, not {url!r}"
        raise ArgumentError(msg)
    try:
        async with anyio.create_task_group() as group:
            if parts.scheme in ("http", "https"):
                async with httpx.AsyncClient(timeout=httpx.Timeout(30.0)) as client:
                    transport = _HttpTransport(client, url, given, group)
                    try:
                        yield transport
                    finally:
                        await transport.aclose()
                        group.cancel_scope.cancel()
            else:
                ws = await _open_ws(parts.scheme, parts.hostname, parts.port, given)
                try:
                    await ws.handshake(parts.netloc, parts.path or "/", given)
                except BaseException:
                    await ws.stream.aclose()
                    raise
                group.start_soon(ws.read)
                try:
                    yield ws
                finally:
                    await ws.aclose()
                    group.cancel_scope.cancel()
    except BaseExceptionGroup as group_error:
        # The background tasks raise nothing: the one error is the block's (or ours).
        if len(group_error.exceptions) == 1:
            raise group_error.exceptions[0] from None
        raise


async def _open_ws(
    scheme: str, host: str | None, port: int | None, headers: dict[str, str]
) -> _WsTransport:
    where = (host or "localhost", port or (443 if scheme == "wss" else 80))
    try:
        stream: ByteStream
        if scheme == "wss":
            stream = await anyio.connect_tcp(*where, ssl_context=ssl.create_default_context())
        else:
            stream = await anyio.connect_tcp(*where)
    except OSError as e:
        raise TransportError(f"could not connect to {where[0]}:{where[1]}: {e}") from None
    return _WsTransport(stream)


class ClientLink:
    """A `ClientConnection` stepped over a `RemoteTransport`: the same intents and events as
    on stdio. `step` sends what a step returns; `receive` steps the next message in."""

    def __init__(self, transport: RemoteTransport, connection: ClientConnection) -> None:
        self.transport = transport
        self.connection = connection
        self._lock = anyio.Lock()

    async def step(self, input: object) -> ConnectionStep:
        """Step the connection with `input` (an intent, a `SessionIntent`, ...), send its
        outbound in order, and return the step (its `events` and `ids`).

        Raises:
            TransportError: the server refused a message or the transport is gone.
        """
        async with self._lock:
            step = connection_step(self.connection, input)
            self.connection = step.connection
            for message in step.outbound:
                # (only an agent sends an array: its replies to a client's batch)
                assert isinstance(message, dict)
                await self.transport.send(message)
        return step

    async def receive(self) -> ConnectionStep:
        """Wait for the next message from the agent and step it in (what the step owes the
        agent, a `-32700` for instance, is sent).

        Raises:
            EOFError: the transport ended.
            TransportError: an answer could not be sent.
        """
        event = await self.transport.receive()
        return await self.step(event)
