"""The agent connection at the Preview: resume with children (R57-R62, P8), routing of a
child's cancel and of item cancels (C35, R75), restricted requests naming a child (P14, C34),
keyed prompts through the prompt gate (R67, R68). The agent side is fed raw wire and what it
sends is checked against the Preview reconstruction's schema and folded by a client's
`SessionTree` (the reducers pv-client's engine uses)."""

from __future__ import annotations

import json
from functools import cache
from pathlib import Path
from typing import Any

import pytest
from conftest import SPEC_DIR
from conn_pair import Pair
from schema_validation import OutboundValidator

import acp_core as acp

_SCHEMA = SPEC_DIR / "preview-reconstructed" / "reconstructed-preview-merged.json"
CANCEL = acp.SubagentSessionCapabilities(cancel=acp.SessionCancelCapabilities())
TOOL_CANCEL = acp.ToolCallCapabilities(cancel=acp.CancelCapability())


@cache
def _validator() -> OutboundValidator:
    if not Path(_SCHEMA).exists():
        pytest.skip(f"{_SCHEMA} not found: set ACP_V2_SPEC_DIR to the shared acp-v2 folder")
    return OutboundValidator(json.loads(Path(_SCHEMA).read_text()))


def _feed(pair: Pair, message: dict[str, Any]) -> list[dict[str, Any]]:
    out = list(pair.agent_bytes(acp.encode_ndjson(message)).outbound)
    if pair.revision is acp.PREVIEW:
        for wire in out:
            _validator()("agent", wire)
    return out


def _says(pair: Pair, session_id: str, intent: object) -> list[dict[str, Any]]:
    out = list(pair.agent_says(session_id, intent).outbound)
    for wire in out:
        _validator()("agent", wire)
    return out


def _with_children(revision: acp.Revision = acp.PREVIEW) -> tuple[Pair, str]:
    """An open session with a child c1 (cancellable, working, a message) and a grandchild
    c2 (announced only); nothing is delivered to the client after set-up."""
    pair = Pair(revision=revision)
    sid = pair.open()
    pair.to_client.clear()
    if revision is not acp.PREVIEW:
        return pair, sid
    _says(pair, sid, acp.SendUpdate(acp.SubagentUpdate("c1", title="Tests", capabilities=CANCEL)))
    _says(pair, sid, acp.SendUpdate(acp.RunningStateUpdate(), "c1"))
    _says(pair, sid, acp.SendUpdate(acp.AgentMessage("m1", (acp.TextContent("hi"),)), "c1"))
    _says(pair, sid, acp.SendUpdate(acp.SubagentUpdate("c2", title="Deep"), "c1"))
    return pair, sid


def _resume(sid: str, replay: bool, request_id: int = 90) -> dict[str, Any]:
    params: dict[str, Any] = {"sessionId": sid, "cwd": "/work"}
    if replay:
        params["replayFrom"] = {"type": "start"}
    return {"jsonrpc": "2.0", "id": request_id, "method": "session/resume", "params": params}


def _updates(out: list[dict[str, Any]]) -> list[tuple[str, str]]:
    return [
        (m["params"]["sessionId"], m["params"]["update"]["sessionUpdate"])
        for m in out
        if m.get("method") == "session/update"
    ]


def test_a_resume_with_a_cursor_replays_children_under_their_parent() -> None:
    pair, sid = _with_children()
    out = _feed(pair, _resume(sid, replay=True))
    assert "result" in out[-1]  # the response comes last
    assert _updates(out) == [
        (sid, "subagent_update"),  # re-announced before any of its traffic (R61)
        ("c1", "agent_message"),  # the child's history
        ("c1", "subagent_update"),  # the grandchild, on its own parent (R49)
        ("c2", "replay_complete"),
        ("c1", "replay_complete"),  # each child's marker (R60), before the parent's (P8)
        ("c1", "state_update"),  # the child's current state after its marker (P8)
        (sid, "replay_complete"),  # exactly once (R57)
        (sid, "state_update"),  # the snapshot after the marker (R62)
    ]
    # A client folding this sees every window complete and nothing it had to tolerate.
    tree = acp.begin_resume(acp.new_tree(), sid, 90, replay=True, revision=acp.PREVIEW)
    for message in out[:-1]:
        params = message["params"]
        update = acp.decode_update(params["update"], strict=True, revision=acp.PREVIEW)
        tree = acp.reduce_tree(tree, params["sessionId"], update, revision=acp.PREVIEW)
    tree = acp.end_resume(tree, 90, succeeded=True)
    assert tree.diagnostics == acp.new_tree().diagnostics
    assert acp.parent_of(tree, "c2") == "c1"
    assert {s: tree.sessions[s].aux.extras.replay.phase for s in (sid, "c1", "c2")} == {
        sid: "complete",
        "c1": "complete",
        "c2": "complete",
    }
    assert tuple(tree.sessions["c1"].messages["m1"].content) == (acp.TextContent("hi"),)


