"""A message the host writes by hand (`SendRequest`, `SendNotification`) passes the protocol
machine before it goes: J2 (a known method keeps its side and its form, request or
notification) and D1 (what lenient decoding would drop, a malformed `_meta`) are refused with
the checker's rule and words; what the checker passes still
goes out.

For each case the same wire, recorded after the connection's own set-up, is what
`check_trace` judges: the refusal and the checker name one rule (the row
`bad_J2_5_cancel_sent_as_a_request` of tests/test_rule_consistency_connection.py is the
corpus's twin of the first case).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conn_pair import Pair

import acp_core as acp
from acp_core import connection as c
from acp_core import errors
from acp_core.values import thaw_json

_INFO = c.Implementation("by-hand-client", "1")
SID = "sess_1"
REVISIONS = (acp.V2_2026_08, acp.V2_2026_11, acp.V2_PREVIEW)
_UPDATE = {"sessionUpdate": "agent_message_chunk", "messageId": "m1",
           "content": {"type": "text", "text": "hi"}}  # fmt: skip
_OPTION = {"optionId": "o1", "name": "Allow", "kind": "allow_once"}
_ASK = {"sessionId": SID, "title": "Run?", "toolCall": {"toolCallId": "t1"}, "options": [_OPTION]}


def _ready(revision: acp.Revision) -> tuple[c.ClientConnection, list[dict[str, Any]]]:
    """An opened connection and the trace of its set-up."""
    trace: list[dict[str, Any]] = []
    conn = c.new_client_connection(_INFO, revision=revision)

    def send(intent: object) -> None:
        nonlocal conn
        step = c.connection_step(conn, intent)
        conn = step.connection
        trace.extend({"from": "client", "message": m} for m in step.outbound)

    def receive(message: dict[str, Any]) -> None:
        nonlocal conn
        conn = c.receive_bytes(conn, json.dumps(message).encode() + b"\n").connection
        trace.append({"from": "agent", "message": message})

    send(c.Initialize(request_id=0))
    info = {"name": "a", "version": "1"}
    receive({"jsonrpc": "2.0", "id": 0,
             "result": {"protocolVersion": 2, "info": info, "capabilities": {}}})  # fmt: skip
    send(c.NewSession("/w", request_id=1))
    receive({"jsonrpc": "2.0", "id": 1, "result": {"sessionId": SID}})
    return conn, trace


# (id, the intent, the rule it breaks: None when it goes out)
CASES = [
    ("cancel-as-a-request", c.SendRequest("session/cancel", {"sessionId": SID}, request_id=7),
     "J2"),
    ("update-as-a-request", c.SendRequest("session/update", {"sessionId": SID, "update": _UPDATE},
                                          request_id=7), "J2"),
    ("prompt-as-a-notification",
     c.SendNotification("session/prompt", {"sessionId": SID, "prompt": []}), "J2"),
    ("the-agents-update", c.SendNotification("session/update", {"sessionId": SID,
                                                                "update": _UPDATE}), "J2"),
    ("the-agents-permission-request", c.SendRequest("session/request_permission", _ASK,
                                                    request_id=7), "J2"),
    ("a-malformed-meta", c.SendNotification("session/cancel", {"sessionId": SID, "_meta": "x"}),
     "D1"),
    ("an-extension-request", c.SendRequest("_x/thing", {"sessionId": SID}, request_id=7), None),
    ("a-list-request", c.SendRequest("session/list", {}, request_id=7), None),
    ("an-extension-notification", c.SendNotification("_x/ping", {"n": 1}), None),
    ("a-proper-cancel", c.SendNotification("session/cancel", {"sessionId": SID}), None),
]  # fmt: skip


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize(("intent", "rule"), [pytest.param(*k[1:], id=k[0]) for k in CASES])
def test_a_message_by_hand_is_refused_with_the_checkers_rule_or_goes_out(
    revision: acp.Revision, intent: object, rule: str | None
) -> None:
    conn, trace = _ready(revision)
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": intent.method}  # type: ignore[attr-defined]
    if isinstance(intent, c.SendRequest):
        message["id"] = intent.request_id
    message["params"] = thaw_json(intent.params)  # type: ignore[attr-defined]
    judged = acp.check_trace([*trace, {"from": "client", "message": message}], revision=revision)
    client_musts = [v for v in judged if v.mandatory and v.index == len(trace)]
    if rule is None:
        assert client_musts == []
        step = c.connection_step(conn, intent)
        assert [m["method"] for m in step.outbound] == [intent.method]  # type: ignore[attr-defined]
        return
    assert [v.rule for v in client_musts] == [rule]
    with pytest.raises(errors.LocalProtocolError) as refused:
        c.connection_step(conn, intent)
    assert refused.value.rule == rule
    assert client_musts[0].message in str(refused.value)  # the checker's words


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize("answer", [c.AnswerRequest(9, {}), c.FailRequest(9, -32000, "no")],
                         ids=["answer", "error"])  # fmt: skip
def test_the_client_hosts_answer_to_nothing_asked_is_refused_as_the_checkers_c25(
    revision: acp.Revision, answer: object
) -> None:
    # On the wire, an answer to a request the agent never sent (or one already answered) is
    # C25; the connection refuses the host's with that rule and the checker's words (it said
    # E2, its own state error, before).
    conn, trace = _ready(revision)
    wire = {"jsonrpc": "2.0", "id": 9, "result": {}}
    judged = acp.check_trace([*trace, {"from": "client", "message": wire}], revision=revision)
    (c25,) = [v for v in judged if v.index == len(trace)]
    with pytest.raises(errors.LocalProtocolError) as refused:
        c.connection_step(conn, answer)
    assert (refused.value.rule, c25.rule) == ("C25", "C25")
    assert c25.message in str(refused.value)


def test_the_agent_hosts_answer_to_nothing_asked_is_refused_as_the_checkers_j1() -> None:
    pair = Pair()
    pair.open()
    with pytest.raises(errors.LocalProtocolError) as refused:
        pair.agent_do(c.AnswerRequest(9, {}))
    assert refused.value.rule == "J1"
    assert "no outstanding request from the client has id 9" in str(refused.value)
