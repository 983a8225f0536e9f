"""Every party asks a rule's one home (issue 21): where an engine or a connection refuses or
reports a rule the checker decides, it takes the rule id (and the wording) from the function
that decides it, never from a literal of its own. Each test swaps the deciding function for
one that names another rule and sees the party follow; a party that kept its own literal
would still say the old rule and fail here."""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from conn_pair import Pair
from pair import prompt_wire, receive
from preview_traces import CASES as PREVIEW_CASES
from test_agent_preview import refused, with_child
from test_connection_preview import CHUNK, SID, Client, announce
from test_hostile_ids import _line, _permission_wire
from test_v1_client_connection import SID as V1_SID
from test_v1_client_connection import _feed as _v1_feed
from test_v1_client_connection import _opened as _v1_opened
from trace_builders import K

import acp_core as acp
from acp_core._engines import (
    _agent_cancel,
    _agent_children,
    _agent_items,
    _agent_permissions,
    _client_cancel,
    _client_items,
    _client_prompts,
    _connection_agent,
    _connection_client,
    _connection_client_preview,
    _request_ids,
    _step,
)
from acp_core._rules import (
    _check_message,
    _check_preview,
    _check_preview_updates,
    _check_sessions,
    _naming,
)

#: A real rule other than the one each decider says, so every party can name it.
OTHER = "R56"


def _naming_says_other(how: _naming.Naming) -> str:
    return OTHER if how == "envelope" else _naming.naming_rule(how)


# -- part 1: the engines' and connections' refusals and findings ------------------------------


