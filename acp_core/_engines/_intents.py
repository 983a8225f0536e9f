"""The engines' input alphabet: intents (what our side wants to do) and received messages.

Owns: one frozen class per intent of the agent engine and of the client engine, `Received`
(a decoded message from the peer), `Step` (what a step returns), and each intent's fields
with their checks (the checks live in `_engines/_intent_checks.py`).
Must not know: how an intent becomes wire messages or which are legal (`_engines/_agent.py`,
`_engines/_client.py`), JSON (it only asks the codec whether a diff is valid on the wire).

Intents are imperative and complete at construction. Ids are optional: when omitted, the
engine takes the next one from its deterministic counter (no clocks, no randomness).

Checked and frozen at construction (issue 15): see `_engines/_intent_checks.py`.
"""

from __future__ import annotations

from typing import Any, Generic, NamedTuple, TypeAlias, TypeVar

from acp_core._errors import ArgumentError
from acp_core._wire._content import ContentBlock, ToolCallContent, ToolCallLocation
from acp_core._wire._json import UNSET, JsonObject, JsonValue, Meta, Patch, Unset
from acp_core._wire._jsonrpc import Batch, Message, PermissionOption
from acp_core._wire._updates import Cost, OtherPlan, PlanEntry, PlanItems, TerminalExitStatus
from acp_core._wire._value import frozen

from ._intent_checks import (
    _blocks,
    _bool,
    _bytes,
    _Checked,
    _cost,
    _count,
    _exit_status,
    _f,
    _idempotency_key,
    _int64,
    _json,
    _locations,
    _meta,
    _object,
    _option,
    _or_none,
    _or_unset,
    _patch,
    _plan,
    _plan_entry,
    _request_id,
    _str,
    _text_or_block,
    _tool_content,
    _tool_contents,
    _tuple_of,
)

__all__ = [
    "AcceptPrompt",
    "AgentIntent",
    "AnswerPermission",
    "CancelPermission",
    "ClientIntent",
    "EndTurn",
    "FinishToolCall",
    "PatchSessionInfo",
    "PatchTerminal",
    "PatchToolCall",
    "Received",
    "RejectPrompt",
    "ReportAbort",
    "ReportPlan",
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
]

E = TypeVar("E")


class _StepShape(NamedTuple, Generic[E]):
    state: E
    outbound: tuple[dict[str, Any], ...]


class Step(_StepShape[E]):
    """What an engine step returns: the new engine state and the wire dicts to send, in order.

    `Step[AgentEngine]` / `Step[ClientEngine]`: `step` is typed per engine, so a type checker
    follows an engine through its steps. It unpacks as `engine, outbound = step(...)`. `ids`
    names the ids the engine generated in this step (request ids, and the message and tool
    call ids it chose), in order; ids the caller gave are not repeated there.
    """

    def __new__(
        cls,
        state: E,
        outbound: tuple[dict[str, Any], ...],
        ids: tuple[int | str | None, ...] = (),
    ) -> Step[E]:
        self: Step[E] = tuple.__new__(cls, (state, outbound))
        object.__setattr__(self, "_ids", tuple(ids))  # set once; Step has no setters
        return self

    @property
    def ids(self) -> tuple[int | str | None, ...]:
        """The ids this step generated (see the class docstring)."""
        found: tuple[int | str | None, ...] = self.__dict__.get("_ids", ())
        return found

    def __setattr__(self, name: str, value: object) -> None:
        msg = "Step is immutable"
        raise AttributeError(msg)


@frozen
class Received:
    """A message that arrived from the peer (decode it with `decode_message` first); a
    `Batch` is its messages received in array order."""

    message: Message | Batch

    @property
    def single(self) -> Message:
        """The message, for the engines' per-message paths (`step` takes a batch apart
        before they run)."""
        message = self.message
        if isinstance(message, Batch):
            msg = "a batch is received through step(), one message at a time"
            raise ArgumentError(msg)
        return message


# -- agent intents -----------------------------------------------------------------------


@frozen
class AcceptPrompt(_Checked):
    """Accept a received `session/prompt`: answer it, report the user message, go `running`.

    `content` is the user message as inserted into history (default: the prompt as sent);
    `chunked` reports it as one `user_message_chunk` per block instead of one `user_message`.
    """

    request_id: int | str | None = _f(_request_id)
    user_message_id: str | None = _f(_or_none(_str), None)
    content: tuple[ContentBlock, ...] | None = _f(_or_none(_blocks), None)
    chunked: bool = _f(_bool, False)


