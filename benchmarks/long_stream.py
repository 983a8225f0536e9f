"""10^6 updates into one session: per-event cost by tenth, and what the cyclic GC is left to walk.

Usage: python -m benchmarks.long_stream [--events N] [--paths reduce fold] [--hosts default freeze]
                                        [--json FILE]
       python -m benchmarks.long_stream --trees OLD NEW [--rounds R] [...]   (side by side)

Owns: the figures of docs/performance.md "Long streams and the cyclic GC" (issue 24).
Must not know: the other benchmarks' harness (it borrows the `mixed` workload only).

What one measurement does: the `mixed` workload of N events (default 10^6) as wire dicts,
built first and moved to the permanent generation (`gc.freeze()`): a host holds bytes as
they arrive, not a million parsed messages, so the harness's input must not be what the
collector walks. Then, with the collector on, every event is decoded (`decode_update`) and
reduced into one growing session, the CPU time (`time.process_time`) of each tenth of the
events taken, and the collections' own time recorded per tenth through `gc.callbacks`.

- paths: `reduce` (one update at a time: what a connection does), `fold` (one `fold` per
  64 events: a transport read's worth) and `floor`, the yardstick run under the same host:
  each event's JSON line (encoded before timing, a `str` the collector never walks) parsed
  by `json.loads` and folded by the mutable floor (`benchmarks/floor.py`) 64 at a time, so
  the floor keeps fresh dicts as acp_core keeps fresh values (what a host that parses bytes
  holds);
- hosts: `default` (CPython's thresholds, nothing done), `freeze` (the host calls
  `gc.freeze()` every 10,000 events: what docs/performance.md recommends to a long-lived
  host; the call is inside the timed loop), `threshold` (`gc.set_threshold(700, 10, 100)`
  for the run: a full collection at most every 100 generation-1 collections, not 10), `off`
  (collector disabled: the floor).

Reported per (path, host): µs/event of each tenth, last tenth / first tenth (the issue's
target: at most 1.2), seconds in full (generation 2) collections per tenth, and the
collector-tracked objects the final state holds per event (found by walking from the state
with `gc.get_referents` after a `gc.collect()`, so what a host froze counts too), with the
commonest types.

`--trees OLD NEW` runs this script once per tree and round in a fresh process (a package
cannot be imported twice), alternating the order from round to round, and prints each
tree's median per (path, host) side by side.
"""

from __future__ import annotations

