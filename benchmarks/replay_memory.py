"""`replay` peak memory at 1x, 10x and 100x the trace length: streamed against collected.

Usage: python -m benchmarks.replay_memory [--base N]   (N lines at 1x; default 1,000)

Owns: the figures of docs/performance.md "replay streams its input" (issue 15).
Must not know: the other benchmarks (it borrows replay_steps' conversation trace).

Two traces, read line by line from an in-memory file (as `replay FILE` reads one):
- `bounded`: one session whose state stays the same size (the foreground toggles between
  running and idle, usage is replaced): what replay holds should not grow with the file;
- `conversation`: replay_steps' turns (prompt, reply of 200 chunks, tool call, permission):
  the state itself grows with the trace, so memory grows with it, but by the state only.
Per trace and length, peak tracemalloc MiB of:
- `streamed`: the `replay` command as it runs now (each line parsed and folded as read);
- `collected`: the same lines parsed into a tuple first, then folded (what `replay` did
  before: `replay_trace(parse_trace(lines))`), side by side in the same run.
"""

from __future__ import annotations

import argparse
import gc
import io
import json
import sys
import tracemalloc
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `acp_core` and `benchmarks` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from acp_core._cli import _cli_replay
from benchmarks import replay_steps

SESSION = replay_steps.SESSION


def bounded(lines: int) -> str:
    """A v2 trace of `lines` lines whose folded state has a fixed size."""
    out = []
    for i in range(lines):
        if i % 2:
            update: dict[str, Any] = {"sessionUpdate": "usage_update", "used": i, "size": 10**6}
        else:
            state = "running" if i % 4 == 0 else "idle"
            update = {"sessionUpdate": "state_update", "state": state}
            if state == "idle":
                update["stopReason"] = "end_turn"
        entry = replay_steps._update(update)
        out.append(json.dumps(entry, separators=(",", ":")) + "\n")
    return "".join(out)


class _Sink:
    def write(self, text: str) -> int:
        return len(text)


def _streamed(text: str) -> Callable[[], object]:
    args = argparse.Namespace(file="-", json=True, steps=False, protocol=None, revision="2026-08")
    lines: Iterator[str] = io.StringIO(text)  # made before tracing: the file, not replay's

    def run() -> object:
        status = _cli_replay.run(args, _Sink(), _Sink(), lambda _p: ("<bench>", lines))  # type: ignore[arg-type]
        assert status == 0
        return status

    return run


def _collected(text: str) -> Callable[[], object]:
    lines: Iterator[str] = io.StringIO(text)

    def run() -> object:
        return _cli_replay.replay_trace(_cli_replay.parse_trace(lines))

    return run


def peak_mib(fn: Callable[[], object]) -> float:
    gc.collect()
    tracemalloc.start()
    fn()
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return peak / 2**20


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base", type=int, default=1_000, help="lines at 1x")
    args = parser.parse_args(argv)
    sys.stdout.write("| trace | lines | streamed MiB | collected MiB | collected/streamed |\n")
    sys.stdout.write("| --- | ---: | ---: | ---: | ---: |\n")
    peak_mib(_streamed(bounded(10)))  # warm up: codec tables and imports are not replay's
    peak_mib(_collected(bounded(10)))
    for name, make in (("bounded", bounded), ("conversation", replay_steps.trace)):
        first: dict[str, float] = {}
        for scale in (1, 10, 100):
            lines = args.base * scale
            text = make(lines)
            streamed, collected = peak_mib(_streamed(text)), peak_mib(_collected(text))
            first = first or {"s": streamed, "c": collected}
            sys.stdout.write(
                f"| {name} | {lines:,} | {streamed:.2f} ({streamed / first['s']:.1f}x) | "
                f"{collected:.2f} ({collected / first['c']:.1f}x) | {collected / streamed:.1f} |\n"
            )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
