"""The requests an agent connection answers itself, and those it hands to its host.

Owns: `initialize` (version negotiation against the host's `protocols`, the refusal, `info`,
capabilities; a v1 client's answer is `_engines/_connection_agent_v1.py`'s), `session/new`,
`session/resume` (the replay, the end marker of the revision, the state snapshot, then the
answer), `session/close` (as a cancel, then answered once the session is idle),
`session/set_config_option`, and the typed host requests (`session/list`, `session/delete`,
`session/fork`); `SELF_ANSWERED` maps each method to its handler (a v1 client's
`session/load` to `_engines/_connection_agent_v1.py`'s, over `session/resume`'s).
Must not know: routing of other messages, framing, engines' internals (engines are stepped
through `step_session` only).
"""

from __future__ import annotations

from typing import Any, Final

import attrs

from acp_core._state._pcoll import in_order
from acp_core._wire._codec import encode_update
from acp_core._wire._json import EMPTY_OBJECT, thaw_json
from acp_core._wire._jsonrpc import (
    CancelSessionNotification,
    Request,
)
from acp_core._wire._revision import Revision
from acp_core._wire._updates import SessionConfigBoolean, SessionConfigOption, SessionConfigSelect

from ._agent import new_agent
from ._connection_agent_state import (
    AgentSession,
    Build,
    child_refused,
    finish_close,
    settled,
    step_session,
)
from ._connection_agent_v1 import v1_initialize, v1_load
from ._connection_values import (
    SUPPORTED_VERSIONS,
    UNSUPPORTED_VERSION,
    CloseRequested,
    DeleteSession,
    ForkSession,
    Initialized,
    ListSessions,
    SessionOpened,
    absolute,
    error_reply,
    params_object,
    result_reply,
    unknown_session,
)
from ._intents import CancelPermission, Received
from ._replay_tree import resume_updates

__all__ = ["SELF_ANSWERED"]


# -- received requests the connection answers itself -------------------------------------------


def _initialize(b: Build, request: Request) -> None:
    params = params_object(request.params)
    version = None if params is None else params.get("protocolVersion")
    info = None if params is None else params.get("info")
    if type(version) is not int or version < 0:
        b.answer(
            request.id, error_reply(request.id, -32602, "Invalid params: protocolVersion, info")
        )
        return
    assert params is not None
    if version == 1 and 1 in b.conn.protocols:  # a v1 client the host serves
        v1_initialize(b, request.id, params)
        return
    usable = [v for v in SUPPORTED_VERSIONS if v <= version and v in b.conn.protocols]
    if not usable:
        # The protocol's refusal; nothing else is served until an initialize succeeds.
        allowed = sorted(v for v in b.conn.protocols if v in (1, *SUPPORTED_VERSIONS))
        data = {"requested": version, "supported": allowed}
        b.changes["refused"] = version
        b.answer(
            request.id,
            error_reply(request.id, UNSUPPORTED_VERSION, "Unsupported protocol version", data),
        )
        return
    if params_object(info) is None:
        b.answer(
            request.id, error_reply(request.id, -32602, "Invalid params: protocolVersion, info")
        )
        return
    caps = params_object(params.get("capabilities"))
    b.changes.update(
        refused=None,
        v1=None,
        protocol_version=max(usable),
        peer_info=info,
        peer_capabilities=EMPTY_OBJECT if caps is None else caps,
    )
    result = {
        "protocolVersion": max(usable),
        "info": b.conn.info.to_wire(),
        "capabilities": thaw_json(b.conn.capabilities),
    }
    b.answer(request.id, result_reply(request.id, result))
    b.event(Initialized(max(usable), params_object(info), caps, request.id))


def _config_wire(options: tuple[SessionConfigOption, ...], revision: Revision) -> list[Any]:
    from acp_core._wire._updates import ConfigOptionUpdate

    wire: list[Any] = encode_update(ConfigOptionUpdate(options), revision=revision)["configOptions"]
    return wire


def _new_session(b: Build, request: Request) -> None:
    params = params_object(request.params)
    cwd = None if params is None else params.get("cwd")
    if not absolute(cwd):
        b.answer(
            request.id,
            error_reply(request.id, -32602, "Invalid params: cwd must be an absolute path"),
        )
        return
    assert isinstance(cwd, str)
    n = b.changes.get("next_session", b.conn.next_session)
    while f"{b.conn.session_prefix}{n}" in b.sessions:
        n += 1
    session_id = f"{b.conn.session_prefix}{n}"
    b.changes["next_session"] = n + 1
    engine = new_agent(session_id, revision=b.conn.revision)
    config = b.conn.new_session_config
    b.sessions = b.sessions.set(session_id, AgentSession(engine, cwd, config))
    result: dict[str, Any] = {"sessionId": session_id}
    if config:
        result["configOptions"] = _config_wire(config, b.conn.revision)
    b.answer(request.id, result_reply(request.id, result))
    b.event(SessionOpened(session_id, request_id=request.id))


def _session_param(b: Build, request: Request) -> str | None:
    params = params_object(request.params)
    session_id = None if params is None else params.get("sessionId")
    if not isinstance(session_id, str):
        b.answer(request.id, error_reply(request.id, -32602, "Invalid params: sessionId"))
        return None
    return session_id


def _update_wire(session_id: str, update: Any, revision: Revision) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session_id, "update": encode_update(update, revision=revision)},
    }