import argparse
import collections
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `acp_core` and `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

#: `fold` is called once per this many events (about one 64 KiB read of `mixed`).
FOLD_BATCH = 64
#: The `freeze` host calls `gc.freeze()` every this many events.
FREEZE_EVERY = 10_000
TENTHS = 10
#: The `threshold` host's third threshold (CPython's default is 10): a full collection at
#: most once per this many generation-1 collections.
THRESHOLD_2 = 100
#: Events decoded and folded into a throwaway session before timing.
WARM_UP = 5_000


class _GcClock:
    """Seconds spent in collections of each generation, from `gc.callbacks`."""

    def __init__(self) -> None:
        self.seconds = [0.0, 0.0, 0.0]
        self.count = [0, 0, 0]
        self._start = 0.0

    def __call__(self, phase: str, info: dict[str, int]) -> None:
        if phase == "start":
            self._start = time.process_time()
        else:
            generation = info["generation"]
            self.seconds[generation] += time.process_time() - self._start
            self.count[generation] += 1


def tracked_reachable(root: object) -> collections.Counter[str]:
    """The collector-tracked objects reachable from `root`, by type (types themselves and
    what only they reach are left out): what every full collection walks for `root`,
    whichever generation the objects are in."""
    seen: set[int] = set()
    counts: collections.Counter[str] = collections.Counter()
    stack = [root]
    while stack:
        obj = stack.pop()
        if id(obj) in seen or isinstance(obj, type):
            continue
        seen.add(id(obj))
        counts[type(obj).__qualname__] += 1
        stack.extend(r for r in gc.get_referents(obj) if gc.is_tracked(r))
    return counts


def measure(events: int, path: str, host: str, wire: list[Any], lines: list[str]) -> dict[str, Any]:
    """One run of `path` under `host` over `wire` (the floor: over `lines`, the same events
    as JSON text); see the module docstring."""
    import acp_core
    from benchmarks.floor import fold_floor, new_floor_state
    from benchmarks.workloads import SESSION_ID

    decode, reduce, fold = acp_core.decode_update, acp_core.reduce, acp_core.fold
    loads = json.loads
    # Warm up on a throwaway session (the codec generates its decoders on first use), so the
    # first tenth is not charged for it.
    fold(acp_core.new_session(SESSION_ID), map(decode, wire[:WARM_UP]))
    fold_floor(new_floor_state(SESSION_ID), [loads(x) for x in lines[:WARM_UP]])
    gc.collect()
    clock = _GcClock()
    gc.callbacks.append(clock)
    thresholds = gc.get_threshold()
    if host == "off":
        gc.disable()
    elif host == "threshold":
        gc.set_threshold(thresholds[0], thresholds[1], THRESHOLD_2)
    tenth = events // TENTHS
    cpu: list[float] = []
    full_gc: list[float] = []
    state: Any = (
        new_floor_state(SESSION_ID) if path == "floor" else acp_core.new_session(SESSION_ID)
    )
    try:
        for k in range(TENTHS):
            part = wire[k * tenth : (k + 1) * tenth]
            gc_before = clock.seconds[2]
            start = time.process_time()
            if path == "reduce":
                for i, d in enumerate(part, 1):
                    state = reduce(state, decode(d))
                    if host == "freeze" and i % FREEZE_EVERY == 0:
                        gc.freeze()
            elif path == "floor":
                text = lines[k * tenth : (k + 1) * tenth]
                for i in range(0, len(text), FOLD_BATCH):
                    fold_floor(state, [loads(x) for x in text[i : i + FOLD_BATCH]])
                    if host == "freeze" and (i // FOLD_BATCH) % (FREEZE_EVERY // FOLD_BATCH) == 0:
                        gc.freeze()
            else:
                for i in range(0, len(part), FOLD_BATCH):
                    state = fold(state, map(decode, part[i : i + FOLD_BATCH]))
                    if host == "freeze" and (i // FOLD_BATCH) % (FREEZE_EVERY // FOLD_BATCH) == 0:
                        gc.freeze()
            cpu.append(time.process_time() - start)
            full_gc.append(clock.seconds[2] - gc_before)
    finally:
        gc.enable()
        gc.set_threshold(*thresholds)
        gc.callbacks.remove(clock)
    gc.collect()  # lets CPython untrack what it can (tuples of atoms) before counting
    per_type = tracked_reachable(state)
    retained = sum(per_type.values())
    us = [c / tenth * 1e6 for c in cpu]
    result = {
        "path": path,
        "host": host,
        "events": events,
        "us_per_event_by_tenth": [round(x, 3) for x in us],
        "last_over_first": round(us[-1] / us[0], 3),
        "full_gc_seconds_by_tenth": [round(x, 4) for x in full_gc],
        "collections": {"gen0": clock.count[0], "gen1": clock.count[1], "gen2": clock.count[2]},
        "tracked_per_event": round(retained / events, 3),
        "tracked_types_per_event": {t: round(n / events, 3) for t, n in per_type.most_common(8)},
    }
    del state
    gc.collect()
    gc.freeze()  # the input again, for the next measurement
    return result


def run_here(events: int, paths: list[str], hosts: list[str]) -> dict[str, Any]:
    import acp_core
    from benchmarks.workloads import mixed

    wire = mixed(events).v2
    lines = [json.dumps(d) for d in wire] if "floor" in paths else []
    gc.collect()
    gc.freeze()
    try:
        results = [measure(events, p, h, wire, lines) for p in paths for h in hosts]
    finally:
        gc.unfreeze()
    return {
        "python": sys.version.split()[0],
        "tree": str(Path(acp_core.__file__).resolve().parent.parent),
        "results": results,
    }


def _show(data: dict[str, Any]) -> None:
    print(f"tree {data['tree']}")
    for r in data["results"]:
        print(
            f"  {r['path']:6s} {r['host']:7s} last/first {r['last_over_first']:.2f}  "
            f"us/event {' '.join(f'{x:.1f}' for x in r['us_per_event_by_tenth'])}"
        )
        print(
            f"  {'':14s} full-GC s/tenth "
            f"{' '.join(f'{x:.2f}' for x in r['full_gc_seconds_by_tenth'])}"
            f"  gen2 collections {r['collections']['gen2']}  tracked/event {r['tracked_per_event']}"
        )
        print(f"  {'':14s} {r['tracked_types_per_event']}")


def run_trees(trees: list[Path], rounds: int, argv_rest: list[str]) -> dict[str, Any]:
    """Each tree in a fresh process per round, alternating the order."""
    runs: dict[str, list[dict[str, Any]]] = {str(t): [] for t in trees}
    for r in range(rounds):
        order = trees if r % 2 == 0 else list(reversed(trees))
        for tree in order:
            env = {**os.environ, "PYTHONPATH": str(tree)}
            here = Path(__file__).resolve()
            cmd = [sys.executable, str(here), "--emit-json", "--tree", str(tree), *argv_rest]
            out = subprocess.run(cmd, env=env, check=True, capture_output=True, text=True)
            data = json.loads(out.stdout)
            _show(data)
            runs[str(tree)].append(data)
    summary: dict[str, Any] = {}
    for tree, datas in runs.items():
        keyed: dict[str, list[float]] = collections.defaultdict(list)
        tracked: dict[str, float] = {}
        for data in datas:
            for r in data["results"]:
                key = f"{r['path']}/{r['host']}"
                keyed[key].append(r["last_over_first"])
                tracked[key] = r["tracked_per_event"]
        summary[tree] = {
            k: {
                "last_over_first_median": statistics.median(v),
                "rounds": v,
                "tracked_per_event": tracked[k],
            }
            for k, v in keyed.items()
        }
    print("\nlast tenth / first tenth (median of rounds), tracked objects per event:")
    for tree, table in summary.items():
        print(f"  {tree}")
        for k, v in table.items():
            rounds_text = " ".join(f"{x:.2f}" for x in v["rounds"])
            print(
                f"    {k:16s} {v['last_over_first_median']:.2f}  (rounds {rounds_text})"
                f"  tracked/event {v['tracked_per_event']}"
            )
    return {"runs": runs, "summary": summary}


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--events", type=int, default=1_000_000)
    parser.add_argument(
        "--paths",
        nargs="+",
        default=["reduce", "fold", "floor"],
        choices=["reduce", "fold", "floor"],
    )
    parser.add_argument(
        "--hosts",
        nargs="+",
        default=["default", "freeze"],
        choices=["default", "freeze", "threshold", "off"],
    )
    parser.add_argument("--trees", nargs="+", type=Path)
    parser.add_argument("--rounds", type=int, default=2)
    parser.add_argument("--json", type=Path)
    parser.add_argument("--emit-json", action="store_true", help=argparse.SUPPRESS)
    parser.add_argument("--tree", type=Path, help=argparse.SUPPRESS)
    args = parser.parse_args(argv)
    if args.tree:  # measure that tree's acp_core (this file's workloads are the same)
        sys.path.insert(0, str(args.tree))
    if args.trees:
        rest = ["--events", str(args.events), "--paths", *args.paths, "--hosts", *args.hosts]
        data = run_trees([t.resolve() for t in args.trees], args.rounds, rest)
    else:
        data = run_here(args.events, args.paths, args.hosts)
        if args.emit_json:
            print(json.dumps(data))
            return
        _show(data)
    if args.json:
        args.json.write_text(json.dumps(data, indent=1))


if __name__ == "__main__":
    main()
