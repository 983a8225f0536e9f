"""Hostile request ids (issue 26): a request whose id is not a string or an integer (null, a
boolean, a float, an object), or that reuses the id of a request still pending, is answered
-32600 with `id: null` at receipt, by the bare engines and by both connections; the pending
request of that id stays pending and is answered normally, and the session goes on. An id
whose request was answered may be used again."""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest
from conn_pair import Pair
from pair import prompt_wire, receive

import acp_core as acp
from acp_core import (
    AcceptPrompt,
    AnswerPermission,
    EndTurn,
    PromptRequest,
    Received,
    RequestPermissionRequest,
    StartWork,
    TextContent,
    new_agent,
    new_client,
    step,
)

SID = "sess_1"
ALLOW = (
    acp.PermissionOption("allow", "Allow", "allow_once"),
    acp.PermissionOption("deny", "Deny", "reject_once"),
)
#: The answer every refused request gets: -32600 under `id: null`.
REFUSED = [(None, -32600)]


def _errors(outbound: tuple[dict[str, Any], ...]) -> list[tuple[object, int]]:
    return [(m["id"], m["error"]["code"]) for m in outbound if "error" in m]


def _prompt(request_id: Any) -> PromptRequest:
    # Built in Python: the decoder already refuses booleans, floats and objects as ids.
    return PromptRequest(request_id, SID, (TextContent("hi"),))


def _takes_a_prompt(engine: acp.AgentEngine, request_id: int | str = 99) -> None:
    """The engine still serves: a valid prompt is queued, accepted, answered under its id, and
    the turn ends."""
    engine, out = receive(engine, prompt_wire(request_id))
    assert out == ()
    assert [p.id for p in engine.prompts] == [request_id]
    engine, out = step(engine, AcceptPrompt(request_id))
    assert out[0]["id"] == request_id
    assert "result" in out[0]
    engine = step(engine, EndTurn()).state
    assert engine.prompts == ()
    assert engine.phase == "idle"


# -- the bare agent engine ---------------------------------------------------------------------


@pytest.mark.parametrize("bad_id", [None, True, False, 1.5], ids=["null", "true", "false", "float"])
def test_a_prompt_whose_id_is_not_an_id_is_refused_and_the_engine_goes_on(bad_id: Any) -> None:
    engine, out = step(new_agent(SID), Received(_prompt(bad_id)))
    assert _errors(out) == REFUSED
    assert out[0]["error"]["message"].startswith("Invalid Request: id ")
    assert engine.prompts == ()  # nothing waits: no wedge
    step(engine, StartWork())  # "a received prompt is waiting" before the fix
    _takes_a_prompt(engine)


def test_a_null_id_prompt_from_the_wire_is_refused_by_the_engine() -> None:
    engine, out = receive(new_agent(SID), prompt_wire(None))  # type: ignore[arg-type]
    assert _errors(out) == REFUSED
    assert engine.prompts == ()
    _takes_a_prompt(engine)


def test_an_unknown_request_with_a_null_id_is_refused_not_method_not_found() -> None:
    wire = {"jsonrpc": "2.0", "id": None, "method": "foo/bar", "params": {}}
    engine, out = receive(new_agent(SID), wire)
    assert _errors(out) == REFUSED
    _takes_a_prompt(engine)


@pytest.mark.parametrize(
    "duplicate",
    [
        prompt_wire(7, text="again"),
        {"jsonrpc": "2.0", "id": 7, "method": "foo/bar", "params": {}},
    ],
    ids=["prompt", "unknown-request"],
)
def test_a_request_reusing_a_waiting_prompts_id_is_refused_and_the_prompt_stays(
    duplicate: dict[str, Any],
) -> None:
    engine = receive(new_agent(SID), prompt_wire(7)).state
    engine, out = receive(engine, duplicate)
    assert _errors(out) == REFUSED  # never an answer under 7: that is the waiting prompt's id
    assert "request id 7 is already pending" in out[0]["error"]["message"]
    assert [p.id for p in engine.prompts] == [7]
    assert [v.rule for v in engine.violations] == ["J2"]
    engine, out = step(engine, AcceptPrompt(7))  # the original is answered normally
    assert (out[0]["id"], "result" in out[0]) == (7, True)
    assert [u["params"]["update"]["content"][0]["text"] for u in out[1:2]] == ["hello"]
    engine = step(engine, EndTurn()).state
    _takes_a_prompt(engine)


