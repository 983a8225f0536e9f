"""Agent and client engines joined by the pair harness (engine -> encode -> JSON text ->
decode -> other engine): scripted conversations of digest 5.3 (a turn with a permission
request, cancellation, agent-initiated work, background activity) and the races a real
connection allows (messages crossing in flight). After every step with nothing in flight to
the client both sides hold the same session state; every message validates against the
stable schema; every recorded trace passes the checker with zero violations."""

from __future__ import annotations

from typing import Any

import pytest
from pair import AgentClientPair
from schema_validation import OutboundValidator

import acp_core as acp
from acp_core import (
    AcceptPrompt,
    AnswerPermission,
    CancelPermission,
    EndTurn,
    FinishToolCall,
    PatchTerminal,
    PatchToolCall,
    PermissionOption,
    ReportAbort,
    ReportPlan,
    ReportUsage,
    RequestPermission,
    SendAgentText,
    SendCancel,
    SendPrompt,
    SendThought,
    SendToolContent,
    StartToolCall,
    StartWork,
    TextContent,
    ToolContent,
    permission_decision,
    prompt_message_id,
)

OPTIONS = (PermissionOption("y", "Yes", "allow_once"), PermissionOption("n", "No", "reject_once"))
HELLO = (TextContent("hello"),)


@pytest.fixture(scope="module")
def validate(spec_schema: dict[str, Any]) -> OutboundValidator:
    return OutboundValidator(spec_schema)


def _pair(
    validate: OutboundValidator, revision: acp.Revision = acp.V2_2026_08, **kw: Any
) -> AgentClientPair:
    return AgentClientPair(revision=revision, validator=validate, **kw)


def _clean(pair: AgentClientPair) -> None:
    """The recorded trace breaks no rule of the catalogue."""
    violations = pair.violations()
    assert violations == (), [v.to_json() for v in violations]


def test_harness_carries_messages_as_json_and_records_the_trace(
    validate: OutboundValidator,
) -> None:
    pair = _pair(validate)
    sent = pair.client_does(SendPrompt(HELLO))
    assert pair.trace == [{"from": "client", "message": sent[0]}]
    assert pair.agent.prompts[0].prompt == HELLO
    out = pair.agent_does(AcceptPrompt(0))
    assert pair.trace[1:] == [{"from": "agent", "message": w} for w in out]
    assert [side for side, _ in pair.sent] == ["client", "agent", "agent", "agent"]
    assert pair.quiet
    pair.assert_in_sync()


@pytest.mark.parametrize("revision", [acp.V2_2026_08, acp.V2_2026_11], ids=lambda r: r.name)
def test_prompt_turn_with_permission_keeps_both_sides_in_sync(
    validate: OutboundValidator, revision: acp.Revision
) -> None:
    # Digest 5.3 "Prompt-driven turn", step by step.
    pair = _pair(validate, revision)
    pair.client_does(SendPrompt(HELLO))
    for intent in (
        AcceptPrompt(0),
        ReportPlan((acp.PlanEntry("Edit the file", "high", "pending"),)),
        SendThought("thinking"),
        SendAgentText("I will edit"),
        StartToolCall("Edit a.py", tool_call_id="t1", kind="edit"),
        RequestPermission("Edit a.py?", OPTIONS, "t1"),
    ):
        pair.agent_does(intent)
        pair.assert_in_sync()
    assert pair.client.session.foreground.state == "requires_action"
    assert 0 in pair.client.pending
    pair.client_does(AnswerPermission(0, "y"))
    pair.assert_in_sync()
    assert pair.client.session.tool_calls["t1"].status == "in_progress"
    assert pair.agent.phase == "running"
    for intent in (
        SendToolContent("t1", ToolContent(TextContent("patched"))),
        FinishToolCall("t1"),
        ReportUsage(1200, 200000),
        EndTurn(),
    ):
        pair.agent_does(intent)
        pair.assert_in_sync()
    assert pair.client.session.foreground == acp.Foreground("idle", "end_turn")
    user_id = pair.trace[2]["message"]["params"]["update"]["messageId"]
    assert prompt_message_id(pair.client, 0) == user_id
    _clean(pair)


