"""Tool-call and display-terminal `sessionUpdate` values, with the open enums they use.

Owns: `tool_call_update`, `tool_call_content_chunk`, `terminal_update` and
`terminal_output_chunk` with the values they carry (terminal output and exit status), and the
`ToolKind` / `ToolCallStatus` open enums.
Must not know: decoding (`_codec*.py`), reducers. Re-exported by `_wire/_updates.py`, which lists
every variant in `SessionUpdate`.
"""

from __future__ import annotations

from typing import Final

import attrs

from ._content import ToolCallContent, ToolCallLocation
from ._fields import wire, wire_tag
from ._freezing import freezing_fields
from ._json import EMPTY_OBJECT, UNSET, JsonObject, JsonValue, Meta, Patch
from ._updates_2026_11 import TerminalCapabilities, TerminalSize, ToolCallCapabilities
from ._value import frozen

__all__ = [
    "TerminalExitStatus",
    "TerminalOutput",
    "TerminalOutputChunk",
    "TerminalUpdate",
    "ToolCallContentChunk",
    "ToolCallStatus",
    "ToolCallUpdate",
    "ToolKind",
]


# -- open enums ------------------------------------------------------------------------


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


# -- tool calls ------------------------------------------------------------------------


@frozen(field_transformer=freezing_fields)
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


@frozen(field_transformer=freezing_fields)
class ToolCallContentChunk:
    """`tool_call_content_chunk`: append one content item to a tool call."""

    __wire_tag__ = wire_tag(sessionUpdate="tool_call_content_chunk")

    tool_call_id: str
    content: ToolCallContent
    meta: Meta = UNSET  # chunk-scoped
    extra: JsonObject = EMPTY_OBJECT


# -- display terminals -----------------------------------------------------------------


@frozen(field_transformer=freezing_fields)
class TerminalOutput:
    """A full replacement snapshot of a terminal's bytes (`data` is base64)."""

    data: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class TerminalExitStatus:
    """Exit information; any instance (even with nothing set) marks the terminal exited."""

    # uint32 in 2026-08; signed (int64) from 2026-11 on.
    exit_code: Patch[int] = attrs.field(
        default=UNSET, metadata=wire(codec="uint32", codec_since=(("2026-11", "int64"),))
    )
    signal: Patch[str] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
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


@frozen(field_transformer=freezing_fields)
class TerminalOutputChunk:
    """`terminal_output_chunk`: append base64-encoded bytes to a terminal."""

    __wire_tag__ = wire_tag(sessionUpdate="terminal_output_chunk")

    terminal_id: str
    data: str
    meta: Meta = UNSET  # chunk-scoped
    extra: JsonObject = EMPTY_OBJECT
