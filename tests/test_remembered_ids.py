"""Everything a peer can grow is bounded: the protocol machine's memories of session ids.

A peer names a fresh session id with every message, and the cross-session rules remember the
ids that name no live session (`_rules/_recent.py`): at most `MAX_REMEMBERED_IDS` each, the
oldest forgotten first. The tests lower the bound (the module reads it at every edit) so ten
times it is a few hundred messages, and assert on the sizes of the structures themselves:
- a hostile agent through a live `ClientConnection`, a hostile client through an
  `AgentConnection`, and a hostile trace through `IncrementalCheck` (and `check_trace`) never
  make one of them hold more than the bound, and do fill it (so the test is not vacuous);
- a rule that needs the memory still fires for an id within the bound (R76, R48, J56), and
  what forgetting changes beyond it is what the rule modules' headers say;
- `Recent` answers as a map does and forgets the oldest half of the bound at once (a re-set
  key is new); a session the client keeps naming is never forgotten (`Recent.touch`).
Planted bugs: `Recent.set` without its eviction loop fails the size tests (each memory then
holds ten times the bound); `Recent.touch` that never moves a key fails the test of a session kept.
"""

from __future__ import annotations

from typing import Any

import pytest
from trace_builders import NEW, P, Q, announce, cancel, chunk, client, error, request, result, upd

import acp_core as acp
from acp_core import checker as ck
from acp_core import codec
from acp_core import connection as c
from acp_core import intents as i
from acp_core._rules import _recent
from acp_core._rules._check import IncrementalCheck
from acp_core._rules._check_preview import quiet_session
from acp_core._rules._recent import EMPTY_RECENT, Recent

BOUND = 40
FRESH = 10 * BOUND
REVISION = codec.V2_PREVIEW