def test_an_item_cancel_reusing_a_waiting_prompts_id_is_refused() -> None:
    engine = receive(new_agent(SID, revision=acp.V2_2026_11), prompt_wire(7)).state
    cancel = {
        "jsonrpc": "2.0",
        "id": 7,
        "method": "tool_call/cancel",
        "params": {"sessionId": SID, "toolCallId": "t1"},
    }
    engine, out = receive(engine, cancel)
    assert _errors(out) == REFUSED
    assert [p.id for p in engine.prompts] == [7]


def test_an_id_may_be_used_again_once_its_request_was_answered() -> None:
    engine = receive(new_agent(SID), prompt_wire(7)).state
    engine = step(engine, AcceptPrompt(7)).state
    engine = step(engine, EndTurn()).state
    engine, out = receive(engine, prompt_wire(7, text="second"))
    assert out == ()
    assert [p.id for p in engine.prompts] == [7]
    assert engine.violations == ()
    _, out = step(engine, AcceptPrompt(7))
    assert (out[0]["id"], "result" in out[0]) == (7, True)


def test_what_the_engine_sends_after_refusals_passes_the_checker() -> None:
    engine = new_agent(SID)
    trace: list[dict[str, Any]] = []
    for message in (prompt_wire(7), prompt_wire(7, text="dup")):
        trace.append({"from": "client", "message": message})
        engine, out = receive(engine, message)
        trace += [{"from": "agent", "message": m} for m in out]
    engine, out = step(engine, AcceptPrompt(7))
    trace += [{"from": "agent", "message": json.loads(json.dumps(m))} for m in out]
    engine, out = step(engine, EndTurn())
    trace += [{"from": "agent", "message": m} for m in out]
    # The client's reuse is the client's fault (J2); the agent broke nothing.
    assert [v.rule for v in acp.check_trace(trace)] == ["J2"]
    assert [(v.rule, v.index) for v in engine.violations] == [("J2", 1)]


# -- the bare client engine --------------------------------------------------------------------


def _permission_wire(request_id: Any, session_id: str = SID) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "session/request_permission",
        "params": {
            "sessionId": session_id,
            "title": "Allow?",
            "options": [
                {"optionId": "y", "name": "Yes", "kind": "allow_once"},
                {"optionId": "n", "name": "No", "kind": "reject_once"},
            ],
        },
    }


def _permission(request_id: Any) -> RequestPermissionRequest:
    wire = _permission_wire(3)
    decoded = acp.decode_message(wire)
    assert isinstance(decoded, RequestPermissionRequest)
    return attrs.evolve(decoded, id=request_id)


def _client_answers_a_permission(client: acp.ClientEngine, request_id: int = 40) -> None:
    client, out = receive(client, _permission_wire(request_id))
    assert out == ()
    assert list(client.pending) == [request_id]
    _, out = step(client, AnswerPermission(request_id, "y"))
    assert out[0]["id"] == request_id
    assert out[0]["result"]["outcome"] == {"outcome": "selected", "optionId": "y"}


@pytest.mark.parametrize("bad_id", [None, True, 1.5], ids=["null", "true", "float"])
def test_a_permission_request_whose_id_is_not_an_id_is_refused(bad_id: Any) -> None:
    client, out = step(new_client(SID), Received(_permission(bad_id)))
    assert _errors(out) == REFUSED
    assert dict(client.pending) == {}
    _client_answers_a_permission(client)


