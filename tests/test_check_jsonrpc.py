"""The checker's JSON-RPC framing and handshake rules (J31 onwards), one table.

Each case is a short recording written here by hand and what `check_trace` finds in it, as
`(rule, line)` pairs: the fault the rule names, its neighbours that are no fault, and the
line where the rule stops applying. The corpus traces (tests/traces/bad_J3*_*.jsonl) are
the same faults in the corpus's shape; tests/test_check_tck.py maps them to the kit's ids.
"""

from __future__ import annotations

import json
from pathlib import Path
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


AGENT_AUTH = {"type": "agent", "methodId": "login"}


def answer(version: object = 2, rid: object = 0, **extra: Any) -> dict[str, Any]:
    result = {"protocolVersion": version, "info": {"name": "a", "version": "1"}, **extra}
    return agent({"jsonrpc": "2.0", "id": rid, "result": result})


def error(code: int, rid: object = 0, message: str = "refused") -> dict[str, Any]:
    return agent({"jsonrpc": "2.0", "id": rid, "error": {"code": code, "message": message}})


CANCEL = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": S}}


PERMISSION = {
    "jsonrpc": "2.0",
    "id": 4,
    "method": "session/request_permission",
    "params": {
        "sessionId": S,
        "title": "Run it?",
        "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}],
    },
}
SELECTED = {
    "jsonrpc": "2.0",
    "id": "4",
    "result": {"outcome": {"outcome": "selected", "optionId": "ok"}},
}


def both(rid: object) -> dict[str, Any]:
    body = {"result": {}, "error": {"code": -32603, "message": "x"}}
    return agent({"jsonrpc": "2.0", "id": rid, **body})


def bad_error(rid: object, code: object, message: object) -> dict[str, Any]:
    error = {"code": code} if message is None else {"code": code, "message": message}
    return agent({"jsonrpc": "2.0", "id": rid, "error": error})


def agents_findings(entries: list[dict[str, Any]]) -> list[tuple[str, int]]:
    """What `check_trace` finds on the agent's lines (the client's deliberate faults are the
    client's, a D1 at its own line)."""
    found = acp.check_trace(entries, revision=acp.V2_2026_08, side="agent")
    return [(v.rule, v.index) for v in found if entries[v.index]["from"] == "agent"]


def request(rid: object, method: str, params: Any = None) -> dict[str, Any]:
    return client({"jsonrpc": "2.0", "id": rid, "method": method, "params": params or {}})


def notify(method: str) -> dict[str, Any]:
    return client(note(method))


def note(method: str) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": method, "params": {}}


def call(rid: object) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "method": "session/set_mode", "params": {}}


def ok(rid: object) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": rid, "result": {"sessions": []}}


def invalid() -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": None, "error": {"code": -32600, "message": "Invalid"}}


def result(rid: object, body: Any = None) -> dict[str, Any]:
    return agent({"jsonrpc": "2.0", "id": rid, "result": body or {}})


PLAN = {"type": "items", "planId": "p", "entries": []}


def update(upd: dict[str, Any]) -> dict[str, Any]:
    params = {"sessionId": S, "update": upd}
    return agent({"jsonrpc": "2.0", "method": "session/update", "params": params})


