"""The Streamable HTTP profile of the remote transport, server side, sans-IO.

Owns: `HttpServer`, the frozen state of every connection one `/acp` endpoint serves, and the
three steps a host drives it with: `http_receive` (an HTTP request came in: the answer owed
now, the JSON-RPC message to hand to that connection's agent, or the SSE stream the request
opens), `http_send` (the agent sent a message: which stream it belongs on and the SSE bytes
to write, or the `initialize` answer), `http_stream_closed` (a stream's reader went away).
Also the routing rules of the RFD (agentclientprotocol/agent-client-protocol#721, as the
TypeScript SDK 2.4.0 implements it): the `initialize` exchange and its connection id, `202`
for every later POST, the connection stream and one stream per session, which message goes
on which, `DELETE`, and the HTTP errors (415, 400, 404, 406, 409, 405).
Must not know: sockets, ASGI, clocks or randomness (connection ids are inputs); what a
JSON-RPC message means beyond its `id`, `method` and `sessionId` (the agent connection
judges the protocol); how an agent answers.

Theory of operation. Every server-to-client message of a connection is one SSE event on one
stream: a response goes where its request came from (the connection stream, or the session
whose `Acp-Session-Id` it carried; `session/load` answers on the connection stream), a
request or notification naming a `sessionId` on that session's stream, anything else on the
connection stream. Each stream numbers its events 1, 2, 3, ... (the SSE `id`). An event for a
stream nobody reads is buffered until a GET attaches; an event written is kept a while
(`HttpLimits.replay_bytes`) so a reader that drops its stream can come back with
`Last-Event-ID` and get what it missed; what is no longer kept is said in an SSE comment
and in `StreamOpened.missed`, never silently skipped. Buffered output per connection is
bounded (`max_buffered_bytes`, `max_session_streams`); a connection over a limit is closed
(`HttpSent.closed`), as the TypeScript SDK does.
"""

from __future__ import annotations

import json
from typing import Any, Final

import attrs
import immutables

from acp_core._errors import ArgumentError, DecodeError

from ._fastnew import evolve_frozen
from ._freezing import Converter, freeze_fields_with, freeze_given, freezing_fields
from ._sse import SseEvent, encode_comment, encode_event
from ._value import frozen

__all__ = [
    "CONNECTION_STREAM",
    "HEADER_CONNECTION_ID",
    "HEADER_SESSION_ID",
    "HttpConnection",
    "HttpLimits",
    "HttpReceived",
    "HttpRequest",
    "HttpResponse",
    "HttpSent",
    "HttpServer",
    "OutboundStream",
    "StreamOpened",
    "http_receive",
    "http_send",
    "http_stream_closed",
    "new_http_server",
]

HEADER_CONNECTION_ID: Final = "Acp-Connection-Id"
HEADER_SESSION_ID: Final = "Acp-Session-Id"
#: The key of a connection's own stream (session streams are keyed by their session id).
CONNECTION_STREAM: Final = ""
_JSON: Final = "application/json"
_EVENT_STREAM: Final = "text/event-stream"
# The methods whose POST must carry `Acp-Session-Id` (the TypeScript SDK's list).
_SESSION_SCOPED: Final = frozenset({
    "session/cancel", "session/close", "session/delete", "session/fork", "session/load",
    "session/prompt", "session/resume", "session/set_config_option", "session/set_mode",
    "session/set_model",
})  # fmt: skip


def _map_fields(where: str, typed: str) -> Converter | None:
    # The routing tables are persistent maps; a caller's dict is copied into one, frozen.
    if not typed.startswith("immutables.Map["):
        return None

    def convert(value: object) -> object:
        if type(value) is immutables.Map:
            return value
        if not isinstance(value, dict):
            raise DecodeError(where, f"a map, not {type(value).__name__}")
        return immutables.Map(
            (freeze_given(key, f"{where}[]"), freeze_given(item, f"{where}[{key!r}]"))
            for key, item in dict.items(value)
        )

    return convert


