"""A hypothesis state machine over both engines joined by the pair harness.

Rules are the intents of either side (prompts, accept/reject, text, tool calls, permission
requests and answers, cancel, end/abort, background activity), message delivery in either
direction (messages may stay in flight, so the two sides race as on a real connection), and
arbitrary agent intents drawn from the totality strategies (legal or not). Bundles hold the
tool-call ids and the permission requests; answering a request consumes it.

Checked all along: nothing but `LocalProtocolError` refuses an intent and a refusal changes
nothing; every message sent validates against the stable v2 schema; whenever nothing is in
flight to the client both sides hold equal session states, and the client's view differs
from its session only by local `cancelled` marks; the agent has a turn exactly when it is not
idle. At the end: after delivering everything, the trace passes the checker with zero
violations and every accepted prompt is bound to the user message the agent reported.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    Bundle,
    RuleBasedStateMachine,
    consumes,
    initialize,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)
from pair import AgentClientPair, agent_intent_strategies
from schema_validation import OutboundValidator

import acp_core as acp
from acp_core import LocalProtocolError, PermissionOption, TextContent
from acp_core._engines._agent import AGENT_INPUTS
from acp_core._rules._conversation_state import Phase

PHASES = {"idle": Phase.IDLE, "running": Phase.RUNNING, "requires_action": Phase.REQUIRES_ACTION}

OPTIONS = (
    PermissionOption("y", "Yes", "allow_once"),
    PermissionOption("a", "Always", "allow_always"),
    PermissionOption("n", "No", "reject_once"),
    PermissionOption("later", "Later", "_ask_later"),
)
STOP_REASONS = ("end_turn", "max_tokens", "max_turn_requests", "refusal", "_handoff")
# Agent inputs the machine may draw at random: everything but received messages, which
# must come from the client through the wire to keep both sides honest.
ARBITRARY = tuple(k for k in AGENT_INPUTS if k is not acp.Received)


def _update_ids(outbound: tuple[dict[str, Any], ...], key: str) -> list[str]:
    return [
        w["params"]["update"][key]
        for w in outbound
        if w.get("method") == "session/update" and key in w["params"]["update"]
    ]


class Conversation(RuleBasedStateMachine):
    tool_calls = Bundle("tool_calls")
    requests = Bundle("requests")

    def __init__(self, validator: OutboundValidator) -> None:
        super().__init__()
        self.validator = validator
        self.pair = AgentClientPair(auto_deliver=False, validator=validator)
        self.bound: dict[Any, str] = {}  # prompt id -> the user message id the agent reported
        self.decided: set[Any] = set()  # prompt ids the agent accepted or rejected
        self.binding_checkable = True

    @initialize(revision=st.sampled_from(tuple(acp.REVISIONS.values())), racy=st.booleans())
    def start(self, revision: acp.Revision, racy: bool) -> None:
        # Half the runs deliver everything at once (long, orderly conversations), half leave
        # messages in flight until a delivery rule runs (races).
        self.pair = AgentClientPair(
            revision=revision, auto_deliver=not racy, validator=self.validator
        )

    # -- helpers ---------------------------------------------------------------------------

    def _refused(self, side: str, intent: object) -> str:
        engine = self.pair.agent if side == "agent" else self.pair.client
        before = copy.deepcopy(engine)
        act = self.pair.agent_does if side == "agent" else self.pair.client_does
        with pytest.raises(LocalProtocolError) as info:
            act(intent)
        after = self.pair.agent if side == "agent" else self.pair.client
        assert after is engine
        assert after == before
        return info.value.rule

    @property
    def _all_prompts_decided(self) -> bool:
        return all(p.request_id in self.decided for p in self.pair.client.prompts)

    # -- client ----------------------------------------------------------------------------

    @rule(text=st.sampled_from(("fix the bug", "and the tests", "")))
    def client_prompts(self, text: str) -> None:
        self.pair.client_does(acp.SendPrompt((TextContent(text),)))

    # As in a UI, the stop button is live while the client sees work or a question; a cancel
    # while idle is a table test (it would mostly cancel prompts before they are accepted).
    @precondition(
        lambda self: (
            self.pair.client.session.foreground.state != "idle" or bool(self.pair.client.pending)
        )
    )
    @rule()
    def client_cancels(self) -> None:
        self.pair.client_does(acp.SendCancel())

    @rule(request=consumes(requests), option=st.sampled_from(("y", "a", "n", "later")))
    def client_answers(self, request: Any, option: str) -> None:
        if request in self.pair.client.pending:
            self.pair.client_does(acp.AnswerPermission(request, option))
        else:  # already answered (cancelled), or not arrived yet
            assert self._refused("client", acp.AnswerPermission(request, option)) == "E2"

    # -- agent: turns ----------------------------------------------------------------------

    @precondition(lambda self: self.pair.agent.prompts and self.pair.agent.turn is None)
    @rule(chunked=st.booleans())
    def agent_accepts_oldest_prompt(self, chunked: bool) -> None:
        self._accept(chunked)

    def _accept(self, chunked: bool) -> None:
        prompt_id = self.pair.agent.prompts[0].id
        out = self.pair.agent_does(acp.AcceptPrompt(prompt_id, chunked=chunked))
        self.bound[prompt_id] = _update_ids(out, "messageId")[0]
        self.decided.add(prompt_id)

    # The usual way a turn starts, as one step (separate steps rarely line up at random).
    @precondition(lambda self: self.pair.agent.turn is None)
    @rule(chunked=st.booleans())
    def a_prompt_turn_starts(self, chunked: bool) -> None:
        self.pair.client_does(acp.SendPrompt((TextContent("do it"),)))
        self.pair.deliver_to_agent()
        self._accept(chunked)

    @precondition(lambda self: self.pair.agent.prompts)
    @rule(data=st.data())
    def agent_rejects_a_prompt(self, data: st.DataObject) -> None:
        prompt = data.draw(st.sampled_from(self.pair.agent.prompts))
        self.pair.agent_does(acp.RejectPrompt(prompt.id, "busy", code=-32000))
        self.decided.add(prompt.id)

    @precondition(lambda self: self.pair.agent.turn is None and not self.pair.agent.prompts)
    @rule()
    def agent_starts_work(self) -> None:
        self.pair.agent_does(acp.StartWork())

    @precondition(lambda self: self.pair.agent.turn is not None)
    @rule(stop=st.sampled_from(STOP_REASONS))
    def agent_ends_turn(self, stop: str) -> None:
        cancelled = self.pair.agent.turn is not None and self.pair.agent.cancel_requested
        out = self.pair.agent_does(acp.EndTurn(stop))
        (reason,) = _update_ids(out, "stopReason")
        assert reason == ("cancelled" if cancelled else stop)

    @precondition(lambda self: self.pair.agent.turn is not None)
    @rule()
    def agent_aborts(self) -> None:
        cancelled = self.pair.agent.turn is not None and self.pair.agent.cancel_requested
        out = self.pair.agent_does(acp.ReportAbort("boom"))
        (reason,) = _update_ids(out, "stopReason")
        assert (reason == "cancelled") == cancelled
        assert reason in ("cancelled", "error", "_error")

    @precondition(lambda self: self._all_prompts_decided)
    @rule(chunked=st.booleans())
    def agent_inserts_a_user_message(self, chunked: bool) -> None:
        # Only when no prompt of the client is waiting, and delivered at once: FIFO binding
        # (Q7) cannot tell an inserted message from the answer to a prompt sent meanwhile.
        self.pair.agent_does(acp.ReportUserMessage((TextContent("queued"),), chunked=chunked))
        self.pair.deliver_to_client()

    # -- agent: output ---------------------------------------------------------------------

    @rule(kind=st.sampled_from(("text", "thought", "message")), new=st.booleans())
    def agent_says(self, kind: str, new: bool) -> None:
        if kind == "text":
            out = self.pair.agent_does(acp.SendAgentText("words", new_message=new))
        elif kind == "thought":
            out = self.pair.agent_does(acp.SendThought("hmm", new_message=new))
        else:
            out = self.pair.agent_does(acp.SendAgentMessage((TextContent("all"),)))
        assert _update_ids(out, "messageId")  # R4

    @rule(target=tool_calls, kind=st.sampled_from(("edit", "execute", "_custom")))
    def agent_starts_tool_call(self, kind: str) -> str:
        out = self.pair.agent_does(acp.StartToolCall("Tool", kind=kind))
        (tool_call_id,) = _update_ids(out, "toolCallId")
        return tool_call_id

    @rule(
        tool_call=tool_calls,
        status=st.sampled_from(("pending", "in_progress", "completed", "failed", "cancelled")),
    )
    def agent_updates_tool_call(self, tool_call: str, status: str) -> None:
        self._tool_update(acp.PatchToolCall(tool_call, status=status))

    @rule(tool_call=tool_calls)
    def agent_streams_tool_content(self, tool_call: str) -> None:
        content = acp.ToolContent(TextContent("output"))
        self._tool_update(acp.SendToolContent(tool_call, content))

    @rule(tool_call=tool_calls, status=st.sampled_from(("completed", "failed", "cancelled")))
    def agent_finishes_tool_call(self, tool_call: str, status: str) -> None:
        self._tool_update(acp.FinishToolCall(tool_call, status=status))

    def _tool_update(self, intent: object) -> None:
        # A tool call of cancelled work cannot change after that work's idle + `cancelled`
        # (R23); until new work starts, the engine refuses and nothing changes.
        before = self.pair.agent
        try:
            self.pair.agent_does(intent)
        except LocalProtocolError as e:
            refused = e.rule
        else:
            return
        assert refused == "R23"
        assert self.pair.agent == before

    @rule(
        target=requests,
        tool_call=st.none() | tool_calls,
    )
    def agent_requests_permission(self, tool_call: str | None) -> Any:
        out = self.pair.agent_does(acp.RequestPermission("Allow?", OPTIONS, tool_call))
        return out[0]["id"]

    # Ask and answer in one step (the separate rules rarely line up at random).
    @rule(tool_call=st.none() | tool_calls, option=st.sampled_from(("y", "a", "n", "later")))
    def a_permission_round_trip(self, tool_call: str | None, option: str) -> None:
        out = self.pair.agent_does(acp.RequestPermission("Allow?", OPTIONS, tool_call))
        self.pair.deliver_to_client()
        request = out[0]["id"]
        if request in self.pair.client.pending:
            self.pair.client_does(acp.AnswerPermission(request, option))
            self.pair.deliver_to_agent()

    @rule(request=requests)
    def agent_withdraws_request(self, request: Any) -> None:
        if request in self.pair.agent.pending:
            self.pair.agent_does(acp.CancelPermission(request))
        else:
            assert self._refused("agent", acp.CancelPermission(request)) == "E2"

    @rule(
        which=st.sampled_from(("plan", "terminal", "output", "usage", "info")),
    )
    def agent_background_activity(self, which: str) -> None:
        intent: object = {
            "plan": acp.ReportPlan((acp.PlanEntry("step", "high", "in_progress"),)),
            "terminal": acp.PatchTerminal("term-1", command="make", cwd="/src"),
            "output": acp.SendTerminalOutput("term-1", b"ok\n"),
            "usage": acp.ReportUsage(100, 1000),
            "info": acp.PatchSessionInfo(title="Session"),
        }[which]
        self.pair.agent_does(intent)

    @rule(data=st.data(), kind=st.sampled_from(ARBITRARY))
    def agent_does_anything(self, data: st.DataObject, kind: type) -> None:
        intent = data.draw(agent_intent_strategies(self.pair.revision)[kind], label="intent")
        before = copy.deepcopy(self.pair.agent)
        try:
            out = self.pair.agent_does(intent)
        except LocalProtocolError:
            assert self.pair.agent == before
            return
        if isinstance(intent, acp.AcceptPrompt):
            self.bound[intent.request_id] = _update_ids(out, "messageId")[0]
            self.decided.add(intent.request_id)
        elif isinstance(intent, acp.RejectPrompt):
            self.decided.add(intent.request_id)
        elif isinstance(intent, acp.ReportUserMessage) and not (
            self.pair.revision.prompt_result_has_message_id
        ):
            # Inserted while a prompt may wait: FIFO binding (Q7) cannot tell them apart.
            self.binding_checkable = False

    # -- the wire --------------------------------------------------------------------------

    @rule(n=st.integers(1, 4))
    def deliver_to_client(self, n: int) -> None:
        self.pair.deliver_to_client(n)

    @rule(n=st.integers(1, 4))
    def deliver_to_agent(self, n: int) -> None:
        self.pair.deliver_to_agent(n)

    @rule()
    def flush(self) -> None:
        self.pair.flush()

    # -- invariants ------------------------------------------------------------------------

    @invariant()
    def both_sides_agree_when_nothing_flies_to_the_client(self) -> None:
        if not self.pair.to_client:
            self.pair.assert_in_sync()

    @invariant()
    def the_view_is_the_session_plus_cancel_marks(self) -> None:
        client = self.pair.client
        assert client.view.messages == client.session.messages
        assert client.view.foreground == client.session.foreground
        assert set(client.view.tool_calls) == set(client.session.tool_calls)
        for tool_call_id, shown in client.view.tool_calls.items():
            if shown != client.session.tool_calls[tool_call_id]:
                assert shown.status == "cancelled"

    @invariant()
    def the_agent_has_a_turn_exactly_when_not_idle(self) -> None:
        agent = self.pair.agent
        assert (agent.turn is None) == (agent.phase == "idle")

    @invariant()
    def the_agents_protocol_facts_are_the_machines(self) -> None:
        # The records keep no cancel and no blocking (issue 21, F5): the new homes read the
        # machine, the deprecated reads agree with them, and `phase` is the machine's phase.
        agent = self.pair.agent
        machine = agent.conversation
        assert agent.cancel_requested is machine.cancel_pending
        if agent.cancel_requested:
            assert agent.turn is not None  # a pending cancel is the current turn's
        if agent.turn is not None:
            with pytest.warns(DeprecationWarning, match=r"AgentEngine\.cancel_requested"):
                assert agent.turn.cancel_requested is agent.cancel_requested
        for request_id, request in agent.pending.items():
            blocks = agent.blocks(request_id)
            assert blocks is (request.session_id is None and machine.blocks(request_id))
            assert not blocks or agent.turn is not None
            with pytest.warns(DeprecationWarning, match=r"AgentEngine\.blocks"):
                assert request.foreground is blocks
        assert PHASES.get(agent.phase, Phase.OTHER) is machine.phase

    def teardown(self) -> None:
        self.pair.flush()
        self.pair.assert_in_sync()
        # A run may stop mid-work: that is an R7 warning, never a broken rule.
        violations = tuple(v for v in self.pair.violations() if not v.warning)
        assert violations == (), [v.to_json() for v in violations]
        if self.binding_checkable:
            for prompt_id, message_id in self.bound.items():
                assert acp.prompt_message_id(self.pair.client, prompt_id) == message_id


def test_conversations_between_the_engines(spec_schema: dict[str, Any]) -> None:
    validator = OutboundValidator(spec_schema)
    run_state_machine_as_test(
        lambda: Conversation(validator),
        settings=settings(
            max_examples=max(10, settings.default.max_examples // 2),
            stateful_step_count=40,
            deadline=None,
        ),
    )


@pytest.mark.parametrize("revision", tuple(acp.REVISIONS.values()), ids=lambda r: r.name)
def test_a_late_grant_for_a_tool_call_of_cancelled_ended_work_starts_nothing(
    spec_schema: dict[str, Any], revision: acp.Revision
) -> None:
    # Found by the ci profile: work is cancelled, a tool call starts while it winds down
    # (allowed, R23), the work ends cancelled; a permission asked after that for the same tool
    # call and granted must not mark the call `in_progress` (an update after the idle, R23).
    machine = Conversation(OutboundValidator(spec_schema))
    machine.start(revision=revision, racy=False)
    machine.agent_starts_work()
    machine.client_cancels()
    tool_call = machine.agent_starts_tool_call(kind="edit")
    machine.agent_aborts()
    machine.a_permission_round_trip(option="y", tool_call=tool_call)
    machine.teardown()
    assert machine.pair.client.session.tool_calls[tool_call].status != "in_progress"
