"""cProfile hot spots of acp_core's fold, for whoever optimises the reducers and codec.

Owns: `profile_report` (used by `run.py --profile`).
Must not know: the other implementations.

cProfile adds a fixed cost per call, so it over-weights small functions; read the shares as
"where the calls go", and confirm any change with run.py's wall-clock ratios.
"""

from __future__ import annotations

import cProfile
import io
import pstats
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


def profile_report(mixed_decoded: list[Any], large_wire: list[dict[str, Any]]) -> str:
    """Top functions of `fold` on mixed (apply) and of decode+fold on stream_large."""
    fold, new_session, decode = acp_core.fold, acp_core.new_session, acp_core.decode_update
    return "\n".join(
        (
            _profile("fold on mixed (apply)", lambda: fold(new_session(SESSION_ID), mixed_decoded)),
            _profile(
                "fold(map(decode_update)) on stream_large (decode+apply)",
                lambda: fold(new_session(SESSION_ID), map(decode, large_wire)),
            ),
        )
    )
