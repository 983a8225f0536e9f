"""The agent side of a whole ACP connection, as a value: every session, set-up included.

Owns: `AGENT_INPUTS`, the handlers `connection_step` (`_engines/_connection.py`) routes the
agent side's inputs to (the values live in `_engines/_connection_agent_state.py`, the requests
the connection answers itself in `_engines/_connection_agent_setup.py`): decoding what was
received, answering what cannot be decoded, refusing a request whose id is not one or is
already pending (`_engines/_request_ids.py`), the prompt gate (unknown session, content the
agent did not advertise), `$/cancel_request` from the client, `_` extensions handed to the
host, routing of every other message to the engine of its session, the gate after a refused
`initialize` (nothing else served), and running each input's outbound through the v1
projection on a v1 connection (`_engines/_connection_agent_v1.py`).
Must not know: I/O, clocks; how an engine decides (it only steps engines through `step`); how
the replay is built (`_engines/_replay_gen.py`).

Theory of operation.
- One engine per session, as the engines are; the connection owns what lies between them:
  the `initialize` handshake, session set-up, the map from an outgoing request id to the
  session that sent it, and the requests received that still owe an answer.
- Ids: an intent that sends a request without naming an id gets the connection's next id,
  so two sessions never share one (an engine's own counter starts at 0 for every session).
- A session is *attached* while it is active on this connection (after `session/new` or
  `session/resume`). A detached session (restored from storage, or closed) still folds what
  its engine reports, so a later replay carries it, but nothing of it goes on the wire.
- `session/resume` is served in one step: the replay (when `replayFrom` asks for it), the
  revision's end marker if it has one, the state snapshot, then the response. Live updates of
  the session are produced by later steps, so they always follow the replay (R59).
- Nothing received ends the connection: a request gets its JSON-RPC error, anything else that
  cannot be processed becomes a `Finding` event.

The Preview: a child session lives in the engine of its top-level session
(`AgentEngine.children`); `owner_of` finds that session, so a child's `session/cancel` and the
item cancels naming a child reach the right engine, and restricted requests naming a child
(`session/prompt`, `session/resume`, `session/close`) are answered -32602 (P14, C34). A resume
sends what `_engines/_replay_tree.resume_updates` lists (children re-announced and replayed
under their parent, each with its `replay_complete`). Keyed prompts pass the prompt gate like
any prompt; the engine answers retries from its key ledger, and only a held prompt is reported
as `PromptReceived`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from acp_core._errors import DecodeError, ProtocolError
from acp_core._rules._check_schema import d1_findings
from acp_core._rules._check_undecodable import explain_undecodable
from acp_core._rules._conversation_events import stray_answer
from acp_core._rules._protocol import echoed, line_findings
from acp_core._wire._codec import decode_message_diagnosed_lazily
from acp_core._wire._content import (
    AudioContent,
    ContentBlock,
    EmbeddedResource,
    ImageContent,
    ResourceLink,
)
from acp_core._wire._content import TextContent as _Text
from acp_core._wire._json import EMPTY_OBJECT, JsonObject
from acp_core._wire._jsonrpc import (
    Batch,
    CancelRequestNotification,
    CancelSessionNotification,
    CancelTerminalRequest,
    CancelToolCallRequest,
    ErrorResponse,
    InvalidEntry,
    Message,
    Notification,
    PromptRequest,
    Request,
    RequestPermissionRequest,
    Response,
    UpdateSessionNotification,
)

from ._connection_agent_setup import SELF_ANSWERED
from ._connection_agent_state import (
    AgentConnection,
    AgentSession,
    Build,
    OpenSession,
    child_refused,
    host_answer,
    new_agent_connection,
    open_session,
    owner_of,
    session_intent,
    step_session,
)
from ._connection_agent_v1 import v1_project
from ._connection_values import (
    UNSUPPORTED_VERSION,
    CancelReceived,
    ExtensionNotification,
    ExtensionRequest,
    PermissionAnswered,
    PromptReceived,
    RequestCancelled,
    SideInputs,
    error_reply,
    is_extension,
    params_object,
    raw_request_id,
    unknown_session,
)
from ._intents import Received, RejectPrompt
from ._request_ids import REQUESTS, id_refusal, load_refusal, reuse_finding, valid_request_id

__all__ = [
    "AGENT_INPUTS",
    "AgentConnection",
    "AgentSession",
    "OpenSession",
    "new_agent_connection",
]


# -- received messages -------------------------------------------------------------------------


def _supported(block: ContentBlock, prompt_caps: JsonObject | None) -> bool:
    kind = type(block)
    if kind is _Text or kind is ResourceLink:
        return True  # the baseline every agent takes
    caps = EMPTY_OBJECT if prompt_caps is None else prompt_caps
    if kind is ImageContent:
        return params_object(caps.get("image")) is not None
    if kind is AudioContent:
        return params_object(caps.get("audio")) is not None
    if kind is EmbeddedResource:
        return params_object(caps.get("embeddedContext")) is not None
    return False  # a block type this agent cannot read (`video`, an unknown extension)


def _prompt_gate(b: Build, message: PromptRequest) -> bool:
    """Whether a prompt may reach its engine; if not, it has been answered. A keyed retry
    passes like any prompt: its engine answers it from the key ledger (R67, R68)."""
    if child_refused(b, message.id, message.session_id, "session/prompt"):  # P14, C34
        return False
    session = b.sessions.get(message.session_id)
    if session is None or not session.attached or session.closing_pending:
        b.answer(message.id, unknown_session(message.id, message.session_id))
        return False
    session_caps = params_object(b.conn.capabilities.get("session"))
    prompt_caps = None if session_caps is None else params_object(session_caps.get("prompt"))
    for i, block in enumerate(message.prompt):
        if not _supported(block, prompt_caps):
            kind = getattr(block, "type", type(block).__name__)
            detail = f"Invalid params: content block type {kind!r} is not supported (prompt[{i}])"
            b.answer(message.id, error_reply(message.id, -32602, detail))
            return False
    return True


def _withdrawn(b: Build, request_id: int | str | None) -> None:
    method = b.incoming.get(request_id)
    if method is None:
        return  # answered already, or never ours: nothing to withdraw
    for session_id, session in b.sessions.items():
        engine = session.engine
        # A keyed retry waiting for its original withdraws the original with it (R68).
        original = engine.keys.original_of(request_id)
        held = request_id if original is None else original
        if any(p.id == held for p in engine.prompts):
            step_session(b, session_id, RejectPrompt(held, "Request cancelled", -32800))
            return
    if method != "session/prompt":
        b.answer(request_id, error_reply(request_id, -32800, "Request cancelled"))
        b.event(RequestCancelled(request_id))


def _receive(b: Build, message: Message) -> None:
    kind = type(message)
    if kind in REQUESTS:
        request_id = getattr(message, "id", None)
        error = id_refusal(request_id, b.incoming.__contains__)
        if error is not None:  # never served, nor answered under the id of another request
            b.send(error_reply(None, error.code, error.message))
            if valid_request_id(request_id):  # the checker's rule for the same request
                b.finding(*reuse_finding("client", request_id))
            return
        error = load_refusal(len(b.incoming))
        if error is not None:  # E6: never held
            b.send(error_reply(request_id, error.code, error.message))
            b.finding("E6", error.message)
            return
    if kind is PromptRequest:
        assert isinstance(message, PromptRequest)
        b.incoming = b.incoming.set(message.id, "session/prompt")
        if _prompt_gate(b, message):
            step_session(b, message.session_id, Received(message))
            if any(p.id == message.id for p in b.sessions[message.session_id].engine.prompts):
                b.event(PromptReceived(message.session_id, message.id))  # held, not a retry
    elif kind is CancelSessionNotification:
        assert isinstance(message, CancelSessionNotification)
        target = owner_of(b, message.session_id) or message.session_id  # a child's cancel
        session = b.sessions.get(target)
        if session is None or not session.attached:
            b.finding("E3", f"session/cancel for unknown session {message.session_id!r}")
            return
        before = session.engine.cancelled_children
        step_session(b, target, Received(message))
        after = b.sessions[target].engine.cancelled_children
        reached = tuple(c for c in after if c not in before and c != message.session_id)
        b.event(CancelReceived(message.session_id, reached))
    elif kind is CancelToolCallRequest or kind is CancelTerminalRequest:
        item: Any = message  # tool_call/cancel, terminal/cancel (2026-11 on): its engine answers
        method = "tool_call/cancel" if kind is CancelToolCallRequest else "terminal/cancel"
        b.incoming = b.incoming.set(item.id, method)
        target = owner_of(b, item.session_id) or item.session_id
        session = b.sessions.get(target)
        if session is None or not session.attached:
            b.answer(item.id, unknown_session(item.id, item.session_id))
            return
        step_session(b, target, Received(item))
    elif kind is Response or kind is ErrorResponse:
        assert isinstance(message, (Response, ErrorResponse))
        session_id = b.outgoing.get(message.id)
        if session_id is None:
            # The client answered nothing of ours: its fault, C25 (J1 is the agent's twin).
            b.finding(*stray_answer("client", message.id))
            return
        b.outgoing = b.outgoing.delete(message.id)
        if session_id in b.sessions:
            step_session(b, session_id, Received(message))
            decision = b.sessions[session_id].engine.decisions.get(message.id)
            if decision is not None:
                b.event(PermissionAnswered(session_id, message.id, decision))
    elif kind is CancelRequestNotification:
        assert isinstance(message, CancelRequestNotification)
        _withdrawn(b, message.request_id)
    elif kind is Request or kind is RequestPermissionRequest:
        request: Any = message
        handler = SELF_ANSWERED.get(request.method) if kind is Request else None
        if handler is not None:
            b.incoming = b.incoming.set(request.id, request.method)
            handler(b, request)
        elif kind is Request and is_extension(request.method):
            b.incoming = b.incoming.set(request.id, request.method)
            b.event(ExtensionRequest(request.id, request.method, request.params))
        else:
            b.send(error_reply(request.id, -32601, "Method not found"))
    elif kind is Notification:
        assert isinstance(message, Notification)
        if is_extension(message.method):
            b.event(ExtensionNotification(message.method, message.params))
        else:
            b.finding("X0", f"unknown notification {message.method!r} ignored")
    elif kind is UpdateSessionNotification:
        b.finding("E3", "an agent does not receive session/update")


def _receive_one(b: Build, item: Message | InvalidEntry) -> None:
    if type(item) is InvalidEntry:
        if b.judges_schema():  # the checker's D1 for the entry, where it reads it (in turn)
            for rule, why in d1_findings(invalid=item):
                b.finding(rule, why)
        detail = f"Invalid Request: expected {item.expected} @ {item.path}"
        b.send(error_reply(None, item.code, detail))
        return
    kind = type(item)
    if (kind is Response or kind is ErrorResponse) and b.judges_schema():
        item = _echoed(b, item)  # type: ignore[arg-type]
    b.received(item)  # type: ignore[arg-type]
    try:
        _receive(b, item)  # type: ignore[arg-type]
    except ProtocolError as e:
        # An engine refused the message: a request gets the error, anything else is noted.
        rid = getattr(item, "id", None)
        if type(item) in REQUESTS and rid in b.incoming:
            b.answer(rid, error_reply(rid, e.code, str(e)))
        else:
            b.finding(e.rule, str(e))


def _echoed(b: Build, answer: Response | ErrorResponse) -> Response | ErrorResponse:
    """`answer` with the id of the request of ours it answers: an id echoed with its type
    changed (`"1"` for `1`) is a J37 finding, decided where and as the checker decides it
    (`echoed`: first thing for each message, a batch's items one by one, each seeing what
    the items before it answered), and the answer is then read as that request's, by the
    rules and the session alike (one finding per fault, not C25 too). v2 only: a v1
    client's lines are v1's."""
    fixed, found = echoed("client", answer, b.outgoing.__contains__)
    if found is not None:
        b.finding(*found)
    return fixed  # type: ignore[return-value]


def _receive_message(b: Build, decoded: Message | Batch) -> None:
    if type(decoded) is not Batch:
        _receive_one(b, decoded)  # type: ignore[arg-type]
        return
    start, pending = len(b.wire), b.incoming
    for item in decoded.items:
        _receive_one(b, item)
    if b.judges_schema():  # (a v1 client's batch is answered as v1 answers it)
        # Its answers go out as one array, once every request in it is answered (J42). A
        # request whose id was already pending is answered `id: null` (its id names another).
        requests = [
            rid
            for item in decoded.items
            if type(item) in REQUESTS
            and isinstance(rid := getattr(item, "id", None), (int, str))
            and rid not in pending
        ]
        b.took_batch(start, requests)


def _received_value(b: Build, value: object, *, framed: bool = False) -> None:
    try:
        # Its update kinds and fields, and what lenient decoding tolerated (none, mostly).
        decoded, tolerated = decode_message_diagnosed_lazily(value, revision=b.conn.revision)
    except DecodeError as e:
        # The checker's one home for which rule an undecodable message breaks (D1 unless
        # one field explains it): the host hears the rule id `check` would report.
        rule, why = explain_undecodable(value, b.conn.revision)
        if isinstance(value, dict) and "method" in value and "id" in value:
            rid = raw_request_id(value)
            # Never answer a pending request by mistake: a clashing id gets `id: null`.
            b.send(error_reply(None if rid in b.incoming else rid, e.code, str(e)))
        elif isinstance(value, dict) and "method" in value:
            b.finding(rule, f"undecodable notification{why}: {e}")
        elif isinstance(value, dict) and ("result" in value or "error" in value):
            b.finding(rule, f"undecodable response{why}: {e}")
        else:
            b.send(error_reply(None, -32600, f"Invalid Request: {e}"))
        return
    if not framed and b.judges_schema():
        # What the client's line breaks as a line (D1 for what lenient decoding tolerated,
        # a batch's R44/R35), where and as the checker finds it: right after the framing
        # (which judged no further a line it named), before any one message's rules.
        for rule, why in line_findings("client", value, decoded, tolerated, b.conn.revision):
            b.finding(rule, why)
    _receive_message(b, decoded)


def _own_input(b: Build, input: object) -> bool:
    if type(input) is OpenSession:
        open_session(b, input)
        return True
    return False


def _refused(b: Build, value: object) -> bool:
    """After a refused `initialize`, nothing but another `initialize` is served (no
    half-open connection): a request gets the refusal again, anything else a finding."""
    if b.conn.refused is None or b.conn.protocol_version is not None:
        return False
    if value == []:
        return False  # the empty batch: J39's -32600 (`_received_value`), as at any time
    method = value.get("method") if isinstance(value, dict) else None
    if method == "initialize":
        return False
    _refused_line_findings(b, value)
    # Each request, alone or in a batch, gets the refusal (a request never waits unanswered).
    items = value if type(value) is list else (value,)
    detail = f"Unsupported protocol version: initialize was refused ({b.conn.refused})"
    ignored = False
    for item in items:
        if isinstance(item, dict) and item.get("method") is not None and "id" in item:
            rid = raw_request_id(item)
            b.send(error_reply(None if rid in b.incoming else rid, UNSUPPORTED_VERSION, detail))
        else:
            ignored = True
    if ignored:
        b.finding("E5", f"ignored: initialize was refused (protocol {b.conn.refused})")
    return True


def _refused_line_findings(b: Build, value: object) -> None:
    """What the schema says of a line served no more (after a refused `initialize`): the
    checker reads every line whatever the handshake did, so its D1 (what lenient decoding
    tolerated, or what does not decode at all) is named here too; the line is not served."""
    if not b.judges_schema():
        return
    try:
        _, tolerated = decode_message_diagnosed_lazily(value, revision=b.conn.revision)
    except DecodeError as e:
        rule, why = explain_undecodable(value, b.conn.revision)
        b.finding(rule, f"client message does not decode ({e}){why}")  # the checker's words
        return
    for rule, why in d1_findings(side="client", diagnostics=tolerated):
        b.finding(rule, why)


def _projected(handler: Callable[[Build, Any], Any]) -> Callable[[Build, Any], Any]:
    """`handler`, with what it sends projected to v1 when the connection speaks v1."""

    def run(b: Build, input: Any) -> Any:
        start = len(b.wire)
        result = handler(b, input)
        if b.conn.v1 is not None:
            v1_project(b, start)
        return result

    return run


def _received_gated(b: Build, value: object) -> None:
    # The checker's framing rules read every line's JSON; a line they judged (a reply to
    # what asked for none) is judged no further there: no D1 for it either.
    framed = b.exchanged_raw("client", value)
    if not _refused(b, value):
        _received_value(b, value, framed=framed)


def _received_decoded(b: Build, decoded: Message | Batch) -> None:
    b.heard_decoded(decoded)
    if b.judges_schema():  # (what the host's decoding tolerated is gone: no D1 for it)
        for rule, why in line_findings("client", None, decoded, (), b.conn.revision):
            b.finding(rule, why)
    _receive_message(b, decoded)


#: The agent side's inputs, routed by `connection_step` (`_engines/_connection.py`): `Parsed` /
#: `FramingError` (from the framing), `Received(message)` (decoded), a `SessionIntent`,
#: `AnswerRequest` / `FailRequest`, and its own `OpenSession`. On a v1 connection what each
#: sends is projected to v1 (`_engines/_connection_agent_v1.py`).
AGENT_INPUTS: Final = SideInputs(
    "an agent connection input",
    Build,
    _projected(_received_gated),
    _projected(_received_decoded),
    _projected(session_intent),
    _projected(host_answer),
    _projected(_own_input),
)
