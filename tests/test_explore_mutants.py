"""Planted bugs: each mutant of the agent's engine or connection is found by `explore` with a
counterexample of at most 12 steps, written as a trace that `python -m acp_core check` flags.

Each mutant here changes what one connection writes (the outbound of its steps): what a buggy
agent or client puts on the wire whatever its insides (mutants of the engines' insides are in
tests/test_explore_engine_mutants.py). The unmutated model has no violation at the same depth
(the control row), so each finding is the mutant's. A mutant that breaks only a SHOULD rule
(R11, R14) is found by `explore(should=True)`; `check` flags it too (it prints the rule, and
exits 0: only MUST rules fail a trace).
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any, NamedTuple

import pytest

import acp_core as acp
from acp_core.__main__ import main
from acp_core._research import _explore_model
from acp_core.explore import Counterexample, explore_levels

Outbound = tuple[dict[str, Any], ...]


def _update(message: dict[str, Any]) -> dict[str, Any] | None:
    if message.get("method") == "session/update":
        update = message["params"]["update"]
        assert isinstance(update, dict)
        return update
    return None


def _state(message: dict[str, Any], state: str) -> bool:
    u = _update(message)
    return u is not None and u.get("sessionUpdate") == "state_update" and u.get("state") == state


def _is_user_message(message: dict[str, Any]) -> bool:
    u = _update(message)
    return u is not None and u.get("sessionUpdate") in ("user_message", "user_message_chunk")


def no_running(out: Outbound) -> Outbound:
    return tuple(m for m in out if not _state(m, "running"))


def no_requires_action(out: Outbound) -> Outbound:
    return tuple(m for m in out if not _state(m, "requires_action"))


def no_user_message(out: Outbound) -> Outbound:
    return tuple(m for m in out if not _is_user_message(m))


def prompt_answered_twice(out: Outbound) -> Outbound:
    if not any(_is_user_message(m) for m in out):
        return out
    doubled: list[dict[str, Any]] = []
    for m in out:
        doubled.append(m)
        if "result" in m:
            doubled.append(m)
    return tuple(doubled)


def cancelled_turn_ends_normally(out: Outbound) -> Outbound:
    def rewrite(m: dict[str, Any]) -> dict[str, Any]:
        u = _update(m)
        if u is not None and u.get("stopReason") == "cancelled":
            update = {**u, "stopReason": "end_turn"}
            return {**m, "params": {**m["params"], "update": update}}
        return m

    return tuple(rewrite(m) for m in out)


def cancelled_turn_never_ended(out: Outbound) -> Outbound:
    # The idle that ends cancelled work is never sent (the agent's engine ends the turn).
    return tuple(m for m in out if (_update(m) or {}).get("stopReason") != "cancelled")


def idle_without_stop_reason(out: Outbound) -> Outbound:
    def rewrite(m: dict[str, Any]) -> dict[str, Any]:
        u = _update(m)
        if u is not None and _state(m, "idle"):
            update = {k: v for k, v in u.items() if k != "stopReason"}
            return {**m, "params": {**m["params"], "update": update}}
        return m

    return tuple(rewrite(m) for m in out)


def prompt_never_answered(out: Outbound) -> Outbound:
    if any(_is_user_message(m) for m in out):
        return tuple(m for m in out if "result" not in m)
    return out


def update_to_unknown_session(out: Outbound) -> Outbound:
    def rewrite(m: dict[str, Any]) -> dict[str, Any]:
        u = _update(m)
        if u is not None and u.get("sessionUpdate") == "agent_message_chunk":
            return {**m, "params": {**m["params"], "sessionId": "sess_nobody"}}
        return m

    return tuple(rewrite(m) for m in out)


def unannounced_tool_call(out: Outbound) -> Outbound:
    # The tool call is finished under an id it was never reported with (no title: R14).
    def rewrite(m: dict[str, Any]) -> dict[str, Any]:
        u = _update(m)
        if u is not None and u.get("sessionUpdate") == "tool_call_update" and "title" not in u:
            return {**m, "params": {**m["params"], "update": {**u, "toolCallId": "call_other"}}}
        return m

    return tuple(rewrite(m) for m in out)


def text_after_idle(monkeypatch: pytest.MonkeyPatch) -> None:
    """After each idle the agent streams on into the turn's last agent message (R23 when the
    idle ended cancelled work: the work's updates must precede that idle)."""
    real = _explore_model.connection_step

    def run(conn: Any, intent: Any) -> acp.ConnectionStep:
        step = real(conn, intent)
        if not isinstance(conn, acp.AgentConnection):
            return step
        extra = []
        for m in step.outbound:
            if _state(m, "idle"):
                sid = m["params"]["sessionId"]
                session = step.connection.sessions[sid].engine.session
                ids = [
                    ref.id
                    for ref in session.timeline
                    if ref.kind == "message" and session.messages[ref.id].role == "agent"
                ]
                if ids:
                    chunk = {"type": "text", "text": " and more"}
                    update = {"sessionUpdate": "agent_message_chunk", "messageId": ids[-1]}
                    params = {"sessionId": sid, "update": {**update, "content": chunk}}
                    extra.append({"jsonrpc": "2.0", "method": "session/update", "params": params})
        return step._replace(outbound=step.outbound + tuple(extra))

    monkeypatch.setattr(_explore_model, "connection_step", run)


def _doubled(pick: Callable[[dict[str, Any]], bool]) -> Callable[[Outbound], Outbound]:
    def change(out: Outbound) -> Outbound:
        return tuple(x for m in out for x in ((m, m) if pick(m) else (m,)))

    return change


