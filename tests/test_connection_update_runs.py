"""A read's runs of session updates, received as one step (`_connection_client_updates.py`,
`_client.receive_updates`), give what stepping each message alone gives.

The law: `receive_bytes(conn, data)` equals feeding `data` to the framing and then
`connection_step` on each framed value in order: the same connection (sessions, engines,
their violations with their indexes, views, the exchange rules, the judge) and the same
events in the same order. Checked on the benchmark's mixed workload (long runs of plain
text chunks, the folded path), around a host prompt (its `PromptEnded` where its work ends)
and a local cancel (a view apart from the session), and on random streams mixing every
kind of line a run must stop at (faults of each layer, other sessions, requests, answers).

The law holds with the compiled decoder of the hot lines (`_connection._client_read`, msgspec)
and without it; and a connection fed the same reads, in any split, with it and without it
ends equal, with the same outbound, events and ids, on the workload and on random streams
(from a replaying session and through a v1 handshake too).
"""

from __future__ import annotations

import contextlib
import itertools
import json
from collections.abc import Iterator
from typing import Any

import attrs
import pytest
from hypothesis import example, given, settings
from hypothesis import strategies as st

import acp_core as acp
from acp_core import connection as c
from acp_core import intents as i
from acp_core._engines import _client, _connection
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


@contextlib.contextmanager
def _decoder(compiled: bool) -> Iterator[None]:
    """`receive_bytes` with the compiled decoder of the hot lines (msgspec, where installed:
    the `fast` extra) or with every line parsed, as where it is not installed."""
    if compiled:
        pytest.importorskip("msgspec", reason="the optional `fast` extra (msgspec)")
        assert _connection._hot_line_reader() is not None
        yield
        return
    installed = _connection._hot_line_reader
    _connection._hot_line_reader = lambda: None  # type: ignore[assignment]
    try:
        yield
    finally:
        _connection._hot_line_reader = installed  # type: ignore[assignment]


def _assert_equal_steps(ours: c.ConnectionStep, theirs: c.ConnectionStep) -> None:
    assert ours.events == theirs.events
    assert ours.outbound == theirs.outbound
    assert ours.ids == theirs.ids
    assert ours.connection == theirs.connection
    for sid in ours.connection.sessions:
        mine, other = ours.connection.engine(sid), theirs.connection.engine(sid)
        assert mine.violations == other.violations
        assert mine.messages == other.messages  # not part of equality: the indexes' source
    assert ours.connection.rules.judged == theirs.connection.rules.judged
    assert ours.connection.decoder == theirs.connection.decoder


def _assert_same(conn: c.ClientConnection, data: bytes) -> c.ConnectionStep:
    """The law, with the compiled decoder (where installed) and without it (the reference
    parses every line)."""
    alone = _one_at_a_time(conn, data)
    for compiled in (True, False) if c.compiled_decoder() == "msgspec" else (False,):
        with _decoder(compiled):
            together = c.receive_bytes(conn, data)
        assert together.events == alone.events
        assert together.outbound == alone.outbound
        assert together.connection == alone.connection
        for sid in together.connection.sessions:
            ours, theirs = together.connection.engine(sid), alone.connection.engine(sid)
            assert ours.violations == theirs.violations
            assert ours.messages == theirs.messages  # not part of equality: the indexes' source
        assert together.connection.rules.judged == alone.connection.rules.judged
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


def test_a_run_ending_at_a_prompt_leaves_the_rules_and_the_judge_where_it_ended() -> None:
    # After the idle that ends the host's prompt, the same read goes on with updates the
    # judge records (a state, a tool call's first sight, a user message) and ones it lets
    # through: the run that ends at the idle must leave the exchange rules and the judge as
    # they stood after the idle, not after what the loop looked at beyond it.
    conn = _prompted(_ready(), cancel=False)
    chunk = _update(_chunk("agent_message_chunk", "a1"))
    running = _update({"sessionUpdate": "state_update", "state": "running"})
    first = _update({"sessionUpdate": "tool_call_update", "toolCallId": "call_9"})
    after = running + first + chunk + _update(_chunk("user_message_chunk", "u2")) + chunk
    data = _update(_chunk("user_message_chunk", "u1")) + chunk * 2 + _update(_IDLE) + after
    step = _assert_same(conn, data)
    assert [type(e).__name__ for e in step.events].count("PromptEnded") == 1


