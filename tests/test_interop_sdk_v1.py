"""Interop at protocol 1 with the official TypeScript SDK 2.4.0's v1 API (its stable entry point).

Three runs, every program a separate process talking newline-delimited JSON-RPC on stdio:
- acp-core's `ClientConnection` (tests/v1_peer.py, `protocols=(2, 1)`) drives
  `interop/sdk_v1_agent.mjs` (the SDK's v1 `agent()`): a streamed reply with a tool call whose
  permission is granted, a cancel while the next permission request is open, a second
  prompt; and `examples/stdio_client.py --protocol auto` drives the same agent;
- `interop/sdk_v1_client.mjs` (the SDK's v1 `client()`) drives `examples/stdio_agent.py
  --protocol auto` through the same three turns, then a `session/load` (acp-core's agent
  serves it from its engines' history and advertises `loadSession`);
- the SDK client drives the SDK agent, with a `session/load` (the agent advertises it): the
  recording of two SDK peers must read clean and fold through acp-core's v1 normalizer.

Each recording is judged per side by `python -m acp_core check --protocol 1`, and both ends
must agree on what was said: the view each side's recording folds into (the v1 normalizer)
is the same, and matches what the SDK program reports it sent or was handed. Needs `node`
and `npm` (see interop_setup).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from interop_setup import INTEROP, sdk_unavailable
from v1_peer import V1Peer

import acp_core as acp
from acp_core import connection as c
from acp_core import intents as i
from acp_core import values as v

ROOT = Path(__file__).resolve().parents[1]
AGENT = ROOT / "examples" / "stdio_agent.py"
CLIENT = ROOT / "examples" / "stdio_client.py"
TS_AGENT = INTEROP / "sdk_v1_agent.mjs"
TS_CLIENT = INTEROP / "sdk_v1_client.mjs"
RUN_TIMEOUT = 120  # seconds per process run; the programs time every wait out sooner
PROMPTS = ("hello from acp-core", "cancel me while you ask", "a second prompt")


@pytest.fixture(scope="module", autouse=True)
def sdk() -> None:
    why = sdk_unavailable()
    if why is not None:
        pytest.skip(why)


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    # Python children import this tree's package, whatever the cwd (a relative PYTHONPATH
    # would not follow them into interop/).
    env = {
        **os.environ,
        "PYTHONPATH": os.pathsep.join([str(ROOT), os.environ.get("PYTHONPATH", "")]),
    }
    return subprocess.run(
        command, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False, env=env, **kwargs
    )


def _v1_violations(trace: list[dict[str, Any]], tmp: Path, *, side: str) -> list[Any]:
    """What `check --protocol 1` finds in a recording that binds `side` (or both)."""
    path = tmp / f"check-{side}-{len(trace)}.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in trace))
    run = _run([sys.executable, "-m", "acp_core", "check", "--json", "--protocol", "1", str(path)])
    assert run.returncode in (0, 1), run.stderr
    found: list[dict[str, Any]] = json.loads(run.stdout)
    return [f for f in found if acp.v1.V1_RULES[f["rule"]].side in (side, "both")]


def _folded(trace: list[dict[str, Any]]) -> dict[str, Any]:
    """Each session's snapshot, folded from a recording by the v1 normalizer."""
    result = acp.normalize_v1(trace)
    return {
        sid: acp.snapshot(acp.fold(acp.new_session(sid), result.updates_for(sid)))
        for sid in result.session_ids
    }


def _said(view: acp.SessionState) -> list[dict[str, Any]]:
    """What was said, turn by turn: the prompt, the agent's reply text, the tool calls'
    title and status (the shape the SDK programs report)."""
    turns: list[dict[str, Any]] = []
    for ref in view.timeline:
        if ref.kind == "message":
            message = view.messages[ref.id]
            if message.role == "user":
                turns.append({"prompt": acp.message_text(message), "reply": "", "toolCalls": {}})
            elif message.role == "agent" and turns:
                turns[-1]["reply"] += acp.message_text(message)
        elif ref.kind == "toolCall" and turns:
            call = view.tool_calls[ref.id]
            turns[-1]["toolCalls"][ref.id] = {"title": call.title, "status": call.status}
    return turns


# -- acp-core's client drives the SDK's v1 agent -----------------------------------------------


