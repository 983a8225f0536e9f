"""`pair_runs` and `traces` reach the protocol's hard parts by default (issue 27, Build 5).

Before weights, 600 `pair_runs` draws never cancelled and 300 `traces` draws held no cancel and
no permission request: a law about cancellation passed while proving nothing. Here N draws
from one fixed seed must reach each hard part in at least a stated fraction; docs/research.md,
"Reach", gives the measured ones. The seed is explicit (`_SEED`): `derandomize=True` seeds
from a digest that moved with unrelated changes elsewhere in the package (a catalogue edit
took the 2026-08 cancel share of the same 150 derandomized draws from 0.28 to 0.147, while
500 randomly seeded draws measured 0.26), so a fixed seed and more draws keep the fractions
a property of the strategy.
"""

from __future__ import annotations

import collections
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, given, seed, settings

import acp_core as acp
from acp_core import strategies as acps
from acp_core.explore import explore

N = 300
_SEED = 20261204

#: At least this fraction of N default draws reaches each part (measured at about twice it).
FLOORS: dict[str, dict[str, float]] = {
    "2026-08": {"cancel": 0.15, "permission": 0.15, "cancelled": 0.03, "withdrawn": 0.05,
                "close": 0.2, "resume": 0.15},
    "2026-11": {"cancel": 0.15, "permission": 0.15, "granted": 0.03, "denied": 0.01,
                "withdrawn": 0.05, "close": 0.2, "resume": 0.15},
    "2026-11-20": {"cancel": 0.05, "permission": 0.05, "close": 0.2, "resume": 0.15,
                   "retry": 0.2, "child": 0.25},
}


def _reach(strategy: Any, n: int = N) -> tuple[int, dict[str, float]]:
    seen: collections.Counter[str] = collections.Counter()
    draws = [0]

    @seed(_SEED)
    @settings(max_examples=n, deadline=None, database=None,
              suppress_health_check=list(HealthCheck))
    @given(strategy)
    def draw(run: acps.PairRun) -> None:
        draws[0] += 1
        seen.update(run.features())

    draw()
    return draws[0], {name: seen[name] / draws[0] for name, _ in acps.FEATURES}


def _reach_fresh(name: str) -> tuple[int, dict[str, float]]:
    """`_reach` of the default `pair_runs` at `name` in a fresh interpreter: inside a long
    test session the same derandomized draws reached half as many cancels (some state an
    earlier test leaves behind changes what hypothesis generates; noticed, not chased)."""
    code = (
        "import json, sys; sys.path.insert(0, 'tests')\n"
        "import acp_core as acp\n"
        "from acp_core import strategies as acps\n"
        "from test_strategies_reach import _reach\n"
        f"print(json.dumps(_reach(acps.pair_runs(revision=acp.REVISIONS[{name!r}]))))\n"
    )
    root = Path(__file__).resolve().parents[1]
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, check=False
    )
    assert run.returncode == 0, run.stderr
    draws, reach = json.loads(run.stdout)
    return draws, reach


@pytest.mark.parametrize("name", sorted(FLOORS))
def test_default_runs_reach_the_hard_parts(name: str) -> None:
    draws, reach = _reach_fresh(name)
    assert draws >= N // 2
    low = {part: (reach[part], floor) for part, floor in FLOORS[name].items()
           if reach[part] < floor}
    assert low == {}, reach


def test_traces_hold_cancels_and_permission_requests() -> None:
    held = collections.Counter[str]()

    @settings(max_examples=100, deadline=None, database=None, derandomize=True,
              suppress_health_check=list(HealthCheck))
    @given(acps.traces(revision=acp.V2_2026_11))
    def draw(trace: tuple[dict[str, Any], ...]) -> None:
        held["draws"] += 1
        methods = {entry["message"].get("method") for entry in trace}
        held["cancel"] += "session/cancel" in methods
        held["permission"] += "session/request_permission" in methods

    draw()
    assert held["cancel"] / held["draws"] >= 0.15, held
    assert held["permission"] / held["draws"] >= 0.15, held


def test_a_weight_of_zero_turns_an_action_off() -> None:
    off = acps.RunWeights(cancel=0, cancel_asked=0, close=0)
    _, reach = _reach(acps.pair_runs(revision=acp.V2_2026_11, weights=off), n=60)
    assert reach["cancel"] == 0
    assert reach["close"] == 0
    assert reach["resume"] == 0
    _, uniform = _reach(acps.pair_runs(revision=acp.V2_2026_11,
                                       weights=acps.RunWeights.uniform()), n=60)
    assert uniform["close"] > 0


def test_weights_are_a_short_checked_value() -> None:
    weights = acps.RunWeights()
    assert len(repr(weights)) < 200
    assert hash(weights) == hash(acps.RunWeights())
    assert acps.RunWeights.uniform().of("deliver>agent") == 1
    assert weights.of("accept sess_1") == weights.work
    for bad in (-1, 1.5, True):
        with pytest.raises(acp.ArgumentError):
            acps.RunWeights(ask=bad)  # type: ignore[arg-type]
    with pytest.raises(acp.ArgumentError):
        acps.pair_runs(max_steps=-1)


# -- the researcher's own check in explore ------------------------------------------------


def two_prompts_waiting(run: acps.PairRun) -> list[str]:
    """A planted "property": no agent ever has two prompts waiting (false: it is allowed)."""
    waiting = [p for s in run.state.agent.sessions.values() for p in s.engine.prompts]
    return [f"{len(waiting)} prompts wait"] if len(waiting) > 1 else []


def never_finds(run: acps.PairRun) -> list[str]:
    return []


def test_a_planted_check_finding_is_reported() -> None:
    result = explore(revision=acp.V2_2026_11, depth=4, checks=(two_prompts_waiting,))
    found = [v for v in result.violations if v.rule == "two_prompts_waiting"]
    assert len(found) == 1
    assert found[0].message == "2 prompts wait"
    assert found[0].path == ("prompt sess_1", "prompt sess_1", "deliver>agent", "deliver>agent")
    assert found[0].side == "agent"
    assert found[0].entries[0]["message"]["method"] == "initialize"


def test_no_check_and_a_silent_check_change_nothing() -> None:
    plain = explore(revision=acp.V2_2026_11, depth=5)
    silent = explore(revision=acp.V2_2026_11, depth=5, checks=(never_finds,))
    assert plain == silent
    assert plain == explore(revision=acp.V2_2026_11, depth=5, checks=())


def test_checks_run_on_workers_too() -> None:
    from acp_core.explore import InProcessWorkers

    one = explore(revision=acp.V2_2026_11, depth=4, checks=(two_prompts_waiting,))
    two = explore(revision=acp.V2_2026_11, depth=4, checks=(two_prompts_waiting,),
                  workers=InProcessWorkers(2))
    assert one == two


def test_run_features_reads_a_cancelled_answer() -> None:
    run = acps.PairRun((), None, (), ({"from": "client", "message": {  # type: ignore[arg-type]
        "jsonrpc": "2.0", "id": 0, "result": {"outcome": {"outcome": "cancelled"}}}},))
    assert acps.run_features(run) == frozenset({"cancelled"})
    assert acps.run_features(acps.PairRun(("cancel sess_1", "deny sess_1"), None, (), ())) == {  # type: ignore[arg-type]
        "cancel", "denied"}
