"""The session views of an HTML report: what each trace line changed, entity by entity.

Owns: `ViewFold` (folds decoded messages into one `SessionState` per session with the public
`reduce`, as a client would: every `session/update`, and the tool call of a permission request
(T10)) and the *changes* a line made, as small JSON values the report's script replays to show
the view right after any line.
Must not know: HTML, the trace's file or line numbers, rules (`_cli/_report.py` joins those).

Why changes and not states: a state after each of 20,000 lines would make the page quadratic in
the trace. A change names one entity of one session (`{"s": session, "k": key, "v": value}`)
or appends text to a message (`{"s", "k", "a": text}`), so the page grows with the trace.
Keys: `m:<id>` message, `t:<id>` tool call, `p:<id>` plan, `x:<id>` terminal, `s` the
session-wide part (foreground, title, usage, pending permissions, counts). Only the entities an
update can touch are compared (the ids it names, new timeline entries), so a line costs the
size of what it changed, not of the session.
"""

from __future__ import annotations

from typing import Any, Final

from acp_core._state._reduce import reduce
from acp_core._state._session_state import (
    MESSAGE,
    PLAN,
    TOOL_CALL,
    SessionState,
    new_session,
    terminal_bytes,
)
from acp_core._wire import _jsonrpc as j
from acp_core._wire import _updates as u
from acp_core._wire._content import TextContent
from acp_core._wire._revision import Revision

from ._render import render_block, render_tool_content

__all__ = ["ViewFold"]

#: Tool call bodies and terminal output longer than this show their last characters only.
TAIL: Final = 4000

_CHUNKS: Final = (u.UserMessageChunk, u.AgentMessageChunk, u.AgentThoughtChunk)

_TIMELINE_TAGS: Final = {MESSAGE: "m:", TOOL_CALL: "t:", PLAN: "p:"}

_PLAN_MARK: Final = {"pending": " ", "in_progress": ">", "completed": "x", "cancelled": "-"}


def _tail(text: str) -> str:
    return text if len(text) <= TAIL else "…" + text[-TAIL:]


def _tool_view(call: Any) -> dict[str, Any]:
    body = "\n".join(render_tool_content(item).rstrip("\n") for item in call.content)
    where = [f"{loc.path}:{loc.line}" if loc.line else str(loc.path) for loc in call.locations]
    return {
        "title": call.title if call.title is not None else "(untitled)",
        "kind": str(call.kind),
        "status": str(call.status),
        "body": _tail(body),
        "at": ", ".join(where),
    }


def _plan_view(plan: Any) -> dict[str, Any]:
    if type(plan.plan) is not u.PlanItems:
        return {"entries": [], "other": str(getattr(plan.plan, "type", "?"))}
    entries = [
        [_PLAN_MARK.get(str(e.status), "?"), str(e.content), str(e.priority)]
        for e in plan.plan.entries
    ]
    return {"entries": entries}


def _terminal_view(terminal: Any) -> dict[str, Any]:
    status = terminal.exit_status
    if status is None:
        state = "running"
    elif isinstance(status.exit_code, int):
        state = f"exited {status.exit_code}"
    elif isinstance(status.signal, str):
        state = f"killed by {status.signal}"
    else:
        state = "exited"
    return {
        "command": terminal.command or "",
        "cwd": terminal.cwd or "",
        "state": state,
        "out": _tail(terminal_bytes(terminal).decode("utf-8", errors="replace")),
    }


def _session_view(state: SessionState, pending: dict[str, str]) -> dict[str, Any]:
    fg = state.foreground
    usage = state.usage
    return {
        "fg": str(fg.state),
        "stop": fg.stop_reason or "",
        "title": state.info.title or "",
        "usage": f"{usage.used} of {usage.size} tokens" if usage is not None else "",
        "pending": list(pending.values()),
        "unknown": len(state.unknown),
        "diag": [f"{d.rule} @ {d.path}: {d.message}" for d in _last(state.diagnostics, 20)],
    }


def _last(items: Any, count: int) -> tuple[Any, ...]:
    # The newest few only: a session's diagnostics grow with the trace.
    n = len(items)
    return tuple(items[max(0, n - count) : n])


def _block_text(block: Any) -> str:
    return block.text if type(block) is TextContent else render_block(block)


class _MessageMark:
    """What the page already shows of a message: its block count and whether the last is text."""

    __slots__ = ("blocks", "last_text", "role")

    def __init__(self, blocks: int, last_text: bool, role: str) -> None:
        self.blocks = blocks
        self.last_text = last_text
        self.role = role


