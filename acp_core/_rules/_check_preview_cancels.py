"""The Preview trace checks of what a `session/cancel` must leave in place or clean up.

Owns: `Cancels` (a frozen value: the recording's pending `elicitation/create` requests and each
session's cancel window so far), `CancelsDraft` (its in-call view, `_rules/_draft.py`) and the
two rules it decides: R72 (an elicitation tied to a tool call that the cancelled work finished
is withdrawn with `$/cancel_request` by the time that work ends) and R73 (work the session's
latest `background` list names is not stopped by the cancel).
Must not know: the turn lifecycle (`_rules/_conversation*.py`), the permission requests of R71
(`_rules/_check_preview_updates.py`), how the items and lists are read (it is told).

Why these readings (a recording must prove the fault, never suggest it):
- R72. The schema says a request's scope alone does not make it the cancelled work's. A tool
  call that has reached a final status needs nothing any more, so an elicitation tied to
  one (`toolCallId`) that was pending at the cancel (a `session/cancel` of its session, or a
  `tool_call/cancel` of that tool call) and is neither answered nor withdrawn when the
  session's work ends (its next `idle`) is the fault. Session-scoped and
  request-scoped elicitations, and ones tied to a tool call still running, are not judged.
- R73. An item the session's latest list named unfinished at the client's `session/cancel`
  (a tool call not yet final, a child not idle) must not end `cancelled` because of it. A
  tool call is judged until the session's next `state_update` (the cancel's own reaction);
  a listed child until its own next `state_update` (it may end after its parent): ending
  `cancelled` there (the tool call's status; the child's idle with `stopReason:
  "cancelled"`) without a `tool_call/cancel` for it, or a `session/cancel` of the child, is
  the fault. The client's next prompt for the session ends the judging (other work).
  Terminals are not judged: an exit status does not say why a program ended. Outside those
  windows an item may end for any reason.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping

from acp_core._wire import _jsonrpc as j
from acp_core._wire import _updates as u
from acp_core._wire._fastnew import fast_evolve
from acp_core._wire._value import frozen

from ._draft import EMPTY_OMAP, OMap, oitems, opop, oset, twins
from ._predicates import RequestKey, request_key, shown

__all__ = ["Cancels", "CancelsDraft", "Elicitation", "freeze_cancels", "thaw_cancels"]

Item = tuple[str, str]  # ("tool_call", id) | ("subagent", session id)


@frozen(slots=True)
class Elicitation:
    """A pending `elicitation/create` tied to a tool call."""

    session: str
    at: int
    tool: str
    cancel_at: int | None = None  # line of the cancel it is pending at


@frozen(slots=True)
class Cancels:
    """R72's and R73's memory of a recording so far (a frozen value)."""

    # elicitation key -> the request (pending, tied to a tool call)
    elicitations: OMap[RequestKey, Elicitation] = EMPTY_OMAP
    # session -> (line of its session/cancel, the listed items still unfinished then)
    windows: OMap[str, tuple[int, frozenset[Item]]] = EMPTY_OMAP


class CancelsDraft:
    """`Cancels` being edited inside one call (`_rules/_draft.twins`), with R72 and R73."""

    __slots__ = ("elicitations", "windows")
    elicitations: OMap[RequestKey, Elicitation]
    windows: OMap[str, tuple[int, frozenset[Item]]]

    # -- what the agent asks and withdraws -------------------------------------------------

    def elicitation(self, i: int, msg: j.Request) -> None:
        params = msg.params if isinstance(msg.params, Mapping) else {}
        sid, tool = params.get("sessionId"), params.get("toolCallId")
        if isinstance(sid, str) and isinstance(tool, str):
            self.elicitations = oset(
                self.elicitations, request_key(msg.id), Elicitation(sid, i, tool)
            )

    def settled(self, key: RequestKey) -> None:
        """The elicitation `key` is answered or withdrawn: nothing is owed for it."""
        self.elicitations = opop(self.elicitations, key)[0]

    # -- what the client asks ----------------------------------------------------------------

    def cancel(self, i: int, sid: str, listed: frozenset[Item]) -> None:
        """The client's `session/cancel` of `sid`; `listed`: the unfinished items of its
        latest background list."""
        for key, entry in oitems(self.elicitations):
            if entry.session == sid and entry.cancel_at is None:
                self.elicitations = oset(self.elicitations, key, fast_evolve(entry, cancel_at=i))
        if listed:
            self.windows = oset(self.windows, sid, (i, listed))
        for parent, (at, items) in oitems(self.windows):
            # A cancel of a listed child asks for that child's end (C35).
            if ("subagent", sid) in items:
                self.windows = oset(self.windows, parent, (at, items - {("subagent", sid)}))

    def item_cancel(self, i: int, sid: str, tool_call_id: str) -> None:
        """The client's `tool_call/cancel`: that tool call may end `cancelled` now (R73), and
        its elicitations are of cancelled work (R72)."""
        for key, entry in oitems(self.elicitations):
            if entry.session == sid and entry.tool == tool_call_id and entry.cancel_at is None:
                self.elicitations = oset(self.elicitations, key, fast_evolve(entry, cancel_at=i))
        window = self.windows.get(sid)
        if window is not None:
            self.windows = oset(
                self.windows, sid, (window[0], window[1] - {("tool_call", tool_call_id)})
            )

    def asked(self, sid: str) -> None:
        """Any other client message for `sid` (a prompt, ...): its cancel window ends."""
        self.windows = opop(self.windows, sid)[0]

    # -- what the agent reports --------------------------------------------------------------

    def tool(self, sid: str, upd: u.ToolCallUpdate) -> str | None:
        """R73's finding for a listed tool call ending `cancelled` inside the window."""
        window = self.windows.get(sid)
        item = ("tool_call", upd.tool_call_id)
        if window is None or upd.status != u.ToolCallStatus.CANCELLED or item not in window[1]:
            return None
        self.windows = oset(self.windows, sid, (window[0], window[1] - {item}))
        return (
            f"tool call {shown(upd.tool_call_id)} is listed as background work, and ends "
            f"cancelled after the session/cancel of line {window[0]} though no tool_call/cancel "
            "asked for it: a session/cancel stops only foreground work"
        )

    def state(self, sid: str, upd: object) -> list[str]:
        """A `state_update` of `sid`: R73's findings for a listed child ending `cancelled`;
        it ends the judging of that child, and of `sid`'s own listed tool calls."""
        found = []
        cancelled = isinstance(upd, u.IdleStateUpdate) and upd.stop_reason == "cancelled"
        for parent, (at, items) in oitems(self.windows):
            if ("subagent", sid) not in items:
                continue
            self._keep(parent, at, items - {("subagent", sid)})
            if cancelled:
                found.append(
                    f"child {shown(sid)} is listed as background work of {shown(parent)}, "
                    f"and ends cancelled after the session/cancel of {shown(parent)} (line "
                    f"{at}), which leaves listed children running; only a session/cancel "
                    "of the child itself stops it"
                )
        own = self.windows.get(sid)
        if own is not None:
            self._keep(sid, own[0], frozenset(x for x in own[1] if x[0] == "subagent"))
        return found

    def _keep(self, sid: str, at: int, items: frozenset[Item]) -> None:
        if items:
            self.windows = oset(self.windows, sid, (at, items))
        else:
            self.windows = opop(self.windows, sid)[0]

    def idle(self, sid: str, finished: Callable[[str], bool]) -> list[str]:
        """The idle that ends `sid`'s cancelled work: R72's findings for elicitations still
        pending that were tied to a tool call now `finished`. Elicitations of tool calls
        still running stay open, judged no more."""
        found = []
        for key, entry in oitems(self.elicitations):
            esid, at, tool, cancel_at = entry.session, entry.at, entry.tool, entry.cancel_at
            if esid != sid or cancel_at is None:
                continue
            if finished(tool):
                self.elicitations = opop(self.elicitations, key)[0]
                found.append(
                    f"elicitation/create {shown(key[1])} (line {at}) for tool call "
                    f"{shown(tool)} is still pending when the work cancelled at line "
                    f"{cancel_at} ends, and that tool call has finished: withdraw it with "
                    "$/cancel_request"
                )
            else:
                self.elicitations = oset(self.elicitations, key, fast_evolve(entry, cancel_at=None))
        return found


thaw_cancels, freeze_cancels = twins(Cancels, CancelsDraft)
