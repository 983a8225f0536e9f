"""The agent engine never emits what the checker rejects: every outbound `session/update`
(the agent's own session and its children's) is judged by the checker's own single-update
judgement (`_rules/_check_message.update_findings`) before it goes out, and a MUST finding is
refused with `LocalProtocolError(rule)`, the engine state untouched.

For each rule: the bad update is refused with the rule id, the same update put on the wire by
hand is what `check_trace` reports with that rule (so the refusal and the checker agree), a
good variant still goes out, and what goes out passes `check_trace`. A property over every
update the strategies draw, at every revision, closes it: `SendUpdate` either goes out
MUST-clean (the checker passes it; the one warning a bare update may carry is named, R14) or
is refused with a rule the checker reports for the same wire, or E1 for the agent's own state
(its one policy here).

An engine alone has no judge of the rules across a connection's sessions (the agent
connection's `AgentConnection.rules.judge`): the two of them the checker reports of a lone update
(R58, R79: `_THE_ENGINE_CANNOT_KNOW` says why) are excluded here by name and judged at the
connection, where tests/test_connection_send_update.py holds the same property with every
rule, over the whole recording of a connection, with the turn state drawn too."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, given, settings
from hypothesis import strategies as st

import acp_core as acp
from acp_core import LocalProtocolError, check_trace, new_agent, step
from acp_core import strategies as acps
from acp_core._rules._catalogue import RULES
from acp_core._rules._naming import named_sessions
from acp_core._wire._codec import encode_update
from acp_core.intents import PatchTerminal, RequestPermission, SendUpdate
from acp_core.values import (
    AgentMessageChunk,
    AgentThoughtChunk,
    ConfigOptionUpdate,
    PlanEntry,
    PlanItems,
    PlanMarkdown,
    PlanUpdate,
    SessionConfigSelect,
    SessionConfigSelectOption,
    SubagentUpdate,
    TerminalOutput,
    TerminalOutputChunk,
    TerminalUpdate,
    TextContent,
    ToolCallUpdate,
)

SID = "s1"
CHILD = "c1"
REVISIONS = (acp.V2_2026_08, acp.V2_2026_11, acp.V2_PREVIEW)
ALL = REVISIONS
PREVIEW = (acp.V2_PREVIEW,)
ANNOUNCE = SendUpdate(SubagentUpdate(CHILD, title="Child"))


def _select(current: str) -> ConfigOptionUpdate:
    option = SessionConfigSelect("mode", "Mode", current, (SessionConfigSelectOption("a", "A"),))
    return ConfigOptionUpdate((option,))


def _plan(priority: str) -> PlanUpdate:
    return PlanUpdate(PlanItems("p", (PlanEntry("s", priority, "pending"),)))


def _chunk(cls: Any, message_id: str) -> Any:
    return cls(message_id, TextContent("x"))


# (id, revisions, intents before, the bad update, a good one, the rule, on the child?)
CASES = [
    ("R33-relative-cwd", ALL, (), TerminalUpdate("t1", cwd="rel/dir"),
     TerminalUpdate("t1", cwd="/abs/dir"), "R33", False),
    ("R33-child", PREVIEW, (ANNOUNCE,), TerminalUpdate("t1", cwd="rel/dir"),
     TerminalUpdate("t1", cwd="C:\\work"), "R33", True),
    ("R78-relative-plan-path", PREVIEW, (),
     PlanUpdate(PlanMarkdown("p1", "# plan", path="relative/plan.md")),
     PlanUpdate(PlanMarkdown("p1", "# plan", path="/abs/plan.md")), "R78", False),
    ("R78-child", PREVIEW, (ANNOUNCE,),
     PlanUpdate(PlanMarkdown("p1", "# plan", path="relative/plan.md")),
     PlanUpdate(PlanMarkdown("p1", "# plan")), "R78", True),
    ("R52-child-cwd", PREVIEW, (), SubagentUpdate(CHILD, cwd="rel"),
     SubagentUpdate(CHILD, cwd="/abs"), "R52", False),
    ("R52-grandchild-directories", PREVIEW, (ANNOUNCE,),
     SubagentUpdate("g1", additional_directories=("/ok", "rel")),
     SubagentUpdate("g1", additional_directories=("/ok",)), "R52", True),
    ("R34-snapshot-not-base64", ALL, (), TerminalUpdate("t1", output=TerminalOutput("!!x")),
     TerminalUpdate("t1", output=TerminalOutput("eA==")), "R34", False),
    ("R34-chunk-not-base64", ALL, (), TerminalOutputChunk("t1", "!!"),
     TerminalOutputChunk("t1", "eA=="), "R34", False),
    ("R18-plan-priority", ALL, (), _plan("urgent"), _plan("_urgent"), "R18", False),
    ("J61-current-value", ALL, (), _select("zz"), _select("a"), "J61", False),
    ("J63-empty-tool-call-id", ALL, (), ToolCallUpdate("", title="t"),
     ToolCallUpdate("call_1", title="t"), "J63", False),
    ("R5-id-reused", ALL, (SendUpdate(_chunk(AgentMessageChunk, "m1")),),
     _chunk(AgentThoughtChunk, "m1"), _chunk(AgentThoughtChunk, "m2"), "R5", False),
    ("R5-child-id-reused", PREVIEW, (ANNOUNCE, SendUpdate(_chunk(AgentMessageChunk, "m1"), CHILD)),
     _chunk(AgentThoughtChunk, "m1"), _chunk(AgentThoughtChunk, "m2"), "R5", True),
]  # fmt: skip

PARAMS = [
    pytest.param(revision, *case[1:], id=f"{case[0]}@{revision.name}")
    for case in CASES
    for revision in case[1]
]


def _setup(revision: acp.Revision, before: tuple[object, ...]) -> tuple[acp.AgentEngine, list[Any]]:
    engine, wire = new_agent(SID, revision=revision), []
    for intent in before:
        engine, out = step(engine, intent)[:2]
        wire.extend(out)
    return engine, wire


def _trace(wire: list[Any]) -> list[dict[str, Any]]:
    return [{"from": "agent", "message": m} for m in wire]


def _by_hand(session_id: str, update: Any) -> dict[str, Any]:
    params = {"sessionId": session_id, "update": encode_update(update)}
    return {"jsonrpc": "2.0", "method": "session/update", "params": params}


@pytest.mark.parametrize(("revision", "_r", "before", "bad", "good", "rule", "child"), PARAMS)
def test_the_engine_refuses_what_the_checker_rejects_and_sends_the_good_variant(
    revision: acp.Revision,
    _r: object,
    before: tuple[object, ...],
    bad: Any,
    good: Any,
    rule: str,
    child: bool,
) -> None:
    engine, wire = _setup(revision, before)
    target = CHILD if child else None
    on = CHILD if child else SID
    # The checker rejects the bad update when it is put on the wire by hand...
    judged = check_trace(_trace([*wire, _by_hand(on, bad)]), revision=revision)
    assert rule in {v.rule for v in judged}
    # ...and the engine refuses it with that rule and a hint, its state untouched.
    with pytest.raises(LocalProtocolError) as info:
        step(engine, SendUpdate(bad, target))
    assert info.value.rule == rule
    assert rule in str(info.value)
    assert RULES[rule].summary in str(info.value)  # the hint: the rule's sentence
    # The good variant goes out, and what went out passes the checker.
    _, out = step(engine, SendUpdate(good, target))[:2]
    assert out[-1]["params"]["sessionId"] == on
    assert check_trace(_trace([*wire, *out]), revision=revision) == ()


def test_a_patch_terminal_intent_keeps_its_r33_refusal() -> None:
    # The per-intent check went to the one judgement; the intent is still refused with R33.
    with pytest.raises(LocalProtocolError) as info:
        step(new_agent(SID), PatchTerminal("t1", cwd="relative/dir"))
    assert info.value.rule == "R33"


#: The rules of naming a session before it is announced (`named_sessions`, one home).
_NAMING_RULES = frozenset({"R47", "R56"})


def _announced_after(update: Any) -> list[dict[str, Any]]:
    """`update` sent by hand, then the announcement of every session it names."""
    wire = [_by_hand(SID, update)]
    for named, _rule in named_sessions(update):
        if named != SID:
            wire.append(_by_hand(SID, acp.values.SubagentUpdate(named)))
    return wire


def _is_must(rule: str) -> bool:
    return RULES[rule].level.startswith("MUST")


#: The connection rules (`_rules/_check_preview.CHECKED`) an engine alone cannot judge: it
#: has no judge (`AgentConnection.rules.judge`), so what the checker reports of a lone update here
#: it cannot know. Each is judged at the connection (tests/test_connection_send_update.py).
#: Every other connection rule the checker reports of one update sent by an engine alone is
#: judged here.
_THE_ENGINE_CANNOT_KNOW = {
    # a replay marker outside a resume with a replay cursor: the connection serves resumes
    "R58": "which session/resume, if any, is replaying the session",
    # prompt suggestions: to a client that advertised them, and never only empty text (the
    # value half rides with the capability half in the judge's one home, `_suggestions`)
    "R79": "what the client advertised in initialize",
}
#: The agent's own foreground state: reported by StartWork / AcceptPrompt, RequestPermission
#: and EndTurn / ReportAbort, which keep the turn and the wire in step. A bare state update on
#: the agent's own session is refused E1, the engine's one policy here (the checker passes
#: many); state updates are judged on an announced child at the connection.
_OWN_STATE = (
    acp.values.IdleStateUpdate,
    acp.values.RunningStateUpdate,
    acp.values.RequiresActionStateUpdate,
    acp.values.OtherStateUpdate,
    acp.values.UnknownStateUpdate,
)


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
# No shrink phase: a drawn update is a large tree and shrinking one takes minutes; the
# failing draw is printed whole.
@settings(
    suppress_health_check=[HealthCheck.too_slow],
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(data=st.data())
def test_any_send_update_goes_out_must_clean_or_is_refused_with_the_checkers_rule(
    revision: acp.Revision, data: st.DataObject
) -> None:
    update = data.draw(acps.session_updates(revision=revision), label="update")
    engine = new_agent(SID, revision=revision)
    judged = check_trace(_trace([_by_hand(SID, update)]), revision=revision)
    must = {
        v.rule
        for v in judged
        if _is_must(v.rule)
        and RULES[v.rule].side != "client"
        and v.rule not in _THE_ENGINE_CANNOT_KNOW
    }
    try:
        _, out = step(engine, SendUpdate(update))[:2]
    except LocalProtocolError as e:
        refused = e.rule
    else:
        refused = None
    if refused is not None:
        if refused == "E1":  # the engine's policy, and only for its own state
            assert isinstance(update, _OWN_STATE), (refused, update)
            return
        if refused in _NAMING_RULES:
            # The engine has seen its whole session, so a session id no announcement named
            # is refused at once; the checker, judging a recording that may start
            # mid-session, says so at a later announcement: the same rule, then.
            judged = check_trace(_trace(_announced_after(update)), revision=revision)
        assert refused in {v.rule for v in judged}, (refused, judged)
        return
    sent = check_trace(_trace(list(out)), revision=revision)
    agents = [
        v for v in sent if RULES[v.rule].side != "client" and v.rule not in _THE_ENGINE_CANNOT_KNOW
    ]
    assert not [v for v in agents if _is_must(v.rule)], sent
    # Below MUST, the checker passes the trace with a warning, and a bare `SendUpdate` sends
    # it (the intents that make tool calls refuse R14 as their policy, `StartToolCall`): the
    # only such finding it may carry is named here, so a new one shows up.
    assert {v.rule for v in agents} <= _SHOULD_A_BARE_UPDATE_MAY_CARRY, sent
    assert not must, judged  # sent as given: the checker had nothing MUST against it


#: Findings below MUST that a bare `SendUpdate` may go out with (the checker's warnings):
#: R14, a tool call first reported without a title (SHOULD). Over 600 draws a revision,
#: it is the only one the strategies reach.
_SHOULD_A_BARE_UPDATE_MAY_CARRY: frozenset[str] = frozenset({"R14"})


# -- permission requests: the other single message the checker judges on its own ----------

_ALLOW = acp.values.PermissionOption("o1", "Allow", "allow_once")

# (id, the bad request, the good one, the rule); both bad ones went out before the message
# pass (the intent checked only an empty title and the option kinds).
PERMISSION_CASES = [
    ("R26-blank-title", RequestPermission("  ", (_ALLOW,)), RequestPermission("Run?", (_ALLOW,)),
     "R26"),
    ("R43-custom-key-on-an-option",
     RequestPermission("Run?", (acp.values.PermissionOption("o1", "A", "allow_once",
                                                            extra={"zz": 1}),)),
     RequestPermission("Run?", (acp.values.PermissionOption("o1", "A", "allow_once",
                                                            meta={"zz": 1}),)),
     "R43"),
    ("R18-option-kind", RequestPermission("Run?", (acp.values.PermissionOption("o1", "A", "yes"),)),
     RequestPermission("Run?", (acp.values.PermissionOption("o1", "A", "_yes"),)), "R18"),
]  # fmt: skip


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize(
    ("bad", "good", "rule"), [pytest.param(*c[1:], id=c[0]) for c in PERMISSION_CASES]
)
def test_a_permission_request_the_checker_rejects_is_refused_with_its_rule(
    revision: acp.Revision, bad: RequestPermission, good: RequestPermission, rule: str
) -> None:
    engine = new_agent(SID, revision=revision)
    # The checker rejects the bad request as the engine would have sent it (the good one
    # with the bad title and options)...
    _, out = step(engine, good)[:2]
    request = dict(out[0])
    params = {**request["params"], "title": bad.title}
    params["options"] = [encode_message_option(o) for o in bad.options]
    judged = check_trace(_trace([{**request, "params": params}]), revision=revision)
    assert rule in {v.rule for v in judged}
    # ...the engine refuses it with that rule and the rule's sentence...
    with pytest.raises(LocalProtocolError) as info:
        step(engine, bad)
    assert info.value.rule == rule
    assert RULES[rule].summary in str(info.value)
    # ...and what the good request sends passes the checker.
    assert check_trace(_trace(list(out)), revision=revision) == ()


def test_a_childs_permission_request_is_judged_on_its_own_too() -> None:
    engine, _ = _setup(acp.V2_PREVIEW, (ANNOUNCE,))
    with pytest.raises(LocalProtocolError) as info:
        step(engine, RequestPermission(" ", (_ALLOW,), session_id=CHILD))
    assert info.value.rule == "R26"
    _, out = step(engine, RequestPermission("Run?", (_ALLOW,), session_id=CHILD))[:2]
    assert out[0]["params"]["sessionId"] == CHILD


def encode_message_option(option: acp.values.PermissionOption) -> dict[str, Any]:
    wire: dict[str, Any] = {"optionId": option.option_id, "name": option.name, "kind": option.kind}
    return {**wire, **dict(option.extra)}


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_a_session_reference_in_tool_content_is_judged_as_the_engines_wire_reads_it(
    revision: acp.Revision,
) -> None:
    # A tool intent keeps its content as the latest revision reads it: a `session` reference
    # (a Preview value) stays one. At the Preview it names a session (here: the agent's
    # own, which the client knows) and goes out checker-clean; at 2026-08 and 2026-11 the
    # wire has no such type, so the line reads as an unknown tool content type and the
    # engine refuses R19, the checker's rule for that line, as it would for the dict sent
    # by hand.
    from acp_core.intents import SendToolContent, StartToolCall
    from acp_core.values import SessionReference, ToolCallContentChunk

    ref = SessionReference(SID)
    engine, wire = _setup(revision, (StartToolCall("run", tool_call_id="t1"),))
    for intent, update in (
        (
            StartToolCall("run", tool_call_id="t2", content=(ref,)),
            ToolCallUpdate("t2", "run", content=(ref,)),
        ),
        (SendToolContent("t1", ref), ToolCallContentChunk("t1", ref)),
    ):
        line = _by_hand(SID, update)
        line["params"]["update"] = encode_update(update, revision=revision)
        judged = {v.rule for v in check_trace(_trace([*wire, line]), revision=revision)}
        if revision is acp.V2_PREVIEW:
            assert judged == set()
            _, out = step(engine, intent)[:2]
            assert out[-1]["params"]["update"]["content"] in (
                [{"type": "session", "sessionId": SID}],
                {"type": "session", "sessionId": SID},
            )
            assert check_trace(_trace([*wire, *out]), revision=revision) == ()
        else:
            assert "R19" in judged
            with pytest.raises(LocalProtocolError) as info:
                step(engine, intent)
            assert info.value.rule == "R19"