def test_a_resume_without_a_cursor_re_announces_but_replays_nothing() -> None:
    pair, sid = _with_children()
    out = _feed(pair, _resume(sid, replay=False))
    assert _updates(out) == [
        (sid, "subagent_update"),
        ("c1", "subagent_update"),
        ("c1", "state_update"),
        (sid, "state_update"),
    ]  # no marker without a cursor (R58)


@pytest.mark.parametrize("revision", [acp.V2_2026_08, acp.V2_2026_11], ids=lambda r: r.name)
def test_no_marker_before_the_preview(revision: acp.Revision) -> None:
    pair, sid = _with_children(revision)
    out = _feed(pair, _resume(sid, replay=True))
    assert [k for _, k in _updates(out)] == ["state_update"]


@pytest.mark.parametrize("method", ["session/prompt", "session/resume", "session/close"])
def test_restricted_requests_naming_a_child_are_invalid_params(method: str) -> None:
    pair, _ = _with_children()
    params: dict[str, Any] = {"sessionId": "c1", "cwd": "/work"}
    if method == "session/prompt":
        params = {"sessionId": "c1", "prompt": []}
    (reply,) = _feed(pair, {"jsonrpc": "2.0", "id": 7, "method": method, "params": params})
    assert reply["error"]["code"] == -32602


def test_a_childs_cancel_reaches_its_parents_engine() -> None:
    pair, sid = _with_children()
    cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "c1"}}
    assert _feed(pair, cancel) == []
    assert [e for e in pair.agent_events if isinstance(e, acp.Finding)] == []
    with pytest.raises(acp.LocalProtocolError) as error:  # R21 on the child
        pair.agent_says(sid, acp.SendUpdate(acp.IdleStateUpdate("end_turn"), "c1"))
    assert error.value.rule == "R21"
    assert _says(pair, sid, acp.SendUpdate(acp.IdleStateUpdate("cancelled"), "c1"))


def test_a_tool_call_cancel_for_a_childs_call_is_answered_by_its_engine() -> None:
    pair, sid = _with_children()
    call = acp.ToolCallUpdate("t", title="w", status="in_progress", capabilities=TOOL_CANCEL)
    _says(pair, sid, acp.SendUpdate(call, "c1"))
    request = {
        "jsonrpc": "2.0",
        "id": 8,
        "method": "tool_call/cancel",
        "params": {"sessionId": "c1", "toolCallId": "t"},
    }
    out = _feed(pair, request)
    assert out[0] == {"jsonrpc": "2.0", "id": 8, "result": {}}
    assert (out[1]["params"]["sessionId"], out[1]["params"]["update"]["status"]) == (
        "c1",
        "cancelled",
    )
    assert 8 not in pair.agent.incoming
    ghost = {**request, "id": 9, "params": {"sessionId": "nobody", "toolCallId": "t"}}
    assert _feed(pair, ghost)[0]["error"]["code"] == -32002


def _prompt(sid: str, request_id: int, key: str) -> dict[str, Any]:
    params = {"sessionId": sid, "prompt": [{"type": "text", "text": "go"}], "idempotencyKey": key}
    return {"jsonrpc": "2.0", "id": request_id, "method": "session/prompt", "params": params}