_FREEZING_MAPS: Final = freeze_fields_with(_map_fields)


@frozen(field_transformer=freezing_fields)
class HttpLimits:
    """What one connection may hold (the TypeScript SDK's defaults where it has one).

    Attributes:
        max_buffered_bytes: SSE bytes waiting for a reader, over all its streams (and
            for `acp_core.aio`'s WebSocket, characters of frames not yet taken by its server).
        max_session_streams: session streams buffering without a reader.
        max_id_length: longest connection or session id accepted.
        replay_bytes: SSE bytes of written events kept per stream for `Last-Event-ID`.
    """

    max_buffered_bytes: int = 64 * 1024 * 1024
    max_session_streams: int = 1024
    max_id_length: int = 1024
    replay_bytes: int = 1024 * 1024


@frozen(field_transformer=freezing_fields)
class HttpRequest:
    """One HTTP request to the endpoint: method, headers (names in any case), body bytes."""

    method: str
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""

    def header(self, name: str) -> str | None:
        """The first value of header `name` (case-insensitive), or None."""
        wanted = name.lower()
        return next((v for k, v in self.headers if k.lower() == wanted), None)


@frozen(field_transformer=freezing_fields)
class HttpResponse:
    """An HTTP answer to write: status, headers, body (for an SSE stream: its first bytes)."""

    status: int
    headers: tuple[tuple[str, str], ...] = ()
    body: bytes = b""


@frozen(field_transformer=_FREEZING_MAPS)
class OutboundStream:
    """One SSE stream of a connection: its numbered events, written or waiting.

    The events kept are ids `first_id .. next_id - 1`, in a persistent map by id, so a send
    costs the same however many are kept (a tuple copied per event would not).

    Attributes:
        next_id: the id the next event gets.
        first_id: the oldest id still kept.
        events: the kept events' SSE bytes, by id.
        delivered: the newest id given to a reader (later ones wait for the next GET).
        written_bytes: the size of the kept events up to `delivered` (trimmed, oldest first,
            to `HttpLimits.replay_bytes`).
        waiting_bytes: the size of the events after `delivered`.
        reading: a reader holds the stream open.
    """

    next_id: int = 1
    first_id: int = 1
    events: immutables.Map[int, bytes] = attrs.field(factory=immutables.Map)
    delivered: int = 0
    written_bytes: int = 0
    waiting_bytes: int = 0
    reading: bool = False


def _pushed(stream: OutboundStream, data: bytes, *, read: bool, limit: int) -> OutboundStream:
    """`stream` with one more event: given to its reader (`read`) or waiting."""
    number = stream.next_id
    events = stream.events.set(number, data)
    if not read:
        return evolve_frozen(
            stream,
            next_id=number + 1,
            events=events,
            waiting_bytes=stream.waiting_bytes + len(data),
        )
    return _trimmed(stream, events, number, stream.written_bytes + len(data), limit)


def _trimmed(
    stream: OutboundStream,
    events: immutables.Map[int, bytes],
    delivered: int,
    written: int,
    limit: int,
) -> OutboundStream:
    # Drop the oldest written events beyond `limit` bytes (a resume needs the newest).
    first = stream.first_id
    if written > limit:
        mutation = events.mutate()
        while written > limit and first <= delivered:
            written -= len(mutation.pop(first))
            first += 1
        events = mutation.finish()
    return evolve_frozen(  # everything up to `delivered`, the newest, is written now
        stream,
        next_id=delivered + 1,
        first_id=first,
        events=events,
        delivered=delivered,
        written_bytes=written,
        waiting_bytes=0,
    )


