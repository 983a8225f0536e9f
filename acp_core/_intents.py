"""The engines' input alphabet: intents (what our side wants to do) and received messages.

Owns: one frozen class per intent of the agent engine and of the client engine, `Received`
(a decoded message from the peer), and `Step` (what a step returns).
Must not know: how an intent becomes wire messages or which are legal (`_agent.py`,
`_client.py`), JSON.

Intents are imperative and complete at construction. Ids are optional: when omitted, the
engine takes the next one from its deterministic counter (no clocks, no randomness).
"""

from __future__ import annotations

from typing import Any, NamedTuple

import attrs

from ._content import ContentBlock, ToolCallContent, ToolCallLocation
from ._json import UNSET, JsonObject, JsonValue, Meta, Patch, Unset
from ._jsonrpc import Message, PermissionOption
from ._updates import Cost, OtherPlan, PlanEntry, PlanItems, TerminalExitStatus

__all__ = [
    "AcceptPrompt",
    "AnswerPermission",
    "CancelPermission",
    "EndTurn",
    "FinishToolCall",
    "Received",
    "RejectPrompt",
    "ReportAbort",
    "ReportUsage",
    "ReportUserMessage",
    "RequestPermission",
    "SendAgentMessage",
    "SendAgentText",
    "SendCancel",
    "SendPrompt",
    "SendTerminalOutput",
    "SendThought",
    "SendToolContent",
    "StartToolCall",
    "StartWork",
    "Step",
    "UpdatePlan",
    "UpdateSessionInfo",
    "UpdateTerminal",
    "UpdateToolCall",
]


class Step(NamedTuple):
    """What an engine step returns: the new engine state and the wire dicts to send, in order."""

    state: Any
    outbound: tuple[dict[str, Any], ...]


@attrs.frozen
class Received:
    """A message that arrived from the peer (decode it with `decode_message` first)."""

    message: Message


# -- agent intents -----------------------------------------------------------------------


@attrs.frozen
class AcceptPrompt:
    """Accept a received `session/prompt`: answer it, report the user message, go `running`.

    `content` is the user message as inserted into history (default: the prompt as sent);
    `chunked` reports it as one `user_message_chunk` per block instead of one `user_message`.
    """

    request_id: int | str | None
    user_message_id: str | None = None
    content: tuple[ContentBlock, ...] | None = None
    chunked: bool = False


@attrs.frozen
class RejectPrompt:
    """Answer a received `session/prompt` with a JSON-RPC error instead of accepting it."""

    request_id: int | str | None
    message: str
    code: int = -32603
    data: JsonValue | Unset = UNSET


@attrs.frozen
class ReportUserMessage:
    """Report a user message the agent inserted (e.g. a queued prompt) as the user's turn."""

    content: tuple[ContentBlock, ...]
    message_id: str | None = None
    chunked: bool = False


@attrs.frozen
class StartWork:
    """Start foreground work the agent initiated itself (no prompt): reports `running`."""


@attrs.frozen
class SendAgentText:
    """Stream one block (or text) of the agent's reply as an `agent_message_chunk`.

    Consecutive chunks continue the same message until something else is reported or
    `new_message` is set; `message_id` pins the message explicitly.
    """

    content: str | ContentBlock
    message_id: str | None = None
    new_message: bool = False
    meta: Meta = UNSET


@attrs.frozen
class SendThought:
    """Stream one block (or text) of the agent's reasoning as an `agent_thought_chunk`."""

    content: str | ContentBlock
    message_id: str | None = None
    new_message: bool = False
    meta: Meta = UNSET


@attrs.frozen
class SendAgentMessage:
    """Report a whole agent message (`agent_message`): its content replaces any chunks."""

    content: tuple[ContentBlock, ...]
    message_id: str | None = None
    meta: Meta = UNSET


@attrs.frozen
class UpdatePlan:
    """Report a plan's complete current content (`plan_update`).

    Give `entries` (an `items` plan under `plan_id`) or a whole `plan` value.
    """

    entries: tuple[PlanEntry, ...] = ()
    plan_id: str = "plan-1"
    plan: PlanItems | OtherPlan | None = None


