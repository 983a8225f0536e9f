"""The trace checker: which protocol rules a recorded ACP conversation breaks, and where.

Owns: `Violation`, `check_trace` and `CHECKED_RULES` (declared to the catalogue at import:
`Rule.checked` reads it), and the routing of a recording's
messages to one conversation machine per session.
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
   frozen `PreviewState` the checker replaces per message, `observe_connection`);
3. the conversation machine (`observe`), one per session, started with
   `Conversation.mid_session` (a trace may start mid-session, so nothing that happened
   before it is demanded); requests without a session go to one more machine. Answers are
   routed to the machine of the request they answer. At the end, `finish` adds what only
   the end shows (C15 never answered, R7 as a warning while work still runs).
Findings become `Violation`s at the line the machine names; they come back sorted by line
index, stable within a line. `side=` keeps the rules that bind one side (and both).
"""

from __future__ import annotations

import copy
from collections.abc import Iterable, Mapping
from typing import Final

import attrs

from acp_core._errors import ArgumentError, DecodeError
from acp_core._wire import _jsonrpc as j
from acp_core._wire._codec import decode_message_diagnosed
from acp_core._wire._revision import DEFAULT_REVISION, Revision

from ._catalogue import RULES, Level, Side, declare_checked
from ._check_capabilities import CHECKED as CAPABILITY_CHECKED
from ._check_capabilities import Capabilities
from ._check_message import CHECKED as MESSAGE_CHECKED
from ._check_message import Finding, MessageRules, Seen, error_finding, initialize_findings
from ._check_preview import CHECKED as PREVIEW_CHECKED
from ._check_preview import PreviewState, finish_connection, observe_connection
from ._check_sessions import OpenSessions
from ._check_undecodable import explain_undecodable
from ._conversation import CHECKED as LIFECYCLE_CHECKED
from ._conversation import Conversation, Sender, finish, observe
from ._deciders import DECIDED_BY
from ._predicates import RequestKey, request_key, shown
from ._severity import Severity, severity_of

__all__ = ["CHECKED_RULES", "LiveCheck", "TraceCheck", "Violation", "check_trace"]

CLIENT: Final = "client"
AGENT: Final = "agent"
_SIDES: Final = (CLIENT, AGENT)
_PEER: Final[Mapping[str, str]] = {CLIENT: AGENT, AGENT: CLIENT}
#: Every rule `check_trace` can report (the `checked` column of docs/rules.md).
CHECKED_RULES: Final = (
    LIFECYCLE_CHECKED | MESSAGE_CHECKED | PREVIEW_CHECKED | CAPABILITY_CHECKED | {"J3", "J4", "J30"}
)
# `Rule.checked`/`checked_by` read it; the catalogue imports no checker.
declare_checked(DECIDED_BY)
_MAX_DIAGNOSTICS: Final = 20  # per line; then one summary (a 3 MB line is not a million)


@attrs.frozen
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


_REQUESTS: Final = (
    j.Request,
    j.PromptRequest,
    j.RequestPermissionRequest,
    j.CancelToolCallRequest,
    j.CancelTerminalRequest,
)
_RECENT: Final = 64  # answered requests remembered for routing a second answer


