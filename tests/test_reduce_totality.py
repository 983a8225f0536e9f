"""Totality: whatever a peer sends, once it decodes (lenient mode), `reduce` does not raise.

Wire dicts come from the strategies and are then damaged: keys dropped, set to null, given
junk of the wrong type, variant tags swapped for other known tags. Lenient decoding either
raises `DecodeError` or yields an update; every update that decodes is folded, and the state
reached must still snapshot and restore.
"""

from __future__ import annotations

import copy
from typing import Any

import state_strategies as ss
from hypothesis import given
from hypothesis import strategies as st

import acp_core as acp
from acp_core import strategies as acps

SID = "sess_1"

_KNOWN_TAGS = [
    *ss.MESSAGE_CHUNK_TAGS,
    *ss.MESSAGE_UPSERT_TAGS,
    "state_update",
    "tool_call_content_chunk",
    "tool_call_update",
    "terminal_update",
    "terminal_output_chunk",
    "plan_update",
    "available_commands_update",
    "config_option_update",
    "session_info_update",
    "usage_update",
    *ss.V1_TAGS,
]
_junk = st.one_of(
    ss.json_values,
    # Fresh copies: a damage step may mutate what it inserted, and a shared `{}` would then
    # change the strategy itself between runs (hypothesis reports that as flaky).
    st.sampled_from(["", "!!", "é", -1, 2**70, 1.5, [], {}, True, [{}], {"type": 1}]).map(
        copy.deepcopy
    ),
)


def _objects(value: Any, out: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """Every dict inside a JSON value (the value itself included)."""
    if isinstance(value, dict):
        out.append(value)
        for v in value.values():
            _objects(v, out)
    elif isinstance(value, list):
        for v in value:
            _objects(v, out)
    return out


@st.composite
def damaged(draw: st.DrawFn, wire: st.SearchStrategy[dict[str, Any]]) -> dict[str, Any]:
    d = copy.deepcopy(draw(wire))
    for _ in range(draw(st.integers(1, 3))):
        target = draw(st.sampled_from(_objects(d, [])))
        op = draw(st.sampled_from(["drop", "null", "junk", "retag", "add"]))
        if op == "retag":
            if "sessionUpdate" in target:
                target["sessionUpdate"] = draw(st.sampled_from(_KNOWN_TAGS))
            elif "type" in target:
                target["type"] = draw(
                    st.sampled_from(["text", "image", "content", "diff", "terminal", "items"])
                )
            continue
        if op == "add":
            target[draw(st.sampled_from(["content", "state", "output", "_meta", "planId"]))] = draw(
                _junk
            )
            continue
        if not target:
            continue
        key = draw(st.sampled_from(sorted(target)))
        if op == "drop":
            del target[key]
        elif op == "null":
            target[key] = None
        else:
            target[key] = draw(_junk)
    return d


sources = st.one_of(ss.wire_updates(), ss.wire_updates(), acps.wire_updates())
damaged_lists = st.lists(st.one_of(damaged(sources), ss.wire_updates()), max_size=12)


def _decode_all(wire: list[dict[str, Any]]) -> list[acp.SessionUpdate]:
    out = []
    for d in wire:
        try:
            out.append(ss.decode_update(d))
        except acp.DecodeError:
            continue
    return out


@given(damaged_lists)
def test_reduce_never_raises_on_decoded_damaged_updates(wire: list[dict[str, Any]]) -> None:
    updates = _decode_all(wire)
    state = acp.new_session(SID)
    for update in updates:
        state = ss.reduce(state, update)
    assert state == ss.fold(acp.new_session(SID), updates)
    assert acp.restore(acp.snapshot(state)) == state


@given(st.lists(ss.wire_updates(), max_size=8), damaged(sources))
def test_a_damaged_update_that_decodes_applies_on_top_of_any_state(
    start: list[dict[str, Any]], bad: dict[str, Any]
) -> None:
    state = ss.fold(acp.new_session(SID), _decode_all(start))
    try:
        update = ss.decode_update(bad)
    except acp.DecodeError:
        return
    after = ss.reduce(state, update)
    assert isinstance(after, acp.SessionState)
    assert after.session_id == SID


def test_the_damage_strategy_reaches_both_outcomes() -> None:
    # Guard against a damage strategy that never damages (or always breaks) anything.
    outcomes: set[bool] = set()

    @given(damaged(ss.wire_updates()))
    def probe(d: dict[str, Any]) -> None:
        try:
            ss.decode_update(d)
            outcomes.add(True)
        except acp.DecodeError:
            outcomes.add(False)

    probe()
    assert outcomes == {True, False}
