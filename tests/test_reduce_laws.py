"""Laws of the reducers, as hypothesis properties.

- chunking carries no meaning: any split of a message's text or a terminal's bytes folds alike;
- a full update equals the fold of its chunks (new message, new tool call);
- `fold` is a left fold: `fold(s, a + b) == fold(fold(s, a), b)`, and deterministic;
- `reduce` never mutates its inputs and every state is immutable all the way down;
- updates that change nothing return the very same state object (all-unset patches, repeats).

Two sources of updates: `state_strategies` (small id pools, so updates collide with existing
entities) and the public `acp_core.strategies` (every field and variant, random ids).
"""

from __future__ import annotations

import base64
import copy
import itertools
from typing import Any

import attrs
import immutables
import pytest
import state_strategies as ss
from hypothesis import assume, given
from hypothesis import strategies as st

import acp_core as acp
from acp_core import strategies as acps
from acp_core import values
from acp_core._state._pcoll import PVec
from acp_core._wire._json import Unset

SID = "sess_1"
NEW = acp.new_session(SID)

#: One update: colliding ids (small pools) or every field variant (public strategies).
any_updates = st.one_of(ss.session_updates(), acps.session_updates())
#: Sequences: mostly colliding ids (the public strategies draw ~8x slower, so fewer of them).
update_lists = st.builds(
    lambda a, b, c: a + b + c,
    st.lists(ss.session_updates(), max_size=6),
    st.lists(acps.session_updates(), max_size=2),
    st.lists(ss.session_updates(), max_size=4),
)


def _split(data: Any, cuts: list[int]) -> list[Any]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    bounds = [0, *points, len(data)]
    return [data[a:b] for a, b in itertools.pairwise(bounds)]


# -- chunking carries no meaning ------------------------------------------------------------


@given(
    text=st.text(max_size=30),
    cuts_a=st.lists(st.integers(0, 40), max_size=6),
    cuts_b=st.lists(st.integers(0, 40), max_size=6),
    tag=st.sampled_from(ss.MESSAGE_CHUNK_TAGS),
)
def test_splitting_a_message_differently_folds_to_the_same_text(
    text: str, cuts_a: list[int], cuts_b: list[int], tag: str
) -> None:
    def fold_pieces(cuts: list[int]) -> acp.SessionState:
        wire = [
            {"sessionUpdate": tag, "messageId": "m1", "content": {"type": "text", "text": p}}
            for p in _split(text, cuts)
        ]
        return ss.fold(NEW, [ss.decode_update(w) for w in wire])

    a, b = fold_pieces(cuts_a), fold_pieces(cuts_b)
    assert acp.message_text(a.messages["m1"]) == text == acp.message_text(b.messages["m1"])
    assert a.timeline == b.timeline


@given(
    data=st.binary(max_size=40),
    cuts_a=st.lists(st.integers(0, 50), max_size=6),
    cuts_b=st.lists(st.integers(0, 50), max_size=6),
    snapshot_first=st.booleans(),
)
def test_splitting_terminal_bytes_differently_folds_to_equal_terminals(
    data: bytes, cuts_a: list[int], cuts_b: list[int], snapshot_first: bool
) -> None:
    def fold_pieces(cuts: list[int]) -> acp.SessionState:
        pieces = _split(data, cuts)
        updates: list[acp.SessionUpdate] = []
        if snapshot_first:  # the first piece as an output snapshot, the rest as chunks
            updates.append(acp.TerminalUpdate("x", output=acp.TerminalOutput(ss.b64(pieces[0]))))
            pieces = pieces[1:]
        updates += [acp.TerminalOutputChunk("x", ss.b64(p, padded=False)) for p in pieces]
        return ss.fold(NEW, updates)

    a, b = fold_pieces(cuts_a), fold_pieces(cuts_b)
    assert acp.terminal_bytes(a.terminals["x"]) == data == acp.terminal_bytes(b.terminals["x"])
    assert a.terminals == b.terminals
    assert acp.snapshot(a) == acp.snapshot(b)


