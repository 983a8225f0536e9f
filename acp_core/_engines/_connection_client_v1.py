"""The client connection over a v1 agent: v1 on the wire, the same v2 session view to the host.

Owns: the negotiation of the client side at `initialize` (`negotiated`: which generation the
agent's answer leaves the connection speaking, and the `E5` refusal when the host does not
allow it), and everything a v1 connection does differently from a v2 one: its inbound (each
message read by the v1 normalizer, `_v1/`, whose v2 updates and permission requests go to the
sessions' engines as if a v2 agent had sent them; the prompt's v1 result ends the turn), its
outbound (what the engines send, rewritten to the v1 shape and shown to the normalizer, so
the turn starts in the view when the prompt is sent) and the host intents v1 has no form for.
Must not know: how v1 traffic becomes v2 (`_v1/_normalize.py`), how an engine folds
(`_engines/_client.py`), what v2 answers do (`_engines/_connection_client.py`), I/O.

Theory of operation.
- The engines stay v2 engines: the view, the prompt records and permission bookkeeping are
  theirs. The normalizer turns a v1 prompt into `user_message` + `running` at send time and
  its `{stopReason}` result into `idle` + stop reason; the engine then gets the result as a
  v2 prompt receipt (`{}`), so its record reads accepted and the turn ended.
- A v1 permission request reaches the engine as the normalizer's v2 request; the host
  answers it with `AnswerPermission` as on v2, and the answer (the same shape in v1) is
  shown to the normalizer, which reports `running` again.
- The agent's `fs/*` and `terminal/*` requests reach the host as `ExtensionRequest`s (v2 has
  no such methods; the host answers them with `AnswerRequest` / `FailRequest`, in v1 shape),
  and the host's answers are shown to the normalizer (the terminals in the view).
- v1 has no child sessions: an update for an unknown session is an `E3` finding, dropped; a
  turn's update while no prompt of its session is open is a `v1.update-after-turn` finding.
- A `ResumeSession` goes out as v1 `session/load` (with `replay`; the agent advertised
  `loadSession`) or v1 `session/resume` (without; `sessionCapabilities.resume`), else E5.
  The connection keeps it a v2 resume otherwise: a fresh engine for a replay, the load's
  history folded through the normalizer, the answer a v2 resume's (`SessionOpened`
  resumed). v1 has no end-of-history marker: the load's answer is it (`_history_ended`).
- Responses other than the prompt's, other agent requests and anything unreadable take the
  v2 path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import attrs

from acp_core._errors import LocalProtocolError
from acp_core._state._pcoll import in_order
from acp_core._v1._normalize import normalize_v1_step
from acp_core._v1._v1_check import v1_violations
from acp_core._v1._v1_state import new_v1_state
from acp_core._wire._codec_values import is_request_id
from acp_core._wire._json import UNSET, JsonObject, JsonValue, freeze_json
from acp_core._wire._jsonrpc import (
    Message,
    RequestPermissionRequest,
    Response,
    UpdateSessionNotification,
)
from acp_core._wire._updates import UserMessage
from acp_core._wire._updates_preview import ReplayComplete

from ._client_children import speaks_children
from ._connection_client_intents import CloseSession, ResumeSession, SetConfigOption
from ._connection_client_state import Build, PendingRequest
from ._connection_values import ExtensionRequest, RequestCancelled, SessionIntent, params_object
from ._intents import SendCancel

__all__ = [
    "V1_CLIENT_METHODS",
    "V1_REFUSED",
    "negotiated",
    "refuse_unnegotiated",
    "v1_cancel_pending",
    "v1_intent",
    "v1_outbound",
    "v1_received",
]

#: Host intents with no v1 form (no close, no config options): refused on a v1 connection,
#: naming E5. `ResumeSession` has one when the agent advertises it (`v1_intent`).
V1_REFUSED: Final = (CloseSession, SetConfigOption)
#: The v1 agent's requests to its client's file system and terminals: handed to the host as
#: `ExtensionRequest`s (v2 has no such methods), answered with `AnswerRequest` in v1 shape.
V1_CLIENT_METHODS: Final = frozenset(
    (
        "fs/read_text_file",
        "fs/write_text_file",
        "terminal/create",
        "terminal/output",
        "terminal/wait_for_exit",
        "terminal/kill",
        "terminal/release",
    )
)
# Update kinds that belong to a turn: after the prompt's result, a v1 agent broke v1.
_TURN_KINDS: Final = frozenset(
    ("agent_message_chunk", "agent_thought_chunk", "tool_call", "tool_call_update", "plan")
)
# The v1 fields of a prompt request (v2-only fields are left out).
_PROMPT_FIELDS: Final = ("sessionId", "prompt", "_meta")
# The v1 fields of `session/load` and `session/resume` the v2 resume carries.
_RESUME_FIELDS: Final = ("sessionId", "cwd", "_meta")


def negotiated(b: Build, version: object, result: JsonObject) -> None:
    """The agent answered `initialize` with `version`: record which generation we speak.

    A version the host allowed is recorded (a v1 one starts the normalizer, and its v1 field
    names `agentInfo` / `agentCapabilities` are read); any other is recorded too, with an
    `E5` finding, and the connection sends no session traffic (`refuse_unnegotiated`)."""
    if type(version) is not int:
        return
    if version not in b.conn.protocols:
        allowed = ", ".join(str(v) for v in b.conn.protocols)
        b.finding(
            "E5",
            f"the agent speaks protocol {version}; this client allows only {allowed}: "
            "no session can be opened on this connection",
        )
        return
    if version == 1:
        b.v1 = new_v1_state()
        b.changes.update(
            agent_info=params_object(result.get("agentInfo")),
            agent_capabilities=params_object(result.get("agentCapabilities")),
        )


def refuse_unnegotiated(b: Build, what: str) -> None:
    """Raise E5 when the agent's protocol version is one the host did not allow."""
    version = b.conn.protocol_version
    if version is not None and version not in b.conn.protocols:
        allowed = ", ".join(str(v) for v in b.conn.protocols)
        raise LocalProtocolError(
            "E5",
            f"{what}: the agent speaks protocol {version} and this client allows only "
            f"{allowed} (new_client_connection(protocols=...))",
        )


