"""Client engine (digest 4.2 C14-C16, C21, C25, C26; Q7, Q17-Q20): binding prompts to the
user message the agent reports (FIFO; by `messageId` in the 2026-11 result), the local cancel
overlay (in `view`, never in `session`), cancelled answers to permission requests, and the
agent's later updates winning over local marks."""

from __future__ import annotations

import copy
from typing import Any

import pytest
from pair import cancelled_wire, receive

import acp_core as acp
from acp_core import (
    AnswerPermission,
    LocalProtocolError,
    RemoteProtocolError,
    SendCancel,
    SendPrompt,
    TextContent,
    new_client,
    prompt_message_id,
    step,
)

#: These tests state 2026-08 behaviour (FIFO prompt binding, `{}` receipts) unless a test
#: names another revision (the Preview's client binds by the receipt's `messageId`).
REV = acp.V2_2026_08
SID = "sess_1"
HELLO = (TextContent("hello"),)


def _update(update: dict[str, Any], session_id: str = SID) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session_id, "update": update},
    }


def _user(mid: str, chunk: bool = False) -> dict[str, Any]:
    if chunk:
        return _update(
            {
                "sessionUpdate": "user_message_chunk",
                "messageId": mid,
                "content": {"type": "text", "text": "x"},
            }
        )
    return _update(
        {
            "sessionUpdate": "user_message",
            "messageId": mid,
            "content": [{"type": "text", "text": "x"}],
        }
    )


def _state(state: str, stop: str | None = None) -> dict[str, Any]:
    update: dict[str, Any] = {"sessionUpdate": "state_update", "state": state}
    if stop is not None:
        update["stopReason"] = stop
    return _update(update)


def _tool(tool_call_id: str, **fields: Any) -> dict[str, Any]:
    return _update({"sessionUpdate": "tool_call_update", "toolCallId": tool_call_id, **fields})


