"""The client connection's values, and the one step's builder that changes them.

Owns: `ClientConnection`, `ClientSession`, `PendingRequest`, `new_client_connection`, and
`Build` (one step's changes, the ids it generated) with `step_session` (a session's engine
stepped, its outbound sent, the host events it implies from `_connection_client_events`);
the host intents themselves are values of `_engines/_connection_client_intents.py`
(re-exported here). `Build.done` feeds what the step received and sent to the protocol
machine's connection-wide part (`ClientConnection.rules`: the exchange rules at every v2
revision, the rules across sessions from 2026-11 on): the agent's faults become `Finding`
events with the rule `check` reports, and a MUST this client would break is refused before
anything changes. That half of the builder is `FeedsTheMachine` in
`_engines/_connection_client_judging.py` (on `_connection_judging.py`); this module gives it
the session machine's word on what a cancel cancels (`Build.cancels_of`, R71).
The connection keeps no replay window of its own: whether a session's updates are history is
the protocol machine's answer (`history_open`: the judge's window where it runs, else the
session machine's), asked by `ClientConnection.replaying` between steps and `Build.replaying`
within one; a session record keeps only how its last window ended (`replay_end`).
Must not know: what answers and agent messages do (`_engines/_connection_client.py`), I/O, framing.

Over the ~600-line guide (about 640 lines) on purpose: one job, the client connection's value
and the one step that changes it (`Build` from start to `done`). The owner indexes
(`permission_owners`, `child_owners`) are kept by `step_session` in the same step. Cut out:
the feeding of the machine's parts (`_connection_client_judging.py`, a base class of `Build`,
which is how a piece of the builder leaves without an import cycle) and the host intents'
wire (`_connection_client_sending.py`: what each intent sends, on a `Build` it is given).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Any, Final

import attrs

from acp_core._errors import ArgumentError, LocalProtocolError
from acp_core._rules._catalogue import RULES
from acp_core._rules._check_preview import PreviewState
from acp_core._rules._check_preview_records import window_request
from acp_core._rules._check_schema import d1_findings
from acp_core._rules._connection_rules import NO_RULES, ConnectionRules
from acp_core._rules._conversation import Conversation
from acp_core._rules._conversation import observe as observe_conversation
from acp_core._rules._predicates import RequestKey, request_key
from acp_core._state._pcoll import PMap
from acp_core._state._session_state import SessionState
from acp_core._v1._v1_state import V1State
from acp_core._wire._codec import decode_message, decode_message_diagnosed
from acp_core._wire._codec_values import is_request_id
from acp_core._wire._fastnew import fast_evolve
from acp_core._wire._framing import NdjsonDecoder, max_line_argument
from acp_core._wire._json import (
    EMPTY_OBJECT,
    UNSET,
    JsonObject,
    Unset,
    freeze_json,
)
from acp_core._wire._jsonrpc import (
    CancelRequestNotification,
    Message,
    Request,
    RequestPermissionRequest,
    UpdateSessionNotification,
)
from acp_core._wire._revision import DEFAULT_REVISION, Revision, revision_argument
from acp_core._wire._updates import SessionConfigOption
from acp_core._wire._updates_preview import SubagentUpdate
from acp_core._wire._value import frozen

from ._client import ClientEngine, client_step, machine_follows
from ._connection_client_events import engine_events
from ._connection_client_intents import (
    CancelRequest,
    CloseSession,
    Initialize,
    NewSession,
    ResumeSession,
    SendNotification,
    SendRequest,
    SetConfigOption,
)
from ._connection_client_judging import FeedsTheMachine, session_of
from ._connection_values import (
    ConnectionStep,
    Finding,
    Implementation,
    moved_to_rules,
)
from ._intents import AnswerPermission, Received

__all__ = [
    "CancelRequest",
    "ClientConnection",
    "ClientSession",
    "CloseSession",
    "Initialize",
    "NewSession",
    "PendingRequest",
    "ResumeSession",
    "SendNotification",
    "SendRequest",
    "SetConfigOption",
    "new_client_connection",
]

_NO_BYTES: Final = NdjsonDecoder()
_NO_CAPABILITIES: Final = EMPTY_OBJECT
#: `ClientConnection.replay`'s answer while a session's history window is open.
REPLAYING: Final = "replaying"
_MOVED: Final = (
    "ClientSession.{0} moved: use ClientConnection.{0}(session_id), the protocol machine's "
    "answer (the record keeps no replay window; the property goes in 0.3)"
)


@frozen
class ClientSession:
    """One session of the connection, client side.

    Attributes:
        engine: the session's client engine (its `view` is what a UI shows).
        cwd: its working directory (sent again on resume).
        config_options: the latest complete configuration the agent answered with.
        replay_end: how the last history window of this record ended: `none` (none ended
            yet), `complete` (the revision's end marker or the resume's answer), `truncated`
            (the resume failed first). An outcome for the host, written when the window
            ends and never read to decide anything: whether a window is open is the
            protocol machine's answer alone (`ClientConnection.replaying`), not stored here.
        open_prompts: the ids of the prompts the host sent on this connection whose end
            (`PromptEnded`) was not reported yet, in sending order.
    """

    engine: ClientEngine
    cwd: str = "/"
    config_options: tuple[SessionConfigOption, ...] = ()
    replay_end: str = "none"
    open_prompts: tuple[int | str | None, ...] = ()

    @property
    def replay(self) -> str:
        """Deprecated (goes in 0.3): use `ClientConnection.replay(session_id)`."""
        warnings.warn(_MOVED.format("replay"), DeprecationWarning, stacklevel=2)
        return REPLAYING if self._replaying() else self.replay_end

    @property
    def replaying(self) -> bool:
        """Deprecated (goes in 0.3): use `ClientConnection.replaying(session_id)`."""
        warnings.warn(_MOVED.format("replaying"), DeprecationWarning, stacklevel=2)
        return self._replaying()

    def _replaying(self) -> bool:
        # What a record alone can tell, for the deprecated reads: the session machine's
        # window (to the resume's answer), cut short by an end marker the record saw.
        return self.replay_end == "none" and self.engine.conversation.replaying


@frozen
class PendingRequest:
    """A request this client sent and the agent has not answered."""

    method: str
    session_id: str | None = None
    cwd: str | None = None
    created: bool = False  # the session record was made for this request (resume)
    message_id: str | None = None  # v1 prompt: the user message the normalizer made for it


@frozen
class ClientConnection:
    """The client side of one connection (a value).

    Attributes:
        info, capabilities: who this client is and what it advertises.
        revision: the protocol revision every session speaks.
        protocols: the protocol versions the host allows, preferred first (`(2,)`: v2 only;
            `(2, 1)`: v1 too, when the agent answers `initialize` with 1).
        protocol_version, agent_info, agent_capabilities: from the `initialize` answer (a
            version not in `protocols` is recorded too: then no session can be opened, E5).
        v1: the v1 normalizer's state once the agent answered protocol 1 (None on v2): the
            connection speaks v1 on the wire (`_engines/_connection_client_v1.py`).
        rules: the protocol machine's connection-wide part, the type `Protocol.rules` is
            (`_rules/_connection_rules.ConnectionRules`), fed every v2 message sent and
            received: its `exchange`, the rules over the exchange (how the agent answers what
            this client sent and what `initialize` advertised, J34-J44, J50-J64, J70-J80, C2;
            every revision; None once the agent speaks v1), its `judge`, from 2026-11 on the
            rules across the sessions of the connection (children, replay windows, keys,
            item cancels; None: 2026-08), and `judged`, that judge's line counter. What the
            agent breaks there is a `Finding` event. (`judge`, `judged`, `exchange`:
            deprecated reads of its parts.)
        sessions: every session active on this connection, by id.
        outgoing: our requests not answered yet, by id.
        incoming: agent requests handed to the host and not answered yet.
        orphans: updates for a session not known yet, held while a `session/new` is in
            flight (they may race its answer, Q12).
        closed: the engines of the sessions closed last (at most `CLOSED_SESSIONS_KEPT`,
            newest last): an update that still names one is judged by its machine (R24).
        permission_owners: which session's engine holds each pending permission request of
            the agent (an index `step_session` keeps, so finding one costs the same with one
            session or 3,000; an entry a closed or replaced session left is checked and
            dropped when read).
        child_owners: which top-level session's engine holds each announced child (and
            grandchild), the first to announce it: an index `step_session` keeps, so routing a
            child's traffic costs the same with one session or 3,000 (a stale entry is
            dropped when read; a closed session's children leave with it).
        next_request_id: the next id for a request we send (unique on the connection).
        decoder: the NDJSON framing state.
    """

    info: Implementation
    capabilities: JsonObject = _NO_CAPABILITIES
    revision: Revision = DEFAULT_REVISION
    protocol_version: int | None = None
    agent_info: JsonObject | None = None
    agent_capabilities: JsonObject | None = None
    sessions: PMap[str, ClientSession] = attrs.field(factory=PMap)
    outgoing: PMap[int | str | None, PendingRequest] = attrs.field(factory=PMap)
    incoming: PMap[int | str | None, str] = attrs.field(factory=PMap)
    orphans: PMap[str, tuple[Message, ...]] = attrs.field(factory=PMap)
    permission_owners: PMap[int | str | None, str] = attrs.field(factory=PMap)
    next_request_id: int = 0
    decoder: NdjsonDecoder = _NO_BYTES
    protocols: tuple[int, ...] = (2,)
    v1: V1State | None = None
    closed: tuple[tuple[str, ClientEngine], ...] = ()
    child_owners: PMap[str, str] = attrs.field(factory=PMap)
    rules: ConnectionRules = NO_RULES  # last: earlier fields keep their places
    # The parts `rules` holds, read by the names they had as fields (deprecated, go in 0.3).
    judge = moved_to_rules("judge")
    judged = moved_to_rules("judged")
    exchange = moved_to_rules("exchange")

    def engine(self, session_id: str) -> ClientEngine:
        """The engine of a session (KeyError if unknown)."""
        return self.sessions[session_id].engine

    def view(self, session_id: str) -> SessionState:
        """What a UI shows for a session (`engine.view`)."""
        return self.sessions[session_id].engine.view

    def replaying(self, session_id: str) -> bool:
        """Updates received now for the session are history: the window a resume with
        `replayFrom` opens, until the revision's end marker (the Preview's `replay_complete`)
        or the resume's answer. The protocol machine's answer (`history_open`), never a
        copy. A child announced inside a replay has its own window (the judge's, from the
        Preview on); an id the connection knows nothing of is False."""
        return history_open(self.rules.judge, self.v1, session_id, self.sessions.get(session_id))

    def replay(self, session_id: str) -> str:
        """Where the session is in a resume's replay: `replaying` while `replaying` says so,
        else how its last window ended (`ClientSession.replay_end`: `none`, `complete`,
        `truncated`). KeyError for a session this connection does not have."""
        session = self.sessions[session_id]
        return REPLAYING if self.replaying(session_id) else session.replay_end


def history_open(
    judge: PreviewState | None, v1: V1State | None, session_id: str, session: ClientSession | None
) -> bool:
    """Whether `session_id`'s history window is open, as the protocol machine stores it (the
    one home; the connection keeps no copy). Where the judge runs (a v2 wire from 2026-11 on)
    its window is the answer: it opens with the resume's `replayFrom` and ends with the end
    marker or the answer (`PreviewState.replaying`, which R57, R58, R63 and C36 read). Where
    it does not (2026-08, a v1 agent) no end marker exists, so the session machine's window,
    open until the resume's answer (`Conversation.replaying`, R38), is the same window."""
    if judge is not None and v1 is None:
        return session_id in judge.replaying
    return session is not None and session.engine.conversation.replaying


