"""One fact, one rule id, on both live connections: the agent connection asked to send bad
traffic, the checker reading it as if sent anyway, and the client connection receiving it.

Each case drives a real pair of connections (tests/conn_pair.py: framing, decoding, routing and
the engines all run) to a turn in progress, then asks the agent connection for one intent that
would break a MUST. Three parties must agree on the rule:
- the agent connection refuses it (`LocalProtocolError`) with that rule and changes nothing;
- `check_trace` over the agent's trace with the line appended names exactly that rule;
- the client connection, handed the line as bytes, names it too (a `Finding` event or a
  violation of one of its sessions' engines).
The line is written from the intent (the update encoded at the revision, on the envelope the
intent names), so it is the traffic the agent would have sent.

No row diverges: a party that names another rule fails its row. Below MUST (`SENT`) the
agent connection sends the line and names the rule as a `Finding`, and the other two name it
on the line sent. Then what the agent connection judges of the client's traffic as the checker
does: an answer whose id changed type (J37), and a `session/cancel` read with the session
machine's word on what it cancels (R71).

The 2026-08 twin over the engines is tests/test_rule_consistency.py; the corpus of bad traces
played into the client connection is tests/test_rule_consistency_connection.py.
"""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any, Final

import pytest
from conn_pair import Pair

import acp_core as acp
from acp_core import connection as c
from acp_core import intents as i
from acp_core import values as v
from acp_core.codec import encode_update

PREVIEW: Final = acp.V2_PREVIEW
NOV: Final = acp.V2_2026_11
AUG: Final = acp.V2_2026_08
EVERY: Final = (AUG, NOV, PREVIEW)
Wire = dict[str, Any]
# What the agent does before the bad intent (each on the session `sid`; ("client", intent):
# the client's), and the bad intent.
Before = Callable[[str], list[object]]


def _on(update: Any, child: str | None = None) -> i.SendUpdate:
    return i.SendUpdate(update, session_id=child)


def _text(message_id: str = "m") -> v.AgentMessageChunk:
    return v.AgentMessageChunk(message_id, v.TextContent("x"))


def _announce(child: str, **fields: Any) -> i.SendUpdate:
    return _on(v.SubagentUpdate(child, **fields))


def _cancelled_with(*listed: object) -> list[object]:
    """The prompt accepted, `listed` (agent intents) done, then the client's session/cancel."""
    return [i.AcceptPrompt(2), *listed, ("client", i.SendCancel())]


_LISTED_TOOL: Final = (
    i.StartToolCall("t", tool_call_id="t1"),
    i.ReportBackground((v.BackgroundToolCall("t1"),)),
)
_LISTED_CHILD: Final = (
    _announce("c1"),
    _on(v.RunningStateUpdate(), "c1"),
    i.ReportBackground((v.BackgroundSubagent("c1"),)),
)
_PARTICIPANT: Final = acp.freeze_json({"senderSessionId": "s"})


