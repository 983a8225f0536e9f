"""The client connection's index of pending permission requests (`permission_owners`) never
loses one: after any mix of requests, answers, withdrawals, cancels and closes over several
sessions, every request an engine holds is indexed under its session, so a `$/cancel_request`
or a clashing id finds it without walking the sessions (benchmarks/connection_sessions.py
measures that the cost stays flat with 3,000 sessions)."""

from __future__ import annotations

import json
from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st

from acp_core import connection as c
from acp_core import intents as i
from acp_core.codec import decode_message

SESSIONS = ("s0", "s1", "s2")
_OPTION = {"optionId": "a", "name": "Allow", "kind": "allow_once"}


def _opened() -> Any:
    conn = c.new_client_connection(c.Implementation("t", "1"))
    for sid in SESSIONS:
        step = c.connection_step(conn, c.NewSession("/w"))
        answer = {"jsonrpc": "2.0", "id": step.outbound[0]["id"], "result": {"sessionId": sid}}
        conn = c.connection_step(step.connection, i.Received(decode_message(answer))).connection
    return conn


def _received(conn: Any, wire: dict[str, Any]) -> Any:
    return c.receive_bytes(conn, (json.dumps({"jsonrpc": "2.0", **wire}) + "\n").encode())


ACTIONS = st.lists(
    st.tuples(
        st.sampled_from(("ask", "answer", "withdraw", "cancel", "close", "ask-same-id")),
        st.sampled_from(SESSIONS),
        st.integers(0, 5),
    ),
    max_size=25,
)


def _held(conn: Any) -> dict[object, str]:
    return {rid: sid for sid, s in conn.sessions.items() for rid in s.engine.pending}


@settings(max_examples=150, deadline=None)
@given(ACTIONS)
def test_every_pending_permission_request_is_indexed_under_its_session(actions: Any) -> None:
    conn = _opened()
    for action, sid, n in actions:
        rid = 100 + n
        if action in ("ask", "ask-same-id") and sid in conn.sessions:
            params = {"sessionId": sid, "title": "Run?", "options": [_OPTION]}
            wire = {"id": rid, "method": "session/request_permission", "params": params}
            conn = _received(conn, wire).connection
        elif (
            action == "answer" and sid in conn.sessions and rid in conn.sessions[sid].engine.pending
        ):
            intent = c.SessionIntent(sid, i.AnswerPermission(rid, "a"))
            conn = c.connection_step(conn, intent).connection
        elif action == "withdraw":
            wire = {"method": "$/cancel_request", "params": {"requestId": rid}}
            conn = _received(conn, wire).connection
        elif action == "cancel" and sid in conn.sessions:
            conn = c.connection_step(conn, c.SessionIntent(sid, i.SendCancel())).connection
        elif action == "close" and sid in conn.sessions:
            step = c.connection_step(conn, c.CloseSession(sid))
            answer = {"id": step.outbound[-1]["id"], "result": {}}
            conn = _received(step.connection, answer).connection
        held = _held(conn)
        # Every held request is indexed under the session that holds it (whatever else the
        # index has is a stale entry of a closed session, dropped when read).
        assert all(conn.permission_owners.get(rid) == sid for rid, sid in held.items())


def test_a_withdrawal_reaches_the_session_that_holds_the_request() -> None:
    conn = _opened()
    params = {"sessionId": "s2", "title": "Run?", "options": [_OPTION]}
    conn = _received(
        conn, {"id": 7, "method": "session/request_permission", "params": params}
    ).connection
    assert conn.permission_owners.get(7) == "s2"
    step = _received(conn, {"method": "$/cancel_request", "params": {"requestId": 7}})
    assert [type(e).__name__ for e in step.events] == ["RequestCancelled"]
    assert 7 not in step.connection.sessions["s2"].engine.pending
    assert 7 not in step.connection.permission_owners


def test_a_request_under_a_pending_id_is_refused_whichever_session_holds_it() -> None:
    conn = _opened()
    params = {"sessionId": "s1", "title": "Run?", "options": [_OPTION]}
    conn = _received(
        conn, {"id": 7, "method": "session/request_permission", "params": params}
    ).connection
    clash = _received(
        conn,
        {"id": 7, "method": "session/request_permission", "params": {**params, "sessionId": "s0"}},
    )
    assert [m["error"]["code"] for m in clash.outbound] == [-32600]
    assert [e.rule for e in clash.events if isinstance(e, c.Finding)] == ["J2"]
    assert 7 not in clash.connection.sessions["s0"].engine.pending
