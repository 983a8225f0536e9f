"""JSON-RPC 2.0 messages of the prompt lifecycle, as frozen values.

Owns: method names, the typed messages the prompt lifecycle needs (`session/update`,
`session/prompt`, `session/cancel`, `session/request_permission`, `$/cancel_request`), their
results (prompt, permission), the permission values (options, subjects, outcomes), and the
generic envelopes (`Request`, `Notification`, `Response`, `ErrorResponse`, `Batch`) that carry
every other method verbatim.
Must not know: decoding (`_codec*.py`), state, engines. Each class is the one declaration of
its wire shape; `__wire_tag__` and `wire(...)` state only the exceptions (`_wire/_fields.py`).

Responses do not name their method on the wire, so `Response.result` stays raw JSON; whoever
knows which request it answers decodes it with `decode_prompt_result` /
`decode_permission_result`.
"""

from __future__ import annotations

from typing import Final, TypeAlias

import attrs

from ._content import ContentBlock
from ._fields import PREVIEW_NAME, wire, wire_tag
from ._freezing import freezing_fields
from ._json import EMPTY_OBJECT, UNSET, JsonObject, JsonValue, Meta, Patch, Unset
from ._jsonrpc_error import RpcError
from ._updates import SessionUpdate, ToolCallUpdate
from ._value import frozen

__all__ = [
    "Batch",
    "CancelRequestNotification",
    "CancelSessionNotification",
    "CancelTerminalRequest",
    "CancelToolCallRequest",
    "CancelledOutcome",
    "CommandPermissionSubject",
    "ErrorCode",
    "ErrorResponse",
    "InvalidEntry",
    "Message",
    "Method",
    "Notification",
    "OtherPermissionOutcome",
    "OtherPermissionSubject",
    "PermissionOption",
    "PermissionOptionKind",
    "PermissionOutcome",
    "PermissionSubject",
    "PromptRequest",
    "PromptResult",
    "Request",
    "RequestId",
    "RequestPermissionRequest",
    "RequestPermissionResult",
    "Response",
    "RpcError",
    "SelectedOutcome",
    "ToolCallPermissionSubject",
    "UpdateSessionNotification",
]

RequestId: TypeAlias = "int | str | None"


class Method:
    """Method names of the prompt lifecycle."""

    SESSION_UPDATE: Final = "session/update"
    SESSION_PROMPT: Final = "session/prompt"
    SESSION_CANCEL: Final = "session/cancel"
    REQUEST_PERMISSION: Final = "session/request_permission"
    CANCEL_REQUEST: Final = "$/cancel_request"
    TOOL_CALL_CANCEL: Final = "tool_call/cancel"  # 2026-11 on
    TERMINAL_CANCEL: Final = "terminal/cancel"  # 2026-11 on
    SESSION_NEW: Final = "session/new"
    SESSION_RESUME: Final = "session/resume"


class ErrorCode:
    """JSON-RPC error codes ACP names (the set is open)."""

    PARSE_ERROR: Final = -32700
    INVALID_REQUEST: Final = -32600
    METHOD_NOT_FOUND: Final = -32601
    INVALID_PARAMS: Final = -32602
    INTERNAL_ERROR: Final = -32603
    REQUEST_CANCELLED: Final = -32800
    AUTH_REQUIRED: Final = -32000
    RESOURCE_NOT_FOUND: Final = -32002


class PermissionOptionKind:
    """Known permission option kinds (the set is open)."""

    ALLOW_ONCE: Final = "allow_once"
    ALLOW_ALWAYS: Final = "allow_always"
    REJECT_ONCE: Final = "reject_once"
    REJECT_ALWAYS: Final = "reject_always"


# -- permission values -------------------------------------------------------------------


@frozen(field_transformer=freezing_fields)
class PermissionOption:
    """A choice offered in a permission prompt."""

    option_id: str
    name: str
    kind: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class ToolCallPermissionSubject:
    """`{"type": "tool_call"}`: the client applies `tool_call` like a `tool_call_update`."""

    __wire_tag__ = wire_tag(type="tool_call")

    tool_call: ToolCallUpdate
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class CommandPermissionSubject:
    """`{"type": "command"}`: a command the agent wants to run (a description, not a patch)."""

    __wire_tag__ = wire_tag(type="command")

    command: str
    cwd: str
    tool_call_id: Patch[str] = UNSET
    terminal_id: Patch[str] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class OtherPermissionSubject:
    """A permission subject this library does not know; `raw` is verbatim."""

    raw: JsonObject


PermissionSubject: TypeAlias = (
    ToolCallPermissionSubject | CommandPermissionSubject | OtherPermissionSubject
)


@frozen(field_transformer=freezing_fields)
class SelectedOutcome:
    """`{"outcome": "selected"}`: the user picked `option_id`."""

    __wire_tag__ = wire_tag(outcome="selected")

    option_id: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class CancelledOutcome:
    """`{"outcome": "cancelled"}`: the work was cancelled before the user answered."""

    __wire_tag__ = wire_tag(outcome="cancelled")

    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class OtherPermissionOutcome:
    """An outcome this library does not know. An agent must never read it as approval."""

    raw: JsonObject


