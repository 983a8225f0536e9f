"""The agent engine at the Preview: announce before use (R47), one parent (R48), grandchildren
on their own parent (R49), absolute child paths (R52), references only to known sessions
(R56), the background list (R74), item cancellation answers (R75), a child's cancel through its
capability (C35, else the client's C29), each child's own lifecycle (R21 per child, R50),
idempotency keys (R67, R68, vector V14), held prompts -32800 on cancel (R70) and the withdrawal
of permission requests (R71). Every message the engine emits here validates against the
Preview reconstruction's schema."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import SPEC_DIR
from schema_validation import OutboundValidator

import acp_core as acp
from acp_core import Received, step

SID = "sess_1"
CANCEL = acp.SubagentSessionCapabilities(cancel=acp.SessionCancelCapabilities())
TOOL_CANCEL = acp.ToolCallCapabilities(cancel=acp.CancelCapability())
TERM_CANCEL = acp.TerminalCapabilities(cancel=acp.CancelCapability())
_SCHEMA = SPEC_DIR / "preview-reconstructed" / "reconstructed-preview-merged.json"


@cache
def _validator() -> OutboundValidator:
    if not Path(_SCHEMA).exists():
        pytest.skip(f"{_SCHEMA} not found: set ACP_V2_SPEC_DIR to the shared acp-v2 folder")
    return OutboundValidator(json.loads(Path(_SCHEMA).read_text()))


def _valid(out: tuple[dict[str, Any], ...], revision: acp.Revision) -> acp.Step:
    if revision is acp.PREVIEW:
        for wire in out:
            _validator()("agent", wire)
    return out  # type: ignore[return-value]


def agent(revision: acp.Revision = acp.PREVIEW) -> acp.AgentEngine:
    return acp.new_agent(SID, revision=revision)


#: What the engines of the running test sent and received, as a checker trace (the P19 and
#: R76 tests judge theirs with `check_trace`; each of them builds one line of engines).
TRACE: list[dict[str, Any]] = []


@pytest.fixture(autouse=True)
def _fresh_trace() -> None:
    TRACE.clear()


def clean(revision: acp.Revision = acp.PREVIEW) -> None:
    """The engine-produced trace of this test breaks no rule the checker judges."""
    assert [v for v in acp.check_trace(TRACE, revision=revision) if not v.warning] == []


def do(engine: acp.AgentEngine, intent: Any) -> acp.Step:
    result = step(engine, intent)
    _valid(result.outbound, engine.revision)
    if type(intent) is Received:
        TRACE.append({"from": "client", "message": acp.encode_message(intent.message)})
    TRACE.extend({"from": "agent", "message": wire} for wire in result.outbound)
    return result


def receive(engine: acp.AgentEngine, wire: dict[str, Any]) -> acp.Step:
    message = acp.decode_message(
        json.loads(json.dumps(wire)), strict=True, revision=engine.revision
    )
    assert not isinstance(message, acp.Batch)
    return do(engine, Received(message))


def prompt(request_id: int, key: str | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {"sessionId": SID, "prompt": [{"type": "text", "text": "hi"}]}
    if key is not None:
        params["idempotencyKey"] = key
    return {"jsonrpc": "2.0", "id": request_id, "method": "session/prompt", "params": params}


def cancel(session_id: str = SID) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session_id}}


def send(engine: acp.AgentEngine, update: Any, session_id: str | None = None) -> acp.Step:
    return do(engine, acp.SendUpdate(update, session_id=session_id))


def refused(engine: acp.AgentEngine, intent: Any) -> str:
    with pytest.raises(acp.LocalProtocolError) as error:
        step(engine, intent)
    assert error.value.detail  # every refusal says what to do
    return error.value.rule


def with_child(**fields: Any) -> acp.AgentEngine:
    return send(agent(), acp.SubagentUpdate("c1", **fields)).state


# -- children ------------------------------------------------------------------------------


def test_announce_then_use_sends_on_the_childs_session() -> None:
    engine, out = send(agent(), acp.SubagentUpdate("c1", title="Tests"))
    assert out[0]["params"] == {
        "sessionId": SID,
        "update": {"sessionUpdate": "subagent_update", "sessionId": "c1", "title": "Tests"},
    }
    assert acp.child_link(engine.children, "c1").title == "Tests"
    engine, out = send(engine, acp.AgentMessageChunk("m", acp.TextContent("x")), "c1")
    assert out[0]["params"]["sessionId"] == "c1"
    assert "m" in engine.children.sessions["c1"].messages
    assert "m" not in engine.session.messages


def _call_with_session(session_id: str) -> acp.ToolCallUpdate:
    return acp.ToolCallUpdate("t", title="spawn", content=(acp.SessionReference(session_id),))


@pytest.mark.parametrize(
    ("update", "session_id", "rule"),
    [
        (acp.AgentMessageChunk("m", acp.TextContent("x")), "c9", "R47"),
        # The checker's rule for each way of naming a session (`named_sessions`, one home).
        (_call_with_session("c9"), None, "R56"),
        (acp.ToolCallContentChunk("t", acp.SessionReference("c9")), None, "R56"),
        (acp.SessionMessage("sm", sender_session_id=SID, recipient_session_id="c9"), None, "R47"),
        (acp.SubagentUpdate("c2", title="g"), "c9", "R47"),
        (acp.SubagentUpdate("c1"), "c1", "R48"),  # a session cannot be its own child
        (acp.SubagentUpdate(SID), None, "R48"),
        (acp.SubagentUpdate("c2", cwd="relative"), None, "R52"),
        (acp.SubagentUpdate("c2", additional_directories=("/ok", "rel")), None, "R52"),
        (acp.RunningStateUpdate(), None, "E1"),
        (acp.UnknownStateUpdate(), SID, "E1"),
    ],
    ids=[
        "child traffic",
        "session content",
        "session content chunk",
        "session message",
        "grandchild of nobody",
        "own child",
        "own session",
        "cwd",
        "directories",
        "own state",
        "own unknown state",
    ],
)
def test_refusals(update: Any, session_id: str | None, rule: str) -> None:
    assert refused(with_child(), acp.SendUpdate(update, session_id=session_id)) == rule


@pytest.mark.parametrize(
    ("update", "rule"),
    [
        (_call_with_session("ghost"), "R56"),
        (acp.ToolCallContentChunk("t", acp.SessionReference("ghost")), "R56"),
        (acp.SessionMessage("sm", sender_session_id=SID, recipient_session_id="ghost"), "R47"),
    ],
    ids=["session content", "session content chunk", "session message"],
)
def test_a_tree_diagnostic_of_an_unknown_session_is_refused_with_its_namings_rule(
    update: Any, rule: str
) -> None:
    # `Build.update` refuses these first; the tree's own diagnostic, were it reached, says the
    # same rule (not R47 for every kind of name).
    from acp_core._engines._agent_children import tree_refusal
    from acp_core._state._reduce_children import UNKNOWN_SESSION_REFERENCE

    tree = acp.open_session(acp.SessionTree(), SID)
    diagnostics = acp.reduce_tree(tree, SID, update).diagnostics
    assert [d.rule for d in diagnostics] == [UNKNOWN_SESSION_REFERENCE]
    assert tree_refusal(tree, SID, update, UNKNOWN_SESSION_REFERENCE)[0] == rule
    # A REPARENT never reaches `tree_refusal`: the engine asks the checker's `announce_finding`
    # (R48, R49) of every announcement before the tree reduces it
    # (tests/test_one_home_parties.py swaps that decider).


def test_known_sessions_may_be_named() -> None:
    engine = send(with_child(), _call_with_session("c1")).state
    message = acp.SessionMessage("sm", sender_session_id=SID, recipient_session_id="c1")
    engine = send(engine, message).state
    assert engine.session.tool_calls["t"].title == "spawn"


def test_a_child_keeps_its_one_parent_and_grandchildren_live_on_their_parent() -> None:
    engine = send(with_child(), acp.SubagentUpdate("c2"), "c1").state  # R49: on its parent
    assert acp.parent_of(engine.children, "c2") == "c1"
    # On an ancestor of its parent: the wrong session for it (R49), as the checker says; on
    # a session outside its line: a second parent (R48).
    assert refused(engine, acp.SendUpdate(acp.SubagentUpdate("c2"))) == "R49"
    other = send(engine, acp.SubagentUpdate("c3")).state
    assert refused(other, acp.SendUpdate(acp.SubagentUpdate("c2"), session_id="c3")) == "R48"
    engine = send(engine, acp.SubagentUpdate("c2", title="patched"), "c1").state
    assert acp.child_link(engine.children, "c2").title == "patched"
    engine = send(engine, acp.AgentMessageChunk("g", acp.TextContent("x")), "c2").state
    assert "g" in engine.children.sessions["c2"].messages


def test_preview_updates_are_refused_at_earlier_revisions() -> None:
    assert refused(agent(acp.V2_2026_11), acp.SendUpdate(acp.SubagentUpdate("c1"))) == "E0"
    assert refused(agent(acp.V2_2026_08), acp.SendUpdate(acp.Notice("info", "hi"))) == "E0"
    call = acp.ToolCallUpdate("t", title="x", capabilities=TOOL_CANCEL)  # a 2026-11 field
    assert refused(agent(acp.V2_2026_08), acp.SendUpdate(call)) == "E0"
    assert send(agent(acp.V2_2026_11), acp.Notice("info", "hi")).outbound  # 2026-11 has notices


def test_each_child_has_its_own_lifecycle() -> None:
    engine = send(with_child(capabilities=CANCEL), acp.RunningStateUpdate(), "c1").state
    assert engine.phase == "idle"  # the parent's state is its own (C17)
    engine = receive(engine, cancel("c1")).state  # C35: the child advertises cancel
    assert engine.violations == ()
    # R21 for the child: after the client's cancel its work ends `cancelled`.
    assert refused(engine, acp.SendUpdate(acp.IdleStateUpdate("end_turn"), "c1")) == "R21"
    engine, out = send(engine, acp.IdleStateUpdate("cancelled"), "c1")
    assert out[0]["params"]["sessionId"] == "c1"
    assert acp.effective_state(engine.children, "c1") == "idle"


def test_a_child_cancel_without_the_capability_is_the_clients_violation() -> None:
    engine = send(with_child(), acp.RunningStateUpdate(), "c1").state
    engine, out = receive(engine, cancel("c1"))
    assert out == ()
    assert [v.rule for v in engine.violations] == ["C29"]
    engine = send(engine, acp.IdleStateUpdate("end_turn"), "c1").state  # nothing was cancelled
    assert acp.effective_state(engine.children, "c1") == "idle"


def test_a_cancel_for_an_unknown_session_is_still_remote_e3() -> None:
    message = acp.decode_message(cancel("ghost"), strict=True, revision=acp.PREVIEW)
    with pytest.raises(acp.RemoteProtocolError) as error:
        step(agent(), Received(message))
    assert error.value.rule == "E3"


# -- item cancellation (R75) ---------------------------------------------------------------


def _with_call(capabilities: Any = TOOL_CANCEL, session_id: str | None = None) -> acp.AgentEngine:
    engine = with_child()
    call = acp.ToolCallUpdate("t", title="x", status="in_progress", capabilities=capabilities)
    return send(engine, call, session_id).state


def _cancel_call(request_id: int = 3, session_id: str = SID) -> dict[str, Any]:
    params = {"sessionId": session_id, "toolCallId": "t"}
    return {"jsonrpc": "2.0", "id": request_id, "method": "tool_call/cancel", "params": params}


@pytest.mark.parametrize("session_id", [SID, "c1"], ids=["own", "child"])
def test_tool_call_cancel_is_accepted_then_confirmed(session_id: str) -> None:
    engine, out = receive(_with_call(session_id=session_id), _cancel_call(3, session_id))
    assert out[0] == {"jsonrpc": "2.0", "id": 3, "result": {}}
    assert out[1]["params"]["sessionId"] == session_id
    assert out[1]["params"]["update"]["status"] == "cancelled"
    state = engine.session if session_id == SID else engine.children.sessions["c1"]
    assert not state.tool_calls["t"].can_cancel  # no longer advertised
    assert engine.phase == "idle"  # no foreground change
    _, again = receive(engine, _cancel_call(4, session_id))
    assert again[0]["error"]["code"] == -32602  # already final


@pytest.mark.parametrize(
    "engine",
    [lambda: _with_call(None), with_child],
    ids=["not cancellable", "unknown call"],
)
def test_tool_call_cancel_that_cannot_be_accepted_is_invalid_params(engine: Any) -> None:
    _, out = receive(engine(), _cancel_call())
    assert len(out) == 1
    assert out[0]["error"]["code"] == -32602


def test_terminal_cancel_exits_the_terminal() -> None:
    terminal = acp.TerminalUpdate("term", command="sleep 9", capabilities=TERM_CANCEL)
    engine = send(agent(), terminal).state
    wire = {
        "jsonrpc": "2.0",
        "id": 5,
        "method": "terminal/cancel",
        "params": {"sessionId": SID, "terminalId": "term"},
    }
    engine, out = receive(engine, wire)
    assert out[0]["result"] == {}
    assert engine.session.terminals["term"].exited
    assert receive(engine, {**wire, "id": 6}).outbound[0]["error"]["code"] == -32602


# -- the background list (R74) -------------------------------------------------------------


def test_background_items_are_announced_before_listing_and_final_before_dropping() -> None:
    engine = agent()
    item = acp.BackgroundToolCall("t")
    assert refused(engine, acp.ReportBackground((item,))) == "R74"
    engine = do(engine, acp.StartToolCall("watch", tool_call_id="t")).state
    engine, out = do(engine, acp.ReportBackground((item,)))
    assert out[0]["params"]["update"] == {
        "sessionUpdate": "state_update",
        "state": "idle",
        "background": [{"type": "tool_call", "toolCallId": "t"}],
    }
    assert refused(engine, acp.ReportBackground(())) == "R74"  # still pending
    # Once reporting, every state update carries the list.
    engine = receive(engine, prompt(1)).state
    engine, out = do(engine, acp.AcceptPrompt(1))
    running = [w["params"]["update"] for w in out if "params" in w][-1]
    assert running["state"] == "running"
    assert running["background"] == [{"type": "tool_call", "toolCallId": "t"}]
    engine = do(engine, acp.FinishToolCall("t")).state
    engine, out = do(engine, acp.ReportBackground(()))
    assert out[0]["params"]["update"]["background"] == []


def test_a_listed_child_is_dropped_only_once_idle() -> None:
    engine = send(with_child(), acp.RunningStateUpdate(), "c1").state
    listed = do(engine, acp.ReportBackground((acp.BackgroundSubagent("c1"),))).state
    assert refused(listed, acp.ReportBackground(())) == "R74"
    assert refused(agent(), acp.ReportBackground((acp.BackgroundSubagent("c1"),))) == "R74"
    idle = send(listed, acp.IdleStateUpdate("end_turn"), "c1").state
    assert do(idle, acp.ReportBackground(())).state.background == ()


def test_no_background_list_at_2026_08() -> None:
    assert refused(agent(acp.V2_2026_08), acp.ReportBackground(())) == "E0"


# -- idempotency keys (R67, R68, P15) ------------------------------------------------------


def test_v14_a_retried_key_is_answered_with_the_original_message() -> None:
    engine = receive(agent(), prompt(1, "K")).state
    engine, out = do(engine, acp.AcceptPrompt(1))
    message_id = out[0]["result"]["messageId"]
    engine, out = receive(engine, prompt(2, "K"))
    assert out == ({"jsonrpc": "2.0", "id": 2, "result": {"messageId": message_id}},)
    assert engine.prompts == ()  # nothing held: no second user message (R67)
    users = [m for m in engine.session.messages.values() if m.role == "user"]
    assert len(users) == 1


def test_a_retry_of_a_held_prompt_shares_its_outcome() -> None:
    engine = receive(receive(agent(), prompt(1, "K")).state, prompt(2, "K")).state
    assert [p.id for p in engine.prompts] == [1]
    _, out = do(engine, acp.AcceptPrompt(1))
    answers = {w["id"]: w["result"] for w in out if "result" in w}
    assert answers[1] == answers[2]


def test_a_rejected_keyed_prompt_fails_its_retries_and_frees_the_key() -> None:
    engine = receive(receive(agent(), prompt(1, "K")).state, prompt(2, "K")).state
    engine, out = do(engine, acp.RejectPrompt(1, "busy"))
    assert sorted(w["id"] for w in out if "error" in w) == [1, 2]
    engine = receive(engine, prompt(3, "K")).state
    assert [p.id for p in engine.prompts] == [3]


def test_cancel_answers_held_prompts_32800_and_frees_their_keys() -> None:
    engine = receive(receive(agent(), prompt(1, "K")).state, prompt(2, "K")).state
    engine, out = receive(engine, cancel())
    assert sorted(w["id"] for w in out if w.get("error", {}).get("code") == -32800) == [1, 2]
    engine = receive(engine, prompt(3, "K")).state
    assert [p.id for p in engine.prompts] == [3]  # a new attempt


def test_keys_are_per_engine_and_other_keys_are_new() -> None:
    engine = receive(agent(), prompt(1, "K")).state
    engine = do(engine, acp.AcceptPrompt(1)).state
    engine = do(engine, acp.EndTurn()).state
    engine, out = receive(engine, prompt(2, "L"))
    assert out == ()
    assert [p.id for p in engine.prompts] == [2]


# -- withdrawal of permission requests on cancel (R71) ------------------------------------


def _asking(revision: acp.Revision) -> acp.AgentEngine:
    engine = receive(agent(revision), prompt(1)).state
    engine = do(engine, acp.AcceptPrompt(1)).state
    options = (acp.PermissionOption("y", "Yes", "allow_once"),)
    return do(engine, acp.RequestPermission("Go?", options)).state


@pytest.mark.parametrize(("revision", "withdrawn"), [(acp.V2_2026_11, False), (acp.PREVIEW, True)])
def test_r71_cancel_withdraws_the_cancelled_works_permission_requests(
    revision: acp.Revision, withdrawn: bool
) -> None:
    _, out = receive(_asking(revision), cancel())
    sent = [w for w in out if w.get("method") == "$/cancel_request"]
    withdrawal = {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 0}}
    assert sent == ([withdrawal] if withdrawn else [])


def test_r71_background_permission_requests_stay_open() -> None:
    engine = do(_asking(acp.PREVIEW), acp.EndTurn()).state  # the request outlives its turn
    engine = receive(engine, prompt(2)).state
    engine = do(engine, acp.AcceptPrompt(2)).state
    _, out = receive(engine, cancel())
    assert [w for w in out if w.get("method") == "$/cancel_request"] == []


def test_a_listed_terminal_is_dropped_only_once_exited() -> None:
    engine = send(agent(), acp.TerminalUpdate("term", command="make")).state
    engine = do(engine, acp.ReportBackground((acp.BackgroundTerminal("term"),))).state
    assert refused(engine, acp.ReportBackground(())) == "R74"
    engine = do(engine, acp.PatchTerminal("term", exit_status=acp.TerminalExitStatus(0))).state
    assert do(engine, acp.ReportBackground(())).state.background == ()


# -- a child's permission requests (R47, R71 per child) -----------------------------------

ALLOW = (acp.PermissionOption("y", "Yes", "allow_once"),)


def _child_asking(capabilities: Any = CANCEL) -> acp.AgentEngine:
    engine = send(with_child(capabilities=capabilities), acp.RunningStateUpdate(), "c1").state
    call = acp.ToolCallUpdate("t", title="edit", status="pending")
    engine = send(engine, call, "c1").state
    engine, out = do(engine, acp.RequestPermission("Edit?", ALLOW, "t", session_id="c1"))
    assert out[0]["method"] == "session/request_permission"
    assert out[0]["params"]["sessionId"] == "c1"
    assert engine.phase == "idle"  # a child's request never blocks the parent
    assert acp.effective_state(engine.children, "c1") == "requires_action"  # R11 on the child
    return engine


def test_a_childs_permission_request_is_sent_on_the_child_and_its_grant_starts_the_tool() -> None:
    engine = _child_asking()
    answer = {
        "jsonrpc": "2.0",
        "id": 0,
        "result": {"outcome": {"outcome": "selected", "optionId": "y"}},
    }
    engine, out = receive(engine, answer)
    assert engine.violations == ()
    assert acp.permission_decision(engine, 0).approved
    assert [w["params"]["sessionId"] for w in out] == ["c1", "c1"]
    assert acp.effective_state(engine.children, "c1") == "running"  # R12 on the child
    assert engine.children.sessions["c1"].tool_calls["t"].status == "in_progress"
    assert "t" not in engine.session.tool_calls


def test_a_permission_request_for_an_unannounced_child_is_r47() -> None:
    intent = acp.RequestPermission("Edit?", ALLOW, session_id="c9")
    assert refused(with_child(), intent) == "R47"
    assert (
        refused(with_child(), acp.RequestPermission("Edit?", ALLOW, "t9", session_id="c1")) == "R13"
    )


def test_a_child_cancel_withdraws_the_childs_requests_and_a_parent_cancel_does_not() -> None:
    withdrawal = {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 0}}
    _, out = receive(_child_asking(), cancel("c1"))
    assert out == ({**withdrawal},)
    engine = receive(_child_asking(), prompt(1)).state
    engine = do(engine, acp.AcceptPrompt(1)).state
    _, out = receive(engine, cancel())
    assert [w for w in out if w.get("method") == "$/cancel_request"] == []  # the child's stays


# -- a parent's cancel reaches its foreground children (P19, R73, R71 per child) -----------


def _turn() -> acp.AgentEngine:
    engine = receive(agent(), prompt(1)).state
    return do(engine, acp.AcceptPrompt(1)).state


def _child_runs(engine: acp.AgentEngine, child: str, parent: str | None = None) -> acp.AgentEngine:
    engine = send(engine, acp.SubagentUpdate(child, title=child), parent).state
    return send(engine, acp.RunningStateUpdate(), child).state


def _before_the_turn() -> acp.AgentEngine:
    engine = receive(_child_runs(agent(), "c1"), prompt(1)).state
    return do(engine, acp.AcceptPrompt(1)).state


def _prompt_waits_then_child() -> acp.AgentEngine:
    # A prompt waiting is no work yet: a child started then is background activity (R40).
    return do(_child_runs(receive(agent(), prompt(1)).state, "c1"), acp.AcceptPrompt(1)).state


def _listed() -> acp.AgentEngine:
    engine = _child_runs(_turn(), "c1")
    return do(engine, acp.ReportBackground((acp.BackgroundSubagent("c1"),))).state


def _grandchild_of_a_listed_child() -> acp.AgentEngine:
    engine = _child_runs(_turn(), "c1")
    engine = do(engine, acp.ReportBackground((acp.BackgroundSubagent("c1"),))).state
    return _child_runs(engine, "c2", "c1")


def _grandchild() -> acp.AgentEngine:
    return _child_runs(_child_runs(_turn(), "c1"), "c2", "c1")


def _ended_child() -> acp.AgentEngine:
    engine = _child_runs(_turn(), "c1")
    return send(engine, acp.IdleStateUpdate("end_turn"), "c1").state


def _mirrored_only() -> acp.AgentEngine:
    # the parent says the child runs; the child's own stream said nothing yet (P4)
    return send(_turn(), acp.SubagentUpdate("c1", state=acp.RunningStateUpdate())).state


@pytest.mark.parametrize(
    ("setup", "reached"),
    [
        (lambda: _child_runs(_turn(), "c1"), ("c1",)),
        (_grandchild, ("c1", "c2")),
        (_before_the_turn, ()),
        (_prompt_waits_then_child, ()),
        (_listed, ()),  # R73: listed background work keeps running
        (_grandchild_of_a_listed_child, ()),
        (_ended_child, ()),
        (_mirrored_only, ()),
    ],
    ids=[
        "started in the turn",
        "grandchild too",
        "started before the turn",
        "started while a prompt waited",
        "listed as background",
        "under a listed child",
        "already idle",
        "only mirrored",
    ],
)
def test_p19_a_parent_cancel_reaches_the_children_of_its_foreground_work(
    setup: Any, reached: tuple[str, ...]
) -> None:
    engine = receive(setup(), cancel()).state
    assert engine.cancelled_children == reached
    assert engine.violations == ()
    for child in reached:  # R21 per child: that work now ends `cancelled`, nothing else
        assert refused(engine, acp.SendUpdate(acp.IdleStateUpdate("end_turn"), child)) == "R21"
        engine = send(engine, acp.IdleStateUpdate("cancelled"), child).state
    assert engine.cancelled_children == ()
    for child in set(engine.children.parents) - set(reached):
        if engine.children.sessions[child].foreground.state == "running":
            engine = send(engine, acp.IdleStateUpdate("end_turn"), child).state  # not cancelled
    assert do(engine, acp.EndTurn()).state.phase == "idle"
    clean()


def _withdrawn(out: tuple[dict[str, Any], ...]) -> list[Any]:
    return [w["params"]["requestId"] for w in out if w.get("method") == "$/cancel_request"]


def test_p19_the_reached_childs_requests_are_withdrawn_and_a_background_childs_stay() -> None:
    engine = _child_runs(_turn(), "c1")
    engine = _child_runs(engine, "c2")
    engine = do(engine, acp.ReportBackground((acp.BackgroundSubagent("c2"),))).state
    for child, request_id in (("c1", 10), ("c2", 11)):
        engine = send(engine, acp.ToolCallUpdate(f"{child}-t", title="edit"), child).state
        intent = acp.RequestPermission(
            "Edit?", ALLOW, f"{child}-t", request_id=request_id, session_id=child
        )
        engine = do(engine, intent).state
    engine, out = receive(engine, cancel())
    assert _withdrawn(out) == [10]  # R71 for the reached child; c2's is background (R73)
    assert engine.cancelled_children == ("c1",)
    for request_id in (10, 11):
        result = {"outcome": {"outcome": "cancelled"}}
        answer = {"jsonrpc": "2.0", "id": request_id, "result": result}
        engine = receive(engine, answer).state
    engine = send(engine, acp.IdleStateUpdate("cancelled"), "c1").state
    engine = do(engine, acp.EndTurn()).state
    assert acp.effective_state(engine.children, "c2") == "running"  # not cancelled: resumed (R12)
    clean()