@frozen(field_transformer=_FREEZING_MAPS)
class HttpConnection:
    """One initialized (or initializing) connection.

    Attributes:
        initialize_id: the id of the `initialize` request whose answer is still owed as the
            POST's `200` (None once answered).
        streams: by key (`CONNECTION_STREAM` or a session id).
        request_routes: the stream the answer to each client request goes on, by request key.
        response_routes: the session each agent request was sent for, so the client's answer
            (a POST) must not carry another `Acp-Session-Id`, by request key.
        buffered: SSE bytes waiting over all streams.
        buffering: session streams holding events with no reader (kept as a count, so a
            message costs the same however many sessions the connection has).
    """

    initialize_id: Any = None
    streams: immutables.Map[str, OutboundStream] = attrs.field(factory=immutables.Map)
    request_routes: immutables.Map[str, str] = attrs.field(factory=immutables.Map)
    response_routes: immutables.Map[str, str] = attrs.field(factory=immutables.Map)
    buffered: int = 0
    buffering: int = 0


@frozen(field_transformer=_FREEZING_MAPS)
class HttpServer:
    """Every connection of one endpoint, by connection id."""

    limits: HttpLimits = HttpLimits()
    connections: immutables.Map[str, HttpConnection] = attrs.field(factory=immutables.Map)


def new_http_server(limits: HttpLimits | None = None) -> HttpServer:
    """An endpoint with no connections yet."""
    return HttpServer(HttpLimits() if limits is None else limits)


@frozen(field_transformer=freezing_fields)
class StreamOpened:
    """A GET opened a stream: write `HttpReceived.response` (its body holds what the stream
    owed: the events after `Last-Event-ID`, or those buffered for it), then each later
    `HttpSent.data` for this stream until the reader leaves (`http_stream_closed`).

    Attributes:
        stream: `CONNECTION_STREAM` or a session id.
        missed: `(first, last)` event ids the reader asked for that are no longer kept.
    """

    stream: str
    missed: tuple[int, int] | None = None


@frozen
class HttpReceived:
    """What an HTTP request asks of the host (it keeps `inbound` as parsed, as `Parsed`
    does: a fresh JSON message the host hands to its agent connection, which decodes it).

    Attributes:
        response: the answer to write now; None for an `initialize` POST, whose answer is
            the agent's (it comes out of `http_send` as `HttpSent.initialize`).
        connection_id: the connection the request concerns (None when it names none).
        inbound: the JSON-RPC message for that connection's agent (None: nothing).
        opened: the stream a GET opened.
        closed: a DELETE ended the connection: close its agent connection and end its
            streams.
    """

    response: HttpResponse | None
    connection_id: str | None = None
    inbound: dict[str, Any] | None = None
    opened: StreamOpened | None = None
    closed: bool = False


@frozen(field_transformer=freezing_fields)
class HttpSent:
    """Where one agent message went.

    Attributes:
        stream: its stream key (None: it was the `initialize` answer).
        data: SSE bytes to write on that stream's open response now (empty: buffered).
        initialize: the `200` answer for the waiting `initialize` POST.
        closed: the connection went over a limit (or is unknown) and is gone: close it.
    """

    stream: str | None = None
    data: bytes = b""
    initialize: HttpResponse | None = None
    closed: bool = False


def _text(status: int, message: str) -> HttpResponse:
    return HttpResponse(status, (("Content-Type", "text/plain"),), message.encode())


def _refuse(status: int, message: str, connection_id: str | None = None) -> HttpReceived:
    return HttpReceived(_text(status, message), connection_id)


def route_key(request_id: object) -> str | None:
    # The key a request id is routed by: type-tagged, so 1 and "1" stay apart.
    if type(request_id) is str:
        return f"s:{request_id}"
    if type(request_id) is int:
        return f"n:{request_id}"
    return None


def params_session(message: dict[str, Any]) -> str | None:
    params = message.get("params")
    session_id = params.get("sessionId") if isinstance(params, dict) else None
    return session_id if type(session_id) is str else None


def _media_type(value: str | None) -> str:
    return (value or "").split(";", 1)[0].strip().lower()


