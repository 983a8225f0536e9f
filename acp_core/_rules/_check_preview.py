"""The trace checks of the 2026-11 draft and the Preview that span sessions of one connection.

Owns: `PreviewRules` (one `check_trace` call's memory of the connection: announced children
and their parents, item capabilities, background lists, replay windows of resume requests,
withdrawn permission requests; its `book` of prompts is `_rules/_check_preview_prompts.py`'s)
and `CHECKED` (the rule ids it reports).
Must not know: one session's turn lifecycle (`_rules/_conversation*.py`), what a message breaks
on its own beyond the Preview values (`_rules/_check_message.py`), files, line numbers beyond
the index it is given.

Theory of operation. `_rules/_check.py` hands every decoded message with the session it belongs
to (an answer: the session of the request it answers). A rule is reported only where the
revision registry says it applies (`Revision.applies`), so at 2026-08 nothing here fires. A
trace may start mid-session: a session id nobody announced is not a fault by itself (it may be
a top-level session set up before the recording); it becomes one (R47) when a later
`subagent_update` announces it as a child. In a recording judged from `initialize` such an
envelope is J3 at once (`_rules/_check_sessions.py`); J3 wins, so a later announcement adds
no R47 for that line: findings are never taken back as a recording grows (`TraceCheck`
extends checks incrementally). Findings never depend on anything but the messages
before them, and nothing here raises on any decoded message.
"""

from __future__ import annotations

import copy
from collections.abc import Callable, Mapping
from typing import Any, Final

from acp_core._wire import _jsonrpc as j
from acp_core._wire._revision import Revision

from ._check_preview_answers import RESTRICTED, agent_answer
from ._check_preview_cancels import Cancels
from ._check_preview_prompts import CHECKED as PROMPTS_CHECKED
from ._check_preview_prompts import PromptBook
from ._check_preview_updates import on_update
from ._conversation_state import Finding
from ._predicates import RequestKey, request_key, shown

__all__ = ["CHECKED", "PreviewRules"]

#: The rules these checks report (the `checked` column of docs/rules.md).
CHECKED: Final = frozenset(
    {
        *("R47", "R48", "R53", "R56", "R57", "R58", "R60", "R62", "R63", "R65"),
        *("R61", "R64", "R66", "R71", "R74", "R75", "R76", "R79", "R81", "R19"),
        *("R49", "R50", "R72", "R73"),
        *("C29", "C34", "C40", "C41"),
        *PROMPTS_CHECKED,
    }
)


_METHOD: Final[Mapping[type, str]] = {
    j.CancelToolCallRequest: j.Method.TOOL_CALL_CANCEL,
    j.CancelTerminalRequest: j.Method.TERMINAL_CANCEL,
}
_ITEM_ID: Final[Mapping[type, Any]] = {
    j.CancelToolCallRequest: lambda m: m.tool_call_id,
    j.CancelTerminalRequest: lambda m: m.terminal_id,
}
# The plain dicts of `PreviewRules` (values never mutated in place).
_DICTS: Final = (
    *("parents", "can_cancel", "child_idle", "unclaimed", "background", "routes"),
    *("replaying", "permissions", "withdrawn", "cancelled", "closed", "child_work"),
    "resumed",
)


class _Resume:
    __slots__ = (
        "at",
        "children",
        "cursor",
        "expected",
        "marked",
        "session",
        "snapshot",
        "stated",
        "users",
    )

    def __init__(self, session: str, at: int, cursor: bool) -> None:
        self.session = session
        self.at = at
        self.cursor = cursor
        self.children: list[str] = []  # announced while this resume was served (R60)
        self.marked: set[str] = set()  # sessions whose replay_complete arrived (R57)
        self.snapshot = False  # a state_update of the session after its history (R62)
        self.stated = False  # any state_update of the session while the resume was served
        self.expected: frozenset[str] = frozenset()  # user ids prompt answers returned (R64)
        self.users: set[str] = set()  # user message ids the replay showed

    def copy(self) -> _Resume:
        twin = _Resume(self.session, self.at, self.cursor)
        twin.children, twin.marked = list(self.children), set(self.marked)
        twin.snapshot, twin.expected, twin.users = self.snapshot, self.expected, set(self.users)
        twin.stated = self.stated
        return twin


