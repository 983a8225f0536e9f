"""What a display terminal costs per event as it grows: 1x, 10x and 100x the bytes, side by side.

Owns: `terminal_costs` and the `python -m benchmarks.terminal_cost` report (issue 15).
Must not know: the other benchmarks.

Per terminal size, best-of-N CPU time of one reducer step for:
- a no-op `terminal_update` (nothing in it changes the terminal): must stay flat; it joined
  and compared every byte before (184 ms at 100 MiB);
- a `terminal_update` patching `command` (a new record, the bytes kept by reference);
- one 4 KiB `terminal_output_chunk` (an append to the persistent vector);
- for reference, `==` between two terminals with the same bytes in different vectors, which
  still reads every byte (terminal equality is by content, X6): what the no-op used to pay.
The ratio column divides each figure by the 1x figure: flat is about 1.
"""

from __future__ import annotations

import argparse
import base64
import gc
import math
import time
from collections.abc import Callable

import acp_core as acp
from acp_core import values as v
from acp_core._state._pcoll import EMPTY_VEC

__all__ = ["terminal_costs"]

CHUNK = 4096
SID = "sess_bench"
TID = "term_1"


def _terminal(total: int) -> acp.SessionState:
    state = acp.reduce(acp.new_session(SID), v.TerminalUpdate(TID, command="make"))
    data = base64.b64encode(b"x" * CHUNK).decode("ascii")
    chunks = [v.TerminalOutputChunk(TID, data) for _ in range(max(1, total // CHUNK))]
    return acp.fold(state, chunks)


def _best(fn: Callable[[], object], repeats: int, inner: int) -> float:
    best = math.inf
    for _ in range(repeats):
        gc.collect()
        t0 = time.process_time()
        for _ in range(inner):
            fn()
        best = min(best, (time.process_time() - t0) / inner)
    return best


def terminal_costs(base: int, factors: tuple[int, ...] = (1, 10, 100), repeats: int = 5) -> str:
    """The report: microseconds per operation at `base * factor` bytes, with ratios to 1x."""
    chunk = v.TerminalOutputChunk(TID, base64.b64encode(b"y" * CHUNK).decode("ascii"))
    rows: dict[str, list[float]] = {}
    for factor in factors:
        state = _terminal(base * factor)
        terminal = state.terminals[TID]
        assert acp.reduce(state, v.TerminalUpdate(TID, command="make")) is state
        same_bytes = v.TerminalState(
            terminal.command, terminal.cwd, EMPTY_VEC.append(v.terminal_bytes(terminal))
        )
        ops: dict[str, tuple[Callable[[], object], int]] = {
            "no-op terminal_update": (
                lambda s=state: acp.reduce(s, v.TerminalUpdate(TID, command="make")),
                2000,
            ),
            "patch command": (
                lambda s=state: acp.reduce(s, v.TerminalUpdate(TID, command="ls")),
                2000,
            ),
            "append one 4 KiB chunk": (lambda s=state: acp.reduce(s, chunk), 500),
            "== by content (reference)": (lambda t=terminal, u=same_bytes: t == u, 3),
        }
        for name, (fn, inner) in ops.items():
            rows.setdefault(name, []).append(_best(fn, repeats, inner) * 1e6)
        del state, terminal, same_bytes
    sizes = [f"{base * f / 2**20:g} MiB" for f in factors]
    head = f"{'us per step':28}" + "".join(f"{s:>12}" for s in sizes)
    head += "".join(f"{f'{f}x/1x':>9}" for f in factors[1:])
    lines = [f"== terminal cost by size (CPU us per step, best of {repeats})", head]
    for name, figures in rows.items():
        line = f"{name:28}" + "".join(f"{v:12.1f}" for v in figures)
        line += "".join(f"{v / figures[0]:9.2f}" for v in figures[1:])
        lines.append(line)
    return "\n".join(lines) + "\n"


def main(argv: list[str] | None = None) -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--base-mib", type=float, default=1.0, help="size at 1x (default 1)")
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    print(terminal_costs(int(args.base_mib * 2**20), repeats=args.repeats), end="")


if __name__ == "__main__":
    main()
