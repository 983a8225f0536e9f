"""How much of what a peer broke an engine keeps: the newest `MAX_VIOLATIONS_KEPT`.

Owns: `MAX_VIOLATIONS_KEPT` and `kept_violations`, the one place both engines add a step's
violations to what they keep. A peer that breaks a rule in every message must not grow an
engine without bound, nor make each step copy all it ever broke (the engine is rebuilt on
every step): the oldest are let go, and counted (`violations_dropped`).
Must not know: what a violation says, which engine keeps them.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Final

from acp_core._rules._violation import Violation

__all__ = ["MAX_VIOLATIONS_KEPT", "kept_violations"]

#: How many of the peer's violations an engine keeps (the newest; older ones are counted in
#: `violations_dropped`). Every test trace and explored run stays well under it.
MAX_VIOLATIONS_KEPT: Final = 256


def kept_violations(
    kept: tuple[Violation, ...], new: Sequence[Violation], dropped: int
) -> tuple[tuple[Violation, ...], int]:
    """`kept` with a step's `new` violations after them, at most the newest
    `MAX_VIOLATIONS_KEPT`, and `dropped` plus how many older ones that let go."""
    if not new:
        return kept, dropped
    joined = (*kept, *new)
    over = len(joined) - MAX_VIOLATIONS_KEPT
    if over <= 0:
        return joined, dropped
    return joined[over:], dropped + over
