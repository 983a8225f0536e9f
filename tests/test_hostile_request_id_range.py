"""A request whose id is an integer outside the JSON-RPC id range the codec takes (int64) is
an Invalid Request: both connections answer it with `id: null` and go on.

Found by fuzzing `receive_bytes` with mutated trace messages (session s6, attack): the error
reply echoed the id (`raw_request_id` took any `int`), the connection's exchange rules then
decoded its own reply, and `receive_bytes` raised `DecodeError` on every such line, on both
sides, before and after `initialize`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conn_pair import Pair

import acp_core as acp

OUT_OF_RANGE = [2**63, -(2**63) - 1, 2**70, -(10**30)]
CANARY = b'{"jsonrpc":"2.0","id":"canary","method":"zz/unknown"}\n'


def _line(rid: int, method: str, params: Any = None) -> bytes:
    message: dict[str, Any] = {"jsonrpc": "2.0", "id": rid, "method": method}
    if params is not None:
        message["params"] = params
    return json.dumps(message).encode() + b"\n"


def _replies(step: acp.ConnectionStep, rid: object) -> list[dict[str, Any]]:
    return [m for m in step.outbound if m.get("id") == rid]


@pytest.mark.parametrize("rid", OUT_OF_RANGE)
@pytest.mark.parametrize("opened", [False, True], ids=["before-initialize", "in-a-session"])
@pytest.mark.parametrize("method", ["zz/unknown", "session/prompt", "initialize"])
def test_the_agent_answers_an_out_of_range_id_with_null_and_goes_on(
    rid: int, opened: bool, method: str
) -> None:
    pair = Pair()
    sid = pair.open() if opened else "sess_x"
    step = pair.agent_bytes(_line(rid, method, {"sessionId": sid, "prompt": []}))
    assert [m["id"] for m in step.outbound if "error" in m] == [None]
    assert _replies(pair.agent_bytes(CANARY), "canary")


@pytest.mark.parametrize("rid", OUT_OF_RANGE)
def test_the_client_answers_an_out_of_range_id_with_null_and_goes_on(rid: int) -> None:
    pair = Pair()
    sid = pair.open()
    for method in ("zz/unknown", "session/request_permission", "fs/read_text_file"):
        step = acp.receive_bytes(pair.client, _line(rid, method, {"sessionId": sid}))
        pair.client = step.connection
        assert [m["id"] for m in step.outbound if "error" in m] == [None]
        step = acp.receive_bytes(pair.client, CANARY)
        pair.client = step.connection
        assert _replies(step, "canary")


def test_the_edges_of_the_range_are_ids() -> None:
    pair = Pair()
    for rid in (2**63 - 1, -(2**63)):
        step = pair.agent_bytes(_line(rid, "zz/unknown"))
        assert [m["id"] for m in step.outbound] == [rid]
