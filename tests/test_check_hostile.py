"""`check_trace` is total under hostile input (issue 15): values where ids, tags and numbers
should be, integers past Python's 4,300-digit int/str limit, lone surrogates. Each gives
violations with printable messages, never an exception."""

from __future__ import annotations

from typing import Any

import pytest

import acp_core as acp

S = "sess_1"
HUGE = 10**5000  # str(HUGE) raises ValueError (int max str digits)


def _update(update: Any) -> dict[str, Any]:
    return {
        "from": "agent",
        "message": {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": S, "update": update},
        },
    }


def _request(side: str, request_id: Any, method: str, params: Any) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return {"from": side, "message": message}


HOSTILE = [
    pytest.param([_update({"sessionUpdate": ["x"], "messageId": None})], id="tag-list"),
    pytest.param([_update({"sessionUpdate": {"a": 1}})], id="tag-object"),
    pytest.param([_request("client", [1], "session/prompt", {"sessionId": S})], id="id-list"),
    pytest.param(
        [_request("client", {"a": 1}, "session/prompt", {"sessionId": S, "prompt": []})],
        id="id-object",
    ),
    pytest.param(
        [
            _request("client", [1], "session/prompt", {"sessionId": S}),
            {"from": "agent", "message": {"jsonrpc": "2.0", "id": [1], "result": {}}},
        ],
        id="answer-to-a-list-id",
    ),
    pytest.param(
        [
            _request("client", HUGE, "session/prompt", {"sessionId": S, "prompt": []}),
            {"from": "agent", "message": {"jsonrpc": "2.0", "id": HUGE + 1, "result": {}}},
        ],
        id="huge-ids",
    ),
    pytest.param(
        [_update({"sessionUpdate": "usage_update", "used": HUGE, "size": HUGE})], id="huge-usage"
    ),
    pytest.param(
        [{"from": "agent", "message": {"jsonrpc": "2.0", "id": 1, "error": {"code": HUGE}}}],
        id="huge-error-code",
    ),
    pytest.param(
        [_update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "\ud800"})],
        id="surrogate-stop-reason",
    ),
    pytest.param([{"from": "\udfff", "message": {}}, HUGE], id="surrogate-side-huge-entry"),
    pytest.param(
        [_request("agent", 3, "session/request_permission", {"sessionId": ["a"]})],
        id="session-id-list",
    ),
]


@pytest.mark.parametrize("entries", HOSTILE)
def test_hostile_traces_give_violations_with_printable_messages(entries: list[Any]) -> None:
    violations = acp.check_trace(entries)
    assert violations, "each case breaks a rule"
    for v in violations:
        assert v.rule in acp.RULES
        v.message.encode("utf-8")  # no lone surrogate survives into a message
        assert len(v.message) < 2_000  # huge values are named, not spelled out


def test_a_huge_id_is_named_by_its_size_where_a_message_shows_it() -> None:
    # Ids past int64 do not decode (D1); where the machine itself shows a huge value (an
    # error code here), the message names its size instead of spelling 5,000 digits.
    from acp_core._rules._predicates import shown

    assert shown(HUGE) == f"<an integer of {HUGE.bit_length()} bits>"
    assert shown("x" * 10_000).endswith("(10000 characters)")
    assert shown("\ud800") == "'\\ud800'"
