"""The agent connection never sends a `session/update` the checker rejects: any `SendUpdate` a
host asks of an agent connection either goes out MUST-clean, judged with the whole recording
of the connection so far (both directions, from `initialize`), or is refused with the rule
`check_trace` reports when the same line is forced onto the wire, at every revision.

The property (`test_any_send_update_on_a_connection_...`) opens a connection (initialize, two
sessions; at the Preview a child announced on the second), draws the state of the turn of the
session it sends on (idle, a prompt running, blocked on a permission request, agent-initiated
work, cancelled, ended; at the Preview also an announced child, idle, running or blocked on
a permission request, where state updates are judged by the lifecycle: on the session itself
they are the E1 policy, so before the Preview they are never sent bare), draws any
update of the revision (`acp_core.strategies.session_updates`, every variant), and at the
Preview points the sessions an update names at sessions the client knows or does not know.
It builds the line by hand, appends it to the recording and asks `check_trace` (side
`agent`) what that line breaks; then asks the connection to send it.

No blanket exclusion: a refusal whose rule the checker does not report for that line is
allowed only by one of the connection's own policies, listed in `POLICIES` with the condition
under which each applies. Half the draws drop the root keys the strategies put in `extra`
(R43, `MUST NOT`, `_`-prefixed or not), which would otherwise refuse about a third of all
draws before anything else is judged (a fifth, now).

The bare agent engine (`step(new_agent(...), SendUpdate(u))`, tests/test_engine_obeys_checker.py)
cannot know the connection rules (`_rules/_check_preview.CHECKED`: R58 a replay marker no
resume asked for, R79 an empty prompt suggestion, the sessions the client knows ...): it has
no judge. The connection does (`AgentConnection.rules.judge`), so this property judges every rule.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import attrs
import immutables
import pytest
from conn_pair import Pair
from hypothesis import HealthCheck, Phase, event, given, settings
from hypothesis import strategies as st

import acp_core as acp
from acp_core import intents as i
from acp_core import strategies as acps
from acp_core import values as v
from acp_core._rules._catalogue import RULES
from acp_core._rules._naming import named_sessions
from acp_core._wire._codec import encode_update
from acp_core.errors import LocalProtocolError

REVISIONS = (acp.V2_2026_08, acp.V2_2026_11, acp.V2_PREVIEW)
CHILD = "c1"  # announced on the session the property sends on (the Preview)
OTHER_CHILD = "c2"  # announced on the connection's other session (the Preview)
UNKNOWN = "zz-unknown"  # a session id nobody set up nor announced

#: The agent's own foreground state: reported by the intents that change it.
_OWN_STATE = (
    v.IdleStateUpdate,
    v.RunningStateUpdate,
    v.RequiresActionStateUpdate,
    v.OtherStateUpdate,
    v.UnknownStateUpdate,
)
#: How an update names a session besides its envelope: the rule naming it too early breaks.
_NAMING_RULES = frozenset({"R47", "R56", "R74"})


def _own_state(rule: str, update: Any, state: Opened) -> bool:
    return state.target is None and isinstance(update, _OWN_STATE)


def _names_an_unknown_session(rule: str, update: Any, state: Opened) -> bool:
    # ... and the checker reports `rule` for the line once the id is announced after it.
    unknown = [sid for sid, _ in named_sessions(update) if sid not in state.known]
    if not unknown:
        return False
    line = _line(state.target or state.session_id, update, state.revision)
    announced = [_line(state.session_id, v.SubagentUpdate(sid), state.revision) for sid in unknown]
    return rule in _must_at([*state.trace, line, *announced], state.revision, len(state.trace))


#: The state of the session itself that matches each state of a child.
_TOP_LEVEL_TWIN = {"child_idle": "idle", "child_running": "running", "child_blocked": "blocked"}


def _a_childs_lifecycle_below_must(rule: str, update: Any, state: Opened) -> bool:
    # ... and the checker reports `rule` for the same update on a session whose life it saw
    # begin, in the same state (the session itself: idle, running or blocked).
    if state.target is None or RULES[rule].level not in ("SHOULD", "SHOULD NOT"):
        return False
    same = opened(state.revision, _TOP_LEVEL_TWIN[state.phase])
    line = _line(same.session_id, update, state.revision)
    found = acp.check_trace([*same.trace, line], revision=state.revision, side="agent")
    return rule in {x.rule for x in found if x.index == len(same.trace) and not x.warning}


#: The connection's own policies: a refusal with a rule the checker does not report (at
#: MUST) for that line, each with the condition it applies under, itself checked: a refusal
#: outside its condition fails.
POLICIES: dict[str, Callable[[str, Any, Opened], bool]] = {
    # `_engines/_agent_children.send_update`: the agent's own session state goes out only
    # through StartWork / AcceptPrompt, RequestPermission and EndTurn / ReportAbort, which
    # keep the engine's turn and the wire in step; the checker judges a bare state update by
    # its lifecycle and passes many (a `running` in a running turn, an unknown state).
    "E1": _own_state,
    # `_engines/_agent_build.Build.name_known`: an update naming a session the client does
    # not know is refused at once with the rule of how it names it; the checker, judging a
    # recording that may start mid-session, reports that rule only when a later
    # `subagent_update` announces the id.
    **dict.fromkeys(_NAMING_RULES, _names_an_unknown_session),
    # `_engines/_agent_build.Build.child_machine`: each child's lifecycle runs from idle at
    # its announcement and the engine refuses its findings below MUST too (S1 idle straight
    # to requires_action, S2 a second idle with a stop reason), as it does its own session's
    # (`Build._judge`); the checker starts a child's machine mid-session (its work may have
    # begun before the announcement), so it reports them only for a session it saw begin.
    **dict.fromkeys(("S1", "S2"), _a_childs_lifecycle_below_must),
}

#: Findings below MUST a sent update may carry (the checker's warnings, side agent): R14, a
#: tool call first reported without a title (SHOULD; the intents that make tool calls
#: refuse it as their policy, a bare `SendUpdate` sends it).
_SHOULD_A_BARE_UPDATE_MAY_CARRY = frozenset({"R14"})


# -- the connection, opened once per revision and turn state (a value: reused by every draw) --

_PHASES = ("idle", "running", "blocked", "agent_work", "cancelled", "ended")
_CHILD_PHASES = ("child_idle", "child_running", "child_blocked")


def _phases(revision: acp.Revision) -> tuple[str, ...]:
    return _PHASES + (_CHILD_PHASES if revision is acp.V2_PREVIEW else ())


@attrs.frozen
class Opened:
    connection: acp.AgentConnection
    trace: tuple[dict[str, Any], ...]  # what the agent connection sent and read, in order
    session_id: str
    other: str  # the connection's other session
    target: str | None  # the child the update goes to (None: the session itself)
    known: frozenset[str]  # the sessions the client knows
    revision: acp.Revision
    phase: str


@functools.cache
def opened(revision: acp.Revision, phase: str) -> Opened:
    pair = Pair(revision=revision)
    sid = pair.open()
    other = pair.open()
    if revision is acp.V2_PREVIEW:
        pair.agent_says(other, i.SendUpdate(v.SubagentUpdate(OTHER_CHILD, title="Other")))
    if phase == "agent_work":
        pair.agent_says(sid, i.StartWork())
    if phase in ("running", "blocked", "cancelled", "ended", *_CHILD_PHASES):
        pair.client_says(sid, i.SendPrompt((v.TextContent("hi"),)))
        pair.settle()
        pair.agent_says(sid, i.AcceptPrompt(pair.agent.engine(sid).prompts[0].id))
    if phase == "blocked":
        allow = v.PermissionOption("o1", "Allow", "allow_once")
        pair.agent_says(sid, i.RequestPermission("Run?", (allow,)))
    if phase == "cancelled":
        pair.settle()
        pair.client_says(sid, i.SendCancel())
    if phase == "ended":
        pair.agent_says(sid, i.EndTurn())
    target = None
    if phase in _CHILD_PHASES:
        pair.agent_says(sid, i.SendUpdate(v.SubagentUpdate(CHILD, title="Child")))
        target = CHILD
    if phase in ("child_running", "child_blocked"):
        pair.agent_says(sid, i.SendUpdate(v.RunningStateUpdate(), CHILD))
    if phase == "child_blocked":
        allow = v.PermissionOption("o1", "Allow", "allow_once")
        pair.agent_says(sid, i.RequestPermission("Run?", (allow,), session_id=CHILD))
    pair.settle()
    trace = tuple(pair.agent_trace)
    assert not [x for x in acp.check_trace(trace, revision=revision) if x.mandatory], trace
    known = {sid, other} | ({OTHER_CHILD} if revision is acp.V2_PREVIEW else set())
    known |= {CHILD} if target else set()
    return Opened(pair.agent, trace, sid, other, target, frozenset(known), revision, phase)


# -- what is drawn ---------------------------------------------------------------------------


def _rewritten(value: Any, edit: Callable[[Any], Any]) -> Any:
    """`value` with `edit` applied to every attrs value in it, innermost first."""
    if isinstance(value, tuple):
        return tuple(_rewritten(item, edit) for item in value)
    if not attrs.has(type(value)):
        return value
    changes = {}
    for field in attrs.fields(type(value)):
        inner = getattr(value, field.name)
        if isinstance(inner, tuple) or attrs.has(type(inner)):
            after = _rewritten(inner, edit)
            if after is not inner:
                changes[field.name] = after
    if changes:
        value = attrs.evolve(value, **changes)
    return edit(value)


def _without_custom_keys(value: Any) -> Any:
    # Unknown keys at the root of a spec type are R43, `_`-prefixed or not (`_meta` is the
    # place for extensions).
    extra = getattr(value, "extra", None)
    if not isinstance(extra, immutables.Map) or not extra:
        return value
    return attrs.evolve(value, extra=immutables.Map())


#: Where an update names a session (the Preview): the field of each value that does.
_NAMING_FIELDS: dict[type, tuple[str, ...]] = {
    v.SessionMessage: ("sender_session_id", "recipient_session_id"),
    v.SessionReference: ("session_id",),
    v.BackgroundSubagent: ("session_id",),
    v.SubagentUpdate: ("session_id",),
}


def _pointed(data: st.DataObject, sid: str, other: str) -> Callable[[Any], Any]:
    pool = (sid, other, CHILD, OTHER_CHILD, UNKNOWN, "g1")

    def edit(value: Any) -> Any:
        names = _NAMING_FIELDS.get(type(value), ())
        changes = {
            name: data.draw(st.sampled_from(pool), label=f"{type(value).__name__}.{name}")
            for name in names
            if isinstance(getattr(value, name), str) and data.draw(st.booleans())
        }
        return attrs.evolve(value, **changes) if changes else value

    return edit


def _line(session_id: str, update: Any, revision: acp.Revision) -> dict[str, Any]:
    params = {"sessionId": session_id, "update": encode_update(update, revision=revision)}
    message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
    return {"from": "agent", "message": message}


def _must_at(trace: list[dict[str, Any]], revision: acp.Revision, at: int) -> set[str]:
    found = acp.check_trace(trace, revision=revision, side="agent")
    return {x.rule for x in found if x.mandatory and x.index == at}


# -- the property ----------------------------------------------------------------------------


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
# No shrink phase: a drawn update is a large tree and shrinking one takes minutes; the
# failing draw is printed whole. Four times the profile's examples: a draw costs a few ms.
@settings(
    max_examples=settings.default.max_examples * 4,
    suppress_health_check=[HealthCheck.too_slow],
    deadline=None,
    phases=[Phase.explicit, Phase.reuse, Phase.generate],
)
@given(data=st.data())
def test_any_send_update_on_a_connection_goes_out_clean_or_is_refused_with_the_checkers_rule(
    revision: acp.Revision, data: st.DataObject
) -> None:
    phase = data.draw(st.sampled_from(_phases(revision)), label="phase")
    state = opened(revision, phase)
    sid, target = state.session_id, state.target
    update = data.draw(acps.session_updates(revision=revision), label="update")
    if data.draw(st.booleans(), label="without custom keys"):
        update = _rewritten(update, _without_custom_keys)
    if revision is acp.V2_PREVIEW:
        update = _rewritten(update, _pointed(data, sid, state.other))
    on = target or sid
    trace = list(state.trace)
    at = len(trace)
    line = _line(on, update, revision)
    must = _must_at([*trace, line], revision, at)
    intent = acp.SessionIntent(sid, i.SendUpdate(update, target))
    try:
        step = acp.connection_step(state.connection, intent)
    except LocalProtocolError as e:
        refused = e.rule
    else:
        refused = None
    event(
        f"{type(update).__name__} on {'a child' if target else 'the session'}: {refused or 'sent'}"
    )
    if refused is None:
        # It went out as the line built by hand, and the checker passes it.
        assert [line["message"]] == list(step.outbound)
        assert not must, must
        sent = acp.check_trace([*trace, line], revision=revision, side="agent")
        # (a warning is what the end of the recording leaves open: a turn still running)
        late = {x.rule for x in sent if x.index >= at and not x.warning}
        assert late <= _SHOULD_A_BARE_UPDATE_MAY_CARRY, sent
        return
    if refused in must:
        return  # the checker's own rule for the line
    assert refused in POLICIES, (refused, must, phase, update)
    assert POLICIES[refused](refused, update, state), (refused, must, phase, update)


# -- what the property found: the sessions an update may name --------------------------------


def _named_both_ways() -> tuple[Pair, str, str]:
    pair = Pair(revision=acp.V2_PREVIEW)
    sid, other = pair.open(), pair.open()
    pair.agent_says(other, i.SendUpdate(v.SubagentUpdate(OTHER_CHILD, title="Other")))
    pair.agent_says(sid, i.SendUpdate(v.SubagentUpdate(CHILD, title="Child")))
    pair.settle()
    return pair, sid, other


def test_an_update_may_name_the_connections_other_sessions_and_their_children() -> None:
    # The engine of `sid` knows only its own tree; the connection's judge knows the client
    # was given `other` by a session/new answer and saw `c2` announced on it. Before the
    # fix each update here was refused R47 / R56 while the checker passes it.
    pair, sid, other = _named_both_ways()
    reference = v.ToolCallUpdate("call_1", title="t", content=(v.SessionReference(other),))
    sends = [
        (None, v.SessionMessage("m1", sender_session_id=other, recipient_session_id=OTHER_CHILD)),
        (None, reference),
        (CHILD, v.ToolCallContentChunk("call_2", v.SessionReference(OTHER_CHILD))),
        (CHILD, v.SessionMessage("m2", sender_session_id=other)),
    ]
    for target, update in sends:
        pair.agent_says(sid, i.SendUpdate(update, target))
    found = acp.check_trace(pair.agent_trace, revision=acp.V2_PREVIEW, side="agent")
    assert not [x for x in found if x.mandatory], found
    sent = [m["message"]["params"]["update"] for m in pair.agent_trace[-len(sends) :]]
    assert [u["sessionUpdate"] for u in sent] == [
        "session_message",
        "tool_call_update",
        "tool_call_content_chunk",
        "session_message",
    ]


@pytest.mark.parametrize("on_child", [False, True], ids=["on-the-session", "on-a-child"])
def test_a_session_nobody_set_up_is_still_refused_with_the_rule_the_checker_gives_it(
    on_child: bool,
) -> None:
    # The engine's policy (`POLICIES`): refused at once. The checker names the same rule for
    # the line once the id is announced after it.
    pair, sid, _ = _named_both_ways()
    target = CHILD if on_child else None
    before = pair.agent
    for update, rule in [
        (v.SessionMessage("m1", sender_session_id=UNKNOWN), "R47"),
        (v.ToolCallContentChunk("call_1", v.SessionReference(UNKNOWN)), "R56"),
    ]:
        with pytest.raises(LocalProtocolError) as refused:
            pair.agent_says(sid, i.SendUpdate(update, target))
        assert refused.value.rule == rule
        assert pair.agent == before
        line = _line(target or sid, update, acp.V2_PREVIEW)
        announced = _line(sid, v.SubagentUpdate(UNKNOWN), acp.V2_PREVIEW)
        at = len(pair.agent_trace)
        assert _must_at([*pair.agent_trace, line], acp.V2_PREVIEW, at) == set()
        assert _must_at([*pair.agent_trace, line, announced], acp.V2_PREVIEW, at) == {rule}
