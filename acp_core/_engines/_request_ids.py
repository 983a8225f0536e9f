"""The id of a received request: whether the receiver may serve the request under it.

Owns: `REQUESTS` (the decoded message types that are requests), `id_refusal` and its two
sentences: a request id is a string or an integer (never a boolean, a float, an object or
`null`: an answer under `null` is indistinguishable from the answer to an unreadable message),
and it is not the id of a request of the same peer still waiting for its answer. Both engines
and both connections ask it before anything else sees the request, so a refused request never
reaches a machine, and it is answered -32600 with `id: null` (an answer under its own id would
answer the pending request of that id, or nothing a peer can match).
`MAX_PEER_REQUESTS` and `load_refusal` bound what a peer can leave waiting on a connection:
its requests this side has not answered yet (held prompts, permission requests, requests
handed to the host); one more is answered -32600 under its own id and never held (E6).
`reuse_finding` is the finding for an id refused as reused: J2's, from its one home
(`_rules/_conversation_events.j2_breach`), so every party says what the checker says.
Must not know: which requests are pending (the caller says, through `pending` and the
count); what any request means.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from acp_core._rules._conversation_events import j2_breach
from acp_core._rules._conversation_state import Sender
from acp_core._rules._predicates import shown
from acp_core._wire._jsonrpc import (
    CancelTerminalRequest,
    CancelToolCallRequest,
    ErrorCode,
    PromptRequest,
    Request,
    RequestPermissionRequest,
    RpcError,
)

__all__ = [
    "MAX_PEER_REQUESTS",
    "REQUESTS",
    "id_refusal",
    "load_refusal",
    "reuse_finding",
    "valid_request_id",
]

#: Requests of the peer a connection holds unanswered at once (E6); one more is refused.
MAX_PEER_REQUESTS: Final = 1024

#: Every decoded message type that is a request (it has an id and expects an answer).
REQUESTS: Final = (
    PromptRequest,
    Request,
    RequestPermissionRequest,
    CancelToolCallRequest,
    CancelTerminalRequest,
)


def valid_request_id(request_id: object) -> bool:
    """A string or an integer (a boolean is not an integer here)."""
    kind = type(request_id)
    return kind is str or kind is int


def id_refusal(request_id: object, pending: Callable[[int | str], bool]) -> RpcError | None:
    """Why a received request may not be served under `request_id` (None: it may).

    Args:
        request_id: the received request's id.
        pending: whether a request of the same peer with this id still awaits its answer.

    Returns:
        The -32600 error to answer with `id: null`, or None.
    """
    if not valid_request_id(request_id):
        detail = f"Invalid Request: id {shown(request_id)} is not a string or an integer"
        return RpcError(ErrorCode.INVALID_REQUEST, detail)
    assert isinstance(request_id, (int, str))
    if pending(request_id):
        detail = f"Invalid Request: request id {shown(request_id)} is already pending"
        return RpcError(ErrorCode.INVALID_REQUEST, detail)
    return None


def reuse_finding(
    sender: Sender, request_id: object, first_at: int | None = None
) -> tuple[str, str]:
    """The finding `(rule, why)` for a request of `sender` that `id_refusal` refused because
    `request_id` is pending: J2 as its one home decides and words it, with the line of the
    pending request where the caller knows it (`first_at`), as the checker says it then."""
    if first_at is not None:
        found = j2_breach(reused=(sender, request_id, first_at))
    else:
        found = j2_breach(held=(sender, request_id))
    assert found is not None  # a pending id reused is always J2's
    return found


def load_refusal(waiting: int) -> RpcError | None:
    """The -32600 error for a received request when `waiting` requests of the same peer
    already await this side's answer (`MAX_PEER_REQUESTS`, E6), else None. The error goes
    out under the request's own id: the id is valid, only the load is refused."""
    if waiting < MAX_PEER_REQUESTS:
        return None
    detail = (
        f"Invalid Request: {waiting} requests already await an answer on this connection "
        f"(at most {MAX_PEER_REQUESTS}); answer or cancel some first"
    )
    return RpcError(ErrorCode.INVALID_REQUEST, detail)
