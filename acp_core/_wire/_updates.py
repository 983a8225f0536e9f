"""One frozen value type per v2 `sessionUpdate` variant, plus `OtherUpdate`.

Owns: the session-update surface of the stable v2 schema (2.0.0-alpha.3) as values: message
chunks and upserts, state updates, tool calls, display terminals, plans, commands, config
options, session info and usage, and the open enums they use.
Must not know: decoding (`_codec*.py`), reducer semantics (`_state/_reduce.py`), JSON-RPC.

Each class is the one declaration of its wire shape: the codec derives keys, requiredness and
value codecs from the fields; `__wire_tag__` names the variant's tag and `wire(...)` metadata
states only the exceptions (see `_wire/_fields.py`). `SessionUpdate` is the list of known variants:
the codec, `KNOWN_UPDATE_TAGS` and the revisions' known update kinds are built from it.

Patch fields (`Patch[T]`) keep absent (`UNSET`), null (`None`) and value apart; the reducers
give them their meaning (absent = unchanged, null = cleared, value = replaced).
"""

from __future__ import annotations

from typing import Final, TypeAlias

from ._content import ContentBlock
from ._fields import wire_tag
from ._freezing import freezing_fields
from ._json import EMPTY_OBJECT, UNSET, JsonObject, Meta, Patch
from ._updates_2026_11 import (
    CompactionSummaryChunk,
    CompactionUpdate,
    Notice,
)
from ._updates_plans import (
    OtherPlan,
    PlanEntry,
    PlanEntryPriority,
    PlanEntryStatus,
    PlanItems,
    PlanUpdate,
)
from ._updates_preview import (
    PlanRemoved,
    PromptSuggestionsUpdate,
    ReplayComplete,
    SessionMessage,
    SessionMessageChunk,
    SubagentUpdate,
)
from ._updates_session import (
    AvailableCommand,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    Cost,
    OtherCommandInput,
    OtherSessionConfigOption,
    SessionConfigBoolean,
    SessionConfigOption,
    SessionConfigSelect,
    SessionConfigSelectGroup,
    SessionConfigSelectOption,
    SessionInfoUpdate,
    TextCommandInput,
    UsageUpdate,
)
from ._updates_state import (
    IdleStateUpdate,
    OtherStateUpdate,
    RequiresActionStateUpdate,
    RunningStateUpdate,
    StateUpdate,
    UnknownStateUpdate,
)
from ._updates_tools import (
    TerminalExitStatus,
    TerminalOutput,
    TerminalOutputChunk,
    TerminalUpdate,
    ToolCallContentChunk,
    ToolCallStatus,
    ToolCallUpdate,
    ToolKind,
)
from ._value import frozen

__all__ = [
    "AgentMessage",
    "AgentMessageChunk",
    "AgentThought",
    "AgentThoughtChunk",
    "AvailableCommand",
    "AvailableCommandsUpdate",
    "ConfigOptionUpdate",
    "Cost",
    "ForegroundState",
    "IdleStateUpdate",
    "OtherCommandInput",
    "OtherPlan",
    "OtherSessionConfigOption",
    "OtherStateUpdate",
    "OtherUpdate",
    "PlanEntry",
    "PlanEntryPriority",
    "PlanEntryStatus",
    "PlanItems",
    "PlanUpdate",
    "RequiresActionStateUpdate",
    "RunningStateUpdate",
    "SessionConfigBoolean",
    "SessionConfigOption",
    "SessionConfigOptionCategory",
    "SessionConfigSelect",
    "SessionConfigSelectGroup",
    "SessionConfigSelectOption",
    "SessionInfoUpdate",
    "SessionUpdate",
    "StateUpdate",
    "StopReason",
    "TerminalExitStatus",
    "TerminalOutput",
    "TerminalOutputChunk",
    "TerminalUpdate",
    "TextCommandInput",
    "ToolCallContentChunk",
    "ToolCallStatus",
    "ToolCallUpdate",
    "ToolKind",
    "UsageUpdate",
    "UserMessage",
    "UserMessageChunk",
]


