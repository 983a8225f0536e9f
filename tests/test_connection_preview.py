"""The client connection at the Preview: child traffic reaches the engine that announced the
child (no E3), unannounced ids are held with an R47 finding and handed over when announced,
item cancels and retries are numbered by the connection and answered back, and a resume's
replay windows (children included) close with their markers; a resume answered first is R57."""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import acp_core as acp

SID, C1, G1 = "sess_1", "sess_child_1", "sess_grand_1"
CHUNK = {
    "sessionUpdate": "agent_message_chunk",
    "messageId": "m",
    "content": {"type": "text", "text": "x"},
}


class Client:
    """A client connection fed agent messages as JSON (no agent: the agent's side is scripted)."""

    def __init__(self, *, initialize: bool = False) -> None:
        info = acp.Implementation("c", "1")
        self.conn = acp.new_client_connection(info, revision=acp.PREVIEW)
        self.events: list[object] = []
        self.sent: list[dict[str, Any]] = []
        if initialize:
            out = self.do(acp.Initialize())
            answer = {"protocolVersion": 2, "info": {"name": "a", "version": "1"}}
            self.agent({"id": out[0]["id"], "result": {**answer, "capabilities": {}}})
        out = self.do(acp.NewSession("/w"))
        self.agent({"id": out[0]["id"], "result": {"sessionId": SID}})

    def do(self, intent: object) -> list[dict[str, Any]]:
        step = acp.connection_step(self.conn, intent)
        self.conn = step.connection
        self.events.extend(step.events)
        self.sent.extend(step.outbound)
        return list(step.outbound)

    def agent(self, message: dict[str, Any]) -> list[dict[str, Any]]:
        wire = json.loads(json.dumps({"jsonrpc": "2.0", **message}))
        decoded = acp.decode_message(wire, revision=acp.PREVIEW)
        return self.do(acp.Received(decoded))

    def update(self, sid: str, update: dict[str, Any]) -> None:
        self.agent({"method": "session/update", "params": {"sessionId": sid, "update": update}})

    def engine(self) -> acp.ClientEngine:
        return self.conn.sessions[SID].engine

    def findings(self) -> list[str]:
        return [e.rule for e in self.events if isinstance(e, acp.Finding)]


def announce(child: str, **fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "subagent_update", "sessionId": child, **fields}


def test_child_and_grandchild_traffic_reaches_the_owning_engine() -> None:
    c = Client()
    c.update(SID, announce(C1))
    c.update(C1, announce(G1))
    c.update(G1, CHUNK)
    tree = c.engine().children
    assert acp.parent_of(tree, G1) == C1
    assert "m" in tree.sessions[G1].messages
    assert c.findings() == []


def _judged(c: Client) -> list[str]:
    # What the connection's engines kept (the agent's faults on the client's session and
    # its children) and the connection's own findings, as the consistency table reads them.
    kept = [v.rule for v in c.engine().violations if not v.warning]
    return kept + c.findings()


@pytest.mark.parametrize(
    ("update", "rule"),
    [({**CHUNK, "zz": 1}, "R43"),
     ({"sessionUpdate": "session_message_chunk", "messageId": "sm", "senderSessionId": SID,
       "content": {"type": "text", "text": "x"}}, "R54")],
    ids=["R43", "R54"],
)  # fmt: skip
@pytest.mark.parametrize("held", [False, True], ids=["announced", "held-then-announced"])
def test_a_childs_update_is_judged_on_its_own_as_the_checker_judges_it(
    update: dict[str, Any], rule: str, held: bool
) -> None:
    # The single-message rules run on every session's updates, a child's and a
    # grandchild's too (before, only the client's own session's): the connection names the
    # checker's rule for the same lines, also for traffic held until its announcement.
    c = Client()
    lines = [(SID, announce(C1)), (C1, announce(G1)), (G1, update)]
    if held:
        lines = [lines[0], lines[2], lines[1]]
    for sid, line in lines:
        c.update(sid, line)
    trace = [{"from": "agent", "message": {"jsonrpc": "2.0", "method": "session/update",
                                           "params": {"sessionId": sid, "update": line}}}
             for sid, line in lines]  # fmt: skip
    checked = [v.rule for v in acp.check_trace(trace, revision=acp.PREVIEW) if not v.warning]
    assert rule in checked
    assert rule in _judged(c)


