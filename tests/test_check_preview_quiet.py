"""The quiet path of the cross-session rules (`observe_connection` returning the state as it
was for an agent's text chunk on a plain top-level session) and the tool path (only the tool
call's record edited, `only_tool`) are only shortcuts: over every trace of the Preview table,
good and bad, both give the same state and the same findings at every message as the full
path. A planted quiet path that also skips a child's chunks must fail, and so must a tool
path that forgets the cancel windows."""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any

import pytest
from preview_traces import CASES
from trace_builders import BG_T1, CAN, NEW, P, Q, cancel, state, tool, upd

import acp_core as acp
from acp_core._rules import _check_preview as cp
from acp_core.codec import decode_message

TEXT = {"type": "text", "text": "x"}
# Tool traffic on a named top-level session: patches that keep the tool call's record (the
# quiet path) and ones that do not (a finishing status, capabilities, a name, content that
# names a session; a `cancelled` of a listed background tool call inside a cancel window,
# R73, though it had finished; a content chunk that names a session).
TOOLS = [
    *NEW,
    tool(P, title="watch", status="in_progress", capabilities=CAN),
    tool(P, status="in_progress", rawOutput={"n": 1}),
    upd(
        P, "tool_call_content_chunk", toolCallId="t1", content={"type": "content", "content": TEXT}
    ),
    tool(P, "t2", title="read", status="completed", capabilities=CAN),
    tool(P, "t2", status="failed"),
    tool(P, "t2", capabilities={}),
    tool(P, "t2", name="read_file"),
    tool(P, "t2", name="write_file"),  # renamed: R81, on the tool path
    tool(P, "t2", content=[{"type": "session", "sessionId": "sess_far"}]),
    state(P, "running", background=BG_T1),
    cancel(P),
    tool(P, status="in_progress"),
    tool(P, status="completed"),
    tool(P, status="cancelled"),
    upd(P, "tool_call_content_chunk", toolCallId="t1", content={"type": "session", "sessionId": Q}),
    state(P, "idle", stopReason="cancelled", background=[]),
]
TABLE = [t for _rule, good, bad, _i in CASES for t in (good, bad)]


def _states_again(trace: list[dict[str, Any]]) -> list[dict[str, Any]]:
    # Each of the agent's state updates preceded by a copy without its background list and
    # followed by itself again: states meet the quiet path's tests (a session that already
    # showed no list) inside cancel windows, resumes, cancelled permissions, elicitations.
    out = []
    for entry in trace:
        message = entry.get("message")
        params = message.get("params") if isinstance(message, dict) else None
        update = params.get("update") if isinstance(params, dict) else None
        if entry.get("from") != "agent" or not isinstance(update, dict):
            out.append(entry)
            continue
        if update.get("sessionUpdate") != "state_update":
            out.append(entry)
            continue
        plain = {k: v for k, v in update.items() if k != "background"}
        out.append({**entry, "message": {**message, "params": {**params, "update": plain}}})
        out += [entry, entry]
    return out


# A cancel window over a listed tool call, then states without the list (R74 once): the
# session shows no list, yet its state still closes the window's tool items (R73).
WINDOW = [
    *NEW,
    tool(P, title="watch", status="in_progress", capabilities=CAN),
    state(P, "running", background=BG_T1),
    cancel(P),
    state(P, "running"),
    state(P, "running"),
    tool(P, status="cancelled"),
    state(P, "idle", stopReason="cancelled"),
]
TRACES = [*TABLE, TOOLS, WINDOW, *(_states_again(t) for t in TABLE if _states_again(t) != t)]
# The chunks of a session that is named, then announced as someone's child.
_P, _K = "sess_parent", "sess_child_1"


def _wire(entry: dict[str, Any]) -> dict[str, Any]:
    return entry["message"]


def _both(trace: list[dict[str, Any]]) -> list[tuple[Any, Any]]:
    quick = full = cp.PreviewState(acp.V2_PREVIEW)
    out = []
    for at, entry in enumerate(trace):
        try:
            message = decode_message(_wire(entry), revision=acp.V2_PREVIEW)
        except acp.DecodeError:
            continue
        if isinstance(message, list) or type(message).__name__ == "Batch":
            continue
        sid = getattr(message, "session_id", None)
        sender = entry["from"]
        quick, found_quick = cp.observe_connection(quick, at, sender, message, session=sid)
        full, found_full = cp.observe_connection_fully(full, at, sender, message, session=sid)
        out.append(((quick, found_quick), (full, found_full)))
    return out


@pytest.mark.parametrize("trace", TRACES)
def test_the_quiet_path_changes_nothing_the_full_path_would(trace: list[dict[str, Any]]) -> None:
    for quick, full in _both(trace):
        assert quick == full


