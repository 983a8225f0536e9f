"""The view of every session of one connection: top-level sessions, their children, routing.

Owns: `SessionTree` (sessions by id, the child registry, orphan buckets, closed ids,
resume requests in flight), `reduce_tree` (route one `session/update` to its session, register
children on `subagent_update`, §3.2), the resume bookkeeping (`begin_resume`, `end_resume`,
§3.4), `close_session` (P13, C55), and the queries `children_of`, `parent_of`,
`effective_state`.
Must not know: JSON, the codec, engines; what an update does inside one session (`reduce`).

Bad input never raises (C33): traffic for an id nobody announced waits in an orphan bucket
with a diagnostic and is replayed into the child when it is announced (P3); a child claimed by
a second parent keeps its first parent (R48, P5); traffic for a closed session is dropped.
"""

from __future__ import annotations

from typing import Final, Literal, TypeAlias

import attrs

from acp_core._errors import Diagnostic
from acp_core._wire._content import SessionReference
from acp_core._wire._fastnew import evolve_frozen
from acp_core._wire._revision import DEFAULT_REVISION, Revision
from acp_core._wire._updates import SessionUpdate, ToolCallContentChunk, ToolCallUpdate
from acp_core._wire._updates_2026_11 import BackgroundSubagent
from acp_core._wire._updates_preview import SessionMessage, SubagentUpdate
from acp_core._wire._value import frozen

from ._pcoll import EMPTY_VEC, PMap, PVec
from ._reduce import reduce
from ._reduce_preview import UNCONFIRMED, begin_replay, end_replay
from ._session_state import Foreground, SessionState, new_session
from ._state_extras import ChildLink
from ._state_freezing import freezing_state_fields

__all__ = [
    "CLOSED_SESSION_TRAFFIC",
    "REPARENT",
    "UNANNOUNCED_SESSION",
    "UNKNOWN_SESSION_REFERENCE",
    "NameKind",
    "SessionTree",
    "begin_resume",
    "child_link",
    "children_of",
    "close_session",
    "effective_state",
    "end_resume",
    "new_tree",
    "open_session",
    "parent_of",
    "reduce_tree",
    "session_names",
]

#: Diagnostics of the tree (docs/semantics.md, "Preview").
UNANNOUNCED_SESSION: Final = "reduce.unannounced-session"  # R47 / C33
REPARENT: Final = "reduce.reparent"  # R48 / P5
CLOSED_SESSION_TRAFFIC: Final = "reduce.closed-session-traffic"  # R76 / C55
UNKNOWN_SESSION_REFERENCE: Final = "reduce.unknown-session-reference"  # R56 / R74

_EMPTY: Final[PMap[str, object]] = PMap()


@frozen(field_transformer=freezing_state_fields)
class SessionTree:
    """What a client knows about every session of one connection, as one value.

    Attributes:
        sessions: every known session (top-level and child) by id.
        parents: child id -> its parent's id (filled only by `subagent_update`).
        orphans: updates for ids nobody announced yet, per id, in arrival order.
        closed: ids of sessions that were closed (with their children); traffic is dropped.
        resumes: resume requests in flight that asked for a replay: request id -> session id.
        diagnostics: what the tree tolerated, in order.
    """

    sessions: PMap[str, SessionState] = attrs.field(factory=PMap)
    parents: PMap[str, str] = attrs.field(factory=PMap)
    orphans: PMap[str, PVec[SessionUpdate]] = attrs.field(factory=PMap)
    closed: frozenset[str] = frozenset()
    resumes: PMap[int | str | None, str] = attrs.field(factory=PMap)
    diagnostics: PVec[Diagnostic] = attrs.field(default=EMPTY_VEC)


def new_tree() -> SessionTree:
    """A connection nothing has been set up on yet."""
    return SessionTree()


def _diagnose(tree: SessionTree, rule: str, session_id: str, message: str) -> SessionTree:
    diagnostic = Diagnostic(rule, f"$.params.sessionId={session_id}", message)
    return evolve_frozen(tree, diagnostics=tree.diagnostics.append(diagnostic))


def _drain(tree: SessionTree, session_id: str, revision: Revision) -> SessionTree:
    bucket = tree.orphans.get(session_id)
    if bucket is None:
        return tree
    tree = evolve_frozen(tree, orphans=tree.orphans.delete(session_id))
    for update in bucket:
        tree = reduce_tree(tree, session_id, update, revision=revision)
    return tree


