"""One frozen value type per v2 `sessionUpdate` variant, plus `OtherUpdate`.

Owns: the session-update surface of the stable v2 schema (2.0.0-alpha.3) as values: message
chunks and upserts, state updates, tool calls, display terminals, plans, commands, config
options, session info and usage, and the open enums they use.
Must not know: decoding (`_codec*.py`), reducer semantics (`_reduce.py`), JSON-RPC.

Each class is the one declaration of its wire shape: the codec derives keys, requiredness and
value codecs from the fields; `__wire_tag__` names the variant's tag and `wire(...)` metadata
states only the exceptions (see `_wire.py`). `SessionUpdate` is the list of known variants:
the codec, `KNOWN_UPDATE_TAGS` and the revisions' known update kinds are built from it.

Patch fields (`Patch[T]`) keep absent (`UNSET`), null (`None`) and value apart; the reducers
give them their meaning (absent = unchanged, null = cleared, value = replaced).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final, TypeAlias

import attrs

from ._content import ContentBlock, ToolCallContent, ToolCallLocation
from ._json import EMPTY_OBJECT, UNSET, JsonObject, JsonValue, Meta, Patch
from ._updates_2026_11 import (
    BackgroundWork,
    CompactionSummaryChunk,
    CompactionUpdate,
    Notice,
    TerminalCapabilities,
    TerminalSize,
    ToolCallCapabilities,
)
from ._updates_preview import (
    PlanMarkdown,
    PlanRemoved,
    PromptSuggestionsUpdate,
    ReplayComplete,
    SessionMessage,
    SessionMessageChunk,
    SubagentUpdate,
    UnknownStateUpdate,
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
from ._wire import wire, wire_tag

if TYPE_CHECKING:
    from ._jsonrpc import RpcError

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


class ToolKind:
    """Category of a tool call (`other` is the default)."""

    READ: Final = "read"
    EDIT: Final = "edit"
    DELETE: Final = "delete"
    MOVE: Final = "move"
    SEARCH: Final = "search"
    EXECUTE: Final = "execute"
    THINK: Final = "think"
    FETCH: Final = "fetch"
    SWITCH_MODE: Final = "switch_mode"
    OTHER: Final = "other"
    KNOWN: Final = frozenset(
        {READ, EDIT, DELETE, MOVE, SEARCH, EXECUTE, THINK, FETCH, SWITCH_MODE, OTHER}
    )


class ToolCallStatus:
    """Execution status of a tool call (`pending` is the default)."""

    PENDING: Final = "pending"
    IN_PROGRESS: Final = "in_progress"
    COMPLETED: Final = "completed"
    FAILED: Final = "failed"
    CANCELLED: Final = "cancelled"
    PAUSED: Final = "paused"  # 2026-11 on
    #: The known values of the 2026-08 revision; `Revision.tool_statuses` has each revision's.
    KNOWN: Final = frozenset({PENDING, IN_PROGRESS, COMPLETED, FAILED, CANCELLED})
    #: Statuses after which a tool call is finished (unknown statuses are not).
    TERMINAL: Final = frozenset({COMPLETED, FAILED, CANCELLED})


class PlanEntryPriority:
    """Priority of a plan entry."""

    HIGH: Final = "high"
    MEDIUM: Final = "medium"
    LOW: Final = "low"
    KNOWN: Final = frozenset({HIGH, MEDIUM, LOW})


class PlanEntryStatus:
    """Status of a plan entry."""

    PENDING: Final = "pending"
    IN_PROGRESS: Final = "in_progress"
    COMPLETED: Final = "completed"
    CANCELLED: Final = "cancelled"
    KNOWN: Final = frozenset({PENDING, IN_PROGRESS, COMPLETED, CANCELLED})


class SessionConfigOptionCategory:
    """UX hint for a config option (never needed for correctness)."""

    MODE: Final = "mode"
    MODEL: Final = "model"
    MODEL_CONFIG: Final = "model_config"
    THOUGHT_LEVEL: Final = "thought_level"


# -- messages --------------------------------------------------------------------------


@attrs.frozen
class _ContentChunk:
    message_id: str
    content: ContentBlock
    meta: Meta = UNSET  # chunk-scoped: never patches the message's _meta
    extra: JsonObject = EMPTY_OBJECT


@attrs.frozen
class UserMessageChunk(_ContentChunk):
    """`user_message_chunk`: append one block to the user message `message_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="user_message_chunk")


@attrs.frozen
class AgentMessageChunk(_ContentChunk):
    """`agent_message_chunk`: append one block to the agent message `message_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="agent_message_chunk")