def prompt(rid: int, *, meta: bool, extra: Any = None) -> dict[str, Any]:
    params: dict[str, Any] = {"sessionId": S, "prompt": [{"type": "text", "text": "hi"}]}
    params.update(extra or {})
    if meta:
        params["_meta"] = {"zed.dev/debugMode": True}
    return request(rid, "session/prompt", params)


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
    # J46: custom capabilities in capabilities._meta
    ("J46 custom key", [initialize(), answer(capabilities={"session": {}, "zed": {}})],
     [("J46", 1)]),
    ("J46 in _meta", [initialize(), answer(capabilities={"session": {}, "_meta": {"zed": {}}})],
     []),
    ("J46 unstable key", [initialize(), answer(capabilities={"positionEncoding": "utf-16"})], []),
    # J47: the rest of InitializeResponse's shape
    ("J47 result not an object", [initialize(), agent({"jsonrpc": "2.0", "id": 0, "result": 2})],
     [("J47", 1)]),
    ("J47 authMethods not an array", [initialize(), answer(authMethods={})], [("J47", 1)]),
    ("J47 auth method without a name", [initialize(), answer(authMethods=[AGENT_AUTH])],
     [("J47", 1)]),
    ("J47 numeric title", [initialize(), answer(info={"name": "a", "version": "1", "title": 3})],
     [("J47", 1)]),
    ("J47 version 1 not judged", [initialize(1), answer(1, authMethods={})], []),
    ("J47 well formed", [initialize(), answer(authMethods=[{**AGENT_AUTH, "name": "Log in"}])],
     []),
    # J34: a method no schema defines gets -32601
    ("J34 result", [request(5, "session/frobnicate"), result(5)], [("J34", 1)]),
    ("J34 other code", [request(5, "frobnicate"), error(-32602, rid=5)], [("J34", 1)]),
    ("J34 -32601", [request(5, "session/frobnicate"), error(-32601, rid=5)], []),
    ("J34 known method", [request(5, "session/set_mode"), error(-32603, rid=5)], []),
    ("J34 `_` method", [request(5, "_x/y"), result(5)], []),
    ("J34 `$/` method", [request(5, "$/ping"), result(5)], []),
    # J35: a `_` request is answered (a warning when the recording ends first)
    ("J35 unanswered", [request(9, "_zed/ping")], [("J35", 0)]),
    ("J35 error", [request(9, "_zed/ping"), error(-32601, rid=9)], []),
    ("J35 result", [request(9, "_zed/ping"), result(9)], []),
    # J36: a `_` notification is never answered
    ("J36 null-id error", [notify("_zed/hi"), error(-32601, rid=None)], [("J36", 1)]),
    ("J36 result to no request", [notify("_zed/hi"), result(4)], [("J36", 1)]),
    ("J36 quiet", [notify("_zed/hi"), request(1, "_x"), result(1)], []),
    ("J1 after a known notification", [client(CANCEL), result(4)], [("J1", 1)]),
    # J37: an answer echoes its request's id exactly
    ("J37 string for int", [request(7, "session/set_mode"), result("7")], [("J37", 1)]),
    ("J37 int for string", [request("7", "session/set_mode"), result(7)], [("J37", 1)]),
    ("J37 exact", [request(7, "session/set_mode"), result(7)], []),
    ("J37 client's answer", [agent(PERMISSION), client(SELECTED)], [("J37", 1)]),
    ("J37 `_` request answered", [request(9, "_x"), result("9")], [("J37", 1)]),
    ("J1 no twin", [request(7, "session/set_mode"), result("07")], [("J1", 1)]),
    ("J37 in a reply array", [client([call(7)]), agent([ok("7")])], [("J37", 1)]),
    # J38: a response carries one of result and error, an error a code and a message
    ("J38 both", [request(7, "session/set_mode"), both(7)], [("J38", 1)]),
    ("J38 neither", [request(7, "session/set_mode"), agent({"jsonrpc": "2.0", "id": 7})],
     [("J38", 1)]),
    ("J38 string code", [request(7, "session/set_mode"), bad_error(7, "-32603", "x")],
     [("J38", 1)]),
    ("J38 no message", [request(7, "session/set_mode"), bad_error(7, -32603, None)], [("J38", 1)]),
    ("J38 error not an object", [request(7, "session/set_mode"),
                                 agent({"jsonrpc": "2.0", "id": 7, "error": "boom"})],
     [("J38", 1)]),
    ("J38 client's", [agent(PERMISSION), client({"jsonrpc": "2.0", "id": 4})], [("J38", 1)]),
    ("D1 not JSON-RPC", [request(7, "session/set_mode"), agent({"jsonrpc": "1.0", "id": 7})],
     [("D1", 1)]),
    # J45: the agent's `_meta` is an object or null, anywhere
    ("J45 on an update", [update({"sessionUpdate": "plan_update", "_meta": "x", "plan": PLAN})],
     [("J45", 0)]),
    ("J45 twice, one finding", [update({"sessionUpdate": "plan_update", "_meta": [1],
                                        "plan": {**PLAN, "_meta": 3}})], [("J45", 0)]),
    ("J45 in a result", [request(7, "session/set_mode"), result(7, {"_meta": 5})], [("J45", 1)]),
    ("J45 in a `_` method", [agent({"jsonrpc": "2.0", "method": "_x/y", "params": {"_meta": "q"}})],
     [("J45", 0)]),
    ("J45 null and objects", [update({"sessionUpdate": "plan_update", "_meta": None,
                                      "plan": {**PLAN, "_meta": {"_meta": 1}}})], []),
    ("D1 the client's", [prompt(3, meta=False, extra={"_meta": "x"})], [("D1", 0)]),
    # J39: an empty batch gets one -32600 object with a null id
    ("J39 empty array", [client([]), agent([])], [("J39", 1)]),
    ("J39 array", [client([]), agent([error(-32600, rid=None)["message"]])], [("J39", 1)]),
    ("J39 code", [client([]), error(-32700, rid=None)], [("J39", 1)]),
    ("J39 ok", [client([]), error(-32600, rid=None)], []),
    ("J39 unanswered", [client([])], [("J39", 0)]),
    ("D1 agent's own empty array", [agent([])], [("D1", 0)]),
    # J40: a batch of notifications gets no reply
    ("J40 empty array", [client([note("_a"), note("_b")]), agent([])], [("J40", 1)]),
    ("J40 response", [client([note("_a")]), error(-32601, rid=None)], [("J40", 1)]),
    ("J40 quiet", [client([note("_a"), note("_b")])], []),
    # J42, J43: a batch's responses in one array, matched by id
    ("J42 bare answer", [client([call("a")]), result("a")], [("J42", 1)]),
    ("J42 split", [client([call("a"), call("b")]), agent([ok("a")]), result("b")], [("J42", 1)]),
    ("J42 ok any order", [client([call("a"), call("b")]), agent([ok("b"), ok("a")])], []),
    ("J43 another request", [request("z", "session/set_mode"), client([call("a")]),
                             agent([ok("a"), ok("z")])], [("J43", 2)]),
    ("J1 an id of no request", [client([call("a")]), agent([ok("a"), ok("z")])], [("J1", 1)]),
    # J44: a prompt carrying `_meta` is not refused as invalid params
    ("J44 -32602", [prompt(3, meta=True), error(-32602, rid=3)], [("J44", 1)]),
    ("J44 other refusal", [prompt(3, meta=True), error(-32000, rid=3)], []),
    ("J44 no _meta", [prompt(3, meta=False), error(-32602, rid=3)], []),
]

