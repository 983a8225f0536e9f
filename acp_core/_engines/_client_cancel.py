"""The client's `session/cancel`: of its own session's work, or of a child's.

Owns: the steps of `SendCancel` (the cancel sent; at 2026-08 every pending permission request
of the session answered `cancelled`, C15, later ones stay open, C40; every unfinished tool
call of the current work shown `cancelled` in the view at once, C14, until a status the agent
reports wins, Q19; nothing to mark while idle, Q20) and `CancelChild` (a child's
`session/cancel` only while its link advertises `capabilities.cancel`, C29, C35).
Must not know: how the agent's answers to a cancel are judged (the conversation machine,
`_engines/_client_build.py`), how a permission request is answered
(`_engines/_client_permissions.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from acp_core._errors import LocalProtocolError
from acp_core._rules._check_preview import c29_breach
from acp_core._state._pcoll import in_order
from acp_core._state._reduce import reduce
from acp_core._state._reduce_children import child_link
from acp_core._wire._jsonrpc import CancelSessionNotification
from acp_core._wire._updates import ToolCallStatus, ToolCallUpdate

from ._client_build import Build
from ._client_children import needs_children
from ._client_permissions import answer_cancelled
from ._intents import SendCancel
from ._intents_preview import CancelChild

__all__ = ["CANCEL_STEPS"]


def _send_cancel(b: Build, intent: SendCancel) -> None:
    engine = b.engine
    b.send(CancelSessionNotification(engine.session_id))
    if engine.revision.applies("C15"):  # 2026-08; later C40 leaves them open (background)
        for request_id, asked in in_order(engine.pending):
            if asked.session_id == engine.session_id:
                answer_cancelled(b, request_id)  # C15
    if engine.session.foreground.state == "idle":
        return  # nothing is running: nothing to mark, and expect no reply (Q20)
    view = engine.view
    for tool_call_id in engine.work_tool_calls:
        call = view.tool_calls.get(tool_call_id)
        if call is not None and call.status not in ToolCallStatus.TERMINAL:
            # C14: shown cancelled at once; a later status from the agent wins (Q19).
            mark = ToolCallUpdate(tool_call_id, status="cancelled")
            view = reduce(view, mark, revision=engine.revision)
    b.view = view


def _cancel_child(b: Build, intent: CancelChild) -> None:
    """C29, C35: `session/cancel` for a child only while it advertises `capabilities.cancel`."""
    needs_children(b, intent)
    link = child_link(b.children, intent.session_id)
    if link is None:
        raise LocalProtocolError("E3", f"session {intent.session_id!r} is not a known child")
    found = c29_breach(intent.session_id, link.can_cancel)
    if found is not None:
        raise LocalProtocolError(found[0], f"{found[1]}: not cancelled")
    b.send(CancelSessionNotification(intent.session_id), intent.session_id)


CANCEL_STEPS: Final[dict[type[Any], Callable[[Build, Any], None]]] = {
    SendCancel: _send_cancel,
    CancelChild: _cancel_child,
}
