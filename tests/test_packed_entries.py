"""Packed timeline entries and tool-call content (issue 24): the same values, fewer objects.

The timeline keeps its entries as strings (kind code and id) in packed runs
(`TIMELINE_RUNS`: a block of 32 packed as `reduce` seals it, the codes `fold` queues packed
as they are), and a
tool call keeps its content as one packed run from its first item on (`TOOL_TEXT_RUNS`: a
`ToolContent` holding a plain text block as the text, encoded as the item arrives). Neither
is visible: these tests hold the vectors to the plain ones item by item (equality, hashing,
iteration, indexing, `last`, `repr`, pickling and copies), the states `reduce` and `fold`
build to each other and to a plain-content expectation, and the representation to what it
saves the cyclic collector (no `EntityRef`, `ToolContent` or `TextContent` kept tracked).
"""

from __future__ import annotations

import copy
import gc
import pickle

from hypothesis import example, given
from hypothesis import strategies as st

import acp_core as acp
from acp_core import values as v
from acp_core._state._pcoll import EMPTY_VEC, PVec, append_encoded, compact_tail
from acp_core._state._session_state import (
    TIMELINE_RUNS,
    EntityRef,
    entered,
    entered_codes,
    entry_code,
)
from acp_core._state._text_runs import TOOL_TEXT_RUNS, tool_item_encoded

KINDS = st.sampled_from(["message", "toolCall", "plan", "compaction", "sessionMessage"])
REFS = st.builds(EntityRef, KINDS, st.text(max_size=3))
# A hand-built entry of another kind cannot be coded: its block is kept as it is.
ODD_REFS = st.builds(EntityRef, st.sampled_from(["x", ""]), st.text(max_size=3))


def plain(items: list[object]) -> PVec[object]:
    vec: PVec[object] = EMPTY_VEC
    for x in items:
        vec = vec.append(x)
    return vec


def assert_same_vector(packed: PVec[object], items: list[object]) -> None:
    expected = plain(items)
    assert packed == expected
    assert expected == packed
    assert list(packed) == items
    assert [type(x) for x in packed] == [type(x) for x in items]
    assert len(packed) == len(items)
    assert [packed[i] for i in range(len(items))] == items
    assert [packed[i - len(items)] for i in range(len(items))] == items
    assert packed[1:5] == tuple(items[1:5])
    assert hash(packed) == hash(expected)
    assert repr(packed) == repr(expected)
    assert pickle.loads(pickle.dumps(packed)) == expected
    assert copy.copy(packed) == expected
    assert copy.deepcopy(packed) == expected
    if items:
        assert packed.last == items[-1]


# -- the timeline --------------------------------------------------------------------------


@given(st.lists(REFS, max_size=150), st.lists(st.integers(0, 40), max_size=12))
def test_a_packed_timeline_is_the_plain_one(refs: list[EntityRef], splits: list[int]) -> None:
    # `reduce` appends one entry at a time; `fold` appends its queued codes in batches; a
    # session may mix both. Every way reads back the same entries.
    one_by_one: PVec[EntityRef] = EMPTY_VEC
    for ref in refs:
        one_by_one = entered(one_by_one, ref)
    assert_same_vector(one_by_one, list(refs))  # type: ignore[arg-type]
    batched: PVec[EntityRef] = EMPTY_VEC
    mixed: PVec[EntityRef] = EMPTY_VEC
    start = 0
    for n, size in enumerate([*splits, len(refs)]):
        batch = refs[start : start + size]
        start += len(batch)
        batched = entered_codes(batched, [entry_code(r.kind, r.id) for r in batch])
        for ref in batch if n % 2 else ():
            mixed = entered(mixed, ref)
        if not n % 2:
            mixed = entered_codes(mixed, [entry_code(r.kind, r.id) for r in batch])
    assert_same_vector(batched, list(refs))  # type: ignore[arg-type]
    assert_same_vector(mixed, list(refs))  # type: ignore[arg-type]
    for entry, ref in zip(batched, refs, strict=True):
        assert type(entry) is EntityRef
        assert type(entry.id) is str
        assert hash(entry) == hash(ref)


@given(st.lists(st.one_of(REFS, REFS, ODD_REFS, st.integers()), min_size=1, max_size=70))
def test_a_block_that_is_not_all_entries_is_sealed_as_it_is(items: list[object]) -> None:
    # A hand-built vector may hold anything: a block with another item stays plain.
    vec: PVec[object] = EMPTY_VEC
    for x in items:
        vec = entered(vec, x)  # type: ignore[arg-type]
    assert_same_vector(vec, items)
    if not all(type(x) is EntityRef and x.kind not in ("x", "") for x in items[:32]):
        assert TIMELINE_RUNS.pack(items[:32]) is None


