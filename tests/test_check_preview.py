"""The checker at the 2026-11 draft and the Preview: a good and a bad trace per rule
(tests/preview_traces.py), C15 scoped to 2026-08, and bad peer input never raising."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from preview_traces import CASES, P, announce, chunk

import acp_core as acp

# The rules a later revision brings (each says so with `Rule.since`).
LATER_RULES = frozenset(i for i, r in acp.RULES.items() if r.since is not None)


def judged(entries: list[Any], rule: str, revision: acp.Revision = acp.V2_PREVIEW) -> list[Any]:
    side = acp.RULES[rule].side
    found = acp.check_trace(entries, revision=revision, side=None if side == "both" else side)
    return [(v.rule, v.index) for v in found if not v.warning]


@pytest.mark.parametrize(("rule", "good", "bad", "index"), CASES, ids=[c[0] for c in CASES])
def test_good_trace_is_clean_and_bad_trace_breaks_its_rule(
    rule: str, good: list[Any], bad: list[Any], index: int
) -> None:
    assert judged(good, rule) == []
    assert judged(bad, rule) == [(rule, index)]


def test_every_preview_rule_the_checker_reports_has_a_case() -> None:
    from acp_core._rules._check import CHECKED_RULES
    from acp_core._rules._check_preview import CHECKED

    # Every rule of the cross-session checks, and the Preview shape rules of the message
    # checks (R52, R54, R78, R80), have rows; every row is a rule the checker reports.
    assert CHECKED | {"R52", "R54", "R78", "R80"} == {c[0] for c in CASES}
    assert {c[0] for c in CASES} <= CHECKED_RULES


def test_the_preview_rules_stay_silent_at_2026_08() -> None:
    # At 2026-08 none of them applies; what does not decode there is a D1, nothing else.
    for rule, _good, bad, _index in CASES:
        found = {v.rule for v in acp.check_trace(bad, revision=acp.V2_2026_08)}
        assert not found & LATER_RULES, rule


def test_c15_applies_only_at_2026_08() -> None:
    from pathlib import Path

    from test_check import load

    traces = Path(__file__).resolve().parent / "traces"
    for path in traces.glob("bad_C15_*.jsonl"):
        entries = load(path)
        assert "C15" in {v.rule for v in acp.check_trace(entries, revision=acp.V2_2026_08)}
        for rev in (acp.V2_2026_11, acp.V2_PREVIEW):
            assert "C15" not in {v.rule for v in acp.check_trace(entries, revision=rev)}


def test_orphan_traffic_is_a_finding_never_an_exception() -> None:
    # Child traffic before its announcement, twice, then a second parent, then a marker out
    # of place: findings with rule ids, and the checker keeps going.
    entries = [
        chunk("sess_child_1"),
        chunk("sess_child_1", "m2"),
        announce(P, "sess_child_1"),
        announce("sess_q", "sess_child_1"),
    ]
    rules = [v.rule for v in acp.check_trace(entries, revision=acp.V2_PREVIEW)]
    assert rules == ["R47", "R48"]


@pytest.mark.parametrize(("rule", "good", "bad", "index"), CASES, ids=[c[0] for c in CASES])
def test_incremental_judging_equals_check_trace_at_every_cut(
    rule: str, good: list[Any], bad: list[Any], index: int
) -> None:
    # explore extends a parent's IncrementalCheck: the Preview checks must fork cleanly too.
    from acp_core._rules._check import IncrementalCheck

    for entries in (good, bad):
        for cut in range(len(entries) + 1):
            first = IncrementalCheck.start(acp.V2_PREVIEW).feed_all(entries[:cut])
            whole = first.feed_all(entries[cut:])
            assert first.finish() == acp.check_trace(entries[:cut], revision=acp.V2_PREVIEW)
            assert whole.finish() == acp.check_trace(entries, revision=acp.V2_PREVIEW)


_ALL_ENTRIES = [entry for case in CASES for trace in (case[1], case[2]) for entry in trace]


@given(st.lists(st.sampled_from(_ALL_ENTRIES), max_size=30))
def test_any_mix_of_preview_traffic_gives_violations_never_an_exception(entries: list[Any]) -> None:
    # Children, markers, keys and item cancels in any order (orphans, second parents,
    # markers out of place, answers to nothing): a result at every revision.
    for revision in (acp.V2_2026_08, acp.V2_2026_11, acp.V2_PREVIEW):
        found = acp.check_trace(entries, revision=revision)
        assert all(v.rule in acp.RULES for v in found)