def http_receive(
    server: HttpServer, request: HttpRequest, *, new_connection_id: str | None = None
) -> tuple[HttpServer, HttpReceived]:
    """Take one HTTP request: `(server', what the host does)`.

    `new_connection_id` is the id an `initialize` POST's connection gets (the host draws it:
    the core has no randomness); without one such a POST is answered `503`.

    Raises:
        ArgumentError: `server` or `request` is not the value it names (a programming error).
    """
    given: tuple[object, object] = (server, request)
    if not isinstance(given[0], HttpServer) or not isinstance(given[1], HttpRequest):
        msg = "http_receive takes an HttpServer and an HttpRequest"
        raise ArgumentError(msg)
    method = request.method.upper()
    if method == "POST":
        return _post(server, request, new_connection_id)
    if method == "GET":
        return _get(server, request)
    if method == "DELETE":
        connection_id = request.header(HEADER_CONNECTION_ID)
        if not connection_id:
            return server, _refuse(400, "Missing Acp-Connection-Id")
        if connection_id not in server.connections:
            return server, _refuse(404, "Unknown Acp-Connection-Id", connection_id)
        server = evolve_frozen(server, connections=server.connections.delete(connection_id))
        return server, HttpReceived(HttpResponse(202), connection_id, closed=True)
    return server, _refuse(405, "Method Not Allowed")


def _post(
    server: HttpServer, request: HttpRequest, new_connection_id: str | None
) -> tuple[HttpServer, HttpReceived]:
    if _media_type(request.header("Content-Type")) != _JSON:
        return server, _refuse(415, "Unsupported Media Type")
    try:
        value = json.loads(request.body.decode("utf-8"))
    except (UnicodeDecodeError, ValueError, RecursionError):
        return server, _refuse(400, "Invalid JSON")
    if isinstance(value, list):  # ACP over HTTP takes no batches: one -32600, nothing run
        error = {"code": -32600, "message": "JSON-RPC batches are not supported"}
        body = json.dumps({"jsonrpc": "2.0", "id": None, "error": error}).encode()
        return server, HttpReceived(HttpResponse(400, (("Content-Type", _JSON),), body))
    if not isinstance(value, dict):
        return server, _refuse(400, "Invalid JSON-RPC message")
    message: dict[str, Any] = value
    connection_id = request.header(HEADER_CONNECTION_ID)
    if message.get("method") == "initialize" and "id" in message:
        if connection_id:
            return server, _refuse(400, "Initialize not allowed on existing connection")
        if route_key(message["id"]) is None:
            return server, _refuse(400, "Initialize request must include an ID")
        if not new_connection_id or new_connection_id in server.connections:
            return server, _refuse(503, "No connection id to give")
        if len(new_connection_id) > server.limits.max_id_length:
            return server, _refuse(400, "Acp-Connection-Id exceeds max_id_length")
        connection = HttpConnection(initialize_id=message["id"])
        server = evolve_frozen(
            server, connections=server.connections.set(new_connection_id, connection)
        )
        return server, HttpReceived(None, new_connection_id, message)
    if not connection_id:
        return server, _refuse(400, "Missing Acp-Connection-Id")
    found = server.connections.get(connection_id)
    if found is None:
        return server, _refuse(404, "Unknown Acp-Connection-Id", connection_id)
    connection = found
    header_session = request.header(HEADER_SESSION_ID)
    if header_session is not None and len(header_session) > server.limits.max_id_length:
        return server, _refuse(400, "Acp-Session-Id exceeds max_id_length", connection_id)
    key = route_key(message.get("id"))
    if "method" not in message:  # the client's answer to an agent request
        route = None if key is None else connection.response_routes.get(key)
        # The request id already names the session: an answer without `Acp-Session-Id` is
        # taken (the Python SDK 0.12.1's client never sends it on a response), one naming
        # another session is not.
        if route is not None and header_session and header_session != route:
            return server, _refuse(400, "Mismatched Acp-Session-Id", connection_id)
        if route is not None and key is not None:
            connection = evolve_frozen(
                connection, response_routes=connection.response_routes.delete(key)
            )
    else:
        named_session = params_session(message)
        needs = message.get("method") in _SESSION_SCOPED or named_session is not None
        if needs and not header_session:
            return server, _refuse(400, "Missing Acp-Session-Id", connection_id)
        if header_session and named_session is not None and header_session != named_session:
            return server, _refuse(400, "Mismatched Acp-Session-Id", connection_id)
        route = header_session or named_session or CONNECTION_STREAM
        if message.get("method") == "session/load":
            route = CONNECTION_STREAM  # its replay and answer come on the connection stream
        if key is not None and "id" in message:
            connection = evolve_frozen(
                connection, request_routes=connection.request_routes.set(key, route)
            )
    server = evolve_frozen(server, connections=server.connections.set(connection_id, connection))
    return server, HttpReceived(HttpResponse(202), connection_id, message)


