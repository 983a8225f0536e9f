"""`acp_core.aio.connect` and `ClientLink`: acp-core's own client of both remote profiles
(Streamable HTTP on httpx, WebSocket on wsproto) against `asgi_app` under a real ASGI server on
127.0.0.1, no mocks: uvicorn (asyncio) and hypercorn (trio), the client on the same backend.

Scenarios: a streamed turn, a permission request answered, a cancel, DELETE at the end, and
the host's request check (`bearer_token`): a wrong or missing token reads no stream, posts
nothing, and learns nothing about other connections. `fail_after` only keeps a broken server
from hanging the run; nothing asserts on time.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import anyio
import httpx
import pytest
from anyio.abc import SocketAttribute
from test_aio_http import WAIT, _hypercorn_trio, _uvicorn

import acp_core as acp
from acp_core import connection as c
from acp_core import intents as i
from acp_core import values as v
from acp_core.aio import AgentLink, ClientLink, TransportError, asgi_app, bearer_token, connect

pytestmark = pytest.mark.anyio

INFO = c.Implementation("aio-asking-agent", "1.0")
CLIENT = c.Implementation("aio-client", "1.0")
OPTIONS = (
    v.PermissionOption("allow", "Allow", "allow_once"),
    v.PermissionOption("reject", "Reject", "reject_once"),
)
TOKEN = "s3cret-token"
INIT = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": 2, "info": {"name": "raw", "version": "1"}},
}


class AskingAgent:
    """Echoes a prompt; a prompt with "ask" in it also asks permission for a tool first, and
    ends the turn cancelled if the client cancels instead of answering."""

    def __init__(self, link: AgentLink) -> None:
        self.link = link
        self.connection = acp.new_agent_connection(INFO)
        self.woken = anyio.Event()
        self.decisions: dict[Any, Any] = {}

    async def on_event(self, event: object) -> None:
        if isinstance(event, c.PromptReceived):
            self.link.start_soon(self.turn, event.session_id)
        elif isinstance(event, c.PermissionAnswered):
            self.decisions[event.request_id] = event.decision
            self.woken.set()
        elif isinstance(event, c.CancelReceived):
            self.woken.set()

    def do(self, session_id: str, intent: object) -> c.ConnectionStep:
        return self.link.full_step(c.SessionIntent(session_id, intent))

    async def turn(self, session_id: str) -> None:
        prompt = self.link.connection.engine(session_id).prompts[0]
        text = " ".join(b.text for b in prompt.prompt if isinstance(b, v.TextContent))
        self.do(session_id, i.AcceptPrompt(prompt.id))
        self.do(session_id, i.SendAgentText(f"You said: {text}"))
        if "ask" in text:
            self.do(session_id, i.StartToolCall("Echo tool", "t1"))
            asked = self.do(session_id, i.RequestPermission("Run it?", OPTIONS, "t1"))
            (request_id,) = asked.ids[:1]
            await self.woken.wait()
            self.woken = anyio.Event()
            decision = self.decisions.pop(request_id, None)
            if decision is None:  # cancelled: withdraw the question, end the turn
                self.do(session_id, i.CancelPermission(request_id))
                self.do(session_id, i.FinishToolCall("t1", "cancelled"))
            else:
                self.do(session_id, i.FinishToolCall("t1"))
                self.do(session_id, i.SendAgentText(" (the tool ran)"))
        await anyio.lowlevel.checkpoint()  # the turn ends on a later step than it began
        self.do(session_id, i.EndTurn())


class Client:
    """A host on `ClientLink`: waits for the event that settles each request it sends."""

    def __init__(self, link: ClientLink) -> None:
        self.link = link
        self.settled: dict[Any, object] = {}
        self.asked: list[c.PermissionRequested] = []
        self.views = 0

    def note(self, step: c.ConnectionStep) -> None:
        for event in step.events:
            if isinstance(event, (c.RequestAnswered, c.PromptEnded)):
                self.settled.setdefault(event.request_id, event)
            elif isinstance(event, (c.Initialized, c.SessionOpened)):
                self.settled[event.request_id] = event
            elif isinstance(event, c.PermissionRequested):
                self.asked.append(event)
            elif isinstance(event, c.ViewChanged):
                self.views += 1

    async def send(self, input: object) -> c.ConnectionStep:
        step = await self.link.step(input)
        self.note(step)
        return step

    async def wait(self, done: Callable[[], object]) -> None:
        """Receive until `done()` holds."""
        with anyio.fail_after(WAIT):
            while not done():
                self.note(await self.link.receive())

    async def request(self, input: object) -> object:
        request_id = (await self.send(input)).ids[0]
        await self.wait(lambda: request_id in self.settled)
        return self.settled.pop(request_id)

    async def start(self) -> str:
        assert isinstance(await self.request(c.Initialize()), c.Initialized)
        opened = await self.request(c.NewSession("/tmp"))
        assert isinstance(opened, c.SessionOpened)
        return opened.session_id


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _serve(anyio_backend: str, app: Any) -> Iterator[str]:
    yield from (_uvicorn if anyio_backend == "asyncio" else _hypercorn_trio)(app)


@pytest.fixture
def app() -> Any:
    return asgi_app(AskingAgent)


@pytest.fixture
def http_url(anyio_backend: str, app: Any) -> Iterator[str]:
    yield from _serve(anyio_backend, app)


@pytest.fixture(params=["http", "ws"])
def url(request: pytest.FixtureRequest, http_url: str) -> str:
    return http_url if request.param == "http" else http_url.replace("http://", "ws://")


def _text(view: acp.SessionState) -> str:
    return "".join(v.message_text(m) for m in view.messages.values() if m.role == "agent")


async def test_a_streamed_turn_then_delete(url: str, app: Any) -> None:
    async with connect(url) as transport:
        client = Client(ClientLink(transport, acp.new_client_connection(CLIENT)))
        session_id = await client.start()
        assert transport.connection_id is not None
        assert len(transport.connection_id) == 32  # the server's secrets.token_hex(16)
        prompt = c.SessionIntent(session_id, i.SendPrompt((v.TextContent("hi there"),)))
        ended = await client.request(prompt)
        assert isinstance(ended, c.PromptEnded)
        assert ended.stop_reason == "end_turn"
        assert _text(client.link.connection.view(session_id)) == "You said: hi there"
        assert client.views >= 3  # the user message, the chunk, idle: streamed, not one lump
        assert app.hosted  # the connection is served while the block runs
        connection_id = transport.connection_id
    with anyio.fail_after(WAIT):  # leaving the block: DELETE (HTTP) or the socket's close
        while connection_id in app.hosted:
            await anyio.sleep(0.01)
    assert connection_id not in app.server.connections


async def test_a_permission_request_answered(url: str) -> None:
    async with connect(url) as transport:
        client = Client(ClientLink(transport, acp.new_client_connection(CLIENT)))
        session_id = await client.start()
        prompt = c.SessionIntent(session_id, i.SendPrompt((v.TextContent("ask first"),)))
        (prompt_id,) = (await client.send(prompt)).ids[:1]
        await client.wait(lambda: client.asked)
        asked = client.asked.pop()
        assert asked.session_id == session_id
        allow = i.AnswerPermission(asked.request_id, "allow")
        await client.send(c.SessionIntent(session_id, allow))
        await client.wait(lambda: prompt_id in client.settled)
        ended = client.settled.pop(prompt_id)
        assert isinstance(ended, c.PromptEnded)
        assert ended.stop_reason == "end_turn"
        view = client.link.connection.view(session_id)
        texts = [v.message_text(m) for m in view.messages.values() if m.role == "agent"]
        assert sorted(texts) == [" (the tool ran)", "You said: ask first"]
        assert view.tool_calls["t1"].status == "completed"


async def test_a_cancel(url: str) -> None:
    async with connect(url) as transport:
        client = Client(ClientLink(transport, acp.new_client_connection(CLIENT)))
        session_id = await client.start()
        prompt = c.SessionIntent(session_id, i.SendPrompt((v.TextContent("ask then cancel"),)))
        (prompt_id,) = (await client.send(prompt)).ids[:1]
        await client.wait(lambda: client.asked)
        await client.send(c.SessionIntent(session_id, i.SendCancel()))
        await client.wait(lambda: prompt_id in client.settled)
        ended = client.settled.pop(prompt_id)
        assert isinstance(ended, c.PromptEnded)
        assert ended.stop_reason == "cancelled"
        assert client.link.connection.view(session_id).tool_calls["t1"].status == "cancelled"


async def test_an_unreachable_server_is_a_transport_error(anyio_backend: str) -> None:
    with anyio.fail_after(WAIT):
        port = await _free_port()
        for scheme in ("http", "ws"):
            with pytest.raises(TransportError):
                async with connect(f"{scheme}://127.0.0.1:{port}/acp") as transport:
                    await transport.send(INIT)


async def _free_port() -> int:
    listener = await anyio.create_tcp_listener(local_host="127.0.0.1")
    port: int = listener.extra(SocketAttribute.local_port)
    await listener.aclose()
    return port


# -- who gets in: the host's request check ---------------------------------------------------


@pytest.fixture
def guarded(anyio_backend: str) -> Iterator[tuple[str, Any]]:
    app = asgi_app(AskingAgent, authorize=bearer_token(TOKEN))
    for url in _serve(anyio_backend, app):
        yield url, app


@pytest.mark.parametrize("token", [None, "wrong", TOKEN + "x"])
async def test_a_wrong_or_missing_token_gets_nothing(
    guarded: tuple[str, Any], token: str | None
) -> None:
    url, app = guarded
    status = 401 if token is None else 403
    for target in (url, url.replace("http://", "ws://")):
        with pytest.raises(TransportError) as refused:
            async with connect(target, token=token) as transport:
                await transport.send(INIT)
        assert refused.value.status == (status if target.startswith("http") else 403)
    assert not app.hosted  # no connection was made
    assert not app.server.connections


async def test_a_stream_or_post_naming_another_connection_gets_nothing(
    guarded: tuple[str, Any],
) -> None:
    url, app = guarded
    async with connect(url, token=TOKEN) as transport:
        client = Client(ClientLink(transport, acp.new_client_connection(CLIENT)))
        session_id = await client.start()
        theirs = transport.connection_id
        assert theirs is not None
        before = app.hosted[theirs].link.connection
        made_up = "f" * 32
        prompt = {
            "jsonrpc": "2.0",
            "id": 9,
            "method": "session/prompt",
            "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": "x"}]},
        }
        async with httpx.AsyncClient(timeout=WAIT) as intruder:
            answers = []
            for connection_id in (theirs, made_up):
                for token in (None, "wrong"):
                    headers = {"Acp-Connection-Id": connection_id, "Acp-Session-Id": session_id}
                    if token is not None:
                        headers["Authorization"] = f"Bearer {token}"
                    got = await intruder.get(url, headers={**headers, "Accept": SSE_TYPE})
                    posted = await intruder.post(
                        url, json=prompt, headers={**headers, "Content-Type": "application/json"}
                    )
                    deleted = await intruder.delete(url, headers=headers)
                    answers.append(
                        [
                            (r.status_code, r.content, sorted(r.headers.items()))
                            for r in (got, posted, deleted)
                        ]
                    )
        for answer in answers:
            assert {status for status, _, _ in answer} <= {401, 403}
            assert all(theirs.encode() not in body for _, body, _ in answer)
        # The real connection's id and a made-up one are answered byte for byte alike.
        assert _without_dates(answers[0]) == _without_dates(answers[2])
        assert _without_dates(answers[1]) == _without_dates(answers[3])
        # Nothing reached the connection: not the prompt, not the DELETE.
        assert app.hosted[theirs].link.connection is before
        assert theirs in app.server.connections
        # ... and the rightful client goes on.
        ended = await client.request(
            c.SessionIntent(session_id, i.SendPrompt((v.TextContent("still here"),)))
        )
        assert isinstance(ended, c.PromptEnded)
        assert _text(client.link.connection.view(session_id)) == "You said: still here"


SSE_TYPE = "text/event-stream"


def _without_dates(answer: list[Any]) -> list[Any]:
    return [(s, b, [h for h in headers if h[0] != "date"]) for s, b, headers in answer]


# -- a stream that drops mid-turn resumes with Last-Event-ID ----------------------------------


class DropOnce:
    """ASGI middleware that loses one SSE chunk on the way: on the first session stream,
    the first chunk after the one carrying the permission request is swallowed (the server
    counts it as written), the response ends, and the app is told its client went away. Only
    a reopen with `Last-Event-ID` gets that chunk's events back."""

    def __init__(self, app: Any) -> None:
        self.app = app
        self.swallowed: list[bytes] = []
        self.gets: list[dict[str, str]] = []  # the headers of every session-stream GET

    async def __call__(self, scope: Any, receive: Any, send: Any) -> None:
        headers = {k.decode().lower(): v.decode() for k, v in scope.get("headers", ())}
        if scope["type"] != "http" or scope["method"] != "GET" or "acp-session-id" not in headers:
            await self.app(scope, receive, send)
            return
        self.gets.append(headers)
        if len(self.gets) > 1:
            await self.app(scope, receive, send)
            return
        dropped = anyio.Event()
        asked = False

        async def lossy_send(message: Any) -> None:
            nonlocal asked
            if dropped.is_set():
                return  # after the drop: written by the app, never seen by the client
            if message["type"] == "http.response.body" and message.get("more_body"):
                body = message.get("body", b"")
                if asked and body:
                    self.swallowed.append(body)
                    dropped.set()
                    await send({"type": "http.response.body", "body": b"", "more_body": False})
                    return
                asked = asked or b"session/request_permission" in body
            await send(message)

        async def told_receive() -> Any:
            got: Any = {"type": "http.disconnect"}
            if dropped.is_set():
                return got
            async with anyio.create_task_group() as group:

                async def real() -> None:
                    nonlocal got
                    got = await receive()
                    group.cancel_scope.cancel()

                async def drop() -> None:
                    await dropped.wait()
                    group.cancel_scope.cancel()

                group.start_soon(real)
                group.start_soon(drop)
            return got

        await self.app(scope, told_receive, lossy_send)