@pytest.mark.parametrize(
    "duplicate",
    [
        _permission_wire(3),
        {"jsonrpc": "2.0", "id": 3, "method": "fs/read_text_file", "params": {"path": "/a"}},
        {"jsonrpc": "2.0", "id": 3, "method": "terminal/create", "params": {"command": "ls"}},
    ],
    ids=["permission", "fs", "terminal"],
)
def test_a_request_reusing_a_pending_permission_id_is_refused_and_it_stays(
    duplicate: dict[str, Any],
) -> None:
    client = receive(new_client(SID), _permission_wire(3)).state
    client, out = receive(client, duplicate)
    assert _errors(out) == REFUSED  # not -32601 under 3: that would answer the permission
    assert list(client.pending) == [3]
    assert [v.rule for v in client.violations] == ["J2"]
    client, out = step(client, AnswerPermission(3, "y"))
    assert out[0]["id"] == 3
    assert out[0]["result"]["outcome"] == {"outcome": "selected", "optionId": "y"}
    _client_answers_a_permission(client)


def test_a_permission_id_may_be_used_again_once_answered() -> None:
    client = receive(new_client(SID), _permission_wire(3)).state
    client = step(client, AnswerPermission(3, "n")).state
    client, out = receive(client, _permission_wire(3))
    assert out == ()
    assert list(client.pending) == [3]
    assert client.violations == ()


# -- the connections ---------------------------------------------------------------------------


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _turn(pair: Pair, session_id: str) -> None:
    """A whole prompt turn still works on the session."""
    pair.client_says(session_id, acp.SendPrompt((acp.TextContent("still here"),)))
    pair.settle()
    (prompt,) = pair.agent.engine(session_id).prompts
    pair.agent_says(session_id, acp.AcceptPrompt(prompt.id))
    pair.agent_says(session_id, acp.SendAgentText("echo"))
    pair.agent_says(session_id, acp.EndTurn())
    pair.settle()
    assert pair.client.view(session_id) == pair.agent.engine(session_id).session
    assert pair.agent.engine(session_id).phase == "idle"


@pytest.mark.parametrize(
    "bad_id", [None, True, 1.5, {"a": 1}, [7]], ids=["null", "true", "float", "object", "array"]
)
def test_the_agent_connection_refuses_a_prompt_whose_id_is_not_an_id(bad_id: Any) -> None:
    pair = Pair()
    session_id = pair.open()
    step_ = pair.agent_bytes(_line(prompt_wire(bad_id, session_id=session_id)))
    assert _errors(step_.outbound) == REFUSED
    assert not [e for e in step_.events if isinstance(e, acp.PromptReceived)]
    assert pair.agent.engine(session_id).prompts == ()
    assert None not in pair.agent.incoming
    _turn(pair, session_id)


def test_the_agent_connection_refuses_an_extension_request_with_a_null_id() -> None:
    pair = Pair()
    session_id = pair.open()
    step_ = pair.agent_bytes(_line({"jsonrpc": "2.0", "id": None, "method": "_x/do"}))
    assert _errors(step_.outbound) == REFUSED
    assert not [e for e in step_.events if isinstance(e, acp.ExtensionRequest)]
    _turn(pair, session_id)


def test_the_agent_connection_refuses_a_reused_pending_id_under_null() -> None:
    pair = Pair()
    session_id = pair.open()
    pair.agent_bytes(_line(prompt_wire(70, session_id=session_id)))
    step_ = pair.agent_bytes(_line(prompt_wire(70, session_id=session_id, text="dup")))
    assert _errors(step_.outbound) == REFUSED  # an answer under 70 would answer the first
    (held,) = pair.agent.engine(session_id).prompts
    assert held.id == 70
    out = pair.agent_says(session_id, acp.AcceptPrompt(70)).outbound
    assert (out[0]["id"], "result" in out[0]) == (70, True)


def test_the_client_connection_refuses_a_permission_id_pending_in_another_session() -> None:
    pair = Pair()
    first, second = pair.open(), pair.open()
    out = acp.receive_bytes(pair.client, _line(_permission_wire(50, first)))
    pair.client = out.connection
    assert out.outbound == ()
    out = acp.receive_bytes(pair.client, _line(_permission_wire(50, second)))
    pair.client = out.connection
    assert _errors(out.outbound) == REFUSED  # ids are unique per connection
    assert list(pair.client.engine(first).pending) == [50]
    assert list(pair.client.engine(second).pending) == []