@pytest.mark.parametrize("revision", [acp.V2_PREVIEW, acp.V2_2026_08], ids=lambda r: r.name)
def test_a_chunk_is_asked_again_when_its_machine_or_its_class_changed(
    revision: acp.Revision,
) -> None:
    # The run remembers the machine's quiet answer for the chunks of one streamed message:
    # the same id after the machine moved on (a new turn: the id is new to its work), the
    # same id in a chunk of another class (a user message's: new to the user's ids), and
    # another id on the same machine must be asked again.
    def chunk(kind: str) -> bytes:
        return _update(_chunk(kind, "m1"))

    running = _update({"sessionUpdate": "state_update", "state": "running"})
    idle = _update(_IDLE)
    agent = chunk("agent_message_chunk")
    for data in (
        running + agent * 2 + idle + running + agent * 2,
        # quiet outside a turn (the history begun by another message), then new to the work
        _update(_chunk("agent_message_chunk", "m0")) + agent * 2 + running + agent * 2,
        running + _update(_chunk("agent_message_chunk", "m0")) * 2 + agent * 2,  # a new id
        running + agent * 2 + chunk("user_message_chunk") * 2 + agent,
        running + chunk("agent_thought_chunk") * 2 + agent * 2,
    ):
        conn = _ready(revision)
        _assert_same(conn, data)
        # and the engine's own law, on one piece (the connection may cut a read's runs)
        messages = [decode_message(json.loads(line)) for line in data.splitlines()]
        _pieces_equal_steps(conn.engine(SID), messages)


@pytest.mark.parametrize("revision", [acp.V2_PREVIEW, acp.V2_2026_08], ids=lambda r: r.name)
def test_a_streamed_message_s_chunk_that_is_not_plain_is_judged_in_the_run(
    revision: acp.Revision,
) -> None:
    # The plain chunks of one streamed message join the run unasked (`receive_updates`),
    # but not a chunk of that message whose block or chunk has unknown keys or annotations:
    # its R43 is found at its place, as stepping each message finds it.
    plain = _update(_chunk("agent_message_chunk", "a1"))
    odd_chunk = _update(_chunk("agent_message_chunk", "a1", surprise=1))
    annotated = _update(
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "a1",
            "content": {"type": "text", "text": "x", "annotations": {"priority": 0.5}},
        }
    )
    for odd in (_update(_CHUNK_ODD_BLOCK), _update(_CHUNK_ODD_ANNOTATIONS), odd_chunk):
        step = _assert_same(_ready(revision), _update(_STATE) + plain * 3 + odd + plain)
        rules = [v.rule for v in step.connection.engine(SID).violations]
        assert rules == ["R43"], rules
    # An annotated chunk without unknown keys breaks nothing, and folds as it reduces.
    step = _assert_same(_ready(revision), _update(_STATE) + plain * 2 + annotated + plain)
    assert not step.connection.engine(SID).violations
    blocks = step.connection.view(SID).messages["a1"].content
    assert any(block.annotations is not acp.UNSET for block in blocks)


def test_a_view_set_apart_by_a_local_cancel_folds_as_it_reduces() -> None:
    conn = _prompted(_ready(), cancel=True)
    _assert_same(conn, _workload_bytes(600, ended=False))


def test_the_2026_08_revision_keeps_the_law() -> None:
    _assert_same(_ready(acp.V2_2026_08), _workload_bytes(600))


def _chunk(kind: str, mid: str, text: str = "t", **extra: Any) -> dict[str, Any]:
    content = {"type": "text", "text": text}
    return {"sessionUpdate": kind, "messageId": mid, "content": content, **extra}


