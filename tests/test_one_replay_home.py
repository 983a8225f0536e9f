"""Whether a session is replaying history has one home per party: the protocol machine.

The client connection keeps no replay window of its own: it asks the judge's
`PreviewState.replaying` where the judge runs (a v2 wire from 2026-11 on) and the session
machine's `Conversation.replaying` where it does not (2026-08, v1), through
`_engines/_connection_client_state.history_open`. These tests fail if a second store comes
back (a window field on the session record, a protocol party reading the view's
`SessionExtras.replay`), and hold the connection's answer to an independent one at every step
of every resume the corpus and the Preview trace table show: the view's own window (the
reducer's, in the client engine's session tree) at the Preview, the session machine's at
2026-11 (where the connection asks the judge), and the record's own deprecated reading
everywhere.

Planted bugs each test caught (then removed): `history_open` asking only the session machine
(the judge ignored) fails `test_the_connections_answer_is_the_machines_at_every_step` on 19
Preview cases (a marker before the answer); a window string (`replay_phase: str`) put back
on `ClientSession` fails `test_a_client_session_record_keeps_no_replay_window`; `_update` reading
the view's `extras.replay.replaying` fails `test_no_protocol_party_reads_the_views_window`;
`Build.end_history` left out at the marker fails
`test_a_marker_and_a_failed_answer_in_one_batch`.
"""

from __future__ import annotations

import json
import re
import warnings
from pathlib import Path
from typing import Any, Final

import attrs
import pytest
from client_replay import ClientReplay, Refused, _handshake, sessions_named
from preview_traces import CASES as PREVIEW_CASES
from test_check import load

import acp_core as acp
from acp_core import connection as c
from acp_core.codec import Revision

ROOT: Final = Path(__file__).resolve().parent.parent
TRACES: Final = Path(__file__).resolve().parent / "traces"
REVISIONS: Final = {"2026-08": acp.V2_2026_08, "2026-11": acp.V2_2026_11, "preview": acp.PREVIEW}


# -- no second store -------------------------------------------------------------------------


def test_a_client_session_record_keeps_no_replay_window() -> None:
    # The record keeps how its last window ended, never whether one is open.
    fields = attrs.fields_dict(c.ClientSession)
    assert {name for name in fields if "replay" in name} == {"replay_end"}
    assert not any("replay" in f.name for f in attrs.fields(c.ClientConnection))


#: What reads the state layer's replay window (its record, its phase names, its flag).
_VIEW_WINDOW: Final = re.compile(
    r"extras\.replay\b|\bReplayWindow\b|\bREPLAY_(NONE|REPLAYING|COMPLETE|TRUNCATED)\b"
    r"|\.replay\.(replaying|phase|request_id)\b"
)


def test_no_protocol_party_reads_the_views_window() -> None:
    # Engines, connections and the checker decide on the machine's window; the view's
    # (`SessionExtras.replay`) is for hosts without a machine. (The client engine's tree
    # keeps its view through `begin_resume`/`end_resume`, which write it, never read it.)
    parties = [
        *sorted((ROOT / "acp_core" / "_engines").glob("*.py")),
        *sorted((ROOT / "acp_core" / "_rules").glob("*.py")),
        *sorted((ROOT / "acp_core" / "_v1").glob("*.py")),
    ]
    assert len(parties) > 60
    readers = [
        f"{path.relative_to(ROOT)}:{n}"
        for path in parties
        for n, line in enumerate(path.read_text(encoding="utf-8").splitlines(), start=1)
        if _VIEW_WINDOW.search(line.split("#")[0])
    ]
    assert readers == []


# -- the connection's answer is the machine's ----------------------------------------------


def _views_window(conn: c.ClientConnection, sid: str) -> bool:
    # The reducer's window in the client engine's session tree (opened by the resume's
    # cursor, closed by the marker or the answer): computed apart from the judge.
    tree = conn.sessions[sid].engine.children
    state = tree.sessions.get(sid)
    return state is not None and state.aux.extras.replay.replaying


def _reference(conn: c.ClientConnection, sid: str) -> bool:
    """An answer computed apart from the one the connection gives."""
    if conn.revision.includes(acp.PREVIEW.name):
        return _views_window(conn, sid)  # the connection asks the judge
    # 2026-11 (the connection asks the judge; no end marker, so the session machine's window
    # is the same) and 2026-08 (the session machine is what it asks: the record's reading,
    # checked too, is the independent one there)
    return conn.sessions[sid].engine.conversation.replaying


class _Checked(ClientReplay):
    """A client replay that checks the law after every step it takes."""

    steps = 0
    windows = 0

    def _do(self, intent: object) -> list[dict[str, Any]]:
        out = super()._do(intent)
        self._check()
        return out

    def _receive(self, wire: dict[str, Any]) -> None:
        super()._receive(wire)
        self._check()

    def _check(self) -> None:
        conn = self.conn
        for sid, session in conn.sessions.items():
            said = conn.replaying(sid)
            assert said == _reference(conn, sid), (sid, conn.revision.name, self.trace[-3:])
            with warnings.catch_warnings():
                warnings.simplefilter("ignore", DeprecationWarning)
                assert session.replaying == said  # the record's own (deprecated) reading
                assert session.replay == conn.replay(sid)
            if conn.rules.judge is not None and conn.v1 is None:
                assert said == (sid in conn.rules.judge.replaying)
            assert "replaying" not in attrs.astuple(session, recurse=False)
            self.steps += 1
            self.windows += said


