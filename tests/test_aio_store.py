"""The session store (`acp_core.aio.SqliteStore`) on real files: the contract, and damage.

`TestContract` is the `SessionStore` contract, parametrised over store factories: a host that
puts the store on another backend adds its factory to `FACTORIES` and runs the same tests. A
factory takes a directory and opens the store kept there (calling it again reopens it).
The damage table (truncated file, garbage page, wrong schema version, a row of another
revision, two writers, a locked file, a bad row in one of two sessions) is SQLite's own.
"""

from __future__ import annotations

import json
import os
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path

import pytest

import acp_core as acp
from acp_core.aio import (
    SessionDamaged,
    SessionStore,
    SqliteStore,
    StoreError,
    StoreLocked,
    StoreVersionError,
)
from acp_core.aio._store import SCHEMA_VERSION

Factory = Callable[[Path], SessionStore]

FACTORIES: dict[str, Factory] = {
    "sqlite": lambda where: SqliteStore(str(where / "store.sqlite"), snapshot_every=8),
}

PREVIEW = acp.DEFAULT_REVISION
AUGUST = acp.revision_named("2026-08")


def _updates(session_id: str, n: int, start: int = 0) -> list[acp.SessionUpdate]:
    return [
        acp.AgentMessageChunk(f"{session_id}-m{i // 5}", acp.TextContent(f"{session_id}{i} "))
        for i in range(start, start + n)
    ]


def _fill(
    store: SessionStore, session_id: str, n: int, *, per_append: int = 1, start: int = 0
) -> acp.SessionState:
    """Open `session_id` and append `n` updates, `per_append` at a time; the state after."""
    store.open(session_id, f"/work/{session_id}")
    state = acp.new_session(session_id) if start == 0 else store.load(session_id)
    batch: list[dict[str, object]] = []
    for update in _updates(session_id, n, start):
        state = acp.reduce(state, update)
        batch.append(dict(acp.encode_update(update)))
        if len(batch) == per_append:
            store.append(session_id, batch, state)
            batch = []
    if batch:
        store.append(session_id, batch, state)
    return state


@pytest.fixture(params=sorted(FACTORIES))
def factory(request: pytest.FixtureRequest) -> Factory:
    return FACTORIES[request.param]


class TestContract:
    def test_round_trip_across_close_and_reopen(self, factory: Factory, tmp_path: Path) -> None:
        store = factory(tmp_path)
        a = _fill(store, "a", 30, per_append=3)
        b = _fill(store, "b", 5)
        assert store.load("a") == a
        store.close()
        again = factory(tmp_path)
        assert again.sessions() == [("a", "/work/a"), ("b", "/work/b")]
        assert again.load("a") == a
        assert again.load("b") == b
        again.close()

    def test_an_append_is_durable_when_it_returns(self, factory: Factory, tmp_path: Path) -> None:
        store = factory(tmp_path)
        state = _fill(store, "s", 3)
        store.close()  # after append returned; nothing is flushed at close that was not before
        fresh = factory(tmp_path)
        assert fresh.load("s") == state
        # appending after a restart continues the sequence, without a load first
        more = _updates("s", 1, start=3)[0]
        state = acp.reduce(state, more)
        fresh.append("s", [dict(acp.encode_update(more))], state)
        fresh.close()
        third = factory(tmp_path)
        assert third.load("s") == state
        third.close()

    def test_open_is_idempotent_and_delete_forgets(self, factory: Factory, tmp_path: Path) -> None:
        store = factory(tmp_path)
        state = _fill(store, "s", 4)
        store.open("s", "/elsewhere")
        assert store.sessions() == [("s", "/work/s")]
        assert store.load("s") == state
        store.delete("s")
        assert store.sessions() == []
        with pytest.raises(StoreError):
            store.load("s")
        store.close()

    def test_unknown_sessions_are_store_errors(self, factory: Factory, tmp_path: Path) -> None:
        store = factory(tmp_path)
        with pytest.raises(StoreError):
            store.load("nobody")
        with pytest.raises(StoreError):
            store.append("nobody", [{"sessionUpdate": "x"}], acp.new_session("nobody"))
        store.close()

    def test_a_snapshot_records_what_no_update_carried(
        self, factory: Factory, tmp_path: Path
    ) -> None:
        store = factory(tmp_path)
        state = _fill(store, "s", 3)
        ended = acp.reduce(state, acp.AgentMessageChunk("late", acp.TextContent("x")))
        store.save_snapshot("s", ended)
        store.close()
        again = factory(tmp_path)
        assert again.load("s") == ended
        again.close()

    def test_another_revision_is_refused_not_misread(
        self, factory: Factory, tmp_path: Path
    ) -> None:
        store = factory(tmp_path)
        store.open("old", "/w", revision=AUGUST)
        _fill(store, "new", 3)
        with pytest.raises(SessionDamaged) as raised:
            store.load("new", AUGUST)
        assert raised.value.session_id == "new"
        assert "2026-08" in raised.value.reason
        assert store.load("old", AUGUST) == acp.new_session("old")
        store.close()