_STATE = {"sessionUpdate": "state_update", "state": "running"}
#: Chunks of message a1 that are not plain: an unknown key in the text block, and in its
#: annotations (each R43).
_CHUNK_ODD_BLOCK = {
    "sessionUpdate": "agent_message_chunk",
    "messageId": "a1",
    "content": {"type": "text", "text": "x", "odd": 1},
}
_CHUNK_ODD_ANNOTATIONS = {
    "sessionUpdate": "agent_message_chunk",
    "messageId": "a1",
    "content": {"type": "text", "text": "x", "annotations": {"priority": 0.5, "odd": 1}},
}
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
#: once their tool call is known, R14 before), tool calls, their plain patches (folded
#: once known) and patches that are not plain, state changes,
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
    _update(_CHUNK_ODD_BLOCK),  # R43 (in its content block)
    _update(_CHUNK_ODD_ANNOTATIONS),  # R43 (in its block's annotations)
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
    # Plain patches of a known tool call (folded once it is known): a status, raw values
    # (the same again changes nothing), and the ones that are not plain: an unknown status
    # (R18), a null one, `_meta`, unknown keys (R43), a title.
    _update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "in_progress"}),
    _update({"sessionUpdate": "tool_call_update", "toolCallId": "call_0", "status": "failed"}),
    _update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "rawOutput": {"lines": 3}}),
    _update(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "status": "completed",
            "rawInput": [1, "a"],
            "rawOutput": None,
        }
    ),
    _update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "weird"}),
    _update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": None}),
    _update(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "c1",
            "status": "failed",
            "_meta": {"k": 3},
        }
    ),
    _update(
        {"sessionUpdate": "tool_call_update", "toolCallId": "c1", "status": "failed", "odd": 1}
    ),
    _update({"sessionUpdate": "tool_call_update", "toolCallId": "c1", "title": "Read again"}),
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


def _pieces_equal_steps(engine: Any, messages: list[Any]) -> None:
    """`receive_updates` on `messages`, piece by piece, equals `client_step` on each: the
    engine (violations and their indexes included) and whether each changed the view."""
    while messages:
        together, changed = receive_updates(engine, messages)
        alone, shown = engine, []
        for message in messages[: len(changed)]:
            after = client_step(alone, i.Received(message)).state
            shown.append(after.view is not alone.view)
            alone = after
        assert changed == shown
        assert together == alone
        assert together.violations == alone.violations
        assert together.messages == alone.messages
        engine, messages = together, messages[len(changed) :]


def _patch(tool: str, fields: dict[str, Any]) -> dict[str, Any]:
    return {"sessionUpdate": "tool_call_update", "toolCallId": tool, **fields}


_RAW = st.sampled_from([None, 1, True, 1.0, "x", [1, "a"], {"lines": 3}, {"lines": True}])
#: Tool call patches, plain (a known status, raw values) and not (an unknown, custom or
#: null status, a title, `_meta`, unknown keys, an empty id), of tool calls known or not.
_PATCHES = st.builds(
    lambda tool, fields, more: _patch(tool, {**fields, **more}),
    st.sampled_from(["call_0", "c1", "c2", ""]),
    st.fixed_dictionaries(
        {},
        optional={
            "status": st.sampled_from(
                [
                    "pending",
                    "in_progress",
                    "completed",
                    "failed",
                    "cancelled",
                    "paused",
                    "weird",
                    "_mine",
                    None,
                ]
            ),
            "rawInput": _RAW,
            "rawOutput": _RAW,
        },
    ),
    st.sampled_from(
        [{}, {}, {}, {"title": "Read"}, {"title": "Write"}, {"_meta": {"k": 1}}, {"odd": 1}]
    ),
)
_TOOL_TRAFFIC = st.one_of(
    _PATCHES,
    _PATCHES,
    st.sampled_from(
        [
            _patch("c1", {"title": "Read", "status": "pending"}),
            {
                "sessionUpdate": "tool_call_content_chunk",
                "toolCallId": "c1",
                "content": {"type": "content", "content": {"type": "text", "text": "out"}},
            },
            _chunk("agent_message_chunk", "a1"),
            _STATE,
            _IDLE,
        ]
    ),
)