def test_the_client_connection_refuses_a_reused_extension_id_under_null() -> None:
    pair = Pair()
    pair.open()
    ext = {"jsonrpc": "2.0", "id": 60, "method": "_x/do", "params": {}}
    out = acp.receive_bytes(pair.client, _line(ext))
    pair.client = out.connection
    assert [type(e) for e in out.events] == [acp.ExtensionRequest]
    out = acp.receive_bytes(pair.client, _line(ext))
    assert _errors(out.outbound) == REFUSED


@pytest.mark.parametrize("bad_id", [None, True, {"a": 1}], ids=["null", "true", "object"])
def test_the_client_connection_refuses_a_permission_whose_id_is_not_an_id(bad_id: Any) -> None:
    pair = Pair()
    session_id = pair.open()
    out = acp.receive_bytes(pair.client, _line(_permission_wire(bad_id, session_id)))
    pair.client = out.connection
    assert _errors(out.outbound) == REFUSED
    assert dict(pair.client.engine(session_id).pending) == {}
    _turn(pair, session_id)


# -- E6: what a peer can leave waiting is bounded ------------------------------------------------


def test_the_agent_connection_holds_at_most_max_peer_requests_and_goes_on() -> None:
    from acp_core._engines._request_ids import MAX_PEER_REQUESTS

    pair = Pair()
    session_id = pair.open()
    # Prompts wait one behind the other (one turn at a time): the peer fills the connection.
    wire = b"".join(
        _line(prompt_wire(1000 + n, session_id=session_id)) for n in range(MAX_PEER_REQUESTS)
    )
    full = pair.agent_bytes(wire)
    assert _errors(full.outbound) == []
    assert len(pair.agent.engine(session_id).prompts) == MAX_PEER_REQUESTS
    step_ = pair.agent_bytes(_line({"jsonrpc": "2.0", "id": "one-more", "method": "_x/do"}))
    assert _errors(step_.outbound) == [("one-more", -32600)]  # under its own id: it is valid
    assert [e.rule for e in step_.events if isinstance(e, acp.Finding)] == ["E6"]
    assert not [e for e in step_.events if isinstance(e, acp.ExtensionRequest)]
    assert "one-more" not in pair.agent.incoming
    # Answering one makes room again.
    pair.agent_says(session_id, acp.AcceptPrompt(1000))
    pair.agent_says(session_id, acp.EndTurn())
    again = pair.agent_bytes(_line({"jsonrpc": "2.0", "id": "one-more", "method": "_x/do"}))
    assert _errors(again.outbound) == []
    assert [type(e) for e in again.events] == [acp.ExtensionRequest]


def test_the_client_connection_counts_every_session_and_the_host() -> None:
    from acp_core._engines._request_ids import MAX_PEER_REQUESTS

    pair = Pair()
    first, second = pair.open(), pair.open()
    half = MAX_PEER_REQUESTS // 2
    wire = b"".join(_line(_permission_wire(n, first)) for n in range(half))
    wire += b"".join(
        _line({"jsonrpc": "2.0", "id": f"x{n}", "method": "_x/do", "params": {}})
        for n in range(MAX_PEER_REQUESTS - half - 1)
    )
    wire += _line(_permission_wire("last", second))
    out = acp.receive_bytes(pair.client, wire)
    pair.client = out.connection
    assert _errors(out.outbound) == []
    out = acp.receive_bytes(pair.client, _line(_permission_wire("over", second)))
    pair.client = out.connection
    assert _errors(out.outbound) == [("over", -32600)]
    assert [e.rule for e in out.events if isinstance(e, acp.Finding)] == ["E6"]
    assert "over" not in pair.client.engine(second).pending
    assert "last" in pair.client.engine(second).pending
