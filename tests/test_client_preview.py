"""The client engine at the Preview: children (C27, C28, P3), child cancel (C29, C35), item
cancellation (C41), C40 instead of C15 from 2026-11 on, prompt retries with one key (C42-C45).

Bad input from the agent (child traffic before its announcement, a permission request for an
unknown session) is a diagnostic or an error answer, never an exception."""

from __future__ import annotations

import json
from typing import Any

import pytest

import acp_core as acp
from acp_core import Received, step

SID = "sess_1"
C1 = "sess_child_1"
OPTIONS = [{"optionId": "y", "name": "Yes", "kind": "allow_once"}]
TEXT = {"type": "text", "text": "x"}
CHUNK = {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": TEXT}


def receive(engine: acp.ClientEngine, wire: dict[str, Any], *, strict: bool = True) -> acp.Step:
    revision = engine.revision
    message = acp.decode_message(json.loads(json.dumps(wire)), strict=strict, revision=revision)
    assert not isinstance(message, acp.Batch)
    return step(engine, Received(message))


def update(session_id: str, upd: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session_id, "update": upd},
    }


def permission(request_id: int, session_id: str) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "session/request_permission",
        "params": {"sessionId": session_id, "title": "Go?", "options": OPTIONS},
    }


def announce(**fields: Any) -> dict[str, Any]:
    return update(SID, {"sessionUpdate": "subagent_update", "sessionId": C1, **fields})


def feed(engine: acp.ClientEngine, *wires: dict[str, Any]) -> acp.ClientEngine:
    for wire in wires:
        engine = receive(engine, wire).state
    return engine


def preview_client() -> acp.ClientEngine:
    return acp.new_client(SID, revision=acp.PREVIEW)


def test_child_traffic_goes_to_the_childs_view() -> None:
    client = feed(preview_client(), announce(title="Tests"), update(C1, CHUNK))
    child = client.children.sessions[C1]
    assert [b.text for b in child.messages["m"].content] == ["x"]  # type: ignore[union-attr]
    assert client.session.messages == acp.new_session(SID).messages
    assert client.session.extras.child_order == (C1,)


def test_child_traffic_before_announcement_is_kept_not_raised() -> None:
    client = feed(preview_client(), update(C1, CHUNK))
    assert [d.rule for d in client.children.diagnostics] == [acp.UNANNOUNCED_SESSION]
    client = feed(client, announce())
    assert "m" in client.children.sessions[C1].messages


def test_at_2026_08_another_sessions_update_is_still_e3() -> None:
    old = acp.new_client(SID, revision=acp.V2_2026_08)
    with pytest.raises(acp.RemoteProtocolError) as refused:
        receive(old, update(C1, {"sessionUpdate": "session_info_update"}))
    assert refused.value.rule == "E3"


def test_a_childs_permission_request_is_pending_and_answered() -> None:
    client = feed(preview_client(), announce())
    client = feed(client, permission(5, C1))
    assert 5 in client.pending
    client, out = step(client, acp.AnswerPermission(5, "y"))
    assert out[0]["id"] == 5
    assert out[0]["result"]["outcome"]["optionId"] == "y"


def test_a_permission_request_for_an_unknown_session_is_answered_with_an_error() -> None:
    client, out = receive(preview_client(), permission(5, "ghost"))
    assert 5 not in client.pending
    assert out[0]["error"]["code"] == -32602
    assert [d.rule for d in client.children.diagnostics] == ["client.unannounced-permission"]


