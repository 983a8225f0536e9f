"""A permission request's life: asked, withdrawn by the agent, answered by the client.

Owns: the steps of `RequestPermission` (R26 a title and options, R18/R19 option kinds, E2
ids, R11 the turn blocks with `requires_action`, a tool-call subject with the call's current
values; a child's request on the child, R47, R11 per child) and `CancelPermission`
(`$/cancel_request`), and `permission_answered`, how an answer is judged: a `cancelled`
outcome, an unknown outcome, a malformed answer or an error (`-32800` included) is never
approval (R25, Q17); a grant resumes the turn (R12) and starts its tool (R15) unless the turn
is winding down after a cancel (R20). `Build.pending`, `Build.decisions` and
`Build.next_request_id` are this module's; the records are `_engines/_agent_records.py`.
Must not know: how a received message is routed here (`_engines/_agent_receive.py`), the
withdrawal a `session/cancel` causes (`_engines/_agent_cancel.py`), or the rest of the turn
(`_engines/_agent_turn.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from acp_core._errors import AcpError
from acp_core._rules._conversation_events import stray_answer
from acp_core._rules._naming import naming_rule
from acp_core._rules._predicates import APPROVING_OPTION_KINDS
from acp_core._wire._codec import decode_permission_result
from acp_core._wire._json import UNSET
from acp_core._wire._jsonrpc import (
    CancelledOutcome,
    CancelRequestNotification,
    ErrorResponse,
    RequestPermissionRequest,
    Response,
    SelectedOutcome,
    ToolCallPermissionSubject,
)
from acp_core._wire._updates import (
    RequiresActionStateUpdate,
    RunningStateUpdate,
    ToolCallUpdate,
)

from ._agent_build import Build, known_tool_call, refuse, remote
from ._agent_children import send_update
from ._agent_records import PendingPermission, PermissionDecision
from ._intents import CancelPermission, RequestPermission

__all__ = ["PERMISSION_STEPS", "permission_answered"]


def _request_permission(b: Build, intent: RequestPermission) -> None:
    # The options (R26: at least one), the title and the option kinds are judged on the
    # request itself, by the checker's own rules (`Build.single`).
    engine = b.engine
    request_id = intent.request_id
    if request_id is None:
        request_id = b.next_request_id
        while request_id in b.pending or request_id in b.decisions:
            request_id += 1
        b.next_request_id = request_id + 1
        b.ids.append(request_id)
    elif request_id in b.pending:
        raise refuse("E2", f"request id {request_id!r} is already pending")
    child = intent.session_id
    if child == engine.session_id:
        child = None
    if child is not None and child not in b.children.parents:
        # a request's envelope naming a child not announced: the rule is R47's one home's
        why = f"announce {child!r} with subagent_update before asking for it"
        raise refuse(naming_rule("envelope"), why)
    state = b.session if child is None else b.children.sessions[child]
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
        options = intent.options
        pending = PendingPermission(request_id, intent.tool_call_id, options, session_id=child)
        b.pending = b.pending.set(request_id, pending)
        b.open_message = None
        return
    b.send(request)
    # R11; background requests do not flip it (Q33). The machine that just followed the
    # request knows whether it was asked during the current work.
    if b.conversation.blocks(request_id) and b.session.foreground.state == "running":
        b.update(RequiresActionStateUpdate())
    pending = PendingPermission(request_id, intent.tool_call_id, intent.options)
    b.pending = b.pending.set(request_id, pending)
    b.open_message = None


def _cancel_permission(b: Build, intent: CancelPermission) -> None:
    if intent.request_id not in b.pending:
        raise refuse("E2", f"no pending permission request has id {intent.request_id!r}")
    b.send(CancelRequestNotification(intent.request_id))


# -- the answers ----------------------------------------------------------------------------


def _decide(pending: PendingPermission, message: Response | ErrorResponse) -> PermissionDecision:
    if isinstance(message, ErrorResponse):
        return PermissionDecision(False, "error")  # -32800 included (Q17)
    try:
        outcome = decode_permission_result(message.result).outcome
    except AcpError:  # a malformed answer is never approval (R25)
        return PermissionDecision(False, "invalid")
    if isinstance(outcome, SelectedOutcome):
        kind = next((o.kind for o in pending.options if o.option_id == outcome.option_id), None)
        approved = kind in APPROVING_OPTION_KINDS
        return PermissionDecision(approved, "selected", outcome.option_id)
    if isinstance(outcome, CancelledOutcome):
        return PermissionDecision(False, "cancelled")
    return PermissionDecision(False, str(outcome.raw.get("outcome")))


def permission_answered(b: Build, message: Response | ErrorResponse) -> None:
    """The client's answer to the permission request `message.id` (R12, R15, R20, R25)."""
    engine = b.engine
    # The stored requests (`Build.pending`), not the `AgentEngine.pending` view, which asks
    # the machine about every entry for their deprecated `foreground` (until 0.3).
    pending = b.pending.get(message.id)
    if pending is None:
        raise remote(*stray_answer("client", message.id))
    decision = _decide(pending, message)
    remaining = b.pending.delete(message.id)
    # Whether it blocked the work, as the machine said before the answer (`AgentEngine.blocks`).
    blocked_work = pending.session_id is None and engine.conversation.blocks(message.id)
    b.pending = remaining
    b.decisions = b.decisions.set(message.id, decision)
    if pending.session_id is not None:
        _child_answered(b, pending, decision)
        return
    working = b.turn is not None
    cancelled = engine.conversation.cancel_pending  # the machine's cancel (R20, R21)
    blocked = any(b.conversation.blocks(r) for r, p in remaining.items() if p.session_id is None)
    if (
        working
        and not cancelled
        and not blocked
        and b.session.foreground.state == "requires_action"
    ):
        b.update(RunningStateUpdate())  # R12
    # R20: after a cancel the blocked work winds down, so a late grant starts no tool (an
    # `in_progress` would also override the client's local `cancelled` mark, Q19); once that
    # work has ended, its tool calls take no update at all (R23).
    winding_down = working and cancelled and blocked_work
    tool = pending.tool_call_id
    if tool is None or not decision.approved or winding_down or b.conversation.frozen(tool):
        return
    call = b.session.tool_calls.get(tool)
    if call is not None and call.status == "pending":
        b.update(ToolCallUpdate(tool, status="in_progress"))  # R15


