"""The conversation machine: every rule about the order of messages in one ACP session.

Owns: `observe` (the one entry point), `observe_update`, `quiet_update`, `grown_update`,
`finish` (what the end of a recording shows), `TRANSITIONS` (the reported foreground phase)
and the per-revision memo of the lifecycle table; it re-exports `Conversation`, `Stage`,
`Phase`, `Finding`, `LIFECYCLE` and `GUARDS` for its users. Must not know: which side it
runs on (h11's Rule 2: it is told who sent each message), files, line numbers beyond the
`at` label it is given, engines, JSON text, what a single message breaks on its own
(`_rules/_check_message.py`) or which values are known (`_rules/_predicates.py`).

Theory of operation.
- A message becomes an *event*: a `Kind` plus the sender (`classify`,
  `_rules/_conversation_events.py`). Requests are paired with their answers there (J1, J2,
  C25), so an answer arrives as the kind of what it answers (`PROMPT_ANSWER`, ...).
  Direction faults (a `session/update` from the client) are J2 findings and nothing else
  happens.
- The session's `Stage` (`Conversation.stage`: the stored mode's, `Closed`, `Resuming`,
  `Replaying`, `Cancelling`, `Cancelled` (`_rules/_conversation_phases.py`, each holding
  only its own data), or for a live session read by `stage_of` off its turn and state:
  `IDLE`, `UNKNOWN`, `WAITING`, `WORKING`, `BLOCKED`, `ANSWERED`) and the event's kind
  select one cell of the lifecycle table (`_rules/_conversation_lifecycle.py`, h2's
  `(state, input) -> (effect, state)`): the guards that can speak there run, in `GUARDS`
  order, then the kind's effect, unconditionally (a finding never wedges the session). A
  pair missing from `LIFECYCLE` is a finding: `REFUSED` names its rule (an update after
  `CLOSED` is R24, work in `ANSWERED` is R12) and its default entry reports it. The effect
  returns the next mode; the cell says which stages the machine it leaves can be in.
  tests/test_lifecycle_table.py covers Stage x Kind x sender.
- `TRANSITIONS` is the *reported* foreground phase `(phase, state kind) -> phase` (what the
  last `state_update` said), one of the facts a live session's stage is read from.
  `UNKNOWN` is where a recording that starts mid-session begins (only
  `Conversation.mid_session`); it is not reachable from `IDLE`, so engines (which start at
  `Conversation.start`) never get the checker's leniency.
- The quiet path: most traffic is the agent's output in a running turn. An agent update
  whose cell has no guard in the revision and whose effect's own no-op test (`INERT`,
  `_rules/_conversation_effects.py`) holds returns the same machine at once, without
  building an observation: the same answer the full path gives
  (tests/test_machine_fast_path.py), with no rule restated (a guard placed in a cell takes
  the cell off the quiet path by itself). Beside it, an update of such a cell whose only
  change is the running work's new item (`work_grown`: a message's first chunk, a tool
  call's first sight) gets the machine with that item added, likewise without an
  observation.
- The *turn* is foreground work from its start (a prompt sent while idle, or `running` /
  `requires_action` after idle) to the idle that ends it. Prompts wait in `prompts` until a
  user message binds to them (Q7: first in, first out under 2026-08; the result's
  `messageId` under 2026-11) and their work ends.
- Bookkeeping is bounded by what is outstanding: answered prompts leave at the idle that
  ends their work, answered requests are remembered in a window of `_ANSWERED_WINDOW`.

Adding rules: docs/contributing.md, walk-through C. In short: a check function
`(conversation, event) -> str | None` in `_rules/_conversation_guards.py` listed as
`Guard("R47", (Kind.X, ...), check)`, and the stages it can speak in (`SPEAKS`). Which
revisions a rule applies in is said by the rule: a guard runs when `revision.applies(rule)`,
true from the rule's `Rule.since` on and up to its `Rule.until` (`_rules/_catalogue.py`), or
narrower by `Guard(..., applies=lambda r: r.includes("2026-11"))`, which reads the `Revision`
value, never compares names. A new event kind is a `Kind` member, a line in `classify`, its
effect and the stages it moves (`_MOVES`). `CHECKED` (the rule ids with a guard) feeds the
`checked` column of docs/rules.md, so a new guard shows up there by itself.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import attrs

from acp_core._wire import _jsonrpc as j
from acp_core._wire import _updates as u
from acp_core._wire._fastnew import fast_constructor, fast_replace
from acp_core._wire._revision import Revision

from ._conversation_effects import WORK_INERT, c15_breach, work_grown
from ._conversation_events import UPDATE_KIND, Obs, classify
from ._conversation_guards import CHECKED, GUARDS
from ._conversation_lifecycle import LIFECYCLE, REFUSED, Entry, entry
from ._conversation_state import (
    Conversation,
    Finding,
    Guard,
    Kind,
    Phase,
    Prompt,
    Sender,
    Stage,
    Turn,
    stage_of,
)

__all__ = [
    "CHECKED",
    "GUARDS",
    "LIFECYCLE",
    "REFUSED",
    "TRANSITIONS",
    "Conversation",
    "Entry",
    "Finding",
    "Guard",
    "Kind",
    "Phase",
    "Prompt",
    "Sender",
    "Stage",
    "Turn",
    "entry",
    "finish",
    "grown_update",
    "observe",
    "observe_update",
    "quiet_update",
]

#: The foreground phase after each reported state (every transition is legal for the
#: reducers; the unusual ones are guards: S1, S2).
TRANSITIONS: Final[Mapping[tuple[Phase, Kind], Phase]] = {
    (phase, kind): target
    for phase in Phase
    for kind, target in (
        (Kind.RUNNING, Phase.RUNNING),
        (Kind.REQUIRES_ACTION, Phase.REQUIRES_ACTION),
        (Kind.IDLE, Phase.IDLE),
        (Kind.OTHER_STATE, Phase.OTHER),
    )
}


class _Scope:
    """What `observe` works out once per revision (a memo of a pure function of frozen
    values: it never changes an answer): per stage and kind, the cell's guards that apply
    and its effect; per stage and update class, whether the quiet path may take it (None:
    its cell has a guard in the revision, or its effect no test of changing nothing; True:
    no effect at all; else the effect's test)."""

    __slots__ = ("cells", "quiet", "revision")

    def __init__(self, revision: Revision) -> None:
        self.revision = revision
        self.cells: dict[Stage, dict[Kind, tuple[tuple[tuple[str, Any], ...], Any]]] = {}
        self.quiet: dict[Stage, dict[type, Any]] = {stage: {} for stage in Stage}
        for stage in Stage:
            row = self.cells[stage] = {}
            for kind in Kind:
                cell = entry(stage, kind)
                checks = tuple(
                    (g.rule, g.check)
                    for g in cell.guards
                    if revision.applies(g.rule) and g.applies(revision)
                )
                row[kind] = (checks, cell.effect)

    def quiet_test(self, stage: Stage, cls: type) -> Any:
        kind = UPDATE_KIND[cls]
        checks, effect = self.cells[stage][kind]
        if checks or kind not in _UPDATE_KINDS:
            found: Any = None
        else:
            found = True if effect is None else entry(stage, kind).inert
        self.quiet[stage][cls] = found
        return found


# Keyed by identity: hashing a `Revision` (a frozen value of many fields) costs more than
# the quiet path itself. Each entry holds its revision, so an id is never reused meanwhile.
_SCOPES: dict[int, _Scope] = {}


def _scope(revision: Revision) -> _Scope:
    scope = _SCOPES.get(id(revision))
    if scope is None or scope.revision is not revision:
        scope = _SCOPES[id(revision)] = _Scope(revision)
    return scope


_NO_FINDINGS: Final[tuple[Finding, ...]] = ()
_UNSEEN: Final = object()  # an update class the quiet path has not met in this stage
# The update kinds that move no reported phase: the only ones an entry can let through
# unchanged (a state update always records where the phase was reported, `phase_at`).
_UPDATE_KINDS: Final = frozenset({Kind.USER_MESSAGE, Kind.WORK, Kind.BACKGROUND})


def _quiet(conv: Conversation, upd: object) -> bool:
    # Whether this update, sent by the agent, changes nothing and breaks nothing here: its
    # entry has no guard in the revision and its effect would change nothing. (`ended` is
    # one event's residue: the next event clears it, so that event is never quiet.)
    if conv.ended:
        return False
    revision = conv.revision
    scope = _SCOPES.get(id(revision))
    if scope is None or scope.revision is not revision:
        scope = _scope(revision)
    stage = conv.cached_stage or stage_of(conv)  # (a remembered stage without the call)
    cls = type(upd)
    inert = scope.quiet[stage].get(cls, _UNSEEN)
    if inert is _UNSEEN:
        inert = scope.quiet_test(stage, cls)
    if inert is True:
        return True
    return inert is not None and bool(inert(conv, upd))


def observe(
    conv: Conversation, sender: Sender, message: object, *, at: int = 0
) -> tuple[Conversation, tuple[Finding, ...]]:
    """Follow one message `sender` sent in this session: the new machine and what it broke.

    `message` is a decoded message (`acp_core` values); `at` labels the findings (the
    checker passes the line index, the engines the count of messages they sent and
    received). Total: any message gives a machine and findings, never an exception; a
    message that changes nothing returns the same machine.
    """
    if type(message) is j.UpdateSessionNotification and sender == "agent":
        if _quiet(conv, message.update):
            return conv, _NO_FINDINGS
        grown = _work_grown(conv, message.update)
        if grown is not None:
            return grown, _NO_FINDINGS
    o = Obs(conv)
    if conv.ended:
        o.set(ended=())
    event = classify(o, sender, message, at)
    if event is not None:
        if o.changes:
            o.conv = _rebuild(conv, o.changes)
            o.changes = {}
        checks, effect = _scope(conv.revision).cells[stage_of(conv)][event.kind]
        for rule, check in checks:
            why = check(o.conv, event)
            if why is not None:
                o.report(rule, at, why)
        if effect is not None:
            mode = effect(o, event)
            if mode is not o.conv.mode:
                o.set(mode=mode)
        target = TRANSITIONS.get((o.conv.phase, event.kind))
        if target is not None and (target is not o.conv.phase or o.conv.phase_at != at):
            o.set(phase=target, phase_at=at)
    return (_rebuild(o.conv, o.changes) if o.changes else o.conv), tuple(o.found)


def _work_grown(conv: Conversation, upd: object) -> Conversation | None:
    # Beside the quiet path: an update whose guard-free entry's only effect is `_on_work`
    # adding the item it is about to the running work (`work_grown`): the machine with that
    # item, found at once (the full path would rebuild it the same way, finding nothing).
    if conv.ended:
        return None
    stage = conv.cached_stage or stage_of(conv)
    scope = _scope(conv.revision)
    cls = type(upd)
    inert = scope.quiet[stage].get(cls, _UNSEEN)
    if inert is _UNSEEN:
        inert = scope.quiet_test(stage, cls)
    if inert is not WORK_INERT:
        return None
    ident = work_grown(conv, upd)
    if ident is None:
        return None
    return _rebuild(conv, {"work_ids": conv.work_ids.set(ident, True)})


def quiet_update(conv: Conversation, update: object) -> bool:
    """Whether the agent's `session/update` carrying `update` is on the quiet path: `observe`
    returns `conv` itself and finds nothing (a caller may skip the call).

    Of the update it reads the class and, through the effects' no-op tests (`INERT`), the
    message or tool call id alone, so the chunks of one streamed message get one answer from
    one machine (tests/test_machine_fast_path.py): a caller may keep it while both stay."""
    return _quiet(conv, update)


def grown_update(conv: Conversation, update: object) -> Conversation | None:
    """Where `quiet_update(conv, update)` is false: the machine `observe` returns for the
    agent's `session/update` carrying `update` when all it does is add the item the update
    is about (a message or tool call id) to the running work, finding nothing; None when it
    does more (a caller then calls `observe`). Spares the caller `observe`'s second quiet
    test and its general path for the first chunk of each streamed message and each new
    tool call of a turn (tests/test_machine_fast_path.py holds it equal to `observe`)."""
    return _work_grown(conv, update)


def observe_update(
    conv: Conversation, update: u.SessionUpdate, *, at: int = 0
) -> tuple[Conversation, tuple[Finding, ...]]:
    """`observe` of a `session/update` the agent sent in this session, given its update only
    (the machine never reads the envelope's session id: it follows one session)."""
    if _quiet(conv, update):
        return conv, _NO_FINDINGS
    return observe(conv, "agent", j.UpdateSessionNotification("", update), at=at)


# Every field but the remembered stage, which a new machine value starts without (last).
_FIELDS: Final = tuple(a.name for a in attrs.fields(Conversation) if a.init)
_MAKE: Final = fast_constructor(Conversation)


def _rebuild(conv: Conversation, changes: dict[str, Any]) -> Conversation:
    # attrs.evolve re-runs __init__ over every field; this sets the slots directly, by one
    # generated function per set of changed fields (`fast_replace`: the remembered stage
    # starts over), a few dozen at most (the effects' and `Obs.set`'s field sets).
    # A name that is no field is a misspelling in an effect (review F4): fail loudly here,
    # where it is made, rather than drop the change (checked once per set of names).
    names = tuple(changes)
    replace = _REPLACERS.get(names)
    if replace is None:
        if not _INIT_FIELDS.issuperset(names):
            unknown = sorted(set(names) - _INIT_FIELDS)
            raise TypeError(f"Conversation has no field {', '.join(unknown)} to change")
        if len(_REPLACERS) >= _MAX_REPLACERS:
            return _MAKE(*[changes[n] if n in changes else getattr(conv, n) for n in _FIELDS], None)
        replace = _REPLACERS[names] = fast_replace(Conversation, names)
    rebuilt: Conversation = replace(conv, *changes.values())
    return rebuilt


_INIT_FIELDS: Final = frozenset(_FIELDS)
#: `_rebuild`'s generated functions, by the changed field names in order (bounded: past
#: `_MAX_REPLACERS` sets, a rebuild takes the generic build).
_REPLACERS: dict[tuple[str, ...], Callable[..., Conversation]] = {}
_MAX_REPLACERS: Final = 256


def finish(conv: Conversation) -> tuple[Finding, ...]:
    """What the end of a recording shows: permission requests a cancel left unanswered after
    the work ended (C15), and work still running (R7, a warning: the recording may simply
    stop early)."""
    found = [
        breach
        for key, (at, ended) in conv.cancelled_permissions.items()
        if ended and (breach := c15_breach(key, None, at, None, at)) is not None
    ]
    working = conv.phase in (Phase.RUNNING, Phase.REQUIRES_ACTION, Phase.OTHER)
    # A closed session takes no new prompt: work left running at its close is R24's.
    if working and not conv.replaying and conv.closed_at is None:
        found.append(
            Finding(
                "R7",
                f"the recording ends while foreground work is {conv.phase.value} (since line "
                f"{conv.phase_at}): no idle reports that the agent is ready for a new prompt",
                conv.phase_at,
                warning=True,
            )
        )
    return tuple(found)