@attrs.frozen
class StartToolCall:
    """Report a new tool call (its first `tool_call_update`, with a title)."""

    title: str
    tool_call_id: str | None = None
    kind: str = "other"
    status: str = "pending"
    content: tuple[ToolCallContent, ...] = ()
    locations: tuple[ToolCallLocation, ...] = ()
    raw_input: JsonValue | Unset = UNSET
    meta: Meta = UNSET


@attrs.frozen
class UpdateToolCall:
    """Patch a reported tool call (only the fields given are sent)."""

    tool_call_id: str
    title: Patch[str] = UNSET
    kind: Patch[str] = UNSET
    status: Patch[str] = UNSET
    content: Patch[tuple[ToolCallContent, ...]] = UNSET
    locations: Patch[tuple[ToolCallLocation, ...]] = UNSET
    raw_input: Patch[JsonValue] = UNSET
    raw_output: Patch[JsonValue] = UNSET
    meta: Meta = UNSET


@attrs.frozen
class SendToolContent:
    """Stream one complete content item of a tool call (`tool_call_content_chunk`)."""

    tool_call_id: str
    content: ToolCallContent
    meta: Meta = UNSET


@attrs.frozen
class FinishToolCall:
    """Report a tool call's final status (default `completed`), optionally with content."""

    tool_call_id: str
    status: str = "completed"
    content: tuple[ToolCallContent, ...] | Unset = UNSET
    raw_output: JsonValue | Unset = UNSET


@attrs.frozen
class UpdateTerminal:
    """Patch a display terminal; `output` (raw bytes) replaces all of its bytes."""

    terminal_id: str
    command: Patch[str] = UNSET
    cwd: Patch[str] = UNSET
    output: Patch[bytes] = UNSET
    exit_status: Patch[TerminalExitStatus] = UNSET
    meta: Meta = UNSET


@attrs.frozen
class SendTerminalOutput:
    """Append raw bytes to a display terminal (`terminal_output_chunk`, base64 per chunk)."""

    terminal_id: str
    data: bytes


@attrs.frozen
class ReportUsage:
    """Report context use (`usage_update`); `cost` is cumulative for the session."""

    used: int
    size: int
    cost: Patch[Cost] = UNSET


@attrs.frozen
class UpdateSessionInfo:
    """Patch the session's title / updatedAt (`session_info_update`)."""

    title: Patch[str] = UNSET
    updated_at: Patch[str] = UNSET
    meta: Meta = UNSET


@attrs.frozen
class RequestPermission:
    """Ask the user (`session/request_permission`); blocks foreground work until answered.

    With `tool_call_id` the request carries that tool call as its subject and, once granted,
    the engine marks the tool `in_progress`.
    """

    title: str
    options: tuple[PermissionOption, ...]
    tool_call_id: str | None = None
    description: str | Unset = UNSET
    request_id: int | str | None = None


@attrs.frozen
class CancelPermission:
    """Withdraw a pending permission request (`$/cancel_request`); the client still answers."""

    request_id: int | str | None


@attrs.frozen
class EndTurn:
    """End the foreground work: idle with a stop reason (`cancelled` after a cancel)."""

    stop_reason: str = "end_turn"
    meta: JsonObject | Unset = UNSET


@attrs.frozen
class ReportAbort:
    """The agent's work failed with an exception. After a cancel this ends the work as
    `cancelled` (never an error, R22); otherwise with `stop_reason` (default: `error` where
    the revision knows it, else `_error`)."""

    detail: str = ""
    stop_reason: str | None = None


# -- client intents ----------------------------------------------------------------------


@attrs.frozen
class SendPrompt:
    """Send a `session/prompt`."""

    content: tuple[ContentBlock, ...]
    request_id: int | str | None = None
    meta: Meta = UNSET


@attrs.frozen
class SendCancel:
    """Send `session/cancel`: cancels pending permission requests and marks unfinished tool
    calls of the current work `cancelled` locally."""


@attrs.frozen
class AnswerPermission:
    """Answer a pending permission request with the option the user picked."""

    request_id: int | str | None
    option_id: str