@frozen
class RejectPrompt(_Checked):
    """Answer a received `session/prompt` with a JSON-RPC error instead of accepting it."""

    request_id: int | str | None = _f(_request_id)
    message: str = _f(_str)
    code: int = _f(_int64, -32603)
    data: JsonValue | Unset = _f(_or_unset(_json), UNSET)


@frozen
class ReportUserMessage(_Checked):
    """Report a user message the agent inserted (e.g. a queued prompt) as the user's turn."""

    content: tuple[ContentBlock, ...] = _f(_blocks)
    message_id: str | None = _f(_or_none(_str), None)
    chunked: bool = _f(_bool, False)


@frozen
class StartWork(_Checked):
    """Start foreground work the agent initiated itself (no prompt): reports `running`."""


@frozen
class SendAgentText(_Checked):
    """Stream one block (or text) of the agent's reply as an `agent_message_chunk`.

    Consecutive chunks continue the same message until something else is reported or
    `new_message` is set; `message_id` pins the message explicitly.
    """

    content: str | ContentBlock = _f(_text_or_block)
    message_id: str | None = _f(_or_none(_str), None)
    new_message: bool = _f(_bool, False)
    meta: Meta = _f(_meta, UNSET)


@frozen
class SendThought(_Checked):
    """Stream one block (or text) of the agent's reasoning as an `agent_thought_chunk`."""

    content: str | ContentBlock = _f(_text_or_block)
    message_id: str | None = _f(_or_none(_str), None)
    new_message: bool = _f(_bool, False)
    meta: Meta = _f(_meta, UNSET)


@frozen
class SendAgentMessage(_Checked):
    """Report a whole agent message (`agent_message`): its content replaces any chunks."""

    content: tuple[ContentBlock, ...] = _f(_blocks)
    message_id: str | None = _f(_or_none(_str), None)
    meta: Meta = _f(_meta, UNSET)


@frozen
class ReportPlan(_Checked):
    """Report a plan's complete current content (`plan_update`).

    Give `entries` (an `items` plan under `plan_id`) or a whole `plan` value.
    """

    entries: tuple[PlanEntry, ...] = _f(_tuple_of(_plan_entry), ())
    plan_id: str = _f(_str, "plan-1")
    plan: PlanItems | OtherPlan | None = _f(_or_none(_plan), None)


@frozen
class StartToolCall(_Checked):
    """Report a new tool call (its first `tool_call_update`, with a title)."""

    title: str = _f(_str)
    tool_call_id: str | None = _f(_or_none(_str), None)
    kind: str = _f(_str, "other")
    status: str = _f(_str, "pending")
    content: tuple[ToolCallContent, ...] = _f(_tool_contents, ())
    locations: tuple[ToolCallLocation, ...] = _f(_locations, ())
    raw_input: JsonValue | Unset = _f(_or_unset(_json), UNSET)
    meta: Meta = _f(_meta, UNSET)


@frozen
class PatchToolCall(_Checked):
    """Patch a reported tool call (only the fields given are sent)."""

    tool_call_id: str = _f(_str)
    title: Patch[str] = _f(_patch(_str), UNSET)
    kind: Patch[str] = _f(_patch(_str), UNSET)
    status: Patch[str] = _f(_patch(_str), UNSET)
    content: Patch[tuple[ToolCallContent, ...]] = _f(_patch(_tool_contents), UNSET)
    locations: Patch[tuple[ToolCallLocation, ...]] = _f(_patch(_locations), UNSET)
    raw_input: Patch[JsonValue] = _f(_or_unset(_json), UNSET)
    raw_output: Patch[JsonValue] = _f(_or_unset(_json), UNSET)
    meta: Meta = _f(_meta, UNSET)


@frozen
class SendToolContent(_Checked):
    """Stream one complete content item of a tool call (`tool_call_content_chunk`)."""

    tool_call_id: str = _f(_str)
    content: ToolCallContent = _f(_tool_content)
    meta: Meta = _f(_meta, UNSET)


@frozen
class FinishToolCall(_Checked):
    """Report a tool call's final status (default `completed`), optionally with content."""

    tool_call_id: str = _f(_str)
    status: str = _f(_str, "completed")
    content: tuple[ToolCallContent, ...] | Unset = _f(_or_unset(_tool_contents), UNSET)
    raw_output: JsonValue | Unset = _f(_or_unset(_json), UNSET)


