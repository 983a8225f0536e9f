"""acp-core's `AgentConnection` serving a real v1 client: the official Python SDK 0.12.1.

The client is the SDK's own client-side connection (`acp.spawn_agent_process`, protocol 1);
the agent is `examples/stdio_agent.py --protocol auto`, a separate process on real pipes,
built on `new_agent_connection(protocols=(2, 1))`. The SDK validates every message it reads
against its v1 models, so a v2-only shape reaching it fails the test.

Scenario: initialize, session/new, a streamed reply with a tool call whose permission the
client grants, ending `end_turn`; a second prompt on the same session. Each wait has a
generous limit so a silent agent fails the test instead of hanging it; nothing asserts on
time.
"""

from __future__ import annotations

import asyncio
import json
import sys
from pathlib import Path
from typing import Any

import pytest

import acp_core

pytest.importorskip("acp", reason="no Python SDK (the `bench` extra; CI installs it)")

import acp
from acp.schema import (
    AgentMessageChunk,
    AgentThoughtChunk,
    AllowedOutcome,
    ClientCapabilities,
    DeniedOutcome,
    Implementation,
    RequestPermissionResponse,
    TextContentBlock,
    ToolCallProgress,
    ToolCallStart,
)

ROOT = Path(__file__).resolve().parents[1]
AGENT = ROOT / "examples" / "stdio_agent.py"
LIMIT = 60.0  # seconds one exchange may take before the test fails (not a timing assert)


class Recorder:
    """The SDK's `Client` protocol: records updates, grants every permission."""

    def __init__(self) -> None:
        self.updates: list[tuple[str, Any]] = []
        self.permissions: list[Any] = []

    async def session_update(self, session_id: str, update: Any, **kwargs: Any) -> None:
        self.updates.append((session_id, update))

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        self.permissions.append((session_id, tool_call, options))
        allow = next(o for o in options if o.kind == "allow_once")
        return RequestPermissionResponse(
            outcome=AllowedOutcome(outcome="selected", option_id=allow.option_id)
        )


def _text(updates: list[Any], kind: type) -> str:
    return "".join(u.content.text for u in updates if isinstance(u, kind))


async def _conversation(trace: Path) -> tuple[Recorder, list[Any]]:
    recorder = Recorder()
    results: list[Any] = []
    args = (str(AGENT), "--protocol", "auto", "--delay", "0", "--trace", str(trace))
    # The SDK starts the agent with a minimal environment: name this tree's package.
    env = {"PYTHONPATH": str(ROOT)}
    spawned = acp.spawn_agent_process(
        recorder, sys.executable, *args, env=env, transport_kwargs={"stderr": None}
    )
    async with spawned as (conn, _process):
        init = await asyncio.wait_for(
            conn.initialize(
                protocol_version=1,
                client_capabilities=ClientCapabilities(),
                client_info=Implementation(name="sdk-v1-client", version="0.12.1"),
            ),
            LIMIT,
        )
        results.append(init)
        session = await asyncio.wait_for(conn.new_session(cwd="/tmp", mcp_servers=[]), LIMIT)
        results.append(session)
        for text in ("hello from v1", "second prompt"):
            prompt = [TextContentBlock(type="text", text=text)]
            answer = await asyncio.wait_for(conn.prompt(session.session_id, prompt), LIMIT)
            results.append((list(recorder.updates), answer))
    return recorder, results


def test_the_python_sdk_as_a_v1_client_of_the_example_agent(tmp_path: Path) -> None:
    trace = tmp_path / "agent.jsonl"
    recorder, results = asyncio.run(_conversation(trace))
    init, session, (first, first_answer), (both, second_answer) = results

    assert init.protocol_version == 1
    assert init.agent_info is not None
    assert init.agent_info.name == "acp-core-echo-agent"
    assert init.auth_methods == []
    sid = session.session_id
    assert sid == "sess_1"

    # The first turn: a thought, the streamed echo, a tool call granted, the tool's words.
    assert first_answer.stop_reason == "end_turn"
    updates = [u for s, u in first if s == sid]
    assert [s for s, _ in first] == [sid] * len(first)
    assert _text(updates, AgentThoughtChunk) == "Echoing 13 characters."
    assert _text(updates, AgentMessageChunk) == "You said: hello from v1The tool echoed 3 words."
    starts = [u for u in updates if isinstance(u, ToolCallStart)]
    assert [(s.tool_call_id, s.title, s.status) for s in starts] == [
        ("echo-1", "Echo tool", "pending")
    ]
    progress = [u for u in updates if isinstance(u, ToolCallProgress)]
    assert [p.status for p in progress if p.status is not None] == ["in_progress", "completed"]
    contents = [p.content for p in progress if p.content is not None]
    # v1 replaces the content list: each update carries the whole list so far
    assert [[c.content.text for c in content] for content in contents] == [
        ["hello\n"],
        ["hello\n", "from\n"],
        ["hello\n", "from\n", "v1\n"],
    ]
    ((perm_sid, tool_call, options),) = recorder.permissions[:1]
    assert perm_sid == sid
    assert tool_call.tool_call_id == "echo-1"
    assert [o.option_id for o in options] == ["allow", "reject"]

    # The second prompt: its own turn, its own result, a second permission granted.
    assert second_answer.stop_reason == "end_turn"
    second = [u for _, u in both[len(first) :]]
    assert _text(second, AgentMessageChunk) == "You said: second promptThe tool echoed 2 words."
    assert len(recorder.permissions) == 2

    # What the agent wrote is v1: no state_update, no v2-only fields the SDK would ignore.
    sent = [
        json.loads(line)["message"]
        for line in trace.read_text(encoding="utf-8").splitlines()
        if json.loads(line).get("from") == "agent"
    ]
    kinds = [
        m["params"]["update"]["sessionUpdate"] for m in sent if m.get("method") == "session/update"
    ]
    assert "state_update" not in kinds
    assert "user_message" not in kinds
    assert not any(
        "messageId" in m["params"]["update"] for m in sent if m.get("method") == "session/update"
    )
    prompt_results = [m["result"] for m in sent if "stopReason" in m.get("result", {})]
    assert prompt_results == [{"stopReason": "end_turn"}, {"stopReason": "end_turn"}]


