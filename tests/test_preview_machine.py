"""A hypothesis state machine over an agent/client pair at the Preview: children and
grandchildren, their messages, states and cancellable tool calls, the client cancelling items
and children through their capabilities, background work, prompts with idempotency keys and
their retries (some racing the answer), and turns ending (some with a cancel racing the end,
some cancelled while they run: the cancel reaches the children of that work, P19).

After every step with nothing in flight: zero checker violations (each side's rules judged on
its own recording), both sides hold the same session, the same children (links and views),
and every message validated against the reconstructed Preview schema."""

from __future__ import annotations

import json
from typing import Any

from conftest import SPEC_DIR
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import RuleBasedStateMachine, invariant, precondition, rule
from pair import AgentClientPair
from schema_validation import OutboundValidator

import acp_core as acp

_SCHEMA = SPEC_DIR / "preview-reconstructed" / "reconstructed-preview-merged.json"
_VALIDATOR = OutboundValidator(json.loads(_SCHEMA.read_text())) if _SCHEMA.exists() else None
CHILDREN = ("c1", "c2", "g1")  # g1 is c1's child
CANCEL = acp.SubagentSessionCapabilities(cancel=acp.SessionCancelCapabilities())
TOOL_CANCEL = acp.ToolCallCapabilities(cancel=acp.CancelCapability())


def children_of(tree: acp.SessionTree, own: str) -> tuple[Any, Any]:
    """What both sides must agree on: the registry and every child's view."""
    views = {sid: state for sid, state in tree.sessions.items() if sid != own}
    return dict(tree.parents), views


