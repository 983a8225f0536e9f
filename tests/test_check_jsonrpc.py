"""The checker's JSON-RPC framing and handshake rules (J31 onwards), one table.

Each case is a short recording written here by hand and what `check_trace` finds in it, as
`(rule, line)` pairs: the fault the rule names, its neighbours that are no fault, and the
line where the rule stops applying. The corpus traces (tests/traces/bad_J3*_*.jsonl) are
the same faults in the corpus's shape; tests/test_check_tck.py maps them to the kit's ids.
"""

from __future__ import annotations

from typing import Any

import pytest

import acp_core as acp

S = "sess_abc123def456"


def client(message: Any) -> dict[str, Any]:
    return {"from": "client", "message": message}


def agent(message: Any) -> dict[str, Any]:
    return {"from": "agent", "message": message}


def initialize(version: object = 2, rid: object = 0) -> dict[str, Any]:
    params = {"protocolVersion": version, "info": {"name": "c", "version": "1"}, "capabilities": {}}
    return client({"jsonrpc": "2.0", "id": rid, "method": "initialize", "params": params})


def answer(version: object = 2, rid: object = 0, **extra: Any) -> dict[str, Any]:
    result = {"protocolVersion": version, "info": {"name": "a", "version": "1"}, **extra}
    return agent({"jsonrpc": "2.0", "id": rid, "result": result})


def error(code: int, rid: object = 0, message: str = "refused") -> dict[str, Any]:
    return agent({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})


CASES: list[tuple[str, list[dict[str, Any]], list[tuple[str, int]]]] = [
    # J31: the handshake succeeds
    ("J31 error answer", [initialize(), error(-32603)], [("J31", 1)]),
    ("J31 result", [initialize(), answer()], []),
    ("J31 unknown version still answered", [initialize(7), answer(2)], []),
    ("J31 error to another request", [initialize(), answer(), error(-32603, rid=1)], [("J1", 2)]),
    # J32: an integer version, never a version ACP lacks echoed back
    ("J32 string version", [initialize(), answer("2")], [("J32", 1)]),
    ("J32 boolean version", [initialize(), answer(True)], [("J32", 1)]),
    ("J32 out of range", [initialize(), answer(70000)], [("J32", 1)]),
    ("J32 missing version", [initialize(), answer(None)], [("J32", 1)]),
    ("J32 echoes 65535", [initialize(65535), answer(65535)], [("J32", 1)]),
    ("J32 latest for 65535", [initialize(65535), answer(2)], []),
    ("J32 echoes 2", [initialize(2), answer(2)], []),
    # J33: a request for version 1 succeeds with 1 or 2
    ("J33 error", [initialize(1), error(-32602)], [("J33", 1)]),
    ("J33 version 3", [initialize(1), answer(3)], [("J33", 1)]),
    ("J33 version 1", [initialize(1), answer(1)], []),
    ("J33 version 2", [initialize(1), answer(2)], []),
    ("J33 string version is J32's", [initialize(1), answer("1")], [("J32", 1)]),
]


@pytest.mark.parametrize(("name", "entries", "expected"), CASES, ids=[c[0] for c in CASES])
def test_what_the_checker_finds(
    name: str, entries: list[dict[str, Any]], expected: list[tuple[str, int]]
) -> None:
    found = acp.check_trace(entries, revision=acp.V2_2026_08)
    assert [(v.rule, v.index) for v in found] == expected, name