# (id, rule, revisions, what the agent sends first, the bad intent, its wire update or None
#  for a hand-written line)
CASES: Final[list[tuple[str, str, tuple[acp.Revision, ...], Before, object]]] = [
    # Children and the sessions an update names (Preview).
    # Traffic on a child nobody announced yet: on a connection (which began with
    # `initialize`) the envelope is J3's, and J3 wins over R47 (one finding a fault).
    ("child-traffic-unannounced", "J3", (PREVIEW,), lambda s: [], _on(_text(), "c9")),
    ("child-traffic-of-a-grandchild-of-nobody", "J3", (PREVIEW,),
     lambda s: [_announce("c1")], _on(_text(), "c9")),
    ("session-message-names-unannounced", "R47", (PREVIEW,), lambda s: [],
     _on(v.SessionMessage("sm", sender_session_id="s", recipient_session_id="c9"))),
    ("session-tool-content-names-unknown", "R56", (PREVIEW,), lambda s: [],
     _on(v.ToolCallUpdate("t", title="spawn", content=(v.SessionReference("c9"),)))),
    ("session-content-chunk-names-unknown", "R56", (PREVIEW,),
     lambda s: [_on(v.ToolCallUpdate("t", title="spawn"))],
     _on(v.ToolCallContentChunk("t", v.SessionReference("c9")))),
    ("own-session-as-child", "R48", (PREVIEW,), lambda s: [], "own-session"),
    ("second-parent", "R48", (PREVIEW,),
     lambda s: [_announce("c1"), _announce("c3"), _on(v.SubagentUpdate("c2"), "c1")],
     _on(v.SubagentUpdate("c2"), "c3")),
    ("grandchild-patched-on-an-ancestor", "R49", (PREVIEW,),
     lambda s: [_announce("c1"), _on(v.SubagentUpdate("c2"), "c1")], _announce("c2")),
    ("child-cwd-relative", "R52", (PREVIEW,), lambda s: [], _announce("c2", cwd="relative")),
    ("child-directory-relative", "R52", (PREVIEW,), lambda s: [],
     _announce("c2", additional_directories=("/ok", "rel"))),
    ("markdown-plan-path-relative", "R78", (PREVIEW,), lambda s: [],
     _on(v.PlanUpdate(v.PlanMarkdown("p1", "# plan", path="relative/plan.md")))),
    ("suggestions-not-advertised", "R79", (PREVIEW,), lambda s: [],
     _on(v.PromptSuggestionsUpdate(()))),
    # Replay windows (Preview): a marker no resume with a cursor asked for.
    ("replay-complete-outside-a-replay", "R58", (PREVIEW,), lambda s: [],
     _on(v.ReplayComplete())),
    ("replay-complete-on-a-child-outside-a-replay", "R58", (PREVIEW,),
     lambda s: [_announce("c1")], _on(v.ReplayComplete(), "c1")),
    # A child's foreground state is its own state_update (judged before the engine's
    # lifecycle, which would name a repeated idle: S2).
    ("child-output-ends-idle-never-running", "R50", (PREVIEW,),
     lambda s: [_announce("c1"), _on(_text(), "c1")],
     _on(v.IdleStateUpdate(stop_reason="end_turn"), "c1")),
    # A chunk carries only content: participants travel on session_message upserts.
    ("session-message-chunk-names-a-participant", "R54", (PREVIEW,), lambda s: [],
     _on(v.SessionMessageChunk("sm", v.TextContent("x"), extra=_PARTICIPANT))),
    # A session/cancel leaves listed background work running (2026-11 on).
    ("listed-tool-finished-cancelled-at-session-cancel", "R73", (NOV, PREVIEW),
     lambda s: _cancelled_with(*_LISTED_TOOL), i.FinishToolCall("t1", status="cancelled")),
    ("listed-tool-patched-cancelled-at-session-cancel", "R73", (NOV, PREVIEW),
     lambda s: _cancelled_with(*_LISTED_TOOL), i.PatchToolCall("t1", status="cancelled")),
    ("listed-child-ends-cancelled-at-parents-cancel", "R73", (PREVIEW,),
     lambda s: _cancelled_with(*_LISTED_CHILD),
     _on(v.IdleStateUpdate(stop_reason="cancelled"), "c1")),
    # Background lists (2026-11 on).
    ("background-lists-unreported-tool", "R74", (NOV, PREVIEW), lambda s: [],
     i.ReportBackground((v.BackgroundToolCall("ghost"),))),
    ("background-drops-unfinished-tool", "R74", (NOV, PREVIEW),
     lambda s: [i.StartToolCall("t", tool_call_id="t1"),
                i.ReportBackground((v.BackgroundToolCall("t1"),))],
     i.ReportBackground(())),
    # Values every revision judges.
    ("terminal-cwd-relative", "R33", EVERY, lambda s: [],
     _on(v.TerminalUpdate("t1", cwd="rel/dir"))),
    ("terminal-patch-cwd-relative", "R33", EVERY, lambda s: [], i.PatchTerminal("x", cwd="rel")),
    ("tool-kind-unknown", "R18", EVERY, lambda s: [],
     i.StartToolCall("t", tool_call_id="t1", kind="exec")),
    ("tool-status-unknown", "R18", EVERY, lambda s: [],
     i.StartToolCall("t", tool_call_id="t1", status="queued")),
    ("tool-title-empty", "R14", EVERY, lambda s: [], i.StartToolCall("", tool_call_id="t1")),
    ("tool-call-id-empty", "J63", EVERY, lambda s: [], i.StartToolCall("t", tool_call_id="")),
    ("terminal-id-empty", "R31", EVERY, lambda s: [], i.PatchTerminal("")),
    ("terminal-chunk-id-empty", "R31", EVERY, lambda s: [], i.SendTerminalOutput("", b"x")),
    ("usage-currency-not-iso", "R37", EVERY, lambda s: [],
     i.ReportUsage(1, 100, v.Cost(1.0, "usd"))),
    ("content-type-unknown", "R18", EVERY, lambda s: [],
     i.SendAgentText(v.OtherContent(acp.freeze_json({"type": "widget"})))),
]  # fmt: skip


