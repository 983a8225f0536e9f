"""The protocol machine of one connection: every rule, in order, over every message, as a value.

Owns: `Protocol` (what the machine has read, frozen), `observe` (one wire message: the next
value and what it broke), `finish` (what only the end shows), and the order the rules run in:
`ProtocolDraft`, the machine's per-call draft, which the trace checker (`_rules/_check.py`)
also drives for a whole recording at once.
Must not know: trace entries and their shape (`_rules/_check.py` reads those), files, JSON text
or exit codes, which side it runs on, what any one rule says (each component decides its own:
`_check_message.py`, `_check_preview*.py`, `_check_jsonrpc.py`, `_check_answers.py`,
`_check_capabilities.py`, `_check_initialize.py`, `_conversation.py`).

Theory of operation. A connection is a sequence of wire lines, each sent by the client or the
agent; a line is one JSON-RPC message or a batch. `observe(protocol, sender, message, at=i)`
judges line `i`:
1. framing (`Framing.see`, J34-J44) reads the raw JSON: a reply to what asked for none is named
   there and judged no further;
2. decoding with the library's codec (`decode_message_diagnosed`); what does not decode is a
   violation (`D1`, or the rule one field explains, `_check_undecodable.py`), never an
   exception; at most `MAX_DIAGNOSTICS` schema findings a line (`_check_schema.py`, D1's one
   home); an agent's malformed `_meta` is J45's;
3. per decoded message (each item of a batch): the single-message rules (`MessageRules`), the
   sessions the agent may name (J3, `OpenSessions`), what `initialize` advertised (J70-J80),
   the handshake (J5-J10, J31-J33), the answers to session management (J50-J64), from 2026-11
   on the rules across the sessions of the connection (`PreviewState`: children, replay
   windows, keys, item cancels), and last the session's lifecycle (`Conversation`, one per
   session, started mid-session: a recording may start late; a session it saw created by
   `session/new` or `session/fork` starts idle, as an engine's), to which answers are routed by
   the request they answer (J2: ids are unique per connection, J37: an echoed id keeps its
   type).
`finish(protocol)` adds what only the end shows (C15 never answered, R7 as a warning while
work still runs, J35 never answered). The machine takes no side: both ends of a connection
feed it the same lines and it says the same.

A `Protocol` is frozen and every field is frozen or persistent: `observe` returns a new value
and leaves its argument as it was, so a protocol forks for free (`explore` extends many
recordings from one prefix). Inside one call a `ProtocolDraft` rebinds its own fields (the
components that change by rebinding are copied in O(1)) and only its frozen result leaves.
Its connection-wide part (`Protocol.rules`: the exchange rules and the rules across sessions
with their line counter) is a `_rules/_connection_rules.ConnectionRules`, the very type a live
connection holds as its `rules` and feeds per message through that value's functions; the
draft reads that value's parts and writes a new one, feeding the same components in the
order above (tests/test_protocol_connection.py holds the two equal for the same traffic).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

import attrs

from acp_core._errors import ArgumentError, DecodeError, Diagnostic
from acp_core._state._pcoll import PMap
from acp_core._wire import _jsonrpc as j
from acp_core._wire._codec import decode_message_diagnosed
from acp_core._wire._revision import DEFAULT_REVISION, Revision
from acp_core._wire._value import frozen

from ._catalogue import RULES
from ._check_answers import Answers
from ._check_capabilities import Capabilities
from ._check_exchange import ExchangeRules
from ._check_initialize import handshake_findings, initialize_findings
from ._check_jsonrpc import Framing, meta_finding
from ._check_message import Finding, MessageRules, Seen, error_finding
from ._check_preview import PreviewState, finish_connection, observe_connection
from ._check_schema import d1_findings
from ._check_sessions import OpenSessions
from ._check_undecodable import explain_undecodable
from ._connection_rules import ConnectionRules
from ._conversation import Conversation, Sender
from ._conversation import finish as finish_conversation
from ._conversation import observe as observe_conversation
from ._conversation_events import j2_breach
from ._predicates import RequestKey, id_twin, request_key, shown
from ._violation import Violation, printable

__all__ = ["SIDES", "Protocol", "ProtocolDraft", "echoed", "finish", "line_findings", "observe"]

CLIENT: Final = "client"
AGENT: Final = "agent"
#: The two senders of a connection.
SIDES: Final = (CLIENT, AGENT)
_PEER: Final[Mapping[str, str]] = {CLIENT: AGENT, AGENT: CLIENT}
_SEEN_BY: Final = (j.UpdateSessionNotification, j.RequestPermissionRequest)
_REQUESTS: Final = (
    j.Request,
    j.PromptRequest,
    j.RequestPermissionRequest,
    j.CancelToolCallRequest,
    j.CancelTerminalRequest,
)
_RECENT: Final = 64  # answered requests remembered for routing a second answer
_NO_SEEN: Final[tuple[PMap[str, str], PMap[str, bool]]] = Seen().memory()
Route = tuple[str, RequestKey]


@frozen(repr=False)
class Protocol:
    """What the protocol machine has read of one connection, as a value (`observe` returns
    the next one; this one never changes). Every field is frozen or persistent, so a fork
    shares it and a step replaces only what it changes. Make one with `Protocol.start`:
    the fields past `revision` are the rule components' own state, whose types are private
    and may change (read them for what they are, never build them).

    Attributes:
        revision: the revision it judges by.
        rules: the connection-wide part (`_rules/_connection_rules.ConnectionRules`, the very
            type a live connection holds as its `rules`): the rules over the exchange
            (`rules.exchange`: JSON-RPC framing J34-J44, the answers to session management
            J50-J64, what `initialize` advertised J70-J80, the sessions the agent may name
            J3) and, from the 2026-11 draft on, the rules across the sessions of the
            connection (`rules.judge`: children, replay, keys, items; else None).
        sessions: one lifecycle machine per session.
        connection: the machine of requests that name no session (and of answers nobody
            asked for).
        seen: what each session already reported (message roles, tool call ids).
        route: (requesting side, request key) -> session: where an answer goes.
        recent, recent_order: the last answered requests, oldest first, to route a
            second answer.
        initialize: the client's pending `initialize` (request key, params): its answer is
            J5-J10's.
    """

    revision: Revision
    # Its exchange's framing, answers and capabilities change by rebinding persistent maps: a
    # draft reads a copy of each (`copy()` shares those maps, O(1)), so the one stored never
    # changes.
    rules: ConnectionRules
    sessions: PMap[str, Conversation]
    connection: Conversation
    seen: PMap[str, tuple[PMap[str, str], PMap[str, bool]]]
    route: PMap[Route, str | None]
    recent: PMap[Route, str | None]
    recent_order: tuple[Route, ...]
    initialize: tuple[RequestKey, object] | None

    @staticmethod
    def start(revision: Revision = DEFAULT_REVISION) -> Protocol:
        """The machine before a connection's first line, judging by `revision`."""
        if not isinstance(revision, Revision):
            raise ArgumentError(f"Protocol.start: revision is {shown(revision)}, not a Revision")
        return Protocol(
            revision=revision,
            rules=ConnectionRules.start(revision),
            sessions=PMap(),
            connection=Conversation.mid_session(revision),
            seen=PMap(),
            route=PMap(),
            recent=PMap(),
            recent_order=(),
            initialize=None,
        )

    @property
    def exchange(self) -> ExchangeRules:
        """The rules over the connection's exchange: `rules.exchange`."""
        exchange = self.rules.exchange
        assert exchange is not None  # (the machine's always run)
        return exchange

    @property
    def preview(self) -> PreviewState | None:
        """The rules across the sessions of the connection, from 2026-11 on: `rules.judge`."""
        return self.rules.judge

    @property
    def opened(self) -> OpenSessions:
        """The sessions the agent may name (J3): `exchange.opened`."""
        return self.exchange.opened

    @property
    def framing(self) -> Framing:
        """What was asked in JSON-RPC terms and not answered yet: `exchange.framing`."""
        return self.exchange.framing

    @property
    def answers(self) -> Answers:
        """The session-management requests and their answers: `exchange.answers`."""
        return self.exchange.answers

    @property
    def caps(self) -> Capabilities:
        """What `initialize` advertised: `exchange.caps`."""
        return self.exchange.caps

    def __repr__(self) -> str:
        return f"Protocol(revision={self.revision.name!r}, sessions={len(self.sessions)})"


