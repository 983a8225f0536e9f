"""Agent engine, permission requests (digest 4.1 R10-R15, R25, R26; Q17, Q33): blocking and
resuming, marking the tool `in_progress` once granted, and every answer that is *not*
approval (cancelled outcome, -32800 and other errors, unknown outcomes, reject options,
malformed results, options never offered)."""

from __future__ import annotations

from typing import Any

import pytest
from pair import (
    cancelled_wire,
    error_wire,
    prompt_wire,
    receive,
    selected_wire,
    updates_of,
)

import acp_core as acp
from acp_core import (
    AcceptPrompt,
    CancelPermission,
    EndTurn,
    LocalProtocolError,
    PermissionOption,
    RemoteProtocolError,
    RequestPermission,
    StartToolCall,
    new_agent,
    permission_decision,
    step,
)

SID = "sess_1"
OPTIONS = (
    PermissionOption("once", "Allow once", "allow_once"),
    PermissionOption("always", "Allow always", "allow_always"),
    PermissionOption("no", "Reject", "reject_once"),
    PermissionOption("never", "Reject always", "reject_always"),
    PermissionOption("ext", "Ask later", "_ask_later"),
)
RUNNING = {"sessionUpdate": "state_update", "state": "running"}
REQUIRES_ACTION = {"sessionUpdate": "state_update", "state": "requires_action"}


def _running_with_tool() -> acp.AgentEngine:
    engine = receive(new_agent(SID), prompt_wire(1))[0]
    engine = step(engine, AcceptPrompt(1)).state
    return step(engine, StartToolCall("Edit file", tool_call_id="t1", kind="edit")).state


def _blocked(tool_call_id: str | None = "t1") -> acp.AgentEngine:
    engine, _ = step(_running_with_tool(), RequestPermission("Edit?", OPTIONS, tool_call_id))
    return engine


def _refused(engine: acp.AgentEngine, intent: object) -> str:
    with pytest.raises(LocalProtocolError) as info:
        step(engine, intent)
    return info.value.rule


# -- R11/R12/R15 ---------------------------------------------------------------------------


def test_permission_request_reports_requires_action_after_the_request() -> None:
    engine, out = step(
        _running_with_tool(), RequestPermission("Edit?", OPTIONS, "t1", description="why")
    )
    request, state = out
    assert request["method"] == "session/request_permission"
    assert request["id"] == 0
    params = request["params"]
    assert params["sessionId"] == SID
    assert params["title"] == "Edit?"
    assert params["description"] == "why"
    assert [o["optionId"] for o in params["options"]] == ["once", "always", "no", "never", "ext"]
    # The subject repeats the tool call's current values only (T10: applying it changes nothing).
    assert params["subject"] == {
        "type": "tool_call",
        "toolCall": {"toolCallId": "t1", "title": "Edit file", "kind": "edit", "status": "pending"},
    }
    assert updates_of((state,)) == [REQUIRES_ACTION]
    assert engine.phase == "requires_action"
    assert permission_decision(engine, 0) is None
    assert 0 in engine.pending


@pytest.mark.parametrize("option", ["once", "always"])
def test_granted_permission_resumes_running_and_marks_the_tool_in_progress(option: str) -> None:
    engine, out = receive(_blocked(), selected_wire(0, option))
    assert updates_of(out) == [
        RUNNING,
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "in_progress"},
    ]
    assert engine.phase == "running"
    assert engine.session.tool_calls["t1"].status == "in_progress"
    assert permission_decision(engine, 0) == acp.PermissionDecision(True, "selected", option)
    assert not engine.pending


def test_granted_permission_without_a_tool_call_only_resumes() -> None:
    engine, out = receive(_blocked(None), selected_wire(0, "once"))
    assert updates_of(out) == [RUNNING]
    assert engine.session.tool_calls["t1"].status == "pending"


def test_granted_permission_leaves_a_tool_that_already_moved_on_alone() -> None:
    engine = step(_blocked(), acp.PatchToolCall("t1", status="completed")).state
    _, out = receive(engine, selected_wire(0, "once"))
    assert updates_of(out) == [RUNNING]