def _rows() -> list[Any]:
    return [
        pytest.param(rule, revision, before, intent, id=f"{case}-{revision.name}")
        for case, rule, revisions, before, intent in CASES
        for revision in revisions
    ]


def _in_turn(revision: acp.Revision) -> tuple[Pair, str]:
    pair = Pair(revision=revision)
    sid = pair.open()
    pair.client_says(sid, i.SendPrompt((v.TextContent("hi"),)))
    pair.settle()
    return pair, sid


def _wire(pair: Pair, sid: str, intent: object) -> Wire:
    """The line the agent would have sent for `intent` on `sid`."""
    revision = pair.revision
    if intent == "own-session":
        update: Any = encode_update(v.SubagentUpdate(sid), revision=revision)
    elif isinstance(intent, i.SendUpdate):
        update = intent.update
        if isinstance(update, v.SessionMessage):  # the sender is the session it goes on
            update = v.SessionMessage("sm", sender_session_id=sid, recipient_session_id="c9")
        update = encode_update(update, revision=revision)
        sid = intent.session_id or sid
    elif isinstance(intent, i.ReportBackground):
        update = encode_update(v.RunningStateUpdate(background=intent.items), revision=revision)
    elif isinstance(intent, (i.FinishToolCall, i.PatchToolCall)):
        update = {"sessionUpdate": "tool_call_update", "toolCallId": intent.tool_call_id}
        update["status"] = intent.status
    elif isinstance(intent, i.PatchTerminal):
        update = {"sessionUpdate": "terminal_update", "terminalId": intent.terminal_id}
        if isinstance(intent.cwd, str):
            update["cwd"] = intent.cwd
    elif isinstance(intent, i.SendTerminalOutput):
        data = base64.b64encode(intent.data).decode()
        update = {"sessionUpdate": "terminal_output_chunk", "terminalId": intent.terminal_id}
        update["data"] = data
    elif isinstance(intent, i.ReportUsage):
        usage = v.UsageUpdate(intent.used, intent.size, intent.cost)
        update = encode_update(usage, revision=revision)
    elif isinstance(intent, i.StartToolCall):
        update = {"sessionUpdate": "tool_call_update", "toolCallId": intent.tool_call_id}
        update["title"] = intent.title
        update["kind"] = intent.kind
        update["status"] = intent.status
    else:
        assert isinstance(intent, i.SendAgentText)
        block = {"type": "widget"}
        update = {"sessionUpdate": "agent_message_chunk", "messageId": "a", "content": block}
    params = {"sessionId": sid, "update": update}
    return {"jsonrpc": "2.0", "method": "session/update", "params": params}


def _intent(sid: str, intent: object) -> object:
    if intent == "own-session":
        return _on(v.SubagentUpdate(sid))
    if isinstance(intent, i.SendUpdate) and isinstance(intent.update, v.SessionMessage):
        return _on(v.SessionMessage("sm", sender_session_id=sid, recipient_session_id="c9"))
    return intent


def _announcing(sid: str, child: str) -> Wire:
    update = {"sessionUpdate": "subagent_update", "sessionId": child}
    params = {"sessionId": sid, "update": update}
    return {"jsonrpc": "2.0", "method": "session/update", "params": params}


