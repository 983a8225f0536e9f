"""What a cancel of a session reaches in its child sessions (the Preview).

Owns: which children a parent's `session/cancel` cancels with its foreground work (decision
P19: the children whose work is part of it; never the listed background children, R73), the
cancel of one child's work (its conversation machine follows the cancel, so the work must end
idle + `cancelled`, R21 per child; its requests of that work are withdrawn, R71), and
`cancelled_children`, what the embedding agent must stop.
Must not know: the parent's own turn (`_engines/_agent.py`), how answers are judged
(`_engines/_agent_receive.py`), the connection's close (`_engines/_connection_agent_setup.py`).

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

from typing import TYPE_CHECKING

from acp_core._rules._conversation import Conversation
from acp_core._state._pcoll import PMap, in_order
from acp_core._state._reduce_children import SessionTree, children_of
from acp_core._wire._jsonrpc import CancelRequestNotification, CancelSessionNotification
from acp_core._wire._updates_2026_11 import BackgroundSubagent

from ._agent_build import Build

if TYPE_CHECKING:
    from ._agent import AgentEngine

__all__ = [
    "cancel_child_work",
    "cancel_foreground_children",
    "cancelled_children",
    "descendants",
]


def cancel_child_work(b: Build, child: str, message: CancelSessionNotification) -> None:
    """The child's machine follows `message` (the client's, or the parent's cancel reaching
    it), and the child's requests of the cancelled work are withdrawn (R71 per child)."""
    b.child_machine(child, "client", message)
    machine: Conversation = b.get("child_conversations")[child]
    for request_id, pending in in_order(b.get("pending")):
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
    tree: SessionTree = b.get("children")
    machines: PMap[str, Conversation] = b.get("child_conversations")
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


def cancelled_children(engine: AgentEngine) -> tuple[str, ...]:
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
