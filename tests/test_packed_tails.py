"""Packed tails (issue 24): a finished message keeps its plain text chunks as strings.

A message that stops being written (it leaves `reduce`'s hot slot, or `fold` writes it) has
its content's unsealed tail packed by `_state/_text_runs.TEXT_RUNS`: a `TextContent` with
nothing but its text is kept as its `str` in a plain tuple the cyclic GC stops tracking.
These tests hold the representation to the value: a packed vector is equal to the vector it
packs and reads back equal items, whatever the blocks are (plain text, text with
annotations, `_meta` or unknown fields, other blocks, a string a hand-built vector holds);
and `fold`, which now builds a message as soon as more than `_PENDING_CAP` messages are
buffered, still equals `reduce` one update at a time with many messages interleaved.
"""

from __future__ import annotations

import gc

import pytest
from hypothesis import given
from hypothesis import strategies as st

import acp_core as acp
from acp_core._state import _fold, _pcoll
from acp_core._state._pcoll import (
    EMPTY_VEC,
    PVec,
    append_packed,
    compact_tail,
    extend_compact,
    extend_encoded,
    packed_runs,
)
from acp_core._state._text_runs import TEXT_RUNS, TOOL_TEXT_RUNS

PLAIN = st.text(max_size=4).map(acp.TextContent)
BLOCKS = st.one_of(
    PLAIN,
    PLAIN,
    PLAIN,
    st.builds(acp.TextContent, st.text(max_size=2), meta=st.just(acp.freeze_json({"k": 1}))),
    st.builds(acp.TextContent, st.text(max_size=2), annotations=st.just(acp.Annotations())),
    st.builds(acp.TextContent, st.text(max_size=2), meta=st.just(None)),
    st.builds(acp.ImageContent, st.just("AA=="), st.just("image/png")),
)
# A PVec is generic: a hand-built one may hold a string, which must never read back as text.
ITEMS = st.one_of(BLOCKS, st.text(max_size=2))


def grown(items: list[object]) -> PVec[object]:
    vec: PVec[object] = EMPTY_VEC
    for x in items:
        vec = vec.append(x)
    return vec


def assert_same_vector(packed: PVec[object], plain: PVec[object], items: list[object]) -> None:
    assert packed == plain
    assert list(packed) == items
    assert len(packed) == len(items)
    assert [packed[i] for i in range(len(items))] == items
    assert [type(x) for x in packed] == [type(x) for x in items]
    if items:
        assert packed.last == items[-1]
        assert packed[-1] == items[-1]
    assert hash(packed) == hash(plain)


@given(st.lists(ITEMS, max_size=80), st.lists(ITEMS, max_size=40))
def test_a_packed_tail_is_the_same_vector_and_keeps_growing_alike(
    items: list[object], more: list[object]
) -> None:
    vec = grown(items)
    packed = compact_tail(vec, TEXT_RUNS)
    assert_same_vector(packed, vec, items)
    assert compact_tail(packed, TEXT_RUNS) == vec
    # Growing a packed vector: one item at a time, and in bulk.
    assert_same_vector(grown_from(packed, more), grown(items + more), items + more)
    assert_same_vector(packed.extend(more), vec.extend(more), items + more)


def grown_from(vec: PVec[object], more: list[object]) -> PVec[object]:
    for x in more:
        vec = vec.append(x)
    return vec


@given(st.lists(ITEMS, max_size=70), st.lists(ITEMS, max_size=70))
def test_extend_compact_equals_extend(items: list[object], more: list[object]) -> None:
    vec = grown(items)
    for base in (vec, compact_tail(vec, TEXT_RUNS)):
        assert_same_vector(extend_compact(base, more, TEXT_RUNS), vec.extend(more), items + more)


def test_plain_text_is_kept_as_strings_the_collector_does_not_track() -> None:
    texts = [acp.TextContent(f"w{i}") for i in range(20)]
    packed = compact_tail(grown(list(texts)), TEXT_RUNS)
    run = packed._item
    assert type(run) is tuple
    assert list(run[2:]) == [f"w{i}" for i in range(20)]
    gc.collect()  # CPython untracks a tuple of atoms in a collection
    assert not gc.is_tracked(run)
    # A block with more than its text is kept as it is (and keeps the run tracked).
    marked = acp.TextContent("x", meta=acp.freeze_json({"k": 1}))
    mixed = compact_tail(grown([*texts, marked]), TEXT_RUNS)
    assert mixed._item[-1] is marked
    assert list(mixed) == [*texts, marked]


