"""Reducers of the updates the 2026-11 draft made stable: `notice` and compaction.

Owns: `notice` (live, transient, dropped during a replay: R65), `compaction_update` and
`compaction_summary_chunk` (Preview digest §3.7, C53), the `_meta` patch of the 2026-11 draft
and the Preview (`merge_meta`, §3.1), and `set_extras`, the one rebuild of a session's extras.
Must not know: JSON, the codec, engines; messages, tool calls and terminals.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from acp_core._wire._fastnew import evolve_frozen
from acp_core._wire._json import UNSET, JsonObject, Meta
from acp_core._wire._updates_2026_11 import (
    CompactionStatus,
    CompactionSummaryChunk,
    CompactionUpdate,
    Notice,
)

from ._pcoll import EMPTY_VEC, PVec
from ._reduce_common import add_to_timeline, diagnose, set_aux
from ._session_state import EntityRef, SessionState
from ._state_extras import COMPACTION, CompactionState

__all__ = ["NOTICE_IN_REPLAY", "REDUCERS", "merge_meta", "set_extras"]

#: Diagnostic: a notice arrived inside replayed history and was dropped (R65).
NOTICE_IN_REPLAY: Final = "reduce.notice-in-replay"


def merge_meta(old: JsonObject | None, patch: Meta) -> JsonObject | None:
    """The `_meta` patch of upsert entities from 2026-11 on (§3.1): absent keeps, null clears,
    an object patches by top-level key (a null value deletes that key, any other value
    replaces it whole), and a result without keys is no metadata."""
    if patch is UNSET:
        return old
    if patch is None:
        return None
    merged = old if old is not None else type(patch)()
    with merged.mutate() as m:
        for key, value in patch.items():
            if value is None:
                if key in m:
                    del m[key]
            else:
                m[key] = value
        out = m.finish()
    return out if len(out) else None


def set_extras(state: SessionState, **changes: Any) -> SessionState:
    """The state with some fields of its extras replaced (extras change rarely: `evolve`)."""
    return set_aux(state, extras=evolve_frozen(state.aux.extras, **changes))


def _notice(state: SessionState, u: Notice) -> SessionState:
    if state.aux.extras.replay.replaying:
        return diagnose(state, NOTICE_IN_REPLAY, "$", "a notice in replayed history is dropped")
    return set_extras(state, notices=state.aux.extras.notices.append(u))


def _compaction(state: SessionState, compaction_id: str) -> tuple[SessionState, CompactionState]:
    """The compaction record (created in progress at its first sight, with a timeline entry)."""
    old = state.aux.extras.compactions.get(compaction_id)
    if old is not None:
        return state, old
    return add_to_timeline(state, EntityRef(COMPACTION, compaction_id)), CompactionState()


def _put(state: SessionState, compaction_id: str, record: CompactionState) -> SessionState:
    extras = state.aux.extras
    if extras.compactions.get(compaction_id) == record:
        return state
    return set_extras(state, compactions=extras.compactions.set(compaction_id, record))


def _compaction_update(state: SessionState, u: CompactionUpdate) -> SessionState:
    state, old = _compaction(state, u.compaction_id)
    status = old.status
    if u.status is not UNSET:  # C53: absent keeps, null resets to in_progress
        status = CompactionStatus.IN_PROGRESS if u.status is None else u.status
    summary = old.summary
    chunk_meta = old.chunk_meta
    if u.summary is not UNSET:  # a concrete summary replaces chunk-built blocks; [] / null clear
        summary = PVec(u.summary) if u.summary else EMPTY_VEC
        chunk_meta = type(chunk_meta)()
    error = old.error if u.error is UNSET else u.error
    record = CompactionState(status, summary, error, merge_meta(old.meta, u.meta), chunk_meta)
    return _put(state, u.compaction_id, record)


def _summary_chunk(state: SessionState, u: CompactionSummaryChunk) -> SessionState:
    state, old = _compaction(state, u.compaction_id)
    chunk_meta = old.chunk_meta
    if u.meta is not UNSET and u.meta is not None:
        chunk_meta = chunk_meta.set(len(old.summary), u.meta)
    record = evolve_frozen(old, summary=old.summary.append(u.content), chunk_meta=chunk_meta)
    return _put(state, u.compaction_id, record)


REDUCERS: Final[dict[type[Any], Callable[[SessionState, Any], SessionState]]] = {
    Notice: _notice,
    CompactionUpdate: _compaction_update,
    CompactionSummaryChunk: _summary_chunk,
}
