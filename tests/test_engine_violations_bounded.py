"""What a peer broke is kept by an engine up to a bound: the newest `MAX_VIOLATIONS_KEPT`,
the older ones counted in `violations_dropped`. A peer breaking a rule in every message once
grew an engine without bound, and each step copied all of it (quadratic over a connection;
found by the attack on the public surface). A client connection still reports every finding
of a session it no longer keeps (`machine_findings` counts, it does not compare lengths).
"""

from __future__ import annotations

import acp_core as acp
from acp_core._engines._kept import MAX_VIOLATIONS_KEPT, kept_violations
from acp_core._rules._violation import Violation

SID = "s1"
_REQUIRES_ACTION = acp.UpdateSessionNotification(SID, acp.RequiresActionStateUpdate())
_IDLE = acp.UpdateSessionNotification(SID, acp.IdleStateUpdate("end_turn"))


def _flapping(engine: acp.ClientEngine, times: int) -> acp.ClientEngine:
    # `requires_action` straight from idle (S1), then idle again: one finding per round.
    for _ in range(times):
        engine = acp.step(engine, acp.Received(_REQUIRES_ACTION))[0]
        engine = acp.step(engine, acp.Received(_IDLE))[0]
    return engine


def test_a_peer_that_keeps_breaking_rules_grows_no_engine_past_the_bound() -> None:
    engine = _flapping(acp.new_client(SID), MAX_VIOLATIONS_KEPT + 40)
    found = len(engine.violations) + engine.violations_dropped
    assert len(engine.violations) == MAX_VIOLATIONS_KEPT
    assert found == MAX_VIOLATIONS_KEPT + 40  # one a round: every one counted
    # The newest are kept, in order: the last one is the last round's.
    assert engine.violations[-1].index == engine.messages - 2


def test_under_the_bound_nothing_is_dropped_and_the_values_are_the_checkers() -> None:
    engine = _flapping(acp.new_client(SID), 3)
    assert engine.violations_dropped == 0
    assert [v.rule for v in engine.violations] == ["S1", "S1", "S1"]


def test_kept_violations_keeps_the_newest_and_counts_the_rest() -> None:
    def v(i: int) -> Violation:
        return Violation("S1", "SHOULD NOT", i, "m")

    kept: tuple[Violation, ...] = ()
    dropped = 0
    for i in range(MAX_VIOLATIONS_KEPT * 2 + 7):
        kept, dropped = kept_violations(kept, [v(i)], dropped)
    assert len(kept) == MAX_VIOLATIONS_KEPT
    assert dropped == MAX_VIOLATIONS_KEPT + 7
    newest = range(MAX_VIOLATIONS_KEPT + 7, 2 * MAX_VIOLATIONS_KEPT + 7)
    assert [x.index for x in kept] == list(newest)
    assert kept_violations(kept, [], dropped) == (kept, dropped)
    many = [v(i) for i in range(MAX_VIOLATIONS_KEPT + 5)]  # more than the bound in one step
    assert kept_violations((), many, 0) == (tuple(many[5:]), 5)
