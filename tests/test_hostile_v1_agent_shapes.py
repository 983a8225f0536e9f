"""A client connection that speaks v1 to its agent takes any JSON object the agent sends: a
`method` that is not a string or an `id` that is no request id (an array, an object, a float,
an integer out of range) is refused as any undecodable message is, and the next message is
received as usual.

Found by fuzzing `receive_bytes` with mutated v1 trace messages (session s6, attack): the v1
reader looked such an `id` up among the pending requests and such a `method` up among the v1
client methods, and raised `TypeError: unhashable type` out of `receive_bytes`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conn_pair import Pair

import acp_core as acp
from acp_core.connection import Implementation

CANARY = b'{"jsonrpc":"2.0","id":"canary","method":"zz/unknown"}\n'
UPDATE = {
    "sessionUpdate": "tool_call_update",
    "toolCallId": "t",
    "status": "completed",
}


def _update_tagged(tag: object) -> dict[str, Any]:
    # Found in a second fuzzing run: `_update_in_place` looked such a tag up in a set.
    update = {"sessionUpdate": tag, "state": "idle"}
    return {"jsonrpc": "2.0", "method": "session/update", "params": {"update": update}}


HOSTILE: list[Any] = [
    pytest.param({"jsonrpc": "2.0", "id": [], "result": {}}, id="id-array"),
    pytest.param({"jsonrpc": "2.0", "id": {"a": 1}, "result": {}}, id="id-object"),
    pytest.param({"jsonrpc": "2.0", "id": 1.5, "result": {}}, id="id-float"),
    pytest.param({"jsonrpc": "2.0", "id": 2**70, "result": {}}, id="id-huge"),
    pytest.param({"jsonrpc": "2.0", "id": [], "method": "fs/read_text_file"}, id="request-id"),
    pytest.param({"jsonrpc": "2.0", "method": {"a": {}}, "params": {}}, id="method-object"),
    pytest.param({"jsonrpc": "2.0", "method": [], "id": 3, "params": {}}, id="method-array"),
]


def _v1_pair() -> tuple[Pair, str]:
    pair = Pair()
    pair.agent = acp.new_agent_connection(Implementation("a", "1"), protocols=(2, 1))
    pair.client = acp.new_client_connection(Implementation("c", "1"), protocols=(1,))
    sid = pair.open()
    assert pair.client.v1 is not None
    pair.client_says(sid, acp.SendPrompt((acp.TextContent("hi"),)))  # a request pending
    assert pair.client.outgoing
    return pair, sid


@pytest.mark.parametrize("message", HOSTILE)
def test_a_v1_agents_message_of_no_message_shape_is_refused_and_receiving_goes_on(
    message: dict[str, Any],
) -> None:
    pair, sid = _v1_pair()
    params = message.get("params")
    if isinstance(params, dict):
        message = message | {"params": {"sessionId": sid, "update": params.get("update", UPDATE)}}
    step = acp.receive_bytes(pair.client, json.dumps(message).encode() + b"\n")
    assert step.events or step.outbound  # refused: a finding or an error reply
    step = acp.receive_bytes(step.connection, CANARY)
    assert [m["id"] for m in step.outbound] == ["canary"]


@pytest.mark.parametrize("tag", [{"type": "text"}, [[2]]], ids=["object", "array"])
def test_a_v1_update_whose_tag_is_no_string_is_received_and_receiving_goes_on(tag: object) -> None:
    # Found in a second fuzzing run: `_update_in_place` looked such a tag up in a set
    # (TypeError). What the host hears of it is the normalizer's (today: nothing; see the
    # session's report), but receiving goes on.
    pair, sid = _v1_pair()
    message = _update_tagged(tag)
    message["params"]["sessionId"] = sid
    step = acp.receive_bytes(pair.client, json.dumps(message).encode() + b"\n")
    step = acp.receive_bytes(step.connection, CANARY)
    assert [m["id"] for m in step.outbound] == ["canary"]