def test_unannounced_traffic_is_held_with_r47_and_handed_over() -> None:
    # Before `initialize` the connection judges as the checker judges a recording that starts
    # late: the traffic may be an older session's, so R47 is said at the announcement (for
    # the line of the first use), by the checker's own decider, not at arrival.
    c = Client()
    c.update(C1, CHUNK)
    assert c.findings() == []
    assert C1 not in c.engine().children.sessions
    c.update(SID, announce(C1))
    assert c.findings() == ["R47"]
    assert "m" in c.engine().children.sessions[C1].messages
    assert C1 not in c.conn.orphans


def test_from_initialize_unannounced_traffic_is_j3_at_once_and_only_j3() -> None:
    # A connection that began with `initialize` has seen every session set up: the checker's
    # `OpenSessions` says J3 on arrival, and the announcement adds no R47 (one finding a fault).
    c = Client(initialize=True)
    c.update(C1, CHUNK)
    assert c.findings() == ["J3"]
    c.update(SID, announce(C1))
    assert c.findings() == ["J3"]
    assert "m" in c.engine().children.sessions[C1].messages


def test_what_is_held_for_unannounced_ids_is_bounded_and_said() -> None:
    # Issue 26: 50,000 updates for distinct invented ids were all held (26.6 MB).
    from acp_core._engines._connection_client_preview import ORPHAN_LIMIT, ORPHAN_SESSIONS_LIMIT

    c = Client()
    for n in range(ORPHAN_SESSIONS_LIMIT + 40):
        c.update(f"sess_ghost_{n}", CHUNK)
    assert len(c.conn.orphans) == ORPHAN_SESSIONS_LIMIT
    dropped = [e for e in c.events if isinstance(e, acp.Finding) and "dropped" in e.detail]
    assert len(dropped) == 40
    for _ in range(ORPHAN_LIMIT + 5):
        c.update("sess_ghost_0", CHUNK)
    assert len(c.conn.orphans["sess_ghost_0"]) == ORPHAN_LIMIT
    # What was held within the bound is still handed over when its child is announced.
    c.update(SID, announce("sess_ghost_1"))
    assert "m" in c.engine().children.sessions["sess_ghost_1"].messages
    assert "sess_ghost_1" not in c.conn.orphans
    c.update("sess_ghost_new", CHUNK)  # a freed place takes a new id
    assert "sess_ghost_new" in c.conn.orphans


def test_a_top_level_session_never_becomes_a_child_and_loops_are_said() -> None:
    # Issue 26: each session's tree knows only itself, so it took another top-level session
    # of the connection as a child; self and ancestor loops left only a tree diagnostic.
    c = Client()
    out = c.do(acp.NewSession("/w2"))
    c.agent({"id": out[0]["id"], "result": {"sessionId": "sess_2"}})
    c.update(SID, announce("sess_2"))
    assert c.findings() == ["R48"]
    assert acp.parent_of(c.engine().children, "sess_2") is None
    assert "sess_2" in c.conn.sessions  # still its own top-level session
    for announcer, child in ((SID, SID), (C1, SID), (G1, C1)):
        c.events.clear()
        if announcer == C1:
            c.update(SID, announce(C1))
            c.update(C1, announce(G1))
            c.events.clear()
        c.update(announcer, announce(child))
        assert c.findings() == ["R48"], (announcer, child)
    assert acp.parent_of(c.engine().children, C1) == SID  # nothing moved


