"""Plans (3.5), usage (3.6), session info (3.7), config options (3.8), commands (3.9), the
foreground state (3.10, section 5), unknown updates (2.14) and v1 kinds on v2 (Q32)."""

from __future__ import annotations

from typing import Any

import pytest

import acp_core as acp
from acp_core import freeze_json

SID = "sess_1"


def fold_wire(*wire: dict[str, Any], state: acp.SessionState | None = None) -> acp.SessionState:
    # the reducer tables of the 2026-08 digest (section 3): decoded and folded at 2026-08
    updates = [acp.decode_update(w, strict=True, revision=acp.V2_2026_08) for w in wire]
    return acp.fold(state or acp.new_session(SID), updates, revision=acp.V2_2026_08)


def _entry(content: str, status: str = "pending") -> dict[str, Any]:
    return {"content": content, "priority": "high", "status": status}


def _plan(pid: str, *entries: dict[str, Any], **kw: Any) -> dict[str, Any]:
    return {
        "sessionUpdate": "plan_update",
        "plan": {"type": "items", "planId": pid, "entries": list(entries)},
        **kw,
    }


def _state(state: str, **kw: Any) -> dict[str, Any]:
    return {"sessionUpdate": "state_update", "state": state, **kw}


def _entries(state: acp.SessionState, pid: str) -> list[tuple[str, str]]:
    plan = state.plans[pid].plan
    assert isinstance(plan, acp.PlanItems)
    return [(e.content, e.status) for e in plan.entries]


# -- plans (P1-P6) ---------------------------------------------------------------------------


def test_plan_update_replaces_the_whole_plan() -> None:
    # P2: entries are never merged; the agent may drop, reorder or rewrite them (P6).
    state = fold_wire(
        _plan("p1", _entry("a"), _entry("b"), _entry("c")),
        _plan("p1", _entry("c", "completed"), _entry("a", "in_progress")),
    )
    assert _entries(state, "p1") == [("c", "completed"), ("a", "in_progress")]
    assert [(r.kind, r.id) for r in state.timeline] == [("plan", "p1")]


def test_multiple_plans_coexist() -> None:
    # P3
    state = fold_wire(_plan("p1", _entry("a")), _plan("p2", _entry("b")), _plan("p1", _entry("c")))
    assert _entries(state, "p1") == [("c", "pending")]
    assert _entries(state, "p2") == [("b", "pending")]
    assert [(r.kind, r.id) for r in state.timeline] == [("plan", "p1"), ("plan", "p2")]


def test_empty_entries_keep_an_empty_plan() -> None:
    # P5 / Q10: no removal in stable.
    state = fold_wire(_plan("p1", _entry("a")), _plan("p1"))
    assert "p1" in state.plans
    assert _entries(state, "p1") == []


def test_unknown_plan_types_are_stored_raw_and_replace_an_items_plan() -> None:
    # P4 / Q9
    markdown = {"type": "markdown", "planId": "p1", "content": "# Plan"}
    state = fold_wire(_plan("p1", _entry("a")), {"sessionUpdate": "plan_update", "plan": markdown})
    plan = state.plans["p1"].plan
    assert isinstance(plan, acp.OtherPlan)
    assert plan.raw == freeze_json(markdown)
    assert (plan.type, plan.plan_id) == ("markdown", "p1")
    # and an items plan replaces it back
    state = fold_wire(_plan("p1", _entry("z")), state=state)
    assert _entries(state, "p1") == [("z", "pending")]
    assert len(state.timeline) == 1


def test_plan_update_meta_is_replaced_with_the_plan() -> None:
    # Q14: `_meta` of non-patch updates travels with the data it accompanies.
    state = fold_wire(_plan("p1", _meta={"u": 1}))
    assert state.plans["p1"].meta == freeze_json({"u": 1})
    state = fold_wire(_plan("p1"), state=state)
    assert state.plans["p1"].meta is None


def test_doc_plan_example(doc_examples: list[dict[str, Any]]) -> None:
    (update,) = [
        e["message"]["params"]["update"]
        for e in doc_examples
        if e["page"] == "agent-plan" and e["message"].get("method") == "session/update"
    ]
    state = fold_wire(update)
    plan_id = update["plan"]["planId"]
    assert _entries(state, plan_id) == [
        (e["content"], e["status"]) for e in update["plan"]["entries"]
    ]


