"""Interop over Streamable HTTP and WebSocket with the official Python SDK 0.12.1 (v1), on
127.0.0.1, no mocks.

One way: the SDK's own client transports (`acp.http.create_http_stream` on httpx,
`acp.ws.create_websocket_stream` on websockets), under the SDK's `ClientSideConnection`,
drive `examples/stdio_agent.py --listen 127.0.0.1:0 --protocol auto` (the echo agent on
`acp_core.aio.asgi_app` under uvicorn, its connection built with `protocols=(2, 1)`), a
separate process. The other way: acp-core's client (`acp_core.aio.connect` and `ClientLink`,
its connection built with `protocols=(2, 1)`) drives the SDK's ASGI app
(`acp.http.asgi.create_asgi_app`) under uvicorn, hosting the SDK agent of
tests/v1_sdk_echo_agent.py; that client runs on asyncio and on trio.

Scenarios: a streamed turn, a permission request answered, a cancel while it is open, and the
end (DELETE over HTTP: the server no longer knows the connection; the socket's close over
WebSocket). Every recording, both directions as the client saw them, checks clean against
the v1 rules (`acp_core.v1.check_v1_trace`). The SDK validates each message it reads against
its v1 models, so a v2 shape reaching it fails the test. `fail_after`/`wait_for` limits only
keep a broken peer from hanging the run; nothing asserts on time.
"""

from __future__ import annotations

import asyncio
import re
import subprocess
import sys
from collections.abc import AsyncIterator, Iterator
from pathlib import Path
from typing import Any

import anyio
import httpx
import pytest

pytest.importorskip("acp", reason="no Python SDK (the `bench` extra; CI installs it)")
pytest.importorskip("websockets", reason="no websockets (the `bench` extra; CI installs it)")

import acp
from acp.http import create_http_stream
from acp.http.asgi import create_asgi_app
from acp.schema import ClientCapabilities, TextContentBlock, ToolCallProgress, ToolCallStart
from acp.ws import create_websocket_stream
from test_aio_client import Client
from test_aio_http import WAIT, _uvicorn
from test_interop_http import Traced
from test_v1_live_agent import CancellingRecorder, Recorder, _text
from v1_sdk_echo_agent import EchoAgent

import acp_core
from acp_core import connection as c
from acp_core import intents as i
from acp_core import values as v
from acp_core.aio import ClientLink, connect

ROOT = Path(__file__).resolve().parents[1]
AGENT = ROOT / "examples" / "stdio_agent.py"
CLIENT = c.Implementation("acp-core-v1-http-client", "1.0")
JSON = {"Content-Type": "application/json"}


def _clean(trace: list[dict[str, Any]]) -> None:
    found = acp_core.v1.check_v1_trace(trace)
    assert [(x.rule, x.message) for x in found] == []


# -- the SDK's client against acp-core's asgi_app ------------------------------------------------


@pytest.fixture(scope="module")
def agent_url() -> Iterator[str]:
    """The echo agent, `--listen` on a free port of 127.0.0.1, serving v2 and v1."""
    command = [sys.executable, str(AGENT), "--listen", "127.0.0.1:0"]
    command += ["--protocol", "auto", "--delay", "0"]
    env = {"PYTHONPATH": str(ROOT), "PATH": "/usr/bin:/bin"}
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=env)
    try:
        assert process.stderr is not None
        line = process.stderr.readline()  # blocks until it listens (or dies)
        found = re.search(r"listening on (http://\S+)", line)
        assert found, line + process.stderr.read()
        yield found.group(1)
    finally:
        process.terminate()
        process.wait(10)


class SdkTraced:
    """An SDK `Transport` that records what crosses it, in acp-core's trace format."""

    def __init__(self, transport: Any) -> None:
        self.transport = transport
        self.trace: list[dict[str, Any]] = []
        self.ended = False  # receive() said end of stream

    async def send(self, message: dict[str, Any]) -> None:
        self.trace.append({"from": "client", "message": message})
        await self.transport.send(message)

    async def receive(self) -> dict[str, Any] | None:
        message = await self.transport.receive()
        if message is None:
            self.ended = True
        else:
            self.trace.append({"from": "agent", "message": message})
        return message

    async def close(self) -> None:
        await self.transport.close()


class HttpSeen:
    """The httpx client the SDK's HTTP transport is given: records each request's method,
    the connection id the server named and each answer's status."""

    def __init__(self) -> None:
        self.seen: list[tuple[str, int, str | None]] = []
        self.client = httpx.AsyncClient(
            timeout=httpx.Timeout(None), event_hooks={"response": [self.note]}
        )

    async def note(self, response: httpx.Response) -> None:
        named = response.headers.get("acp-connection-id")
        self.seen.append((response.request.method, response.status_code, named))


@pytest.fixture(params=["http", "ws"])
def profile(request: pytest.FixtureRequest) -> str:
    return str(request.param)


async def _sdk_transport(profile: str, url: str, seen: HttpSeen) -> SdkTraced:
    if profile == "http":
        return SdkTraced(create_http_stream(url, client=seen.client))
    return SdkTraced(await create_websocket_stream(url.replace("http://", "ws://")))