def new_client_connection(
    info: Implementation,
    *,
    capabilities: object = None,
    revision: Revision = DEFAULT_REVISION,
    max_line: int | None = None,
    protocols: tuple[int, ...] = (2,),
) -> ClientConnection:
    """A fresh client connection (send `Initialize` first).

    `protocols`: the protocol versions the host allows, preferred first. `initialize` offers
    the first; `(2, 1)` also accepts an agent that answers protocol 1, and the connection then
    speaks v1 on the wire behind the same intents, events and v2 views (docs/v1.md, "Driving
    a v1 agent"). The default allows v2 only: an agent answering 1 gets an `E5` finding and
    every session intent is refused with `LocalProtocolError` (E5).

    Raises:
        ArgumentError: `protocols` is empty or names a version other than 1 and 2, `max_line`
            is not a positive int, or `revision` is not a `Revision`.
    """
    revision_argument(revision)
    if not protocols or any(v not in (1, 2) for v in protocols) or type(protocols) is not tuple:
        msg = f"protocols must be a non-empty tuple of 1 and 2, not {protocols!r}"
        raise ArgumentError(msg)
    caps = _NO_CAPABILITIES if capabilities is None else freeze_json(capabilities)
    decoder = (
        _NO_BYTES
        if max_line is None
        else NdjsonDecoder(max_line_argument(max_line, "new_client_connection"))
    )
    return ClientConnection(
        info,
        caps,  # type: ignore[arg-type]
        revision,
        decoder=decoder,
        protocols=protocols,
        rules=ConnectionRules.start(revision),
    )


