"""`IncrementalCheck` is a value: fed one entry at a time it says what `check_trace` says, and a
check that was fed further never changes the one it came from.

- The fold law on every trace of the corpus, at its own revision and at every other:
  `check_trace(entries)` is `reduce(IncrementalCheck.feed, entries, start).finish()`, and
  `feed_all` is that fold; what it has `found` so far is never taken back.
- The fork law: one prefix extended by two different continuations gives, for each, what a
  fresh check of the whole says, and the prefix's own verdict and memory stay as they were.
- It is frozen: no attribute can be set, and its memory holds only values.
"""

from __future__ import annotations

import functools
import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import acp_core as acp
from acp_core._rules._check import IncrementalCheck, LiveCheck, _Memory

TRACES = sorted((Path(__file__).resolve().parent / "traces").glob("*.jsonl"))
REVISIONS = list(acp.REVISIONS.values())


def _load(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


CORPUS = {path.stem: _load(path) for path in TRACES}
ENTRIES = [e for entries in CORPUS.values() for e in entries]


def _fold(entries: list[Any], revision: acp.Revision) -> IncrementalCheck:
    return functools.reduce(IncrementalCheck.feed, entries, IncrementalCheck.start(revision))


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize("name", sorted(CORPUS))
def test_the_fold_of_feed_is_check_trace(name: str, revision: acp.Revision) -> None:
    entries = CORPUS[name]
    folded = _fold(entries, revision)
    expected = acp.check_trace(entries, revision=revision)
    assert folded.finish() == expected
    assert folded.count == len(entries)
    assert IncrementalCheck.start(revision).feed_all(entries).finish() == expected
    # Found so far is never taken back: it is what the end adds to that makes the verdict.
    assert set(folded.found) <= set(expected)
    assert folded.finish() == expected  # finishing changed nothing


@given(
    st.lists(st.sampled_from(ENTRIES), max_size=30),
    st.lists(st.sampled_from(ENTRIES), max_size=10),
    st.lists(st.sampled_from(ENTRIES), max_size=10),
    st.sampled_from(REVISIONS),
)
def test_a_fork_never_changes_the_check_it_came_from(
    prefix: list[Any], left: list[Any], right: list[Any], revision: acp.Revision
) -> None:
    base = IncrementalCheck.start(revision).feed_all(prefix)
    verdict, memory = base.finish(), attrs.asdict(base, recurse=False)
    one = base.feed_all(left)
    other = functools.reduce(IncrementalCheck.feed, right, base)
    assert one.finish() == acp.check_trace(prefix + left, revision=revision)
    assert other.finish() == acp.check_trace(prefix + right, revision=revision)
    assert base.finish() == verdict
    assert attrs.asdict(base, recurse=False) == memory
    assert base.count == len(prefix)


def test_a_check_is_frozen_and_holds_only_values() -> None:
    check = IncrementalCheck.start().feed_all(CORPUS["good_permission_turn"])
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        check._memory = check._memory  # type: ignore[misc]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        check._memory.count = 0  # type: ignore[misc]
    for field in attrs.fields(_Memory):
        value = getattr(check._memory, field.name)
        assert not isinstance(value, (dict, list, set)), field.name
    assert "count=" in repr(check)


def test_a_live_check_says_per_entry_what_the_check_found() -> None:
    # C15's finding is one only the end of the recording shows.
    entries = CORPUS["bad_C15_6_permission_never_answered_after_cancel"]
    revision = acp.V2_2026_08
    live = LiveCheck(revision)
    added = [v for e in entries for v in live.feed(e)]
    ended = live.finish()
    assert ended  # the end said something the entries did not
    expected = acp.check_trace(entries, revision=revision)
    assert sorted((*added, *ended), key=lambda v: v.index) == list(expected)
    assert live.found() == expected
    assert live.count == len(entries)
