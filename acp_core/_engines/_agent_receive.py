"""Received client messages: prompts, cancels, permission answers, anything else.

Owns: the step of the `Received` intent (`received`: a request whose id cannot be served,
`_engines/_request_ids.py`, is answered -32600 with `id: null` before the machine sees it) and
`PermissionDecision`, how a permission answer is judged: a `cancelled` outcome, an unknown
outcome, a malformed answer or an error (`-32800` included) is never approval (R25, Q17); a
grant resumes the turn (R12) and starts its tool (R15) unless the turn is winding down after
a cancel (R20).
Must not know: the agent's own intents (`_engines/_agent.py`, `_engines/_agent_output.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING

from acp_core._errors import AcpError, RemoteProtocolError
from acp_core._rules._predicates import APPROVING_OPTION_KINDS
from acp_core._wire._codec import decode_permission_result
from acp_core._wire._jsonrpc import (
    CancelledOutcome,
    CancelRequestNotification,
    CancelSessionNotification,
    CancelTerminalRequest,
    CancelToolCallRequest,
    ErrorCode,
    ErrorResponse,
    Notification,
    PromptRequest,
    Request,
    Response,
    RpcError,
    SelectedOutcome,
)
from acp_core._wire._updates import RunningStateUpdate, ToolCallUpdate
from acp_core._wire._value import frozen

from ._agent_build import Build
from ._agent_cancel import cancel_foreground_children
from ._agent_keys import keyed_prompt, prompt_released, withdraw_permissions
from ._agent_preview import answer_item_cancel, child_cancel, send_update
from ._intents import Received
from ._request_ids import REQUESTS, id_refusal, valid_request_id

if TYPE_CHECKING:
    from ._agent_permissions import PendingPermission

__all__ = ["PermissionDecision", "received"]


@frozen
class PermissionDecision:
    """How a permission request was answered.

    Attributes:
        approved: True only for a selected option whose kind is `allow_*`.
        outcome: `selected`, `cancelled`, `error` or the unknown outcome's tag.
        option_id: the selected option, if any.
    """

    approved: bool
    outcome: str
    option_id: str | None = None


def _remote(rule: str, detail: str, code: int = ErrorCode.INVALID_REQUEST) -> RemoteProtocolError:
    return RemoteProtocolError(rule, detail, code)


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


def _answered(b: Build, message: Response | ErrorResponse) -> None:
    engine = b.engine
    # The stored requests, not the `pending` view: that view rebuilds every entry's
    # `foreground`, a cost per answer that grew with the number pending.
    pending = engine._pending.get(message.id)
    if pending is None:
        raise _remote("C25", f"response {message.id!r} answers no pending request")
    decision = _decide(pending, message)
    remaining = engine._pending.delete(message.id)
    foreground = pending.session_id is None and engine.conversation.blocks(message.id)
    b.set(pending=remaining, decisions=engine.decisions.set(message.id, decision))
    if pending.session_id is not None:
        _child_answered(b, pending, decision)
        return
    turn = engine.turn
    blocked = any(b.conversation.blocks(r) for r, p in remaining.items() if p.session_id is None)
    if (
        turn is not None
        and not turn.cancel_requested
        and not blocked
        and b.session.foreground.state == "requires_action"
    ):
        b.update(RunningStateUpdate())  # R12
    # R20: after a cancel the blocked work winds down, so a late grant starts no tool (an
    # `in_progress` would also override the client's local `cancelled` mark, Q19); once that
    # work has ended, its tool calls take no update at all (R23).
    winding_down = turn is not None and turn.cancel_requested and foreground
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
    machine = b.get("child_conversations").get(child)
    cancelled = machine is not None and machine.cancel_pending
    tool = pending.tool_call_id
    frozen = machine is not None and tool is not None and machine.frozen(tool)
    asking = any(p.session_id == child for p in b.get("pending").values())
    state = b.get("children").sessions[child].foreground.state
    if not asking and state == "requires_action":
        # R12 on the child, cancelled or not: its work winds down from `running`. A child the
        # parent's cancel reached (P19) was not cancelled in the client's view of the child,
        # so any output before its `cancelled` idle needs that `running` (the parent's own
        # turn after a cancel is different: the client saw that cancel, R20).
        send_update(b, RunningStateUpdate(), child)
    if decision.approved and tool is not None and not cancelled and not frozen:
        call = b.get("children").sessions[child].tool_calls.get(tool)
        if call is not None and call.status == "pending":
            send_update(b, ToolCallUpdate(tool, status="in_progress"), child)


def _id_refused(b: Build, request: object) -> bool:
    """A request the engine cannot serve under its id (null, not a string or an integer, or
    the id of a client request still pending) is answered -32600 with `id: null` before the
    machine sees it: the pending request of that id stays as it was."""
    request_id = getattr(request, "id", None)
    conversation = b.conversation
    error = id_refusal(request_id, lambda rid: conversation.awaits("client", rid))
    if error is None:
        return False
    if valid_request_id(request_id):
        b.note("J2", error.message)  # the reuse the machine would have seen
    b.at += 1  # the refused request was received: later indexes stay those of the trace
    b.send(ErrorResponse(None, error))
    return True


def received(b: Build, intent: Received) -> None:
    message = intent.single
    engine = b.engine
    if isinstance(message, REQUESTS) and _id_refused(b, message):
        return
    if type(message) is PromptRequest:
        if message.session_id != engine.session_id:
            raise _remote("E3", f"prompt for session {message.session_id!r}")
        b.receive(message)  # the machine queues it (`AgentEngine.prompts`)
        keyed_prompt(b, message)  # a retry is answered or joined, never held (R67, R68)
    elif type(message) is CancelSessionNotification:
        if message.session_id != engine.session_id:
            if child_cancel(b, message):  # a child's cancel (C35), or the client's C29
                return
            raise _remote("E3", f"cancel for session {message.session_id!r}")
        start = engine.conversation.work_started_at
        b.receive(message)  # before the answers it causes; the machine marks the work cancelled
        if engine.turn is not None:
            withdraw_permissions(b)  # R71 (Preview): $/cancel_request for each
            cancel_foreground_children(b, start)  # P19: the children part of that work
        # Prompts not accepted yet are cancelled with the work ("its prompts not yet
        # inserted", 2026-11 draft, R70), each answered -32800 so none is dropped silently
        # (Q4); retries joined to one share the answer (R68).
        cancelled = RpcError(ErrorCode.REQUEST_CANCELLED, "Request cancelled")
        for prompt in engine.prompts:
            b.send(ErrorResponse(prompt.id, cancelled))
            prompt_released(b, prompt, cancelled)
        # Otherwise a cancel while idle cancels nothing and expects no reply (Q20).
    elif type(message) is Response or type(message) is ErrorResponse:
        asked = engine._pending.get(message.id)
        child = None if asked is None else asked.session_id
        if child is None:
            b.receive(message)
        else:
            b.child_machine(child, "client", message)  # the child's request (Preview)
        _answered(b, message)
    elif type(message) is CancelToolCallRequest or type(message) is CancelTerminalRequest:
        if not engine.revision.includes("2026-11"):
            raise _remote("E3", f"an agent at {engine.revision.name} has no item cancel")
        b.receive(message)
        answer_item_cancel(b, message)  # R75
    elif type(message) is Request:
        b.receive(message)
        # Unknown requests get "method not found" (the protocol's automatic reply).
        b.send(ErrorResponse(message.id, RpcError(ErrorCode.METHOD_NOT_FOUND, "Method not found")))
    elif type(message) is Notification or type(message) is CancelRequestNotification:
        b.receive(message)  # unknown notifications are ignored; the client cannot cancel ours
    else:
        raise _remote("E3", f"an agent does not receive {type(message).__name__}")
