"""The Preview connection rules are a frozen value: deeply immutable, and forking is free.

- After any trace of the Preview rule table (tests/preview_traces.py), the checker's
  `PreviewState` reaches nothing mutable (attrs records frozen, only frozen containers).
- The fork law: observing entries on a fork (`IncrementalCheck.feed_all`) never changes the
  original's findings nor what the original observes later; a fork extended by the rest of
  a trace finds exactly what `check_trace` finds.
- A planted bug (an ordered-map edit made in place, what a forgotten `copy()` amounted to in
  the mutable engine) breaks the law.
"""

from __future__ import annotations

from typing import Any

import pytest
from preview_traces import CASES
from test_immutability import assert_deeply_immutable, reachable

from acp_core import checker as ck
from acp_core import codec
from acp_core._rules import _check_preview as cp
from acp_core._rules import _check_preview_updates as cpu
from acp_core._rules import _draft
from acp_core._rules._check import IncrementalCheck

REVISION = codec.V2_PREVIEW
TRACES: list[list[Any]] = [t for _rule, good, bad, _i in CASES for t in (good, bad)]
# Entries a fork observes that the original never sees: every trace's own first half.
NOISE: list[Any] = [e for t in TRACES[::7] for e in t[: len(t) // 2 + 1]]


def _state(check: IncrementalCheck) -> cp.PreviewState:
    state = check._memory.preview
    assert state is not None
    return state


def _states() -> list[cp.PreviewState]:
    # The state after every prefix of every case.
    out = []
    for trace in TRACES:
        check = IncrementalCheck.start(REVISION)
        for entry in trace:
            check = check.feed_all([entry])
            out.append(_state(check))
    return out


def test_the_state_after_every_prefix_is_deeply_immutable() -> None:
    for state in _states():
        assert_deeply_immutable(state)


def test_the_states_reach_every_kind_of_record() -> None:
    # (so the immutability test above walks children, tools, resumes, prompts and cancels)
    names = {type(x).__name__ for state in _states() for x in reachable(state)}
    assert {"Tool", "Terminal", "Resume", "_Attempt", "_Group", "Elicitation", "OMap"} <= names


class ForkLawBrokenError(Exception):
    pass


def _fork_law(traces: list[list[Any]]) -> None:
    for trace in traces:
        whole = ck.check_trace(trace, revision=REVISION)
        for k in range(len(trace) + 1):
            base = IncrementalCheck.start(REVISION).feed_all(trace[:k])
            state, before = _state(base), base.finish()
            fork = base.feed_all(NOISE)  # the fork sees what the original never will
            fork.finish()
            if _state(base) is not state or base.finish() != before:
                raise ForkLawBrokenError(f"a fork changed the original after {k} of {trace}")
            if base.feed_all(trace[k:]).finish() != whole:
                raise ForkLawBrokenError(f"the original, split at {k}, finds otherwise: {trace}")


def test_observing_on_a_fork_never_changes_the_original() -> None:
    _fork_law(TRACES)


def test_observe_connection_leaves_its_input_state_as_it_was() -> None:
    # The value level of the same law: the state given in is the state kept.
    for trace in TRACES[:40]:
        check = IncrementalCheck.start(REVISION).feed_all(trace[: len(trace) // 2])
        state = _state(check)
        again = IncrementalCheck.start(REVISION).feed_all(trace[: len(trace) // 2])
        check.feed_all(trace[len(trace) // 2 :])
        assert _state(check) is state
        assert state == _state(again)


def test_a_planted_in_place_edit_breaks_the_fork_law(monkeypatch: pytest.MonkeyPatch) -> None:
    def oset_in_place(m: Any, key: Any, value: Any) -> Any:
        new = _draft.oset(m, key, value)
        if m.entries:  # edit the shared map itself (the empty one is a module constant)
            object.__setattr__(m, "entries", new.entries)
            object.__setattr__(m, "next", new.next)
            return m
        return new

    monkeypatch.setattr(cp, "oset", oset_in_place)
    monkeypatch.setattr(cpu, "oset", oset_in_place)
    with pytest.raises(ForkLawBrokenError):
        _fork_law(TRACES)