def open_session(
    tree: SessionTree, session_id: str, *, revision: Revision = DEFAULT_REVISION
) -> SessionTree:
    """Register a top-level session the client set up (`session/new` or `session/resume`);
    updates that arrived for it before (P3) are applied now, in order."""
    if session_id in tree.sessions:
        return tree
    tree = evolve_frozen(
        tree,
        sessions=tree.sessions.set(session_id, new_session(session_id)),
        closed=tree.closed - {session_id},
    )
    return _drain(tree, session_id, revision)


def _ancestors(tree: SessionTree, session_id: str) -> list[str]:
    out: list[str] = []
    current = tree.parents.get(session_id)
    while current is not None and current not in out:
        out.append(current)
        current = tree.parents.get(current)
    return out


def _announce(
    tree: SessionTree, parent_id: str, u: SubagentUpdate, revision: Revision
) -> SessionTree:
    child_id = u.session_id
    first_parent = tree.parents.get(child_id)
    if first_parent is not None and first_parent != parent_id:
        tree = _diagnose(tree, REPARENT, child_id, f"child already belongs to {first_parent!r}")
        parent_id = first_parent  # P5: keep the first parent, still apply the patches
    elif first_parent is None and (child_id in tree.sessions or child_id == parent_id):
        return _diagnose(tree, REPARENT, child_id, "a top-level session cannot become a child")
    sessions = tree.sessions
    sessions = sessions.set(parent_id, reduce(sessions[parent_id], u, revision=revision))
    if first_parent is None:
        child = new_session(child_id)
        child = evolve_frozen(child, foreground=Foreground(UNCONFIRMED))  # P4
        for request_id, resumed in tree.resumes.items():  # P8: replayed inside the resume
            if resumed == parent_id or resumed in _ancestors(tree, parent_id):
                child = begin_replay(child, request_id)
                break
        tree = evolve_frozen(
            tree,
            sessions=sessions.set(child_id, child),
            parents=tree.parents.set(child_id, parent_id),
            closed=tree.closed - {child_id},
        )
        return _drain(tree, child_id, revision)
    return evolve_frozen(tree, sessions=sessions)


#: How an update names a session besides its envelope: a `session_message`'s sender or
#: recipient, a `session` tool-content item (in a tool call or a content chunk), a background
#: list's `subagent` entry.
NameKind: TypeAlias = Literal["message", "content", "background"]


def session_names(update: SessionUpdate) -> list[tuple[str, NameKind]]:
    """The session ids an update names besides its envelope, each with how it names it. The
    one home of this question: the view's diagnostics, the agent engine's refusals and the
    checker all read it (the rule each way of naming breaks is
    `_rules/_naming.naming_rule`'s)."""
    out: list[tuple[str, NameKind]] = []
    background = getattr(update, "background", None)
    if isinstance(background, tuple):
        out.extend(
            (b.session_id, "background") for b in background if type(b) is BackgroundSubagent
        )
    if type(update) is ToolCallUpdate and isinstance(update.content, tuple):
        out.extend((i.session_id, "content") for i in update.content if type(i) is SessionReference)
    elif type(update) is ToolCallContentChunk and type(update.content) is SessionReference:
        out.append((update.content.session_id, "content"))
    elif type(update) is SessionMessage:
        for sid in (update.sender_session_id, update.recipient_session_id):
            if isinstance(sid, str):
                out.append((sid, "message"))
    return out


def reduce_tree(
    tree: SessionTree,
    session_id: str,
    update: SessionUpdate,
    *,
    revision: Revision = DEFAULT_REVISION,
) -> SessionTree:
    """Apply one `session/update` (envelope `session_id`) to the connection's view (pure).

    Never raises for a decoded update; anomalies become `tree.diagnostics` (or the session's)."""
    if session_id in tree.closed:
        return _diagnose(tree, CLOSED_SESSION_TRAFFIC, session_id, "update after close dropped")
    state = tree.sessions.get(session_id)
    if state is None:  # P3: keep it until someone announces the id
        bucket = tree.orphans.get(session_id, EMPTY_VEC)
        tree = _diagnose(tree, UNANNOUNCED_SESSION, session_id, "update for an unknown session")
        return evolve_frozen(tree, orphans=tree.orphans.set(session_id, bucket.append(update)))
    if type(update) is SubagentUpdate:
        return _announce(tree, session_id, update, revision)
    for named, _how in session_names(update):
        if named not in tree.sessions and named != session_id:
            tree = _diagnose(tree, UNKNOWN_SESSION_REFERENCE, named, "names an unknown session")
    new = reduce(state, update, revision=revision)
    if new is state:
        return tree
    return evolve_frozen(tree, sessions=tree.sessions.set(session_id, new))