def observe(
    protocol: Protocol, sender: str, message: object, *, at: int
) -> tuple[Protocol, tuple[Violation, ...]]:
    """Line `at` of the connection, `message` sent by `sender` (`"client"` or `"agent"`):
    the protocol that has also read it, and what it broke, in the order found (`protocol`
    stays as it was).

    `message` is the raw JSON value of one wire line (a JSON-RPC message or a batch, as
    parsed from JSON: what a trace entry's `"message"` holds); whatever it is, what does not
    decode is a finding (`D1`), never an exception. An already-decoded message is not
    accepted here: framing (J34-J44) and the schema findings judge the line as it was sent,
    which a decoded value no longer is (a decoded value is not JSON and would be a `D1`).
    `at` labels the findings (a trace's entry index; a connection's count of lines).

    Raises:
        ArgumentError: `sender` is not a side, or `at` is not a non-negative int.
    """
    if sender not in SIDES:
        raise ArgumentError(f"observe: sender is {shown(sender)}; expected 'client' or 'agent'")
    if type(at) is not int or at < 0:
        raise ArgumentError(f"observe: at is {shown(at)}, not a non-negative int")
    draft = ProtocolDraft(protocol)
    draft.line(at, CLIENT if sender == CLIENT else AGENT, message)
    return draft.value(), tuple(draft.out)