def _child_answered(b: Build, pending: PendingPermission, decision: PermissionDecision) -> None:
    # A child's request (Preview), as the agent's own (R12, R15) but on the child: the
    # answer resumes it with `running` and a grant starts its tool unless it was cancelled.
    child = pending.session_id
    assert child is not None
    machine = b.child_conversations.get(child)
    cancelled = machine is not None and machine.cancel_pending
    tool = pending.tool_call_id
    frozen = machine is not None and tool is not None and machine.frozen(tool)
    asking = any(p.session_id == child for p in b.pending.values())
    state = b.children.sessions[child].foreground.state
    if not asking and state == "requires_action":
        # R12 on the child, cancelled or not: its work winds down from `running`. A child the
        # parent's cancel reached (P19) was not cancelled in the client's view of the child,
        # so any output before its `cancelled` idle needs that `running` (the parent's own
        # turn after a cancel is different: the client saw that cancel, R20).
        send_update(b, RunningStateUpdate(), child)
    if decision.approved and tool is not None and not cancelled and not frozen:
        call = b.children.sessions[child].tool_calls.get(tool)
        if call is not None and call.status == "pending":
            send_update(b, ToolCallUpdate(tool, status="in_progress"), child)


PERMISSION_STEPS: Final[dict[type[Any], Callable[[Build, Any], None]]] = {
    RequestPermission: _request_permission,
    CancelPermission: _cancel_permission,
}
