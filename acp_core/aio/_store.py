"""The session store: what a host keeps so that a restarted agent resumes every session.

Owns: the `SessionStore` contract (what a host implements on PostgreSQL or a key-value store),
its errors (`StoreError` and subclasses), and `SqliteStore`, the embedded default on the
standard library's sqlite3: schema version and migrations, write-ahead appends, snapshots
every N updates with compaction of the rows behind them, one writer per file, damage
contained per session.
Must not know: what an update means or how a state is built (the pure core's `snapshot`,
`restore`, `decode_update` and `reduce` decide it), connections or transports.

What is stored is the pure core's: each update's wire JSON (`encode_update`) and, now and
then, the whole state as a snapshot document (docs/snapshot.md). `load` is the latest snapshot
(`restore`) then every update recorded after it (`decode_update`, `reduce`).
"""

from __future__ import annotations

import json
import sqlite3
from collections.abc import Sequence
from typing import Any, Final, Protocol

from acp_core import (
    DEFAULT_REVISION,
    AcpError,
    Revision,
    SessionState,
    decode_update,
    new_session,
    reduce,
    restore,
    snapshot,
)  # all in acp_core.__all__: the common path

__all__ = [
    "SessionDamaged",
    "SessionStore",
    "SqliteStore",
    "StoreError",
    "StoreLocked",
    "StoreVersionError",
]

#: Schema version `SqliteStore` writes; version 0 is the layout of the old examples/journal.py.
SCHEMA_VERSION: Final = 1


class StoreError(AcpError):
    """The store could not do what was asked: the file is not a store, is damaged beyond one
    session, or a write failed (disk full, I/O error). A failed `append` recorded nothing."""


class StoreLocked(StoreError):  # noqa: N818 (a state, as the brief names it)
    """Another writer holds the store (a second agent on the same file, or a program that
    locked it): raised when the store is opened, never a wait without end."""


class StoreVersionError(StoreError):
    """The store's schema version is not one this acp-core reads (written by a newer one,
    or not a number).

    Attributes:
        found: the version the store says it has, as written.
    """

    def __init__(self, found: str, detail: str) -> None:
        super().__init__(detail)
        self.found = found


class SessionDamaged(StoreError):  # noqa: N818 (a state, as the brief names it)
    """One session's records cannot be read back; that session is quarantined, the others
    still load.

    Attributes:
        session_id: the damaged session.
        reason: what is wrong, for a log line or a finding (which row, and why).
    """

    def __init__(self, session_id: str, reason: str) -> None:
        super().__init__(session_id, reason)
        self.session_id = session_id
        self.reason = reason

    def __str__(self) -> str:
        return f"session {self.session_id!r} is damaged: {self.reason}"


class SessionStore(Protocol):
    """What an agent needs from a store to survive a crash; any backend may implement it.

    The contract (tests/test_aio_store.py runs it against every factory it is given):

    - `open(session_id, cwd, revision=...)` records a new session (again: nothing happens).
    - `append(session_id, updates, state)` records the updates a step reported (wire JSON, in
      order) and `state`, the session's state after them. It is durable when it returns; if
      it raises `StoreError` nothing of it was recorded, so the caller may refuse the step
      and try again later.
    - `save_snapshot(session_id, state)` records the whole state now (for changes that no
      update carried, such as a turn the agent ended while detached).
    - `load(session_id, revision)` is the state the records give: `SessionDamaged` when they
      cannot be read back, or were recorded under another revision.
    - `sessions()` lists `(session_id, cwd)` in the order they were opened, damaged ones too.
    - `delete(session_id)` forgets a session; `close()` releases the store.

    Every failure is a `StoreError`.
    """

    def open(self, session_id: str, cwd: str, *, revision: Revision = DEFAULT_REVISION) -> None:
        """Record a new session (idempotent)."""

    def append(
        self, session_id: str, updates: Sequence[dict[str, Any]], state: SessionState
    ) -> None:
        """Record `updates` and the state after them; durable when it returns."""

    def save_snapshot(self, session_id: str, state: SessionState) -> None:
        """Record the whole state of a session now."""

    def load(self, session_id: str, revision: Revision = DEFAULT_REVISION) -> SessionState:
        """The session's state as its records give it."""

    def sessions(self) -> list[tuple[str, str]]:
        """Every recorded session, `(session_id, cwd)`, oldest first."""

    def delete(self, session_id: str) -> None:
        """Forget a session and its records."""

    def close(self) -> None:
        """Release the store."""