@settings(max_examples=200, deadline=None)
@example(  # a first sight in the run: what a patch repeats of it changes nothing
    [
        _chunk("agent_message_chunk", "a1"),
        _patch("c2", {"title": "Read"}),
        _patch("c2", {"status": "pending", "rawOutput": None}),
        _patch("c2", {"rawInput": None}),
        _patch("c2", {"status": "completed"}),
    ],
    "prompt",
    acp.V2_PREVIEW,
)
@given(
    st.lists(_TOOL_TRAFFIC, max_size=25),
    st.sampled_from(("none", "prompt", "cancel")),
    st.sampled_from((acp.V2_PREVIEW, acp.V2_2026_08)),
)
def test_folded_tool_call_patches_equal_client_steps_one_at_a_time(
    updates: list[dict[str, Any]], start: str, revision: acp.Revision
) -> None:
    # Plain patches of known tool calls join the runs (`plain_tool_call_update`): the engine
    # after a run, and each `changed` flag (a patch that repeats what the view shows changes
    # nothing), equal stepping them one at a time; around a local cancel the view is apart
    # from the session (a patch's status wins over the mark, Q19).
    conn = _ready(revision)
    if start != "none":
        conn = _prompted(conn, cancel=start == "cancel")
    notification = {"jsonrpc": "2.0", "method": "session/update"}
    messages: list[Any] = [
        decode_message({**notification, "params": {"sessionId": SID, "update": update}},
                       revision=revision)
        for update in updates
    ]  # fmt: skip
    _pieces_equal_steps(conn.engine(SID), messages)


def test_plain_tool_call_patches_are_folded_into_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    # Not vacuous: the mixed workload's status patches do take the fold (no `apply_update`).
    conn = _prompted(_ready(), cancel=False)
    patches = [_patch("call_0", {"status": s}) for s in ("in_progress", "in_progress")]
    wire = [{"jsonrpc": "2.0", "method": "session/update",
             "params": {"sessionId": SID, "update": p}} for p in patches]  # fmt: skip
    messages: list[Any] = [decode_message(w) for w in wire]
    applied: list[object] = []
    general = _client.apply_update

    def spied(b: Any, update: Any, **kw: Any) -> None:
        applied.append(update)
        general(b, update, **kw)

    monkeypatch.setattr(_client, "apply_update", spied)
    engine, changed = receive_updates(conn.engine(SID), messages)
    monkeypatch.undo()
    assert applied == []
    assert changed == [True, False]  # the second repeats the status the view shows
    assert engine.view.tool_calls["call_0"].status == "in_progress"
    _pieces_equal_steps(conn.engine(SID), messages)


