"""The agent engine's records hold no protocol fact (issue 21, review finding F5).

Whether the client cancelled the turn and whether a permission request blocks it are the
conversation machine's: `AgentEngine.cancel_requested` and `AgentEngine.blocks(request_id)`
read them there. `Turn.cancel_requested` and `PendingPermission.foreground` (the properties,
and the keywords at construction) keep working until 0.3 with a `DeprecationWarning` naming
the new home, and read the machine's answer. The records' equality and hashing ignore them.
"""

from __future__ import annotations

import warnings
from typing import Any

import attrs
import pytest
from pair import cancel_wire, prompt_wire, receive, selected_wire

import acp_core as acp
from acp_core import intents
from acp_core.engines import AgentEngine, PendingPermission, Turn
from acp_core.values import PermissionOption

SID = "sess_1"
ALLOW = (PermissionOption("y", "Yes", "allow_once"),)
CANCEL_MOVED = r"Turn\.cancel_requested is deprecated.*AgentEngine\.cancel_requested"
FOREGROUND_MOVED = r"PendingPermission\.foreground is deprecated.*AgentEngine\.blocks"
CHILD_CANCEL = acp.values.SubagentSessionCapabilities(cancel=acp.values.SessionCancelCapabilities())


def _do(engine: AgentEngine, intent: object) -> AgentEngine:
    return acp.step(engine, intent).state


def _turn(revision: acp.Revision = acp.PREVIEW) -> AgentEngine:
    engine = receive(acp.new_agent(SID, revision=revision), prompt_wire(1)).state
    return _do(engine, intents.AcceptPrompt(1))


def _blocked(revision: acp.Revision = acp.PREVIEW) -> AgentEngine:
    engine = _do(_turn(revision), intents.StartToolCall("edit", tool_call_id="t1"))
    return _do(engine, intents.RequestPermission("Edit?", ALLOW, "t1"))


def _old_cancel(engine: AgentEngine) -> bool:
    assert engine.turn is not None
    with pytest.warns(DeprecationWarning, match=CANCEL_MOVED):
        return engine.turn.cancel_requested


def _old_foreground(engine: AgentEngine, request_id: object) -> bool:
    with pytest.warns(DeprecationWarning, match=FOREGROUND_MOVED):
        return engine.pending[request_id].foreground  # type: ignore[index]


# -- the new homes, across a cancel and a turn end ------------------------------------------


@pytest.mark.parametrize("revision", tuple(acp.REVISIONS.values()), ids=lambda r: r.name)
def test_cancel_requested_is_the_machines_across_a_cancel_and_the_turn_end(
    revision: acp.Revision,
) -> None:
    engine = _blocked(revision)
    assert engine.cancel_requested is False
    assert _old_cancel(engine) is False
    engine = receive(engine, cancel_wire()).state
    assert engine.conversation.cancel_pending
    assert engine.cancel_requested is True
    assert _old_cancel(engine) is True
    # the stored record keeps no copy: two engines in the same protocol state are equal
    assert engine.turn == engine._turn
    assert hash(engine.turn) == hash(engine._turn)
    engine, out = acp.step(engine, intents.EndTurn("end_turn"))
    assert out[-1]["params"]["update"]["stopReason"] == "cancelled"  # R21, from the machine
    assert engine.turn is None
    assert engine.cancel_requested is False
    engine = receive(engine, prompt_wire(2)).state
    engine = _do(engine, intents.AcceptPrompt(2))
    assert engine.cancel_requested is False  # the next turn starts uncancelled
    assert _old_cancel(engine) is False


def test_blocks_is_the_machines_for_the_turns_request_until_the_turn_ends() -> None:
    engine = _blocked()
    assert engine.blocks(0) is True
    assert _old_foreground(engine, 0) is True
    assert engine.blocks(7) is False  # not pending
    engine = _do(engine, intents.EndTurn("refusal"))  # the work ends while blocked
    assert 0 in engine.pending
    assert engine.blocks(0) is False  # left over from ended work: background
    assert _old_foreground(engine, 0) is False
    engine = receive(engine, prompt_wire(2)).state
    engine = _do(engine, intents.AcceptPrompt(2))
    assert engine.blocks(0) is False  # asked before this work began (C40)
    engine = _do(engine, intents.RequestPermission("Again?", ALLOW))
    assert (engine.blocks(0), engine.blocks(1)) == (False, True)
    assert (_old_foreground(engine, 0), _old_foreground(engine, 1)) == (False, True)
    engine = receive(engine, selected_wire(1, "y")).state
    assert 1 not in engine.pending
    assert engine.phase == "running"  # R12: the background request held nothing up


def test_a_background_request_never_blocks() -> None:
    engine = _do(acp.new_agent(SID), intents.StartToolCall("bg", tool_call_id="b1"))
    engine = _do(engine, intents.RequestPermission("Background?", ALLOW, "b1"))
    assert engine.phase == "idle"
    assert engine.blocks(0) is False
    assert _old_foreground(engine, 0) is False


def _child_asking() -> AgentEngine:
    engine = _turn()
    engine = _do(engine, intents.SendUpdate(acp.values.SubagentUpdate("c1", title="c1")))
    engine = _do(
        engine,
        intents.SendUpdate(
            acp.values.SubagentUpdate("c1", capabilities=CHILD_CANCEL), session_id=None
        ),
    )
    engine = _do(engine, intents.SendUpdate(acp.values.RunningStateUpdate(), session_id="c1"))
    call = acp.values.ToolCallUpdate("t", title="edit", status="pending")
    engine = _do(engine, intents.SendUpdate(call, session_id="c1"))
    return _do(engine, intents.RequestPermission("Edit?", ALLOW, "t", session_id="c1"))


