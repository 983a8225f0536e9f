"""Two source trees side by side: `benchmarks/run.py` for each, alternating, ratios to the floor.

Usage: python benchmarks/compare_trees.py OLD_TREE NEW_TREE [--rounds N] [--full] [--clock C]
       [--json FILE]

A package cannot be imported twice in one process, so each round runs `run.py` once per tree
in a fresh process (old, new; the next round new, old) and reads its JSON. What is compared is
never an absolute rate: it is each run's ratio to the mutable floor measured in the same
process, so machine load hits both sides of a ratio alike. The table shows the median of each
tree's ratios over the rounds and how much worse the new tree is (`+12%`: the new tree is 12%
further from the floor). Issue 10's limit: no ratio worse by more than 10%. `--clock cpu` (the
default) reads process CPU time, which other processes on a shared machine disturb far less
than the wall clock.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import tempfile
from pathlib import Path
from typing import Any

#: (phase label, the acp_core key in run.py's JSON); each is compared as floor / acp_core.
PHASES = (
    ("apply", "apply"),
    ("decode+apply", "decode+apply"),
    ("bytes", "bytes"),
    ("bytes_connection", "bytes_connection"),
    ("bytes_parsed", "bytes_parsed"),  # where the tree has a compiled decoder
    ("bytes_stdlib", "bytes_stdlib"),
)


def run_tree(tree: Path, quick: bool, clock: str, out: Path) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, str(tree / "benchmarks" / "run.py"), "--json", str(out)]
    cmd += ["--clock", clock]
    if quick:
        cmd.append("--quick")
    subprocess.run(cmd, cwd=tree, env=env, check=True, stdout=subprocess.DEVNULL)
    data: dict[str, Any] = json.loads(out.read_text())
    return data


def ratios(data: dict[str, Any]) -> dict[tuple[str, str], float]:
    """floor rate / acp_core rate for each (workload, phase): how many times slower acp_core is."""
    found: dict[tuple[str, str], float] = {}
    for workload, res in data["results"].items():
        floor = res["mutable_floor"]
        acp = res["acp_core"]
        for label, key in PHASES:
            base = floor["bytes"] if key.startswith("bytes") else floor["apply"]
            if acp.get(key):
                found[(workload, label)] = base / acp[key]
    return found


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("old", type=Path)
    parser.add_argument("new", type=Path)
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--full", action="store_true", help="full workload sizes")
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument("--json", metavar="FILE", help="write every run's ratios as JSON")
    args = parser.parse_args(argv)
    trees = {"old": args.old.resolve(), "new": args.new.resolve()}
    runs: dict[str, list[dict[tuple[str, str], float]]] = {"old": [], "new": []}
    # Per-event cost growth (stream_small ev/s / stream_large ev/s) of each run, by phase.
    flatness: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    with tempfile.TemporaryDirectory() as tmp:
        for r in range(args.rounds):
            order = ("old", "new") if r % 2 == 0 else ("new", "old")
            for name in order:
                data = run_tree(
                    trees[name], not args.full, args.clock, Path(tmp) / f"{name}-{r}.json"
                )
                runs[name].append(ratios(data))
                flat = data.get("flatness", {})
                flatness[name].append({k: v for k, v in flat.items() if k != "definition"})
                print(f"round {r + 1}: {name} done", file=sys.stderr, flush=True)
    keys = sorted(set(runs["old"][0]) & set(runs["new"][0]))
    rows = [
        ["workload", "phase", "old floor/x", "new floor/x", "new vs old", "old runs", "new runs"]
    ]
    worst = 0.0
    for key in keys:
        old = statistics.median(run[key] for run in runs["old"])
        new = statistics.median(run[key] for run in runs["new"])
        change = new / old - 1
        worst = max(worst, change)
        rows.append(
            [
                *key,
                f"{old:.2f}x",
                f"{new:.2f}x",
                f"{change:+.0%}",
                " ".join(f"{run[key]:.2f}" for run in runs["old"]),
                " ".join(f"{run[key]:.2f}" for run in runs["new"]),
            ]
        )
    widths = [max(len(row[i]) for row in rows) for i in range(len(rows[0]))]
    for row in rows:
        print("| " + " | ".join(cell.ljust(w) for cell, w in zip(row, widths, strict=True)) + " |")
    print(f"\nworst change: {worst:+.0%} (medians of {args.rounds} alternating rounds)")
    phases = sorted(set(flatness["old"][0]) & set(flatness["new"][0]))
    if phases:
        print("per-event cost growth (stream_small ev/s / stream_large ev/s), medians:")
        for phase in phases:
            old_f = statistics.median(run[phase] for run in flatness["old"])
            new_f = statistics.median(run[phase] for run in flatness["new"])
            runs_f = " ".join(f"{run[phase]:.2f}" for run in flatness["new"])
            print(f"  {phase}: old {old_f:.2f}, new {new_f:.2f} (new runs {runs_f})")
    if args.json:
        Path(args.json).write_text(
            json.dumps(
                {
                    name: [{"|".join(k): v for k, v in run.items()} for run in rs]
                    for name, rs in runs.items()
                },
                indent=2,
            )
            + "\n"
        )
    return 0


if __name__ == "__main__":
    sys.exit(main())
