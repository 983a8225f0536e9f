"""Interop over Streamable HTTP and WebSocket: acp-core's client (`acp_core.aio.connect`, on
httpx and wsproto) against the official TypeScript SDK 2.4.0's server (`AcpServer` behind its
node adapter, `createNodeHttpHandler` and `createNodeWebSocketUpgradeHandler` on `ws`),
hosting the SDK agent of `interop/sdk_agent.mjs --listen`, on 127.0.0.1, no mocks; the client
runs on asyncio and on trio.

Scenarios (revision 2026-11, the SDK's): a streamed turn with a permission request answered
by POST (the answer carrying the session's `Acp-Session-Id`, as the SDK requires) or frame, a turn
cancelled while the permission request is open (the SDK withdraws it with `$/cancel_request`
and ends the turn `cancelled`), and DELETE: once the client's block ends the SDK server no
longer knows the connection. Each run's traffic as the client saw it checks clean for the
client's rules. And the other way: the SDK's own Streamable HTTP client (`createHttpStream`,
`interop/sdk_ws_client.mjs` given an http:// URL) runs two turns against `acp_core.aio.asgi_app`
under uvicorn and hypercorn-trio. Needs `node` and the pinned SDK (interop_setup).
"""

from __future__ import annotations

import json
import re
import subprocess
from collections.abc import Iterator
from typing import Any

import anyio
import httpx
import pytest
from interop_setup import INTEROP, sdk_unavailable
from test_aio_client import Client
from test_aio_http import WAIT, EchoAgent, _hypercorn_trio, _uvicorn
from test_interop_ws import _run_client

import acp_core as acp
from acp_core import codec
from acp_core import connection as c
from acp_core import intents as i
from acp_core import values as v
from acp_core.aio import ClientLink, RemoteTransport, asgi_app, connect

pytestmark = pytest.mark.anyio

REVISION = codec.revision_named("2026-11")
INFO = c.Implementation("acp-core-http-client", "1.0")


@pytest.fixture(scope="module", autouse=True)
def sdk() -> None:
    why = sdk_unavailable()
    if why is not None:
        pytest.skip(why)


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


@pytest.fixture(scope="module")
def http_url() -> Iterator[str]:
    """The SDK agent served by the SDK's AcpServer on a free port of 127.0.0.1."""
    command = ["node", "sdk_agent.mjs", "--listen", "127.0.0.1:0", "--step-delay-ms", "5"]
    process = subprocess.Popen(
        command, cwd=INTEROP, stdin=subprocess.PIPE, stderr=subprocess.PIPE, text=True
    )
    try:
        assert process.stderr is not None
        line = process.stderr.readline()  # blocks until it listens (or dies)
        found = re.search(r"listening on (http://\S+)", line)
        assert found, line + process.stderr.read()
        yield found.group(1)
    finally:
        assert process.stdin is not None
        process.stdin.close()  # the agent shuts its server down
        try:
            process.wait(10)
        except subprocess.TimeoutExpired:
            process.kill()
            process.wait(10)


@pytest.fixture(params=["http", "ws"])
def url(request: pytest.FixtureRequest, http_url: str) -> str:
    return http_url if request.param == "http" else http_url.replace("http://", "ws://")


class Traced:
    """A transport that records what crosses it, in acp-core's trace format."""

    def __init__(self, transport: RemoteTransport) -> None:
        self.transport = transport
        self.connection_id: str | None = None
        self.trace: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> None:
        self.trace.append({"from": "client", "message": message})
        await self.transport.send(message)
        self.connection_id = self.transport.connection_id

    async def receive(self) -> c.Parsed | acp.FramingError:
        event = await self.transport.receive()
        if isinstance(event, c.Parsed):
            self.trace.append({"from": "agent", "message": event.value})
        return event


async def _session(traced: Traced) -> tuple[Client, str]:
    client = Client(ClientLink(traced, acp.new_client_connection(INFO, revision=REVISION)))
    return client, await client.start()


