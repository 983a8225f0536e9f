"""Hypothesis strategies: update sequences over small id pools, and the states they reach.

Owns: `IdPools` (the few ids each entity kind is drawn from), `update_sequences` (lists of
session updates whose ids come from those pools, so later updates hit entities earlier ones
created: the chunk that appends, the patch that changes, the plan that is replaced) and
`session_states` (what folding such a sequence into a new session gives).
Must not know: connections or engines (`_strategies_pair.py` draws whole conversations).

Why pools: an update drawn alone names a fresh random id almost every time, so a list of
them builds many one-update entities and never exercises a patch, an append after a
replace, or a role clash; a property that should bite on "the second update of a tool call"
never sees one. Message, tool-call and terminal ids share one id in the default pools on
purpose (their namespaces must stay apart).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any

import attrs

from acp_core._state._fold import fold
from acp_core._state._session_state import SessionState, new_session
from acp_core._wire import _updates as u
from acp_core._wire._revision import DEFAULT_REVISION, Revision

from ._strategies_updates import session_updates

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hypothesis import strategies as st
else:
    from ._hypothesis import st  # hypothesis is imported when a strategy is first built

__all__ = ["IdPools", "session_states", "update_sequences"]


@attrs.frozen
class IdPools:
    """The ids each kind of entity is drawn from (each pool non-empty)."""

    messages: tuple[str, ...] = ("m1", "m2", "m3")
    tool_calls: tuple[str, ...] = ("t1", "t2", "m1")
    terminals: tuple[str, ...] = ("x1", "x2", "t1")
    plans: tuple[str, ...] = ("p1", "p2")


_FIELDS = (
    ("message_id", "messages"),
    ("tool_call_id", "tool_calls"),
    ("terminal_id", "terminals"),
    ("plan_id", "plans"),
)


def _draw_pooled(draw: st.DrawFn, update: Any, pools: IdPools) -> Any:
    changes = {}
    fields = attrs.fields_dict(type(update))
    for field, pool in _FIELDS:
        if field in fields and isinstance(getattr(update, field), str):
            changes[field] = draw(st.sampled_from(getattr(pools, pool)))
    if changes:
        update = attrs.evolve(update, **changes)
    if isinstance(update, u.PlanUpdate):  # the plan's id sits one level down
        plan: Any = update.plan
        plan_id = draw(st.sampled_from(pools.plans))
        if isinstance(plan, u.OtherPlan):  # an unknown plan keeps its id in `raw`
            plan = u.OtherPlan(plan.raw.set("planId", plan_id))
        else:
            plan = attrs.evolve(plan, plan_id=plan_id)
        update = attrs.evolve(update, plan=plan)
    return update


@functools.cache
def _pooled() -> Callable[..., st.SearchStrategy[Any]]:
    """`_draw_pooled` as a strategy, made on first use (hypothesis is imported then)."""
    pooled: Callable[..., st.SearchStrategy[Any]] = st.composite(_draw_pooled)
    return pooled


def update_sequences(
    *,
    revision: Revision = DEFAULT_REVISION,
    max_size: int = 12,
    pools: IdPools = IdPools(),
) -> st.SearchStrategy[tuple[u.SessionUpdate, ...]]:
    """Sequences of any session updates of `revision` (every variant, unknown ones too)
    whose message, tool-call, terminal and plan ids come from `pools`. Shrinks towards
    shorter sequences and simpler updates."""
    one = session_updates(revision=revision).flatmap(lambda upd: _pooled()(upd, pools))
    return st.lists(one, max_size=max_size).map(tuple)


def session_states(
    *,
    revision: Revision = DEFAULT_REVISION,
    max_updates: int = 12,
    pools: IdPools = IdPools(),
    session_id: str = "sess_1",
) -> st.SearchStrategy[SessionState]:
    """States reached by folding an `update_sequences` draw into a new session."""
    return update_sequences(revision=revision, max_size=max_updates, pools=pools).map(
        lambda updates: fold(new_session(session_id), updates, revision=revision)
    )
