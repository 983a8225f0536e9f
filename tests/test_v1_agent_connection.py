"""The agent connection serving a v1 client, sans-IO: the negotiation at `initialize`, v1
requests into the same engine events, and the v2 -> v1 projection of what the engines emit
(docs/v1.md, "Serving a v1 client"), each lossy step a `Finding`."""

from __future__ import annotations

from typing import Any

import pytest

import acp_core as acp
from acp_core import connection as c
from acp_core import intents as i
from acp_core import values as v
from acp_core._engines._connection_agent_state import Build
from acp_core._engines._connection_agent_v1 import v1_project

INFO = c.Implementation("v1-agent-test", "1")
SID = "sess_1"


def _req(rid: int, method: str, params: dict[str, Any]) -> acp.Parsed:
    return acp.Parsed({"jsonrpc": "2.0", "id": rid, "method": method, "params": params})


def _v1_init(protocols: tuple[int, ...] = (2, 1)) -> c.ConnectionStep:
    conn = c.new_agent_connection(INFO, protocols=protocols)
    params = {
        "protocolVersion": 1,
        "clientCapabilities": {},
        "clientInfo": {"name": "z", "version": "1"},
    }
    return c.connection_step(conn, _req(0, "initialize", params))


def _step(conn: c.AgentConnection, input: object) -> c.ConnectionStep:
    return c.connection_step(conn, input)


def _do(conn: c.AgentConnection, intent: object) -> c.ConnectionStep:
    return c.connection_step(conn, c.SessionIntent(SID, intent))


def _in_prompt() -> c.AgentConnection:
    """A v1 connection with one session and an accepted v1 prompt (request id 2)."""
    conn = _v1_init().connection
    conn = _step(conn, _req(1, "session/new", {"cwd": "/tmp", "mcpServers": []})).connection
    prompt = {"sessionId": SID, "prompt": [{"type": "text", "text": "hello v1"}]}
    step = _step(conn, _req(2, "session/prompt", prompt))
    assert [type(e) for e in step.events] == [c.PromptReceived]
    step = _do(step.connection, acp.AcceptPrompt(2))
    # The receipt is held (v1 answers a prompt at the turn's end); the user message and
    # `running` are implied by the prompt request itself: nothing goes out, nothing is lost.
    assert step.outbound == ()
    assert step.events == ()
    return step.connection


def _updates(step: c.ConnectionStep) -> list[Any]:
    assert all(m.get("method") == "session/update" for m in step.outbound), step.outbound
    return [m["params"]["update"] for m in step.outbound]


def _rules(step: c.ConnectionStep) -> set[str]:
    return {e.rule for e in step.events if isinstance(e, c.Finding)}


# -- negotiation -----------------------------------------------------------------------------


def test_a_v1_initialize_is_answered_1_in_the_v1_shape() -> None:
    step = _v1_init()
    (reply,) = step.outbound
    assert reply == {
        "jsonrpc": "2.0",
        "id": 0,
        "result": {
            "protocolVersion": 1,
            "agentCapabilities": {"loadSession": True},
            "authMethods": [],
            "agentInfo": {"name": "v1-agent-test", "version": "1"},
        },
    }
    assert step.connection.protocol_version == 1
    assert step.connection.v1 is not None
    (init,) = step.events
    assert isinstance(init, c.Initialized)
    assert init.protocol_version == 1
    assert init.peer_info is not None
    assert init.peer_info["name"] == "z"


def test_prompt_capabilities_are_advertised_under_their_v1_names() -> None:
    caps = {"session": {"prompt": {"image": {}}}, "fancy": {}}
    conn = c.new_agent_connection(INFO, capabilities=caps, protocols=(2, 1))
    step = _step(conn, _req(0, "initialize", {"protocolVersion": 1}))
    result = step.outbound[0]["result"]
    assert result["agentCapabilities"] == {
        "loadSession": True,
        "promptCapabilities": {"image": True, "audio": False, "embeddedContext": False},
    }
    assert _rules(step) == {"v1.dropped-capability"}  # `fancy` has no v1 form