def _result(request_id: Any, result: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def _permission(request_id: Any, tool_call_id: str | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {
        "sessionId": SID,
        "title": "Allow?",
        "options": [
            {"optionId": "y", "name": "Yes", "kind": "allow_once"},
            {"optionId": "n", "name": "No", "kind": "reject_once"},
        ],
    }
    if tool_call_id is not None:
        params["subject"] = {
            "type": "tool_call",
            "toolCall": {"toolCallId": tool_call_id, "title": "Edit"},
        }
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "session/request_permission",
        "params": params,
    }


def _feed(client: acp.ClientEngine, *wires: dict[str, Any]) -> acp.ClientEngine:
    for wire in wires:
        client, out = receive(client, wire)
        assert out == ()
    return client


def _sent(client: acp.ClientEngine, n: int = 1) -> acp.ClientEngine:
    for _ in range(n):
        client = step(client, SendPrompt(HELLO)).state
    return client


def _rule(client: acp.ClientEngine, intent: object) -> str:
    with pytest.raises(LocalProtocolError) as info:
        step(client, intent)
    return info.value.rule


# -- prompts and their user messages (Q7) --------------------------------------------------


def test_send_prompt_sends_the_request_with_a_counter_id() -> None:
    client, out = step(new_client(SID, revision=REV), SendPrompt(HELLO))
    assert out == (
        {
            "jsonrpc": "2.0",
            "id": 0,
            "method": "session/prompt",
            "params": {"sessionId": SID, "prompt": [{"type": "text", "text": "hello"}]},
        },
    )
    client, out = step(client, SendPrompt(HELLO, request_id=1))
    client, out = step(client, SendPrompt(HELLO))
    assert out[0]["id"] == 2  # the counter skips ids the caller used
    assert _rule(client, SendPrompt(HELLO, request_id=1)) == "E2"


def test_prompt_is_bound_to_the_first_new_user_message() -> None:
    client = _feed(
        _sent(new_client(SID, revision=REV)), _result(0, {}), _user("u1"), _state("running")
    )
    assert prompt_message_id(client, 0) == "u1"
    assert client.prompts[0].state == "accepted"
    assert prompt_message_id(client, 99) is None


def test_prompts_bind_first_in_first_out() -> None:
    client = _feed(_sent(new_client(SID, revision=REV), 3), _user("u1"), _user("u2"))
    assert [p.message_id for p in client.prompts] == ["u1", "u2", None]


def test_binding_does_not_depend_on_the_result_arriving_first() -> None:
    client = _feed(_sent(new_client(SID, revision=REV)), _user("u1"), _result(0, {}))
    assert client.prompts[0] == acp.SentPrompt(0, "accepted", "u1")


def test_a_chunked_user_message_binds_once() -> None:
    client = _feed(
        _sent(new_client(SID, revision=REV), 2), _user("u1", chunk=True), _user("u1", chunk=True)
    )
    assert [p.message_id for p in client.prompts] == ["u1", None]


def test_an_already_known_user_message_binds_no_new_prompt() -> None:
    client = _feed(
        new_client(SID, revision=REV), _user("u0")
    )  # inserted by the agent: not ours (M8)
    client = _feed(_sent(client), _user("u0"))
    assert prompt_message_id(client, 0) is None
    client = _feed(client, _user("u1"))
    assert prompt_message_id(client, 0) == "u1"


def test_a_rejected_prompt_is_skipped_when_binding() -> None:
    error = {"jsonrpc": "2.0", "id": 0, "error": {"code": -32000, "message": "busy"}}
    client = _feed(_sent(new_client(SID, revision=REV), 2), error, _user("u1"))
    assert client.prompts[0] == acp.SentPrompt(0, "rejected", None)
    assert prompt_message_id(client, 1) == "u1"


def test_2026_11_binds_by_the_message_id_of_the_result() -> None:
    client = _sent(new_client(SID, revision=acp.V2_2026_11), 2)
    # The agent takes the second prompt first: the result names its message.
    client = _feed(client, _result(1, {"messageId": "u9"}), _user("u9"), _user("u10"))
    assert prompt_message_id(client, 1) == "u9"
    assert prompt_message_id(client, 0) is None  # no FIFO guess: its own result will say


@pytest.mark.parametrize(
    ("wire", "rule"),
    [
        pytest.param(_result(7, {}), "E3", id="answers-no-request"),
        pytest.param(_update({"sessionUpdate": "usage_update", "used": 1, "size": 2}, "x"), "E3",
                     id="update-for-another-session"),
    ],
)  # fmt: skip
def test_agent_messages_that_break_the_protocol_raise_remote_errors(
    wire: dict[str, Any], rule: str
) -> None:
    with pytest.raises(RemoteProtocolError) as info:
        receive(_sent(new_client(SID, revision=REV)), wire)
    assert info.value.rule == rule


@pytest.mark.parametrize(
    ("revision", "result"),
    [
        (REV, {"messageId": 5}),
        (REV, ["not", "an", "object"]),
        (acp.V2_PREVIEW, {"messageId": 5}),
        (acp.V2_PREVIEW, {"stopReason": "end_turn"}),
    ],
)
def test_a_malformed_prompt_result_answers_the_prompt_and_is_kept_as_the_machines_r1(
    revision: acp.Revision, result: Any
) -> None:
    # R1's one home is the conversation machine (`_r1`); the engine keeps its finding, in its
    # words, and the prompt is answered, as check_trace reads the same two lines. Planted:
    # `prompt_answered`'s own decode and `RemoteProtocolError("R1", ...)` back fails this.
    client = step(new_client(SID, revision=revision), SendPrompt(HELLO)).state
    wire = _result(0, result)
    client = receive(client, wire).state
    assert client.prompts[0].state == "accepted"
    kept = [(v.rule, v.message) for v in client.violations]
    sent = {"jsonrpc": "2.0", "id": 0, "method": "session/prompt"}
    sent["params"] = {"sessionId": SID, "prompt": [{"type": "text", "text": "hello"}]}
    trace = [{"from": "client", "message": sent}, {"from": "agent", "message": wire}]
    checked = [(v.rule, v.message) for v in acp.check_trace(trace, revision=revision)]
    assert kept == checked
    assert [rule for rule, _ in kept] == ["R1"]


def test_a_prompt_answered_twice_is_a_remote_error() -> None:
    client = _feed(_sent(new_client(SID, revision=REV)), _result(0, {}))
    with pytest.raises(RemoteProtocolError):
        receive(client, _result(0, {}))


# -- cancel (C14-C16, Q18-Q20) -------------------------------------------------------------


def _working() -> acp.ClientEngine:
    """Background tool b1 (seen while idle), then a turn with t1 pending, t2 in progress,
    t3 completed."""
    return _feed(
        new_client(SID, revision=REV),
        _tool("b1", title="Background", status="in_progress"),
        _user("u0"),
        _state("running"),
        _tool("t1", title="One"),
        _tool("t2", title="Two", status="in_progress"),
        _tool("t3", title="Three", status="completed"),
    )


def test_cancel_marks_unfinished_tool_calls_of_the_current_work_cancelled_in_view_only() -> None:
    client = _working()
    client, out = step(client, SendCancel())
    assert out == ({"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SID}},)
    view = {k: v.status for k, v in client.view.tool_calls.items()}
    session = {k: v.status for k, v in client.session.tool_calls.items()}
    assert view == {"b1": "in_progress", "t1": "cancelled", "t2": "cancelled", "t3": "completed"}
    assert session == {"b1": "in_progress", "t1": "pending", "t2": "in_progress", "t3": "completed"}
    assert client.cancel_requested


def test_a_background_tool_updated_during_the_work_counts_as_current_work() -> None:
    # Q18: first seen *or updated* since the foreground left idle.
    client = _feed(_working(), _tool("b1", title="Background again"))
    client = step(client, SendCancel()).state
    assert client.view.tool_calls["b1"].status == "cancelled"


def test_cancel_answers_every_pending_permission_request_with_cancelled() -> None:
    client = _feed(_working(), _permission(5, "t1"), _permission("r6"))
    client, out = step(client, SendCancel())
    assert out[0]["method"] == "session/cancel"
    assert sorted(out[1:], key=str) == sorted([cancelled_wire(5), cancelled_wire("r6")], key=str)
    assert not client.pending


def test_a_permission_request_after_cancel_is_answered_cancelled_until_idle() -> None:
    client = step(_working(), SendCancel()).state
    client, out = receive(client, _permission(7))
    assert out == (cancelled_wire(7),)
    assert not client.pending
    client = _feed(client, _state("idle", "cancelled"))
    assert not client.cancel_requested
    client, out = receive(client, _permission(8))
    assert out == ()
    assert 8 in client.pending


def test_cancel_request_for_an_open_permission_request_is_answered_cancelled() -> None:
    client = _feed(_working(), _permission(5))
    cancel_request = {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 5}}
    client, out = receive(client, cancel_request)
    assert out == (cancelled_wire(5),)
    client, out = receive(client, cancel_request)  # already answered: ignored
    assert out == ()


def test_agent_updates_after_cancel_still_apply_and_a_later_status_wins() -> None:
    client = step(_working(), SendCancel()).state
    client = _feed(
        client,
        _tool("t1", status="completed"),
        _update(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "a1",
                "content": {"type": "text", "text": "done"},
            }
        ),
        _state("idle", "cancelled"),
    )
    assert client.view.tool_calls["t1"].status == "completed"  # Q19: the agent's word wins
    assert client.view.tool_calls["t2"].status == "cancelled"  # no later status: mark stays
    assert client.session.tool_calls["t2"].status == "in_progress"
    assert acp.message_text(client.view.messages["a1"]) == "done"
    assert client.view.messages == client.session.messages
    assert client.view.foreground == client.session.foreground
    assert not client.cancel_requested


def test_any_idle_ends_the_wait_for_cancellation() -> None:
    # Q20: the agent may have ended the work before it saw the cancel.
    client = step(_working(), SendCancel()).state
    client = _feed(client, _state("idle", "end_turn"))
    assert not client.cancel_requested


def test_cancel_while_idle_marks_nothing_and_expects_nothing() -> None:
    client = _feed(new_client(SID, revision=REV), _tool("b1", title="bg", status="in_progress"))
    client = _feed(client, _permission(3, "b1"))
    client, out = step(client, SendCancel())
    assert [w.get("method") for w in out] == ["session/cancel", None]  # C15 still applies
    assert out[1] == cancelled_wire(3)
    assert client.view == client.session
    assert not client.cancel_requested


# -- permission requests ------------------------------------------------------------------


def test_a_permission_request_subject_is_applied_as_a_tool_call_update() -> None:
    # T10 / C21: the subject upserts the tool call like any tool_call_update.
    client = _feed(new_client(SID, revision=REV), _permission(1, "t9"))
    assert client.session.tool_calls["t9"].title == "Edit"
    assert client.view.tool_calls["t9"].title == "Edit"
    assert 1 in client.pending


def test_answering_a_permission_request_sends_the_selected_option() -> None:
    client = _feed(new_client(SID, revision=REV), _permission(1))
    client, out = step(client, AnswerPermission(1, "y"))
    assert out == (_result(1, {"outcome": {"outcome": "selected", "optionId": "y"}}),)
    assert not client.pending
    assert _rule(client, AnswerPermission(1, "y")) == "E2"


def test_an_option_that_was_not_offered_is_refused() -> None:
    client = _feed(new_client(SID, revision=REV), _permission(1))
    before = copy.deepcopy(client)
    assert _rule(client, AnswerPermission(1, "maybe")) == "E4"
    assert client == before  # nothing changed: the caller's engine is still valid
    assert step(client, AnswerPermission(1, "n")).outbound


def test_a_duplicate_pending_permission_id_is_answered_32600_and_the_first_stays() -> None:
    client = _feed(new_client(SID, revision=REV), _permission(1))
    client, out = receive(client, _permission(1))
    assert [(m["id"], m["error"]["code"]) for m in out] == [(None, -32600)]
    assert [v.rule for v in client.violations] == ["J2"]
    assert step(client, AnswerPermission(1, "y")).outbound[0]["id"] == 1


def test_unknown_requests_get_method_not_found_and_notifications_no_answer() -> None:
    client = new_client(SID, revision=REV)
    _, out = receive(client, {"jsonrpc": "2.0", "id": 4, "method": "_x/ping", "params": {}})
    assert out == (
        {"jsonrpc": "2.0", "id": 4, "error": {"code": -32601, "message": "Method not found"}},
    )
    after, out = receive(client, {"jsonrpc": "2.0", "method": "_x/note", "params": {}})
    assert out == ()
    assert after == client


def test_2026_11_binds_by_the_result_even_when_the_user_message_arrives_first() -> None:
    client = _sent(new_client(SID, revision=acp.V2_2026_11), 2)
    client = _feed(client, _user("u9"), _result(1, {"messageId": "u9"}))
    assert prompt_message_id(client, 1) == "u9"
    assert prompt_message_id(client, 0) is None
    client = _feed(client, _user("u10"), _result(0, {"messageId": "u10"}))
    assert prompt_message_id(client, 0) == "u10"


def test_a_permission_subject_after_cancel_does_not_undo_the_local_mark() -> None:
    # The subject restates the tool call (T10); it is no new status report (Q19).
    client = step(_working(), SendCancel()).state
    subject = _permission(7, "t1")
    subject["params"]["subject"]["toolCall"]["status"] = "pending"
    client, out = receive(client, subject)
    assert out == (cancelled_wire(7),)
    assert client.view.tool_calls["t1"].status == "cancelled"
    assert client.session.tool_calls["t1"].status == "pending"
    client = _feed(client, _tool("t1", status="in_progress"))  # a reported status wins
    assert client.view.tool_calls["t1"].status == "in_progress"