def test_a_childs_permission_request_is_answered_through_the_connection() -> None:
    c = Client()
    c.update(SID, announce(C1))
    options = [{"optionId": "y", "name": "Yes", "kind": "allow_once"}]
    params = {"sessionId": C1, "title": "Go?", "options": options}
    assert c.agent({"id": 70, "method": "session/request_permission", "params": params}) == []
    out = c.do(acp.SessionIntent(SID, acp.AnswerPermission(70, "y")))
    assert out == [
        {
            "jsonrpc": "2.0",
            "id": 70,
            "result": {"outcome": {"outcome": "selected", "optionId": "y"}},
        }
    ]


def test_item_cancel_is_numbered_by_the_connection_and_its_answer_routed() -> None:
    c = Client()
    c.update(
        SID,
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "title": "w",
            "capabilities": {"cancel": {}},
        },
    )
    (request,) = c.do(acp.SessionIntent(SID, acp.CancelToolCall("t1")))
    assert request["method"] == "tool_call/cancel"
    assert request["id"] != c.sent[0]["id"]  # numbered on the whole connection
    c.agent({"id": request["id"], "result": {}})
    assert c.engine().requests == acp.new_client(SID, revision=acp.PREVIEW).requests
    assert c.findings() == []


def test_a_keyed_retry_is_numbered_and_answered() -> None:
    c = Client()
    (first,) = c.do(
        acp.SessionIntent(SID, acp.SendPrompt((acp.TextContent("hi"),), idempotency_key="K"))
    )
    (again,) = c.do(acp.SessionIntent(SID, acp.RetryPrompt(first["id"])))
    assert again["params"] == first["params"]
    assert again["id"] != first["id"]
    c.update(
        SID,
        {
            "sessionUpdate": "user_message",
            "messageId": "u1",
            "content": [{"type": "text", "text": "hi"}],
        },
    )
    for wire in (again, first):
        c.agent({"id": wire["id"], "result": {"messageId": "u1"}})
    assert [p.message_id for p in c.engine().prompts] == ["u1", "u1"]
    assert c.findings() == []


def _resume(c: Client) -> Any:
    (request,) = c.do(acp.ResumeSession(SID, "/w", replay=True))
    return request["id"]


def test_children_replayed_in_a_resume_get_their_own_windows() -> None:
    c = Client()
    rid = _resume(c)
    c.update(SID, announce(C1))
    assert c.engine().children.sessions[C1].extras.replay.phase == "replaying"
    c.update(C1, {"sessionUpdate": "replay_complete"})
    assert c.engine().children.sessions[C1].extras.replay.phase == "complete"
    c.update(SID, {"sessionUpdate": "replay_complete"})
    c.update(SID, {"sessionUpdate": "state_update", "state": "idle"})
    c.agent({"id": rid, "result": {}})
    assert c.conn.replay(SID) == "complete"
    assert c.findings() == []


def test_a_resume_answered_before_its_marker_is_r57_and_closes_the_windows() -> None:
    c = Client()
    rid = _resume(c)
    c.update(SID, announce(C1))
    c.agent({"id": rid, "result": {}})
    # R57 (no marker), and what the checker also finds there: the child's own replay and
    # the snapshot the resume owes before its answer (R60, R62).
    assert c.findings() == ["R57", "R60", "R62"]
    assert c.conn.replay(SID) == "complete"
    assert c.engine().children.sessions[C1].extras.replay.phase == "complete"


def test_a_failed_resume_truncates_every_window() -> None:
    c = Client()
    rid = _resume(c)
    c.update(SID, announce(C1))
    c.agent({"id": rid, "error": {"code": -32603, "message": "lost"}})
    assert c.conn.replay(SID) == "truncated"
    assert c.engine().children.sessions[C1].extras.replay.phase == "truncated"