def test_a_host_allowing_1_still_answers_a_v2_client_in_v2() -> None:
    conn = c.new_agent_connection(INFO, protocols=(2, 1))
    params = {"protocolVersion": 2, "info": {"name": "z", "version": "1"}}
    step = _step(conn, _req(0, "initialize", params))
    assert step.outbound[0]["result"]["protocolVersion"] == 2
    assert "info" in step.outbound[0]["result"]
    assert step.connection.v1 is None


def test_a_v2_only_host_refuses_a_v1_client_and_serves_nothing_else() -> None:
    step = _v1_init(protocols=(2,))
    (reply,) = step.outbound
    assert reply["error"]["code"] == -32022
    assert reply["error"]["data"] == {"requested": 1, "supported": [2]}
    conn = step.connection
    assert conn.protocol_version is None
    assert conn.v1 is None
    # No half-open connection: a session request after the refusal is refused too ...
    step = _step(conn, _req(1, "session/new", {"cwd": "/tmp", "mcpServers": []}))
    (reply,) = step.outbound
    assert reply["id"] == 1
    assert reply["error"]["code"] == -32022
    assert step.connection.sessions == conn.sessions
    # ... a notification is a finding, and a v2 initialize afterwards opens the connection.
    cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SID}}
    assert _rules(_step(conn, acp.Parsed(cancel))) == {"E5"}
    v2 = {"protocolVersion": 2, "info": {"name": "z", "version": "1"}}
    conn = _step(conn, _req(2, "initialize", v2)).connection
    assert conn.protocol_version == 2
    step = _step(conn, _req(3, "session/new", {"cwd": "/tmp"}))
    assert step.outbound[0]["result"] == {"sessionId": SID}


def test_the_default_allows_v2_only_and_protocols_are_checked() -> None:
    assert c.new_agent_connection(INFO).protocols == (2,)
    for bad in ((), (3,), [2, 1]):
        with pytest.raises(acp.ArgumentError):
            c.new_agent_connection(INFO, protocols=bad)  # type: ignore[arg-type]


# -- inbound -----------------------------------------------------------------------------------


def test_a_v1_prompt_reaches_the_engine_with_a_deterministic_message_id() -> None:
    a, b = _in_prompt(), _in_prompt()
    assert a.engine(SID).session == b.engine(SID).session  # same input, same ids
    ((message_id, message),) = a.engine(SID).session.messages.items()
    assert message.role == "user"
    assert message_id == "user-1"


