"""What a long session leaves for CPython's cyclic garbage collector to walk (issue 24).

Every full collection walks every container object a session keeps, so the number of
collector-tracked objects a state holds per update is a per-event cost that grows with the
session (docs/performance.md, "Long streams and the cyclic GC"; benchmarks/long_stream.py
measures it over 10^6 updates). These tests hold the mechanism on small inputs, no clock:
a message that stopped streaming keeps its content in one tail node, not one node per chunk,
and the `mixed` workload keeps a bounded number of tracked objects per update on both paths.
"""

from __future__ import annotations

import collections
import gc
import sys
from pathlib import Path

from hypothesis import given
from hypothesis import strategies as st

import acp_core
from acp_core._state._pcoll import EMPTY_VEC, PVec, compact_tail

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import workloads

SID = workloads.SESSION_ID


def tracked_reachable(root: object) -> collections.Counter[str]:
    """Collector-tracked objects reachable from `root`, by type name (types left out)."""
    gc.collect()  # CPython untracks tuples of atoms during a collection
    seen: set[int] = set()
    counts: collections.Counter[str] = collections.Counter()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type):
            continue
        seen.add(id(obj))
        counts[type(obj).__qualname__] += 1
        stack.extend(r for r in gc.get_referents(obj) if gc.is_tracked(r))
    return counts


def reduced_one_by_one(wire: list[dict[str, object]]) -> acp_core.SessionState:
    state = acp_core.new_session(SID)
    for d in wire:
        state = acp_core.reduce(state, acp_core.decode_update(d))
    return state


@given(st.lists(st.integers(), max_size=80), st.integers(0, 80))
def test_compact_tail_is_the_same_vector_and_keeps_growing_alike(
    items: list[int], more: int
) -> None:
    vec: PVec[int] = EMPTY_VEC
    for x in items:
        vec = vec.append(x)
    compact = compact_tail(vec)
    assert compact == vec
    assert list(compact) == items
    assert len(compact) == len(items)
    assert [compact[i] for i in range(len(items))] == items
    assert compact._prev is None  # the tail is one node
    grown, grown_compact = vec, compact
    for x in range(more):
        grown, grown_compact = grown.append(x), grown_compact.append(x)
    assert grown_compact == grown
    assert list(grown_compact) == [*items, *range(more)]
    assert list(vec) == items  # the original is untouched


def test_a_message_that_stopped_streaming_keeps_one_tail_node() -> None:
    wire = workloads.mixed(2_000).v2
    state = reduced_one_by_one(wire)
    hot = state._hot_id
    finished = [m for mid, m in state.messages.items() if mid != hot]
    assert len(finished) > 100
    assert all(m.content._prev is None for m in finished)


def test_tracked_objects_per_update_are_bounded_on_both_paths() -> None:
    # Measured at 2,000 events: about 0.54 per update on both paths since the timeline keeps
    # its entries as packed (kind, id) pairs and a tool call its plain text items as strings
    # (tests/test_packed_entries.py; before, about 0.88: EntityRef 0.11, ToolContent 0.09
    # and the TextContent inside, 0.09); about 1.6 before a finished message kept its plain
    # text chunks as strings (tests/test_packed_tails.py), most of it one TextContent per
    # streamed chunk (a frozen attrs instance is always tracked), and before messages were
    # compacted when they left the hot slot, `reduce` kept about 2.2 (one PVec node per
    # chunk). The TextContent left (about 0.01) is the user messages sent whole.
    wire = workloads.mixed(2_000).v2
    folded = acp_core.fold(acp_core.new_session(SID), map(acp_core.decode_update, wire))
    reduced = reduced_one_by_one(wire)
    assert reduced == folded
    for state in (reduced, folded):
        counts = tracked_reachable(state)
        assert sum(counts.values()) / len(wire) <= 0.65, counts.most_common(6)
        assert counts["TextContent"] / len(wire) <= 0.03, counts.most_common(6)
        assert counts["PVec"] / len(wire) <= 0.15, counts.most_common(6)
        # At most the timeline's unsealed tail (32 entries) and no tool content item.
        assert counts["EntityRef"] <= 32, counts.most_common(6)
        assert counts["ToolContent"] == 0, counts.most_common(6)
