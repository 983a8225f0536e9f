"""Tool calls and the prompt turn of v1 traffic.

Owns: digest 6.2 rules 1-5 (the prompt request as the user message and `running`, the
result's `stopReason` as `idle`, errors, cancel), 8-9 (`tool_call` as an upsert,
placeholders for updates before their tool call) and 18 (permission requests in v2 shape,
their `toolCall` patch applied, `requires_action` while they wait).
Must not know: message chunks and their policies (`_v1/_v1_messages.py`), wire details of tool
call fields (`_v1/_v1_wire.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import attrs

from acp_core._errors import DecodeError
from acp_core._state._pcoll import PMap
from acp_core._wire._codec import decode_message
from acp_core._wire._content import ContentBlock, TextContent
from acp_core._wire._json import UNSET, Meta, freeze_json
from acp_core._wire._jsonrpc import (
    CancelSessionNotification,
    ErrorResponse,
    RequestPermissionRequest,
)
from acp_core._wire._updates import IdleStateUpdate, RunningStateUpdate, UserMessage

from ._v1_policy import (
    INVALID_MESSAGE,
    INVALID_UPDATE,
    LATE_TOOL_CALL,
    MISSING_STOP_REASON,
    PLACEHOLDER_TOOL_CALL,
    RESULT_FIELD_DROPPED,
    TERMINAL_ENDED_WITH_TOOL,
    TOOL_CALL_RESENT,
    UNMATCHED_RESPONSE,
)
from ._v1_requests import answered, unwait, wait
from ._v1_state import (
    RESERVED,
    TOOL,
    TURN,
    Echo,
    Pending,
    PromptError,
    ToolSeen,
    id_text,
    request_ref,
    with_tools,
)
from ._v1_step import Step
from ._v1_wire import TOOL_FIELDS, tool_call_fields

__all__ = ["cancel", "permission", "prompt", "response", "tool"]

# v1 `tool_call` sent again for a known id: v1 "create" semantics reset what it omits (r8).
_CREATE_DEFAULTS: Final[tuple[tuple[str, object], ...]] = (
    ("content", []),
    ("locations", []),
    ("status", "pending"),
    ("kind", "other"),
)


def tool(step: Step, sid: str, update: Mapping[str, Any], path: str, *, create: bool) -> None:
    wire, diags = tool_call_fields(update, path)
    step.diags.extend(diags)
    tool_call_id = update.get("toolCallId")
    if type(tool_call_id) is not str:
        step.diag(INVALID_UPDATE, f"{path}.toolCallId", "tool call without a string id")
        step.keep_raw(sid, update, path)
        return
    session = step.get(sid)
    known = session.tools.get(tool_call_id)
    fields = tuple(k for k in TOOL_FIELDS if k in wire)
    if create:
        if known is not None and known.created:
            reset = [k for k, _ in _CREATE_DEFAULTS if k not in wire]
            for key, default in _CREATE_DEFAULTS:
                wire.setdefault(key, default)
            if reset:
                step.diag(
                    TOOL_CALL_RESENT,
                    path,
                    f"tool_call {tool_call_id!r} sent again: omitted {', '.join(reset)} "
                    "reset to their defaults (v1 create semantics)",
                )
        elif known is not None:
            superseded = [k for k in fields if k in known.set_by_updates]
            for key in superseded:
                del wire[key]
            if superseded:
                step.diag(
                    LATE_TOOL_CALL,
                    path,
                    f"tool_call {tool_call_id!r} after its updates: their "
                    f"{', '.join(superseded)} kept over the create's",
                )
        known = ToolSeen(True)
    elif known is None:
        step.diag(
            PLACEHOLDER_TOOL_CALL,
            path,
            f"update for unseen tool call {tool_call_id!r}: created as a placeholder "
            "(status as reported, pending if none)",
        )
        known = ToolSeen(False, fields)
    elif not known.created:
        known = ToolSeen(False, tuple(dict.fromkeys(known.set_by_updates + fields)))
    previous = session.tools.get(tool_call_id)
    content = wire.get("content")
    if isinstance(content, list):
        known = attrs.evolve(known, terminals=_terminal_ids(content))
    elif previous is not None:
        known = attrs.evolve(known, terminals=previous.terminals)
    if known != previous:
        step.put(sid, with_tools(session, session.tools.set(tool_call_id, known)))
    step.emit_decoded(sid, wire, update, path)
    if wire.get("status") in ("completed", "failed"):
        _end_terminals(step, sid, known.terminals, wire["status"], path)


def _terminal_ids(content: list[Any]) -> tuple[str, ...]:
    return tuple(
        item["terminalId"]
        for item in content
        if isinstance(item, dict)
        and item.get("type") == "terminal"
        and type(item.get("terminalId")) is str
    )


def _end_terminals(
    step: Step, sid: str, terminals: tuple[str, ...], status: str, path: str
) -> None:
    """A v1 tool call that ended takes the terminals it shows with it, as far as the view
    can tell: a v1 agent often never asks `terminal/wait_for_exit` (its terminal is its own),
    and a terminal shown `running` forever is a lie. Said with a diagnostic; a real exit
    status, if the client's answer brings one later, replaces the codeless one."""
    session = step.get(sid)
    for terminal_id in terminals:
        if session.exited.get(terminal_id, False):
            continue
        step.diag(
            TERMINAL_ENDED_WITH_TOOL,
            path,
            f"terminal {terminal_id!r} shown exited: its tool call ended {status} with no "
            "exit status seen",
        )
        wire = {"sessionUpdate": "terminal_update", "terminalId": terminal_id, "exitStatus": {}}
        decoded = step.decode(wire, path)
        if decoded is not None:
            step.emit(sid, decoded)
        session = attrs.evolve(session, exited=session.exited.set(terminal_id, True))
        step.put(sid, session)