def test_the_table_reaches_the_quiet_path() -> None:
    # Not vacuous: some messages of the table do take the shortcut.
    taken = 0
    for trace in TRACES:
        state = cp.PreviewState(acp.V2_PREVIEW)
        for at, entry in enumerate(trace):
            try:
                message = decode_message(_wire(entry), revision=acp.V2_PREVIEW)
            except acp.DecodeError:
                continue
            taken += cp.quiet(state, entry["from"], message)
            sid = getattr(message, "session_id", None)
            state, _ = cp.observe_connection(state, at, entry["from"], message, session=sid)
    assert taken > 0


def test_a_quiet_path_that_skipped_a_childs_chunks_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def too_quiet(state: Any, sender: str, message: Any) -> bool:
        update = getattr(message, "update", None)
        return sender == "agent" and type(update).__name__ == "AgentMessageChunk"

    monkeypatch.setattr(cp, "quiet", too_quiet)
    differs = any(quick != full for trace in TRACES for quick, full in _both(trace))
    assert differs


def test_tool_traffic_reaches_the_quiet_path() -> None:
    # Not vacuous: patches that keep the record, and content chunks, take the shortcut.
    state = cp.PreviewState(acp.V2_PREVIEW)
    kinds = []
    for at, entry in enumerate(TOOLS):
        message = decode_message(_wire(entry), revision=acp.V2_PREVIEW)
        if cp.quiet(state, entry["from"], message):
            kinds.append(type(message.update).__name__)
        sid = getattr(message, "session_id", None)
        state, _ = cp.observe_connection(state, at, entry["from"], message, session=sid)
    assert kinds == ["ToolCallUpdate", "ToolCallContentChunk", "ToolCallUpdate"]


def _judged_updates() -> Iterator[tuple[Any, Any]]:
    """(judge before it, message) for every agent `session/update` of every trace."""
    for trace in TRACES:
        state = cp.PreviewState(acp.V2_PREVIEW)
        for at, entry in enumerate(trace):
            try:
                message = decode_message(_wire(entry), revision=acp.V2_PREVIEW)
            except acp.DecodeError:
                continue
            if isinstance(message, list) or type(message).__name__ == "Batch":
                continue
            if entry["from"] == "agent" and type(message) is acp.UpdateSessionNotification:
                yield state, message
            sid = getattr(message, "session_id", None)
            state, _ = cp.observe_connection(state, at, entry["from"], message, session=sid)


def test_the_split_quiet_test_is_the_whole_one() -> None:
    # `quiet` is `quiet_session` (no update read) and `quiet_update`; an update of a class in
    # `QUIET_UPDATES` is quiet wherever the session may be (what the client connection's
    # runs ask once per class: `_connection_client_updates._quiet_class`).
    quiet_by_class = held_back = 0
    for judge, message in _judged_updates():
        sid, update = message.session_id, message.update
        whole = cp.quiet(judge, "agent", message)
        assert whole == (cp.quiet_session(judge, sid) and cp.quiet_update(judge, sid, update))
        if type(update) in cp.QUIET_UPDATES:
            if cp.quiet_session(judge, sid):
                assert whole
                quiet_by_class += 1
            else:  # a child's, an unnamed or a replaying session's chunk
                assert not whole
                held_back += 1
    assert quiet_by_class  # not vacuous
    assert held_back


def _tool_path_kinds(trace: list[dict[str, Any]]) -> list[str]:
    # What each agent update of `trace` that takes the tool path (not the quiet one) is.
    state = cp.PreviewState(acp.V2_PREVIEW)
    taken = []
    for at, entry in enumerate(trace):
        message = decode_message(_wire(entry), revision=acp.V2_PREVIEW)
        sender = entry["from"]
        if not cp.quiet(state, sender, message) and cp.only_tool(state, sender, message):
            status = message.update.status
            taken.append(status if isinstance(status, str) else "-")
        sid = getattr(message, "session_id", None)
        state, _ = cp.observe_connection(state, at, sender, message, session=sid)
    return taken


def test_tool_traffic_reaches_the_tool_path() -> None:
    # Not vacuous: a first sight (t1), a finish (t2), capabilities and two names edit the
    # record alone; content naming a session and, inside the cancel window (after
    # `cancel(P)`), every patch take the full path (R47's bookkeeping, R73).
    assert _tool_path_kinds(TOOLS) == ["in_progress", "completed", "-", "-", "-"]
    renamed = [f for _, (_, found) in _both(TOOLS) for f in found if f.rule == "R81"]
    assert len(renamed) == 1  # the rename was judged, on the tool path


def test_a_tool_path_that_forgot_the_cancel_windows_is_caught(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    def careless(state: Any, sender: str, message: Any) -> bool:
        update = getattr(message, "update", None)
        return sender == "agent" and type(update).__name__ == "ToolCallUpdate"

    monkeypatch.setattr(cp, "only_tool", careless)
    differs = any(quick != full for trace in (TOOLS, WINDOW) for quick, full in _both(trace))
    assert differs
