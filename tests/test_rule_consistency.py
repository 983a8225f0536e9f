"""One fact, one rule id: bad traffic fed to the checker, to the client engine and (where an
intent can express it) to the agent engine names the same rule in all three.

Each case is the traffic of one session as `(sender, wire)` pairs. The checker reads it as a
trace; the client engine sends the client's part through its intents and receives the
agent's part; the agent engine is asked for the intent that would produce the fault.
"""

from __future__ import annotations

from typing import Any

import pytest

import acp_core as acp
from acp_core import (
    AcceptPrompt,
    AnswerPermission,
    EndTurn,
    FinishToolCall,
    PatchTerminal,
    PermissionOption,
    Received,
    ReportPlan,
    RequestPermission,
    SendAgentText,
    SendCancel,
    SendPrompt,
    StartToolCall,
    decode_message,
    new_agent,
    new_client,
    step,
)

S = "sess_1"
#: The cases are 2026-08 traffic (`{}` prompt receipts): every party judges at that revision.
REV = acp.V2_2026_08
Wire = dict[str, Any]
Traffic = list[tuple[str, Wire]]


def _update(update: Wire) -> tuple[str, Wire]:
    params = {"sessionId": S, "update": update}
    return "agent", {"jsonrpc": "2.0", "method": "session/update", "params": params}


def _state(state: str, stop: str | None = None) -> tuple[str, Wire]:
    update: Wire = {"sessionUpdate": "state_update", "state": state}
    if stop is not None:
        update["stopReason"] = stop
    return _update(update)


def _prompt(request_id: int = 1) -> tuple[str, Wire]:
    params = {"sessionId": S, "prompt": [{"type": "text", "text": "hi"}]}
    return "client", {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "session/prompt",
        "params": params,
    }


def _answer(request_id: int, result: Any, side: str = "agent") -> tuple[str, Wire]:
    return side, {"jsonrpc": "2.0", "id": request_id, "result": result}


def _user(message_id: str = "u1") -> tuple[str, Wire]:
    content = [{"type": "text", "text": "hi"}]
    return _update({"sessionUpdate": "user_message", "messageId": message_id, "content": content})


def _text(message_id: str = "a1", block: Wire | None = None) -> tuple[str, Wire]:
    block = block or {"type": "text", "text": "ok"}
    return _update(
        {"sessionUpdate": "agent_message_chunk", "messageId": message_id, "content": block}
    )


def _tool(tool_call_id: str = "t1", **fields: Any) -> tuple[str, Wire]:
    return _update({"sessionUpdate": "tool_call_update", "toolCallId": tool_call_id, **fields})