def _get(server: HttpServer, request: HttpRequest) -> tuple[HttpServer, HttpReceived]:
    if _EVENT_STREAM not in (request.header("Accept") or "").lower():
        return server, _refuse(406, "Not Acceptable")
    connection_id = request.header(HEADER_CONNECTION_ID)
    if not connection_id:
        return server, _refuse(400, "Missing Acp-Connection-Id")
    connection = server.connections.get(connection_id)
    if connection is None:
        return server, _refuse(404, "Unknown Acp-Connection-Id", connection_id)
    key = request.header(HEADER_SESSION_ID) or CONNECTION_STREAM
    if len(key) > server.limits.max_id_length:
        return server, _refuse(400, "Acp-Session-Id exceeds max_id_length", connection_id)
    stream = connection.streams.get(key) or OutboundStream()
    if stream.reading:
        return server, _refuse(409, "Outbound stream already has an active receiver", connection_id)
    raw_last = (request.header("Last-Event-ID") or "").strip()
    last = _last_event_id(raw_last)
    if raw_last and (last is None or last >= stream.next_id):
        # Not an id this stream gave (ours are 1, 2, 3...): replaying from a guess could
        # skip what the reader never got, so it is told, and the stream stays as it was.
        return server, _refuse(400, "Malformed Last-Event-ID", connection_id)
    missed = None
    start = stream.delivered + 1  # without Last-Event-ID: what waits
    if last is not None:
        start = max(last + 1, stream.first_id)
        if stream.first_id > last + 1:
            missed = (last + 1, stream.first_id - 1)
    body = b"".join(stream.events[n] for n in range(start, stream.next_id))
    if missed is not None:
        note = f"events {missed[0]}-{missed[1]} are no longer kept"
        body = encode_comment(note) + body
    waited = stream.waiting_bytes
    delivered = stream.next_id - 1
    opened = _trimmed(
        stream, stream.events, delivered, stream.written_bytes + waited, server.limits.replay_bytes
    )
    opened = evolve_frozen(opened, reading=True)
    connection = evolve_frozen(
        connection,
        streams=connection.streams.set(key, opened),
        buffered=connection.buffered - waited,
        buffering=connection.buffering - (1 if key and waited else 0),
    )
    server = evolve_frozen(server, connections=server.connections.set(connection_id, connection))
    headers = (("Content-Type", _EVENT_STREAM), ("Cache-Control", "no-cache"))
    response = HttpResponse(200, headers, body)
    return server, HttpReceived(response, connection_id, opened=StreamOpened(key, missed))


def _last_event_id(value: str) -> int | None:
    # ASCII digits only (`str.isdigit` takes other scripts' digits too), and no more of
    # them than an id can have: a 4,000-digit header is not parsed.
    if not value or len(value) > 19 or not (value.isascii() and value.isdigit()):
        return None
    return int(value)


