"""Agent engine, refusals and purity: custom values must be `_`-prefixed (R18, R19), the
other agent rules an intent can break (R13, R14, R29, R31, R33, R34, R37), background
updates while idle (R40), and the purity of `step` (a refused intent leaves the caller's
engine valid and usable; a successful one leaves the old engine untouched)."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pair import prompt_wire, receive, updates_of

import acp_core as acp
from acp_core import (
    AcceptPrompt,
    EndTurn,
    FinishToolCall,
    LocalProtocolError,
    OtherContent,
    OtherPlan,
    OtherToolCallContent,
    PatchSessionInfo,
    PatchTerminal,
    PatchToolCall,
    PermissionOption,
    PlanEntry,
    ReportPlan,
    ReportUsage,
    ReportUserMessage,
    RequestPermission,
    SendAgentMessage,
    SendAgentText,
    SendTerminalOutput,
    SendThought,
    SendToolContent,
    StartToolCall,
    TextContent,
    ToolContent,
    freeze_json,
    new_agent,
    step,
)

SID = "sess_1"


def _other_block(tag: str) -> OtherContent:
    return OtherContent(freeze_json({"type": tag, "payload": 1}))  # type: ignore[arg-type]


def _other_tool_content(tag: str) -> OtherToolCallContent:
    return OtherToolCallContent(freeze_json({"type": tag}))  # type: ignore[arg-type]


def _other_plan(raw: dict[str, Any]) -> OtherPlan:
    return OtherPlan(freeze_json(raw))  # type: ignore[arg-type]


def _entry(priority: str = "high", status: str = "pending") -> PlanEntry:
    return PlanEntry("step", priority, status)


def _running(revision: acp.Revision = acp.V2_2026_08) -> acp.AgentEngine:
    engine = receive(new_agent(SID, revision=revision), prompt_wire(1))[0]
    engine = step(engine, AcceptPrompt(1)).state
    return step(engine, StartToolCall("Tool", tool_call_id="t1")).state


def _rule(engine: acp.AgentEngine, intent: object) -> str:
    with pytest.raises(LocalProtocolError) as info:
        step(engine, intent)
    return info.value.rule


# -- R18/R19: custom values are `_`-prefixed ---------------------------------------------

# (intent with an unprefixed unknown value, the same intent with an `_` extension value, and
# the rule it breaks: R18 at the sites R18 names, R19 at the other open sites, as in the checker)
CUSTOM_VALUES = [
    pytest.param(EndTurn("done"), EndTurn("_done"), "R18", id="stop-reason"),
    pytest.param(
        StartToolCall("t", kind="exec"), StartToolCall("t", kind="_exec"), "R18", id="tool-kind"
    ),
    pytest.param(
        StartToolCall("t", status="queued"),
        StartToolCall("t", status="_queued"),
        "R18",
        id="tool-status",
    ),
    pytest.param(
        PatchToolCall("t1", kind="exec"),
        PatchToolCall("t1", kind="_exec"),
        "R18",
        id="patch-kind",
    ),
    pytest.param(
        PatchToolCall("t1", status="done"),
        PatchToolCall("t1", status="_done"),
        "R18",
        id="patch-status",
    ),
    pytest.param(
        FinishToolCall("t1", status="done"),
        FinishToolCall("t1", status="_done"),
        "R18",
        id="final-status",
    ),
    pytest.param(
        ReportPlan((_entry(priority="urgent"),)),
        ReportPlan((_entry(priority="_urgent"),)),
        "R18",
        id="plan-priority",
    ),
    pytest.param(
        ReportPlan((_entry(status="blocked"),)),
        ReportPlan((_entry(status="_blocked"),)),
        "R18",
        id="plan-status",
    ),
    pytest.param(
        ReportPlan(plan=_other_plan({"type": "markdown", "planId": "p"})),
        ReportPlan(plan=_other_plan({"type": "_markdown", "planId": "p"})),
        "R18",
        id="plan-type",
    ),
    pytest.param(
        RequestPermission("t", (PermissionOption("o", "O", "allow_sometimes"),)),
        RequestPermission("t", (PermissionOption("o", "O", "_allow_sometimes"),)),
        "R18",
        id="permission-option-kind",
    ),
    pytest.param(
        SendAgentText(_other_block("widget")),
        SendAgentText(_other_block("_widget")),
        "R18",
        id="agent-chunk-content-type",
    ),
    pytest.param(
        SendThought(_other_block("widget")),
        SendThought(_other_block("_widget")),
        "R18",
        id="thought-content-type",
    ),
    pytest.param(
        SendAgentMessage((TextContent("a"), _other_block("widget"))),
        SendAgentMessage((TextContent("a"), _other_block("_widget"))),
        "R18",
        id="agent-message-content-type",
    ),
    pytest.param(
        ReportUserMessage((_other_block("widget"),)),
        ReportUserMessage((_other_block("_widget"),)),
        "R18",
        id="user-message-content-type",
    ),
    pytest.param(
        StartToolCall("t", content=(_other_tool_content("chart"),)),
        StartToolCall("t", content=(_other_tool_content("_chart"),)),
        "R19",
        id="tool-content-type",
    ),
    pytest.param(
        SendToolContent("t1", ToolContent(_other_block("widget"))),
        SendToolContent("t1", ToolContent(_other_block("_widget"))),
        "R18",
        id="nested-tool-content-block-type",
    ),
    pytest.param(
        PatchToolCall("t1", content=(_other_tool_content("chart"),)),
        PatchToolCall("t1", content=(_other_tool_content("_chart"),)),
        "R19",
        id="patch-tool-content-type",
    ),
    pytest.param(
        FinishToolCall("t1", content=(_other_tool_content("chart"),)),
        FinishToolCall("t1", content=(_other_tool_content("_chart"),)),
        "R19",
        id="final-tool-content-type",
    ),
]


@pytest.mark.parametrize(("unprefixed", "prefixed", "rule"), CUSTOM_VALUES)
def test_unprefixed_custom_values_are_refused_and_prefixed_ones_sent(
    unprefixed: object, prefixed: object, rule: str
) -> None:
    engine = _running()
    assert _rule(engine, unprefixed) == rule
    _, out = step(engine, prefixed)
    assert out  # sent as given


def test_accepting_a_prompt_with_an_unprefixed_content_type_is_refused() -> None:
    engine = receive(new_agent(SID), prompt_wire(1))[0]
    assert _rule(engine, AcceptPrompt(1, content=(_other_block("widget"),))) == "R18"
    assert step(engine, AcceptPrompt(1, content=(_other_block("_widget"),))).outbound


@pytest.mark.parametrize(
    "intent",
    [
        pytest.param(EndTurn("error"), id="stop-reason-error"),
        pytest.param(StartToolCall("t", status="paused"), id="tool-status-paused"),
    ],
)
def test_values_known_only_to_the_later_revision_are_refused_by_the_earlier_one(
    intent: object,
) -> None:
    assert _rule(_running(acp.V2_2026_08), intent) == "R18"
    assert step(_running(acp.V2_2026_11), intent).outbound


def test_every_known_tool_kind_is_accepted() -> None:
    engine = _running()
    for kind in sorted(acp.ToolKind.KNOWN):
        engine, out = step(engine, StartToolCall("t", kind=kind))
        assert updates_of(out)[0]["kind"] == kind


# -- the other rules an intent can break ------------------------------------------------


@pytest.mark.parametrize(
    ("intent", "rule"),
    [
        pytest.param(StartToolCall(""), "R14", id="tool-call-without-title"),
        pytest.param(StartToolCall("t", tool_call_id="t1"), "R13", id="tool-call-id-reused"),
        pytest.param(StartToolCall("t", tool_call_id=""), "J63", id="empty-tool-call-id"),
        pytest.param(PatchToolCall("ghost", title="x"), "R13", id="update-unknown-tool"),
        pytest.param(
            SendToolContent("ghost", ToolContent(TextContent("x"))),
            "R13",
            id="content-for-unknown-tool",
        ),
        pytest.param(FinishToolCall("ghost"), "R13", id="finish-unknown-tool"),
        pytest.param(ReportPlan(plan_id=""), "R29", id="empty-plan-id"),
        pytest.param(
            ReportPlan(plan=_other_plan({"type": "_x", "planId": ""})), "R29", id="other-plan-id"
        ),
        pytest.param(ReportPlan(plan=_other_plan({"type": "_x"})), "R29", id="no-plan-id"),
        pytest.param(ReportPlan(plan=_other_plan({"planId": "p"})), "D1", id="no-plan-type"),
        pytest.param(PatchTerminal(""), "R31", id="empty-terminal-id"),
        pytest.param(SendTerminalOutput("", b"x"), "R31", id="chunk-for-empty-terminal-id"),
        pytest.param(PatchTerminal("term", cwd="relative/dir"), "R33", id="relative-cwd"),
        pytest.param(ReportUsage(-1, 100), "D1", id="negative-used"),
        pytest.param(ReportUsage(1, 2**64), "D1", id="size-over-uint64"),
        pytest.param(ReportUsage(1, 100, acp.Cost(1.0, "usd")), "R37", id="currency-not-iso"),
    ],
)
def test_illegal_reports_are_refused_with_their_rule(intent: object, rule: str) -> None:
    assert _rule(_running(), intent) == rule


@pytest.mark.parametrize("cwd", ["/home/u", "C:\\work", "D:/x", "\\\\server\\share"])
def test_absolute_terminal_cwds_are_accepted(cwd: str) -> None:
    _, out = step(_running(), PatchTerminal("term", command="ls", cwd=cwd))
    assert updates_of(out)[0]["cwd"] == cwd


def test_terminal_bytes_are_base64_of_each_chunk_and_of_the_whole_snapshot() -> None:
    # R34: a snapshot replaces all bytes; each chunk encodes just its own bytes.
    engine, out = step(_running(), PatchTerminal("term", command="cat", output=b"\x00\xff"))
    assert updates_of(out)[0]["output"] == {"data": "AP8="}
    engine, out = step(engine, SendTerminalOutput("term", b"ab"))
    assert updates_of(out)[0] == {
        "sessionUpdate": "terminal_output_chunk",
        "terminalId": "term",
        "data": "YWI=",
    }
    assert acp.terminal_bytes(engine.session.terminals["term"]) == b"\x00\xffab"


@pytest.mark.parametrize(
    ("engine_kind", "intent"),
    [
        pytest.param("agent", acp.SendPrompt((TextContent("x"),)), id="client-intent-to-agent"),
        pytest.param("agent", object(), id="not-an-intent"),
        pytest.param("client", AcceptPrompt(1), id="agent-intent-to-client"),
    ],
)
def test_intents_of_the_other_side_are_refused(engine_kind: str, intent: object) -> None:
    engine = new_agent(SID) if engine_kind == "agent" else acp.new_client(SID)
    with pytest.raises(LocalProtocolError) as info:
        step(engine, intent)
    assert info.value.rule == "E0"


def test_step_on_something_that_is_not_an_engine_is_a_type_error() -> None:
    with pytest.raises(TypeError):
        step(acp.new_session(SID), EndTurn())  # type: ignore[arg-type]


# -- R40: background updates while idle --------------------------------------------------

BACKGROUND = [
    SendAgentText("bg"),
    SendThought("bg"),
    SendAgentMessage((TextContent("bg"),)),
    ReportUserMessage((TextContent("inserted"),)),
    ReportPlan((_entry(),)),
    StartToolCall("bg", tool_call_id="b1"),
    PatchToolCall("b1", status="in_progress"),
    SendToolContent("b1", ToolContent(TextContent("out"))),
    FinishToolCall("b1"),
    PatchTerminal("term", command="make", cwd="/src"),
    SendTerminalOutput("term", b"ok\n"),
    ReportUsage(10, 100),
    PatchSessionInfo(title="Title"),
]


def test_background_updates_while_idle_leave_the_foreground_state_alone() -> None:
    engine = step(_running(), EndTurn("max_tokens")).state
    foreground = engine.session.foreground
    for intent in BACKGROUND:
        engine, out = step(engine, intent)
        kinds = [u["sessionUpdate"] for u in updates_of(out)]
        assert kinds
        assert "state_update" not in kinds
        assert engine.session.foreground == foreground  # idle, stop reason kept
        assert engine.turn is None


# -- purity ----------------------------------------------------------------------------

REFUSED = [
    pytest.param(EndTurn("done"), id="custom-stop-reason"),
    pytest.param(AcceptPrompt(99), id="unknown-prompt"),
    pytest.param(StartToolCall("t", tool_call_id="t1"), id="duplicate-tool-call"),
    pytest.param(
        RequestPermission("t", (PermissionOption("a", "A", "allow_once"),), "ghost"),
        id="permission-for-unknown-tool",
    ),
    pytest.param(ReportUsage(-5, 1), id="negative-usage"),
]


@pytest.mark.parametrize("intent", REFUSED)
def test_a_refused_intent_leaves_the_callers_engine_equal_and_usable(intent: object) -> None:
    engine = step(_running(), SendAgentText("partial")).state
    before = copy.deepcopy(engine)
    with pytest.raises(LocalProtocolError):
        step(engine, intent)
    assert engine == before
    # Still usable, and it behaves exactly like the copy taken before.
    assert step(engine, SendAgentText("more")) == step(before, SendAgentText("more"))
    assert step(engine, EndTurn()).state.phase == "idle"


def test_a_successful_step_leaves_the_old_engine_untouched_and_replayable() -> None:
    engine = _running()
    before = copy.deepcopy(engine)
    first = step(engine, SendAgentText("x"))
    assert engine == before
    assert step(engine, SendAgentText("x")) == first
    assert first.state != engine
