"""The work items of the 2026-11 revision: the background list and the item cancels.

Owns: the step of `ReportBackground` (announce before listing, finalize before dropping: R74;
the list then rides on every state update, `Build.update`) and the answers to the client's
`tool_call/cancel` and `terminal/cancel` (R75: accept a cancellable, unfinished item with `{}`
and its final update, anything else -32602), and `Build.background`, the only step that sets it.
Must not know: I/O; the prompt turn (`_engines/_agent_turn.py`), `session/cancel`
(`_engines/_agent_cancel.py`), how an update reaches a child (`_engines/_agent_children.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from acp_core._state._reduce_children import effective_state
from acp_core._state._session_state import SessionState
from acp_core._wire._json import EMPTY_OBJECT
from acp_core._wire._jsonrpc import (
    CancelTerminalRequest,
    CancelToolCallRequest,
    ErrorCode,
    ErrorResponse,
    Response,
    RpcError,
)
from acp_core._wire._updates import (
    IdleStateUpdate,
    RequiresActionStateUpdate,
    RunningStateUpdate,
    SessionUpdate,
    TerminalExitStatus,
    TerminalUpdate,
    ToolCallUpdate,
)
from acp_core._wire._updates_2026_11 import (
    BackgroundSubagent,
    BackgroundTerminal,
    BackgroundToolCall,
    BackgroundWork,
)

from ._agent_build import Build, refuse
from ._agent_children import send_on_child
from ._intents_preview import ReportBackground

__all__ = ["ITEM_STEPS", "answer_item_cancel"]


# -- the background list (R74) -------------------------------------------------------------


def _known(b: Build, session_id: str) -> bool:
    return session_id == b.engine.session_id or session_id in b.children.parents


def _unlisted(b: Build, item: BackgroundWork) -> str | None:
    """Why `item` may not be listed yet (announce before listing), or None."""
    session = b.session
    if type(item) is BackgroundTerminal and item.terminal_id not in session.terminals:
        return f"terminal {item.terminal_id!r} is listed before it was reported"
    if type(item) is BackgroundToolCall and item.tool_call_id not in session.tool_calls:
        return f"tool call {item.tool_call_id!r} is listed before it was reported"
    if type(item) is BackgroundSubagent and not _known(b, item.session_id):
        return f"child {item.session_id!r} is listed before it was announced"
    return None


def _unfinished(b: Build, item: BackgroundWork) -> str | None:
    """Why `item` may not leave the list yet (finalize before dropping), or None."""
    session = b.session
    if type(item) is BackgroundTerminal:
        terminal = session.terminals.get(item.terminal_id)
        if terminal is not None and not terminal.exited:
            return f"terminal {item.terminal_id!r} is dropped before it exited"
    elif type(item) is BackgroundToolCall:
        call = session.tool_calls.get(item.tool_call_id)
        if call is not None and not call.finished:
            return f"tool call {item.tool_call_id!r} is dropped before it finished"
    elif type(item) is BackgroundSubagent:
        state = effective_state(b.children, item.session_id)
        if state not in (None, "idle"):
            return f"child {item.session_id!r} is dropped while {state}"
    return None


def _report_background(b: Build, intent: ReportBackground) -> None:
    """Check R74, remember the list, send it now as a state snapshot of the current state."""
    if not b.engine.revision.includes("2026-11"):
        raise refuse("E0", f"no background list on the {b.engine.revision.name} wire")
    items = intent.items
    for item in items:
        why = _unlisted(b, item)
        if why is not None:
            raise refuse("R74", why)
    for item in b.background or ():
        if item not in items:
            why = _unfinished(b, item)
            if why is not None:
                raise refuse("R74", why)
    b.background = items
    state = b.session.foreground.state
    snapshot: SessionUpdate
    if state == "running":
        snapshot = RunningStateUpdate(background=items)
    elif state == "requires_action":
        snapshot = RequiresActionStateUpdate(background=items)
    else:  # a snapshot, not a turn end: no stop reason (a repeated one reads as a 2nd end, S2)
        snapshot = IdleStateUpdate(background=items)
    b.update(snapshot)


# -- the item cancels (R75) ----------------------------------------------------------------


def _session(b: Build, session_id: str) -> SessionState | None:
    if session_id == b.engine.session_id:
        return b.session
    tree = b.children
    return tree.sessions.get(session_id) if session_id in tree.parents else None


def answer_item_cancel(b: Build, message: CancelToolCallRequest | CancelTerminalRequest) -> None:
    """R75: accept the cancellation of a cancellable, unfinished item (answer `{}`, then the
    final update, which stops advertising the capability); anything else is answered -32602.
    The foreground state does not change (the final update is no state update)."""
    state = _session(b, message.session_id)
    final: SessionUpdate
    if isinstance(message, CancelToolCallRequest):
        call = None if state is None else state.tool_calls.get(message.tool_call_id)
        if call is None or not call.can_cancel or call.finished:
            _invalid(b, message.id, f"tool call {message.tool_call_id!r} cannot be cancelled")
            return
        final = ToolCallUpdate(message.tool_call_id, status="cancelled", capabilities=None)
    else:
        terminal = None if state is None else state.terminals.get(message.terminal_id)
        if terminal is None or not terminal.can_cancel or terminal.exited:
            _invalid(b, message.id, f"terminal {message.terminal_id!r} cannot be cancelled")
            return
        final = TerminalUpdate(
            message.terminal_id, exit_status=TerminalExitStatus(), capabilities=None
        )
    b.send(Response(message.id, EMPTY_OBJECT))
    if message.session_id == b.engine.session_id:
        b.update(final)
    else:
        send_on_child(b, message.session_id, final)


def _invalid(b: Build, request_id: int | str | None, detail: str) -> None:
    b.send(ErrorResponse(request_id, RpcError(ErrorCode.INVALID_PARAMS, detail)))


ITEM_STEPS: Final[dict[type[Any], Callable[[Build, Any], None]]] = {
    ReportBackground: _report_background,
}
