"""Hypothesis strategies: `state_update` values (top-level and a child's), per revision.

Owns: the foreground states (`running`, `idle`, `requires_action`, the Preview's `unknown`,
an unknown state), what a revision adds to them (the background-work snapshot and the error
of an idle stop, 2026-11 on; a background child, Preview), and `rpc_errors`, which an idle
state's `error` and an error response both carry.
Must not know: the other update variants, JSON-RPC messages. Public surface:
`acp_core.strategies`.
"""

from __future__ import annotations

from typing import Any

from acp_core._wire import _jsonrpc as j
from acp_core._wire import _updates as u
from acp_core._wire import _updates_2026_11 as n
from acp_core._wire import _updates_preview as p
from acp_core._wire._fields import since_of
from acp_core._wire._json import UNSET, JsonValue, Unset
from acp_core._wire._revision import DEFAULT_REVISION, Revision

from ._strategies_base import (
    _INT32_MAX,
    _INT32_MIN,
    _INT64_MAX,
    _INT64_MIN,
    _edged,
    _ids,
    _raw_objects,
    _since,
    _texts,
    _tuples,
    built_once,
    extras,
    json_values,
    metas,
    open_enum_values,
    patches,
    unknown_tags,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hypothesis import strategies as st
else:
    from ._hypothesis import st  # hypothesis is imported when a strategy is first built

__all__ = [
    "background_works",
    "idle_state_updates",
    "known_states",
    "other_state_updates",
    "requires_action_state_updates",
    "rpc_errors",
    "running_state_updates",
    "state_updates",
    "unknown_state_updates",
]


def rpc_errors() -> st.SearchStrategy[j.RpcError]:
    """`error` members: the named codes half the time, else int32 codes and, 1 time in 8
    each, the edges of the codec's int64 width."""
    codes = st.sampled_from(
        (
            j.ErrorCode.PARSE_ERROR,
            j.ErrorCode.INVALID_REQUEST,
            j.ErrorCode.METHOD_NOT_FOUND,
            j.ErrorCode.INVALID_PARAMS,
            j.ErrorCode.INTERNAL_ERROR,
            j.ErrorCode.REQUEST_CANCELLED,
            j.ErrorCode.AUTH_REQUIRED,
            j.ErrorCode.RESOURCE_NOT_FOUND,
        )
    ) | _edged(_INT64_MIN, _INT64_MAX, st.integers(_INT32_MIN, _INT32_MAX))
    data: st.SearchStrategy[JsonValue | Unset] = st.just(UNSET) | json_values()
    return st.builds(j.RpcError, code=codes, message=_texts(), data=data, extra=extras())


@built_once
def background_works(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[n.BackgroundWork]:
    """Items of a state's `background` snapshot (2026-11 on): terminals, tool calls, from the
    Preview on children, and items of an unknown `type`."""
    items: list[st.SearchStrategy[Any]] = [
        st.builds(n.BackgroundTerminal, terminal_id=_ids(), meta=metas(), extra=extras()),
        st.builds(n.BackgroundToolCall, tool_call_id=_ids(), meta=metas(), extra=extras()),
    ]
    if revision.includes(since_of(n.BackgroundSubagent)):
        items.append(
            st.builds(n.BackgroundSubagent, session_id=_ids(), meta=metas(), extra=extras())
        )
    # "subagent" is known to the Preview only: drawn as unknown nowhere, so no revision
    # decodes an item differently from how it was drawn.
    known = ("terminal", "tool_call", "subagent")
    items.append(st.builds(n.OtherBackgroundWork, _raw_objects("type", unknown_tags(known))))
    return st.one_of(items)


def _backgrounds(cls: type[Any], revision: Revision) -> Any:
    items = _tuples(background_works(revision=revision), max_size=2)
    return _since(cls, "background", revision, patches(items))


def running_state_updates(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[u.RunningStateUpdate]:
    """`state_update` with `state: running` (a background snapshot where `revision` has it)."""
    return st.builds(
        u.RunningStateUpdate,
        meta=metas(),
        background=_backgrounds(u.RunningStateUpdate, revision),
        extra=extras(),
    )


def idle_state_updates(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[u.IdleStateUpdate]:
    """`state_update` with `state: idle` (stop reason absent, null, known or unknown; a
    background snapshot and the stop's `error` where `revision` has them)."""
    return st.builds(
        u.IdleStateUpdate,
        stop_reason=patches(open_enum_values(u.StopReason.KNOWN)),
        meta=metas(),
        background=_backgrounds(u.IdleStateUpdate, revision),
        error=_since(u.IdleStateUpdate, "error", revision, patches(rpc_errors())),
        extra=extras(),
    )


def requires_action_state_updates(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[u.RequiresActionStateUpdate]:
    """`state_update` with `state: requires_action` (a background snapshot where `revision`
    has it)."""
    return st.builds(
        u.RequiresActionStateUpdate,
        meta=metas(),
        background=_backgrounds(u.RequiresActionStateUpdate, revision),
        extra=extras(),
    )


def unknown_state_updates(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[p.UnknownStateUpdate]:
    """`state_update` with `state: "unknown"` (Preview), with or without a background
    snapshot."""
    return st.builds(
        p.UnknownStateUpdate,
        background=patches(_tuples(background_works(revision=revision), max_size=2)),
        meta=metas(),
        extra=extras(),
    )


def other_state_updates() -> st.SearchStrategy[u.OtherStateUpdate]:
    """`state_update` with an unknown `state`."""
    return st.builds(
        u.OtherStateUpdate,
        _raw_objects(
            "state",
            unknown_tags(u.ForegroundState.KNOWN),
            {"sessionUpdate": st.just("state_update")},
        ),
    )


def known_states(*, revision: Revision = DEFAULT_REVISION) -> list[st.SearchStrategy[Any]]:
    """The strategies of every state `revision` knows (`unknown` from the Preview on): what
    a top-level `state_update` and a child's mirrored `state` are drawn from."""
    states: list[st.SearchStrategy[Any]] = [
        running_state_updates(revision=revision),
        idle_state_updates(revision=revision),
        requires_action_state_updates(revision=revision),
    ]
    if revision.includes(since_of(p.UnknownStateUpdate)):
        states.append(unknown_state_updates(revision=revision))
    return states


def state_updates(*, revision: Revision = DEFAULT_REVISION) -> st.SearchStrategy[u.StateUpdate]:
    """Any `state_update` of `revision`, unknown states included (`state: "unknown"` from
    the Preview on, an unrecognized state otherwise)."""
    return st.one_of(*known_states(revision=revision), other_state_updates())
