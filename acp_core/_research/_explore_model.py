"""The model `explore` walks: an agent and a client connection joined by two FIFO pipes.

Owns: the alphabet (`ACTIONS`, the guard of each action and its step), `initial_node`
(initialize + K sessions, delivered), `successors` (every enabled action of a node, in
alphabet order) and the symmetry reduction's order (`sessions_in_order`); the values it
steps (`PairState`, `Recording`, `Node`) are `_research/_explore_values.py`'s.
Must not know: the search (breadth-first, sharding, executors), files, clocks.

The alphabet, per session `s` (ids `sess_1`..`sess_K`), each action enabled when its guard
holds and the connection accepts it (an `AcpError` from a step means "not enabled"):
- client: `prompt s` (SendPrompt "hi"; at the Preview with an `idempotencyKey` drawn from
  the connection's request counter, so no key names two submissions), `cancel s` (only once
  the client's view shows work: a cancel before the client saw `running` is a cancel "while
  idle", Q20), `allow s` (answer the oldest pending permission request `allow`), `close s`,
  `resume s` (with replay, once the client has no session `s` and no request for it in
  flight);
- agent: `accept s` (the oldest prompt, no turn running), `text s`, `tool s` (start a tool
  call), `ask s` (ask permission for the open tool call), `finish s` (finish the open tool
  call), `withdraw s` (withdraw the oldest pending request), `end s` (end the turn, no
  foreground request pending); agent work waits while the session is `requires_action`
  (work then is the agent's own R12 fault, not something to explore);
- the strategies' alphabet only (`STRATEGY_ACTIONS`, what `pair_runs` draws from): `deny s`
  (answer the oldest pending permission request `reject`);
- the pipes: `deliver>agent`, `deliver>client`: the oldest line in flight in that direction.
At the Preview, one child: `announce s` (a `subagent_update` announcing `sess_1.child` on
`sess_1`, once), `child s` (the child's work: `running` on the child, then its text), and
`childend s` (the child's idle, `end_turn`); and `retry s`: the client sends its oldest
keyed submission that is still unanswered again, with the same key (`RetryPrompt`, C45), at
most once per submission and only while no client line is in flight (what keeps the state
space small: a second retry meets the same three agent outcomes as the first, held, inserted
or released, and a retry queued behind a line in flight reaches the agent after it, first in
first out, as one sent once that line arrived does).
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any

import attrs

from acp_core._engines._connection import connection_step, receive_bytes
from acp_core._engines._connection_agent import AgentConnection, new_agent_connection
from acp_core._engines._connection_client_state import (
    ClientConnection,
    CloseSession,
    Initialize,
    NewSession,
    ResumeSession,
    new_client_connection,
)
from acp_core._engines._connection_values import Implementation, Outbound, SessionIntent
from acp_core._engines._intents import (
    AcceptPrompt,
    AnswerPermission,
    CancelPermission,
    EndTurn,
    FinishToolCall,
    RequestPermission,
    SendAgentText,
    SendCancel,
    SendPrompt,
    StartToolCall,
)
from acp_core._engines._intents_preview import RetryPrompt, SendUpdate
from acp_core._errors import AcpError
from acp_core._state._reduce_children import effective_state
from acp_core._state._session_state import is_active
from acp_core._wire._content import TextContent
from acp_core._wire._fields import PREVIEW_NAME
from acp_core._wire._framing import encode_ndjson
from acp_core._wire._jsonrpc import PermissionOption
from acp_core._wire._revision import Revision
from acp_core._wire._updates import AgentMessageChunk, IdleStateUpdate, RunningStateUpdate
from acp_core._wire._updates_preview import SubagentUpdate

from ._explore_values import Entry, Node, PairState, Recording

__all__ = [
    "ACTIONS",
    "ACTION_NAMES",
    "STRATEGY_ACTIONS",
    "Entry",
    "Node",
    "PairState",
    "Recording",
    "child_of",
    "initial_node",
    "session_ids",
    "sessions_in_order",
    "successors",
]

AGENT_INFO = Implementation("explore-agent", "1.0")
CLIENT_INFO = Implementation("explore-client", "1.0")
ALLOW = (
    PermissionOption("allow", "Allow", "allow_once"),
    PermissionOption("reject", "Reject", "reject_once"),
)


def _send(node: Node, side: str, conn: object, outbound: tuple[Outbound, ...]) -> Node:
    lines = tuple(encode_ndjson(m) for m in outbound)
    state, rec = node.state, node.recording
    if side == "agent":
        assert isinstance(conn, AgentConnection)
        state = attrs.evolve(state, agent=conn, to_client=state.to_client + lines)
        rec = attrs.evolve(rec, agent=rec.agent + tuple(("agent", line) for line in lines))
    else:
        assert isinstance(conn, ClientConnection)
        state = attrs.evolve(state, client=conn, to_agent=state.to_agent + lines)
        rec = attrs.evolve(rec, client=rec.client + tuple(("client", line) for line in lines))
    return Node(state, rec, node.path)


def _do(node: Node, side: str, intent: object) -> Node:
    conn = node.state.agent if side == "agent" else node.state.client
    step = connection_step(conn, intent)
    return _send(node, side, step.connection, step.outbound)


def _deliver(node: Node, to: str) -> Node | None:
    state, rec = node.state, node.recording
    if to == "agent":
        if not state.to_agent:
            return None
        line, rest = state.to_agent[0], state.to_agent[1:]
        step = receive_bytes(state.agent, line)
        node = Node(
            attrs.evolve(state, to_agent=rest),
            attrs.evolve(rec, agent=(*rec.agent, ("client", line))),
            node.path,
        )
        return _send(node, "agent", step.connection, step.outbound)
    if not state.to_client:
        return None
    line, rest = state.to_client[0], state.to_client[1:]
    cstep = receive_bytes(state.client, line)
    node = Node(
        attrs.evolve(state, to_client=rest),
        attrs.evolve(rec, client=(*rec.client, ("agent", line))),
        node.path,
    )
    return _send(node, "client", cstep.connection, cstep.outbound)


# -- the alphabet: each action maps a node to the intent it steps, or None (not enabled) ------

Guard = Callable[[PairState, str], "tuple[str, object] | None"]


def _client_prompt(s: PairState, sid: str) -> tuple[str, object] | None:
    if sid not in s.client.sessions:
        return None
    key = f"k{s.client.next_request_id}" if s.client.revision.includes(PREVIEW_NAME) else None
    return "client", SessionIntent(sid, SendPrompt((TextContent("hi"),), idempotency_key=key))


def _client_retry(s: PairState, sid: str) -> tuple[str, object] | None:
    session = s.client.sessions.get(sid)
    if session is None or s.to_agent:
        return None  # FIFO: a retry sent behind lines in flight meets what it meets later
    engine = session.engine
    retried = {p.retry_of for p in engine.prompts if p.retry_of is not None}
    for request in engine.unanswered:  # oldest first; keyed ones only (C45)
        if request.id not in retried:
            return "client", SessionIntent(sid, RetryPrompt(request.id))
        return None  # its one retry was sent: the next submission waits its turn
    return None


def _client_cancel(s: PairState, sid: str) -> tuple[str, object] | None:
    if sid not in s.client.sessions or not is_active(s.client.view(sid)):
        return None
    return "client", SessionIntent(sid, SendCancel())


def _client_allow(s: PairState, sid: str) -> tuple[str, object] | None:
    if sid not in s.client.sessions:
        return None
    pending = list(s.client.engine(sid).pending.keys())
    if not pending:
        return None
    return "client", SessionIntent(sid, AnswerPermission(pending[0], "allow"))


def _client_deny(s: PairState, sid: str) -> tuple[str, object] | None:
    # Only in the strategies' alphabet (`STRATEGY_ACTIONS`): explore's answers `allow` only.
    if sid not in s.client.sessions:
        return None
    pending = list(s.client.engine(sid).pending.keys())
    if not pending:
        return None
    return "client", SessionIntent(sid, AnswerPermission(pending[0], "reject"))


def _client_close(s: PairState, sid: str) -> tuple[str, object] | None:
    return ("client", CloseSession(sid)) if sid in s.client.sessions else None


def _client_resume(s: PairState, sid: str) -> tuple[str, object] | None:
    if sid in s.client.sessions or any(
        getattr(p, "session_id", None) == sid for p in s.client.outgoing.values()
    ):
        return None
    return "client", ResumeSession(sid, "/work", replay=True)


def _agent_engine(s: PairState, sid: str) -> Any:
    session = s.agent.sessions.get(sid)
    return session.engine if session is not None and session.attached else None


def _working(s: PairState, sid: str) -> Any:
    engine = _agent_engine(s, sid)
    if engine is None or engine.turn is None or engine.phase == "requires_action":
        return None
    return engine


def _open_tool(engine: Any) -> str | None:
    for call_id, call in engine.session.tool_calls.items():
        if not call.finished:
            return str(call_id)
    return None


def _agent_accept(s: PairState, sid: str) -> tuple[str, object] | None:
    engine = _agent_engine(s, sid)
    if engine is None or engine.turn is not None or not engine.prompts:
        return None
    return "agent", SessionIntent(sid, AcceptPrompt(engine.prompts[0].id))


def _agent_text(s: PairState, sid: str) -> tuple[str, object] | None:
    return ("agent", SessionIntent(sid, SendAgentText("a"))) if _working(s, sid) else None


def _agent_tool(s: PairState, sid: str) -> tuple[str, object] | None:
    engine = _working(s, sid)
    if engine is None or _open_tool(engine) is not None:
        return None  # one open tool call at a time keeps the alphabet small
    return "agent", SessionIntent(sid, StartToolCall("Tool"))


def _agent_ask(s: PairState, sid: str) -> tuple[str, object] | None:
    engine = _working(s, sid)
    call = None if engine is None or engine.pending else _open_tool(engine)
    if call is None:
        return None
    return "agent", SessionIntent(sid, RequestPermission("Run?", ALLOW, call))


def _agent_finish(s: PairState, sid: str) -> tuple[str, object] | None:
    engine = _working(s, sid)
    call = None if engine is None or engine.pending else _open_tool(engine)
    return None if call is None else ("agent", SessionIntent(sid, FinishToolCall(call)))


def _agent_withdraw(s: PairState, sid: str) -> tuple[str, object] | None:
    engine = _agent_engine(s, sid)
    if engine is None or not engine.pending:
        return None
    return "agent", SessionIntent(sid, CancelPermission(next(iter(engine.pending.keys()))))


def _agent_end(s: PairState, sid: str) -> tuple[str, object] | None:
    engine = _agent_engine(s, sid)
    if engine is None or engine.turn is None:
        return None
    if any(engine.blocks(request_id) for request_id in engine.pending):
        return None
    return "agent", SessionIntent(sid, EndTurn())


# -- the Preview: one child, announced on the first session and working there -----------


def child_of(sid: str) -> str:
    """The id of the one child a session may announce (`announce`)."""
    return f"{sid}.child"


def _child_state(s: PairState, sid: str) -> str | None:
    # The child's foreground state as the agent reported it (None: not announced).
    engine = _agent_engine(s, sid)
    if engine is None or child_of(sid) not in s.agent.children_of(sid):
        return None
    return str(effective_state(engine.children, child_of(sid)))


def _agent_announce(s: PairState, sid: str) -> tuple[str, object] | None:
    engine = _agent_engine(s, sid)
    if engine is None or not s.agent.revision.includes(PREVIEW_NAME) or sid != "sess_1":
        return None  # one child in all: sess_1's
    if child_of(sid) in s.agent.children_of(sid):
        return None
    return "agent", SessionIntent(sid, SendUpdate(SubagentUpdate(child_of(sid), title="Child")))


def _agent_child(s: PairState, sid: str) -> tuple[str, object] | None:
    state = _child_state(s, sid)
    if state is None:
        return None
    update: object = (
        AgentMessageChunk(f"{child_of(sid)}-msg", TextContent("c"))
        if state == "running"
        else RunningStateUpdate()
    )
    return "agent", SessionIntent(sid, SendUpdate(update, child_of(sid)))  # type: ignore[arg-type]


def _agent_child_end(s: PairState, sid: str) -> tuple[str, object] | None:
    if _child_state(s, sid) != "running":
        return None
    idle = IdleStateUpdate(stop_reason="end_turn")
    return "agent", SessionIntent(sid, SendUpdate(idle, child_of(sid)))


#: The per-session alphabet, in the order successors are generated (part of the contract:
#: it fixes which of several shortest counterexamples is reported).
ACTIONS: tuple[tuple[str, Guard], ...] = (
    ("prompt", _client_prompt),
    ("cancel", _client_cancel),
    ("allow", _client_allow),
    ("close", _client_close),
    ("resume", _client_resume),
    ("accept", _agent_accept),
    ("text", _agent_text),
    ("tool", _agent_tool),
    ("ask", _agent_ask),
    ("finish", _agent_finish),
    ("withdraw", _agent_withdraw),
    ("end", _agent_end),
    ("announce", _agent_announce),
    ("child", _agent_child),
    ("childend", _agent_child_end),
    ("retry", _client_retry),
)


#: The strategies' alphabet (`pair_runs`): explore's and `deny` (answer the oldest pending
#: permission request `reject`), so drawn runs see a permission denied as well as granted.
#: Not explore's: it would grow every level of the search by a branch.
STRATEGY_ACTIONS: tuple[tuple[str, Guard], ...] = (*ACTIONS, ("deny", _client_deny))


def session_ids(sessions: int) -> tuple[str, ...]:
    return tuple(f"sess_{i}" for i in range(1, sessions + 1))


def initial_node(revision: Revision, sessions: int) -> Node:
    """Both ends initialized and `sessions` sessions open, everything delivered."""
    node = Node(
        PairState(
            new_agent_connection(AGENT_INFO, revision=revision),
            new_client_connection(CLIENT_INFO, revision=revision),
        ),
        Recording(),
    )
    for intent in (Initialize(), *(NewSession("/work") for _ in range(sessions))):
        node = _do(node, "client", intent)
        while (nxt := _deliver(node, "agent") or _deliver(node, "client")) is not None:
            node = nxt
    return node


#: Every action name (`deliver` stands for both deliveries).
ACTION_NAMES: tuple[str, ...] = (*(name for name, _ in ACTIONS), "deliver")


def sessions_in_order(node: Node, sessions: int) -> tuple[str, ...]:
    """The symmetry reduction: the sessions that may act next when session `k + 1` acts only
    once session `k` has (the first untouched session, and every touched one).

    Sound because the sessions start alike: swapping two ids maps every path, and every
    violation it shows, onto a path of the same length where the lower id acts first
    (the connection's own counters, for message and request ids, do not tell sessions
    apart: they only name things)."""
    touched = {label.rsplit(" ", 1)[-1] for label in node.path if " " in label}
    allowed = []
    for sid in session_ids(sessions):
        allowed.append(sid)
        if sid not in touched:
            break
    return tuple(allowed)


def successors(
    node: Node,
    sessions: int,
    only: frozenset[str] | None = None,
    symmetry: bool = False,
    alphabet: tuple[tuple[str, Guard], ...] = ACTIONS,
) -> Iterator[tuple[str, Node]]:
    """Every enabled action of `node` and the node it leads to, in alphabet order (only the
    actions named in `only`, when given; with `symmetry`, only sessions
    `sessions_in_order` allows; `alphabet`: `ACTIONS`, or the strategies'
    `STRATEGY_ACTIONS`)."""
    state = node.state
    for sid in sessions_in_order(node, sessions) if symmetry else session_ids(sessions):
        for name, guard in alphabet:
            if only is not None and name not in only:
                continue
            chosen = guard(state, sid)
            if chosen is None:
                continue
            try:
                nxt = _do(node, *chosen)
            except AcpError:
                continue  # the connection refuses it here: not enabled
            label = f"{name} {sid}"
            yield label, Node(nxt.state, nxt.recording, (*node.path, label))
    for to in ("agent", "client") if only is None or "deliver" in only else ():
        delivered = _deliver(node, to)
        if delivered is not None:
            label = f"deliver>{to}"
            yield label, Node(delivered.state, delivered.recording, (*node.path, label))
