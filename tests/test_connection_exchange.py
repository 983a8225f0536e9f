"""The client connection holds the checker's exchange rules (`_rules/_check_exchange.py`):
framing (J34-J44), the answers to session management (J50-J64) and what `initialize`
advertised (J70-J80, C2), fed every v2 message it sends and receives.

tests/test_rule_consistency_connection.py holds it to the checker's verdict on the whole bad
corpus; these tests pin what that table cannot show: the client's own MUST is refused with
nothing changed, a message the host decoded itself is judged as its bytes are, the stream of
updates leaves the rules untouched, and a v1 agent drops them.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import acp_core as acp
from acp_core import connection as c
from acp_core import errors

_INFO = c.Implementation("exchange-client", "1")
SID = "sess_1"


def _receive(conn: c.ClientConnection, message: dict[str, Any]) -> c.ConnectionStep:
    return c.receive_bytes(conn, json.dumps(message).encode() + b"\n")


def _rules(step: c.ConnectionStep) -> list[str]:
    return [e.rule for e in step.events if isinstance(e, c.Finding)]


def _ready(
    capabilities: dict[str, Any], revision: acp.Revision = acp.V2_PREVIEW
) -> c.ClientConnection:
    """A connection whose agent answered `initialize` with `capabilities` and opened SID."""
    conn = c.new_client_connection(_INFO, revision=revision)
    step = c.connection_step(conn, c.Initialize(request_id=0))
    answer = {"protocolVersion": 2, "info": {"name": "a", "version": "1"}}
    step = _receive(
        step.connection,
        {"jsonrpc": "2.0", "id": 0, "result": {**answer, "capabilities": capabilities}},
    )
    step = c.connection_step(step.connection, c.NewSession("/w", request_id=1))
    step = _receive(step.connection, {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": SID}})
    assert _rules(step) == []
    return step.connection


def _image_prompt() -> c.SessionIntent:
    image = acp.ImageContent("iVBORw0KGgo=", "image/png")
    return c.SessionIntent(SID, acp.SendPrompt((acp.TextContent("look"), image), request_id=2))


@pytest.mark.parametrize("revision", [acp.V2_2026_08, acp.V2_PREVIEW], ids=lambda r: r.name)
def test_a_prompt_the_agent_did_not_advertise_is_refused_with_nothing_changed(
    revision: acp.Revision,
) -> None:
    conn = _ready({"session": {}}, revision)
    with pytest.raises(errors.LocalProtocolError) as refused:
        c.connection_step(conn, _image_prompt())
    assert refused.value.rule == "C2"
    # The same prompt goes out once the agent advertised images.
    allowed = _ready({"session": {"prompt": {"image": {}}}}, revision)
    step = c.connection_step(allowed, _image_prompt())
    assert [m["method"] for m in step.outbound] == ["session/prompt"]


def test_the_agents_fault_in_an_answer_is_a_finding() -> None:
    # J53: closing a session open on this connection is answered with an error.
    conn = _ready({"session": {"close": {}}})
    step = c.connection_step(conn, c.CloseSession(SID, request_id=5))
    error = {"code": -32603, "message": "nope"}
    step = _receive(step.connection, {"jsonrpc": "2.0", "id": 5, "error": error})
    assert "J53" in _rules(step)


def test_a_message_the_host_decoded_is_judged_as_its_bytes_are() -> None:
    # J36: the agent answers the client's `_` notification (which asks for no answer).
    conn = _ready({"session": {}})
    step = c.connection_step(conn, c.SendNotification("_zed/hello", {"client": "zed"}))
    reply = {"jsonrpc": "2.0", "id": None, "error": {"code": -32601, "message": "Method not found"}}
    as_bytes = _receive(step.connection, reply)
    decoded = acp.decode_message(reply, revision=acp.V2_PREVIEW)
    as_value = c.connection_step(step.connection, acp.Received(decoded))
    assert _rules(as_bytes) == _rules(as_value) == ["J36"]  # named there, not J1 as well


def test_the_update_stream_leaves_the_exchange_rules_as_they_were() -> None:
    conn = _ready({"session": {}})
    step = c.connection_step(conn, c.SessionIntent(SID, acp.SendPrompt((acp.TextContent("hi"),))))
    chunk = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {
            "sessionId": SID,
            "update": {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m1",
                "content": {"type": "text", "text": "hello"},
            },
        },
    }
    after = _receive(step.connection, chunk)
    assert _rules(after) == []
    # nothing read, nothing copied
    assert after.connection.rules.exchange is step.connection.rules.exchange


def test_fresh_connections_are_equal_and_a_v1_agent_drops_the_exchange_rules() -> None:
    assert c.new_client_connection(_INFO) == c.new_client_connection(_INFO)
    conn = c.new_client_connection(_INFO, protocols=(2, 1))
    step = c.connection_step(conn, c.Initialize(request_id=0))
    v1 = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}
    step = _receive(step.connection, {"jsonrpc": "2.0", "id": 0, "result": v1})
    assert step.connection.protocol_version == 1
    assert step.connection.rules.exchange is None
