"""A connected agent engine and client engine, for tests (the h11 ConnectionPair idea).

`AgentClientPair` owns one `AgentEngine` and one `ClientEngine` for the same session. Each
`agent_does(intent)` / `client_does(intent)` steps that side's engine and puts its outbound
wire dicts in flight to the other side as JSON text (`json.dumps`). Delivery parses the text
(`json.loads`), decodes it strictly with `decode_message` and steps the receiving engine with
`Received(message)`; whatever that side answers goes in flight the other way. By default
everything in flight is delivered at once (`auto_deliver=True`); with `auto_deliver=False`
messages stay in flight until `deliver_to_client` / `deliver_to_agent` / `flush`, which lets a
test interleave both sides the way a real connection can (each direction stays FIFO).

Two traces are recorded in the trace checker's format (`{"from": side, "message": wire}`),
one per end of the wire: `trace` in the order the agent sees the conversation (its messages
when it sends them, the client's when they reach it) and `client_trace` in the order the
client sees it. When messages cross in flight the two orders differ, and each side can only
be judged on what it had seen when it acted: `violations()` takes the agent's rules from
`trace` and the client's from `client_trace`. `sent` keeps every outbound message of both
sides in send order, for schema validation.

Invariant worth asserting (see `assert_in_sync`): once nothing is in flight towards the
client, both sides hold equal `SessionState`s: the agent folded what it sent, the client
folded what it received.

Also here: small wire builders for single-engine table tests (`receive`, `prompt_wire`, ...)
and one hypothesis strategy per input class of each engine (`agent_intent_strategies`,
`client_intent_strategies`), legal and illegal, for the totality and state-machine tests.
"""

from __future__ import annotations

import functools
import json
from collections import deque
from collections.abc import Callable, Mapping
from typing import Any

from hypothesis import strategies as st

import acp_core as acp
from acp_core import (
    UNSET,
    AgentEngine,
    ClientEngine,
    Received,
    Revision,
    decode_message_diagnosed,
    new_agent,
    new_client,
    step,
)
from acp_core import strategies as acps
from acp_core._rules._predicates import PERMISSION_OPTION_KINDS as _PERMISSION_KINDS
from acp_core._wire import _jsonrpc as j

__all__ = ["AGENT", "CLIENT", "AgentClientPair"]

AGENT = "agent"
CLIENT = "client"

Validator = Callable[[str, dict[str, Any]], None]


