"""Session set-up values the view needs: resume requests and the set-up responses, and the
client's session capabilities (2026-11 draft and Preview).

Owns: `ResumeSessionRequest` (with its `replayFrom` cursor), `NewSessionResult` and
`ResumeSessionResult` (what they seed into a view: commands and config options),
and `ClientCapabilities` with the Preview's `session.promptSuggestions` group. Applying a set-up
response to a view is a reducer (`_reduce_session.seed_session`).
Must not know: session state, JSON-RPC envelopes, engines, the codec (it derives the wire shapes
from here).
"""

from __future__ import annotations

import attrs

from ._fields import PREVIEW_NAME, wire, wire_tag
from ._freezing import freezing_fields
from ._json import EMPTY_OBJECT, UNSET, JsonObject, JsonValue, Meta, Patch
from ._updates import AvailableCommand, SessionConfigOption
from ._value import frozen

__all__ = [
    "ClientCapabilities",
    "ClientSessionCapabilities",
    "ContentTypeCapability",
    "NewSessionResult",
    "OtherReplayFrom",
    "PromptSuggestionsCapabilities",
    "ReplayFromStart",
    "ResumeSessionRequest",
    "ResumeSessionResult",
]


@frozen(field_transformer=freezing_fields)
class ReplayFromStart:
    """`replayFrom: {"type": "start"}`: replay the whole history."""

    __wire_tag__ = wire_tag(type="start")

    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class OtherReplayFrom:
    """A replay cursor of a type this library does not know; `raw` keeps it."""

    raw: JsonObject


@frozen(field_transformer=freezing_fields)
class ResumeSessionRequest:
    """`session/resume` params: resume `session_id`; a `replay_from` cursor asks for history
    ending with `replay_complete` (R57). `mcp_servers` entries are kept as sent."""

    session_id: str
    cwd: str
    additional_directories: Patch[tuple[str, ...]] = UNSET
    mcp_servers: Patch[tuple[JsonValue, ...]] = UNSET
    replay_from: Patch[ReplayFromStart | OtherReplayFrom] = attrs.field(
        default=UNSET, metadata=wire(lenient=False)
    )
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class NewSessionResult:
    """The `session/new` result: the new id, and what the view starts with."""

    session_id: str
    config_options: Patch[tuple[SessionConfigOption, ...]] = UNSET
    available_commands: Patch[tuple[AvailableCommand, ...]] = attrs.field(
        default=UNSET, metadata=wire(since="2026-11")
    )
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class ResumeSessionResult:
    """The `session/resume` result (after the replay and the state snapshot, R62)."""

    config_options: Patch[tuple[SessionConfigOption, ...]] = UNSET
    available_commands: Patch[tuple[AvailableCommand, ...]] = attrs.field(
        default=UNSET, metadata=wire(since="2026-11")
    )
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class ContentTypeCapability:
    """A content-type marker (`{}` = allowed)."""

    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class PromptSuggestionsCapabilities:
    """`session.promptSuggestions` (unstable): the client shows suggestions; which block
    types beyond text and resource links they may hold."""

    image: Patch[ContentTypeCapability] = UNSET
    audio: Patch[ContentTypeCapability] = UNSET
    embedded_context: Patch[ContentTypeCapability] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class ClientSessionCapabilities:
    """The client's `session` capability group (Preview); `{}` advertises nothing."""

    prompt_suggestions: Patch[PromptSuggestionsCapabilities] = attrs.field(
        default=UNSET, metadata=wire(since=PREVIEW_NAME)
    )
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class ClientCapabilities:
    """The client capabilities this library reads; the other groups are kept in `extra`."""

    session: Patch[ClientSessionCapabilities] = attrs.field(
        default=UNSET, metadata=wire(since=PREVIEW_NAME)
    )
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT

    @property
    def shows_prompt_suggestions(self) -> bool:
        """The client advertised `session.promptSuggestions` (R79: the only case an agent may
        send `prompt_suggestions_update`)."""
        session = self.session
        return isinstance(session, ClientSessionCapabilities) and isinstance(
            session.prompt_suggestions, PromptSuggestionsCapabilities
        )
