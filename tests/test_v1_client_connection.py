"""acp-core's `ClientConnection` over a hand-driven v1 agent: v1 bytes in, v1 bytes out.

What the live tests (tests/test_v1_live_client.py, tests/test_interop_sdk_v1.py) cannot make
a well-behaved SDK agent do: intents with no v1 form, a peer that breaks v1. Each input is a
line of v1 JSON-RPC fed to `receive_bytes`; nothing here needs a process.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import acp_core as acp
from acp_core import connection as c
from acp_core import intents as i
from acp_core import values as v

SID = "sess-v1"


def _feed(conn: c.ClientConnection, message: dict[str, Any] | bytes) -> c.ConnectionStep:
    data = message if isinstance(message, bytes) else json.dumps(message).encode()
    return c.receive_bytes(conn, data + b"\n")


def _opened(capabilities: dict[str, Any] | None = None) -> c.ClientConnection:
    """A connection that negotiated protocol 1 (the agent advertising `capabilities`) and
    opened session `SID`."""
    conn = c.new_client_connection(c.Implementation("hand", "1"), protocols=(2, 1))
    step = c.connection_step(conn, c.Initialize())
    init = {"protocolVersion": 1, "agentCapabilities": capabilities or {}, "authMethods": []}
    conn = _feed(step.connection, {"jsonrpc": "2.0", "id": step.outbound[0]["id"], "result": init})
    conn = conn.connection
    assert conn.protocol_version == 1
    step = c.connection_step(conn, c.NewSession("/tmp"))
    answer = {"jsonrpc": "2.0", "id": step.outbound[0]["id"], "result": {"sessionId": SID}}
    return _feed(step.connection, answer).connection


def _prompted(conn: c.ClientConnection, text: str = "hi") -> tuple[c.ClientConnection, Any]:
    step = c.connection_step(conn, c.SessionIntent(SID, i.SendPrompt((v.TextContent(text),))))
    return step.connection, step.outbound[0]["id"]


def _permission(rid: int) -> dict[str, Any]:
    params = {
        "sessionId": SID,
        "toolCall": {"toolCallId": "t1", "title": "Run", "status": "pending"},
        "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}],
    }
    return {"jsonrpc": "2.0", "id": rid, "method": "session/request_permission", "params": params}


def test_a_cancel_answers_the_open_permission_requests_cancelled_as_v1_asks() -> None:
    # v1: "the client MUST respond to all pending session/request_permission requests with
    # the cancelled outcome" after session/cancel; the agent waits for that before it ends.
    conn, _ = _prompted(_opened())
    step = _feed(conn, _permission(70))
    assert any(type(e) is c.PermissionRequested for e in step.events)
    step = c.connection_step(step.connection, c.SessionIntent(SID, i.SendCancel()))
    assert list(step.outbound) == [
        {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SID}},
        {"jsonrpc": "2.0", "id": 70, "result": {"outcome": {"outcome": "cancelled"}}},
    ]
    assert c.RequestCancelled(70) in step.events
    assert dict(step.connection.engine(SID).pending) == {}
    # answered once: a second cancel sends only the notification
    again = c.connection_step(step.connection, c.SessionIntent(SID, i.SendCancel()))
    assert [m.get("method") for m in again.outbound] == ["session/cancel"]


@pytest.mark.parametrize(
    "intent",
    [c.CloseSession(SID), c.SetConfigOption(SID, "mode", "fast")],
    ids=["close", "config-option"],
)
def test_v2_only_intents_are_refused_on_a_v1_connection_naming_why(intent: object) -> None:
    conn = _opened()
    with pytest.raises(acp.LocalProtocolError) as raised:
        c.connection_step(conn, intent)
    assert raised.value.rule == "E5"
    assert "protocol 1" in str(raised.value)


# -- ResumeSession: v1 session/load (replay) and session/resume, where the agent advertises them


def _chunk(kind: str, text: str) -> dict[str, Any]:
    update = {"sessionUpdate": kind, "content": {"type": "text", "text": text}}
    params = {"sessionId": SID, "update": update}
    return {"jsonrpc": "2.0", "method": "session/update", "params": params}


def _said(conn: c.ClientConnection) -> list[tuple[str, str]]:
    view = conn.view(SID)
    return [
        (view.messages[r.id].role, acp.message_text(view.messages[r.id]))
        for r in view.timeline
        if r.kind == "message"
    ]


def _one_turn(conn: c.ClientConnection) -> c.ClientConnection:
    conn, rid = _prompted(conn, "hi")
    conn = _feed(conn, _chunk("agent_message_chunk", "hello")).connection
    step = _feed(conn, {"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
    assert _said(step.connection) == [("user", "hi"), ("agent", "hello")]
    return step.connection


@pytest.mark.parametrize(
    ("capabilities", "intent", "why"),
    [
        ({}, c.ResumeSession(SID, "/tmp", replay=True), "loadSession"),
        ({"loadSession": False}, c.ResumeSession(SID, "/tmp", replay=True), "loadSession"),
        ({"loadSession": True}, c.ResumeSession(SID, "/tmp"), "sessionCapabilities.resume"),
        (
            {"sessionCapabilities": {"resume": None}},
            c.ResumeSession(SID, "/tmp"),
            "sessionCapabilities.resume",
        ),
    ],
    ids=["load-not-advertised", "load-false", "resume-not-advertised", "resume-null"],
)
def test_a_resume_the_v1_agent_did_not_advertise_is_refused_e5_naming_why(
    capabilities: dict[str, Any], intent: c.ResumeSession, why: str
) -> None:
    conn = _opened(capabilities)
    with pytest.raises(acp.LocalProtocolError) as raised:
        c.connection_step(conn, intent)
    assert raised.value.rule == "E5"
    assert why in str(raised.value)


def test_a_resume_with_replay_is_v1_session_load_and_the_history_folds_into_a_fresh_view() -> None:
    conn = _one_turn(_opened({"loadSession": True}))
    step = c.connection_step(conn, c.ResumeSession(SID, "/work", replay=True))
    (load,) = step.outbound
    rid = load["id"]
    assert load == {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "session/load",
        "params": {"sessionId": SID, "cwd": "/work", "mcpServers": []},
    }
    assert _said(step.connection) == []  # a fresh view: the history comes again
    assert step.connection.replay(SID) == "replaying"
    conn = step.connection
    for message in (
        _chunk("user_message_chunk", "hi"),
        _chunk("agent_message_chunk", "hel"),
        _chunk("agent_message_chunk", "lo"),
    ):
        history = _feed(conn, message)
        assert _findings(history) == []  # history inside the load: no update-after-turn
        conn = history.connection
    step = _feed(conn, {"jsonrpc": "2.0", "id": rid, "result": {}})
    assert c.SessionOpened(SID, resumed=True, request_id=rid) in step.events
    assert _findings(step) == []
    assert step.connection.replay(SID) == "complete"
    assert _said(step.connection) == [("user", "hi"), ("agent", "hello")]  # once, not twice
    assert step.connection.engine(SID).violations == ()
    _goes_on(step.connection)


def test_a_failed_session_load_leaves_the_view_truncated() -> None:
    conn = _one_turn(_opened({"loadSession": True}))
    step = c.connection_step(conn, c.ResumeSession(SID, "/work", replay=True))
    rid = step.outbound[0]["id"]
    conn = _feed(step.connection, _chunk("user_message_chunk", "hi")).connection
    error = {"code": -32002, "message": "Resource not found"}
    step = _feed(conn, {"jsonrpc": "2.0", "id": rid, "error": error})
    assert step.connection.replay(SID) == "truncated"
    assert not any(type(e) is c.SessionOpened for e in step.events)
    assert _said(step.connection) == [("user", "hi")]


def test_a_resume_without_replay_is_v1_session_resume_and_keeps_the_view() -> None:
    conn = _one_turn(_opened({"sessionCapabilities": {"resume": {}}}))
    step = c.connection_step(conn, c.ResumeSession(SID, "/work"))
    (resume,) = step.outbound
    rid = resume["id"]
    assert resume == {
        "jsonrpc": "2.0",
        "id": rid,
        "method": "session/resume",
        "params": {"sessionId": SID, "cwd": "/work", "mcpServers": []},
    }
    step = _feed(step.connection, {"jsonrpc": "2.0", "id": rid, "result": {}})
    assert c.SessionOpened(SID, resumed=True, request_id=rid) in step.events
    assert _findings(step) == []
    assert _said(step.connection) == [("user", "hi"), ("agent", "hello")]
    _goes_on(step.connection)


def test_a_resume_of_an_unknown_session_on_v1_opens_it_from_the_load() -> None:
    # a new connection loading a session an earlier connection opened: no session/new first
    conn = c.new_client_connection(c.Implementation("hand", "1"), protocols=(2, 1))
    step = c.connection_step(conn, c.Initialize())
    init = {"protocolVersion": 1, "agentCapabilities": {"loadSession": True}}
    answer = {"jsonrpc": "2.0", "id": step.outbound[0]["id"], "result": init}
    conn = _feed(step.connection, answer).connection
    step = c.connection_step(conn, c.ResumeSession(SID, "/work", replay=True))
    rid = step.outbound[0]["id"]
    conn = _feed(step.connection, _chunk("user_message_chunk", "earlier")).connection
    conn = _feed(conn, _chunk("agent_message_chunk", "reply")).connection
    step = _feed(conn, {"jsonrpc": "2.0", "id": rid, "result": {}})
    assert c.SessionOpened(SID, resumed=True, request_id=rid) in step.events
    assert _said(step.connection) == [("user", "earlier"), ("agent", "reply")]
    _goes_on(step.connection)


def test_a_resume_carrying_unanswered_prompts_is_refused_on_v1() -> None:
    conn = _opened({"loadSession": True})
    prompt = acp.PromptRequest(7, SID, (v.TextContent("lost"),))
    with pytest.raises(acp.LocalProtocolError) as raised:
        c.connection_step(conn, c.ResumeSession(SID, "/w", replay=True, unanswered=(prompt,)))
    assert raised.value.rule == "E5"
    assert "idempotency key" in str(raised.value)


def test_a_host_s_own_session_resume_request_goes_out_as_given() -> None:
    conn = _opened({"loadSession": True})
    params = {"sessionId": SID, "cwd": "/w", "replayFrom": {"type": "start"}}
    step = c.connection_step(conn, c.SendRequest("session/resume", params))
    (sent,) = step.outbound
    assert (sent["method"], sent["params"]) == ("session/resume", params)


# -- the agent's fs/* and terminal/* requests ---------------------------------------------------


def test_fs_and_terminal_requests_reach_the_host_and_its_answers_go_back_in_v1_shape() -> None:
    conn, _ = _prompted(_opened())
    read = {"sessionId": SID, "path": "/tmp/notes.txt"}
    step = _feed(conn, {"jsonrpc": "2.0", "id": 80, "method": "fs/read_text_file", "params": read})
    assert step.outbound == ()
    assert c.ExtensionRequest(80, "fs/read_text_file", acp.freeze_json(read)) in step.events
    step = c.connection_step(step.connection, c.AnswerRequest(80, {"content": "notes"}))
    assert list(step.outbound) == [{"jsonrpc": "2.0", "id": 80, "result": {"content": "notes"}}]

    create = {"sessionId": SID, "command": "ls", "args": ["-l"], "cwd": "/tmp"}
    step = _feed(
        step.connection,
        {"jsonrpc": "2.0", "id": 81, "method": "terminal/create", "params": create},
    )
    assert c.ExtensionRequest(81, "terminal/create", acp.freeze_json(create)) in step.events
    step = c.connection_step(step.connection, c.AnswerRequest(81, {"terminalId": "term-1"}))
    assert list(step.outbound) == [{"jsonrpc": "2.0", "id": 81, "result": {"terminalId": "term-1"}}]
    # the host's answer is the terminal's record (docs/v1.md): it shows in the view
    terminal = step.connection.view(SID).terminals["term-1"]
    assert terminal.command == "ls -l"
    failed = {"sessionId": SID, "path": "/etc/shadow", "content": "x"}
    step = _feed(
        step.connection,
        {"jsonrpc": "2.0", "id": 82, "method": "fs/write_text_file", "params": failed},
    )
    step = c.connection_step(step.connection, c.FailRequest(82, -32000, "not allowed"))
    (reply,) = step.outbound
    assert reply["id"] == 82
    assert reply["error"]["code"] == -32000


# -- a v1 agent that breaks v1: a finding or an error, and the connection goes on -------------


def _goes_on(conn: c.ClientConnection) -> None:
    conn, rid = _prompted(conn, "still there?")
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "yes"}}
    step = _feed(
        conn,
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": SID, "update": chunk},
        },
    )
    step = _feed(
        step.connection, {"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}}
    )
    assert any(type(e) is c.PromptEnded and e.request_id == rid for e in step.events)
    view = step.connection.view(SID)
    assert acp.message_text(view.messages[view.timeline[-1].id]) == "yes"


def _findings(step: c.ConnectionStep) -> list[str]:
    return [e.rule for e in step.events if type(e) is c.Finding]


def test_an_update_after_the_prompt_result_is_a_finding_and_still_shown() -> None:
    conn, rid = _prompted(_opened())
    step = _feed(conn, {"jsonrpc": "2.0", "id": rid, "result": {"stopReason": "end_turn"}})
    late = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "late"}}
    update = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": SID, "update": late},
    }
    step = _feed(step.connection, update)
    assert _findings(step) == ["v1.update-after-turn"]
    assert step.outbound == ()
    # updates outside a turn that v1 allows (commands) are no finding
    commands = {"sessionUpdate": "available_commands_update", "availableCommands": []}
    quiet = _feed(step.connection, {**update, "params": {"sessionId": SID, "update": commands}})
    assert _findings(quiet) == []
    _goes_on(quiet.connection)


def test_an_update_for_an_unknown_session_is_an_e3_finding_and_dropped() -> None:
    chunk = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}}
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "nobody", "update": chunk},
    }
    step = _feed(_opened(), message)
    assert _findings(step) == ["E3"]
    assert step.outbound == ()
    assert "nobody" not in step.connection.sessions
    _goes_on(step.connection)


def test_an_unparseable_line_is_a_finding_and_the_connection_goes_on() -> None:
    step = _feed(_opened(), b"{not json")
    assert _findings(step) == ["F1"]
    (reply,) = step.outbound
    assert reply["error"]["code"] == -32700
    _goes_on(step.connection)


def test_an_unknown_request_is_answered_method_not_found() -> None:
    step = _feed(_opened(), {"jsonrpc": "2.0", "id": 90, "method": "session/bogus", "params": {}})
    (reply,) = step.outbound
    assert (reply["id"], reply["error"]["code"]) == (90, -32601)
    _goes_on(step.connection)


@pytest.mark.parametrize(
    ("update", "rules"),
    [
        ({"sessionUpdate": "agent_message_chunk", "content": 5}, ["v1.invalid-update"]),
        ({"sessionUpdate": "agent_thought_chunk", "content": {"type": "text"}},
         ["v1.invalid-update"]),
        ({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "ok"}}, []),
    ],
    ids=["content-a-number", "text-without-text", "a-good-chunk"],
)  # fmt: skip
def test_a_v1_agents_malformed_update_is_the_finding_check_v1_trace_names(
    update: dict[str, Any], rules: list[str]
) -> None:
    # The normalizer's diagnostics that break the agent's v1 rules were dropped on the
    # client connection (an update it could not read simply vanished); they are `Finding`s
    # now, the ids `check --protocol 1` reports for the same line.
    conn, _ = _prompted(_opened())
    line = {"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": SID, "update": update}}  # fmt: skip
    checked = [x.rule for x in acp.v1.check_v1_trace([{"from": "agent", "message": line}])]
    assert checked == rules
    step = _feed(conn, line)
    assert _findings(step) == checked
    _goes_on(step.connection)


def test_a_v1_prompt_result_without_a_stop_reason_is_a_finding() -> None:
    conn, rid = _prompted(_opened())
    step = _feed(conn, {"jsonrpc": "2.0", "id": rid, "result": {}})
    assert _findings(step) == ["v1.missing-stop-reason"]
