"""A state machine over an in-memory pair of connections.

Several sessions, prompts, tool calls, permission requests and answers, cancels, background
updates, config changes, closes, resumes with and without replay on the same connection and
on a second client connection, a hostile line now and then, and deliveries interleaved one
line at a time in either direction. After every step: no request id is pending twice on
either side. At the end, once everything is delivered and every turn ended: every request
was answered exactly once, the checker finds nothing in either side's recording, and every
session's client view equals the agent's own.
"""

from __future__ import annotations

from typing import Any

from conn_pair import Pair
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    initialize,
    invariant,
    precondition,
    rule,
)

import acp_core as acp

ALLOW = (
    acp.PermissionOption("allow", "Allow", "allow_once"),
    acp.PermissionOption("reject", "Reject", "reject_once"),
)
MODE = acp.SessionConfigSelect(
    "mode",
    "Mode",
    "ask",
    (acp.SessionConfigSelectOption("ask", "Ask"), acp.SessionConfigSelectOption("code", "Code")),
)
HOSTILE = (b"garbage\n", b"null\n", b'[{"x":1}]\n', b'{"jsonrpc":"2.0","id":"h","method":"zz"}\n')
indexes = st.integers(min_value=0, max_value=7)


def _request_ledger(trace: list[dict[str, Any]], asker: str) -> list[Any]:
    """Requests sent by `asker` in this recording: fail on an id reused while pending or a
    response to nothing pending; return the ids still unanswered."""
    pending: list[Any] = []
    for entry in trace:
        message = entry["message"]
        for item in message if isinstance(message, list) else [message]:
            if not isinstance(item, dict) or "id" not in item:
                continue
            if entry["from"] == asker and "method" in item:
                assert item["id"] not in pending, f"id {item['id']!r} reused while pending"
                pending.append(item["id"])
            elif entry["from"] != asker and "method" not in item and item["id"] is not None:
                assert item["id"] in pending, f"response to {item['id']!r}: nothing pending"
                pending.remove(item["id"])
    return pending


def _diff(a: acp.SessionState, b: acp.SessionState) -> str:
    parts = ("foreground", "timeline", "messages", "tool_calls", "terminals", "plans", "aux")
    return "; ".join(
        f"{p}: {getattr(a, p)!r} != {getattr(b, p)!r}"
        for p in parts
        if getattr(a, p) != getattr(b, p)
    )


