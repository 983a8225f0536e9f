"""What `initialize` advertised, held against later traffic (J70-J80, and C2, the client's side
of J70-J72; acp_core/_rules/_check_capabilities.py): a table of small recordings, each with what
the checker must say (the rule at a line, or nothing), so both the faults and the traffic that
only looks like them stay pinned.
"""

from __future__ import annotations

from typing import Any

import pytest

import acp_core as acp

CWD = "/home/user/project"
TEXT = {"type": "text", "text": "Look at this"}
IMAGE = {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"}
AUDIO = {"type": "audio", "data": "UklGRg==", "mimeType": "audio/wav"}
RESOURCE = {"type": "resource", "resource": {"uri": "file:///n.txt", "text": "n"}}
LINK = {"type": "resource_link", "uri": "file:///home/user/project/README.md", "name": "README"}
ALL_CONTENT = {"session": {"prompt": {"image": {}, "audio": {}, "embeddedContext": {}}}}
AUTH = [{"type": "agent", "methodId": "api_key", "name": "API key"}]
TERMINAL_AUTH = [{"type": "terminal", "methodId": "tui", "name": "Log in in a terminal"}]
FORM = {"type": "object", "properties": {"branch": {"type": "string"}}}


def client(**message: Any) -> dict[str, Any]:
    return {"from": "client", "message": {"jsonrpc": "2.0", **message}}


def agent(**message: Any) -> dict[str, Any]:
    return {"from": "agent", "message": {"jsonrpc": "2.0", **message}}


def init(
    caps: dict[str, Any] | None = None,
    auth: list[Any] | None = None,
    client_caps: dict[str, Any] | None = None,
    version: int = 2,
) -> list[dict[str, Any]]:
    result: dict[str, Any] = {
        "protocolVersion": version,
        "info": {"name": "a", "version": "1"},
        "capabilities": {"session": {}} if caps is None else caps,
    }
    if auth is not None:
        result["authMethods"] = auth
    params = {"protocolVersion": 2, "info": {"name": "c", "version": "1"}}
    return [
        client(id=0, method="initialize", params={**params, "capabilities": client_caps or {}}),
        agent(id=0, result=result),
    ]


def session(sid: str = "s1", rid: int = 1) -> list[dict[str, Any]]:
    return [
        client(id=rid, method="session/new", params={"cwd": CWD, "mcpServers": []}),
        agent(id=rid, result={"sessionId": sid}),
    ]


def refused(rid: int, code: int) -> dict[str, Any]:
    return agent(id=rid, error={"code": code, "message": "refused"})


def prompt(blocks: list[Any], sid: str = "s1", rid: int = 2) -> dict[str, Any]:
    return client(id=rid, method="session/prompt", params={"sessionId": sid, "prompt": blocks})


def elicit(mode: str) -> dict[str, Any]:
    extra = {"requestedSchema": FORM} if mode == "form" else {"elicitationId": "e", "url": "x"}
    params = {"sessionId": "s1", "mode": mode, "message": "?", **extra}
    return agent(id=0, method="elicitation/create", params=params)


def new(params: dict[str, Any], rid: int = 1) -> dict[str, Any]:
    return client(id=rid, method="session/new", params=params)


def login(method_id: str, rid: int = 1) -> dict[str, Any]:
    return client(id=rid, method="auth/login", params={"methodId": method_id})


# (case, trace, what the checker says: (rule, line) or None)
# fmt: off
CASES: list[tuple[str, list[dict[str, Any]], tuple[str, int] | None]] = [
    # J70-J73: prompt content the agent takes, refused as invalid
    ("image", [*init(ALL_CONTENT), *session(), prompt([TEXT, IMAGE]), refused(2, -32602)], ("J70", 5)),  # noqa: E501
    ("audio", [*init(ALL_CONTENT), *session(), prompt([AUDIO]), refused(2, -32602)], ("J71", 5)),
    ("resource", [*init(ALL_CONTENT), *session(), prompt([RESOURCE]), refused(2, -32602)], ("J72", 5)),  # noqa: E501
    ("link", [*init(), *session(), prompt([TEXT, LINK]), refused(2, -32602)], ("J73", 5)),
    ("the first beyond the baseline names the rule", [*init(ALL_CONTENT), *session(), prompt([LINK, AUDIO, IMAGE]), refused(2, -32602)], ("J71", 5)),  # noqa: E501
    ("image not advertised: the client's fault", [*init(), *session(), prompt([TEXT, IMAGE]), refused(2, -32602)], ("C2", 4)),  # noqa: E501
    ("image advertised, audio not", [*init({"session": {"prompt": {"image": {}}}}), *session(), prompt([IMAGE, AUDIO]), refused(2, -32602)], ("C2", 4)),  # noqa: E501
    ("null marker: not advertised", [*init({"session": {"prompt": {"image": None}}}), *session(), prompt([IMAGE]), refused(2, -32602)], ("C2", 4)),  # noqa: E501
    ("C2: sent, even when accepted", [*init(), *session(), prompt([RESOURCE]), agent(id=2, result={})], ("C2", 4)),  # noqa: E501
    ("C2: before the agent answered initialize (C1's)", [init()[0], prompt([IMAGE], rid=3)], None),
    ("C2: an unknown block type", [*init(), *session(), prompt([{"type": "_sketch", "strokes": []}]), refused(2, -32602)], None),  # noqa: E501
    ("refused for another reason", [*init(ALL_CONTENT), *session(), prompt([IMAGE]), refused(2, -32603)], None),  # noqa: E501
    ("a session the recording never set up", [*init(ALL_CONTENT), prompt([IMAGE], sid="s9"), refused(2, -32602)], None),  # noqa: E501
    ("a closed session", [*init(ALL_CONTENT), *session(), client(id=3, method="session/close", params={"sessionId": "s1"}), prompt([IMAGE]), refused(2, -32602)], None),  # noqa: E501
    ("text only", [*init(), *session(), prompt([TEXT]), refused(2, -32602)], None),
    ("accepted", [*init(ALL_CONTENT), *session(), prompt([IMAGE]), agent(id=2, result={})], None),
    ("mid-session: nothing advertised is known", [prompt([IMAGE]), refused(2, -32602)], None),
    ("another protocol", [*init(ALL_CONTENT, version=1), *session(), prompt([IMAGE]), refused(2, -32602)], None),  # noqa: E501
    # J74: session/new without MCP servers, refused as invalid
    ("mcpServers omitted", [*init(), new({"cwd": CWD}), refused(1, -32602)], ("J74", 3)),
    ("mcpServers empty", [*init(), new({"cwd": CWD, "mcpServers": []}), refused(1, -32602)], ("J74", 3)),  # noqa: E501
    ("with _meta", [*init(), new({"cwd": CWD, "_meta": {"k": 1}}), refused(1, -32602)], ("J74", 3)),
    ("a relative cwd may be refused", [*init(), new({"cwd": "project"}), refused(1, -32602)], None),
    ("another field may be what is refused", [*init(), new({"cwd": CWD, "additionalDirectories": ["/x"]}), refused(1, -32602)], None),  # noqa: E501
    ("servers given", [*init(), new({"cwd": CWD, "mcpServers": [{"name": "m", "command": "/bin/m", "args": [], "env": []}]}), refused(1, -32602)], None),  # noqa: E501
    # J75: session/resume answered "method not found"
    ("resume", [*init(), client(id=1, method="session/resume", params={"sessionId": "s", "cwd": CWD}), refused(1, -32601)], ("J75", 3)),  # noqa: E501
    ("resume without sessions advertised", [*init({}), client(id=1, method="session/resume", params={"sessionId": "s", "cwd": CWD}), refused(1, -32601)], None),  # noqa: E501
    ("resume of an unknown session", [*init(), client(id=1, method="session/resume", params={"sessionId": "s", "cwd": CWD}), refused(1, -32002)], None),  # noqa: E501
    # J76: auth/logout answered "method not found"
    ("logout", [*init(auth=AUTH), client(id=1, method="auth/logout", params={}), refused(1, -32601)], ("J76", 3)),  # noqa: E501
    ("logout with no auth methods (the client's fault)", [*init(), client(id=1, method="auth/logout", params={}), refused(1, -32601)], None),  # noqa: E501
    ("logout fails otherwise", [*init(auth=AUTH), client(id=1, method="auth/logout", params={}), refused(1, -32603)], None),  # noqa: E501
    # J77: auth/login with an advertised method
    ("login", [*init(auth=AUTH), login("api_key"), refused(1, -32601)], ("J77", 3)),
    ("login with a method never advertised", [*init(auth=AUTH), login("other"), refused(1, -32601)], None),  # noqa: E501
    ("login with a terminal method", [*init(auth=TERMINAL_AUTH, client_caps={"auth": {"terminal": {}}}), login("tui"), refused(1, -32601)], None),  # noqa: E501
    ("bad credentials", [*init(auth=AUTH), login("api_key"), refused(1, -32000)], None),
    ("unauthenticated after a login", [*init(auth=AUTH), login("api_key"), agent(id=1, result={}), new({"cwd": CWD}, rid=2), refused(2, -32000)], ("J77", 5)),  # noqa: E501
    ("unauthenticated after a failed login", [*init(auth=AUTH), login("api_key"), refused(1, -32603), new({"cwd": CWD}, rid=2), refused(2, -32000)], None),  # noqa: E501
    ("unauthenticated before any login", [*init(auth=AUTH), new({"cwd": CWD}), refused(1, -32000)], None),  # noqa: E501
    # J78: unauthenticated with no auth method to log in with
    ("no auth methods", [*init(), new({"cwd": CWD}), refused(1, -32000)], ("J78", 3)),
    ("empty auth methods", [*init(auth=[]), new({"cwd": CWD}), refused(1, -32000)], ("J78", 3)),
    # J79: elicitation in a mode the client did not enable
    ("no mode enabled", [*init(), *session(), elicit("form")], ("J79", 4)),
    ("url not enabled", [*init(client_caps={"elicitation": {"form": {}}}), *session(), elicit("url")], ("J79", 4)),  # noqa: E501
    ("a custom mode with no mode enabled", [*init(), *session(), elicit("_voice")], ("J79", 4)),
    ("form enabled", [*init(client_caps={"elicitation": {"form": {}}}), *session(), elicit("form")], None),  # noqa: E501
    ("a custom mode with a mode enabled", [*init(client_caps={"elicitation": {"url": {}}}), *session(), elicit("_voice")], None),  # noqa: E501
    ("mid-session: the client's capabilities are unknown", [elicit("form")], None),
    # J80: methods no client defines
    ("fs", [*init(), *session(), agent(id=0, method="fs/read_text_file", params={"sessionId": "s1", "path": "/x"})], ("J80", 4)),  # noqa: E501
    ("terminal notification", [*init(), *session(), agent(method="terminal/output", params={})], ("J80", 4)),  # noqa: E501
    ("an agent method", [*init(), *session(), agent(id=0, method="session/new", params={"cwd": CWD})], ("J80", 4)),  # noqa: E501
    ("mid-session too", [agent(id=0, method="terminal/create", params={"command": "ls"})], ("J80", 0)),  # noqa: E501
    ("custom", [*init(), *session(), agent(id=0, method="_acme/ping", params={})], None),
    ("protocol", [*init(), *session(), agent(method="$/cancel_request", params={"requestId": 0})], None),  # noqa: E501
]
# fmt: on


@pytest.mark.parametrize(("case", "entries", "expected"), CASES, ids=[c[0] for c in CASES])
def test_what_initialize_advertised_is_held_against_later_traffic(
    case: str, entries: list[dict[str, Any]], expected: tuple[str, int] | None
) -> None:
    found = acp.check_trace(entries, revision=acp.V2_2026_08)
    mine = [(v.rule, v.index) for v in found if v.rule in _RULES]
    assert mine == ([] if expected is None else [expected]), [
        (v.rule, v.index, v.message) for v in found
    ]


_RULES = frozenset({"C2", *(f"J{n}" for n in range(70, 81))})


def test_every_rule_of_the_module_has_a_failing_case() -> None:
    assert {e[0] for _c, _t, e in CASES if e is not None} == _RULES
    assert all(acp.RULES[r].checked for r in _RULES)


def test_a_forked_check_keeps_what_was_advertised_apart() -> None:
    from acp_core.checker import IncrementalCheck

    base = IncrementalCheck.start(acp.V2_2026_08).feed_all([*init(ALL_CONTENT), *session()])
    bad = base.feed_all([prompt([IMAGE]), refused(2, -32602)])
    good = base.feed_all([prompt([IMAGE]), agent(id=2, result={})])
    assert [v.rule for v in bad.finish()] == ["J70"]
    assert [v.rule for v in good.finish() if v.rule in _RULES] == []


_PERSISTENT = ("auth_methods", "pending", "sessions", "client", "agent")


def test_copy_shares_the_stored_maps_and_following_the_copy_leaves_them_alone() -> None:
    # copy() is O(1): it shares every value (persistent maps), and whatever the copy follows
    # rebinds its own attributes, never the original's (IncrementalCheck forks on this).
    from acp_core._rules._check_capabilities import Capabilities
    from acp_core.checker import IncrementalCheck

    trace = [*init(ALL_CONTENT, auth=AUTH), *session(), prompt([IMAGE])]  # the prompt pending
    base = IncrementalCheck.start(acp.V2_2026_08).feed_all(trace)
    caps: Capabilities = base._memory.caps
    assert set(caps.sessions) == {"s1"}
    assert set(caps.auth_methods) == {"api_key"}
    assert len(caps.pending) == 1
    before = {name: getattr(caps, name) for name in Capabilities.__slots__}
    found = base.finish()

    twin = caps.copy()
    assert twin is not caps
    for name in Capabilities.__slots__:
        assert getattr(twin, name) is getattr(caps, name), name
    assert all(getattr(caps, name) is not None for name in _PERSISTENT)

    # the copy follows traffic that changes each map: a refusal (pending), a close (sessions),
    # a new session (pending, then sessions) and a login (pending, logged_in)
    later = [
        refused(2, -32602),
        client(id=3, method="session/close", params={"sessionId": "s1"}),
        *session("s2", rid=4),
        login("api_key", rid=5),
        agent(id=5, result={}),
    ]
    twin_found = []
    for entry in later:
        msg = acp.decode_message(entry["message"], revision=acp.V2_2026_08)
        twin_found.extend(twin.follow(entry["from"], msg))
    assert [rule for rule, _ in twin_found] == ["J70"]
    assert set(twin.sessions) == {"s2"}
    assert len(twin.pending) == 0
    assert twin.logged_in
    for name in ("pending", "sessions"):
        assert getattr(twin, name) is not getattr(caps, name), name
    # the original: the same objects, the same state, the same findings
    assert {name: getattr(caps, name) for name in Capabilities.__slots__} == before
    for name in Capabilities.__slots__:
        assert getattr(caps, name) is before[name], name
    assert set(caps.sessions) == {"s1"}
    assert len(caps.pending) == 1
    assert not caps.logged_in
    assert base.finish() == found

    # the same through the checker's own draft: feeding a fork leaves the stored one alone
    fed = base.feed_all(later)
    assert [v.rule for v in fed.finish() if v.rule in _RULES] == ["J70"]
    assert base._memory.caps is caps
    for name in Capabilities.__slots__:
        assert getattr(caps, name) is before[name], name
    assert base.finish() == found