def test_child_cancel_needs_the_childs_capability() -> None:
    client = feed(preview_client(), announce())
    with pytest.raises(acp.LocalProtocolError) as refused:
        step(client, acp.CancelChild(C1))
    assert refused.value.rule == "C29"
    client = feed(client, announce(capabilities={"cancel": {}}))
    _, out = step(client, acp.CancelChild(C1))
    assert out == ({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": C1}},)


@pytest.mark.parametrize(("kind", "key"), [("toolCall", "toolCallId"), ("terminal", "terminalId")])
def test_item_cancel_only_while_advertised(kind: str, key: str) -> None:
    tag = "tool_call_update" if kind == "toolCall" else "terminal_update"
    intent: Any = acp.CancelToolCall("i1") if kind == "toolCall" else acp.CancelTerminal("i1")
    client = feed(preview_client(), update(SID, {"sessionUpdate": tag, key: "i1"}))
    with pytest.raises(acp.LocalProtocolError) as refused:
        step(client, intent)
    assert refused.value.rule == "C41"
    cancellable = {"sessionUpdate": tag, key: "i1", "capabilities": {"cancel": {}}}
    client = feed(client, update(SID, cancellable))
    client, out = step(client, intent)
    method = "tool_call/cancel" if kind == "toolCall" else "terminal/cancel"
    assert out[0]["method"] == method
    assert out[0]["params"] == {"sessionId": SID, key: "i1"}
    # The acceptance answer is taken; the final state comes as an update (R75).
    client = feed(client, {"jsonrpc": "2.0", "id": out[0]["id"], "result": {}})
    assert client.requests == acp.new_client(SID).requests
    malformed = {"sessionUpdate": tag, key: "i1", "capabilities": {"cancel": 3}}
    client = receive(client, update(SID, malformed), strict=False).state  # lenient: none
    with pytest.raises(acp.LocalProtocolError):
        step(client, intent)  # malformed capabilities mean none


@pytest.mark.parametrize(
    ("revision", "answered"),
    [(acp.V2_2026_08, True), (acp.V2_2026_11, False), (acp.PREVIEW, False)],
)
def test_cancel_answers_pending_permissions_only_at_2026_08(
    revision: acp.Revision, answered: bool
) -> None:
    # C15 (2026-08) vs C40: background permission requests stay open after a cancel.
    client = acp.new_client(SID, revision=revision)
    client, _ = step(client, acp.SendPrompt((acp.TextContent("hi"),)))
    client = feed(client, update(SID, {"sessionUpdate": "state_update", "state": "running"}))
    client = feed(client, permission(9, SID))
    client, out = step(client, acp.SendCancel())
    assert (9 not in client.pending) is answered
    assert any("result" in w for w in out) is answered


def test_retry_sends_the_same_key_and_content() -> None:
    client = preview_client()
    client, first = step(client, acp.SendPrompt((acp.TextContent("hi"),), idempotency_key="K1"))
    client, again = step(client, acp.RetryPrompt(first[0]["id"]))
    assert again[0]["params"] == first[0]["params"]
    assert again[0]["id"] != first[0]["id"]
    assert first[0]["params"]["idempotencyKey"] == "K1"


def test_a_prompt_without_a_key_is_never_retried() -> None:
    client, first = step(preview_client(), acp.SendPrompt((acp.TextContent("hi"),)))
    with pytest.raises(acp.LocalProtocolError) as refused:
        step(client, acp.RetryPrompt(first[0]["id"]))
    assert refused.value.rule == "C45"


@pytest.mark.parametrize("key", ["", "x" * 256])
def test_key_shape_is_checked_at_construction(key: str) -> None:
    with pytest.raises(acp.LocalProtocolError) as refused:
        acp.SendPrompt((acp.TextContent("hi"),), idempotency_key=key)
    assert refused.value.rule == "C43"


def test_a_key_is_never_reused_for_another_submission() -> None:
    client, _ = step(preview_client(), acp.SendPrompt((acp.TextContent("a"),), idempotency_key="K"))
    with pytest.raises(acp.LocalProtocolError) as refused:
        step(client, acp.SendPrompt((acp.TextContent("b"),), idempotency_key="K"))
    assert refused.value.rule == "C43"


def test_a_key_needs_the_preview() -> None:
    client = acp.new_client(SID, revision=acp.V2_2026_11)
    with pytest.raises(acp.LocalProtocolError) as refused:
        step(client, acp.SendPrompt((acp.TextContent("a"),), idempotency_key="K"))
    assert refused.value.rule == "E0"


def test_a_retry_answered_with_the_same_message_binds_to_it_once() -> None:
    # C44: the retry's result names the message the first attempt inserted; one user message.
    client, first = step(
        preview_client(), acp.SendPrompt((acp.TextContent("hi"),), idempotency_key="K")
    )
    user = {
        "sessionUpdate": "user_message",
        "messageId": "u1",
        "content": [{"type": "text", "text": "hi"}],
    }
    client = feed(client, update(SID, user))
    client, again = step(client, acp.RetryPrompt(first[0]["id"]))
    for wire in (again[0], first[0]):
        client = feed(client, {"jsonrpc": "2.0", "id": wire["id"], "result": {"messageId": "u1"}})
    assert [p.message_id for p in client.prompts] == ["u1", "u1"]
    assert client.prompts[1].retry_of == first[0]["id"]
    assert list(client.session.messages) == ["u1"]
    assert client.violations == ()


def test_a_childs_traffic_keeps_the_clients_own_lifecycle_apart() -> None:
    # The child's running/idle go through the child's machine, not the client's session.
    client = feed(preview_client(), announce())
    running = {"sessionUpdate": "state_update", "state": "running"}
    client = feed(client, update(C1, running))
    assert client.conversation == preview_client().conversation
    assert client.children.sessions[C1].foreground.state == "running"
    idle = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
    client = feed(client, update(C1, idle))
    assert client.violations == ()


def test_grandchildren_register_under_their_parent() -> None:
    client = feed(
        preview_client(),
        announce(),
        update(C1, {"sessionUpdate": "subagent_update", "sessionId": "g1"}),
        update("g1", CHUNK),
    )
    assert acp.parent_of(client.children, "g1") == C1
    assert "m" in client.children.sessions["g1"].messages


def test_a_child_claimed_by_a_second_parent_keeps_its_first() -> None:
    client = feed(
        preview_client(),
        announce(),
        update(SID, {"sessionUpdate": "subagent_update", "sessionId": "c2"}),
        update("c2", {"sessionUpdate": "subagent_update", "sessionId": C1}),
    )
    assert acp.parent_of(client.children, C1) == SID
    assert [d.rule for d in client.children.diagnostics] == [acp.REPARENT]


def test_a_withdrawn_child_permission_is_answered_cancelled() -> None:
    client = feed(preview_client(), announce(), permission(5, C1))
    client, out = receive(
        client, {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 5}}
    )
    assert out[0] == {"jsonrpc": "2.0", "id": 5, "result": {"outcome": {"outcome": "cancelled"}}}
    assert 5 not in client.pending


def _answer(request_id: object, outcome: str) -> dict[str, Any]:
    if outcome == "ok":
        return {"jsonrpc": "2.0", "id": request_id, "result": {"messageId": f"u{request_id}"}}
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": -32800, "message": "cancelled"}}


@pytest.mark.parametrize(
    ("script", "expected"),
    [
        (["send A"], ["A"]),
        (["send -"], []),  # C45: a prompt without a key is never retried automatically
        (["send A", "ok 0"], []),
        (["send A", "error 0"], []),  # answered (failed): the host decides, no auto retry
        (["send A", "retry 0"], ["A"]),  # one submission, however many attempts
        (["send A", "retry 0", "ok 1"], []),  # the retry's answer answers the submission
        (["send A", "send B", "ok 1"], ["A"]),
        (["send A", "send B"], ["A", "B"]),  # oldest first
    ],
)
def test_c45_unanswered_lists_each_keyed_submission_no_attempt_of_which_was_answered(
    script: list[str], expected: list[str]
) -> None:
    client = preview_client()
    for line in script:
        verb, arg = line.split()
        if verb == "send":
            key = None if arg == "-" else arg
            intent: object = acp.SendPrompt((acp.TextContent(arg),), idempotency_key=key)
            client, _ = step(client, intent)
        elif verb == "retry":
            client, _ = step(client, acp.RetryPrompt(int(arg)))
        else:
            client = feed(client, _answer(int(arg), verb))
    assert [p.idempotency_key for p in client.unanswered] == expected
    firsts = {p.request.idempotency_key: p.request_id for p in reversed(client.prompts)}
    assert [p.id for p in client.unanswered] == [firsts[k] for k in expected]  # first attempts