def test_a_resume_with_replay_rebuilds_children_on_a_new_connection() -> None:
    # End to end over NDJSON: the agent re-announces the child inside the parent's replay
    # and replays it with its own marker (R60, R61); the new client's tree gets the child in
    # its own window, closed by that marker; the checker finds nothing on either recording.
    from conn_pair import Pair
    from test_connection import _second_client, _turn

    pair = Pair(revision=acp.PREVIEW)
    sid = pair.open()
    pair.agent_says(sid, acp.SendUpdate(acp.SubagentUpdate(C1, title="tests")))
    chunk = acp.AgentMessageChunk("cm", acp.TextContent("x"))
    pair.agent_says(sid, acp.SendUpdate(chunk, session_id=C1))
    pair.settle()
    _turn(pair, sid, "one")
    later = _second_client(pair)
    later.client_do(acp.ResumeSession(sid, "/work", replay=True))
    later.settle()
    session = later.client.sessions[sid]
    assert later.client.replay(sid) == "complete"
    tree = session.engine.children
    assert acp.parent_of(tree, C1) == sid
    assert tree.sessions[C1].extras.replay.phase == "complete"
    first = pair.client.sessions[sid].engine.children.sessions[C1]
    assert tree.sessions[C1].messages == first.messages
    assert later.findings("client") == []
    assert acp.check_trace(later.client_trace, revision=acp.PREVIEW) == ()
    assert acp.check_trace(later.agent_trace, revision=acp.PREVIEW) == ()


_STEPS = st.lists(
    st.sampled_from(("announce c1", "announce c2", "announce g1", "c1 says", "g1 says", "turn")),
    max_size=6,
)


@given(_STEPS)
@settings(deadline=None)
def test_any_history_with_children_replays_into_the_same_views(steps: list[str]) -> None:
    # Resume with replay as a law: whatever children, grandchildren and turns came before,
    # the resumed connection holds the same child registry and child views, and neither
    # recording breaks a rule.
    from conn_pair import Pair
    from test_connection import _second_client, _turn

    pair = Pair(revision=acp.PREVIEW)
    sid = pair.open()
    for n, step in enumerate(steps):
        verb, _, who = step.partition(" ")
        tree = pair.client.sessions[sid].engine.children
        if verb == "announce" and who not in tree.parents:
            parent = "c1" if who == "g1" else None
            if who == "g1" and "c1" not in tree.parents:
                continue
            pair.agent_says(sid, acp.SendUpdate(acp.SubagentUpdate(who), session_id=parent))
        elif who.startswith(("c", "g")) and verb != "announce" and who in tree.parents:
            chunk = acp.AgentMessageChunk(f"{who}-m{n}", acp.TextContent("x"))
            pair.agent_says(sid, acp.SendUpdate(chunk, session_id=who))
        elif step == "turn":
            _turn(pair, sid, f"t{n}")
        pair.settle()
    later = _second_client(pair)
    later.client_do(acp.ResumeSession(sid, "/work", replay=True))
    later.settle()
    before = pair.client.sessions[sid].engine.children
    after = later.client.sessions[sid].engine.children
    assert dict(after.parents) == dict(before.parents)
    for child in before.parents:
        assert after.sessions[child].messages == before.sessions[child].messages
        assert after.sessions[child].extras.replay.phase == "complete"
    assert later.client.replay(sid) == "complete"
    assert later.findings("client") == []
    assert acp.check_trace(later.client_trace, revision=acp.PREVIEW) == ()


def test_the_resumed_sessions_own_window_closes_with_its_marker() -> None:
    # The parent's own replay_complete reaches its engine: the view and the tree both see the
    # window close with the marker, with no "answered before replay_complete" diagnostic
    # (the connection used to keep the marker to itself, so the answer closed the window).
    from conn_pair import Pair
    from test_connection import _second_client, _turn

    pair = Pair(revision=acp.PREVIEW)
    sid = pair.open()
    _turn(pair, sid, "one")
    later = _second_client(pair)
    later.client_do(acp.ResumeSession(sid, "/work", replay=True))
    later.settle()
    engine = later.client.sessions[sid].engine
    assert engine.children.sessions[sid].extras.replay.phase == "complete"
    assert engine.view == pair.agent.engine(sid).session  # no window of its own in the view
    assert list(engine.session.diagnostics) == []
    assert list(engine.children.sessions[sid].diagnostics) == []
    assert engine.violations == ()