def _wire_mutant(
    monkeypatch: pytest.MonkeyPatch,
    change: Callable[[Outbound], Outbound],
    side: type = acp.AgentConnection,
) -> None:
    """The `side` connection (the agent's by default) writes `change(outbound)` instead of
    its outbound."""
    real_step, real_bytes = _explore_model.connection_step, _explore_model.receive_bytes

    def mutated(real: Callable[..., acp.ConnectionStep]) -> Callable[..., acp.ConnectionStep]:
        def run(conn: Any, intent: Any) -> acp.ConnectionStep:
            step = real(conn, intent)
            if isinstance(conn, side):
                return step._replace(outbound=change(step.outbound))
            return step

        return run

    monkeypatch.setattr(_explore_model, "connection_step", mutated(real_step))
    monkeypatch.setattr(_explore_model, "receive_bytes", mutated(real_bytes))


def _client_wire_mutant(
    monkeypatch: pytest.MonkeyPatch, change: Callable[[Outbound], Outbound]
) -> None:
    """The client connection writes `change(outbound)` instead of its outbound."""
    _wire_mutant(monkeypatch, change, acp.ClientConnection)


ASKING = ("prompt", "accept", "tool", "ask", "allow", "deliver")
CANCELLING = ("prompt", "accept", "cancel", "end", "deliver")


class Mutant(NamedTuple):
    apply: Callable[[pytest.MonkeyPatch], None]
    sessions: int = 1
    actions: tuple[str, ...] | None = None  # None: the whole alphabet
    should: bool = False  # found as a broken SHOULD rule (explore(should=True))


MUTANTS: dict[str, tuple[Any, ...]] = {
    # name: (apply, sessions, alphabet subset or None for all of it[, should])
    "no running after accepting a prompt": (lambda m: _wire_mutant(m, no_running), 1, None),
    "a prompt answered twice": (lambda m: _wire_mutant(m, prompt_answered_twice), 1, None),
    "a prompt never answered": (lambda m: _wire_mutant(m, prompt_never_answered), 1, None),
    "no user message for a prompt": (lambda m: _wire_mutant(m, no_user_message), 1, None),
    "a cancelled turn ends as end_turn": (
        lambda m: _wire_mutant(m, cancelled_turn_ends_normally),
        1,
        CANCELLING,
    ),
    # Found where a close cancels the work: its answer comes while the work runs (R24).
    "a cancelled turn never ended": (
        lambda m: _wire_mutant(m, cancelled_turn_never_ended),
        1,
        None,
    ),
    "a turn ends without a stop reason": (
        lambda m: _wire_mutant(m, idle_without_stop_reason),
        1,
        None,
    ),
    "the client sends a prompt twice (same id)": (
        lambda m: _client_wire_mutant(m, _doubled(lambda x: x.get("method") == "session/prompt")),
        1,
        None,
    ),
    "the client answers a permission request twice": (
        lambda m: _client_wire_mutant(m, _doubled(lambda x: "result" in x and "method" not in x)),
        1,
        ASKING,
    ),
    # The four the first version did not find: J3 was missing from the checker; R11 and
    # R14 are SHOULD rules (found with should=True); text after idle needs a cancel first
    # (R23), 10 steps, past the depth tried then.
    "no requires_action while a permission is asked": (
        lambda m: _wire_mutant(m, no_requires_action),
        1,
        ASKING,
        True,
    ),
    "an update to a session nobody set up": (
        lambda m: _wire_mutant(m, update_to_unknown_session),
        1,
        None,
    ),
    "a tool call finished under an unannounced id": (
        lambda m: _wire_mutant(m, unannounced_tool_call),
        1,
        ("prompt", "accept", "tool", "finish", "deliver"),
        True,
    ),
    "text after the idle that ends cancelled work": (text_after_idle, 1, (*CANCELLING, "text")),
}


def _first_violations(
    sessions: int, actions: tuple[str, ...] | None, depth: int = 12, should: bool = False
) -> tuple[int, tuple[Counterexample, ...]]:
    for level in explore_levels(
        revision=acp.V2_2026_08, depth=depth, sessions=sessions, actions=actions, should=should
    ):
        if level.violations:
            return level.depth, level.violations
    return depth, ()


@pytest.mark.parametrize("name", list(MUTANTS))
def test_explore_finds_the_planted_bug(
    name: str, monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    mutant = Mutant(*MUTANTS[name])
    with monkeypatch.context() as m:
        mutant.apply(m)
        depth, violations = _first_violations(mutant.sessions, mutant.actions, should=mutant.should)
    assert violations, f"{name}: not found to depth {depth}"
    example = violations[0]
    assert len(example.path) <= 12
    assert (example.level in ("MUST", "MUST NOT")) is not mutant.should
    trace = tmp_path / "counterexample.jsonl"
    trace.write_text("".join(json.dumps(e) + "\n" for e in example.entries), encoding="utf-8")
    # The unmutated core judges the written trace: `check` flags it with that rule (and
    # exits 1 for a MUST rule), at the revision the model spoke.
    assert main(["check", "--revision", "2026-08", str(trace)]) == (0 if mutant.should else 1)
    assert f"{example.rule} ({example.level})" in capsys.readouterr().out
    # Control: the same model without the mutant finds nothing to that depth.
    control = _first_violations(
        mutant.sessions, mutant.actions, depth=len(example.path), should=mutant.should
    )
    assert control[1] == ()