def test_sealed_timeline_blocks_hold_no_tracked_entry_on_both_paths() -> None:
    # 100 tool calls (one timeline entry each): 3 sealed blocks of 32 and a tail of 4.
    updates = [acp.ToolCallUpdate(f"t{i}", title="x") for i in range(100)]
    start = acp.new_session("s")
    reduced = start
    for u in updates:
        reduced = acp.reduce(reduced, u)
    folded = acp.fold(start, updates)
    assert folded == reduced
    expected = [EntityRef("toolCall", f"t{i}") for i in range(100)]
    for state in (reduced, folded):
        assert list(state.timeline) == expected
        (blocks,) = state.timeline._base[0]
        assert len(blocks) == 3
        for i, block in enumerate(blocks):
            assert list(block[2:]) == [f"tt{j}" for j in range(32 * i, 32 * i + 32)]
        gc.collect()  # one collection untracks a tuple of atoms
        assert not any(gc.is_tracked(block) for block in blocks)
    # `fold` queued codes, so its tail is one packed run too (no entry built)
    assert folded.timeline._prev is None
    assert folded.timeline._item[2:] == ("tt96", "tt97", "tt98", "tt99")


# -- tool-call content ---------------------------------------------------------------------

TEXT = st.text(max_size=3)
ITEMS = st.one_of(
    st.builds(lambda t: v.ToolContent(v.TextContent(t)), TEXT),
    st.builds(lambda t: v.ToolContent(v.TextContent(t)), TEXT),
    st.builds(lambda t: v.ToolContent(v.TextContent(t), meta=acp.freeze_json({"k": 1})), TEXT),
    st.builds(lambda t: v.ToolContent(v.TextContent(t), meta=None), TEXT),
    st.builds(lambda t: v.ToolContent(v.TextContent(t, annotations=v.Annotations())), TEXT),
    st.builds(lambda t: v.ToolContent(v.TextContent(t, meta=acp.freeze_json({"k": 2}))), TEXT),
    st.builds(lambda t: v.ToolContent(v.ImageContent("AA==", t or "image/png")), TEXT),
    st.builds(v.TerminalRef, st.sampled_from(["term1", "term2"])),
    st.builds(lambda: v.Diff((v.DiffChange("add", "/b"),))),
)
META = st.sampled_from([acp.UNSET, None, acp.freeze_json({"k": 1})])


@given(st.lists(st.one_of(ITEMS, st.text(max_size=2), st.none()), max_size=80))
def test_append_encoded_is_append(items: list[object]) -> None:
    # Any item, hand-built strings and None included (kept as they are, never as text).
    vec: PVec[object] = EMPTY_VEC
    for item in items:
        encoded = tool_item_encoded(item)
        vec = vec.append(item) if encoded is None else append_encoded(vec, encoded, TOOL_TEXT_RUNS)
    assert_same_vector(vec, items)
    assert_same_vector(compact_tail(vec), items)


@given(st.lists(st.tuples(ITEMS, META), min_size=1, max_size=40), st.integers(0, 40))
def test_tool_content_reads_back_the_items_on_both_paths(
    chunks: list[tuple[acp.ToolCallContent, object]], split: int
) -> None:
    updates: list[acp.SessionUpdate] = [acp.ToolCallUpdate("t", title="run", status="pending")]
    updates += [acp.ToolCallContentChunk("t", item, meta) for item, meta in chunks]  # type: ignore[arg-type]
    updates.append(acp.ToolCallUpdate("t", status="completed"))
    start = acp.new_session("s")
    reduced = start
    for u in updates:
        reduced = acp.reduce(reduced, u)
    folded = acp.fold(start, updates)
    assert folded == reduced
    assert hash(folded) == hash(reduced)
    assert acp.fold(acp.fold(start, updates[:split]), updates[split:]) == reduced
    items = [item for item, _ in chunks]
    for state in (reduced, folded):
        call = state.tool_calls["t"]
        assert_same_vector(call.content, items)  # type: ignore[arg-type]
        # The value a plain vector of the same items makes, field by field.
        expected = acp.ToolCallState(
            "run", status="completed", content=PVec(items), chunk_meta=call.chunk_meta
        )
        assert call == expected
        assert hash(call) == hash(expected)
        assert repr(call) == repr(expected)
        assert pickle.loads(pickle.dumps(call)) == expected
        metas = {i: m for i, (_, m) in enumerate(chunks) if m is not acp.UNSET and m is not None}
        assert dict(call.chunk_meta) == metas
    assert pickle.loads(pickle.dumps(folded)) == reduced


