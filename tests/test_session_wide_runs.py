"""Session-wide reports (usage, session info) folded into a run (`_client.receive_updates`)
give what stepping each message gives, at every revision: `_meta` patches (merged into the
stored `_meta` from 2026-11, usage's too at the Preview), a cost given, null and absent
(Q11), a cost with a bad currency (R37), a title null and absent, unknown keys (R43), mixed
with chunks, tool traffic and state changes, with and without a local cancel mark."""

from __future__ import annotations

from typing import Any

from hypothesis import given, settings
from hypothesis import strategies as st
from test_connection_update_runs import (
    _IDLE,
    _STATE,
    OTHER,
    SID,
    _assert_same,
    _chunk,
    _pieces_equal_steps,
    _prompted,
    _ready,
    _update,
)

import acp_core as acp
from acp_core.codec import decode_message

_META = st.sampled_from([{"a": 1}, {"b": 2}, {"a": None}, {}, {"a": {"x": [1]}}, None])
_COST = st.sampled_from(
    [
        {"amount": 0.5, "currency": "USD"},
        {"amount": 0.5, "currency": "usd!"},  # R37
        {"amount": 1, "currency": "EUR"},
        None,
    ]
)
_USAGE = st.builds(
    lambda used, size, more: {"sessionUpdate": "usage_update", "used": used, "size": size, **more},
    st.sampled_from([0, 5, 6]),
    st.sampled_from([10, 20]),
    st.fixed_dictionaries({}, optional={"cost": _COST, "_meta": _META, "odd": st.just(1)}),
)
_INFO = st.builds(
    lambda more: {"sessionUpdate": "session_info_update", **more},
    st.fixed_dictionaries(
        {},
        optional={
            "title": st.sampled_from(["t", "u", None]),
            "updatedAt": st.sampled_from(["2026-12-07T00:00:00Z", None]),
            "_meta": _META,
            "odd": st.just(1),
        },
    ),
)
_OTHER = st.sampled_from(
    [
        _chunk("agent_message_chunk", "a1"),
        _chunk("agent_message_chunk", "a1", _meta={"k": 1}),
        _chunk("agent_thought_chunk", "t1"),
        _chunk("user_message_chunk", "u1"),
        {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "Read"},
        {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"},
        {"sessionUpdate": "tool_call_update", "toolCallId": "call_0", "status": "in_progress"},
        _STATE,
        _IDLE,
        {"sessionUpdate": "available_commands_update", "availableCommands": []},
    ]
)


@settings(max_examples=300, deadline=None)
@given(
    st.lists(st.one_of(_USAGE, _INFO, _OTHER), max_size=20),
    st.sampled_from(("none", "prompt", "cancel")),
    st.sampled_from((acp.V2_PREVIEW, acp.V2_2026_11, acp.V2_2026_08)),
)
def test_session_wide_reports_in_runs_equal_one_step_a_message(
    updates: list[dict[str, Any]], start: str, revision: acp.Revision
) -> None:
    conn = _ready(revision)
    if start != "none":
        conn = _prompted(conn, cancel=start == "cancel")
    notification = {"jsonrpc": "2.0", "method": "session/update"}
    messages: list[Any] = [
        decode_message(
            {**notification, "params": {"sessionId": SID, "update": u}}, revision=revision
        )
        for u in updates
    ]
    _pieces_equal_steps(conn.engine(SID), messages)
    _assert_same(conn, b"".join(_update(u) for u in updates))


_CHILD = "child_1"
_ANNOUNCE = {"sessionUpdate": "subagent_update", "sessionId": _CHILD, "title": "kid"}


@settings(max_examples=150, deadline=None)
@given(
    st.lists(
        st.tuples(st.one_of(_USAGE, _INFO, _OTHER), st.sampled_from([SID, SID, _CHILD, OTHER])),
        max_size=20,
    ),
    st.sampled_from(("none", "prompt", "cancel")),
    st.sampled_from((acp.V2_PREVIEW, acp.V2_2026_11)),
)
def test_session_wide_reports_of_children_and_other_sessions_cut_runs_as_steps_do(
    updates: list[tuple[dict[str, Any], str]], start: str, revision: acp.Revision
) -> None:
    # A read that also carries a child's and another session's reports (the child announced
    # first, or not: R47 and the orphan bucket).
    conn = _ready(revision)
    if start != "none":
        conn = _prompted(conn, cancel=start == "cancel")
    announced = _update(_ANNOUNCE) if start != "none" else b""
    _assert_same(conn, announced + b"".join(_update(u, sid) for u, sid in updates))
