"""The cost of `import acp_core`, and of the first use of its names, in fresh interpreters.

Best of N per case (the minimum is the least noisy on a shared machine), in the child's CPU
time by default (`--clock wall` for wall-clock time), each case as its difference to a bare
interpreter and its ratio to it. With `--baseline DIR`
(another checkout, e.g. `git worktree add --detach ../base main`; repeatable) the same cases
run for every tree side by side in one run, alternating tree by tree inside each round, so
load on the machine falls on all alike.

Run: `python benchmarks/import_time.py [--runs N] [--baseline DIR ...]`.
Bytecode is written and kept (`PYTHONDONTWRITEBYTECODE` is unset for the children, and one
unmeasured warm-up run per case and tree writes it), as in an installed package: what is
measured is loading, not compiling the package's source.
"""

from __future__ import annotations

import argparse
import os
import resource
import subprocess
import sys
import time
from pathlib import Path

#: The common path touched and used once: the six names of the quick start (README).
COMMON = """
import acp_core as acp
agent, client = acp.new_agent("s1"), acp.new_client("s1")
client, out = acp.step(client, acp.intents.SendPrompt((acp.values.TextContent("Hi"),)))
message = acp.decode_message(out[0])
agent, out = acp.step(agent, acp.Received(message))
acp.fold(acp.new_session("s1"), ())
acp.check_trace(())
"""

#: Every public name of every public submodule (and the root).
EVERY_PUBLIC = """
import importlib, importlib.util, acp_core
for name in ("acp_core", "acp_core.values", "acp_core.intents", "acp_core.connection",
             "acp_core.engines", "acp_core.codec", "acp_core.sessions", "acp_core.checker",
             "acp_core.protocol", "acp_core.v1", "acp_core.errors", "acp_core.strategies",
             "acp_core.explore"):
    if importlib.util.find_spec(name) is None:  # a --baseline tree older than the module
        continue
    module = importlib.import_module(name)
    for public in module.__all__:
        getattr(module, public)
"""

CASES = (
    ("bare interpreter", "pass"),
    ("import acp_core", "import acp_core"),
    ("touch decode_message", "import acp_core; acp_core.decode_message"),
    (
        "touch the six common names",
        "import acp_core as a; a.decode_message; a.step; a.new_agent; a.new_client; a.fold;"
        " a.check_trace",
    ),
    ("the six used once (quick start)", COMMON),
    ("every name in acp_core.__all__", "import acp_core as a\nfor n in a.__all__: getattr(a, n)"),
    ("every public name of every submodule", EVERY_PUBLIC),
)


def run_ms(tree: Path, code: str, clock: str = "cpu") -> float:
    """One fresh interpreter running `code` with `tree` first on the path: its CPU time (user +
    system, what the child itself spent: the least disturbed by other load on the machine) or
    its wall-clock time, in ms."""
    env = {k: v for k, v in os.environ.items() if k != "PYTHONDONTWRITEBYTECODE"}
    env["PYTHONPATH"] = str(tree)
    command = [sys.executable, "-W", "ignore::DeprecationWarning", "-c", code]
    before, start = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter()
    subprocess.run(command, check=True, env=env, cwd=tree)
    after, wall = resource.getrusage(resource.RUSAGE_CHILDREN), time.perf_counter() - start
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    return (cpu if clock == "cpu" else wall) * 1000


def best_ms(code: str, runs: int, tree: Path | None = None, clock: str = "wall") -> float:
    """Best of `runs` fresh interpreters running `code` on `tree` (default: this one)."""
    tree = tree or Path(__file__).resolve().parent.parent
    return min(run_ms(tree, code, clock) for _ in range(runs))


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--runs", type=int, default=10)
    parser.add_argument("--clock", choices=("cpu", "wall"), default="cpu")
    parser.add_argument(
        "--baseline",
        type=Path,
        action="append",
        default=[],
        help="another source tree, measured alongside (repeatable)",
    )
    args = parser.parse_args()
    here = Path(__file__).resolve().parent.parent
    trees = [(tree.resolve().name, tree.resolve()) for tree in args.baseline]
    trees.append(("this tree", here))
    for _, tree in trees:  # warm-up: writes the bytecode, fills the OS cache
        for _, code in CASES:
            run_ms(tree, code)
    best = {(t, c): float("inf") for t, _ in trees for c, _ in CASES}
    for _ in range(args.runs):
        for label, code in CASES:
            for name, tree in trees:
                best[name, label] = min(best[name, label], run_ms(tree, code, args.clock))
    out = sys.stdout
    clock = "CPU time (user + system)" if args.clock == "cpu" else "wall clock"
    out.write(f"best of {args.runs}, {clock}, ms; +ms and x over a bare interpreter\n")
    out.write(f"{'case':<38}" + "".join(f"{name:>26}" for name, _ in trees) + "\n")
    for label, _ in CASES:
        row = f"{label:<38}"
        for name, _ in trees:
            ms, bare = best[name, label], best[name, "bare interpreter"]
            row += f"{ms:8.1f} (+{ms - bare:6.1f}, {ms / bare:4.1f}x)"
        out.write(row + "\n")


if __name__ == "__main__":
    main()
