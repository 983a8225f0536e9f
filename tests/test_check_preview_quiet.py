"""The quiet path of the cross-session rules (`observe_connection` returning the state as it
was for an agent's text chunk on a plain top-level session) is only a shortcut: over every
trace of the Preview table, good and bad, both paths give the same state and the same
findings at every message. A planted quiet path that also skips a child's chunks must fail."""

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