def test_a_keyed_retry_is_answered_from_the_ledger_and_is_no_new_prompt() -> None:
    pair, sid = _with_children()
    _feed(pair, _prompt(sid, 1, "K"))
    received = [e for e in pair.agent_events if isinstance(e, acp.PromptReceived)]
    assert [e.request_id for e in received] == [1]
    out = _feed(pair, _prompt(sid, 2, "K"))  # held original: the retry joins it
    assert out == []
    assert len([e for e in pair.agent_events if isinstance(e, acp.PromptReceived)]) == 1
    out = _says(pair, sid, acp.AcceptPrompt(1))
    answers = {m["id"]: m["result"] for m in out if "result" in m}
    assert answers[1] == answers[2]
    assert 2 not in pair.agent.incoming
    out = _feed(pair, _prompt(sid, 3, "K"))  # inserted: answered at once
    assert out == [{"jsonrpc": "2.0", "id": 3, "result": answers[1]}]


def test_cancel_request_of_a_joined_retry_withdraws_the_held_original() -> None:
    pair, sid = _with_children()
    _feed(pair, _prompt(sid, 1, "K"))
    _feed(pair, _prompt(sid, 2, "K"))
    out = _feed(pair, {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 2}})
    assert sorted(m["id"] for m in out if m.get("error", {}).get("code") == -32800) == [1, 2]
    assert pair.agent.engine(sid).prompts == ()


# -- what a parent's cancel and close reach (P19, R73, R76, P13) ----------------------------

ALLOW = (acp.PermissionOption("y", "Yes", "allow_once"),)


def _clean(pair: Pair) -> None:
    for side, trace in (("agent", pair.agent_trace), ("client", pair.client_trace)):
        found = acp.check_trace(trace, revision=acp.PREVIEW, side=side)  # type: ignore[arg-type]
        assert [v for v in found if not v.warning] == []


def _working_family() -> tuple[Pair, str]:
    """A turn (prompt 0 accepted) with c1 started in it and asking for permission, c2 started
    in it too but listed as background and asking as well, and a second prompt held."""
    pair = Pair(revision=acp.PREVIEW)
    sid = pair.open()
    pair.client_says(sid, acp.SendPrompt((acp.TextContent("go"),)))
    pair.settle()
    _says(pair, sid, acp.AcceptPrompt(pair.agent.engine(sid).prompts[0].id))
    for child in ("c1", "c2"):
        _says(pair, sid, acp.SendUpdate(acp.SubagentUpdate(child, title=child)))
        _says(pair, sid, acp.SendUpdate(acp.RunningStateUpdate(), child))
        call = acp.ToolCallUpdate(f"{child}-t", title="edit", status="pending")
        _says(pair, sid, acp.SendUpdate(call, child))
        _says(pair, sid, acp.RequestPermission("Edit?", ALLOW, f"{child}-t", session_id=child))
    _says(pair, sid, acp.ReportBackground((acp.BackgroundSubagent("c2"),)))
    pair.client_says(sid, acp.SendPrompt((acp.TextContent("later"),)))
    pair.settle()
    return pair, sid


def _agent_sent(pair: Pair) -> list[dict[str, Any]]:
    return [e["message"] for e in pair.agent_trace if e["from"] == "agent"]


def _withdrawn(messages: list[dict[str, Any]]) -> list[Any]:
    return [m["params"]["requestId"] for m in messages if m.get("method") == "$/cancel_request"]


def test_p19_a_parent_cancel_names_the_children_it_reached() -> None:
    pair, sid = _working_family()
    requests = {r.session_id: r.request_id for r in pair.agent.engine(sid).pending.values()}
    before = len(_agent_sent(pair))
    pair.client_says(sid, acp.SendCancel())
    pair.settle()
    assert acp.CancelReceived(sid, ("c1",)) in pair.agent_events
    assert _withdrawn(_agent_sent(pair)[before:]) == [requests["c1"]]  # c2's stays (R73)
    _says(pair, sid, acp.SendUpdate(acp.IdleStateUpdate("cancelled"), "c1"))
    _says(pair, sid, acp.EndTurn())
    pair.settle()
    assert pair.agent.engine(sid).cancelled_children == ()
    _clean(pair)


