"""The agent's permission requests, as the client holds and answers them.

Owns: `Build.pending` for the client's own session (a child's request is made pending by
`_engines/_client_children.py`): a request received is checked (the single-message rules),
its `tool_call` subject folded (T10) and held; `AnswerPermission` answers it with a selected
option (E2, E4); `answer_cancelled` answers it with the `cancelled` outcome (after our
cancel, C15, 2026-08 only; or when the agent withdraws it with `$/cancel_request`, Q17, C40).
Must not know: when the client cancels (`_engines/_client_cancel.py`), how a received
message is routed here (`_engines/_client_receive.py`).
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Any, Final

from acp_core._errors import LocalProtocolError
from acp_core._rules._check_message import MessageRules, StateSeen
from acp_core._wire._codec import encode_result
from acp_core._wire._json import JsonValue, freeze_json
from acp_core._wire._jsonrpc import (
    CancelledOutcome,
    CancelRequestNotification,
    RequestPermissionRequest,
    RequestPermissionResult,
    Response,
    SelectedOutcome,
    ToolCallPermissionSubject,
)
from acp_core._wire._revision import Revision

from ._client_build import Build
from ._client_view import apply_update
from ._intents import AnswerPermission

__all__ = [
    "PERMISSION_STEPS",
    "answer_cancelled",
    "permission_received",
    "permission_withdrawn",
]


@functools.cache
def _cancelled(revision: Revision) -> JsonValue:
    # Built on first use, not at import: encoding derives the codec's tables (issue 15).
    return freeze_json(
        encode_result(RequestPermissionResult(CancelledOutcome()), revision=revision)
    )


def answer_cancelled(b: Build, request_id: int | str | None) -> None:
    """Answer the pending request `request_id` with the `cancelled` outcome (C15, Q17)."""
    pending = b.pending
    asked = pending.get(request_id)
    b.send(
        Response(request_id, _cancelled(b.engine.revision)),
        None if asked is None else asked.session_id,
    )
    b.pending = pending.delete(request_id)


def permission_received(b: Build, message: RequestPermissionRequest) -> None:
    """A permission request of the client's own session (the machine followed it)."""
    engine = b.engine
    b.record(MessageRules(engine.revision).permission(StateSeen(engine.session), message))
    if isinstance(message.subject, ToolCallPermissionSubject):
        apply_update(b, message.subject.tool_call, subject=True)  # T10
    b.pending = engine.pending.set(message.id, message)
    # A policy (this client obeys C15 by answering), scoped by where C15 holds; the checker
    # judges a client that does not (`_conversation_effects.c15_breach`).
    if b.conversation.cancel_at is not None and engine.revision.applies("C15"):
        answer_cancelled(b, message.id)  # C15: everything pending after a cancel


def permission_withdrawn(b: Build, message: CancelRequestNotification) -> None:
    """The agent's `$/cancel_request`: an open permission request is answered `cancelled`
    (Q17, C40); any other id is no request of ours to answer."""
    if message.request_id in b.engine.pending:
        answer_cancelled(b, message.request_id)  # Q17


def _answer_permission(b: Build, intent: AnswerPermission) -> None:
    request = b.engine.pending.get(intent.request_id)
    if request is None:
        raise LocalProtocolError(
            "E2", f"no pending permission request has id {intent.request_id!r}"
        )
    if all(o.option_id != intent.option_id for o in request.options):
        raise LocalProtocolError(
            "E4", f"option {intent.option_id!r} was not offered by request {intent.request_id!r}"
        )
    result = encode_result(
        RequestPermissionResult(SelectedOutcome(intent.option_id)), revision=b.engine.revision
    )
    b.send(Response(intent.request_id, freeze_json(result)), request.session_id)
    b.pending = b.engine.pending.delete(intent.request_id)


PERMISSION_STEPS: Final[dict[type[Any], Callable[[Build, Any], None]]] = {
    AnswerPermission: _answer_permission,
}
