"""A read's runs of session updates, received as one step (`_connection_client_updates.py`,
`_client.receive_updates`), give what stepping each message alone gives.

The law: `receive_bytes(conn, data)` equals feeding `data` to the framing and then
`connection_step` on each framed value in order: the same connection (sessions, engines,
their violations with their indexes, views, the exchange rules, the judge) and the same
events in the same order. Checked on the benchmark's mixed workload (long runs of plain
text chunks, the folded path), around a host prompt (its `PromptEnded` where its work ends)
and a local cancel (a view apart from the session), and on random streams mixing every
kind of line a run must stop at (faults of each layer, other sessions, requests, answers).
"""

from __future__ import annotations

import json
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import acp_core as acp
from acp_core import connection as c
from acp_core import intents as i
from acp_core._engines._client import client_step, receive_updates
from acp_core._wire._framing import feed_ndjson
from acp_core.codec import decode_message
from benchmarks.workloads import mixed

_INFO = c.Implementation("runs-client", "1")
SID, OTHER = "sess_1", "sess_2"


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _update(update: dict[str, Any], sid: str = SID) -> bytes:
    params = {"sessionId": sid, "update": update}
    return _line({"jsonrpc": "2.0", "method": "session/update", "params": params})


def _ready(revision: acp.Revision = acp.V2_PREVIEW) -> c.ClientConnection:
    """Initialized, with SID and OTHER open."""
    conn = c.new_client_connection(_INFO, revision=revision)
    conn = c.connection_step(conn, c.Initialize(request_id=0)).connection
    answer = {"protocolVersion": 2, "info": {"name": "a", "version": "1"}, "capabilities": {}}
    conn = c.receive_bytes(conn, _line({"jsonrpc": "2.0", "id": 0, "result": answer})).connection
    for request_id, sid in ((1, SID), (2, OTHER)):
        conn = c.connection_step(conn, c.NewSession("/w", request_id=request_id)).connection
        result = {"sessionId": sid}
        conn = c.receive_bytes(
            conn, _line({"jsonrpc": "2.0", "id": request_id, "result": result})
        ).connection
    return conn


def _prompted(conn: c.ClientConnection, *, cancel: bool) -> c.ClientConnection:
    """A host prompt open on SID (id 10), its work running; cancelled locally if `cancel`."""
    prompt = c.SessionIntent(SID, acp.SendPrompt((acp.TextContent("go"),), request_id=10))
    conn = c.connection_step(conn, prompt).connection
    conn = c.receive_bytes(conn, _update({"sessionUpdate": "state_update", "state": "running"}))[0]
    tool = {"sessionUpdate": "tool_call_update", "toolCallId": "call_0", "status": "pending"}
    conn = c.receive_bytes(conn, _update(tool)).connection
    if cancel:
        conn = c.connection_step(conn, c.SessionIntent(SID, acp.SendCancel())).connection
        assert conn.view(SID) is not conn.sessions[SID].engine.session  # a local mark
    return conn


def _one_at_a_time(conn: c.ClientConnection, data: bytes) -> c.ConnectionStep:
    """`receive_bytes` as one `connection_step` per framed value (no runs)."""
    decoder, framed = feed_ndjson(conn.decoder, data)
    conn = attrs.evolve(conn, decoder=decoder)
    wire: list[Any] = []
    events: list[object] = []
    for item in framed:
        step = c.connection_step(conn, item)
        conn = step.connection
        wire.extend(step.outbound)
        events.extend(step.events)
    return c.ConnectionStep(conn, tuple(wire), tuple(events))


def _assert_same(conn: c.ClientConnection, data: bytes) -> c.ConnectionStep:
    together = c.receive_bytes(conn, data)
    alone = _one_at_a_time(conn, data)
    assert together.events == alone.events
    assert together.outbound == alone.outbound
    assert together.connection == alone.connection
    for sid in together.connection.sessions:
        ours, theirs = together.connection.engine(sid), alone.connection.engine(sid)
        assert ours.violations == theirs.violations
        assert ours.messages == theirs.messages  # not part of equality: the indexes' source
    assert together.connection.judged == alone.connection.judged
    return together


