"""Judging v1 traffic: which normalizer diagnostics are a v1 peer's faults, at what level.

Owns: `V1_RULES` (the v1 generation's rules: id, level, the side it binds, the sentence),
`v1_violations` (the violations among one step's diagnostics: the live `proxy` judges with
it) and `check_v1_trace` (`check_trace` for a recording of v1 traffic: `check --protocol 1`).
Must not know: how v1 reads as v2 (`_v1/_normalize.py` decides and names each diagnostic);
files or exit codes (`__main__`).

Theory of operation. The normalizer reads v1 traffic leniently and says what it tolerated
(`docs/v1.md`, Diagnostics). Most of that is how v1 *is* (id-less chunks, `null` as
"unchanged", a trace that starts mid-turn) and judges nobody. The few that the v1 schema or
prose makes a peer's fault are rules here, with the id the normalizer already gives them
(the `v1.` family marks the generation); judging v1 traffic by the v2 catalogue instead
would call every valid v1 message broken (`D1`, `R1`, `R19`).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Final, NamedTuple

from acp_core._errors import Diagnostic
from acp_core._rules._catalogue import Level, Side, side_argument
from acp_core._rules._check import Violation

from ._normalize import normalized_entries
from ._v1_policy import INVALID_MESSAGE, INVALID_UPDATE, MISSING_STOP_REASON, V2_KIND
from ._v1_state import new_v1_state

__all__ = ["V1_RULES", "V1Rule", "check_v1_trace", "v1_violations"]


class V1Rule(NamedTuple):
    """One rule of protocol v1 that a recording can show broken."""

    id: str
    level: Level
    side: Side
    text: str


#: The v1 rules `check --protocol 1` judges, by id (the normalizer's diagnostic ids).
V1_RULES: Final[Mapping[str, V1Rule]] = {
    r.id: r
    for r in (
        V1Rule(
            INVALID_MESSAGE,
            "MUST",
            "both",
            "Every message is a JSON-RPC 2.0 message of the v1 schema (a `session/new` result "
            "carries its `sessionId`).",
        ),
        V1Rule(
            INVALID_UPDATE,
            "MUST",
            "agent",
            "A known `session/update` kind has the v1 shape the schema gives it.",
        ),
        V1Rule(
            MISSING_STOP_REASON,
            "MUST",
            "agent",
            "A `session/prompt` result carries a `stopReason`.",
        ),
        V1Rule(
            V2_KIND,
            "MUST NOT",
            "agent",
            "Send a v2-only update kind on a v1 connection (v1 has no such kind).",
        ),
    )
}


def check_v1_trace(entries: Iterable[object], *, side: Side | None = None) -> tuple[Violation, ...]:
    """Check a recording of v1 traffic against the v1 rules (`V1_RULES`).

    Args:
        entries: the trace, `{"from": "client" | "agent", "message": ...}` per line, as
            parsed from JSON; it may start mid-session.
        side: judge only the rules that bind this side (and both).

    Returns:
        The violations, by entry index. Malformed input is a violation, never an exception.
    """
    side_argument(side, "check_v1_trace")
    found: list[Violation] = []
    for index, (_, output) in enumerate(normalized_entries(entries, new_v1_state())):
        found += v1_violations(output.diagnostics, index, side=side)
    return tuple(found)


def v1_violations(
    diagnostics: Iterable[Diagnostic], index: int, *, side: Side | None = None
) -> list[Violation]:
    """The violations of `V1_RULES` among one entry's normalizer diagnostics (at `index`);
    the other diagnostics are tolerances that judge nobody."""
    return [
        Violation(rule.id, rule.level, index, d.message)
        for d in diagnostics
        if (rule := V1_RULES.get(d.rule)) is not None
        and (side is None or rule.side in (side, "both"))
    ]
