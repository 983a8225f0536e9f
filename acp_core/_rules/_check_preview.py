"""The trace checks of the 2026-11 draft and the Preview that span sessions of one connection.

Owns: `PreviewState` (a frozen value: what the checker remembers of the connection so far:
announced children and their parents, item capabilities, background lists, replay windows of
resume requests, withdrawn permission requests; its `book` of prompts is
`_rules/_check_preview_prompts.py`'s, its `cancels` `_rules/_check_preview_cancels.py`'s),
its two functions `observe_connection(state, at, sender, message, ...) -> (state, findings)`
and `finish_connection(state) -> findings`, `PreviewDraft` (the in-call draft: the memory the
rule modules edit, `_rules/_check_preview_draft.PreviewMemory`, with the dispatch of each
message to them) and `CHECKED` (the rule ids it reports).
Must not know: one session's turn lifecycle (`_rules/_conversation*.py`), what a message breaks
on its own beyond the Preview values (`_rules/_check_message.py`), files, line numbers beyond
the index it is given.
The quiet paths (messages that reach no rule here, or only the tool call records) are
`_rules/_check_preview_quiet.py`'s; their names are served from here too. One job: the state
value and the dispatch to the rule modules (`_check_preview_{answers,cancels,prompts,records,
updates}.py` hold the rules), and `client_knows`, the one home of "does the client know this
session" the agent connection asks too; the forgetting is `_rules/_recent.py`'s.

Theory of operation. `_rules/_protocol.py` hands every decoded message with the session it belongs
to (an answer: the session of the request it answers). A rule is reported only where the
revision registry says it applies (`Revision.applies`), so at 2026-08 nothing here fires. A
trace may start mid-session: a session id nobody announced is not a fault by itself (it may be
a top-level session set up before the recording); it becomes one (R47) when a later
`subagent_update` announces it as a child. In a recording judged from `initialize` such an
envelope is J3 at once (`_rules/_check_sessions.py`); J3 wins, so a later announcement adds
no R47 for that line: findings are never taken back as a recording grows (`IncrementalCheck`
extends checks incrementally). Findings never depend on anything but the messages
before them, and nothing here raises on any decoded message.

Replay windows. `replaying` (session -> its `HistoryWindow`: the resume request replaying it
and the window's R63 upserts, one record) is the one store of the history stream a replay
cursor opens, until the end marker or the answer, for the resumed session and the children
announced in it (R57, R58, R60, R63, C36); the client connection asks it rather than keep a
copy (`_engines/_connection_client_state.history_open`). It is not
the session machine's resume window (`_rules/_conversation_phases.py`, to the answer, R38,
R39), which knows no marker and no child: that module's header says why both exist.

What it forgets (`_rules/_recent.py`). The memories of ids that name no live session, which a
peer grows with every message naming a fresh id, keep the newest `MAX_REMEMBERED_IDS` (2**16,
h2's bound on closed streams) each and forget the oldest, half the bound at a time: `named`
(an id the client names again once it is in the old half becomes new again, so a session the
client keeps using is never forgotten; a session a `session/new` answer gave is in `fresh`,
which readers ask too, so that is never forgotten either), `unclaimed`, `j3`, `resumed`,
`closed` and the book's `cancels`. Within the bound every rule judges as before. Beyond it,
an id forgotten is judged as one never seen, so: a top-level session only the client named,
announced as a child, is R47 (or R61) at its next use, not R48; a child first used long ago,
then announced, is R47/R61 at its next use or not at all; R47 may stand beside a J3 judged
long ago on the same envelope; a child of a session resumed long ago is R47, not R61; R76
misses the children of a session closed long ago, and R70 a prompt after a cancel that long
ago. Not bounded here: the children (`parents`, `can_cancel`, `child_idle`, `fresh`) and each
session's own state (`tools`, `terminals`, `background`, `inserted`), which name sessions
that live.

Values and transients. `PreviewState` and everything in it is frozen (attrs records, tuples,
frozensets, `immutables.Map`, `_rules/_draft.OMap`), so forking the checker is keeping the
old value. Inside one `observe_connection` call the rules edit a `PreviewDraft`: each field
is drafted the first time the call reads it (`immutables.Map.mutate()`, the Clojure/h2
transient idiom), and the call returns the draft frozen again; no draft outlives the call.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any, Final

import attrs

from acp_core._state._pcoll import PMap
from acp_core._wire import _jsonrpc as j
from acp_core._wire._fastnew import fast_evolve
from acp_core._wire._revision import Revision
from acp_core._wire._value import frozen

from ._check_preview_answers import RESTRICTED, agent_answer
from ._check_preview_cancels import Cancels, freeze_cancels
from ._check_preview_draft import PreviewMemory, reported
from ._check_preview_prompts import CHECKED as PROMPTS_CHECKED
from ._check_preview_prompts import PromptBook, freeze_book
from ._check_preview_quiet import (
    QUIET_UPDATES,
    only_tool,
    quiet,
    quiet_session,
    quiet_update,
    quiet_wire,
)
from ._check_preview_records import FINAL_TOOL, HistoryWindow, Resume, Terminal, Tool
from ._check_preview_updates import on_update, recorded_tool
from ._conversation_state import Finding
from ._draft import EMPTY, EMPTY_OMAP, OMap, oitems, opop, oset, twins
from ._naming import Naming
from ._predicates import RequestKey, request_key, shown
from ._recent import EMPTY_RECENT, Recent

__all__ = [
    "CHECKED",
    "QUIET_UPDATES",
    "PreviewDraft",
    "PreviewState",
    "c29_breach",
    "c41_breach",
    "client_knows",
    "finish_connection",
    "observe_connection",
    "observe_connection_fully",
    "quiet",
    "quiet_session",
    "quiet_update",
    "quiet_wire",
    "r76_breach",
]

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


def c29_breach(child: str, can_cancel: bool) -> tuple[str, str] | None:
    """C29: the client sends `session/cancel` for a child only while the child advertises
    `capabilities.cancel`. The rule and why for a cancel of `child`, or None. Asked by the
    checker and by the engines (the client's refusal, the agent's record of the fault)."""
    if can_cancel:
        return None
    return (
        "C29",
        f"the client cancels child session {shown(child)}, whose capabilities do not permit "
        "cancel",
    )


def c41_breach(method: str, item_id: str, can_cancel: bool) -> tuple[str, str] | None:
    """C41: `tool_call/cancel` and `terminal/cancel` only for an item that advertises
    `capabilities.cancel`. The rule and why for `method` on `item_id`, or None. Asked by the
    checker and by the client engine, which refuses to send it."""
    if can_cancel:
        return None
    return "C41", f"{method} for {shown(item_id)}, which does not advertise capabilities.cancel"


def r76_breach(sid: str, ended: bool) -> tuple[str, str] | None:
    """R76 (decision P13): nothing goes out for a session once the `session/close` that ends
    it was answered: a closed session's children end with it. The rule and why for traffic
    on `sid`, or None; `ended` is the asker's view (the checker: an ancestor's close was
    answered, it adds that line; the agent engine: its tree closed `sid`). Asked by the
    checker (`PreviewDraft.use`) and by the agent engine before it sends on a child."""
    if not ended:
        return None
    return (
        "R76",
        f"traffic for {shown(sid)} after the session/close that ended it was answered: "
        "a closed session's children end with it",
    )


@frozen(slots=True)
class PreviewState:
    """The cross-session memory of one connection at one revision (a frozen value)."""

    revision: Revision
    # Memories of ids that name no live session are `Recent` (at most MAX_REMEMBERED_IDS
    # each, the oldest forgotten first: the module header says what that costs).
    # ids the client or a session/new result named (the latter are in `fresh` too, which
    # forgets none: readers ask both, so a session/new session is never forgotten)
    named: Recent[str, bool] = EMPTY_RECENT
    parents: PMap[str, str] = EMPTY  # child -> parent (first announcement wins)
    can_cancel: PMap[str, bool] = EMPTY  # child -> its capabilities permit cancel
    child_idle: PMap[str, bool] = EMPTY  # child -> its own last state is idle
    unclaimed: Recent[str, tuple[int, Naming]] = EMPTY_RECENT  # unknown id -> (first use, how)
    tools: PMap[tuple[str, str], Tool] = EMPTY
    terminals: PMap[tuple[str, str], Terminal] = EMPTY
    # session -> its latest background list (the (kind, id) of each item, in order)
    background: PMap[str, tuple[tuple[str, str], ...] | None] = EMPTY
    routes: PMap[tuple[str, RequestKey], tuple[str, str | None, object]] = EMPTY
    resumes: OMap[RequestKey, Resume] = EMPTY_OMAP
    replaying: PMap[str, HistoryWindow] = EMPTY  # session -> its open history window
    book: PromptBook = attrs.field(
        factory=PromptBook
    )  # prompts, keys, held prompts (R59, R67, R68, R70, C43)
    resumed: Recent[str, int] = EMPTY_RECENT  # session -> its first session/resume (R61)
    inserted: PMap[str, PMap[str, bool]] = EMPTY  # session -> messageIds prompts got (R64)
    permissions: OMap[RequestKey, tuple[str, int, str | None]] = EMPTY_OMAP
    withdrawn: OMap[RequestKey, int] = EMPTY_OMAP  # agent's $/cancel_request, unanswered
    cancelled: OMap[RequestKey, int] = EMPTY_OMAP  # pending at a session/cancel (R71, C40)
    closed: Recent[str, int] = EMPTY_RECENT  # session -> its close answer's line
    suggestions: bool | None = None  # the client advertised prompt suggestions
    # (line, session) of every envelope J3 judged: an id a recording from `initialize`
    # never set up. A later announcement does not add R47 there (one finding a fault).
    j3: Recent[tuple[int, str], bool] = EMPTY_RECENT
    # Sessions whose whole life the recording shows: a session/new answer gave them, or
    # they were first announced on such a session (R50 judges only their children).
    fresh: PMap[str, bool] = EMPTY
    child_work: PMap[str, int] = EMPTY  # fresh child -> first output, no own state yet
    # pending elicitations and cancel windows (R72, R73)
    cancels: Cancels = attrs.field(factory=Cancels)

    def knows(self, session_id: str) -> bool:
        """Whether the client knows `session_id` here (`client_knows`): the agent connection
        asks it before its engine refuses an update naming a session its own tree does not
        hold (`_engines/_agent_build.Build.name_known`)."""
        return client_knows(self, session_id)


def client_knows(memory: PreviewState | PreviewDraft, sid: str) -> bool:
    """Whether the client knows the session `sid`: a `session/new` answer gave it, the client
    named it, or a `subagent_update` announced it. Naming such a session is never R47, R56 or
    R74; the use of any other id is remembered (`PreviewDraft.use`) and becomes one of them
    if a later `subagent_update` announces it. The one home of the question, asked by the
    checker and the agent connection alike."""
    named = memory.named
    return (
        sid in memory.fresh  # (a session/new answer's: `named` may forget it, not this)
        or sid in named.young
        or sid in named.old
        or sid in memory.parents
    )


def observe_connection(
    state: PreviewState,
    at: int,
    sender: str,
    message: object,
    *,
    session: str | None,
    judged_j3: bool = False,
    cancels: Callable[[RequestKey], bool | None] | None = None,
) -> tuple[PreviewState, list[Finding]]:
    """What `message` (line `at`, sent by `sender`, belonging to `session`) breaks across the
    sessions of the connection, and the state after it.

    `judged_j3`: the checker reported J3 for this envelope (J3 wins over R47). `cancels`: for
    the client's `session/cancel`, the session machine's `Conversation.cancels` (which of the
    pending requests the cancel cancels; R71)."""
    if not judged_j3:
        if quiet(state, sender, message):
            return state, []
        if only_tool(state, sender, message):
            notification: Any = message  # (`only_tool`: an agent's tool call update)
            sid, update = notification.session_id, notification.update
            tools, found = recorded_tool(state.tools, sid, update)
            findings = [] if found is None else reported(state.revision, found[0], at, found[1])
            return (state if tools is state.tools else fast_evolve(state, tools=tools)), findings
    return observe_connection_fully(
        state, at, sender, message, session=session, judged_j3=judged_j3, cancels=cancels
    )


def observe_connection_fully(
    state: PreviewState,
    at: int,
    sender: str,
    message: object,
    *,
    session: str | None,
    judged_j3: bool = False,
    cancels: Callable[[RequestKey], bool | None] | None = None,
) -> tuple[PreviewState, list[Finding]]:
    """`observe_connection` without its quiet path (tests/test_check_preview_quiet.py holds
    the two equal)."""
    r = _thaw(state)
    if judged_j3 and session is not None:
        r.j3 = r.j3.set((at, session), True)
    r.message(at, sender, session, message)
    if cancels is not None and isinstance(message, j.CancelSessionNotification):
        r.not_cancelled(at, cancels)
    return r.frozen(state), r.found



def finish_connection(state: PreviewState) -> list[Finding]:
    """What the end of the recording shows: withdrawn requests never answered (C40)."""
    r = _thaw(state)
    r.finish()
    return r.found


class PreviewDraft(PreviewMemory):
    """`PreviewState` being edited inside one call, with the dispatch of each message to the
    rules (the memory and what every rule module does to it: `PreviewMemory`,
    `_rules/_check_preview_draft.py`; the other `_check_preview_*` modules take it as `r`)."""

    __slots__ = ()

    def frozen(self, state: PreviewState) -> PreviewState:
        if self.book_draft is not None:
            self.book = freeze_book(self.book_draft, self.book)
        if self.cancels_draft is not None:
            self.cancels = freeze_cancels(self.cancels_draft, self.cancels)
        return _freeze(self, state)

    # -- dispatch ------------------------------------------------------------------------

    def message(self, i: int, side: str, sid: str | None, msg: object) -> None:
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
            self.routes = self.routes.set((side, request_key(msg.id)), (method, sid, msg))
        elif isinstance(msg, (j.CancelToolCallRequest, j.CancelTerminalRequest)):
            item = self.item(msg) or (False, False, False)
            route = (_METHOD[type(msg)], sid, item)
            self.routes = self.routes.set((side, request_key(msg.id)), route)

    def settled(self, key: RequestKey) -> None:
        """The request `key` is answered or withdrawn: no elicitation is owed for it."""
        if key in self.cancels.elicitations:
            self.edit_cancels().settled(key)

    def item(self, msg: object) -> tuple[bool, bool, bool] | None:
        """For an item cancel: (known, can cancel, final) of the item as it is now."""
        if isinstance(msg, j.CancelToolCallRequest):
            tool = self.tools.get((msg.session_id, msg.tool_call_id))
            return None if tool is None else (True, tool.cancel, tool.final)
        if isinstance(msg, j.CancelTerminalRequest):
            term = self.terminals.get((msg.session_id, msg.terminal_id))
            return None if term is None else (True, term.cancel, term.exited)
        return None

    def use(self, sid: str, at: int) -> None:
        # A message carries `sid`: remember the first use of an id nobody set up (R47).
        if (
            not client_knows(self, sid)
            and sid not in self.unclaimed.young
            and sid not in self.unclaimed.old
        ):
            self.unclaimed = self.unclaimed.set(sid, (at, "envelope"))
        if not self.closed.young and not self.closed.old:  # no close answered: ask nothing
            return
        closed_at = self.closed_parent(sid)
        found = r76_breach(sid, closed_at is not None)
        if found is not None:
            self.report(found[0], at, f"{found[1]} (the close of its parent, line {closed_at})")

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
            self.permissions = oset(
                self.permissions, request_key(msg.id), (msg.session_id, i, tool)
            )
        elif isinstance(msg, j.CancelRequestNotification):
            key = request_key(msg.request_id)
            self.settled(key)
            if key in self.permissions:
                self.withdrawn = oset(self.withdrawn, key, i)
        elif isinstance(msg, j.Request) and msg.method == "elicitation/create":
            if sid is not None:
                self.use(sid, i)
            self.edit_cancels().elicitation(i, msg)

    def update(self, i: int, sid: str, upd: object) -> None:
        on_update(self, i, sid, upd)

    # -- the client's messages -----------------------------------------------------------

    def client(self, i: int, sid: str | None, msg: object) -> None:
        if isinstance(msg, j.Request) and msg.method == "initialize":
            self.initialize(msg.params)
            return
        if isinstance(msg, j.CancelRequestNotification):
            self.edit_book().withdraw(request_key(msg.request_id))
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
            elif isinstance(msg, j.CancelSessionNotification):
                found = c29_breach(sid, self.can_cancel.get(sid, False))
                if found is not None:
                    self.report(found[0], i, found[1])
        elif sid not in self.named:
            self.named = self.named.set(sid, True)
        else:  # named again: a session the client keeps using is never forgotten
            self.named = self.named.touch(sid)
        cancels = isinstance(msg, (j.CancelToolCallRequest, j.CancelTerminalRequest))
        if cancels:
            can_cancel = (self.item(msg) or (False, False))[1]
            found = c41_breach(_METHOD[type(msg)], _ITEM_ID[type(msg)](msg), can_cancel)
            if found is not None:
                self.report(found[0], i, found[1])
        if isinstance(msg, j.CancelToolCallRequest):
            self.edit_cancels().item_cancel(i, sid, msg.tool_call_id)
        elif isinstance(msg, j.CancelSessionNotification):
            self.edit_cancels().cancel(i, sid, self.unfinished_listed(sid))
        elif isinstance(msg, j.PromptRequest) and sid in self.cancels.windows:
            self.edit_cancels().asked(sid)
        if isinstance(msg, j.PromptRequest):
            self.edit_book().prompt(self, i, sid, msg)
        elif isinstance(msg, j.CancelSessionNotification):
            self.edit_book().cancel(i, sid)
            cancelled = self.cancelled
            for key, (psid, _at, _tool) in oitems(self.permissions):
                if psid == sid and key not in cancelled:
                    cancelled = oset(cancelled, key, i)
            self.cancelled = cancelled
        elif isinstance(msg, j.Request) and msg.method == "session/close":
            self.edit_book().close(sid)
        elif isinstance(msg, j.Request) and msg.method == "session/resume":
            self.resumed = self.resumed.add(sid, i)
            params = msg.params if isinstance(msg.params, Mapping) else {}
            cursor = params.get("replayFrom") is not None
            expected = frozenset(self.inserted.get(sid, EMPTY))
            rkey = request_key(msg.id)
            self.resumes = oset(self.resumes, rkey, Resume(sid, i, cursor, expected=expected))
            self.closed = self.closed.delete(sid)
            if cursor:
                self.replaying = self.replaying.set(sid, HistoryWindow(rkey))

    def unfinished_listed(self, sid: str) -> frozenset[tuple[str, str]]:
        """The tool calls and children `sid`'s latest background list names that have not
        finished (R73: a session/cancel leaves them running)."""
        listed = self.background.get(sid) or ()
        return frozenset(
            (kind, ident)
            for kind, ident in listed
            if (kind == "tool_call" and not self.tools.get((sid, ident), FINAL_TOOL).final)
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
        route = ("client" if side == "agent" else "agent", key)
        asked = self.routes.get(route)
        if asked is None:
            return
        self.routes = self.routes.delete(route)
        method, sid, request = asked
        if side == "client":
            self.settled(key)
            self.permission_answer(i, key, msg)
            return
        agent_answer(self, i, method, sid, request, msg)

    def permission_answer(self, i: int, key: RequestKey, msg: object) -> None:
        self.permissions, asked = opop(self.permissions, key)
        self.withdrawn, withdrawn = opop(self.withdrawn, key)
        self.cancelled, cancel_at = opop(self.cancelled, key)
        if asked is None or cancel_at is None or withdrawn is not None:
            return
        sid, at, tool = asked
        listed = self.background.get(sid) or ()
        result = msg.result if isinstance(msg, j.Response) else None
        outcome = result.get("outcome") if isinstance(result, Mapping) else None
        if ("tool_call", tool) in listed:
            answered = isinstance(outcome, Mapping) and outcome.get("outcome") == "cancelled"
            _c40(self, i, listed_answered=(at, tool, cancel_at, answered))

    def not_cancelled(self, i: int, cancels: Callable[[RequestKey], bool | None]) -> None:
        """The session/cancel of line `i` did not cancel the work of the requests for which
        `cancels` (the session machine's `Conversation.cancels`) says False: R71 does not
        ask to withdraw them. A listed tool call's request stays marked for C40."""
        for key, at in oitems(self.cancelled):
            asked = self.permissions.get(key)
            if at != i or asked is None or cancels(key) is not False:
                continue
            if ("tool_call", asked[2]) not in (self.background.get(asked[0]) or ()):
                self.cancelled = opop(self.cancelled, key)[0]

    def finish(self) -> None:
        """What the end of the recording shows: withdrawn requests never answered (C40)."""
        for key, at in oitems(self.withdrawn):
            _c40(self, at, never_answered=key)


def _c40(
    r: PreviewDraft,
    i: int,
    *,
    listed_answered: tuple[int, str | None, int, bool] | None = None,
    never_answered: RequestKey | None = None,
) -> None:
    """C40: the client answers a permission request the agent withdrew (cancelled outcome or
    -32800), and answers one that `session/cancel` leaves open (its tool call is listed as
    background work) like any other, not `cancelled`. Judged where each can show: an answer
    to a listed tool call's request after the cancel (`listed_answered`: the request's line,
    its tool call, the cancel's line, whether the answer is `cancelled`), and the end of the
    recording for a withdrawn request never answered (`never_answered`, its key)."""
    if listed_answered is not None:
        at, tool, cancel_at, cancelled = listed_answered
        if cancelled:
            r.report(
                "C40",
                i,
                f"the permission request of line {at} belongs to background tool call "
                f"{shown(tool)}; session/cancel (line {cancel_at}) leaves it open, yet the "
                "client answers it cancelled",
            )
    if never_answered is not None:
        r.report(
            "C40",
            i,
            f"the agent withdrew permission request {shown(never_answered[1])} with "
            "$/cancel_request; the client still answers it (cancelled outcome or -32800), and "
            "never does",
        )


_SCRATCH: Final = (("found", "[]"), ("book_draft", "None"), ("cancels_draft", "None"))
_thaw, _freeze = twins(PreviewState, PreviewMemory, _SCRATCH, PreviewDraft)
