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
from functools import partial
from typing import Any, Final

from acp_core._rules._check_preview_updates import background_findings, background_items
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

from ._agent_build import Build, refuse
from ._agent_children import send_on_child
from ._intents_preview import ReportBackground

__all__ = ["ITEM_STEPS", "answer_item_cancel"]


# -- the background list (R74) -------------------------------------------------------------


def _known(b: Build, kind: str, ident: str) -> bool:
    """Whether the item was announced (R74's `known`, from the engine's own view)."""
    if kind == "tool_call":
        return ident in b.session.tool_calls
    if kind == "terminal":
        return ident in b.session.terminals
    return ident == b.engine.session_id or ident in b.children.parents


def _finished(b: Build, kind: str, ident: str) -> bool:
    """Whether the item may leave the list (R74's `finished`, from the engine's own view)."""
    if kind == "tool_call":
        call = b.session.tool_calls.get(ident)
        return call is None or call.finished
    if kind == "terminal":
        terminal = b.session.terminals.get(ident)
        return terminal is None or terminal.exited
    return kind == "other" or effective_state(b.children, ident) in (None, "idle")


def _report_background(b: Build, intent: ReportBackground) -> None:
    """Ask R74's decider (the checker's `background_findings`, with the engine's view of what
    was announced and finished), remember the list, send it now as a state snapshot."""
    revision = b.engine.revision
    if not revision.includes("2026-11"):
        raise refuse("E0", f"no background list on the {revision.name} wire")
    items = intent.items
    before = None if b.background is None else tuple(background_items(b.background))
    known = partial(_known, b)
    b.refuse_found(background_findings(revision, before, items, known, partial(_finished, b)))
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