def v1_intent(b: Build, intent: object) -> None:
    """Refuse a host intent v1 has no form for (E5): `CloseSession`, `SetConfigOption`, and a
    `ResumeSession` the agent did not advertise (`loadSession` for a replay, which goes out
    as `session/load`; `sessionCapabilities.resume` for one without, `session/resume`)."""
    if type(intent) in V1_REFUSED:
        raise LocalProtocolError(
            "E5", f"{type(intent).__name__} has no form in protocol 1 (the agent speaks v1)"
        )
    if type(intent) is ResumeSession:
        _v1_resumable(b, intent)


def _v1_resumable(b: Build, intent: ResumeSession) -> None:
    capabilities = params_object(b.conn.agent_capabilities)
    if intent.unanswered:
        raise LocalProtocolError(
            "E5",
            "ResumeSession(unanswered=...) on protocol 1: v1 prompts carry no idempotency key "
            "to retry them under",
        )
    if intent.replay:
        if capabilities is None or capabilities.get("loadSession") is not True:
            raise LocalProtocolError(
                "E5",
                "ResumeSession(replay=True) is v1 session/load, and the agent did not "
                "advertise loadSession at initialize",
            )
        return
    found = None if capabilities is None else params_object(capabilities.get("sessionCapabilities"))
    if found is None or params_object(found.get("resume")) is None:
        raise LocalProtocolError(
            "E5",
            "ResumeSession(replay=False) is v1 session/resume, and the agent did not advertise "
            "sessionCapabilities.resume at initialize (replay=True loads the session with its "
            "history, if the agent advertises loadSession)",
        )


def v1_cancel_pending(b: Build, intent: SessionIntent) -> None:
    """After a `SendCancel` on a v1 connection: answer the session's pending permission
    requests `cancelled`, as v1 asks of a client that cancels (the v1 agent waits for those
    answers before it ends the turn; the later v2 drafts leave them to the agent's
    `$/cancel_request`, which v1 lacks). Each is a `RequestCancelled` event to the host."""
    if type(intent.intent) is not SendCancel:
        return
    session = b.sessions[intent.session_id]
    engine = session.engine
    asked = [rid for rid, r in in_order(engine.pending) if r.session_id == intent.session_id]
    if not asked:
        return
    pending = engine.pending
    for rid in asked:
        b.send({"jsonrpc": "2.0", "id": rid, "result": {"outcome": {"outcome": "cancelled"}}})
        b.event(RequestCancelled(rid))
        pending = pending.delete(rid)
    engine = attrs.evolve(engine, pending=pending)
    b.sessions = b.sessions.set(intent.session_id, attrs.evolve(session, engine=engine))


