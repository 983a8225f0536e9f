"""End to end over real pipes: the example stdio agent and client, as separate processes.

The agent (`examples/stdio_agent.py`) runs as a real subprocess; prompts, a permission and a
cancel cross real pipes as newline-delimited JSON-RPC, and the recorded traffic is judged by
the checker. Every wait has a timeout and every child is killed in a `finally`.
"""

from __future__ import annotations

import asyncio
import importlib
import json
import subprocess
import sys
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest

import acp_core as acp

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
AGENT = EXAMPLES / "stdio_agent.py"
CLIENT = EXAMPLES / "stdio_client.py"
TIMEOUT = 20.0  # per read; generous for a loaded machine, never reached when things work


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _sent_by(trace: list[dict[str, Any]], side: str) -> list[Any]:
    return [e["message"] for e in trace if e["from"] == side]


def _updates(trace: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        e["message"]["params"]["update"]
        for e in trace
        if e["message"].get("method") == "session/update"
    ]


def _client_side(violations: tuple[acp.Violation, ...]) -> list[acp.Violation]:
    # A recording judges the side that made it (see examples/stdio_client.py).
    return [v for v in violations if acp.RULES[v.rule].side != "agent"]


@pytest.fixture(scope="module")
def conversation(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    """The example client starting the example agent: two prompts, the second cancelled."""
    tmp = tmp_path_factory.mktemp("e2e")
    client_trace, agent_trace = tmp / "client.jsonl", tmp / "agent.jsonl"
    client = [sys.executable, str(CLIENT), "--trace", str(client_trace), "--timeout", str(TIMEOUT)]
    agent = [sys.executable, str(AGENT), "--delay", "0.3", "--trace", str(agent_trace)]
    r = subprocess.run(
        [*client, "--", *agent],
        capture_output=True,
        text=True,
        timeout=120,  # kills the client (which kills the agent) if anything hangs
        check=False,
    )
    return {"run": r, "client": _read(client_trace), "agent": _read(agent_trace)}


def test_the_client_exits_cleanly_and_shows_the_view(conversation: dict[str, Any]) -> None:
    r = conversation["run"]
    assert r.returncode == 0, r.stdout + r.stderr
    assert "foreground: idle (stop reason: cancelled)" in r.stdout
    assert "You said: Hello, agent!" in r.stdout
    assert r.stdout.rstrip().endswith("violation(s)")
    assert ", 0 violation(s)" in r.stdout


def test_the_agents_recording_breaks_no_rule(conversation: dict[str, Any]) -> None:
    assert acp.check_trace(conversation["agent"]) == ()


def test_the_clients_recording_breaks_no_client_rule(conversation: dict[str, Any]) -> None:
    assert _client_side(acp.check_trace(conversation["client"])) == []


def test_both_ends_saw_each_direction_in_the_same_order(conversation: dict[str, Any]) -> None:
    client, agent = conversation["client"], conversation["agent"]
    assert len(client) == len(agent)
    for side in ("client", "agent"):
        assert _sent_by(client, side) == _sent_by(agent, side)


def test_a_prompt_a_permission_and_a_cancel_crossed_the_pipes(
    conversation: dict[str, Any],
) -> None:
    trace = conversation["agent"]
    methods = [e["message"].get("method") for e in trace]
    assert methods[:2] == ["initialize", None]
    assert methods.count("session/prompt") == 2
    assert methods.count("session/request_permission") == 2
    assert methods.count("session/cancel") == 1
    answers = [
        e["message"]["result"]["outcome"]
        for e in trace
        if e["from"] == "client" and "outcome" in e["message"].get("result", {})
    ]
    assert answers == [{"outcome": "selected", "optionId": "allow"}] * 2
    updates = _updates(trace)
    idles = [
        u.get("stopReason")
        for u in updates
        if u["sessionUpdate"] == "state_update" and u["state"] == "idle"
    ]
    assert idles == ["end_turn", "cancelled"]
    finals = [
        u["status"]
        for u in updates
        if u["sessionUpdate"] == "tool_call_update"
        and u.get("status") in ("completed", "cancelled")
    ]
    assert finals == ["completed", "cancelled"]
    # the cancel came while the second tool was running: it had shown output, not all of it
    cancel_at = methods.index("session/cancel")
    chunks_before = [
        u for u in _updates(trace[:cancel_at]) if u["sessionUpdate"] == "tool_call_content_chunk"
    ]
    assert len(chunks_before) > 2  # both words of the first tool, then the second tool's
    second_prompt_words = 14
    second_tool_chunks = [u for u in updates if u["sessionUpdate"] == "tool_call_content_chunk"][2:]
    assert 1 <= len(second_tool_chunks) < second_prompt_words


# -- the client library in-process, the agent as a subprocess -------------------------------


@pytest.fixture
def examples(monkeypatch: pytest.MonkeyPatch) -> ModuleType:
    monkeypatch.syspath_prepend(str(EXAMPLES))
    import stdio_client

    return stdio_client


async def _cancel_while_asked(examples: ModuleType, agent_trace: Path) -> dict[str, Any]:
    ndjson = importlib.import_module("ndjson")  # examples/ is on the path (the fixture)
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(AGENT),
        "--trace",
        str(agent_trace),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    trace: list[dict[str, Any]] = []
    channel = ndjson.Channel(process.stdout, process.stdin, me="client", peer="agent", trace=trace)
    try:
        # Framing errors are answered, not fatal: a line that is not JSON, an unknown method.
        process.stdin.write(b"this is not json\n")
        await channel.send({"jsonrpc": "2.0", "id": "x", "method": "_no/such", "params": {}})
        replies = [await asyncio.wait_for(channel.receive(), TIMEOUT) for _ in range(2)]
        trace.clear()  # the checker judges the ACP conversation from here on

        client = examples.StdioClient(channel, timeout=TIMEOUT)
        await client.start("/tmp")
        stop = await client.prompt(
            "Please wait",
            choose=lambda request: None,  # the user does not answer...
            # ...and cancels instead, once the view shows the agent waiting for the answer
            cancel_when=lambda view: view.foreground.state == "requires_action",
        )
        engine = client.conn.engine(client.session_id)
        return {"replies": replies, "stop": stop, "client": engine, "trace": trace}
    finally:
        process.stdin.close()
        try:
            await asyncio.wait_for(process.wait(), TIMEOUT)
        except TimeoutError:
            process.kill()
            await process.wait()


def test_a_cancel_while_permission_is_asked_answers_it_cancelled(
    examples: ModuleType, tmp_path: Path
) -> None:
    agent_trace = tmp_path / "agent.jsonl"
    result = asyncio.run(asyncio.wait_for(_cancel_while_asked(examples, agent_trace), 3 * TIMEOUT))
    assert [r["error"]["code"] for r in result["replies"]] == [-32700, -32601]
    assert result["stop"] == "cancelled"
    view = result["client"].view
    (call,) = view.tool_calls.values()
    assert call.status == "cancelled"
    assert len(call.content) == 0  # the tool never ran
    trace = result["trace"]
    # the client answered the open request with the `cancelled` outcome (C15)
    answers = [
        e["message"]["result"]["outcome"]
        for e in trace
        if e["from"] == "client" and "outcome" in e["message"].get("result", {})
    ]
    assert answers == [{"outcome": "cancelled"}]
    assert _client_side(acp.check_trace(trace)) == []
    agent_side = _read(agent_trace)
    start = next(i for i, e in enumerate(agent_side) if e["message"].get("method") == "initialize")
    assert acp.check_trace(agent_side[start:]) == ()


# -- the same agent hosted on the official SDK's connection ---------------------------------


def test_the_agent_runs_on_the_official_sdk_connection(tmp_path: Path) -> None:
    pytest.importorskip(
        "acp.connection", reason="the SDK is optional (`pip install -e '.[bench]'`)"
    )
    client_trace, agent_trace = tmp_path / "client.jsonl", tmp_path / "agent.jsonl"
    client = [sys.executable, str(CLIENT), "--trace", str(client_trace), "--timeout", str(TIMEOUT)]
    agent = [sys.executable, str(EXAMPLES / "sdk_agent.py"), "--trace", str(agent_trace)]
    r = subprocess.run(
        [*client, "--", *agent],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert r.returncode == 0, r.stdout + r.stderr
    trace = _read(client_trace)
    assert _client_side(acp.check_trace(trace)) == []
    # the SDK writes a prompt's response itself, after the engine's first updates: still fine
    assert acp.check_trace(_read(agent_trace)) == ()
    idles = [
        u.get("stopReason")
        for u in _updates(trace)
        if u["sessionUpdate"] == "state_update" and u["state"] == "idle"
    ]
    assert idles == ["end_turn", "cancelled"]