# -- C45 across connections: a keyed prompt whose answer the lost connection swallowed --------


def _lost_prompt(agent_got: str) -> tuple[Any, str, int]:
    """A pair whose client sent prompt "hi" with key K, then lost its connection; the agent
    had, by then, `agent_got`: `nothing`, `held` (received, not accepted) or `inserted`
    (accepted and its turn ended: the answer `{messageId}` never reached the client)."""
    from conn_pair import Pair

    pair = Pair(revision=acp.PREVIEW)
    sid = pair.open()
    pair.client_says(sid, acp.SendPrompt((acp.TextContent("hi"),), idempotency_key="K"))
    original: int = pair.client_trace[-1]["message"]["id"]
    if agent_got != "nothing":
        pair.deliver_to_agent()
    if agent_got == "inserted":
        pair.agent_says(sid, acp.AcceptPrompt(pair.agent.engine(sid).prompts[0].id))
        pair.agent_says(sid, acp.SendAgentText("done"))
        pair.agent_says(sid, acp.EndTurn())
    return pair, sid, original


def _reconnected(pair: Any, sid: str, agent: str) -> Any:
    """A new client connection to the same agent connection (`same`), to an agent restarted
    from the session's snapshot with its keys (`restored`), or from a snapshot written
    without them (`old snapshot`: before `promptKeys` existed)."""
    from conn_pair import Pair
    from test_connection import _second_client

    if agent == "same":
        later = _second_client(pair)
    else:
        engine = pair.agent.engine(sid)
        keys = engine.keys.remembered() if agent == "restored" else None
        doc = acp.snapshot(engine.session, revision=acp.PREVIEW, prompt_keys=keys)
        doc = json.loads(json.dumps(doc))
        later = Pair(revision=acp.PREVIEW)
        kept = acp.restore_prompt_keys(doc)
        later.agent_do(acp.OpenSession(sid, acp.restore(doc), "/work", prompt_keys=kept))
    later.client_do(acp.Initialize())
    later.settle()
    return later


@pytest.mark.parametrize(
    ("agent_got", "agent", "answered_at_once"),
    [
        ("inserted", "same", True),  # the agent process lived on: its engine knows K
        ("inserted", "restored", True),  # R69: K came back with the snapshot
        ("inserted", "old snapshot", False),  # no promptKeys: the retry looks new
        ("held", "restored", False),  # a held attempt dies with its connection: new
        ("nothing", "same", False),  # the original never arrived: the retry is the first
    ],
)
def test_c45_a_keyed_prompt_lost_with_its_connection_is_retried_after_resume(
    agent_got: str, agent: str, answered_at_once: bool
) -> None:
    pair, sid, original = _lost_prompt(agent_got)
    unanswered = pair.client.engine(sid).unanswered
    assert [(p.id, p.idempotency_key) for p in unanswered] == [(original, "K")]
    later = _reconnected(pair, sid, agent)
    later.client_do(acp.ResumeSession(sid, "/work", replay=True, unanswered=unanswered))
    later.settle()
    (retry,) = later.client_says(sid, acp.RetryPrompt(original)).outbound
    assert retry["params"] == pair.client_trace[-1]["message"]["params"]  # content and key
    later.settle()
    engine = later.agent.engine(sid)
    if answered_at_once:
        # R67: the original messageId at once, nothing inserted, no work started
        assert later.client_trace[-1]["message"] == {
            "jsonrpc": "2.0",
            "id": retry["id"],
            "result": {"messageId": "user-1"},
        }
        assert engine.prompts == ()
        assert engine.turn is None
    else:
        (held,) = engine.prompts
        assert held.id == retry["id"]
        later.agent_says(sid, acp.AcceptPrompt(held.id))
        later.agent_says(sid, acp.EndTurn())
        later.settle()
    users = [m for m in later.client.view(sid).messages.values() if m.role == "user"]
    assert len(users) == 1 or (agent == "old snapshot" and len(users) == 2)
    record = acp.sent_prompt(later.client.engine(sid), retry["id"])
    assert record is not None
    assert (record.retry_of, record.state) == (original, "accepted")
    # C44: the submission carried over names the message its retry was answered with
    assert acp.prompt_message_id(later.client.engine(sid), original) == record.message_id
    assert record.message_id == "user-1" if answered_at_once else record.message_id is not None
    assert later.client.engine(sid).unanswered == ()
    assert later.client.view(sid) == later.agent.engine(sid).session
    assert later.findings("client") + later.findings("agent") == []
    assert acp.check_trace(later.client_trace, revision=acp.PREVIEW) == ()
    assert acp.check_trace(later.agent_trace, revision=acp.PREVIEW) == ()