class ViewFold:
    """Sessions folded line by line, and the changes each line made (local to one report)."""

    def __init__(self, revision: Revision) -> None:
        self.revision = revision
        self.sessions: dict[str, SessionState] = {}
        self.pending: dict[str, dict[str, str]] = {}
        self.asked: dict[str, tuple[str, str]] = {}  # agent request key -> (session, key)
        self.shown: dict[tuple[str, str], Any] = {}  # what the page shows of each entity
        self.marks: dict[tuple[str, str], _MessageMark] = {}

    def _state(self, sid: str) -> SessionState:
        state = self.sessions.get(sid)
        if state is None:
            state = self.sessions[sid] = new_session(sid)
            self.pending[sid] = {}
        return state

    def line(self, sender: str, items: tuple[j.Message, ...]) -> list[dict[str, Any]]:
        """Fold the decoded messages of one line; returns the changes it made to the views."""
        changes: list[dict[str, Any]] = []
        for msg in items:
            sid, update = self._apply(sender, msg)
            if sid is not None:
                changes.extend(self._diff(sid, update))
        return changes

    def _apply(self, sender: str, msg: j.Message) -> tuple[str | None, Any]:
        if type(msg) is j.UpdateSessionNotification:
            sid = msg.session_id
            before = self._state(sid)
            self.sessions[sid] = reduce(before, msg.update, revision=self.revision)
            return sid, msg.update
        if type(msg) is j.RequestPermissionRequest and sender == "agent":
            sid = msg.session_id
            state = self._state(sid)
            update = None
            if isinstance(msg.subject, j.ToolCallPermissionSubject):
                update = msg.subject.tool_call  # T10: the subject is a tool call update
                self.sessions[sid] = reduce(state, update, revision=self.revision)
            key = repr(msg.id)
            self.pending[sid][key] = f"{msg.title} (request {msg.id})"
            self.asked[key] = (sid, key)
            return sid, update
        if isinstance(msg, (j.Response, j.ErrorResponse)) and sender == "client":
            asked = self.asked.pop(repr(msg.id), None)
            if asked is not None:
                self.pending[asked[0]].pop(asked[1], None)
                return asked[0], None
        return None, None

    def _diff(self, sid: str, update: Any) -> list[dict[str, Any]]:
        state = self.sessions[sid]
        keys: dict[str, None] = {}
        for attr, prefix in (("message_id", "m:"), ("tool_call_id", "t:"), ("terminal_id", "x:")):
            value = getattr(update, attr, None)
            if isinstance(value, str):
                keys[prefix + value] = None
        plan = getattr(update, "plan", None)
        if plan is not None and isinstance(getattr(plan, "plan_id", None), str):
            keys["p:" + plan.plan_id] = None
        # Entities that joined the timeline this line (named by an update we did not expect).
        timeline = state.timeline
        seen = self.shown.get((sid, "#timeline"), 0)
        for index in range(seen, len(timeline)):
            ref = timeline[index]
            tag = _TIMELINE_TAGS.get(ref.kind)
            if tag:
                keys[tag + ref.id] = None
        self.shown[(sid, "#timeline")] = len(timeline)
        keys["s"] = None
        out: list[dict[str, Any]] = []
        chunk = isinstance(update, _CHUNKS)
        for key in keys:
            change = self._entity(sid, state, key, chunk=chunk)
            if change is not None:
                out.append(change)
        return out

    def _entity(
        self, sid: str, state: SessionState, key: str, *, chunk: bool
    ) -> dict[str, Any] | None:
        kind, _, ident = key.partition(":")
        if kind == "m":
            return self._message(sid, state, key, ident, chunk=chunk)
        value: Any
        if kind == "t":
            call = state.tool_calls.get(ident)
            value = None if call is None else _tool_view(call)
        elif kind == "p":
            plan = state.plans.get(ident)
            value = None if plan is None else _plan_view(plan)
        elif kind == "x":
            terminal = state.terminals.get(ident)
            value = None if terminal is None else _terminal_view(terminal)
        else:
            value = _session_view(state, self.pending.get(sid, {}))
        return self._set(sid, key, value)

    def _set(self, sid: str, key: str, value: Any) -> dict[str, Any] | None:
        if self.shown.get((sid, key)) == value:
            return None
        self.shown[(sid, key)] = value
        return {"s": sid, "k": key, "v": value}

    def _message(
        self, sid: str, state: SessionState, key: str, ident: str, *, chunk: bool
    ) -> dict[str, Any] | None:
        message = state.message(ident)
        if message is None:
            self.marks.pop((sid, key), None)
            return self._set(sid, key, None)
        content = message.content
        count = len(content)
        mark = self.marks.get((sid, key))
        same = chunk and mark is not None and mark.role == message.role
        if same and mark is not None and count == mark.blocks + 1:
            # A streamed chunk: send the new block's text only (the page grows linearly).
            last = content[count - 1]
            is_text = type(last) is TextContent
            sep = "" if is_text and mark.last_text else "\n"
            mark.blocks, mark.last_text = count, is_text
            return {"s": sid, "k": key, "a": sep + _block_text(last)}
        if same and mark is not None and count == mark.blocks:
            return None  # a chunk the reducer did not append: nothing the page shows changed
        parts: list[str] = []
        last_text = False
        for block in content:
            is_text = type(block) is TextContent
            if parts and not (is_text and last_text):
                parts.append("\n")
            parts.append(_block_text(block))
            last_text = is_text
        self.marks[(sid, key)] = _MessageMark(count, last_text, str(message.role))
        self.shown[(sid, key)] = True
        return {"s": sid, "k": key, "v": {"role": str(message.role), "text": "".join(parts)}}
