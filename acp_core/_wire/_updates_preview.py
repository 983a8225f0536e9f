"""Values the v2 Preview (2026-11-20) added to the session-update surface (Preview digest §2).

Owns: `subagent_update` and the child capabilities, inter-session messages
(`session_message`, `session_message_chunk`), `replay_complete`, `plan_removed`, markdown
plans and prompt suggestions (unstable). Two Preview values live with their kin: `state:
"unknown"` (`UnknownStateUpdate`, with the other state reports in `_wire/_updates_state.py`,
re-exported here) and the `session` tool-call content (`SessionReference`, with the other
tool-call content in `_wire/_content.py`).
Must not know: wire names (`_wire/_codec.py`), reducer semantics (`_state/_reduce_preview.py`,
`_state/_reduce_children.py`), engines.
"""

from __future__ import annotations

import attrs

from ._content import ContentBlock
from ._fields import PREVIEW_NAME, wire, wire_tag
from ._freezing import freezing_fields
from ._json import EMPTY_OBJECT, UNSET, JsonObject, Meta, Patch
from ._updates_state import StateUpdate, UnknownStateUpdate
from ._value import frozen

__all__ = [
    "PlanMarkdown",
    "PlanRemoved",
    "PromptSuggestion",
    "PromptSuggestionsUpdate",
    "ReplayComplete",
    "SessionCancelCapabilities",
    "SessionMessage",
    "SessionMessageChunk",
    "SubagentSessionCapabilities",
    "SubagentUpdate",
    "UnknownStateUpdate",
]


@frozen(field_transformer=freezing_fields)
class SessionCancelCapabilities:
    """The `cancel` marker of a child: present (even `{}`) lets the client cancel the child."""

    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class SubagentSessionCapabilities:
    """What the client may do to a child session (none unless stated, C29)."""

    cancel: Patch[SessionCancelCapabilities] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class SubagentUpdate:
    """`subagent_update` on the parent: announce (first sight) or patch the child `session_id`.

    Every field but `session_id` is a patch; `state` is the mirrored child state (null: no
    current report, which is neither idle nor cancelled, C31); `meta` is a `_meta` patch."""

    __wire_tag__ = wire_tag(sessionUpdate="subagent_update")
    __wire_since__ = PREVIEW_NAME

    session_id: str
    title: Patch[str] = UNSET
    description: Patch[str] = UNSET
    capabilities: Patch[SubagentSessionCapabilities] = UNSET
    state: Patch[StateUpdate] = UNSET
    cwd: Patch[str] = UNSET
    additional_directories: Patch[tuple[str, ...]] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class SessionMessage:
    """`session_message`: create or patch the inter-session message `message_id` (R54)."""

    __wire_tag__ = wire_tag(sessionUpdate="session_message")
    __wire_since__ = PREVIEW_NAME

    message_id: str
    sender_session_id: Patch[str] = UNSET
    recipient_session_id: Patch[str] = UNSET
    sender_message_id: Patch[str] = UNSET
    recipient_message_id: Patch[str] = UNSET
    content: Patch[tuple[ContentBlock, ...]] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class SessionMessageChunk:
    """`session_message_chunk`: append one block to the inter-session message `message_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="session_message_chunk")
    __wire_since__ = PREVIEW_NAME

    message_id: str
    content: ContentBlock
    meta: Meta = UNSET  # chunk-scoped
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class ReplayComplete:
    """`replay_complete`: the end of the history a `session/resume` with a cursor asked for."""

    __wire_tag__ = wire_tag(sessionUpdate="replay_complete")
    __wire_since__ = PREVIEW_NAME

    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class PlanRemoved:
    """`plan_removed`: delete the plan `plan_id` (an unknown id changes nothing, C46)."""

    __wire_tag__ = wire_tag(sessionUpdate="plan_removed")
    __wire_since__ = PREVIEW_NAME

    plan_id: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class PlanMarkdown:
    """`{"type": "markdown"}` plan content: the whole plan as Markdown; `path` only names a file."""

    __wire_tag__ = wire_tag(type="markdown")
    __wire_since__ = PREVIEW_NAME

    plan_id: str
    content: str
    path: Patch[str] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class PromptSuggestion:
    """One suggested prompt, sendable unchanged as `session/prompt.prompt` (at least one block)."""

    prompt: tuple[ContentBlock, ...] = attrs.field(metadata=wire(min_items=1, skip_invalid=False))
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class PromptSuggestionsUpdate:
    """`prompt_suggestions_update` (unstable): the complete suggestion list; `()` withdraws all."""

    __wire_tag__ = wire_tag(sessionUpdate="prompt_suggestions_update")
    __wire_since__ = PREVIEW_NAME

    suggestions: tuple[PromptSuggestion, ...]
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT
