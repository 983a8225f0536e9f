"""What the host intents a client connection takes send: each one's wire, on the step's builder.

Owns: `host_intent` (a connection-level intent: `initialize`, `session/new`, `session/resume`,
`session/close`, `session/set_config_option`, a request or notification by hand, a
`$/cancel_request`) and `session_intent` (an intent for one session's engine, a prompt or a
Preview session request numbered here), each applied to the one step's `Build`: the request
ids, the pending records, the session records a resume makes, the messages sent.
Must not know: what answers and agent messages do (`_engines/_connection_client.py`), what the
machine judges of what is sent (`Build.done` feeds it, `_connection_client_judging.py`),
I/O, framing.
"""

from __future__ import annotations

from typing import Any, Final

import attrs

from acp_core._errors import LocalProtocolError
from acp_core._rules._predicates import request_key
from acp_core._wire._fastnew import fast_evolve
from acp_core._wire._json import UNSET, freeze_json, thaw_json
from acp_core._wire._jsonrpc import Request

from ._client import machine_follows, new_client, session_request_method
from ._client_resume import carry_prompts, resume_sent
from ._connection_client_intents import (
    CancelRequest,
    CloseSession,
    Initialize,
    NewSession,
    ResumeSession,
    SendNotification,
    SendRequest,
    SetConfigOption,
)
from ._connection_client_state import Build, ClientSession, PendingRequest, step_session
from ._connection_values import SessionIntent
from ._intents import SendPrompt

__all__ = ["host_intent", "session_intent"]

#: Requests sent by hand that stay their session's (its machine follows them).
_FOLLOWED: Final = frozenset({"session/close", "session/set_config_option"})


def _prompt_id(b: Build, session_id: str, given: int | str | None) -> int | str | None:
    # A request id the session's engine has no record of either: prompts carried over from a
    # lost connection keep their old ids there (`ResumeSession.unanswered`).
    engine = b.sessions[session_id].engine
    request_id = b.request_id(given)
    while given is None and (
        request_key(request_id) in engine.sent or request_key(request_id) in engine.requests
    ):
        request_id = b.request_id(None)
    if given is None:
        b.ids.append(request_id)
    return request_id


def session_intent(b: Build, intent: SessionIntent) -> None:
    if intent.session_id not in b.sessions:
        raise LocalProtocolError("E3", f"no session {intent.session_id!r} on this connection")
    inner = intent.intent
    if type(inner) is SendPrompt:
        request_id = _prompt_id(b, intent.session_id, inner.request_id)
        inner = attrs.evolve(inner, request_id=request_id)
        step_session(b, intent.session_id, inner, prompt=request_id)
        pending = PendingRequest("session/prompt", intent.session_id)
        b.outgoing = b.outgoing.set(request_id, pending)
        return
    method = session_request_method(inner)
    if method is not None:  # Preview: numbered here, answered back to the engine
        request_id = _prompt_id(b, intent.session_id, getattr(inner, "request_id", None))
        numbered: Any = attrs.evolve(inner, request_id=request_id)  # type: ignore[misc]
        prompt = request_id if method == "session/prompt" else UNSET
        step_session(b, intent.session_id, numbered, prompt=prompt)
        b.outgoing = b.outgoing.set(request_id, PendingRequest(method, intent.session_id))
        return
    step_session(b, intent.session_id, inner)