def test_plain_tool_text_is_kept_as_strings_the_collector_does_not_track() -> None:
    texts = [f"line {i}" for i in range(40)]
    updates = [acp.ToolCallContentChunk("t", v.ToolContent(v.TextContent(t))) for t in texts]
    start = acp.new_session("s")
    reduced = start
    for u in updates:
        reduced = acp.reduce(reduced, u)
    folded = acp.fold(start, updates)
    assert folded == reduced
    for state in (reduced, folded):
        content = state.tool_calls["t"].content
        assert [item.content.text for item in content] == texts  # type: ignore[union-attr]
        # One sealed block of 32 and a tail of 8: each one packed run of the texts.
        ((block,),) = content._base[0]
        assert list(block[2:]) == texts[:32]
        assert content._prev is None
        assert list(content._item[2:]) == texts[32:]
        gc.collect()
        assert not gc.is_tracked(block)
        assert not gc.is_tracked(content._item)
    # An item with more than plain text is kept as itself (and keeps its run tracked).
    marked = v.ToolContent(v.TextContent("x"), meta=acp.freeze_json({"k": 1}))
    state = acp.reduce(reduced, acp.ToolCallContentChunk("u", marked))
    assert state.tool_calls["u"].content._item[2] is marked


# -- content given whole: message upserts, tool-call updates, restored snapshots -----------

BLOCKS = st.one_of(
    st.builds(v.TextContent, TEXT),
    st.builds(v.TextContent, TEXT),
    st.builds(v.TextContent, TEXT, meta=st.just(acp.freeze_json({"k": 1}))),
    st.builds(v.TextContent, TEXT, annotations=st.just(v.Annotations())),
    st.builds(v.ImageContent, st.just("AA=="), st.just("image/png")),
)


@given(
    st.lists(BLOCKS, max_size=80),
    st.lists(ITEMS, max_size=80),
    st.lists(st.tuples(ITEMS, META), max_size=3),
)
# More than a block of 32 given whole: sealed packed blocks and a packed tail.
@example([v.TextContent(f"b{i}") for i in range(70)], [v.TerminalRef("x")] * 40, [])
def test_content_given_whole_reads_back_on_both_paths_and_through_a_snapshot(
    blocks: list[acp.ContentBlock],
    items: list[acp.ToolCallContent],
    more: list[tuple[acp.ToolCallContent, object]],
) -> None:
    updates: list[acp.SessionUpdate] = [
        acp.AgentMessage("m", tuple(blocks)),
        acp.AgentMessageChunk("m", v.TextContent("after")),
        acp.ToolCallUpdate("t", title="run", content=tuple(items)),
    ]
    updates += [acp.ToolCallContentChunk("t", item, meta) for item, meta in more]  # type: ignore[arg-type]
    start = acp.new_session("s")
    reduced = start
    for u in updates:
        reduced = acp.reduce(reduced, u)
    folded = acp.fold(start, updates)
    assert folded == reduced
    restored = acp.restore(acp.snapshot(reduced))
    assert restored == reduced
    assert hash(restored) == hash(reduced)
    for state in (reduced, folded, restored):
        message = state.messages["m"]
        assert_same_vector(message.content, [*blocks, v.TextContent("after")])  # type: ignore[arg-type]
        assert_same_vector(state.tool_calls["t"].content, [*items, *(i for i, _ in more)])  # type: ignore[arg-type]


def test_content_given_whole_is_kept_as_strings() -> None:
    texts = [f"w{i}" for i in range(5)]
    state = acp.reduce(
        acp.new_session("s"), acp.UserMessage("m", tuple(v.TextContent(t) for t in texts))
    )
    state = acp.reduce(
        state,
        acp.ToolCallUpdate("t", content=tuple(v.ToolContent(v.TextContent(t)) for t in texts)),
    )
    restored = acp.restore(acp.snapshot(state))
    for s in (state, restored):
        runs = [s.messages["m"].content._item, s.tool_calls["t"].content._item]
        assert [list(run[2:]) for run in runs] == [texts, texts]
        gc.collect()
        assert not any(gc.is_tracked(run) for run in runs)