def test_session_wide_reports_are_folded_into_runs(monkeypatch: pytest.MonkeyPatch) -> None:
    # Usage and session info reports join a run in their place, between a streamed message's
    # chunks (no `apply_update`, no fold cut short), and each `changed` flag is whether the
    # report changed what the view shows: a repeated usage changes nothing, a cost given
    # then left out keeps it (Q11), a title repeated changes nothing; with and without a
    # local mark setting the view apart, the engine equals stepping each message.
    def chunk(text: str) -> dict[str, Any]:
        content = {"type": "text", "text": text}
        return {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": content}

    usage = {"sessionUpdate": "usage_update", "used": 5, "size": 10}
    cost = {**usage, "used": 6, "cost": {"amount": 0.5, "currency": "USD"}}
    info = {"sessionUpdate": "session_info_update", "title": "t"}
    updates = [chunk("a"), usage, chunk("b"), usage, cost, {**usage, "used": 6}, info,
               chunk("c"), info, {**info, "title": None}]  # fmt: skip
    notification = {"jsonrpc": "2.0", "method": "session/update"}
    messages: list[Any] = [
        decode_message({**notification, "params": {"sessionId": SID, "update": u}})
        for u in updates
    ]
    applied: list[object] = []
    general = _client.apply_update

    def spied(b: Any, update: Any, **kw: Any) -> None:
        applied.append(update)
        general(b, update, **kw)

    for conn in (_ready(), _prompted(_ready(), cancel=True)):
        monkeypatch.setattr(_client, "apply_update", spied)
        engine, changed = receive_updates(conn.engine(SID), messages)
        monkeypatch.undo()
        assert applied == []
        assert changed == [True, True, True, False, True, False, True, True, False, True]
        assert engine.view.usage is not None
        assert engine.view.usage.used == 6
        assert engine.view.info.title is None
        _pieces_equal_steps(conn.engine(SID), messages)
        _assert_same(conn, b"".join(_update(u) for u in updates))


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


# -- the compiled decoder on and off --------------------------------------------------------


def _reads(conn: c.ClientConnection, reads: list[bytes], *, compiled: bool) -> c.ConnectionStep:
    """The reads in order through `receive_bytes`: the last connection, all that was sent,
    every event and id."""
    wire: list[Any] = []
    events: list[object] = []
    ids: list[Any] = []
    with _decoder(compiled):
        for data in reads:
            step = c.receive_bytes(conn, data)
            conn = step.connection
            wire.extend(step.outbound)
            events.extend(step.events)
            ids.extend(step.ids)
    return c.ConnectionStep(conn, tuple(wire), tuple(events), tuple(ids))


def _cut(data: bytes, cuts: list[int]) -> list[bytes]:
    bounds = [0, *sorted(min(x, len(data)) for x in cuts), len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


def _assert_compiled_changes_nothing(conn: c.ClientConnection, reads: list[bytes]) -> None:
    _assert_equal_steps(_reads(conn, reads, compiled=True), _reads(conn, reads, compiled=False))


def test_the_compiled_decoder_takes_the_workload_s_hot_lines() -> None:
    # Not a vacuous comparison: the reads below do go through the compiled decoder.
    data = _workload_bytes(300)
    with _decoder(True):
        _, framed = _connection._client_read(_ready(), data)
    hot = [x for x in framed if type(x) is tuple]
    assert len(hot) > 250
    assert all(type(message) is acp.UpdateSessionNotification for message, _ in hot)
    with _decoder(False):
        _, framed = _connection._client_read(_ready(), data)
    assert all(type(x) is acp.Parsed for x in framed)
    # Other revisions are read the pure way: the compiled decoder knows the default only.
    with _decoder(True):
        _, framed = _connection._client_read(_ready(acp.V2_2026_08), data)
    assert all(type(x) is acp.Parsed for x in framed)


@pytest.mark.parametrize("size", [1, 4096, 64 * 1024])
def test_the_workload_ends_equal_with_the_compiled_decoder_and_without(size: int) -> None:
    data = _workload_bytes(1500)
    reads = [data[at : at + size] for at in range(0, len(data), size)]
    if size == 1:
        reads = reads[:3000]  # a byte at a time: the first lines only
    _assert_compiled_changes_nothing(_ready(), reads)
    _assert_compiled_changes_nothing(_prompted(_ready(), cancel=True), reads)


def _replaying() -> c.ClientConnection:
    """Initialized, OTHER open, SID resumed with its history replaying."""
    conn = c.new_client_connection(_INFO)
    conn = c.connection_step(conn, c.Initialize(request_id=0)).connection
    capabilities = {"sessionCapabilities": {"resume": {}}, "loadSession": True}
    answer = {"protocolVersion": 2, "info": {"name": "a", "version": "1"},
              "capabilities": capabilities}  # fmt: skip
    conn = c.receive_bytes(conn, _line({"jsonrpc": "2.0", "id": 0, "result": answer})).connection
    conn = c.connection_step(conn, c.NewSession("/w", request_id=1)).connection
    result = _line({"jsonrpc": "2.0", "id": 1, "result": {"sessionId": OTHER}})
    conn = c.receive_bytes(conn, result).connection
    conn = c.connection_step(conn, c.ResumeSession(SID, "/w", replay=True, request_id=3)).connection
    assert conn.replaying(SID)
    return conn


def _handshaking() -> tuple[c.ClientConnection, bytes]:
    """A connection that allows v1 and has sent `initialize`, and the agent's answer that
    makes it a v1 connection: what follows in the same read is read the v1 way."""
    conn = c.new_client_connection(_INFO, protocols=(2, 1))
    conn = c.connection_step(conn, c.Initialize(request_id=0)).connection
    answer = {"protocolVersion": 1, "agentCapabilities": {}, "authMethods": []}
    return conn, _line({"jsonrpc": "2.0", "id": 0, "result": answer})


@settings(max_examples=100, deadline=None)
@given(
    st.lists(st.sampled_from(LINES), max_size=40),
    st.lists(st.integers(0, 4000), max_size=4),
    st.sampled_from(("none", "prompt", "cancel", "replaying", "v1 handshake")),
)
def test_any_stream_ends_equal_with_the_compiled_decoder_and_without(
    lines: list[bytes], cuts: list[int], start: str
) -> None:
    data = b"".join(lines)
    if start == "replaying":
        conn = _replaying()
    elif start == "v1 handshake":
        conn, answer = _handshaking()
        data = answer + data
    else:
        conn = _ready()
        if start != "none":
            conn = _prompted(conn, cancel=start == "cancel")
    _assert_compiled_changes_nothing(conn, _cut(data, cuts))


def test_a_class_a_run_lets_through_unasked_is_quiet_for_the_rules_and_the_judge() -> None:
    # `_quiet_class` (asked once per update class while the rules and the judge stay the
    # same values) says yes only where `exchange_quiet` and the judge's `quiet` would, for
    # every update of that class: over the judges the Preview trace table reaches (children,
    # replay windows, cancels, unnamed sessions) and exchange rules before and after the
    # handshake.
    from test_check_preview_quiet import _judged_updates

    from acp_core._engines._connection_client_updates import _quiet_class
    from acp_core._rules._check_exchange import exchange_quiet
    from acp_core._rules._check_preview import quiet, quiet_session

    fresh = c.new_client_connection(_INFO).rules.exchange
    started = _ready().rules.exchange
    assert fresh is not None
    assert started is not None
    let_through = 0
    for judge, message in _judged_updates():
        sid, cls = message.session_id, type(message.update)
        for rules in (None, fresh, started):
            if _quiet_class(rules, judge, quiet_session(judge, sid), cls):
                let_through += 1
                assert rules is None or exchange_quiet(rules, "agent", message)
                assert quiet(judge, "agent", message)
            if _quiet_class(rules, None, False, cls):
                assert rules is None or exchange_quiet(rules, "agent", message)
    assert let_through  # not vacuous (the plain chunks of named top-level sessions)


@settings(max_examples=200, deadline=None)
@given(
    st.lists(st.booleans(), min_size=1, max_size=12),  # whether each message changed them
    st.data(),
)
def test_a_run_keeps_the_rules_and_the_judge_after_each_prefix(
    changes: list[bool], data: st.DataObject
) -> None:
    # `values_after` over the sparse record of changes gives the values after the first
    # `taken` messages, as a record of every message would.
    from acp_core._engines._connection_client_updates import values_after

    every = [0]  # the rules after each prefix, as labels
    kept = [(0, ("r", 0))]
    for n, changed in enumerate(changes, start=1):
        if changed:
            kept.append((n, ("r", n)))
        every.append(kept[-1][1][1])
    taken = data.draw(st.integers(1, len(changes)))
    assert values_after(kept, taken)[1] == every[taken]