def _v1_shape(b: Build, message: dict[str, Any]) -> dict[str, Any]:
    method = message.get("method")
    params = message.get("params")
    if method == "session/prompt" and isinstance(params, dict):
        v1 = {k: params[k] for k in _PROMPT_FIELDS if k in params}
        return {**message, "params": v1}
    pending = b.outgoing.get(message.get("id")) if method == "session/resume" else None
    if pending is not None and pending.session_id is not None and isinstance(params, dict):
        # A resume with replay is v1's `session/load` (the history comes before the answer);
        # one without is v1's `session/resume` (`sessionCapabilities.resume`, checked by
        # `v1_intent`). Both take the v1 fields only: `replayFrom` is v2's. Only the
        # `ResumeSession` intent's request (its pending record names the session): a host's
        # own `SendRequest("session/resume", ...)` goes out as given.
        loaded = {k: params[k] for k in _RESUME_FIELDS if k in params}
        loaded["mcpServers"] = []
        return {
            **message,
            "method": "session/load" if "replayFrom" in params else method,
            "params": loaded,
        }
    return message


def _normalized(
    b: Build, message: object, sender: str, *, judged: bool = False
) -> list[Message]:
    """Show one v1 message to the normalizer; its v2 updates and permission requests, in
    order (updates first: a permission request's tool call and `requires_action`).
    `judged`: the message goes no other way that would judge it (the v2 path names D1), so
    what its normalizer diagnostics break of the agent's v1 rules (`v1_violations`, what
    `check --protocol 1` reports) is a `Finding`: a malformed update is never dropped
    silently."""
    assert b.v1 is not None
    state, out = normalize_v1_step(b.v1, message, sender=sender)
    b.v1 = state
    if judged and out.diagnostics:
        for violation in v1_violations(out.diagnostics, 0, side=sender):  # type: ignore[arg-type]
            b.finding(violation.rule, violation.message)
    items: list[Message] = [UpdateSessionNotification(u.session_id, u.update) for u in out.updates]
    for event in out.events:
        if type(event.event) is RequestPermissionRequest:
            items.append(event.event)
    return items


def v1_outbound(b: Build, start: int, receive: Callable[[Build, Message], None]) -> None:
    """Rewrite what was sent from `b.wire[start:]` on to the v1 shape, and show each message
    to the normalizer (a prompt starts its turn in the view here)."""
    sent = [_v1_shape(b, m) for m in b.wire[start:]]
    del b.wire[start:]
    for message in sent:
        b.wire.append(message)
        for item in _normalized(b, message, "client"):
            _bind(b, message, item)
            receive(b, item)


def _bind(b: Build, message: dict[str, Any], item: Message) -> None:
    # A prompt's user message, kept with the request: the receipt names it (2026-11 on).
    rid = message.get("id")
    pending = b.outgoing.get(rid) if message.get("method") == "session/prompt" else None
    if pending is None or pending.message_id is not None:
        return
    if type(item) is UpdateSessionNotification and type(item.update) is UserMessage:
        b.outgoing = b.outgoing.set(rid, attrs.evolve(pending, message_id=item.update.message_id))


def _receipt(b: Build, pending: PendingRequest) -> JsonValue:
    # What a v2 agent answers a prompt with: `{}`, or `{messageId}` from 2026-11 on.
    if b.conn.revision.prompt_result_has_message_id and pending.message_id is not None:
        return freeze_json({"messageId": pending.message_id})
    return freeze_json({})


