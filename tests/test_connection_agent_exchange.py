"""The agent connection holds the checker's exchange rules (`_rules/_check_exchange.py`):
framing (J34-J44), the answers to session management (J50-J64) and what `initialize`
advertised (J70-J80, C2), fed every v2 message it receives and sends.

A host answer that would make the agent break a MUST there is refused with the checker's rule
and nothing changed; the client's faults are `Finding` events; in every case the checker names
the same rule for the same traffic (sent anyway, for a refusal).
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conn_pair import Pair

import acp_core as acp
from acp_core import connection as c
from acp_core import errors
from acp_core import intents as i

REVISIONS = [acp.V2_2026_08, acp.V2_2026_11, acp.V2_PREVIEW]
_SESSION_CAPS = {"list": {}, "delete": {}, "close": {}}


def _pair(revision: acp.Revision) -> tuple[Pair, str]:
    pair = Pair(revision=revision, capabilities={"session": _SESSION_CAPS})
    return pair, pair.open()


def _ask(pair: Pair, rid: int, method: str, params: dict[str, Any]) -> c.ConnectionStep:
    """The client's request, as bytes on the agent's side (recorded in its trace)."""
    message = {"jsonrpc": "2.0", "id": rid, "method": method, "params": params}
    pair.agent_trace.append({"from": "client", "message": message})
    return pair.agent_bytes((json.dumps(message) + "\n").encode())


def _checked(pair: Pair, sent: dict[str, Any], revision: acp.Revision) -> list[str]:
    """What the checker says of the agent's trace with `sent` appended, as if it had gone."""
    entries = [*pair.agent_trace, {"from": "agent", "message": sent}]
    return [v.rule for v in acp.check_trace(entries, revision=revision) if not v.warning]


# (method, params, the host's result, the rule); each a MUST the agent would break.
_BAD_ANSWERS = [
    ("session/list", {}, {"nextCursor": None}, "J50"),
    (
        "session/list",
        {"cwd": "/work"},
        {"sessions": [{"sessionId": "x", "cwd": "/elsewhere"}]},
        "J51",
    ),
    ("session/list", {}, {"sessions": [{"sessionId": "x", "cwd": "relative/dir"}]}, "J52"),
    ("session/delete", {"sessionId": None}, {"deleted": True}, "J54"),
]
# Not here: J45 (a `_meta` that is not an object), decided on the decoded message's diagnostics
# (`_rules/_check_message.py`), which the connections do not run on what they send.


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize(("method", "params", "result", "rule"), _BAD_ANSWERS)
def test_a_host_answer_that_breaks_a_must_is_refused_with_the_checkers_rule(
    revision: acp.Revision, method: str, params: dict[str, Any], result: Any, rule: str
) -> None:
    pair, sid = _pair(revision)
    params = {k: (sid if v is None else v) for k, v in params.items()}
    step = _ask(pair, 40, method, params)
    assert [type(e).__name__ for e in step.events][-1] in ("ListSessions", "DeleteSession")
    before = pair.agent
    with pytest.raises(errors.LocalProtocolError) as refused:
        pair.agent_do(c.AnswerRequest(40, result))
    assert refused.value.rule == rule
    assert pair.agent == before  # nothing changed, nothing sent
    sent = {"jsonrpc": "2.0", "id": 40, "result": result}
    assert rule in _checked(pair, sent, revision)
    # A good answer goes out, and the request is answered.
    good: Any = (
        {"sessions": [{"sessionId": sid, "cwd": "/work"}]} if method == "session/list" else {}
    )
    step = pair.agent_do(c.AnswerRequest(40, good))
    assert [m.get("id") for m in step.outbound] == [40]
    assert pair.findings("agent") == []
    checked = acp.check_trace(pair.agent_trace, revision=revision)
    assert [v.rule for v in checked if not v.warning] == []


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_the_clients_unadvertised_prompt_content_is_its_c2_finding(revision: acp.Revision) -> None:
    pair, sid = _pair(revision)
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    step = _ask(pair, 41, "session/prompt", {"sessionId": sid, "prompt": [image]})
    assert [e.rule for e in step.events if isinstance(e, c.Finding)] == ["C2"]
    assert [m["error"]["code"] for m in step.outbound] == [-32602]  # answered, not dropped
    checked = acp.check_trace(pair.agent_trace, revision=revision, side="client")
    assert [v.rule for v in checked if not v.warning] == ["C2"]


def test_a_message_the_host_decoded_is_judged_as_its_bytes_are() -> None:
    # C2 again, through `Received` (the host decoded the line itself).
    pair, sid = _pair(acp.V2_PREVIEW)
    image = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
    params = {"sessionId": sid, "prompt": [image]}
    message = acp.decode_message(
        {"jsonrpc": "2.0", "id": 42, "method": "session/prompt", "params": params}
    )
    step = acp.connection_step(pair.agent, i.Received(message))
    assert [e.rule for e in step.events if isinstance(e, c.Finding)] == ["C2"]


def test_the_agents_output_leaves_the_exchange_rules_as_they_were() -> None:
    pair, sid = _pair(acp.V2_PREVIEW)
    pair.client_says(sid, i.SendPrompt((acp.values.TextContent("hi"),)))
    pair.settle()
    before = pair.agent.rules.exchange
    pair.agent_says(sid, i.SendAgentText("hello"))
    assert pair.agent.rules.exchange is before  # nothing read, nothing copied, nothing decoded


def test_a_v1_client_drops_the_exchange_rules() -> None:
    agent = acp.new_agent_connection(Pair(revision=acp.V2_PREVIEW).agent.info, protocols=(2, 1))
    assert agent.rules.exchange is not None
    line = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 1}}
    step = acp.receive_bytes(agent, (json.dumps(line) + "\n").encode())
    assert step.connection.protocol_version == 1
    assert step.connection.rules.exchange is None
