"""The client connection's Preview half: child traffic to the engine that owns the child,
item-cancel and retry requests, replay windows of children.

Owns: `route_child` (a `session/update` or permission request naming a child goes to the
engine of the top-level session whose tree announced it, C28; an id nobody announced is held
with the checker's finding, J3 at once or R47 at its announcement, and handed over when
announced, P3) and `announced`
(the hand-over).
Must not know: I/O; how the engine folds child traffic or keeps replay windows
(`_engines/_client_children.py`, `_engines/_client_resume.py`).
"""

from __future__ import annotations

from typing import Final

from acp_core._rules._check_preview_updates import announce_finding
from acp_core._rules._naming import naming_rule
from acp_core._wire._jsonrpc import Message, RequestPermissionRequest, UpdateSessionNotification
from acp_core._wire._updates_preview import SubagentUpdate

from ._client_children import speaks_children
from ._connection_client_state import Build, child_owner, step_session
from ._intents import Received

__all__ = [
    "ORPHAN_LIMIT",
    "ORPHAN_SESSIONS_LIMIT",
    "announced",
    "hold",
    "refused_announcement",
    "route_child",
]

#: Updates held per unannounced session id (then: findings only).
ORPHAN_LIMIT: Final = 1024
#: Distinct unannounced session ids held at once: with ORPHAN_LIMIT, what a peer can make
#: the connection hold is bounded (16 x 1,024 updates), whatever ids it invents.
ORPHAN_SESSIONS_LIMIT: Final = 16


def hold(b: Build, message: Message) -> bool:
    """Hold traffic for a session not known yet (Q12, P3): True if held; False when a bound
    is reached (a finding says so; the caller reports the update as it would unheld)."""
    session_id = getattr(message, "session_id", "")
    held = b.orphans.get(session_id, ())
    if len(held) >= ORPHAN_LIMIT:
        b.finding("E3", f"{ORPHAN_LIMIT} updates already held for {session_id!r}: dropped")
        return False
    if not held and len(b.orphans) >= ORPHAN_SESSIONS_LIMIT:
        b.finding(
            "E3",
            f"updates are held for {ORPHAN_SESSIONS_LIMIT} unknown session ids already: "
            f"{session_id!r} dropped",
        )
        return False
    b.orphans = b.orphans.set(session_id, (*held, message))
    return True


def refused_announcement(b: Build, owner: str, message: UpdateSessionNotification) -> bool:
    """R48 as a connection sees it, before `message` reaches `owner`'s tree: a
    `subagent_update` may not make another top-level session of this connection a child
    (refused: each session's tree knows only itself, so it would take it), nor move a child
    of another session's tree to a second parent (the first announcement keeps it, P5): True,
    drop it. Within `owner`'s tree the tree keeps the first parent (or ignores a loop) with
    its own diagnostic. Every finding is the checker's `announce_finding`, asked with what
    the checker sees of the whole connection (the owner's tree, the child's parent in
    another tree, the top-level sessions), and made only where no judge runs (a v1 wire
    behind a Preview connection, `judged_finding`): the judge is the checker itself."""
    update = message.update
    if type(update) is not SubagentUpdate:
        return False
    child, announcer = update.session_id, message.session_id
    parents = b.sessions[owner].engine.children.parents
    other = child_owner(b, child)
    elsewhere = child in b.sessions and child != owner
    if other is not None and other != owner:
        elsewhere = True
        parent = b.sessions[other].engine.children.parents.get(child)
        if parent is not None:
            parents = parents.set(child, parent)
    found = announce_finding(parents, announcer, child, b.sessions)
    if found is not None:
        b.judged_finding(*found)
    return elsewhere


def route_child(b: Build, message: UpdateSessionNotification | RequestPermissionRequest) -> bool:
    """Traffic for an id that is no top-level session of this connection, at the Preview:
    stepped into the owning engine, or held (J3 at once; before `initialize`, R47 or R61 at
    its announcement). False when the revision has no children (the caller reports what it
    always did)."""
    if not speaks_children(b.conn.revision):
        return False
    owner = child_owner(b, message.session_id)
    if owner is None:
        if isinstance(message, RequestPermissionRequest):
            return False  # answered -32002 by the caller: no session of ours
        if not hold(b, message):
            return True
        if any(p.method == "session/new" for p in b.outgoing.values()):
            return True  # perhaps the new session's first update (Q12)
        # J3 where the checker's `OpenSessions` judges it (a connection that began with
        # `initialize`), at once; the judge then adds nothing at the announcement (one finding
        # a fault). Before that, the judge decides at the announcement, as the checker does
        # for a recording that starts late (R47, or R61 after a resume: `naming_rule` and
        # `_rules/_check_preview_updates._announce`); said here only where no judge runs.
        why = (
            f"update for {message.session_id!r}, which no session/new answer gave and no "
            "subagent_update announced yet: held until one does"
        )
        rules = b.rules.exchange
        unknown = None if rules is None else rules.opened.follow("agent", message)[1]
        if unknown is not None:
            b.finding(unknown[0], why)
            b.judged_envelopes.append(message)
        else:
            b.judged_finding(naming_rule("envelope"), why)
        return True
    if isinstance(message, UpdateSessionNotification) and refused_announcement(b, owner, message):
        return True
    step_session(b, owner, Received(message))
    if isinstance(message, UpdateSessionNotification):
        announced(b, owner, message)
    return True


def announced(b: Build, owner: str, message: UpdateSessionNotification) -> None:
    """After `message` was stepped into `owner`'s engine: if it announced a child that has
    held traffic, hand that traffic over in arrival order (P3)."""
    update = message.update
    if type(update) is not SubagentUpdate or update.session_id not in b.orphans:
        return
    if update.session_id not in b.sessions[owner].engine.children.parents:
        return  # refused (a second parent, a top-level id): the traffic stays held
    held = b.orphans[update.session_id]
    b.orphans = b.orphans.delete(update.session_id)
    for item in held:
        step_session(b, owner, Received(item))
