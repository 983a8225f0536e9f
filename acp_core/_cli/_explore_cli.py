"""`python -m acp_core explore`: arguments, the summary, the counterexample files' contents.

Owns: the arguments of `explore`, the text and `--json` summaries, naming and filling the
counterexample traces (one JSON line per entry), the exit status (1 when a violation is found).
Must not know: clocks, files, processes or Dask (`__main__.py` passes a clock, a writer, a
factory of persistent workers and one of `map_shards` functions), the search (`explore.py`).

`--workers W` (local): W persistent workers (`explore_levels(workers=)`), this process one
of them; where they cannot be forked, the level's shards go to a process pool instead.
`--executor dask`: the shards go to Dask.
"""

from __future__ import annotations

import argparse
import contextlib
import json
from collections.abc import Callable, Iterator, Sequence
from contextlib import AbstractContextManager
from typing import Any, Final, TextIO

from acp_core.explore import Counterexample, ExploreLevel, MapShards, Workers, explore_levels

from ._cli_revision import add_revision_argument, chosen_revision

__all__ = ["HELP", "LOCAL_SHARDS_PER_WORKER", "configure", "run", "shards_for", "trace_lines"]

HELP: Final = (
    "walk every interleaving of an agent and a client connection up to a depth (client "
    "actions, agent intents, deliveries racing both ways), judge each with the checker and "
    "the replay law, write the shortest counterexample of each violation as a trace; "
    "exit 0: none found, 1: violations"
)

#: Makes the `map_shards` of a run: (workers, executor name, scheduler address) -> a context.
MapFactory = Callable[[int, str, "str | None"], AbstractContextManager[MapShards]]

#: Makes the persistent workers of a local run: workers -> a context (None: cannot fork).
WorkersFactory = Callable[[int], AbstractContextManager["Workers | None"]]


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the arguments of `explore`."""
    add_revision_argument(parser, "both connections speak")
    parser.add_argument("--depth", type=int, default=8, help="actions per path (default 8)")
    parser.add_argument("--sessions", type=int, default=1, help="sessions (default 1)")
    parser.add_argument(
        "--workers",
        type=int,
        default=1,
        help="processes, this one included (default 1: this process alone)",
    )
    parser.add_argument("--executor", choices=("local", "dask"), default="local")
    parser.add_argument(
        "--scheduler",
        metavar="ADDRESS",
        help="a Dask scheduler (default: a LocalCluster of --workers processes)",
    )
    parser.add_argument(
        "--seconds",
        type=float,
        default=None,
        help="stop when this budget is spent: the depth reported is the last level completed",
    )
    parser.add_argument(
        "--symmetry",
        action="store_true",
        help="symmetry reduction over session ids (session k+1 acts only once k has)",
    )
    parser.add_argument(
        "--should",
        action="store_true",
        help="count broken SHOULD / SHOULD NOT rules as violations too (default: MUST only)",
    )
    parser.add_argument("--json", action="store_true", help="print one JSON object")
    parser.add_argument(
        "--out",
        metavar="DIR",
        default="explore-out",
        help="where counterexample traces go (default explore-out)",
    )


_BUDGET_SHARDS: Final = 64

#: With a budget, persistent workers expand a level in this many calls (the clock is read
#: before each).
_BUDGET_ROUNDS: Final = 16

#: Local processes share a level out shard by shard (`_cli_processes.map_shards`): small shards
#: keep the two ends of a level busy until they meet.
LOCAL_SHARDS_PER_WORKER: Final = 8


def shards_for(workers: int, executor: str) -> int:
    """How many shards a level is cut into for `workers` of `executor`."""
    if workers > 1 and executor == "local":
        return workers * LOCAL_SHARDS_PER_WORKER
    return max(1, workers)


class _OutOfTimeError(Exception):
    """The `--seconds` budget ran out in the middle of a level."""


class _OutOfMemoryError(_OutOfTimeError):
    """The machine's memory ran low in the middle of a level (`memory_low`)."""


def _never() -> bool:
    return False


def _budgeted(
    map_shards: MapShards,
    clock: Callable[[], float],
    deadline: float,
    batch: int,
    memory_low: Callable[[], bool] = _never,
) -> MapShards:
    # Runs the shards `batch` at a time (one round of the workers) and stops between rounds
    # once the deadline has passed or memory runs low.
    def run(fn: Callable[[Any], Any], tasks: list[Any]) -> list[Any]:
        done: list[Any] = []
        step = max(1, batch)
        for i in range(0, len(tasks), step):
            _look(clock, deadline, memory_low)
            done.extend(map_shards(fn, tasks[i : i + step]))
        return done

    return run


def _look(clock: Callable[[], float], deadline: float, memory_low: Callable[[], bool]) -> None:
    if clock() > deadline:
        raise _OutOfTimeError
    if memory_low():
        raise _OutOfMemoryError


