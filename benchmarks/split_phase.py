"""The `split` phase: one NDJSON line fed to `feed_ndjson` a byte at a time, at two lengths.

Owns: the line (`line_pieces`: a JSON string of `size` bytes and its newline, one byte per
piece), the reader timed over it (`feed_pieces`), and the `python -m benchmarks.split_phase`
before/after report, which times this tree's framing beside another revision's
`acp_core/_wire/_framing.py` loaded into the same process.
Must not know: run.py's other phases (run.py times `feed_pieces` in its schedule).

What to read is microseconds per byte at 1 KB and at 64 KB, and their ratio: 1.0 when the cost
of a feed does not grow with what the decoder holds (issue 24's target: at most 1.5). A decoder
that copies everything it holds on each feed shows a ratio near 64.
"""

from __future__ import annotations

import argparse
import functools
import importlib.util
import subprocess
import sys
import time
from collections.abc import Callable
from pathlib import Path
from types import ModuleType
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks` and `acp_core` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import acp_core

ROOT = Path(__file__).resolve().parent.parent
#: The two line lengths compared, in bytes (the newline excluded).
SIZES = (1024, 64 * 1024)


def line_pieces(size: int) -> list[bytes]:
    """A one-line JSON string of `size` bytes and its newline, cut into one-byte pieces."""
    line = b'"' + b"x" * (size - 2) + b'"\n'
    return [line[i : i + 1] for i in range(len(line))]


def feed_pieces(pieces: list[bytes], framing: Any = acp_core) -> tuple[Any, ...]:
    """Feed `pieces` one by one to a fresh decoder of `framing` (a module with `NdjsonDecoder`
    and `feed_ndjson`): the events of the last feed (the line's value, once it ends)."""
    feed = framing.feed_ndjson
    decoder = framing.NdjsonDecoder()
    events: tuple[Any, ...] = ()
    for piece in pieces:
        decoder, events = feed(decoder, piece)
    return events


def load_framing(revision: str) -> ModuleType:
    """`acp_core/_wire/_framing.py` as it is at `revision`, imported beside this tree's (as
    `acp_core._wire._framing_at_REV`, so its relative imports find this tree's modules)."""
    source = subprocess.run(
        ["git", "show", f"{revision}:acp_core/_wire/_framing.py"],
        cwd=ROOT,
        check=True,
        capture_output=True,
        text=True,
    ).stdout
    name = "acp_core._wire._framing_at_" + "".join(c if c.isalnum() else "_" for c in revision)
    spec = importlib.util.spec_from_loader(name, loader=None)
    assert spec is not None
    module = importlib.util.module_from_spec(spec)
    module.__package__ = "acp_core._wire"
    exec(compile(source, f"<{revision}:_framing.py>", "exec"), module.__dict__)
    return module


def sample(fn: Callable[[], Any], loops: int) -> tuple[float, Any]:
    """CPU seconds of one run of `fn` (the mean of `loops` runs in a row), and its result."""
    result = None
    t0 = time.process_time()
    for _ in range(loops):
        result = fn()
    return (time.process_time() - t0) / loops, result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--baseline", metavar="REV", help="also time _framing.py at REV")
    parser.add_argument("--rounds", type=int, default=5, help="best of N (CPU time)")
    parser.add_argument(
        "--sizes", type=int, nargs="+", default=list(SIZES), help="line lengths in bytes"
    )
    parser.add_argument(
        "--budget", type=float, default=20.0, help="a case whose run takes longer runs once"
    )
    args = parser.parse_args(argv)
    trees: dict[str, Any] = {"this tree": acp_core}
    if args.baseline:
        trees[args.baseline] = load_framing(args.baseline)
    cases = [(name, size) for size in args.sizes for name in trees]
    pieces = {size: line_pieces(size) for size in args.sizes}
    best: dict[tuple[str, int], float] = {}
    runs: dict[tuple[str, int], int] = dict.fromkeys(cases, 0)
    loops: dict[tuple[str, int], int] = dict.fromkeys(cases, 1)
    # Rounds alternate the cases (the starting one rotating), so load hits all of them alike;
    # a case's figure is its best round (noise only adds time).
    for r in range(args.rounds):
        k = r % len(cases)
        for case in cases[k:] + cases[:k]:
            name, size = case
            if runs[case] and best[case] > args.budget:
                continue
            seconds, events = sample(
                functools.partial(feed_pieces, pieces[size], trees[name]), loops[case]
            )
            if [getattr(e, "value", e) for e in events] != ["x" * (size - 2)]:
                raise RuntimeError(f"{name} did not decode the line: {events!r:.200}")
            best[case] = min(best.get(case, seconds), seconds)
            runs[case] += 1
            loops[case] = max(1, int(0.05 / max(seconds, 1e-9)))
        print(f"  round {r + 1}/{args.rounds}", file=sys.stderr, flush=True)
    print(f"µs per byte, one byte per feed, best of up to {args.rounds} rounds (CPU time):")
    print(
        f"  {'tree':>12} "
        + " ".join(f"{size:>10,} B" for size in args.sizes)
        + "  largest/smallest"
    )
    for name in trees:
        us = [best[name, size] * 1e6 / len(pieces[size]) for size in args.sizes]
        once = [f"{size:,} B" for size in args.sizes if runs[name, size] == 1 < args.rounds]
        print(
            f"  {name:>12} "
            + " ".join(f"{u:12.3f}" for u in us)
            + f"  {us[-1] / us[0]:5.2f}"
            + (f"  (one run only at {', '.join(once)})" if once else "")
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
