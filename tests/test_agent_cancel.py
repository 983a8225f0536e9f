"""Agent engine, cancellation (digest 4.1 R20-R23, 5.3 "Cancellation"; Q17, Q20): pending
updates still go out, the work ends idle + `cancelled` whatever the agent asks for, an abort
after a cancel is `cancelled` (never an error), and a cancel while idle changes nothing."""

from __future__ import annotations

import pytest
from pair import (
    cancel_wire,
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
    EndTurn,
    FinishToolCall,
    PermissionOption,
    RemoteProtocolError,
    ReportAbort,
    RequestPermission,
    SendAgentText,
    StartToolCall,
    StartWork,
    new_agent,
    permission_decision,
    step,
)

SID = "sess_1"
CANCELLED_IDLE = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled"}
OPTIONS = (PermissionOption("y", "Yes", "allow_once"), PermissionOption("n", "No", "reject_once"))


def _running(revision: acp.Revision = acp.V2_2026_08) -> acp.AgentEngine:
    engine = receive(new_agent(SID, revision=revision), prompt_wire(1))[0]
    engine = step(engine, AcceptPrompt(1)).state
    return step(engine, StartToolCall("Run", tool_call_id="t1", status="in_progress")).state


def _cancelled(revision: acp.Revision = acp.V2_2026_08) -> acp.AgentEngine:
    engine, out = receive(_running(revision), cancel_wire())
    assert out == ()  # a notification is never answered
    return engine


def test_cancel_then_end_turn_reports_cancelled() -> None:
    engine, out = step(_cancelled(), EndTurn())
    assert updates_of(out) == [CANCELLED_IDLE]
    assert engine.turn is None
    assert engine.session.foreground.stop_reason == "cancelled"


@pytest.mark.parametrize("stop", ["end_turn", "max_tokens", "refusal", "_custom", "cancelled"])
def test_cancel_then_any_stop_reason_reports_cancelled(stop: str) -> None:
    _, out = step(_cancelled(), EndTurn(stop))
    assert updates_of(out) == [CANCELLED_IDLE]


@pytest.mark.parametrize("revision", [acp.V2_2026_08, acp.V2_2026_11])
@pytest.mark.parametrize("stop", [None, "error", "_error", "end_turn"])
def test_abort_after_cancel_reports_cancelled_never_an_error(
    revision: acp.Revision, stop: str | None
) -> None:
    _, out = step(_cancelled(revision), ReportAbort("KeyboardInterrupt", stop_reason=stop))
    assert updates_of(out) == [CANCELLED_IDLE]


def test_updates_after_cancel_go_out_before_the_cancelled_idle() -> None:
    # R23: pending updates may still flow; the idle comes last.
    engine = _cancelled()
    sent: list[dict[str, object]] = []
    for intent in (
        SendAgentText("partial answer"),
        FinishToolCall("t1", status="cancelled"),
        EndTurn(),
    ):
        engine, out = step(engine, intent)
        sent.extend(updates_of(out))
    assert [u["sessionUpdate"] for u in sent] == [
        "agent_message_chunk",
        "tool_call_update",
        "state_update",
    ]
    assert sent[1]["status"] == "cancelled"
    assert sent[-1] == CANCELLED_IDLE


def test_updates_after_cancel_do_not_change_the_foreground_state() -> None:
    engine = _cancelled()
    engine = step(engine, SendAgentText("more")).state
    assert engine.phase == "running"
    assert engine.turn is not None
    assert engine.cancel_requested


