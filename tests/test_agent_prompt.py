"""Agent engine, prompt turns (digest 4.1 R1-R7, 5.3; Q4): what an accepted prompt sends and in
which order, both revisions, chunked user messages, queued and rejected prompts,
agent-initiated work, message ids on every message update, and deterministic ids."""

from __future__ import annotations

from typing import Any

import pytest
from pair import prompt_wire, receive, updates_of

import acp_core as acp
from acp_core import (
    AcceptPrompt,
    EndTurn,
    LocalProtocolError,
    RejectPrompt,
    RemoteProtocolError,
    ReportUserMessage,
    SendAgentMessage,
    SendAgentText,
    SendThought,
    StartWork,
    TextContent,
    new_agent,
    step,
)

SID = "sess_1"


def _with_prompt(
    request_id: int | str = 7, revision: acp.Revision = acp.V2_2026_08
) -> acp.AgentEngine:
    engine, out = receive(new_agent(SID, revision=revision), prompt_wire(request_id))
    assert out == ()
    return engine


def _running(request_id: int | str = 7) -> acp.AgentEngine:
    return step(_with_prompt(request_id), AcceptPrompt(request_id)).state


def _refused(engine: acp.AgentEngine, intent: object) -> str:
    with pytest.raises(LocalProtocolError) as info:
        step(engine, intent)
    return info.value.rule


# -- R1-R3, R6: answer, user message, running, in that order ---------------------------


def test_accepted_prompt_answers_empty_result_then_user_message_then_running() -> None:
    engine, out = step(_with_prompt(7), AcceptPrompt(7))
    assert out[0] == {"jsonrpc": "2.0", "id": 7, "result": {}}
    user, running = updates_of(out[1:])
    assert user["sessionUpdate"] == "user_message"
    assert user["content"] == [{"type": "text", "text": "hello"}]
    assert isinstance(user["messageId"], str)
    assert user["messageId"]
    assert running == {"sessionUpdate": "state_update", "state": "running"}
    assert len(out) == 3
    assert engine.phase == "running"
    assert engine.turn is not None
    assert engine.turn.user_message_id == user["messageId"]
    assert engine.prompts == ()


def test_accepted_prompt_2026_11_answers_with_the_user_message_id() -> None:
    engine, out = step(_with_prompt(7, acp.V2_2026_11), AcceptPrompt(7))
    user = updates_of(out)[0]
    assert out[0] == {"jsonrpc": "2.0", "id": 7, "result": {"messageId": user["messageId"]}}
    assert [u["sessionUpdate"] for u in updates_of(out)] == ["user_message", "state_update"]
    assert engine.phase == "running"


def test_accepted_prompt_reports_the_user_message_as_chunks_when_asked() -> None:
    blocks = (TextContent("a"), TextContent("b"), TextContent("c"))
    _, out = step(_with_prompt(1), AcceptPrompt(1, content=blocks, chunked=True))
    ups = updates_of(out)
    assert [u["sessionUpdate"] for u in ups] == ["user_message_chunk"] * 3 + ["state_update"]
    assert len({u["messageId"] for u in ups[:3]}) == 1
    assert [u["content"]["text"] for u in ups[:3]] == ["a", "b", "c"]
    assert out[0]["result"] == {}


def test_accepted_prompt_reports_the_agents_version_of_the_content() -> None:
    # Q30: the agent decides what landed in history.
    _, out = step(_with_prompt(1), AcceptPrompt(1, content=(TextContent("edited"),)))
    assert updates_of(out)[0]["content"] == [{"type": "text", "text": "edited"}]


def test_accepted_prompt_uses_the_callers_user_message_id() -> None:
    engine, out = step(_with_prompt(1), AcceptPrompt(1, user_message_id="u-42"))
    assert updates_of(out)[0]["messageId"] == "u-42"
    assert "u-42" in engine.session.messages
    assert engine.session.messages["u-42"].role == "user"


def test_accepting_a_prompt_under_an_existing_message_id_is_refused() -> None:
    # R5: a new user message needs a new id, or the client could not bind the prompt (Q7).
    engine = step(_running(1), EndTurn()).state
    old_id = next(iter(engine.session.messages))
    engine = receive(engine, prompt_wire(2))[0]
    assert _refused(engine, AcceptPrompt(2, user_message_id=old_id)) == "R5"


def test_accepting_an_unknown_prompt_is_refused() -> None:
    assert _refused(_with_prompt(1), AcceptPrompt(2)) == "R1"
    assert _refused(new_agent(SID), AcceptPrompt(None)) == "R1"


def test_prompts_wait_while_a_turn_runs_and_are_accepted_after_it() -> None:
    engine = receive(_running(1), prompt_wire(2))[0]
    assert [p.id for p in engine.prompts] == [2]
    assert _refused(engine, AcceptPrompt(2)) == "E1"  # one turn at a time (Q4)
    engine, out = step(engine, EndTurn())
    assert updates_of(out) == [
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
    ]
    engine, out = step(engine, AcceptPrompt(2))
    assert out[0]["id"] == 2
    assert engine.turn is not None
    assert engine.turn.prompt_id == 2