IDS = st.sampled_from([f"m{i}" for i in range(12)])
META = st.sampled_from([acp.UNSET, None, acp.freeze_json({"k": 1})])
UPDATES = st.one_of(
    st.builds(acp.AgentMessageChunk, IDS, BLOCKS, META),
    st.builds(acp.AgentMessageChunk, IDS, PLAIN),
    st.builds(acp.AgentThoughtChunk, IDS, BLOCKS, META),
    st.builds(acp.UserMessageChunk, IDS, PLAIN, META),
    # A hand-built chunk whose content is a string: `fold` hands it to its reducer.
    st.builds(acp.AgentMessageChunk, IDS, st.text(max_size=2)),
    st.builds(acp.AgentMessage, IDS, st.lists(BLOCKS, max_size=2).map(tuple)),
    st.builds(acp.UserMessage, IDS, st.lists(PLAIN, max_size=2).map(tuple)),
    st.just(acp.RunningStateUpdate()),
)


def reduce_loop(state: acp.SessionState, updates: list[acp.SessionUpdate]) -> acp.SessionState:
    for update in updates:
        state = acp.reduce(state, update)
    return state


@pytest.mark.parametrize("cap", [1, 2, _fold._PENDING_CAP])
@given(updates=st.lists(UPDATES, min_size=8, max_size=80), split=st.integers(0, 80))
def test_fold_with_many_messages_equals_reducing_one_by_one(
    cap: int, updates: list[acp.SessionUpdate], split: int
) -> None:
    # Twelve message ids interleaved: more than `_PENDING_CAP` buffered at once, so `fold`
    # builds messages early, reads them back, and appends to them again.
    with pytest.MonkeyPatch.context() as m:
        m.setattr(_fold, "_PENDING_CAP", cap)
        start = acp.new_session("s")
        looped = reduce_loop(start, updates)
        folded = acp.fold(start, updates)
        assert folded == looped
        assert list(folded.diagnostics) == list(looped.diagnostics)
        assert acp.fold(acp.fold(start, updates[:split]), updates[split:]) == looped
        assert list(folded.timeline) == list(looped.timeline)


# -- sealed blocks: a long message keeps no tracked item per chunk (issue 24) ---------------


def grown_packed(items: list[object]) -> PVec[object]:
    vec: PVec[object] = EMPTY_VEC
    for x in items:
        vec = append_packed(vec, x, TEXT_RUNS)
    return vec


@given(st.lists(ITEMS, max_size=140), st.lists(ITEMS, max_size=40))
def test_append_packed_is_append_and_keeps_growing_alike(
    items: list[object], more: list[object]
) -> None:
    vec = grown(items)
    packed = grown_packed(items)
    assert_same_vector(packed, vec, items)
    assert_same_vector(grown_from(packed, more), grown(items + more), items + more)
    assert_same_vector(packed.extend(more), vec.extend(more), items + more)
    assert_same_vector(compact_tail(packed, TEXT_RUNS), vec, items)
    assert_same_vector(extend_compact(packed, more, TEXT_RUNS), vec.extend(more), items + more)


@given(st.lists(ITEMS, max_size=100), st.lists(BLOCKS, max_size=140))
def test_extend_encoded_equals_extend(items: list[object], more: list[object]) -> None:
    # What `fold` buffers: blocks encoded as TEXT_RUNS packs them (plain text as its string).
    encoded = TEXT_RUNS.pack(more)
    assert encoded is not None
    vec = grown(items)
    half = len(items) // 2
    # a packed run with items appended one at a time after it (a `fold`, then `reduce`s)
    mixed = compact_tail(grown(items[:half]), TEXT_RUNS)
    for x in items[half:]:
        mixed = mixed.append(x)
    bases = (vec, compact_tail(vec, TEXT_RUNS), grown_packed(items), vec.extend(()), mixed)
    for base in bases:
        assert_same_vector(extend_encoded(base, encoded, TEXT_RUNS), vec.extend(more), items + more)


def vector_shapes(items: list[object], more: list[object]) -> list[PVec[object]]:
    """The same items held every way a vector can hold them: plain nodes, one packed run, runs
    sealed as they fill, a packed run with items appended after it, extended encoded."""
    half = len(items) // 2
    mixed = compact_tail(grown(items[:half]), TEXT_RUNS)
    for x in items[half:]:
        mixed = mixed.append(x)
    shapes = [grown(items), compact_tail(grown(items), TEXT_RUNS), grown_packed(items), mixed]
    encoded = TEXT_RUNS.pack(more)
    if encoded is not None:
        shapes += [extend_encoded(shape, encoded, TEXT_RUNS) for shape in list(shapes)]
    return shapes