class ConnectionPair(RuleBasedStateMachine):
    revision = acp.V2_2026_11

    @initialize()
    def start(self) -> None:
        self.pair = Pair(revision=self.revision, config=(MODE,))
        self.pair.client_do(acp.Initialize())
        self.pair.settle()
        self.opened: list[str] = []
        self.resumed_elsewhere: list[Pair] = []
        self.without_history: set[str] = set()  # resumed without replay after a close

    # -- helpers -------------------------------------------------------------------------------

    def _live(self, i: int) -> str | None:
        """The i-th session (mod count) that is attached on both sides, if any."""
        live = [
            s
            for s in self.opened
            if s in self.pair.client.sessions and self.pair.agent.sessions[s].attached
        ]
        return live[i % len(live)] if live else None

    def _engine(self, session_id: str) -> acp.AgentEngine:
        return self.pair.agent.engine(session_id)

    def _working(self, i: int) -> str | None:
        """A live session whose agent may report work: not blocked on a permission answer
        (work reported while `requires_action` is the agent's R12 fault, not the pair's)."""
        session_id = self._live(i)
        if session_id is None or self._engine(session_id).phase == "requires_action":
            return None
        return session_id

    # -- set-up ----------------------------------------------------------------------------------

    @precondition(lambda self: len(self.opened) < 4)
    @rule()
    def open_session(self) -> None:
        self.opened.append(self.pair.open())

    # -- client --------------------------------------------------------------------------------

    @rule(i=indexes, text=st.sampled_from(["hi", "do it", "again"]))
    def client_prompts(self, i: int, text: str) -> None:
        session_id = self._live(i)
        if session_id is not None:
            self.pair.client_says(session_id, acp.SendPrompt((acp.TextContent(text),)))

    @rule(i=indexes, allow=st.booleans())
    def client_answers(self, i: int, allow: bool) -> None:
        session_id = self._live(i)
        if session_id is None:
            return
        pending = list(self.pair.client.engine(session_id).pending.keys())
        if pending:
            choice = "allow" if allow else "reject"
            self.pair.client_says(session_id, acp.AnswerPermission(pending[0], choice))

    @rule(i=indexes)
    def client_cancels(self, i: int) -> None:
        session_id = self._live(i)
        # Only once the client sees the work: a cancel sent after a prompt but before its
        # `running` arrives counts as "while idle" in the client engine (Q20), so requests of
        # that turn are answered normally, which the agent-side checker reports as C15 (an
        # engine race, reported to the engines' owner; not the connection's).
        if session_id is not None and acp.is_active(self.pair.client.view(session_id)):
            self.pair.client_says(session_id, acp.SendCancel())

    @rule(i=indexes, value=st.sampled_from(["ask", "code", "nope"]))
    def client_sets_config(self, i: int, value: str) -> None:
        session_id = self._live(i)
        if session_id is not None:
            self.pair.client_do(acp.SetConfigOption(session_id, "mode", value))

    @rule(i=indexes)
    def client_closes(self, i: int) -> None:
        session_id = self._live(i)
        if session_id is not None:
            self.pair.client_do(acp.CloseSession(session_id))

    @rule(i=indexes, replay=st.booleans())
    def client_resumes_a_closed_session(self, i: int, replay: bool) -> None:
        closed = [
            s
            for s in self.opened
            if s not in self.pair.client.sessions
            and not self.pair.agent.sessions[s].attached
            and not any(p.session_id == s for p in self.pair.client.outgoing.values())
        ]
        if closed:
            session_id = closed[i % len(closed)]
            self.pair.client_do(acp.ResumeSession(session_id, "/work", replay=replay))
            # Without a replay the client knows none of the history it forgot at the close.
            (self.without_history.discard if replay else self.without_history.add)(session_id)

    @rule(i=indexes)
    def a_second_client_resumes_with_replay(self, i: int) -> None:
        session_id = self._live(i)
        if session_id is None or self.pair.agent.sessions[session_id].closing_pending:
            return  # a session being closed is not resumable (-32002)
        other = Pair(revision=self.revision)
        other.agent = self.pair.agent
        other.client_do(acp.ResumeSession(session_id, "/work", replay=True))
        other.settle()  # a copy of the agent's connection serves it: nothing flows back
        assert other.client.view(session_id) == self._engine(session_id).session
        assert other.client.replay(session_id) == "complete"
        # a run may stop mid-work: that is an R7 warning, never a broken rule
        found = acp.check_trace(other.client_trace, revision=self.revision)
        assert tuple(v for v in found if not v.warning) == ()
        self.resumed_elsewhere.append(other)

    @rule()
    def every_session_asks_at_once(self) -> None:
        """Prompt every live idle session, let the agent accept, and ask in each: permission
        requests of several sessions pending together (where per-session ids would clash)."""
        live = sorted({s for i in range(len(self.opened)) if (s := self._live(i)) is not None})
        for session_id in live:
            engine = self._engine(session_id)
            if engine.turn is None and not engine.prompts:
                self.pair.client_says(session_id, acp.SendPrompt((acp.TextContent("go"),)))
        self.pair.settle()
        for session_id in live:
            engine = self._engine(session_id)
            if engine.turn is None and engine.prompts:
                self.pair.agent_says(session_id, acp.AcceptPrompt(engine.prompts[0].id))
            if self._engine(session_id).turn is not None:
                self.agent_starts_a_tool(self.opened.index(session_id), ask=True)

    # -- agent ---------------------------------------------------------------------------------

    @rule(i=indexes)
    def agent_accepts(self, i: int) -> None:
        session_id = self._live(i)
        if session_id is None:
            return
        engine = self._engine(session_id)
        if engine.prompts and engine.turn is None:
            self.pair.agent_says(session_id, acp.AcceptPrompt(engine.prompts[0].id))

    @rule(i=indexes, text=st.sampled_from(["a", "b c"]), thought=st.booleans())
    def agent_streams(self, i: int, text: str, thought: bool) -> None:
        session_id = self._working(i)
        if session_id is not None:
            intent = acp.SendThought(text) if thought else acp.SendAgentText(text)
            self.pair.agent_says(session_id, intent)

    @rule(i=indexes, ask=st.booleans())
    def agent_starts_a_tool(self, i: int, ask: bool) -> None:
        session_id = self._working(i)
        if session_id is None or self._engine(session_id).turn is None:
            return
        step = self.pair.agent_says(session_id, acp.StartToolCall("Tool"))
        call = step.outbound[0]["params"]["update"]["toolCallId"]
        if ask:
            self.pair.agent_says(session_id, acp.RequestPermission("Run?", ALLOW, call))
        else:
            self.pair.agent_says(
                session_id, acp.SendToolContent(call, acp.ToolContent(acp.TextContent("x")))
            )
            self.pair.agent_says(session_id, acp.FinishToolCall(call))

    @rule(i=indexes)
    def agent_withdraws_a_request(self, i: int) -> None:
        session_id = self._live(i)
        if session_id is None:
            return
        pending = list(self._engine(session_id).pending.keys())
        if pending:
            self.pair.agent_says(session_id, acp.CancelPermission(pending[0]))

    @rule(i=indexes, title=st.sampled_from(["t1", "t2"]))
    def agent_background_update(self, i: int, title: str) -> None:
        session_id = self._working(i)
        if session_id is not None:
            self.pair.agent_says(session_id, acp.PatchSessionInfo(title=title))

    @rule(i=indexes)
    def agent_ends_the_turn(self, i: int) -> None:
        for session_id in self.opened[i % max(len(self.opened), 1) :][:1]:
            engine = self._engine(session_id)
            if engine.turn is not None and not any(map(engine.blocks, engine.pending)):
                self.pair.agent_says(session_id, acp.EndTurn())

    # -- the pipes -----------------------------------------------------------------------------

    @rule(n=st.integers(1, 4))
    def deliver_to_agent(self, n: int) -> None:
        for _ in range(n):
            self.pair.deliver_to_agent()

    @rule(n=st.integers(1, 4))
    def deliver_to_client(self, n: int) -> None:
        for _ in range(n):
            self.pair.deliver_to_client()

    @rule(line=st.sampled_from(HOSTILE))
    def hostile_line(self, line: bytes) -> None:
        # Injected beside the client, so its replies are not the client's to read.
        step = acp.receive_bytes(self.pair.agent, line)
        self.pair.agent = step.connection
        assert step.outbound or step.events

    # -- invariants ----------------------------------------------------------------------------

    @invariant()
    def no_request_id_is_pending_twice(self) -> None:
        pair = getattr(self, "pair", None)
        if pair is None:
            return
        _request_ledger(pair.agent_trace, "agent")
        _request_ledger(pair.client_trace, "client")
        asked = [rid for s in pair.agent.sessions.values() for rid in s.engine.pending]
        assert len(asked) == len(set(asked))

    def _quiesce(self) -> None:
        pair = self.pair
        for _ in range(50):
            pair.settle()
            busy = False
            for session_id in self.opened:
                if session_id in pair.client.sessions:
                    for rid in list(pair.client.engine(session_id).pending.keys()):
                        pair.client_says(session_id, acp.AnswerPermission(rid, "reject"))
                        busy = True
            pair.settle()
            for session_id, session in pair.agent.sessions.items():
                engine = session.engine
                if engine.turn is not None and not any(map(engine.blocks, engine.pending)):
                    pair.agent_says(session_id, acp.EndTurn())
                    busy = True
                elif engine.turn is None and engine.prompts and session.attached:
                    pair.agent_says(session_id, acp.AcceptPrompt(engine.prompts[0].id))
                    busy = True
            if not busy and not pair.to_agent and not pair.to_client:
                return
        raise AssertionError("the pair did not come to rest")

    def teardown(self) -> None:
        pair = getattr(self, "pair", None)
        if pair is None:
            return
        self._quiesce()
        assert _request_ledger(pair.agent_trace, "agent") == []
        assert _request_ledger(pair.client_trace, "client") == []
        violations = _faults(acp.check_trace(pair.agent_trace, revision=self.revision))
        assert violations == (), violations
        client_side = _faults(acp.check_trace(pair.client_trace, revision=self.revision))
        assert [v for v in client_side if acp.RULES[v.rule].side != "agent"] == []
        for session_id in self.opened:
            if session_id in self.without_history:
                continue
            if session_id in pair.client.sessions and pair.agent.sessions[session_id].attached:
                client = pair.client.sessions[session_id]
                agent = pair.agent.sessions[session_id]
                assert client.engine.session == agent.engine.session, _diff(
                    client.engine.session, agent.engine.session
                )
                assert client.config_options == agent.config_options
        assert pair.findings("client") == [], pair.findings("client")


class ConnectionPair2026_08(ConnectionPair):  # noqa: N801 (a revision name)
    revision = acp.V2_2026_08


TestConnectionPair = ConnectionPair.TestCase
TestConnectionPair.settings = settings(stateful_step_count=40, deadline=None)
TestConnectionPair2026_08 = ConnectionPair2026_08.TestCase
TestConnectionPair2026_08.settings = settings(stateful_step_count=40, deadline=None)


def _faults(found: tuple[acp.Violation, ...]) -> tuple[acp.Violation, ...]:
    # A run may stop mid-work: that is an R7 warning, never a broken rule.
    return tuple(v for v in found if not v.warning)
