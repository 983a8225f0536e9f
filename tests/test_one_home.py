"""Clauses of rules folded into one deciding function (issue 21 item 5) that the trace tables
did not reach: each test fails when its clause's branch in the one home is disabled."""

from __future__ import annotations

from typing import Any

from trace_builders import BG_T1, CANCELLED, P, cancel, prompt, request, result, state, tool, upd

import acp_core as acp

_OPTION = {"optionId": "a", "name": "Allow", "kind": "allow_once"}


def _found(entries: list[Any], side: str = "client") -> list[tuple[str, int]]:
    checked = acp.check_trace(entries, revision=acp.V2_PREVIEW, side=side)  # type: ignore[arg-type]
    return [(v.rule, v.index) for v in checked if not v.warning]


def _background_permission(answer: Any) -> list[Any]:
    # A background tool call's permission request stays open over a session/cancel (C40).
    return [
        prompt(1),
        upd(P, "user_message", messageId="u1", content=[{"type": "text", "text": "hi"}]),
        result("agent", 1, {"messageId": "u1"}),
        state(P, "running"),
        tool(P, title="w"),
        state(P, "running", background=BG_T1),
        request(
            "agent",
            7,
            "session/request_permission",
            sessionId=P,
            title="Run?",
            options=[_OPTION],
            subject={"type": "tool_call", "toolCall": {"toolCallId": "t1"}},
        ),
        cancel(P),
        state(P, "idle", stopReason="cancelled", background=BG_T1),
        result("client", 7, answer),
    ]


def test_c40_a_listed_tool_calls_request_answered_cancelled_after_the_cancel() -> None:
    # Planted: C40's answered-cancelled clause never reporting fails this (the table's C40 row
    # covers only the withdrawn request never answered).
    selected = {"outcome": {"outcome": "selected", "optionId": "a"}}
    assert _found(_background_permission(selected)) == []
    assert _found(_background_permission(CANCELLED)) == [("C40", 9)]


def test_j2_a_request_id_reused_in_one_session_while_pending() -> None:
    # Planted: j2_breach's same-session reuse clause disabled fails this (the J2 bad traces
    # reach only the reuse across sessions; tests/test_hostile_ids.py reaches it indirectly).
    entries = [prompt(1), prompt(1)]
    checked = acp.check_trace(entries, revision=acp.V2_PREVIEW, side="client")
    assert [(v.rule, v.index, v.message) for v in checked if not v.warning] == [
        ("J2", 1, "client reuses request id 1 while the request of line 0 is still unanswered")
    ]


def _update_line(update: dict[str, Any]) -> dict[str, Any]:
    params = {"sessionId": P, "update": update}
    return {
        "from": "agent",
        "message": {"jsonrpc": "2.0", "method": "session/update", "params": params},
    }


def test_d1_caps_the_schema_findings_of_a_line_with_one_summary() -> None:
    # Planted: d1_findings without its summary clause fails this (no table row has more than
    # MAX_DIAGNOSTICS mismatches on one line).
    content = [5] * 25
    update = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "c",
        "title": "t",
        "content": content,
    }
    checked = acp.check_trace([_update_line(update)])
    assert [v.rule for v in checked] == ["D1"] * 21
    assert checked[-1].message == "... and 5 more schema mismatches"


def test_d1_names_a_batch_entry_that_does_not_decode() -> None:
    # Planted: d1_findings without its batch-entry clause fails this.
    line = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": P}}
    checked = acp.check_trace([{"from": "client", "message": [line, 5]}])
    assert [(v.rule, v.index, v.message) for v in checked] == [
        ("D1", 0, "batch entry does not decode: expected a JSON-RPC message object @ $[1]")
    ]


def test_r24_is_one_function_asked_at_two_points_and_keeps_its_findings_order() -> None:
    # A close answered while the work it cancels runs, then an idle with end_turn: the freed
    # session (first of all guards), R6 and R2, then the close's stop reason, at one idle.
    # Planted: `_r24_freed` registered after R2 (one point of the order) fails the order;
    # `_r24` without its `freed` clause repeats the duties at the first point.
    from acp_core._rules._conversation_guards import GUARDS
    from acp_core._rules._deciders import DECIDED_BY

    entries = [
        prompt(1),
        result("agent", 1, {"messageId": "u1"}),
        request("client", 2, "session/close", sessionId=P),
        result("agent", 2, {}),
        state(P, "idle", stopReason="end_turn"),
    ]
    checked = acp.check_trace(entries, revision=acp.V2_PREVIEW)
    assert [(v.rule, v.index) for v in checked] == [
        ("R24", 3),
        ("R24", 4),
        ("R6", 4),
        ("R2", 4),
        ("R24", 4),
    ]
    assert checked[1].message.startswith("session update after session/close was answered")
    assert checked[4].message.startswith("session/close (line 2) cancels the work")
    assert DECIDED_BY["R24"] == ("acp_core._rules._conversation_guards:_r24",)
    # asked at three points (every update, the idle, the close's answer), always `_r24`
    asked = [getattr(g.check, "func", g.check) for g in GUARDS if g.rule == "R24"]
    assert [f.__name__ for f in asked] == ["_r24"] * 3