# -- SQLite: compaction, migration, write failures ---------------------------------------------


def _rows(path: Path, sql: str) -> list[tuple[object, ...]]:
    db = sqlite3.connect(path)
    try:
        return db.execute(sql).fetchall()
    finally:
        db.close()


def test_compaction_keeps_load_equal_and_the_file_bounded(tmp_path: Path) -> None:
    compacting = SqliteStore(str(tmp_path / "c.sqlite"), snapshot_every=10)
    keeping = SqliteStore(str(tmp_path / "k.sqlite"), snapshot_every=10**9)
    for store in (compacting, keeping):
        state = _fill(store, "s", 205, per_append=3)
        assert store.load("s") == state
        store.close()
    reopened = SqliteStore(str(tmp_path / "c.sqlite"))
    assert reopened.load("s") == state
    reopened.close()
    # one snapshot, and only the rows after it
    assert _rows(tmp_path / "c.sqlite", "select count(*) from snapshots") == [(1,)]
    (updates,) = _rows(tmp_path / "c.sqlite", "select count(*) from updates")[0]
    assert isinstance(updates, int)
    assert updates < 10
    assert _rows(tmp_path / "k.sqlite", "select count(*) from updates") == [(205,)]


# The layout of examples/journal.py before the store existed (schema version 0), and how it
# wrote: a snapshot every 64 updates, every update kept.
_V0_SCHEMA = """
create table if not exists sessions (session_id text primary key, cwd text not null);
create table if not exists updates (
    session_id text not null, seq integer not null, update_json text not null,
    primary key (session_id, seq));
create table if not exists snapshots (
    session_id text not null, seq integer not null, state_json text not null,
    primary key (session_id, seq));
"""


def test_a_version_0_journal_is_migrated_in_place(tmp_path: Path) -> None:
    path = tmp_path / "old.sqlite"
    db = sqlite3.connect(path, isolation_level=None)
    db.executescript(_V0_SCHEMA)
    states = {}
    for session_id in ("z", "a"):  # opened in this order
        db.execute("insert into sessions values (?, ?)", (session_id, "/old"))
        state = acp.new_session(session_id)
        for seq, update in enumerate(_updates(session_id, 150), start=1):
            state = acp.reduce(state, update)
            db.execute(
                "insert into updates values (?, ?, ?)",
                (session_id, seq, json.dumps(acp.encode_update(update))),
            )
            if seq % 64 == 0:
                db.execute(
                    "insert into snapshots values (?, ?, ?)",
                    (session_id, seq, json.dumps(acp.snapshot(state))),
                )
        states[session_id] = state
    db.close()
    store = SqliteStore(str(path))
    assert store.sessions() == [("z", "/old"), ("a", "/old")]
    for session_id, state in states.items():
        assert store.load(session_id) == state
    more = _updates("a", 1, start=150)[0]
    grown = acp.reduce(states["a"], more)
    store.append("a", [dict(acp.encode_update(more))], grown)
    store.close()
    assert _rows(path, "select value from meta") == [(str(SCHEMA_VERSION),)]
    again = SqliteStore(str(path))
    assert again.load("a") == grown
    assert again.load("z") == states["z"]
    again.close()


