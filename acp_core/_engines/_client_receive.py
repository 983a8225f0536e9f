"""Received agent messages: which goes where, and what the client owes the ones it cannot use.

Owns: the step of the `Received` intent: a request whose id cannot be served (null, not a
string or an integer, or the id of a permission request still pending) is answered -32600
with `id: null` before any machine sees it (`_engines/_request_ids.py`); traffic for another
session id is a child's at the Preview (C28, `_engines/_client_children.py`), else E3; each
other message passes the session's conversation machine and goes to its part: an update to
the view (`_engines/_client_view.py`; a `subagent_update` or the replay marker to the tree
as well), a permission request or its withdrawal to `_engines/_client_permissions.py`, an
answer to the prompt (`_engines/_client_prompts.py`) or item cancel
(`_engines/_client_items.py`) it answers; unknown requests are answered -32601 (C26),
notifications never (C25).
Must not know: what any of those parts does with the message, or the client's own intents.
"""

from __future__ import annotations

from acp_core._errors import RemoteProtocolError
from acp_core._rules._check_message import update_findings
from acp_core._rules._predicates import request_key
from acp_core._wire._jsonrpc import (
    CancelRequestNotification,
    ErrorCode,
    ErrorResponse,
    Notification,
    PromptRequest,
    Request,
    RequestPermissionRequest,
    Response,
    RpcError,
    UpdateSessionNotification,
)
from acp_core._wire._updates_preview import ReplayComplete, SubagentUpdate

from ._client_build import Build
from ._client_children import child_received, child_update, speaks_children
from ._client_items import cancel_answered
from ._client_permissions import permission_received, permission_withdrawn
from ._client_prompts import prompt_answered
from ._client_view import apply_update
from ._intents import Received
from ._request_ids import REQUESTS, id_refusal, reuse_finding, valid_request_id

__all__ = ["received"]


def _remote(rule: str, detail: str) -> RemoteProtocolError:
    return RemoteProtocolError(rule, detail, ErrorCode.INVALID_REQUEST)


def _id_refused(b: Build, request: object) -> bool:
    """An agent request the client cannot serve under its id (null, not a string or an
    integer, or the id of a permission request still pending, a child's included) is answered
    -32600 with `id: null` before any machine sees it: the pending request stays as it was."""
    request_id = getattr(request, "id", None)
    error = id_refusal(request_id, b.pending.__contains__)
    if error is None:
        return False
    b.at += 1  # the refused request was received: later indexes stay those of the trace
    if valid_request_id(request_id):  # the reuse a machine would have seen (at its index)
        first = b.conversation.requests.get(("agent", request_key(request_id)))  # (a child's: None)
        b.record([reuse_finding("agent", request_id, None if first is None else first.at)])
    b.send(ErrorResponse(None, error))
    return True


def received(b: Build, intent: Received) -> None:
    message = intent.single
    engine = b.engine
    if isinstance(message, REQUESTS) and _id_refused(b, message):
        return
    session_id = getattr(message, "session_id", engine.session_id)
    if session_id != engine.session_id:
        if not speaks_children(engine.revision) or not isinstance(
            message, (UpdateSessionNotification, RequestPermissionRequest)
        ):
            raise _remote("E3", f"{type(message).__name__} for session {session_id!r}")
        child_received(b, message)  # C28: a child's traffic, never E3
        return
    if isinstance(message, (Response, ErrorResponse)):
        asked = engine.requests.get(request_key(message.id))
        b.receive(message, None if asked is None else asked[1])
    else:
        b.receive(message)  # before any answer this step sends in reply
    if isinstance(message, UpdateSessionNotification):
        if type(message.update) is ReplayComplete:
            # The marker closes the replay window `resume_sent` opened in the tree; the view
            # keeps no window of its own (it stays what the agent's engine holds). Judged on
            # its own first, as every update (R43: unknown keys on the marker too).
            b.record(update_findings(b.engine.revision, b.session, message.update))
            child_update(b, message)
            return
        apply_update(b, message.update)
        if isinstance(message.update, SubagentUpdate):
            child_update(b, message)  # C27: the child is registered
    elif isinstance(message, RequestPermissionRequest):
        permission_received(b, message)
    elif isinstance(message, CancelRequestNotification):
        permission_withdrawn(b, message)
    elif isinstance(message, (Response, ErrorResponse)):
        if not prompt_answered(b, message) and cancel_answered(b, message) is None:
            raise _remote("E3", f"response {message.id!r} answers no request of this client")
    elif isinstance(message, (Request, PromptRequest)):
        # Every request gets its answer; one the client never serves (a `session/prompt` from
        # the agent: J2, as the machine says) gets method-not-found.
        b.send(ErrorResponse(message.id, RpcError(ErrorCode.METHOD_NOT_FOUND, "Method not found")))
    elif isinstance(message, Notification):
        pass  # C26: unknown notifications are ignored (and never answered, C25)
    else:
        raise _remote("E3", f"a client does not receive {type(message).__name__}")
