"""A received JSON-RPC batch on a bare engine: its messages, received in array order, as one
step (what `decode_message` gives for an array is something `Received` takes)."""

from __future__ import annotations

from typing import Any

import pytest

import acp_core as acp


def _update(n: int) -> dict[str, Any]:
    chunk = {"sessionUpdate": "agent_message_chunk", "messageId": "m1",
             "content": {"type": "text", "text": str(n)}}  # fmt: skip
    return {"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": "s1", "update": chunk}}  # fmt: skip


def test_a_batch_is_its_messages_in_order() -> None:
    client = acp.new_client("s1")
    batch = acp.decode_message([_update(1), _update(2), _update(3)])
    assert isinstance(batch, acp.Batch)
    batched = acp.step(client, acp.Received(batch))
    one_by_one = client
    for n in (1, 2, 3):
        one_by_one = acp.step(one_by_one, acp.Received(acp.decode_message(_update(n)))).state
    assert batched.state == one_by_one
    assert acp.message_text(batched.state.session.messages["m1"]) == "123"


def test_the_outbound_of_a_batch_is_its_messages_outbound_joined() -> None:
    agent = acp.new_agent("s1")
    text = [{"type": "text", "text": "hi"}]
    prompt = {"jsonrpc": "2.0", "id": 7, "method": "session/prompt",
              "params": {"sessionId": "s1", "prompt": text}}  # fmt: skip
    cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s1"}}
    stepped = acp.step(agent, acp.Received(acp.decode_message([prompt, cancel])))
    # The cancel reaches a prompt not yet accepted: it is answered `cancelled` (Q4).
    alone = acp.step(agent, acp.Received(acp.decode_message(prompt))).state
    expected = acp.step(alone, acp.Received(acp.decode_message(cancel)))
    assert stepped.outbound == expected.outbound
    assert stepped.outbound[-1]["id"] == 7
    assert stepped.state == expected.state


def test_an_entry_that_did_not_decode_is_the_peers_fault_and_nothing_is_kept() -> None:
    client = acp.new_client("s1")
    batch = acp.decode_message([_update(1), {"jsonrpc": "2.0", "method": 5}])
    with pytest.raises(acp.RemoteProtocolError) as caught:
        acp.step(client, acp.Received(batch))
    assert caught.value.rule == "D1"
    assert "batch entry" in str(caught.value)
