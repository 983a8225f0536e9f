"""The values both connection sides share: host inputs, events, typed host requests, replies.

Owns: what a host gives a connection besides wire input (`SessionIntent`, `AnswerRequest`,
`FailRequest`, `Implementation`), what a connection tells its host (`ConnectionStep`, with
the ids a step generated, and the event classes), the typed requests handed to the host
(`ListSessions`, `DeleteSession`, `ForkSession`, `ExtensionRequest`,
`ExtensionNotification`), and the JSON-RPC reply builders
the two sides use the same way (error replies, the `-32002` unknown-session error), and
`JudgedConnection`, what the feeding of the machine reads of a connection value, with
`moved_to_rules`, the warning of a connection's deprecated reads of that machine's parts.
Must not know: which side does what with them (`_engines/_connection_agent.py`,
`_engines/_connection_client.py`), engines, framing.
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Final, NamedTuple, Protocol

from acp_core._rules._predicates import is_absolute
from acp_core._wire._codec_values import is_request_id
from acp_core._wire._framing import encode_ndjson
from acp_core._wire._json import UNSET, JsonObject, JsonValue, Unset, thaw_json
from acp_core._wire._value import frozen

if TYPE_CHECKING:
    from acp_core._rules._connection_rules import ConnectionRules
    from acp_core._wire._jsonrpc import RequestPermissionRequest
    from acp_core._wire._revision import Revision
    from acp_core._wire._updates import SessionUpdate

    from ._agent_records import PermissionDecision


class JudgedConnection(Protocol):
    """What a connection's feeding of the machine's connection-wide part reads of the
    connection value (`AgentConnection`, `ClientConnection`; the feeding is
    `_engines/_connection_judging.py`, with each side's own in `_connection_*_judging.py`)."""

    @property
    def revision(self) -> Revision: ...
    @property
    def rules(self) -> ConnectionRules: ...
    @property
    def v1(self) -> object: ...


def moved_to_rules(name: str) -> Any:
    """A connection's deprecated read of `name`, a part of the protocol machine it held as a
    field of its own until its one value `rules` held them all: warns, naming that home."""

    def read(conn: Any) -> Any:
        cls = type(conn).__name__
        warnings.warn(
            f"{cls}.{name} moved: use {cls}.rules.{name}, the protocol machine's "
            "connection-wide part (one value); the property goes in 0.3",
            DeprecationWarning,
            stacklevel=2,
        )
        return getattr(conn.rules, name)

    return property(read, doc=f"Deprecated (goes in 0.3): `rules.{name}`.")


__all__ = [
    "AnswerRequest",
    "CancelReceived",
    "CloseRequested",
    "ConnectionStep",
    "DeleteSession",
    "ExtensionNotification",
    "ExtensionRequest",
    "FailRequest",
    "Finding",
    "ForkSession",
    "Implementation",
    "Initialized",
    "JudgedConnection",
    "ListSessions",
    "PermissionAnswered",
    "PermissionRequested",
    "PromptEnded",
    "PromptReceived",
    "RequestAnswered",
    "RequestCancelled",
    "SessionClosed",
    "SessionIntent",
    "SessionOpened",
    "SideInputs",
    "ViewChanged",
]

#: Protocol versions this library speaks (ACP v2).
SUPPORTED_VERSIONS: Final = (2,)
#: `-32022`: no protocol version both sides support (the initialize error).
UNSUPPORTED_VERSION: Final = -32022


# -- host inputs ---------------------------------------------------------------------------


@frozen
class Implementation:
    """`info` of `initialize`: who is speaking."""

    name: str
    version: str
    title: str | None = None

    def to_wire(self) -> dict[str, Any]:
        out: dict[str, Any] = {"name": self.name, "version": self.version}
        if self.title is not None:
            out["title"] = self.title
        return out


@frozen
class SessionIntent:
    """An engine intent for one session of the connection (`intent` as `step` takes it).

    Where the intent sends a request and names no id, the connection picks one unique on
    the whole connection (never per session).
    """

    session_id: str
    intent: object


@frozen
class AnswerRequest:
    """Answer a request the connection handed to the host with a success `result`."""

    request_id: int | str | None
    result: JsonValue


@frozen
class FailRequest:
    """Answer a request the connection handed to the host with a JSON-RPC error."""

    request_id: int | str | None
    code: int
    message: str
    data: JsonValue | Unset = UNSET


# -- typed requests handed to the host -----------------------------------------------------


@frozen
class ListSessions:
    """`session/list`: the host answers with `{sessions, nextCursor?}`."""

    request_id: int | str | None
    cwd: str | None = None
    cursor: str | None = None


@frozen
class DeleteSession:
    """`session/delete`: the host deletes its record and answers `{}`; on success the
    connection forgets the session too."""

    request_id: int | str | None
    session_id: str


@frozen
class ForkSession:
    """`session/fork` (unstable): the host creates the fork, answers `{sessionId}`, and opens
    it on the connection with `OpenSession`."""

    request_id: int | str | None
    session_id: str
    params: JsonObject


@frozen
class ExtensionRequest:
    """A request whose method starts with `_` (or, from a v1 agent, one of v1's `fs/*` and
    `terminal/*` methods): the host answers it (or fails it)."""

    request_id: int | str | None
    method: str
    params: JsonValue | Unset = UNSET


@frozen
class ExtensionNotification:
    """A notification whose method starts with `_`."""

    method: str
    params: JsonValue | Unset = UNSET


# -- events ----------------------------------------------------------------------------------


@frozen
class Finding:
    """Something received that the connection could not process and owed no reply to (a
    notification, a stray response), or a request it answered with an error that broke a
    named rule: recorded, never fatal.

    Attributes:
        rule: the rule it breaks (`D1` undecodable, or the rule `check` names for it: `R4`,
            `R29`, `R26`, `R80`; `E3` wrong session or direction; a response to nothing:
            `J1` from the agent, `C25` from the client; `X0` an unknown notification, `F1` a
            framing error, `E5` traffic on a connection whose version was refused), or on an
            agent connection
            serving v1, the `v1.*` id of a projection step that lost something (docs/v1.md,
            "Serving a v1 client").
        detail: a readable explanation.
    """

    rule: str
    detail: str


@frozen
class Initialized:
    """`initialize` completed: on the client, the agent answered it; on the agent, the
    connection answered the client's with success. The peer's side of the handshake.

    Attributes:
        protocol_version: the protocol version agreed (as the agent answered it).
        peer_info: who the peer is (`info`: the agent's on the client, the client's on the
            agent), or None when it sent none usable.
        peer_capabilities: what the peer advertised (`capabilities`), or None.
        request_id: the id of the `initialize` request.
    """

    protocol_version: int | None
    peer_info: JsonObject | None
    peer_capabilities: JsonObject | None = None
    request_id: int | str | None = None


@frozen
class SessionOpened:
    """A session became active on this connection (`session/new`, or `session/resume`).

    `request_id`: the id of the `session/new` or `session/resume` request that opened it
    (on the client, the id `ConnectionStep.ids` returned for the `NewSession` or
    `ResumeSession`)."""

    session_id: str
    resumed: bool = False
    request_id: int | str | None = None


@frozen
class SessionClosed:
    """A session stopped being active on this connection (closed, deleted).

    `children`: its child sessions (the Preview, every level, parents first), which end with
    it (decision P13): stop their work too; nothing of theirs goes on the wire any more."""

    session_id: str
    children: tuple[str, ...] = ()


@frozen
class PromptReceived:
    """A prompt is waiting in the session's engine (`engine.prompts`): accept or reject it."""

    session_id: str
    request_id: int | str | None


@frozen
class CancelReceived:
    """`session/cancel` reached the session's engine: wind the turn down.

    `children`: the child sessions whose work this cancel cancelled as well (the Preview,
    decision P19: the children that are part of the cancelled foreground work), parents
    first; stop them too (`AgentEngine.cancelled_children` lists all that are still
    winding down)."""

    session_id: str
    children: tuple[str, ...] = ()


@frozen
class CloseRequested:
    """`session/close` for a session with a turn running: end the turn (it was cancelled);
    the close is answered as soon as the session is idle and the children its cancel reached
    have ended their work (`children`, decision P19: each with idle + `cancelled`). Stop its
    background work now (R76): nothing of the session or its children goes out after the
    close response (`SessionClosed`)."""

    session_id: str
    children: tuple[str, ...] = ()


@frozen
class RequestCancelled:
    """A request handed to the host no longer expects the host's answer: the peer withdrew
    it (`$/cancel_request`; it was answered already, `-32800` or, for a permission request,
    `cancelled`), or, on the client at 2026-08, the host's own `SendCancel` answered a
    pending permission request `cancelled` (C15)."""

    request_id: int | str | None


@frozen
class PermissionRequested:
    """Client side: the agent asked for permission (`session/request_permission`) and the
    request waits for the host: answer it with
    `SessionIntent(session_id, AnswerPermission(request_id, option_id))`.

    `session_id` is the top-level session whose engine holds the request (at the Preview a
    child's request is held by its top-level session; `request.session_id` names the child).
    One that arrives after a cancel and that the client answers `cancelled` itself (C15)
    fires no event; one that leaves without the host's answer fires `RequestCancelled`."""

    session_id: str
    request_id: int | str | None
    request: RequestPermissionRequest


@frozen
class PermissionAnswered:
    """Agent side: the client answered a permission request the host sent with
    `RequestPermission` (its `request_id` is the one `ConnectionStep.ids` returned).

    `decision` is what the answer means (`approved`, `outcome`, `option_id`); a late answer
    after the host withdrew the request (`CancelPermission`) fires it too (Q17)."""

    session_id: str
    request_id: int | str | None
    decision: PermissionDecision


@frozen
class ViewChanged:
    """Client side: what the client shows for a session changed (`conn.view(session_id)` is
    a new value; the event fires only when it is).

    `update`: the session update that changed it (from a `session/update`, or the tool call
    a permission request carries, T10), or None when the client's own cancel marked the
    work's tool calls cancelled (C14)."""

    session_id: str
    update: SessionUpdate | None


@frozen
class PromptEnded:
    """Client side: a prompt the host sent is over: its work ended (the idle that ends it
    arrived, `stop_reason` is that idle's, None when it reported none), or the agent
    answered the prompt with an error (`error`, the JSON-RPC error object; it had no work).

    `request_id` is the prompt's id (`ConnectionStep.ids` returned it with the
    `SendPrompt`)."""

    session_id: str
    request_id: int | str | None
    stop_reason: str | None
    error: JsonObject | None = None


@frozen
class RequestAnswered:
    """The peer answered a request this host sent through the connection."""

    request_id: int | str | None
    method: str
    result: JsonValue | Unset = UNSET
    error: JsonObject | None = None


#: One message a connection sends: a wire dict, or (an agent answering a client's batch)
#: one array of wire dicts, which is one line on the wire all the same.
Outbound = dict[str, Any] | list[dict[str, Any]]


class _ConnectionStepShape(NamedTuple):
    connection: Any
    outbound: tuple[Outbound, ...]
    events: tuple[object, ...]


class ConnectionStep(_ConnectionStepShape):
    """What a connection step returns: the new connection, what to send in order (each a wire
    dict, or the one array of replies an agent answers a client's batch with: one line, one
    frame), and what the host should know (events).

    It unpacks as `conn, outbound, events = connection_step(...)`. `ids` names the ids this
    step generated, in order: the request id the connection chose for each request it sent
    on the host's behalf (`Initialize`, `NewSession`, `SendPrompt`, `RequestPermission`, ...),
    then any id a session's engine chose (`Step.ids`: message and tool call ids); ids the
    host gave are not repeated there. Match later events by them (`RequestAnswered`,
    `SessionOpened`, `PromptEnded` carry the request id).
    """

    def __new__(
        cls,
        connection: Any,
        outbound: tuple[Outbound, ...],
        events: tuple[object, ...],
        ids: tuple[int | str | None, ...] = (),
    ) -> ConnectionStep:
        self: ConnectionStep = tuple.__new__(cls, (connection, outbound, events))
        object.__setattr__(self, "_ids", tuple(ids))  # set once; no setters
        return self

    @property
    def ids(self) -> tuple[int | str | None, ...]:
        """The ids this step generated (see the class docstring)."""
        found: tuple[int | str | None, ...] = self.__dict__.get("_ids", ())
        return found

    @property
    def data(self) -> bytes:
        """`outbound` as NDJSON bytes, ready to write."""
        return b"".join(encode_ndjson(m) for m in self.outbound)

    def __setattr__(self, name: str, value: object) -> None:
        msg = "ConnectionStep is immutable"
        raise AttributeError(msg)


@frozen
class SideInputs:
    """How one connection side handles the inputs both sides take (`connection_step` in
    `_engines/_connection.py` routes them; each side module declares its own value).

    Attributes:
        what: what its inputs are called, for the error naming one it does not take.
        build: the side's step builder, made from a connection (it has `send`, `finding`,
            `done`).
        received_value: a parsed JSON value from the framing: decode it and receive it.
        receive_message: a decoded message (or batch) received from the peer.
        session_intent: a `SessionIntent` for one session's engine.
        host_answer: the host's `AnswerRequest` / `FailRequest` for a request we received.
        own_input: the side's own inputs; returns False for an input it does not take.
    """

    what: str
    build: Callable[[Any], Any]
    received_value: Callable[[Any, object], None]
    receive_message: Callable[[Any, Any], None]
    session_intent: Callable[[Any, Any], None]
    host_answer: Callable[[Any, Any], None]
    own_input: Callable[[Any, object], bool]


# -- replies ---------------------------------------------------------------------------------


def error_reply(
    request_id: int | str | None, code: int, message: str, data: object = UNSET
) -> dict[str, Any]:
    """A JSON-RPC error response."""
    error: dict[str, Any] = {"code": code, "message": message}
    if data is not UNSET:
        error["data"] = thaw_json(data) if not isinstance(data, dict) else data  # type: ignore[arg-type]
    return {"jsonrpc": "2.0", "id": request_id, "error": error}


def result_reply(request_id: int | str | None, result: object) -> dict[str, Any]:
    """A JSON-RPC success response."""
    return {"jsonrpc": "2.0", "id": request_id, "result": result}


def unknown_session(request_id: int | str | None, session_id: str) -> dict[str, Any]:
    """`-32002` Resource not found with `SessionNotFoundErrorData`: the answer to a
    session-scoped request naming a session that does not exist or is not active."""
    return error_reply(request_id, -32002, "Session not found", {"sessionId": session_id})


def raw_request_id(value: object) -> int | str | None:
    """The id of a raw message, if it is a request id the codec takes (else None: reply
    `id: null`; an integer out of the int64 range echoed back would be a reply the connection
    itself cannot decode)."""
    if isinstance(value, dict):
        rid = value.get("id")
        if is_request_id(rid):
            return rid
    return None


def is_extension(method: str) -> bool:
    """Methods starting with `_` are extensions: handed to the host, never `-32601`'d."""
    return method.startswith("_")


def params_object(params: JsonValue | Unset) -> JsonObject | None:
    """`params` as a frozen object, or None when absent or not an object."""
    if params is UNSET or params is None or isinstance(params, (str, int, float, bool, tuple)):
        return None
    return params


def absolute(path: object) -> bool:
    """Whether a wire value is an absolute path (a string; see `is_absolute`)."""
    return isinstance(path, str) and is_absolute(path)