def _not_approved_answers() -> list[Any]:
    unknown = {"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "deferred"}}}
    custom = {"jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "_later", "x": 1}}}
    malformed = {"jsonrpc": "2.0", "id": 0, "result": {"outcome": "selected"}}
    return [
        pytest.param(cancelled_wire(0), "cancelled", None, id="cancelled-outcome"),
        pytest.param(error_wire(0, -32800), "error", None, id="error-32800"),
        pytest.param(error_wire(0, -32603), "error", None, id="internal-error"),
        pytest.param(unknown, "deferred", None, id="unknown-outcome"),
        pytest.param(custom, "_later", None, id="custom-outcome"),
        pytest.param(malformed, "invalid", None, id="malformed-result"),
        pytest.param(selected_wire(0, "no"), "selected", "no", id="reject-once"),
        pytest.param(selected_wire(0, "never"), "selected", "never", id="reject-always"),
        pytest.param(selected_wire(0, "ext"), "selected", "ext", id="custom-option-kind"),
        pytest.param(selected_wire(0, "nope"), "selected", "nope", id="option-never-offered"),
    ]


@pytest.mark.parametrize(("answer", "outcome", "option"), _not_approved_answers())
def test_answers_other_than_an_allow_option_are_not_approval(
    answer: dict[str, Any], outcome: str, option: str | None
) -> None:
    engine, out = receive(_blocked(), answer)
    assert permission_decision(engine, 0) == acp.PermissionDecision(False, outcome, option)
    # R25: never approval, so the tool is not started; the blocked work resumes (R12).
    assert engine.session.tool_calls["t1"].status == "pending"
    assert updates_of(out) == [RUNNING]
    assert not engine.pending


def test_work_stays_blocked_until_every_pending_request_is_answered() -> None:
    engine, out = step(_blocked(), RequestPermission("And this?", OPTIONS))
    assert [w.get("method") for w in out] == ["session/request_permission"]  # already blocked
    assert out[0]["id"] == 1
    engine, out = receive(engine, selected_wire(1, "once"))
    assert out == ()
    assert engine.phase == "requires_action"
    engine, out = receive(engine, selected_wire(0, "no"))
    assert updates_of(out) == [RUNNING]


def test_background_permission_request_while_idle_leaves_the_state_idle() -> None:
    # R40, Q33: background activity does not change the reported foreground state.
    engine = step(new_agent(SID), StartToolCall("bg", tool_call_id="b1")).state
    engine, out = step(engine, RequestPermission("Background?", OPTIONS, "b1"))
    assert [w.get("method") for w in out] == ["session/request_permission"]
    assert engine.phase == "idle"
    engine, out = receive(engine, selected_wire(0, "always"))
    assert updates_of(out) == [
        {"sessionUpdate": "tool_call_update", "toolCallId": "b1", "status": "in_progress"}
    ]
    assert engine.phase == "idle"


def test_a_request_left_from_an_ended_turn_does_not_block_the_next_turn() -> None:
    engine = step(_blocked(), EndTurn("refusal")).state  # work ends while blocked (5.2)
    engine = receive(engine, prompt_wire(2))[0]
    engine = step(engine, AcceptPrompt(2)).state
    engine, out = step(engine, RequestPermission("Again?", OPTIONS))
    assert updates_of(out) == [REQUIRES_ACTION]
    engine, out = receive(engine, selected_wire(1, "once"))
    assert updates_of(out) == [RUNNING]  # request 0 belongs to the ended turn
    assert engine.phase == "running"
    engine, out = receive(engine, selected_wire(0, "once"))
    assert engine.phase == "running"
    assert RUNNING not in updates_of(out)


# -- R26 and ids ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("intent", "rule"),
    [
        pytest.param(RequestPermission("", OPTIONS), "R26", id="empty-title"),
        pytest.param(RequestPermission("t", ()), "R26", id="no-options"),
        pytest.param(
            RequestPermission("t", (PermissionOption("a", "A", "allow_sometimes"),)),
            "R18",
            id="unprefixed-option-kind",
        ),
        pytest.param(RequestPermission("t", OPTIONS, "ghost"), "R13", id="unknown-tool-call"),
        pytest.param(RequestPermission("t", OPTIONS, request_id=0), "E2", id="id-pending"),
        pytest.param(CancelPermission(5), "E2", id="cancel-unknown-request"),
    ],
)
def test_illegal_permission_intents_are_refused(intent: object, rule: str) -> None:
    assert _refused(_blocked(), intent) == rule


def test_request_ids_come_from_the_caller_or_the_counter() -> None:
    engine, out = step(_running_with_tool(), RequestPermission("a", OPTIONS, request_id="r-1"))
    assert out[0]["id"] == "r-1"
    engine, out = step(engine, RequestPermission("b", OPTIONS))
    assert out[0]["id"] == 0
    engine, out = step(engine, RequestPermission("c", OPTIONS, request_id=1))
    engine, out = step(engine, RequestPermission("d", OPTIONS))
    assert out[0]["id"] == 2  # the counter skips ids still pending


def test_withdrawing_a_request_sends_cancel_request_and_still_waits_for_the_answer() -> None:
    engine, out = step(_blocked(), CancelPermission(0))
    assert out == ({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 0}},)
    assert 0 in engine.pending  # the client still answers (cancelled outcome or -32800)
    engine, out = receive(engine, error_wire(0, -32800))
    assert permission_decision(engine, 0) == acp.PermissionDecision(False, "error")


def test_an_answer_to_no_pending_request_is_a_remote_error() -> None:
    engine = receive(_blocked(), selected_wire(0, "once"))[0]
    for wire in (selected_wire(0, "once"), selected_wire(9, "once")):
        with pytest.raises(RemoteProtocolError) as info:
            receive(engine, wire)
        assert info.value.rule == "C25"
