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


def _opened() -> c.ClientConnection:
    """A connection that negotiated protocol 1 and opened session `SID`."""
    conn = c.new_client_connection(c.Implementation("hand", "1"), protocols=(2, 1))
    step = c.connection_step(conn, c.Initialize())
    init = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}
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
    [c.CloseSession(SID), c.ResumeSession(SID, "/tmp"), c.SetConfigOption(SID, "mode", "fast")],
    ids=["close", "resume", "config-option"],
)
def test_v2_only_intents_are_refused_on_a_v1_connection_naming_why(intent: object) -> None:
    conn = _opened()
    with pytest.raises(acp.LocalProtocolError) as raised:
        c.connection_step(conn, intent)
    assert raised.value.rule == "E5"
    assert "protocol 1" in str(raised.value)