def test_a_failed_write_records_nothing_and_the_store_goes_on(tmp_path: Path) -> None:
    store = SqliteStore(str(tmp_path / "s.sqlite"), snapshot_every=10**9)
    state = _fill(store, "s", 3)
    # a full disk, as SQLite reports it (SQLITE_FULL): no page may be added to the file
    pages = store._db.execute("pragma page_count").fetchone()[0]
    store._db.execute(f"pragma max_page_count={pages}")
    big = acp.AgentMessageChunk("big", acp.TextContent("x" * 100_000))
    with pytest.raises(StoreError) as raised:
        store.append("s", [dict(acp.encode_update(big))], acp.reduce(state, big))
    assert "full" in str(raised.value)
    assert store.load("s") == state  # nothing of the failed append was kept
    store._db.execute("pragma max_page_count=1073741823")  # the disk has room again
    grown = acp.reduce(state, big)
    store.append("s", [dict(acp.encode_update(big))], grown)
    store.close()
    reopened = SqliteStore(str(tmp_path / "s.sqlite"))
    assert reopened.load("s") == grown
    reopened.close()


def test_an_update_that_is_not_json_is_refused(tmp_path: Path) -> None:
    store = SqliteStore(str(tmp_path / "s.sqlite"))
    state = _fill(store, "s", 2)
    with pytest.raises(StoreError):
        store.append("s", [{"sessionUpdate": "x", "bad": float("nan")}], state)
    assert store.load("s") == state
    store.close()


# -- the damage table -------------------------------------------------------------------------


def _two_sessions(path: Path) -> dict[str, acp.SessionState]:
    """A closed store with two sessions of 300 updates each, written interleaved."""
    store = SqliteStore(str(path), snapshot_every=10**9)
    states = {sid: acp.new_session(sid) for sid in ("a", "b")}
    for sid in states:
        store.open(sid, "/w")
    for i in range(300):
        for sid in ("a", "b"):
            update = acp.AgentMessageChunk(f"m{i // 10}", acp.TextContent(sid * 200 + str(i)))
            states[sid] = acp.reduce(states[sid], update)
            store.append(sid, [dict(acp.encode_update(update))], states[sid])
    store.close()
    return states


def _outcome(path: Path, states: dict[str, acp.SessionState]) -> dict[str, str]:
    """What a fresh store makes of the file: per session `ok` or `damaged`, or `open` (the
    whole store refused at open) or `sessions` (the list of sessions unreadable); never any
    exception other than a StoreError."""
    try:
        store = SqliteStore(str(path))
    except SessionDamaged:
        return {"open": "SessionDamaged"}
    except StoreError as e:
        return {"open": type(e).__name__}
    try:
        got = {}
        try:
            listed = store.sessions()
        except SessionDamaged:
            return {"sessions": "SessionDamaged"}
        except StoreError as e:  # the page of the session list itself is damaged
            return {"sessions": type(e).__name__}
        for sid, cwd in listed:
            assert cwd == "/w"
            try:
                got[sid] = "ok" if store.load(sid) == states[sid] else "different"
            except SessionDamaged as e:
                got[sid] = "damaged" if e.session_id == sid else f"damaged as {e.session_id}"
        return got
    finally:
        store.close()