# -- open enums ------------------------------------------------------------------------
# Values are plain strings; these are the known ones. Unknown values are kept as they came:
# `_`-prefixed ones belong to extensions, other unknown ones to future ACP revisions.


class StopReason:
    """Why foreground work stopped (on an idle `state_update`)."""

    END_TURN: Final = "end_turn"
    MAX_TOKENS: Final = "max_tokens"
    MAX_TURN_REQUESTS: Final = "max_turn_requests"
    REFUSAL: Final = "refusal"
    CANCELLED: Final = "cancelled"
    ERROR: Final = "error"  # 2026-11 on
    #: The known values of the 2026-08 revision; `Revision.stop_reasons` has each revision's.
    KNOWN: Final = frozenset({END_TURN, MAX_TOKENS, MAX_TURN_REQUESTS, REFUSAL, CANCELLED})


class ForegroundState:
    """Foreground states carried by `state_update`."""

    RUNNING: Final = "running"
    IDLE: Final = "idle"
    REQUIRES_ACTION: Final = "requires_action"
    KNOWN: Final = frozenset({RUNNING, IDLE, REQUIRES_ACTION})


class SessionConfigOptionCategory:
    """UX hint for a config option (never needed for correctness)."""

    MODE: Final = "mode"
    MODEL: Final = "model"
    MODEL_CONFIG: Final = "model_config"
    THOUGHT_LEVEL: Final = "thought_level"


# -- messages --------------------------------------------------------------------------


@frozen(field_transformer=freezing_fields)
class _ContentChunk:
    message_id: str
    content: ContentBlock
    meta: Meta = UNSET  # chunk-scoped: never patches the message's _meta
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class UserMessageChunk(_ContentChunk):
    """`user_message_chunk`: append one block to the user message `message_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="user_message_chunk")


@frozen(field_transformer=freezing_fields)
class AgentMessageChunk(_ContentChunk):
    """`agent_message_chunk`: append one block to the agent message `message_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="agent_message_chunk")


@frozen(field_transformer=freezing_fields)
class AgentThoughtChunk(_ContentChunk):
    """`agent_thought_chunk`: append one block to the thought `message_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="agent_thought_chunk")


@frozen(field_transformer=freezing_fields)
class _MessageUpsert:
    message_id: str
    content: Patch[tuple[ContentBlock, ...]] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class UserMessage(_MessageUpsert):
    """`user_message`: create or patch the user message `message_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="user_message")


@frozen(field_transformer=freezing_fields)
class AgentMessage(_MessageUpsert):
    """`agent_message`: create or patch the agent message `message_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="agent_message")


@frozen(field_transformer=freezing_fields)
class AgentThought(_MessageUpsert):
    """`agent_thought`: create or patch the thought `message_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="agent_thought")


@frozen(field_transformer=freezing_fields)
class OtherUpdate:
    """A `sessionUpdate` this library does not know; `raw` is the whole update object."""

    raw: JsonObject

    @property
    def session_update(self) -> str:
        """The unknown `sessionUpdate` tag."""
        tag = self.raw["sessionUpdate"]
        assert isinstance(tag, str)
        return tag


SessionUpdate: TypeAlias = (
    UserMessageChunk
    | UserMessage
    | AgentMessageChunk
    | AgentMessage
    | AgentThoughtChunk
    | AgentThought
    | RunningStateUpdate
    | IdleStateUpdate
    | RequiresActionStateUpdate
    | OtherStateUpdate
    | ToolCallContentChunk
    | ToolCallUpdate
    | TerminalUpdate
    | TerminalOutputChunk
    | PlanUpdate
    | AvailableCommandsUpdate
    | ConfigOptionUpdate
    | SessionInfoUpdate
    | UsageUpdate
    | Notice
    | CompactionUpdate
    | CompactionSummaryChunk
    | UnknownStateUpdate
    | SubagentUpdate
    | SessionMessage
    | SessionMessageChunk
    | ReplayComplete
    | PlanRemoved
    | PromptSuggestionsUpdate
    | OtherUpdate
)
