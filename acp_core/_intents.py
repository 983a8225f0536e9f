"""The engines' input alphabet: intents (what our side wants to do) and received messages.

Owns: one frozen class per intent of the agent engine and of the client engine, `Received`
(a decoded message from the peer), `Step` (what a step returns), and the check of every
intent field at construction.
Must not know: how an intent becomes wire messages or which are legal (`_agent.py`,
`_client.py`), JSON (it only asks the codec whether a diff is valid on the wire).

Intents are imperative and complete at construction. Ids are optional: when omitted, the
engine takes the next one from its deterministic counter (no clocks, no randomness).

Checked and frozen at construction (issue 15). Every field is checked against its type when
the intent is built, and what the caller gave is frozen: a list becomes a tuple, a dict a
frozen JSON object, a `bytearray` bytes. A mistyped field is a `LocalProtocolError` (rule E0:
not an intent of the engine's alphabet) naming the field. Why at construction rather than at
`step`: the error points at the line that built the wrong value, an intent is then valid for
its whole life (so `step` trusts it and pays nothing per step), and a frozen intent can never
change what an engine stored or already sent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Generic, NamedTuple, TypeAlias, TypeVar

import attrs
import immutables

from ._content import ContentBlock, TextContent, ToolCallContent, ToolCallLocation
from ._errors import DecodeError, LocalProtocolError
from ._json import (
    EMPTY_OBJECT,
    UNSET,
    JsonObject,
    JsonValue,
    Meta,
    Patch,
    Unset,
    freeze_given,
    freeze_json,
)
from ._jsonrpc import Message, PermissionOption
from ._updates import Cost, OtherPlan, PlanEntry, PlanItems, TerminalExitStatus

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


# -- field checks ------------------------------------------------------------------------
# A check takes the given value and where it sits (`SendPrompt.content[0]`) and returns the
# value to store (a frozen copy where needed) or raises `LocalProtocolError`.

Check = Callable[[Any, str], Any]

_I64: Final = (-(2**63), 2**63 - 1)
_U64: Final = (0, 2**64 - 1)
_CONTENT_BLOCKS: Final = ContentBlock.__args__
_TOOL_CONTENT: Final = ToolCallContent.__args__


def _mistyped(where: str, expected: str, value: object) -> LocalProtocolError:
    return LocalProtocolError(
        "E0",
        f"{where} must be {expected}, not {type(value).__name__}; "
        "build the intent with the types its docstring names",
    )


def _str(value: Any, where: str) -> str:
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str.__str__(value)  # a plain copy of a str subclass
    raise _mistyped(where, "a string", value)


def _bool(value: Any, where: str) -> bool:
    if type(value) is bool:
        return value
    raise _mistyped(where, "a bool", value)


def _int_in(lo_hi: tuple[int, int], name: str) -> Check:
    lo, hi = lo_hi

    def check(value: Any, where: str) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            number = int.__int__(value)
            if lo <= number <= hi:
                return number
            raise LocalProtocolError("E0", f"{where} must be {name}: out of range")
        raise _mistyped(where, f"an integer ({name})", value)

    return check


_int64: Final = _int_in(_I64, "int64")
# A token count: negative ones are refused by the engine under the usage rule (R37); here only
# what no count can be (far wider than 64 bits, or not an integer).
_count: Final = _int_in((-(2**128), 2**128), "at most 128 bits wide")


def _request_id(value: Any, where: str) -> int | str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return _str(value, where)
    if isinstance(value, int) and not isinstance(value, bool):
        return _int64(value, where)  # type: ignore[no-any-return]
    raise _mistyped(where, "a request id (int, str or None)", value)


def _bytes(value: Any, where: str) -> bytes:
    if type(value) is bytes:
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)  # a copy the caller cannot change
    raise _mistyped(where, "bytes", value)


def _json(value: Any, where: str) -> JsonValue:
    try:
        return freeze_json(value)
    except DecodeError as e:
        raise LocalProtocolError(
            "E0", f"{where} must be JSON: expected {e.expected} @ {where}{e.path[1:]}"
        ) from None


def _object(value: Any, where: str) -> JsonObject:
    if not isinstance(value, (dict, immutables.Map)):
        raise _mistyped(where, "a JSON object (dict)", value)
    frozen: JsonObject = _json(value, where)  # type: ignore[assignment]
    return frozen


def _instance(*classes: type[Any]) -> Check:
    names = " or ".join(c.__name__ for c in classes)

    def check(value: Any, where: str) -> Any:
        if isinstance(value, classes):
            try:
                return freeze_given(value, where)  # a frozen value: kept as it is
            except DecodeError as e:
                raise LocalProtocolError("E0", f"{where}: {e}") from None
        raise _mistyped(where, f"a {names}", value)

    return check


def _tuple_of(item: Check) -> Check:
    def check(value: Any, where: str) -> tuple[Any, ...]:
        if not isinstance(value, (tuple, list)):
            raise _mistyped(where, "a tuple", value)
        out = tuple(item(x, f"{where}[{i}]") for i, x in enumerate(value))
        if type(value) is tuple and all(a is b for a, b in zip(out, value, strict=True)):
            return value
        return out

    return check


def _or_none(check: Check) -> Check:
    return lambda value, where: None if value is None else check(value, where)


def _or_unset(check: Check) -> Check:
    return lambda value, where: UNSET if value is UNSET else check(value, where)


def _patch(check: Check) -> Check:
    return lambda value, where: value if value is None or value is UNSET else check(value, where)


def _text_or_block(value: Any, where: str) -> Any:
    if isinstance(value, str):
        return _str(value, where)
    return _block(value, where)


def _wire_valid(part: str, check: Check) -> Check:
    """`check`, then the value goes through the codec: encoded, and decoded back strictly.
    The decoded copy is what the intent keeps. So the engine never emits what it would refuse
    itself (a `move` diff change without `oldPath`, a list where text belongs, an integer no
    JSON printer writes), and whatever a caller put inside a value (a dict in `_meta`, a list
    in `audience`) is frozen, deeply, even though value classes store what they are given.
    The codec keeps the rules; this only asks it."""

    def checked(value: Any, where: str) -> Any:
        value = check(value, where)
        if _plain_text(value):
            return value  # the streaming hot path: already what the round trip would give
        from ._codec import decode_part, encode_part  # the codec imports values, not intents

        try:
            return decode_part(part, encode_part(part, value))
        except DecodeError as e:
            problem = str(e)
        except Exception as e:  # a foreign object inside the value: its own methods raised
            problem = f"{type(e).__name__} while encoding it"
        raise LocalProtocolError("E0", f"{where} is not a valid {part} on the wire: {problem}")

    return checked


def _plain_text(value: Any) -> bool:
    return (
        type(value) is TextContent
        and type(value.text) is str
        and value.annotations is UNSET
        and value.meta is UNSET
        and value.extra is EMPTY_OBJECT
    )


def _plan_entry(value: Any, where: str) -> PlanEntry:
    # A plan entry is no codec part of its own: it travels inside an `items` plan.
    plan: PlanItems = _items_plan(PlanItems("p", (_instance(PlanEntry)(value, where),)), where)
    entry: PlanEntry = plan.entries[0]
    return entry


_block: Final = _wire_valid("ContentBlock", _instance(*_CONTENT_BLOCKS))
_blocks: Final = _tuple_of(_block)
_tool_content: Final = _wire_valid("ToolCallContent", _instance(*_TOOL_CONTENT))
_tool_contents: Final = _tuple_of(_tool_content)
_locations: Final = _tuple_of(_wire_valid("ToolCallLocation", _instance(ToolCallLocation)))
_items_plan: Final = _wire_valid("PlanUpdateContent", _instance(PlanItems))


def _plan(value: Any, where: str) -> PlanItems | OtherPlan:
    if isinstance(value, OtherPlan):
        # Kept as given, frozen: the engine judges its `planId` and `type` (R29, D1).
        return OtherPlan(_object(value.raw, f"{where}.raw"))
    plan: PlanItems = _items_plan(value, where)
    return plan


_exit_status: Final = _wire_valid("TerminalExitStatus", _instance(TerminalExitStatus))
_cost: Final = _wire_valid("Cost", _instance(Cost))
_option: Final = _wire_valid("PermissionOption", _instance(PermissionOption))
_meta: Final = _patch(_object)
_CHECK: Final = "acp_core.check"


def _f(check: Check, default: Any = attrs.NOTHING) -> Any:
    """An intent field with its check (run by `_Checked` after attrs' `__init__`)."""
    return attrs.field(default=default, metadata={_CHECK: check})


_CHECKS: dict[type[Any], tuple[tuple[str, Check], ...]] = {}


class _Checked:
    """Base of every intent: checks and freezes each field once the instance is built."""

    __slots__ = ()

    def __attrs_post_init__(self) -> None:
        cls = type(self)
        checks = _CHECKS.get(cls)
        if checks is None:
            checks = tuple(
                (a.name, a.metadata[_CHECK])
                for a in attrs.fields(cls)  # type: ignore[arg-type]
                if _CHECK in a.metadata
            )
            _CHECKS[cls] = checks
        name = cls.__name__
        for field, check in checks:
            given = getattr(self, field)
            kept = check(given, f"{name}.{field}")
            if kept is not given:
                object.__setattr__(self, field, kept)  # frozen: only here, before use


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


@attrs.frozen
class Received:
    """A message that arrived from the peer (decode it with `decode_message` first)."""

    message: Message


# -- agent intents -----------------------------------------------------------------------


@attrs.frozen
class AcceptPrompt(_Checked):
    """Accept a received `session/prompt`: answer it, report the user message, go `running`.

    `content` is the user message as inserted into history (default: the prompt as sent);
    `chunked` reports it as one `user_message_chunk` per block instead of one `user_message`.
    """

    request_id: int | str | None = _f(_request_id)
    user_message_id: str | None = _f(_or_none(_str), None)
    content: tuple[ContentBlock, ...] | None = _f(_or_none(_blocks), None)
    chunked: bool = _f(_bool, False)


@attrs.frozen
class RejectPrompt(_Checked):
    """Answer a received `session/prompt` with a JSON-RPC error instead of accepting it."""

    request_id: int | str | None = _f(_request_id)
    message: str = _f(_str)
    code: int = _f(_int64, -32603)
    data: JsonValue | Unset = _f(_or_unset(_json), UNSET)


@attrs.frozen
class ReportUserMessage(_Checked):
    """Report a user message the agent inserted (e.g. a queued prompt) as the user's turn."""

    content: tuple[ContentBlock, ...] = _f(_blocks)
    message_id: str | None = _f(_or_none(_str), None)
    chunked: bool = _f(_bool, False)


@attrs.frozen
class StartWork(_Checked):
    """Start foreground work the agent initiated itself (no prompt): reports `running`."""


@attrs.frozen
class SendAgentText(_Checked):
    """Stream one block (or text) of the agent's reply as an `agent_message_chunk`.

    Consecutive chunks continue the same message until something else is reported or
    `new_message` is set; `message_id` pins the message explicitly.
    """

    content: str | ContentBlock = _f(_text_or_block)
    message_id: str | None = _f(_or_none(_str), None)
    new_message: bool = _f(_bool, False)
    meta: Meta = _f(_meta, UNSET)


@attrs.frozen
class SendThought(_Checked):
    """Stream one block (or text) of the agent's reasoning as an `agent_thought_chunk`."""

    content: str | ContentBlock = _f(_text_or_block)
    message_id: str | None = _f(_or_none(_str), None)
    new_message: bool = _f(_bool, False)
    meta: Meta = _f(_meta, UNSET)


@attrs.frozen
class SendAgentMessage(_Checked):
    """Report a whole agent message (`agent_message`): its content replaces any chunks."""

    content: tuple[ContentBlock, ...] = _f(_blocks)
    message_id: str | None = _f(_or_none(_str), None)
    meta: Meta = _f(_meta, UNSET)


@attrs.frozen
class ReportPlan(_Checked):
    """Report a plan's complete current content (`plan_update`).

    Give `entries` (an `items` plan under `plan_id`) or a whole `plan` value.
    """

    entries: tuple[PlanEntry, ...] = _f(_tuple_of(_plan_entry), ())
    plan_id: str = _f(_str, "plan-1")
    plan: PlanItems | OtherPlan | None = _f(_or_none(_plan), None)


@attrs.frozen
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


@attrs.frozen
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


@attrs.frozen
class SendToolContent(_Checked):
    """Stream one complete content item of a tool call (`tool_call_content_chunk`)."""

    tool_call_id: str = _f(_str)
    content: ToolCallContent = _f(_tool_content)
    meta: Meta = _f(_meta, UNSET)


@attrs.frozen
class FinishToolCall(_Checked):
    """Report a tool call's final status (default `completed`), optionally with content."""

    tool_call_id: str = _f(_str)
    status: str = _f(_str, "completed")
    content: tuple[ToolCallContent, ...] | Unset = _f(_or_unset(_tool_contents), UNSET)
    raw_output: JsonValue | Unset = _f(_or_unset(_json), UNSET)


@attrs.frozen
class PatchTerminal(_Checked):
    """Patch a display terminal; `output` (raw bytes) replaces all of its bytes."""

    terminal_id: str = _f(_str)
    command: Patch[str] = _f(_patch(_str), UNSET)
    cwd: Patch[str] = _f(_patch(_str), UNSET)
    output: Patch[bytes] = _f(_patch(_bytes), UNSET)
    exit_status: Patch[TerminalExitStatus] = _f(_patch(_exit_status), UNSET)
    meta: Meta = _f(_meta, UNSET)


@attrs.frozen
class SendTerminalOutput(_Checked):
    """Append raw bytes to a display terminal (`terminal_output_chunk`, base64 per chunk)."""

    terminal_id: str = _f(_str)
    data: bytes = _f(_bytes)


@attrs.frozen
class ReportUsage(_Checked):
    """Report context use (`usage_update`); `cost` is cumulative for the session."""

    used: int = _f(_count)
    size: int = _f(_count)
    cost: Patch[Cost] = _f(_patch(_cost), UNSET)


@attrs.frozen
class PatchSessionInfo(_Checked):
    """Patch the session's title / updatedAt (`session_info_update`)."""

    title: Patch[str] = _f(_patch(_str), UNSET)
    updated_at: Patch[str] = _f(_patch(_str), UNSET)
    meta: Meta = _f(_meta, UNSET)


@attrs.frozen
class RequestPermission(_Checked):
    """Ask the user (`session/request_permission`); blocks foreground work until answered.

    With `tool_call_id` the request carries that tool call as its subject and, once granted,
    the engine marks the tool `in_progress`.
    """

    title: str = _f(_str)
    options: tuple[PermissionOption, ...] = _f(_tuple_of(_option))
    tool_call_id: str | None = _f(_or_none(_str), None)
    description: str | Unset = _f(_or_unset(_str), UNSET)
    request_id: int | str | None = _f(_request_id, None)


@attrs.frozen
class CancelPermission(_Checked):
    """Withdraw a pending permission request (`$/cancel_request`); the client still answers."""

    request_id: int | str | None = _f(_request_id)


@attrs.frozen
class EndTurn(_Checked):
    """End the foreground work: idle with a stop reason (`cancelled` after a cancel)."""

    stop_reason: str = _f(_str, "end_turn")
    meta: JsonObject | Unset = _f(_or_unset(_object), UNSET)


@attrs.frozen
class ReportAbort(_Checked):
    """The agent's work failed with an exception. After a cancel this ends the work as
    `cancelled` (never an error, R22); otherwise with `stop_reason` (default: `error` where
    the revision knows it, else `_error`)."""

    detail: str = _f(_str, "")
    stop_reason: str | None = _f(_or_none(_str), None)


# -- client intents ----------------------------------------------------------------------


@attrs.frozen
class SendPrompt(_Checked):
    """Send a `session/prompt`."""

    content: tuple[ContentBlock, ...] = _f(_blocks)
    request_id: int | str | None = _f(_request_id, None)
    meta: Meta = _f(_meta, UNSET)


@attrs.frozen
class SendCancel(_Checked):
    """Send `session/cancel`: cancels pending permission requests and marks unfinished tool
    calls of the current work `cancelled` locally."""


@attrs.frozen
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
