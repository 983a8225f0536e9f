"""`acp_core.aio.asgi_app` over a real socket on 127.0.0.1: the Streamable HTTP profile end to
end, served by a real ASGI server in a thread and driven by httpx, no mocks.

Each scenario runs on asyncio (uvicorn) and on trio (hypercorn's trio worker: uvicorn runs on
asyncio only); the client runs on the same backend, through the anyio pytest plugin. Waits are
on streams and events; `fail_after` only keeps a broken server from hanging the run.
"""

from __future__ import annotations

import json
import queue
import threading
from collections.abc import AsyncIterator, Iterator
from typing import Any

import anyio
import httpx
import pytest

import acp_core as acp
from acp_core.aio import AgentLink, asgi_app
from acp_core.connection import SseDecoder, feed_sse

pytestmark = pytest.mark.anyio

INFO = acp.Implementation("aio-echo", "1.0")
JSON = {"Content-Type": "application/json"}
SSE = {"Accept": "text/event-stream"}
WAIT = 10  # seconds before a stuck scenario fails (never a timing assertion)


class EchoAgent:
    """A prompt is answered with one chunk "You said: <text>", then the turn ends."""

    def __init__(self, link: AgentLink) -> None:
        self.link = link
        self.connection = acp.new_agent_connection(INFO)

    async def on_event(self, event: object) -> None:
        if isinstance(event, acp.PromptReceived):
            self.link.start_soon(self.turn, event.session_id)

    async def turn(self, session_id: str) -> None:
        prompt = self.link.connection.engine(session_id).prompts[0]
        text = " ".join(b.text for b in prompt.prompt if isinstance(b, acp.TextContent))
        for intent in (acp.AcceptPrompt(prompt.id), acp.SendAgentText(f"You said: {text}")):
            self.link.step(acp.SessionIntent(session_id, intent))
        await anyio.lowlevel.checkpoint()  # the turn ends on a later step than it began
        self.link.step(acp.SessionIntent(session_id, acp.EndTurn()))


# -- the servers, each in its own thread with its own event loop -------------------------------


def _uvicorn(app: Any) -> Iterator[str]:
    import uvicorn

    # ws="wsproto": the WebSocket upgrade (tests/test_aio_ws.py) on wsproto, whatever else is
    # installed (uvicorn's "auto" would take `websockets` first).
    config = uvicorn.Config(
        app, host="127.0.0.1", port=0, lifespan="on", log_level="warning", ws="wsproto"
    )
    server = uvicorn.Server(config)
    server.config.timeout_graceful_shutdown = 5
    thread = threading.Thread(target=server.run, daemon=True)
    thread.start()
    while not server.started and thread.is_alive():  # uvicorn has no start callback
        thread.join(0.01)
    assert server.started, "uvicorn did not start"
    port = server.servers[0].sockets[0].getsockname()[1]
    try:
        yield f"http://127.0.0.1:{port}/acp"
    finally:
        server.should_exit = True
        thread.join(10)


def _hypercorn_trio(app: Any) -> Iterator[str]:
    import trio
    from hypercorn.config import Config
    from hypercorn.trio import serve

    config = Config()
    config.bind = ["127.0.0.1:0"]
    config.graceful_timeout = 5
    config.loglevel = "WARNING"
    told: queue.Queue[tuple[list[str], Any, Any]] = queue.Queue()

    async def main() -> None:
        stop = trio.Event()
        async with trio.open_nursery() as nursery:
            binds = await nursery.start(
                lambda task_status: serve(
                    app, config, shutdown_trigger=stop.wait, task_status=task_status
                )
            )
            told.put((binds, trio.lowlevel.current_trio_token(), stop))

    thread = threading.Thread(target=trio.run, args=(main,), daemon=True)
    thread.start()
    binds, token, stop = told.get(timeout=WAIT)
    try:
        yield binds[0].rstrip("/") + "/acp"
    finally:
        trio.from_thread.run_sync(stop.set, trio_token=token)
        thread.join(10)


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture
def url(anyio_backend: str) -> Iterator[str]:
    app = asgi_app(EchoAgent)
    yield from (_uvicorn if anyio_backend == "asyncio" else _hypercorn_trio)(app)


# -- the client side -----------------------------------------------------------------------------


class Stream:
    """One open SSE response: its decoded JSON-RPC messages, in order, as they come."""

    def __init__(self, response: httpx.Response) -> None:
        self.response = response
        self.messages, self._out = anyio.create_memory_object_stream[dict[str, Any]](100)
        self.ids: list[str] = []
        self.ended = anyio.Event()
        self.scope = anyio.CancelScope()

    async def pump(self) -> None:
        decoder = SseDecoder()
        try:
            with self.scope:
                async for chunk in self.response.aiter_bytes():
                    decoder, events = feed_sse(decoder, chunk)
                    for event in events:
                        self.ids.append(event.id)
                        await self.messages.send(json.loads(event.data))
        finally:
            self.ended.set()
            self.messages.close()

    async def drop(self) -> None:
        """The reader goes away: stop reading, then close the connection."""
        self.scope.cancel()
        with anyio.fail_after(WAIT):
            await self.ended.wait()
        await self.response.aclose()

    async def next(self) -> dict[str, Any]:
        with anyio.fail_after(WAIT):
            return await self._out.receive()


