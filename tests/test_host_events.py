"""Host events: a connection tells its host what happened, matched by the ids its steps return.

Each event fires exactly when it should and not otherwise: `Initialized` (both sides),
`SessionOpened.request_id`, `ConnectionStep.ids`, and on the client `PermissionRequested`,
`ViewChanged`, `PromptEnded` and `RequestCancelled` for a permission that left without the
host's answer. Every test runs an in-memory pair (tests/conn_pair.py): NDJSON both ways.
"""

from __future__ import annotations

import json
from typing import Any, TypeVar

import pytest
from conn_pair import Pair

import acp_core as acp
from acp_core import connection as c
from acp_core import intents as i
from acp_core import values as v

T = TypeVar("T")
ALLOW = (v.PermissionOption("allow", "Allow", "allow_once"),)


def _of(events: list[object] | tuple[object, ...], kind: type[T]) -> list[T]:
    return [e for e in events if isinstance(e, kind)]


def _prompt(pair: Pair, session_id: str, text: str = "hi") -> tuple[Any, Any]:
    """Client sends a prompt, the agent accepts it: (the prompt's id, the agent's prompt id)."""
    step = pair.client_says(session_id, i.SendPrompt((v.TextContent(text),)))
    (request_id,) = step.ids
    pair.settle()
    (held,) = pair.agent.engine(session_id).prompts
    pair.agent_says(session_id, i.AcceptPrompt(held.id))
    pair.settle()
    return request_id, held.id


def _ask(pair: Pair, session_id: str) -> int | str | None:
    """The agent starts a tool call and asks permission for it; the request's id."""
    tool = pair.agent_says(session_id, i.StartToolCall("Tool"))
    (tool_call_id,) = tool.ids
    step = pair.agent_says(session_id, i.RequestPermission("Run?", ALLOW, str(tool_call_id)))
    (request_id,) = step.ids
    assert step.outbound[0]["id"] == request_id
    return request_id


# -- ConnectionStep.ids ------------------------------------------------------------------------


def test_ids_name_the_requests_the_connection_sent_and_still_unpack_as_three() -> None:
    pair = Pair()
    step = pair.client_do(c.Initialize())
    conn, outbound, _events = step  # the 3-tuple unpacking existing hosts use
    assert conn is step.connection
    assert len(step) == 3
    assert step.ids == (outbound[0]["id"],)
    pair.settle()
    new = pair.client_do(c.NewSession("/work"))
    assert new.ids == (new.outbound[0]["id"],)
    assert new.ids != step.ids
    given = pair.client_do(c.SendRequest("_x/ping", request_id="mine"))
    assert given.ids == ()  # an id the host gave is not repeated
    assert given.outbound[0]["id"] == "mine"
    pair.settle()
    # an answer received sends no request of the host's
    assert acp.receive_bytes(pair.client, b"").ids == ()
    with pytest.raises(AttributeError):
        step._ids = ()


def test_ids_on_the_agent_side_name_the_permission_request_and_the_engines_ids() -> None:
    pair = Pair()
    session_id = pair.open()
    _prompt(pair, session_id)
    text = pair.agent_says(session_id, i.SendAgentText("hello"))
    (message_id,) = text.ids
    assert text.outbound[0]["params"]["update"]["messageId"] == message_id
    request_id = _ask(pair, session_id)
    pair.settle()
    (asked,) = _of(pair.client_events, c.PermissionRequested)
    assert asked.request_id == request_id


# -- Initialized -------------------------------------------------------------------------------


def test_initialized_fires_once_on_each_side_when_initialize_succeeds() -> None:
    pair = Pair()
    step = pair.client_do(c.Initialize())
    assert _of(step.events, c.Initialized) == []
    pair.deliver_to_agent()
    (agent_side,) = _of(pair.agent_events, c.Initialized)
    info = pair.agent.peer_info
    assert info is not None
    assert info["name"] == "test-client"
    assert agent_side == c.Initialized(2, info, v.EMPTY_OBJECT, step.ids[0])
    assert _of(pair.client_events, c.Initialized) == []
    pair.deliver_to_client()
    (client_side,) = _of(pair.client_events, c.Initialized)
    assert client_side.protocol_version == 2
    assert client_side.peer_info is not None
    assert client_side.peer_info["name"] == "test-agent"
    assert client_side.request_id == step.ids[0]
    assert client_side.peer_capabilities == pair.client.agent_capabilities
    pair.open()
    assert len(_of(pair.client_events, c.Initialized)) == 1
    assert len(_of(pair.agent_events, c.Initialized)) == 1


