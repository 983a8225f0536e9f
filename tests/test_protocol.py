"""The protocol machine (`acp_core.protocol`) is a value: `observe` is pure, a protocol forks
for free, and `check_trace` is its fold.

- Pure: `observe` leaves its argument as it was (equal to a protocol built afresh from the
  same lines, and holding the very same components), and equal inputs give equal outputs.
- Fork: two continuations observed from one protocol each say what a fresh fold of the whole
  says, and neither changes the other or the protocol they came from.
- Fold law: `check_trace(entries)` is the fold of `observe` over the entries' messages plus
  `finish`, sorted by line: on every trace of the corpus at every revision, on random mixes
  of corpus lines and on the traces `acp_core.strategies` draws.
- Totality: a bad sender or line label is an `ArgumentError`, a bad message a finding.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import acp_core as acp
from acp_core import strategies as acps
from acp_core.protocol import Protocol, finish, observe

TRACES = sorted((Path(__file__).resolve().parent / "traces").glob("*.jsonl"))
REVISIONS = list(acp.REVISIONS.values())


def _load(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def _well_formed(entry: object) -> bool:
    # A trace entry the checker hands to the machine (the rest are the checker's own D1s).
    return (
        isinstance(entry, dict) and entry.get("from") in ("client", "agent") and "message" in entry
    )


CORPUS = {path.stem: _load(path) for path in TRACES}
FOLDABLE = {name: t for name, t in CORPUS.items() if all(_well_formed(e) for e in t)}
ENTRIES = [e for entries in FOLDABLE.values() for e in entries]


def _fold(
    protocol: Protocol, entries: Sequence[Any], start: int = 0
) -> tuple[Protocol, list[acp.Violation]]:
    found: list[acp.Violation] = []
    for i, entry in enumerate(entries, start):
        protocol, new = observe(protocol, entry["from"], entry["message"], at=i)
        found.extend(new)
    return protocol, found


def _verdict(protocol: Protocol, found: list[acp.Violation]) -> tuple[acp.Violation, ...]:
    return tuple(sorted((*found, *finish(protocol)), key=lambda v: v.index))


def _components(protocol: Protocol) -> dict[str, object]:
    return attrs.asdict(protocol, recurse=False)


def test_the_corpus_has_traces_to_fold() -> None:
    assert len(FOLDABLE) >= len(CORPUS) - 5
    assert ENTRIES


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize("name", sorted(FOLDABLE))
def test_check_trace_is_the_fold_of_observe_and_finish(name: str, revision: acp.Revision) -> None:
    entries = FOLDABLE[name]
    protocol, found = _fold(Protocol.start(revision), entries)
    expected = acp.check_trace(entries, revision=revision)
    assert _verdict(protocol, found) == expected
    # the machine the checker folds is the same value
    check = acp.checker.IncrementalCheck.start(revision).feed_all(entries)
    assert check.protocol == protocol
    assert check.found == tuple(found)


@settings(max_examples=60, deadline=None)
@given(st.lists(st.sampled_from(ENTRIES), max_size=40), st.sampled_from(REVISIONS))
def test_the_fold_law_on_mixed_lines(entries: list[Any], revision: acp.Revision) -> None:
    protocol, found = _fold(Protocol.start(revision), entries)
    assert _verdict(protocol, found) == acp.check_trace(entries, revision=revision)


@pytest.mark.parametrize("revision", [acp.V2_2026_08, acp.V2_PREVIEW], ids=lambda r: r.name)
def test_the_fold_law_on_drawn_traces(revision: acp.Revision) -> None:
    @settings(max_examples=15, deadline=None)
    @given(acps.traces(revision=revision, sessions=2, max_steps=14))
    def prop(trace: tuple[Any, ...]) -> None:
        protocol, found = _fold(Protocol.start(revision), trace)
        assert _verdict(protocol, found) == acp.check_trace(list(trace), revision=revision)

    prop()


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(ENTRIES), max_size=25),
    st.sampled_from(ENTRIES),
    st.sampled_from(REVISIONS),
)
def test_observe_is_pure(prefix: list[Any], entry: Any, revision: acp.Revision) -> None:
    protocol, _ = _fold(Protocol.start(revision), prefix)
    before = _components(protocol)
    verdict = finish(protocol)
    at = len(prefix)
    one = observe(protocol, entry["from"], entry["message"], at=at)
    two = observe(protocol, entry["from"], entry["message"], at=at)
    assert one == two  # equal inputs, equal outputs
    # the argument holds the very same components and says the same
    after = _components(protocol)
    assert after.keys() == before.keys()
    for name, value in before.items():
        assert after[name] is value, name
    assert protocol == _fold(Protocol.start(revision), prefix)[0]
    assert finish(protocol) == verdict
    assert finish(protocol) == verdict  # finishing changed nothing either


@settings(max_examples=60, deadline=None)
@given(
    st.lists(st.sampled_from(ENTRIES), max_size=25),
    st.lists(st.sampled_from(ENTRIES), min_size=1, max_size=10),
    st.lists(st.sampled_from(ENTRIES), min_size=1, max_size=10),
    st.sampled_from(REVISIONS),
)
def test_two_continuations_of_one_protocol_do_not_meet(
    prefix: list[Any], left: list[Any], right: list[Any], revision: acp.Revision
) -> None:
    base, found = _fold(Protocol.start(revision), prefix)
    verdict = _verdict(base, found)
    # interleave the two forks line by line: each sees only its own continuation
    one, two = base, base
    one_found, two_found = list(found), list(found)
    for i in range(max(len(left), len(right))):
        if i < len(left):
            one, new = observe(one, left[i]["from"], left[i]["message"], at=len(prefix) + i)
            one_found.extend(new)
        if i < len(right):
            two, new = observe(two, right[i]["from"], right[i]["message"], at=len(prefix) + i)
            two_found.extend(new)
    assert _verdict(one, one_found) == acp.check_trace(prefix + left, revision=revision)
    assert _verdict(two, two_found) == acp.check_trace(prefix + right, revision=revision)
    assert _verdict(base, found) == verdict


def test_a_protocol_is_frozen_and_holds_only_values() -> None:
    protocol, _ = _fold(Protocol.start(), CORPUS["good_permission_turn"])
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        protocol.sessions = protocol.sessions  # type: ignore[misc]
    for name, value in _components(protocol).items():
        assert not isinstance(value, (dict, list, set)), name
    assert repr(protocol).startswith("Protocol(revision=")


def test_a_bad_message_is_a_finding_and_a_bad_call_an_argument_error() -> None:
    start = Protocol.start(acp.V2_2026_08)
    after, found = observe(start, "agent", {"jsonrpc": "2.0", "method": 3}, at=0)
    assert [v.rule for v in found] == ["D1"]
    assert finish(after) == ()
    for message in (None, [], "x", 1.5, object()):
        observe(start, "client", message, at=0)  # never raises
    with pytest.raises(acp.ArgumentError, match="sender"):
        observe(start, "proxy", {}, at=0)
    with pytest.raises(acp.ArgumentError, match="at"):
        observe(start, "client", {}, at=-1)
    with pytest.raises(acp.ArgumentError, match="at"):
        observe(start, "client", {}, at=True)
    with pytest.raises(acp.ArgumentError, match="revision"):
        Protocol.start("2026-08")  # type: ignore[arg-type]
