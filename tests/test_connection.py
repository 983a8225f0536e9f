"""Connections, example by example: set-up, routing, ids, errors, resume, close, config.

Every test runs an in-memory pair (tests/conn_pair.py): NDJSON bytes both ways, so framing,
decoding, routing and the engines all take part.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conn_pair import Pair

import acp_core as acp

ALLOW = (acp.PermissionOption("allow", "Allow", "allow_once"),)
SELECT = acp.SessionConfigSelect(
    "mode",
    "Mode",
    "ask",
    (acp.SessionConfigSelectOption("ask", "Ask"), acp.SessionConfigSelectOption("code", "Code")),
)
FLAG = acp.SessionConfigBoolean("fast", "Fast", False)


def _replies(step: acp.ConnectionStep) -> list[dict[str, Any]]:
    return [m for m in step.outbound if "method" not in m]


def _turn(pair: Pair, session_id: str, text: str) -> None:
    pair.client_says(session_id, acp.SendPrompt((acp.TextContent(text),)))
    pair.settle()
    prompt = pair.agent.engine(session_id).prompts[0]
    pair.agent_says(session_id, acp.AcceptPrompt(prompt.id))
    pair.agent_says(session_id, acp.SendAgentText(f"echo {text}"))
    pair.agent_says(session_id, acp.StartToolCall("Tool", f"call-{text}"))
    pair.agent_says(session_id, acp.RequestPermission("Run?", ALLOW, f"call-{text}"))
    pair.settle()
    for request_id in list(pair.client.engine(session_id).pending.keys()):
        pair.client_says(session_id, acp.AnswerPermission(request_id, "allow"))
    pair.settle()
    pair.agent_says(session_id, acp.FinishToolCall(f"call-{text}"))
    pair.agent_says(session_id, acp.EndTurn())
    pair.settle()


# -- initialize -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("requested", "answer"),
    [(2, ("result", 2)), (7, ("result", 2)), (1, ("error", -32022)), ("2", ("error", -32602))],
)
def test_initialize_negotiates_the_version(requested: object, answer: tuple[str, int]) -> None:
    pair = Pair()
    request = {
        "jsonrpc": "2.0",
        "id": 1,
        "method": "initialize",
        "params": {"protocolVersion": requested, "info": {"name": "c", "version": "1"}},
    }
    (reply,) = _replies(pair.agent_bytes(acp.encode_ndjson(request)))
    kind, value = answer
    if kind == "result":
        assert reply["result"]["protocolVersion"] == value
        assert reply["result"]["info"] == {"name": "test-agent", "version": "1.0"}
        assert reply["result"]["capabilities"] == {"session": {}}
        assert pair.agent.protocol_version == value
    else:
        assert reply["error"]["code"] == value
    if value == -32022:
        assert reply["error"]["data"] == {"requested": 1, "supported": [2]}


def test_the_client_records_what_initialize_answered() -> None:
    pair = Pair(capabilities={"session": {"prompt": {"image": {}}}})
    pair.client_do(acp.Initialize())
    pair.settle()
    assert pair.client.protocol_version == 2
    assert acp.thaw_json(pair.client.agent_capabilities) == {"session": {"prompt": {"image": {}}}}
    assert pair.agent.peer_info is not None


# -- sessions and ids -------------------------------------------------------------------------


def test_two_sessions_never_share_a_request_id() -> None:
    pair = Pair()
    first, second = pair.open(), pair.open()
    assert first != second
    for session_id in (first, second):
        pair.client_says(session_id, acp.SendPrompt((acp.TextContent("hi"),)))
    pair.settle()
    prompt_ids = [pair.agent.engine(s).prompts[0].id for s in (first, second)]
    assert len(set(prompt_ids)) == 2
    for session_id in (first, second):
        prompt = pair.agent.engine(session_id).prompts[0]
        pair.agent_says(session_id, acp.AcceptPrompt(prompt.id))
        pair.agent_says(session_id, acp.StartToolCall("T", "c"))
        pair.agent_says(session_id, acp.RequestPermission("Run?", ALLOW, "c"))
    pair.settle()
    asked = [set(pair.client.engine(s).pending.keys()) for s in (first, second)]
    assert asked[0]
    assert asked[1]
    assert not asked[0] & asked[1]
    # the answer to session 2's request reaches session 2 only
    (second_id,) = asked[1]
    pair.client_says(second, acp.AnswerPermission(second_id, "allow"))
    pair.settle()
    assert acp.permission_decision(pair.agent.engine(second), second_id) is not None
    assert pair.agent.engine(first).pending
    assert not pair.agent.engine(second).pending
    assert pair.findings("agent") == pair.findings("client") == []


def test_a_conversation_over_two_sessions_breaks_no_rule_and_views_agree() -> None:
    pair = Pair()
    sessions = [pair.open(), pair.open()]
    for text in ("one", "two"):
        for session_id in sessions:
            _turn(pair, session_id, text)
    for session_id in sessions:
        assert pair.client.view(session_id) == pair.agent.engine(session_id).session
    assert acp.check_trace(pair.agent_trace) == ()
    assert acp.check_trace(pair.client_trace) == ()


def test_session_new_needs_an_absolute_cwd() -> None:
    pair = Pair()
    request = {"jsonrpc": "2.0", "id": 5, "method": "session/new", "params": {"cwd": "rel"}}
    (reply,) = _replies(pair.agent_bytes(acp.encode_ndjson(request)))
    assert reply["error"]["code"] == -32602
    assert pair.agent.sessions == acp.AgentConnection(acp.Implementation("x", "1")).sessions


@pytest.mark.parametrize(
    "method", ["session/prompt", "session/resume", "session/set_config_option", "session/delete"]
)
def test_a_request_for_an_unknown_session_gets_32002(method: str) -> None:
    pair = Pair()
    params = {"sessionId": "nope", "prompt": [], "cwd": "/w", "configId": "x", "type": "id"}
    request = {"jsonrpc": "2.0", "id": 9, "method": method, "params": params}
    (reply,) = _replies(pair.agent_bytes(acp.encode_ndjson(request)))
    assert reply["error"] == {
        "code": -32002,
        "message": "Session not found",
        "data": {"sessionId": "nope"},
    }


def test_a_prompt_with_content_the_agent_does_not_support_is_answered_and_the_session_lives() -> (
    None
):
    pair = Pair()
    session_id = pair.open()
    video = {
        "jsonrpc": "2.0",
        "id": "v",
        "method": "session/prompt",
        "params": {"sessionId": session_id, "prompt": [{"type": "video", "uri": "x"}]},
    }
    image = {
        "jsonrpc": "2.0",
        "id": "i",
        "method": "session/prompt",
        "params": {
            "sessionId": session_id,
            "prompt": [{"type": "image", "data": "AA==", "mimeType": "image/png"}],
        },
    }
    for request in (video, image):
        (reply,) = _replies(pair.agent_bytes(acp.encode_ndjson(request)))
        assert reply["error"]["code"] == -32602  # images need the `image` capability
    assert pair.agent.engine(session_id).prompts == ()
    _turn(pair, session_id, "after")  # the session still works
    assert pair.client.view(session_id) == pair.agent.engine(session_id).session


def test_images_are_accepted_when_advertised() -> None:
    pair = Pair(capabilities={"session": {"prompt": {"image": {}}}})
    session_id = pair.open()
    block = acp.ImageContent("AA==", "image/png")
    pair.client_says(session_id, acp.SendPrompt((block,)))
    pair.settle()
    assert len(pair.agent.engine(session_id).prompts) == 1


def test_unknown_methods_get_32601_and_extensions_go_to_the_host() -> None:
    pair = Pair()
    unknown = {"jsonrpc": "2.0", "id": 1, "method": "nope/nope"}
    (reply,) = _replies(pair.agent_bytes(acp.encode_ndjson(unknown)))
    assert reply["error"]["code"] == -32601
    ext = {"jsonrpc": "2.0", "id": 2, "method": "_x/hello", "params": {"a": 1}}
    step = pair.agent_bytes(acp.encode_ndjson(ext))
    assert step.outbound == ()
    assert step.events == (acp.ExtensionRequest(2, "_x/hello", acp.freeze_json({"a": 1})),)
    answered = pair.agent_do(acp.AnswerRequest(2, acp.freeze_json({"ok": True})))
    assert answered.outbound == ({"jsonrpc": "2.0", "id": 2, "result": {"ok": True}},)
    with pytest.raises(acp.LocalProtocolError):
        pair.agent_do(acp.AnswerRequest(2, None))  # answered once, never twice
    note = {"jsonrpc": "2.0", "method": "_x/note"}
    assert pair.agent_bytes(acp.encode_ndjson(note)).events == (
        acp.ExtensionNotification("_x/note"),
    )
    other = {"jsonrpc": "2.0", "method": "nope/note"}
    step = pair.agent_bytes(acp.encode_ndjson(other))
    assert step.outbound == ()
    assert isinstance(step.events[0], acp.Finding)


def test_list_delete_and_fork_are_typed_requests_for_the_host() -> None:
    pair = Pair()
    session_id = pair.open()
    line = acp.encode_ndjson({"jsonrpc": "2.0", "id": 1, "method": "session/list", "params": {}})
    assert pair.agent_bytes(line).events == (acp.ListSessions(1),)
    delete = {
        "jsonrpc": "2.0",
        "id": 2,
        "method": "session/delete",
        "params": {"sessionId": session_id},
    }
    assert pair.agent_bytes(acp.encode_ndjson(delete)).events == (acp.DeleteSession(2, session_id),)
    step = pair.agent_do(acp.AnswerRequest(2, acp.EMPTY_OBJECT))
    assert step.events == (acp.SessionClosed(session_id),)
    assert session_id not in pair.agent.sessions
    fork = {"jsonrpc": "2.0", "id": 3, "method": "session/fork", "params": {"sessionId": "gone"}}
    (reply,) = _replies(pair.agent_bytes(acp.encode_ndjson(fork)))
    assert reply["error"]["code"] == -32002


def test_cancel_request_withdraws_a_held_prompt_and_a_host_request() -> None:
    pair = Pair()
    session_id = pair.open()
    pair.client_says(session_id, acp.SendPrompt((acp.TextContent("a"),)))
    pair.settle()
    (prompt,) = pair.agent.engine(session_id).prompts
    pair.client_do(acp.CancelRequest(prompt.id))
    pair.settle()
    assert pair.agent.engine(session_id).prompts == ()
    (sent,) = pair.client.engine(session_id).prompts
    assert sent.state == "rejected"
    pair.client_do(acp.SendRequest("_slow/thing"))
    pair.settle()
    (ext,) = [e for e in pair.agent_events if isinstance(e, acp.ExtensionRequest)]
    pair.client_do(acp.CancelRequest(ext.request_id))
    pair.settle()
    assert acp.RequestCancelled(ext.request_id) in pair.agent_events
    (answer,) = [e for e in pair.client_events if isinstance(e, acp.RequestAnswered)][-1:]
    assert answer.error is not None
    assert answer.error["code"] == -32800
    assert pair.agent.incoming == acp.AgentConnection(acp.Implementation("x", "1")).incoming


def test_set_config_option_validates_and_both_sides_keep_the_new_set() -> None:
    pair = Pair(config=(SELECT, FLAG))
    session_id = pair.open()
    assert pair.client.sessions[session_id].config_options == (SELECT, FLAG)
    for config_id, value, ok in [
        ("mode", "code", True),
        ("mode", "nope", False),
        ("fast", True, True),
        ("nope", "x", False),
        ("fast", "yes", False),
    ]:
        pair.client_do(acp.SetConfigOption(session_id, config_id, value))
        pair.settle()
        answer = [e for e in pair.client_events if isinstance(e, acp.RequestAnswered)][-1]
        assert (answer.error is None) == ok, (config_id, value)
    expected = (
        acp.SessionConfigSelect("mode", "Mode", "code", SELECT.options),
        acp.SessionConfigBoolean("fast", "Fast", True),
    )
    assert pair.agent.sessions[session_id].config_options == expected
    assert pair.client.sessions[session_id].config_options == expected


# -- resume ---------------------------------------------------------------------------------------


def _second_client(pair: Pair) -> Pair:
    other = Pair(revision=pair.revision)
    other.agent = pair.agent
    return other


def test_resume_with_replay_rebuilds_the_view_on_a_new_connection() -> None:
    pair = Pair(config=(SELECT,))
    session_id = pair.open()
    _turn(pair, session_id, "one")
    _turn(pair, session_id, "two")
    later = _second_client(pair)
    later.client_do(acp.ResumeSession(session_id, "/work", replay=True))
    assert later.client.replaying(session_id)
    later.settle()
    session = later.client.sessions[session_id]
    assert later.client.replay(session_id) == "complete"
    assert session.engine.view == pair.agent.engine(session_id).session
    assert session.config_options == (SELECT,)
    assert acp.check_trace(later.client_trace) == ()
    # the response came last, after the state snapshot
    methods = [e["message"].get("method") for e in later.agent_trace if e["from"] == "agent"]
    assert methods[-1] is None
    assert methods[-2] == "session/update"
    assert later.agent_trace[-2]["message"]["params"]["update"]["sessionUpdate"] == "state_update"


def test_resume_without_replay_sends_only_the_state_snapshot() -> None:
    pair = Pair()
    session_id = pair.open()
    _turn(pair, session_id, "one")
    later = _second_client(pair)
    later.client_do(acp.ResumeSession(session_id, "/work"))
    later.settle()
    sent = [e["message"] for e in later.agent_trace if e["from"] == "agent"]
    assert [m.get("method") for m in sent] == ["session/update", None]
    assert sent[0]["params"]["update"] == {
        "sessionUpdate": "state_update",
        "state": "idle",
        "stopReason": "end_turn",
    }
    assert later.client.replay(session_id) == "none"


def test_an_unsupported_replay_cursor_is_32602_and_a_failed_replay_is_truncated() -> None:
    pair = Pair()
    session_id = pair.open()
    request = {
        "jsonrpc": "2.0",
        "id": 4,
        "method": "session/resume",
        "params": {"sessionId": session_id, "cwd": "/w", "replayFrom": {"type": "_x"}},
    }
    (reply,) = _replies(pair.agent_bytes(acp.encode_ndjson(request)))
    assert reply["error"]["code"] == -32602
    later = _second_client(pair)
    later.client_do(acp.ResumeSession("unknown", "/work", replay=True))
    later.settle()
    assert later.client.replay("unknown") == "truncated"


def test_a_restored_session_is_served_detached_until_resumed() -> None:
    pair = Pair()
    session_id = pair.open()
    _turn(pair, session_id, "one")
    state = pair.agent.engine(session_id).session
    restarted = Pair()
    restarted.agent_do(acp.OpenSession(session_id, acp.restore(acp.snapshot(state)), "/work"))
    quiet = restarted.agent_says(session_id, acp.PatchSessionInfo(title="kept"))
    assert quiet.outbound == ()  # detached: folded, not sent
    restarted.client_do(acp.ResumeSession(session_id, "/work", replay=True))
    restarted.settle()
    assert restarted.client.view(session_id) == restarted.agent.engine(session_id).session
    assert restarted.client.view(session_id).info.title == "kept"


# -- close --------------------------------------------------------------------------------------


def test_close_of_an_idle_session_answers_at_once_and_stops_its_traffic() -> None:
    pair = Pair()
    session_id = pair.open()
    pair.client_do(acp.CloseSession(session_id))
    pair.settle()
    assert session_id not in pair.client.sessions
    assert acp.SessionClosed(session_id) in pair.agent_events
    assert pair.agent_says(session_id, acp.PatchSessionInfo(title="late")).outbound == ()
    pair.client_do(acp.CloseSession(session_id))  # closing what is not active succeeds
    pair.settle()
    assert [e for e in pair.client_events if isinstance(e, acp.RequestAnswered)][-1].error is None


def test_close_during_a_turn_cancels_it_and_answers_after_the_idle() -> None:
    pair = Pair()
    session_id = pair.open()
    pair.client_says(session_id, acp.SendPrompt((acp.TextContent("a"),)))
    pair.client_says(session_id, acp.SendPrompt((acp.TextContent("b"),)))
    pair.settle()
    first = pair.agent.engine(session_id).prompts[0]
    pair.agent_says(session_id, acp.AcceptPrompt(first.id))
    pair.agent_says(session_id, acp.StartToolCall("T", "c"))
    pair.agent_says(session_id, acp.RequestPermission("Run?", ALLOW, "c"))
    pair.settle()
    pair.client_do(acp.CloseSession(session_id))
    pair.settle()
    assert acp.CloseRequested(session_id) in pair.agent_events
    assert session_id in pair.client.sessions  # not answered yet
    pair.agent_says(session_id, acp.EndTurn())
    pair.settle()
    assert session_id not in pair.client.sessions
    sent = [e["message"] for e in pair.agent_trace if e["from"] == "agent"]
    # the held prompt was cancelled, the permission request withdrawn, idle before the answer
    assert {"code": -32800, "message": "Request cancelled"} in [m.get("error") for m in sent]
    assert any(m.get("method") == "$/cancel_request" for m in sent)
    last_update = [m for m in sent if m.get("method") == "session/update"][-1]
    assert last_update["params"]["update"]["stopReason"] == "cancelled"
    assert sent[-1].get("result") == {}
    assert acp.check_trace(pair.agent_trace) == ()


# -- totality of received input ----------------------------------------------------------------

HOSTILE = [
    b"[" * 100_000 + b"]" * 100_000,
    b'{"jsonrpc":"2.0","id":' + b"9" * 5000 + b',"method":"initialize"}',
    b'[[{"jsonrpc":"2.0","id":1,"method":"initialize"}]]',
    b'{"jsonrpc":"2.0","id":"\\ud800","method":"session/prompt","params":{}}',
    b"null",
    b"\xff\xfe",
    b'{"jsonrpc":"2.0","id":1.5,"method":"x"}',
    b'{"jsonrpc":"2.0","id":{"a":1},"method":"x"}',
    b'{"jsonrpc":"2.0","id":7,"result":{}}',
    b'{"jsonrpc":"2.0","method":"session/cancel","params":{"sessionId":5}}',
    b'{"jsonrpc":"2.0","method":"session/update","params":{}}',
]


@pytest.mark.parametrize("line", HOSTILE, ids=range(len(HOSTILE)))
def test_each_hostile_line_is_answered_or_noted_and_the_session_goes_on(line: bytes) -> None:
    pair = Pair()
    session_id = pair.open()
    step = pair.agent_bytes(line + b"\n")
    for message in step.outbound:
        json.loads(acp.encode_ndjson(message))  # every reply can be written
    assert step.outbound or step.events
    _turn(pair, session_id, "still here")
    assert pair.client.view(session_id) == pair.agent.engine(session_id).session