def _resume(b: Build, request: Request) -> None:
    session_id = _session_param(b, request)
    if session_id is None:
        return
    params = params_object(request.params)
    assert params is not None
    replay_from = params.get("replayFrom")
    cursor = params_object(replay_from)
    if replay_from is not None and (cursor is None or cursor.get("type") != "start"):
        b.answer(
            request.id,
            error_reply(request.id, -32602, "Invalid params: unsupported replayFrom cursor"),
        )
        return
    if child_refused(b, request.id, session_id, "session/resume"):
        return
    session = b.sessions.get(session_id)
    if session is None or session.closing_pending or session.parent is not None:
        b.answer(request.id, unknown_session(request.id, session_id))
        return
    engine = session.engine
    history = cursor is not None
    # History, children (re-announced, replayed with their markers), marker, state (R57-R62).
    for target, update in resume_updates(
        engine.children, engine.session, engine.revision, history=history
    ):
        b.send(_update_wire(target, update, engine.revision))
    b.sessions = b.sessions.set(session_id, attrs.evolve(session, attached=True))
    result: dict[str, Any] = {}
    if session.config_options:
        result["configOptions"] = _config_wire(session.config_options, engine.revision)
    b.answer(request.id, result_reply(request.id, result))
    b.event(SessionOpened(session_id, resumed=True, request_id=request.id))


def _close(b: Build, request: Request) -> None:
    session_id = _session_param(b, request)
    if session_id is None:
        return
    if child_refused(b, request.id, session_id, "session/close"):
        return
    session = b.sessions.get(session_id)
    if session is not None and session.closing_pending:
        # A second close waits with the first: answering it now would let the client
        # forget the session while the turn still reports.
        session = attrs.evolve(session, closing=(*session.closing, request.id))
        b.sessions = b.sessions.set(session_id, session)
        return
    if session is None or not session.attached:
        b.answer(request.id, result_reply(request.id, {}))  # closing what is not active succeeds
        return
    # R76: as if `session/cancel` came first: held prompts get -32800, the turn winds down
    # with the children that are part of it (P19), the requests of that work are withdrawn
    # (R71). The close stops background work too, so every other open request (background
    # work's, a background child's) is withdrawn as well, each once.
    sent = len(b.wire)
    step_session(b, session_id, Received(CancelSessionNotification(session_id)))
    withdrawn = {
        m["params"]["requestId"] for m in b.wire[sent:] if m.get("method") == "$/cancel_request"
    }
    for request_id, _ in in_order(b.sessions[session_id].engine.pending):
        if request_id not in withdrawn:
            step_session(b, session_id, CancelPermission(request_id))
    session = attrs.evolve(b.sessions[session_id], closing=(request.id,))
    b.sessions = b.sessions.set(session_id, session)
    if settled(session.engine):
        finish_close(b, session_id)
    else:
        b.event(CloseRequested(session_id, session.engine.cancelled_children))


def _option_values(option: SessionConfigSelect) -> set[str]:
    values: set[str] = set()
    for item in option.options:
        inner = getattr(item, "options", None)
        if inner is None:
            values.add(item.value)  # type: ignore[union-attr]
        else:
            values.update(o.value for o in inner)
    return values


def _set_config(b: Build, request: Request) -> None:
    session_id = _session_param(b, request)
    if session_id is None:
        return
    session = b.sessions.get(session_id)
    if session is None or not session.attached:
        b.answer(request.id, unknown_session(request.id, session_id))
        return
    params = params_object(request.params)
    assert params is not None
    config_id, kind, value = params.get("configId"), params.get("type"), params.get("value")
    options = list(session.config_options)
    for i, option in enumerate(options):
        if getattr(option, "config_id", None) != config_id:
            continue
        if type(option) is SessionConfigSelect and kind == "id" and isinstance(value, str):
            if value in _option_values(option):
                options[i] = attrs.evolve(option, current_value=value)
                break
        elif type(option) is SessionConfigBoolean and kind == "boolean" and type(value) is bool:
            options[i] = attrs.evolve(option, current_value=value)
            break
        b.answer(request.id, error_reply(request.id, -32602, f"Invalid value for {config_id!r}"))
        return
    else:
        b.answer(
            request.id, error_reply(request.id, -32602, f"Unknown config option {config_id!r}")
        )
        return
    session = attrs.evolve(session, config_options=tuple(options))
    b.sessions = b.sessions.set(session_id, session)
    b.answer(
        request.id,
        result_reply(
            request.id,
            {"configOptions": _config_wire(session.config_options, session.engine.revision)},
        ),
    )


def _to_host(b: Build, request: Request) -> None:
    params = params_object(request.params)
    method = request.method
    if method == "session/list":
        cwd = None if params is None else params.get("cwd")
        cursor = None if params is None else params.get("cursor")
        b.incoming = b.incoming.set(request.id, method)
        b.event(
            ListSessions(
                request.id,
                cwd if isinstance(cwd, str) else None,
                cursor if isinstance(cursor, str) else None,
            )
        )
        return
    session_id = _session_param(b, request)
    if session_id is None:
        return
    if session_id not in b.sessions:
        b.answer(request.id, unknown_session(request.id, session_id))
        return
    if method == "session/delete":
        b.incoming = b.incoming.set(request.id, f"session/delete:{session_id}")
        b.event(DeleteSession(request.id, session_id))
    else:
        b.incoming = b.incoming.set(request.id, method)
        assert params is not None
        b.event(ForkSession(request.id, session_id, params))


SELF_ANSWERED: Final = {
    "initialize": _initialize,
    "session/new": _new_session,
    "session/resume": _resume,
    "session/load": lambda b, request: v1_load(b, request, _resume),  # a v1 client's
    "session/close": _close,
    "session/set_config_option": _set_config,
    "session/list": _to_host,
    "session/delete": _to_host,
    "session/fork": _to_host,
}
