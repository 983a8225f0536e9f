"""explore: states per second, one process beside two (local processes), at each revision.

    python benchmarks/explore_bench.py [--depth N] [--sessions K] [--workers W] [--symmetry]
    python benchmarks/explore_bench.py --seconds 600 --revision preview [--sessions K]

Prints, per revision, states, transitions, the depth, seconds and states/s for one process and
for W processes side by side (the speed-up is their ratio: same machine, same run), and checks
both found the same states, transitions and violations.

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
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from acp_core import V2_2026_08, V2_2026_11, V2_PREVIEW
from acp_core.__main__ import main as acp_main
from acp_core.explore import ExploreResult, explore


def _timed(**kwargs: Any) -> tuple[ExploreResult, float]:
    start = time.perf_counter()
    result = explore(**kwargs)
    return result, time.perf_counter() - start


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("--depth", type=int, default=7)
    parser.add_argument("--sessions", type=int, default=1)
    parser.add_argument("--workers", type=int, default=2)
    parser.add_argument("--symmetry", action="store_true")
    parser.add_argument("--seconds", type=float)
    parser.add_argument("--revision", default="2026-08")
    args = parser.parse_args()
    if args.seconds is not None:
        _budget(args)
        return
    for revision in (V2_2026_08, V2_2026_11, V2_PREVIEW):
        one, t1 = _timed(
            revision=revision, depth=args.depth, sessions=args.sessions, symmetry=args.symmetry
        )
        with ProcessPoolExecutor(args.workers) as pool:
            many, tw = _timed(
                revision=revision,
                depth=args.depth,
                sessions=args.sessions,
                shards=args.workers,
                map_shards=lambda fn, tasks: list(pool.map(fn, tasks)),
                symmetry=args.symmetry,
            )
        assert many == one, "sharded run differs from one process"
        print(
            f"{revision.name} depth {one.depth} sessions {args.sessions}: {one.states} states, "
            f"{one.transitions} transitions, {len(one.violations)} violations | 1 process "
            f"{t1:.2f} s ({one.states / t1:.0f} states/s) | {args.workers} processes "
            f"{tw:.2f} s ({one.states / tw:.0f} states/s) | speed-up {t1 / tw:.2f}x"
        )


def _budget(args: argparse.Namespace) -> None:
    argv = ["explore", "--revision", args.revision, "--sessions", str(args.sessions)]
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
