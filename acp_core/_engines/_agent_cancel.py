"""What the client's `session/cancel` reaches: the turn's requests, held prompts, children.

Owns: `session_cancelled`, the agent's session cancelled (the machine marks the work
cancelled, so the turn must end `cancelled`, R21; its permission requests are withdrawn with
`$/cancel_request`, R71 from the Preview on; every prompt held and not accepted yet is
answered -32800, R70, Q4, and its key released, R68); `child_cancel`, a child's session
cancelled by the client (C35, R53, else the client's C29); which children a parent's cancel
reaches with its foreground work (decision P19: the children whose work is part of it; never
the listed background children, R73); the cancel of one child's work (its conversation
machine follows the cancel, so the work must end idle + `cancelled`, R21 per child; its
requests of that work are withdrawn, R71); and `cancelled_children`, what the embedding agent
must stop.
Must not know: how the turn ends (`_engines/_agent_turn.py`), how answers are judged
(`_engines/_agent_permissions.py`), the connection's close
(`_engines/_connection_agent_setup.py`).

What "part of the cancelled foreground work" means here (P19). A descendant session is part
of it when its own current work (as its conversation machine followed it: a `running` or
`requires_action` on the child's own stream) began during the parent's current work, and
neither it nor a session between it and the parent is listed in its parent's latest
`background` list. Work a child began before the parent's turn is background activity (R40),
and a listed child is background by the agent's own word (R73): the cancel leaves both alone.
A child whose state is only mirrored by its parent's `subagent_update` has no work of its
own to cancel yet. The engine cannot stop anything: it follows the cancel in each child's
machine (so a later idle of that child other than `cancelled` is refused) and says which
children the cancel reached (`AgentEngine.cancelled_children`, `CancelReceived.children`).
"""

from __future__ import annotations

from acp_core._rules._check_preview import c29_breach
from acp_core._state._pcoll import in_order
from acp_core._state._reduce_children import SessionTree, child_link, children_of
from acp_core._wire._fields import PREVIEW_NAME
from acp_core._wire._jsonrpc import (
    CancelRequestNotification,
    CancelSessionNotification,
    ErrorCode,
    ErrorResponse,
    RpcError,
)
from acp_core._wire._updates_2026_11 import BackgroundSubagent

from ._agent_build import AgentView, Build
from ._agent_keys import prompt_released

__all__ = [
    "cancelled_children",
    "child_cancel",
    "descendants",
    "session_cancelled",
]


def session_cancelled(b: Build, message: CancelSessionNotification) -> None:
    """The client's `session/cancel` of the agent's own session."""
    engine = b.engine
    start = engine.conversation.work_started_at
    b.receive(message)  # before the answers it causes; the machine marks the work cancelled
    if b.turn is not None:
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


def withdraw_permissions(b: Build) -> None:
    """R71 (a MUST from the Preview on; P25 keeps 2026-11 at SHOULD, so nothing is sent
    there): on `session/cancel`, withdraw each pending permission request of the cancelled
    foreground work with `$/cancel_request`; background requests stay open (C40)."""
    if not b.engine.revision.includes(PREVIEW_NAME):
        return
    for request_id, pending in in_order(b.pending):
        if pending.session_id is None and b.conversation.blocks(request_id):
            b.send(CancelRequestNotification(request_id))


def child_cancel(b: Build, message: CancelSessionNotification) -> bool:
    """`session/cancel` naming a child (Preview): followed by the child's machine while the
    child advertises `capabilities.cancel` (C35, R53), so its work must end `cancelled`
    (R21); without the capability it changes nothing and is kept as the client's violation
    C29 (a notification gets no error answer). False: not a child of this engine."""
    link = child_link(b.children, message.session_id)
    if link is None:
        return False
    found = c29_breach(message.session_id, link.can_cancel)
    if found is None:
        cancel_child_work(b, message.session_id, message)  # R21, R71 for the child's work
    else:
        b.note(*found)
    return True


def cancel_child_work(b: Build, child: str, message: CancelSessionNotification) -> None:
    """The child's machine follows `message` (the client's, or the parent's cancel reaching
    it), and the child's requests of the cancelled work are withdrawn (R71 per child)."""
    b.child_machine(child, "client", message)
    machine = b.child_conversations[child]
    for request_id, pending in in_order(b.pending):
        if pending.session_id == child and machine.blocks(request_id):
            b.send(CancelRequestNotification(request_id))


def _listed(b: Build, tree: SessionTree, parent: str, child: str) -> bool:
    state = b.session if parent == b.engine.session_id else tree.sessions.get(parent)
    return state is not None and state.foreground.is_background(BackgroundSubagent, child)


def cancel_foreground_children(b: Build, start: int | None) -> tuple[str, ...]:
    """P19: cancel the work of every descendant that is part of the parent's foreground work
    begun at `start` (see the module docstring); returns them, parents before children."""
    if start is None:
        return ()
    tree = b.children
    machines = b.child_conversations
    reached: list[str] = []
    todo = [b.engine.session_id]
    while todo:
        parent = todo.pop(0)
        for child in children_of(tree, parent):
            if _listed(b, tree, parent, child):
                continue  # background with everything under it (R73)
            todo.append(child)
            machine = machines.get(child)
            began = None if machine is None else machine.work_started_at
            if machine is None or began is None or began < start or machine.cancel_at is not None:
                continue
            cancel_child_work(b, child, CancelSessionNotification(child))
            reached.append(child)
    return tuple(reached)


def descendants(tree: SessionTree, root: str) -> tuple[str, ...]:
    """Every session under `root`, parents before children, each level in announcement order."""
    found: list[str] = []
    todo = [root]
    while todo:
        children = children_of(tree, todo.pop(0))
        found.extend(children)
        todo.extend(children)
    return tuple(found)


def cancelled_children(engine: AgentView) -> tuple[str, ...]:
    """The child sessions whose work was cancelled (by the client's `session/cancel` of the
    child, C35, or with their parent's foreground work, P19) and has not ended yet, parents
    first: the embedding agent stops them and reports each one's idle + `cancelled`."""
    machines = engine.child_conversations
    if not machines:
        return ()
    return tuple(
        child
        for child in descendants(engine.children, engine.session_id)
        if (machine := machines.get(child)) is not None and machine.cancel_pending
    )
