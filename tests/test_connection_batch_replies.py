"""The agent connection answers a client's batch with one array of its replies (JSON-RPC 2.0
§6; the checker's J42, SHOULD), sent when every request in it is answered, so what it sends
passes the checker: before, each reply went out alone and `check_trace` reported J42 against
the agent's own line.

Each case feeds a batch to an agent connection opened by a real client connection (`Pair`),
answers what the host must answer, and reads what the agent sent: nothing while a request of
the batch waits, then the one array (the replies in the order they were answered, an invalid
entry's `id: null` error among them), and the whole wire through `check_trace` (no J41, J42,
J43) at every revision.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conn_pair import Pair

import acp_core as acp
from acp_core import connection as c

REVISIONS = (acp.V2_2026_08, acp.V2_2026_11, acp.V2_PREVIEW)
_BATCH_RULES = {"J40", "J41", "J42", "J43"}


def _request(rid: int, method: str, params: dict[str, Any] | None = None) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}}


_PING = {"jsonrpc": "2.0", "method": "_x/ping"}
_INVALID = {"jsonrpc": "2.0", "method": 5}


def _feed(pair: Pair, batch: list[Any]) -> c.ConnectionStep:
    pair.agent_trace.append({"from": "client", "message": batch})
    return pair.agent_bytes(json.dumps(batch).encode() + b"\n")


def _answer(pair: Pair, step: c.ConnectionStep) -> list[c.ConnectionStep]:
    """The host answers every request the step handed it, in order."""
    steps = []
    for event in step.events:
        if isinstance(event, c.ListSessions):
            steps.append(pair.agent_do(c.AnswerRequest(event.request_id, {"sessions": []})))
        elif isinstance(event, c.ExtensionRequest):
            steps.append(pair.agent_do(c.AnswerRequest(event.request_id, {"ok": True})))
    return steps


def _batch_findings(pair: Pair) -> list[str]:
    checked = acp.check_trace(pair.agent_trace, revision=pair.revision)
    return [v.rule for v in checked if v.rule in _BATCH_RULES]


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_the_replies_wait_for_the_last_answer_and_go_out_as_one_array(
    revision: acp.Revision,
) -> None:
    pair = Pair(revision=revision)
    pair.open("/w")
    batch = [_request(70, "session/list"), _PING, _request(71, "_x/echo"), _INVALID]
    received = _feed(pair, batch)
    assert received.outbound == ()  # two requests wait on the host
    first, last = _answer(pair, received)
    assert first.outbound == ()  # one still waits
    (array,) = last.outbound
    assert isinstance(array, list)
    assert [(m.get("id"), "error" in m) for m in array] == [(None, True), (70, False), (71, False)]
    assert array[1]["result"] == {"sessions": []}
    assert _batch_findings(pair) == []
    assert [f.rule for f in pair.findings("agent")] == ["D1"]  # the invalid entry, no J42


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_a_batch_answered_at_once_is_answered_in_the_same_step(revision: acp.Revision) -> None:
    pair = Pair(revision=revision)
    pair.open("/w")
    # An unknown method is answered -32601 by the connection itself, the invalid entry -32600.
    step = _feed(pair, [_request(72, "no/such"), _INVALID, _PING])
    (array,) = step.outbound
    assert isinstance(array, list)
    assert [(m["id"], m["error"]["code"]) for m in array] == [(72, -32601), (None, -32600)]
    assert _batch_findings(pair) == []
    # The bytes: one line.
    assert step.data.count(b"\n") == 1


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_a_batch_of_notifications_is_answered_with_nothing(revision: acp.Revision) -> None:
    pair = Pair(revision=revision)
    pair.open("/w")
    step = _feed(pair, [_PING, _PING])
    assert step.outbound == ()
    assert _batch_findings(pair) == []
    assert pair.agent.batch_replies == c.AgentConnection(pair.agent.info).batch_replies


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_a_prompt_in_a_batch_is_answered_in_the_array_when_it_is_accepted(
    revision: acp.Revision,
) -> None:
    pair = Pair(revision=revision)
    sid = pair.open("/w")
    text = [{"type": "text", "text": "hi"}]
    prompt = _request(73, "session/prompt", {"sessionId": sid, "prompt": text})
    received = _feed(pair, [prompt, _request(74, "no/such")])
    assert received.outbound == ()  # the -32601 waits for the prompt's answer
    accepted = pair.agent_says(sid, acp.AcceptPrompt(73))
    (array,) = [m for m in accepted.outbound if isinstance(m, list)]
    assert [m["id"] for m in array] == [74, 73]
    assert "result" in array[1]
    pair.agent_says(sid, acp.SendAgentText("hello"))
    pair.agent_says(sid, acp.EndTurn())
    checked = acp.check_trace(pair.agent_trace, revision=revision)
    assert [v.rule for v in checked if not v.warning] == ["R44"]  # the client's batching only
    assert not pair.agent.batch_replies.by_request


def test_a_request_whose_id_is_pending_does_not_hold_the_batch() -> None:
    # Its id names a request already waiting, so the connection answers it `id: null` at once
    # (never the pending one's answer by mistake); the batch waits for nothing else.
    pair = Pair()
    pair.open("/w")
    pending = _feed(pair, [_request(75, "_x/slow"), _PING])
    assert pending.outbound == ()
    again = _feed(pair, [_request(75, "_x/again"), _request(76, "no/such")])
    (array,) = again.outbound
    assert isinstance(array, list)
    assert [m["id"] for m in array][-1] == 76
    (slow,) = [e for e in pending.events if isinstance(e, c.ExtensionRequest)]
    answered = pair.agent_do(c.AnswerRequest(slow.request_id, {"ok": True}))
    (reply,) = answered.outbound
    assert isinstance(reply, list)
    assert reply[0]["id"] == 75  # the first batch's own array