# The kit's probes: the client is at fault on purpose (an invalid batch entry is its D1), so
# they are judged on the agent's side: rule, recording, what the agent breaks.
PROBES: list[tuple[str, list[dict[str, Any]], list[tuple[str, int]]]] = [
    ("J41 unanswered", [client([call("a"), 17]), agent([ok("a")])], [("J41", 1)]),
    ("J41 code", [client([17]), agent([error(-32700, rid=None)["message"]])], [("J41", 1)]),
    ("J41 ok", [client([call("a"), 17, True]), agent([ok("a"), *[invalid()] * 2])], []),
    ("J41 and J42", [client([call("a"), 17]), agent([invalid()])], [("J42", 1)]),
]


@pytest.mark.parametrize(("name", "entries", "expected"), CASES, ids=[c[0] for c in CASES])
def test_what_the_checker_finds(
    name: str, entries: list[dict[str, Any]], expected: list[tuple[str, int]]
) -> None:
    found = acp.check_trace(entries, revision=acp.V2_2026_08)
    assert [(v.rule, v.index) for v in found] == expected, name


@pytest.mark.parametrize(("name", "entries", "expected"), PROBES, ids=[c[0] for c in PROBES])
def test_what_the_agent_breaks_in_a_probe(
    name: str, entries: list[dict[str, Any]], expected: list[tuple[str, int]]
) -> None:
    assert agents_findings(entries) == expected, name


PROBE_TRACES = sorted((Path(__file__).resolve().parent / "traces" / "probes").glob("*.jsonl"))


@pytest.mark.parametrize("path", PROBE_TRACES, ids=lambda p: p.stem)
def test_each_probe_recording_breaks_its_rule_on_the_agents_side(path: Path) -> None:
    # `bad_<RULE>_<LINE>_...`: the agent breaks that rule there, and nothing else; `good_`:
    # nothing. The client's deliberate fault (its D1) is at the client's line.
    entries = [json.loads(line) for line in path.read_text("utf-8").splitlines()]
    found = agents_findings(entries)
    parts = path.stem.split("_")
    assert found == ([] if parts[0] == "good" else [(parts[1], int(parts[2]))])


def _framing_with_everything() -> Any:
    """A `Framing` holding something in each of its maps: a pending `_` request, answered
    ids, a batch with a pending request and an invalid entry, an unanswered empty batch."""
    from acp_core._rules._check_jsonrpc import Framing

    framing = Framing()
    lines: list[dict[str, Any]] = [
        request(1, "session/set_mode"),
        result(1),
        request(9, "_zed/ping"),
        client([call("a"), call("b"), 17]),
        client([]),
    ]
    for i, entry in enumerate(lines):
        framing.see(i, entry["from"], entry["message"])
    return framing


def test_framing_copy_shares_its_persistent_maps() -> None:
    # `copy()` is O(1): a checker's draft takes one per call (`IncrementalCheck.feed`).
    original = _framing_with_everything()
    for name in ("_requests", "_answered", "_answered_order", "_batches", "_empty"):
        assert getattr(original, name), name
    twin = original.copy()
    for name in type(original).__slots__:
        assert getattr(twin, name) is getattr(original, name), name


def test_framing_copy_changes_leave_the_original_as_it_was() -> None:
    original = _framing_with_everything()
    before = {name: getattr(original, name) for name in type(original).__slots__}
    warnings = original.finish()
    assert [w[0] for w in warnings] == ["J35", "J39"]
    twin = original.copy()
    continuation: list[dict[str, Any]] = [
        agent([ok("a")]),  # the batch's reply array: J41 (17) and J42 ("b")
        error(-32600, rid=None),  # the empty batch's answer
        result(9),  # the `_` request's answer
        request(2, "frobnicate"),
        result(2),  # J34
    ]
    found = [
        f[0]
        for i, entry in enumerate(continuation, start=5)
        for f in twin.see(i, entry["from"], entry["message"])[0]
    ]
    assert found == ["J41", "J42", "J34"]
    assert twin.finish() == []
    for name, value in before.items():
        assert getattr(original, name) is value, name
    assert original.finish() == warnings
    # And the original reads the same continuation as the copy did.
    again = [
        f[0]
        for i, entry in enumerate(continuation, start=5)
        for f in original.see(i, entry["from"], entry["message"])[0]
    ]
    assert again == found
