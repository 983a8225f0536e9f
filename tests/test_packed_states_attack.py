"""Packed timeline entries and tool/message content (issue 24) seen from outside: states
built by `fold` and by `reduce`, at every revision, from generated update sequences whose
ids are odd (empty, a kind code, the codes' letters, non-ASCII, a lone surrogate, very
long), equal each other and their snapshot round trips, and each packed vector reads as
the plain vector of its items (equality both ways, hash, repr, pickle, copies, iteration,
indexing, slicing, `last`)."""

from __future__ import annotations

import copy
import pickle
from typing import Any

import attrs
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import acp_core as acp
from acp_core import values as v
from acp_core._state._pcoll import EMPTY_VEC, PVec
from acp_core.strategies import IdPools, session_updates, tool_call_contents, update_sequences

LONG = "L" * 300
ODD = ("", "m", "t", "p", "c", "s", "mé", "\ud800x", LONG, "a\x00b", "t1", "m1")
POOLS = IdPools(
    messages=ODD + tuple(f"m{i}" for i in range(20)),
    tool_calls=ODD + tuple(f"t{i}" for i in range(20)),
    terminals=("x1", "", "t1"),
    plans=(*ODD[:6], "p1", "p2"),
)
REVISIONS = (acp.V2_2026_08, acp.V2_2026_11, acp.V2_PREVIEW)


def _plain(vec: PVec[Any]) -> PVec[Any]:
    out: PVec[Any] = EMPTY_VEC
    for x in list(vec):
        out = out.append(x)
    return out


def _assert_plain(vec: PVec[Any]) -> None:
    items = list(vec)
    expected = _plain(vec)
    assert vec == expected
    assert expected == vec
    assert hash(vec) == hash(expected)
    assert repr(vec) == repr(expected)
    assert pickle.loads(pickle.dumps(vec)) == expected
    assert copy.deepcopy(vec) == expected
    assert len(vec) == len(items)
    assert [vec[i] for i in range(len(items))] == items
    assert [vec[-i - 1] for i in range(len(items))] == items[::-1]
    assert vec[1:40:3] == tuple(items[1:40:3])
    assert vec[::-1] == tuple(items[::-1])
    if items:
        assert vec.last == items[-1]


def _assert_vectors_plain(state: acp.SessionState) -> None:
    _assert_plain(state.timeline)
    for m in state.messages.values():
        _assert_plain(m.content)
    for t in state.tool_calls.values():
        _assert_plain(t.content)


@settings(max_examples=150, deadline=None)
@given(st.sampled_from(REVISIONS).flatmap(
    lambda r: st.tuples(st.just(r), update_sequences(revision=r, max_size=90, pools=POOLS))
))  # fmt: skip
def test_fold_reduce_and_snapshots_agree_on_packed_vectors(case: tuple[Any, Any]) -> None:
    revision, updates = case
    start = acp.new_session("sess_1")
    folded = acp.fold(start, updates, revision=revision)
    reduced = start
    for u in updates:
        reduced = acp.reduce(reduced, u, revision=revision)
    assert folded == reduced
    assert hash(folded.timeline) == hash(reduced.timeline)
    assert repr(folded) == repr(reduced)
    _assert_vectors_plain(folded)
    _assert_vectors_plain(reduced)
    doc = acp.snapshot(folded, revision=revision)
    assert doc == acp.snapshot(reduced, revision=revision)
    restored = acp.restore(doc)
    assert restored == folded
    assert acp.snapshot(restored, revision=revision) == doc
    _assert_vectors_plain(restored)
    assert pickle.loads(pickle.dumps(folded)) == reduced
    assert copy.deepcopy(reduced) == folded
    # and the states keep folding alike after the round trip
    again = acp.fold(restored, updates, revision=revision)
    assert again == acp.fold(folded, updates, revision=revision)


#: Ids for long sequences: the odd ones and many plain ones (long timelines), or two (long
#: contents: a tool call's packed run sealed as chunks append to it).
_WIDE = ODD + tuple(f"i{i}" for i in range(40))
_NARROW = ("t1",)