def test_an_identical_plan_update_returns_the_same_state() -> None:
    update = _plan("p1", _entry("a"), _meta={"u": 1})
    state = fold_wire(update)
    assert acp.reduce(state, acp.decode_update(update)) is state


# -- usage (3.6, Q11) --------------------------------------------------------------------------

USD = {"amount": 0.045, "currency": "USD"}


def _usage(used: int, size: int, **kw: Any) -> dict[str, Any]:
    return {"sessionUpdate": "usage_update", "used": used, "size": size, **kw}


USAGE_TABLE = [
    pytest.param([_usage(1, 10)], (1, 10, None), id="first-report"),
    pytest.param([_usage(1, 10, cost=USD), _usage(5, 20)], (5, 20, USD), id="cost-kept-absent-Q11"),
    pytest.param(
        [_usage(1, 10, cost=USD), _usage(5, 20, cost=None)], (5, 20, None), id="null-clears"
    ),
    pytest.param(
        [_usage(1, 10, cost=USD), _usage(2, 10, cost={"amount": 1, "currency": "EUR"})],
        (2, 10, {"amount": 1, "currency": "EUR"}),
        id="cost-replaced-not-summed",
    ),
    pytest.param([_usage(9, 10), _usage(3, 4)], (3, 4, None), id="used-size-overwrite"),
]


@pytest.mark.parametrize(("wire", "expected"), USAGE_TABLE)
def test_usage(wire: list[dict[str, Any]], expected: tuple[int, int, Any]) -> None:
    usage = fold_wire(*wire).usage
    assert usage is not None
    cost = None if expected[2] is None else acp.decode_update(_usage(0, 0, cost=expected[2])).cost
    assert (usage.used, usage.size, usage.cost) == (expected[0], expected[1], cost)


def test_no_usage_until_reported_and_meta_replaced() -> None:
    assert acp.new_session(SID).usage is None
    state = fold_wire(_usage(1, 2, _meta={"a": 1}), _usage(1, 2))
    assert state.usage == acp.Usage(1, 2)


# -- session info (3.7) --------------------------------------------------------------------------


def _info(**kw: Any) -> dict[str, Any]:
    return {"sessionUpdate": "session_info_update", **kw}


FULL_INFO = _info(title="Auth", updatedAt="2026-08-22T10:00:00Z", _meta={"tags": ["a"]})
INFO_TABLE = [
    pytest.param({}, ("Auth", "2026-08-22T10:00:00Z", {"tags": ["a"]}), id="absent-keeps"),
    pytest.param({"title": None}, (None, "2026-08-22T10:00:00Z", {"tags": ["a"]}), id="title-null"),
    pytest.param({"title": "New"}, ("New", "2026-08-22T10:00:00Z", {"tags": ["a"]}), id="title"),
    pytest.param({"updatedAt": None}, ("Auth", None, {"tags": ["a"]}), id="updatedAt-null"),
    pytest.param({"_meta": None}, ("Auth", "2026-08-22T10:00:00Z", None), id="meta-null"),
    pytest.param(
        {"_meta": {"b": 1}}, ("Auth", "2026-08-22T10:00:00Z", {"b": 1}), id="meta-replace"
    ),
]


@pytest.mark.parametrize(("patch", "expected"), INFO_TABLE)
def test_session_info_patch(patch: dict[str, Any], expected: tuple[Any, Any, Any]) -> None:
    info = fold_wire(FULL_INFO, _info(**patch)).info
    meta = None if expected[2] is None else freeze_json(expected[2])
    assert (info.title, info.updated_at, info.meta) == (expected[0], expected[1], meta)


def test_session_info_without_change_returns_the_same_state() -> None:
    state = fold_wire(FULL_INFO)
    assert acp.reduce(state, acp.SessionInfoUpdate()) is state
    assert acp.reduce(state, acp.decode_update(FULL_INFO)) is state
    empty = acp.new_session(SID)
    assert acp.reduce(empty, acp.SessionInfoUpdate()) is empty


# -- config options and commands (3.8, 3.9) ------------------------------------------------------


