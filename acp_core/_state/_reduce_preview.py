"""Per-session reducers of the v2 Preview variants (Preview digest §3.2-§3.6).

Owns: `subagent_update` as the parent sees it (the child link, §3.2), `session_message` and
`session_message_chunk` (§3.3, P6), `replay_complete` and the replay window (`begin_replay`,
`end_replay`, §3.4), `plan_removed` (§3.5, P11), `prompt_suggestions_update` (§3.6) and
`state: "unknown"` (C48, R77).
Must not know: JSON, the codec, engines; routing between sessions (`_state/_reduce_children.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from acp_core._wire._fastnew import evolve_frozen
from acp_core._wire._json import UNSET
from acp_core._wire._updates_preview import (
    PlanRemoved,
    PromptSuggestionsUpdate,
    ReplayComplete,
    SessionMessage,
    SessionMessageChunk,
    SubagentUpdate,
    UnknownStateUpdate,
)

from ._pcoll import EMPTY_VEC, PMap, PVec
from ._reduce_common import add_to_timeline, diagnose
from ._reduce_extras import merge_meta, set_extras
from ._session_state import (
    PLAN,
    EntityRef,
    Foreground,
    SessionState,
    entered,
    with_foreground,
    with_plans,
)
from ._state_extras import (
    REPLAY_COMPLETE,
    REPLAY_REPLAYING,
    REPLAY_TRUNCATED,
    SESSION_MESSAGE,
    ChildLink,
    ReplayWindow,
    SessionMessageState,
)

__all__ = [
    "MESSAGE_ID_COLLISION",
    "REDUCERS",
    "REPLAY_WITHOUT_MARKER",
    "SUGGESTIONS_IN_REPLAY",
    "UNCONFIRMED",
    "UNEXPECTED_REPLAY_MARKER",
    "begin_replay",
    "end_replay",
]

#: Diagnostics of these reducers (docs/semantics.md, "Preview").
MESSAGE_ID_COLLISION: Final = "reduce.message-id-collision"  # P6: first kind wins
UNEXPECTED_REPLAY_MARKER: Final = "reduce.unexpected-replay-marker"  # R58
REPLAY_WITHOUT_MARKER: Final = "reduce.replay-without-marker"  # R57, P24
SUGGESTIONS_IN_REPLAY: Final = "reduce.suggestions-in-replay"  # R65

#: Foreground state of a child nothing has been reported for yet (P4): not idle, not busy.
UNCONFIRMED: Final = "unconfirmed"
UNKNOWN: Final = "unknown"


# -- child links (on the parent) ------------------------------------------------------------


def _subagent(state: SessionState, u: SubagentUpdate) -> SessionState:
    extras = state.aux.extras
    old = extras.children.get(u.session_id)
    order = extras.child_order
    if old is None:
        old = ChildLink()
        order = (*order, u.session_id)
    link = ChildLink(
        old.title if u.title is UNSET else u.title,
        old.description if u.description is UNSET else u.description,
        old.capabilities if u.capabilities is UNSET else u.capabilities,
        old.mirrored_state if u.state is UNSET else u.state,
        old.cwd if u.cwd is UNSET else u.cwd,
        old.additional_directories
        if u.additional_directories is UNSET
        else u.additional_directories,
        merge_meta(old.meta, u.meta),
    )
    if extras.children.get(u.session_id) == link:
        return state  # C32: a repeated report changes nothing
    return set_extras(state, children=extras.children.set(u.session_id, link), child_order=order)


# -- inter-session messages (§3.3) -------------------------------------------------------------


def _session_message_record(
    state: SessionState, message_id: str
) -> tuple[SessionState, SessionMessageState | None]:
    """The record (created at first sight with a timeline entry), or None on a collision."""
    old = state.aux.extras.session_messages.get(message_id)
    if old is not None:
        return state, old
    if state.message(message_id) is not None:  # P6: one id space per session, first kind wins
        detail = f"message id {message_id!r} is already a user/agent message"
        return diagnose(state, MESSAGE_ID_COLLISION, "$.messageId", detail), None
    return add_to_timeline(state, EntityRef(SESSION_MESSAGE, message_id)), SessionMessageState()


def _put_message(state: SessionState, message_id: str, record: SessionMessageState) -> SessionState:
    messages = state.aux.extras.session_messages
    if messages.get(message_id) == record:
        return state
    return set_extras(state, session_messages=messages.set(message_id, record))


def _session_message(state: SessionState, u: SessionMessage) -> SessionState:
    state, old = _session_message_record(state, u.message_id)
    if old is None:
        return state
    content, chunk_meta = old.content, old.chunk_meta
    if u.content is not UNSET:  # replaces all accumulated content, chunks included
        content = PVec(u.content) if u.content else EMPTY_VEC
        chunk_meta = PMap()
    record = SessionMessageState(
        content,
        old.sender_session_id if u.sender_session_id is UNSET else u.sender_session_id,
        old.recipient_session_id if u.recipient_session_id is UNSET else u.recipient_session_id,
        old.sender_message_id if u.sender_message_id is UNSET else u.sender_message_id,
        old.recipient_message_id if u.recipient_message_id is UNSET else u.recipient_message_id,
        merge_meta(old.meta, u.meta),
        chunk_meta,
    )
    return _put_message(state, u.message_id, record)


def _session_message_chunk(state: SessionState, u: SessionMessageChunk) -> SessionState:
    state, old = _session_message_record(state, u.message_id)
    if old is None:
        return state
    chunk_meta = old.chunk_meta
    if u.meta is not UNSET and u.meta is not None:
        chunk_meta = chunk_meta.set(len(old.content), u.meta)
    record = evolve_frozen(old, content=old.content.append(u.content), chunk_meta=chunk_meta)
    return _put_message(state, u.message_id, record)


# -- replay window (§3.4) ----------------------------------------------------------------------


def begin_replay(state: SessionState, request_id: int | str | None) -> SessionState:
    """The session as a `session/resume` with a `replayFrom` cursor starts replaying it:
    later updates are history until its `replay_complete` (C36)."""
    return set_extras(state, replay=ReplayWindow(REPLAY_REPLAYING, request_id))


def end_replay(state: SessionState, *, succeeded: bool) -> SessionState:
    """The resume request that started the replay was answered. A success while still
    replaying is an agent fault (R57): complete, with a diagnostic (P24); a failure, cancel or
    lost connection leaves the history truncated (C37)."""
    window = state.aux.extras.replay
    if not window.replaying:
        return state
    if not succeeded:
        return set_extras(state, replay=ReplayWindow(REPLAY_TRUNCATED, window.request_id))
    state = diagnose(state, REPLAY_WITHOUT_MARKER, "$", "resume answered before replay_complete")
    return set_extras(state, replay=ReplayWindow(REPLAY_COMPLETE, window.request_id))


def _replay_complete(state: SessionState, u: ReplayComplete) -> SessionState:
    window = state.aux.extras.replay
    if not window.replaying:  # R58: no replay asked for; ignore the marker
        return diagnose(state, UNEXPECTED_REPLAY_MARKER, "$", "replay_complete with no replay")
    return set_extras(state, replay=ReplayWindow(REPLAY_COMPLETE, window.request_id))


# -- plans, suggestions, unknown state ---------------------------------------------------------


def _plan_removed(state: SessionState, u: PlanRemoved) -> SessionState:
    if u.plan_id not in state.plans:
        return state  # C46: an unknown id is a no-op
    # Removal is rare: rebuild the timeline without the plan, so a later plan_update with the
    # same id starts a fresh plan at its new position (P11).
    kept = [r for r in state.timeline if not (r.kind == PLAN and r.id == u.plan_id)]
    timeline = EMPTY_VEC
    for ref in kept:
        timeline = entered(timeline, ref)
    return with_plans(state, state.plans.delete(u.plan_id), timeline)


def _suggestions(state: SessionState, u: PromptSuggestionsUpdate) -> SessionState:
    extras = state.aux.extras
    if extras.replay.replaying:
        return diagnose(state, SUGGESTIONS_IN_REPLAY, "$", "prompt suggestions in replay dropped")
    if extras.prompt_suggestions == u.suggestions:
        return state
    return set_extras(state, prompt_suggestions=u.suggestions)


def last_known(foreground: Foreground) -> str | None:
    """The state to keep as "last known" when the current one becomes unobservable."""
    if foreground.state in (UNKNOWN, UNCONFIRMED):
        return foreground.last_known
    return foreground.state


def _unknown_state(state: SessionState, u: UnknownStateUpdate) -> SessionState:
    fg = state.foreground
    background = None if u.background is UNSET else u.background
    new = Foreground(
        UNKNOWN,
        fg.stop_reason,
        None if u.meta is UNSET else u.meta,
        None,
        background,
        last_known(fg),
    )
    if new == fg:
        return state
    return with_foreground(state, new)


REDUCERS: Final[dict[type[Any], Callable[[SessionState, Any], SessionState]]] = {
    SubagentUpdate: _subagent,
    SessionMessage: _session_message,
    SessionMessageChunk: _session_message_chunk,
    ReplayComplete: _replay_complete,
    PlanRemoved: _plan_removed,
    PromptSuggestionsUpdate: _suggestions,
    UnknownStateUpdate: _unknown_state,
}
