"""After a refused `initialize` (a protocol the agent does not serve), what the client sends is
still answered as the protocol asks: an empty batch gets J39's one -32600 error with a null id,
each request of a batch gets the refusal, and the next line, readable or not, is received
without `receive_bytes` raising.

Found by fuzzing `receive_bytes` with mutated trace messages (session s6, attack): the refused
gate noted `[]` (and every batch) as an E5 finding and answered nothing, so the requests of a
batch waited forever, and the next unparsable line's -32700 reply was judged by the exchange
rules as the empty batch's answer (J39): a MUST of the agent's, raised as
`LocalProtocolError` out of `receive_bytes`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest

import acp_core as acp
from acp_core.connection import Implementation

REFUSED = {
    "jsonrpc": "2.0",
    "id": 0,
    "method": "initialize",
    "params": {"protocolVersion": 1, "clientCapabilities": {}},
}
NEW = {"jsonrpc": "2.0", "method": "session/new", "params": {"cwd": "/w", "mcpServers": []}}


def _line(value: Any) -> bytes:
    return json.dumps(value).encode() + b"\n"


def _refused_agent() -> acp.AgentConnection:
    step = acp.receive_bytes(acp.new_agent_connection(Implementation("a", "1")), _line(REFUSED))
    assert [m["error"]["code"] for m in step.outbound] == [-32022]
    return step.connection


def test_an_empty_batch_after_a_refused_initialize_gets_its_invalid_request_error() -> None:
    step = acp.receive_bytes(_refused_agent(), b"[]\n")
    assert [(m["id"], m["error"]["code"]) for m in step.outbound] == [(None, -32600)]


@pytest.mark.parametrize("line", [b"\xff\n", b"{\n", b"NaN\n"], ids=["not-utf8", "cut", "nan"])
def test_an_unreadable_line_after_the_empty_batch_is_answered_and_receiving_goes_on(
    line: bytes,
) -> None:
    conn = acp.receive_bytes(_refused_agent(), b"[]\n").connection
    step = acp.receive_bytes(conn, line)
    assert [(m["id"], m["error"]["code"]) for m in step.outbound] == [(None, -32700)]
    step = acp.receive_bytes(step.connection, _line(REFUSED))
    assert [(m["id"], m["error"]["code"]) for m in step.outbound] == [(0, -32022)]


def test_each_request_of_a_batch_after_a_refused_initialize_gets_the_refusal() -> None:
    batch = [NEW | {"id": 1}, NEW, NEW | {"id": "b"}]
    step = acp.receive_bytes(_refused_agent(), _line(batch))
    assert [(m["id"], m["error"]["code"]) for m in step.outbound] == [(1, -32022), ("b", -32022)]
    assert [e.rule for e in step.events if isinstance(e, acp.Finding)].count("E5") == 1
