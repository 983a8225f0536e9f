"""Message reducers (digest 3.2, rules M1-M8): chunks append, upserts patch.

Owns: `user_*`, `agent_message*` and `agent_thought*` updates, the role-mismatch diagnostic
(Q16). A chunk for the message being streamed takes `_state.appended_to_streamed` (one new
root, one sequence node), so keeping every intermediate state stays cheap; how that message
is kept is `_state/_session_state.py`'s business.
Must not know: other entities, JSON, engines.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from acp_core._wire._content import ContentBlock
from acp_core._wire._json import UNSET, Meta
from acp_core._wire._updates import (
    AgentMessage,
    AgentMessageChunk,
    AgentThought,
    AgentThoughtChunk,
    UserMessage,
    UserMessageChunk,
)

from ._pcoll import EMPTY_VEC, PVec, extend_compact
from ._reduce_common import (
    EMPTY_PMAP,
    ROLE_MISMATCH,
    diagnose,
    patch_meta,
)
from ._session_state import (
    AGENT,
    MESSAGE,
    THOUGHT,
    USER,
    SessionState,
    appended_to_streamed,
    entered,
    messages_written_back,
    new_entity_ref,
    new_message_state,
    with_messages,
    with_streamed,
)
from ._text_runs import TEXT_RUNS

__all__ = ["REDUCERS", "role_mismatch"]

# -- messages (M1-M8) ----------------------------------------------------------------------


def _chunk(
    state: SessionState, message_id: str, block: ContentBlock, meta: Meta, role: str
) -> SessionState:
    chunk_scoped = meta is not UNSET and meta is not None
    if not chunk_scoped:
        # The hot path: the message being streamed grows by one node; nothing else is built.
        streamed = appended_to_streamed(state, message_id, block, role)
        if streamed is not None:
            return streamed
    messages = messages_written_back(state)  # the hot message (if any) written back
    old = messages.get(message_id)
    timeline = state.timeline
    new_hot_id: str | None = None
    new_hot: PVec[ContentBlock] | None = None
    if old is None:
        timeline = entered(timeline, new_entity_ref(MESSAGE, message_id))
        if chunk_scoped:
            messages = messages.set(
                message_id,
                new_message_state(role, EMPTY_VEC.append(block), None, EMPTY_PMAP.set(0, meta)),
            )
        else:
            # Becomes the hot message: the map keeps its role and _meta, the root its content.
            messages = messages.set(
                message_id, new_message_state(role, EMPTY_VEC, None, EMPTY_PMAP)
            )
            new_hot_id, new_hot = message_id, EMPTY_VEC.append(block)
    elif chunk_scoped or old.role != role:
        chunk_meta = old.chunk_meta
        if meta is not UNSET and meta is not None:
            chunk_meta = chunk_meta.set(len(old.content), meta)
        messages = messages.set(
            message_id,
            new_message_state(old.role, old.content.append(block), old.meta, chunk_meta),
        )
    else:
        new_hot_id, new_hot = message_id, old.content.append(block)
    if new_hot_id is None or new_hot is None:
        out = with_messages(state, messages, timeline)
    else:
        out = with_streamed(state, messages, timeline, new_hot_id, new_hot)
    if old is not None and old.role != role:
        out = role_mismatch(out, message_id, role, old.role)
    return out


def role_mismatch(state: SessionState, message_id: str, role: str, first_role: str) -> SessionState:
    return diagnose(
        state,
        ROLE_MISMATCH,
        f"message {message_id}",
        f"a {role} chunk for message {message_id!r} first seen as {first_role}: "
        "the block was appended and the original role kept",
    )


def _user_chunk(state: SessionState, u: UserMessageChunk) -> SessionState:
    return _chunk(state, u.message_id, u.content, u.meta, USER)


def _agent_chunk(state: SessionState, u: AgentMessageChunk) -> SessionState:
    return _chunk(state, u.message_id, u.content, u.meta, AGENT)


def _thought_chunk(state: SessionState, u: AgentThoughtChunk) -> SessionState:
    return _chunk(state, u.message_id, u.content, u.meta, THOUGHT)


def _upsert(
    state: SessionState, u: UserMessage | AgentMessage | AgentThought, role: str
) -> SessionState:
    message_id = u.message_id
    messages = messages_written_back(state)
    old = messages.get(message_id)
    timeline = state.timeline
    if old is None:
        old = new_message_state(role, EMPTY_VEC, None, EMPTY_PMAP)
        timeline = entered(timeline, new_entity_ref(MESSAGE, message_id))
        created = True
    else:
        created = False
        if u.content is UNSET and u.meta is UNSET:
            return state
    content = old.content
    chunk_meta = old.chunk_meta
    mismatched = old.role != role
    if u.content is not UNSET and mismatched:
        # Q16: an update of another role never erases what the first role said (an agent
        # reusing a thought's id for its reply lost the thought); its blocks are appended,
        # as a mismatched chunk's are.
        content = content.extend(u.content or ())
    elif u.content is not UNSET:
        # M2: content replaces everything accumulated, chunk-built blocks and their _meta too.
        # Packed as a finished message's content is (the blocks were just decoded: at hand).
        content = extend_compact(EMPTY_VEC, u.content, TEXT_RUNS) if u.content else EMPTY_VEC
        chunk_meta = EMPTY_PMAP
    new = new_message_state(old.role, content, patch_meta(old.meta, u.meta), chunk_meta)
    if not created and new == old:
        return state
    out = with_messages(state, messages.set(message_id, new), timeline)
    if mismatched:
        out = diagnose(
            out,
            ROLE_MISMATCH,
            f"message {message_id}",
            f"a {role} update for message {message_id!r} first seen as {old.role}: its "
            "content appended (never replacing what was said), original role kept",
        )
    return out


def _user_message(state: SessionState, u: UserMessage) -> SessionState:
    return _upsert(state, u, USER)


def _agent_message(state: SessionState, u: AgentMessage) -> SessionState:
    return _upsert(state, u, AGENT)


def _agent_thought(state: SessionState, u: AgentThought) -> SessionState:
    return _upsert(state, u, THOUGHT)


REDUCERS: Final[dict[type[Any], Callable[[SessionState, Any], SessionState]]] = {
    AgentMessageChunk: _agent_chunk,
    AgentThoughtChunk: _thought_chunk,
    UserMessageChunk: _user_chunk,
    AgentMessage: _agent_message,
    AgentThought: _agent_thought,
    UserMessage: _user_message,
}
