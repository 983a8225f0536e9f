"""Session-wide reducers: the foreground state, plans, and what the session has once.

Owns: `state_update` (3.10, section 5; Q1, Q3, Q21), `plan_update` (P1-P6),
`available_commands_update`, `config_option_update`, `session_info_update`, `usage_update`
(Q11) and unknown updates (kept raw; Q32 diagnostic for v1 kinds).
Must not know: messages, tool calls, terminals, JSON, engines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from acp_core._wire._fastnew import evolve_frozen
from acp_core._wire._json import UNSET
from acp_core._wire._jsonrpc import RpcError
from acp_core._wire._setup import NewSessionResult, ResumeSessionResult
from acp_core._wire._updates import (
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    IdleStateUpdate,
    OtherStateUpdate,
    OtherUpdate,
    PlanUpdate,
    RequiresActionStateUpdate,
    RunningStateUpdate,
    SessionInfoUpdate,
    UsageUpdate,
)

from ._pcoll import PMap
from ._reduce_common import (
    V1_KIND_ON_V2,
    V1_KINDS,
    diagnose,
    meta_or_none,
    patch_meta,
    set_aux,
)
from ._session_state import (
    PLAN,
    Foreground,
    PlanState,
    SessionState,
    Usage,
    entered,
    new_entity_ref,
    new_foreground,
    with_foreground,
    with_plans,
)

__all__ = ["REDUCERS", "seed_session"]

# -- foreground state (3.10, section 5) ----------------------------------------------------


def _set_foreground(state: SessionState, foreground: Foreground) -> SessionState:
    if foreground == state.foreground:
        return state  # Q21: repeats are idempotent
    return with_foreground(state, foreground)


def _background(u: RunningStateUpdate | RequiresActionStateUpdate | IdleStateUpdate) -> Any:
    # 3.8, P12: a list is the new snapshot; absent or null means "not reported" (None), never
    # the previous list.
    return u.background if isinstance(u.background, tuple) else None


def _running(state: SessionState, u: RunningStateUpdate) -> SessionState:
    # The stop reason belongs to the most recent idle; a running update does not clear it.
    fg = state.foreground
    fg = new_foreground(
        "running", fg.stop_reason, meta_or_none(u.meta), None, _background(u), None, None
    )
    return _set_foreground(state, fg)


def _requires_action(state: SessionState, u: RequiresActionStateUpdate) -> SessionState:
    fg = state.foreground
    fg = new_foreground(
        "requires_action", fg.stop_reason, meta_or_none(u.meta), None, _background(u), None, None
    )
    return _set_foreground(state, fg)


def _idle(state: SessionState, u: IdleStateUpdate) -> SessionState:
    # Q1: a missing/null stop reason reads as "not reported".
    stop = None if u.stop_reason is UNSET else u.stop_reason
    error = u.error if isinstance(u.error, RpcError) else None
    fg = new_foreground("idle", stop, meta_or_none(u.meta), None, _background(u), None, error)
    return _set_foreground(state, fg)


def _other_state(state: SessionState, u: OtherStateUpdate) -> SessionState:
    # Q3: keep an unknown state raw; it is "not idle" for gating, nothing more is inferred.
    meta = u.raw.get("_meta")
    fg = Foreground(
        u.state,
        state.foreground.stop_reason,
        meta if isinstance(meta, PMap) else None,
        u.raw,
    )
    return _set_foreground(state, fg)


# -- plans (P1-P6) -------------------------------------------------------------------------


def _plan_update(state: SessionState, u: PlanUpdate) -> SessionState:
    plan = u.plan
    plan_id = plan.plan_id
    plans = state.plans
    new = PlanState(plan, meta_or_none(u.meta))
    old = plans.get(plan_id)
    if old == new:
        return state
    timeline = state.timeline
    if old is None:
        timeline = entered(timeline, new_entity_ref(PLAN, plan_id))
    return with_plans(state, plans.set(plan_id, new), timeline)


# -- session-wide updates ------------------------------------------------------------------


def _commands(state: SessionState, u: AvailableCommandsUpdate) -> SessionState:
    if state.aux.available_commands == u.available_commands:
        return state
    return set_aux(state, available_commands=u.available_commands)


def _config_options(state: SessionState, u: ConfigOptionUpdate) -> SessionState:
    if state.aux.config_options == u.config_options:
        return state
    return set_aux(state, config_options=u.config_options)


def _session_info(state: SessionState, u: SessionInfoUpdate) -> SessionState:
    info = state.aux.info
    title = info.title if u.title is UNSET else u.title
    updated_at = info.updated_at if u.updated_at is UNSET else u.updated_at
    meta = patch_meta(info.meta, u.meta)
    if title == info.title and updated_at == info.updated_at and _same(meta, info.meta):
        return state
    # Every value is frozen already (the update's, the state's): `SessionInfo(...)` would copy
    # the whole `_meta` again, a cost growing with every key an agent ever added.
    new = evolve_frozen(info, title=title, updated_at=updated_at, meta=meta)
    return set_aux(state, info=new)


def _same(a: object, b: object) -> bool:
    return a is b or a == b


def _usage(state: SessionState, u: UsageUpdate) -> SessionState:
    aux = state.aux
    previous_cost = None if aux.usage is None else aux.usage.cost
    # Q11: no `cost` keeps the last reported one; null clears it.
    cost = previous_cost if u.cost is UNSET else u.cost
    meta = meta_or_none(u.meta)
    old = aux.usage
    if old is None:
        old = _NO_USAGE
    elif (old.used, old.size, old.cost) == (u.used, u.size, cost) and _same(meta, old.meta):
        return state
    # Frozen values only, as in `_session_info` (the merged `_meta` is not copied again).
    return set_aux(state, usage=evolve_frozen(old, used=u.used, size=u.size, cost=cost, meta=meta))


#: What `_usage` evolves the first usage from (every field is set there).
_NO_USAGE: Final = Usage(0, 0)


def _other(state: SessionState, u: OtherUpdate) -> SessionState:
    out = set_aux(state, unknown=state.aux.unknown.append(u))
    if u.session_update in V1_KINDS:
        out = diagnose(
            out,
            V1_KIND_ON_V2,
            f"update {u.session_update}",
            f"v1 update kind {u.session_update!r} on the v2 surface: kept raw as an unknown "
            "update, not interpreted (Q32)",
        )
    return out


REDUCERS: Final[dict[type[Any], Callable[[SessionState, Any], SessionState]]] = {
    RunningStateUpdate: _running,
    IdleStateUpdate: _idle,
    RequiresActionStateUpdate: _requires_action,
    OtherStateUpdate: _other_state,
    PlanUpdate: _plan_update,
    AvailableCommandsUpdate: _commands,
    ConfigOptionUpdate: _config_options,
    SessionInfoUpdate: _session_info,
    UsageUpdate: _usage,
    OtherUpdate: _other,
}


def seed_session(
    state: SessionState, result: NewSessionResult | ResumeSessionResult
) -> SessionState:
    """The session after its set-up response: commands and config options from the response,
    unless an update already reported them (updates may precede the response, §7.2)."""
    changes: dict[str, object] = {}
    if state.available_commands is None and isinstance(result.available_commands, tuple):
        changes["available_commands"] = result.available_commands
    if state.config_options is None and isinstance(result.config_options, tuple):
        changes["config_options"] = result.config_options
    return set_aux(state, **changes) if changes else state