def test_the_agent_engine_refuses_a_childs_unannounced_request_with_naming_rules_answer(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    options = (acp.PermissionOption("y", "Yes", "allow_once"),)
    intent = acp.RequestPermission("Edit?", options, session_id="c9")
    assert refused(with_child(), intent) == "R47"
    # Planted: `_agent_permissions` refusing with its own "R47" again fails this.
    monkeypatch.setattr(_agent_permissions, "naming_rule", _naming_says_other)
    assert refused(with_child(), intent) == OTHER


def _j2_says_other(**clause: Any) -> tuple[str, str]:
    return (OTHER, f"planted: {sorted(clause)}")


def _reused_by_the_agent_engine() -> list[tuple[str, str]]:
    engine, _ = receive(acp.new_agent(SID), prompt_wire(7))
    engine, _ = receive(engine, prompt_wire(7, text="again"))
    return [(v.rule, v.message) for v in engine.violations]


def _reused_by_the_client_engine() -> list[tuple[str, str]]:
    client = receive(acp.new_client(SID), _permission_wire(3)).state
    client, _ = receive(client, _permission_wire(3))
    return [(v.rule, v.message) for v in client.violations]


def _reused_at_the_agent_connection() -> list[tuple[str, str]]:
    pair = Pair()
    sid = pair.open()
    pair.agent_bytes(_line(prompt_wire(70, session_id=sid)))
    step = pair.agent_bytes(_line(prompt_wire(70, session_id=sid, text="dup")))
    return [(e.rule, e.detail) for e in step.events if isinstance(e, acp.Finding)]


def _reused_at_the_client_connection() -> list[tuple[str, str]]:
    pair = Pair()
    first, second = pair.open(), pair.open()
    pair.client = acp.receive_bytes(pair.client, _line(_permission_wire(50, first))).connection
    step = acp.receive_bytes(pair.client, _line(_permission_wire(50, second)))
    return [(e.rule, e.detail) for e in step.events if isinstance(e, acp.Finding)]


PARTIES = {
    "agent engine": _reused_by_the_agent_engine,
    "client engine": _reused_by_the_client_engine,
    "agent connection": _reused_at_the_agent_connection,
    "client connection": _reused_at_the_client_connection,
}


@pytest.mark.parametrize("party", list(PARTIES))
def test_a_reused_request_id_is_what_j2s_home_says_at_every_party(
    party: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    said = PARTIES[party]()
    assert [rule for rule, _ in said] == ["J2"]
    # Planted: any of the four writing its own "J2" again fails its row.
    monkeypatch.setattr(_request_ids, "j2_breach", _j2_says_other)
    assert [rule for rule, _ in PARTIES[party]()] == [OTHER]


def test_the_engines_word_a_reused_id_as_the_checker_does() -> None:
    # The bare engines know the line of the pending request, so they say what the checker says.
    trace = [
        {"from": "client", "message": prompt_wire(7)},
        {"from": "client", "message": prompt_wire(7, text="again")},
    ]
    (checked,) = acp.check_trace(trace)
    assert _reused_by_the_agent_engine() == [(checked.rule, checked.message)]
    trace = [{"from": "agent", "message": _permission_wire(3)}] * 2
    (checked,) = acp.check_trace(trace)
    assert _reused_by_the_client_engine() == [(checked.rule, checked.message)]


# -- part 2: an unannounced child's traffic before `initialize` ------------------------------


def _update_line(session_id: str, update: dict[str, Any]) -> dict[str, Any]:
    params = {"sessionId": session_id, "update": update}
    message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
    return {"from": "agent", "message": message}


def test_before_initialize_the_client_connection_asks_the_checkers_decider(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A client connection before `initialize` judges an unannounced child's traffic as the
    # checker judges a recording that starts late: at the announcement, by the same decider.
    child = "sess_child_1"
    trace = [_update_line(child, CHUNK), _update_line(SID, announce(child))]
    revision = acp.V2_PREVIEW

    def both() -> tuple[list[str], list[str]]:
        c = Client()
        c.update(child, CHUNK)
        c.update(SID, announce(child))
        checked = acp.check_trace(trace, revision=revision)
        return c.findings(), [v.rule for v in checked]

    assert both() == (["R47"], ["R47"])
    # Planted: the connection naming "R47" itself again (at arrival or at the announcement)
    # fails this: the decider the checker asks now says another rule, and so must it.
    monkeypatch.setattr(_check_preview_updates, "naming_rule", _naming_says_other)
    assert both() == ([OTHER], [OTHER])


# -- a stray answer (J1, C25) and a creating answer (J30, J4) --------------------------------


def _stray(**_: Any) -> tuple[str, str]:
    return (OTHER, "planted")


def _stray_at_the_client_connection() -> list[str]:
    pair = Pair()
    pair.open()
    step = acp.receive_bytes(pair.client, _line({"jsonrpc": "2.0", "id": 999, "result": {}}))
    return [e.rule for e in step.events if isinstance(e, acp.Finding)]


def _stray_at_the_agent_connection() -> list[str]:
    pair = Pair()
    pair.open()
    step = acp.receive_bytes(pair.agent, _line({"jsonrpc": "2.0", "id": 999, "result": {}}))
    return [e.rule for e in step.events if isinstance(e, acp.Finding)]


def _stray_at_the_agent_engine() -> list[str]:
    with pytest.raises(acp.RemoteProtocolError) as error:
        receive(acp.new_agent(SID), {"jsonrpc": "2.0", "id": 5, "result": {}})
    return [error.value.rule]


STRAYS = {
    "client connection": (_stray_at_the_client_connection, _connection_client, "J1"),
    "agent connection": (_stray_at_the_agent_connection, _connection_agent, "C25"),
    "agent engine": (_stray_at_the_agent_engine, _agent_permissions, "C25"),
}


@pytest.mark.parametrize("party", list(STRAYS))
def test_a_stray_answer_is_what_its_one_home_says_at_every_party(
    party: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    said, module, rule = STRAYS[party]
    assert said() == [rule]
    # Planted: the party writing its own "J1" / "C25" again fails its row.
    monkeypatch.setattr(module, "stray_answer", lambda *args: _stray())
    assert said() == [OTHER]


def test_a_creating_answer_is_judged_by_j30_and_j4s_home_at_the_client_connection(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def opened(session_id: str) -> tuple[list[str], bool]:
        c = Client()
        out = c.do(acp.NewSession("/w2"))
        c.events.clear()
        c.agent({"id": out[0]["id"], "result": {"sessionId": session_id}})
        return c.findings(), any(isinstance(e, acp.SessionOpened) for e in c.events)

    assert opened("") == (["J30"], False)
    assert opened(SID) == (["J4"], False)
    assert opened("sess_2") == ([], True)
    # Planted: `_opened` writing its own "J30" / "J4" again fails this.
    real = _check_sessions.created_finding
    monkeypatch.setattr(
        _connection_client,
        "created_finding",
        lambda sid, in_use: None if real(sid, in_use) is None else _stray(),
    )
    assert opened("")[0] == opened(SID)[0] == [OTHER]


# -- a child's cancel (C29) and an item's cancel (C41) ---------------------------------------


def _c29_at_the_client_engine() -> str:
    import test_client_preview as cp

    client = cp.feed(cp.preview_client(), cp.announce())
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(client, acp.CancelChild(cp.C1))
    return error.value.rule


def _c29_at_the_agent_engine() -> str:
    import test_agent_preview as ap

    engine = ap.send(with_child(), acp.RunningStateUpdate(), "c1").state
    engine = ap.receive(engine, ap.cancel("c1")).state
    (found,) = engine.violations
    return found.rule


def _c41_at_the_client_engine() -> str:
    import test_client_preview as cp

    upd = cp.update(cp.SID, {"sessionUpdate": "tool_call_update", "toolCallId": "i1"})
    client = cp.feed(cp.preview_client(), upd)
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(client, acp.CancelToolCall("i1"))
    return error.value.rule


CANCELS = {
    "C29 client engine": (_c29_at_the_client_engine, _client_cancel, "c29_breach", "C29"),
    "C29 agent engine": (_c29_at_the_agent_engine, _agent_cancel, "c29_breach", "C29"),
    "C41 client engine": (_c41_at_the_client_engine, _client_items, "c41_breach", "C41"),
}


@pytest.mark.parametrize("party", list(CANCELS))
def test_a_cancel_the_child_or_item_does_not_permit_is_what_its_home_says(
    party: str, monkeypatch: pytest.MonkeyPatch
) -> None:
    said, module, decider, rule = CANCELS[party]
    assert said() == rule
    # Planted: the engine writing its own "C29" / "C41" again fails its row.
    real = getattr(module, decider)
    monkeypatch.setattr(module, decider, lambda *args: None if real(*args) is None else _stray())
    assert said() == OTHER


def test_a_batch_entry_that_does_not_decode_is_what_d1s_home_says_at_the_engine(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    params = {"sessionId": SID, "update": CHUNK}
    line = {"jsonrpc": "2.0", "method": "session/update", "params": params}
    batch = acp.decode_message([line, {"jsonrpc": "2.0", "method": 5}])

    def refused() -> tuple[str, str]:
        with pytest.raises(acp.RemoteProtocolError) as error:
            acp.step(acp.new_client(SID), acp.Received(batch))
        return error.value.rule, error.value.detail

    raw = [line, {"jsonrpc": "2.0", "method": 5}]
    checked = acp.check_trace([{"from": "agent", "message": raw}])
    assert [(v.rule, v.message) for v in checked] == [refused()]
    # Planted: `_step._batch` writing its own "D1" again fails this.
    monkeypatch.setattr(_step, "d1_findings", lambda **_: [_stray()])
    assert refused() == (OTHER, "planted")


def test_a_permission_request_without_options_is_refused_in_the_checkers_words() -> None:
    # R26 is the checker's single-message rule (`permission_shape_findings`), asked on the
    # request the engine would send; the engine keeps no pre-check of its own.
    # Planted: the old `if not intent.options: raise refuse("R26", ...)` back fails this.
    intent = acp.RequestPermission("Go?", ())
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(acp.new_agent(SID), intent)
    assert error.value.rule == "R26"
    assert error.value.detail.startswith("a permission request needs a title and at least one")


def test_a_message_id_reused_for_another_role_is_refused_in_the_checkers_words() -> None:
    # R5 is the checker's (`MessageRules.message_id`, asked on every update the engine sends);
    # the engine keeps no pre-check of its own for another role's id.
    # Planted: the old `new_message_id` refusal ("already names a user message") back fails it.
    engine = acp.new_agent(SID)
    engine = acp.step(engine, acp.Received(acp.decode_message(prompt_wire(1)))).state
    engine = acp.step(engine, acp.AcceptPrompt(1, user_message_id="u1")).state
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(engine, acp.SendAgentText("x", message_id="u1"))
    assert error.value.rule == "R5"
    assert error.value.detail.startswith("message id 'u1' names a user message and is reused")


# -- the output intents' values: the checker's single-update rules, asked as they go out -----

#: (id, intent, the deciding function of `_rules/_check_message.py`, its rule). The engine
#: keeps no pre-check for these: it refuses what `Build.obey` hears from the decider.
_VALUE_DECIDERS = [
    ("terminal-id-empty", acp.PatchTerminal(""), "terminal_id_finding", "R31"),
    ("terminal-chunk-id-empty", acp.SendTerminalOutput("", b"x"), "terminal_id_finding", "R31"),
    ("tool-call-id-empty", acp.StartToolCall("t", tool_call_id=""), "tool_call_id_finding", "J63"),
    ("usage-currency", acp.ReportUsage(1, 9, acp.Cost(1.0, "usd")), "usage_cost_finding", "R37"),
]


@pytest.mark.parametrize(
    ("intent", "decider", "rule"), [pytest.param(*c[1:], id=c[0]) for c in _VALUE_DECIDERS]
)
def test_an_output_intents_bad_value_is_refused_with_what_its_decider_says(
    monkeypatch: pytest.MonkeyPatch, intent: object, decider: str, rule: str
) -> None:
    # Planted, each caught: the old pre-checks back (`_update_terminal` / `_send_terminal_output`
    # refusing "R31", `_start_tool_call` refusing an empty id as "R13", `_report_usage`
    # refusing a currency as "R37" with its own regex).
    engine = acp.new_agent(SID)
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(engine, intent)
    assert error.value.rule == rule
    (words,) = _check_message.update_findings(acp.V2_PREVIEW, engine.session, _sent(intent))
    assert error.value.detail.startswith(words[1])  # the checker's words
    monkeypatch.setattr(_check_message, decider, lambda upd: (OTHER, "planted"))
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(engine, intent)
    assert (error.value.rule, error.value.detail[:7]) == (OTHER, "planted")


def _sent(intent: object) -> Any:
    """The update the engine would send for `intent` (the cases above)."""
    if isinstance(intent, acp.PatchTerminal):
        return acp.TerminalUpdate(intent.terminal_id)
    if isinstance(intent, acp.SendTerminalOutput):
        return acp.TerminalOutputChunk(intent.terminal_id, "eA==")
    if isinstance(intent, acp.StartToolCall):
        return acp.ToolCallUpdate(intent.tool_call_id or "", intent.title)
    assert isinstance(intent, acp.ReportUsage)
    return acp.UsageUpdate(intent.used, intent.size, intent.cost)


def test_a_started_tool_calls_empty_title_is_refused_with_what_r14s_decider_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # R14 is a SHOULD the checker decides (`MessageRules.first_sight`: an empty title is no
    # title); StartToolCall refuses it as a policy, in the checker's words.
    # Planted: `_start_tool_call`'s old `if not intent.title: raise refuse("R14", ...)` back
    # fails this.
    engine = acp.new_agent(SID)
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(engine, acp.StartToolCall("", tool_call_id="t1"))
    assert error.value.rule == "R14"
    assert error.value.detail.startswith("tool call 't1' is first reported with an empty title")

    def first_sight(self: Any, seen: Any, tool_call_id: str, title: object, **_: Any) -> None:
        self.found(OTHER, "planted")

    monkeypatch.setattr(_check_message.MessageRules, "first_sight", first_sight)
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(engine, acp.StartToolCall("", tool_call_id="t1"))
    assert error.value.rule == OTHER


def test_a_background_list_is_refused_with_what_r74s_decider_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # R74 is decided by `background_findings` (the checker's, asked with the engine's view of
    # what it announced and finished); the engine keeps no predicate or words of its own.
    # Planted: `_report_background`'s old `_unlisted` / `_unfinished` refusals back fail this.
    engine = acp.new_agent(SID, revision=acp.V2_2026_11)
    intent = acp.ReportBackground((acp.BackgroundToolCall("ghost"),))
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(engine, intent)
    assert error.value.rule == "R74"
    assert error.value.detail.startswith("background lists tool_call 'ghost' before announcing")
    engine = acp.step(engine, acp.StartToolCall("t", tool_call_id="t1")).state
    engine = acp.step(engine, acp.ReportBackground((acp.BackgroundToolCall("t1"),))).state
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(engine, acp.ReportBackground(()))
    assert error.value.detail.startswith("background drops tool_call 't1' before reporting")
    monkeypatch.setattr(_agent_items, "background_findings", lambda *_: [(OTHER, "planted")])
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(engine, acp.ReportBackground(()))
    assert error.value.rule == OTHER


@pytest.mark.parametrize(
    ("session_id", "child", "rule", "words"),
    [
        pytest.param(None, SID, "R48", f"subagent_update on {SID!r} makes {SID!r}", id="own"),
        pytest.param("c1", SID, "R48", f"subagent_update on 'c1' makes {SID!r}", id="ancestor"),
        pytest.param("c2", "c3", "R48", "child 'c3' belongs to 'c1'", id="second-parent"),
        pytest.param(None, "c3", "R49", "subagent_update for 'c3' is sent on", id="grandchild"),
    ],
)
def test_an_announcement_is_refused_with_what_r48_and_r49s_decider_says(
    monkeypatch: pytest.MonkeyPatch, session_id: str | None, child: str, rule: str, words: str
) -> None:
    # R48 and R49 are decided by the checker's `announce_finding`; the agent engine asks it
    # with its own tree before it reduces an announcement (no `_TREE_RULES` entry, no literal).
    # Planted, each caught: the old own-session `refuse("R48", ...)` back in `send_update`
    # (own); the REPARENT entry and R49 walk back in place of the decider (the other rows).
    engine = with_child()
    for announcer, announced in ((None, "c2"), ("c1", "c3")):
        engine = acp.step(engine, acp.SendUpdate(acp.SubagentUpdate(announced), announcer)).state
    intent = acp.SendUpdate(acp.SubagentUpdate(child), session_id)
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(engine, intent)
    assert (error.value.rule, error.value.detail[: len(words)]) == (rule, words)
    monkeypatch.setattr(_agent_children, "announce_finding", lambda *_: (OTHER, "planted"))
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(engine, intent)
    assert error.value.rule == OTHER


def test_a_key_reused_for_another_prompt_is_refused_with_what_c43s_decider_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # C43 (one key, one submission) is decided by the checker's `c43_breach`; the client
    # engine asks it before it sends a keyed prompt. Planted: `idempotency_key`'s own
    # "already names the submission" literal for any reuse back fails this.
    client = acp.new_client(SID, revision=acp.V2_PREVIEW)
    first = acp.SendPrompt((acp.TextContent("a"),), idempotency_key="K")
    client = acp.step(client, first).state
    other = acp.SendPrompt((acp.TextContent("b"),), idempotency_key="K")
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(client, other)
    assert error.value.rule == "C43"
    assert error.value.detail.startswith("idempotencyKey 'K' is reused for a different prompt")
    monkeypatch.setattr(_client_prompts, "c43_breach", lambda *_: (OTHER, "planted"))
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(client, other)
    assert (error.value.rule, error.value.detail[:7]) == (OTHER, "planted")


def _v1_connection() -> Any:
    """A Preview client connection whose agent negotiated protocol 1 (no judge runs: the v1
    wire is normalized, the checker's cross-session rules do not see it) with session
    `V1_SID`, child "c1" announced on it, and a second top-level session "s2"."""
    conn = _v1_opened()
    conn = _v1_feed(conn, _v1_announce(V1_SID, "c1")).connection
    step = acp.connection_step(conn, acp.NewSession("/w2"))
    answer = {"jsonrpc": "2.0", "id": step.outbound[0]["id"], "result": {"sessionId": "s2"}}
    return _v1_feed(step.connection, answer).connection


def _v1_announce(on: str, child: str) -> dict[str, Any]:
    update = {"sessionUpdate": "subagent_update", "sessionId": child}
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": on, "update": update},
    }


@pytest.mark.parametrize(
    ("announcer", "child", "rule"),
    [(V1_SID, V1_SID, "R48"), (V1_SID, "s2", "R48"), ("s2", "c1", "R48")],
    ids=["own", "top-level", "other-tree"],
)
def test_without_a_judge_the_client_connections_r48_asks_the_checkers_decider(
    monkeypatch: pytest.MonkeyPatch, announcer: str, child: str, rule: str
) -> None:
    # `refused_announcement` makes its finding only where no judge runs (`judged_finding`):
    # a v1 agent behind a Preview connection, whose `subagent_update` still reaches it (this
    # reaches the branch with no hand-made state). What it says, a top-level session
    # announced as a child and a child of another session's tree among them, is
    # `announce_finding`'s over the connection's whole view. Planted, each caught: the old
    # "a top-level session, as a child" and "a child in ...'s tree" literals back (top-level,
    # other-tree); `judged_finding` made a no-op, as if dead (every row).
    conn = _v1_connection()

    def found() -> list[tuple[str, str]]:
        step = _v1_feed(conn, _v1_announce(announcer, child))
        return [(e.rule, e.detail) for e in step.events if isinstance(e, acp.connection.Finding)]

    parents = acp.open_session(acp.SessionTree(), V1_SID).parents.set("c1", V1_SID)
    top_level = (V1_SID, "s2")
    assert found() == [
        _check_preview_updates.announce_finding(parents, announcer, child, top_level)
    ]
    assert found()[0][0] == rule
    monkeypatch.setattr(_connection_client_preview, "announce_finding", lambda *_: (OTHER, "x"))
    assert found() == [(OTHER, "x")]


@pytest.mark.parametrize(("announcer", "child"), [(SID, "sess_2"), ("sess_2", "c1")])
def test_with_the_judge_the_client_connections_r48_is_the_checkers_alone(
    monkeypatch: pytest.MonkeyPatch, announcer: str, child: str
) -> None:
    # At the Preview the judge (the checker's cross-session rules) says R48 of a top-level
    # session announced as a child and of a child of another session's tree, once; the
    # connection adds nothing of its own and drops the announcement. Planted, each caught:
    # the old `b.finding("R48", ... a top-level session, as a child)` back (two findings);
    # the checker's `_announce` without the top-level sessions (no finding).
    def found() -> list[tuple[str, str]]:
        c = Client()
        out = c.do(acp.NewSession("/w2"))
        c.agent({"id": out[0]["id"], "result": {"sessionId": "sess_2"}})
        c.update(SID, announce("c1"))
        c.events.clear()
        c.update(announcer, announce(child))
        assert acp.parent_of(c.engine().children, "sess_2") is None  # dropped
        return [(e.rule, e.detail) for e in c.events if isinstance(e, acp.connection.Finding)]

    parents = acp.open_session(acp.SessionTree(), SID).parents.set("c1", SID)
    expected = _check_preview_updates.announce_finding(parents, announcer, child, (SID, "sess_2"))
    assert expected is not None
    assert expected[0] == "R48"
    assert found() == [expected]
    monkeypatch.setattr(_check_preview_updates, "announce_finding", lambda *_: (OTHER, "x"))
    assert found() == [(OTHER, "x")]


def test_traffic_for_a_closed_child_is_refused_with_what_r76s_decider_says(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # R76 (nothing for a closed session's children) is decided by the checker's `r76_breach`;
    # the agent engine asks it before its tree reduces traffic for a session the tree closed
    # (no `_TREE_RULES` entry, no literal). Planted: the CLOSED_SESSION_TRAFFIC -> "R76"
    # entry back in place of the decider call fails this.
    engine = with_child()
    engine = attrs.evolve(engine, children=acp.close_session(engine.children, SID))
    intent = acp.SendUpdate(acp.AgentMessageChunk("m", acp.TextContent("x")), "c1")
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(engine, intent)
    words = _check_preview.r76_breach("c1", True)
    assert words is not None
    assert (error.value.rule, error.value.detail[: len(words[1])]) == words
    monkeypatch.setattr(_agent_children, "r76_breach", lambda *_: (OTHER, "planted"))
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.step(engine, intent)
    assert error.value.rule == OTHER


def test_the_checkers_r76_is_worded_by_its_decider_and_adds_the_line(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # The checker asks `r76_breach` with its view (an ancestor's close was answered) and
    # adds the close's line. Planted: `PreviewDraft.use`'s own "R76" literal back fails this.
    (bad,) = [bad for rule, _good, bad, _i in PREVIEW_CASES if rule == "R76"]
    words = _check_preview.r76_breach(K, True)
    assert words is not None
    found = [(v.rule, v.message) for v in acp.check_trace(bad, revision=acp.V2_PREVIEW)]
    assert found == [("R76", f"{words[1]} (the close of its parent, line 2)")]
    monkeypatch.setattr(_check_preview, "r76_breach", lambda *_: (OTHER, "planted"))
    found = [(v.rule, v.message) for v in acp.check_trace(bad, revision=acp.V2_PREVIEW)]
    assert found == [(OTHER, "planted (the close of its parent, line 2)")]
