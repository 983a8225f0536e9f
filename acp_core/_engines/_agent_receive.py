"""Received client messages: which goes where, and what the agent owes the ones it cannot use.

Owns: the step of the `Received` intent (`received`): a request whose id cannot be served
(`_engines/_request_ids.py`) is answered -32600 with `id: null` before the machine sees it;
each other message passes the conversation machine (a child's answer its child's) and goes to
its part: a prompt is held by the machine (its key, `_engines/_agent_keys.py`), a cancel to
`_engines/_agent_cancel.py`, a permission answer to `_engines/_agent_permissions.py`, an item
cancel to `_engines/_agent_items.py`; an unknown request is answered -32601, an unknown
notification ignored, and a message an agent never receives, or one for another session, is
the client's `RemoteProtocolError` (E3).
Must not know: what any of those parts does with the message, or the agent's own intents.
"""

from __future__ import annotations

from acp_core._rules._predicates import request_key
from acp_core._wire._jsonrpc import (
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
)

from ._agent_build import Build, remote
from ._agent_cancel import child_cancel, session_cancelled
from ._agent_items import answer_item_cancel
from ._agent_keys import keyed_prompt
from ._agent_permissions import permission_answered
from ._intents import Received
from ._request_ids import REQUESTS, id_refusal, reuse_finding, valid_request_id

__all__ = ["received"]


def _id_refused(b: Build, request: object) -> bool:
    """A request the engine cannot serve under its id (null, not a string or an integer, or
    the id of a client request still pending) is answered -32600 with `id: null` before the
    machine sees it: the pending request of that id stays as it was."""
    request_id = getattr(request, "id", None)
    conversation = b.conversation
    error = id_refusal(request_id, lambda rid: conversation.awaits("client", rid))
    if error is None:
        return False
    if valid_request_id(request_id):  # the reuse the machine would have seen, as it says it
        first = conversation.requests.get(("client", request_key(request_id)))
        b.note(*reuse_finding("client", request_id, None if first is None else first.at))
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
            raise remote("E3", f"prompt for session {message.session_id!r}")
        b.receive(message)  # the machine queues it (`AgentEngine.prompts`)
        keyed_prompt(b, message)  # a retry is answered or joined, never held (R67, R68)
    elif type(message) is CancelSessionNotification:
        if message.session_id != engine.session_id:
            if child_cancel(b, message):  # a child's cancel (C35), or the client's C29
                return
            raise remote("E3", f"cancel for session {message.session_id!r}")
        session_cancelled(b, message)  # R21, R70, R71, P19
    elif type(message) is Response or type(message) is ErrorResponse:
        asked = b.pending.get(message.id)
        child = None if asked is None else asked.session_id
        if child is None:
            b.receive(message)
        else:
            b.child_machine(child, "client", message)  # the child's request (Preview)
        permission_answered(b, message)
    elif type(message) is CancelToolCallRequest or type(message) is CancelTerminalRequest:
        if not engine.revision.includes("2026-11"):
            raise remote("E3", f"an agent at {engine.revision.name} has no item cancel")
        b.receive(message)
        answer_item_cancel(b, message)  # R75
    elif type(message) is Request:
        b.receive(message)
        # Unknown requests get "method not found" (the protocol's automatic reply).
        b.send(ErrorResponse(message.id, RpcError(ErrorCode.METHOD_NOT_FOUND, "Method not found")))
    elif type(message) is Notification or type(message) is CancelRequestNotification:
        b.receive(message)  # unknown notifications are ignored; the client cannot cancel ours
    else:
        raise remote("E3", f"an agent does not receive {type(message).__name__}")
