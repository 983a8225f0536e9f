"""benchmarks/crash_resume.py, one round per kill point (issue 26, "Show").

Each round runs examples/stdio_agent.py --journal over real pipes, kills it with SIGKILL at
its point and resumes the session on a new agent process; the benchmark's own check (nothing
the client had received lost, nothing doubled) must find nothing. The checker itself is
shown to catch a lost block, a doubled block and a doubled message on states built here.
No timing is asserted (the 60-kill table is the benchmark's).
"""

from __future__ import annotations

import sys
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import acp_core as acp
from acp_core import values as v
from benchmarks import crash_resume


@pytest.mark.parametrize("point", crash_resume.POINTS)
def test_a_round_at_each_kill_point_loses_and_doubles_nothing(point: str) -> None:
    result = crash_resume.one_round(point, seed=7)
    assert result.point == point
    assert result.problems == []
    assert (result.lost, result.doubled) == (0, 0)
    assert result.on_point, result.detail
    assert result.kills == (2 if point == "replay" else 1)
    if point == "failed-write":  # the write did fail, as the agent said before the kill
        assert "waiting for the journal" in result.detail
    if point == "snapshot":
        assert f"past update {crash_resume.SNAPSHOT_EVERY}" in result.detail


def test_the_benchmark_snapshots_where_the_example_journal_does() -> None:
    assert crash_resume.journal_snapshot_every() == crash_resume.SNAPSHOT_EVERY


def _state(*updates: Any) -> acp.SessionState:
    state = acp.new_session("s")
    for update in updates:
        state = acp.reduce(state, update)
    return state


def test_the_check_finds_a_lost_block_a_doubled_block_and_a_doubled_message() -> None:
    one = v.AgentMessageChunk("m1", v.TextContent("one "))
    two = v.AgentMessageChunk("m1", v.TextContent("two"))
    before = _state(one, two)
    assert crash_resume.compare(before, _state(one, two))[:2] == (0, 0)
    # more than the client had seen (the step in flight at the kill) is neither
    three = v.AgentMessageChunk("m1", v.TextContent("three"))
    assert crash_resume.compare(before, _state(one, two, three))[:2] == (0, 0)
    lost, doubled, problems = crash_resume.compare(before, _state(one))
    assert (lost, doubled) == (1, 0)
    assert problems
    assert crash_resume.compare(before, _state())[0] == 3  # the message and its two blocks
    lost, doubled, _ = crash_resume.compare(before, _state(one, two, two))
    assert (lost, doubled) == (0, 1)
    # the same message again under a new id (a replay appended as if it were new)
    said = v.AgentMessageChunk("m1", v.TextContent("one two"))
    once = _state(said)
    twice = _state(said, v.AgentMessageChunk("m2", v.TextContent("one two")))
    assert crash_resume.compare(once, twice)[:2] == (0, 1)