@given(st.lists(ITEMS, max_size=140), st.lists(BLOCKS, max_size=70))
def test_packed_runs_join_to_the_items(items: list[object], more: list[object]) -> None:
    unpack = _pcoll._UNPACKERS[TEXT_RUNS._index]
    for vec in vector_shapes(items, more):
        joined: list[object] = []
        for packed, run in packed_runs(vec, TEXT_RUNS):
            joined.extend(unpack(tuple(run)) if packed else run)
        assert joined == list(vec)
        # read with another packing, no run is handed over encoded
        assert all(not packed for packed, _ in packed_runs(vec, TOOL_TEXT_RUNS))
        assert [x for _, run in packed_runs(vec, TOOL_TEXT_RUNS) for x in run] == list(vec)


def test_extend_encoded_takes_a_packed_run_in_the_tail_as_it_is() -> None:
    # A tail of a packed run (what a `fold` wrote) and items appended after it (`reduce`s):
    # the run is already encoded, so extending reads none of its items back.
    items: list[object] = [acp.TextContent(f"t{i}") for i in range(10)]
    vec = compact_tail(grown(items[:6]), TEXT_RUNS)
    for x in items[6:]:
        vec = vec.append(x)
    more = [acp.TextContent("u")]
    encoded = TEXT_RUNS.pack(more)
    assert encoded is not None
    decoded: list[int] = []
    unpack = _pcoll._UNPACKERS[TEXT_RUNS._index]

    def counting(run: tuple[object, ...]) -> tuple[object, ...]:
        decoded.append(len(run))
        return unpack(run)

    _pcoll._UNPACKERS[TEXT_RUNS._index] = counting
    try:
        extended = extend_encoded(vec, encoded, TEXT_RUNS)
    finally:
        _pcoll._UNPACKERS[TEXT_RUNS._index] = unpack
    assert decoded == []
    assert list(extended) == items + more


def sealed_blocks(vec: PVec[object]) -> list[tuple[object, ...]]:
    """The body's blocks of 32 items, oldest first (a two-level body at most here)."""
    levels = vec._base[0]
    blocks: list[tuple[object, ...]] = []
    for height, level in zip(range(len(levels) - 1, -1, -1), levels, strict=True):
        for node in level:
            blocks.extend(node if height else (node,))
    return blocks


def test_a_long_message_keeps_its_sealed_blocks_as_strings_on_both_paths() -> None:
    # 1,100 chunks: 34 sealed blocks and a tail (a level-1 node of 32 blocks, and 2 more).
    chunks = [acp.AgentMessageChunk("m", acp.TextContent(f"w{i}")) for i in range(1_100)]
    start = acp.new_session("s")
    reduced = reduce_loop(start, chunks)
    folded = acp.fold(start, chunks)
    assert folded == reduced
    expected = [f"w{i}" for i in range(1_100)]
    for state, content in ((reduced, reduced._hot_content), (folded, folded.messages["m"].content)):
        assert [b.text for b in state.messages["m"].content] == expected
        blocks = sealed_blocks(content)
        assert len(blocks) == 34
        for i, block in enumerate(blocks):
            assert list(block[2:]) == expected[32 * i : 32 * i + 32]
        gc.collect()
        assert not any(gc.is_tracked(block) for block in blocks)


def test_a_block_with_more_than_its_text_is_sealed_as_it_is() -> None:
    marked = acp.TextContent("x", annotations=acp.Annotations())
    items: list[object] = [acp.TextContent("a")] * 31 + [marked, acp.TextContent("b")]
    vec = grown_packed(items)
    (block,) = sealed_blocks(vec)
    assert block[2 + 31] is marked  # after the run's two header items: kept as itself
    assert list(vec) == items
    # A hand-built vector holding a string: its block cannot be packed, so it stays plain.
    raw = grown_packed(["s"] * 33)
    assert sealed_blocks(raw) == [("s",) * 32]
    assert list(raw) == ["s"] * 33


@given(st.lists(st.one_of(BLOCKS, st.text(max_size=2)), min_size=1, max_size=120))
def test_fold_of_one_streamed_message_equals_reducing_one_by_one(blocks: list[object]) -> None:
    # One message streamed chunk after chunk: `fold`'s hot path encodes each block as it
    # comes (a plain text as its string, any other block as it is, a hand-built string
    # content handed to the reducer).
    chunks = [acp.AgentMessageChunk("m", block) for block in blocks]  # type: ignore[arg-type]
    start = acp.new_session("s")
    looped = reduce_loop(start, chunks)
    folded = acp.fold(start, chunks)
    assert folded == looped
    assert list(folded.messages["m"].content) == blocks
    assert [type(b) for b in folded.messages["m"].content] == [type(b) for b in blocks]