PermissionOutcome: TypeAlias = SelectedOutcome | CancelledOutcome | OtherPermissionOutcome


@frozen(field_transformer=freezing_fields)
class RequestPermissionResult:
    """The result of `session/request_permission`."""

    outcome: PermissionOutcome
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class PromptResult:
    """The result of `session/prompt`: `{}` in the 2026-08 revision.

    `message_id` is the inserted user message's id, carried by the 2026-11 draft; it stays
    `UNSET` for the default revision.
    """

    # Required by the 2026-11 draft, unknown to 2026-08: tolerated either way, never null.
    message_id: str | Unset = attrs.field(default=UNSET, metadata=wire(lenient=False))
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


# -- typed messages ----------------------------------------------------------------------
# `envelope_extra` keeps unknown keys beside `jsonrpc`/`id`/`method`/`params`; `extra` keeps
# unknown keys inside `params`.


@frozen(field_transformer=freezing_fields)
class UpdateSessionNotification:
    """`session/update` (agent -> client)."""

    session_id: str
    update: SessionUpdate
    meta: Meta = UNSET  # envelope-scoped; never stored in entity state
    extra: JsonObject = EMPTY_OBJECT
    envelope_extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class PromptRequest:
    """`session/prompt` (client -> agent)."""

    id: int | str | None
    session_id: str
    prompt: tuple[ContentBlock, ...] = attrs.field(metadata=wire(skip_invalid=False))
    meta: Meta = UNSET
    #: One key per user submission, reused on every retry (Preview on, R67, C42-C43).
    idempotency_key: Patch[str] = attrs.field(
        default=UNSET, metadata=wire(since=PREVIEW_NAME, lenient=False, length=(1, 255))
    )
    extra: JsonObject = EMPTY_OBJECT
    envelope_extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class CancelToolCallRequest:
    """`tool_call/cancel` (client -> agent, 2026-11 on): only while the call advertises
    `capabilities.cancel` (C41); answered `{}` once accepted (R75)."""

    __wire_since__ = "2026-11"

    id: int | str | None
    session_id: str
    tool_call_id: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT
    envelope_extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class CancelTerminalRequest:
    """`terminal/cancel` (client -> agent, 2026-11 on): only while the terminal advertises
    `capabilities.cancel` (C41); answered `{}` once accepted (R75)."""

    __wire_since__ = "2026-11"

    id: int | str | None
    session_id: str
    terminal_id: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT
    envelope_extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class CancelSessionNotification:
    """`session/cancel` (client -> agent)."""

    session_id: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT
    envelope_extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class RequestPermissionRequest:
    """`session/request_permission` (agent -> client). v2: `title` is required."""

    id: int | str | None
    session_id: str
    title: str
    options: tuple[PermissionOption, ...] = attrs.field(
        metadata=wire(min_items=1, skip_invalid=False)
    )
    description: Patch[str] = UNSET
    subject: Patch[PermissionSubject] = attrs.field(default=UNSET, metadata=wire(lenient=False))
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT
    envelope_extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class CancelRequestNotification:
    """`$/cancel_request` (either direction)."""

    request_id: int | str | None
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT
    envelope_extra: JsonObject = EMPTY_OBJECT


# -- generic envelopes -------------------------------------------------------------------


@frozen(field_transformer=freezing_fields)
class Request:
    """Any other request, kept verbatim (`params` is `UNSET` when absent)."""

    id: int | str | None
    method: str
    params: JsonValue | Unset = UNSET
    envelope_extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class Notification:
    """Any other notification, kept verbatim."""

    method: str
    params: JsonValue | Unset = UNSET
    envelope_extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class Response:
    """A success response; decode `result` with the decoder of the request's method."""

    id: int | str | None
    result: JsonValue
    envelope_extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class ErrorResponse:
    """An error response."""

    id: int | str | None
    error: RpcError
    envelope_extra: JsonObject = EMPTY_OBJECT


Message: TypeAlias = (
    UpdateSessionNotification
    | PromptRequest
    | CancelSessionNotification
    | RequestPermissionRequest
    | CancelRequestNotification
    | CancelToolCallRequest
    | CancelTerminalRequest
    | Request
    | Notification
    | Response
    | ErrorResponse
)


@frozen(field_transformer=freezing_fields)
class InvalidEntry:
    """A batch entry that did not decode; the receiver answers it with `code` and `id: null`."""

    raw: JsonValue
    path: str
    expected: str
    code: int


@frozen(field_transformer=freezing_fields)
class Batch:
    """A JSON-RPC batch (accepted on input, processed in array order; emitted only as an
    agent connection's one array of replies to a client's batch)."""

    items: tuple[Message | InvalidEntry, ...]
