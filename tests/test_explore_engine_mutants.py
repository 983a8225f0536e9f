"""Planted bugs in the engines' insides: each mutant replaces a function of the agent's
engine or connection (not what they write), and `explore` finds it with a counterexample of
at most 12 steps, written as a trace that `python -m acp_core check` flags (exit 1).

The unmutated model has no violation at the same depth with the same alphabet (the control),
so each finding is the mutant's. The wire mutants are in tests/test_explore_mutants.py.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

import acp_core as acp
from acp_core.__main__ import main
from acp_core._engines import (
    _agent_children,
    _agent_keys,
    _connection_agent_setup,
    _connection_agent_state,
    _idempotency,
)
from acp_core.explore import Counterexample, explore_levels


def same_id_in_every_session(monkeypatch: pytest.MonkeyPatch) -> None:
    """The connection draws request ids per session, as each engine's own counter does
    (every session's first request is 0), instead of from the connection's one counter."""

    def fresh_id(b: Any) -> int:
        return 0

    monkeypatch.setattr(_connection_agent_state, "fresh_id", fresh_id)


def engine_keeps_announcements_off_the_wire(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent engine registers a child it announces (its tree knows the child, so it lets
    the child's traffic through) but never sends the `subagent_update`."""
    real = _agent_children.send_update

    def send_update(b: Any, update: Any, session_id: str | None) -> None:
        if type(update) is acp.SubagentUpdate:
            b.children = _agent_children._reduce(b, b.engine.session_id, update)
            return
        real(b, update, session_id)

    monkeypatch.setattr(_agent_children, "send_update", send_update)


def announcement_kept_off_the_wire(monkeypatch: pytest.MonkeyPatch) -> None:
    """`engine_keeps_announcements_off_the_wire`: the child's traffic reaches the client
    unannounced (the checker's J3: a session nobody set up)."""
    engine_keeps_announcements_off_the_wire(monkeypatch)
    # The agent connection refuses traffic on a session it never saw set up or announced (J3,
    # the checker's `OpenSessions`): off here, so what the engine alone does is what the
    # search sees (`test_the_agent_connection_refuses_the_unannounced_child_mutant`).
    monkeypatch.setattr(_connection_agent_state, "unknown_envelope", lambda b, message: None)


def every_retry_is_new(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent's engine forgets the keys it has seen: every keyed prompt is admitted as a
    new attempt, so a retry of an inserted prompt is held and inserted a second time (R67:
    one key, two user messages, the retry answered with a `messageId` of its own)."""

    def admit(ledger: Any, key: str, request_id: Any) -> tuple[Any, Any]:
        return ledger, _idempotency.Admission(_idempotency.NEW)

    monkeypatch.setattr(_agent_keys, "admit", admit)
    # The agent connection's own judge (the checker's cross-session rules) refuses the
    # second insertion before it reaches the wire: off here, so what the engine alone does
    # is what the search sees (`test_the_agent_connection_refuses_the_retry_mutant`).
    monkeypatch.setattr(_connection_agent_state.Build, "_judged", lambda self: None)


def no_snapshot_after_a_replay(monkeypatch: pytest.MonkeyPatch) -> None:
    """The agent connection serves a resume with replay without the resumed session's state
    snapshot after its history: no `running` (or `idle`) tells the client where the session
    stands (R62; a child's snapshot, and a resume without replay, are left as they were)."""
    real = _connection_agent_setup.resume_updates

    def resume_updates(tree: Any, state: Any, revision: Any, *, history: bool) -> Any:
        for target, update in real(tree, state, revision, history=history):
            snapshot = type(update).__name__.endswith("StateUpdate")
            if not (history and snapshot and target == state.session_id):
                yield target, update

    monkeypatch.setattr(_connection_agent_setup, "resume_updates", resume_updates)


class Mutant(NamedTuple):
    apply: Callable[[pytest.MonkeyPatch], None]
    sessions: int
    actions: tuple[str, ...] | None  # None: the whole alphabet
    revision: acp.Revision = acp.V2_2026_08


MUTANTS: dict[str, Mutant] = {
    "a request id reused across sessions": Mutant(
        same_id_in_every_session, 2, ("prompt", "accept", "tool", "ask", "deliver")
    ),
    "a child's traffic before its announcement (Preview)": Mutant(
        announcement_kept_off_the_wire, 1, ("announce", "child", "deliver"), acp.V2_PREVIEW
    ),
    "a retried key inserted twice (Preview)": Mutant(
        every_retry_is_new, 1, ("prompt", "accept", "end", "retry", "deliver"), acp.V2_PREVIEW
    ),
    "no state snapshot (running / idle) after a replay (Preview)": Mutant(
        no_snapshot_after_a_replay, 1, None, acp.V2_PREVIEW
    ),
}


def _first_violations(mutant: Mutant, depth: int = 12) -> tuple[int, tuple[Counterexample, ...]]:
    for level in explore_levels(
        revision=mutant.revision,
        depth=depth,
        sessions=mutant.sessions,
        actions=mutant.actions,
        symmetry=True,
    ):
        if level.violations:
            return level.depth, level.violations
    return depth, ()


@pytest.mark.parametrize("name", list(MUTANTS))
def test_explore_finds_the_engine_mutant(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mutant = MUTANTS[name]
    with monkeypatch.context() as m:
        mutant.apply(m)
        depth, violations = _first_violations(mutant)
    assert violations, f"{name}: not found to depth {depth}"
    example = violations[0]
    assert len(example.path) <= 12
    trace = tmp_path / "counterexample.jsonl"
    trace.write_text("".join(json.dumps(e) + "\n" for e in example.entries), encoding="utf-8")
    assert main(["check", "--revision", mutant.revision.name, str(trace)]) == 1
    assert f"{example.rule} (MUST" in capsys.readouterr().out
    assert _first_violations(mutant, depth=len(example.path))[1] == ()


def test_the_agent_connection_refuses_the_retry_mutant(monkeypatch: pytest.MonkeyPatch) -> None:
    # With its judge on, the connection refuses the engine's second insertion of one key:
    # the same search over the same actions finds no trace that breaks a rule.
    mutant = MUTANTS["a retried key inserted twice (Preview)"]

    def admit(ledger: Any, key: str, request_id: Any) -> tuple[Any, Any]:
        return ledger, _idempotency.Admission(_idempotency.NEW)

    with monkeypatch.context() as m:
        m.setattr(_agent_keys, "admit", admit)
        assert _first_violations(mutant)[1] == ()


def test_the_agent_connection_refuses_the_unannounced_child_mutant(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # With J3 judged on what it is asked to send, the connection refuses the child's traffic
    # the engine lets through: the same search finds no trace that breaks a rule.
    mutant = MUTANTS["a child's traffic before its announcement (Preview)"]
    with monkeypatch.context() as m:
        engine_keeps_announcements_off_the_wire(m)
        assert _first_violations(mutant)[1] == ()