def _workload_bytes(n: int, *, ended: bool = True) -> bytes:
    updates = mixed(n).v2
    if not ended:
        updates = [u for u in updates if u.get("sessionUpdate") != "state_update"]
    return b"".join(_update(u) for u in updates)


def test_the_mixed_workload_read_at_once_equals_one_step_a_message() -> None:
    step = _assert_same(_ready(), _workload_bytes(1500))
    views = [e for e in step.events if isinstance(e, c.ViewChanged)]
    assert len(views) > 1000  # every update showed (the runs folded most of them)


def test_a_host_prompt_ends_at_its_own_update_inside_a_run() -> None:
    conn = _prompted(_ready(), cancel=False)
    chunk = _update(_chunk("agent_message_chunk", "a1"))
    # The user message binds the prompt (Q7); the idle ends its work.
    data = _update(_chunk("user_message_chunk", "u1")) + chunk * 3 + _update(_IDLE) + chunk * 2
    step = _assert_same(conn, data)
    kinds = [type(e).__name__ for e in step.events]
    assert kinds.index("PromptEnded") == 5  # after the idle's ViewChanged, before the rest
    assert kinds.count("ViewChanged") == 7
    answer = {"jsonrpc": "2.0", "id": 10, "result": {"stopReason": "end_turn"}}
    _assert_same(conn, data + _line(answer))


def test_a_view_set_apart_by_a_local_cancel_folds_as_it_reduces() -> None:
    conn = _prompted(_ready(), cancel=True)
    _assert_same(conn, _workload_bytes(600, ended=False))


def test_the_2026_08_revision_keeps_the_law() -> None:
    _assert_same(_ready(acp.V2_2026_08), _workload_bytes(600))


def _chunk(kind: str, mid: str, text: str = "t", **extra: Any) -> dict[str, Any]:
    content = {"type": "text", "text": text}
    return {"sessionUpdate": kind, "messageId": mid, "content": content, **extra}