class CancellingRecorder(Recorder):
    """Grants every permission except while `hold` is set: then it sends `session/cancel`
    while the request is open and answers it `cancelled`, as v1 asks of a client."""

    def __init__(self) -> None:
        super().__init__()
        self.conn: Any = None
        self.hold = False

    async def request_permission(
        self, session_id: str, tool_call: Any, options: list[Any], **kwargs: Any
    ) -> RequestPermissionResponse:
        if not self.hold:
            return await super().request_permission(session_id, tool_call, options, **kwargs)
        self.permissions.append((session_id, tool_call, options))
        await self.conn.cancel(session_id=session_id)
        return RequestPermissionResponse(outcome=DeniedOutcome(outcome="cancelled"))


async def _cancelling(trace: Path) -> tuple[CancellingRecorder, list[Any]]:
    recorder = CancellingRecorder()
    args = (str(AGENT), "--protocol", "auto", "--delay", "0", "--trace", str(trace))
    spawned = acp.spawn_agent_process(
        recorder,
        sys.executable,
        *args,
        env={"PYTHONPATH": str(ROOT)},
        transport_kwargs={"stderr": None},
    )
    results: list[Any] = []
    async with spawned as (conn, _process):
        recorder.conn = conn
        init = await asyncio.wait_for(
            conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities()), LIMIT
        )
        results.append(init)
        session = await asyncio.wait_for(conn.new_session(cwd="/tmp", mcp_servers=[]), LIMIT)
        for hold, text in ((True, "cancel this one"), (False, "and go on")):
            recorder.hold = hold
            prompt = [TextContentBlock(type="text", text=text)]
            before = len(recorder.updates)
            answer = await asyncio.wait_for(conn.prompt(session.session_id, prompt), LIMIT)
            results.append(([u for _, u in recorder.updates[before:]], answer))
    return recorder, results


def test_the_python_sdk_cancels_while_a_permission_request_is_open(tmp_path: Path) -> None:
    trace = tmp_path / "agent.jsonl"
    recorder, (init, (cancelled, answer), (_, after)) = asyncio.run(_cancelling(trace))
    # acp-core's agent serves session/load (from its engines' history), and says so
    assert init.agent_capabilities.load_session is True
    assert answer.stop_reason == "cancelled"
    assert len(recorder.permissions) == 2
    progress = [u for u in cancelled if isinstance(u, ToolCallProgress)]
    # v2's `cancelled` tool status has no v1 form: the SDK's models accept `failed` only
    assert [p.status for p in progress if p.status is not None] == ["failed"]
    assert after.stop_reason == "end_turn"
    entries = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert acp_core.v1.check_v1_trace(entries, side="agent") == ()


async def _loading(trace: Path) -> tuple[list[Any], list[Any], Any]:
    recorder = Recorder()
    args = (str(AGENT), "--protocol", "auto", "--delay", "0", "--trace", str(trace))
    spawned = acp.spawn_agent_process(
        recorder, sys.executable, *args, env={"PYTHONPATH": str(ROOT)}
    )
    async with spawned as (conn, _process):
        init = await asyncio.wait_for(
            conn.initialize(protocol_version=1, client_capabilities=ClientCapabilities()), LIMIT
        )
        assert init.agent_capabilities.load_session is True
        session = await asyncio.wait_for(conn.new_session(cwd="/tmp", mcp_servers=[]), LIMIT)
        prompt = [TextContentBlock(type="text", text="load me later")]
        await asyncio.wait_for(conn.prompt(session.session_id, prompt), LIMIT)
        live = [u for _, u in recorder.updates]
        before = len(recorder.updates)
        answer = await asyncio.wait_for(
            conn.load_session(cwd="/tmp", session_id=session.session_id, mcp_servers=[]), LIMIT
        )
        loaded = [u for _, u in recorder.updates[before:]]
    return live, loaded, answer


def test_the_python_sdk_loads_a_session_and_is_replayed_its_turn(tmp_path: Path) -> None:
    trace = tmp_path / "agent.jsonl"
    live, loaded, answer = asyncio.run(_loading(trace))
    assert answer is not None  # the SDK validated the v1 load answer
    # the history: the prompt, then what the agent said, the tool call in its final state
    assert _text(loaded, acp.schema.UserMessageChunk) == "load me later"
    assert _text(loaded, AgentThoughtChunk) == _text(live, AgentThoughtChunk)
    assert _text(loaded, AgentMessageChunk) == _text(live, AgentMessageChunk)
    starts = [u for u in loaded if isinstance(u, ToolCallStart)]
    assert [(s.tool_call_id, s.status) for s in starts] == [("echo-1", "completed")]
    assert not any(isinstance(u, ToolCallProgress) for u in loaded)
    entries = [json.loads(line) for line in trace.read_text(encoding="utf-8").splitlines()]
    assert acp_core.v1.check_v1_trace(entries, side="agent") == ()