def test_config_options_are_replaced_wholesale_and_keep_order_and_unknown_types() -> None:
    first = [
        {"type": "boolean", "configId": "fast", "name": "Fast", "currentValue": True},
        {
            "type": "select",
            "configId": "mode",
            "name": "Mode",
            "currentValue": "code",
            "options": [{"value": "code", "name": "Code"}],
        },
    ]
    second = [{"type": "_slider", "configId": "s", "name": "S", "min": 0}]
    state = fold_wire({"sessionUpdate": "config_option_update", "configOptions": first})
    assert state.config_options is not None
    assert [o.config_id for o in state.config_options] == ["fast", "mode"]  # type: ignore[union-attr]
    state = fold_wire(
        {"sessionUpdate": "config_option_update", "configOptions": second}, state=state
    )
    (option,) = state.config_options or ()
    assert isinstance(option, acp.OtherSessionConfigOption)
    assert option.raw == freeze_json(second[0])


def test_available_commands_are_replaced_wholesale() -> None:
    assert acp.new_session(SID).available_commands is None
    web = {"name": "web", "description": "Search", "input": {"type": "text", "hint": "query"}}
    test = {"name": "test", "description": "Run tests"}
    state = fold_wire(
        {"sessionUpdate": "available_commands_update", "availableCommands": [web, test]},
        {"sessionUpdate": "available_commands_update", "availableCommands": [test]},
    )
    assert [c.name for c in state.available_commands or ()] == ["test"]
    state = fold_wire(
        {"sessionUpdate": "available_commands_update", "availableCommands": []}, state=state
    )
    assert state.available_commands == ()


# -- foreground state (3.10, section 5) ----------------------------------------------------------


def test_new_session_is_idle() -> None:
    state = acp.new_session(SID)
    assert state.foreground == acp.Foreground("idle", None, None, None)
    assert not acp.is_active(state)


FOREGROUND_TABLE = [
    pytest.param([_state("running")], ("running", None), id="running"),
    pytest.param(
        [_state("running"), _state("idle", stopReason="end_turn")], ("idle", "end_turn"), id="end"
    ),
    pytest.param(
        [_state("idle", stopReason="end_turn"), _state("running")],
        ("running", "end_turn"),
        id="running-keeps-last-stop-reason",
    ),
    pytest.param(
        [_state("idle", stopReason="end_turn"), _state("requires_action")],
        ("requires_action", "end_turn"),
        id="requires-action-keeps-last-stop-reason",
    ),
    pytest.param(
        [_state("idle", stopReason="cancelled"), _state("idle")],
        ("idle", None),
        id="idle-without-reason",
    ),
    pytest.param(
        [_state("idle", stopReason="cancelled"), _state("idle", stopReason=None)],
        ("idle", None),
        id="idle-null-reason",
    ),
    pytest.param([_state("idle", stopReason="_custom")], ("idle", "_custom"), id="custom-reason"),
    pytest.param(
        [
            _state("running"),
            _state("requires_action"),
            _state("running"),
            _state("idle", stopReason="refusal"),
        ],
        ("idle", "refusal"),
        id="permission-round-trip",
    ),
]


@pytest.mark.parametrize(("wire", "expected"), FOREGROUND_TABLE)
def test_foreground_transitions(
    wire: list[dict[str, Any]], expected: tuple[str, str | None]
) -> None:
    fg = fold_wire(*wire).foreground
    assert (fg.state, fg.stop_reason, fg.raw) == (*expected, None)


def test_unknown_state_is_kept_raw_and_counts_as_active() -> None:
    # Q3
    wire = _state("_paused", _meta={"why": "x"}, detail=1)
    state = fold_wire(_state("idle", stopReason="end_turn"), wire)
    fg = state.foreground
    assert fg.state == "_paused"
    assert fg.raw == freeze_json(wire)
    assert fg.meta == freeze_json({"why": "x"})
    assert fg.stop_reason == "end_turn"
    assert acp.is_active(state)
    back = fold_wire(_state("running"), state=state)
    assert back.foreground.raw is None


def test_state_meta_is_replaced_with_each_update() -> None:
    state = fold_wire(_state("running", _meta={"a": 1}))
    assert state.foreground.meta == freeze_json({"a": 1})
    assert fold_wire(_state("running"), state=state).foreground.meta is None


def test_repeated_identical_state_update_returns_the_same_object() -> None:
    # Q21
    for wire in (_state("idle", stopReason="end_turn"), _state("running"), _state("_x", a=1)):
        state = fold_wire(wire)
        assert acp.reduce(state, acp.decode_update(wire)) is state
    fresh = acp.new_session(SID)
    assert acp.reduce(fresh, acp.IdleStateUpdate()) is fresh