async def _sdk_session(recorder: Recorder, traced: SdkTraced) -> tuple[Any, Any, str]:
    conn = acp.connect_to_agent(recorder, traced)
    init = await asyncio.wait_for(
        conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities()), WAIT
    )
    session = await asyncio.wait_for(conn.new_session(cwd="/tmp", mcp_servers=[]), WAIT)
    return conn, init, session.session_id


async def _prompt(conn: Any, session_id: str, text: str) -> Any:
    prompt = [TextContentBlock(type="text", text=text)]
    return await asyncio.wait_for(conn.prompt(session_id, prompt), WAIT)


def test_the_sdk_client_runs_a_streamed_turn_with_a_permission_granted(
    agent_url: str, profile: str
) -> None:
    async def run() -> tuple[Recorder, SdkTraced, Any, str, list[Any]]:
        recorder = Recorder()
        seen = HttpSeen()
        traced = await _sdk_transport(profile, agent_url, seen)
        conn, init, session_id = await _sdk_session(recorder, traced)
        answers = [await _prompt(conn, session_id, t) for t in ("hello over http", "again")]
        await conn.close()
        await seen.client.aclose()
        return recorder, traced, init, session_id, answers

    recorder, traced, init, session_id, answers = asyncio.run(run())
    assert init.protocol_version == 1
    assert init.agent_info is not None
    assert init.agent_info.name == "acp-core-echo-agent"
    assert [a.stop_reason for a in answers] == ["end_turn", "end_turn"]
    assert {s for s, _ in recorder.updates} == {session_id}
    updates = [u for _, u in recorder.updates]
    said = _text(updates, acp.schema.AgentMessageChunk)
    assert said == (
        "You said: hello over httpThe tool echoed 3 words.You said: againThe tool echoed 1 words."
    )
    starts = [u.tool_call_id for u in updates if isinstance(u, ToolCallStart)]
    assert starts == ["echo-1", "echo-2"]
    statuses = [u.status for u in updates if isinstance(u, ToolCallProgress) and u.status]
    assert statuses == ["in_progress", "completed", "in_progress", "completed"]
    assert [p[1].tool_call_id for p in recorder.permissions] == ["echo-1", "echo-2"]
    assert len(updates) > 10  # streamed update by update (HTTP: on the session's SSE stream)
    _clean(traced.trace)


def test_the_sdk_client_cancels_while_the_permission_request_is_open(
    agent_url: str, profile: str
) -> None:
    async def run() -> tuple[CancellingRecorder, SdkTraced, list[Any]]:
        recorder = CancellingRecorder()
        seen = HttpSeen()
        traced = await _sdk_transport(profile, agent_url, seen)
        conn, _, session_id = await _sdk_session(recorder, traced)
        recorder.conn = conn
        answers = []
        for hold, text in ((True, "cancel this one"), (False, "and go on")):
            recorder.hold = hold
            answers.append(await _prompt(conn, session_id, text))
        await conn.close()
        await seen.client.aclose()
        return recorder, traced, answers

    recorder, traced, answers = asyncio.run(run())
    assert [a.stop_reason for a in answers] == ["cancelled", "end_turn"]
    assert len(recorder.permissions) == 2
    sent = [e["message"] for e in traced.trace if e["from"] == "client"]
    assert [m.get("method") for m in sent].count("session/cancel") == 1
    _clean(traced.trace)


def test_the_sdk_client_s_close_ends_the_connection(agent_url: str, profile: str) -> None:
    async def run() -> tuple[SdkTraced, HttpSeen, int | None]:
        seen = HttpSeen()
        traced = await _sdk_transport(profile, agent_url, seen)
        conn, _, session_id = await _sdk_session(Recorder(), traced)
        assert (await _prompt(conn, session_id, "one")).stop_reason == "end_turn"
        await conn.close()
        after = None
        named = [n for method, _, n in seen.seen if method == "POST" and n]
        if profile == "http":
            ping = {"jsonrpc": "2.0", "method": "_acp_core/ping", "params": {}}
            headers = {**JSON, "Acp-Connection-Id": named[0]}
            async with httpx.AsyncClient(timeout=WAIT) as other:
                after = (await other.post(agent_url, json=ping, headers=headers)).status_code
        await seen.client.aclose()
        return traced, seen, after

    traced, seen, after = asyncio.run(run())
    if profile == "http":
        deletes = [status for method, status, _ in seen.seen if method == "DELETE"]
        assert deletes == [202]  # the SDK's close() sent DELETE, and asgi_app took it
        assert after == 404  # the connection is gone
    _clean(traced.trace)


# -- acp-core's client against the SDK's ASGI app ------------------------------------------------


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _sdk_agent(conn: Any) -> EchoAgent:
    agent = EchoAgent()
    agent.on_connect(conn)
    return agent


@pytest.fixture(scope="module")
def sdk_url() -> Iterator[str]:
    """The SDK's ASGI app under uvicorn on a free port of 127.0.0.1."""
    yield from _uvicorn(create_asgi_app(_sdk_agent))


