"""The reducers build `Foreground` and `EntityRef` records with generated positional
constructors that skip `__init__` and its converters (`_state/_session_state.py`
`new_foreground`, `new_entity_ref`). That is only right if the converters would have kept
every value as it was: rebuilding each record through the public `__init__` must give an equal
record, field by field, with the same types (a list where `__init__` makes a tuple would
compare unequal). Checked at every revision on generated updates, through `reduce` and `fold`.
"""

from __future__ import annotations

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import acp_core as acp
from acp_core import strategies

EACH_REVISION = pytest.mark.parametrize(
    "revision", list(acp.REVISIONS.values()), ids=list(acp.REVISIONS)
)


def _rebuilt(record: object) -> object:
    fields = {a.alias: getattr(record, a.name) for a in attrs.fields(type(record))}
    return type(record)(**fields)


def _assert_as_init_builds(state: acp.SessionState) -> None:
    foreground = state.foreground
    rebuilt = _rebuilt(foreground)
    assert rebuilt == foreground
    for a in attrs.fields(acp.Foreground):
        assert type(getattr(rebuilt, a.name)) is type(getattr(foreground, a.name)), a.name
    for ref in state.timeline:
        assert _rebuilt(ref) == ref
        assert type(ref.kind) is str
        assert type(ref.id) is str


@EACH_REVISION
@settings(max_examples=25)
@given(data=st.data())
def test_fast_built_records_equal_what_init_builds(
    revision: acp.Revision, data: st.DataObject
) -> None:
    updates = data.draw(st.lists(strategies.session_updates(revision=revision), max_size=30))
    state = acp.new_session("s")
    for update in updates:
        state = acp.reduce(state, update, revision=revision)
        _assert_as_init_builds(state)
    _assert_as_init_builds(acp.fold(acp.new_session("s"), updates, revision=revision))


@pytest.mark.parametrize(
    "wire",
    [
        {"sessionUpdate": "state_update", "state": "running", "_meta": {"a": [1]}},
        {"sessionUpdate": "state_update", "state": "requires_action", "background": []},
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"},
    ],
)
def test_each_known_state_update_builds_a_foreground_equal_to_init(wire: dict[str, object]) -> None:
    state = acp.reduce(acp.new_session("s"), acp.decode_update(wire))
    assert state.foreground.state == wire["state"]
    _assert_as_init_builds(state)