def http_send(
    server: HttpServer, connection_id: str, message: dict[str, Any]
) -> tuple[HttpServer, HttpSent]:
    """Route one message the agent connection sent: `(server', where it goes)`.

    Raises:
        ArgumentError: `message` cannot be written as JSON (the agent connection never
            emits such a thing), or an argument is not the value it names.
    """
    given: tuple[object, object] = (server, message)
    if not isinstance(given[0], HttpServer) or not isinstance(given[1], dict):
        msg = "http_send takes an HttpServer, a connection id and a message dict"
        raise ArgumentError(msg)
    connection = server.connections.get(connection_id)
    if connection is None:
        return server, HttpSent(closed=True)
    try:
        text = json.dumps(message, ensure_ascii=False, allow_nan=False)
    except (TypeError, ValueError) as e:
        msg = f"not a JSON message: {e}"
        raise ArgumentError(msg) from e
    key = route_key(message.get("id"))
    if "method" not in message:  # a response
        init = connection.initialize_id
        if init is not None and key is not None and key == route_key(init):
            headers = (("Content-Type", _JSON), (HEADER_CONNECTION_ID, connection_id))
            answered = evolve_frozen(connection, initialize_id=None)
            connections = server.connections.set(connection_id, answered)
            server = evolve_frozen(server, connections=connections)
            return server, HttpSent(initialize=HttpResponse(200, headers, text.encode()))
        routed = None if key is None else connection.request_routes.get(key)
        # An answer to no routed request (a client that used one id twice gets two answers:
        # the route went with the first) goes on the connection stream.
        route = CONNECTION_STREAM if routed is None else routed
        if routed is not None and key is not None:
            connection = evolve_frozen(
                connection, request_routes=connection.request_routes.delete(key)
            )
    else:
        route = params_session(message) or CONNECTION_STREAM
        if key is not None and "id" in message:
            connection = evolve_frozen(
                connection, response_routes=connection.response_routes.set(key, route)
            )
    if len(route) > server.limits.max_id_length:
        return _close(server, connection_id)
    stream = connection.streams.get(route) or OutboundStream()
    data = encode_event(SseEvent(text, id=str(stream.next_id)))
    limit = server.limits.replay_bytes
    if stream.reading:
        stream = _pushed(stream, data, read=True, limit=limit)
        out = data
    else:
        if not stream.waiting_bytes and route != CONNECTION_STREAM:
            if connection.buffering >= server.limits.max_session_streams:
                return _close(server, connection_id)
            connection = evolve_frozen(connection, buffering=connection.buffering + 1)
        stream = _pushed(stream, data, read=False, limit=limit)
        connection = evolve_frozen(connection, buffered=connection.buffered + len(data))
        if connection.buffered > server.limits.max_buffered_bytes:
            return _close(server, connection_id)
        out = b""
    connection = evolve_frozen(connection, streams=connection.streams.set(route, stream))
    server = evolve_frozen(server, connections=server.connections.set(connection_id, connection))
    return server, HttpSent(route, out)


def _close(server: HttpServer, connection_id: str) -> tuple[HttpServer, HttpSent]:
    server = evolve_frozen(server, connections=server.connections.delete(connection_id))
    return server, HttpSent(closed=True)


def http_stream_closed(server: HttpServer, connection_id: str, stream: str) -> HttpServer:
    """The reader of a stream went away: what comes for it now waits for the next GET (and
    a reader resuming with `Last-Event-ID` gets the written events still kept)."""
    connection = server.connections.get(connection_id)
    if connection is None:
        return server
    current = connection.streams.get(stream)
    if current is None or not current.reading:
        return server
    connection = evolve_frozen(
        connection, streams=connection.streams.set(stream, evolve_frozen(current, reading=False))
    )
    return evolve_frozen(server, connections=server.connections.set(connection_id, connection))
