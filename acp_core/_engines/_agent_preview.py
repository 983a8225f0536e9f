"""The agent engine's 2026-11 / Preview half: child sessions, background list, item cancels.

Owns: the steps of `SendUpdate` (any update on the agent's session or on an announced
child's: announce before use R47, one parent R48, grandchildren on their own parent R49,
references only to known sessions R56; every value rule of one update, absolute child paths
R52 among them, is the checker's own judgement, asked by `Build.obey`) and `ReportBackground`
(announce before listing, finalize before dropping: R74), the answers to `tool_call/cancel`
and `terminal/cancel` (R75), and a client's `session/cancel` of a child (C35, R53).
Must not know: I/O; the 2026-08 prompt lifecycle (`_engines/_agent.py`), idempotency keys and
permission withdrawal (`_engines/_agent_keys.py`).

Where each rule lives. What the client knows about sessions is the connection's view,
`SessionTree` (`_state/_reduce_children.py`): the engine reduces what it sends into the same
tree a client keeps and refuses an update whose reduction the tree would diagnose
(`_TREE_RULES`), so the view's diagnostics and the engine's refusals cannot disagree. Each
child's lifecycle (running, idle, cancel) is its own conversation machine
(`Build.child_machine`), so R21, R23 and the rest apply per child (R50) with their one home.

`AgentEngine.children` is that tree: the agent's own session is its root (it holds the links
of the children announced on it; the session itself is `AgentEngine.session`), the children
hold everything sent on them.
"""

from __future__ import annotations

from typing import Any, Final