BACKGROUND = [
    {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": {"type": "text", "text": "x"},
    },
    {"sessionUpdate": "user_message", "messageId": "u", "content": []},
    {"sessionUpdate": "tool_call_update", "toolCallId": "t", "status": "in_progress"},
    {
        "sessionUpdate": "tool_call_content_chunk",
        "toolCallId": "t2",
        "content": {"type": "terminal", "terminalId": "x"},
    },
    {"sessionUpdate": "terminal_update", "terminalId": "x", "output": {"data": "aGk="}},
    {"sessionUpdate": "terminal_output_chunk", "terminalId": "x", "data": "!!"},
    _plan("p1", _entry("a")),
    _usage(1, 2),
    _info(title="t"),
    {"sessionUpdate": "available_commands_update", "availableCommands": []},
    {"sessionUpdate": "config_option_update", "configOptions": []},
    {"sessionUpdate": "_custom"},
    {"sessionUpdate": "tool_call", "toolCallId": "t", "title": "v1"},
]


@pytest.mark.parametrize("start", ["idle", "running", "requires_action", "_x"])
@pytest.mark.parametrize("update", BACKGROUND, ids=lambda u: u["sessionUpdate"])
def test_only_state_updates_touch_the_foreground(start: str, update: dict[str, Any]) -> None:
    # 3.10, T9, R40: background updates while idle (or in any state) never change it.
    before = fold_wire(_state(start, stopReason="end_turn") if start == "idle" else _state(start))
    after = fold_wire(update, state=before)
    assert after.foreground is before.foreground


# -- unknown updates and v1 kinds (2.14, Q32) -----------------------------------------------------


def test_unknown_updates_are_kept_raw_in_order() -> None:
    first = {"sessionUpdate": "_custom", "x": [1, 2]}
    second = {"sessionUpdate": "notice", "severity": "info", "title": "hi"}
    state = fold_wire(first, _usage(1, 2), second, first)
    assert [u.raw for u in state.unknown] == [freeze_json(d) for d in (first, second, first)]
    assert not state.diagnostics
    assert len(state.timeline) == 0


@pytest.mark.parametrize(
    "wire",
    [
        {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Read", "kind": "read"},
        {"sessionUpdate": "plan", "entries": [_entry("a")]},
        {"sessionUpdate": "current_mode_update", "currentModeId": "code"},
    ],
    ids=lambda w: w["sessionUpdate"],
)
def test_v1_kinds_on_v2_are_kept_raw_with_a_diagnostic(wire: dict[str, Any]) -> None:
    state = fold_wire(wire)
    assert [u.raw for u in state.unknown] == [freeze_json(wire)]
    assert [d.rule for d in state.diagnostics] == ["reduce.v1-kind-on-v2"]
    assert wire["sessionUpdate"] in state.diagnostics[0].path
    # nothing was interpreted
    assert not state.tool_calls
    assert not state.plans
    assert state.foreground == acp.new_session(SID).foreground


def test_reduce_refuses_values_that_are_not_updates() -> None:
    with pytest.raises(TypeError):
        acp.reduce(acp.new_session(SID), acp.TextContent("x"))  # type: ignore[arg-type]
    with pytest.raises(TypeError):
        acp.fold(acp.new_session(SID), [acp.TextContent("x")])  # type: ignore[list-item]


def test_prompt_lifecycle_page_folds_to_the_documented_state(
    doc_examples: list[dict[str, Any]],
) -> None:
    # Every session/update example of the page, in page order: one whole turn.
    updates = [
        e["message"]["params"]["update"]
        for e in doc_examples
        if e["page"] == "prompt-lifecycle" and e["message"].get("method") == "session/update"
    ]
    state = fold_wire(*updates)
    assert [(r.kind, r.id) for r in state.timeline] == [
        ("message", "msg_user_8f7a1"),
        ("plan", "plan-1"),
        ("message", "msg_agent_c42b9"),
        ("message", "msg_thought_a12"),
        ("toolCall", "call_001"),
    ]
    assert [
        state.messages[m].role for m in ("msg_user_8f7a1", "msg_agent_c42b9", "msg_thought_a12")
    ] == ["user", "agent", "thought"]
    assert (state.foreground.state, state.foreground.stop_reason) == ("idle", "end_turn")
    assert state.usage is not None
    assert (state.usage.used, state.usage.size) == (53000, 200000)
    assert state.tool_calls["call_001"].status == "completed"
    assert len(_entries(state, "plan-1")) == 4
    assert acp.turn_tool_calls(state, "msg_user_8f7a1") == ("call_001",)
    assert not state.diagnostics
