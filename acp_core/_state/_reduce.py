"""The reducers: `reduce(state, update) -> state` for the whole v2 session-update surface.

Owns: `reduce`, the dispatch of every update type to its reducer, and the 2026-11 `_meta`
merge (Q15). What each update means lives by entity in `_state/_reduce_messages.py` (M1-M8),
`_state/_reduce_tools.py` (T1-T12, X1-X10) and `_state/_reduce_session.py` (state, P1-P6, usage,
info, config, commands); `fold` is in `_state/_fold.py`.
Must not know: JSON or the codec, which side we are, engines, clocks.

Theory of operation.
- Every entity is upserted by id: the first update for an unseen id creates it with the
  documented defaults (M2/M3, T1, X1, P1); later updates patch it. Patch fields follow one
  algebra: `UNSET` keeps, `None` clears (to the field's default: `kind` -> other, `status` ->
  pending, arrays -> empty), a value replaces wholesale (Q5, 3.1).
- Chunks append to whatever is current; a full update (`content` given) replaces all of it,
  chunk-built blocks included (M2, T3). A chunk's `_meta` stays with its block (M3, T6).
- The timeline lists messages, tool calls and plans in first-seen order; nothing moves later.
- Only `state_update` touches the foreground; any other update, in any state, leaves it alone
  (3.10, T9, R40).
- Reducers never raise on decoded data. Anomalies (Q6, Q16, Q24, Q32) are recorded as
  `Diagnostic`s and the state stays consistent; an update with bad base64 is not applied.
- An update that changes nothing returns the very same state object (cheap change checks).
- Speed: per-event cost does not grow with message length or session size (PVec appends,
  HAMT map sets, positional constructors; see docs/performance.md).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from acp_core._errors import ArgumentError
from acp_core._wire._fastnew import evolve_frozen
from acp_core._wire._json import UNSET, JsonObject
from acp_core._wire._revision import DEFAULT_REVISION, Revision, revision_argument
from acp_core._wire._updates import (
    AgentMessage,
    AgentThought,
    SessionInfoUpdate,
    SessionUpdate,
    TerminalUpdate,
    ToolCallUpdate,
    UsageUpdate,
    UserMessage,
)

from . import _reduce_extras as extras
from . import _reduce_messages as messages
from . import _reduce_preview as preview
from . import _reduce_session as session
from . import _reduce_tools as tools
from ._pcoll import PMap
from ._reduce_common import (
    BAD_BASE64,
    CHUNK_FOR_UNKNOWN_TOOL_CALL,
    ROLE_MISMATCH,
    V1_KIND_ON_V2,
)
from ._session_state import (
    SessionState,
)

__all__ = [
    "BAD_BASE64",
    "CHUNK_FOR_UNKNOWN_TOOL_CALL",
    "REDUCERS",
    "ROLE_MISMATCH",
    "V1_KIND_ON_V2",
    "merged_patch",
    "reduce",
    "revised",
]

# -- dispatch --------------------------------------------------------------------------

# A type-keyed table: constant-time dispatch on the exact class (values are never subclassed).
_REDUCERS: Final[dict[type[Any], Callable[[SessionState, Any], SessionState]]] = {
    **messages.REDUCERS,
    **tools.REDUCERS,
    **session.REDUCERS,
    **extras.REDUCERS,
    **preview.REDUCERS,
}


# The updates whose `_meta` patches the stored entity's `_meta` (Q15).
_PATCHES_META: Final = frozenset(
    {ToolCallUpdate, TerminalUpdate, SessionInfoUpdate, UserMessage, AgentMessage, AgentThought}
)


def _merge_meta(state: SessionState, update: Any) -> Any:
    """Q15, 2026-11 revision: a `_meta` patch object merges into the stored one by top-level
    key instead of replacing it. Done by rewriting the update, so the reducers stay one.

    Only the entity upserts below carry a `_meta` patch; every other update (chunks, whose
    `_meta` is chunk-scoped, state snapshots, `Other*` values without a `meta` at all) is
    returned as it is, before anything reads its fields."""
    kind = type(update)
    if kind not in _PATCHES_META:
        return update
    patch = update.meta
    if not isinstance(patch, PMap):
        return update
    old: JsonObject | None
    if kind is ToolCallUpdate:
        entity = state.tool_calls.get(update.tool_call_id)
        old = None if entity is None else entity.meta
    elif kind is TerminalUpdate:
        terminal = state.terminals.get(update.terminal_id)
        old = None if terminal is None else terminal.meta
    elif kind is SessionInfoUpdate:
        old = state.info.meta
    elif kind in (UserMessage, AgentMessage, AgentThought):
        message = state.message(update.message_id)
        old = None if message is None else message.meta
    else:  # the `_PATCHES_META` kinds are exhausted above
        raise AssertionError(kind)
    return evolve_frozen(update, meta=extras.merge_meta(old, patch))


def reduce(
    state: SessionState, update: SessionUpdate, *, revision: Revision = DEFAULT_REVISION
) -> SessionState:
    """Apply one session update to a state and return the new state (pure).

    The input state is never changed. An update that changes nothing returns `state`
    itself. Never raises for a decoded update; anomalies become `state.diagnostics`.
    `revision` only matters for `_meta` patches (replace in 2026-08, merge in 2026-11, and
    for `usage_update` too in the Preview).

    Raises:
        ArgumentError: `update` is not a session update value (a programming error; also a
            `TypeError`).
    """
    reducer = _REDUCERS.get(type(update))
    if reducer is None:
        msg = f"not a session update: {type(update).__name__}"
        raise ArgumentError(msg)
    try:
        merges = revision.meta_patch_merges
    except AttributeError:
        merges = revision_argument(revision).meta_patch_merges  # raises ArgumentError
    if merges:
        update = revised(state, update, revision)
    return reducer(state, update)


def revised(state: SessionState, update: Any, revision: Revision) -> Any:
    """The update as `revision` means it against `state`: a `_meta` patch merged into the
    stored `_meta` where the revision merges (Q15, V7); the update itself otherwise.

    The one home of the revision's patch rule: `reduce` and `fold` both rewrite through it."""
    if not revision.meta_patch_merges:
        return update
    update = _merge_meta(state, update)
    if revision.usage_meta_patches and type(update) is UsageUpdate:
        update = _merge_usage_meta(state, update)
    return update


def merged_patch(old: JsonObject | None, update: Any, revision: Revision) -> Any:
    """`update` with its `_meta` patch merged into `old`, where `revision` merges (for a
    caller that holds the entity's current `_meta` itself, as `fold`'s tool-call table)."""
    patch = update.meta
    if not revision.meta_patch_merges or not isinstance(patch, PMap):
        return update
    return evolve_frozen(update, meta=extras.merge_meta(old, patch))


def _merge_usage_meta(state: SessionState, update: UsageUpdate) -> UsageUpdate:
    """Preview (V7): `usage_update._meta` is a metadata patch; absent keeps the stored one."""
    usage = state.usage
    old = None if usage is None else usage.meta
    if update.meta is UNSET:
        return update if old is None else evolve_frozen(update, meta=old)
    return evolve_frozen(update, meta=extras.merge_meta(old, update.meta))


#: Every reducer by update type (the table `fold` dispatches with).
REDUCERS: Final = _REDUCERS
