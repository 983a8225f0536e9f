"""Values the 2026-11 draft added to the session-update surface (digest §9).

Owns: background work items (`BackgroundTerminal`, `BackgroundToolCall`, `BackgroundSubagent`,
`OtherBackgroundWork`), the per-item cancel capabilities of tool calls and terminals, the
terminal size, and the stable `notice`, `compaction_update` and `compaction_summary_chunk`
updates with their open enums.
Must not know: wire names (`_wire/_codec.py`), what the updates do to state
(`_state/_reduce_extras.py`).

`BackgroundSubagent` (`type: "subagent"`) is a Preview item; it lives here with its siblings so
the background list has one home. At 2026-11 the codec decodes it as `OtherBackgroundWork`.
"""

from __future__ import annotations

from typing import Final, TypeAlias

import attrs

from ._content import ContentBlock
from ._fields import PREVIEW_NAME, wire, wire_tag
from ._freezing import freezing_fields
from ._json import EMPTY_OBJECT, UNSET, JsonObject, Meta, Patch
from ._value import frozen

__all__ = [
    "BackgroundSubagent",
    "BackgroundTerminal",
    "BackgroundToolCall",
    "BackgroundWork",
    "CancelCapability",
    "CompactionStatus",
    "CompactionSummaryChunk",
    "CompactionUpdate",
    "Notice",
    "NoticeSeverity",
    "OtherBackgroundWork",
    "TerminalCapabilities",
    "TerminalSize",
    "ToolCallCapabilities",
]


class NoticeSeverity:
    """Severity of a `notice` (open enum)."""

    INFO: Final = "info"
    WARNING: Final = "warning"
    ERROR: Final = "error"
    KNOWN: Final = frozenset({INFO, WARNING, ERROR})


class CompactionStatus:
    """Status of a context compaction (open enum; `in_progress` is the default)."""

    IN_PROGRESS: Final = "in_progress"
    COMPLETED: Final = "completed"
    FAILED: Final = "failed"
    CANCELLED: Final = "cancelled"
    KNOWN: Final = frozenset({IN_PROGRESS, COMPLETED, FAILED, CANCELLED})


# -- background work (on every state update) ----------------------------------------------


@frozen(field_transformer=freezing_fields)
class BackgroundTerminal:
    """`{"type": "terminal"}`: a display terminal whose process runs in the background."""

    __wire_tag__ = wire_tag(type="terminal")
    __wire_since__ = "2026-11"

    terminal_id: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class BackgroundToolCall:
    """`{"type": "tool_call"}`: a tool call that keeps running in the background."""

    __wire_tag__ = wire_tag(type="tool_call")
    __wire_since__ = "2026-11"

    tool_call_id: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class BackgroundSubagent:
    """`{"type": "subagent"}` (Preview): a detached child session still at work."""

    __wire_tag__ = wire_tag(type="subagent")
    __wire_since__ = PREVIEW_NAME

    session_id: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class OtherBackgroundWork:
    """A background item of a type this library does not know (C49: still means work runs)."""

    raw: JsonObject

    @property
    def type(self) -> str:
        """The item's `type` tag."""
        tag = self.raw["type"]
        assert isinstance(tag, str)
        return tag


BackgroundWork: TypeAlias = (
    BackgroundTerminal | BackgroundToolCall | BackgroundSubagent | OtherBackgroundWork
)


# -- per-item capabilities and terminal size -----------------------------------------------


@frozen(field_transformer=freezing_fields)
class CancelCapability:
    """A `cancel` capability marker: present (even empty) means the item may be cancelled."""

    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class ToolCallCapabilities:
    """What the client may do to one tool call (replaced whole by each update)."""

    cancel: Patch[CancelCapability] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT

    @property
    def can_cancel(self) -> bool:
        """True when `tool_call/cancel` may be sent for the item (C41)."""
        return isinstance(self.cancel, CancelCapability)


@frozen(field_transformer=freezing_fields)
class TerminalCapabilities:
    """What the client may do to one display terminal (replaced whole by each update)."""

    cancel: Patch[CancelCapability] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT

    @property
    def can_cancel(self) -> bool:
        """True when `terminal/cancel` may be sent for the terminal (C41)."""
        return isinstance(self.cancel, CancelCapability)


@frozen(field_transformer=freezing_fields)
class TerminalSize:
    """The size a terminal's program runs with (for faithful rendering)."""

    cols: int = attrs.field(metadata=wire(codec="uint16"))
    rows: int = attrs.field(metadata=wire(codec="uint16"))
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


# -- notices and compaction ---------------------------------------------------------------


@frozen(field_transformer=freezing_fields)
class Notice:
    """`notice`: a live, transient message for the user (never history, R65)."""

    __wire_tag__ = wire_tag(sessionUpdate="notice")
    __wire_since__ = "2026-11"

    severity: str
    title: str
    description: Patch[str] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class CompactionUpdate:
    """`compaction_update`: create or patch the compaction `compaction_id`.

    `status` is required at 2026-11 and a patch in the Preview (absent keeps it, null resets
    it to `in_progress`, C53)."""

    __wire_tag__ = wire_tag(sessionUpdate="compaction_update")
    __wire_since__ = "2026-11"

    compaction_id: str
    status: Patch[str] = UNSET
    summary: Patch[tuple[ContentBlock, ...]] = UNSET
    error: Patch[str] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class CompactionSummaryChunk:
    """`compaction_summary_chunk`: append one block to a compaction's summary."""

    __wire_tag__ = wire_tag(sessionUpdate="compaction_summary_chunk")
    __wire_since__ = "2026-11"

    compaction_id: str
    content: ContentBlock
    meta: Meta = UNSET  # chunk-scoped
    extra: JsonObject = EMPTY_OBJECT