def test_rejected_prompt_is_answered_with_an_error_and_forgotten() -> None:
    engine, out = step(_with_prompt(3), RejectPrompt(3, "busy", code=-32000))
    assert out == ({"jsonrpc": "2.0", "id": 3, "error": {"code": -32000, "message": "busy"}},)
    assert engine.prompts == ()
    assert engine.phase == "idle"
    assert _refused(engine, AcceptPrompt(3)) == "R1"
    assert _refused(engine, RejectPrompt(3, "again")) == "R1"


def test_a_waiting_prompt_can_be_rejected_while_a_turn_runs() -> None:
    engine = receive(_running(1), prompt_wire(2))[0]
    engine, out = step(engine, RejectPrompt(2, "queue full"))
    assert out[0]["error"]["code"] == -32603
    assert engine.phase == "running"


def test_a_received_prompt_for_another_session_raises_a_remote_error() -> None:
    # (A prompt reusing a waiting prompt's id is answered -32600: tests/test_hostile_ids.py.)
    with pytest.raises(RemoteProtocolError) as info:
        receive(_with_prompt(5), prompt_wire(1, session_id="other"))
    assert info.value.rule == "E3"


# -- R6/R7: agent-initiated work and ending -------------------------------------------


def test_agent_initiated_work_reports_running_and_needs_no_user_message() -> None:
    engine, out = step(new_agent(SID), StartWork())
    assert updates_of(out) == [{"sessionUpdate": "state_update", "state": "running"}]
    assert _refused(engine, StartWork()) == "E1"
    engine, out = step(engine, SendAgentText("hi"))
    engine, out = step(engine, EndTurn())
    assert updates_of(out)[-1]["stopReason"] == "end_turn"
    assert engine.turn is None
    assert engine.phase == "idle"


def test_ending_without_foreground_work_is_refused() -> None:
    assert _refused(new_agent(SID), EndTurn()) == "R7"
    assert _refused(new_agent(SID), acp.ReportAbort("boom")) == "R7"


@pytest.mark.parametrize("stop", ["end_turn", "max_tokens", "max_turn_requests", "refusal", "_x"])
def test_turn_ends_idle_with_the_stop_reason_asked_for(stop: str) -> None:
    engine, out = step(_running(), EndTurn(stop))
    assert updates_of(out) == [
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": stop}
    ]
    assert engine.session.foreground.stop_reason == stop


def test_end_turn_meta_goes_on_the_idle_update() -> None:
    meta = acp.freeze_json({"_why": 1})
    _, out = step(_running(), EndTurn(meta=meta))  # type: ignore[arg-type]
    assert updates_of(out)[0]["_meta"] == {"_why": 1}


@pytest.mark.parametrize(
    ("revision", "expected"), [(acp.V2_2026_08, "_error"), (acp.V2_2026_11, "error")]
)
def test_abort_without_cancel_ends_with_the_revisions_error_stop_reason(
    revision: acp.Revision, expected: str
) -> None:
    engine = step(_with_prompt(1, revision), AcceptPrompt(1)).state
    _, out = step(engine, acp.ReportAbort("boom"))
    assert updates_of(out)[0]["stopReason"] == expected


# -- R4/R5: message ids -----------------------------------------------------------------


def test_every_message_update_and_chunk_carries_a_message_id() -> None:
    engine = _running()
    intents: list[object] = [
        SendAgentText("a"),
        SendAgentText("b"),
        SendThought("t1"),
        SendThought("t2"),
        SendAgentText("c"),
        SendAgentMessage((TextContent("whole"),)),
        ReportUserMessage((TextContent("queued"),), chunked=True),
        SendAgentText("d", new_message=True),
    ]
    ids = []
    for intent in intents:
        engine, out = step(engine, intent)
        (update,) = updates_of(out)
        assert isinstance(update["messageId"], str)
        assert update["messageId"]
        ids.append(update["messageId"])
    a, b, t1, t2, c, whole, queued, d = ids
    assert a == b  # consecutive chunks continue one message (R5)
    assert t1 == t2 != a
    assert c not in (a, t1)  # something else was reported in between: a new message
    assert len({c, whole, queued, d}) == 4
    roles = {mid: engine.session.messages[mid].role for mid in ids}
    assert [roles[i] for i in (a, t1, c, whole, queued, d)] == [
        "agent",
        "thought",
        "agent",
        "agent",
        "user",
        "agent",
    ]


def test_an_explicit_message_id_pins_the_chunk_to_that_message() -> None:
    engine = step(_running(), SendAgentText("a", message_id="m1")).state
    engine = step(engine, SendThought("t")).state
    engine, out = step(engine, SendAgentText("b", message_id="m1"))
    assert updates_of(out)[0]["messageId"] == "m1"
    assert acp.message_text(engine.session.messages["m1"]) == "ab"


