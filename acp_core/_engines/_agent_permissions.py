"""The permission requests the agent engine sends, and their withdrawal.

Owns: `PendingPermission` (a request the client has not answered yet) and the steps of
`RequestPermission` (R26 a title and options, R18/R19 option kinds, E2 ids, R11 the turn
blocks with `requires_action`, a tool-call subject with the call's current values) and
`CancelPermission` (`$/cancel_request`). Must not know: how answers are judged
(`_engines/_agent_receive.py`) or the rest of the turn (`_engines/_agent.py`).
"""

from __future__ import annotations

from typing import Any, Final

from acp_core._wire._json import UNSET
from acp_core._wire._jsonrpc import (
    CancelRequestNotification,
    PermissionOption,
    RequestPermissionRequest,
    ToolCallPermissionSubject,
)
from acp_core._wire._updates import RequiresActionStateUpdate, ToolCallUpdate
from acp_core._wire._value import frozen

from ._agent_build import Build, known_tool_call, refuse
from ._agent_preview import send_update
from ._intents import CancelPermission, RequestPermission

__all__ = ["PERMISSION_STEPS", "PendingPermission"]


@frozen
class PendingPermission:
    """A permission request the client has not answered yet.

    Attributes:
        foreground: it blocks the current turn (False: background, a child's, or its turn
            has ended), as read through `AgentEngine.pending`: the conversation machine knows
            which requests the current work asked (`Conversation.blocks`), so the value
            stored with the engine is never consulted.
        session_id: the child whose request it is (Preview); None: the agent's own.
    """

    request_id: int | str | None
    tool_call_id: str | None
    options: tuple[PermissionOption, ...]
    foreground: bool = False
    session_id: str | None = None


def _request_permission(b: Build, intent: RequestPermission) -> None:
    # The title and the option kinds are judged on the request itself (`Build.own`).
    if not intent.options:
        raise refuse("R26", "a permission request offers at least one option")
    engine = b.engine
    request_id = intent.request_id
    if request_id is None:
        request_id = b.get("next_request_id")
        while request_id in engine._pending or request_id in engine.decisions:
            request_id += 1
        b.set(next_request_id=request_id + 1)
        b.ids.append(request_id)
    elif request_id in engine._pending:
        raise refuse("E2", f"request id {request_id!r} is already pending")
    child = intent.session_id
    if child == engine.session_id:
        child = None
    if child is not None and child not in b.get("children").parents:
        raise refuse("R47", f"announce {child!r} with subagent_update before asking for it")
    state = b.session if child is None else b.get("children").sessions[child]
    subject: Any = UNSET
    if intent.tool_call_id is not None:
        if child is None:
            known_tool_call(b, intent.tool_call_id)
        elif intent.tool_call_id not in state.tool_calls:
            raise refuse(
                "R13", f"tool call {intent.tool_call_id!r} was never reported on {child!r}"
            )
        call = state.tool_calls[intent.tool_call_id]
        # The subject is the same upsert shape as tool_call_update; current values only, so
        # applying it changes nothing on the client (T10).
        subject = ToolCallPermissionSubject(
            ToolCallUpdate(intent.tool_call_id, call.title, call.kind, call.status)
        )
    request = RequestPermissionRequest(
        request_id,
        engine.session_id if child is None else child,
        intent.title,
        intent.options,
        intent.description,
        subject,
    )
    if child is not None:  # the child's lifecycle judges it, and it blocks the child (R11)
        b.send_child(child, request)
        if state.foreground.state == "running":
            send_update(b, RequiresActionStateUpdate(), child)
        pending = PendingPermission(request_id, intent.tool_call_id, intent.options, False, child)
        b.set(pending=engine._pending.set(request_id, pending), open_message=None)
        return
    b.send(request)
    # R11; background requests do not flip it (Q33). The machine that just followed the
    # request knows whether it was asked during the current work.
    if b.conversation.blocks(request_id) and b.session.foreground.state == "running":
        b.update(RequiresActionStateUpdate())
    pending = PendingPermission(request_id, intent.tool_call_id, intent.options)
    b.set(pending=engine._pending.set(request_id, pending), open_message=None)


def _cancel_permission(b: Build, intent: CancelPermission) -> None:
    if intent.request_id not in b.engine._pending:
        raise refuse("E2", f"no pending permission request has id {intent.request_id!r}")
    b.send(CancelRequestNotification(intent.request_id))


PERMISSION_STEPS: Final[dict[type[Any], Any]] = {
    RequestPermission: _request_permission,
    CancelPermission: _cancel_permission,
}
