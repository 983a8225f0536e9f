"""A client connection answers every request the agent sends, and names the agent's requests
that only a client may send as the machine's J2 (the checker's verdict on the same traffic).

Before the machine judged them, an agent's `session/prompt` on a known session was refused
inside the session's engine (E3) and never answered, and an agent's `session/close` or
`session/resume` was answered without a finding.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from client_replay import play

import acp_core as acp
from acp_core import connection as c

SID = "sess_1"
_INFO = c.Implementation("directions-client", "1")
_REVISIONS = [acp.V2_2026_08, acp.V2_2026_11, acp.V2_PREVIEW]

_AGENT_REQUESTS: list[tuple[str, dict[str, Any], str]] = [
    # (method, params, the rule the connection and the checker name)
    ("session/prompt", {"sessionId": SID, "prompt": [{"type": "text", "text": "hi"}]}, "J2"),
    ("session/close", {"sessionId": SID}, "J2"),
    ("session/resume", {"sessionId": SID, "cwd": "/w", "mcpServers": []}, "J2"),
    # A method no client defines: the checker's J80, named through the connection's exchange
    # rules (`_rules/_check_exchange.py`); it is still answered -32601.
    ("session/set_mode", {"sessionId": SID, "modeId": "x"}, "J80"),
    ("no/such_method", {"sessionId": SID}, "J80"),
    ("no/such_method", {}, "J80"),
]


@pytest.mark.parametrize("revision", _REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize(("method", "params", "rule"), _AGENT_REQUESTS)
def test_every_agent_request_is_answered_and_client_requests_are_j2(
    revision: acp.Revision, method: str, params: dict[str, Any], rule: str
) -> None:
    entries = [
        {
            "from": "agent",
            "message": {"jsonrpc": "2.0", "id": "a1", "method": method, "params": params},
        }
    ]
    replay = play(entries, revision)
    answers = [
        e["message"]
        for e in replay.trace
        if e["from"] == "client" and e["message"].get("id") == "a1"
    ]
    assert [a["error"]["code"] for a in answers] == [-32601]
    assert replay.rules() == [rule]
    # The checker says the same of the traffic the connection exchanged.
    checked = [v.rule for v in acp.check_trace(replay.trace, revision=revision)]
    assert checked == [rule]


def test_the_connection_stays_usable_after_an_agents_prompt() -> None:
    conn = c.new_client_connection(_INFO)
    step = c.connection_step(conn, c.NewSession("/w", request_id="n1"))
    answer = {"jsonrpc": "2.0", "id": "n1", "result": {"sessionId": SID}}
    step = c.receive_bytes(step.connection, json.dumps(answer).encode() + b"\n")
    prompt = {
        "jsonrpc": "2.0",
        "id": "a1",
        "method": "session/prompt",
        "params": {"sessionId": SID, "prompt": [{"type": "text", "text": "hi"}]},
    }
    step = c.receive_bytes(step.connection, json.dumps(prompt).encode() + b"\n")
    assert [json.loads(json.dumps(m))["id"] for m in step.outbound] == ["a1"]
    # The client's own prompt still goes out on that session.
    intent = acp.SessionIntent(SID, acp.SendPrompt((acp.TextContent("hello"),)))
    step = c.connection_step(step.connection, intent)
    assert [m["method"] for m in (json.loads(json.dumps(x)) for x in step.outbound)] == [
        "session/prompt"
    ]