_STATE = {"sessionUpdate": "state_update", "state": "running"}
_IDLE = {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"}
_PERMISSION = {
    "jsonrpc": "2.0",
    "id": 50,
    "method": "session/request_permission",
    "params": {
        "sessionId": SID,
        "title": "Run?",
        "options": [{"optionId": "a", "name": "Allow", "kind": "allow_once"}],
    },
}

#: Lines a run must take, or stop at: plain chunks (folded), chunks of a mismatched role
#: (R5), with unknown keys (R43), with `_meta`, with an image; tool content chunks (folded
#: once their tool call is known, R14 before), tool calls, state changes,
#: usage, the exchange's own reads (config options), the Preview's markers and children,
#: another session, an unknown one, undecodable params, requests, answers, garbage.
LINES: tuple[bytes, ...] = (
    _update(_chunk("agent_message_chunk", "a1")),
    _update(_chunk("agent_message_chunk", "a1", "more")),
    _update(_chunk("agent_message_chunk", "a2")),
    _update(_chunk("agent_thought_chunk", "t1")),
    _update(_chunk("user_message_chunk", "u1")),
    _update(_chunk("agent_message_chunk", "t1")),  # R5: the thought's id
    _update(_chunk("agent_message_chunk", "a1", surprise=1)),  # R43
    _update(_chunk("agent_message_chunk", "a1", _meta={"k": 1})),
    _update(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "a1",
            "content": {"type": "image", "data": "iVBORw0KGgo=", "mimeType": "image/png"},
        }
    ),
    _update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "Read"}),
    _update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "completed"}),
    _update(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "c1",
            "content": {"type": "content", "content": {"type": "text", "text": "out"}},
        }
    ),
    _update(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "c9",  # R14: first seen by a chunk
            "content": {"type": "content", "content": {"type": "text", "text": "out"}},
        }
    ),
    _update(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "c1",
            "content": {"type": "content", "content": {"type": "text", "text": "m"}},
            "_meta": {"k": 2},
        }
    ),
    _update(_STATE),
    _update(_IDLE),
    _update({"sessionUpdate": "usage_update", "used": 1, "size": 10}),
    _update({"sessionUpdate": "config_option_update", "configOptions": []}),
    _update(  # R79 (the judge's): this client advertised no prompt suggestions
        {
            "sessionUpdate": "prompt_suggestions_update",
            "suggestions": [{"prompt": [{"type": "text", "text": "go"}]}],
        }
    ),
    _update({"sessionUpdate": "replay_complete"}),
    _update({"sessionUpdate": "subagent_update", "sessionId": "child_1", "title": "kid"}),
    _update(_chunk("agent_message_chunk", "k1"), "child_1"),
    _update(_chunk("agent_message_chunk", "o1"), OTHER),
    _update(_chunk("agent_message_chunk", "n1"), "nobody"),
    _update({"sessionUpdate": "tool_call_update"}),  # undecodable: no toolCallId
    _line({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": SID}}),
    _line(_PERMISSION),
    _line({"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 50}}),
    _line({"jsonrpc": "2.0", "id": 10, "result": {"stopReason": "end_turn"}}),
    _line({"jsonrpc": "2.0", "method": "session/update", "id": 7, "params": {}}),
    b"{not json\n",
)


@settings(max_examples=150, deadline=None)
@given(
    st.lists(st.sampled_from(LINES), max_size=40),
    st.sampled_from(("none", "prompt", "cancel")),
    st.sampled_from((acp.V2_PREVIEW, acp.V2_2026_08)),
)
def test_any_stream_read_at_once_equals_one_step_a_message(
    lines: list[bytes], start: str, revision: acp.Revision
) -> None:
    conn = _ready(revision)
    if start != "none":
        conn = _prompted(conn, cancel=start == "cancel")
    _assert_same(conn, b"".join(lines))


@pytest.mark.parametrize("revision", [acp.V2_PREVIEW, acp.V2_2026_08], ids=lambda r: r.name)
@pytest.mark.parametrize("cancel", [False, True], ids=["view_is_session", "view_apart"])
def test_receive_updates_equals_client_steps_one_at_a_time(
    cancel: bool, revision: acp.Revision
) -> None:
    # The engine's own law, on the workload (plain chunk runs fold; the rest apply), taken
    # in the pieces it takes: each stops at the update that changes the prompt records (at
    # 2026-08 a user chunk binds the prompt, Q7; an idle ends its work).
    conn = _prompted(_ready(revision), cancel=cancel)
    engine = conn.engine(SID)
    user = _update(_chunk("user_message_chunk", "u0"))  # binds the prompt (Q7)
    lines = (user + _workload_bytes(400)).splitlines()
    messages: list[Any] = [decode_message(json.loads(line)) for line in lines]
    pieces = 0
    while messages:
        together, changed = receive_updates(engine, messages)
        assert 1 <= len(changed) <= len(messages)
        alone, shown = engine, []
        for message in messages[: len(changed)]:
            assert alone.sent is engine.sent  # the piece ends at the first that moves them
            after = client_step(alone, i.Received(message)).state
            shown.append(after.view is not alone.view)
            alone = after
        assert changed == shown
        assert together == alone
        assert together.violations == alone.violations
        assert together.messages == alone.messages
        if len(changed) < len(messages):
            assert together.sent is not engine.sent  # stopped where a prompt record moved
        engine, messages, pieces = together, messages[len(changed) :], pieces + 1
    assert pieces > 1


def test_a_folded_tool_chunk_joins_the_work_a_cancel_marks() -> None:
    # A tool call first reported while idle joins the running work at its next chunk (Q18):
    # the folded chunk grows the work's tool calls as `_apply` does, so a cancel marks it.
    conn = _ready()
    tool = {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "Read"}
    content = {"type": "content", "content": {"type": "text", "text": "out"}}
    chunk = {"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c1", "content": content}
    data = _update(tool) + _update(_STATE) + _update(chunk) * 2
    step = _assert_same(conn, data)
    assert "c1" in step.connection.engine(SID).work_tool_calls
    cancelled = c.connection_step(step.connection, c.SessionIntent(SID, acp.SendCancel()))
    assert cancelled.connection.view(SID).tool_calls["c1"].status == "cancelled"
