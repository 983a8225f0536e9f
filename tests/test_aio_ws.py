"""`acp_core.aio.asgi_app`'s WebSocket upgrade over a real socket on 127.0.0.1: one agent
connection per socket, one JSON-RPC message per text frame, served by uvicorn (asyncio, on
wsproto) and hypercorn (trio), and driven by a small client on wsproto over anyio's TCP.

The shapes are the TypeScript SDK 2.4.0's (dist/transports/ws-server.js, ws-stream.js): the
upgrade on the profile's path, no subprotocol, the connection id in an `Acp-Connection-Id`
header of the 101, a text frame that is not JSON answered -32700 with `id: null` and the socket
going on, binary frames ignored. A frame over the limit closes the socket with 1009 (Message
Too Big, RFC 6455), an agent that fails closes it with 1011. `fail_after` only keeps a broken
server from hanging the run; nothing asserts on time.
"""

from __future__ import annotations

import json
import threading
from collections import deque
from collections.abc import Iterator
from typing import Any
from urllib.parse import urlsplit

import anyio
import anyio.to_thread
import httpx
import pytest
from anyio.abc import ByteStream
from test_aio_http import WAIT, EchoAgent, _ended, _hypercorn_trio, _uvicorn
from wsproto import ConnectionType, WSConnection
from wsproto.connection import ConnectionState
from wsproto.events import (
    AcceptConnection,
    BytesMessage,
    CloseConnection,
    Event,
    Ping,
    RejectConnection,
    Request,
    TextMessage,
)

import acp_core as acp
from acp_core.aio import asgi_app

pytestmark = pytest.mark.anyio

INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": 2, "info": {"name": "ws-client", "version": "1"}},
}


class RejectedError(Exception):
    """The server refused the upgrade (an HTTP status instead of 101)."""

    def __init__(self, status: int) -> None:
        super().__init__(status)
        self.status = status


class WsClient:
    """A WebSocket client on wsproto: text frames of JSON-RPC messages in and out."""

    def __init__(self, stream: ByteStream) -> None:
        self.stream = stream
        self.ws = WSConnection(ConnectionType.CLIENT)
        self.pending: deque[Event] = deque()
        self.headers: dict[str, str] = {}
        self.close_code: int | None = None
        self._text: list[str] = []

    @classmethod
    async def connect(cls, url: str) -> WsClient:
        parts = urlsplit(url)
        assert parts.hostname is not None
        assert parts.port is not None
        stream = await anyio.connect_tcp(parts.hostname, parts.port)
        client = cls(stream)
        await client._send(Request(host=f"{parts.hostname}:{parts.port}", target=parts.path))
        event = await client._event()
        if isinstance(event, RejectConnection):
            await stream.aclose()
            raise RejectedError(event.status_code)
        assert isinstance(event, AcceptConnection), event
        client.headers = {k.decode().lower(): v.decode() for k, v in event.extra_headers}
        return client

    async def _send(self, event: Event) -> None:
        await self.stream.send(self.ws.send(event))

    async def _event(self) -> Event:
        while not self.pending:
            try:
                data: bytes | None = await self.stream.receive()
            except (anyio.EndOfStream, anyio.BrokenResourceError):
                data = None
            self.ws.receive_data(data)
            self.pending.extend(self.ws.events())
        return self.pending.popleft()

    async def send_text(self, text: str) -> None:
        await self._send(TextMessage(text))

    async def send(self, message: dict[str, Any]) -> None:
        await self.send_text(json.dumps(message))

    async def send_bytes(self, data: bytes) -> None:
        await self._send(BytesMessage(data))

    async def next(self) -> Any:
        """The next message (one text frame: an object, or a batch's reply array), or None
        once the server closed the socket."""
        with anyio.fail_after(WAIT):
            while True:
                event = await self._event()
                if isinstance(event, TextMessage):
                    self._text.append(event.data)
                    if event.message_finished:
                        text, self._text = "".join(self._text), []
                        assert "\n" not in text  # one message per frame, no NDJSON
                        value: dict[str, Any] = json.loads(text)
                        return value
                elif isinstance(event, Ping):
                    await self._send(event.response())
                elif isinstance(event, CloseConnection):
                    self.close_code = event.code
                    if self.ws.state is ConnectionState.REMOTE_CLOSING:  # theirs: answer it
                        await self._send(event.response())
                    await self.stream.aclose()
                    return None

    async def close(self) -> None:
        await self._send(CloseConnection(1000))
        while await self.next() is not None:
            pass