_CANCEL = ("client", {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": S}})
_OPTIONS = [{"optionId": "yes", "name": "Yes", "kind": "allow_once"}]


def _permission(request_id: int = 7, options: Any = None, **params: Any) -> tuple[str, Wire]:
    body = {"sessionId": S, "title": "Run it?", "options": options or _OPTIONS, **params}
    return "agent", {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "session/request_permission",
        "params": body,
    }


# A turn up to `running`: the start every work fault needs.
TURN: Traffic = [_prompt(), _answer(1, {}), _user(), _state("running")]


def _select(current: str) -> Wire:
    return {
        "type": "select",
        "configId": "mode",
        "name": "Mode",
        "currentValue": current,
        "options": [{"value": "ask", "name": "Ask"}],
    }


def _agent_running() -> acp.AgentEngine:
    engine = step(
        new_agent(S, revision=REV), Received(decode_message(_prompt()[1], revision=REV))
    ).state
    return step(engine, AcceptPrompt(1, user_message_id="u1")).state


def _agent_with_tool() -> acp.AgentEngine:
    return step(_agent_running(), StartToolCall("read", tool_call_id="t1")).state


def _agent_after_cancelled_turn() -> acp.AgentEngine:
    engine = step(_agent_with_tool(), Received(decode_message(_CANCEL[1], revision=REV))).state
    return step(engine, EndTurn()).state


def _other_block(kind: str) -> acp.OtherContent:
    return acp.OtherContent(acp.freeze_json({"type": kind}))


# (id, rule, traffic, agent engine before the intent, intent or None)
CASES: list[Any] = [
    ("stop-reason", "R18", [*TURN, _state("idle", "weird")], _agent_running, EndTurn("weird")),
    ("tool-kind", "R18", [*TURN, _tool(title="t", kind="exec")], _agent_running,
     StartToolCall("t", kind="exec")),
    ("tool-status", "R18", [*TURN, _tool(title="t", status="queued")], _agent_running,
     StartToolCall("t", status="queued")),
    ("plan-priority", "R18",
     [*TURN, _update({"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p",
      "entries": [{"content": "x", "priority": "urgent", "status": "pending"}]}})],
     _agent_running, ReportPlan((acp.PlanEntry("x", "urgent", "pending"),), plan_id="p")),
    ("option-kind", "R18",
     [*TURN, _permission(options=[{"optionId": "o", "name": "O", "kind": "allow_sometimes"}])],
     _agent_running, RequestPermission("t", (PermissionOption("o", "O", "allow_sometimes"),))),
    ("content-type", "R18", [*TURN, _text(block={"type": "widget"})], _agent_running,
     SendAgentText(_other_block("widget"))),
    ("session-update-tag", "R19", [*TURN, _update({"sessionUpdate": "weird_update"})], None, None),
    ("tool-content-type", "R19", [*TURN, _tool(title="t", content=[{"type": "chart"}])],
     None, None),
    ("terminal-cwd", "R33",
     [*TURN, _update({"sessionUpdate": "terminal_update", "terminalId": "x", "cwd": "rel"})],
     _agent_running, PatchTerminal("x", cwd="rel")),
    ("terminal-base64", "R34",
     [*TURN, _update({"sessionUpdate": "terminal_output_chunk", "terminalId": "x",
                      "data": "not base64!"})], None, None),
    ("message-role", "R5", [*TURN, _text("u1")], _agent_running,
     SendAgentText("x", message_id="u1")),
    ("tool-title", "R14", [*TURN, _tool(status="pending")], _agent_running,
     StartToolCall("")),
    ("command-cwd", "R26",
     [*TURN, _permission(subject={"type": "command", "command": "ls", "cwd": "rel"}),
      _state("requires_action")], None, None),
    ("idle-without-stop", "R8", [*TURN, _state("idle")], None, None),
    ("no-user-message", "R2", [_prompt(), _answer(1, {}), _state("running"),
                               _state("idle", "end_turn")], None, None),
    ("output-before-running", "R6", [_prompt(), _answer(1, {}), _user(), _text()], None, None),
    ("cancelled-as-end-turn", "R21", [*TURN, _CANCEL, _state("idle", "end_turn")], None, None),
    ("cancelled-as-error", "R22",
     [_prompt(), _user(), _state("running"), _CANCEL,
      ("agent", {"jsonrpc": "2.0", "id": 1, "error": {"code": -32603, "message": "aborted"}})],
     None, None),
    ("update-after-cancelled-idle", "R23",
     [*TURN, _tool(title="t", status="in_progress"), _CANCEL, _state("idle", "cancelled"),
      _tool(status="completed")],
     _agent_after_cancelled_turn, FinishToolCall("t1")),
    ("permission-without-requires-action", "R11",
     [*TURN, _permission(), _answer(7, {"outcome": {"outcome": "selected", "optionId": "yes"}},
                                    "client")], None, None),
    ("resume-without-running", "R12",
     [*TURN, _permission(), _state("requires_action"),
      _answer(7, {"outcome": {"outcome": "selected", "optionId": "yes"}}, "client"), _text()],
     None, None),
    ("result-with-keys", "R1", [_prompt(), _answer(1, {"done": True})], None, None),
    ("idle-to-requires-action", "S1", [_state("idle"), _state("requires_action")], None, None),
    ("idle-repeated", "S2", [_state("idle"), _state("idle", "end_turn")], None, None),
    ("custom-root-key", "R43", [*TURN, _tool(title="t", priority="high")], None, None),
    ("select-value", "J61",
     [_update({"sessionUpdate": "config_option_update", "configOptions": [_select("code")]})],
     None, None),
]  # fmt: skip


def _checker_rules(traffic: Traffic) -> list[str]:
    entries = [{"from": side, "message": wire} for side, wire in traffic]
    return [v.rule for v in acp.check_trace(entries, revision=REV) if not v.warning]


def _client_rules(traffic: Traffic) -> list[str]:
    client = new_client(S, revision=REV)
    for side, wire in traffic:
        if side == "agent":
            client = step(client, Received(decode_message(wire, revision=REV))).state
        elif wire.get("method") == "session/prompt":
            prompt = decode_message(wire, revision=REV)
            assert isinstance(prompt, acp.PromptRequest)
            client = step(client, SendPrompt(prompt.prompt, request_id=prompt.id)).state
        elif wire.get("method") == "session/cancel":
            client = step(client, SendCancel()).state
        else:
            option = wire["result"]["outcome"]["optionId"]
            client = step(client, AnswerPermission(wire["id"], option)).state
    return [v.rule for v in client.violations if not v.warning]


@pytest.mark.parametrize(("rule", "traffic", "engine", "intent"),
                         [pytest.param(*c[1:], id=c[0]) for c in CASES])  # fmt: skip
def test_checker_client_engine_and_agent_engine_name_the_same_rule(
    rule: str, traffic: Traffic, engine: Any, intent: object
) -> None:
    assert _checker_rules(traffic) == [rule]
    assert _client_rules(traffic) == [rule]
    if intent is not None:
        with pytest.raises(acp.LocalProtocolError) as refused:
            step(engine(), intent)
        assert refused.value.rule == rule


def test_the_table_is_large_and_covers_lifecycle_and_value_rules() -> None:
    assert len(CASES) >= 20
    rules = {c[1] for c in CASES}
    assert {"R2", "R6", "R8", "R21", "R23", "R11", "R18", "R19"} <= rules
    assert sum(c[4] is not None for c in CASES) >= 10


def test_the_client_engine_keeps_the_checker_violation_values() -> None:
    # Not only the rule: the same Violation values, at the engine's own message positions.
    traffic = [*TURN, _state("idle", "weird")]
    entries = [{"from": side, "message": wire} for side, wire in traffic]
    client = new_client(S, revision=REV)
    client = step(client, SendPrompt((acp.TextContent("hi"),), request_id=1)).state
    for _, wire in traffic[1:]:
        client = step(client, Received(decode_message(wire, revision=REV))).state
    assert client.violations == acp.check_trace(entries, revision=REV)