# -- the turn (digest 6.2 r1-r5, r18)


def prompt(step: Step, sid: str, msg: dict[str, Any], sender: str, path: str) -> None:
    request_id = msg["id"]
    key = request_ref(sender, request_id)
    if key is None:
        step.diag(INVALID_MESSAGE, path, "session/prompt with an invalid request id: skipped")
        return
    step.end_runs(sid, TURN)
    session = step.get(sid)
    base = f"{RESERVED}prompt:{id_text(request_id)}"
    used = session.prompt_ids.get(base, 0)
    message_id = base if used == 0 else f"{base}#{used + 1}"
    prompt = msg["params"].get("prompt")
    decoded = step.decode(
        {"sessionUpdate": "user_message", "messageId": message_id, "content": prompt},
        f"{path}.prompt",
    )
    blocks: tuple[ContentBlock, ...] = ()
    if isinstance(decoded, UserMessage):
        if isinstance(decoded.content, tuple):
            blocks = decoded.content
        step.emit(sid, decoded)
    step.emit(sid, RunningStateUpdate())
    echo = Echo(
        key,
        message_id,
        "".join(b.text for b in blocks if type(b) is TextContent),
        tuple(b for b in blocks if type(b) is not TextContent),
    )
    step.put(
        sid,
        attrs.evolve(
            session,
            echo=echo,
            prompt_ids=session.prompt_ids.set(base, used + 1),
        ),
    )
    step.requests = step.requests.set(key, Pending("prompt", sid, request_id))


def cancel(step: Step, sid: str, msg: dict[str, Any], path: str) -> None:
    try:
        decoded = decode_message(msg)
    except DecodeError as e:
        step.diag(INVALID_MESSAGE, path + e.path[1:], f"session/cancel skipped: {e}")
        return
    assert isinstance(decoded, CancelSessionNotification)
    step.event(sid, decoded)


