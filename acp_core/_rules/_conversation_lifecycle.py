"""The lifecycle table: for each (stage, event kind), the guards that can speak, the effect
and the stages it leads to; the pairs left out of it are the findings.

Owns: `Entry`, `LIFECYCLE` (the legal pairs), `REFUSED` (the missing pairs, each with the rule
it breaks), `SPEAKS` (the stages in which each guard's condition can hold) and `entry`, the
lookup `observe` dispatches through. Must not know: how a message becomes an event, how the
machine is rebuilt, or what a guard or an effect does inside (`_rules/_conversation_guards.py`,
`_rules/_conversation_effects.py`): only where each can speak or change the stage.

Theory of operation (h2's `_transitions`, `src/h2/stream.py`, read for one ACP session):
- The row is the session's `Stage` (`_rules/_conversation_state.py`): its stored mode's
  (`Closed`, `Resuming`, `Replaying`, `Cancelling`, `Cancelled`,
  `_rules/_conversation_phases.py`), or a live session's from its turn and reported state;
  the column is the event's `Kind`. An entry names the guards that can speak in
  that stage for that kind: `SPEAKS` says, per guard, the stages its condition allows, each
  read against the stage's definition (the guard is silent elsewhere, and
  tests/test_lifecycle_table.py checks that on every trace). A guard not listed in `SPEAKS`
  can speak everywhere: a new guard is safe before anyone places it.
- A pair missing from `LIFECYCLE` is a finding: `REFUSED` names its rule, and its guard
  speaks whenever the pair occurs (work in `ANSWERED` is R12, any update after `CLOSED` is
  R24). `entry` still gives it an entry: the refusing guard, the others that can speak,
  and the kind's effect (a finding never wedges the session).
- `next` is the set of stages the effect can leave the session in: the effect returns the next
  mode (a phase value that holds only its own data), the table says which stages it may be
  (tests/test_lifecycle_table.py holds every effect to that).
- The quiet path (`_rules/_conversation.py`): an agent update whose entry has no guard in
  the revision and whose effect would change nothing returns the same machine at once.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

from acp_core._wire._value import frozen

from ._conversation_effects import _EFFECTS, INERT, Effect
from ._conversation_guards import (
    GUARDS,
    _r1,
    _r2,
    _r8,
    _r12,
    _r21,
    _r22,
    _r23,
    _r24,
    _r24_freed,
    _r38,
    _r39,
    _s1,
    _s2,
    work_before_running,
)
from ._conversation_state import Guard, Kind, Stage

__all__ = ["HOLDS", "LIFECYCLE", "REFUSED", "SPEAKS", "Entry", "entry"]

S = Stage
K = Kind
_ALL: Final = frozenset(Stage)
# The modes that can overlap with anything (a close answered inside a resume window, a second
# resume, ...): every guard whose condition they do not rule out can speak in them.
_MODES: Final = frozenset({S.CLOSED, S.RESUMING})

#: Where each guard can speak: the stages whose definition allows its condition, for all its
#: kinds (keyed by its check) or for one (keyed by check and kind, where a rule's one check
#: reads different stages per kind). A guard left out can speak in every stage.
SPEAKS: Final[Mapping[Any, frozenset[Stage]]] = {
    # closed_at is set: that is CLOSED.
    _r24_freed: frozenset({S.CLOSED}),
    # replay_forbidden is set: RESUMING (or CLOSED inside its window).
    _r39: _MODES,
    # a turn not started (not replaying, for output; an idle that ends it, for the idle).
    work_before_running: _MODES | {S.CANCELLING, S.WAITING},
    # a permission answer awaits `running` while requires_action, no cancel, not replaying:
    # ANSWERED by definition; WAITING and CANCELLED are phases a replay can leave behind.
    _r12: _MODES | {S.ANSWERED, S.WAITING, S.CANCELLED},
    # late ids exist: CANCELLED, or a cancel of work that never started a turn.
    _r23: _MODES | {S.CANCELLED, S.CANCELLING},
    # not replaying, nothing reported running, idle reported or a turn waiting.
    _s1: _MODES | {S.IDLE, S.WAITING, S.CANCELLED, S.CANCELLING},
    # not ending and idle reported: no work reported (a turn may wait for its prompt).
    _s2: _MODES | {S.IDLE, S.WAITING, S.CANCELLED, S.CANCELLING},
    # the idle ends work: never while replaying, at rest without a turn, or mid-session.
    _r8: _ALL - {S.REPLAYING, S.IDLE, S.UNKNOWN},
    _r2: _ALL - {S.REPLAYING, S.IDLE, S.UNKNOWN, S.CANCELLED},
    (_r1, K.IDLE): _ALL - {S.REPLAYING, S.IDLE, S.UNKNOWN, S.CANCELLED},  # (the answer: all)
    # a cancel (or close) waits for its idle.
    _r21: _MODES | {S.CANCELLING},
    (_r24, K.IDLE): _MODES | {S.CANCELLING},  # (the close's answer: all)
    _r22: _MODES | {S.CANCELLING, S.REPLAYING},
    # a resume asked for the whole history: its window is open.
    _r38: _MODES | {S.REPLAYING},
}

#: The missing pairs: the rule each breaks (its guard speaks whenever the pair occurs).
REFUSED: Final[Mapping[tuple[Stage, Kind], str]] = {
    **{
        (S.CLOSED, kind): "R24"  # the session is freed: nothing more is reported for it
        for kind in (
            K.RUNNING,
            K.REQUIRES_ACTION,
            K.IDLE,
            K.OTHER_STATE,
            K.USER_MESSAGE,
            K.WORK,
            K.BACKGROUND,
        )
    },
    # the resume asked for no replay: history before its answer is forbidden
    (S.RESUMING, K.USER_MESSAGE): "R39",
    (S.RESUMING, K.WORK): "R39",
    # a permission answer unblocked the work: output before `running` is R12
    (S.ANSWERED, K.WORK): "R12",
    # requires_action with nothing reported running
    (S.IDLE, K.REQUIRES_ACTION): "S1",
    (S.WAITING, K.REQUIRES_ACTION): "S1",
}


def _same(*stages: Stage) -> Mapping[Stage, frozenset[Stage]]:
    return {s: frozenset({s}) for s in stages}


_WINDOW: Final = (S.CLOSED, S.RESUMING, S.REPLAYING)  # reported states do not move these
_CANCELLABLE: Final = (S.WAITING, S.ANSWERED, S.BLOCKED, S.WORKING)
_AFTER_RESUME: Final = _ALL - {S.RESUMING, S.REPLAYING, S.WAITING}

# Where each kind can lead from each stage; a stage not listed stays where it is.
_MOVES: Final[Mapping[Kind, Mapping[Stage, frozenset[Stage]]]] = {
    K.PROMPT: {  # a prompt while at rest starts a turn that waits for its work
        S.IDLE: frozenset({S.WAITING}),
        S.UNKNOWN: frozenset({S.WAITING}),
        S.CANCELLED: frozenset({S.WAITING, S.CANCELLED}),  # not while an unknown state runs
    },
    K.PROMPT_ANSWER: {  # an error (or a retry's answer) can end the turn it began
        S.WAITING: frozenset({S.WAITING, S.IDLE, S.UNKNOWN, S.WORKING}),
        S.CANCELLING: frozenset({S.CANCELLING, S.IDLE, S.UNKNOWN, S.WORKING, S.CANCELLED}),
        S.REPLAYING: frozenset({S.REPLAYING}),
    },
    K.CANCEL: {
        **{s: frozenset({S.CANCELLING}) for s in _CANCELLABLE},
        S.CANCELLED: frozenset({S.CANCELLED, S.CANCELLING}),  # an unknown state may run
    },
    K.CLOSE: {
        **{s: frozenset({S.CANCELLING}) for s in _CANCELLABLE},
        S.CANCELLED: frozenset({S.CANCELLED, S.CANCELLING}),
    },
    K.CLOSE_ANSWER: {s: frozenset({s, S.CLOSED}) for s in Stage},  # an error leaves it open
    K.RESUME: {s: frozenset({S.RESUMING, S.REPLAYING}) for s in Stage},
    K.RESUME_ANSWER: dict.fromkeys(Stage, _AFTER_RESUME),
    K.PERMISSION_ANSWER: {S.BLOCKED: frozenset({S.BLOCKED, S.ANSWERED})},
    K.WORK: {S.ANSWERED: frozenset({S.BLOCKED})},  # output clears the awaited `running`
    K.RUNNING: {
        **_same(*_WINDOW, S.CANCELLING),
        **{s: frozenset({S.WORKING}) for s in _ALL - {*_WINDOW, S.CANCELLING}},
    },
    K.REQUIRES_ACTION: {
        **_same(*_WINDOW, S.CANCELLING),
        **{s: frozenset({S.BLOCKED}) for s in _ALL - {*_WINDOW, S.CANCELLING}},
    },
    K.OTHER_STATE: {
        **_same(*_WINDOW, S.CANCELLING, S.CANCELLED, S.WAITING),
        **{s: frozenset({S.WORKING}) for s in (S.IDLE, S.UNKNOWN, *_CANCELLABLE[1:])},
    },
    K.IDLE: {  # an idle that ends work returns the session to rest
        **_same(*_WINDOW, S.CANCELLED),
        S.IDLE: frozenset({S.IDLE}),
        S.UNKNOWN: frozenset({S.IDLE}),
        S.WAITING: frozenset({S.IDLE, S.WAITING}),  # the turn's prompt may not be taken yet
        S.ANSWERED: frozenset({S.IDLE}),
        S.BLOCKED: frozenset({S.IDLE}),
        S.WORKING: frozenset({S.IDLE}),
        S.CANCELLING: frozenset({S.CANCELLING, S.IDLE, S.CANCELLED}),
    },
}


_WINDOWS: Final = frozenset({S.CLOSED, S.RESUMING, S.REPLAYING})  # modes over any other stage

#: Whose data each per-stage datum of `Conversation` is: the stages in which it may be set
#: (not None, not False, not empty). The mode's (read through the machine's properties) live
#: in their phase values, so this holds by construction there; the turn stays on the machine
#: (it outlives a cancel and a window). tests/test_lifecycle_table.py holds every machine it
#: meets to this.
HOLDS: Final[Mapping[str, frozenset[Stage]]] = {
    "turn": _ALL - {S.IDLE, S.UNKNOWN, S.CANCELLED},
    "cancel_at": _WINDOWS | {S.CANCELLING},
    "cancel_by_close": _WINDOWS | {S.CANCELLING},
    "late_ids": _WINDOWS | {S.CANCELLING, S.CANCELLED},
    "replay_from_start": _WINDOWS,
    "replayed": _WINDOWS,
}


@frozen
class Entry:
    """One cell of the table.

    Attributes:
        guards: the guards that can speak in this stage for this kind, in `GUARDS` order.
        effect: the kind's bookkeeping (None: none), run after the guards.
        next: the stages the effect can leave the session in.
        refused: for a missing pair, the rule it breaks (its guard is among `guards`).
    """

    guards: tuple[Guard, ...]
    effect: Effect | None
    next: frozenset[Stage]
    refused: str | None = None

    @property
    def inert(self) -> Callable[[Any, object], bool] | None:
        """When the effect changes nothing, as a test of (machine, update); None: no such
        test (the entry never takes the quiet path)."""
        return INERT.get(self.effect)


def _speaks(guard: Guard, kind: Kind) -> frozenset[Stage]:
    found = SPEAKS.get((guard.check, kind))
    return SPEAKS.get(guard.check, _ALL) if found is None else found


def _entry(stage: Stage, kind: Kind) -> Entry:
    guards = tuple(g for g in GUARDS if kind in g.kinds and stage in _speaks(g, kind))
    moves = _MOVES.get(kind, {}).get(stage, frozenset({stage}))
    return Entry(guards, _EFFECTS.get(kind), moves, REFUSED.get((stage, kind)))


_CELLS: Final = {(stage, kind): _entry(stage, kind) for stage in Stage for kind in Kind}

#: The legal pairs (h2's `_transitions`): anything not here is in `REFUSED`.
LIFECYCLE: Final[Mapping[tuple[Stage, Kind], Entry]] = {
    pair: cell for pair, cell in _CELLS.items() if cell.refused is None
}


def entry(stage: Stage, kind: Kind) -> Entry:
    """The entry `observe` follows: the table's, or for a missing pair the default entry
    that reports its rule (`REFUSED`)."""
    return _CELLS[stage, kind]