def _client_rules(pair: Pair, lines: list[Wire]) -> list[str]:
    data = b"".join((json.dumps(line) + "\n").encode() for line in lines)
    step = acp.receive_bytes(pair.client, data)
    found = [e.rule for e in step.events if isinstance(e, c.Finding)]
    for session in step.connection.sessions.values():
        found.extend(x.rule for x in session.engine.violations if not x.warning)
    return found


@pytest.mark.parametrize(("rule", "revision", "before", "intent"), _rows())
def test_agent_connection_checker_and_client_connection_name_the_same_rule(
    rule: str, revision: acp.Revision, before: Before, intent: object
) -> None:
    pair, sid = _in_turn(revision)
    for earlier in before(sid):
        if isinstance(earlier, tuple):
            pair.client_says(sid, earlier[1])
        else:
            pair.agent_says(sid, earlier)
        pair.settle()
    assert pair.findings("agent") == []
    assert pair.findings("client") == []
    start = pair.agent
    with pytest.raises(acp.LocalProtocolError) as refused:
        pair.agent_says(sid, _intent(sid, intent))
    assert refused.value.rule == rule
    assert str(refused.value), "a refusal says why"
    assert pair.agent == start  # nothing changed, nothing sent
    lines = [_wire(pair, sid, intent)]
    if rule in ("J3", "R47", "R56"):  # named early: the name is announced afterwards
        lines.append(_announcing(sid, "c9"))
    entries = [*pair.agent_trace, *({"from": "agent", "message": m} for m in lines)]
    checked = [x.rule for x in acp.check_trace(entries, revision=revision) if not x.warning]
    assert checked == [rule]
    assert rule in _client_rules(pair, lines)


# Faults below MUST: the agent connection sends them and names the rule as a `Finding`; the
# checker and the client connection name it on the line sent. (id, rule, revisions, before,
# the intent)
SENT: Final[list[tuple[str, str, tuple[acp.Revision, ...], Before, object]]] = [
    ("tool-renamed", "R81", (NOV, PREVIEW),
     lambda s: [i.AcceptPrompt(2), _on(v.ToolCallUpdate("t1", title="t", name="a"))],
     _on(v.ToolCallUpdate("t1", name="b"))),
]  # fmt: skip


@pytest.mark.parametrize(
    ("rule", "revision", "before", "intent"),
    [
        pytest.param(rule, revision, before, intent, id=f"{case}-{revision.name}")
        for case, rule, revisions, before, intent in SENT
        for revision in revisions
    ],
)
def test_below_must_the_agent_connection_sends_and_names_the_checkers_rule(
    rule: str, revision: acp.Revision, before: Before, intent: object
) -> None:
    pair, sid = _in_turn(revision)
    for earlier in before(sid):
        pair.agent_says(sid, earlier)
        pair.settle()
    assert pair.findings("agent") == []
    assert acp.RULES[rule].level not in ("MUST", "MUST NOT")
    step = pair.agent_says(sid, intent)
    assert len(step.outbound) == 1
    assert [e.rule for e in step.events if isinstance(e, c.Finding)] == [rule]
    line = pair.agent_trace[-1]
    checked = acp.check_trace(pair.agent_trace, revision=revision)
    at = len(pair.agent_trace) - 1
    assert [x.rule for x in checked if not x.warning] == [rule]
    assert [x.index for x in checked if x.rule == rule] == [at]
    pair.to_client.clear()
    assert rule in _client_rules(pair, [line["message"]])


def _later(rules: set[str]) -> set[str]:
    """The rules of `rules` that come with 2026-11 or the Preview (`Rule.since`)."""
    return {rule for rule in rules if acp.RULES[rule].since is not None}


def test_the_table_is_large_and_spans_the_2026_11_and_preview_rules() -> None:
    rows = _rows()
    assert len(rows) >= 40
    # Distinct rules that come with 2026-11 or the Preview, not rows at a later revision:
    # every agent MUST of those a host intent can express at the agent connection (the rest
    # are the connection's own doing: resumes and replays, keyed and held prompts, answers).
    agent_leg = _later({case[1] for case in CASES} | {case[1] for case in SENT})
    expected = "R47 R48 R49 R50 R52 R54 R56 R58 R73 R74 R78 R79 R81"
    assert agent_leg == set(expected.split())
    # Issue 21 asks for at least 15 across the parties: with the client connection's table
    # (the checker's corpus played into it, the rows that agree).
    from test_rule_consistency_connection import CORPUS, _diverges

    client_leg = _later(
        {str(p.values[2]) for p in CORPUS if _diverges(str(p.values[0]), str(p.values[1])) is None}
    )
    assert len(agent_leg | client_leg) >= 15
    assert len(client_leg) >= 15