@pytest.mark.parametrize(
    "answer",
    [cancelled_wire(0), error_wire(0, -32800)],
    ids=["cancelled-outcome", "error-32800"],
)
def test_cancel_while_blocked_does_not_resume_and_ends_cancelled(answer: dict[str, object]) -> None:
    engine = step(_running(), StartToolCall("Edit", tool_call_id="t2")).state
    engine = step(engine, RequestPermission("Edit?", OPTIONS, "t2")).state
    engine = receive(engine, cancel_wire())[0]
    engine, out = receive(engine, answer)
    assert updates_of(out) == []  # neither `running` (the work is being cancelled) nor in_progress
    decision = permission_decision(engine, 0)
    assert decision is not None
    assert not decision.approved
    assert engine.session.tool_calls["t2"].status == "pending"
    _, out = step(engine, EndTurn())
    assert updates_of(out) == [CANCELLED_IDLE]


def test_a_grant_arriving_after_cancel_neither_resumes_nor_starts_the_tool() -> None:
    # The client chose before it cancelled. R20: stop tool invocations, so the tool is not
    # marked in_progress (that status would also override the client's local `cancelled`).
    engine = step(_running(), StartToolCall("Edit", tool_call_id="t2")).state
    engine = step(engine, RequestPermission("Edit?", OPTIONS, "t2")).state
    engine = receive(engine, cancel_wire())[0]
    engine, out = receive(engine, selected_wire(0, "y"))
    assert out == ()
    assert engine.phase == "requires_action"
    assert engine.session.tool_calls["t2"].status == "pending"
    decision = permission_decision(engine, 0)
    assert decision is not None
    assert decision.approved  # recorded as answered; the agent decides what to do with it
    _, out = step(engine, EndTurn())
    assert updates_of(out) == [CANCELLED_IDLE]


def test_cancel_while_idle_changes_nothing() -> None:
    # Q20: nothing is running, nothing is expected in reply.
    engine = new_agent(SID)
    after, out = receive(engine, cancel_wire())
    assert out == ()
    assert after == engine


def test_cancel_affects_only_the_turn_it_arrived_in() -> None:
    engine = step(_cancelled(), EndTurn()).state
    engine = step(engine, StartWork()).state
    _, out = step(engine, EndTurn())
    assert updates_of(out)[0]["stopReason"] == "end_turn"


def test_cancel_for_another_session_is_a_remote_error() -> None:
    with pytest.raises(RemoteProtocolError) as info:
        receive(_running(), cancel_wire("other"))
    assert info.value.rule == "E3"


def test_agent_initiated_work_can_be_cancelled_too() -> None:
    engine = step(new_agent(SID), StartWork()).state
    engine = receive(engine, cancel_wire())[0]
    _, out = step(engine, ReportAbort("stopped"))
    assert updates_of(out) == [CANCELLED_IDLE]


def test_cancel_answers_prompts_not_yet_accepted_with_request_cancelled() -> None:
    # 2026-11 draft: session/cancel cancels "its prompts not yet inserted"; never dropped (Q4).
    engine = receive(_running(), prompt_wire(2))[0]  # queued behind the running turn
    engine, out = receive(engine, cancel_wire())
    assert out == (
        {"jsonrpc": "2.0", "id": 2, "error": {"code": -32800, "message": "Request cancelled"}},
    )
    assert engine.prompts == ()
    assert engine.turn is not None
    assert engine.cancel_requested


def test_cancel_of_a_prompt_that_was_never_accepted_needs_no_idle() -> None:
    engine = receive(new_agent(SID), prompt_wire(1))[0]
    engine, out = receive(engine, cancel_wire())
    assert [w["error"]["code"] for w in out] == [-32800]
    assert engine.turn is None
    assert engine.phase == "idle"
    assert not updates_of(out)  # no foreground work was active: no completion update


# -- which requests a cancel withdraws: the machine's answer (R11, R71, C40) ------------------


def _ask(engine: acp.AgentEngine) -> acp.AgentEngine:
    return step(engine, RequestPermission("Go?", OPTIONS, request_id=7)).state


def _asked_in_the_turn() -> acp.AgentEngine:
    return _ask(_running(acp.PREVIEW))


def _asked_while_idle() -> acp.AgentEngine:
    return _ask(new_agent(SID, revision=acp.PREVIEW))