def test_cancel_with_a_pending_permission_ends_cancelled_on_both_sides(
    validate: OutboundValidator,
) -> None:
    pair = _pair(validate)
    pair.client_does(SendPrompt(HELLO))
    pair.agent_does(AcceptPrompt(0))
    pair.agent_does(StartToolCall("Run tests", tool_call_id="t1", kind="execute"))
    pair.agent_does(StartToolCall("Read", tool_call_id="t2", status="in_progress"))
    pair.agent_does(RequestPermission("Run?", OPTIONS, "t1"))
    sent = pair.client_does(SendCancel())
    # C15: the pending request is answered `cancelled` right after the cancel.
    assert [w.get("method") for w in sent] == ["session/cancel", None]
    decision = permission_decision(pair.agent, 0)
    assert decision == acp.PermissionDecision(False, "cancelled")
    assert pair.client.view.tool_calls["t1"].status == "cancelled"  # C14, locally
    assert pair.client.session.tool_calls["t1"].status == "pending"
    pair.assert_in_sync()
    pair.agent_does(FinishToolCall("t2", status="cancelled"))  # R23: still let out
    pair.agent_does(SendAgentText("stopped"))
    pair.agent_does(EndTurn())  # asks end_turn, sends cancelled (R21)
    pair.assert_in_sync()
    assert pair.client.session.foreground == acp.Foreground("idle", "cancelled")
    assert not pair.client.cancel_requested
    assert pair.client.view.tool_calls["t1"].status == "cancelled"  # Q19: kept
    _clean(pair)


def test_abort_after_cancel_reports_cancelled_to_the_client(validate: OutboundValidator) -> None:
    pair = _pair(validate)
    pair.client_does(SendPrompt(HELLO))
    pair.agent_does(AcceptPrompt(0))
    pair.client_does(SendCancel())
    pair.agent_does(ReportAbort("asyncio.CancelledError"))
    assert pair.client.session.foreground.stop_reason == "cancelled"
    pair.assert_in_sync()
    _clean(pair)


def test_agent_initiated_work_and_background_activity(validate: OutboundValidator) -> None:
    pair = _pair(validate)
    for intent in (
        StartToolCall("Index", tool_call_id="bg", status="in_progress"),  # background (R40)
        PatchTerminal("term-1", command="make", cwd="/src", output=b"start\n"),
        StartWork(),
        SendAgentText("Found something"),
        EndTurn(),
        FinishToolCall("bg"),
    ):
        pair.agent_does(intent)
        pair.assert_in_sync()
    assert pair.client.session.foreground == acp.Foreground("idle", "end_turn")
    assert pair.client.session.tool_calls["bg"].status == "completed"
    _clean(pair)


def test_a_withdrawn_permission_request_is_answered_cancelled(validate: OutboundValidator) -> None:
    pair = _pair(validate)
    pair.client_does(SendPrompt(HELLO))
    pair.agent_does(AcceptPrompt(0))
    pair.agent_does(RequestPermission("Go?", OPTIONS))
    pair.agent_does(CancelPermission(0))
    assert permission_decision(pair.agent, 0) == acp.PermissionDecision(False, "cancelled")
    assert pair.agent.phase == "running"
    pair.agent_does(EndTurn())
    pair.assert_in_sync()
    _clean(pair)


# -- races: messages crossing on the wire --------------------------------------------------


def test_cancel_crossing_the_end_of_the_turn(validate: OutboundValidator) -> None:
    # Q20: the agent ended before it saw the cancel; any idle ends the client's wait.
    pair = _pair(validate, auto_deliver=False)
    pair.client_does(SendPrompt(HELLO))
    pair.flush()
    pair.agent_does(AcceptPrompt(0))
    pair.agent_does(EndTurn())
    pair.deliver_to_client(3)  # result, user message, running: the idle is still in flight
    pair.client_does(SendCancel())
    assert pair.client.cancel_requested
    pair.flush()
    assert not pair.client.cancel_requested
    assert pair.client.session.foreground.stop_reason == "end_turn"
    pair.assert_in_sync()
    _clean(pair)