class AgentClientPair:
    """Two engines joined by an in-memory, JSON-encoded, FIFO wire.

    Attributes:
        agent, client: the current engine values (replaced on every step).
        trace: the conversation as the agent's end of the wire saw it (checker format).
        sent: every outbound message as `(side, wire)`, in send order.
        to_client, to_agent: JSON texts in flight, oldest first.
    """

    def __init__(
        self,
        session_id: str = "sess_1",
        *,
        revision: Revision = acp.DEFAULT_REVISION,
        auto_deliver: bool = True,
        validator: Validator | None = None,
    ) -> None:
        self.agent: AgentEngine = new_agent(session_id, revision=revision)
        self.client: ClientEngine = new_client(session_id, revision=revision)
        self.revision = revision
        self.auto_deliver = auto_deliver
        self.validator = validator
        self.trace: list[dict[str, Any]] = []
        self.client_trace: list[dict[str, Any]] = []
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.to_client: deque[str] = deque()
        self.to_agent: deque[str] = deque()

    # -- acting --------------------------------------------------------------------------

    def agent_does(self, intent: object) -> tuple[dict[str, Any], ...]:
        """Step the agent engine with `intent`; returns what it sent (already in flight).

        Raises whatever the engine raises; then nothing changed.
        """
        self.agent, outbound = step(self.agent, intent)
        self._emit(AGENT, outbound)
        if self.auto_deliver:
            self.flush()
        return outbound

    def client_does(self, intent: object) -> tuple[dict[str, Any], ...]:
        """Step the client engine with `intent`; returns what it sent (already in flight)."""
        self.client, outbound = step(self.client, intent)
        self._emit(CLIENT, outbound)
        if self.auto_deliver:
            self.flush()
        return outbound

    # -- delivering ----------------------------------------------------------------------

    def deliver_to_client(self, n: int | None = None) -> int:
        """Deliver up to `n` (default: all) in-flight messages to the client; returns how many."""
        return self._deliver(CLIENT, n)

    def deliver_to_agent(self, n: int | None = None) -> int:
        """Deliver up to `n` (default: all) in-flight messages to the agent; returns how many."""
        return self._deliver(AGENT, n)

    def flush(self) -> None:
        """Deliver in both directions until nothing is in flight."""
        while self.to_client or self.to_agent:
            self._deliver(CLIENT, None)
            self._deliver(AGENT, None)

    @property
    def quiet(self) -> bool:
        """Nothing is in flight in either direction."""
        return not self.to_client and not self.to_agent

    def violations(self) -> tuple[Any, ...]:
        """What the checker finds: agent rules judged on `trace`, client rules on
        `client_trace` (rules binding both sides on both)."""
        from acp_core._rules._catalogue import RULES

        def side_of(rule: str) -> str:
            found = RULES.get(rule)
            return "both" if found is None else found.side

        agent_view = acp.check_trace(self.trace, revision=self.revision)
        client_view = acp.check_trace(self.client_trace, revision=self.revision)
        return tuple(v for v in agent_view if side_of(v.rule) != CLIENT) + tuple(
            v for v in client_view if side_of(v.rule) != AGENT
        )

    def assert_in_sync(self) -> None:
        """Both sides hold the same session state (call when nothing flies to the client)."""
        assert not self.to_client, "messages are still in flight to the client"
        assert self.client.session == self.agent.session

    # -- internals -----------------------------------------------------------------------

    def _emit(self, side: str, outbound: tuple[dict[str, Any], ...]) -> None:
        queue = self.to_client if side == AGENT else self.to_agent
        for wire in outbound:
            if self.validator is not None:
                self.validator(side, wire)
            self.sent.append((side, wire))
            text = json.dumps(wire)  # the wire carries JSON text, nothing Python-specific
            if side == AGENT:
                self.trace.append({"from": AGENT, "message": json.loads(text)})
            else:
                self.client_trace.append({"from": CLIENT, "message": json.loads(text)})
            queue.append(text)

    def _deliver(self, to: str, n: int | None) -> int:
        queue = self.to_client if to == CLIENT else self.to_agent
        count = 0
        while queue and (n is None or count < n):
            raw = json.loads(queue.popleft())
            decoded = decode_message_diagnosed(raw, strict=True, revision=self.revision)
            assert not decoded.diagnostics, decoded.diagnostics
            message = decoded.value
            assert not isinstance(message, acp.Batch), "engines never send batches"
            if to == AGENT:
                self.trace.append({"from": CLIENT, "message": raw})
                self.agent, outbound = step(self.agent, Received(message))
                self._emit(AGENT, outbound)
            else:
                self.client_trace.append({"from": AGENT, "message": raw})
                self.client, outbound = step(self.client, Received(message))
                self._emit(CLIENT, outbound)
            count += 1
        return count


# -- helpers for single-engine table tests -------------------------------------------------


def receive(engine: Any, wire: dict[str, Any]) -> acp.Step:
    """Step `engine` with a message given as a wire dict (decoded strictly first, at the
    revision the engine speaks)."""
    revision = engine.revision
    message = acp.decode_message(json.loads(json.dumps(wire)), strict=True, revision=revision)
    assert not isinstance(message, acp.Batch)
    return step(engine, Received(message))


def updates_of(outbound: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """The `update` objects of the `session/update` notifications among `outbound`."""
    return [w["params"]["update"] for w in outbound if w.get("method") == "session/update"]


def prompt_wire(
    request_id: int | str | None, session_id: str = "sess_1", text: str = "hello"
) -> dict[str, Any]:
    """A `session/prompt` request with one text block."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "session/prompt",
        "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]},
    }


def cancel_wire(session_id: str = "sess_1") -> dict[str, Any]:
    """A `session/cancel` notification."""
    return {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session_id}}


def selected_wire(request_id: int | str | None, option_id: str) -> dict[str, Any]:
    """A permission answer selecting `option_id`."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "result": {"outcome": {"outcome": "selected", "optionId": option_id}},
    }