class FailingAgent(EchoAgent):
    """Raises on the first prompt: its connection ends, the server goes on."""

    async def on_event(self, event: object) -> None:
        if isinstance(event, acp.PromptReceived):
            raise RuntimeError("the agent broke")


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _serve(app: Any, backend: str) -> Iterator[str]:
    for url in (_uvicorn if backend == "asyncio" else _hypercorn_trio)(app):
        yield url.replace("http://", "ws://")


@pytest.fixture
def url(anyio_backend: str) -> Iterator[str]:
    yield from _serve(asgi_app(EchoAgent, max_frame=1024), anyio_backend)


@pytest.fixture
def failing_url(anyio_backend: str) -> Iterator[str]:
    yield from _serve(asgi_app(FailingAgent), anyio_backend)


def _prompt(session_id: str, text: str, id: int = 2) -> dict[str, Any]:
    params = {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]}
    return {"jsonrpc": "2.0", "id": id, "method": "session/prompt", "params": params}


async def test_initialize_session_and_a_streamed_prompt(url: str) -> None:
    ws = await WsClient.connect(url)
    cid = ws.headers["acp-connection-id"]
    assert len(cid) == 32  # secrets.token_hex(16)
    assert int(cid, 16) >= 0
    await ws.send(INIT)
    init = await ws.next()
    assert init is not None
    assert init["id"] == 0
    assert init["result"]["protocolVersion"] == 2
    assert init["result"]["info"]["name"] == "aio-echo"
    await ws.send({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}})
    opened = await ws.next()
    assert opened is not None
    session_id = opened["result"]["sessionId"]
    await ws.send(_prompt(session_id, "hi there"))
    seen: list[dict[str, Any]] = []
    answered = None
    while True:
        message = await ws.next()
        assert message is not None
        if "id" in message:
            answered = message
            continue
        assert message["method"] == "session/update"
        assert message["params"]["sessionId"] == session_id
        seen.append(message["params"]["update"])
        if _ended(seen[-1]):
            break
    assert answered is not None
    assert answered["id"] == 2
    assert "messageId" in answered["result"]
    chunks = [u for u in seen if u.get("sessionUpdate") == "agent_message_chunk"]
    assert [c["content"]["text"] for c in chunks] == ["You said: hi there"]
    assert len(seen) == 4  # user message, running, the echo, idle
    assert seen[-1]["stopReason"] == "end_turn"
    await ws.close()
    assert ws.close_code == 1000


async def test_a_frame_that_is_not_json_is_answered_and_the_socket_goes_on(url: str) -> None:
    ws = await WsClient.connect(url)
    await ws.send_text("this is not JSON")
    answer = await ws.next()
    assert answer is not None
    assert answer["id"] is None
    assert answer["error"]["code"] == -32700
    await ws.send_text("[1, 2]")  # a batch of two invalid entries: one frame, both refused
    refused = await ws.next()
    assert isinstance(refused, list)
    assert [(r["id"], r["error"]["code"]) for r in refused] == [(None, -32600)] * 2
    await ws.send_bytes(json.dumps(INIT).encode())  # binary: ignored, as the SDKs do
    await ws.send(INIT)
    init = await ws.next()  # the first answer after the binary frame is the text one's
    assert init is not None
    assert init["id"] == 0
    assert "result" in init
    await ws.close()


async def test_an_oversized_frame_closes_the_socket_with_1009(url: str) -> None:
    ws = await WsClient.connect(url)
    await ws.send(INIT)
    assert await ws.next() is not None
    await ws.send_text(" " * 1025)  # max_frame=1024 characters
    assert await ws.next() is None
    assert ws.close_code == 1009
    # the server goes on: a new socket is a new connection
    again = await WsClient.connect(url)
    assert again.headers["acp-connection-id"] != ws.headers["acp-connection-id"]
    await again.send(INIT)
    init = await again.next()
    assert init is not None
    assert init["id"] == 0
    await again.close()


async def test_an_agent_that_fails_closes_its_socket_with_1011(failing_url: str) -> None:
    ws = await WsClient.connect(failing_url)
    await ws.send(INIT)
    await ws.send({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}})
    assert (await ws.next() or {}).get("id") == 0
    opened = await ws.next()
    assert opened is not None
    await ws.send(_prompt(opened["result"]["sessionId"], "break"))
    while await ws.next() is not None:  # what the step sent before the agent saw the event
        pass
    assert ws.close_code == 1011


async def test_another_path_is_refused(url: str) -> None:
    with pytest.raises(RejectedError) as refused:
        await WsClient.connect(url.replace("/acp", "/other"))
    assert refused.value.status == 403


class HoldingAgent(EchoAgent):
    """Holds every prompt: its turn waits until the connection's tasks are cancelled."""

    started = threading.Event()
    cancelled = threading.Event()

    async def on_event(self, event: object) -> None:
        if isinstance(event, acp.PromptReceived):
            self.link.start_soon(self.hold)

    async def hold(self) -> None:
        HoldingAgent.started.set()
        try:
            await anyio.sleep_forever()
        finally:
            HoldingAgent.cancelled.set()


