"""The trace checkers take a trace that is not one (None, a number) and a `side` that is no
side as an `ArgumentError` (an `AcpError` and a `TypeError`); whatever the entries hold stays
a violation, never an exception.

Found by calling every public function with values of the wrong type (session s6, attack):
`check_trace(None)`, `IncrementalCheck.feed_all(None)`, `check_v1_trace(None)`,
`normalize_v1(None)` and `looks_like_v1(None)` raised `TypeError: 'NoneType' object is not
iterable`; `check_trace(entries, side="agnet")` silently judged no side's rules (only the
rules binding both), so a typo passed a trace that breaks an agent MUST.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import acp_core as acp
from acp_core import checker

# An agent MUST broken: a response to a request nobody sent.
STRAY = [{"from": "agent", "message": {"jsonrpc": "2.0", "id": 7, "result": {}}}]

CALLS: list[Any] = [
    pytest.param(acp.check_trace, id="check_trace"),
    pytest.param(lambda e: checker.IncrementalCheck.start().feed_all(e), id="feed_all"),
    pytest.param(acp.check_v1_trace, id="check_v1_trace"),
    pytest.param(acp.normalize_v1, id="normalize_v1"),
    pytest.param(acp.looks_like_v1, id="looks_like_v1"),
]


@pytest.mark.parametrize("call", CALLS)
@pytest.mark.parametrize("entries", [None, 5, 1.5, object()], ids=["None", "int", "float", "obj"])
def test_a_trace_that_is_not_iterable_is_an_argument_error(
    call: Callable[[object], object], entries: object
) -> None:
    with pytest.raises(acp.ArgumentError, match="entries"):
        call(entries)


@pytest.mark.parametrize("call", CALLS)
def test_any_iterable_is_still_a_trace(call: Callable[[object], object]) -> None:
    for entries in (STRAY, tuple(STRAY), iter(STRAY), (e for e in STRAY), "ab", {"a": 1}):
        call(entries)


@pytest.mark.parametrize(
    "check", [acp.check_trace, acp.check_v1_trace], ids=["check_trace", "check_v1_trace"]
)
@pytest.mark.parametrize("side", ["agnet", "both", "", 5, ["agent"]])
def test_a_side_that_is_no_side_is_an_argument_error(
    check: Callable[..., object], side: object
) -> None:
    with pytest.raises(acp.ArgumentError, match="side"):
        check(STRAY, side=side)


def test_the_sides_are_still_taken() -> None:
    assert acp.check_trace(STRAY, side="agent")
    assert acp.check_trace(STRAY, side=None) == acp.check_trace(STRAY)
    acp.check_trace(STRAY, side="client")
    acp.check_v1_trace(STRAY, side="agent")