@pytest.mark.parametrize("version", [1, "2"])
def test_no_initialized_when_initialize_fails(version: object) -> None:
    pair = Pair()
    params = {"protocolVersion": version, "info": {"name": "x", "version": "1"}}
    line = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": params}
    step = acp.receive_bytes(pair.agent, json.dumps(line).encode() + b"\n")
    assert "error" in step.outbound[0]
    assert _of(step.events, c.Initialized) == []
    pair.client_do(c.Initialize())
    error = {"jsonrpc": "2.0", "id": 0, "error": {"code": -32022, "message": "no"}}
    answered = acp.receive_bytes(pair.client, json.dumps(error).encode() + b"\n")
    assert _of(answered.events, c.Initialized) == []
    assert len(_of(answered.events, c.RequestAnswered)) == 1


# -- SessionOpened matched to its request -------------------------------------------------------


def test_session_opened_carries_the_id_of_the_request_that_opened_it() -> None:
    pair = Pair()
    pair.client_do(c.Initialize())
    pair.settle()
    first = pair.client_do(c.NewSession("/a"))
    second = pair.client_do(c.NewSession("/b"))
    pair.settle()
    opened = _of(pair.client_events, c.SessionOpened)
    assert [e.request_id for e in opened] == [*first.ids, *second.ids]
    assert [e.request_id for e in _of(pair.agent_events, c.SessionOpened)] == [
        *first.ids,
        *second.ids,
    ]
    session_id = opened[0].session_id
    later = Pair()
    later.agent = pair.agent
    resume = later.client_do(c.ResumeSession(session_id, "/a", replay=True))
    later.settle()
    (reopened,) = _of(later.client_events, c.SessionOpened)
    assert reopened == c.SessionOpened(session_id, resumed=True, request_id=resume.ids[0])


# -- PermissionRequested -------------------------------------------------------------------------


def test_permission_requested_fires_once_when_the_agent_asks_and_not_for_the_answer() -> None:
    pair = Pair()
    session_id = pair.open()
    _prompt(pair, session_id)
    assert _of(pair.client_events, c.PermissionRequested) == []
    request_id = _ask(pair, session_id)
    pair.settle()
    (asked,) = _of(pair.client_events, c.PermissionRequested)
    assert asked.session_id == session_id
    assert asked.request_id == request_id
    assert asked.request == pair.client.engine(session_id).pending[request_id]
    answered = pair.client_says(session_id, i.AnswerPermission(request_id, "allow"))
    assert _of(answered.events, c.PermissionRequested) == []
    assert _of(answered.events, c.RequestCancelled) == []  # the host's own answer
    pair.settle()
    assert len(_of(pair.client_events, c.PermissionRequested)) == 1


@pytest.mark.parametrize(("option", "approved"), [("allow", True), ("reject", False)])
def test_permission_answered_tells_the_agent_host_the_decision_by_its_id(
    option: str, approved: bool
) -> None:
    pair = Pair()
    session_id = pair.open()
    _prompt(pair, session_id)
    options = (*ALLOW, v.PermissionOption("reject", "Reject", "reject_once"))
    tool = pair.agent_says(session_id, i.StartToolCall("Tool"))
    step = pair.agent_says(session_id, i.RequestPermission("Run?", options, str(tool.ids[0])))
    (request_id,) = step.ids
    assert _of(step.events, c.PermissionAnswered) == []
    pair.settle()
    assert _of(pair.agent_events, c.PermissionAnswered) == []  # asked, not yet answered
    pair.client_says(session_id, i.AnswerPermission(request_id, option))
    pair.settle()
    (answered,) = _of(pair.agent_events, c.PermissionAnswered)
    assert (answered.session_id, answered.request_id) == (session_id, request_id)
    assert answered.decision.approved is approved
    assert answered.decision.option_id == option
    assert answered.decision == acp.permission_decision(pair.agent.engine(session_id), request_id)