def test_a_truncated_file_is_refused_at_open(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    states = _two_sessions(path)
    size = path.stat().st_size
    for cut in (0, 50, size // 2, size - 4096):
        copy = tmp_path / f"cut{cut}.sqlite"
        shutil.copy(path, copy)
        os.truncate(copy, cut)
        if cut == 0:  # an empty file is a new store
            assert _outcome(copy, states) == {}
        else:
            assert _outcome(copy, states) == {"open": "StoreError"}


def test_a_garbage_page_damages_its_sessions_only(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    states = _two_sessions(path)
    pages = path.stat().st_size // 4096
    outcomes = []
    for page in range(1, pages):
        copy = tmp_path / f"page{page}.sqlite"
        shutil.copy(path, copy)
        with open(copy, "r+b") as f:
            f.seek(page * 4096)
            f.write(bytes((i * 37 + 11) % 256 for i in range(4096)))
        outcome = _outcome(copy, states)
        assert "different" not in outcome.values()  # damage is refused, never misread
        outcomes.append(outcome)
        copy.unlink()
    # most pages hold the rows of one session: the other still loads
    one_of_two = [o for o in outcomes if sorted(o.values()) == ["damaged", "ok"]]
    print("garbage page outcomes:", sorted(map(str, outcomes)))
    assert len(one_of_two) > len(outcomes) // 2


def test_a_wrong_schema_version_is_a_clear_error(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    _two_sessions(path)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("update meta set value = '99' where key = 'schema_version'")
    db.close()
    with pytest.raises(StoreVersionError) as raised:
        SqliteStore(str(path))
    assert raised.value.found == "99"
    assert "99" in str(raised.value)
    assert str(SCHEMA_VERSION) in str(raised.value)
    # a file that is some other database is not taken for a store either
    other = tmp_path / "other.sqlite"
    db = sqlite3.connect(other)
    db.execute("create table t (x)")
    db.close()
    with pytest.raises(StoreError):
        SqliteStore(str(other))


def test_a_row_of_another_revision_quarantines_its_session(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    states = _two_sessions(path)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("update updates set revision = '2026-08' where session_id = 'a' and seq = 7")
    db.close()
    assert _outcome(path, states) == {"a": "damaged", "b": "ok"}
    store = SqliteStore(str(path))
    with pytest.raises(SessionDamaged, match="update 7 was recorded under revision 2026-08"):
        store.load("a")
    store.close()


def test_a_second_writer_is_refused_at_open(tmp_path: Path) -> None:
    path = str(tmp_path / "s.sqlite")
    first = SqliteStore(path)
    state = _fill(first, "s", 2)
    with pytest.raises(StoreLocked):
        SqliteStore(path)
    # the first writer is not disturbed, and once it closes the next one opens
    state = _fill(first, "s", 2, start=2)
    first.close()
    second = SqliteStore(path)
    assert second.load("s") == state
    second.close()


def test_a_file_locked_by_another_program_is_refused_at_open(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    states = _two_sessions(path)
    other = sqlite3.connect(path, isolation_level=None)
    other.execute("begin exclusive")
    with pytest.raises(StoreLocked):
        SqliteStore(str(path), timeout=0.05)
    other.execute("rollback")
    other.close()
    assert _outcome(path, states) == {"a": "ok", "b": "ok"}


@pytest.mark.parametrize(
    ("table", "value"),
    [
        ("updates", "{not json"),
        ("updates", '{"sessionUpdate": "agent_message_chunk", "content": 5}'),
        ("snapshots", '{"version": 1, "sessionId": 7}'),
        ("snapshots", json.dumps(acp.snapshot(acp.new_session("someone else")))),
    ],
)
def test_a_bad_row_in_one_of_two_sessions_leaves_the_other(
    tmp_path: Path, table: str, value: str
) -> None:
    path = tmp_path / "s.sqlite"
    states = _two_sessions(path)
    db = sqlite3.connect(path, isolation_level=None)
    if table == "updates":
        db.execute(
            "update updates set update_json = ? where session_id = 'a' and seq = 9", (value,)
        )
    else:
        db.execute("insert into snapshots values ('a', 5, ?)", (value,))
    db.close()
    assert _outcome(path, states) == {"a": "damaged", "b": "ok"}


def test_a_missing_row_is_damage_not_a_shorter_history(tmp_path: Path) -> None:
    path = tmp_path / "s.sqlite"
    states = _two_sessions(path)
    db = sqlite3.connect(path, isolation_level=None)
    db.execute("delete from updates where session_id = 'b' and seq = 100")
    db.close()
    assert _outcome(path, states) == {"a": "ok", "b": "damaged"}
