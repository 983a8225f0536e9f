"""Totality at every revision of the registry: `reduce`, `fold` and both engines take every
update a revision decodes (known variants, unknown updates, unknown states) and return a value
or raise an `AcpError`; `fold` equals `reduce` step by step.

The regression this pins down: at 2026-11 the `_meta` merge read `.meta` of `OtherUpdate` and
`OtherStateUpdate`, so `reduce`, `fold`, the client engine and `replay --revision 2026-11`
raised `AttributeError` on every unknown update and state.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import acp_core as acp
from acp_core import strategies as acps

SID = "sess_1"
REVISIONS = list(acp.REVISIONS.values())
IDS = list(acp.REVISIONS)
UNKNOWN = [
    {"sessionUpdate": "zz_future_kind", "x": 1},
    {"sessionUpdate": "state_update", "state": "zz_future_state"},
    {"sessionUpdate": "replay_complete"},  # a later kind: unknown before the Preview
]


def _engines_take(revision: acp.Revision, update: acp.SessionUpdate) -> None:
    message = acp.Received(acp.UpdateSessionNotification(SID, update))
    for engine in (acp.new_client(SID, revision=revision), acp.new_agent(SID, revision=revision)):
        # A refusal is a value of the contract; anything else escapes and fails the test.
        with contextlib.suppress(acp.AcpError):
            acp.step(engine, message)


def _unknown_cases() -> list[Any]:
    """(revision, wire) for every revision where the wire is unknown."""
    out = []
    for revision, name in zip(REVISIONS, IDS, strict=True):
        for wire, kind in zip(UNKNOWN, ("update", "state", "later-kind"), strict=True):
            if kind == "later-kind" and revision.includes(acp.PREVIEW.name):
                continue  # known there (tested in test_revision_schemas.py)
            out.append(pytest.param(revision, wire, id=f"{kind}-{name}"))
    return out


@pytest.mark.parametrize(("revision", "wire"), _unknown_cases())
def test_unknown_updates_and_states_reduce_at_every_revision(
    revision: acp.Revision, wire: dict[str, Any]
) -> None:
    update = acp.decode_update(wire, revision=revision)
    assert isinstance(update, acp.OtherUpdate | acp.OtherStateUpdate)
    base = acp.reduce(
        acp.new_session(SID),
        acp.decode_update({"sessionUpdate": "session_info_update", "_meta": {"a": 1}}),
        revision=revision,
    )
    after = acp.reduce(base, update, revision=revision)
    assert after.info == base.info  # an unknown update patches no `_meta`
    assert acp.fold(base, [update], revision=revision) == after
    _engines_take(revision, update)


@pytest.mark.parametrize("revision", REVISIONS, ids=IDS)
def test_reduce_fold_and_both_engines_are_total_over_decodable_updates(
    revision: acp.Revision,
) -> None:
    values = acps.session_updates(revision=revision, tolerated=True)
    # What the wire can carry at this revision, decoded as that revision decodes it.
    decoded = acps.wire_updates(revision=revision, tolerated=True).map(
        lambda w: acp.decode_update(w, revision=revision)
    )

    @settings(deadline=None)
    @given(st.lists(st.one_of(values, decoded), max_size=8))
    def check(updates: list[acp.SessionUpdate]) -> None:
        state = acp.new_session(SID)
        for update in updates:
            state = acp.reduce(state, update, revision=revision)
            _engines_take(revision, update)
        assert acp.fold(acp.new_session(SID), updates, revision=revision) == state

    check()