def test_permission_request_crossing_the_cancel(validate: OutboundValidator) -> None:
    # The request reaches the client after it cancelled: answered `cancelled` on arrival.
    pair = _pair(validate, auto_deliver=False)
    pair.client_does(SendPrompt(HELLO))
    pair.flush()
    pair.agent_does(AcceptPrompt(0))
    pair.agent_does(StartToolCall("Write", tool_call_id="t1"))
    pair.deliver_to_client()
    pair.agent_does(RequestPermission("Write?", OPTIONS, "t1"))
    pair.client_does(SendCancel())
    pair.deliver_to_agent()
    pair.deliver_to_client()
    assert pair.to_agent  # the cancelled answer is on its way
    pair.flush()
    assert permission_decision(pair.agent, 0) == acp.PermissionDecision(False, "cancelled")
    pair.agent_does(EndTurn())
    pair.flush()
    pair.assert_in_sync()
    assert pair.client.view.tool_calls["t1"].status == "cancelled"
    _clean(pair)


def test_answer_crossing_a_withdrawal(validate: OutboundValidator) -> None:
    pair = _pair(validate, auto_deliver=False)
    pair.client_does(SendPrompt(HELLO))
    pair.flush()
    pair.agent_does(AcceptPrompt(0))
    pair.agent_does(StartToolCall("Write", tool_call_id="t1"))
    pair.agent_does(RequestPermission("Write?", OPTIONS, "t1"))
    pair.flush()
    pair.client_does(AnswerPermission(0, "y"))
    pair.agent_does(CancelPermission(0))
    pair.flush()  # the withdrawal reaches the client after it answered: ignored
    decision = permission_decision(pair.agent, 0)
    assert decision == acp.PermissionDecision(True, "selected", "y")
    pair.agent_does(PatchToolCall("t1", status="completed"))
    pair.agent_does(EndTurn())
    pair.flush()
    pair.assert_in_sync()
    _clean(pair)


def test_queued_prompts_bind_to_their_user_messages_in_order(validate: OutboundValidator) -> None:
    pair = _pair(validate, auto_deliver=False)
    pair.client_does(SendPrompt(HELLO))
    pair.client_does(SendPrompt((TextContent("second"),)))
    pair.client_does(SendPrompt((TextContent("third"),)))
    pair.flush()
    pair.agent_does(AcceptPrompt(0, user_message_id="u-a"))
    pair.agent_does(EndTurn())
    pair.agent_does(acp.RejectPrompt(1, "queue full", code=-32000))
    pair.agent_does(AcceptPrompt(2, user_message_id="u-c", chunked=True))
    pair.agent_does(EndTurn())
    pair.flush()
    assert [p.message_id for p in pair.client.prompts] == ["u-a", None, "u-c"]
    assert [p.state for p in pair.client.prompts] == ["accepted", "rejected", "accepted"]
    pair.assert_in_sync()
    _clean(pair)


def test_cancel_before_the_prompt_was_accepted_cancels_the_prompt(
    validate: OutboundValidator,
) -> None:
    pair = _pair(validate, auto_deliver=False)
    pair.client_does(SendPrompt(HELLO))
    pair.client_does(SendCancel())  # the user changed their mind at once
    pair.flush()
    assert pair.agent.prompts == ()
    assert pair.client.prompts[0].state == "rejected"
    assert pair.client.session.foreground == acp.Foreground()  # nothing ran
    pair.agent_does(StartWork())
    pair.agent_does(EndTurn())
    pair.flush()
    pair.assert_in_sync()
    _clean(pair)


def test_fifo_acceptance_of_a_queued_prompt_while_a_newer_one_waits(
    validate: OutboundValidator,
) -> None:
    pair = _pair(validate)
    pair.client_does(SendPrompt(HELLO))
    pair.agent_does(AcceptPrompt(0))
    pair.client_does(SendPrompt((TextContent("queued"),)))  # arrives during the turn
    pair.agent_does(EndTurn())
    pair.client_does(SendPrompt((TextContent("later"),)))  # arrives while idle
    for prompt_id in (1, 2):  # oldest first
        pair.agent_does(AcceptPrompt(prompt_id))
        pair.agent_does(EndTurn())
    pair.assert_in_sync()
    assert [p.message_id for p in pair.client.prompts] == ["user-1", "user-2", "user-3"]
    _clean(pair)
