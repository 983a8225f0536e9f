"""Judging one reached node of `explore`: the checker on each end's recording, and the replay law.

Owns: `judged` / `judge` (a successor's checker states, its parent's extended by the lines the
action added, and the violations they show: only those bound to the end whose recording shows
them), the replay law (`REPLAY_LAW`: folding the replay the agent would send on resume
rebuilds the session it folds), a researcher's own checks (`Check`: each handed the reached
run as a `PairRun`, its findings counted as violations under the check's name), and
`Options` (what every expansion of a run is judged with).
Must not know: the search, its order or its executors (`explore.py`,
`_research/_explore_workers.py`), the alphabet (`_research/_explore_model.py`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable
from typing import Any

import attrs

from acp_core._engines._replay_gen import replay_updates, state_snapshot
from acp_core._rules._catalogue import RULES
from acp_core._rules._check import IncrementalCheck
from acp_core._state._pcoll import PVec
from acp_core._state._reduce import reduce
from acp_core._state._session_state import SessionState, new_session
from acp_core._wire._revision import Revision

from ._explore_runs import PairRun, pair_run_of
from ._explore_values import Counterexample, Node

__all__ = ["REPLAY_LAW", "Check", "Options", "judge", "judged"]

REPLAY_LAW = "replay-law"


def _replayed(state: SessionState, revision: Revision) -> SessionState:
    fresh = new_session(state.session_id)
    for update in (*replay_updates(state), *state_snapshot(state)):
        fresh = reduce(fresh, update, revision=revision)
    return fresh


def _without_live_only(state: SessionState) -> SessionState:
    # What the spec keeps out of a replay (docs/semantics.md, "What a replay does not carry"),
    # and the children's links: the connection re-announces children before the session's
    # own replay (R61, `_engines/_replay_gen` walks the tree), so they are the tree's law.
    extras = state.aux.extras
    if extras.children:
        extras = attrs.evolve(extras, children=type(extras.children)(), child_order=())
    aux = attrs.evolve(state.aux, unknown=PVec(), diagnostics=PVec(), extras=extras)
    return attrs.evolve(state, aux=aux)


def _entries(lines: Iterable[tuple[str, bytes]]) -> list[dict[str, Any]]:
    return [{"from": side, "message": json.loads(line)} for side, line in lines]


def _checks(node: Node, parent: Node | None, revision: Revision) -> tuple[IncrementalCheck, ...]:
    # The checker state after each recording: the parent's, extended by the lines the last
    # action added (a recording only grows), so each line is decoded and observed once.
    if parent is None or parent.checks is None:
        agent = client = IncrementalCheck.start(revision)
        new_agent, new_client = node.recording.agent, node.recording.client
    else:
        agent, client = parent.checks
        new_agent = node.recording.agent[len(parent.recording.agent) :]
        new_client = node.recording.client[len(parent.recording.client) :]
    return agent.feed_all(_entries(new_agent)), client.feed_all(_entries(new_client))


#: A researcher's own check (`explore(checks=...)`): handed each reached run, it returns what
#: it finds wrong (one message each; none: nothing). Pure; a top-level function, so it
#: pickles to worker processes.
Check = Callable[[PairRun], Iterable[str]]


def _own_checks(node: Node, checks: tuple[Check, ...]) -> list[Counterexample]:
    if not checks:
        return []
    run = pair_run_of(node)
    found: list[Counterexample] = []
    for check in checks:
        rule = getattr(check, "__name__", repr(check))
        for message in check(run):
            found.append(Counterexample(rule, str(message), node.path, "agent", run.agent_trace))
    return found


def judged(
    parent: Node | None,
    node: Node,
    revision: Revision,
    should: bool = False,
    checks: tuple[Check, ...] = (),
) -> tuple[Node, tuple[Counterexample, ...]]:
    """`node` with its checks, and the violations it shows (see `judge`), then what each of
    `checks` (a researcher's own) finds in it."""
    node = attrs.evolve(node, checks=_checks(node, parent, revision))
    found: list[Counterexample] = []
    for side, check in zip(("agent", "client"), node.checks, strict=True):
        for v in check.finish():
            bound = RULES[v.rule].side if v.rule in RULES else side
            counts = v.mandatory or (should and not v.warning and v.level != "MAY")
            if counts and (bound == "both" or (bound == "agent") == (side == "agent")):
                rec = node.recording
                trace = rec.agent_trace() if side == "agent" else rec.client_trace()
                found.append(
                    Counterexample(v.rule, v.message, node.path, side, tuple(trace), v.level)
                )
    if parent is not None:
        found.extend(_replay_law(parent, node, revision))
    found.extend(_own_checks(node, checks))
    return node, tuple(found)


def judge(
    parent: Node, node: Node, revision: Revision, should: bool = False
) -> tuple[Counterexample, ...]:
    """The MUST-level violations `node`'s recordings show (SHOULD-level ones too when
    `should`; never warnings), and replay-law failures of the agent sessions the last action
    changed."""
    return judged(parent, node, revision, should)[1]


def _replay_law(parent: Node, node: Node, revision: Revision) -> list[Counterexample]:
    found: list[Counterexample] = []
    for sid, session in node.state.agent.sessions.items():
        before = parent.state.agent.sessions.get(sid)
        if before is not None and before.engine.session is session.engine.session:
            continue
        state = session.engine.session
        if _without_live_only(_replayed(state, revision)) != _without_live_only(state):
            found.append(
                Counterexample(
                    REPLAY_LAW,
                    f"the replay of {sid} does not rebuild its state",
                    node.path,
                    "agent",
                    tuple(node.recording.agent_trace()),
                )
            )
    return found


@attrs.frozen
class Options:
    """What every shard of a run is expanded with (shipped with each task)."""

    revision: str  # the revision's name (a name pickles small)
    sessions: int
    only: frozenset[str] | None = None
    should: bool = False
    symmetry: bool = False
    run: str | None = None  # names the run for the per-process memory of reached states
    level: int = 0  # the level being expanded (set per level)
    checks: tuple[Check, ...] = ()  # a researcher's own checks, run on every judged node
