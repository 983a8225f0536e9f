"""Session reducers beyond `reduce`/`fold`: snapshots, rendering and the session tree
(sub-sessions, resume and replay).

A public submodule of acp-core (docs/api.md lists each name in its home)."""

from __future__ import annotations

from acp_core._cli._render import (
    render_session,
)
from acp_core._state._fold import (
    fold,
)
from acp_core._state._reduce import (
    reduce,
)
from acp_core._state._reduce_children import (
    CLOSED_SESSION_TRAFFIC,
    REPARENT,
    UNANNOUNCED_SESSION,
    UNKNOWN_SESSION_REFERENCE,
    SessionTree,
    begin_resume,
    child_link,
    children_of,
    close_session,
    effective_state,
    end_resume,
    new_tree,
    open_session,
    parent_of,
    reduce_tree,
)
from acp_core._state._reduce_preview import (
    REPLAY_WITHOUT_MARKER,
    UNEXPECTED_REPLAY_MARKER,
    begin_replay,
    end_replay,
)
from acp_core._state._reduce_session import (
    seed_session,
)
from acp_core._state._snapshot import (
    restore,
    snapshot,
)
from acp_core._state._snapshot_keys import restore_prompt_keys

__all__ = [
    "CLOSED_SESSION_TRAFFIC",
    "REPARENT",
    "REPLAY_WITHOUT_MARKER",
    "UNANNOUNCED_SESSION",
    "UNEXPECTED_REPLAY_MARKER",
    "UNKNOWN_SESSION_REFERENCE",
    "SessionTree",
    "begin_replay",
    "begin_resume",
    "child_link",
    "children_of",
    "close_session",
    "effective_state",
    "end_replay",
    "end_resume",
    "fold",
    "new_tree",
    "open_session",
    "parent_of",
    "reduce",
    "reduce_tree",
    "render_session",
    "restore",
    "restore_prompt_keys",
    "seed_session",
    "snapshot",
]