@attrs.frozen
class AgentThoughtChunk(_ContentChunk):
    """`agent_thought_chunk`: append one block to the thought `message_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="agent_thought_chunk")


@attrs.frozen
class _MessageUpsert:
    message_id: str
    content: Patch[tuple[ContentBlock, ...]] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@attrs.frozen
class UserMessage(_MessageUpsert):
    """`user_message`: create or patch the user message `message_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="user_message")


@attrs.frozen
class AgentMessage(_MessageUpsert):
    """`agent_message`: create or patch the agent message `message_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="agent_message")


@attrs.frozen
class AgentThought(_MessageUpsert):
    """`agent_thought`: create or patch the thought `message_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="agent_thought")


# -- foreground state ------------------------------------------------------------------


@attrs.frozen
class RunningStateUpdate:
    """`state_update` with `state: running`: foreground work is in progress."""

    __wire_tag__ = wire_tag(sessionUpdate="state_update", state="running")

    meta: Meta = UNSET
    #: The background-work snapshot (2026-11 on): None/absent = not reported, () = none.
    background: Patch[tuple[BackgroundWork, ...]] = attrs.field(
        default=UNSET, metadata=wire(since="2026-11")
    )
    extra: JsonObject = EMPTY_OBJECT


@attrs.frozen
class IdleStateUpdate:
    """`state_update` with `state: idle`; `stop_reason` says why work ended (if it did)."""

    __wire_tag__ = wire_tag(sessionUpdate="state_update", state="idle")

    stop_reason: Patch[str] = UNSET
    meta: Meta = UNSET
    #: The background-work snapshot (2026-11 on): None/absent = not reported, () = none.
    background: Patch[tuple[BackgroundWork, ...]] = attrs.field(
        default=UNSET, metadata=wire(since="2026-11")
    )
    #: The error of an `error` stop (2026-11 on; `ErrorStopReason.error`).
    error: Patch[RpcError] = attrs.field(default=UNSET, metadata=wire(since="2026-11"))
    extra: JsonObject = EMPTY_OBJECT


@attrs.frozen
class RequiresActionStateUpdate:
    """`state_update` with `state: requires_action`: work is blocked on the user."""

    __wire_tag__ = wire_tag(sessionUpdate="state_update", state="requires_action")

    meta: Meta = UNSET
    #: The background-work snapshot (2026-11 on): None/absent = not reported, () = none.
    background: Patch[tuple[BackgroundWork, ...]] = attrs.field(
        default=UNSET, metadata=wire(since="2026-11")
    )
    extra: JsonObject = EMPTY_OBJECT


@attrs.frozen
class OtherStateUpdate:
    """`state_update` with a state this library does not know; `raw` is the whole update."""

    __wire_tag__ = wire_tag(sessionUpdate="state_update")

    raw: JsonObject

    @property
    def state(self) -> str:
        """The unknown `state` value."""
        tag = self.raw["state"]
        assert isinstance(tag, str)
        return tag


StateUpdate: TypeAlias = (
    RunningStateUpdate
    | IdleStateUpdate
    | RequiresActionStateUpdate
    | UnknownStateUpdate
    | OtherStateUpdate
)


# -- tool calls ------------------------------------------------------------------------


@attrs.frozen
class ToolCallUpdate:
    """`tool_call_update`: create (first sight) or patch the tool call `tool_call_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="tool_call_update")

    tool_call_id: str
    title: Patch[str] = UNSET
    kind: Patch[str] = UNSET
    status: Patch[str] = UNSET
    content: Patch[tuple[ToolCallContent, ...]] = UNSET
    locations: Patch[tuple[ToolCallLocation, ...]] = UNSET
    raw_input: Patch[JsonValue] = UNSET
    raw_output: Patch[JsonValue] = UNSET
    meta: Meta = UNSET
    #: The tool's programmatic name (2026-11 on; earlier revisions keep `name` in `extra`).
    #: After `meta`, not in schema order, so positional construction stays as it was.
    name: Patch[str] = attrs.field(default=UNSET, metadata=wire(since="2026-11"))
    #: What the client may do to the call (2026-11 on): replaced whole; malformed = none.
    capabilities: Patch[ToolCallCapabilities] = attrs.field(
        default=UNSET, metadata=wire(since="2026-11", on_error=None)
    )
    extra: JsonObject = EMPTY_OBJECT


@attrs.frozen
class ToolCallContentChunk:
    """`tool_call_content_chunk`: append one content item to a tool call."""

    __wire_tag__ = wire_tag(sessionUpdate="tool_call_content_chunk")

    tool_call_id: str
    content: ToolCallContent
    meta: Meta = UNSET  # chunk-scoped
    extra: JsonObject = EMPTY_OBJECT


# -- display terminals -----------------------------------------------------------------


@attrs.frozen
class TerminalOutput:
    """A full replacement snapshot of a terminal's bytes (`data` is base64)."""

    data: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@attrs.frozen
class TerminalExitStatus:
    """Exit information; any instance (even with nothing set) marks the terminal exited."""

    # uint32 in 2026-08; signed (int64) from 2026-11 on.
    exit_code: Patch[int] = attrs.field(
        default=UNSET, metadata=wire(codec="uint32", codec_since=(("2026-11", "int64"),))
    )
    signal: Patch[str] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@attrs.frozen
class TerminalUpdate:
    """`terminal_update`: create or patch the display terminal `terminal_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="terminal_update")

    terminal_id: str
    command: Patch[str] = UNSET
    cwd: Patch[str] = UNSET
    output: Patch[TerminalOutput] = UNSET
    exit_status: Patch[TerminalExitStatus] = UNSET
    meta: Meta = UNSET
    #: The size the program runs with, and what the client may do (2026-11 on).
    size: Patch[TerminalSize] = attrs.field(default=UNSET, metadata=wire(since="2026-11"))
    capabilities: Patch[TerminalCapabilities] = attrs.field(
        default=UNSET, metadata=wire(since="2026-11", on_error=None)
    )
    extra: JsonObject = EMPTY_OBJECT


