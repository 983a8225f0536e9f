"""The agent connection's values and the bookkeeping every agent-side handler shares.

Owns: `AgentConnection`, `AgentSession`, `OpenSession`, `new_agent_connection`, and `Build`
(one step's changes), with the moves every handler makes: stepping a session's engine
(`step_session`: outbound on the wire only while attached, answered requests crossed off),
connection-unique request ids (`fresh_id`), host intents (`session_intent`, `open_session`,
`host_answer`) and the end of a deferred close (`finish_close`); a client's
`session/cancel` is recorded with its session machine's word on what it cancels
(`cancels_of`, R71), as the checker's machine passes it. `Build.done` then feeds what the
step received and sent to the protocol machine's connection-wide part (`AgentConnection.
rules`: the exchange rules at every revision, the rules across sessions from 2026-11 on):
that half of the builder, with `judged_first` (a child's `state_update` meets those rules
before its engine), is `FeedsTheMachine` in `_engines/_connection_agent_judging.py` (on
`_connection_judging.py`).
Must not know: which method is answered how (`_engines/_connection_agent_setup.py`,
`_engines/_connection_agent.py`), the wire format beyond reply dicts, I/O, what the
machine's parts judge (the feeding module shows them the traffic).
The seams cut out of it: v1 serving (`_connection_agent_v1.py`), a batch's held replies
(`_connection_agent_batches.py`), the handlers (`_connection_agent.py`,
`_connection_agent_setup.py`), the feeding of the machine's parts
(`_connection_agent_judging.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import attrs

from acp_core._errors import ArgumentError, LocalProtocolError
from acp_core._rules._check_preview import PreviewState
from acp_core._rules._connection_rules import NO_RULES, ConnectionRules
from acp_core._rules._conversation import Conversation
from acp_core._rules._conversation_events import stray_answer
from acp_core._rules._predicates import RequestKey
from acp_core._state._pcoll import PMap
from acp_core._state._reduce_children import children_of
from acp_core._state._session_state import SessionState
from acp_core._wire._fastnew import fast_evolve
from acp_core._wire._framing import NdjsonDecoder, max_line_argument
from acp_core._wire._json import EMPTY_OBJECT, JsonObject, freeze_json, thaw_json
from acp_core._wire._jsonrpc import (
    CancelSessionNotification,
    Message,
    UpdateSessionNotification,
)
from acp_core._wire._revision import DEFAULT_REVISION, Revision, revision_argument
from acp_core._wire._updates import SessionConfigOption, StateUpdate
from acp_core._wire._updates_preview import UnknownStateUpdate
from acp_core._wire._value import frozen

from ._agent import AgentEngine, Turn, agent_step, new_agent
from ._agent_cancel import descendants
from ._connection_agent_batches import BatchReplies, gather, take_batch
from ._connection_agent_judging import FeedsTheMachine, judged_first
from ._connection_agent_v1 import V1Serving
from ._connection_values import (
    AnswerRequest,
    ConnectionStep,
    FailRequest,
    Finding,
    Implementation,
    SessionClosed,
    SessionIntent,
    error_reply,
    moved_to_rules,
    result_reply,
)
from ._idempotency import KeyLedger, valid_key
from ._intents import RequestPermission
from ._intents_preview import SendUpdate

__all__ = [
    "AgentConnection",
    "AgentSession",
    "Build",
    "OpenSession",
    "cancels_of",
    "child_refused",
    "new_agent_connection",
    "owner_of",
    "settled",
]

_DEFAULT_CAPABILITIES: Final[JsonObject] = freeze_json({"session": {}})  # type: ignore[assignment]
_NO_BYTES: Final = NdjsonDecoder()
_NO_BATCHES: Final = BatchReplies()
_STATE_UPDATES: Final = frozenset({*StateUpdate.__args__, UnknownStateUpdate})


@frozen
class AgentSession:
    """One session of the connection, agent side.

    Attributes:
        engine: the session's agent engine.
        cwd: its working directory.
        config_options: its configuration (sent in `session/new` and `session/resume`
            answers, changed by `session/set_config_option`).
        attached: active on this connection (its traffic goes on the wire).
        closing: ids of the `session/close` requests waiting for the running turn to end
            (answered together, once it has).
        parent: unused: a child lives in its top-level session's engine
            (`AgentEngine.children`); kept so that constructions naming it stay valid.
    """

    engine: AgentEngine
    cwd: str = "/"
    config_options: tuple[SessionConfigOption, ...] = ()
    attached: bool = True
    closing: tuple[int | str | None, ...] = ()

    @property
    def closing_pending(self) -> bool:
        """A close is waiting for the running turn to end."""
        return bool(self.closing)

    parent: str | None = None


def _key_map(value: Any) -> PMap[str, str]:
    keys: PMap[str, str] = PMap(value)
    return keys


@frozen
class OpenSession:
    """Host intent: put a session on the connection, detached, from a state the host kept
    (restored from a journal, or a fork it made). A state caught mid-turn gets an
    agent-initiated turn in its engine, so the host can end it (`ReportAbort`).
    `prompt_keys`: the idempotency keys the session inserted, key -> messageId (what
    `engine.keys.remembered()` gave, stored as the snapshot's `promptKeys` and read back with
    `restore_prompt_keys`): a retry of one is answered with its original message (R69)."""

    session_id: str
    state: SessionState | None = None
    cwd: str = "/"
    config_options: tuple[SessionConfigOption, ...] = ()
    prompt_keys: PMap[str, str] = attrs.field(factory=PMap, converter=_key_map)


@frozen
class AgentConnection:
    """The agent side of one connection (a value: keep the old one to go back in time).

    Attributes:
        info: who this agent is (`initialize` answer).
        capabilities: the agent capabilities it advertises (frozen JSON).
        revision: the protocol revision every session speaks.
        protocol_version: the negotiated version (None before `initialize`).
        peer_info, peer_capabilities: what the client sent in `initialize`.
        sessions: every session, by id.
        outgoing: our requests not answered yet: request id -> session id.
        incoming: requests received and not answered yet: request id -> method.
        next_request_id: the next id for a request we send.
        next_session: the counter `session/new` ids are drawn from.
        session_prefix: prefix of the session ids this connection makes.
        decoder: the NDJSON framing state (for `receive_bytes`).
        new_session_config: config options a new session starts with.
        protocols: the protocol versions the host allows (`(2,)`: v2 only; `(2, 1)`: a client
            asking for 1 is answered 1 and served v1, docs/v1.md "Serving a v1 client").
        v1: the v2 -> v1 projection's memory once the client was answered protocol 1 (None on
            v2): the connection speaks v1 on the wire (`_engines/_connection_agent_v1.py`).
        refused: the protocol version of an `initialize` this connection refused (None if
            none): until an `initialize` succeeds, every other request is refused too.
        child_owners: which top-level session's engine announced each child (and grandchild),
            the first to do so: an index `step_session` keeps, so a child's request or cancel
            is routed at the same cost with one session or 3,000 (an entry is checked against
            the engine when read; a deleted session's children leave with it).
        batch_replies: the replies to the client's batches whose requests are not all
            answered yet, held to go out as one array each (J42,
            `_engines/_connection_agent_batches.py`; v2 only).
        rules: the protocol machine's connection-wide part, the type `Protocol.rules` is
            (`_rules/_connection_rules.ConnectionRules`), fed every v2 message received and
            sent: its `exchange`, the rules over the exchange (how the agent answers what the
            client sent and what `initialize` advertised on both sides, J34-J44, J50-J64,
            J70-J80, C2; every revision; None once serving v1), its `judge`, from 2026-11 on
            the rules across the sessions of the connection (None: 2026-08; not fed once
            serving v1), and `judged`, that judge's line counter. A host intent that would
            make the agent break a MUST there is refused, the client's faults are `Finding`
            events. (`judge`, `judged`, `exchange`: deprecated reads of its parts.)
    """

    info: Implementation
    capabilities: JsonObject = _DEFAULT_CAPABILITIES
    revision: Revision = DEFAULT_REVISION
    protocol_version: int | None = None
    peer_info: JsonObject | None = None
    peer_capabilities: JsonObject = EMPTY_OBJECT
    sessions: PMap[str, AgentSession] = attrs.field(factory=PMap)
    outgoing: PMap[int | str | None, str] = attrs.field(factory=PMap)
    incoming: PMap[int | str | None, str] = attrs.field(factory=PMap)
    next_request_id: int = 0
    next_session: int = 1
    session_prefix: str = "sess_"
    decoder: NdjsonDecoder = _NO_BYTES
    new_session_config: tuple[SessionConfigOption, ...] = ()
    protocols: tuple[int, ...] = (2,)
    v1: V1Serving | None = None
    refused: int | None = None
    child_owners: PMap[str, str] = attrs.field(factory=PMap)
    batch_replies: BatchReplies = _NO_BATCHES
    rules: ConnectionRules = NO_RULES  # last: earlier fields keep their places
    # The parts `rules` holds, read by the names they had as fields (deprecated, go in 0.3).
    judge = moved_to_rules("judge")
    judged = moved_to_rules("judged")
    exchange = moved_to_rules("exchange")

    def engine(self, session_id: str) -> AgentEngine:
        """The engine of a session (KeyError if unknown)."""
        return self.sessions[session_id].engine

    def children_of(self, session_id: str) -> tuple[str, ...]:
        """Ids of the subagent children announced on a session (the Preview), in order.

        A child lives in the engine of its top-level session (`AgentEngine.children`)."""
        owner = session_id if session_id in self.sessions else owner_of(self, session_id)
        if owner is None:
            return ()
        return children_of(self.sessions[owner].engine.children, session_id)


def owner_of(conn: AgentConnection | Build, session_id: str) -> str | None:
    """The top-level session whose engine announced the child `session_id` (None: no child
    of this connection's sessions)."""
    owner = conn.child_owners.get(session_id)
    if owner is None:
        return None
    session = conn.sessions.get(owner)
    if session is None or session_id not in session.engine.children.parents:
        return None  # stale: its session was replaced (the entry goes with the next edit)
    return owner


def cancels_of(b: Build, session_id: str) -> Callable[[RequestKey], bool | None] | None:
    """Which of the agent's pending permission requests a `session/cancel` of `session_id`
    cancels, as the session's machine says now (`Conversation.cancels`, R71: a cancel while
    idle cancels nothing, a request asked before the work began is background); a child's
    machine is its top-level engine's `child_conversations`. None: no machine knows it."""
    owner = session_id if session_id in b.sessions else owner_of(b, session_id)
    if owner is None:
        return None
    engine = b.sessions[owner].engine
    if owner == session_id:
        return engine.conversation.cancels
    conversation = engine.child_conversations.get(session_id)
    return None if conversation is None else conversation.cancels


def child_refused(b: Build, request_id: int | str | None, session_id: str, method: str) -> bool:
    """A restricted request naming a child session (P14, C34, R53): answered -32602."""
    if owner_of(b, session_id) is None:
        return False
    detail = f"Invalid params: {session_id!r} is a child session; {method} is not permitted"
    b.answer(request_id, error_reply(request_id, -32602, detail))
    return True


def new_agent_connection(
    info: Implementation,
    *,
    capabilities: object = None,
    revision: Revision = DEFAULT_REVISION,
    session_prefix: str = "sess_",
    new_session_config: tuple[SessionConfigOption, ...] = (),
    max_line: int | None = None,
    protocols: tuple[int, ...] = (2,),
) -> AgentConnection:
    """A fresh agent connection (nothing received yet).

    `protocols`: the protocol versions the host allows. The default serves v2 only: a client
    asking for protocol 1 gets the protocol's refusal (`-32022`) and nothing else is served
    until it initializes with 2. `(2, 1)` answers such a client 1 and speaks v1 to it behind
    the same engines, intents and events (docs/v1.md, "Serving a v1 client").

    Raises:
        ArgumentError: `protocols` is not a non-empty tuple of 1 and 2, `max_line`
            is not a positive int, or `revision` is not a `Revision`.
    """
    revision_argument(revision)
    if not protocols or type(protocols) is not tuple or any(v not in (1, 2) for v in protocols):
        msg = f"protocols must be a non-empty tuple of 1 and 2, not {protocols!r}"
        raise ArgumentError(msg)
    caps = _DEFAULT_CAPABILITIES if capabilities is None else freeze_json(capabilities)
    decoder = (
        NdjsonDecoder()
        if max_line is None
        else NdjsonDecoder(max_line_argument(max_line, "new_agent_connection"))
    )
    return AgentConnection(
        info,
        caps,  # type: ignore[arg-type]
        revision,
        session_prefix=session_prefix,
        decoder=decoder,
        new_session_config=new_session_config,
        protocols=protocols,
        rules=ConnectionRules.start(revision),
    )


class Build(FeedsTheMachine):
    """One step's changes (local to one call); feeding them to the machine's connection-wide
    parts is `FeedsTheMachine`'s half (`_engines/_connection_agent_judging.py`)."""

    conn: AgentConnection

    def __init__(self, conn: AgentConnection) -> None:
        self.conn = conn
        self.batch_replies = conn.batch_replies
        self.sessions = conn.sessions
        self.outgoing = conn.outgoing
        self.incoming = conn.incoming
        self.child_owners = conn.child_owners
        self.changes: dict[str, Any] = {}
        self.wire: list[Any] = []  # wire dicts, and a batch's reply array (a list of them)
        self.events: list[object] = []
        self.ids: list[int | str | None] = []
        self.inbound: list[Message] = []  # what arrived this step, for the rules (in order)
        # For each `session/cancel` in `inbound` (by index): which of the agent's pending
        # requests it cancels, as its session's machine said on arrival (R71).
        self.cancels: dict[int, Callable[[RequestKey], bool | None] | None] | None = None
        self.rules = conn.rules
        # The step's input came from the client (bytes, a message): what the agent sends in
        # answer is judged as a finding, never refused (receiving never raises).
        self.heard = False
        self._sent: dict[int, Message] = {}  # outbound messages decoded, by wire index

    def send(self, message: dict[str, Any]) -> None:
        self.wire.append(message)

    def answer(self, request_id: int | str | None, message: dict[str, Any]) -> None:
        self.incoming = (
            self.incoming.delete(request_id) if request_id in self.incoming else self.incoming
        )
        self.wire.append(message)

    def event(self, event: object) -> None:
        self.events.append(event)

    def finding(self, rule: str, detail: str) -> None:
        self.events.append(Finding(rule, detail))

    def took_batch(self, start: int, requests: list[int | str]) -> None:
        """A client batch with these newly pending `requests` was handled, writing its
        answers from `wire[start]` on: they go out as one array once all are answered."""
        self.batch_replies = take_batch(self.batch_replies, self.wire, start, requests)

    def received(self, message: Message) -> None:
        """`message` arrived (decoded, one item of a batch): the rules see it in `done`. A
        `session/cancel` is read with its session's machine as it stands now, before the
        cancel (`cancels_of`), as the checker reads it."""
        rules = self.rules
        if rules.judge is not None or rules.exchange is not None:
            if type(message) is CancelSessionNotification and rules.judge is not None:
                if self.cancels is None:
                    self.cancels = {}
                self.cancels[len(self.inbound)] = cancels_of(self, message.session_id)
            self.inbound.append(message)

    def done(self) -> ConnectionStep:
        v2 = not self.speaks_v1()
        if self.batch_replies.by_request:  # answers to a held batch's requests join it
            self.batch_replies = gather(self.batch_replies, self.wire)
        if self.batch_replies is not self.conn.batch_replies:
            self.changes["batch_replies"] = self.batch_replies
        if v2 and self.rules.exchange is not None and (self.inbound or self.wire):
            self._exchange_step()
        if self.rules.judge is not None and v2 and (self.inbound or self.wire):
            self._judged()
        if not v2 and self.rules.exchange is not None:  # serving v1: no exchange rules
            self.rules = fast_evolve(self.rules, exchange=None)
        if self.rules is not self.conn.rules:
            self.changes["rules"] = self.rules
        conn = attrs.evolve(
            self.conn,
            sessions=self.sessions,
            outgoing=self.outgoing,
            incoming=self.incoming,
            child_owners=self.child_owners,
            **self.changes,
        )
        return ConnectionStep(conn, tuple(self.wire), tuple(self.events), tuple(self.ids))


# -- stepping a session's engine -------------------------------------------------------------


def _responses(outbound: tuple[dict[str, Any], ...]) -> list[int | str | None]:
    return [m.get("id") for m in outbound if "method" not in m and "id" in m]


def step_session(
    b: Build, session_id: str, intent: object, elsewhere: PreviewState | None = None
) -> None:
    """Step one session's engine; its outbound goes on the wire when the session is
    attached. Raises what the engine raises, before anything changed. `elsewhere`: the
    judge, for a host intent (an update may name the connection's other sessions)."""
    session = b.sessions[session_id]
    step = agent_step(session.engine, intent, elsewhere)
    engine, outbound = step
    b.ids.extend(step.ids)
    if type(intent) is RequestPermission:
        request_id = intent.request_id
        if session.attached:
            b.outgoing = b.outgoing.set(request_id, session_id)
    before, after = session.engine.children.parents, engine.children.parents
    if after is not before:
        _index_children(b, session_id, before, after)
    session = attrs.evolve(session, engine=engine)
    if session.attached:
        for request_id in _responses(outbound):
            if request_id in b.incoming:
                b.incoming = b.incoming.delete(request_id)
        b.wire.extend(outbound)
    b.sessions = b.sessions.set(session_id, session)
    if session.closing_pending and settled(engine):
        finish_close(b, session_id)


def _index_children(b: Build, owner: str, before: PMap[str, str], after: PMap[str, str]) -> None:
    # One step of `owner`'s engine changed its children: a walk over this session's own tree
    # (announcements are rare next to the traffic that reads the index). The first top-level
    # session to announce a child keeps it.
    owners = b.child_owners
    for child in before:
        if child not in after and owners.get(child) == owner:
            owners = owners.delete(child)
    for child in after:
        if child not in before and owner_of(b, child) is None:
            owners = owners.set(child, owner)
    b.child_owners = owners


def forget_children(b: Build, session_id: str) -> None:
    """`session_id` leaves the connection (`session/delete` succeeded): the index entries of
    the children its engine announced go with it."""
    session = b.sessions.get(session_id)
    if session is None:
        return
    owners = b.child_owners
    for child in session.engine.children.parents:
        if owners.get(child) == session_id:
            owners = owners.delete(child)
    b.child_owners = owners


def settled(engine: AgentEngine) -> bool:
    """A close may be answered: no foreground work, and no child still winding down work
    that was cancelled (R76: final updates and idle `cancelled` come before the response)."""
    return engine.turn is None and not engine.cancelled_children


def fresh_id(b: Build) -> int:
    n: int = b.changes.get("next_request_id", b.conn.next_request_id)
    while n in b.outgoing:
        n += 1
    b.changes["next_request_id"] = n + 1
    b.ids.append(n)
    return n


def session_intent(b: Build, intent: SessionIntent) -> None:
    session = b.sessions.get(intent.session_id)
    if session is None:
        raise LocalProtocolError("E3", f"no session {intent.session_id!r} on this connection")
    inner = intent.intent
    if type(inner) is RequestPermission:
        if not session.attached:
            raise LocalProtocolError(
                "E3", f"session {intent.session_id!r} is not active on this connection"
            )
        if inner.request_id is None:
            inner = attrs.evolve(inner, request_id=fresh_id(b))
        elif inner.request_id in b.outgoing:
            raise LocalProtocolError("E2", f"request id {inner.request_id!r} is already pending")
    elif type(inner) is SendUpdate and inner.session_id is not None:
        message = UpdateSessionNotification(inner.session_id, inner.update)
        unknown_envelope(b, message)
        if type(inner.update) in _STATE_UPDATES and session.attached:  # (else never sent)
            judged_first(b, message)
    # The judge knows the sessions the client knows beyond this session's engine (another
    # session the connection set up, a child another session announced): an update may name
    # them (R47, R56, R74 are the judge's `client_knows`, asked by `Build.name_known`).
    step_session(b, intent.session_id, inner, b.conn.rules.judge)


def unknown_envelope(b: Build, message: UpdateSessionNotification) -> None:
    """Refuse traffic on a session this connection never set up nor announced, with the
    checker's rule for it (J3, `OpenSessions`): on a connection, which began with
    `initialize`, the envelope is J3's, and J3 wins over R47 (one finding a fault). An engine
    alone, which cannot know that, refuses it R47 (announce the child first)."""
    rules = b.rules.exchange
    if rules is None:
        return
    _, found = rules.opened.follow("agent", message)
    if found is not None:  # (an agent's update: J3 is the only finding it can have there)
        hint = "announce it first with SendUpdate(SubagentUpdate(...)) on its parent"
        raise LocalProtocolError(found[0], f"{found[1]}: {hint}")


def open_session(b: Build, intent: OpenSession) -> None:
    if type(intent.session_id) is not str:
        msg = f"OpenSession.session_id must be a string, not {type(intent.session_id).__name__}"
        raise LocalProtocolError("E0", msg)
    if intent.state is not None and type(intent.state) is not SessionState:
        msg = f"OpenSession.state must be a SessionState, not {type(intent.state).__name__}"
        raise LocalProtocolError("E0", msg)
    if intent.session_id in b.sessions:
        raise LocalProtocolError("E3", f"session {intent.session_id!r} is already open")
    engine = new_agent(intent.session_id, revision=b.conn.revision)
    if intent.state is not None:
        if intent.state.session_id != intent.session_id:
            raise LocalProtocolError("E3", "the state belongs to another session")
        foreground = intent.state.foreground.state
        engine = attrs.evolve(
            engine,
            session=intent.state,
            conversation=Conversation.start(b.conn.revision, foreground),
        )
        if foreground != "idle":
            engine = attrs.evolve(engine, turn=Turn(None, False, None))
    if not all(valid_key(k) and type(m) is str for k, m in intent.prompt_keys.items()):
        raise LocalProtocolError("E0", "prompt_keys maps idempotency keys to message ids")
    if intent.prompt_keys:
        # The session's machine knows them too: a retry answered from the ledger inserts
        # nothing and starts no work (R67), though this connection never saw the insertion.
        known = PMap({key: (mid, None) for key, mid in intent.prompt_keys.items()})
        conversation = attrs.evolve(engine.conversation, keys=known)
        ledger = KeyLedger.remembering(intent.prompt_keys)
        engine = attrs.evolve(engine, keys=ledger, conversation=conversation)
    session = AgentSession(engine, intent.cwd, intent.config_options, attached=False)
    b.sessions = b.sessions.set(intent.session_id, session)


def host_answer(b: Build, intent: AnswerRequest | FailRequest) -> None:
    method = b.incoming.get(intent.request_id)
    if method is None:  # on the wire, an answer nothing asked for: the checker's J1
        raise LocalProtocolError(*stray_answer("agent", intent.request_id))
    if isinstance(intent, AnswerRequest):
        b.answer(intent.request_id, result_reply(intent.request_id, thaw_json(intent.result)))
        if method.startswith("session/delete:"):
            session_id = method.split(":", 1)[1]
            if session_id in b.sessions:
                engine = b.sessions[session_id].engine
                forget_children(b, session_id)
                b.sessions = b.sessions.delete(session_id)
                b.event(SessionClosed(session_id, descendants(engine.children, session_id)))
    else:
        b.answer(
            intent.request_id,
            error_reply(intent.request_id, intent.code, intent.message, intent.data),
        )


def finish_close(b: Build, session_id: str) -> None:
    session = b.sessions[session_id]
    for request_id in session.closing:
        b.answer(request_id, result_reply(request_id, {}))
    b.sessions = b.sessions.set(session_id, attrs.evolve(session, attached=False, closing=()))
    # Answers to its withdrawn permission requests still route to its (detached) engine; its
    # children live in that engine, so nothing of theirs goes out either (P13).
    b.event(SessionClosed(session_id, descendants(session.engine.children, session_id)))
