"""The trace checker: which protocol rules a recorded ACP conversation breaks, and where.

Owns: `Violation`, `check_trace`, `IncrementalCheck` (the checker as a frozen value, fed one
entry at a time: `check_trace` is its fold) with its memory (`_Memory`) and per-call draft
(`_Checker`), `LiveCheck` (the proxy's holder of one), `CHECKED_RULES` (declared to the
catalogue at import: `Rule.checked` reads it), and the routing of a recording's messages to
one conversation machine per session.
Must not know: files, JSON text or exit codes (`__main__.py`), what any lifecycle rule says
(`_rules/_conversation.py`), what a single message breaks on its own (`_rules/_check_message.py`).

Theory of operation. Entries are `{"from": "client" | "agent", "message": <JSON-RPC>}` dicts,
one per recorded line (a batch is one line). `check_trace` is three steps:
1. decode each message with the library's codec (`decode_message_diagnosed`); what does not
   decode is a violation (`D1`, or the specific rule when one field explains it: `R4` for a
   missing `messageId`, `R29` for a missing `planId`, `R26` for a permission request without
   title or options), never an exception; at most `_MAX_DIAGNOSTICS` schema findings a line;
2. the single-message checks of `_rules/_check_message.py` (open-enum values, paths, base64, batch
   contents, custom root keys) and, from 2026-11 on, the checks across the sessions of the
   connection of `_rules/_check_preview.py` (children, replay windows, keys, item cancels; a
   frozen `PreviewState` the checker replaces per message, `observe_connection`); and the
   pairing of the client's session-management requests with the agent's answers
   (`_rules/_check_answers.py`: list pages, close, delete, config options; J50-J64);
3. the conversation machine (`observe`), one per session, started with
   `Conversation.mid_session` (a trace may start mid-session, so nothing that happened
   before it is demanded); requests without a session go to one more machine. Answers are
   routed to the machine of the request they answer. At the end, `finish` adds what only
   the end shows (C15 never answered, R7 as a warning while work still runs).
Findings become `Violation`s at the line the machine names; they come back sorted by line
index, stable within a line. `side=` keeps the rules that bind one side (and both).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final

import attrs

from acp_core._errors import ArgumentError, DecodeError
from acp_core._state._pcoll import PMap, PVec
from acp_core._wire import _jsonrpc as j
from acp_core._wire._codec import decode_message_diagnosed
from acp_core._wire._revision import DEFAULT_REVISION, Revision
from acp_core._wire._value import frozen

from ._catalogue import RULES, Level, Side, declare_checked
from ._check_answers import CHECKED as ANSWERS_CHECKED
from ._check_answers import Answers
from ._check_capabilities import CHECKED as CAPABILITY_CHECKED
from ._check_capabilities import Capabilities
from ._check_initialize import CHECKED as INITIALIZE_CHECKED
from ._check_initialize import handshake_findings, initialize_findings
from ._check_jsonrpc import CHECKED as FRAMING_CHECKED
from ._check_jsonrpc import Framing, meta_finding
from ._check_message import CHECKED as MESSAGE_CHECKED
from ._check_message import Finding, MessageRules, Seen, error_finding
from ._check_preview import CHECKED as PREVIEW_CHECKED
from ._check_preview import PreviewState, finish_connection, observe_connection
from ._check_sessions import NO_SESSIONS, OpenSessions
from ._check_undecodable import explain_undecodable
from ._conversation import CHECKED as LIFECYCLE_CHECKED
from ._conversation import Conversation, Sender, finish, observe
from ._deciders import DECIDED_BY
from ._predicates import RequestKey, id_twin, request_key, shown
from ._severity import Severity, severity_of

__all__ = ["CHECKED_RULES", "IncrementalCheck", "LiveCheck", "Violation", "check_trace"]

CLIENT: Final = "client"
AGENT: Final = "agent"
_SIDES: Final = (CLIENT, AGENT)
_PEER: Final[Mapping[str, str]] = {CLIENT: AGENT, AGENT: CLIENT}
#: Every rule `check_trace` can report (the `checked` column of docs/rules.md).
CHECKED_RULES: Final = (
    LIFECYCLE_CHECKED
    | MESSAGE_CHECKED
    | INITIALIZE_CHECKED
    | PREVIEW_CHECKED
    | FRAMING_CHECKED
    | ANSWERS_CHECKED
    | CAPABILITY_CHECKED
    | {"J3", "J4", "J30", "J37"}
)
# `Rule.checked`/`checked_by` read it; the catalogue imports no checker.
declare_checked(DECIDED_BY)
_MAX_DIAGNOSTICS: Final = 20  # per line; then one summary (a 3 MB line is not a million)


@frozen
class Violation:
    """One broken rule in a trace.

    Attributes:
        rule: the rule's id in the catalogue (`docs/rules.md`).
        level: the rule's level (`MUST`, `MUST NOT`, `SHOULD`, `SHOULD NOT`, `MAY`).
        index: 0-based index of the trace entry (line) where it shows.
        message: a readable explanation.
        warning: the trace only shows that the rule *may* be broken (it ends first, R7);
            a warning never makes a trace fail.
    """

    rule: str
    level: Level
    index: int
    message: str
    warning: bool = False

    @property
    def mandatory(self) -> bool:
        """True when a MUST or MUST NOT was broken (warnings never are)."""
        return self.level in ("MUST", "MUST NOT") and not self.warning

    @property
    def severity(self) -> Severity:
        """Its class, as every tool words it: `MUST violation`, `MUST warning`, ...

        `check`, `check --json`, `report` and `replay` show `severity.label`
        (`_rules/_severity.py`); `severity.fails` equals `mandatory`."""
        return severity_of(self.level, self.warning)

    def to_json(self) -> dict[str, object]:
        """The violation as a JSON object (what `check --json` prints)."""
        out: dict[str, object] = {
            "rule": self.rule,
            "level": self.level,
            "index": self.index,
            "message": self.message,
        }
        if self.warning:
            out["warning"] = True
        return out


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


@frozen
class _Memory:
    """What a checker has read so far, as values: the state of `IncrementalCheck` (every
    field is frozen or persistent, so a fork shares it and an extension replaces only what
    it changes)."""

    revision: Revision
    # The rules across the sessions of a connection (children, replay, keys, items), from
    # the 2026-11 draft on.
    preview: PreviewState | None
    # One machine per session, and one for requests that name no session (and answers
    # nobody asked for).
    sessions: PMap[str, Conversation]
    connection: Conversation
    # What each session already reported (message roles, tool call ids: `Seen.memory`).
    seen: PMap[str, tuple[PMap[str, str], PMap[str, bool]]]
    # (requesting side, request key) -> session: where the answer goes; then the last
    # `_RECENT` answered ones, oldest first (`recent_order`), to route a second answer.
    route: PMap[Route, str | None]
    recent: PMap[Route, str | None]
    recent_order: tuple[Route, ...]
    opened: OpenSessions  # the sessions the agent may name (J3)
    # The client's pending `initialize` (request key, params): its answer is J5-J10's.
    initialize: tuple[RequestKey, object] | None
    # What the client asked in JSON-RPC terms and the agent has not answered (J34-J44).
    # This and the two below change by rebinding persistent maps: a draft reads a copy
    # (`copy()` shares those maps, O(1)), so the one stored here never changes.
    framing: Framing
    # The client's session-management requests paired with the agent's answers (session/
    # list, close, delete, config; J50-J64).
    answers: Answers
    # What `initialize` advertised, held against later traffic (J70-J80).
    caps: Capabilities
    found: PVec[Violation]  # in the order found
    count: int  # entries read: the next one's index


def _start(revision: Revision) -> _Memory:
    return _Memory(
        revision=revision,
        preview=PreviewState(revision) if revision.includes("2026-11") else None,
        sessions=PMap(),
        connection=Conversation.mid_session(revision),
        seen=PMap(),
        route=PMap(),
        recent=PMap(),
        recent_order=(),
        opened=NO_SESSIONS,
        initialize=None,
        framing=Framing(),
        answers=Answers(revision),
        caps=Capabilities(),
        found=PVec(),
        count=0,
    )


class _Checker:
    """Reads entries into a `_Memory`: the one draft of a check, local to one call. It
    rebinds its fields to new values and never changes the values it started from, so the
    memory it started from stays what it was (`IncrementalCheck` hands that out)."""

    def __init__(self, memory: _Memory) -> None:
        self.revision = memory.revision
        self.single = MessageRules(memory.revision)
        self.preview = memory.preview
        self.sessions = memory.sessions
        self.connection = memory.connection
        self.seen = memory.seen
        self.route = memory.route
        self.recent = memory.recent
        self.recent_order = memory.recent_order
        self.open = memory.opened
        self.initialize = memory.initialize
        # The components that change by rebinding: the draft reads its own O(1) copies.
        self.framing = memory.framing.copy()
        self.answers = memory.answers.copy()
        self.caps = memory.caps.copy()
        self.found = memory.found
        self.count = memory.count
        self.out: list[Violation] = []  # found by this draft, not yet in `found`

    def memory(self) -> _Memory:
        """What the draft has read, as a value."""
        return _Memory(
            self.revision, self.preview, self.sessions, self.connection, self.seen,
            self.route, self.recent, self.recent_order, self.open, self.initialize,
            self.framing, self.answers, self.caps, self.found.extend(self.out), self.count,
        )  # fmt: skip

    def read(self, entries: Iterable[object]) -> None:
        for entry in entries:
            self.entry(self.count, entry)
            self.count += 1

    def report(self, rule: str, index: int, message: str, *, warning: bool = False) -> None:
        self.out.append(Violation(rule, RULES[rule].level, index, _printable(message), warning))

    def report_all(self, index: int, findings: list[Finding]) -> None:
        for rule, message in findings:
            self.report(rule, index, message)

    # -- entries -------------------------------------------------------------------------

    def entry(self, i: int, entry: object) -> None:
        if not isinstance(entry, Mapping):
            self.report(
                "D1",
                i,
                f'trace entry is {shown(entry)}, not an object {{"from": ..., "message": ...}}',
            )
            return
        side = entry.get("from")
        if side not in _SIDES:
            self.report(
                "D1", i, f'trace entry has "from": {shown(side)}; expected "client" or "agent"'
            )
            return
        if "message" not in entry:
            self.report("D1", i, 'trace entry has no "message"')
            return
        raw = entry["message"]
        framed, judged = self.framing.see(i, side, raw)
        self.report_all(i, framed)
        if judged:  # a reply to what asked for none: named there, not as D1 or J1 too
            return
        try:
            decoded = decode_message_diagnosed(raw, revision=self.revision)
        except DecodeError as e:
            self.undecodable(i, side, raw, e)
            return
        diagnostics = decoded.diagnostics
        if side == AGENT:  # an agent's malformed `_meta` is J45's, not D1's
            meta = meta_finding(raw, decoded.value, diagnostics)
            if meta is not None:
                self.report(meta[0], i, meta[1])
                diagnostics = tuple(d for d in diagnostics if not d.path.endswith("._meta"))
        for d in diagnostics[:_MAX_DIAGNOSTICS]:
            self.report("D1", i, f"{side} message does not match the schema: {d.message}")
        if len(diagnostics) > _MAX_DIAGNOSTICS:
            self.report(
                "D1", i, f"... and {len(diagnostics) - _MAX_DIAGNOSTICS} more schema mismatches"
            )
        msg = decoded.value
        if isinstance(msg, j.Batch):
            self.report_all(i, self.single.batch(side, msg))
            for item in msg.items:
                if isinstance(item, j.InvalidEntry):
                    self.report(
                        "D1",
                        i,
                        f"batch entry does not decode: expected {item.expected} @ {item.path}",
                    )
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
        """J37: an answer whose id names no pending request, but would with its type
        changed (`"1"` for `1`), answers that request with its id mangled."""
        if not isinstance(msg, (j.Response, j.ErrorResponse)) or msg.id is None:
            return msg
        peer = _PEER[side]
        if (peer, request_key(msg.id)) in self.route:
            return msg
        twin = id_twin(msg.id)
        if twin is None or (peer, request_key(twin)) not in self.route:
            return msg
        self.report(
            "J37",
            i,
            f"{side} answers request {shown(twin)} with id {shown(msg.id)}: a response echoes "
            "its request's id exactly, type included",
        )
        return attrs.evolve(msg, id=twin)

    def message(self, i: int, side: Sender, msg: j.Message) -> None:
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
        before = self.connection if sid is None else self.sessions.get(sid)
        conv = Conversation.mid_session(self.revision) if before is None else before
        conv, findings = observe(conv, side, msg, at=i)
        if sid is None:
            self.connection = conv
        elif conv is not before:
            self.sessions = self.sessions.set(sid, conv)
        if isinstance(msg, _REQUESTS):
            key = (side, request_key(msg.id))
            if key in self.route and self.route[key] != sid and msg.id is not None:
                # Ids are per connection: the machines see one session each (same-session
                # reuse is theirs), so reuse across sessions is found here.
                self.report(
                    "J2",
                    i,
                    f"request id {shown(msg.id)} is already in use by a pending request of "
                    f"{'the connection' if self.route[key] is None else shown(self.route[key])}"
                    f" (ids are unique per connection, not per session)",
                )
            self.route = self.route.set(key, sid)
        for f in findings:
            self.report(f.rule, f.at, f.message, warning=f.warning)

    def finish(self) -> tuple[Violation, ...]:
        """Every violation: what was found, then what only the end shows, by line."""
        for conv in (*self.sessions.values(), self.connection):
            for f in finish(conv):
                self.report(f.rule, f.at, f.message, warning=f.warning)
        for f in finish_connection(self.preview) if self.preview is not None else ():
            self.report(f.rule, f.at, f.message)
        for rule, at, message in self.framing.finish():
            self.report(rule, at, message, warning=True)
        return tuple(sorted((*self.found, *self.out), key=lambda v: v.index))


def _printable(message: str) -> str:
    # Lone surrogates (from JSON `\ud800` escapes) cannot be printed or encoded: escape them.
    return message.encode("utf-8", "backslashreplace").decode("utf-8")


@frozen(repr=False)
class IncrementalCheck:
    """`check_trace` one entry at a time, as a value: `feed(entry)` returns the check that has
    also read `entry` and leaves this one as it was, so a check forks for free (keep it and
    feed it something else: `explore` extends many recordings from one prefix). Its memory
    is persistent maps and frozen machines: an entry costs what it changes, not what came
    before it.

    `found` is what the entries read so far broke, in the order found; `finish()` adds what
    only the end of a recording shows (C15 never answered, R7 as a warning while work runs)
    and is what `check_trace` of every entry read returns (side=None). The law, tested:
    `check_trace(entries) == reduce(IncrementalCheck.feed, entries, IncrementalCheck.start())
    .finish()`.
    """

    _memory: _Memory

    @classmethod
    def start(cls, revision: Revision = DEFAULT_REVISION) -> IncrementalCheck:
        """A check that has read nothing, judging by `revision`."""
        return cls(_start(revision))

    @property
    def revision(self) -> Revision:
        """The revision it judges by."""
        return self._memory.revision

    @property
    def count(self) -> int:
        """Entries read so far (the next entry's index)."""
        return self._memory.count

    @property
    def found(self) -> tuple[Violation, ...]:
        """What the entries read so far broke, in the order found (never taken back)."""
        return self._memory.found.to_tuple()

    def feed(self, entry: object) -> IncrementalCheck:
        """The check that has also read `entry` (never raises: a bad entry is a `D1`)."""
        return self.feed_all((entry,))

    def feed_all(self, entries: Iterable[object]) -> IncrementalCheck:
        """The check that has also read `entries`, in order (`feed` of each, in one draft)."""
        draft = _Checker(self._memory)
        draft.read(entries)
        return IncrementalCheck(draft.memory())

    def finish(self) -> tuple[Violation, ...]:
        """Every violation of the recording read so far, as if it ended here, sorted by
        entry index (this check stays as it was: it can still be fed)."""
        return _Checker(self._memory).finish()

    def __repr__(self) -> str:
        found = len(self._memory.found)
        name = self.revision.name
        return f"IncrementalCheck(revision={name!r}, count={self.count}, found={found})"


class LiveCheck:
    """`check_trace` of a stream that is still arriving (`python -m acp_core proxy`): each
    `feed(entry)` returns the violations that entry adds, and `finish()` those only the end
    shows. A single-owner holder of an `IncrementalCheck`: the cost of one entry does not
    grow with the sessions or requests the stream has opened."""

    __slots__ = ("_check", "_finished", "_ended")

    def __init__(self, revision: Revision = DEFAULT_REVISION) -> None:
        self._check = IncrementalCheck.start(revision)
        self._finished = False
        self._ended: tuple[Violation, ...] = ()

    @property
    def count(self) -> int:
        """Entries fed so far (the next entry's index)."""
        return self._check.count

    def feed(self, entry: object) -> tuple[Violation, ...]:
        """Check one more entry; the violations it adds, in the order found."""
        if self._finished:
            raise ArgumentError("LiveCheck.feed after finish")
        draft = _Checker(self._check._memory)
        draft.read((entry,))
        self._check = IncrementalCheck(draft.memory())
        return tuple(draft.out)  # what this entry added (slicing `found` would copy it all)

    def finish(self) -> tuple[Violation, ...]:
        """The violations only the end of the stream shows (C15 never answered, R7 while
        work runs); afterwards the check is closed."""
        if self._finished:
            return ()
        self._finished = True
        draft = _Checker(self._check._memory)
        draft.finish()
        self._ended = tuple(draft.out)
        return self._ended

    def found(self) -> tuple[Violation, ...]:
        """Every violation reported so far, sorted by entry index (after `finish`: what
        `check_trace` of every entry fed returns, side=None)."""
        return tuple(sorted((*self._check.found, *self._ended), key=lambda v: v.index))


def check_trace(
    entries: Iterable[object],
    *,
    revision: Revision = DEFAULT_REVISION,
    side: Side | None = None,
) -> tuple[Violation, ...]:
    """Check a recorded conversation against the rule catalogue.

    Args:
        entries: the trace, one item per line: `{"from": "client" | "agent", "message":
            <JSON-RPC message or batch>}` as parsed from JSON. The trace may start
            mid-session (after `initialize` and session setup).
        revision: the protocol revision to judge by (default: the 2026-08 draft).
        side: judge only the rules that bind this side (`"agent"` or `"client"`; rules
            that bind both are always judged). Judge each side on its own recording: the
            order one end sees can differ from the order the other end sent.

    Returns:
        The violations, sorted by entry index. A malformed entry is a violation (`D1`),
        never an exception; the input is not modified.
    """
    # `IncrementalCheck.start(revision).feed_all(entries).finish()`, in one draft
    draft = _Checker(_start(revision))
    draft.read(entries)
    found = draft.finish()
    if side is None:
        return found
    return tuple(v for v in found if RULES[v.rule].side in (side, "both"))