# Version 1. Updates and snapshots are clustered by (session_id, seq) (`without rowid`), so a
# damaged page holds the rows of one session or two neighbours, not a slice of every session.
_V1_TABLES: Final = """
create table meta (key text primary key, value text not null);
create table sessions (session_id text primary key, cwd text not null, revision text);
create table updates (
    session_id text not null, seq integer not null, update_json text not null, revision text,
    primary key (session_id, seq)) without rowid;
create table snapshots (
    session_id text not null, seq integer not null, state_json text not null,
    primary key (session_id, seq)) without rowid;
insert into meta values ('schema_version', '1');
"""

# Version 0 (examples/journal.py before this module) to 1: the rows copied into the version 1
# tables; the revision of migrated rows is NULL (version 0 did not record it).
_MIGRATE_0_TO_1: Final = (
    """
alter table sessions rename to sessions_v0;
alter table updates rename to updates_v0;
alter table snapshots rename to snapshots_v0;
"""
    + _V1_TABLES
    + """
insert into sessions (session_id, cwd) select session_id, cwd from sessions_v0 order by rowid;
insert into updates (session_id, seq, update_json) select session_id, seq, update_json
    from updates_v0;
insert into snapshots select session_id, seq, state_json from snapshots_v0;
drop table sessions_v0;
drop table updates_v0;
drop table snapshots_v0;
"""
)

_V0_NAMES: Final = frozenset({"sessions", "updates", "snapshots"})


def _sqlite_error(e: sqlite3.Error, doing: str) -> StoreError:
    text = str(e)
    if isinstance(e, sqlite3.OperationalError) and "locked" in text:
        return StoreLocked(f"{doing}: the store is locked by another writer ({text})")
    return StoreError(f"{doing}: {text}")