@pytest.fixture(scope="module")
def ts_agent(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("ts-v1-agent")
    agent_trace, expect = tmp / "agent.jsonl", tmp / "expect.json"
    command = ["node", str(TS_AGENT), "--trace", str(agent_trace), "--expect", str(expect)]
    peer = V1Peer(command=command)
    try:
        sid = peer.start()
        granted = peer.prompt(sid, PROMPTS[0], choose="allow")
        step = c.SessionIntent(sid, i.SendPrompt((v.TextContent(PROMPTS[1]),)))
        peer.step(step)
        held = peer.conn.engine(sid).prompts[-1].request_id
        peer.until(lambda conn: len(conn.engine(sid).pending) > 0)
        (asked,) = peer.conn.engine(sid).pending
        peer.step(c.SessionIntent(sid, i.SendCancel()))

        def cancelled_ended(conn: c.ClientConnection) -> bool:
            record = acp.sent_prompt(conn.engine(sid), held)
            return record is not None and record.ended

        peer.until(cancelled_ended)
        second = peer.prompt(sid, PROMPTS[2], choose="allow")
    finally:
        peer.close()
    assert peer.process.returncode == 0
    return {
        "peer": peer,
        "sid": sid,
        "asked": asked,
        "stops": [granted.stop_reason, acp.sent_prompt(peer.conn.engine(sid), held), second],
        "agent_trace": _read(agent_trace),
        "expect": json.loads(expect.read_text()),
        "tmp": tmp,
    }


def test_the_sdk_v1_agent_is_spoken_to_in_v1(ts_agent: dict[str, Any]) -> None:
    conn = ts_agent["peer"].conn
    assert conn.protocol_version == 1
    assert conn.agent_info is not None
    assert conn.agent_info["name"] == "acp-core-interop-v1-agent"
    assert conn.agent_capabilities is not None
    assert conn.agent_capabilities["loadSession"] is True
    findings = [e for e in ts_agent["peer"].events if type(e) is c.Finding]
    assert findings == []


def test_each_turn_of_the_sdk_v1_agent_ends_as_scripted(ts_agent: dict[str, Any]) -> None:
    granted, cancelled, second = ts_agent["stops"]
    assert granted == "end_turn"
    assert cancelled is not None
    assert cancelled.stop_reason == "cancelled"
    assert second.stop_reason == "end_turn"
    # the permission request held open was answered `cancelled` by the cancel (v1's rule)
    events = ts_agent["peer"].events
    assert c.RequestCancelled(ts_agent["asked"]) in events
    answer = {
        "jsonrpc": "2.0",
        "id": ts_agent["asked"],
        "result": {"outcome": {"outcome": "cancelled"}},
    }
    assert answer in ts_agent["peer"].sent


def test_the_client_view_holds_what_the_sdk_v1_agent_said(ts_agent: dict[str, Any]) -> None:
    said = _said(ts_agent["peer"].conn.view(ts_agent["sid"]))
    expected = [
        {"prompt": t["prompt"], "reply": t["reply"], "toolCalls": t["toolCalls"]}
        for t in ts_agent["expect"][ts_agent["sid"]]
    ]
    assert said == expected
    assert [t["stopReason"] for t in ts_agent["expect"][ts_agent["sid"]]] == [
        "end_turn",
        "cancelled",
        "end_turn",
    ]


def test_both_recordings_with_the_sdk_v1_agent_check_clean_and_agree(
    ts_agent: dict[str, Any],
) -> None:
    client_trace, agent_trace = ts_agent["peer"].trace, ts_agent["agent_trace"]
    assert _v1_violations(client_trace, ts_agent["tmp"], side="client") == []
    assert _v1_violations(agent_trace, ts_agent["tmp"], side="agent") == []
    sid = ts_agent["sid"]
    assert _folded(client_trace) == _folded(agent_trace)
    assert _folded(client_trace)[sid] == acp.snapshot(ts_agent["peer"].conn.view(sid))


def test_the_example_client_speaks_v1_to_the_sdk_v1_agent(tmp_path: Path) -> None:
    trace = tmp_path / "client.jsonl"
    client = [sys.executable, str(CLIENT), "--protocol", "auto", "--trace", str(trace)]
    run = _run([*client, "--", "node", str(TS_AGENT)], cwd=ROOT)
    assert run.returncode == 0, run.stdout + run.stderr
    assert "0 violation(s)" in run.stdout
    assert "Turn 2: I will echo." in run.stdout  # the second prompt's reply
    assert "tool call ts-call-2 'Echo' [execute]: completed" in run.stdout
    assert _v1_violations(_read(trace), tmp_path, side="client") == []


def test_a_new_connection_loads_the_sdk_v1_agent_s_session_with_its_history(
    tmp_path: Path,
) -> None:
    # ResumeSession(replay=True) is v1 session/load (the agent advertises loadSession): a
    # client restarted on the same agent process gets the session's history in a fresh view
    agent_trace = tmp_path / "agent.jsonl"
    peer = V1Peer(command=["node", str(TS_AGENT), "--trace", str(agent_trace)])
    try:
        sid = peer.start()
        assert peer.prompt(sid, PROMPTS[0], choose="allow").stop_reason == "end_turn"
        assert peer.prompt(sid, PROMPTS[2], choose="allow").stop_reason == "end_turn"
        live = _said(peer.conn.view(sid))
        first = peer.trace
        peer.reconnect()
        peer.request(c.Initialize())
        answer = peer.request(c.ResumeSession(sid, os.getcwd(), replay=True))
        assert answer.error is None
        assert peer.sent[-1]["method"] == "session/load"
        loaded = peer.conn.view(sid)
        after = peer.prompt(sid, PROMPTS[1], choose="allow")
    finally:
        peer.close()
    assert peer.process.returncode == 0
    assert c.SessionOpened(sid, resumed=True, request_id=answer.request_id) in peer.events
    assert [e for e in peer.events if type(e) is c.Finding] == []
    # the agent replays each turn as its prompt and whole reply (no tool calls: its history
    # keeps none), so the loaded view says what the live one did, turn by turn
    assert [(t["prompt"], t["reply"]) for t in _said(loaded)] == [
        (t["prompt"], t["reply"]) for t in live
    ]
    assert all(t["toolCalls"] == {} for t in _said(loaded))
    assert after.stop_reason == "end_turn"
    assert _said(peer.conn.view(sid))[-1]["prompt"] == PROMPTS[1]
    # each connection's recording checks clean at protocol 1, and so does the agent's
    assert _v1_violations(first, tmp_path, side="client") == []
    assert _v1_violations(peer.trace, tmp_path, side="client") == []
    assert _v1_violations(_read(agent_trace), tmp_path, side="agent") == []
    assert _folded(peer.trace)[sid] == acp.snapshot(peer.conn.view(sid))


# -- the SDK's v1 client drives acp-core's example agent ---------------------------------------


def _ts_client(trace: Path, agent: list[str]) -> tuple[int, dict[str, Any], str]:
    summary = trace.with_suffix(".summary.json")
    command = ["node", str(TS_CLIENT), "--trace", str(trace), "--summary", str(summary)]
    run = _run([*command, "--", *agent], cwd=INTEROP)
    assert summary.exists(), run.stderr
    return run.returncode, json.loads(summary.read_text()), run.stderr


@pytest.fixture(scope="module")
def ts_client(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("ts-v1-client")
    client_trace, agent_trace = tmp / "client.jsonl", tmp / "agent.jsonl"
    agent = [sys.executable, str(AGENT), "--protocol", "auto", "--delay", "0"]
    code, summary, stderr = _ts_client(client_trace, [*agent, "--trace", str(agent_trace)])
    return {
        "code": code,
        "summary": summary,
        "stderr": stderr,
        "client_trace": _read(client_trace),
        "agent_trace": _read(agent_trace),
        "tmp": tmp,
    }


def test_the_sdk_v1_client_runs_every_turn_without_a_problem(ts_client: dict[str, Any]) -> None:
    summary = ts_client["summary"]
    assert summary["problems"] == [], ts_client["stderr"]
    assert ts_client["code"] == 0
    assert summary["protocolVersion"] == 1
    assert summary["agentInfo"]["name"] == "acp-core-echo-agent"
    assert summary["agentExit"] == {"code": 0, "signal": None}
    # acp-core's agent serves session/load from its engines' history, and says so: the
    # client loads the session after its turns
    assert summary["load"] == {"advertised": True, "answered": True}


def test_the_sdk_v1_client_s_session_load_replays_each_turn_in_v1_shapes(
    ts_client: dict[str, Any],
) -> None:
    summary = ts_client["summary"]
    replayed: list[list[str]] = []  # each turn's replay, from its user chunk on
    for item in summary["loadReplay"]:
        if item.startswith("user_message_chunk:"):
            replayed.append([])
        replayed[-1].append(item)
    assert len(replayed) == len(summary["turns"])
    for turn, items in zip(summary["turns"], replayed, strict=True):
        assert items[0] == f"user_message_chunk:{turn['prompt']}"
        reply = [i.partition(":")[2] for i in items if i.startswith("agent_message_chunk:")]
        assert "".join(reply) == turn["reply"]
        # each tool call once, as a v1 `tool_call` in its final state (no updates after it)
        assert items.count("tool_call:") == len(turn["toolCalls"]) == 1
        assert not any(i.startswith("tool_call_update") for i in items)


def test_each_turn_the_sdk_v1_client_ran_ends_as_scripted(ts_client: dict[str, Any]) -> None:
    turns = ts_client["summary"]["turns"]
    assert [t["stopReason"] for t in turns] == ["end_turn", "cancelled", "end_turn"]
    assert [[p["answer"] for p in t["permissions"]] for t in turns] == [
        ["allow"],
        ["cancelled"],
        ["allow"],
    ]
    granted, cancelled, second = turns
    assert granted["reply"] == "You said: hello from the v1 SDKThe tool echoed 5 words."
    assert second["reply"] == "You said: a second promptThe tool echoed 3 words."
    assert granted["toolCalls"] == {"echo-1": {"title": "Echo tool", "status": "completed"}}
    # v2's `cancelled` tool status has no v1 form: the SDK is handed `failed` (v1.tool-status)
    assert cancelled["toolCalls"] == {"echo-2": {"title": "Echo tool", "status": "failed"}}


def test_both_recordings_with_the_sdk_v1_client_check_clean_and_agree(
    ts_client: dict[str, Any],
) -> None:
    client_trace, agent_trace = ts_client["client_trace"], ts_client["agent_trace"]
    assert _v1_violations(client_trace, ts_client["tmp"], side="client") == []
    assert _v1_violations(agent_trace, ts_client["tmp"], side="agent") == []
    folded = _folded(agent_trace)
    assert _folded(client_trace) == folded
    (sid,) = folded
    # what the SDK client was handed is what acp-core's agent's recording folds into
    view = acp.fold(acp.new_session(sid), acp.normalize_v1(agent_trace).updates_for(sid))
    said = _said(view)
    reported = [
        {"prompt": t["prompt"], "reply": t["reply"], "toolCalls": t["toolCalls"]}
        for t in ts_client["summary"]["turns"]
    ]
    # the live turns, then the session/load's history of them, read as new messages (a
    # recording has no view to rebuild): the same prompts and replies; its tool calls are
    # the live ones again (same ids), so the timeline shows them at their first turn
    assert said[: len(reported)] == reported
    assert [(t["prompt"], t["reply"]) for t in said[len(reported) :]] == [
        (t["prompt"], t["reply"]) for t in reported
    ]


# -- the two SDK programs together, with a session/load ----------------------------------------


def test_the_sdk_v1_pair_with_a_session_load_reads_clean_in_acp_core(tmp_path: Path) -> None:
    trace, agent_trace = tmp_path / "pair.jsonl", tmp_path / "agent.jsonl"
    code, summary, stderr = _ts_client(trace, ["node", str(TS_AGENT), "--trace", str(agent_trace)])
    assert summary["problems"] == [], stderr
    assert code == 0
    assert summary["load"] == {"advertised": True, "answered": True}
    replies = [t["reply"] for t in summary["turns"]]
    assert summary["loadReplay"] == [
        f"{kind}:{text}"
        for t, reply in zip(summary["turns"], replies, strict=True)
        for kind, text in (("user_message_chunk", t["prompt"]), ("agent_message_chunk", reply))
    ]
    client_trace = _read(trace)
    assert _v1_violations(client_trace, tmp_path, side="client") == []
    assert _v1_violations(_read(agent_trace), tmp_path, side="agent") == []
    assert _folded(client_trace) == _folded(_read(agent_trace))
    (view,) = _folded(client_trace).values()
    # the replayed history follows the live turns as messages of its own
    users = [view["messages"][e["id"]] for e in view["timeline"] if e["kind"] == "message"]
    texts = [m["content"][0]["text"] for m in users if m["role"] == "user"]
    assert texts[:3] == [t["prompt"] for t in summary["turns"]]
    assert texts[3:] == texts[:3]
