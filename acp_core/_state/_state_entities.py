"""Entity records of a session: messages, tool calls, terminals and plans, and their queries.

Owns: `MessageState`, `ToolCallState`, `TerminalState`, `PlanState` (the frozen values kept
in `SessionState`'s maps), and read-only helpers on one entity (a message's text, a
terminal's bytes).
Must not know: `SessionState`, its hot slot or its builders (`_state/_session_state.py`), JSON, the
codec, how updates change state (`_state/_reduce.py`).
"""

from __future__ import annotations

import attrs

from acp_core._wire._content import ContentBlock, TextContent, ToolCallContent, ToolCallLocation
from acp_core._wire._json import JsonObject, JsonValue
from acp_core._wire._updates import OtherPlan, PlanItems, TerminalExitStatus, ToolCallStatus
from acp_core._wire._updates_2026_11 import TerminalCapabilities, TerminalSize, ToolCallCapabilities
from acp_core._wire._updates_preview import PlanMarkdown
from acp_core._wire._value import frozen

from ._pcoll import EMPTY_VEC, PMap, PVec
from ._state_freezing import freezing_state_fields

__all__ = [
    "MessageState",
    "PlanState",
    "TerminalState",
    "ToolCallState",
    "message_text",
    "terminal_bytes",
]


@frozen(field_transformer=freezing_state_fields)
class MessageState:
    """A user message, agent message or thought.

    Attributes:
        role: `user`, `agent` or `thought`.
        content: blocks in order (chunks append; a full update replaces).
        meta: the message's own `_meta` (patched by upserts only).
        chunk_meta: chunk-scoped `_meta`, keyed by the index of the block the chunk added.
    """

    role: str
    content: PVec[ContentBlock]
    meta: JsonObject | None = None
    chunk_meta: PMap[int, JsonObject] = attrs.field(factory=PMap)


@frozen(field_transformer=freezing_state_fields)
class ToolCallState:
    """A tool call as the client should show it (fields unset are None)."""

    title: str | None = None
    kind: str = "other"
    status: str = ToolCallStatus.PENDING
    content: PVec[ToolCallContent] = attrs.field(default=EMPTY_VEC)
    locations: tuple[ToolCallLocation, ...] = ()
    raw_input: JsonValue = None
    raw_output: JsonValue = None
    meta: JsonObject | None = None
    chunk_meta: PMap[int, JsonObject] = attrs.field(factory=PMap)
    #: The tool's programmatic name (2026-11 on), None when none was reported. Last, so
    #: positional construction stays as it was.
    name: str | None = None
    #: What the client may do to the call (2026-11 on); None: no controls (C41).
    capabilities: ToolCallCapabilities | None = None

    @property
    def can_cancel(self) -> bool:
        """`tool_call/cancel` may be sent for the call now (C41)."""
        return self.capabilities is not None and self.capabilities.can_cancel

    @property
    def finished(self) -> bool:
        """True for completed, failed and cancelled (unknown statuses are not finished)."""
        return self.status in ToolCallStatus.TERMINAL


def _joined(chunks: PVec[bytes]) -> bytes:
    return b"".join(chunks)


@frozen(field_transformer=freezing_state_fields)
class TerminalState:
    """A display-only terminal: raw bytes (kept as decoded chunks), command, cwd, exit."""

    command: str | None = None
    cwd: str | None = None
    # Compared by content: how the bytes were chunked on the wire carries no meaning (X6).
    output: PVec[bytes] = attrs.field(default=EMPTY_VEC, eq=_joined)
    snapshot_meta: JsonObject | None = None
    exit_status: TerminalExitStatus | None = None
    meta: JsonObject | None = None
    #: The program's size and what the client may do (2026-11 on); None: not reported.
    size: TerminalSize | None = None
    capabilities: TerminalCapabilities | None = None

    @property
    def can_cancel(self) -> bool:
        """`terminal/cancel` may be sent for the terminal now (C41)."""
        return self.capabilities is not None and self.capabilities.can_cancel

    @property
    def exited(self) -> bool:
        """Whether an exit status was reported (and not cleared)."""
        return self.exit_status is not None


@frozen(field_transformer=freezing_state_fields)
class PlanState:
    """The current content of one plan and the `_meta` of the update that set it."""

    plan: PlanItems | PlanMarkdown | OtherPlan
    meta: JsonObject | None = None


def message_text(message: MessageState, separator: str = "") -> str:
    """The message's text blocks joined (other block types are skipped)."""
    return separator.join(b.text for b in message.content if type(b) is TextContent)


def terminal_bytes(terminal: TerminalState) -> bytes:
    """All bytes of a display terminal, in order."""
    return b"".join(terminal.output)