def _asked_while_a_prompt_waited() -> acp.AgentEngine:
    engine = _ask(receive(new_agent(SID, revision=acp.PREVIEW), prompt_wire(1))[0])
    return step(engine, AcceptPrompt(1)).state


def _asked_in_an_ended_turn() -> acp.AgentEngine:
    engine = step(_asked_in_the_turn(), EndTurn()).state
    engine = receive(engine, prompt_wire(2))[0]
    return step(engine, AcceptPrompt(2)).state


@pytest.mark.parametrize(
    ("setup", "blocks"),
    [
        (_asked_in_the_turn, True),
        (_asked_while_idle, False),
        (_asked_while_a_prompt_waited, False),
        (_asked_in_an_ended_turn, False),
    ],
    ids=["in the turn", "while idle", "while a prompt waited", "in an ended turn"],
)
def test_a_request_blocks_the_turn_only_when_asked_during_its_work(
    setup: object, blocks: bool
) -> None:
    engine = setup()  # type: ignore[operator]
    assert engine.blocks(7) is blocks  # read from the machine, never stored
    assert engine.conversation.blocks(7) is blocks
    if engine.turn is None:
        engine = step(engine, StartWork()).state
    engine, out = receive(engine, cancel_wire())
    withdrawn = [w for w in out if w.get("method") == "$/cancel_request"]
    assert withdrawn == (
        [{"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 7}}]
        if blocks
        else []
    )


def _trace(*steps: tuple[str, object]) -> list[dict[str, object]]:
    """The agent's recording of `steps` (`("agent", intent)` or `("client", wire)`)."""
    engine, trace = new_agent(SID, revision=acp.PREVIEW), []
    for side, item in steps:
        if side == "client":
            message = acp.decode_message(item, revision=acp.PREVIEW)
            trace.append({"from": "client", "message": item})
            engine, out = step(engine, acp.Received(message))  # type: ignore[arg-type]
        else:
            engine, out = step(engine, item)
        trace.extend({"from": "agent", "message": wire} for wire in out)
    return trace


ASK = ("agent", RequestPermission("Go?", OPTIONS, request_id=7))
WORK, ABORT, CANCEL = ("agent", StartWork()), ("agent", ReportAbort()), ("client", cancel_wire())


@pytest.mark.parametrize(
    ("steps", "r71"),
    [
        ((ASK, CANCEL, WORK, ABORT), False),  # the cancel came while idle: it cancelled nothing
        ((ASK, WORK, CANCEL, ABORT), False),  # asked before the work: background (R40, R73)
        ((WORK, ASK, CANCEL, ABORT), False),  # asked in the work: the engine withdraws it
        # Asked while a prompt waited, which the cancel then refused (-32800): no work of
        # it ever began, so the request is background, also when a later prompt's work
        # ends (found by tests/test_engine_machine.py under the ci profile).
        (
            (
                ("client", prompt_wire(1)),
                ASK,
                CANCEL,
                ("client", prompt_wire(2)),
                ("agent", AcceptPrompt(2)),
                ABORT,
            ),
            False,
        ),
    ],
    ids=[
        "cancel while idle",
        "asked before the work",
        "asked in the work",
        "asked while a refused prompt waited",
    ],
)
def test_r71_the_checker_asks_to_withdraw_only_what_the_cancelled_work_asked(
    steps: tuple[tuple[str, object], ...], r71: bool
) -> None:
    trace = _trace(*steps)
    found = [v.rule for v in acp.check_trace(trace, revision=acp.PREVIEW)]
    assert ("R71" in found) is r71, found
    withdrawn = [e for e in trace if e["message"].get("method") == "$/cancel_request"]  # type: ignore[attr-defined]
    if withdrawn:  # without the engine's withdrawal the same work breaks R71
        trace.remove(withdrawn[0])
        assert "R71" in [v.rule for v in acp.check_trace(trace, revision=acp.PREVIEW)]