@pytest.fixture(params=["http", "ws"])
def sdk_endpoint(request: pytest.FixtureRequest, sdk_url: str) -> str:
    return sdk_url if request.param == "http" else sdk_url.replace("http://", "ws://")


@pytest.fixture
async def session(sdk_endpoint: str) -> AsyncIterator[tuple[Client, Traced, str]]:
    async with connect(sdk_endpoint) as transport:
        traced = Traced(transport)
        connection = acp_core.new_client_connection(CLIENT, protocols=(2, 1))
        client = Client(ClientLink(traced, connection))
        session_id = await client.start()
        yield client, traced, session_id
    _clean(traced.trace)


async def _turn(client: Client, session_id: str, text: str) -> object:
    prompt = c.SessionIntent(session_id, i.SendPrompt((v.TextContent(text),)))
    return await client.request(prompt)


def _agent_text(client: Client, session_id: str) -> list[str]:
    view = client.link.connection.view(session_id)
    return sorted(v.message_text(m) for m in view.messages.values() if m.role == "agent")


@pytest.mark.anyio
async def test_acp_core_s_client_runs_a_streamed_turn_at_the_sdk_server(
    session: tuple[Client, Traced, str],
) -> None:
    client, traced, session_id = session
    assert client.link.connection.protocol_version == 1
    assert session_id.startswith("sdk-sess-")
    ended = await _turn(client, session_id, "hello sdk")
    assert isinstance(ended, c.PromptEnded)
    assert ended.stop_reason == "end_turn"
    assert _agent_text(client, session_id) == ["echo: hello sdk"]
    updates = [
        e["message"]["params"]["update"]["sessionUpdate"]
        for e in traced.trace
        if e["message"].get("method") == "session/update"
    ]
    assert updates == ["agent_message_chunk", "agent_message_chunk"]  # streamed, two chunks


@pytest.mark.anyio
async def test_acp_core_s_client_answers_the_sdk_agent_s_permission_request(
    session: tuple[Client, Traced, str],
) -> None:
    client, _, session_id = session
    prompt = c.SessionIntent(session_id, i.SendPrompt((v.TextContent("tool please"),)))
    (prompt_id,) = (await client.send(prompt)).ids[:1]
    await client.wait(lambda: client.asked)
    asked = client.asked.pop()
    assert asked.session_id == session_id
    await client.send(c.SessionIntent(session_id, i.AnswerPermission(asked.request_id, "allow")))
    await client.wait(lambda: prompt_id in client.settled)
    ended = client.settled.pop(prompt_id)
    assert isinstance(ended, c.PromptEnded)
    assert ended.stop_reason == "end_turn"
    assert _agent_text(client, session_id) == ["echo: allowed"]  # the SDK agent got "allow"
    (call,) = client.link.connection.view(session_id).tool_calls.values()
    assert call.status == "completed"


@pytest.mark.anyio
async def test_acp_core_s_client_cancels_at_the_sdk_server(
    session: tuple[Client, Traced, str],
) -> None:
    client, traced, session_id = session
    prompt = c.SessionIntent(session_id, i.SendPrompt((v.TextContent("tool then cancel"),)))
    (prompt_id,) = (await client.send(prompt)).ids[:1]
    await client.wait(lambda: client.asked)
    await client.send(c.SessionIntent(session_id, i.SendCancel()))
    await client.wait(lambda: prompt_id in client.settled)
    ended = client.settled.pop(prompt_id)
    assert isinstance(ended, c.PromptEnded)
    assert ended.stop_reason == "cancelled"
    # v1: the client answers the open request `cancelled` itself; the SDK agent saw that
    answers = [e["message"] for e in traced.trace if e["from"] == "client"]
    outcomes = [m["result"]["outcome"] for m in answers if "outcome" in m.get("result", {})]
    assert outcomes == [{"outcome": "cancelled"}]
    assert _agent_text(client, session_id) == ["echo: cancelled"]
    ended = await _turn(client, session_id, "after the cancel")
    assert isinstance(ended, c.PromptEnded)
    assert ended.stop_reason == "end_turn"


@pytest.mark.anyio
async def test_acp_core_s_client_deletes_its_connection_at_the_sdk_server(sdk_url: str) -> None:
    async with connect(sdk_url) as transport:
        traced = Traced(transport)
        connection = acp_core.new_client_connection(CLIENT, protocols=(2, 1))
        await Client(ClientLink(traced, connection)).start()
        connection_id = transport.connection_id
        assert connection_id
    headers = {**JSON, "Acp-Connection-Id": connection_id}
    ping = {"jsonrpc": "2.0", "method": "_acp_core/ping", "params": {}}
    with anyio.fail_after(WAIT):
        async with httpx.AsyncClient(timeout=WAIT) as other:
            posted = await other.post(sdk_url, json=ping, headers=headers)
    assert posted.status_code == 404  # our DELETE ended it at the SDK server
    _clean(traced.trace)
