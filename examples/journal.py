"""The examples' session journal: `acp_core.aio.SqliteStore`, the supported session store.

Every update a session reports is appended (its wire JSON) and committed before the
connection value that depends on it is kept and before its bytes go to the client, so
whatever a client has seen is on disk. Every `SNAPSHOT_EVERY` updates the session's whole
state is stored as a snapshot (`acp_core.snapshot`) and the rows behind it are compacted, so
a restart reads one snapshot plus the short tail after it. A journal file written by the
earlier version of this example (schema version 0) is migrated in place. See docs/store.md.
"""

from __future__ import annotations

from acp_core.aio import SqliteStore

#: Updates between two snapshots of a session.
SNAPSHOT_EVERY = 64


def Journal(path: str) -> SqliteStore:  # noqa: N802 (the example's name for its store)
    """The journal in `path`; raises `StoreLocked` if another agent has it."""
    return SqliteStore(path, snapshot_every=SNAPSHOT_EVERY)
