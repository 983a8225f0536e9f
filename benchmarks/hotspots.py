"""cProfile hot spots of acp_core's fold, for whoever optimises the reducers and codec.

Owns: `profile_report` (used by `run.py --profile`).
Must not know: the other implementations.

cProfile adds a fixed cost per call, so it over-weights small functions; read the shares as
"where the calls go", and confirm any change with run.py's wall-clock ratios.
"""

from __future__ import annotations

import cProfile
import gc
import io
import math
import pstats
import time
from typing import Any

import acp_core
from benchmarks.workloads import SESSION_ID

__all__ = ["profile_report"]

TOP = 15


def _profile(title: str, fn: Any) -> str:
    prof = cProfile.Profile()
    prof.enable()
    fn()
    prof.disable()
    buf = io.StringIO()
    stats = pstats.Stats(prof, stream=buf)
    stats.sort_stats("tottime").print_stats(TOP)
    body = buf.getvalue()
    # Drop pstats' preamble down to the column header; keep the table.
    start = body.find("   ncalls")
    return f"== {title} (top {TOP} by tottime)\n{body[start:].rstrip()}\n"


def decode_cost_by_kind(wire: list[dict[str, Any]], repeats: int = 5) -> str:
    """Best-of-`repeats` CPU microseconds to decode one event, per `sessionUpdate` kind."""
    by_kind: dict[str, list[dict[str, Any]]] = {}
    for event in wire:
        by_kind.setdefault(event["sessionUpdate"], []).append(event)
    decode = acp_core.decode_update
    lines = [f"== decode_update cost per kind (CPU us/event, best of {repeats})"]
    for kind, events in sorted(by_kind.items(), key=lambda kv: -len(kv[1])):
        best = math.inf
        for _ in range(repeats):
            t0 = time.process_time()
            for event in events:
                decode(event)
            best = min(best, time.process_time() - t0)
        lines.append(f"  {kind:28} {len(events):>7} events  {best / len(events) * 1e6:6.2f} us")
    return "\n".join(lines) + "\n"


def profile_report(
    mixed_decoded: list[Any], large_wire: list[dict[str, Any]], mixed_wire: list[dict[str, Any]]
) -> str:
    """Top functions of `fold` on mixed (apply) and of decode+fold on stream_large, and the
    decode cost of each update kind of mixed. The cyclic GC is off while profiling: its pauses
    would be charged to whichever function happened to allocate (run.py reports its share)."""
    fold, new_session, decode = acp_core.fold, acp_core.new_session, acp_core.decode_update
    gc.collect()
    gc.disable()
    try:
        return "\n".join(
            (
                _profile(
                    "fold on mixed (apply)", lambda: fold(new_session(SESSION_ID), mixed_decoded)
                ),
                _profile(
                    "fold(map(decode_update)) on stream_large (decode+apply)",
                    lambda: fold(new_session(SESSION_ID), map(decode, large_wire)),
                ),
                decode_cost_by_kind(mixed_wire),
            )
        )
    finally:
        gc.enable()
