"""Hypothesis strategies over the `explore` model: whole conversations of a connection pair.

Owns: `RunWeights` (how likely each action is when enabled), `pair_runs` (programs of
enabled actions only, so every drawn run reaches a real state: prompts accepted, tools asked
about, cancels and deliveries racing; weighted towards the protocol's hard parts), `traces`
(one end's recording of such a run: a whole conversation at a revision, as checker entries) and
`enabled_intents` (the intents the model's alphabet enables in a given pair state, each one
the connection accepts).
`PairRun` itself is `_explore_runs.py`'s (an `explore` check is handed one too).
Must not know: the search (`explore.py`); hypothesis is imported here only, as in every
strategies module (the `strategies` extra).
"""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterable
from typing import Any

import attrs

from acp_core._engines._connection import connection_step
from acp_core._errors import AcpError, ArgumentError
from acp_core._wire._freezing import freezing_fields
from acp_core._wire._revision import DEFAULT_REVISION, Revision

from ._explore_model import (
    ACTION_NAMES,
    STRATEGY_ACTIONS,
    Node,
    PairState,
    initial_node,
    session_ids,
    successors,
)
from ._explore_runs import PairRun, pair_run_of

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hypothesis import strategies as st
else:
    from ._hypothesis import st  # hypothesis is imported when a strategy is first built

__all__ = [
    "STRATEGY_ACTION_NAMES",
    "EnabledIntent",
    "PairRun",
    "RunWeights",
    "enabled_intents",
    "pair_runs",
    "traces",
]


@attrs.frozen(field_transformer=freezing_fields)
class RunWeights:
    """How likely `pair_runs` takes each action when it is enabled: an action's chance at a
    step is its weight over the sum of the enabled actions' weights (0 turns it off). The
    defaults favour the protocol's hard parts, so most runs reach a cancel or a permission
    request (docs/research.md, "Reach", measures each); `RunWeights.uniform()` weighs every
    action alike (what `pair_runs` drew before weights).

    Attributes:
        deliver: each delivery (`deliver>agent`, `deliver>client`).
        prompt: the client's `prompt`.
        work: the agent's `accept`, `text`, `tool`, `finish` and `end`.
        cancel: the client's `cancel` (once its view shows work).
        cancel_asked: the client's `cancel` while it holds a permission request of that
            session (its connection then answers the request `cancelled`), in place of
            `cancel`.
        ask: the agent's `ask` (permission for the open tool call).
        allow, deny: the client granting or denying the oldest pending permission request.
        withdraw: the agent withdrawing the oldest pending request.
        close: the client's `close`.
        resume: the client's `resume` (with replay; after a `close`).
        retry: the client's `retry` of a keyed prompt (the Preview).
        child: the agent's `announce`, `child` and `childend` (the Preview's child).
    """

    deliver: int = 48
    prompt: int = 6
    work: int = 18
    cancel: int = 9
    cancel_asked: int = 30
    ask: int = 60
    allow: int = 30
    deny: int = 30
    withdraw: int = 12
    close: int = 2
    resume: int = 60
    retry: int = 10
    child: int = 2

    def __attrs_post_init__(self) -> None:
        for field in attrs.fields(RunWeights):
            value = getattr(self, field.name)
            if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                raise ArgumentError(f"RunWeights.{field.name} is an int >= 0, not {value!r}")

    @classmethod
    def uniform(cls) -> RunWeights:
        """Every action weighs 1: each enabled action is as likely as any other."""
        return cls(**{f.name: 1 for f in attrs.fields(cls)})

    def of(self, label: str, state: PairState | None = None) -> int:
        """The weight of an action by its label (`prompt sess_1`, `deliver>agent`, ...), in
        `state` (the state it is taken in: what tells `cancel_asked` from `cancel`)."""
        name, _, sid = label.partition(" ")
        if name.startswith("deliver"):
            return self.deliver
        if name == "cancel" and state is not None and _holds_request(state, sid):
            return self.cancel_asked
        return int(getattr(self, _FIELD.get(name, name)))


def _holds_request(state: PairState, sid: str) -> bool:
    return sid in state.client.sessions and bool(state.client.engine(sid).pending)


_FIELD = {
    "accept": "work",
    "text": "work",
    "tool": "work",
    "finish": "work",
    "end": "work",
    "announce": "child",
    "childend": "child",
}

DEFAULT_WEIGHTS = RunWeights()
#: The names `pair_runs(actions=...)` takes: explore's (`ACTION_NAMES`) and `deny`, which
#: only the strategies draw.
STRATEGY_ACTION_NAMES: tuple[str, ...] = (*ACTION_NAMES, "deny")

_SPAN = 2**32
_MIX = 2654435761  # odd, so multiplying by it mod 2**32 is a bijection (Knuth's hash)


@functools.lru_cache(maxsize=16)
def _root(revision: Revision, sessions: int) -> Node:
    return initial_node(revision, sessions)