@attrs.frozen
class TerminalOutputChunk:
    """`terminal_output_chunk`: append base64-encoded bytes to a terminal."""

    __wire_tag__ = wire_tag(sessionUpdate="terminal_output_chunk")

    terminal_id: str
    data: str
    meta: Meta = UNSET  # chunk-scoped
    extra: JsonObject = EMPTY_OBJECT


# -- plans -----------------------------------------------------------------------------


@attrs.frozen
class PlanEntry:
    """One entry of an `items` plan."""

    content: str
    priority: str
    status: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@attrs.frozen
class PlanItems:
    """`{"type": "items"}` plan content: the complete entry list."""

    __wire_tag__ = wire_tag(type="items")

    plan_id: str
    entries: tuple[PlanEntry, ...] = attrs.field(metadata=wire(lenient=True, on_error=()))
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@attrs.frozen
class OtherPlan:
    """Plan content of a type this library does not know; `raw` keeps it (with `planId`)."""

    raw: JsonObject

    __wire_requires__ = ("planId",)  # Q9: every plan variant carries a string planId

    @property
    def type(self) -> str:
        """The plan's `type` tag."""
        tag = self.raw["type"]
        assert isinstance(tag, str)
        return tag

    @property
    def plan_id(self) -> str:
        """The plan's id (required on every plan variant)."""
        plan_id = self.raw["planId"]
        assert isinstance(plan_id, str)
        return plan_id


@attrs.frozen
class PlanUpdate:
    """`plan_update`: replace the whole content of the plan `plan.plan_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="plan_update")

    plan: PlanItems | PlanMarkdown | OtherPlan
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@attrs.frozen
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
