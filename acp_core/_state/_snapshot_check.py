"""What `restore` refuses beyond the snapshot's shape: states the reducers could never build.

Owns: the invariants every reducer-built `SessionState` keeps (docs/snapshot.md, "What
restore refuses"), checked on a restored state with a JSON path into the document.
Must not know: how the document is parsed (`_state/_snapshot.py`), how updates change state.

The invariants, each with the reducer behaviour it comes from:
- the timeline lists each message, tool call and plan exactly once (an entity gets its entry
  when first seen and keeps it; restore already refuses an entry naming no entity);
- a plan is stored under its own `planId` (the plan reducer keys plans by it);
- usage counts are what `usage_update` decodes: integers in 0..2^64-1;
- chunk-scoped `_meta` sits at the index of a block the entity has (chunks add both).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from acp_core._errors import DecodeError
from acp_core._wire._json import Path, render_path

from ._pcoll import PMap
from ._session_state import MESSAGE, PLAN, TOOL_CALL, SessionState
from ._snapshot_preview import check_extras, parse_block_index

__all__ = ["check_restorable", "parse_block_index"]

_U64_MAX: Final = 2**64 - 1
_SECTIONS: Final = {MESSAGE: "messages", TOOL_CALL: "toolCalls", PLAN: "plans"}


def check_restorable(state: SessionState) -> None:
    """Refuse a restored state no sequence of updates could have built.

    Raises:
        DecodeError: the first invariant broken; `path` points into the snapshot document.
    """
    root: Path = None
    seen: set[tuple[str, str]] = set()
    for i, ref in enumerate(state.timeline):
        key = (ref.kind, ref.id)
        if key in seen:
            raise DecodeError(
                render_path(((root, "timeline"), i)), f"each {ref.kind} once in the timeline"
            )
        seen.add(key)
    entities: dict[str, Mapping[str, object]] = {
        MESSAGE: state.messages,
        TOOL_CALL: state.tool_calls,
        PLAN: state.plans,
    }
    for kind, table in entities.items():
        for entity_id in table:
            if (kind, entity_id) not in seen:
                raise DecodeError(
                    render_path(((root, _SECTIONS[kind]), entity_id)),
                    f"a {kind} listed in the timeline",
                )
    for plan_id, plan in state.plans.items():
        if plan.plan.plan_id != plan_id:
            raise DecodeError(
                render_path((((root, "plans"), plan_id), "planId")),
                f"the id the plan is stored under ({plan_id!r})",
            )
    usage = state.usage
    if usage is not None:
        for name, count in (("used", usage.used), ("size", usage.size)):
            if not 0 <= count <= _U64_MAX:
                raise DecodeError(
                    render_path(((root, "usage"), name)), "a token count (0 to 2^64-1)"
                )
    for message_id, m in state.messages.items():
        _check_chunk_meta(m.chunk_meta, len(m.content), ((root, "messages"), message_id))
    for tool_call_id, t in state.tool_calls.items():
        _check_chunk_meta(t.chunk_meta, len(t.content), ((root, "toolCalls"), tool_call_id))
    check_extras(state.aux.extras, seen)


def _check_chunk_meta(meta: PMap[int, object], blocks: int, path: Path) -> None:
    for index in meta:
        if index >= blocks:
            where = render_path(((path, "chunkMeta"), str(index)))
            raise DecodeError(where, f"the index of one of {blocks} blocks")