def _play(entries: list[dict[str, Any]], revision: Revision) -> _Checked:
    handshake = _handshake(entries)
    replay = _Checked(revision, (), entries[:handshake])
    replay.open(sessions_named(entries) or ("sess_parent",))
    for entry in entries[handshake:]:
        try:
            replay.feed(entry)
        except Refused:
            break  # the client would not send it: the law held up to here
    return replay


def _resumes(entries: list[dict[str, Any]]) -> bool:
    return any(
        isinstance(e["message"], dict) and e["message"].get("method") == "session/resume"
        for e in entries
    )


def _cases() -> list[Any]:
    traces: list[tuple[str, list[dict[str, Any]]]] = []
    for path in sorted([*TRACES.glob("*.jsonl"), *TRACES.glob("agents/*.jsonl")]):
        traces.append((path.stem, load(path)))
    for n, (rule, good, bad, _index) in enumerate(PREVIEW_CASES):
        traces.append((f"preview_{rule}_{n}_good", good))
        traces.append((f"preview_{rule}_{n}_bad", bad))
    return [
        pytest.param(entries, revision, id=f"{name}-{case}")
        for case, entries in traces
        if _resumes(entries)
        for name, revision in REVISIONS.items()
    ]


CASES: Final = _cases()


def test_the_table_reaches_resumes_at_every_revision() -> None:
    assert len(CASES) >= 3 * 30


@pytest.mark.parametrize(("entries", "revision"), CASES)
def test_the_connections_answer_is_the_machines_at_every_step(
    entries: list[dict[str, Any]], revision: Revision
) -> None:
    replay = _play(entries, revision)
    assert replay.steps > 0


def test_the_law_sees_open_windows_and_markers() -> None:
    # The table is not vacuous: windows are open at some steps, and at the Preview a marker
    # closes one before its answer (where asking the session machine alone would differ).
    opened = sum(_play(e, r).windows for e, r in (p.values for p in CASES))
    assert opened > 50
    marked = [
        e
        for e, r in (p.values for p in CASES)
        if r is acp.PREVIEW and any("replay_complete" in json.dumps(x) for x in e)
    ]
    assert len(marked) > 10


# -- within one step -------------------------------------------------------------------------


def _batch_client() -> tuple[c.ClientConnection, object]:
    conn = c.new_client_connection(c.Implementation("c", "1"), revision=acp.PREVIEW)
    step = c.connection_step(conn, c.NewSession("/w"))
    answer = {"jsonrpc": "2.0", "id": step.outbound[0]["id"], "result": {"sessionId": "s1"}}
    conn = c.receive_bytes(step.connection, json.dumps(answer).encode() + b"\n").connection
    step = c.connection_step(conn, c.ResumeSession("s1", "/w", replay=True))
    return step.connection, step.outbound[0]["id"]


def test_a_marker_and_a_failed_answer_in_one_batch() -> None:
    # The judge sees a step's messages when the step is done: a batch whose marker ends the
    # window before its resume fails is complete, as the view says, not truncated.
    conn, rid = _batch_client()
    assert conn.replaying("s1")
    assert conn.replay("s1") == "replaying"
    marker = {"sessionId": "s1", "update": {"sessionUpdate": "replay_complete"}}
    batch = [
        {"jsonrpc": "2.0", "method": "session/update", "params": marker},
        {"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "lost"}},
    ]
    conn = c.receive_bytes(conn, json.dumps(batch).encode() + b"\n").connection
    assert not conn.replaying("s1")
    assert conn.replay("s1") == "complete"
    assert conn.sessions["s1"].engine.children.sessions["s1"].aux.extras.replay.phase == "complete"


def test_a_failed_answer_alone_truncates() -> None:
    conn, rid = _batch_client()
    failed = {"jsonrpc": "2.0", "id": rid, "error": {"code": -32603, "message": "lost"}}
    conn = c.receive_bytes(conn, json.dumps(failed).encode() + b"\n").connection
    assert not conn.replaying("s1")
    assert conn.replay("s1") == "truncated"


def test_the_old_reading_still_works_with_a_warning_naming_the_new_home() -> None:
    conn, _rid = _batch_client()
    with pytest.warns(DeprecationWarning, match=r"ClientConnection\.replay\(session_id\)"):
        assert conn.sessions["s1"].replay == "replaying"
    with pytest.warns(DeprecationWarning, match=r"ClientConnection\.replaying\(session_id\)"):
        assert conn.sessions["s1"].replaying


def test_a_child_announced_in_a_replay_has_the_judges_window() -> None:
    conn, _rid = _batch_client()

    def update(sid: str, update: dict[str, Any]) -> bytes:
        params = {"sessionId": sid, "update": update}
        return json.dumps({"jsonrpc": "2.0", "method": "session/update", "params": params}).encode()

    announce = {"sessionUpdate": "subagent_update", "sessionId": "k1"}
    conn = c.receive_bytes(conn, update("s1", announce) + b"\n").connection
    assert (conn.replaying("s1"), conn.replaying("k1"), conn.replaying("nobody")) == (
        True,
        True,
        False,
    )
    marker = {"sessionUpdate": "replay_complete"}
    conn = c.receive_bytes(conn, update("k1", marker) + b"\n").connection
    assert (conn.replaying("s1"), conn.replaying("k1")) == (True, False)
