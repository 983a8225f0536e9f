"""The trace checker: which protocol rules a recorded ACP conversation breaks, and where.

Owns: `Violation` and `check_trace`, and the bookkeeping a recorded conversation needs
(outstanding JSON-RPC requests, per-session foreground work, prompts, permission requests).
Must not know: files, JSON text or exit codes (`__main__.py`), how engines enforce rules,
what a single message breaks on its own (`_check_message.py`).

Theory of operation. Entries are `{"from": "client" | "agent", "message": <JSON-RPC>}` dicts,
one per recorded line (a batch is one line). Each message is decoded with the library's codec
(`decode_message_diagnosed`); what does not decode is a violation (`D1`, or the specific rule
when one field explains it: `R4` for a missing `messageId`, `R29` for a missing `planId`, `R26`
for a permission request without title or options), never an exception. The checker then
follows, per session:
- the foreground state the agent reported (unknown until the first `state_update`: a trace
  may start mid-session, so nothing that happened before it is demanded),
- the *turn*: foreground work from its start (a prompt sent while idle, or `running` /
  `requires_action` after idle) to the idle that ends it; that idle must carry a stop reason
  (R8), must follow `running` (R6), must come after the user message was reported (R2) and
  the prompt answered (R1), and must say `cancelled` when the client cancelled (R21),
- prompts waiting for their user message (bound first-in first-out, digest Q7; by id in the
  2026-11 draft), permission requests waiting for an answer (R11, R12, C15),
- `session/resume` replay windows (updates inside are history: no turn rules, R39).
An idle that repeats while already idle, or arrives before a prompt was accepted, ends
nothing. What one message breaks by itself (open-enum values against the revision, paths,
base64, batch contents) comes from `_check_message.py`. Violations come back sorted by line
index, stable within a line.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final, TypeAlias

import attrs

from . import _jsonrpc as j
from . import _updates as u
from ._check_message import Finding, MessageRules, Seen, explain_undecodable
from ._codec import decode_message_diagnosed, decode_permission_result
from ._errors import DecodeError
from ._json import UNSET, JsonValue, Unset
from ._revision import DEFAULT_REVISION, Revision
from ._rules import RULES, Level

__all__ = ["Violation", "check_trace"]

CLIENT: Final = "client"
AGENT: Final = "agent"
_SIDES: Final = (CLIENT, AGENT)

IDLE: Final = u.ForegroundState.IDLE
RUNNING: Final = u.ForegroundState.RUNNING
REQUIRES_ACTION: Final = u.ForegroundState.REQUIRES_ACTION


@attrs.frozen
class Violation:
    """One broken rule in a trace.

    Attributes:
        rule: the rule's id in the catalogue (`docs/rules.md`).
        level: the rule's level (`MUST`, `MUST NOT`, `SHOULD`, `SHOULD NOT`, `MAY`).
        index: 0-based index of the trace entry (line) where it shows.
        message: a readable explanation.
    """

    rule: str
    level: Level
    index: int
    message: str

    @property
    def mandatory(self) -> bool:
        """True when a MUST or MUST NOT was broken."""
        return self.level in ("MUST", "MUST NOT")

    def to_json(self) -> dict[str, object]:
        """The violation as a JSON object (what `check --json` prints)."""
        return {
            "rule": self.rule,
            "level": self.level,
            "index": self.index,
            "message": self.message,
        }


# -- what kind of update --------------------------------------------------------------------

# Updates that are conversation history (what a replay would send) and foreground work.
_HISTORY: Final = (
    u.UserMessageChunk,
    u.UserMessage,
    u.AgentMessageChunk,
    u.AgentMessage,
    u.AgentThoughtChunk,
    u.AgentThought,
    u.ToolCallUpdate,
    u.ToolCallContentChunk,
    u.TerminalUpdate,
    u.TerminalOutputChunk,
    u.PlanUpdate,
)
_WORK: Final = _HISTORY[2:]  # the agent's own output: everything but the user message
# -- bookkeeping (local to one check_trace call, never escapes it) --------------------------

# A JSON-RPC id as a dict key: compared by type and value, so 1 and "1" stay apart.
_Key: TypeAlias = tuple[str, object]


class _Prompt:
    __slots__ = ("accepted", "bound_id", "id", "index", "result_id", "user_reported")

    def __init__(self, request_id: object, index: int) -> None:
        self.id = request_id
        self.index = index
        self.accepted = False
        self.user_reported = False
        self.bound_id: str | None = None  # the user message bound to it (first in, first out)
        self.result_id: str | None = None  # the 2026-11 result's messageId


class _Turn:
    __slots__ = ("index", "prompt", "started")

    def __init__(self, prompt: _Prompt | None, index: int, *, started: bool) -> None:
        self.prompt = prompt
        self.index = index
        self.started = started  # `running` (or `requires_action`) was reported


class _Session:
    __slots__ = (
        "awaiting_resume",
        "cancel_index",
        "fg",
        "perms",
        "prompts",
        "replaying",
        "resume_no_replay",
        "seen",
        "silent_perms",
        "turn",
        "user_ids",
    )

    def __init__(self) -> None:
        self.fg: str | None = None  # last reported state; None = not seen in the trace
        self.turn: _Turn | None = None
        self.prompts: list[_Prompt] = []  # sent, not yet finished with
        self.cancel_index: int | None = None  # session/cancel sent during this turn
        self.perms: dict[_Key, int] = {}  # outstanding permission request id -> index
        self.silent_perms: dict[_Key, int] = {}  # asked while running, no requires_action yet
        self.awaiting_resume: int | None = None  # index of the answer that unblocked the work
        self.replaying = False
        self.resume_no_replay = False
        self.seen = Seen()
        self.user_ids: set[str] = set()

    def working(self) -> bool:
        return self.turn is not None or (self.fg is not None and self.fg != IDLE)


class _Pending:
    __slots__ = ("index", "method", "session")

    def __init__(self, method: str, session: str | None, index: int) -> None:
        self.method = method
        self.session = session
        self.index = index


class _Checker:
    def __init__(self, revision: Revision) -> None:
        self.revision = revision
        self.single = MessageRules(revision)
        self.out: list[Violation] = []
        self.sessions: dict[str, _Session] = {}
        # (requesting side, id) -> request; answered ones are remembered for messages.
        self.pending: dict[tuple[str, _Key], _Pending] = {}
        self.answered: dict[tuple[str, _Key], int] = {}
        # permission request id -> (cancel index, session id, turn ended since) for C15.
        self.cancelled_perms: dict[_Key, tuple[int, str, bool]] = {}

    # -- plumbing ------------------------------------------------------------------------

    def report(self, rule: str, index: int, message: str) -> None:
        self.out.append(Violation(rule, RULES[rule].level, index, message))

    def report_all(self, index: int, findings: list[Finding]) -> None:
        for rule, message in findings:
            self.report(rule, index, message)

    def session(self, session_id: str) -> _Session:
        s = self.sessions.get(session_id)
        if s is None:
            s = self.sessions[session_id] = _Session()
        return s

    def request(self, side: str, request_id: object, method: str, sid: str | None, i: int) -> None:
        key = (side, _id_key(request_id))
        if key in self.pending:
            first = self.pending[key].index
            self.report(
                "J2",
                i,
                f"{side} reuses request id {request_id!r} while the request of line "
                f"{first} is still unanswered",
            )
        self.pending[key] = _Pending(method, sid, i)

    # -- entries -------------------------------------------------------------------------

    def entry(self, i: int, entry: object) -> None:
        if not isinstance(entry, Mapping):
            self.report(
                "D1",
                i,
                f'trace entry is {_kind(entry)}, not an object {{"from": ..., "message": ...}}',
            )
            return
        side = entry.get("from")
        if side not in _SIDES:
            self.report("D1", i, f'trace entry has "from": {side!r}; expected "client" or "agent"')
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
        for d in decoded.diagnostics:
            self.report("D1", i, f"{side} message does not match the schema: {d.message}")
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

    def undecodable(self, i: int, side: str, raw: object, e: DecodeError) -> None:
        rule, why = explain_undecodable(raw)
        self.report(rule, i, f"{side} message does not decode ({e}){why}")
        # Keep the request id known, so the peer's (error) answer is not reported as well.
        if isinstance(raw, Mapping) and "id" in raw and isinstance(raw.get("method"), str):
            params = raw.get("params")
            sid = params.get("sessionId") if isinstance(params, Mapping) else None
            self.request(side, raw["id"], raw["method"], sid if isinstance(sid, str) else None, i)

    def message(self, i: int, side: str, msg: j.Message) -> None:
        if isinstance(msg, j.UpdateSessionNotification):
            if self.expect(i, side, AGENT, "session/update"):
                self.update(i, msg)
        elif isinstance(msg, j.PromptRequest):
            self.request(side, msg.id, j.Method.SESSION_PROMPT, msg.session_id, i)
            if self.expect(i, side, CLIENT, "session/prompt"):
                self.prompt(i, msg)
        elif isinstance(msg, j.CancelSessionNotification):
            if self.expect(i, side, CLIENT, "session/cancel"):
                self.cancel(i, msg)
        elif isinstance(msg, j.RequestPermissionRequest):
            self.request(side, msg.id, j.Method.REQUEST_PERMISSION, msg.session_id, i)
            if self.expect(i, side, AGENT, "session/request_permission"):
                self.permission(i, msg)
        elif isinstance(msg, j.Request):
            self.generic_request(i, side, msg)
        elif isinstance(msg, j.Notification):
            if msg.method in (j.Method.SESSION_PROMPT, j.Method.REQUEST_PERMISSION):
                self.report("J2", i, f"`{msg.method}` is a request but is sent without an id")
        elif isinstance(msg, (j.Response, j.ErrorResponse)):
            self.response(i, side, msg)
        # CancelRequestNotification: either side may send it; nothing to track.

    def expect(self, i: int, side: str, sender: str, method: str) -> bool:
        if side != sender:
            self.report(
                "J2", i, f"`{method}` is sent by the {sender}, but this one comes from the {side}"
            )
            return False
        return True

    def generic_request(self, i: int, side: str, msg: j.Request) -> None:
        params: Mapping[str, JsonValue] = msg.params if isinstance(msg.params, Mapping) else {}
        raw_sid = params.get("sessionId")
        sid = raw_sid if isinstance(raw_sid, str) else None
        if msg.method in (j.Method.SESSION_UPDATE, j.Method.SESSION_CANCEL):
            self.report("J2", i, f"`{msg.method}` is a notification but is sent with id {msg.id!r}")
        self.request(side, msg.id, msg.method, sid, i)
        if msg.method == "session/resume" and side == CLIENT and sid is not None:
            s = self.session(sid)
            if params.get("replayFrom") is None:  # omitted or null: no replay allowed
                s.resume_no_replay = True
            else:
                s.replaying = True

    # -- responses -----------------------------------------------------------------------

    def response(self, i: int, side: str, msg: j.Response | j.ErrorResponse) -> None:
        peer = AGENT if side == CLIENT else CLIENT
        if isinstance(msg, j.ErrorResponse) and msg.id is None:
            return  # an answer to a message that could not be read (JSON-RPC parse errors)
        key = (peer, _id_key(msg.id))
        req = self.pending.pop(key, None)
        if req is None:
            rule = "C25" if side == CLIENT else "J1"
            if key in self.answered:
                why = f"request {msg.id!r} was already answered at line {self.answered[key]}"
            else:
                why = (
                    f"no outstanding request from the {peer} has id {msg.id!r} "
                    "(notifications are never answered)"
                )
            self.report(rule, i, f"{side} sends a response, but {why}")
            return
        self.answered[key] = i
        if req.session is None:
            return
        s = self.session(req.session)
        if req.method == j.Method.SESSION_PROMPT and side == AGENT:
            self.prompt_answer(i, s, msg, req)
        elif req.method == j.Method.REQUEST_PERMISSION and side == CLIENT:
            self.permission_answer(i, s, msg, key[1])
        elif req.method == "session/resume" and side == AGENT:
            s.replaying = False
            s.resume_no_replay = False
            s.turn = None  # replayed turns are history, not live work

    def prompt_answer(
        self, i: int, s: _Session, msg: j.Response | j.ErrorResponse, req: _Pending
    ) -> None:
        p = next((p for p in s.prompts if p.index == req.index), None)
        if p is None:
            return
        if isinstance(msg, j.ErrorResponse):
            s.prompts.remove(p)
            if s.turn is not None and s.turn.prompt is p:
                # A prompt the cancel caught before any work started is answered -32800
                # (2026-11 draft: the cancel covers "prompts not yet inserted").
                held = not s.turn.started and msg.error.code == j.ErrorCode.REQUEST_CANCELLED
                if s.cancel_index is not None and not held:
                    self.report(
                        "R22",
                        i,
                        f"after session/cancel (line {s.cancel_index}) the "
                        f"prompt is answered with error {msg.error.code}; cancellation is "
                        'reported as idle with stopReason "cancelled", never as an error',
                    )
                if s.turn.started:
                    s.turn.prompt = None
                else:
                    s.turn = None
                    s.cancel_index = None  # it cancelled this turn, not work that comes later
            return
        p.accepted = True
        turn = s.turn
        if (
            turn is not None
            and turn.prompt is not None
            and turn.prompt is not p
            and not turn.prompt.accepted
            and not turn.prompt.user_reported
        ):
            # The agent took another waiting prompt (an older queued one, Q4): the work
            # belongs to the prompt it answered.
            turn.prompt = p
        self.prompt_result(i, s, p, msg.result)

    def prompt_result(self, i: int, s: _Session, p: _Prompt, result: JsonValue) -> None:
        rev = self.revision
        if not isinstance(result, Mapping):
            self.report("R1", i, f"the session/prompt result is {_kind(result)}, not an object")
            return
        keys = sorted(k for k in result if k != "_meta")
        if not rev.prompt_result_has_message_id:
            if keys:
                hint = (
                    " (`messageId` in the result belongs to the 2026-11 draft: check with "
                    "--revision 2026-11)"
                    if keys == ["messageId"]
                    else ""
                )
                self.report(
                    "R1",
                    i,
                    f"the session/prompt result must be {{}} (only `_meta` "
                    f"besides) in revision {rev.name}; it has {keys}{hint}",
                )
            return
        mid = result.get("messageId")
        extra = [k for k in keys if k != "messageId"]
        if not isinstance(mid, str) or not mid or extra:
            self.report(
                "R1",
                i,
                f'the session/prompt result must be {{"messageId": ...}} '
                f"(and optional `_meta`) in revision {rev.name}; it has {keys}",
            )
            return
        p.result_id = mid
        if p.bound_id is not None and p.bound_id != mid:
            p.user_reported = mid in s.user_ids  # the first-in-first-out guess was wrong
        elif mid in s.user_ids:
            p.user_reported = True

    def permission_answer(
        self, i: int, s: _Session, msg: j.Response | j.ErrorResponse, request_id: _Key
    ) -> None:
        asked = s.perms.pop(request_id, None)
        silent = s.silent_perms.pop(request_id, None)
        if silent is not None:
            self.report(
                "R11",
                silent,
                "permission requested while running, but no "
                f"requires_action was reported before the client answered (line {i})",
            )
        cancelled = self.cancelled_perms.pop(request_id, None)
        if isinstance(msg, j.Response):
            try:
                outcome = decode_permission_result(msg.result).outcome
            except DecodeError as e:
                self.report("D1", i, f"permission result does not decode ({e})")
                outcome = None
            if (
                cancelled is not None
                and outcome is not None
                and not isinstance(outcome, j.CancelledOutcome)
            ):
                self.report(
                    "C15",
                    i,
                    f"permission request of line {asked} was pending when the "
                    f"client sent session/cancel (line {cancelled[0]}); it must be "
                    'answered with {"outcome": "cancelled"}',
                )
        elif cancelled is not None and msg.error.code != j.ErrorCode.REQUEST_CANCELLED:
            self.report(
                "C15",
                i,
                f"permission request of line {asked} was pending at "
                f"session/cancel (line {cancelled[0]}); it is answered with error "
                f"{msg.error.code} instead of the cancelled outcome",
            )
        if s.fg == REQUIRES_ACTION and not s.perms and s.cancel_index is None:
            s.awaiting_resume = i

    # -- client requests and notifications -----------------------------------------------

    def prompt(self, i: int, msg: j.PromptRequest) -> None:
        s = self.session(msg.session_id)
        p = _Prompt(msg.id, i)
        s.prompts.append(p)
        if s.turn is None and s.fg in (None, IDLE) and not s.replaying:
            s.turn = _Turn(p, i, started=False)

    def cancel(self, i: int, msg: j.CancelSessionNotification) -> None:
        s = self.session(msg.session_id)
        if not s.working():
            return  # harmless while idle; no reply expected (digest Q20)
        s.cancel_index = i
        for request_id in s.perms:
            self.cancelled_perms[request_id] = (i, msg.session_id, False)

    # -- agent requests ------------------------------------------------------------------

    def permission(self, i: int, msg: j.RequestPermissionRequest) -> None:
        s = self.session(msg.session_id)
        key = _id_key(msg.id)
        s.perms[key] = i
        if s.fg == RUNNING and not s.replaying:
            s.silent_perms[key] = i
        self.report_all(i, self.single.permission(s.seen, msg))

    # -- session updates -----------------------------------------------------------------

    def update(self, i: int, msg: j.UpdateSessionNotification) -> None:
        s = self.session(msg.session_id)
        upd = msg.update
        self.report_all(i, self.single.update(s.seen, upd))
        if s.resume_no_replay and isinstance(upd, _HISTORY):
            s.resume_no_replay = False
            self.report(
                "R39",
                i,
                "history update sent before the session/resume response, "
                "though the resume asked for no replay (`replayFrom` omitted or null)",
            )
        if isinstance(upd, u.RunningStateUpdate):
            self.running(i, s)
        elif isinstance(upd, u.RequiresActionStateUpdate):
            self.requires_action(i, s)
        elif isinstance(upd, u.IdleStateUpdate):
            self.idle(i, s, upd.stop_reason, msg.session_id)
        elif isinstance(upd, u.OtherStateUpdate):
            s.fg = upd.state
        elif isinstance(upd, (u.UserMessage, u.UserMessageChunk)):
            self.user_message(s, upd.message_id)
        elif isinstance(upd, _WORK) and s.awaiting_resume is not None and not s.replaying:
            if s.fg == REQUIRES_ACTION and s.cancel_index is None:
                self.report(
                    "R12",
                    i,
                    "work resumed after the permission answer of line "
                    f"{s.awaiting_resume} without a running state_update",
                )
            s.awaiting_resume = None

    def running(self, i: int, s: _Session) -> None:
        if not s.replaying:
            if s.turn is None:
                s.turn = _Turn(s.prompts[0] if s.prompts else None, i, started=True)
            s.turn.started = True
            s.awaiting_resume = None
        s.fg = RUNNING

    def requires_action(self, i: int, s: _Session) -> None:
        if not s.replaying:
            was_working = s.fg in (RUNNING, REQUIRES_ACTION) or (
                s.turn is not None and s.turn.started
            )
            if not was_working and (s.fg == IDLE or s.turn is not None):
                self.report("S1", i, "state goes from idle to requires_action without running")
            if s.turn is None:
                s.turn = _Turn(s.prompts[0] if s.prompts else None, i, started=True)
            s.turn.started = True
            s.silent_perms.clear()
            s.awaiting_resume = None
        s.fg = REQUIRES_ACTION

    def idle(self, i: int, s: _Session, stop: str | None | Unset, sid: str) -> None:
        if s.replaying:
            s.fg = IDLE
            return
        turn = s.turn
        prompt = turn.prompt if turn is not None else None
        ends = (s.fg is not None and s.fg != IDLE) or (
            turn is not None
            and (turn.started or (prompt is not None and (prompt.accepted or prompt.user_reported)))
        )
        if not ends:
            if s.fg == IDLE and isinstance(stop, str):
                self.report("S2", i, f"idle repeated with stopReason {stop!r} while already idle")
            s.fg = IDLE
            return
        if not isinstance(stop, str):
            what = "without" if stop is UNSET else "with a null"
            self.report("R8", i, f"idle ends foreground work {what} stopReason")
        if turn is not None and not turn.started:
            self.report(
                "R6",
                i,
                f"the turn that began at line {turn.index} ends without a running state_update",
            )
        if prompt is not None and not prompt.user_reported:
            self.report(
                "R2",
                i,
                f"the turn ends before the user message of the prompt of line "
                f"{prompt.index} was reported (user_message or user_message_chunk)",
            )
        if prompt is not None and not prompt.accepted:
            self.report(
                "R1", i, f"the turn ends before the prompt of line {prompt.index} was answered"
            )
        if s.cancel_index is not None and isinstance(stop, str) and stop != "cancelled":
            self.report(
                "R21",
                i,
                f"the client cancelled at line {s.cancel_index}, but the work "
                f'ends with stopReason {stop!r} instead of "cancelled"',
            )
        if s.cancel_index is not None:
            for request_id, (at, session_id, _) in self.cancelled_perms.items():
                if session_id == sid:
                    self.cancelled_perms[request_id] = (at, session_id, True)
        # Prompts inserted into this turn are done; later ones wait for the next turn.
        s.prompts = [p for p in s.prompts if p is not prompt and not p.user_reported]
        s.turn = None
        s.cancel_index = None
        s.awaiting_resume = None
        s.fg = IDLE

    def user_message(self, s: _Session, message_id: str) -> None:
        if message_id in s.user_ids:
            return
        s.user_ids.add(message_id)
        if s.replaying:
            return
        waiting = [p for p in s.prompts if not p.user_reported]
        match = next((p for p in waiting if p.result_id == message_id), None)
        if match is None:  # first in, first out among prompts not bound by a result id
            match = next((p for p in waiting if p.result_id is None), None)
        if match is not None:
            match.user_reported = True
            match.bound_id = message_id

    # -- end of trace ----------------------------------------------------------------------

    def finish(self) -> tuple[Violation, ...]:
        for request_id, (at, _, ended) in self.cancelled_perms.items():
            if ended:
                self.report(
                    "C15",
                    at,
                    f"permission request {request_id[1]!r} was pending at this "
                    "session/cancel and is never answered with the cancelled outcome",
                )
        return tuple(sorted(self.out, key=lambda v: v.index))


# -- helpers -------------------------------------------------------------------------------


def _id_key(request_id: object) -> tuple[str, object]:
    # JSON-RPC ids are compared by value and type: 1 and "1" are different ids, and
    # True is not an id at all (bool is an int subclass in Python).
    return (type(request_id).__name__, request_id)


def _kind(value: object) -> str:
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "an array"
    if isinstance(value, str):
        return "a string"
    if value is None:
        return "null"
    if isinstance(value, bool):
        return "a boolean"
    if isinstance(value, (int, float)):
        return "a number"
    return f"a {type(value).__name__}"


def check_trace(
    entries: Iterable[object], *, revision: Revision = DEFAULT_REVISION
) -> tuple[Violation, ...]:
    """Check a recorded conversation against the rule catalogue.

    Args:
        entries: the trace, one item per line: `{"from": "client" | "agent", "message":
            <JSON-RPC message or batch>}` as parsed from JSON. The trace may start
            mid-session (after `initialize` and session setup).
        revision: the protocol revision to judge by (default: the 2026-08 draft).

    Returns:
        The violations, sorted by entry index. A malformed entry is a violation (`D1`),
        never an exception; the input is not modified.
    """
    checker = _Checker(revision)
    for i, entry in enumerate(entries):
        checker.entry(i, entry)
    return checker.finish()