class _Checker:
    """Routes each decoded message to its session's machine. Local to one call."""

    def __init__(self, revision: Revision) -> None:
        self.revision = revision
        self.single = MessageRules(revision)
        # The rules across the sessions of a connection (children, replay, keys, items),
        # from the 2026-11 draft on.
        # A frozen value, replaced per message: a fork shares it.
        self.preview = PreviewState(revision) if revision.includes("2026-11") else None
        self.out: list[Violation] = []
        self.sessions: dict[str, Conversation] = {}
        self.seen: dict[str, Seen] = {}
        # Requests that name no session (and answers nobody asked for) go here.
        self.connection = Conversation.mid_session(revision)
        # (requesting side, request key) -> session: where the answer goes.
        self.route: dict[tuple[str, RequestKey], str | None] = {}
        self.recent: dict[tuple[str, RequestKey], str | None] = {}
        self.open = OpenSessions()  # the sessions the agent may name (J3)
        self.caps = Capabilities()  # what `initialize` advertised (J70-J80)
        # The client's pending `initialize` (request key, params): its answer is J5-J10's.
        self.initialize: tuple[RequestKey, object] | None = None

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
        try:
            decoded = decode_message_diagnosed(raw, revision=self.revision)
        except DecodeError as e:
            self.undecodable(i, side, raw, e)
            return
        diagnostics = decoded.diagnostics
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

    def message(self, i: int, side: Sender, msg: j.Message) -> None:
        unknown = self.open.follow(side, msg)
        sid: str | None = None
        if isinstance(msg, (j.Response, j.ErrorResponse)):
            key = (_PEER[side], request_key(msg.id))
            if key in self.route:
                sid = self.route.pop(key)
                self.recent[key] = sid
                if len(self.recent) > _RECENT:
                    del self.recent[next(iter(self.recent))]
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
            and isinstance(msg, j.Response)
            and self.initialize is not None
            and request_key(msg.id) == self.initialize[0]
        ):
            self.report_all(i, initialize_findings(self.initialize[1], msg.result))
            self.initialize = None
        if sid is not None and side == AGENT:
            seen = self.seen.setdefault(sid, Seen())
            if isinstance(msg, j.UpdateSessionNotification):
                self.report_all(i, self.single.update(seen, msg.update))
            elif isinstance(msg, j.RequestPermissionRequest):
                self.report_all(i, self.single.permission(seen, msg))
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

    def observe(self, sid: str | None, i: int, side: Sender, msg: object) -> None:
        conv = self.connection if sid is None else self.sessions.get(sid)
        if conv is None:
            conv = Conversation.mid_session(self.revision)
        conv, findings = observe(conv, side, msg, at=i)
        if sid is None:
            self.connection = conv
        else:
            self.sessions[sid] = conv
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
            self.route[key] = sid
        for f in findings:
            self.report(f.rule, f.at, f.message, warning=f.warning)

    def fork(self) -> _Checker:
        """An independent copy: what it observes next does not change this one."""
        twin = copy.copy(self)
        twin.out = list(self.out)
        twin.sessions = dict(self.sessions)  # the machines are frozen values
        twin.seen = {sid: seen.copy() for sid, seen in self.seen.items()}
        twin.route, twin.recent = dict(self.route), dict(self.recent)
        twin.open = self.open.copy()
        twin.caps = self.caps.copy()
        # (`preview` is a frozen value: the twin shares it)
        return twin

    def finish(self) -> tuple[Violation, ...]:
        for conv in (*self.sessions.values(), self.connection):
            for f in finish(conv):
                self.report(f.rule, f.at, f.message, warning=f.warning)
        for f in finish_connection(self.preview) if self.preview is not None else ():
            self.report(f.rule, f.at, f.message)
        return tuple(sorted(self.out, key=lambda v: v.index))


def _printable(message: str) -> str:
    # Lone surrogates (from JSON `\ud800` escapes) cannot be printed or encoded: escape them.
    return message.encode("utf-8", "backslashreplace").decode("utf-8")


class TraceCheck:
    """`check_trace` one stretch of entries at a time, for a search that extends many
    recordings from a common prefix (`acp_core.explore`): `extended(entries)` returns a new
    check that has also seen `entries`, leaving this one as it was; `violations()` is what
    `check_trace` of every entry seen so far returns (side=None)."""

    __slots__ = ("_checker", "_count")

    def __init__(self, revision: Revision = DEFAULT_REVISION) -> None:
        self._checker = _Checker(revision)
        self._count = 0

    def extended(self, entries: Iterable[object]) -> TraceCheck:
        twin = TraceCheck.__new__(TraceCheck)
        twin._checker = self._checker.fork()
        twin._count = self._count
        for entry in entries:
            twin._checker.entry(twin._count, entry)
            twin._count += 1
        return twin

    def violations(self) -> tuple[Violation, ...]:
        return self._checker.fork().finish()


class LiveCheck:
    """`check_trace` of a stream that is still arriving (`python -m acp_core proxy`): each
    `feed(entry)` returns the violations that entry adds, and `finish()` those only the end
    shows. Mutable and single-owner, unlike `TraceCheck` (which forks on every call): the
    cost of one entry does not grow with the sessions or requests the stream has opened."""

    __slots__ = ("_checker", "_count", "_finished")

    def __init__(self, revision: Revision = DEFAULT_REVISION) -> None:
        self._checker = _Checker(revision)
        self._count = 0
        self._finished = False

    @property
    def count(self) -> int:
        """Entries fed so far (the next entry's index)."""
        return self._count

    def feed(self, entry: object) -> tuple[Violation, ...]:
        """Check one more entry; the violations it adds, in the order found."""
        if self._finished:
            raise ArgumentError("LiveCheck.feed after finish")
        out = self._checker.out
        before = len(out)
        self._checker.entry(self._count, entry)
        self._count += 1
        return tuple(out[before:])

    def finish(self) -> tuple[Violation, ...]:
        """The violations only the end of the stream shows (C15 never answered, R7 while
        work runs); afterwards the check is closed."""
        if self._finished:
            return ()
        self._finished = True
        out = self._checker.out
        before = len(out)
        self._checker.finish()
        return tuple(out[before:])

    def found(self) -> tuple[Violation, ...]:
        """Every violation reported so far, sorted by entry index (after `finish`: what
        `check_trace` of every entry fed returns, side=None)."""
        return tuple(sorted(self._checker.out, key=lambda v: v.index))


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
    checker = _Checker(revision)
    for i, entry in enumerate(entries):
        checker.entry(i, entry)
    found = checker.finish()
    if side is None:
        return found
    return tuple(v for v in found if RULES[v.rule].side in (side, "both"))