@given(
    blocks=st.lists(acps.content_blocks(), min_size=1, max_size=5),
    kind=st.sampled_from(
        [
            (acp.UserMessage, acp.UserMessageChunk),
            (acp.AgentMessage, acp.AgentMessageChunk),
            (acp.AgentThought, acp.AgentThoughtChunk),
        ]
    ),
    start=st.lists(ss.session_updates(), max_size=5),
)
def test_a_full_update_equals_the_fold_of_its_chunks_for_a_new_message(
    blocks: list[acp.ContentBlock], kind: Any, start: list[acp.SessionUpdate]
) -> None:
    upsert, chunk = kind
    base = ss.fold(NEW, start)
    full = ss.reduce(base, upsert("fresh", content=tuple(blocks)))
    chunked = ss.fold(base, [chunk("fresh", b) for b in blocks])
    assert full == chunked


@given(
    items=st.lists(acps.tool_call_contents(), max_size=5),
    start=st.lists(ss.session_updates(), max_size=5),
)
def test_a_full_tool_content_update_equals_the_fold_of_its_chunks(
    items: list[acp.ToolCallContent], start: list[acp.SessionUpdate]
) -> None:
    base = ss.fold(NEW, [*start, acp.ToolCallUpdate("fresh", title="t")])
    full = ss.reduce(base, acp.ToolCallUpdate("fresh", content=tuple(items)))
    chunked = ss.fold(base, [acp.ToolCallContentChunk("fresh", x) for x in items])
    assert full == chunked  # terminal references create the same terminal records too


# -- fold ---------------------------------------------------------------------------------------


@given(a=update_lists, b=update_lists)
def test_fold_of_a_concatenation_is_the_fold_of_the_fold(
    a: list[acp.SessionUpdate], b: list[acp.SessionUpdate]
) -> None:
    assert ss.fold(NEW, a + b) == ss.fold(ss.fold(NEW, a), b)


@given(updates=update_lists)
def test_fold_is_reduce_applied_in_order_and_deterministic(
    updates: list[acp.SessionUpdate],
) -> None:
    state = NEW
    for update in updates:
        state = ss.reduce(state, update)
    again = ss.fold(NEW, iter(updates))
    assert ss.fold(NEW, updates) == state == again
    assert acp.snapshot(again) == acp.snapshot(state)


# -- purity and immutability ----------------------------------------------------------------------


@given(start=update_lists, update=any_updates)
def test_reduce_never_mutates_its_inputs(
    start: list[acp.SessionUpdate], update: acp.SessionUpdate
) -> None:
    state = ss.fold(NEW, start)
    state_copy, state_doc = copy.deepcopy(state), acp.snapshot(state)
    update_copy, update_wire = copy.deepcopy(update), acp.encode_update(update)
    ss.reduce(state, update)
    assert state == state_copy
    assert acp.snapshot(state) == state_doc
    assert update == update_copy
    assert acp.encode_update(update) == update_wire


_SCALARS = (str, int, float, bool, bytes, type(None), Unset)


def assert_deeply_immutable(value: object, path: str = "state") -> None:
    """Nothing reachable is a list, dict or set; attrs records are frozen."""
    stack = [(value, path)]
    while stack:
        x, where = stack.pop()
        assert not isinstance(x, (list, dict, set, bytearray)), f"{type(x).__name__} at {where}"
        cls = type(x)
        if attrs.has(cls):
            first = attrs.fields(cls)[0].name
            try:  # writes back the same value, so a mutable record is not changed
                setattr(x, first, getattr(x, first))
            except attrs.exceptions.FrozenInstanceError:
                pass
            else:
                raise AssertionError(f"mutable {cls.__name__} at {where}")
            stack.extend((getattr(x, f.name), f"{where}.{f.name}") for f in attrs.fields(cls))
        elif isinstance(x, immutables.Map):
            for k, v in x.items():
                stack.append((k, f"{where}[key]"))
                stack.append((v, f"{where}[{k!r}]"))
        elif isinstance(x, (tuple, PVec)):
            stack.extend((item, f"{where}[{i}]") for i, item in enumerate(x))
        else:
            assert isinstance(x, _SCALARS), f"{cls.__name__} at {where}"


