"""A live client connection holds the protocol machine's connection-wide part, and for the
same traffic it holds the same value as the checker's machine.

`ClientConnection.rules` is a `ConnectionRules`, the type `Protocol.rules` is: every playable
trace of the corpus, played into a real client connection (tests/client_replay.py) and
checked from what the connection exchanged, leaves the connection's and the machine's
advertised capabilities (J70-J80), sessions set up (J3, J56) and session-management answers
(J50-J64) equal, an answer whose id the agent mangled (J37) included: both read it as the
answer to the request it meant (`_rules/_protocol.echoed`). The judge across sessions (from
2026-11 on) is equal too wherever the two counted the same lines: it keeps line labels, and a
connection counts the messages it showed the judge where the machine takes a trace's entry
index (a batch is one line and several messages; an update held for a session not set up yet
is shown to the judge on arrival and again when it is handed over). Framing is not compared:
its line labels differ by design in the same way. Both ends of an in-memory pair
(tests/conn_pair.py), each fed through the one role-neutral feeding with its side a
parameter, hold what the machine holds of the recording that end made, judge included.
"""

from __future__ import annotations

import json
import warnings
from pathlib import Path
from typing import Any, Final

import pytest
from client_replay import Refused, play
from conn_pair import Pair
from test_check import load
from test_rule_consistency_connection import _replayable

import acp_core as acp
from acp_core import connection as c
from acp_core._rules._connection_rules import ConnectionRules
from acp_core.checker import IncrementalCheck

TRACES: Final = Path(__file__).resolve().parent / "traces"
REVISIONS: Final = (acp.V2_2026_08, acp.V2_PREVIEW)
_COMPARED: Final = ("caps", "opened", "answers")


def _played(revision: acp.Revision, path: Path) -> Any:
    entries = load(path)
    if not _replayable(entries):
        return None
    try:
        return play(entries, revision)
    except Refused:
        return None


def test_the_connection_holds_what_the_machine_holds() -> None:
    compared, judges, differ = 0, 0, {}
    for revision in REVISIONS:
        for path in sorted(TRACES.glob("*.jsonl")):
            replay = _played(revision, path)
            if replay is None:  # a trace no client connection can play: nothing to compare
                continue
            held = replay.conn.rules
            machine = IncrementalCheck.start(revision).feed_all(replay.trace).protocol.rules
            assert type(held) is type(machine) is ConnectionRules
            ours, theirs = held.exchange, machine.exchange
            assert ours is not None
            assert theirs is not None
            parts = [p for p in _COMPARED if getattr(ours, p) != getattr(theirs, p)]
            assert (held.judge is None) == (machine.judge is None)
            if held.judge is not None and held.judged == machine.judged:  # the same labels
                judges += 1
                if held.judge != machine.judge:
                    parts.append("judge")
            if parts:
                differ[(revision.name, path.stem)] = parts
            compared += 1
    assert compared >= 200
    assert judges >= 100  # not vacuous: most Preview replays count their lines alike
    assert differ == {}


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_both_ends_of_a_pair_hold_what_the_machine_holds_of_their_own_recordings(
    revision: acp.Revision,
) -> None:
    # Each end feeds its one `rules` value per message (the role-neutral feeding, the side
    # a parameter); the machine, fed the recording that end made, holds the same parts.
    from test_connection import _turn

    pair = Pair(revision=revision)
    session_id = pair.open()
    for text in ("one", "two"):
        _turn(pair, session_id, text)
    pair.client_says(session_id, acp.SendPrompt((acp.TextContent("three"),)))
    pair.settle()
    pair.client_says(session_id, acp.SendCancel())
    pair.settle()
    for conn, trace in ((pair.client, pair.client_trace), (pair.agent, pair.agent_trace)):
        held = conn.rules
        machine = IncrementalCheck.start(revision).feed_all(trace).protocol.rules
        assert type(held) is type(machine) is ConnectionRules
        ours, theirs = held.exchange, machine.exchange
        assert ours is not None
        assert theirs is not None
        assert [p for p in _COMPARED if getattr(ours, p) != getattr(theirs, p)] == []
        assert held.judged == (machine.judged if machine.judge is not None else 0)
        assert held.judge == machine.judge


@pytest.mark.parametrize("side", ["client", "agent"])
def test_the_parts_read_by_their_old_names_warn_once_and_name_the_one_value(side: str) -> None:
    info = c.Implementation("x", "1")
    conn: Any = (
        c.new_client_connection(info, revision=acp.V2_PREVIEW)
        if side == "client"
        else c.new_agent_connection(info, revision=acp.V2_PREVIEW)
    )
    cls = type(conn).__name__
    for name in ("judge", "judged", "exchange"):
        with warnings.catch_warnings(record=True) as caught:
            warnings.simplefilter("always")
            assert getattr(conn, name) is getattr(conn.rules, name)
        assert [w.category for w in caught] == [DeprecationWarning]
        assert f"use {cls}.rules.{name}" in str(caught[0].message)
        assert caught[0].filename == __file__  # the warning names the caller's line