class PreviewPair(RuleBasedStateMachine):
    def __init__(self) -> None:
        super().__init__()
        self.pair = AgentClientPair(revision=acp.PREVIEW, validator=_VALIDATOR)
        self.keys = 0
        self.keyed: list[Any] = []
        self.cancelled_children: set[str] = set()  # cancelled, not yet idle
        self.began_in_turn: set[str] = set()  # children whose work began in the parent's turn
        self.messages = 0

    def tree(self) -> acp.SessionTree:
        return self.pair.client.children

    def announced(self, child: str) -> bool:
        return child in self.tree().parents

    def send(self, update: Any, session_id: str | None) -> None:
        self.pair.agent_does(acp.SendUpdate(update, session_id=session_id))
        self.pair.flush()

    # -- children ------------------------------------------------------------------------

    @rule(child=st.sampled_from(CHILDREN), cancellable=st.booleans(), title=st.text(max_size=3))
    def announce(self, child: str, cancellable: bool, title: str) -> None:
        parent = "c1" if child == "g1" else self.pair.agent.session_id
        if child == "g1" and not self.announced("c1"):
            return
        capabilities = CANCEL if cancellable else None
        self.send(acp.SubagentUpdate(child, title=title, capabilities=capabilities), parent)

    @rule(child=st.sampled_from(CHILDREN), text=st.text(max_size=5))
    def child_says(self, child: str, text: str) -> None:
        if self.announced(child):
            self.send(acp.AgentMessageChunk(f"{child}-m", acp.TextContent(text)), child)

    @rule(child=st.sampled_from(CHILDREN), text=st.text(max_size=3))
    def parent_messages_child(self, child: str, text: str) -> None:
        # Both transcripts, cross-linked (R54, R55): outgoing on the parent, incoming on the child.
        if not self.announced(child):
            return
        own = self.pair.agent.session_id
        parent = "c1" if child == "g1" else own
        self.messages += 1
        n, body = self.messages, (acp.TextContent(text),)
        out = acp.SessionMessage(
            f"out{n}", sender_session_id=parent, recipient_session_id=child, content=body
        )
        self.send(out, None if parent == own else parent)
        incoming = acp.SessionMessage(
            f"in{n}",
            sender_session_id=parent,
            recipient_session_id=child,
            sender_message_id=f"out{n}",
            content=body,
        )
        self.send(incoming, child)

    @rule(child=st.sampled_from(CHILDREN), busy=st.booleans())
    def child_state(self, child: str, busy: bool) -> None:
        if not self.announced(child):
            return
        # a child the client cancelled ends its work "cancelled" (R21, per child)
        stop = "cancelled" if child in self.cancelled_children else "end_turn"
        state: Any = acp.RunningStateUpdate() if busy else acp.IdleStateUpdate(stop)
        running = self.tree().sessions[child].foreground.state == "running"
        if not busy and not running:
            return  # an idle with a stop reason ends work: only after running
        self.send(state, child)
        if not busy:
            self.cancelled_children.discard(child)
            self.began_in_turn.discard(child)
        elif not running and self.pair.agent.turn is not None:
            self.began_in_turn.add(child)

    @rule(child=st.sampled_from(CHILDREN), n=st.integers(0, 1), cancellable=st.booleans())
    def child_tool_call(self, child: str, n: int, cancellable: bool) -> None:
        if not self.announced(child):
            return
        call = acp.ToolCallUpdate(
            f"{child}-t{n}",
            title="run",
            status="in_progress",
            capabilities=TOOL_CANCEL if cancellable else None,
        )
        self.send(call, child)

    @rule(child=st.sampled_from(CHILDREN), n=st.integers(0, 1))
    def client_cancels_tool_call(self, child: str, n: int) -> None:
        state = self.tree().sessions.get(child)
        call = None if state is None else state.tool_calls.get(f"{child}-t{n}")
        if call is None or not call.can_cancel:
            return
        self.pair.client_does(acp.CancelToolCall(f"{child}-t{n}", session_id=child))
        self.pair.flush()
        assert not self.tree().sessions[child].tool_calls[f"{child}-t{n}"].can_cancel

    @rule(child=st.sampled_from(CHILDREN))
    def client_cancels_child(self, child: str) -> None:
        link = acp.child_link(self.tree(), child)
        if link is None or not link.can_cancel:
            return
        self.pair.client_does(acp.CancelChild(child))
        self.pair.flush()
        if self.tree().sessions[child].foreground.state == "running":
            self.cancelled_children.add(child)

    # -- prompts, keys, turns ------------------------------------------------------------

    @precondition(lambda self: self.pair.agent.turn is None and not self.pair.agent.prompts)
    @rule()
    def prompt_with_a_key(self) -> None:
        self.keys += 1
        prompt = acp.SendPrompt((acp.TextContent("go"),), idempotency_key=f"k{self.keys}")
        sent = self.pair.client_does(prompt)
        self.keyed.append(sent[0]["id"])
        self.pair.flush()

    @precondition(lambda self: bool(self.pair.agent.prompts) and self.pair.agent.turn is None)
    @rule()
    def accept(self) -> None:
        self.pair.agent_does(acp.AcceptPrompt(self.pair.agent.prompts[0].id))
        self.pair.flush()

    @precondition(lambda self: bool(self.keyed))
    @rule(data=st.data())
    def retry(self, data: st.DataObject) -> None:
        original = data.draw(st.sampled_from(self.keyed))
        before = dict(self.pair.client.session.messages)
        self.pair.client_does(acp.RetryPrompt(original))
        self.pair.flush()
        assert dict(self.pair.client.session.messages) == before  # C44: no second message

    @rule(data=st.data())
    def agent_reports_background(self, data: st.DataObject) -> None:
        # R74: the engine refuses a list naming something unannounced or dropping something
        # unfinished; otherwise every later state update carries it.
        agent = self.pair.agent
        known: list[Any] = [acp.BackgroundToolCall(t) for t in agent.session.tool_calls]
        known += [acp.BackgroundSubagent(c) for c in agent.children.parents]
        known.append(acp.OtherBackgroundWork(acp.freeze_json({"type": "_job"})))
        items = data.draw(st.lists(st.sampled_from(known), max_size=2, unique=True))
        try:
            self.pair.agent_does(acp.ReportBackground(tuple(items)))
        except acp.LocalProtocolError as refused:
            rule = refused.rule
            assert rule == "R74"
            return
        self.pair.flush()
        assert self.pair.client.session.foreground.background == tuple(items)

    @precondition(lambda self: self.pair.agent.turn is not None)
    @rule()
    def end_turn(self) -> None:
        self.pair.agent_does(acp.EndTurn())
        self.pair.flush()
        self.began_in_turn.clear()

    @precondition(lambda self: self.pair.agent.turn is not None)
    @rule(child=st.sampled_from(CHILDREN))
    def child_works_for_the_turn(self, child: str) -> None:
        if not self.announced(child):
            self.announce(child, False, "")
        self.child_state(child, True)

    def cancel_turn(self) -> None:
        # P19: the cancel reaches the children whose work began in this turn, unless they
        # (or the child above them) are listed background work (R73).
        listed = {
            item.session_id
            for item in self.pair.client.session.foreground.background or ()
            if isinstance(item, acp.BackgroundSubagent)
        }
        reached = {
            c
            for c in self.began_in_turn - listed - self.cancelled_children
            if not (c == "g1" and "c1" in listed)
        }
        self.pair.client_does(acp.SendCancel())
        self.pair.flush()
        self.cancelled_children |= reached
        assert set(self.pair.agent.cancelled_children) == self.cancelled_children

    @precondition(lambda self: self.pair.agent.turn is not None)
    @rule()
    def client_cancels_the_turn(self) -> None:
        self.cancel_turn()

    @precondition(lambda self: self.pair.agent.turn is not None)
    @rule()
    def cancel_races_the_end(self) -> None:
        self.pair.auto_deliver = False
        try:
            self.pair.client_does(acp.SendCancel())  # still in flight when the agent ends
            self.pair.agent_does(acp.EndTurn("cancelled"))
        finally:
            self.pair.auto_deliver = True
        self.pair.flush()
        self.began_in_turn.clear()

    # -- invariants ----------------------------------------------------------------------

    @invariant()
    def both_sides_agree(self) -> None:
        pair = self.pair
        assert pair.quiet
        assert pair.client.session == pair.agent.session
        own = pair.agent.session_id
        assert children_of(pair.client.children, own) == children_of(pair.agent.children, own)
        assert [v for v in pair.violations() if not v.warning] == []


PreviewPair.TestCase.settings = settings(
    max_examples=max(10, settings.default.max_examples // 4),
    stateful_step_count=25,
    deadline=None,
)
test_preview_pair = PreviewPair.TestCase


def test_a_retry_after_the_turn_ended_starts_no_work() -> None:
    # Found by the machine: a keyed retry answered with the original's messageId (R67) must
    # not open a turn that the next idle snapshot would "end" without a stop reason (R8).
    pair = AgentClientPair(revision=acp.PREVIEW, validator=_VALIDATOR)
    sent = pair.client_does(acp.SendPrompt((acp.TextContent("go"),), idempotency_key="k1"))
    pair.flush()
    pair.agent_does(acp.AcceptPrompt(pair.agent.prompts[0].id))
    pair.flush()
    pair.client_does(acp.SendCancel())
    pair.agent_does(acp.EndTurn("cancelled"))
    pair.flush()
    pair.client_does(acp.RetryPrompt(sent[0]["id"]))
    pair.flush()
    pair.agent_does(acp.ReportBackground(()))
    pair.flush()
    assert pair.agent.turn is None
    ids = [p.message_id for p in pair.client.prompts]
    assert ids[0] is not None
    assert ids == [ids[0], ids[0]]  # C44: the retry binds to the one user message
    assert [v for v in pair.violations() if not v.warning] == []