class _BudgetedWorkers:
    # Stops before an expansion call once the deadline has passed or memory runs low.
    def __init__(
        self,
        workers: Workers,
        clock: Callable[[], float],
        deadline: float,
        memory_low: Callable[[], bool] = _never,
    ) -> None:
        self.workers, self.clock, self.deadline = workers, clock, deadline
        self.memory_low = memory_low

    @property
    def size(self) -> int:
        return self.workers.size

    def call(self, requests: Sequence[tuple[str, tuple[Any, ...]]]) -> list[Any]:
        if requests[0][0] == "expand":
            _look(self.clock, self.deadline, self.memory_low)
        return self.workers.call(requests)


def trace_lines(example: Counterexample) -> Iterator[str]:
    """The counterexample as a trace file, one entry a line (what `check` reads)."""
    for entry in example.entries:
        yield json.dumps(entry, ensure_ascii=False) + "\n"


def run(
    args: argparse.Namespace,
    out: TextIO,
    clock: Callable[[], float],
    write_trace: Callable[[str, Counterexample], str],
    map_factory: MapFactory,
    run_id: str | None = None,
    workers_factory: WorkersFactory | None = None,
    memory_low: Callable[[], bool] | None = None,
) -> int:
    """Explore, write each counterexample with `write_trace(name, example) -> path`, print.
    `run_id` names the run for the shard workers' memory of reached states
    (`explore_levels`); `workers_factory` makes the persistent workers of `--workers W`;
    `memory_low() -> True` stops the run inside a level, as the `--seconds` budget does
    (each level a breadth-first run reaches holds about three times the states of the one
    before: the machine's memory, not the time, can run out first)."""
    revision = chosen_revision(args)
    start = clock()
    last = ExploreLevel(0, 1, 0, 1, ())
    completed_at = start
    stopped: str | None = None  # why the run ended before `--depth` (None: it did not)
    with contextlib.ExitStack() as stack:
        pool = None
        if workers_factory is not None and args.executor == "local" and args.workers > 1:
            pool = stack.enter_context(workers_factory(args.workers))
        common: dict[str, Any] = {
            "revision": revision,
            "depth": args.depth,
            "sessions": args.sessions,
            "should": args.should,
            "symmetry": args.symmetry,
        }
        budgeted = args.seconds is not None or memory_low is not None
        deadline = start + args.seconds if args.seconds is not None else float("inf")
        low = memory_low or _never
        if pool is not None:
            rounds = 1
            if budgeted:
                pool, rounds = _BudgetedWorkers(pool, clock, deadline, low), _BUDGET_ROUNDS
            levels = explore_levels(**common, workers=pool, rounds=rounds)
        else:
            shards = shards_for(args.workers, args.executor)
            made = stack.enter_context(map_factory(args.workers, args.executor, args.scheduler))
            map_shards = made
            if budgeted:
                # Cut each level into many shards, so the budget is looked at between rounds
                # (a round: as many shards as a level has without a budget).
                map_shards = _budgeted(made, clock, deadline, shards, low)
                shards = max(shards, _BUDGET_SHARDS)
            levels = explore_levels(**common, shards=shards, map_shards=map_shards, run=run_id)
        try:
            for level in levels:
                last, completed_at = level, clock()
                if not args.json:
                    out.write(
                        f"depth {last.depth}: {last.states} states, "
                        f"{last.transitions} transitions\n"
                    )
        except _OutOfMemoryError:
            stopped = "memory"  # the level under way is dropped, as for the time budget
        except _OutOfTimeError:
            stopped = "seconds"  # the level under way is dropped: `last` is the last completed
    elapsed = max(clock() - start, 1e-9)
    working = max(completed_at - start, 1e-9)  # until the last level completed
    violations = [
        {
            "rule": v.rule,
            "level": v.level,
            "message": v.message,
            "steps": len(v.path),
            "path": list(v.path),
            "side": v.side,
            "trace": write_trace(f"{revision.name}-{v.rule}.jsonl", v),
        }
        for v in last.violations
    ]
    summary = {
        "revision": revision.name,
        "sessions": args.sessions,
        "workers": args.workers,
        "executor": args.executor,
        "symmetry": args.symmetry,
        "states": last.states,
        "transitions": last.transitions,
        "depth": last.depth,
        "seconds": round(elapsed, 3),
        "states_per_second": round(last.states / working, 1),
        "violations": violations,
        "stopped": stopped,
    }
    if args.json:
        out.write(json.dumps(summary) + "\n")
    else:
        out.write(
            f"{last.states} states, {last.transitions} transitions, depth {last.depth} "
            f"completed, {summary['states_per_second']} states/s, "
            f"{len(violations)} violation(s)\n"
        )
        if stopped == "memory":
            out.write(
                "stopped inside the next level: the machine's memory ran low (the levels "
                "grow about threefold; a smaller --depth, or fewer --sessions, fits)\n"
            )
        for v, example in zip(violations, last.violations, strict=True):
            out.write(
                f"{v['rule']} in {v['steps']} steps ({' / '.join(example.path)}): "
                f"{v['message']} -> {v['trace']}\n"
            )
    return 1 if violations else 0