def test_a_childs_request_never_blocks_the_parents_turn() -> None:
    engine = _child_asking()
    assert engine.pending[0].session_id == "c1"
    # the child's machine says its own work is blocked; the parent's turn is not
    assert engine.child_conversations["c1"].blocks(0)
    assert engine.blocks(0) is False
    assert _old_foreground(engine, 0) is False
    assert engine.phase == "running"
    engine = receive(engine, cancel_wire("c1")).state  # the client cancels the child
    assert engine.cancel_requested is False  # the parent's turn was not cancelled
    assert engine.cancelled_children == ("c1",)


def test_blocks_answers_for_this_sessions_requests_only() -> None:
    # The parent's machine never sees a child's request (it is asked on the child's), so no
    # step reaches this; an engine built with the parent's machine blocking on the id of a
    # child's record still says the child's request does not block the parent's turn.
    engine = _blocked()
    assert engine.blocks(0) is True
    childs = PendingPermission(0, "t1", ALLOW, session_id="c1")
    built = attrs.evolve(engine, pending=engine._pending.set(0, childs))
    assert built.conversation.blocks(0)
    assert built.blocks(0) is False
    assert _old_foreground(built, 0) is False


# -- the deprecated construction, and equality --------------------------------------------


def test_the_old_keywords_still_construct_with_a_warning_and_leave_equality_alone() -> None:
    with pytest.warns(DeprecationWarning, match=r"AgentEngine\.cancel_requested.*0\.3"):
        old = Turn(1, True, "u1", cancel_requested=True)
    assert old == Turn(1, True, "u1")
    assert hash(old) == hash(Turn(1, True, "u1"))
    assert "cancel" not in repr(old)
    with pytest.warns(DeprecationWarning, match=CANCEL_MOVED):
        assert old.cancel_requested is True  # a record alone answers what it was given
    with pytest.warns(DeprecationWarning, match=r"AgentEngine\.blocks\(request_id\).*0\.3"):
        positional = PendingPermission(0, "t1", ALLOW, True)  # the old fourth argument
    with pytest.warns(DeprecationWarning, match=FOREGROUND_MOVED):
        keyword = PendingPermission(0, "t1", ALLOW, foreground=False, session_id="c1")
    assert positional == PendingPermission(0, "t1", ALLOW)
    assert keyword.session_id == "c1"
    with pytest.warns(DeprecationWarning, match=FOREGROUND_MOVED):
        assert positional.foreground is True


def test_an_engine_built_with_the_old_keywords_reads_the_machine_and_equals_a_new_one() -> None:
    engine = _blocked()
    stored = engine._turn
    assert stored is not None
    with pytest.warns(DeprecationWarning, match=CANCEL_MOVED):
        said = Turn(stored.prompt_id, stored.prompt_driven, stored.user_message_id, True)
    with pytest.warns(DeprecationWarning, match=FOREGROUND_MOVED):
        wrong = PendingPermission(0, "t1", ALLOW, False)
    old = acp.engines.AgentEngine(
        engine.session,
        engine.revision,
        turn=said,
        pending=engine._pending.set(0, wrong),
        decisions=engine.decisions,
        open_message=engine.open_message,
        counter=engine.counter,
        next_request_id=engine.next_request_id,
        conversation=engine.conversation,
        children=engine.children,
        child_conversations=engine.child_conversations,
        keys=engine.keys,
    )
    assert old == engine
    assert hash(old) == hash(engine)
    assert old.cancel_requested is False
    assert _old_cancel(old) is False  # the machine's answer, not the keyword's
    assert _old_foreground(old, 0) is True


def test_steps_go_on_from_a_record_built_with_the_old_keyword_without_warning() -> None:
    work = _do(acp.new_agent(SID), intents.StartWork())
    with pytest.warns(DeprecationWarning, match=CANCEL_MOVED):
        said = Turn(None, False, None, cancel_requested=True)
    work = attrs.evolve(work, turn=said)
    with warnings.catch_warnings():
        warnings.simplefilter("error", DeprecationWarning)
        after = _do(work, intents.ReportUserMessage((acp.values.TextContent("mine"),)))
        assert after._turn is not None
        assert after._turn.user_message_id is not None  # the record the step rebuilt
        assert after._turn._cancel_requested is None  # without the keyword's value
        after, out = acp.step(after, intents.EndTurn())
    assert out[-1]["params"]["update"]["stopReason"] == "end_turn"  # the machine's: no cancel
    assert after.turn is None


def test_the_library_never_reads_its_own_deprecated_fields() -> None:
    # A conversation over every step module (the engine-step benchmark's script, cancels
    # included) with the two deprecations as errors.
    from benchmarks import engine_steps

    engine = acp.new_agent(engine_steps.SID)
    with warnings.catch_warnings():
        warnings.filterwarnings("error", "Turn.cancel_requested", DeprecationWarning)
        warnings.filterwarnings("error", "PendingPermission.foreground", DeprecationWarning)
        for intent in engine_steps._script(4):
            engine = _do(engine, intent)
    assert engine.violations == ()


def _records_of(engine: AgentEngine) -> list[Any]:
    return [engine._turn, *engine._pending.values()]


def test_no_step_stores_a_protocol_fact_in_the_records() -> None:
    # Every record a step stored is built without the deprecated values: the cancel and the
    # blocking live only in the machine (a step copying either into a record fails this).
    engine = receive(_blocked(), cancel_wire()).state
    for record in _records_of(engine):
        if isinstance(record, Turn):
            assert record._cancel_requested is None
            assert record._cancel_read is None
        elif isinstance(record, PendingPermission):
            assert record._foreground is None
            assert record._foreground_read is None