@pytest.fixture
async def client() -> AsyncIterator[httpx.AsyncClient]:
    async with httpx.AsyncClient(timeout=WAIT) as client:
        yield client


async def _initialize(client: httpx.AsyncClient, url: str) -> tuple[httpx.Response, str]:
    message = {
        "jsonrpc": "2.0",
        "id": 0,
        "method": "initialize",
        "params": {"protocolVersion": 2, "info": {"name": "httpx-client", "version": "1"}},
    }
    response = await client.post(url, json=message, headers=JSON)
    return response, response.headers.get("acp-connection-id", "")


async def _open(client: httpx.AsyncClient, url: str, headers: dict[str, str], group: Any) -> Stream:
    request = client.build_request("GET", url, headers={**SSE, **headers})
    response = await client.send(request, stream=True)
    assert response.status_code == 200, response.status_code
    assert response.headers["content-type"].startswith("text/event-stream")
    stream = Stream(response)
    group.start_soon(stream.pump)
    return stream


def _ended(update: dict[str, Any]) -> bool:
    return update.get("sessionUpdate") == "state_update" and update.get("state") == "idle"


async def test_initialize_session_prompt_and_delete(url: str, client: httpx.AsyncClient) -> None:
    init, cid = await _initialize(client, url)
    assert init.status_code == 200
    assert len(cid) == 32  # secrets.token_hex(16)
    assert int(cid, 16) >= 0
    assert init.json()["result"]["protocolVersion"] == 2
    assert init.json()["result"]["info"]["name"] == "aio-echo"
    conn = {"Acp-Connection-Id": cid}
    async with anyio.create_task_group() as group:
        main = await _open(client, url, conn, group)
        new = {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/tmp"}}
        posted = await client.post(url, json=new, headers={**JSON, **conn})
        assert posted.status_code == 202
        answer = await main.next()
        assert answer["id"] == 1
        session_id = answer["result"]["sessionId"]
        on_session = {**conn, "Acp-Session-Id": session_id}
        session = await _open(client, url, on_session, group)
        prompt = {
            "jsonrpc": "2.0",
            "id": 2,
            "method": "session/prompt",
            "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": "hi there"}]},
        }
        posted = await client.post(url, json=prompt, headers={**JSON, **on_session})
        assert posted.status_code == 202
        # 2026-11: the prompt is answered when accepted (its message id); the turn streams
        # on, and its end is an update saying the session is idle again.
        seen: list[dict[str, Any]] = []
        answered = None
        while True:
            message = await session.next()
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
        assert seen[-1]["stopReason"] == "end_turn"
        chunks = [u for u in seen if u.get("sessionUpdate") == "agent_message_chunk"]
        assert [c["content"]["text"] for c in chunks] == ["You said: hi there"]
        assert session.ids == [str(n) for n in range(1, len(seen) + 2)]  # numbered per stream
        assert len(seen) == 4  # user message, running, the echo, idle
        assert main.ids == ["1"]

        deleted = await client.request("DELETE", url, headers=conn)
        assert deleted.status_code == 202
        with anyio.fail_after(WAIT):  # DELETE ends both streams
            await main.ended.wait()
            await session.ended.wait()
    gone = await client.post(url, json=new, headers={**JSON, **conn})
    assert gone.status_code == 404


async def test_a_dropped_stream_resumes_with_last_event_id(
    url: str, client: httpx.AsyncClient
) -> None:
    _, cid = await _initialize(client, url)
    conn = {"Acp-Connection-Id": cid}
    async with anyio.create_task_group() as group:
        first = await _open(client, url, conn, group)
        new = {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/tmp"}}
        await client.post(url, json=new, headers={**JSON, **conn})
        assert (await first.next())["id"] == 1
        await first.drop()  # the reader goes away ...
        # ... and while nobody reads, a second session/new is answered: buffered. A GET
        # while the server has not yet seen the drop is refused 409; the client tries again.
        new2 = {**new, "id": 2}
        assert (await client.post(url, json=new2, headers={**JSON, **conn})).status_code == 202
        while True:
            resume = {**SSE, **conn, "Last-Event-ID": "1"}
            request = client.build_request("GET", url, headers=resume)
            response = await client.send(request, stream=True)
            if response.status_code != 409:
                break
            await response.aclose()
            await anyio.lowlevel.checkpoint()
        assert response.status_code == 200
        again = Stream(response)
        group.start_soon(again.pump)
        assert (await again.next())["id"] == 2  # exactly what it missed, once
        assert again.ids == ["2"]
        assert (await client.request("DELETE", url, headers=conn)).status_code == 202


async def test_requests_outside_the_profile_are_refused(
    url: str, client: httpx.AsyncClient
) -> None:
    text = await client.post(url, content=b"{}", headers={"Content-Type": "text/plain"})
    assert text.status_code == 415
    missing = await client.post(url, json={"jsonrpc": "2.0", "method": "x"}, headers=JSON)
    assert missing.status_code == 400
    unknown = await client.get(url, headers={**SSE, "Acp-Connection-Id": "f" * 32})
    assert unknown.status_code == 404
    assert (await client.get(url.replace("/acp", "/other"))).status_code == 404