def test_cancel_and_the_stop_reason_of_a_cancelled_turn() -> None:
    conn = _in_prompt()
    cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SID}}
    step = _step(conn, acp.Parsed(cancel))
    assert step.events == (c.CancelReceived(SID, ()),)
    assert step.outbound == ()
    step = _do(step.connection, acp.EndTurn())
    assert step.outbound == ({"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "cancelled"}},)


# -- outbound: the projection table ----------------------------------------------------------

TEXT = acp.TextContent

PROJECTED = [
    (
        acp.SendAgentText("hi"),
        [{"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "hi"}}],
        {"v1.dropped-field"},  # messageId
    ),
    (
        acp.SendThought("hm"),
        [{"sessionUpdate": "agent_thought_chunk", "content": {"type": "text", "text": "hm"}}],
        {"v1.dropped-field"},
    ),
    (
        acp.SendAgentMessage((TEXT("whole"),)),
        [{"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "whole"}}],
        {"v1.upsert-as-chunks"},
    ),
    (
        acp.ReportUserMessage((TEXT("queued"),)),
        [{"sessionUpdate": "user_message_chunk", "content": {"type": "text", "text": "queued"}}],
        {"v1.upsert-as-chunks"},
    ),
    (
        acp.StartToolCall("Read", "t1", kind="read"),
        [
            {
                "sessionUpdate": "tool_call",
                "toolCallId": "t1",
                "title": "Read",
                "kind": "read",
                "status": "pending",
            }
        ],
        set(),
    ),
    (
        acp.ReportPlan(entries=(acp.PlanEntry("step one", "high", "pending"),), plan_id="main"),
        [
            {
                "sessionUpdate": "plan",
                "entries": [{"content": "step one", "priority": "high", "status": "pending"}],
            }
        ],
        set(),
    ),
    (
        acp.ReportPlan(entries=(acp.PlanEntry("a", "low", "completed"),)),  # planId "plan-1"
        [
            {
                "sessionUpdate": "plan",
                "entries": [{"content": "a", "priority": "low", "status": "completed"}],
            }
        ],
        {"v1.dropped-field"},
    ),
    (
        acp.ReportUsage(used=5, size=100),
        [{"sessionUpdate": "usage_update", "used": 5, "size": 100}],
        set(),
    ),
    (
        acp.PatchSessionInfo(title="Notes"),
        [{"sessionUpdate": "session_info_update", "title": "Notes"}],
        set(),
    ),
]


@pytest.mark.parametrize(("intent", "v1", "rules"), PROJECTED, ids=lambda x: type(x).__name__)
def test_each_update_kind_is_projected(intent: object, v1: list[Any], rules: set[str]) -> None:
    step = _do(_in_prompt(), intent)
    assert _updates(step) == v1
    assert _rules(step) == rules


def test_a_repeated_drop_is_reported_once_per_session() -> None:
    conn = _in_prompt()
    step = _do(conn, acp.SendAgentText("a"))
    assert _rules(step) == {"v1.dropped-field"}
    step = _do(step.connection, acp.SendAgentText("b"))
    assert _updates(step) == [
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "b"}}
    ]
    assert step.events == ()


def test_a_tool_call_is_tool_call_then_updates_with_the_whole_content() -> None:
    conn = _do(_in_prompt(), acp.StartToolCall("Echo", "t1")).connection
    a = acp.ToolContent(TEXT("a"))
    b = acp.ToolContent(TEXT("b"))
    wire_a = {"type": "content", "content": {"type": "text", "text": "a"}}
    wire_b = {"type": "content", "content": {"type": "text", "text": "b"}}
    step = _do(conn, acp.SendToolContent("t1", a))
    assert _updates(step) == [
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "content": [wire_a]}
    ]
    step = _do(step.connection, acp.SendToolContent("t1", b))
    # v2 appends; v1 replaces the list, so the whole list goes out
    assert _updates(step) == [
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "content": [wire_a, wire_b]}
    ]
    step = _do(step.connection, acp.FinishToolCall("t1"))
    assert _updates(step) == [
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"}
    ]
    assert step.events == ()


def test_the_turn_end_is_the_prompt_result_and_no_state_update_goes_out() -> None:
    step = _do(_in_prompt(), acp.EndTurn())
    assert step.outbound == ({"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}},)
    assert step.events == ()
    # a second prompt on the same session: its own held receipt, its own result
    prompt = {"sessionId": SID, "prompt": [{"type": "text", "text": "again"}]}
    conn = _step(step.connection, _req(3, "session/prompt", prompt)).connection
    conn = _do(conn, acp.AcceptPrompt(3)).connection
    conn = _do(conn, acp.SendAgentText("x")).connection
    step = _do(conn, acp.EndTurn())
    assert step.outbound == ({"jsonrpc": "2.0", "id": 3, "result": {"stopReason": "end_turn"}},)


def test_state_outside_a_v1_prompt_is_dropped_with_a_finding() -> None:
    conn = _do(_in_prompt(), acp.EndTurn()).connection
    step = _do(conn, acp.StartWork())
    assert step.outbound == ()
    assert _rules(step) == {"v1.dropped-state"}
    step = _do(step.connection, acp.EndTurn())
    assert step.outbound == ()
    assert _rules(step) == {"v1.dropped-state"}


def test_a_permission_request_and_its_answer_in_the_v1_shape() -> None:
    conn = _do(_in_prompt(), acp.StartToolCall("Write notes", "t1", kind="edit")).connection
    options = (acp.PermissionOption("allow", "Allow", "allow_once"),)
    step = _do(conn, acp.RequestPermission("Write?", options, "t1"))
    (rid,) = step.ids
    assert step.outbound == (
        {
            "jsonrpc": "2.0",
            "id": rid,
            "method": "session/request_permission",
            "params": {
                "sessionId": SID,
                "toolCall": {
                    "toolCallId": "t1",
                    "title": "Write notes",
                    "kind": "edit",
                    "status": "pending",
                },
                "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}],
            },
        },
    )
    assert _rules(step) == {"v1.dropped-field"}  # the v2 title and subject
    answer = {"outcome": {"outcome": "selected", "optionId": "allow"}}
    step = _step(step.connection, acp.Parsed({"jsonrpc": "2.0", "id": rid, "result": answer}))
    (answered,) = [e for e in step.events if isinstance(e, c.PermissionAnswered)]
    assert answered.request_id == rid
    assert answered.decision.approved
    assert "state_update" not in str(step.outbound)


def test_a_withdrawn_permission_request_is_a_finding() -> None:
    conn = _do(_in_prompt(), acp.StartToolCall("Write", "t1")).connection
    options = (acp.PermissionOption("allow", "Allow", "allow_once"),)
    step = _do(conn, acp.RequestPermission("Write?", options, "t1"))
    (rid,) = step.ids
    step = _do(step.connection, acp.CancelPermission(rid))
    assert "$/cancel_request" not in str(step.outbound)
    assert "v1.dropped-cancel-request" in _rules(step)


def _projected(wire: list[dict[str, Any]]) -> tuple[list[dict[str, Any]], set[str]]:
    b = Build(_in_prompt())
    b.wire.extend(wire)
    v1_project(b, 0)
    return b.wire, {e.rule for e in b.events}


def _update(session_id: str, update: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session_id, "update": update},
    }


@pytest.mark.parametrize(
    ("message", "rule"),
    [
        (_update("child-1", {"sessionUpdate": "agent_message_chunk"}), "v1.dropped-child"),
        (_update(SID, {"sessionUpdate": "subagent_update", "sessionId": "c"}), "v1.dropped-update"),
        (_update(SID, {"sessionUpdate": "session_message", "messageId": "m"}), "v1.dropped-update"),
        (
            _update(SID, {"sessionUpdate": "terminal_update", "terminalId": "t"}),
            "v1.dropped-update",
        ),
        (
            {"jsonrpc": "2.0", "id": 9, "method": "session/elicitation", "params": {}},
            "v1.dropped-request",
        ),
        (
            {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 9}},
            "v1.dropped-cancel-request",
        ),
    ],
    ids=["child", "subagent", "session-message", "terminal", "request", "cancel-request"],
)
def test_what_v1_has_no_form_for_is_dropped_with_a_finding(message: Any, rule: str) -> None:
    wire, rules = _projected([message])
    assert wire == []
    assert rules == {rule}


def test_an_unknown_v2_stop_reason_becomes_end_turn_with_a_finding() -> None:
    wire, rules = _projected(
        [_update(SID, {"sessionUpdate": "state_update", "state": "idle", "stopReason": "error"})]
    )
    assert wire == [{"jsonrpc": "2.0", "id": 2, "result": {"stopReason": "end_turn"}}]
    assert rules == {"v1.stop-reason"}


def test_a_cancelled_tool_call_goes_to_a_v1_client_as_failed_with_a_finding() -> None:
    # v1's ToolCallStatus is pending | in_progress | completed | failed (the Python SDK 0.12.1
    # and the TypeScript SDK 2.4.0 both): a v2 `cancelled` would break a strict v1 client.
    start = {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "title": "Run"}
    cancelled = {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "cancelled"}
    wire, rules = _projected([_update(SID, start), _update(SID, cancelled)])
    sent = [m["params"]["update"] for m in wire]
    assert sent == [
        {"sessionUpdate": "tool_call", "toolCallId": "t1", "title": "Run"},
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "failed"},
    ]
    assert rules == {"v1.tool-status"}


def test_a_v2_connection_is_not_projected() -> None:
    conn = c.new_agent_connection(INFO, protocols=(2, 1))
    conn = _step(
        conn, _req(0, "initialize", {"protocolVersion": 2, "info": INFO.to_wire()})
    ).connection
    conn = _step(conn, _req(1, "session/new", {"cwd": "/tmp"})).connection
    prompt = {"sessionId": SID, "prompt": [{"type": "text", "text": "v2"}]}
    conn = _step(conn, _req(2, "session/prompt", prompt)).connection
    step = _do(conn, acp.AcceptPrompt(2))
    assert step.outbound[0]["id"] == 2
    assert "stopReason" not in step.outbound[0]["result"]
    assert any("state_update" in str(m) for m in step.outbound)


def test_a_v2_initialize_after_v1_switches_the_connection_back_to_v2() -> None:
    conn = _v1_init().connection
    v2 = {"protocolVersion": 2, "info": {"name": "z", "version": "1"}}
    step = _step(conn, _req(5, "initialize", v2))
    assert step.outbound[0]["result"]["protocolVersion"] == 2
    assert step.connection.protocol_version == 2
    assert step.connection.v1 is None


# -- session/load: the v2 resume machinery, replayed in v1 shapes ------------------------------


def _a_turn() -> c.AgentConnection:
    """`_in_prompt`, then a reply, a finished tool call and a closing reply, ended."""
    conn = _in_prompt()
    for intent in (
        acp.SendAgentText("Let me look."),
        acp.StartToolCall("Read", "t1", kind="read"),
        acp.FinishToolCall("t1"),
        acp.SendAgentText("Done."),
        acp.EndTurn(),
    ):
        conn = _do(conn, intent).connection
    return conn


def _load(conn: c.AgentConnection, rid: int = 9) -> c.ConnectionStep:
    return _step(conn, _req(rid, "session/load", {"sessionId": SID, "cwd": "/t", "mcpServers": []}))


def test_session_load_replays_the_history_in_v1_shapes_then_answers() -> None:
    step = _load(_a_turn())
    *history, answer = step.outbound
    assert answer == {"jsonrpc": "2.0", "id": 9, "result": {}}
    updates = [m["params"]["update"] for m in history]
    assert all(m["params"]["sessionId"] == SID for m in history)
    assert [u["sessionUpdate"] for u in updates] == [
        "user_message_chunk",
        "agent_message_chunk",
        "tool_call",  # created again: a v1 client that loads rebuilds its view
        "agent_message_chunk",
    ]  # no end marker (the answer is the end) and no state snapshot: neither has a v1 form
    assert updates[0]["content"] == {"type": "text", "text": "hello v1"}
    assert updates[2]["status"] == "completed"
    assert c.SessionOpened(SID, resumed=True, request_id=9) in step.events
    assert _rules(step) <= {"v1.dropped-field"}  # the chunks' messageIds, once
    assert dict(step.connection.incoming) == {}


def test_what_a_session_load_sends_reads_back_as_the_session_s_view() -> None:
    conn = _a_turn()
    step = _load(conn)
    trace = [{"from": "client", "message": _req(9, "session/load", {"sessionId": SID}).value}]
    trace += [{"from": "agent", "message": m} for m in step.outbound]
    result = acp.normalize_v1(trace)
    view = acp.fold(acp.new_session(SID), result.updates_for(SID))
    served = conn.engine(SID).session

    def said(state: acp.SessionState) -> list[tuple[str, str]]:
        return [
            (r.kind, acp.message_text(state.messages[r.id]) if r.kind == "message" else r.id)
            for r in state.timeline
        ]

    assert said(view) == said(served)
    assert view.tool_calls["t1"].status == "completed"
    assert acp.v1.check_v1_trace(trace, side="agent") == ()


def test_session_load_of_an_unknown_session_is_refused_and_a_v2_client_gets_none() -> None:
    (reply,) = _step(_v1_init().connection, _req(3, "session/load", {"sessionId": "x"})).outbound
    assert reply["error"]["code"] == -32002
    conn = c.new_agent_connection(INFO, protocols=(2, 1))
    params = {"protocolVersion": 2, "info": {"name": "z", "version": "1"}}
    conn = _step(conn, _req(0, "initialize", params)).connection
    conn = _step(conn, _req(1, "session/new", {"cwd": "/tmp"})).connection
    (reply,) = _step(conn, _req(2, "session/load", {"sessionId": SID, "cwd": "/t"})).outbound
    assert reply["error"]["code"] == -32601  # v2 has session/resume


def test_a_prompt_after_a_session_load_is_a_turn_as_before() -> None:
    conn = _load(_a_turn()).connection
    prompt = {"sessionId": SID, "prompt": [{"type": "text", "text": "again"}]}
    step = _step(conn, _req(10, "session/prompt", prompt))
    conn = _do(step.connection, acp.AcceptPrompt(10)).connection
    step = _do(conn, acp.StartToolCall("Read", "t2", kind="read"))
    assert _updates(step)[0]["sessionUpdate"] == "tool_call"
    step = _do(_do(step.connection, acp.SendAgentText("ok")).connection, acp.EndTurn())
    assert step.outbound[-1] == {"jsonrpc": "2.0", "id": 10, "result": {"stopReason": "end_turn"}}


def test_acp_core_s_client_loads_from_acp_core_s_agent_over_v1() -> None:
    # Both ends behind the v2 API, v1 on the wire: the client's ResumeSession(replay=True)
    # is the agent's session/load, and the client's fresh view is the one it had live.
    agent = c.new_agent_connection(INFO, protocols=(2, 1))
    client = c.new_client_connection(c.Implementation("v1-client", "1"), protocols=(1,))
    wire: list[dict[str, Any]] = []
    client_events: list[object] = []

    def pump(step: c.ConnectionStep, *, from_client: bool) -> None:
        nonlocal agent, client
        if from_client:
            client = step.connection  # type: ignore[assignment]
            client_events.extend(step.events)
        else:
            agent = step.connection  # type: ignore[assignment]
        for message in step.outbound:
            wire.append(message)
            if from_client:
                pump(c.connection_step(agent, acp.Parsed(message)), from_client=False)
            else:
                pump(c.connection_step(client, acp.Parsed(message)), from_client=True)

    pump(c.connection_step(client, c.Initialize()), from_client=True)
    assert (client.protocol_version, agent.protocol_version) == (1, 1)
    pump(c.connection_step(client, c.NewSession("/tmp")), from_client=True)
    prompt = c.SessionIntent(SID, i.SendPrompt((v.TextContent("hi there"),)))
    pump(c.connection_step(client, prompt), from_client=True)
    (rid,) = [m["id"] for m in wire if m.get("method") == "session/prompt"]
    for intent in (
        acp.AcceptPrompt(rid),
        acp.SendAgentText("Looking."),
        acp.StartToolCall("Read", "t1", kind="read"),
        acp.FinishToolCall("t1"),
        acp.SendAgentText("Found it."),
        acp.EndTurn(),
    ):
        pump(_do(agent, intent), from_client=False)
    live = client.view(SID)
    assert live.foreground.stop_reason == "end_turn"
    pump(c.connection_step(client, c.ResumeSession(SID, "/tmp", replay=True)), from_client=True)
    assert "session/load" in [m.get("method") for m in wire]
    loaded = client.view(SID)
    assert loaded is not live
    assert client.replay(SID) == "complete"

    def said(state: acp.SessionState) -> list[Any]:
        return [
            (r.kind, acp.message_text(state.messages[r.id]) if r.kind == "message" else r.id)
            for r in state.timeline
        ]

    assert said(loaded) == said(live)
    assert [kind for kind, _ in said(live)] == ["message", "message", "toolCall", "message"]
    assert loaded.tool_calls["t1"].status == "completed"
    assert client.engine(SID).violations == ()
    assert [e for e in client_events if type(e) is c.Finding] == []
    assert sum(type(e) is c.SessionOpened for e in client_events) == 2  # new, then the load