def test_c45_an_unkeyed_prompt_is_never_carried_nor_retried() -> None:
    from conn_pair import Pair

    pair = Pair(revision=acp.PREVIEW)
    sid = pair.open()
    pair.client_says(sid, acp.SendPrompt((acp.TextContent("hi"),)))
    request = pair.client.engine(sid).prompts[0].request
    assert pair.client.engine(sid).unanswered == ()  # without a key, no automatic retry
    later = _reconnected(pair, sid, "same")
    with pytest.raises(acp.LocalProtocolError) as refused:
        later.client_do(acp.ResumeSession(sid, "/work", unanswered=(request,)))
    assert refused.value.rule == "C45"


def test_a_carried_prompt_keeps_its_key_and_its_id_from_new_requests() -> None:
    pair, sid, original = _lost_prompt("nothing")
    later = _reconnected(pair, sid, "same")
    unanswered = pair.client.engine(sid).unanswered
    later.client_do(acp.ResumeSession(sid, "/work", unanswered=unanswered))
    later.settle()
    with pytest.raises(acp.LocalProtocolError) as reused:  # C43: K names the lost submission
        later.client_says(sid, acp.SendPrompt((acp.TextContent("other"),), idempotency_key="K"))
    assert reused.value.rule == "C43"
    (fresh,) = later.client_says(sid, acp.SendPrompt((acp.TextContent("new"),))).outbound
    assert fresh["id"] != original  # numbered past the carried record's id
    assert [p.state for p in later.client.engine(sid).prompts] == ["lost", "sent"]


def test_c45_unanswered_prompts_need_the_preview() -> None:
    from conn_pair import Pair

    pair, sid, _ = _lost_prompt("nothing")
    older = Pair(revision=acp.V2_2026_11)
    older.client_do(acp.Initialize())
    with pytest.raises(acp.LocalProtocolError) as refused:
        older.client_do(acp.ResumeSession(sid, "/w", unanswered=pair.client.engine(sid).unanswered))
    assert refused.value.rule == "E0"


_BEFORE_THE_LOSS = st.lists(
    st.sampled_from(("prompt", "deliver>agent", "deliver>client", "accept", "end")), max_size=10
)


