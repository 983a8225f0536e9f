"""What construction-time freezing costs: two source trees of acp_core side by side in one run.

Owns: the `python -m benchmarks.freeze_cost` report (issue 15, "immutable at construction").
Must not know: the other benchmarks beyond the `mixed` workload's traffic.

Values a caller builds freeze what they are given (lists to tuples, dicts to frozen maps); the
decoder builds its values with generated constructors that skip that work (its input is frozen
already). This harness checks both halves against a baseline tree (by default `main`'s commit
before the change, exported with `git archive`): each round starts one fresh interpreter per
tree, in rotated order, and every case keeps its best time over the rounds (noise only adds).

Cases (events or values per second; the ratio column is this tree over the baseline):
- `decode_update`: the `mixed` workload's update objects through `decode_update`;
- `decode+fold`: the same, folded into a session (the reducer's hot path);
- `decode_message`: `session/prompt` requests and `session/update` notifications with a
  `_meta`, through `decode_message` (the envelope's generic walk);
- `fold`: pre-decoded updates folded (no decoding);
- `build TextContent`, `build ToolCallUpdate`: values built by a caller with their
  constructors (this is where freezing is paid, once per field).

Run: `python -m benchmarks.freeze_cost [--baseline REV] [--against REV] [--rounds N]
[--events N]` (`--against`: measure that revision instead of this tree, so one change can be
isolated from the others on `main`).
"""

from __future__ import annotations

import argparse
import json
import subprocess
import sys
import tempfile
from pathlib import Path

ROOT = Path(__file__).resolve().parent.parent

# Runs inside a fresh interpreter whose sys.path starts with the tree under test.
WORKER = r"""
import gc, json, sys, time
sys.path.insert(0, sys.argv[1]); sys.path.insert(1, sys.argv[2])
import acp_core as acp
from acp_core import values as v
from benchmarks.workloads import mixed

events = int(sys.argv[3])
wire = mixed(events).v2
decoded = [acp.decode_update(w) for w in wire]
messages = []
for i in range(events // 4):
    messages.append({"jsonrpc": "2.0", "id": i, "method": "session/prompt", "params": {
        "sessionId": "s", "prompt": [{"type": "text", "text": "hi %d" % i}], "_meta": {"k": [i]}}})
    messages.append({"jsonrpc": "2.0", "method": "session/update", "params": {
        "sessionId": "s", "update": wire[i], "_meta": {"trace": i}}})
TC = v.TextContent
TU = v.ToolCallUpdate
TOOL = v.ToolContent
def build_text():
    for i in range(events):
        TC("x")
def build_tool():
    for i in range(events):
        TU("t", title="t", content=(TOOL(TC("x")),), raw_input={"a": 1})
cases = {
    "decode_update": (len(wire), lambda: [acp.decode_update(w) for w in wire]),
    "decode+fold": (
        len(wire), lambda: acp.fold(acp.new_session("s"), map(acp.decode_update, wire))
    ),
    "decode_message": (len(messages), lambda: [acp.decode_message(m) for m in messages]),
    "fold": (len(decoded), lambda: acp.fold(acp.new_session("s"), decoded)),
    "build TextContent": (events, build_text),
    "build ToolCallUpdate": (events, build_tool),
}
gc.freeze()
out = {}
for name, (n, fn) in cases.items():
    best = float("inf")
    for _ in range(3):
        gc.collect()
        start = time.process_time()
        fn()
        best = min(best, time.process_time() - start)
    out[name] = n / best
print(json.dumps(out))
"""


def export(rev: str, into: Path) -> Path:
    """`git archive` of `rev`'s acp_core into `into` (the benchmarks come from this tree)."""
    archive = subprocess.run(
        ["git", "-C", str(ROOT), "archive", rev, "acp_core"], check=True, capture_output=True
    ).stdout
    subprocess.run(["tar", "-x", "-C", str(into)], input=archive, check=True)
    return into


def run(trees: dict[str, Path], rounds: int, events: int) -> dict[str, dict[str, float]]:
    best: dict[str, dict[str, float]] = {name: {} for name in trees}
    names = list(trees)
    for r in range(rounds):
        for name in names[r % len(names) :] + names[: r % len(names)]:
            args = [sys.executable, "-c", WORKER, str(trees[name]), str(ROOT), str(events)]
            got = json.loads(subprocess.run(args, check=True, capture_output=True).stdout)
            for case, rate in got.items():
                best[name][case] = max(best[name].get(case, 0.0), rate)
    return best


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--baseline", default="a86892c", help="git revision to compare with")
    parser.add_argument(
        "--against", default=None, help="git revision to measure instead of this tree"
    )
    parser.add_argument("--rounds", type=int, default=5)
    parser.add_argument("--events", type=int, default=20_000)
    args = parser.parse_args(argv)
    with tempfile.TemporaryDirectory() as tmp, tempfile.TemporaryDirectory() as tmp2:
        this = ROOT if args.against is None else export(args.against, Path(tmp2))
        trees = {"baseline": export(args.baseline, Path(tmp)), "this tree": this}
        best = run(trees, args.rounds, args.events)
    base, this = best["baseline"], best["this tree"]
    sys.stdout.write(f"best of {args.rounds} rounds, CPU time, per second\n\n")
    sys.stdout.write(f"| case | baseline ({args.baseline}) | this tree | this/baseline |\n")
    sys.stdout.write("| --- | ---: | ---: | ---: |\n")
    for case in base:
        ratio = this[case] / base[case]
        sys.stdout.write(f"| {case} | {base[case]:,.0f} | {this[case]:,.0f} | {ratio:.3f} |\n")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