class Build(FeedsTheMachine):
    """One step's changes (local to one call); feeding them to the machine's connection-wide
    parts is `FeedsTheMachine`'s half (`_engines/_connection_client_judging.py`)."""

    conn: ClientConnection
    v1: V1State | None

    def __init__(self, conn: ClientConnection) -> None:
        self.conn = conn
        self.sessions = conn.sessions
        self.outgoing = conn.outgoing
        self.incoming = conn.incoming
        self.orphans = conn.orphans
        self.permission_owners = conn.permission_owners
        self.child_owners = conn.child_owners
        self.closed = conn.closed
        self.next_request_id = conn.next_request_id
        self.v1 = conn.v1
        self.rules = conn.rules
        self.changes: dict[str, Any] = {}
        self.wire: list[dict[str, Any]] = []
        self.events: list[object] = []
        self.ids: list[int | str | None] = []
        self.inbound: list[Message] = []  # what arrived this step, for the judge (in order)
        # Of `inbound`, the envelopes naming a session nobody set up that this step already
        # reported (`route_child`): the judge takes them as judged, one finding a fault.
        self.judged_envelopes: list[Message] = []
        # Sessions whose history window a message of this step ended (its end marker, its
        # resume's answer): the judge sees that message only in `done`, and a batch may
        # carry more after it. Local to the step, so the machine stays the one home.
        self.history_ended: set[str] | None = None

    def send(self, message: dict[str, Any]) -> None:
        self.wire.append(message)

    def send_by_hand(self, message: dict[str, Any]) -> None:
        """Send a message the host wrote itself (`SendRequest`, `SendNotification`), once
        the protocol machine has judged it: the machine of the session it names (else one
        that knows no history, as a recording that starts late) observes it as the
        checker would, and a MUST of the client's (J2: a known method keeps its side and
        its form, request or notification; D1: what lenient decoding would drop, asked of
        `d1_findings` first) is refused, nothing changed. What the message does to the
        session is the host's own business: the machine is not kept."""
        if self.v1 is None:
            read = decode_message_diagnosed(message, revision=self.conn.revision)
            decoded = read.value
            for rule_id, why in d1_findings(side="client", diagnostics=read.diagnostics):
                # what lenient decoding would drop (a malformed optional field): D1's
                raise LocalProtocolError(rule_id, f"{why} (the rule: {RULES[rule_id].summary})")
            named = session_of(decoded)
            session = None if named is None else self.sessions.get(named)
            machine = (
                Conversation.mid_session(self.conn.revision)
                if session is None
                else session.engine.conversation
            )
            for found in observe_conversation(machine, "client", decoded)[1]:
                rule = RULES[found.rule]
                if rule.side != "agent" and rule.mandatory and not found.warning:
                    raise LocalProtocolError(
                        found.rule, f"{found.message} (the rule: {rule.summary})"
                    )
        self.send(message)

    def replaying(self, session_id: str) -> bool:
        """`ClientConnection.replaying` at this point of the step."""
        ended = self.history_ended
        if ended is not None and session_id in ended:
            return False
        judge = self.conn.rules.judge
        return history_open(judge, self.v1, session_id, self.sessions.get(session_id))

    def answer_ends_history(self, session_id: str, request_id: int | str | None) -> bool:
        """The answer to our `request_id` ends the session's open history window: the
        judge's window ends only with the answer to the resume replaying it (an earlier
        resume's leaves it open); the session machine's with any resume's (`window_over`)."""
        if not self.replaying(session_id):
            return False
        judge = self.conn.rules.judge
        if judge is None or self.v1 is not None:
            return True
        return window_request(judge.replaying, session_id) == request_key(request_id)

    def end_history(self, session_id: str) -> None:
        """A message of this step ended the session's history window (the judge will see it
        in `done`; until then `replaying` says so)."""
        if self.history_ended is None:
            self.history_ended = set()
        self.history_ended.add(session_id)

    def event(self, event: object) -> None:
        self.events.append(event)

    def finding(self, rule: str, detail: str) -> None:
        self.events.append(Finding(rule, detail))

    def request_id(self, given: int | str | None) -> int | str | None:
        """The id for a new request: the caller's (if free) or the next free number.

        Raises:
            LocalProtocolError: E0, the caller's id is no request id (the codec's rule);
                E2, it is pending.
        """
        if given is not None:
            if not is_request_id(given):
                msg = f"request_id must be a string or an int64, not {given!r:.40}"
                raise LocalProtocolError("E0", msg)
            if given in self.outgoing:
                raise LocalProtocolError("E2", f"request id {given!r} is already pending")
            return given
        n = self.next_request_id
        while n in self.outgoing:
            n += 1
        self.next_request_id = n + 1
        return n

    def request(
        self,
        given: int | str | None,
        method: str,
        params: object,
        pending: PendingRequest,
        *,
        by_hand: bool = False,
    ) -> int | str | None:
        request_id = self.request_id(given)
        if given is None:
            self.ids.append(request_id)
        message: dict[str, Any] = {"jsonrpc": "2.0", "id": request_id, "method": method}
        if params is not UNSET:
            message["params"] = params
        if by_hand:
            self.send_by_hand(message)
        else:
            self.send(message)
        self.outgoing = self.outgoing.set(request_id, pending)
        return request_id

    def session_request(
        self, given: int | str | None, method: str, params: object, pending: PendingRequest
    ) -> None:
        """Send a request of one session the connection writes itself (`session/close`,
        `session/set_config_option`) and let that session's machine follow it, so it judges
        the answer (R24, R41) as the checker does; a MUST of our own it breaks raises."""
        request_id = self.request(given, method, params, pending)
        session_id = pending.session_id
        session = None if session_id is None else self.sessions.get(session_id)
        if session is not None:
            request = Request(request_id, method, freeze_json(params))
            engine = machine_follows(session.engine, "client", request)
            self.sessions = self.sessions.set(session_id, fast_evolve(session, engine=engine))  # type: ignore[arg-type]

    def closed_session(self, session_id: str, engine: ClientEngine) -> None:
        """`session_id` is gone (its close answered): keep its engine among the last closed,
        so a late update is still judged (R24); the oldest beyond the bound is forgotten."""
        kept = tuple(item for item in self.closed if item[0] != session_id)
        self.closed = (*kept, (session_id, engine))[-CLOSED_SESSIONS_KEPT:]
        owners = self.child_owners
        for child in engine.children.parents:  # its children leave with it
            if owners.get(child) == session_id:
                owners = owners.delete(child)
        self.child_owners = owners

    def machine_findings(self, before: ClientEngine, after: ClientEngine) -> None:
        """The violations `after`'s machine added, as `Finding` events (for a session the
        connection no longer keeps, whose engine no host can read)."""
        added = (
            after.violations_dropped
            + len(after.violations)
            - before.violations_dropped
            - len(before.violations)
        )
        for v in after.violations[len(after.violations) - min(added, len(after.violations)) :]:
            if not v.warning:
                self.finding(v.rule, v.message)

    def cancels_of(self, session_id: str) -> Callable[[RequestKey], bool | None] | None:
        """What a `session/cancel` of `session_id` cancels, as its session's machine says
        before the cancel (`Conversation.cancels`, R71). None: no session here."""
        before = self.conn.sessions.get(session_id)
        return None if before is None else before.engine.conversation.cancels

    def done(self) -> ConnectionStep:
        v2 = self.v1 is None
        sent = self._sent() if v2 and self.wire and self.rules.exchange is not None else None
        if self.rules.judge is not None and v2 and (self.inbound or self.wire):
            if sent is None:
                sent = [decode_message(w, revision=self.conn.revision) for w in self.wire]  # type: ignore[misc]
            self._judged(sent)
        if self.v1 is not self.conn.v1:
            self.changes["v1"] = self.v1
        if self.rules is not self.conn.rules:  # once the agent speaks v1, no exchange rules
            self.changes["rules"] = self.rules if v2 else fast_evolve(self.rules, exchange=None)
        conn = fast_evolve(  # one generated rebuild per received message (no converters)
            self.conn,
            sessions=self.sessions,
            outgoing=self.outgoing,
            incoming=self.incoming,
            orphans=self.orphans,
            permission_owners=self.permission_owners,
            child_owners=self.child_owners,
            closed=self.closed,
            next_request_id=self.next_request_id,
            **self.changes,
        )
        return ConnectionStep(conn, tuple(self.wire), tuple(self.events), tuple(self.ids))


