"""The client's item cancels (2026-11): `tool_call/cancel` and `terminal/cancel`.

Owns: the steps of `CancelToolCall` and `CancelTerminal` (only while the item, of the
client's session or a child's, advertises `capabilities.cancel`, C41, P20; the request id
numbered by `Build.request_id`), `Build.requests` (the item-cancel requests not answered yet,
by request key: (method, session id)), and `cancel_answered`, the answer to one (acceptance
only: the final state comes as updates, R75).
Must not know: the prompt lifecycle (`_engines/_client_prompts.py`), how an answer is routed
here (`_engines/_client_receive.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from acp_core._errors import LocalProtocolError
from acp_core._rules._check_preview import c41_breach
from acp_core._rules._predicates import request_key
from acp_core._wire._jsonrpc import (
    CancelTerminalRequest,
    CancelToolCallRequest,
    ErrorResponse,
    Method,
    Response,
)

from ._client_build import Build
from ._client_children import session_of
from ._intents_preview import CancelTerminal, CancelToolCall

__all__ = ["ITEM_STEPS", "cancel_answered"]


def _needs_items(b: Build, intent: object) -> None:
    if not b.engine.revision.includes("2026-11"):
        raise LocalProtocolError(
            "E0", f"{type(intent).__name__}: revision {b.engine.revision.name} has no item cancel"
        )


def _cancel_item(b: Build, intent: CancelToolCall | CancelTerminal) -> None:
    """C41: `tool_call/cancel` / `terminal/cancel` only while the item advertises
    `capabilities.cancel` (of the client's session or a child's: P20)."""
    _needs_items(b, intent)
    state = session_of(b, intent.session_id)
    if isinstance(intent, CancelToolCall):
        item_id, method = intent.tool_call_id, Method.TOOL_CALL_CANCEL
        found: Any = state.tool_calls.get(item_id)
    else:
        item_id, method = intent.terminal_id, Method.TERMINAL_CANCEL
        found = state.terminals.get(item_id)
    refused = c41_breach(method, item_id, found is not None and found.can_cancel)
    if refused is not None:
        raise LocalProtocolError(refused[0], f"{refused[1]}: not sent")
    request_id = b.request_id(intent.request_id)
    make = CancelToolCallRequest if isinstance(intent, CancelToolCall) else CancelTerminalRequest
    b.send(make(request_id, state.session_id, item_id), state.session_id)
    b.requests = b.requests.set(request_key(request_id), (method, state.session_id))


def cancel_answered(b: Build, message: Response | ErrorResponse) -> str | None:
    """The answer to one of our item-cancel requests (acceptance only; the final state comes
    as updates, R75): the session it belongs to, or None when the id is not one of them."""
    requests = b.requests
    key = request_key(message.id)
    asked = requests.get(key)
    if asked is None:
        return None
    b.requests = requests.delete(key)
    return asked[1]


ITEM_STEPS: Final[dict[type[Any], Callable[[Build, Any], None]]] = {
    CancelToolCall: _cancel_item,
    CancelTerminal: _cancel_item,
}
