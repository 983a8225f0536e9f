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
from acp_core._state import _fold
from acp_core._state._pcoll import EMPTY_VEC, PVec, compact_tail, extend_compact
from acp_core._state._text_runs import TEXT_RUNS

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