def test_a_late_answer_to_a_withdrawn_permission_still_tells_the_agent_host() -> None:
    pair = Pair(revision=acp.V2_PREVIEW)
    session_id = pair.open()
    _prompt(pair, session_id)
    request_id = _ask(pair, session_id)
    while pair.deliver_to_client():  # the client holds the request
        pass
    pair.agent_says(session_id, i.CancelPermission(request_id))
    assert _of(pair.agent_events, c.PermissionAnswered) == []
    pair.client_says(session_id, i.AnswerPermission(request_id, "allow"))  # crossed the withdrawal
    pair.settle()
    answers = _of(pair.agent_events, c.PermissionAnswered)
    assert [a.request_id for a in answers] == [request_id]


def test_a_permission_the_agent_withdraws_is_reported_cancelled() -> None:
    pair = Pair(revision=acp.V2_PREVIEW)  # C40: open over a cancel; the agent withdraws (R71)
    session_id = pair.open()
    _prompt(pair, session_id)
    request_id = _ask(pair, session_id)
    pair.settle()
    cancel = pair.client_says(session_id, i.SendCancel())
    assert _of(cancel.events, c.RequestCancelled) == []  # still open (C40)
    pair.settle()
    assert _of(pair.client_events, c.RequestCancelled) == [c.RequestCancelled(request_id)]
    assert request_id not in pair.client.engine(session_id).pending


