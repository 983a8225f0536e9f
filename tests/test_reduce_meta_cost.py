"""A `session_info_update` or `usage_update` costs what its own patch holds, never what the
session's `_meta` has accumulated: the reducers build the new record from values that are
frozen already, without copying the whole `_meta` again.

Found by growing what an agent can grow (session s6, attack): an agent sending
`session_info_update`s that each add one `_meta` key made every update cost O(keys so far)
(the record's constructor re-froze the merged map): 657 us an update at 1,000 keys, 1,437 us
at 4,000 (10 us for a `tool_call_update` doing the same), quadratic over a connection; the
same for `usage_update` at the Preview. Pinned without a clock: a value planted in the state's
`_meta` that any copy would refuse.
"""

from __future__ import annotations

from typing import Any

import pytest

import acp_core as acp
from acp_core._state._reduce_common import set_aux
from acp_core._wire._fastnew import evolve_frozen


class _Uncopyable:
    """Stands in for a `_meta` value no reducer may walk: freezing it again raises."""


POISON = _Uncopyable()
REVISIONS = list(acp.REVISIONS.values())


def _info_state() -> acp.SessionState:
    state = acp.reduce(
        acp.new_session("s"),
        acp.decode_update({"sessionUpdate": "session_info_update", "_meta": {"a": 1}}),
    )
    info = state.aux.info
    return set_aux(state, info=evolve_frozen(info, meta=info.meta.set("big", POISON)))  # type: ignore[union-attr, arg-type]


def _usage_state() -> acp.SessionState:
    wire = {"sessionUpdate": "usage_update", "used": 1, "size": 9, "_meta": {"a": 1}}
    state = acp.reduce(acp.new_session("s"), acp.decode_update(wire))
    usage = state.aux.usage
    assert usage is not None
    assert usage.meta is not None
    return set_aux(state, usage=evolve_frozen(usage, meta=usage.meta.set("big", POISON)))  # type: ignore[arg-type]


def _reduced(state: acp.SessionState, wire: dict[str, Any], revision: acp.Revision) -> list[Any]:
    update = acp.decode_update(wire, revision=revision)
    return [
        acp.reduce(state, update, revision=revision),
        acp.fold(state, [update], revision=revision),
    ]


@pytest.mark.parametrize("revision", REVISIONS, ids=list(acp.REVISIONS))
def test_a_session_info_patch_never_copies_the_accumulated_meta(revision: acp.Revision) -> None:
    state = _info_state()
    for after in _reduced(
        state, {"sessionUpdate": "session_info_update", "_meta": {"b": 2}}, revision
    ):
        meta = after.aux.info.meta
        assert meta["b"] == 2
        if revision.meta_patch_merges:
            assert meta["big"] is POISON
            assert meta["a"] == 1
        else:
            assert "big" not in meta
    for after in _reduced(state, {"sessionUpdate": "session_info_update", "title": "t"}, revision):
        assert after.aux.info.title == "t"
        assert after.aux.info.meta is state.aux.info.meta


@pytest.mark.parametrize("revision", REVISIONS, ids=list(acp.REVISIONS))
def test_a_usage_patch_never_copies_the_accumulated_meta(revision: acp.Revision) -> None:
    state = _usage_state()
    wire = {"sessionUpdate": "usage_update", "used": 2, "size": 9, "_meta": {"b": 2}}
    for after in _reduced(state, wire, revision):
        usage = after.aux.usage
        assert (usage.used, usage.size, usage.meta["b"]) == (2, 9, 2)
    wire = {"sessionUpdate": "usage_update", "used": 3, "size": 9}
    for after in _reduced(state, wire, revision):
        assert after.aux.usage.used == 3


def test_an_update_that_changes_nothing_still_returns_the_state_itself() -> None:
    state = acp.reduce(
        acp.new_session("s"),
        acp.decode_update(
            {"sessionUpdate": "session_info_update", "title": "t", "_meta": {"a": 1}}
        ),
    )
    for wire in (
        {"sessionUpdate": "session_info_update", "_meta": {"a": 1}},
        {"sessionUpdate": "session_info_update", "title": "t"},
        {"sessionUpdate": "session_info_update"},
    ):
        assert acp.reduce(state, acp.decode_update(wire)) is state
    usage = {"sessionUpdate": "usage_update", "used": 1, "size": 9, "_meta": {"a": 1}}
    state = acp.reduce(state, acp.decode_update(usage))
    assert acp.reduce(state, acp.decode_update(usage)) is state