def _descendants(tree: SessionTree, session_id: str) -> list[str]:
    out: list[str] = []
    frontier = [session_id]
    while frontier:
        parent = frontier.pop()
        kids = [c for c, p in tree.parents.items() if p == parent and c not in out]
        out.extend(kids)
        frontier.extend(kids)
    return out


def begin_resume(
    tree: SessionTree,
    session_id: str,
    request_id: int | str | None,
    *,
    replay: bool,
    revision: Revision = DEFAULT_REVISION,
) -> SessionTree:
    """The client sent `session/resume` for `session_id`; with a `replayFrom` cursor
    (`replay=True`) the session's updates are history until its `replay_complete` (C36)."""
    tree = open_session(tree, session_id, revision=revision)
    if not replay:
        return tree
    state = begin_replay(tree.sessions[session_id], request_id)
    return evolve_frozen(
        tree,
        sessions=tree.sessions.set(session_id, state),
        resumes=tree.resumes.set(request_id, session_id),
    )


def end_resume(tree: SessionTree, request_id: int | str | None, *, succeeded: bool) -> SessionTree:
    """The resume request `request_id` was answered: every session still replaying for it
    (the resumed one and children announced during it) is complete (with a diagnostic, R57) on
    success, truncated on failure (C37)."""
    session_id = tree.resumes.get(request_id)
    if session_id is None:
        return tree
    sessions = tree.sessions
    for sid in (session_id, *_descendants(tree, session_id)):
        state = sessions.get(sid)
        if state is not None and state.aux.extras.replay.request_id == request_id:
            sessions = sessions.set(sid, end_replay(state, succeeded=succeeded))
    return evolve_frozen(tree, sessions=sessions, resumes=tree.resumes.delete(request_id))


def close_session(tree: SessionTree, session_id: str) -> SessionTree:
    """The session was closed (its close response arrived) or deleted: drop it and its
    children; later traffic for any of them is dropped with a diagnostic (P13, C55)."""
    gone = [session_id, *_descendants(tree, session_id)]
    sessions, parents, orphans = tree.sessions, tree.parents, tree.orphans
    for sid in gone:
        if sid in sessions:
            sessions = sessions.delete(sid)
        if sid in parents:
            parents = parents.delete(sid)
        if sid in orphans:
            orphans = orphans.delete(sid)
    return evolve_frozen(
        tree, sessions=sessions, parents=parents, orphans=orphans, closed=tree.closed | set(gone)
    )


def children_of(tree: SessionTree, session_id: str) -> tuple[str, ...]:
    """The children announced on `session_id`, in announcement order."""
    state = tree.sessions.get(session_id)
    return () if state is None else state.aux.extras.child_order


def parent_of(tree: SessionTree, session_id: str) -> str | None:
    """The parent of a child session (None for a top-level or unknown session)."""
    return tree.parents.get(session_id)


def child_link(tree: SessionTree, session_id: str) -> ChildLink | None:
    """The parent's link record of a child (title, capabilities, mirrored state...)."""
    parent = tree.parents.get(session_id)
    if parent is None:
        return None
    return tree.sessions[parent].aux.extras.children.get(session_id)


def effective_state(tree: SessionTree, session_id: str) -> str | None:
    """The foreground state to show for a session: its own report, or for a child with no
    own report yet the parent's mirror (P4, C32); `unconfirmed` when neither exists (C31)."""
    state = tree.sessions.get(session_id)
    if state is None:
        return None
    own = state.foreground.state
    if own != UNCONFIRMED:
        return own
    link = child_link(tree, session_id)
    mirrored = None if link is None else link.mirrored_state
    if mirrored is None:
        return UNCONFIRMED
    probe = reduce(new_session(session_id), mirrored)
    return probe.foreground.state
