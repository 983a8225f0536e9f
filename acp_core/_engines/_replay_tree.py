"""The resume traffic of a session with its children (the Preview), as (session id, update).

Owns: `resume_updates`, everything an agent sends for one `session/resume` before the response:
the session's history, each child re-announced on its parent and replayed under it with its
own marker and state snapshot (depth first), the session's marker, its state snapshot.
Must not know: the wire, JSON-RPC ids, connections; how one session's history is built
(`_engines/_replay_gen.py`).

Order (Preview digest 7.3, R57-R62, decision P8):
- With a cursor: the session's history; then for each child in announcement order its
  re-announcing `subagent_update` on the parent (R61: before any traffic of the child), the
  child's own history, marker and state snapshot (R60; P8: every child marker before the
  parent's and before the response); then the parent's marker (exactly once, R57) and its
  state snapshot (R62).
- Without a cursor: no history and no marker (R58), but the children are still re-announced
  (R61, the connection is new) and every session's current state is sent (R62).
- A revision without a marker (2026-08, 2026-11) has no children either: only the session.
"""

from __future__ import annotations

from collections.abc import Iterator

from acp_core._state._reduce_children import SessionTree, child_link, children_of
from acp_core._state._session_state import SessionState
from acp_core._state._state_extras import ChildLink
from acp_core._wire._json import UNSET
from acp_core._wire._revision import Revision
from acp_core._wire._updates import SessionUpdate
from acp_core._wire._updates_preview import SubagentUpdate

from ._replay_gen import end_marker, replay_updates, state_snapshot

__all__ = ["announcement", "resume_updates"]


def announcement(child_id: str, link: ChildLink) -> SubagentUpdate:
    """The `subagent_update` that announces `child_id` again with everything its link holds
    (the mirrored state included, R51)."""

    def opt(value: object) -> object:
        return UNSET if value is None else value

    return SubagentUpdate(
        child_id,
        title=opt(link.title),  # type: ignore[arg-type]
        description=opt(link.description),  # type: ignore[arg-type]
        capabilities=opt(link.capabilities),  # type: ignore[arg-type]
        state=opt(link.mirrored_state),  # type: ignore[arg-type]
        cwd=opt(link.cwd),  # type: ignore[arg-type]
        additional_directories=opt(link.additional_directories),  # type: ignore[arg-type]
        meta=opt(link.meta),  # type: ignore[arg-type]
    )


def _one(
    tree: SessionTree,
    session_id: str,
    state: SessionState,
    revision: Revision,
    history: bool,
    seen: set[str],
) -> Iterator[tuple[str, SessionUpdate]]:
    marker = end_marker(revision)
    if history:
        for update in replay_updates(state):
            yield session_id, update
    for child_id in children_of(tree, session_id) if marker is not None else ():
        link = child_link(tree, child_id)
        child = tree.sessions.get(child_id)
        if link is None or child is None or child_id in seen:
            continue
        seen.add(child_id)
        yield session_id, announcement(child_id, link)
        yield from _one(tree, child_id, child, revision, history, seen)
    if history and marker is not None:
        yield session_id, marker
    for update in state_snapshot(state):
        yield session_id, update


def resume_updates(
    tree: SessionTree, state: SessionState, revision: Revision, *, history: bool
) -> Iterator[tuple[str, SessionUpdate]]:
    """What a resume of `state.session_id` sends before its response: `(session id, update)`
    in wire order. `tree` holds the children (the session's own entry only their links);
    `history` is true when the request carried a `replayFrom` cursor."""
    yield from _one(tree, state.session_id, state, revision, history, {state.session_id})