def _clean(trace: list[dict[str, Any]]) -> None:
    found = acp.check_trace(trace, revision=REVISION, side="client")
    assert [(x.rule, x.message) for x in found] == []


async def test_a_streamed_turn_with_a_permission_answered(url: str) -> None:
    async with connect(url) as transport:
        traced = Traced(transport)
        client, session_id = await _session(traced)
        assert session_id.startswith("sdk-sess-")
        prompt = c.SessionIntent(session_id, i.SendPrompt((v.TextContent("run it"),)))
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
        (call,) = view.tool_calls.values()
        assert call.status == "completed"
        (terminal,) = view.terminals.values()
        assert v.terminal_bytes(terminal) == b"interop 1\ninterop 2\ninterop 3\n"
        texts = [v.message_text(m) for m in view.messages.values() if m.role == "agent"]
        assert sorted(texts) == ["Done.", "I will run one command."]  # the map has no order
        assert client.views > 10  # streamed update by update, on the session's SSE stream
    _clean(traced.trace)


async def test_a_cancel_while_the_permission_request_is_open(url: str) -> None:
    async with connect(url) as transport:
        traced = Traced(transport)
        client, session_id = await _session(traced)
        prompt = c.SessionIntent(session_id, i.SendPrompt((v.TextContent("then cancel"),)))
        (prompt_id,) = (await client.send(prompt)).ids[:1]
        await client.wait(lambda: client.asked)
        await client.send(c.SessionIntent(session_id, i.SendCancel()))
        await client.wait(lambda: prompt_id in client.settled)
        ended = client.settled.pop(prompt_id)
        assert isinstance(ended, c.PromptEnded)
        assert ended.stop_reason == "cancelled"
        (call,) = client.link.connection.view(session_id).tool_calls.values()
        assert call.status == "cancelled"
        # The SDK withdraws its question ($/cancel_request); it may come after the idle.
        await client.wait(
            lambda: any(e["message"].get("method") == "$/cancel_request" for e in traced.trace)
        )
    _clean(traced.trace)


async def test_delete_ends_the_connection_at_the_sdk_server(http_url: str) -> None:
    url = http_url
    async with connect(url) as transport:
        await _session(Traced(transport))
        connection_id = transport.connection_id
        assert connection_id
        async with httpx.AsyncClient(timeout=WAIT) as other:
            headers = {"Acp-Connection-Id": connection_id, "Accept": "text/event-stream"}
            ping = {"jsonrpc": "2.0", "method": "_acp_core/ping", "params": {}}
            posted = await other.post(
                url, json=ping, headers={**headers, "Content-Type": "application/json"}
            )
            assert posted.status_code == 202  # known while the block runs
    with anyio.fail_after(WAIT):
        async with httpx.AsyncClient(timeout=WAIT) as other:
            posted = await other.post(
                url, json=ping, headers={**headers, "Content-Type": "application/json"}
            )
    assert posted.status_code == 404  # our DELETE ended it


@pytest.mark.parametrize("serve", [_uvicorn, _hypercorn_trio], ids=["uvicorn", "hypercorn-trio"])
def test_the_sdk_http_client_runs_two_turns_against_asgi_app(serve: Any, tmp_path: Any) -> None:
    trace = tmp_path / "http.jsonl"
    for served in serve(asgi_app(EchoAgent)):
        code, summary, stderr = _run_client(served, trace, "first words", "second words")
    assert summary["problems"] == [], stderr
    assert code == 0
    assert summary["init"]["info"]["name"] == "aio-echo"
    turns = summary["turns"]
    expected = ["user_message", "state_update:running", "agent_message_chunk", "state_update:idle"]
    assert [t["updates"] for t in turns] == [expected, expected]
    assert [t["text"] for t in turns] == ["You said: first words", "You said: second words"]
    assert [t["stopReason"] for t in turns] == ["end_turn", "end_turn"]
    recorded = [json.loads(line) for line in trace.read_text().splitlines()]
    assert recorded[0]["message"]["method"] == "initialize"
    found = acp.check_trace(recorded, revision=REVISION, side="client")
    assert [(x.rule, x.message) for x in found] == []
