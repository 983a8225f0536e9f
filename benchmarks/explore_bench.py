"""explore: states per second, one process beside two (local processes), at each revision.

    python benchmarks/explore_bench.py [--depth N] [--sessions K] [--workers W]

Prints, per revision, states, transitions, the depth, seconds and states/s for one process and
for W processes side by side (the speed-up is their ratio: same machine, same run), and checks
both found the same states, transitions and violations.
"""

from __future__ import annotations

import argparse
import time
from concurrent.futures import ProcessPoolExecutor
from typing import Any

from acp_core import V2_2026_08, V2_2026_11
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
    args = parser.parse_args()
    for revision in (V2_2026_08, V2_2026_11):
        one, t1 = _timed(revision=revision, depth=args.depth, sessions=args.sessions)
        with ProcessPoolExecutor(args.workers) as pool:
            many, tw = _timed(
                revision=revision,
                depth=args.depth,
                sessions=args.sessions,
                shards=args.workers,
                map_shards=lambda fn, tasks: list(pool.map(fn, tasks)),
            )
        assert many == one, "sharded run differs from one process"
        print(
            f"{revision.name} depth {one.depth} sessions {args.sessions}: {one.states} states, "
            f"{one.transitions} transitions, {len(one.violations)} violations | 1 process "
            f"{t1:.2f} s ({one.states / t1:.0f} states/s) | {args.workers} processes "
            f"{tw:.2f} s ({one.states / tw:.0f} states/s) | speed-up {t1 / tw:.2f}x"
        )


if __name__ == "__main__":
    main()