@given(updates=update_lists)
def test_nothing_reachable_from_a_state_is_mutable(updates: list[acp.SessionUpdate]) -> None:
    state = ss.fold(NEW, updates)
    assert_deeply_immutable(state)
    assert_deeply_immutable(acp.restore(acp.snapshot(state)), "restored")


def test_the_immutability_walker_can_fail() -> None:
    @attrs.frozen
    class Leaky:
        items: Any

    @attrs.define
    class Mutable:
        item: int

    with pytest.raises(AssertionError, match="list at"):
        assert_deeply_immutable((1, immutables.Map(a=PVec([Leaky([1])]))))
    with pytest.raises(AssertionError, match="mutable Mutable at"):
        assert_deeply_immutable(Leaky((Mutable(1),)))
    with pytest.raises(AssertionError, match="bytearray at"):
        assert_deeply_immutable(Leaky(bytearray()))


# -- updates that change nothing ----------------------------------------------------------------


@given(updates=update_lists)
def test_all_unset_patches_return_the_same_state(updates: list[acp.SessionUpdate]) -> None:
    state = ss.fold(NEW, updates)
    for message_id in state.messages:
        for upsert in (acp.UserMessage, acp.AgentMessage, acp.AgentThought):
            assert ss.reduce(state, upsert(message_id)) is state
    for tool_call_id in state.tool_calls:
        assert ss.reduce(state, acp.ToolCallUpdate(tool_call_id)) is state
    for terminal_id in state.terminals:
        assert ss.reduce(state, acp.TerminalUpdate(terminal_id)) is state
        assert ss.reduce(state, acp.TerminalOutputChunk(terminal_id, "")) is state
    assert ss.reduce(state, acp.SessionInfoUpdate()) is state


def _b64(data: str) -> bytes | None:
    try:
        return base64.b64decode(data + "=" * (-len(data) % 4), validate=True)
    except ValueError:
        return None


_UPSERTS = (acp.UserMessage, acp.AgentMessage, acp.AgentThought)
_ROLE = {acp.UserMessage: "user", acp.AgentMessage: "agent", acp.AgentThought: "thought"}
_APPENDING = (
    acp.UserMessageChunk,
    acp.AgentMessageChunk,
    acp.AgentThoughtChunk,
    acp.ToolCallContentChunk,
    acp.OtherUpdate,
    # Later revisions: a notice is one more event each time it arrives; the chunks append.
    values.Notice,
    values.SessionMessageChunk,
    values.CompactionSummaryChunk,
    # A replay marker outside a replay window is diagnosed on every arrival (as bad base64).
    values.ReplayComplete,
)


@given(start=update_lists, update=any_updates)
def test_applying_a_replace_or_patch_twice_returns_the_same_object(
    start: list[acp.SessionUpdate], update: acp.SessionUpdate
) -> None:
    # Replaces and patches are idempotent: the second application changes nothing and returns
    # the very same object. Chunks append and unknown updates are kept once per arrival; an
    # update rejected for bad base64 is diagnosed on every arrival.
    before = ss.fold(NEW, start)
    # A message upsert under an id another role holds breaks R5 and is diagnosed on every
    # arrival (the view keeps what was said): not a replace.
    mid = getattr(update, "message_id", None)
    held = before.messages.get(mid) if isinstance(mid, str) else None
    assume(held is None or not isinstance(update, _UPSERTS) or held.role == _ROLE[type(update)])
    once = ss.reduce(before, update)
    twice = ss.reduce(once, update)
    if isinstance(update, acp.TerminalOutputChunk):
        data = _b64(update.data)
        assert (twice is once) == (data == b"")
    elif isinstance(update, acp.TerminalUpdate) and isinstance(update.output, acp.TerminalOutput):
        assert (twice is once) == (_b64(update.output.data) is not None)
    elif isinstance(update, _APPENDING):
        assert twice != once
    else:
        assert twice is once