@pytest.mark.parametrize(
    ("intent", "rule"),
    [
        pytest.param(SendAgentText("x", message_id=""), "R4", id="empty-id"),
        pytest.param(SendThought("x", message_id="m1"), "R5", id="agent-id-as-thought"),
        pytest.param(ReportUserMessage((), message_id="m1"), "R5", id="agent-id-as-user"),
    ],
)
def test_message_ids_are_non_empty_and_keep_their_role(intent: object, rule: str) -> None:
    engine = step(_running(), SendAgentText("a", message_id="m1")).state
    assert _refused(engine, intent) == rule


# -- ids: the caller's, or a deterministic counter ---------------------------------------


_SCRIPT: tuple[object, ...] = (
    AcceptPrompt(1),
    SendAgentText("a"),
    acp.StartToolCall("t"),
    acp.RequestPermission("ok?", (acp.PermissionOption("y", "Yes", "allow_once"),)),
    SendThought("b"),
    EndTurn(),
)


def _run(engine: acp.AgentEngine) -> tuple[acp.AgentEngine, list[dict[str, Any]]]:
    sent: list[dict[str, Any]] = []
    for intent in _SCRIPT:
        engine, out = step(engine, intent)
        sent.extend(out)
    return engine, sent


def _script(engine: acp.AgentEngine) -> list[dict[str, Any]]:
    return _run(engine)[1]


def test_generated_ids_are_deterministic() -> None:
    first = _script(_with_prompt(1))
    assert first == _script(_with_prompt(1))
    ids = [u.get("messageId") or u.get("toolCallId") for u in updates_of(tuple(first))]
    assert [i for i in ids if i] == ["user-1", "agent-2", "call-3", "thought-4"]
    assert [w["id"] for w in first if w.get("method") == "session/request_permission"] == [0]


def test_id_prefix_keeps_generated_ids_apart() -> None:
    engine = receive(new_agent(SID, id_prefix="a7:"), prompt_wire(1))[0]
    ids = [u.get("messageId") or u.get("toolCallId") for u in updates_of(tuple(_script(engine)))]
    assert all(i.startswith("a7:") for i in ids if i)


def test_generated_ids_skip_ids_the_caller_already_used() -> None:
    engine = step(_running(), SendAgentText("x", message_id="agent-2")).state
    engine, out = step(engine, SendAgentText("y", new_message=True))
    assert updates_of(out)[0]["messageId"] not in ("agent-2", "user-1")
    assert len(engine.session.messages) == 3


# -- the engine keeps what it sent, folded -------------------------------------------------


def test_engine_session_is_the_fold_of_its_own_updates() -> None:
    engine, sent = _run(_with_prompt(1))
    updates = [acp.decode_update(u, strict=True) for u in updates_of(tuple(sent))]
    assert engine.session == acp.fold(acp.new_session(SID), updates)


@pytest.mark.parametrize(
    ("revision", "expected"),
    [(acp.V2_2026_08, {"b": 2}), (acp.V2_2026_11, {"a": 1, "b": 2})],
)
def test_engine_folds_meta_patches_the_way_its_revision_says(
    revision: acp.Revision, expected: dict[str, int]
) -> None:
    # Q15: `_meta` patches replace (2026-08) or merge by top-level key (2026-11).
    engine = step(_with_prompt(1, revision), AcceptPrompt(1)).state
    for meta in ({"a": 1}, {"b": 2}):
        intent = SendAgentMessage((TextContent("x"),), "m1", acp.freeze_json(meta))  # type: ignore[arg-type]
        engine = step(engine, intent).state
    assert engine.session.messages["m1"].meta == acp.freeze_json(expected)


def test_agent_initiated_work_waits_for_received_prompts() -> None:
    # A client seeing `running` after its prompt takes it for that prompt's turn (Q4).
    engine = _with_prompt(1)
    assert _refused(engine, StartWork()) == "E1"
    engine = step(engine, RejectPrompt(1, "busy")).state
    assert updates_of(step(engine, StartWork()).outbound) == [
        {"sessionUpdate": "state_update", "state": "running"}
    ]


def test_prompts_are_accepted_first_in_first_out_under_2026_08() -> None:
    # Q7: the `{}` result names no message, so clients bind user messages in order.
    engine = receive(_with_prompt(1), prompt_wire(2))[0]
    assert _refused(engine, AcceptPrompt(2)) == "E1"
    rejected = step(engine, RejectPrompt(1, "stale")).state
    assert step(rejected, AcceptPrompt(2)).state.turn is not None


def test_prompts_may_be_accepted_in_any_order_under_2026_11() -> None:
    # The result carries the user message id, so the binding does not depend on order.
    engine = receive(_with_prompt(1, acp.V2_2026_11), prompt_wire(2))[0]
    engine, out = step(engine, AcceptPrompt(2))
    assert out[0]["result"]["messageId"] == updates_of(out)[0]["messageId"]
    assert [p.id for p in engine.prompts] == [1]