def v1_received(
    b: Build,
    value: object,
    receive: Callable[[Build, Message], None],
    v2_path: Callable[[Build, object], None],
) -> None:
    """One parsed JSON value from a v1 agent."""
    if type(value) is not dict:
        v2_path(b, value)
        return
    method = value.get("method")
    rid = value.get("id")
    if not (method is None or type(method) is str) or not is_request_id(rid):
        v2_path(b, value)  # no message v1 could mean: refused as any undecodable one
        return
    pending = None if method is not None or "id" not in value else b.outgoing.get(rid)
    if pending is not None and pending.method == "session/prompt":
        items = _normalized(b, value, "agent", judged="error" not in value)
        # The engine takes the v1 result as a v2 receipt first (its prompt record is
        # answered: a v2 turn never ends before its prompt is, R1), then the turn's end.
        if "error" in value:
            v2_path(b, value)
        else:
            receive(b, Response(rid, _receipt(b, pending)))
        for item in items:
            receive(b, item)
        return
    if pending is not None and pending.method == "session/resume" and "result" in value:
        _history_ended(b, pending, receive)
    if method == "session/update" and not _update_in_place(b, value):
        return
    if method in ("session/update", "session/request_permission"):
        for item in _normalized(b, value, "agent", judged=True):
            receive(b, item)
        return
    if method in V1_CLIENT_METHODS and _host_request(b, value):
        return
    _normalized(b, value, "agent")  # its bookkeeping (session/new answers, terminals)
    v2_path(b, value)


def _history_ended(
    b: Build, pending: PendingRequest, receive: Callable[[Build, Message], None]
) -> None:
    """The answer to a v1 `session/load` ends its history. v1 has no end marker, so the
    window is closed here, before the answer is read as a v2 resume's (which would call it
    answered before the marker, R57): on a revision with one (the Preview's
    `replay_complete`) the session takes that marker, as from a v2 agent; else the answer
    ends it, as the session machine's window ends (R38). Whether it is open is the session
    machine's answer (`Build.replaying`: no judge runs on v1)."""
    sid = pending.session_id
    if sid is None or not b.replaying(sid):  # the session machine's window (no judge on v1)
        return
    if speaks_children(b.conn.revision):
        receive(b, UpdateSessionNotification(sid, ReplayComplete()))
    # else the answer itself ends the window (`_connection_client._resumed`): no marker


def _update_in_place(b: Build, value: dict[str, Any]) -> bool:
    """False (with an `E3` finding) for an update of a session this client does not have:
    v1 has no child sessions to hold it for. A turn's update (a chunk, a tool call, a plan)
    while no prompt or load of its session is open is a `v1.update-after-turn` finding: v1
    agents send a turn's updates before the prompt's result; it is still folded."""
    params = value.get("params")
    sid = params.get("sessionId") if type(params) is dict else None
    if type(sid) is not str:
        return True  # the v2 path reports what cannot be read
    if sid not in b.sessions:
        if any(p.method == "session/new" for p in b.outgoing.values()):
            return True  # may be the session being opened: held as on v2
        b.finding("E3", f"update for unknown session {sid!r} dropped (v1 has no child sessions)")
        return False
    update = params.get("update") if type(params) is dict else None
    kind = update.get("sessionUpdate") if type(update) is dict else None
    if type(kind) is not str:
        return True  # the v2 path reports what cannot be read (a tag that is no string)
    open_work = any(
        p.method in ("session/prompt", "session/load", "session/resume")
        and p.session_id in (sid, None)
        for p in b.outgoing.values()
    )
    if kind in _TURN_KINDS and not open_work:
        b.finding(
            "v1.update-after-turn",
            f"{kind} for {sid!r} while no prompt of it is open (after its result?)",
        )
    return True


def _host_request(b: Build, value: dict[str, Any]) -> bool:
    """A v1 `fs/*` or `terminal/*` request, handed to the host; False when its id cannot be
    held (the v2 path refuses it)."""
    rid = value.get("id")
    if type(rid) not in (int, str) or rid in b.incoming:
        return False
    if any(rid in s.engine.pending for s in b.sessions.values()):
        return False
    _normalized(b, value, "agent")  # its bookkeeping (terminals)
    b.incoming = b.incoming.set(rid, value["method"])
    params = value.get("params")
    b.event(
        ExtensionRequest(rid, value["method"], UNSET if params is None else freeze_json(params))
    )
    return True
