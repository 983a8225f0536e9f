"""The agent's answers to session management requests (J50-J64), a good/bad table per rule.

Every pair differs in the one thing its rule judges, and is checked at every revision: the
methods (`session/list`, `close`, `delete`, `set_config_option`, `additionalDirectories`)
exist in 2026-08, 2026-11 and the Preview alike. What a recording cannot show (an error
answer without the setup or the capability it is judged against) is not judged.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import acp_core as acp
from acp_core._rules._check_answers import CHECKED

REVISIONS = (acp.V2_2026_08, acp.V2_2026_11, acp.V2_PREVIEW)
S = "sess_abc123def456"
CWD = "/home/user/project"
Entry = dict[str, Any]
Build = Callable[[acp.Revision], list[Entry]]
Index = int | Callable[[acp.Revision], int]  # the bad trace's line (per revision)


def client(**message: Any) -> Entry:
    return {"from": "client", "message": {"jsonrpc": "2.0", **message}}


def agent(**message: Any) -> Entry:
    return {"from": "agent", "message": {"jsonrpc": "2.0", **message}}


def update(upd: dict[str, Any]) -> Entry:
    return agent(method="session/update", params={"sessionId": S, "update": upd})


def error(i: int, code: int = -32603, message: str = "Internal error") -> Entry:
    return agent(id=i, error={"code": code, "message": message})


def init(**session: Any) -> list[Entry]:
    return [
        client(
            id=0,
            method="initialize",
            params={
                "protocolVersion": 2,
                "info": {"name": "c", "version": "1"},
                "capabilities": {},
            },
        ),
        agent(
            id=0,
            result={
                "protocolVersion": 2,
                "info": {"name": "a", "version": "1"},
                "capabilities": {"session": session},
            },
        ),
    ]


FULL: dict[str, Any] = {"delete": {}, "additionalDirectories": {}}


def new(i: int, result: dict[str, Any] | None = None, **params: Any) -> list[Entry]:
    return [
        client(id=i, method="session/new", params={"cwd": CWD, **params}),
        agent(id=i, result={"sessionId": S} if result is None else result),
    ]


def resume(rev: acp.Revision, i: int, answer: Entry, **params: Any) -> list[Entry]:
    # From 2026-11 on a resume answer follows the session's state snapshot (R62).
    snapshot = [update({"sessionUpdate": "state_update", "state": "idle"})]
    return [
        client(id=i, method="session/resume", params={"sessionId": S, "cwd": CWD, **params}),
        *(snapshot if rev.includes("2026-11") and "result" in answer["message"] else []),
        answer,
    ]


def listing(i: int, sessions: Any, **params: Any) -> list[Entry]:
    return [
        client(id=i, method="session/list", params=params),
        agent(id=i, result={"sessions": sessions}),
    ]


def info(cwd: str = CWD, sid: str = S, **more: Any) -> dict[str, Any]:
    return {"sessionId": sid, "cwd": cwd, **more}


def select(current: str = "code", cid: str = "mode") -> dict[str, Any]:
    values = [{"value": "ask", "name": "Ask"}, {"value": "code", "name": "Code"}]
    return {"type": "select", "configId": cid, "name": "Mode", "currentValue": current,
            "options": values}  # fmt: skip


BOOL: dict[str, Any] = {"type": "boolean", "configId": "fast", "name": "Fast", "currentValue": True}


def close(i: int, answer: Entry) -> list[Entry]:
    return [client(id=i, method="session/close", params={"sessionId": S}), answer]


def delete(i: int, answer: Entry, sid: str = S) -> list[Entry]:
    return [client(id=i, method="session/delete", params={"sessionId": sid}), answer]


def set_mode(i: int, options: list[Any]) -> list[Entry]:
    return [
        client(id=i, method="session/set_config_option",
               params={"sessionId": S, "configId": "mode", "value": "ask"}),
        agent(id=i, result={"configOptions": options}),
    ]  # fmt: skip


def turn(rev: acp.Revision, outcome: str) -> list[Entry]:
    accepted = {"messageId": "msg_user_1"} if rev.includes("2026-11") else {}
    text = [{"type": "text", "text": "Fix it"}]
    return [
        client(id=2, method="session/prompt", params={"sessionId": S, "prompt": text}),
        agent(id=2, result=accepted),
        update({"sessionUpdate": "user_message", "messageId": "msg_user_1", "content": text}),
        update({"sessionUpdate": "state_update", "state": "running"}),
        client(id=3, method="session/prompt", params={"sessionId": S, "prompt": text}),
        update({"sessionUpdate": "state_update", "state": "requires_action"}),
        agent(id=0, method="session/request_permission",
              params={"sessionId": S, "title": "Edit?",
                      "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}]}),
        client(id=0, result={"outcome": {"outcome": outcome, "optionId": "ok"}}),
        error(3, -32602, "Invalid params"),
        update({"sessionUpdate": "state_update", "state": "running"}),
        update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}),
    ]  # fmt: skip


def tool(tool_call_id: str) -> list[Entry]:
    return [update({"sessionUpdate": "tool_call_update", "toolCallId": tool_call_id,
                    "title": "Reading", "kind": "read", "status": "pending"})]  # fmt: skip


def chunk(tool_call_id: str) -> list[Entry]:
    content = {"type": "content", "content": {"type": "text", "text": "x"}}
    return [
        *tool("call_1"),
        update({"sessionUpdate": "tool_call_content_chunk", "toolCallId": tool_call_id,
                "content": content}),
    ]  # fmt: skip


def after_snapshot(rev: acp.Revision) -> int:
    """The line of a resume answer after `init()` (the snapshot comes first from 2026-11)."""
    return 4 if rev.includes("2026-11") else 3


# (rule, good, bad, the bad trace's line): each good/bad pair differs in what the rule judges.
CASES: list[tuple[str, Build, Build, Index]] = [
    ("J50", lambda r: [*init(), *listing(1, [info()])],
     lambda r: [*init(), client(id=1, method="session/list", params={}),
                agent(id=1, result={"sessions": {"sess_1": info()}})], 3),
    ("J50", lambda r: [client(id=1, method="session/list", params={}),
                       agent(id=1, result={"sessions": [], "nextCursor": ""})],
     lambda r: [client(id=1, method="session/list", params={}),
                agent(id=1, result={"sessions": [], "nextCursor": 2})], 1),
    ("J50", lambda r: listing(1, [info()]), lambda r: listing(1, [{"sessionId": S}]), 1),
    ("J51", lambda r: listing(1, [info(CWD + "/")], cwd=CWD),
     lambda r: listing(1, [info("/home/user")], cwd=CWD), 1),
    ("J52", lambda r: listing(1, [info(additionalDirectories=["/srv/lib"])]),
     lambda r: listing(1, [info(additionalDirectories=["lib"])]), 1),
    ("J52", lambda r: listing(1, [info("C:\\work")]), lambda r: listing(1, [info("work")]), 1),
    ("J53", lambda r: [*init(), *new(1), *close(2, agent(id=2, result={}))],
     lambda r: [*init(), *new(1), *close(2, error(2))], 5),
    ("J53", lambda r: [*init(), *new(1), *close(2, agent(id=2, result={})), *close(3, error(3))],
     lambda r: [*init(), *new(1), *close(3, error(3))], 5),
    ("J54", lambda r: [*init(**FULL), *new(1), *delete(2, agent(id=2, result={"_meta": {}}))],
     lambda r: [*init(**FULL), *new(1), *delete(2, agent(id=2, result={"ok": True}))], 5),
    ("J54", lambda r: [*init(), *new(1), *delete(2, error(2, -32601, "Method not found"))],
     lambda r: [*init(**FULL), *new(1), *delete(2, error(2))], 5),
    ("J55", lambda r: [*init(**FULL), *new(1), *delete(2, agent(id=2, result={})),
                       *listing(3, [])],
     lambda r: [*init(**FULL), *new(1), *delete(2, agent(id=2, result={})),
                *listing(3, [info()])], 7),
    ("J56", lambda r: [*init(**FULL), *delete(1, agent(id=1, result={}), "sess_gone")],
     lambda r: [*init(**FULL), *delete(1, error(1), "sess_gone")], 3),
    ("J56", lambda r: [*init(**FULL), *new(1), *delete(2, agent(id=2, result={})),
                       *delete(3, agent(id=3, result={}))],
     lambda r: [*init(**FULL), *new(1), *delete(2, agent(id=2, result={})),
                *delete(3, error(3))], 7),
    ("J57", lambda r: [*init(**FULL), client(id=1, method="session/new",
                                             params={"cwd": CWD, "additionalDirectories": ["lib"]}),
                       error(1, -32602, "Invalid params")],
     lambda r: [*init(**FULL), client(id=1, method="session/new",
                                      params={"cwd": CWD, "additionalDirectories": ["/srv/lib"]}),
                error(1, -32602, "Invalid params")], 3),
    ("J58", lambda r: [*init(**FULL), *new(1), *resume(r, 2, agent(id=2, result={}),
                                                       additionalDirectories=["/srv/lib"])],
     lambda r: [*init(**FULL), *new(1), *resume(r, 2, error(2, -32602, "Invalid params"),
                                                additionalDirectories=["/srv/lib"])], 5),
    ("J59", lambda r: [*init(), *new(1, {"sessionId": S, "configOptions": [select(), BOOL]})],
     lambda r: [*init(), *new(1, {"sessionId": S, "configOptions": [{"type": "select",
                "configId": "mode", "name": "Mode", "currentValue": "ask", "options": [
                    {"value": "ask", "name": "Ask"},
                    {"groupId": "g", "name": "G", "options": []}]}]})], 3),
    ("J59", lambda r: [*init(), *new(1, {"sessionId": S, "configOptions": [
                {"type": "_custom", "configId": "x", "name": "X"}]})],
     lambda r: [*init(), *new(1, {"sessionId": S, "configOptions": [
                {"type": "_custom", "name": "X"}]})], 3),
    ("J60", lambda r: [*init(), *resume(r, 1, agent(id=1, result={"configOptions": [BOOL]}))],
     lambda r: [*init(), *resume(r, 1, agent(id=1, result={"configOptions": [
                dict(BOOL, currentValue="on")]}))], after_snapshot),
    ("J61", lambda r: [*init(), *new(1, {"sessionId": S, "configOptions": [select("ask")]})],
     lambda r: [*init(), *new(1, {"sessionId": S, "configOptions": [select("plan")]})], 3),
    ("J61", lambda r: [*init(), *new(1), *set_mode(2, [select("ask")])],
     lambda r: [*init(), *new(1), *set_mode(2, [select("plan")])], 5),
    ("J61", lambda r: [update({"sessionUpdate": "config_option_update",
                               "configOptions": [select("ask")]})],
     lambda r: [update({"sessionUpdate": "config_option_update",
                        "configOptions": [select("plan")]})], 0),
    ("J62", lambda r: [*init(), *new(1, {"sessionId": S, "configOptions": [select(), BOOL]}),
                       *set_mode(2, [select("ask"), BOOL])],
     lambda r: [*init(), *new(1, {"sessionId": S, "configOptions": [select(), BOOL]}),
                *set_mode(2, [select("ask")])], 5),
    ("J62", lambda r: [update({"sessionUpdate": "config_option_update",
                               "configOptions": [select(), BOOL]}),
                       *set_mode(2, [select("ask"), BOOL])],
     lambda r: [update({"sessionUpdate": "config_option_update",
                        "configOptions": [select(), BOOL]}),
                *set_mode(2, [select("ask")])], 2),
    ("J63", lambda r: tool("call_1"), lambda r: tool(""), 0),
    ("J63", lambda r: chunk("call_1"), lambda r: chunk(""), 1),
    ("J64", lambda r: turn(r, "selected"), lambda r: turn(r, "_tck/unknown"), 8),
]  # fmt: skip

# What a recording cannot show is not judged: (what, trace).
NOT_JUDGED: list[tuple[str, Build]] = [
    ("a close refused mid-session", lambda r: close(1, error(1))),
    ("a refused list", lambda r: [client(id=1, method="session/list", params={}), error(1)]),
    ("a delete refused without the capability",
     lambda r: [*init(), *new(1), *delete(2, error(2))]),
    ("a delete of an unknown session refused mid-session", lambda r: delete(1, error(1))),
    ("a session/new refused for another reason",
     lambda r: [*init(**FULL), client(id=1, method="session/new",
                                      params={"cwd": CWD, "additionalDirectories": ["/srv"]}),
                error(1, -32603, "Internal error")]),
    ("additionalDirectories refused without the capability",
     lambda r: [*init(), client(id=1, method="session/new",
                                params={"cwd": CWD, "additionalDirectories": ["/srv"]}),
                error(1, -32602, "Invalid params")]),
    ("additionalDirectories refused with MCP servers in the request",
     lambda r: [*init(**FULL), *new(1, cwd=CWD, additionalDirectories=["/srv"],
                                   mcpServers=[{"type": "http", "name": "m", "url": "http://x"}])
                [:1], error(1, -32602, "Invalid params")]),
    ("a resume of a session the recording never set up refused as invalid",
     lambda r: [*init(**FULL), *resume(r, 1, error(1, -32602, "Unknown session"),
                                       additionalDirectories=["/srv"])]),
    ("a set answer against no earlier option set", lambda r: set_mode(1, [select("ask")])),
    ("a session listed again after its resume",
     lambda r: [*init(**FULL), *new(1), *delete(2, agent(id=2, result={})),
                *resume(r, 3, agent(id=3, result={})), *listing(4, [info()])]),
    ("a prompt refused before a custom outcome",
     lambda r: [*(t := turn(r, "_x"))[:7], t[8], t[7], *t[9:]]),
]  # fmt: skip


def _found(entries: list[Entry], rev: acp.Revision) -> list[tuple[str, int]]:
    return [(v.rule, v.index) for v in acp.check_trace(entries, revision=rev) if not v.warning]


_IDS = [f"{rule}-{n}" for n, (rule, *_rest) in enumerate(CASES)]


@pytest.mark.parametrize("rev", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize(("rule", "good", "bad", "index"), CASES, ids=_IDS)
def test_the_bad_trace_breaks_its_rule_and_the_good_one_none(
    rule: str, good: Build, bad: Build, index: Index, rev: acp.Revision
) -> None:
    at = index if isinstance(index, int) else index(rev)
    assert _found(good(rev), rev) == []
    assert _found(bad(rev), rev) == [(rule, at)]


@pytest.mark.parametrize("rev", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize(("what", "trace"), NOT_JUDGED, ids=[w for w, _ in NOT_JUDGED])
def test_what_a_recording_cannot_show_is_not_judged(
    what: str, trace: Build, rev: acp.Revision
) -> None:
    assert _found(trace(rev), rev) == [], what


def test_the_table_covers_every_rule_of_the_module_and_j63() -> None:
    assert {rule for rule, *_ in CASES} == CHECKED | {"J61", "J63"}


def test_every_rule_carries_its_kit_id() -> None:
    for rule in {rule for rule, *_ in CASES}:
        assert acp.RULES[rule].kit_id, rule
        assert acp.RULES[rule].checked, rule


_FIELDS = ("pending", "capabilities", "live", "closed", "deleted", "options", "prompts",
           "permissions", "custom")  # fmt: skip


def _answers(check: Any) -> Any:
    return check._memory.answers


def test_a_copy_shares_every_field_and_a_fed_copy_leaves_the_original_as_it_was() -> None:
    from acp_core._rules._check_answers import Answers
    from acp_core._rules._recent import Recent
    from acp_core._state._pcoll import PMap
    from acp_core.checker import IncrementalCheck

    rev = acp.V2_2026_08
    t = turn(rev, "_x")
    # Every field holds something: a setup, a close, a delete, options, a pending list, a
    # pending prompt and permission request, a prompt pending at a custom outcome.
    prefix = [
        *init(**FULL), *new(1, result={"sessionId": S, "configOptions": [select()]}),
        *new(7, result={"sessionId": "sess_two"}),
        client(id=8, method="session/close", params={"sessionId": "sess_two"}),
        agent(id=8, result={}),
        *delete(9, agent(id=9, result={}), sid="sess_gone"),
        client(id=10, method="session/list", params={}), *t[:8],
        agent(id=1, method="session/request_permission",
              params={"sessionId": S, "title": "Again?",
                      "options": [{"optionId": "ok", "name": "Allow", "kind": "allow_once"}]}),
    ]  # fmt: skip
    base = IncrementalCheck.start(rev).feed_all(prefix)
    original = _answers(base)
    assert isinstance(original, Answers)
    for name in _FIELDS:
        value = getattr(original, name)
        assert value, name
        # (a persistent map; the memories of ids a peer grows are bounded ones, `Recent`)
        assert name == "capabilities" or isinstance(value, (PMap, Recent)), name
    twin = original.copy()
    assert twin is not original
    for name in (*_FIELDS, "revision"):
        assert getattr(twin, name) is getattr(original, name), name
    # Each entry changes the draft's copy; the stored record keeps the very same values.
    before = {name: getattr(original, name) for name in _FIELDS}
    verdict = base.finish()
    rest = [
        client(id=1, result={"outcome": {"outcome": "selected", "optionId": "ok"}}),
        *t[8:], agent(id=10, result={"sessions": [info()]}),
        *set_mode(11, [select("ask"), BOOL]), *close(12, agent(id=12, result={})),
        *delete(13, agent(id=13, result={})),
        client(id=14, method="session/delete", params={"sessionId": "sess_next"}),
    ]  # fmt: skip
    check = base
    for entry in rest:
        fed = check.feed(entry)
        assert _answers(fed) is not _answers(check)
        check = fed
    assert [(v.rule, v.index) for v in check.finish() if not v.warning] == [
        ("J64", len(prefix) + 1)
    ]
    changed = {n for n in _FIELDS if getattr(_answers(check), n) is not before[n]}
    assert changed == set(_FIELDS) - {"capabilities"}
    for name in _FIELDS:
        assert getattr(original, name) is before[name], name
    assert base.finish() == verdict