def test_r76_close_ends_the_work_its_children_included_before_the_answer() -> None:
    pair, sid = _working_family()
    pending = dict(pair.agent.engine(sid).pending)
    before = len(_agent_sent(pair))
    pair.client_do(acp.CloseSession(sid))
    pair.settle()
    # the foreground work (c1 with it) winds down; every open request is withdrawn, once
    assert acp.CloseRequested(sid, ("c1",)) in pair.agent_events
    assert sorted(_withdrawn(_agent_sent(pair)[before:])) == sorted(pending)
    held = [m for m in _agent_sent(pair)[before:] if m.get("error", {}).get("code") == -32800]
    assert len(held) == 1  # the held prompt (R70 through R76)
    _says(pair, sid, acp.EndTurn())
    pair.settle()
    assert sid in pair.client.sessions  # c1 is still winding down: no answer yet
    _says(pair, sid, acp.SendUpdate(acp.AgentMessage("m", (acp.TextContent("bye"),)), "c1"))
    _says(pair, sid, acp.SendUpdate(acp.IdleStateUpdate("cancelled"), "c1"))
    pair.settle()
    assert sid not in pair.client.sessions
    assert acp.SessionClosed(sid, ("c1", "c2")) in pair.agent_events
    sent = _agent_sent(pair)
    assert sent[-1] == {"jsonrpc": "2.0", "id": sent[-1]["id"], "result": {}}
    ends = [
        (m["params"]["sessionId"], m["params"]["update"].get("stopReason"))
        for m in sent[before:]
        if m.get("method") == "session/update" and "stopReason" in m["params"]["update"]
    ]
    assert ends == [(sid, "cancelled"), ("c1", "cancelled")]
    # P13: nothing for the session or its children after the close response
    for session_id in (sid, "c1", "c2"):
        update = acp.AgentMessage(f"late-{session_id}", (acp.TextContent("x"),))
        target = None if session_id == sid else session_id
        assert pair.agent_says(sid, acp.SendUpdate(update, target)).outbound == ()
    _clean(pair)


def test_r76_close_while_idle_withdraws_background_requests_and_answers_at_once() -> None:
    pair = Pair(revision=acp.PREVIEW)
    sid = pair.open()
    _says(pair, sid, acp.SendUpdate(acp.SubagentUpdate("c1", title="bg")))
    _says(pair, sid, acp.SendUpdate(acp.RunningStateUpdate(), "c1"))
    _says(pair, sid, acp.SendUpdate(acp.ToolCallUpdate("t", title="edit"), "c1"))
    _says(pair, sid, acp.RequestPermission("Edit?", ALLOW, "t", session_id="c1"))
    pair.settle()
    (request_id,) = pair.agent.engine(sid).pending
    before = len(_agent_sent(pair))
    pair.client_do(acp.CloseSession(sid))
    pair.settle()
    sent = _agent_sent(pair)[before:]
    assert _withdrawn(sent) == [request_id]
    assert sent[-1].get("result") == {}
    assert acp.SessionClosed(sid, ("c1",)) in pair.agent_events
    late = acp.SendUpdate(acp.IdleStateUpdate("cancelled"), "c1")
    assert pair.agent_says(sid, late).outbound == ()
    _clean(pair)


def test_the_owner_index_follows_announcements_and_a_deleted_session() -> None:
    # Who owns a child is an index the connection keeps (`AgentConnection.child_owners`):
    # the same answer with one session or many, and a deleted session's children leave it.
    pair, sid = _with_children()
    for _ in range(30):
        pair.open()
    assert dict(pair.agent.child_owners) == {"c1": sid, "c2": sid}
    assert pair.agent.children_of(sid) == ("c1",)
    _feed(pair, {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "c1"}})
    assert "c1" in pair.agent.engine(sid).cancelled_children  # routed to its owner
    # A deleted session's children leave the index with it.
    delete = {"jsonrpc": "2.0", "id": 900, "method": "session/delete", "params": {"sessionId": sid}}
    _feed(pair, delete)
    pair.agent_do(acp.AnswerRequest(900, {}))
    assert sid not in pair.agent.sessions
    assert dict(pair.agent.child_owners) == {}