def host_intent(b: Build, intent: object) -> bool:
    """Apply a connection-level host intent; False if `intent` is not one."""
    kind = type(intent)
    if kind is Initialize:
        assert isinstance(intent, Initialize)
        offered = b.conn.protocols[0]  # the host's preferred version (v1 names its fields so)
        params = {
            "protocolVersion": offered,
            "clientInfo" if offered == 1 else "info": b.conn.info.to_wire(),
            "clientCapabilities" if offered == 1 else "capabilities": thaw_json(
                b.conn.capabilities
            ),
        }
        b.request(intent.request_id, "initialize", params, PendingRequest("initialize"))
    elif kind is NewSession:
        assert isinstance(intent, NewSession)
        pending = PendingRequest("session/new", cwd=intent.cwd)
        params = {"cwd": intent.cwd, "mcpServers": []}
        b.request(intent.request_id, "session/new", params, pending)
    elif kind is ResumeSession:
        assert isinstance(intent, ResumeSession)
        _resume(b, intent)
    elif kind is CloseSession:
        assert isinstance(intent, CloseSession)
        pending = PendingRequest("session/close", intent.session_id)
        params = {"sessionId": intent.session_id}
        b.session_request(intent.request_id, "session/close", params, pending)
    elif kind is SetConfigOption:
        assert isinstance(intent, SetConfigOption)
        value_type = "boolean" if type(intent.value) is bool else "id"
        params = {
            "sessionId": intent.session_id,
            "configId": intent.config_id,
            "type": value_type,
            "value": intent.value,
        }
        pending = PendingRequest("session/set_config_option", intent.session_id)
        b.session_request(intent.request_id, "session/set_config_option", params, pending)
    elif kind is SendRequest:
        assert isinstance(intent, SendRequest)
        _method_argument(intent.method)
        params_out = UNSET if intent.params is UNSET else thaw_json(intent.params)
        named = params_out.get("sessionId") if isinstance(params_out, dict) else None
        if intent.method in _FOLLOWED and isinstance(named, str) and named in b.sessions:
            # Sent by hand, still a request of that session: its machine follows it and
            # its answer is read as the intent's would be (the close forgets the session).
            pending = PendingRequest(intent.method, named)
            b.session_request(intent.request_id, intent.method, params_out, pending)
        else:
            pending = PendingRequest(intent.method)
            b.request(intent.request_id, intent.method, params_out, pending, by_hand=True)
    elif kind is SendNotification:
        assert isinstance(intent, SendNotification)
        _method_argument(intent.method)
        message: dict[str, Any] = {"jsonrpc": "2.0", "method": intent.method}
        if intent.params is not UNSET:
            message["params"] = thaw_json(intent.params)
        b.send_by_hand(message)
    elif kind is CancelRequest:
        assert isinstance(intent, CancelRequest)
        if intent.request_id not in b.outgoing:
            raise LocalProtocolError("E2", f"no pending request has id {intent.request_id!r}")
        params_c = {"requestId": intent.request_id}
        b.send({"jsonrpc": "2.0", "method": "$/cancel_request", "params": params_c})
    else:
        return False
    return True


def _method_argument(method: object) -> None:
    if type(method) is not str:
        msg = f"method must be a string, not {type(method).__name__}"
        raise LocalProtocolError("E0", msg)


def _resume(b: Build, intent: ResumeSession) -> None:
    old = b.sessions.get(intent.session_id)
    created = old is None
    if intent.replay or old is None:
        # A replay rebuilds the view from scratch: replayed chunks appended to a populated
        # view would duplicate content (Q13).
        engine = new_client(intent.session_id, revision=b.conn.revision)
        if old is not None and old.engine.conversation.history:
            # The new view starts empty, but the machine keeps knowing the session had
            # history: a resume from the start must replay it (R38).
            conversation = attrs.evolve(engine.conversation, history=True)
            engine = fast_evolve(engine, conversation=conversation)
        config = () if old is None else old.config_options
        b.sessions = b.sessions.set(intent.session_id, ClientSession(engine, intent.cwd, config))
    if intent.unanswered:
        resumed = b.sessions[intent.session_id]
        carried = carry_prompts(resumed.engine, intent.unanswered)
        b.sessions = b.sessions.set(intent.session_id, attrs.evolve(resumed, engine=carried))
    params: dict[str, Any] = {"sessionId": intent.session_id, "cwd": intent.cwd}
    if intent.replay:
        params["replayFrom"] = {"type": "start"}
    pending = PendingRequest("session/resume", intent.session_id, intent.cwd, created)
    request_id = b.request(intent.request_id, "session/resume", params, pending)
    session = b.sessions.get(intent.session_id)
    if session is not None:  # children announced during the replay replay too (P8)
        request = Request(request_id, "session/resume", freeze_json(params))
        engine = machine_follows(session.engine, "client", request)
        engine = resume_sent(engine, request_id, replay=intent.replay)
        b.sessions = b.sessions.set(intent.session_id, attrs.evolve(session, engine=engine))