#: The session requests whose answers the session's machine judges (`Build.session_request`).
#: How many closed sessions a client connection still judges late updates for (R24).
CLOSED_SESSIONS_KEPT: Final = 16


def step_session(
    b: Build, session_id: str, intent: object, prompt: int | str | None | Unset = UNSET
) -> None:
    """Step one session's engine, send what it returns, and report the host events it
    implies (raises what the engine raises, before anything changed). `prompt`: the id of a
    prompt the host sends with this step (its end is reported as `PromptEnded`)."""
    session = b.sessions[session_id]
    step = client_step(session.engine, intent)
    engine = step.state
    open_prompts = session.open_prompts
    if prompt is not UNSET:
        open_prompts = (*open_prompts, prompt)
    events, open_prompts = engine_events(session_id, session.engine, engine, intent, open_prompts)
    if engine.pending is not session.engine.pending:
        b.permission_owners = _index_permissions(
            b.permission_owners, session_id, session.engine.pending, engine.pending, intent
        )
    before, after = session.engine.children.parents, engine.children.parents
    if after is not before:
        _index_children(b, session_id, before, after, intent)
    b.sessions = b.sessions.set(
        session_id, fast_evolve(session, engine=engine, open_prompts=open_prompts)
    )
    b.wire.extend(step.outbound)
    b.ids.extend(step.ids)
    b.events.extend(events)


