"""`explore` on persistent workers gives exactly what one process gives.

The workers keep the nodes they found between levels; the coordinator merges their findings
in frontier order and compares by value every state two workers share a fingerprint with.
Here: the same states, transitions and violations (paths and traces included) as one
process, for 1 to 3 workers, in this process and in forked processes, with the real
fingerprint and with one so coarse that every merge has to compare states by value; and
two planted bugs of the coordinator (trusting fingerprints, merging worker by worker) that
these comparisons catch.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

import acp_core as acp
from acp_core._cli._cli_processes import level_workers
from acp_core._errors import AcpError, ArgumentError
from acp_core._research import _explore_coordinator
from acp_core._research._explore_judge import Options
from acp_core._research._explore_values import PairState
from acp_core._research._explore_workers import WorkerHost
from acp_core.explore import ExploreResult, InProcessWorkers, explore

ROOT = Path(__file__).resolve().parents[1]
REVISIONS = [acp.V2_2026_08, acp.V2_2026_11, acp.V2_PREVIEW]


def coarse(state: PairState) -> int:
    # Seven fingerprints for every state: nearly every candidate shares one with a state of
    # another worker, so the coordinator's comparisons by value decide everything.
    return hash(state) % 7


def _broken(monkeypatch: pytest.MonkeyPatch) -> ExploreResult:
    # A wire mutant (no `running` after a replay) with violations at depth 6, one process.
    from test_explore_mutants import _wire_mutant, no_running

    _wire_mutant(monkeypatch, no_running)
    broken = explore(depth=6)
    assert broken.violations
    return broken


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize("sessions", [1, 2])
def test_workers_in_this_process_give_the_one_process_result(
    revision: acp.Revision, sessions: int
) -> None:
    depth = 5 if sessions == 1 else 4
    one = explore(revision=revision, depth=depth, sessions=sessions)
    for size in (1, 2, 3):
        for fingerprint in (hash, coarse):
            many = explore(
                revision=revision,
                depth=depth,
                sessions=sessions,
                workers=InProcessWorkers(size),
                fingerprint=fingerprint,
                rounds=2,
            )
            assert many == one, (size, fingerprint)


def test_violations_and_their_shortest_paths_are_the_one_process_ones(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    broken = _broken(monkeypatch)
    for size, fingerprint in ((2, hash), (3, coarse)):
        many = explore(depth=6, workers=InProcessWorkers(size), fingerprint=fingerprint)
        assert many == broken
        assert [v.path for v in many.violations] == [v.path for v in broken.violations]


def test_forked_workers_give_the_one_process_result(monkeypatch: pytest.MonkeyPatch) -> None:
    # What `explore --workers 2` runs: this process and one forked from it.
    for revision in (acp.V2_2026_08, acp.V2_PREVIEW):
        one = explore(revision=revision, depth=5)
        with level_workers(2) as pool:
            # The project's machines fork (Linux); where one cannot, level_workers gives
            # None and the CLI falls back to shards (test_without_fork_...).
            assert pool is not None
            assert explore(revision=revision, depth=5, workers=pool) == one
            # The pool serves run after run; a coarse fingerprint crosses processes too.
            assert explore(revision=revision, depth=5, workers=pool, fingerprint=coarse) == one
    broken = _broken(monkeypatch)  # forked after the mutant: the workers run it too
    with level_workers(3) as pool:
        assert pool is not None
        assert explore(depth=6, workers=pool) == broken


def test_trusting_fingerprints_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # Planted bug: a coordinator that takes one fingerprint for one state.
    one = explore(depth=5)
    monkeypatch.setattr(_explore_coordinator, "_reached_elsewhere", lambda *args: True)
    many = explore(depth=5, workers=InProcessWorkers(2), fingerprint=coarse)
    assert many.states < one.states


def test_a_merge_worker_by_worker_is_caught(monkeypatch: pytest.MonkeyPatch) -> None:
    # Planted bug: merging each worker's findings in turn, not in frontier order; which
    # path reaches a state first (and so the counterexamples) then depends on the workers.
    broken = _broken(monkeypatch)

    def worker_by_worker(shares: list[list[int]]) -> list[tuple[int, int]]:
        return [(w, i) for w, share in enumerate(shares) for i in range(len(share))]

    monkeypatch.setattr(_explore_coordinator, "_in_order", worker_by_worker)
    many = explore(depth=6, workers=InProcessWorkers(2))
    assert [v.path for v in many.violations] != [v.path for v in broken.violations]


def test_the_workers_shares_stay_balanced() -> None:
    # After each level but the last (its frontier is not expanded), no worker's share of
    # the frontier is larger than another's by more than a twentieth of it.
    seen: list[list[int]] = []
    pool = InProcessWorkers(2)
    for level in acp.explore.explore_levels(revision=acp.V2_2026_08, depth=8, workers=pool):
        sizes = [len(host.worker.frontier) for host in pool.hosts if host.worker is not None]
        assert sum(sizes) == level.frontier
        seen.append(sizes)
    assert sum(seen[-2]) > 500
    for sizes in seen[:-1]:
        assert max(sizes) - min(sizes) <= max(1, sum(sizes) // 20), seen


def test_balancing_moves_runs_spread_over_the_largest_share() -> None:
    calls: list[Sequence[tuple[str, tuple[Any, ...]]]] = []

    class Recorder:
        size = 2

        def call(self, requests: Sequence[tuple[str, tuple[Any, ...]]]) -> list[Any]:
            calls.append(requests)
            return [[] for _ in requests]

    shares = _explore_coordinator._balanced(Recorder(), [list(range(200)), []])
    assert [len(s) for s in shares] == [100, 100]
    moved = calls[0][0][1][0]
    assert len(moved) == 100
    assert moved != list(range(100, 200))
    # Four runs of 25 neighbours (runs of at most 32), one at the start of each quarter.
    assert moved == [start + t for start in (0, 50, 100, 150) for t in range(25)]
    assert _explore_coordinator._balanced(Recorder(), [[0, 2], [1]]) == [[0, 2], [1]]


def test_workers_that_fingerprint_differently_are_refused() -> None:
    class Unseeded(InProcessWorkers):
        def call(self, requests: Sequence[tuple[str, tuple[Any, ...]]]) -> list[Any]:
            answers = super().call(requests)
            return [a + i if requests[0][0] == "start" else a for i, a in enumerate(answers)]

    with pytest.raises(ArgumentError, match="hash seed"):
        explore(depth=2, workers=Unseeded(2))
    with pytest.raises(ArgumentError, match="rounds"):
        explore(depth=2, workers=InProcessWorkers(2), rounds=0)


def test_a_worker_refuses_requests_it_does_not_know() -> None:
    host = WorkerHost()
    with pytest.raises(ArgumentError, match="after start"):
        host.handle(("expand", (1,)))
    host.handle(("start", (Options("2026-08", 1), 0, hash)))
    with pytest.raises(ArgumentError):
        host.handle(("__init__", ()))


def test_a_forked_worker_s_failure_reaches_the_coordinator() -> None:
    with level_workers(2) as pool:
        assert pool is not None
        with pytest.raises(AcpError, match="explore worker failed"):
            pool.call([("start", (Options("2026-08", 1), 0, hash)), ("expand", (1,))])


def _cli(*argv: str) -> dict[str, Any]:
    done = subprocess.run(
        [sys.executable, "-m", "acp_core", "explore", "--json", *argv],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    assert "Traceback" not in done.stderr
    summary: dict[str, Any] = json.loads(done.stdout)
    return summary


def test_the_cli_s_workers_find_what_one_process_finds(tmp_path: Path) -> None:
    keys = ("states", "transitions", "depth", "violations")
    one = _cli("--depth", "6", "--revision", "2026-08", "--out", str(tmp_path))
    two = _cli("--depth", "6", "--revision", "2026-08", "--workers", "2", "--out", str(tmp_path))
    assert {k: two[k] for k in keys} == {k: one[k] for k in keys}
    assert two["workers"] == 2


def test_the_cli_s_workers_stop_on_the_budget(tmp_path: Path) -> None:
    summary = _cli("--depth", "40", "--workers", "2", "--seconds", "3", "--out", str(tmp_path))
    assert 0 < summary["depth"] < 40
    assert summary["states"] == explore(depth=summary["depth"]).states


def test_the_benchmark_reports_one_process_beside_the_workers() -> None:
    done = subprocess.run(
        [sys.executable, "benchmarks/explore_bench.py", "--depth", "4", "--revision", "2026-08"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=True,
    )
    row = json.loads(done.stdout.splitlines()[-1])
    assert row["executor"] == "workers"
    assert row["workers"] == 2
    assert row["states"] == explore(revision=acp.V2_2026_08, depth=4).states
    assert {"speed_up", "cpu_ratio", "wall_seconds", "cpu_seconds"} <= set(row)


def test_without_fork_the_cli_falls_back_to_shards(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    # Where processes cannot be forked (no shared hash seed), `--workers 2` runs the shard
    # pool instead, with the same result.
    import argparse
    import multiprocessing

    from acp_core._cli import _cli_processes, _explore_cli

    monkeypatch.setattr(multiprocessing, "get_all_start_methods", lambda: ["spawn"])
    with level_workers(2) as pool:
        assert pool is None
    factories: list[str] = []

    def shards(workers: int, executor: str, scheduler: str | None) -> Any:
        factories.append(executor)
        return _cli_processes.map_shards(workers, executor, scheduler)

    parser = argparse.ArgumentParser()
    _explore_cli.configure(parser)
    args = parser.parse_args(["--depth", "5", "--revision", "2026-08", "--workers", "2", "--json"])
    status = _explore_cli.run(
        args, sys.stdout, lambda: 0.0, lambda name, e: name, shards, None, level_workers
    )
    summary = json.loads(capsys.readouterr().out)
    assert status == 0
    assert factories == ["local"]
    one = explore(revision=acp.V2_2026_08, depth=5)
    assert (summary["states"], summary["transitions"]) == (one.states, one.transitions)


def test_the_cli_pauses_the_garbage_collector_for_a_run(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    import gc

    from acp_core.__main__ import main
    from acp_core._cli import _cli_processes, _explore_cli

    during: list[bool] = []
    real = _explore_cli.run

    def spy(*args: Any, **kwargs: Any) -> int:
        during.append(gc.isenabled())
        return real(*args, **kwargs)

    monkeypatch.setattr(_explore_cli, "run", spy)
    assert gc.isenabled()
    assert main(["explore", "--depth", "2", "--json", "--out", str(tmp_path)]) == 0
    assert during == [False]
    assert gc.isenabled()  # restored
    gc.disable()
    try:
        with _cli_processes.paused_collector():
            pass
        assert not gc.isenabled()  # left as it was found
    finally:
        gc.enable()


def test_memory_low_reads_what_the_kernel_says_is_available(tmp_path: Path) -> None:
    from acp_core._cli._cli_processes import memory_low

    meminfo = tmp_path / "meminfo"
    meminfo.write_text("MemTotal:  24000000 kB\nMemFree: 100 kB\nMemAvailable: 3000000 kB\n")
    assert memory_low(str(meminfo))  # an eighth left
    meminfo.write_text("MemTotal:  24000000 kB\nMemAvailable: 12000000 kB\n")
    assert not memory_low(str(meminfo))
    meminfo.write_text("MemTotal: lots\n")
    assert not memory_low(str(meminfo))  # unreadable: no guard, not a crash
    assert not memory_low(str(tmp_path / "absent"))


@pytest.mark.parametrize("workers", [1, 2])
def test_the_cli_stops_inside_a_level_when_memory_runs_low(
    workers: int, capsys: pytest.CaptureFixture[str]
) -> None:
    # Memory runs low after a number of looks: the level under way is dropped and the run
    # reports the last one completed, as for the time budget, and says why it stopped.
    import argparse
    from contextlib import nullcontext

    from acp_core._cli import _cli_processes, _explore_cli

    parser = argparse.ArgumentParser()
    _explore_cli.configure(parser)
    printed = []
    for extra in ([], ["--json"]):
        looks = iter(range(10**6))
        argv = ["--depth", "30", "--revision", "2026-08", "--workers", str(workers), *extra]
        status = _explore_cli.run(
            parser.parse_args(argv),
            sys.stdout,
            lambda: 0.0,
            lambda name, e: name,
            _cli_processes.map_shards,
            None,
            lambda n: nullcontext(InProcessWorkers(n)),
            lambda looks=looks: next(looks) > 60,
        )
        assert status == 0
        printed.append(capsys.readouterr().out)
    assert "the machine's memory ran low" in printed[0]
    summary = json.loads(printed[1])
    assert summary["stopped"] == "memory"
    assert 0 < summary["depth"] < 30
    assert summary["states"] == explore(revision=acp.V2_2026_08, depth=summary["depth"]).states