def cancelled_wire(request_id: int | str | None) -> dict[str, Any]:
    """A permission answer with the `cancelled` outcome."""
    return {"jsonrpc": "2.0", "id": request_id, "result": {"outcome": {"outcome": "cancelled"}}}


def error_wire(request_id: int | str | None, code: int = -32800) -> dict[str, Any]:
    """An error response (default: -32800, request cancelled)."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": "cancelled"}}


# -- intent strategies (legal and illegal), for the totality and state-machine tests -------
# Ids come from small fixed pools that mix ids the test engines know (see the phases of
# test_engine_totality) with unknown and empty ones, so draws hit both the legal paths and
# the refusals. Open enums draw known, `_`-prefixed and unprefixed unknown values (the last
# are illegal for an agent to send, R19). Values are small on purpose: the full value space
# is the codec tests' job; here it only has to reach every branch of the engines.

TOOL_IDS = ("t0", "t1", "b1", "t-new", "")
MESSAGE_IDS = ("user-1", "agent-2", "m-new", "")
PROMPT_IDS = (1, 2, 5, "p-x", None)
REQUEST_IDS = (0, 1, 5, "r-x", None)

_JSON = tuple(
    acp.freeze_json(v) for v in (None, True, 3, -1.5, "s", [], [1, "a"], {}, {"k": {"n": 1}})
)
_tags = st.sampled_from(("widget", "_widget", "notice", "_x"))


def _obj(raw: dict[str, Any]) -> acp.JsonObject:
    frozen = acp.freeze_json(raw)
    assert isinstance(frozen, Mapping)
    return frozen


json_values = st.sampled_from(_JSON)
metas: Any = st.sampled_from((UNSET, None, acp.freeze_json({"trace": "t"})))
content_blocks: Any = st.one_of(
    st.builds(acp.TextContent, st.text(max_size=4), meta=metas),
    st.just(acp.ImageContent("iVBORw0KGgo=", "image/png")),
    st.just(acp.ResourceLink("notes", "file:///notes.md")),
    _tags.map(lambda t: acp.OtherContent(_obj({"type": t, "x": 1}))),
)
tool_call_contents: Any = st.one_of(
    content_blocks.map(acp.ToolContent),
    st.just(acp.Diff((acp.DiffChange("modify", "/src/a.py"),))),
    st.just(acp.TerminalRef("term-1")),
    st.sampled_from(("chart", "_chart", "notice")).map(
        lambda t: acp.OtherToolCallContent(_obj({"type": t}))
    ),
)
_plan_entries = st.builds(
    acp.PlanEntry,
    content=st.text(max_size=4),
    priority=st.sampled_from(("high", "low", "_urgent", "urgent")),
    status=st.sampled_from(("pending", "completed", "_blocked", "blocked")),
)
_other_plans = st.sampled_from(
    (
        {"type": "_notes", "planId": "plan-9"},
        {"type": "markdown", "planId": "plan-9"},
        {"type": "_x", "planId": ""},
        {"type": "_x"},
        {"planId": "plan-9"},
    )
).map(lambda raw: acp.OtherPlan(_obj(raw)))


def _tuples(strategy: Any, max_size: int = 2) -> Any:
    return st.lists(strategy, max_size=max_size).map(tuple)


def _open(known: Any) -> Any:
    """An open-enum value: known, `_`-prefixed extension, or unprefixed unknown (illegal)."""
    return st.sampled_from(sorted(known)) | st.sampled_from(("_ext", "future"))


@functools.cache
def agent_intent_strategies(
    revision: Revision = acp.DEFAULT_REVISION, session_id: str = "sess_1"
) -> dict[type[Any], Any]:
    """One hypothesis strategy per agent input class (`AGENT_INPUTS`)."""
    sid = session_id
    tool_ids = st.sampled_from(TOOL_IDS)
    message_ids = st.none() | st.sampled_from(MESSAGE_IDS)
    prompt_ids = st.sampled_from(PROMPT_IDS)
    request_ids = st.sampled_from(REQUEST_IDS)
    terminal_ids = st.sampled_from(("term-1", "term-2", ""))
    stop_reasons = _open(revision.stop_reasons | {"error"})
    tool_statuses = _open(revision.tool_statuses | {"paused"})
    tool_kinds = _open(acp.ToolKind.KNOWN)
    counts = st.sampled_from((-1, 0, 1, 1000, 2**64 - 1, 2**64))  # a bool: refused when built (E0)
    costs = st.builds(
        acp.Cost, amount=st.sampled_from((0.0, 1.25)), currency=st.sampled_from(("USD", "usd"))
    )
    options = _tuples(
        st.builds(
            j.PermissionOption,
            option_id=st.sampled_from(("allow", "reject", "other")),
            name=st.just("Choice"),
            kind=_open(_PERMISSION_KINDS),
        ),
        max_size=3,
    )
    results = st.one_of(
        st.sampled_from(("allow", "reject", "other", "nope")).map(
            lambda o: {"outcome": {"outcome": "selected", "optionId": o}}
        ),
        st.just({"outcome": {"outcome": "cancelled"}}),
        st.just({"outcome": {"outcome": "deferred"}}),
        json_values,
    ).map(acp.freeze_json)
    received = st.one_of(
        st.builds(
            j.PromptRequest,
            id=prompt_ids,
            session_id=st.sampled_from((sid, sid, "other")),
            prompt=_tuples(content_blocks),
        ),
        st.builds(j.CancelSessionNotification, session_id=st.sampled_from((sid, sid, "other"))),
        st.builds(j.Response, id=request_ids, result=results),
        st.builds(
            j.ErrorResponse,
            id=request_ids,
            error=st.builds(j.RpcError, st.sampled_from((-32800, -32603)), st.just("no")),
        ),
        st.builds(j.CancelRequestNotification, request_id=request_ids),
        st.builds(j.Request, id=request_ids, method=st.sampled_from(("_x/ping", "fs/read"))),
        st.builds(j.Notification, method=st.sampled_from(("_x/note", "$/progress"))),
        # Messages an agent never receives.
        st.just(j.UpdateSessionNotification(sid, acp.RunningStateUpdate())),
        st.builds(
            j.RequestPermissionRequest,
            id=request_ids,
            session_id=st.just(sid),
            title=st.just("t"),
            options=options.filter(bool),
        ),
    ).map(acp.Received)
    return {
        acp.AcceptPrompt: st.builds(
            acp.AcceptPrompt,
            request_id=prompt_ids,
            user_message_id=message_ids,
            content=st.none() | _tuples(content_blocks, 3),
            chunked=st.booleans(),
        ),
        acp.RejectPrompt: st.builds(
            acp.RejectPrompt,
            request_id=prompt_ids,
            message=st.text(max_size=5),
            code=st.sampled_from((-32603, -32000, 1)),
            data=st.just(UNSET) | json_values,
        ),
        acp.ReportUserMessage: st.builds(
            acp.ReportUserMessage,
            content=_tuples(content_blocks, 3),
            message_id=message_ids,
            chunked=st.booleans(),
        ),
        acp.StartWork: st.just(acp.StartWork()),
        acp.SendAgentText: st.builds(
            acp.SendAgentText,
            content=st.text(max_size=5) | content_blocks,
            message_id=message_ids,
            new_message=st.booleans(),
            meta=metas,
        ),
        acp.SendThought: st.builds(
            acp.SendThought,
            content=st.text(max_size=5) | content_blocks,
            message_id=message_ids,
            new_message=st.booleans(),
        ),
        acp.SendAgentMessage: st.builds(
            acp.SendAgentMessage,
            content=_tuples(content_blocks, 3),
            message_id=message_ids,
            meta=metas,
        ),
        acp.ReportPlan: st.builds(
            acp.ReportPlan,
            entries=_tuples(_plan_entries, 3),
            plan_id=st.sampled_from(("plan-1", "plan-2", "")),
            plan=st.none() | st.none() | _other_plans,
        ),
        acp.StartToolCall: st.builds(
            acp.StartToolCall,
            title=st.sampled_from(("Edit", "")),
            tool_call_id=st.none() | tool_ids,
            kind=tool_kinds,
            status=tool_statuses,
            content=_tuples(tool_call_contents),
            locations=_tuples(st.just(acp.ToolCallLocation("/src/a.py", 3))),
            raw_input=st.just(UNSET) | json_values,
            meta=metas,
        ),
        acp.PatchToolCall: st.builds(
            acp.PatchToolCall,
            tool_call_id=tool_ids,
            title=acps.patches(st.text(max_size=5)),
            kind=acps.patches(tool_kinds),
            status=acps.patches(tool_statuses),
            content=acps.patches(_tuples(tool_call_contents)),
            raw_output=acps.patches(json_values),
            meta=metas,
        ),
        acp.SendToolContent: st.builds(
            acp.SendToolContent, tool_call_id=tool_ids, content=tool_call_contents, meta=metas
        ),
        acp.FinishToolCall: st.builds(
            acp.FinishToolCall,
            tool_call_id=tool_ids,
            status=tool_statuses,
            content=st.just(UNSET) | _tuples(tool_call_contents),
            raw_output=st.just(UNSET) | json_values,
        ),
        acp.PatchTerminal: st.builds(
            acp.PatchTerminal,
            terminal_id=terminal_ids,
            command=acps.patches(st.just("make")),
            cwd=acps.patches(st.sampled_from(("/work", "C:\\work", "relative/dir", ""))),
            output=acps.patches(st.binary(max_size=4)),
            exit_status=acps.patches(st.just(acp.TerminalExitStatus(exit_code=0))),
        ),
        acp.SendTerminalOutput: st.builds(
            acp.SendTerminalOutput, terminal_id=terminal_ids, data=st.binary(max_size=4)
        ),
        acp.ReportUsage: st.builds(
            acp.ReportUsage, used=counts, size=counts, cost=acps.patches(costs)
        ),
        acp.PatchSessionInfo: st.builds(
            acp.PatchSessionInfo,
            title=acps.patches(st.text(max_size=5)),
            updated_at=acps.patches(st.just("2026-01-01T00:00:00Z")),
            meta=metas,
        ),
        acp.RequestPermission: st.builds(
            acp.RequestPermission,
            title=st.sampled_from(("Allow?", "")),
            options=options,
            tool_call_id=st.none() | tool_ids,
            description=st.just(UNSET) | st.text(max_size=5),
            request_id=st.none() | request_ids,
        ),
        acp.CancelPermission: st.builds(acp.CancelPermission, request_id=request_ids),
        acp.EndTurn: st.builds(
            acp.EndTurn, stop_reason=stop_reasons, meta=st.just(UNSET) | st.just(_JSON[-1])
        ),
        acp.ReportAbort: st.builds(
            acp.ReportAbort, detail=st.text(max_size=5), stop_reason=st.none() | stop_reasons
        ),
        acp.Received: received,
        # Preview (at revisions before it, an update it adds is refused, never a crash).
        acp.SendUpdate: st.builds(
            acp.SendUpdate,
            update=st.sampled_from(
                (
                    acp.SubagentUpdate("c1", title="Tests"),
                    acp.SubagentUpdate("c1", cwd="relative/dir"),
                    acp.AgentMessageChunk("cm", acp.TextContent("x")),
                    acp.SessionMessage("sm", sender_session_id=sid, recipient_session_id="c1"),
                    acp.PlanRemoved("plan-1"),
                    acp.Notice("info", "Heads up"),
                    acp.RunningStateUpdate(),
                    acp.UnknownStateUpdate(),
                )
            ),
            session_id=st.none() | st.sampled_from((sid, "c1", "ghost")),
        ),
        acp.ReportBackground: st.builds(
            acp.ReportBackground,
            items=_tuples(
                st.sampled_from(
                    (
                        acp.BackgroundToolCall("t1"),
                        acp.BackgroundTerminal("term-1"),
                        acp.BackgroundSubagent("c1"),
                        acp.OtherBackgroundWork(acp.freeze_json({"type": "_job"})),
                    )
                ),
                max_size=2,
            ),
        ),
    }


@functools.cache
def client_intent_strategies(session_id: str = "sess_1") -> dict[type[Any], Any]:
    """One hypothesis strategy per client input class (`CLIENT_INPUTS`)."""
    sid = session_id
    prompt_ids = st.sampled_from((0, 1, 2, "p-x", None))
    request_ids = st.sampled_from(REQUEST_IDS)
    updates = st.sampled_from(
        (
            acp.RunningStateUpdate(),
            acp.IdleStateUpdate("end_turn"),
            acp.IdleStateUpdate("cancelled"),
            acp.RequiresActionStateUpdate(),
            acp.UserMessage("u1", (acp.TextContent("hi"),)),
            acp.UserMessage("u2", (acp.TextContent("again"),)),
            acp.UserMessageChunk("u3", acp.TextContent("x")),
            acp.AgentMessageChunk("a1", acp.TextContent("x")),
            acp.ToolCallUpdate("t1", status="completed"),
            acp.ToolCallUpdate("t2", title="New", status="in_progress"),
            acp.ToolCallContentChunk("t1", acp.ToolContent(acp.TextContent("out"))),
        )
    )
    permission_requests = st.builds(
        j.RequestPermissionRequest,
        id=request_ids,
        session_id=st.sampled_from((sid, sid, "other")),
        title=st.just("Allow?"),
        options=st.just(
            (j.PermissionOption("y", "Yes", "allow_once"), j.PermissionOption("n", "No", "_n"))
        ),
        subject=st.just(UNSET)
        | st.sampled_from(("t1", "t9")).map(
            lambda t: j.ToolCallPermissionSubject(acp.ToolCallUpdate(t, title="Edit"))
        ),
    )
    results = st.one_of(
        st.just({}), st.just({"messageId": "u1"}), st.just({"messageId": 5}), json_values
    ).map(acp.freeze_json)
    received = st.one_of(
        st.builds(
            j.UpdateSessionNotification,
            session_id=st.sampled_from((sid, sid, "other")),
            update=updates,
        ),
        permission_requests,
        st.builds(j.Response, id=prompt_ids, result=results),
        st.builds(
            j.ErrorResponse, id=prompt_ids, error=st.just(j.RpcError(-32603, "internal error"))
        ),
        st.builds(j.CancelRequestNotification, request_id=request_ids),
        st.builds(j.Request, id=request_ids, method=st.sampled_from(("_x/ping", "fs/read"))),
        st.builds(j.Notification, method=st.sampled_from(("_x/note", "$/progress"))),
        # Messages a client never receives.
        st.just(j.PromptRequest(9, sid, ())),
        st.just(j.CancelSessionNotification(sid)),
    ).map(acp.Received)
    return {
        acp.SendPrompt: st.builds(
            acp.SendPrompt,
            content=_tuples(content_blocks),
            request_id=st.none() | prompt_ids,
            meta=metas,
            idempotency_key=st.none() | st.sampled_from(("key-1", "key-2")),
        ),
        acp.SendCancel: st.just(acp.SendCancel()),
        acp.AnswerPermission: st.builds(
            acp.AnswerPermission,
            request_id=request_ids,
            option_id=st.sampled_from(("y", "n", "nope", "")),
        ),
        acp.Received: received,
        # Preview intents (refused until the client engine sends them, never a crash).
        acp.CancelChild: st.builds(acp.CancelChild, session_id=st.sampled_from(("c1", sid))),
        acp.CancelToolCall: st.builds(
            acp.CancelToolCall,
            tool_call_id=st.sampled_from(("t1", "t2", "t9")),
            session_id=st.none() | st.sampled_from((sid, "c1")),
            request_id=st.none() | request_ids,
        ),
        acp.CancelTerminal: st.builds(
            acp.CancelTerminal,
            terminal_id=st.sampled_from(("term-1", "x")),
            session_id=st.none() | st.sampled_from((sid, "c1")),
            request_id=st.none() | request_ids,
        ),
        acp.RetryPrompt: st.builds(
            acp.RetryPrompt, original=prompt_ids, request_id=st.none() | prompt_ids
        ),
    }