class SqliteStore:
    """A `SessionStore` in one SQLite file (standard library only); one writer per file.

    Args:
        path: the file (created when missing). A file written by the old examples/journal.py
            (schema version 0) is migrated in place.
        snapshot_every: updates of a session between two snapshots; each snapshot compacts
            the session (its older snapshots and the update rows behind it are deleted).
        timeout: seconds to wait for a lock held by another program before `StoreLocked`.

    Raises:
        StoreLocked: another writer has the file.
        StoreVersionError: the file's schema version is not one this acp-core reads.
        StoreError: the file is not a store, or is damaged beyond one session.
    """

    def __init__(self, path: str, *, snapshot_every: int = 64, timeout: float = 0.1) -> None:
        if snapshot_every < 1:
            raise StoreError("snapshot_every must be at least 1")
        self.snapshot_every = snapshot_every
        self._seq: dict[str, int] = {}
        self._since: dict[str, int] = {}
        self._revision: dict[str, str | None] = {}
        try:
            self._db = sqlite3.connect(path, isolation_level=None, timeout=timeout)
        except sqlite3.Error as e:
            raise _sqlite_error(e, f"opening {path}") from None
        try:
            # Exclusive locking: the first write below takes the file's lock and keeps it
            # until close, so a second writer fails at its own open (StoreLocked).
            self._db.execute("pragma locking_mode=exclusive")
            self._db.execute("pragma journal_mode=wal")
            self._db.execute("pragma synchronous=full")  # a commit is on disk when it returns
            self._db.execute("begin immediate")
            try:
                self._migrate()
                self._db.execute("commit")
            except BaseException:
                self._db.execute("rollback")
                raise
        except sqlite3.Error as e:
            self._db.close()
            raise _sqlite_error(e, f"opening {path}") from None
        except StoreError:
            self._db.close()
            raise

    def _migrate(self) -> None:
        tables = {r[0] for r in self._db.execute("select name from sqlite_master")}
        if "meta" in tables:
            row = self._db.execute("select value from meta where key = 'schema_version'").fetchone()
            found = "missing" if row is None else str(row[0])
            if found != str(SCHEMA_VERSION):
                raise StoreVersionError(
                    found,
                    f"the store has schema version {found}; this acp-core reads versions 0 to"
                    f" {SCHEMA_VERSION} (a newer acp-core wrote it, or it is not a session store)",
                )
            return
        user_tables = {t for t in tables if not t.startswith("sqlite_")}
        if not user_tables:
            script = _V1_TABLES
        elif user_tables == _V0_NAMES:
            script = _MIGRATE_0_TO_1
        else:
            raise StoreError("the file holds other tables: not a session store")
        for statement in filter(str.strip, script.split(";")):
            self._db.execute(statement)

    # -- writing -----------------------------------------------------------------------------

    def _write(self, doing: str, statements: list[tuple[str, tuple[Any, ...]]]) -> None:
        """Run `statements` as one transaction, committed before returning."""
        try:
            self._db.execute("begin immediate")
            try:
                for sql, args in statements:
                    self._db.execute(sql, args)
                self._db.execute("commit")
            except BaseException:
                if self._db.in_transaction:
                    self._db.execute("rollback")
                raise
        except sqlite3.Error as e:
            raise _sqlite_error(e, doing) from None

    def _read(self, doing: str, sql: str, args: tuple[Any, ...] = ()) -> list[Any]:
        try:
            return self._db.execute(sql, args).fetchall()
        except sqlite3.Error as e:
            raise _sqlite_error(e, doing) from None

    def _known(self, session_id: str, doing: str) -> None:
        if session_id in self._seq:
            return
        rows = self._read(
            doing, "select revision from sessions where session_id = ?", (session_id,)
        )
        if not rows:
            raise StoreError(f"{doing}: no session {session_id!r} in the store")
        top = self._read(
            doing,
            "select max(seq) from (select seq from updates where session_id = ?1"
            " union all select seq from snapshots where session_id = ?1)",
            (session_id,),
        )[0][0]
        snap = self._read(
            doing, "select max(seq) from snapshots where session_id = ?", (session_id,)
        )[0][0]
        self._revision[session_id] = rows[0][0]
        self._seq[session_id] = int(top or 0)
        self._since[session_id] = int(top or 0) - int(snap or 0)

    def open(self, session_id: str, cwd: str, *, revision: Revision = DEFAULT_REVISION) -> None:
        """Record a new session under `revision` (nothing happens if it is recorded already)."""
        self._write(
            f"opening session {session_id!r}",
            [
                (
                    "insert or ignore into sessions (session_id, cwd, revision) values (?, ?, ?)",
                    (session_id, cwd, revision.name),
                )
            ],
        )

    def append(
        self, session_id: str, updates: Sequence[dict[str, Any]], state: SessionState
    ) -> None:
        """Record the updates a step reported, in order, and a snapshot when one is due.

        Durable when it returns. On `StoreError` nothing was recorded.
        """
        doing = f"appending to session {session_id!r}"
        if not updates:
            return
        self._known(session_id, doing)
        seq = self._seq[session_id]
        revision = self._revision[session_id]
        try:
            texts = [json.dumps(u, ensure_ascii=False, allow_nan=False) for u in updates]
        except (TypeError, ValueError) as e:
            raise StoreError(f"{doing}: an update is not JSON ({e})") from None
        statements: list[tuple[str, tuple[Any, ...]]] = [
            (
                "insert into updates (session_id, seq, update_json, revision) values (?, ?, ?, ?)",
                (session_id, seq + i + 1, text, revision),
            )
            for i, text in enumerate(texts)
        ]
        top = seq + len(updates)
        since = self._since.get(session_id, 0) + len(updates)
        if since >= self.snapshot_every:
            statements += self._snapshot_statements(session_id, top, state)
            since = 0
        self._write(doing, statements)
        self._seq[session_id] = top
        self._since[session_id] = since

    def _snapshot_statements(
        self, session_id: str, seq: int, state: SessionState
    ) -> list[tuple[str, tuple[Any, ...]]]:
        doc = json.dumps(snapshot(state), ensure_ascii=False)
        return [
            ("insert or replace into snapshots values (?, ?, ?)", (session_id, seq, doc)),
            # compaction: what the new snapshot holds is no longer needed row by row
            ("delete from snapshots where session_id = ? and seq < ?", (session_id, seq)),
            ("delete from updates where session_id = ? and seq <= ?", (session_id, seq)),
        ]

    def save_snapshot(self, session_id: str, state: SessionState) -> None:
        """Record the whole state now (also changes no update carried), compacting behind it."""
        doing = f"saving a snapshot of session {session_id!r}"
        self._known(session_id, doing)
        seq = self._seq[session_id]
        self._write(doing, self._snapshot_statements(session_id, seq, state))
        self._since[session_id] = 0

    def delete(self, session_id: str) -> None:
        """Forget a session and every record of it."""
        self._write(
            f"deleting session {session_id!r}",
            [
                (f"delete from {table} where session_id = ?", (session_id,))
                for table in ("sessions", "updates", "snapshots")
            ],
        )
        for known in (self._seq, self._since, self._revision):
            known.pop(session_id, None)

    # -- reading -----------------------------------------------------------------------------

    def sessions(self) -> list[tuple[str, str]]:
        """Every recorded session, `(session_id, cwd)`, in the order they were opened."""
        rows = self._read("listing sessions", "select session_id, cwd from sessions order by rowid")
        return [(str(sid), str(cwd)) for sid, cwd in rows]

    def load(self, session_id: str, revision: Revision = DEFAULT_REVISION) -> SessionState:
        """The session's state: its latest snapshot, then every update recorded after it.

        Raises:
            SessionDamaged: a record of the session cannot be read back (which, and why), or
                was recorded under another revision than `revision`.
            StoreError: no such session, or the store cannot be read at all.
        """
        doing = f"loading session {session_id!r}"
        try:
            found = self._db.execute(
                "select revision from sessions where session_id = ?", (session_id,)
            ).fetchall()
        except sqlite3.Error as e:
            raise SessionDamaged(session_id, f"its entry cannot be read ({e})") from None
        if not found:
            raise StoreError(f"{doing}: no session {session_id!r} in the store")
        recorded = found[0][0]
        if recorded is not None and recorded != revision.name:
            raise SessionDamaged(
                session_id, f"recorded under revision {recorded}, loaded as {revision.name}"
            )
        try:
            state, seq = self._restore(session_id, revision)
        except sqlite3.Error as e:
            raise SessionDamaged(session_id, f"its rows cannot be read ({e})") from None
        snap_seq = seq
        state, seq = self._replay(session_id, revision, state, seq)
        self._revision[session_id] = recorded
        self._seq[session_id] = seq
        self._since[session_id] = seq - snap_seq
        return state

    def _restore(self, session_id: str, revision: Revision) -> tuple[SessionState, int]:
        row = self._db.execute(
            "select seq, state_json from snapshots where session_id = ? order by seq desc limit 1",
            (session_id,),
        ).fetchone()
        if row is None:
            return new_session(session_id), 0
        seq, text = row
        try:
            state = restore(json.loads(text))
        except (ValueError, TypeError, RecursionError, AcpError) as e:
            raise SessionDamaged(session_id, f"its snapshot at {seq} is invalid ({e})") from None
        if state.session_id != session_id:
            raise SessionDamaged(
                session_id, f"its snapshot at {seq} is of session {state.session_id!r}"
            )
        return state, int(seq)

    def _replay(
        self, session_id: str, revision: Revision, state: SessionState, seq: int
    ) -> tuple[SessionState, int]:
        try:
            rows = self._db.execute(
                "select seq, update_json, revision from updates"
                " where session_id = ? and seq > ? order by seq",
                (session_id, seq),
            ).fetchall()
        except sqlite3.Error as e:
            raise SessionDamaged(session_id, f"its updates cannot be read ({e})") from None
        for row_seq, text, row_revision in rows:
            if row_seq != seq + 1:
                raise SessionDamaged(session_id, f"update {seq + 1} is missing")
            if row_revision is not None and row_revision != revision.name:
                raise SessionDamaged(
                    session_id,
                    f"update {row_seq} was recorded under revision {row_revision},"
                    f" loaded as {revision.name}",
                )
            try:
                update = decode_update(json.loads(text), revision=revision)
                state = reduce(state, update, revision=revision)
            except (ValueError, TypeError, RecursionError, AcpError) as e:
                raise SessionDamaged(session_id, f"update {row_seq} is invalid ({e})") from None
            seq = row_seq
        return state, seq

    def close(self) -> None:
        """Release the file (and its lock)."""
        try:
            self._db.close()
        except sqlite3.Error as e:
            raise _sqlite_error(e, "closing the store") from None