# -- what the client answers: J37 (an answer's id keeps the type of the request's id) -------

_OUTCOME: Final = {"outcome": {"outcome": "selected", "optionId": "o1"}}


def _answer(request_id: object) -> Wire:
    return {"jsonrpc": "2.0", "id": request_id, "result": _OUTCOME}


def _asking(revision: acp.Revision, request_id: int | str) -> Pair:
    """A pair in a turn whose agent asked a permission with `request_id`, not answered."""
    pair, sid = _in_turn(revision)
    options = (v.PermissionOption("o1", "ok", "allow_once"),)
    pair.agent_says(sid, i.RequestPermission("tc1", options, request_id=request_id))
    pair.to_client.clear()  # the client never reads it: the test writes its answer
    return pair


# (id, the agent's request id, the client's answer line (a batch: a list), whether J37)
ANSWERS: Final[list[tuple[str, int | str, object, bool]]] = [
    ("int-asked-str-echoed", 7, _answer("7"), True),
    ("str-asked-int-echoed", "7", _answer(7), True),
    ("zero-asked-str-echoed", 0, _answer("0"), True),
    ("batch-mangled-then-exact", 7, [_answer("7"), _answer(7)], True),
    ("batch-exact-then-mangled", 7, [_answer(7), _answer("7")], False),
    ("exact", 7, _answer(7), False),
    ("no-twin", 7, _answer("07"), False),
]


@pytest.mark.parametrize("revision", EVERY, ids=lambda r: r.name)
@pytest.mark.parametrize(
    ("request_id", "line", "j37"), [pytest.param(*a[1:], id=a[0]) for a in ANSWERS]
)
def test_the_agent_connection_judges_the_clients_answer_ids_as_the_checker(
    revision: acp.Revision, request_id: int | str, line: object, j37: bool
) -> None:
    """The client answers the agent's permission request with its id's type changed (`"7"`
    for `7`): at every revision the agent connection names J37 where `check_trace` does,
    in its words (not C25, an answer to nothing), and reads it as the answer to that request
    (the session hears its decision). A batch is judged item by item, as the machine does:
    an exact answer after a mangled one answers nothing (C25), and a mangled answer after
    the exact one has no request left to name (C25, no J37)."""
    pair = _asking(revision, request_id)
    assert pair.findings("agent") == []
    entries = [*pair.agent_trace, {"from": "client", "message": line}]
    at = len(entries) - 1
    checked = [x for x in acp.check_trace(entries, revision=revision) if not x.warning]
    expected = sorted((x.rule, x.message) for x in checked if x.index == at)
    assert [x for x in checked if x.index != at] == []
    step = pair.agent_bytes((json.dumps(line) + "\n").encode())
    found = sorted((e.rule, e.detail) for e in step.events if isinstance(e, c.Finding))
    # The same rules; J37 in the same words (a second answer's C25 words differ: the
    # checker remembers the line that answered, the connection only that nothing is pending).
    assert [rule for rule, _ in found] == [rule for rule, _ in expected]
    assert [f for f in found if f[0] == "J37"] == [x for x in expected if x[0] == "J37"]
    assert ("J37" in {rule for rule, _ in expected}) == j37
    answered = [e.request_id for e in step.events if isinstance(e, c.PermissionAnswered)]
    assert answered == ([] if line == _answer("07") else [request_id])


# -- R71 with the session machine's word on what a cancel cancels ----------------------------

_OPTIONS: Final = (v.PermissionOption("o1", "ok", "allow_once"),)
_PROMPT: Final = i.SendPrompt((v.TextContent("hi"),))

_CANCELLABLE: Final = v.SubagentSessionCapabilities(cancel=v.SessionCancelCapabilities())