@pytest.fixture
def lossy(anyio_backend: str) -> Iterator[tuple[str, DropOnce, list[dict[str, Any]]]]:
    sent: list[dict[str, Any]] = []  # the connection's traffic as the agent's link saw it

    def make_agent(link: AgentLink) -> AskingAgent:
        link.trace = sent
        return AskingAgent(link)

    middleware = DropOnce(asgi_app(make_agent))
    for url in _serve(anyio_backend, middleware):
        yield url, middleware, sent


def _on_sessions(messages: list[Any]) -> list[Any]:
    return [m for m in messages if "method" in m and "sessionId" in m.get("params", {})]


async def test_a_dropped_session_stream_resumes_without_loss_or_doubles(
    lossy: tuple[str, DropOnce, list[dict[str, Any]]],
) -> None:
    url, middleware, sent = lossy
    async with connect(url) as transport:
        received: list[dict[str, Any]] = []
        recording = Recording(transport, received)
        client = Client(ClientLink(recording, acp.new_client_connection(CLIENT)))
        session_id = await client.start()
        prompt = c.SessionIntent(session_id, i.SendPrompt((v.TextContent("ask first"),)))
        (prompt_id,) = (await client.send(prompt)).ids[:1]
        await client.wait(lambda: client.asked)
        asked = client.asked.pop()
        allow = i.AnswerPermission(asked.request_id, "allow")
        await client.send(c.SessionIntent(session_id, allow))
        await client.wait(lambda: prompt_id in client.settled)
        assert isinstance(client.settled.pop(prompt_id), c.PromptEnded)
    assert middleware.swallowed  # a chunk really was lost on the way ...
    reopened = middleware.gets[1]
    assert reopened["last-event-id"].isdigit()  # ... and the stream was reopened after it
    # Every message the agent sent on the session's stream arrived once, in order.
    from_agent = [e["message"] for e in sent if e["from"] == "agent"]
    assert _on_sessions(received) == _on_sessions(from_agent)
    assert len(_on_sessions(received)) > 8
    view = client.link.connection.view(session_id)
    assert view.tool_calls["t1"].status == "completed"
    texts = [v.message_text(m) for m in view.messages.values() if m.role == "agent"]
    assert sorted(texts) == [" (the tool ran)", "You said: ask first"]


