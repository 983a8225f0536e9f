"""The agent connection judges what it sends and receives by the checker's cross-session rules
(`AgentConnection.rules.judge`): a host intent that would make the agent break a MUST there is
refused with the checker's rule and changes nothing, and the client's faults there are
`Finding` events with the rule `check` reports for the same traffic."""

from __future__ import annotations

import json
from typing import Any

import pytest
from conn_pair import Pair

import acp_core as acp
from acp_core import errors
from acp_core import intents as i
from acp_core import values as v


def _opened() -> tuple[Pair, str]:
    pair = Pair(revision=acp.V2_PREVIEW)
    return pair, pair.open()


def test_a_replay_marker_outside_a_resume_is_refused_with_r58() -> None:
    pair, sid = _opened()
    before = pair.agent
    with pytest.raises(errors.LocalProtocolError) as refused:
        pair.agent_says(sid, i.SendUpdate(v.ReplayComplete()))
    assert refused.value.rule == "R58"
    assert pair.agent == before  # nothing changed, nothing sent
    # The checker names the same rule for the same message, sent anyway.
    update = {"sessionUpdate": "replay_complete"}
    line = {
        "from": "agent",
        "message": {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": sid, "update": update},
        },
    }
    found = acp.check_trace([*pair.agent_trace, line], revision=acp.V2_PREVIEW)
    assert [x.rule for x in found if not x.warning] == ["R58"]


def _prompt(pair: Pair, sid: str, rid: int, text: str, key: str) -> Any:
    params = {"sessionId": sid, "prompt": [{"type": "text", "text": text}], "idempotencyKey": key}
    message = {"jsonrpc": "2.0", "id": rid, "method": "session/prompt", "params": params}
    pair.agent_trace.append({"from": "client", "message": message})
    return pair.agent_bytes((json.dumps(message) + "\n").encode())


def test_a_key_reused_for_another_submission_is_the_clients_c43_finding() -> None:
    pair, sid = _opened()
    _prompt(pair, sid, 50, "hi", "key-1")
    step = _prompt(pair, sid, 51, "something else", "key-1")
    assert [e.rule for e in step.events if isinstance(e, acp.Finding)] == ["C43"]
    found = acp.check_trace(pair.agent_trace, revision=acp.V2_PREVIEW, side="client")
    assert "C43" in [x.rule for x in found]


def test_at_2026_08_there_is_no_judge() -> None:
    pair = Pair(revision=acp.V2_2026_08)
    assert pair.agent.rules.judge is None
    pair.open()
    assert pair.agent.rules.judge is None
