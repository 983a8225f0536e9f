"""`strategies.session_updates(revision=r)` draws every `sessionUpdate` variant `r` defines,
at every revision of the registry, and none it does not define.

The regression this pins down: at the default revision (the Preview) the strategy never drew
10 of the 30 variants (notices, compactions, `state: "unknown"`, children, inter-session
messages, the replay marker, plan removal, prompt suggestions), so every law stated "for every
drawn update" (the engine obeys the checker, codec round trips, reducer totality) said nothing
about them. Reaching every variant is not left to chance: a derandomized `find` searches for
each one (same draws every run, no shrinking).
"""

from __future__ import annotations

import typing

import pytest
from hypothesis import HealthCheck, Phase, find, settings
from hypothesis.errors import NoSuchExample

import acp_core as acp
from acp_core import strategies as acps
from acp_core._wire import _updates as u

#: Every class of the `SessionUpdate` union (30), and the plan content classes inside
#: `plan_update` (the Preview's markdown plan is a plan, not an update).
VARIANTS = typing.get_args(u.SessionUpdate)
PLANS = (acp.values.PlanItems, acp.values.PlanMarkdown, acp.values.OtherPlan)
REVISIONS = list(acp.REVISIONS.values())


def _defined(cls: type, revision: acp.Revision) -> bool:
    since = getattr(cls, "__wire_since__", None)
    return since is None or revision.includes(since)


def _kind(update: object) -> type:
    return type(update.plan) if isinstance(update, u.PlanUpdate) else type(update)


#: Derandomized and without shrinking: the same draws every run, the first hit returned.
QUICK = settings(
    database=None,
    derandomize=True,
    phases=[Phase.generate],
    max_examples=5000,
    suppress_health_check=list(HealthCheck),
    deadline=None,
)


def _cases() -> list[typing.Any]:
    out = []
    for revision in REVISIONS:
        for cls in (*VARIANTS, *PLANS):
            if cls is u.PlanUpdate:
                continue  # reached through its plans
            out.append(pytest.param(revision, cls, id=f"{cls.__name__}@{revision.name}"))
    return out


def test_the_union_has_thirty_variants() -> None:
    assert len(VARIANTS) == 30


@pytest.mark.parametrize(("revision", "cls"), _cases())
def test_every_variant_defined_at_a_revision_is_drawn_there(
    revision: acp.Revision, cls: type
) -> None:
    strategy = acps.session_updates(revision=revision)
    quick = QUICK
    if _defined(cls, revision):
        found = find(strategy, lambda upd: _kind(upd) is cls, settings=quick)
        # What is drawn is what the revision decodes back unchanged.
        assert acp.decode_update(acp.encode_update(found), revision=revision) == found
    else:
        never = settings(quick, max_examples=200)
        with pytest.raises(NoSuchExample):
            find(strategy, lambda upd: _kind(upd) is cls, settings=never)


def test_a_strategy_is_built_once_per_arguments() -> None:
    # Rebuilding the strategies per draw cost more than drawing (the SendUpdate property at
    # the Preview took minutes of CI): the constructors the draws lean on build once.
    from acp_core._research._strategies_base import extras, json_objects, json_values, metas

    for revision in (acp.V2_2026_08, acp.V2_PREVIEW):
        assert acps.session_updates(revision=revision) is acps.session_updates(revision=revision)
    assert acps.session_updates(revision=acp.V2_2026_08) is not acps.session_updates()
    assert acps.content_blocks() is acps.content_blocks()
    assert json_values(max_leaves=3) is json_values(max_leaves=3)
    assert json_values(max_leaves=3) is not json_values()
    for build in (json_objects, metas, extras):
        assert build() is build()


#: Values inside a variant that a later revision adds: (what, how to find it in an update,
#: the revision that adds it). The class-level test above cannot see these.
INSIDE = [
    (
        "a session reference in tool content",
        lambda upd: any(
            type(item) is acp.values.SessionReference
            for item in (
                upd.content
                if isinstance(upd, u.ToolCallUpdate) and isinstance(upd.content, tuple)
                else (upd.content,)
                if isinstance(upd, u.ToolCallContentChunk)
                else ()
            )
        ),
        acp.V2_PREVIEW,
    ),
    (
        "a tool call's capabilities",
        lambda upd: isinstance(upd, u.ToolCallUpdate) and upd.capabilities is not acp.values.UNSET,
        acp.V2_2026_11,
    ),
]


@pytest.mark.parametrize(
    ("what", "holds", "since", "revision"),
    [
        pytest.param(*row, revision, id=f"{row[0]}@{revision.name}")
        for row in INSIDE
        for revision in REVISIONS
    ],
)
def test_every_later_value_inside_a_variant_is_drawn_where_its_revision_has_it(
    what: str, holds: typing.Any, since: acp.Revision, revision: acp.Revision
) -> None:
    strategy = acps.session_updates(revision=revision)
    quick = QUICK
    if revision.includes(since.name):
        found = find(strategy, holds, settings=quick)
        wire = acp.encode_update(found, revision=revision)
        assert acp.decode_update(wire, revision=revision) == found
    else:
        with pytest.raises(NoSuchExample):
            find(strategy, holds, settings=settings(quick, max_examples=300))