def _draw_run(
    draw: st.DrawFn,
    revision: Revision,
    sessions: int,
    max_steps: int,
    weights: RunWeights,
    only: frozenset[str] | None,
) -> PairRun:
    # Each step draws a 32-bit integer: 0 stops the run (so runs shrink towards shorter
    # ones); any other value is spread over [0, 1) by a bijection (hypothesis draws small
    # integers far more often than large ones, which would pick the alphabet's first action
    # most of the time) and takes the enabled action whose share of the weights holds it.
    node = _root(revision, sessions)  # (not an argument: its repr would fill the report)
    for _ in range(max_steps):
        options = [
            (weights.of(label, node.state), nxt)
            for label, nxt in successors(node, sessions, only, alphabet=STRATEGY_ACTIONS)
        ]
        total = sum(weight for weight, _ in options)
        if total == 0:
            break
        drawn = draw(st.integers(0, _SPAN - 1))
        if drawn == 0:
            break
        pick = ((drawn * _MIX) % _SPAN) * total // _SPAN
        for weight, nxt in options:
            pick -= weight
            if pick < 0:
                node = nxt
                break
    return pair_run_of(node)


@functools.cache
def _runs() -> Callable[..., st.SearchStrategy[PairRun]]:
    """`_draw_run` as a strategy, made on first use (hypothesis is imported then)."""
    runs: Callable[..., st.SearchStrategy[PairRun]] = st.composite(_draw_run)
    return runs


def pair_runs(
    *,
    revision: Revision = DEFAULT_REVISION,
    sessions: int = 1,
    max_steps: int = 24,
    weights: RunWeights = DEFAULT_WEIGHTS,
    actions: Iterable[str] | None = None,
) -> st.SearchStrategy[PairRun]:
    """Runs of up to `max_steps` enabled actions of an agent and a client connection (set up:
    initialized, `sessions` sessions open), each action taken with the chance its `weights`
    give it (`RunWeights`; by default the hard parts are favoured: cancels, permission
    requests granted, denied and cancelled, resumes, retries and children at the Preview).
    `actions` restricts the alphabet to these names, as `explore_levels` does
    (`STRATEGY_ACTION_NAMES`: explore's `ACTION_NAMES` and `deny`; default: all of them).
    `run.features()` names the hard parts a run reached. Shrinks towards shorter runs and
    earlier actions."""
    if sessions < 1 or max_steps < 0:
        raise ArgumentError("pair_runs needs sessions >= 1 and max_steps >= 0")
    only = None if actions is None else frozenset(actions)
    if only is not None and not only <= set(STRATEGY_ACTION_NAMES):
        raise ArgumentError(
            f"pair_runs' actions are {STRATEGY_ACTION_NAMES}, not {sorted(only)}"
        )
    _root(revision, sessions)  # built now: a revision it cannot set up fails here
    return _runs()(revision, sessions, max_steps, weights, only)


def traces(
    *,
    revision: Revision = DEFAULT_REVISION,
    sessions: int = 1,
    max_steps: int = 24,
    side: str = "client",
    weights: RunWeights = DEFAULT_WEIGHTS,
    actions: Iterable[str] | None = None,
) -> st.SearchStrategy[tuple[Any, ...]]:
    """Whole conversations at `revision` as one end records them (`side`: `client` or
    `agent`), from `initialize` on: checker entries (`{"from", "message"}`) a `check_trace`,
    `replay` or a reader of traces takes. Each is a `pair_runs` recording, so it breaks no
    MUST rule (`explore` shows it for every run up to its depth); `weights` and `actions`
    as for `pair_runs`."""
    if side not in ("client", "agent"):
        raise ArgumentError(f"side is 'client' or 'agent', not {side!r}")
    runs = pair_runs(
        revision=revision,
        sessions=sessions,
        max_steps=max_steps,
        weights=weights,
        actions=actions,
    )
    return runs.map(lambda run: run.client_trace if side == "client" else run.agent_trace)


@attrs.frozen
class EnabledIntent:
    """An intent the model enables: its label (`explore`'s), which end steps it (`agent` or
    `client`), and the intent (a `SessionIntent` or a connection intent)."""

    label: str
    side: str
    intent: Any


def _enabled(state: PairState, sessions: int) -> list[EnabledIntent]:
    found = []
    for sid in session_ids(sessions):
        for name, guard in STRATEGY_ACTIONS:
            chosen = guard(state, sid)
            if chosen is None:
                continue
            side, intent = chosen
            try:
                connection_step(state.agent if side == "agent" else state.client, intent)
            except AcpError:
                continue
            found.append(EnabledIntent(f"{name} {sid}", side, intent))
    return found


def enabled_intents(state: PairState, *, sessions: int = 1) -> st.SearchStrategy[EnabledIntent]:
    """One of the intents valid in `state` (a `PairRun.state`): the alphabet's guard holds and
    the connection steps it without an `AcpError`. Empty (`st.nothing()`) when none is."""
    found = _enabled(state, sessions)
    return st.sampled_from(found) if found else st.nothing()
