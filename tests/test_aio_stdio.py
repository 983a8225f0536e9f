"""`acp_core.aio.serve_stdio` and `spawn_stdio`: an agent served on stdio in a real child
process (tests/aio_stdio_agent.py, the asking agent of test_aio_client.py), driven by
`ClientLink` over `spawn_stdio`, on asyncio and on trio, no mocks.

Scenarios: a streamed turn, a permission request answered, a cancel, a line that is not
JSON, a step the agent's `keep` refuses, an agent that raises, the end of input ending the
agent, a command that cannot start. `fail_after` only keeps a broken agent from hanging the run.
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import anyio
import pytest
from test_aio_client import CLIENT, Client

import acp_core as acp
from acp_core import connection as c
from acp_core import intents as i
from acp_core import values as v
from acp_core.aio import ClientLink, TransportError, spawn_stdio

pytestmark = pytest.mark.anyio

AGENT = Path(__file__).with_name("aio_stdio_agent.py")
WAIT = 30.0


@pytest.fixture(params=["asyncio", "trio"])
def anyio_backend(request: pytest.FixtureRequest) -> str:
    return str(request.param)


def _command(backend: str, *flags: str) -> list[str]:
    return [sys.executable, str(AGENT), backend, *flags]


def _text(view: acp.SessionState) -> str:
    return "".join(v.message_text(m) for m in view.messages.values() if m.role == "agent")


def _prompt(session_id: str, text: str) -> c.SessionIntent:
    return c.SessionIntent(session_id, i.SendPrompt((v.TextContent(text),)))


async def _drain(transport: Any) -> None:
    while True:  # whatever the agent wrote, then the end (EOFError)
        await transport.receive()


async def test_a_streamed_turn_and_the_end_of_input(anyio_backend: str) -> None:
    async with spawn_stdio(_command(anyio_backend)) as transport:
        client = Client(ClientLink(transport, acp.new_client_connection(CLIENT)))
        session_id = await client.start()
        ended = await client.request(_prompt(session_id, "hi there"))
        assert isinstance(ended, c.PromptEnded)
        assert ended.stop_reason == "end_turn"
        assert _text(client.link.connection.view(session_id)) == "You said: hi there"
        assert client.views >= 3  # the user message, the chunk, idle: streamed, not one lump
        process: Any = transport.process  # type: ignore[attr-defined]
    assert process.returncode == 0  # end of input: serve_stdio returned, the agent exited


async def test_a_permission_request_answered_and_a_cancel(anyio_backend: str) -> None:
    async with spawn_stdio(_command(anyio_backend)) as transport:
        client = Client(ClientLink(transport, acp.new_client_connection(CLIENT)))
        session_id = await client.start()
        (prompt_id,) = (await client.send(_prompt(session_id, "ask first"))).ids[:1]
        await client.wait(lambda: client.asked)
        asked = client.asked.pop()
        await client.send(
            c.SessionIntent(session_id, i.AnswerPermission(asked.request_id, "allow"))
        )
        await client.wait(lambda: prompt_id in client.settled)
        view = client.link.connection.view(session_id)
        texts = [v.message_text(m) for m in view.messages.values() if m.role == "agent"]
        assert sorted(texts) == [" (the tool ran)", "You said: ask first"]
        assert view.tool_calls["t1"].status == "completed"
        opened = await client.request(c.NewSession("/tmp"))  # the agent's tool id is "t1" again
        assert isinstance(opened, c.SessionOpened)
        session_id = opened.session_id
        (prompt_id,) = (await client.send(_prompt(session_id, "ask again"))).ids[:1]
        await client.wait(lambda: client.asked)
        await client.send(c.SessionIntent(session_id, i.SendCancel()))
        await client.wait(lambda: prompt_id in client.settled)
        ended = client.settled.pop(prompt_id)
        assert isinstance(ended, c.PromptEnded)
        assert ended.stop_reason == "cancelled"
        assert client.link.connection.view(session_id).tool_calls["t1"].status == "cancelled"


async def test_a_line_that_is_not_json_is_answered_and_the_next_one_read(
    anyio_backend: str,
) -> None:
    async with spawn_stdio(_command(anyio_backend)) as transport:
        process: Any = transport.process  # type: ignore[attr-defined]
        await process.stdin.send(b'{"jsonrpc": "2.0", "id": 7, nope\n')
        with anyio.fail_after(WAIT):
            answer = await transport.receive()
        assert isinstance(answer, c.Parsed)
        assert answer.value["id"] is None
        assert answer.value["error"]["code"] == -32700
        client = Client(ClientLink(transport, acp.new_client_connection(CLIENT)))
        assert await client.start()


async def test_a_step_the_agent_refuses_to_keep_is_answered_and_not_kept(
    anyio_backend: str,
) -> None:
    async with spawn_stdio(_command(anyio_backend, "refuse-new")) as transport:
        client = Client(ClientLink(transport, acp.new_client_connection(CLIENT)))
        assert isinstance(await client.request(c.Initialize()), c.Initialized)
        answered = await client.request(c.NewSession("/tmp"))
        assert isinstance(answered, c.RequestAnswered)
        assert answered.error is not None
        assert answered.error["code"] == -32603
        assert "the store is full" in str(answered.error["message"])
        # the connection did not take the refused request: a new one is judged afresh
        again = await client.request(c.NewSession("/tmp"))
        assert isinstance(again, c.RequestAnswered)
        assert again.error is not None
        assert again.error["code"] == -32603
        assert not client.link.connection.sessions


async def test_an_agent_that_raises_ends_the_serving_with_its_error(anyio_backend: str) -> None:
    async with spawn_stdio(_command(anyio_backend, "crash")) as transport:
        client = Client(ClientLink(transport, acp.new_client_connection(CLIENT)))
        session_id = await client.start()
        await client.send(_prompt(session_id, "hi"))
        with anyio.fail_after(WAIT), pytest.raises(EOFError):
            await _drain(transport)
        process: Any = transport.process  # type: ignore[attr-defined]
        assert await process.wait() == 4  # serve_stdio raised the agent's RuntimeError


async def test_an_agent_that_exits_is_the_end_of_input(anyio_backend: str) -> None:
    command = [sys.executable, "-c", 'print(\'{"jsonrpc": "2.0", "method": "x"}\')']
    async with spawn_stdio(command) as transport:
        with anyio.fail_after(WAIT):
            first = await transport.receive()
            assert isinstance(first, c.Parsed)
            assert first.value == {"jsonrpc": "2.0", "method": "x"}
            with pytest.raises(EOFError):
                await transport.receive()
            process: Any = transport.process  # type: ignore[attr-defined]
            await process.wait()
            with pytest.raises(TransportError, match="pipe broke"):  # its stdin is gone too
                await transport.send({"jsonrpc": "2.0", "method": "y"})


async def test_a_command_that_cannot_start_is_a_transport_error(anyio_backend: str) -> None:
    with pytest.raises(TransportError, match="could not start the agent"):
        async with spawn_stdio(["/nonexistent/agent"]):
            pass