async def _wait(event: threading.Event) -> None:
    assert await anyio.to_thread.run_sync(event.wait, WAIT)


@pytest.fixture
def holding(anyio_backend: str) -> Iterator[tuple[Any, str]]:
    HoldingAgent.started.clear()
    HoldingAgent.cancelled.clear()
    app: Any = asgi_app(HoldingAgent)
    for url in _serve(app, anyio_backend):
        yield app, url


async def test_the_client_closing_ends_its_connection_and_cancels_its_tasks(
    holding: tuple[Any, str],
) -> None:
    app, url = holding
    ws = await WsClient.connect(url)
    other = await WsClient.connect(url)  # a second connection, untouched by the first
    assert other.headers["acp-connection-id"] != ws.headers["acp-connection-id"]
    assert set(app.hosted) == {
        ws.headers["acp-connection-id"],
        other.headers["acp-connection-id"],
    }
    await ws.send(INIT)
    assert await ws.next() is not None
    await ws.send({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}})
    opened = await ws.next()
    assert opened is not None
    await ws.send(_prompt(opened["result"]["sessionId"], "hold it"))
    await _wait(HoldingAgent.started)
    assert not HoldingAgent.cancelled.is_set()
    await ws.close()
    await _wait(HoldingAgent.cancelled)
    assert set(app.hosted) == {other.headers["acp-connection-id"]}
    await other.send(INIT)  # the other connection goes on
    init = await other.next()
    assert init is not None
    assert init["id"] == 0
    await other.close()


async def test_http_naming_a_websocket_connection_id_gets_nothing(url: str) -> None:
    ws = await WsClient.connect(url)
    cid = ws.headers["acp-connection-id"]
    http_url = url.replace("ws://", "http://")
    new = {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}}
    async with httpx.AsyncClient(timeout=WAIT) as client:
        posted = await client.post(
            http_url,
            json=new,
            headers={"Content-Type": "application/json", "Acp-Connection-Id": cid},
        )
        assert posted.status_code == 404
        stream = await client.get(
            http_url, headers={"Accept": "text/event-stream", "Acp-Connection-Id": cid}
        )
        assert stream.status_code == 404
    await ws.send(INIT)  # the socket's own connection never saw the POST: id 0 is its first
    init = await ws.next()
    assert init is not None
    assert init["id"] == 0
    await ws.send(new)
    opened = await ws.next()
    assert opened is not None
    assert opened["result"]["sessionId"] == "sess_1"
    await ws.close()


class FloodingAgent(EchoAgent):
    """Answers a prompt with 2,000 chunks of 32 KiB (64 MiB), faster than a reader that
    reads nothing: the connection must be dropped before the flood is through."""

    CHUNKS = 2000
    cancelled = threading.Event()

    async def on_event(self, event: object) -> None:
        if isinstance(event, acp.PromptReceived):
            self.link.start_soon(self.flood, event.session_id)

    async def flood(self, session_id: str) -> None:
        prompt = self.link.connection.engine(session_id).prompts[0]
        self.link.step(acp.SessionIntent(session_id, acp.AcceptPrompt(prompt.id)))
        try:
            for _ in range(self.CHUNKS):
                self.link.step(acp.SessionIntent(session_id, acp.SendAgentText("x" * 32768)))
                await anyio.lowlevel.checkpoint()
        except anyio.get_cancelled_exc_class():
            FloodingAgent.cancelled.set()
            raise


@pytest.fixture
def flooding(anyio_backend: str) -> Iterator[tuple[Any, str]]:
    FloodingAgent.cancelled.clear()
    limits = acp.connection.HttpLimits(max_buffered_bytes=1024 * 1024)
    app: Any = asgi_app(FloodingAgent, server=acp.connection.new_http_server(limits))
    for url in _serve(app, anyio_backend):
        yield app, url


async def test_a_reader_too_far_behind_is_dropped(flooding: tuple[Any, str]) -> None:
    app, url = flooding
    ws = await WsClient.connect(url)
    await ws.send(INIT)
    await ws.send({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}})
    await ws.send(_prompt("sess_1", "flood me"))
    await _wait(FloodingAgent.cancelled)  # while this client reads nothing
    assert app.hosted == {}
    received = 0
    while await ws.next() is not None:
        received += 1
    assert received < FloodingAgent.CHUNKS  # the flood was cut off, not delivered
    assert ws.close_code != 1000
    again = await WsClient.connect(url)  # the server goes on
    await again.send(INIT)
    init = await again.next()
    assert init is not None
    assert init["id"] == 0
    await again.close()
