"""The client side of a whole ACP connection, as a value: answers and agent messages.

Owns: `CLIENT_INPUTS` (the handlers `connection_step` in `_engines/_connection.py` routes the
client side's inputs to): the answers to our requests
(`initialize` and its `Initialized` event, `session/new`, `session/resume` and its history
window, `session/close`, `session/set_config_option`, prompts, the host's other requests),
and every agent message:
requests refused -32600 when their id is not one or is pending anywhere on the connection
(`_engines/_request_ids.py`), updates and permission requests routed to the engine of their
session, `$/cancel_request`, extension traffic handed to the host, unknown methods answered
`-32601`.
Must not know: I/O, clocks; how the engines decide (they are stepped through `step`).
Over the ~600-line guide (about 620) and one job: everything the client side receives, in the
order the checker judges a line (framing, decoding and its D1/J45, a batch's R35/R44, J37,
the exchange rules, the message's own handling). The seams already cut out are the session
records and the builder (`_connection_client_state.py`), what host intents send
(`_connection_client_sending.py`), runs of updates
(`_connection_client_updates.py`), children (`_connection_client_preview.py`), v1
(`_connection_client_v1.py`); the next is the answers to our own requests (`_answered` and
the handlers it routes to).

Theory of operation.
- Session ids come from the agent: a session exists here once `session/new` answered it, or
  from the moment we send `session/resume` for it (the replay arrives before the answer).
  Updates for an id not known yet are held while a `session/new` is in flight (Q12) and
  replayed into the session when its answer names it; otherwise they are findings.
- A resume with replay opens the history window: the session gets a fresh engine (the view
  starts empty) and updates are history until the revision's end marker (the Preview's
  `replay_complete`) or the answer. Whether the window is open is the protocol machine's
  answer (`Build.replaying`, `_connection_client_state.history_open`: the judge's window, or
  the session machine's where no judge runs); the record keeps only how it ended
  (`ClientSession.replay_end`: `complete`, or `truncated` when the resume failed first).
- An agent answering `initialize` with protocol 1 (when the host allowed it) makes this a
  v1 connection: its wire traffic goes through `_engines/_connection_client_v1.py` (the v1
  normalizer in, v1 shapes out); a version the host did not allow refuses session intents
  (E5).
- An answer whose id echoes one of our requests with its type changed (`"1"` for `1`) is
  the protocol machine's J37 (`_rules/_protocol.echoed`, asked before the exchange rules see
  it) and is then read as that request's answer, as the checker reads it.
- Nothing the agent sends ends the connection: a request gets its JSON-RPC error (`-32002`
  for a session that is not active here), anything else becomes a `Finding`.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

import attrs

from acp_core._errors import DecodeError, LocalProtocolError, ProtocolError
from acp_core._rules._check_initialize import handshake_findings, initialize_findings
from acp_core._rules._check_message import error_finding
from acp_core._rules._check_schema import d1_findings
from acp_core._rules._check_sessions import created_finding
from acp_core._rules._check_undecodable import explain_undecodable
from acp_core._rules._conversation_events import stray_answer
from acp_core._rules._protocol import echoed, line_findings
from acp_core._wire._codec import (
    decode_message_diagnosed_lazily,
    decode_update,
    encode_message,
)
from acp_core._wire._fastnew import fast_evolve
from acp_core._wire._json import UNSET, JsonValue, thaw_json
from acp_core._wire._jsonrpc import (
    Batch,
    CancelRequestNotification,
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
from acp_core._wire._updates import ConfigOptionUpdate, SessionConfigOption
from acp_core._wire._updates_preview import ReplayComplete

from ._client import machine_follows, new_client
from ._client_children import speaks_children
from ._client_resume import resume_answered
from ._connection_client_intents import NewSession, ResumeSession
from ._connection_client_preview import announced, hold, refused_announcement, route_child
from ._connection_client_sending import host_intent, session_intent
from ._connection_client_state import (
    Build,
    ClientSession,
    PendingRequest,
    permission_owner,
    permissions_held,
    step_session,
)
from ._connection_client_v1 import (
    negotiated,
    refuse_unnegotiated,
    v1_cancel_pending,
    v1_intent,
    v1_outbound,
    v1_received,
)
from ._connection_values import (
    AnswerRequest,
    ExtensionNotification,
    ExtensionRequest,
    FailRequest,
    Initialized,
    RequestAnswered,
    RequestCancelled,
    SessionClosed,
    SessionIntent,
    SessionOpened,
    SideInputs,
    error_reply,
    is_extension,
    params_object,
    raw_request_id,
    result_reply,
    unknown_session,
)
from ._intents import Received
from ._replay_gen import end_marker
from ._request_ids import (
    MAX_PEER_REQUESTS,
    REQUESTS,
    id_refusal,
    load_refusal,
    reuse_finding,
    valid_request_id,
)

__all__ = ["CLIENT_INPUTS"]


def _config(result: JsonValue) -> tuple[SessionConfigOption, ...] | None:
    obj = params_object(result)
    raw = None if obj is None else obj.get("configOptions")
    if raw is None:
        return None
    try:
        update = decode_update(
            {"sessionUpdate": "config_option_update", "configOptions": thaw_json(raw)}
        )
    except DecodeError:
        return None
    return update.config_options if type(update) is ConfigOptionUpdate else None


def _answered(b: Build, message: Response | ErrorResponse) -> None:
    pending = b.outgoing.get(message.id)
    if pending is None:
        # The agent answered nothing of ours: its fault, J1 (C25 is the client's twin).
        b.finding(*stray_answer("agent", message.id))
        return
    b.outgoing = b.outgoing.delete(message.id)
    ok = type(message) is Response
    if isinstance(message, ErrorResponse) and b.v1 is None:
        worded = error_finding(message.error)
        if worded is not None:  # the checker's J11, from its one home
            b.finding(*worded)
    result: JsonValue = message.result if isinstance(message, Response) else None
    method = pending.method
    session_id = pending.session_id
    if method in ("session/prompt", "tool_call/cancel", "terminal/cancel"):
        if session_id in b.sessions:
            step_session(b, session_id, Received(message))  # type: ignore[arg-type]
        return
    if method == "initialize":
        # The checker's J31-J33, from their one home: the handshake the host asked for.
        asked = {"protocolVersion": b.conn.protocols[0], "capabilities": b.conn.capabilities}
        for rule, why in handshake_findings(asked, message):
            b.finding(rule, why)
    if method == "initialize" and ok:
        obj = params_object(result)
        if obj is not None:
            raw_version = obj.get("protocolVersion")
            version = raw_version if type(raw_version) is int else None
            info = params_object(obj.get("info"))
            capabilities = params_object(obj.get("capabilities"))
            b.changes.update(
                protocol_version=version, agent_info=info, agent_capabilities=capabilities
            )
            negotiated(b, version, obj)
            if version == 2:
                # The checker's J5-J10, J46, J47, from their one home: what a v2 answer holds.
                for rule, why in initialize_findings(asked, obj):
                    b.finding(rule, why)
            if version is None or version in b.conn.protocols:
                # A v1 agent's info and capabilities come under their v1 names (negotiated).
                b.event(
                    Initialized(
                        version,
                        b.changes.get("agent_info", info),
                        b.changes.get("agent_capabilities", capabilities),
                        message.id,
                    )
                )
    elif method == "session/new" and ok:
        _opened(b, result, pending, message.id)
    elif method == "session/resume" and session_id is not None:
        _resumed(b, session_id, message, pending, ok=ok)
    elif method == "session/close" and session_id is not None:
        _close_answered(b, session_id, message, ok=ok)
    elif method == "session/set_config_option" and session_id in b.sessions:
        session = b.sessions[session_id]  # type: ignore[index]
        # The session's machine judges the answer (R41), as the checker does.
        session = fast_evolve(session, engine=machine_follows(session.engine, "agent", message))
        config = _config(result) if ok else None
        if config is not None:
            session = attrs.evolve(session, config_options=config)
        b.sessions = b.sessions.set(session_id, session)  # type: ignore[arg-type]
    error = None
    if isinstance(message, ErrorResponse):
        error = params_object(_error_json(message))
    b.event(RequestAnswered(message.id, method, result if ok else UNSET, error))


def _close_answered(
    b: Build, session_id: str, message: Response | ErrorResponse, *, ok: bool
) -> None:
    # The session's machine judges the answer (R24: the cancelled work must have ended, the
    # result is empty) before the session goes; it stays among the last closed, so an update
    # that still names it is judged too (`_update`).
    session = b.sessions.get(session_id)
    if session is None:
        return
    engine = machine_follows(session.engine, "agent", message)
    gone = ok or (isinstance(message, ErrorResponse) and message.error.code == -32002)
    if not gone:
        b.sessions = b.sessions.set(session_id, fast_evolve(session, engine=engine))
        return
    b.machine_findings(session.engine, engine)  # its engine leaves with the session
    b.sessions = b.sessions.delete(session_id)
    b.closed_session(session_id, engine)
    b.event(SessionClosed(session_id))


def _error_json(message: ErrorResponse) -> JsonValue:
    from acp_core._wire._json import freeze_json

    raw: dict[str, Any] = {"code": message.error.code, "message": message.error.message}
    if message.error.data is not UNSET:
        raw["data"] = thaw_json(message.error.data)
    return freeze_json(raw)


def _opened(
    b: Build, result: JsonValue, pending: PendingRequest, request_id: int | str | None
) -> None:
    obj = params_object(result)
    session_id = None if obj is None else obj.get("sessionId")
    # The checker's J30 (a session needs an id to be named by) and J4 (not the id of a
    # session this connection already has), from their one home; the session is not opened.
    found = created_finding(session_id, b.sessions.__contains__)
    if found is not None:
        b.finding(*found)
        return
    if not isinstance(session_id, str):  # (J30 above: for the type checker)
        return
    engine = new_client(session_id, revision=b.conn.revision)
    config = _config(result) or ()
    b.sessions = b.sessions.set(session_id, ClientSession(engine, pending.cwd or "/", config))
    b.event(SessionOpened(session_id, request_id=request_id))
    held = b.orphans.get(session_id, ())
    if session_id in b.orphans:
        b.orphans = b.orphans.delete(session_id)
    for message in held:  # judged as they arrived (`hold`): handled now, in arrival order
        _handled(b, message)
    if not any(p.method == "session/new" for p in b.outgoing.values()):
        if speaks_children(b.conn.revision):
            return  # held for children announced later (P3; the judge says R47 then)
        for orphan_id, items in b.orphans.items():
            b.finding("E3", f"{len(items)} update(s) for unknown session {orphan_id!r} dropped")
        b.orphans = type(b.orphans)()


def _resumed(
    b: Build,
    session_id: str,
    message: Response | ErrorResponse,
    pending: PendingRequest,
    *,
    ok: bool,
) -> None:
    session = b.sessions.get(session_id)
    if session is None:
        return
    result: JsonValue = message.result if isinstance(message, Response) else None
    raw_id = message.id
    # Asked before the session's machine follows the answer (which closes its window).
    replaying = b.answer_ends_history(session_id, raw_id)
    session = attrs.evolve(session, engine=machine_follows(session.engine, "agent", message))
    b.sessions = b.sessions.set(session_id, session)
    if speaks_children(b.conn.revision):
        # An answer before `replay_complete` is R57: the judge's (`ClientConnection.rules.
        # judge`, the checker's one home for it), which runs wherever children exist on a v2 wire;
        # a v1 `session/load` closes its window before its answer is read (`_history_ended`).
        engine = resume_answered(session.engine, raw_id, ok=ok)
        session = attrs.evolve(session, engine=engine)
        b.sessions = b.sessions.set(session_id, session)
    if replaying:
        b.end_history(session_id)
    if ok:
        config = _config(result)
        session = attrs.evolve(
            session,
            replay_end="complete" if replaying else session.replay_end,
            config_options=session.config_options if config is None else config,
        )
        b.sessions = b.sessions.set(session_id, session)
        b.event(SessionOpened(session_id, resumed=True, request_id=raw_id))
    elif replaying:
        b.sessions = b.sessions.set(session_id, attrs.evolve(session, replay_end="truncated"))
    elif pending.created:
        b.sessions = b.sessions.delete(session_id)


def _update(b: Build, message: UpdateSessionNotification) -> None:
    session = b.sessions.get(message.session_id)
    if session is None:
        closed = next((e for sid, e in b.closed if sid == message.session_id), None)
        if closed is not None:
            # A session closed here: its machine judges the update (R24), nothing shows it.
            engine = machine_follows(closed, "agent", message)
            b.machine_findings(closed, engine)
            b.closed_session(message.session_id, engine)
            return
        if route_child(b, message):
            return
        if any(p.method == "session/new" for p in b.outgoing.values()) and hold(b, message):
            return
        b.finding("E3", f"update for unknown session {message.session_id!r}")
        return
    marker = end_marker(b.conn.revision)
    update = message.update
    # The Preview's marker by its type (a `replay_complete` may carry `_meta`).
    kind = type(update)
    is_marker = kind is ReplayComplete or (kind is type(marker) and update == marker)
    if is_marker and b.replaying(message.session_id):
        b.end_history(message.session_id)
        session = attrs.evolve(session, replay_end="complete")
        b.sessions = b.sessions.set(message.session_id, session)
        if speaks_children(b.conn.revision):
            # the engine's tree keeps a replay window for its own session too: the marker
            # closes it (else the resume answer would close it as "answered before the marker")
            step_session(b, message.session_id, Received(message))
        return
    if speaks_children(b.conn.revision) and refused_announcement(b, message.session_id, message):
        return
    step_session(b, message.session_id, Received(message))
    announced(b, message.session_id, message)


def _agent_cancels(b: Build, message: CancelRequestNotification) -> None:
    request_id = message.request_id
    owner = permission_owner(b, request_id)
    if owner is not None:
        step_session(b, owner, Received(message))
        return
    if request_id in b.incoming:
        b.incoming = b.incoming.delete(request_id)
        b.send(error_reply(request_id, -32800, "Request cancelled"))
        b.event(RequestCancelled(request_id))


def _pending(b: Build, request_id: int | str) -> bool:
    # Ids are unique per connection: an id pending in any session, or with the host, is taken.
    return request_id in b.incoming or permission_owner(b, request_id) is not None


def _waiting(b: Build) -> int:
    # The agent's requests this client holds unanswered: with the host, and in every session.
    return len(b.incoming) + permissions_held(b, MAX_PEER_REQUESTS - len(b.incoming))


def _receive(b: Build, message: Message) -> None:
    kind = type(message)
    if kind in REQUESTS:
        request_id = getattr(message, "id", None)
        error = id_refusal(request_id, lambda rid: _pending(b, rid))
        if error is not None:  # never served, nor answered under the id of another request
            b.send(error_reply(None, error.code, error.message))
            if valid_request_id(request_id):  # the checker's rule for the same request
                b.finding(*reuse_finding("agent", request_id))
            return
        error = load_refusal(_waiting(b))
        if error is not None:  # E6: never held
            b.send(error_reply(request_id, error.code, error.message))
            b.finding("E6", error.message)
            return
    if kind is UpdateSessionNotification:
        _update(b, message)  # type: ignore[arg-type]
    elif kind is Response or kind is ErrorResponse:
        _answered(b, message)  # type: ignore[arg-type]
    elif kind is RequestPermissionRequest:
        assert isinstance(message, RequestPermissionRequest)
        if message.session_id not in b.sessions:
            if not route_child(b, message):
                b.send(unknown_session(message.id, message.session_id))
            return
        step_session(b, message.session_id, Received(message))
    elif kind is CancelRequestNotification:
        _agent_cancels(b, message)  # type: ignore[arg-type]
    elif kind is Request or kind is PromptRequest:
        request: Any = message
        method = request.method if kind is Request else "session/prompt"
        if kind is Request and is_extension(method):
            b.incoming = b.incoming.set(request.id, method)
            b.event(ExtensionRequest(request.id, method, request.params))
        elif (session_id := _session_of(request)) is not None and session_id in b.sessions:
            # The session's engine answers it (-32601) and its machine judges it: a client's
            # request sent by the agent (`session/prompt`, `session/close`) is the checker's J2.
            step_session(b, session_id, Received(message))
        else:
            b.send(error_reply(request.id, -32601, "Method not found"))
    elif kind is Notification:
        assert isinstance(message, Notification)
        if is_extension(message.method):
            b.event(ExtensionNotification(message.method, message.params))
        elif not b.judges_exchange:  # else the checker's J80 named it (`Build.exchanged`)
            b.finding("X0", f"unknown notification {message.method!r} ignored")
    else:
        b.finding("E3", f"a client does not receive {kind.__name__}")


def _receive_one(b: Build, item: Message | InvalidEntry) -> None:
    if type(item) is InvalidEntry:
        if b.v1 is None:  # the checker's D1 for the entry, where it reads it (in turn)
            for rule, why in d1_findings(invalid=item):
                b.finding(rule, why)
        b.send(
            error_reply(None, item.code, f"Invalid Request: expected {item.expected} @ {item.path}")
        )
        return
    b.received(item)  # type: ignore[arg-type]
    _handled(b, item)  # type: ignore[arg-type]


def _handled(b: Build, item: Message) -> None:
    # What `item` does to the connection, once the machine's parts were shown it (on arrival:
    # a held update handed over later is not shown again).
    try:
        _receive(b, item)
    except ProtocolError as e:
        if type(item) is RequestPermissionRequest:
            b.send(error_reply(item.id, e.code, str(e)))
        else:
            b.finding(e.rule, str(e))


def _receive_message(b: Build, decoded: Message | Batch) -> None:
    for item in decoded.items if type(decoded) is Batch else (decoded,):
        _receive_one(b, item)  # type: ignore[arg-type]


def _received_value(b: Build, value: object) -> None:
    if b.v1 is not None:  # the agent speaks v1 (`_engines/_connection_client_v1.py`)
        v1_received(b, value, _receive_one, _decoded_value)
        return
    _decoded_value(b, value)


def _decoded_value(b: Build, value: object) -> None:
    if b.exchanged_raw("agent", value):
        return  # a reply to what asked for none, or no response's shape: named, no more
    try:
        # Its update kinds and fields, and what lenient decoding tolerated (none, mostly).
        decoded, tolerated = decode_message_diagnosed_lazily(value, revision=b.conn.revision)
    except DecodeError as e:
        # The checker's one home for which rule an undecodable message breaks (R4, R29,
        # R26, R80 or D1): the host hears the same rule id `check` would report.
        rule, why = explain_undecodable(value, b.conn.revision)
        if isinstance(value, dict) and "method" in value and "id" in value:
            b.send(error_reply(raw_request_id(value), e.code, str(e)))
            # A policy, not a judgement (the rule is `explain_undecodable`'s): the error
            # answer already says a plain decode failure (D1); a specific rule is told too.
            if rule != "D1":
                b.finding(rule, f"undecodable request{why}: {e}")
        elif isinstance(value, dict) and (
            "method" in value or "result" in value or "error" in value
        ):
            b.finding(rule, f"undecodable message{why}: {e}")
        else:
            b.send(error_reply(None, -32600, f"Invalid Request: {e}"))
        return
    if b.v1 is None:  # (a v1 agent's lines are the v1 normalizer's to judge)
        # What the line breaks as a line (J45, D1, a batch's R35/R44), where and as the
        # checker finds it: right after the framing, before any one message's rules.
        for rule, why in line_findings("agent", value, decoded, tolerated, b.conn.revision):
            b.finding(rule, why)
        if type(decoded) in _ECHOING:
            decoded = _echoed(b, decoded)
    _exchanged(b, decoded)
    _receive_message(b, decoded)


#: What may carry an answer whose id the agent mangled (J37).
_ECHOING: Final = frozenset({Response, ErrorResponse, Batch})


def _echoed(b: Build, decoded: Message | Batch) -> Message | Batch:
    """`decoded` with each answer of the agent bearing the id of the request of ours it
    answers: an id echoed with its type changed (`"1"` for `1`) is a J37 finding, decided
    where the checker decides it (`echoed`), and the answer is then read as that request's,
    by the exchange rules and the sessions alike (one finding per fault, not J1 too)."""
    if type(decoded) is not Batch:
        return _echoed_one(b, decoded, ())  # type: ignore[arg-type]
    # One item at a time, as the machine reads a batch: a request an earlier item of the
    # batch answered is no longer pending for a later one (`[7, "7"]` to our 7 is J1 for the
    # second, as `check_trace` finds it, not J37 then J1).
    answered: list[int | str | None] = []
    items: list[Any] = []
    for item in decoded.items:
        read = item
        if type(item) is not InvalidEntry:
            read = _echoed_one(b, item, answered)  # type: ignore[arg-type]
            if type(read) is Response or type(read) is ErrorResponse:
                answered.append(read.id)
        items.append(read)
    if all(a is c for a, c in zip(items, decoded.items, strict=True)):
        return decoded
    return attrs.evolve(decoded, items=tuple(items))


def _echoed_one(b: Build, message: Message, answered: Sequence[int | str | None]) -> Message:
    if type(message) is not Response and type(message) is not ErrorResponse:
        return message
    outgoing = b.outgoing
    fixed, found = echoed("agent", message, lambda rid: rid in outgoing and rid not in answered)
    if found is not None:
        b.finding(*found)
    return fixed


def _exchanged(b: Build, decoded: Message | Batch) -> None:
    if b.judges_exchange:
        for item in decoded.items if type(decoded) is Batch else (decoded,):
            if type(item) is not InvalidEntry:
                b.exchanged("agent", item)


def _received_decoded(b: Build, decoded: Message | Batch) -> None:
    # A message the host decoded itself (`Received`): the rules that read a line's JSON read
    # its encoding (what the host's decoding tolerated is gone: no D1 for it).
    raw = encode_message(decoded, revision=b.conn.revision) if b.v1 is None else None
    if b.judges_exchange and b.exchanged_raw("agent", raw):
        return
    if b.v1 is None:
        for rule, why in line_findings("agent", raw, decoded, (), b.conn.revision):
            b.finding(rule, why)
    if b.v1 is None and type(decoded) in _ECHOING:
        decoded = _echoed(b, decoded)
    _exchanged(b, decoded)
    _receive_message(b, decoded)


def _host_answer(b: Build, intent: AnswerRequest | FailRequest) -> None:
    start = len(b.wire)
    _host_answer_v2(b, intent)
    if b.v1 is not None:  # the answer to a v1 `fs/*` / `terminal/*` request: normalized
        v1_outbound(b, start, _receive_one)


def _host_answer_v2(b: Build, intent: AnswerRequest | FailRequest) -> None:
    if intent.request_id not in b.incoming:  # on the wire, an answer nothing asked for: C25
        raise LocalProtocolError(*stray_answer("client", intent.request_id))
    b.incoming = b.incoming.delete(intent.request_id)
    if isinstance(intent, AnswerRequest):
        b.send(result_reply(intent.request_id, thaw_json(intent.result)))
    else:
        b.send(error_reply(intent.request_id, intent.code, intent.message, intent.data))


def _session_intent(b: Build, intent: SessionIntent) -> None:
    refuse_unnegotiated(b, "a session intent")
    if b.v1 is None:
        session_intent(b, intent)
        return
    start = len(b.wire)
    session_intent(b, intent)
    v1_cancel_pending(b, intent)
    v1_outbound(b, start, _receive_one)


def _host_intent(b: Build, intent: object) -> bool:
    kind = type(intent)
    if kind is NewSession or kind is ResumeSession:
        refuse_unnegotiated(b, f"{kind.__name__}")
    if b.v1 is None:
        return host_intent(b, intent)
    v1_intent(b, intent)
    start = len(b.wire)
    taken = host_intent(b, intent)
    v1_outbound(b, start, _receive_one)
    return taken


#: The client side's inputs, routed by `connection_step` (`_engines/_connection.py`): `Parsed` /
#: `FramingError` (from the framing), `Received(message)`, a `SessionIntent`, `AnswerRequest` /
#: `FailRequest`, and its own connection intents (`Initialize`, `NewSession`, `ResumeSession`,
#: `CloseSession`, `SetConfigOption`, `SendRequest`, `SendNotification`, `CancelRequest`).
CLIENT_INPUTS: Final = SideInputs(
    "a client connection input",
    Build,
    _received_value,
    _received_decoded,
    _session_intent,
    _host_answer,
    _host_intent,
)


def _session_of(request: Any) -> str | None:
    """The session a request of the agent names (its `sessionId` parameter), if any."""
    if isinstance(request, PromptRequest):
        return request.session_id
    params = params_object(request.params)
    sid = None if params is None else params.get("sessionId")
    return sid if isinstance(sid, str) else None