def permission(step: Step, sid: str, msg: dict[str, Any], sender: str, path: str) -> None:
    key = request_ref(sender, msg["id"])
    if key is None:
        step.diag(INVALID_MESSAGE, path, "permission request with an invalid id: skipped")
        return
    params: dict[str, Any] = msg["params"]
    tool_call = params.get("toolCall")
    subject: dict[str, Any] | None = None
    if type(tool_call) is dict:
        step.end_runs(sid, TOOL)
        tool(step, sid, tool_call, f"{path}.toolCall", create=False)
        wire, _ = tool_call_fields(tool_call, f"{path}.toolCall")
        del wire["sessionUpdate"]
        subject = {"type": "tool_call", "toolCall": wire}
    # A title the request already has (v2-shaped traffic) wins over the tool call's.
    title = params.get("title")
    if type(title) is not str and type(tool_call) is dict:
        title = tool_call.get("title")
    if type(title) is not str:
        title = "Permission requested"
    wait(step, sid, key)
    step.requests = step.requests.set(key, Pending("permission", sid, msg["id"], label=title))
    v2_params = {k: v for k, v in params.items() if k not in ("toolCall", "subject")}
    v2_params["title"] = title
    if subject is not None:
        v2_params["subject"] = subject
    v2 = {"jsonrpc": "2.0", "id": msg["id"], "method": msg["method"], "params": v2_params}
    try:
        request = decode_message(v2)
    except DecodeError as e:
        step.diag(INVALID_MESSAGE, path, f"permission request has no v2 form: {e}")
        return
    assert isinstance(request, RequestPermissionRequest)
    step.event(sid, request)


def response(step: Step, msg: dict[str, Any], sender: str | None, path: str) -> None:
    requesters = (
        ("client", "agent")
        if sender is None
        else (("client",) if sender == "agent" else ("agent",))
    )
    pending = None
    key = None
    for requester in requesters:
        key = request_ref(requester, msg["id"])
        pending = None if key is None else step.requests.get(key)
        if pending is not None:
            break
    result = msg.get("result")
    if pending is None:
        if type(result) is not dict or "stopReason" not in result:
            return  # an answer to a request the normalizer does not track
        if len(step.sessions) != 1:
            step.diag(UNMATCHED_RESPONSE, path, "prompt result for an unseen request: dropped")
            return
        (sid,) = step.sessions.keys()
        step.diag(
            UNMATCHED_RESPONSE,
            path,
            f"prompt result for an unseen request: attributed to the only session {sid!r}",
        )
        pending = Pending("prompt", sid, msg["id"])
    else:
        assert key is not None
        step.requests = step.requests.delete(key)
    sid = pending.session_id
    if pending.kind != "prompt":
        assert key is not None  # only a prompt result is ever taken without its request
        if pending.kind == "permission":
            unwait(step, sid, key)
        else:
            answered(step, pending, key, msg, path)
        return
    step.end_runs(sid, TURN)
    session = step.get(sid)
    if session.echo is not None and session.echo.request == key:
        step.put(sid, attrs.evolve(session, echo=None))
    if "error" in msg:
        step.emit(sid, IdleStateUpdate())
        try:
            decoded = decode_message(msg)
        except DecodeError as e:
            step.diag(INVALID_MESSAGE, f"{path}.error", f"malformed error: {e}")
        else:
            assert isinstance(decoded, ErrorResponse)
            step.event(sid, PromptError(pending.request_id, decoded.error))
    else:
        prompt_result(step, sid, result, path)
    if step.prompt_open(sid):  # another prompt of this session is still being worked on
        step.emit(sid, RunningStateUpdate())


def prompt_result(step: Step, sid: str, result: object, path: str) -> None:
    if type(result) is not dict:
        step.diag(MISSING_STOP_REASON, f"{path}.result", "prompt result is not an object")
        step.emit(sid, IdleStateUpdate())
        return
    meta: Meta = UNSET
    if type(result.get("_meta")) is dict:
        try:
            frozen = freeze_json(result["_meta"])
        except DecodeError as e:
            step.diag(RESULT_FIELD_DROPPED, f"{path}.result._meta", f"not JSON, dropped: {e}")
        else:
            assert isinstance(frozen, PMap)
            meta = frozen
    stop_reason = result.get("stopReason")
    if type(stop_reason) is str:
        step.emit(sid, IdleStateUpdate(stop_reason, meta))
    else:
        step.diag(MISSING_STOP_REASON, f"{path}.result", "no string stopReason: idle without one")
        step.emit(sid, IdleStateUpdate(UNSET, meta))
    dropped = sorted(k for k in result if k not in ("stopReason", "_meta"))
    if dropped:
        step.diag(
            RESULT_FIELD_DROPPED,
            f"{path}.result",
            f"prompt result fields with no v2 home dropped: {', '.join(dropped)}",
        )
