"""Child sessions (the Preview), as the client sees them: their traffic, views and lifecycles.

Owns: routing a child's traffic to its own view and lifecycle (C27, C28; P3: never E3 for a
child, an unknown id waits in the tree's orphan bucket with a diagnostic), a child's
permission request (pending like any other, answered with `AnswerPermission`; one for a
session nobody announced is answered -32602 and recorded as a diagnostic, never raised, C33),
and `Build.children`, the only steps that change it.
Must not know: I/O, the agent engine; the 2026-08 rules (`_engines/_client_receive.py`,
`_engines/_client_permissions.py`); what the client may send a child
(`_engines/_client_cancel.py`, `_engines/_client_items.py`).

The client's own session stays `ClientEngine.session`; `ClientEngine.children` is a
`SessionTree` holding every child and grandchild (its entry for the client's own session
carries only the child links), and `ClientEngine.lifecycles` one conversation machine per
child, so the agent's faults on a child are found like those on the client's session.
"""

from __future__ import annotations

from typing import Final

import attrs

from acp_core._errors import Diagnostic, LocalProtocolError
from acp_core._rules._check_message import update_findings
from acp_core._state._reduce_children import reduce_tree
from acp_core._state._session_state import SessionState
from acp_core._wire._fields import PREVIEW_NAME
from acp_core._wire._jsonrpc import (
    ErrorCode,
    ErrorResponse,
    RequestPermissionRequest,
    RpcError,
    ToolCallPermissionSubject,
    UpdateSessionNotification,
)
from acp_core._wire._revision import Revision

from ._client_build import Build

__all__ = [
    "UNANNOUNCED_PERMISSION",
    "child_received",
    "child_update",
    "needs_children",
    "session_of",
    "speaks_children",
]

#: Diagnostic: a permission request for a session nobody announced (answered -32602, C33).
UNANNOUNCED_PERMISSION: Final = "client.unannounced-permission"


def speaks_children(revision: Revision) -> bool:
    """Child sessions exist on this revision's wire (the Preview on)."""
    return revision.includes(PREVIEW_NAME)


def needs_children(b: Build, intent: object) -> None:
    """Refuse `intent` (E0) on a revision without child sessions."""
    if not speaks_children(b.engine.revision):
        raise LocalProtocolError(
            "E0",
            f"{type(intent).__name__}: revision {b.engine.revision.name} has no child sessions",
        )


def child_update(b: Build, message: UpdateSessionNotification) -> None:
    """An update for a session other than the client's own (C28): judged on its own against
    the child's view, as the checker judges every session's updates (`update_findings`: R43,
    R54, R78 ...), then into the child's view; an unknown id waits in the tree's orphan
    bucket with a diagnostic (P3)."""
    tree = b.children
    state = tree.sessions.get(message.session_id)
    if state is not None and message.session_id in tree.parents:
        b.record(update_findings(b.engine.revision, state, message.update))
    b.children = reduce_tree(
        b.children, message.session_id, message.update, revision=b.engine.revision
    )


def _child_permission(b: Build, message: RequestPermissionRequest) -> bool:
    """A permission request naming another session: pending when it is a known child (C28);
    otherwise answered with an error and diagnosed. Returns True when it became pending."""
    tree = b.children
    if message.session_id in tree.parents:
        return True
    detail = f"permission request for unannounced session {message.session_id!r}"
    diagnostic = Diagnostic(UNANNOUNCED_PERMISSION, f"$.id={message.id!r}", detail)
    b.children = attrs.evolve(tree, diagnostics=tree.diagnostics.append(diagnostic))
    b.send(
        ErrorResponse(message.id, RpcError(ErrorCode.INVALID_PARAMS, detail)), message.session_id
    )
    return False


def child_received(b: Build, message: UpdateSessionNotification | RequestPermissionRequest) -> None:
    """Traffic of a child (or of an id nobody announced yet: it waits, P3) at the Preview."""
    b.receive(message, message.session_id)
    if isinstance(message, UpdateSessionNotification):
        child_update(b, message)
        return
    if not _child_permission(b, message):
        return
    pending = b.pending
    if isinstance(message.subject, ToolCallPermissionSubject):  # T10, on the child's view
        child_update(b, UpdateSessionNotification(message.session_id, message.subject.tool_call))
    b.pending = pending.set(message.id, message)


def session_of(b: Build, session_id: str | None) -> SessionState:
    """The view of the client's own session (`session_id` None or its id) or of a known
    child; E3 for any other id."""
    engine = b.engine
    if session_id is None or session_id == engine.session_id:
        return b.view
    tree = b.children
    state = tree.sessions.get(session_id)
    if state is None or session_id not in tree.parents:
        raise LocalProtocolError("E3", f"session {session_id!r} is not a known child")
    return state