def finish(protocol: Protocol) -> tuple[Violation, ...]:
    """What only the end of the connection shows, as if it ended after what `protocol` has
    read, sorted by line (C15 never answered, R7 while work runs, J35 never answered; the
    last two as warnings). `protocol` stays as it was: it can still observe."""
    draft = ProtocolDraft(protocol)
    draft.finish()
    return tuple(sorted(draft.out, key=lambda v: v.index))


def line_findings(
    side: str,
    raw: object,
    value: j.Message | j.Batch,
    diagnostics: tuple[Diagnostic, ...],
    revision: Revision,
) -> list[Finding]:
    """What one wire line of `side`, decoded to `value` with the decoder's `diagnostics`,
    breaks as a line, before any one message's rules, in the order the machine reports it:
    the agent's malformed `_meta` (J45, `meta_finding`), what lenient decoding tolerated (D1,
    `d1_findings`; a `_meta` J45 named is not D1's as well: one finding a fault), what a
    batch puts together (R35, R44, `MessageRules.batch`). The one home of that order: the
    machine's `ProtocolDraft.line` and both connections ask it."""
    found: list[Finding] = []
    if side == AGENT:
        meta = meta_finding(raw, value, diagnostics)
        if meta is not None:
            found.append(meta)
            diagnostics = tuple(d for d in diagnostics if not d.path.endswith("._meta"))
    if diagnostics:
        found.extend(d1_findings(side=side, diagnostics=diagnostics))
    if type(value) is j.Batch:
        found.extend(MessageRules(revision).batch(side, value))
    return found


def echoed(
    side: str, msg: j.Message, pending: Callable[[int | str], bool]
) -> tuple[j.Message, Finding | None]:
    """J37: an answer of `side` whose id names no request `pending` (the peer's requests
    not answered yet), but would with its type changed (`"1"` for `1`), answers that
    request with its id mangled: that answer with the request's id, and the finding. Any
    other message comes back as it is, with None. The one home of J37: the machine and the
    client connection both ask it."""
    if not isinstance(msg, (j.Response, j.ErrorResponse)) or msg.id is None or pending(msg.id):
        return msg, None
    twin = id_twin(msg.id)
    if twin is None or not pending(twin):
        return msg, None
    why = (
        f"{side} answers request {shown(twin)} with id {shown(msg.id)}: a response echoes "
        "its request's id exactly, type included"
    )
    return attrs.evolve(msg, id=twin), ("J37", why)