@pytest.fixture(autouse=True)
def _small_bound(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(_recent, "MAX_REMEMBERED_IDS", BOUND)


def _assert_full(name: str, memory: object) -> None:
    assert isinstance(memory, Recent), name
    # at the bound: never more, and at least the newest half of it (it forgets in halves)
    assert BOUND // 2 <= len(memory) <= BOUND, (name, len(memory))
    assert len(memory.young) < BOUND // 2, name
    assert len(memory.old) == BOUND // 2, name


def test_the_bound_is_public_and_h2s() -> None:
    assert ck.MAX_REMEMBERED_IDS == 2**16  # (the module's own value; the fixture lowers it)
    assert "MAX_REMEMBERED_IDS" in ck.__all__


# -- the value -------------------------------------------------------------------------------


def test_recent_forgets_the_oldest_half_and_a_reset_key_is_new() -> None:
    m: Recent[str, int] = EMPTY_RECENT
    for k in range(BOUND // 2):  # the first half: the old generation now
        m = m.set(f"k{k}", k)
    assert len(m.old) == BOUND // 2
    assert len(m.young) == 0
    m = m.set("k0", 100).delete("k5").add("k1", 9)  # k0 is new again; `add` keeps k1
    assert m["k0"] == 100
    assert m.get("k1") == 1
    assert m.touch("k0") is m  # already among the newest: nothing changes
    m = m.touch("k2")  # k2 is new again
    for k in range(BOUND // 2 - 2):  # fills the young generation: the old one goes
        m = m.set(f"n{k}", k)
    assert "k1" not in m
    assert "k3" not in m
    assert m.get("k0") == 100
    assert m.get("k2") == 2
    assert "k5" not in m
    assert len(m) == BOUND // 2
    m2, gone = m.pop("k2")
    assert gone == 2
    assert "k2" not in m2
    assert "k2" in m  # persistent: `m` is unchanged
    assert dict(m.items()) == {**dict(m.young.items()), **dict(m.old.items())}
    assert set(m) == set(m.young) | set(m.old)


# -- a live client connection ------------------------------------------------------------------


def _received(message: dict[str, Any]) -> i.Received:
    return i.Received(acp.decode_message({"jsonrpc": "2.0", **message}))


def _update(sid: str, update: dict[str, Any]) -> i.Received:
    return _received({"method": "session/update", "params": {"sessionId": sid, "update": update}})


def _initialized_client() -> Any:
    conn = c.new_client_connection(c.Implementation("t", "1"))
    step = c.connection_step(conn, c.Initialize())
    info = {"name": "a", "version": "1"}
    answer = {"protocolVersion": 2, "info": info, "capabilities": {}}
    return c.connection_step(
        step.connection, _received({"id": step.outbound[0]["id"], "result": answer})
    ).connection


def test_a_hostile_agent_naming_fresh_ids_keeps_a_client_connection_bounded() -> None:
    conn = _initialized_client()
    content = {"type": "text", "text": "x"}
    text = {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": content}
    options = {"sessionUpdate": "config_option_update", "configOptions": []}
    for k in range(FRESH):
        conn = c.connection_step(conn, _update(f"u{k}", text)).connection  # never set up
        conn = c.connection_step(conn, _update(f"o{k}", options)).connection
    _assert_full("judge.unclaimed", conn.rules.judge.unclaimed)
    _assert_full("exchange.answers.options", conn.rules.exchange.answers.options)
    assert "u0" not in conn.rules.judge.unclaimed  # the oldest went first
    assert f"u{FRESH - 1}" in conn.rules.judge.unclaimed


def test_a_hostile_client_naming_fresh_ids_keeps_an_agent_connection_bounded() -> None:
    conn = c.new_agent_connection(c.Implementation("a", "1"))
    for k in range(FRESH):
        cancel_it = _received({"method": "session/cancel", "params": {"sessionId": f"n{k}"}})
        conn = c.connection_step(conn, cancel_it).connection
    _assert_full("judge.named", conn.rules.judge.named)
    _assert_full("judge.book.cancels", conn.rules.judge.book.cancels)


# -- the checker ------------------------------------------------------------------------------


def _init() -> list[dict[str, Any]]:
    info = {"name": "x", "version": "1"}
    caps = {"session": {"delete": {}}}
    return [
        request("client", 0, "initialize", protocolVersion=2, info=info, capabilities={}),
        result("agent", 0, {"protocolVersion": 2, "info": info, "capabilities": caps}),
    ]


def _hostile(k: int) -> list[dict[str, Any]]:
    # One fresh id for each memory: a client naming and cancelling it, the agent using one
    # nobody set up (J3), a close and a delete answered, a resume, an option set reported.
    rid = 10 * k + 10
    return [
        cancel(f"n{k}"),
        chunk(f"u{k}"),
        request("client", rid, "session/close", sessionId=f"c{k}"),
        result("agent", rid, {}),
        request("client", rid + 1, "session/delete", sessionId=f"d{k}"),
        result("agent", rid + 1, {}),
        request("client", rid + 2, "session/resume", sessionId=f"r{k}", cwd="/w"),
        error(rid + 2),
        upd(f"o{k}", "config_option_update", configOptions=[]),
    ]


def test_a_hostile_trace_keeps_the_checker_bounded() -> None:
    trace = [*_init(), *(e for k in range(FRESH) for e in _hostile(k))]
    check = IncrementalCheck.start(REVISION).feed_all(trace)
    preview, answers = check._memory.preview, check._memory.answers
    assert preview is not None
    for name in ("named", "unclaimed", "j3", "resumed", "closed"):
        _assert_full(f"preview.{name}", getattr(preview, name))
    _assert_full("preview.book.cancels", preview.book.cancels)
    for name in ("closed", "deleted", "options"):
        _assert_full(f"answers.{name}", getattr(answers, name))
    # check_trace folds the same machine: it finds what the incremental check does
    assert ck.check_trace(trace, revision=REVISION) == check.finish()


def test_a_rule_that_needs_the_memory_fires_within_the_bound() -> None:
    # (a round names four ids the client names, one of each other kind)
    noise = [e for k in range(BOUND // 4 - 1) for e in _hostile(k)]
    # R76: a child's traffic after its parent's close was answered (closed remembered)
    r76 = [*NEW, announce(P, "kid"), request("client", 4, "session/close", sessionId=P)]
    r76 += [result("agent", 4, {}), *noise, chunk("kid")]
    # R48: a top-level session the client named, announced as a child (named remembered)
    r48 = [*NEW, client({"method": "session/cancel", "params": {"sessionId": Q}}), *noise]
    r48 += [announce(P, Q)]
    # J56: a delete of a session already deleted, answered with an error (deleted remembered)
    j56 = [*_init(), request("client", 4, "session/delete", sessionId="gone")]
    j56 += [result("agent", 4, {}), *noise]
    j56 += [request("client", 5, "session/delete", sessionId="gone"), error(5, -32603)]
    for rule, trace in (("R76", r76), ("R48", r48), ("J56", j56)):
        rules = {v.rule for v in ck.check_trace(trace, revision=REVISION)}
        assert rule in rules, (rule, rules)


def test_a_session_the_client_keeps_naming_is_never_forgotten() -> None:
    # `named` forgets the oldest, but an id the client names again once it is in the older
    # half becomes the newest: P, named by session/new, then cancelled once every
    # BOUND // 4 fresh ids, stays; Q, named once, goes.
    check = IncrementalCheck.start(REVISION).feed_all([*NEW, cancel(Q)])
    for k in range(FRESH):
        check = check.feed(cancel(f"n{k}"))
        if k % (BOUND // 4) == 0:
            check = check.feed(cancel(P))
        assert P in check._memory.preview.named, k  # at every step, not named anew
    preview = check._memory.preview
    assert Q not in preview.named
    assert BOUND // 2 <= len(preview.named) <= BOUND


def test_a_session_a_session_new_answer_gave_is_never_forgotten() -> None:
    # Live sessions are the host's: P (session/new) stays on the quiet path and is still a
    # top-level session (R48 when announced as a child) after ten times the bound of ids
    # the client named, though `named` itself forgot it.
    trace = [*NEW, *(cancel(f"n{k}") for k in range(FRESH))]
    preview = IncrementalCheck.start(REVISION).feed_all(trace)._memory.preview
    assert preview is not None
    assert P not in preview.named
    assert quiet_session(preview, P)
    rules = {v.rule for v in ck.check_trace([*trace, announce(Q, P)], revision=REVISION)}
    assert "R48" in rules


def test_beyond_the_bound_a_forgotten_close_is_not_judged() -> None:
    # What the header of `_rules/_check_preview.py` says: R76 misses the children of a
    # session closed more than the bound of closes ago (and only that changes).
    noise = [e for k in range(BOUND + 1) for e in _hostile(k)]
    trace = [*NEW, announce(P, "kid"), request("client", 4, "session/close", sessionId=P)]
    trace += [result("agent", 4, {}), *noise, chunk("kid")]
    rules = {v.rule for v in ck.check_trace(trace, revision=REVISION)}
    assert "R76" not in rules
