"""A session journal in SQLite (standard library only): what an agent needs to survive a crash.

Every update a session reports is appended to `updates` (its wire JSON) before it is written
to the client, so whatever a client has seen is on disk. Every `SNAPSHOT_EVERY` updates the
session's whole state goes to `snapshots` (`acp_core.snapshot`), so a restart reads one
snapshot plus the short tail after it (`acp_core.restore`, then `reduce`), never the whole
history. Rows are only ever added; `delete` drops a deleted session.
"""

from __future__ import annotations

import json
import sqlite3
from typing import Any

import acp_core as acp

#: Updates between two snapshots of a session.
SNAPSHOT_EVERY = 64

_SCHEMA = """
create table if not exists sessions (session_id text primary key, cwd text not null);
create table if not exists updates (
    session_id text not null, seq integer not null, update_json text not null,
    primary key (session_id, seq));
create table if not exists snapshots (
    session_id text not null, seq integer not null, state_json text not null,
    primary key (session_id, seq));
"""


class Journal:
    """The journal file; one writer (the agent process)."""

    def __init__(self, path: str) -> None:
        self.db = sqlite3.connect(path, isolation_level=None)  # autocommit: each row durable
        self.db.execute("pragma journal_mode=wal")
        self.db.execute("pragma synchronous=normal")
        self.db.executescript(_SCHEMA)
        self.seq: dict[str, int] = {}
        self.since_snapshot: dict[str, int] = {}

    def open(self, session_id: str, cwd: str) -> None:
        self.db.execute("insert or ignore into sessions values (?, ?)", (session_id, cwd))

    def append(
        self, session_id: str, updates: list[dict[str, Any]], state: acp.SessionState
    ) -> None:
        """Record updates a session reported, and a snapshot when one is due."""
        if not updates:
            return
        seq = self.seq.get(session_id, 0)
        rows = [(session_id, seq + i + 1, json.dumps(u)) for i, u in enumerate(updates)]
        self.db.executemany("insert into updates values (?, ?, ?)", rows)
        self.seq[session_id] = seq + len(updates)
        count = self.since_snapshot.get(session_id, 0) + len(updates)
        if count >= SNAPSHOT_EVERY:
            self.save_snapshot(session_id, state)
            count = 0
        self.since_snapshot[session_id] = count

    def save_snapshot(self, session_id: str, state: acp.SessionState) -> None:
        """Record the whole state (also for changes no update on the wire carried)."""
        seq = self.seq.get(session_id, 0)
        doc = json.dumps(acp.snapshot(state))
        self.db.execute("insert or replace into snapshots values (?, ?, ?)", (session_id, seq, doc))

    def delete(self, session_id: str) -> None:
        for table in ("sessions", "updates", "snapshots"):
            self.db.execute(f"delete from {table} where session_id = ?", (session_id,))

    def sessions(self) -> list[tuple[str, str]]:
        return list(self.db.execute("select session_id, cwd from sessions order by rowid"))

    def load(self, session_id: str, revision: acp.Revision) -> acp.SessionState:
        """The session's state: its latest snapshot, then every update recorded after it."""
        row = self.db.execute(
            "select seq, state_json from snapshots where session_id = ? order by seq desc limit 1",
            (session_id,),
        ).fetchone()
        seq, state = 0, acp.new_session(session_id)
        if row is not None:
            seq, state = row[0], acp.restore(json.loads(row[1]))
        tail = self.db.execute(
            "select seq, update_json from updates where session_id = ? and seq > ? order by seq",
            (session_id, seq),
        )
        last = seq
        for last, text in tail:  # noqa: B007 (the last seq is kept)
            update = acp.decode_update(json.loads(text), revision=revision)
            state = acp.reduce(state, update, revision=revision)
        top = self.db.execute(
            "select max(seq) from updates where session_id = ?", (session_id,)
        ).fetchone()[0]
        self.seq[session_id] = max(last, top or 0)
        self.since_snapshot[session_id] = self.seq[session_id] - seq
        return state

    def close(self) -> None:
        self.db.close()