def _index_permissions(
    owners: PMap[int | str | None, str],
    session_id: str,
    before: PMap[int | str | None, RequestPermissionRequest],
    after: PMap[int | str | None, RequestPermissionRequest],
    intent: object,
) -> PMap[int | str | None, str]:
    """`permission_owners` after one step of `session_id` changed its pending requests: one
    request asked, answered or withdrawn is one index edit; anything else (a cancel that
    answers all of them `cancelled`) is a walk over this session's own requests only."""
    grew, shrank = len(after) == len(before) + 1, len(after) == len(before) - 1
    message = intent.message if type(intent) is Received else None
    if grew and type(message) is RequestPermissionRequest and message.id in after:
        return owners.set(message.id, session_id)
    gone: int | str | None | Unset = UNSET
    if type(intent) is AnswerPermission:
        gone = intent.request_id
    elif type(message) is CancelRequestNotification:
        gone = message.request_id
    if shrank and not isinstance(gone, Unset) and gone in before and gone not in after:
        return owners.delete(gone) if owners.get(gone) == session_id else owners
    edit = owners.mutate()
    for request_id in before:
        if request_id not in after and edit.get(request_id) == session_id:
            del edit[request_id]
    for request_id in after:
        if request_id not in before:
            edit[request_id] = session_id
    return edit.finish()