@frozen
class PatchTerminal(_Checked):
    """Patch a display terminal; `output` (raw bytes) replaces all of its bytes."""

    terminal_id: str = _f(_str)
    command: Patch[str] = _f(_patch(_str), UNSET)
    cwd: Patch[str] = _f(_patch(_str), UNSET)
    output: Patch[bytes] = _f(_patch(_bytes), UNSET)
    exit_status: Patch[TerminalExitStatus] = _f(_patch(_exit_status), UNSET)
    meta: Meta = _f(_meta, UNSET)


@frozen
class SendTerminalOutput(_Checked):
    """Append raw bytes to a display terminal (`terminal_output_chunk`, base64 per chunk)."""

    terminal_id: str = _f(_str)
    data: bytes = _f(_bytes)


@frozen
class ReportUsage(_Checked):
    """Report context use (`usage_update`); `cost` is cumulative for the session."""

    used: int = _f(_count)
    size: int = _f(_count)
    cost: Patch[Cost] = _f(_patch(_cost), UNSET)


@frozen
class PatchSessionInfo(_Checked):
    """Patch the session's title / updatedAt (`session_info_update`)."""

    title: Patch[str] = _f(_patch(_str), UNSET)
    updated_at: Patch[str] = _f(_patch(_str), UNSET)
    meta: Meta = _f(_meta, UNSET)


@frozen
class RequestPermission(_Checked):
    """Ask the user (`session/request_permission`); blocks foreground work until answered.

    With `tool_call_id` the request carries that tool call as its subject and, once granted,
    the engine marks the tool `in_progress`. `session_id` names an announced child whose work
    asks (Preview, R47; None: the agent's own session); it blocks the child, never the parent.
    """

    title: str = _f(_str)
    options: tuple[PermissionOption, ...] = _f(_tuple_of(_option))
    tool_call_id: str | None = _f(_or_none(_str), None)
    description: str | Unset = _f(_or_unset(_str), UNSET)
    request_id: int | str | None = _f(_request_id, None)
    session_id: str | None = _f(_or_none(_str), None)


@frozen
class CancelPermission(_Checked):
    """Withdraw a pending permission request (`$/cancel_request`); the client still answers."""

    request_id: int | str | None = _f(_request_id)


@frozen
class EndTurn(_Checked):
    """End the foreground work: idle with a stop reason (`cancelled` after a cancel)."""

    stop_reason: str = _f(_str, "end_turn")
    meta: JsonObject | Unset = _f(_or_unset(_object), UNSET)


@frozen
class ReportAbort(_Checked):
    """The agent's work failed with an exception. After a cancel this ends the work as
    `cancelled` (never an error, R22); otherwise with `stop_reason` (default: `error` where
    the revision knows it, else `_error`)."""

    detail: str = _f(_str, "")
    stop_reason: str | None = _f(_or_none(_str), None)


# -- client intents ----------------------------------------------------------------------


@frozen
class SendPrompt(_Checked):
    """Send a `session/prompt`."""

    content: tuple[ContentBlock, ...] = _f(_blocks)
    request_id: int | str | None = _f(_request_id, None)
    meta: Meta = _f(_meta, UNSET)
    #: One key per user submission (Preview, C42, C43): opaque, 1 to 255 characters, never
    #: reused for another submission; `RetryPrompt` sends it again. Keys are inputs (no
    #: randomness in the core).
    idempotency_key: str | None = _f(_or_none(_idempotency_key), None)


@frozen
class SendCancel(_Checked):
    """Send `session/cancel`: cancels pending permission requests and marks unfinished tool
    calls of the current work `cancelled` locally."""


@frozen
class AnswerPermission(_Checked):
    """Answer a pending permission request with the option the user picked."""

    request_id: int | str | None = _f(_request_id)
    option_id: str = _f(_str)


#: Everything the agent engine steps with (`step(AgentEngine, AgentIntent)`).
AgentIntent: TypeAlias = (
    AcceptPrompt
    | RejectPrompt
    | ReportUserMessage
    | StartWork
    | SendAgentText
    | SendThought
    | SendAgentMessage
    | ReportPlan
    | StartToolCall
    | PatchToolCall
    | SendToolContent
    | FinishToolCall
    | PatchTerminal
    | SendTerminalOutput
    | ReportUsage
    | PatchSessionInfo
    | RequestPermission
    | CancelPermission
    | EndTurn
    | ReportAbort
    | Received
)

#: Everything the client engine steps with (`step(ClientEngine, ClientIntent)`).
ClientIntent: TypeAlias = SendPrompt | SendCancel | AnswerPermission | Received