class PreviewRules:
    """The cross-session checks for one revision; one instance per `check_trace` call."""

    def __init__(self, revision: Revision) -> None:
        self.revision = revision
        self.found: list[Finding] = []
        self.named: set[str] = set()  # ids the client or a session/new result named
        self.parents: dict[str, str] = {}  # child -> parent (first announcement wins)
        self.can_cancel: dict[str, bool] = {}  # child -> its capabilities permit cancel
        self.child_idle: dict[str, bool] = {}  # child -> its own last state is idle
        self.unclaimed: dict[str, tuple[int, str]] = {}  # unknown id -> (first use, rule)
        self.tools: dict[tuple[str, str], list[Any]] = {}  # [can cancel, final, name]
        self.terminals: dict[tuple[str, str], list[bool]] = {}  # [can cancel, exited]
        self.background: dict[str, dict[tuple[str, str], object] | None] = {}
        self.routes: dict[tuple[str, RequestKey], tuple[str, str | None, object]] = {}
        self.resumes: dict[RequestKey, _Resume] = {}
        self.replaying: dict[str, RequestKey] = {}  # session -> the resume replaying it
        self.upserted: dict[str, set[str]] = {}  # replaying session -> reset message ids
        self.book = PromptBook()  # prompts, keys, held prompts (R59, R67, R68, R70, C43)
        self.resumed: dict[str, int] = {}  # session -> its first session/resume request (R61)
        self.inserted: dict[str, set[str]] = {}  # session -> messageIds prompts got (R64)
        self.permissions: dict[RequestKey, tuple[str, int, str | None]] = {}
        self.withdrawn: dict[RequestKey, int] = {}  # agent's $/cancel_request, unanswered
        self.cancelled: dict[RequestKey, int] = {}  # pending at a session/cancel (R71, C40)
        self.closed: dict[str, int] = {}  # session -> its close answer's line
        self.suggestions: bool | None = None  # the client advertised prompt suggestions
        # (line, session) of every envelope J3 judged: an id a recording from `initialize`
        # never set up. A later announcement does not add R47 there (one finding a fault).
        self.j3: set[tuple[int, str]] = set()
        # Sessions whose whole life the recording shows: a session/new answer gave them, or
        # they were first announced on such a session (R50 judges only their children).
        self.fresh: set[str] = set()
        self.child_work: dict[str, int] = {}  # fresh child -> first output, no own state yet
        self.cancels = Cancels()  # pending elicitations and cancel windows (R72, R73)

    def copy(self) -> PreviewRules:
        """An independent copy (for a checker that forks): containers are copied, the frozen
        values in them shared."""
        twin = copy.copy(self)
        twin.found = list(self.found)
        twin.named, twin.j3, twin.fresh = set(self.named), set(self.j3), set(self.fresh)
        twin.cancels = self.cancels.copy()
        for name in _DICTS:
            setattr(twin, name, dict(getattr(self, name)))
        twin.tools = {k: list(v) for k, v in self.tools.items()}
        twin.terminals = {k: list(v) for k, v in self.terminals.items()}
        twin.book = self.book.copy()
        twin.inserted = {k: set(v) for k, v in self.inserted.items()}
        twin.upserted = {k: set(v) for k, v in self.upserted.items()}
        twin.resumes = {k: v.copy() for k, v in self.resumes.items()}
        return twin

    def report(self, rule: str, at: int, message: str) -> None:
        if self.revision.applies(rule):
            self.found.append(Finding(rule, message, at))

    def take(self) -> list[Finding]:
        out, self.found = self.found, []
        return out

    # -- dispatch ------------------------------------------------------------------------

    def message(self, i: int, side: str, sid: str | None, msg: object) -> list[Finding]:
        """What `msg` (sent by `side`, belonging to session `sid`) breaks across sessions."""
        if isinstance(msg, (j.Response, j.ErrorResponse)):
            self.answer(i, side, msg)
        elif side == "agent":
            self.agent(i, sid, msg)
        else:
            self.client(i, sid, msg)
        if isinstance(msg, (j.Request, j.PromptRequest, j.RequestPermissionRequest)):
            method = (
                msg.method
                if isinstance(msg, j.Request)
                else j.Method.SESSION_PROMPT
                if isinstance(msg, j.PromptRequest)
                else j.Method.REQUEST_PERMISSION
            )
            self.routes[(side, request_key(msg.id))] = (method, sid, msg)
        elif isinstance(msg, (j.CancelToolCallRequest, j.CancelTerminalRequest)):
            item = self.item(msg) or (False, False, False)
            self.routes[(side, request_key(msg.id))] = (_METHOD[type(msg)], sid, item)
        return self.take()

    def item(self, msg: object) -> tuple[bool, bool, bool] | None:
        """For an item cancel: (known, can cancel, final) of the item as it is now."""
        if isinstance(msg, j.CancelToolCallRequest):
            tool = self.tools.get((msg.session_id, msg.tool_call_id))
            return None if tool is None else (True, tool[0], tool[1])
        if isinstance(msg, j.CancelTerminalRequest):
            term = self.terminals.get((msg.session_id, msg.terminal_id))
            return None if term is None else (True, term[0], term[1])
        return None

    def use(self, sid: str, at: int) -> None:
        # A message carries `sid`: remember the first use of an id nobody set up (R47).
        if sid not in self.named and sid not in self.parents:
            self.unclaimed.setdefault(sid, (at, "R47"))
        if self.closed_parent(sid) is not None:
            self.report(
                "R76",
                at,
                f"traffic for {shown(sid)} after session/close of its parent was answered "
                f"(line {self.closed_parent(sid)}): a closed session's children end with it",
            )

    def closed_parent(self, sid: str) -> int | None:
        parent = self.parents.get(sid)
        while parent is not None:
            if parent in self.closed:
                return self.closed[parent]
            parent = self.parents.get(parent)
        return None

    # -- the agent's messages ------------------------------------------------------------

    def agent(self, i: int, sid: str | None, msg: object) -> None:
        if isinstance(msg, j.UpdateSessionNotification):
            self.use(msg.session_id, i)
            self.update(i, msg.session_id, msg.update)
        elif isinstance(msg, j.RequestPermissionRequest):
            self.use(msg.session_id, i)
            subject = msg.subject
            tool = (
                subject.tool_call.tool_call_id
                if isinstance(subject, j.ToolCallPermissionSubject)
                else None
            )
            self.permissions[request_key(msg.id)] = (msg.session_id, i, tool)
        elif isinstance(msg, j.CancelRequestNotification):
            key = request_key(msg.request_id)
            self.cancels.settled(key)
            if key in self.permissions:
                self.withdrawn[key] = i
        elif isinstance(msg, j.Request) and msg.method == "elicitation/create":
            if sid is not None:
                self.use(sid, i)
            self.cancels.elicitation(i, msg)

    def update(self, i: int, sid: str, upd: object) -> None:
        on_update(self, i, sid, upd)

    # -- the client's messages -----------------------------------------------------------

    def client(self, i: int, sid: str | None, msg: object) -> None:
        if isinstance(msg, j.Request) and msg.method == "initialize":
            self.initialize(msg.params)
            return
        if isinstance(msg, j.CancelRequestNotification):
            self.book.withdraw(request_key(msg.request_id))
        if sid is None:
            return
        method = (
            msg.method
            if isinstance(msg, j.Request)
            else j.Method.SESSION_PROMPT
            if isinstance(msg, j.PromptRequest)
            else None
        )
        if sid in self.parents:
            if method in RESTRICTED:
                self.report(
                    "C34",
                    i,
                    f"the client sends `{method}` for {shown(sid)}, a child session (announced "
                    "by subagent_update): clients never prompt, configure, resume or close one",
                )
            elif isinstance(msg, j.CancelSessionNotification) and not self.can_cancel.get(sid):
                self.report(
                    "C29",
                    i,
                    f"the client cancels child session {shown(sid)}, whose capabilities do "
                    "not permit cancel",
                )
        else:
            self.named.add(sid)
        cancels = isinstance(msg, (j.CancelToolCallRequest, j.CancelTerminalRequest))
        if cancels and not (self.item(msg) or (False, False))[1]:
            self.report(
                "C41",
                i,
                f"{_METHOD[type(msg)]} for {shown(_ITEM_ID[type(msg)](msg))}, which does not "
                "advertise capabilities.cancel",
            )
        if isinstance(msg, j.CancelToolCallRequest):
            self.cancels.item_cancel(i, sid, msg.tool_call_id)
        elif isinstance(msg, j.CancelSessionNotification):
            self.cancels.cancel(i, sid, self.unfinished_listed(sid))
        elif isinstance(msg, j.PromptRequest):
            self.cancels.asked(sid)
        if isinstance(msg, j.PromptRequest):
            self.book.prompt(self, i, sid, msg)
        elif isinstance(msg, j.CancelSessionNotification):
            self.book.cancel(i, sid)
            for key, (psid, _at, _tool) in self.permissions.items():
                if psid == sid:
                    self.cancelled.setdefault(key, i)
        elif isinstance(msg, j.Request) and msg.method == "session/close":
            self.book.close(sid)
        elif isinstance(msg, j.Request) and msg.method == "session/resume":
            self.resumed.setdefault(sid, i)
            params = msg.params if isinstance(msg.params, Mapping) else {}
            cursor = params.get("replayFrom") is not None
            resume = self.resumes[request_key(msg.id)] = _Resume(sid, i, cursor)
            resume.expected = frozenset(self.inserted.get(sid, ()))
            self.closed.pop(sid, None)
            if cursor:
                self.replaying[sid] = request_key(msg.id)
                self.upserted[sid] = set()

    def unfinished_listed(self, sid: str) -> frozenset[tuple[str, str]]:
        """The tool calls and children `sid`'s latest background list names that have not
        finished (R73: a session/cancel leaves them running)."""
        listed = self.background.get(sid) or {}
        return frozenset(
            (kind, ident)
            for kind, ident in listed
            if (kind == "tool_call" and not self.tools.get((sid, ident), [False, True])[1])
            or (kind == "subagent" and not self.child_idle.get(ident, False))
        )

    def initialize(self, params: object) -> None:
        caps = params.get("clientCapabilities") if isinstance(params, Mapping) else None
        session = caps.get("session") if isinstance(caps, Mapping) else None
        shown_ = session.get("promptSuggestions") if isinstance(session, Mapping) else None
        self.suggestions = shown_ not in (None, False)

    # -- answers -------------------------------------------------------------------------

    def answer(self, i: int, side: str, msg: j.Response | j.ErrorResponse) -> None:
        key = request_key(msg.id)
        asked = self.routes.pop(("client" if side == "agent" else "agent", key), None)
        if asked is None:
            return
        method, sid, request = asked
        if side == "client":
            self.cancels.settled(key)
            self.permission_answer(i, key, msg)
            return
        agent_answer(self, i, method, sid, request, msg)

    def permission_answer(self, i: int, key: RequestKey, msg: object) -> None:
        asked = self.permissions.pop(key, None)
        withdrawn = self.withdrawn.pop(key, None)
        cancel_at = self.cancelled.pop(key, None)
        if asked is None or cancel_at is None or withdrawn is not None:
            return
        sid, at, tool = asked
        listed = self.background.get(sid) or {}
        result = msg.result if isinstance(msg, j.Response) else None
        outcome = result.get("outcome") if isinstance(result, Mapping) else None
        if ("tool_call", tool) in listed and (
            isinstance(outcome, Mapping) and outcome.get("outcome") == "cancelled"
        ):
            self.report(
                "C40",
                i,
                f"the permission request of line {at} belongs to background tool call "
                f"{shown(tool)}; session/cancel (line {cancel_at}) leaves it open, yet the "
                "client answers it cancelled",
            )

    def not_cancelled(self, i: int, cancels: Callable[[RequestKey], bool | None]) -> None:
        """The session/cancel of line `i` did not cancel the work of the requests for which
        `cancels` (the session machine's `Conversation.cancels`) says False: R71 does not
        ask to withdraw them. A listed tool call's request stays marked for C40."""
        for key, at in list(self.cancelled.items()):
            asked = self.permissions.get(key)
            if at != i or asked is None or cancels(key) is not False:
                continue
            if ("tool_call", asked[2]) not in (self.background.get(asked[0]) or {}):
                del self.cancelled[key]

    def finish(self) -> list[Finding]:
        """What the end of the recording shows: withdrawn requests never answered (C40)."""
        for key, at in self.withdrawn.items():
            self.report(
                "C40",
                at,
                f"the agent withdrew permission request {shown(key[1])} with $/cancel_request; "
                "the client still answers it (cancelled outcome or -32800), and never does",
            )
        return self.take()