from acp_core._errors import AcpError
from acp_core._state._reduce_children import (
    CLOSED_SESSION_TRAFFIC,
    REPARENT,
    UNANNOUNCED_SESSION,
    UNKNOWN_SESSION_REFERENCE,
    SessionTree,
    child_link,
    effective_state,
    open_session,
    reduce_tree,
)
from acp_core._state._session_state import SessionState, new_session
from acp_core._wire._codec import decode_part, encode_part
from acp_core._wire._json import EMPTY_OBJECT
from acp_core._wire._jsonrpc import (
    CancelSessionNotification,
    CancelTerminalRequest,
    CancelToolCallRequest,
    ErrorCode,
    ErrorResponse,
    Response,
    RpcError,
)
from acp_core._wire._revision import V2_PREVIEW, Revision
from acp_core._wire._updates import (
    IdleStateUpdate,
    OtherStateUpdate,
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
from acp_core._wire._updates_preview import SubagentUpdate, UnknownStateUpdate

from ._agent_build import Build, refuse
from ._agent_cancel import cancel_child_work
from ._intents_preview import ReportBackground, SendUpdate

__all__ = ["PREVIEW_STEPS", "answer_item_cancel", "child_cancel"]

#: The tree's diagnostics, as the agent rules they report (`reduce_tree` names them), each
#: with what to do instead.
_TREE_RULES: Final = {
    UNANNOUNCED_SESSION: ("R47", "announce it first with SendUpdate(SubagentUpdate(...))"),
    UNKNOWN_SESSION_REFERENCE: ("R47", "announce it first with SendUpdate(SubagentUpdate(...))"),
    REPARENT: ("R48", "a child keeps its first parent: patch it with session_id=<that parent>"),
    CLOSED_SESSION_TRAFFIC: ("R76", "the session was closed: send nothing more for it"),
}
_OWN_STATE: Final = (
    RunningStateUpdate,
    IdleStateUpdate,
    RequiresActionStateUpdate,
    UnknownStateUpdate,
    OtherStateUpdate,
)


def on_wire(revision: Revision, update: SessionUpdate) -> bool:
    """Whether `revision`'s wire carries `update` as it is: what the strict decoder of that
    revision reads back is the same value (a later variant would read as unknown, a later
    field would land in `extra`)."""
    try:
        wire = encode_part("SessionUpdate", update, revision=revision)
        back = decode_part("SessionUpdate", wire, revision=revision)
    except AcpError:
        return False
    return bool(back == update)


def _reduce(b: Build, target: str, update: SessionUpdate) -> SessionTree:
    """The tree after sending `update` on `target`; refused when the tree would diagnose it."""
    tree: SessionTree = b.get("children")
    if b.engine.session_id not in tree.sessions:  # an engine built without `new_agent`
        tree = open_session(tree, b.engine.session_id, revision=b.engine.revision)
    after = reduce_tree(tree, target, update, revision=b.engine.revision)
    for diagnostic in after.diagnostics[len(tree.diagnostics) :]:
        rule, hint = _TREE_RULES.get(diagnostic.rule, _TREE_RULES[UNANNOUNCED_SESSION])
        raise refuse(rule, f"{diagnostic.message} ({diagnostic.path}): {hint}")
    return after


def _to_child(b: Build, target: str, update: SessionUpdate) -> None:
    """Send `update` on the announced child `target`: the tree judges it (R47, R48, R76),
    then the checker's judgement of one update, on the child as it was (`Build.obey`)."""
    tree: SessionTree = b.get("children")
    after = _reduce(b, target, update)
    before = tree.sessions.get(target)
    b.set(children=after)
    b.update_child(target, update, before if before is not None else new_session(target))


def send_update(b: Build, update: SessionUpdate, session_id: str | None) -> None:
    """`SendUpdate`: report `update` on the agent's session or on an announced child's."""
    engine = b.engine
    # The intent's value was read back at the Preview when it was built (`_intents_preview`),
    # so only an earlier revision needs the round trip.
    if engine.revision is not V2_PREVIEW and not on_wire(engine.revision, update):
        raise refuse(
            "E0",
            f"{type(update).__name__} as given is not on the {engine.revision.name} wire "
            "(a later revision's update or field)",
        )
    own = session_id is None or session_id == engine.session_id
    if own and isinstance(update, _OWN_STATE):
        raise refuse("E1", "the agent's own state is reported by StartWork / EndTurn")
    target = engine.session_id if own else session_id
    assert target is not None
    if type(update) is SubagentUpdate and update.session_id == engine.session_id:
        raise refuse("R48", "the agent's own session cannot become a child")
    if not own:
        _to_child(b, target, update)
        return
    if type(update) is SubagentUpdate:  # an announcement on the agent's own session
        b.set(children=_reduce(b, target, update))
    b.update(update)  # named sessions (R47, R56) and `Build.obey` (R52 ...), for every intent


def _send_update(b: Build, intent: SendUpdate) -> None:
    send_update(b, intent.update, intent.session_id)


# -- the background list (R74) -------------------------------------------------------------


def _known(b: Build, session_id: str) -> bool:
    return session_id == b.engine.session_id or session_id in b.get("children").parents


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
        state = effective_state(b.get("children"), item.session_id)
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
    for item in b.get("background") or ():
        if item not in items:
            why = _unfinished(b, item)
            if why is not None:
                raise refuse("R74", why)
    b.set(background=items)
    state = b.session.foreground.state
    snapshot: SessionUpdate
    if state == "running":
        snapshot = RunningStateUpdate(background=items)
    elif state == "requires_action":
        snapshot = RequiresActionStateUpdate(background=items)
    else:  # a snapshot, not a turn end: no stop reason (a repeated one reads as a 2nd end, S2)
        snapshot = IdleStateUpdate(background=items)
    b.update(snapshot)


# -- what the client asks of children and items --------------------------------------------


def child_cancel(b: Build, message: CancelSessionNotification) -> bool:
    """`session/cancel` naming a child (Preview): followed by the child's machine while the
    child advertises `capabilities.cancel` (C35, R53), so its work must end `cancelled`
    (R21); without the capability it changes nothing and is kept as the client's violation
    C29 (a notification gets no error answer). False: not a child of this engine."""
    tree: SessionTree = b.get("children")
    link = child_link(tree, message.session_id)
    if link is None:
        return False
    if link.can_cancel:
        cancel_child_work(b, message.session_id, message)  # R21, R71 for the child's work
    else:
        b.note("C29", f"session/cancel for child {message.session_id!r}, which has no cancel")
    return True


def _session(b: Build, session_id: str) -> SessionState | None:
    if session_id == b.engine.session_id:
        return b.session
    tree: SessionTree = b.get("children")
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
        _to_child(b, message.session_id, final)


def _invalid(b: Build, request_id: int | str | None, detail: str) -> None:
    b.send(ErrorResponse(request_id, RpcError(ErrorCode.INVALID_PARAMS, detail)))


PREVIEW_STEPS: Final[dict[type[Any], Any]] = {
    SendUpdate: _send_update,
    ReportBackground: _report_background,
}
