"""explore: states per second, one process beside W (local processes), at each revision.

    python benchmarks/explore_bench.py [--depth N] [--sessions K] [--workers W] [--symmetry]
                                       [--revision R] [--repeat N] [--executor workers|shards]
                                       [--gc paused|on]
    python benchmarks/explore_bench.py --seconds 600 --revision preview [--sessions K]

Side by side (the default): per revision (`--revision`, else all three), explore once in one
process and once with W workers (`--executor workers`, the default: what
`python -m acp_core explore --workers W` runs, W persistent workers, this process one of
them, each keeping the nodes it found; `--executor shards`: the pool the CLI falls back to
where it cannot fork, this process expanding shards from the front of each level and W - 1
processes from the back), `--repeat` times, the
two runs alternating so the machine's load falls on both alike. Prints one JSON object a
revision: states, transitions, violations, each repetition's wall and CPU seconds (this
process and its children) for 1 and W workers, and the medians: `speed_up` (wall, 1 / W) and
`cpu_ratio` (CPU-seconds W / 1: what sharding costs on top of the work). It checks that both
found the same states, transitions and violations. Both run with the cyclic garbage
collector paused, as `python -m acp_core explore` runs (`--gc on`: with it on).

With `--seconds T`: how deep one process gets in T seconds at `--revision` (what
`python -m acp_core explore --seconds T --json` prints: the last level completed, its states,
states/s, violations), and the machine's load average beside it (the machine is shared).
"""

from __future__ import annotations

import argparse
import contextlib
import io
import json
import os
import statistics
import time
from typing import Any

from acp_core import REVISIONS, V2_PREVIEW
from acp_core.__main__ import _map_shards, level_workers, new_run_id, paused_collector
from acp_core.__main__ import main as acp_main
from acp_core._cli._explore_cli import shards_for
from acp_core.explore import ExploreResult, explore


def _cpu() -> float:
    own, children = os.times()[:2], os.times()[2:4]
    return sum(own) + sum(children)


def _timed(
    workers: int, executor: str, collector: str, **kwargs: Any
) -> tuple[ExploreResult, float, float]:
    # From before the processes start to after they are shut down (reaped, so their CPU
    # time is counted): what a `--workers` run costs, process start included. With the
    # collector paused, as `python -m acp_core explore` runs (unless `--gc on`).
    with paused_collector() if collector == "paused" else contextlib.nullcontext():
        return _run(workers, executor, **kwargs)


def _run(workers: int, executor: str, **kwargs: Any) -> tuple[ExploreResult, float, float]:
    wall, cpu = time.perf_counter(), _cpu()
    if executor == "workers" and workers > 1:
        with level_workers(workers) as pool:
            assert pool is not None, "this machine cannot fork: use --executor shards"
            result = explore(workers=pool, **kwargs)
    else:
        with _map_shards(workers, "local", None) as map_shards:
            shards = shards_for(workers, "local")
            result = explore(shards=shards, map_shards=map_shards, run=new_run_id(), **kwargs)
    return result, time.perf_counter() - wall, _cpu() - cpu


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--depth", type=int, default=7)
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--symmetry", action="store_true")
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--revision", help="one revision (default: all three)")
    parser.add_argument("--repeat", type=int, default=1)
    parser.add_argument("--executor", choices=("workers", "shards"), default="workers")
    parser.add_argument("--gc", choices=("paused", "on"), default="paused")
    args = parser.parse_args()
    if args.seconds is not None:
        _budget(args)
        return
    names = [args.revision] if args.revision else ["2026-08", "2026-11", "preview"]
    for name in names:
        revision = V2_PREVIEW if name == "preview" else REVISIONS[name]
        kwargs = {"revision": revision, "depth": args.depth, "sessions": args.sessions}
        kwargs["symmetry"] = args.symmetry
        runs: dict[int, list[tuple[float, float]]] = {1: [], args.workers: []}
        results = []
        for _ in range(args.repeat):
            for workers, timings in runs.items():
                result, wall, cpu = _timed(workers, args.executor, args.gc, **kwargs)
                results.append(result)
                timings.append((wall, cpu))
        assert all(r == results[0] for r in results), "sharded run differs from one process"
        one, many = runs[1], runs[args.workers]
        wall_1 = statistics.median(w for w, _ in one)
        wall_w = statistics.median(w for w, _ in many)
        first = results[0]
        print(
            json.dumps(
                {
                    "revision": revision.name,
                    "depth": first.depth,
                    "sessions": args.sessions,
                    "symmetry": args.symmetry,
                    "states": first.states,
                    "transitions": first.transitions,
                    "violations": len(first.violations),
                    "workers": args.workers,
                    "executor": args.executor,
                    "gc": args.gc,
                    "wall_seconds": {
                        "1": [round(w, 2) for w, _ in one],
                        str(args.workers): [round(w, 2) for w, _ in many],
                    },
                    "cpu_seconds": {
                        "1": [round(c, 2) for _, c in one],
                        str(args.workers): [round(c, 2) for _, c in many],
                    },
                    "states_per_second": {
                        "1": round(first.states / wall_1),
                        str(args.workers): round(first.states / wall_w),
                    },
                    "speed_up": round(wall_1 / wall_w, 2),
                    "cpu_ratio": round(
                        statistics.median(c for _, c in many)
                        / statistics.median(c for _, c in one),
                        2,
                    ),
                    "load_average": round(os.getloadavg()[0], 1),
                }
            )
        )


def _budget(args: argparse.Namespace) -> None:
    revision = args.revision or "2026-08"
    argv = ["explore", "--revision", revision, "--sessions", str(args.sessions)]
    argv += ["--depth", "99", "--seconds", str(args.seconds), "--json", "--out", "explore-out"]
    if args.symmetry:
        argv.append("--symmetry")
    out = io.StringIO()
    before = os.getloadavg()[0]
    with contextlib.redirect_stdout(out):
        status = acp_main(argv)
    summary = json.loads(out.getvalue().splitlines()[-1])
    summary["load_average"] = [round(before, 1), round(os.getloadavg()[0], 1)]
    print(json.dumps(summary), "exit", status)


if __name__ == "__main__":
    main()