class ProtocolDraft:
    """Reads lines into a `Protocol`: the one draft of a call, never handed out. It rebinds
    its fields to new values and never changes the values it started from, so the protocol
    it started from stays what it was. `out` is what it found, in the order found."""

    def __init__(self, protocol: Protocol) -> None:
        self.revision = protocol.revision
        self.single = MessageRules(protocol.revision)
        rules = protocol.rules
        self.preview = rules.judge
        exchange = rules.exchange
        assert exchange is not None  # (the machine's always run)
        self.sessions = protocol.sessions
        self.connection = protocol.connection
        self.seen = protocol.seen
        self.route = protocol.route
        self.recent = protocol.recent
        self.recent_order = protocol.recent_order
        self.initialize = protocol.initialize
        self.open = exchange.opened
        self.at = exchange.at
        # The components that change by rebinding: the draft reads its own O(1) copies.
        self.framing = exchange.framing.copy()
        self.answers = exchange.answers.copy()
        self.caps = exchange.caps.copy()
        self.out: list[Violation] = []

    def value(self) -> Protocol:
        """What the draft has read, as a value."""
        exchange = ExchangeRules(self.framing, self.answers, self.caps, self.open, self.at)
        # The judge's label of the next line is the exchange's: a trace's next entry index.
        rules = ConnectionRules(exchange, self.preview, self.at)
        return Protocol(
            self.revision, rules, self.sessions, self.connection, self.seen, self.route,
            self.recent, self.recent_order, self.initialize,
        )  # fmt: skip

    def report(self, rule: str, index: int, message: str, *, warning: bool = False) -> None:
        self.out.append(Violation(rule, RULES[rule].level, index, printable(message), warning))

    def report_all(self, index: int, findings: list[Finding]) -> None:
        for rule, message in findings:
            self.report(rule, index, message)

    # -- lines ---------------------------------------------------------------------------

    def line(self, i: int, side: Sender, raw: object) -> None:
        """Line `i`, the raw JSON `raw` that `side` sent."""
        framed, judged = self.framing.see(i, side, raw)
        self.at = i + 1  # the label of the next line, as a connection counts them
        self.report_all(i, framed)
        if judged:  # a reply to what asked for none: named there, not as D1 or J1 too
            return
        try:
            decoded = decode_message_diagnosed(raw, revision=self.revision)
        except DecodeError as e:
            self.undecodable(i, side, raw, e)
            return
        msg = decoded.value
        self.report_all(i, line_findings(side, raw, msg, decoded.diagnostics, self.revision))
        if isinstance(msg, j.Batch):
            for item in msg.items:
                if isinstance(item, j.InvalidEntry):
                    for rule, why in d1_findings(invalid=item):
                        self.report(rule, i, why)
                else:
                    self.message(i, side, item)
        else:
            self.message(i, side, msg)

    def undecodable(self, i: int, side: Sender, raw: object, e: DecodeError) -> None:
        rule, why = explain_undecodable(raw, self.revision)
        self.report(rule, i, f"{side} message does not decode ({e}){why}")
        # Keep the request id known, so the peer's (error) answer is not reported as well. An
        # id that is no JSON-RPC id (a list, an object) cannot be answered by a decodable
        # message, so nothing needs to remember it (and a value cannot hold it).
        rid = raw.get("id") if isinstance(raw, Mapping) else None
        if (
            isinstance(raw, Mapping)
            and "id" in raw
            and (rid is None or isinstance(rid, (int, str)))
            and isinstance(raw.get("method"), str)
        ):
            params = raw.get("params")
            sid = params.get("sessionId") if isinstance(params, Mapping) else None
            stand_in = j.Request(raw["id"], f"(undecodable) {raw['method']}")
            self.observe(sid if isinstance(sid, str) else None, i, side, stand_in)

    def echo(self, i: int, side: Sender, msg: j.Message) -> j.Message:
        """`msg` with the id of the request it answers (J37, `echoed`)."""
        peer = _PEER[side]
        msg, found = echoed(side, msg, lambda rid: (peer, request_key(rid)) in self.route)
        if found is not None:
            self.report(found[0], i, found[1])
        return msg

    def message(self, i: int, side: Sender, msg: j.Message) -> None:
        """One decoded message of line `i` (the line itself, or an item of its batch)."""
        msg = self.echo(i, side, msg)
        self.open, unknown = self.open.follow(side, msg)
        sid: str | None = None
        if isinstance(msg, (j.Response, j.ErrorResponse)):
            key = (_PEER[side], request_key(msg.id))
            if key in self.route:
                sid = self.route[key]
                self.route = self.route.delete(key)
                self._remember_answered(key, sid)
            else:
                sid = self.recent.get(key)
        elif isinstance(msg, j.Request):
            params = msg.params if isinstance(msg.params, Mapping) else {}
            raw_sid = params.get("sessionId")
            sid = raw_sid if isinstance(raw_sid, str) else None
        elif not isinstance(msg, (j.Notification, j.CancelRequestNotification)):
            sid = msg.session_id
        if unknown is not None:
            self.report(unknown[0], i, unknown[1])
        self.report_all(i, self.caps.follow(side, msg))
        if side == AGENT and isinstance(msg, j.ErrorResponse):
            bad_error = error_finding(msg.error)
            if bad_error is not None:
                self.report(bad_error[0], i, bad_error[1])
        if side == CLIENT and isinstance(msg, j.Request) and msg.method == "initialize":
            self.initialize = (request_key(msg.id), msg.params)
        elif (
            side == AGENT
            and isinstance(msg, (j.Response, j.ErrorResponse))
            and self.initialize is not None
            and request_key(msg.id) == self.initialize[0]
        ):
            self.report_all(i, handshake_findings(self.initialize[1], msg))
            if isinstance(msg, j.Response):
                self.report_all(i, initialize_findings(self.initialize[1], msg.result))
            self.initialize = None
        created = self.answers.creates(side, msg)
        if created is not None and created not in self.sessions:
            # A session seen created starts idle, as an engine's does: the leniency of a
            # recording that starts mid-session is for sessions it did not see begin.
            self.sessions = self.sessions.set(created, Conversation.start(self.revision))
        self.report_all(i, self.answers.see(side, msg, self.open))
        if sid is not None and side == AGENT and isinstance(msg, _SEEN_BY):
            memory = self.seen.get(sid, _NO_SEEN)
            seen = Seen(*memory)  # a draft: the stored maps stay as they are
            if isinstance(msg, j.UpdateSessionNotification):
                self.report_all(i, self.single.update(seen, msg.update))
            else:
                self.report_all(i, self.single.permission(seen, msg))
            if seen.roles is not memory[0] or seen.tools is not memory[1]:
                self.seen = self.seen.set(sid, seen.memory())
        if self.preview is not None:
            # R71 asks to withdraw the requests of the work a cancel cancels. Which work asked
            # a request is the session machine's to say (`Conversation.cancels`): a cancel while
            # idle cancels nothing (Q20) and a request asked before the work began is
            # background (R40; R73: the agent MAY stop it).
            conv = (
                self.sessions.get(msg.session_id)
                if side == CLIENT and isinstance(msg, j.CancelSessionNotification)
                else None
            )
            self.preview, found = observe_connection(
                self.preview,
                i,
                side,
                msg,
                session=sid,
                # one finding per fault: J3 wins over R47
                judged_j3=unknown is not None and unknown[0] == "J3",
                cancels=None if conv is None else conv.cancels,
            )
            for f in found:
                self.report(f.rule, f.at, f.message)
        self.observe(sid, i, side, msg)

    def _remember_answered(self, key: Route, sid: str | None) -> None:
        # The last `_RECENT` answered requests, oldest first (a second answer is routed too).
        if key not in self.recent:
            self.recent_order = (*self.recent_order, key)
            if len(self.recent_order) > _RECENT:
                self.recent = self.recent.delete(self.recent_order[0])
                self.recent_order = self.recent_order[1:]
        self.recent = self.recent.set(key, sid)

    def observe(self, sid: str | None, i: int, side: Sender, msg: object) -> None:
        """`msg` to the lifecycle machine of session `sid` (None: the connection's)."""
        before = self.connection if sid is None else self.sessions.get(sid)
        conv = Conversation.mid_session(self.revision) if before is None else before
        conv, findings = observe_conversation(conv, side, msg, at=i)
        if sid is None:
            self.connection = conv
        elif conv is not before:
            self.sessions = self.sessions.set(sid, conv)
        if isinstance(msg, _REQUESTS):
            key = (side, request_key(msg.id))
            # Ids are per connection: the machines see one session each (same-session
            # reuse is theirs), so reuse across sessions is found here.
            found = j2_breach(shared=(msg.id, sid, self.route[key])) if key in self.route else None
            if found is not None:
                self.report(found[0], i, found[1])
            self.route = self.route.set(key, sid)
        for f in findings:
            self.report(f.rule, f.at, f.message, warning=f.warning)

    def finish(self) -> None:
        """Adds to `out` what only the end shows (the draft's value is unchanged)."""
        for conv in (*self.sessions.values(), self.connection):
            for f in finish_conversation(conv):
                self.report(f.rule, f.at, f.message, warning=f.warning)
        for f in finish_connection(self.preview) if self.preview is not None else ():
            self.report(f.rule, f.at, f.message)
        for rule, at, message in self.framing.finish():
            self.report(rule, at, message, warning=True)