# (id, revisions, the steps: ("agent" | "client", intent), ("unread", None): the client never
#  reads the agent's last line, ("cancel", child): the client cancels that child; the last
#  step is the agent's and ends the work)
CANCEL_WINDOWS: Final[list[tuple[str, tuple[acp.Revision, ...], list[tuple[str, object]]]]] = [
    # A request asked while idle is background (R40); the cancel of the later work is not its.
    ("background-request-then-cancelled-work", (NOV, PREVIEW), [
        ("agent", i.RequestPermission("bg", _OPTIONS)), ("unread", None),
        ("client", _PROMPT), ("agent", i.AcceptPrompt(2)), ("client", i.SendCancel()),
        ("agent", i.EndTurn("cancelled")),
    ]),
    # A cancel while idle cancels nothing (Q20), so the next work may end with it pending.
    ("cancel-while-idle-then-work", (NOV, PREVIEW), [
        ("agent", i.RequestPermission("bg", _OPTIONS)), ("unread", None),
        ("client", i.SendCancel()), ("client", _PROMPT), ("agent", i.AcceptPrompt(2)),
        ("agent", i.EndTurn()),
    ]),
    # The cancelled work's own request: the engine withdraws it ($/cancel_request) itself.
    ("foreground-request-withdrawn", (NOV, PREVIEW), [
        ("client", _PROMPT), ("agent", i.AcceptPrompt(2)),
        ("agent", i.RequestPermission("fg", _OPTIONS)), ("unread", None),
        ("client", i.SendCancel()), ("agent", i.EndTurn("cancelled")),
    ]),
    # A child's machine (its top-level engine's `child_conversations`): cancelled while idle.
    ("child-cancelled-while-idle-then-works", (PREVIEW,), [
        ("agent", _announce("c1", capabilities=_CANCELLABLE)),
        ("agent", _on(v.IdleStateUpdate(), "c1")),
        ("agent", i.RequestPermission("bg", _OPTIONS, session_id="c1")), ("unread", None),
        ("cancel", "c1"), ("agent", _on(v.RunningStateUpdate(), "c1")),
        ("agent", _on(v.IdleStateUpdate(stop_reason="end_turn"), "c1")),
    ]),
]  # fmt: skip


def _windows() -> list[Any]:
    return [
        pytest.param(revision, steps, id=f"{case}-{revision.name}")
        for case, revisions, steps in CANCEL_WINDOWS
        for revision in revisions
    ]


@pytest.mark.parametrize(("revision", "steps"), _windows())
def test_the_agent_connection_judges_r71_with_the_session_machines_cancels(
    revision: acp.Revision, steps: list[tuple[str, object]]
) -> None:
    """R71 (withdraw the cancelled work's pending permission requests) asks which work a
    `session/cancel` cancels: the session machine's `Conversation.cancels`, which the
    checker passes the judge (`ProtocolDraft.message`). The agent connection passes it too,
    read from the session's engine as the cancel arrives. Without it the judge counts every
    request pending at the cancel as the cancelled work's, and at the Preview refuses the
    host's ending of the work (R71, a MUST of the agent) where `check_trace` over the same
    traffic, the idle included, finds nothing: the first two rows (a background request, a
    cancel while idle, a child's cancel while the child is idle). At 2026-11 R71 is not in
    force: agreement only."""
    pair = Pair(revision=revision)
    sid = pair.open()
    for who, intent in steps:
        if who == "unread":
            pair.to_client.clear()
            continue
        if who == "cancel":  # (the client connection's intents cancel top-level sessions)
            cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": intent}}
            pair.agent_trace.append({"from": "client", "message": cancel})
            pair.agent_bytes((json.dumps(cancel) + "\n").encode())
            continue
        if who == "agent":
            pair.agent_says(sid, intent)
        else:
            pair.client_says(sid, intent)
        pair.settle()
    last = pair.agent_trace[-1]["message"]
    assert last["params"]["update"]["sessionUpdate"] == "state_update"  # the work ended
    assert last["params"]["update"]["state"] == "idle"
    assert pair.findings("agent") == []
    checked = acp.check_trace(pair.agent_trace, revision=revision)
    assert [x.rule for x in checked if not x.warning] == []