def _receive(conn: c.ClientConnection, message: object) -> c.ConnectionStep:
    return c.receive_bytes(conn, json.dumps(message).encode() + b"\n")


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize(("sent", "echoed"), [(7, "7"), ("8", 8)])
def test_an_answer_echoing_an_id_with_its_type_changed_is_j37_and_answers_that_request(
    revision: acp.Revision, sent: int | str, echoed: int | str
) -> None:
    conn = c.new_client_connection(c.Implementation("echo-client", "1"), revision=revision)
    asked = c.connection_step(conn, c.Initialize(request_id=sent)).connection
    answer = {"protocolVersion": 2, "info": {"name": "a", "version": "1"}, "capabilities": {}}
    step = _receive(asked, {"jsonrpc": "2.0", "id": echoed, "result": answer})
    findings = [e.rule for e in step.events if isinstance(e, c.Finding)]
    assert findings == ["J37"]  # one finding a fault: not J1 too
    # otherwise read as the answer with the id echoed exactly
    exact = _receive(asked, {"jsonrpc": "2.0", "id": sent, "result": answer})
    assert [e for e in step.events if not isinstance(e, c.Finding)] == list(exact.events)
    assert len(step.connection.outgoing) == len(exact.connection.outgoing) == 0
    # batched, the same
    step = c.connection_step(step.connection, c.NewSession("/w", request_id=sent))
    new = {"jsonrpc": "2.0", "id": echoed, "result": {"sessionId": "s1"}}
    step = _receive(step.connection, [new])
    assert [e.rule for e in step.events if isinstance(e, c.Finding)] == ["J37"]
    assert "s1" in step.connection.sessions


def test_an_id_that_names_a_request_is_never_rewritten() -> None:
    conn = c.new_client_connection(c.Implementation("echo-client", "1"))
    step = c.connection_step(conn, c.Initialize(request_id=5))
    step = c.connection_step(step.connection, c.NewSession("/w", request_id="5"))
    answer = {"protocolVersion": 2, "info": {"name": "a", "version": "1"}, "capabilities": {}}
    step = _receive(step.connection, {"jsonrpc": "2.0", "id": 5, "result": answer})
    assert [e.rule for e in step.events if isinstance(e, c.Finding)] == []
    assert list(step.connection.outgoing) == ["5"]


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize(("sent", "echoed"), [(7, "7"), ("8", 8)])
def test_a_batch_is_read_one_answer_at_a_time_as_the_checker_reads_it(
    revision: acp.Revision, sent: int | str, echoed: int | str
) -> None:
    # `[exact, mangled]` to one request: the first answers it, so the second names no
    # request any more (J1 alone, as `check_trace` finds it, not J37 too); `[mangled,
    # exact]`: the first is J37 and answers it, the second is J1.
    from acp_core.checker import check_trace

    for order, expected in (((sent, echoed), ["J1"]), ((echoed, sent), ["J37", "J1"])):
        lines: list[dict[str, object]] = []
        conn = c.new_client_connection(c.Implementation("echo-client", "1"), revision=revision)
        step = c.connection_step(conn, c.Initialize(request_id=1))
        lines += [{"from": "client", "message": m} for m in step.outbound]
        answer = {"protocolVersion": 2, "info": {"name": "a", "version": "1"}, "capabilities": {}}
        init = {"jsonrpc": "2.0", "id": 1, "result": answer}
        lines.append({"from": "agent", "message": init})
        step = c.connection_step(
            _receive(step.connection, init).connection, c.NewSession("/w", request_id=sent)
        )
        lines += [{"from": "client", "message": m} for m in step.outbound]
        batch = [
            {"jsonrpc": "2.0", "id": rid, "result": {"sessionId": f"s{i}"}}
            for i, rid in enumerate(order)
        ]
        lines.append({"from": "agent", "message": batch})
        step = _receive(step.connection, batch)
        assert [e.rule for e in step.events if isinstance(e, c.Finding)] == expected
        assert [v.rule for v in check_trace(lines, revision=revision)] == expected


def test_an_update_held_for_a_session_being_created_is_judged_once() -> None:
    # An update for the session a `session/new` is creating arrives before the answer: it is
    # held and shown to the judge as it arrives; handing it over at the answer shows it no
    # second time (the judge's counter labels each message once, as the machine's does).
    conn = acp.new_client_connection(acp.Implementation("t", "0"), revision=acp.V2_PREVIEW)
    conn = acp.connection_step(conn, acp.NewSession("/w")).connection
    chunk = {"sessionUpdate": "agent_message_chunk", "messageId": "m1",
             "content": {"type": "text", "text": "early"}}  # fmt: skip
    update = {"jsonrpc": "2.0", "method": "session/update",
              "params": {"sessionId": "s1", "update": chunk}}  # fmt: skip
    answer = {"jsonrpc": "2.0", "id": 0, "result": {"sessionId": "s1"}}
    conn = acp.receive_bytes(conn, acp.encode_ndjson(update)).connection
    shown = conn.rules.judged
    conn = acp.receive_bytes(conn, acp.encode_ndjson(answer)).connection
    assert conn.rules.judged == shown + 1  # the answer; not the held update again
    assert [b.text for b in conn.sessions["s1"].engine.session.messages["m1"].content] == ["early"]