def test_a_withdrawn_permission_is_reported_at_every_revision() -> None:
    pair = Pair(revision=acp.V2_2026_11)
    session_id = pair.open()
    _prompt(pair, session_id)
    request_id = _ask(pair, session_id)
    other = _ask(pair, session_id)
    pair.settle()
    line = {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": request_id}}
    step = acp.receive_bytes(pair.client, json.dumps(line).encode() + b"\n")
    assert _of(step.events, c.RequestCancelled) == [c.RequestCancelled(request_id)]
    assert other in step.connection.engine(session_id).pending


def test_a_permission_the_client_answers_itself_fires_no_request_event() -> None:
    pair = Pair(revision=acp.V2_2026_08)  # C15: the client answers `cancelled` after a cancel
    session_id = pair.open()
    _prompt(pair, session_id)
    first = _ask(pair, session_id)
    pair.settle()
    step = pair.client_says(session_id, i.SendCancel())
    assert _of(step.events, c.RequestCancelled) == [c.RequestCancelled(first)]
    pair.deliver_to_agent()
    late = _ask(pair, session_id)  # arrives before the idle: answered at once (C15)
    pair.settle()
    assert late not in pair.client.engine(session_id).pending
    assert [e.request_id for e in _of(pair.client_events, c.PermissionRequested)] == [first]


# -- ViewChanged ----------------------------------------------------------------------------------


def _deliver(pair: Pair) -> acp.ConnectionStep:
    """Feed the client the next line the agent sent; that step."""
    step = acp.receive_bytes(pair.client, pair.to_client.popleft())
    pair.client = step.connection
    pair.client_events.extend(step.events)
    pair._sent("client", step.outbound)
    return step


def test_view_changed_fires_exactly_when_the_view_is_a_new_value() -> None:
    pair = Pair()
    session_id = pair.open()
    _prompt(pair, session_id)
    for intent in (
        i.SendAgentText("hello"),
        i.StartToolCall("Tool", "call-1"),
        i.RequestPermission("Run?", ALLOW, "call-1"),  # the subject changes nothing (T10)
        i.FinishToolCall("call-1"),
        i.EndTurn(),
    ):
        pair.agent_says(session_id, intent)
    seen = {True: 0, False: 0}
    while pair.to_client:
        before = pair.client.view(session_id)
        step = _deliver(pair)
        changed = step.connection.view(session_id) is not before
        seen[changed] += 1
        assert len(_of(step.events, c.ViewChanged)) == int(changed)
    assert seen[True] >= 4
    assert seen[False] >= 1


def test_view_changed_names_the_update_and_skips_steps_that_change_nothing() -> None:
    pair = Pair()
    session_id = pair.open()
    _prompt(pair, session_id)
    pair.client_events.clear()
    pair.agent_says(session_id, i.SendAgentText("hello"))
    pair.agent_says(session_id, i.StartToolCall("Tool", "call-1"))
    pair.settle()
    changes = _of(pair.client_events, c.ViewChanged)
    assert [type(e.update) for e in changes] == [v.AgentMessageChunk, v.ToolCallUpdate]
    assert all(e.session_id == session_id for e in changes)
    pair.client_events.clear()
    # The permission's tool call is what the view shows already: no ViewChanged for it, but
    # the `requires_action` that follows does change the view.
    pair.agent_says(session_id, i.RequestPermission("Run?", ALLOW, "call-1"))
    first = pair.to_client.popleft()
    view = pair.client.view(session_id)
    step = acp.receive_bytes(pair.client, first)
    pair.client = step.connection
    assert _of(step.events, c.PermissionRequested)
    assert step.connection.view(session_id) is view
    assert _of(step.events, c.ViewChanged) == []
    pair.settle()
    (state,) = _of(pair.client_events, c.ViewChanged)
    assert pair.client.view(session_id).foreground.state == "requires_action"
    assert state.update is not None


def test_the_clients_own_cancel_marks_are_a_view_change_without_an_update() -> None:
    pair = Pair()
    session_id = pair.open()
    _prompt(pair, session_id)
    pair.agent_says(session_id, i.StartToolCall("Tool", "call-1"))
    pair.settle()
    step = pair.client_says(session_id, i.SendCancel())
    assert _of(step.events, c.ViewChanged) == [c.ViewChanged(session_id, None)]
    assert step.connection.view(session_id).tool_calls["call-1"].status == "cancelled"
    # A cancel with nothing to mark changes no view.
    idle = Pair()
    other = idle.open()
    assert _of(idle.client_says(other, i.SendCancel()).events, c.ViewChanged) == []


def test_a_finding_changes_no_view() -> None:
    pair = Pair()
    session_id = pair.open()
    chunk = {"type": "text", "text": "x"}
    update = {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": chunk}
    params = {"sessionId": "nope", "update": update}
    line = {"jsonrpc": "2.0", "method": "session/update", "params": params}
    step = acp.receive_bytes(pair.client, json.dumps(line).encode() + b"\n")
    assert _of(step.events, c.Finding)
    assert _of(step.events, c.ViewChanged) == []
    assert step.connection.view(session_id) is pair.client.view(session_id)


# -- PromptEnded ---------------------------------------------------------------------------------


def test_prompt_ended_fires_once_at_the_idle_that_ends_its_work() -> None:
    pair = Pair()
    session_id = pair.open()
    request_id, _ = _prompt(pair, session_id)  # accepted: answered, but its work runs
    assert _of(pair.client_events, c.PromptEnded) == []
    pair.agent_says(session_id, i.SendAgentText("hello"))
    pair.settle()
    assert _of(pair.client_events, c.PromptEnded) == []
    pair.agent_says(session_id, i.EndTurn())
    pair.settle()
    assert _of(pair.client_events, c.PromptEnded) == [
        c.PromptEnded(session_id, request_id, "end_turn")
    ]
    second, _ = _prompt(pair, session_id)
    assert second != request_id
    pair.client_says(session_id, i.SendCancel())
    pair.settle()
    pair.agent_says(session_id, i.EndTurn("cancelled"))
    pair.settle()
    ended = _of(pair.client_events, c.PromptEnded)
    assert ended == [
        c.PromptEnded(session_id, request_id, "end_turn"),
        c.PromptEnded(session_id, second, "cancelled"),
    ]


def test_a_rejected_prompt_ends_with_its_error() -> None:
    pair = Pair()
    session_id = pair.open()
    step = pair.client_says(session_id, i.SendPrompt((v.TextContent("no"),)))
    (request_id,) = step.ids
    pair.settle()
    (held,) = pair.agent.engine(session_id).prompts
    pair.agent_says(session_id, i.RejectPrompt(held.id, "refused", -32603))
    pair.settle()
    (ended,) = _of(pair.client_events, c.PromptEnded)
    assert ended.request_id == request_id
    assert ended.stop_reason is None
    assert ended.error is not None
    assert ended.error["code"] == -32603
    assert ended.error["message"] == "refused"
    assert pair.client.sessions[session_id].open_prompts == ()


def test_an_agent_started_turn_ends_no_prompt_of_the_host() -> None:
    pair = Pair()
    session_id = pair.open()
    pair.agent_says(session_id, i.StartWork())
    pair.agent_says(session_id, i.SendAgentText("unprompted"))
    pair.agent_says(session_id, i.EndTurn())
    pair.settle()
    assert _of(pair.client_events, c.PromptEnded) == []
    assert _of(pair.client_events, c.ViewChanged)