@given(_BEFORE_THE_LOSS)
@settings(deadline=None)
def test_c45_r69_one_user_message_per_submission_across_a_restart(steps: list[str]) -> None:
    # The law: whatever the old connection got through before it was lost, retrying every
    # unanswered keyed submission on the next connection (to an agent restored from its
    # snapshot and keys) leaves exactly one user message per submission, every attempt
    # answered with its submission's message, and both new recordings clean.
    from conn_pair import Pair

    pair = Pair(revision=acp.PREVIEW)
    sid = pair.open()
    submitted: list[str] = []
    for n, step in enumerate(steps):
        engine = pair.agent.engine(sid)
        if step == "prompt":
            intent = acp.SendPrompt((acp.TextContent(f"p{n}"),), idempotency_key=f"k{n}")
            pair.client_says(sid, intent)
            submitted.append(f"p{n}")
        elif step == "deliver>agent":
            pair.deliver_to_agent()
        elif step == "deliver>client":
            pair.deliver_to_client()
        elif step == "accept" and engine.turn is None and engine.prompts:
            pair.agent_says(sid, acp.AcceptPrompt(engine.prompts[0].id))
        elif step == "end" and engine.turn is not None:
            pair.agent_says(sid, acp.EndTurn())
    engine = pair.agent.engine(sid)
    if engine.turn is not None:
        pair.agent_says(sid, acp.EndTurn())  # the agent stores the session between turns
        engine = pair.agent.engine(sid)
    doc = json.loads(
        json.dumps(
            acp.snapshot(engine.session, revision=acp.PREVIEW, prompt_keys=engine.keys.remembered())
        )
    )
    later = Pair(revision=acp.PREVIEW)
    later.agent_do(
        acp.OpenSession(sid, acp.restore(doc), "/work", prompt_keys=acp.restore_prompt_keys(doc))
    )
    later.client_do(acp.Initialize())
    unanswered = pair.client.engine(sid).unanswered
    later.client_do(acp.ResumeSession(sid, "/work", replay=True, unanswered=unanswered))
    later.settle()
    for request in unanswered:
        later.client_says(sid, acp.RetryPrompt(request.id))
    later.settle()
    while later.agent.engine(sid).prompts:
        later.agent_says(sid, acp.AcceptPrompt(later.agent.engine(sid).prompts[0].id))
        later.agent_says(sid, acp.EndTurn())
        later.settle()
    messages = later.agent.engine(sid).session.messages
    users = {mid: acp.message_text(m) for mid, m in messages.items() if m.role == "user"}
    assert sorted(users.values()) == sorted(submitted)  # each submission inserted once
    client = later.client.engine(sid)
    assert client.unanswered == ()
    for record in client.prompts:  # every answered attempt names its submission's message
        if record.state == "accepted":
            assert record.request is not None
            assert users[record.message_id] == record.request.prompt[0].text  # type: ignore[index,union-attr]
    assert later.client.view(sid) == later.agent.engine(sid).session
    assert later.findings("client") + later.findings("agent") == []
    assert acp.check_trace(later.client_trace, revision=acp.PREVIEW) == ()
    assert acp.check_trace(later.agent_trace, revision=acp.PREVIEW) == ()


# -- who owns a child: the connection's index (`ClientConnection.child_owners`) --------------


def _open(c: Client, sid: str) -> None:
    out = c.do(acp.NewSession("/w"))
    c.agent({"id": out[0]["id"], "result": {"sessionId": sid}})


def test_the_owner_index_follows_announcements_and_leaves_with_a_closed_session() -> None:
    c = Client()
    for n in range(50):  # many top-level sessions: routing must not depend on them
        _open(c, f"other_{n}")
    c.update(SID, announce(C1))
    c.update(C1, announce(G1))
    assert dict(c.conn.child_owners) == {C1: SID, G1: SID}
    c.update(G1, CHUNK)
    assert "m" in c.engine().children.sessions[G1].messages
    out = c.do(acp.CloseSession(SID))
    c.agent({"id": out[0]["id"], "result": {}})
    assert SID not in c.conn.sessions
    assert dict(c.conn.child_owners) == {}  # bounded: its children left with it


def test_a_second_top_level_parent_is_r48_and_the_first_keeps_the_child() -> None:
    c = Client()
    _open(c, "sess_2")
    c.update(SID, announce(C1))
    c.update("sess_2", announce(C1))  # a second parent: the first announcement keeps it
    assert c.findings() == ["R48"]
    assert C1 not in c.conn.sessions["sess_2"].engine.children.parents
    c.update(C1, CHUNK)
    assert "m" in c.engine().children.sessions[C1].messages
    # The checker names the same rule for the same traffic.
    trace = [{"from": "agent", "message": m} for m in _agent_lines(c)]
    assert "R48" in [v.rule for v in acp.check_trace(trace, revision=acp.PREVIEW)]


def _agent_lines(c: Client) -> list[dict[str, Any]]:
    lines = []
    for sid in (SID, "sess_2"):
        params = {"sessionId": sid, "update": announce(C1)}
        lines.append({"jsonrpc": "2.0", "method": "session/update", "params": params})
    return lines
