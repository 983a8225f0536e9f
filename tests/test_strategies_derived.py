"""`derived_values`: a later `sessionUpdate` variant without a hand-written strategy is drawn
from its attrs fields, with values the codec keeps at every revision that defines it.

- Every later variant, derived, round-trips through `encode_update` / `decode_update` at each
  revision that defines it; a `path` field draws absolute paths.
- A variant taken out of `WRITTEN` is still drawn by `strategies.session_updates(revision=)`
  at every revision that defines it (the fallback, not the table, reaches a new variant).
- A field type the derivation does not know raises, naming the class to write one for.
"""

from __future__ import annotations

import typing

import attrs
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings

import acp_core as acp
from acp_core import strategies as acps
from acp_core._research import _strategies_later as later
from acp_core._wire import _updates as u

LATER = [c for c in typing.get_args(u.SessionUpdate) if getattr(c, "__wire_since__", None)]
CASES = [
    pytest.param(r, c, id=f"{c.__name__}@{r.name}")
    for r in acp.REVISIONS.values()
    for c in LATER
    if r.includes(c.__wire_since__)
]


def _derivable(cls: type) -> bool:
    try:
        later.derived_values(cls)
    except TypeError:
        return False
    return True


DERIVABLE = [c for c in CASES if _derivable(c.values[1])]


@pytest.mark.parametrize(("revision", "cls"), DERIVABLE)
def test_derived_values_round_trip_at_every_revision_that_defines_them(
    revision: acp.Revision, cls: type
) -> None:
    @settings(max_examples=25, deadline=None, suppress_health_check=list(HealthCheck))
    @given(later.derived_values(cls, revision=revision))
    def law(value: typing.Any) -> None:
        assert type(value) is cls
        wire = acp.encode_update(value, revision=revision)
        assert acp.decode_update(wire, revision=revision) == value

    law()


def test_a_path_field_draws_absolute_paths() -> None:
    @settings(max_examples=50, deadline=None, suppress_health_check=list(HealthCheck))
    @given(later.derived_values(acp.values.PlanMarkdown))
    def law(plan: acp.values.PlanMarkdown) -> None:
        assert not isinstance(plan.path, str) or plan.path.startswith("/"), plan.path
        assert plan.plan_id == "" or len(plan.plan_id) <= 8  # an id, not free text

    law()


def test_most_later_variants_are_derivable() -> None:
    # the simple ones at least: a derivation that gave up on everything would pass the above
    assert sum(map(_derivable, LATER)) >= 6


@pytest.mark.parametrize(("revision", "cls"), DERIVABLE)
def test_a_variant_without_a_written_strategy_is_still_drawn(
    revision: acp.Revision, cls: type, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delitem(later.WRITTEN, cls, raising=False)  # a new variant has no entry
    found = find(
        acps.session_updates(revision=revision),
        lambda update: type(update) is cls,
        settings=settings(
            database=None,
            derandomize=True,
            max_examples=3000,
            phases=[Phase.generate],
            suppress_health_check=list(HealthCheck),
        ),
    )
    assert type(found) is cls


def test_an_unknown_field_type_names_the_class_to_write_a_strategy_for() -> None:
    @attrs.frozen
    class Odd:
        count: complex

    with pytest.raises(TypeError, match=r"Odd\.count"):
        later.derived_values(Odd)