def _index_children(
    b: Build, session_id: str, before: PMap[str, str], after: PMap[str, str], intent: object
) -> None:
    """`child_owners` after one step of `session_id` changed its tree's children: one child
    announced is one index edit; anything else is a walk over this session's own tree."""
    message = intent.message if type(intent) is Received else None
    update = message.update if type(message) is UpdateSessionNotification else None
    child = update.session_id if type(update) is SubagentUpdate else None
    grew = len(after) == len(before) + 1
    if child is not None and grew and child in after and child not in before:
        _claim(b, child, session_id)  # the one child the announcement added
        return
    for child in before:
        if child not in after and b.child_owners.get(child) == session_id:
            b.child_owners = b.child_owners.delete(child)
    for child in after:
        if child not in before:
            _claim(b, child, session_id)


def _claim(b: Build, child: str, session_id: str) -> None:
    # The first top-level session to announce a child owns it (P5: a second parent is R48).
    if child_owner(b, child) is None:
        b.child_owners = b.child_owners.set(child, session_id)


def child_owner(b: Build, child: str) -> str | None:
    """The top-level session whose engine holds the announced child `child` (None: no
    session of this connection announced it); an entry a closed or replaced session left
    is dropped."""
    session_id = b.child_owners.get(child)
    if session_id is None:
        return None
    session = b.sessions.get(session_id)
    if session is not None and child in session.engine.children.parents:
        return session_id
    b.child_owners = b.child_owners.delete(child)
    return None


def permission_owner(b: Build, request_id: int | str | None) -> str | None:
    """The session whose engine holds the agent's pending permission request `request_id`
    (None: none does); an index entry a closed or replaced session left is dropped."""
    session_id: str | None = b.permission_owners.get(request_id)
    if session_id is None:
        return None
    session = b.sessions.get(session_id)
    if session is not None and request_id in session.engine.pending:
        return session_id
    b.permission_owners = b.permission_owners.delete(request_id)
    return None


def permissions_held(b: Build, limit: int) -> int:
    """How many of the agent's permission requests the sessions hold (exact below `limit`:
    at the limit, stale index entries are dropped before the count is trusted)."""
    if len(b.permission_owners) >= limit:
        for request_id in list(b.permission_owners.keys()):
            permission_owner(b, request_id)
    return len(b.permission_owners)