def _with_ids(update: Any, draw: st.DrawFn, ids: st.SearchStrategy[str]) -> Any:
    # Each id field of a generated update redrawn from `ids`.
    changes = {
        name: draw(ids)
        for name in ("message_id", "tool_call_id", "plan_id")
        if isinstance(getattr(update, name, None), str)
    }
    return attrs.evolve(update, **changes) if changes else update


@st.composite
def _long_sequences(draw: st.DrawFn, revision: acp.Revision) -> list[Any]:
    # Long enough to seal blocks of the timeline and of contents: generated updates of
    # every kind, and plain text chunks and tool text chunks (the packed ones) in bulk.
    out: list[Any] = []
    ids = st.sampled_from(draw(st.sampled_from([_WIDE, _NARROW])))
    for _ in range(draw(st.integers(30, 110))):
        which = draw(st.sampled_from([0, 1, 2, 2, 2, 2, 2, 2, 3, 4]))
        if which == 0:
            out.append(_with_ids(draw(session_updates(revision=revision)), draw, ids))
        elif which == 1:
            text = v.TextContent(draw(st.sampled_from(["", "x", "é", "t1"])))
            out.append(v.AgentMessageChunk(draw(ids), text))
        elif which == 2:
            item = v.ToolContent(v.TextContent(draw(st.sampled_from(["", "o", "m1"]))))
            out.append(v.ToolCallContentChunk(draw(ids), item))
        elif which == 3:
            item = draw(tool_call_contents(revision=revision))
            out.append(v.ToolCallContentChunk(draw(ids), item))
        else:
            items = draw(st.lists(tool_call_contents(revision=revision), max_size=8))
            plain = [v.ToolContent(v.TextContent("p"))] * draw(st.integers(0, 40))
            # content given whole (replacing what was appended) now and then, else a title
            content = (*items, *plain) if draw(st.integers(0, 3)) == 0 else acp.UNSET
            out.append(v.ToolCallUpdate(draw(ids), title="t", content=content))
    return out


@settings(max_examples=40, deadline=None, suppress_health_check=[HealthCheck.data_too_large])
@given(st.sampled_from(REVISIONS).flatmap(
    lambda r: st.tuples(st.just(r), _long_sequences(r))
))  # fmt: skip
def test_long_sequences_with_odd_ids_agree_on_packed_vectors(case: tuple[Any, Any]) -> None:
    test_fold_reduce_and_snapshots_agree_on_packed_vectors.hypothesis.inner_test(case)  # type: ignore[attr-defined]
    # and with a model that packs nothing: each tool call's content is what its updates
    # gave whole and appended, the messages and tool calls enter the timeline at first sight
    revision, updates = case
    state = acp.fold(acp.new_session("sess_1"), updates, revision=revision)
    contents: dict[str, list[Any]] = {}
    seen: list[tuple[str, str]] = []
    for u in updates:
        if type(u) is v.ToolCallUpdate or type(u) is v.ToolCallContentChunk:
            if ("toolCall", u.tool_call_id) not in seen:
                seen.append(("toolCall", u.tool_call_id))
            items = contents.setdefault(u.tool_call_id, [])
            if type(u) is v.ToolCallContentChunk:
                items.append(u.content)
            elif u.content is not acp.UNSET:
                items[:] = u.content or ()
        elif type(u).__name__ in _MESSAGES and ("message", u.message_id) not in seen:
            seen.append(("message", u.message_id))
    assert {k: list(t.content) for k, t in state.tool_calls.items()} == contents
    timeline = [(r.kind, r.id) for r in state.timeline if r.kind in ("message", "toolCall")]
    assert timeline == seen


_MESSAGES = {
    "UserMessageChunk", "AgentMessageChunk", "AgentThoughtChunk",
    "UserMessage", "AgentMessage", "AgentThought",
}  # fmt: skip