class Recording:
    """A transport that keeps every message it received."""

    def __init__(self, transport: Any, into: list[dict[str, Any]]) -> None:
        self.transport = transport
        self.into = into
        self.connection_id: str | None = None

    async def send(self, message: dict[str, Any]) -> None:
        await self.transport.send(message)

    async def receive(self) -> Any:
        event = await self.transport.receive()
        if isinstance(event, c.Parsed):
            self.into.append(event.value)
        return event


# -- a host that reads nothing for a while holds a bounded queue ------------------------------

FLOOD = 3000


class FloodAgent(AskingAgent):
    """Answers a prompt with FLOOD chunks, "0 " to "2999 ", then ends the turn."""

    async def turn(self, session_id: str) -> None:
        prompt = self.link.connection.engine(session_id).prompts[0]
        self.do(session_id, i.AcceptPrompt(prompt.id))
        for n in range(FLOOD):
            self.do(session_id, i.SendAgentText(f"{n} "))
            if n % 100 == 0:
                await anyio.lowlevel.checkpoint()
        self.do(session_id, i.EndTurn())


@pytest.fixture
def flood_url(anyio_backend: str) -> Iterator[str]:
    yield from _serve(anyio_backend, asgi_app(FloodAgent))


@pytest.mark.parametrize("scheme", ["http", "ws"])
async def test_a_host_that_reads_nothing_holds_a_bounded_queue(flood_url: str, scheme: str) -> None:
    from acp_core.aio._client import MAX_QUEUED

    url = flood_url.replace("http://", f"{scheme}://")
    async with connect(url) as transport:
        client = Client(ClientLink(transport, acp.new_client_connection(CLIENT)))
        session_id = await client.start()
        prompt = c.SessionIntent(session_id, i.SendPrompt((v.TextContent("flood"),)))
        (prompt_id,) = (await client.send(prompt)).ids[:1]
        queue: Any = transport.inbound  # type: ignore[attr-defined]
        with anyio.fail_after(WAIT):  # until the reading waits for us (polled, not timed)
            while not queue.statistics().tasks_waiting_send:
                await anyio.sleep(0.01)
        assert queue.statistics().current_buffer_used == MAX_QUEUED  # no more than that
        await client.wait(lambda: prompt_id in client.settled)  # then every message comes
        view = client.link.connection.view(session_id)
    (text,) = [v.message_text(m) for m in view.messages.values() if m.role == "agent"]
    assert text == "".join(f"{n} " for n in range(FLOOD))  # all of them, once, in order
