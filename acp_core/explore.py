"""Bounded exhaustive exploration of an agent connection and a client connection.

Every interleaving of the alphabet in `_explore_model` (client actions, agent intents, and
deliveries of the lines in flight, each direction first in first out, the two directions
racing) is walked breadth-first up to a depth; states are deduplicated by value (the frozen
`PairState`'s hash and equality); every reached recording is judged by the checker and every
agent session by the replay law. A violation is reported once per rule, with the first path
that shows it: breadth-first, that path is a shortest one (among the paths the deduplication
keeps: a state is reached once, by its first path). A state in violation is not expanded.

Pure: `explore` and `explore_levels` read no clock and write no file. Parallel runs pass a
`map_shards` function (the CLI gives a process pool's or a Dask client's); the frontier is
cut into contiguous runs (`shard_of`), each shard is expanded by `expand_shard`, and the
results are merged in frontier order, so any number of workers gives exactly the states,
transitions and violations of one process. (The first version cut by a stable digest of each
state; walking each state for its digest cost as much as judging it, and where a node is
expanded changes nothing: deduplication is the merge's.) A successor whose state is known to
be reached already is not judged: in one process, every state of the earlier levels; in a
worker of a named run (`run`), the states that worker reached at earlier levels (its only
memory across calls, `_REACHED`). Nodes travel without their checker states (`Node`
pickles without them); `pack_expansions` sends back only the lines each action added.

Judging: agent rules on the agent's own recording, client rules on the client's (each end
reads its peer's messages in its own order; docs/transports.md, "Recording"), and the rules
that bind both on both (a message's form, and an id in use, read the same in either order:
the agent's reuse of a request id shows on its own recording at once).
Only broken MUST / MUST NOT rules count, not warnings (what `python -m acp_core check` exits
1 for; a recording that ends mid-turn is an R7 warning); `should=True` counts broken SHOULD /
SHOULD NOT rules too. Each node carries its two `TraceCheck`s (the checker's state after each
recording), and a successor's are its parent's extended by the lines the action added: each
line is decoded and observed once, not once per state that contains it. The replay
law: folding the replay the agent would send on resume rebuilds the session it folds (its
rule id here is `replay-law`).
"""

from __future__ import annotations

import json
from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import attrs

from ._engines._replay_gen import replay_updates, state_snapshot
from ._errors import ArgumentError
from ._research._explore_model import (
    ACTION_NAMES,
    ACTIONS,
    Node,
    PairState,
    initial_node,
    successors,
)
from ._research._explore_shards import (
    Expansion,
    pack_expansions,
    shard_of,
    unpack_expansions,
)
from ._research._explore_values import Counterexample
from ._rules._catalogue import RULES
from ._rules._check import TraceCheck
from ._state._pcoll import PVec
from ._state._reduce import reduce
from ._state._session_state import SessionState, new_session
from ._wire._fields import PREVIEW_NAME
from ._wire._revision import DEFAULT_REVISION, REVISIONS, Revision

__all__ = [
    "ACTIONS",
    "ACTION_NAMES",
    "Counterexample",
    "ExploreLevel",
    "ExploreResult",
    "Options",
    "PairState",
    "expand_shard",
    "explore",
    "explore_levels",
    "pack_expansions",
    "shard_of",
    "unpack_expansions",
]

_REVISIONS = REVISIONS  # every revision of the registry (2026-08, 2026-11, the Preview)
REPLAY_LAW = "replay-law"


@attrs.frozen
class ExploreLevel:
    """One breadth-first level: what was known once every state at `depth - 1` was expanded."""

    depth: int
    states: int
    transitions: int
    frontier: int
    violations: tuple[Counterexample, ...]


@attrs.frozen
class ExploreResult:
    """The outcome: distinct states, transitions taken, the depth completed, violations."""

    states: int
    transitions: int
    depth: int
    violations: tuple[Counterexample, ...]


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


def _checks(node: Node, parent: Node | None, revision: Revision) -> tuple[TraceCheck, ...]:
    # The checker state after each recording: the parent's, extended by the lines the last
    # action added (a recording only grows), so each line is decoded and observed once.
    if parent is None or parent.checks is None:
        agent, client = TraceCheck(revision), TraceCheck(revision)
        new_agent, new_client = node.recording.agent, node.recording.client
    else:
        agent, client = parent.checks
        new_agent = node.recording.agent[len(parent.recording.agent) :]
        new_client = node.recording.client[len(parent.recording.client) :]
    return agent.extended(_entries(new_agent)), client.extended(_entries(new_client))


def judged(
    parent: Node | None, node: Node, revision: Revision, should: bool = False
) -> tuple[Node, tuple[Counterexample, ...]]:
    """`node` with its checks, and the violations it shows (see `judge`)."""
    node = attrs.evolve(node, checks=_checks(node, parent, revision))
    found: list[Counterexample] = []
    for side, check in zip(("agent", "client"), node.checks, strict=True):
        for v in check.violations():
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


#: One shard: the options and the nodes to expand.
Task = tuple[Options, Sequence[Node]]

#: Per process, the states its shards reached in the current run (`Options.run`) and the
#: level each was first reached at. Every state a shard returns is in the run's seen set
#: once its level is merged, so at a later level a successor equal to one is a transition
#: to a known state: it goes back as a count, neither judged nor shipped. (Only earlier
#: levels count: an executor may run a level's shards in any order, and within a level
#: the merge, in frontier order, decides which path reached a state first.) Only the last
#: run is kept.
_REACHED: dict[str, dict[PairState, int]] = {}


def _reached(run: str) -> dict[PairState, int]:
    found = _REACHED.get(run)
    if found is None:
        _REACHED.clear()
        found = _REACHED[run] = {}
    return found


def expand_shard(task: Task) -> list[Expansion]:
    """Expand every node of a shard: per node, its successors in alphabet order (label,
    successor, its violations). A top-level function, so processes can run it."""
    options, nodes = task
    if options.run is None:
        return _expand(options, nodes, set(), None)
    return _expand(options, nodes, set(), _reached(options.run))


def _expand(
    options: Options,
    nodes: Sequence[Node],
    known: set[PairState],
    reached: dict[PairState, int] | None,
) -> list[Expansion]:
    # `known`: states reached before this level (in this shard's process); `reached` (when
    # the run is named): this process's memory, updated with the states found here.
    revision = _REVISIONS[options.revision]
    level = options.level
    here: set[PairState] = set()  # reached earlier in this shard (so earlier in the frontier)
    out: list[Expansion] = []
    for shipped in nodes:
        node = shipped
        if node.checks is None:  # shipped without them: rebuild from the recording, once
            node = judged(None, node, revision, options.should)[0]
        expansion: Expansion = []
        for label, successor in successors(node, options.sessions, options.only, options.symmetry):
            state = successor.state
            if state in here or state in known:
                expansion.append((label, None, ()))
                continue
            if reached is not None:
                first = reached.setdefault(state, level)
                if first < level:
                    expansion.append((label, None, ()))
                    continue
            here.add(state)
            nxt, violations = judged(node, successor, revision, options.should)
            expansion.append((label, nxt, violations))
        out.append(expansion)
    return out


MapShards = Callable[[Callable[[Any], Any], list[Any]], list[Any]]


def _serial_map(fn: Callable[[Any], Any], tasks: list[Any]) -> list[Any]:
    return [fn(t) for t in tasks]


def explore_levels(
    *,
    revision: Revision = DEFAULT_REVISION,
    depth: int = 6,
    sessions: int = 1,
    shards: int = 1,
    map_shards: MapShards = _serial_map,
    actions: Iterable[str] | None = None,
    should: bool = False,
    symmetry: bool = False,
    run: str | None = None,
) -> Iterator[ExploreLevel]:
    """Walk breadth-first, yielding after each completed level (1..depth).

    `actions` restricts the alphabet to these names (`ACTION_NAMES`; default: all of it).
    `should`: count broken SHOULD / SHOULD NOT rules as violations too (default: only MUST
    and MUST NOT, what `check` exits 1 for).
    `symmetry`: the symmetry reduction over session ids (`sessions_in_order`: session k+1
    acts only once session k has); the same violations (as rules), fewer states. Refused at
    the Preview with several sessions: only sess_1 has a child there.

    `map_shards(fn, tasks)` runs `fn` on each task and returns the results in task order
    (default: in this process); `shards` is how many tasks a level is cut into.
    `run`: a name for this run, unique among the runs its worker processes serve (the CLI
    makes one): each process then remembers the states its shards reached, and sends back
    a successor it reached at an earlier level as a count instead of judging and shipping
    it. The results are the same with or without it.
    """
    if revision.name not in _REVISIONS:
        raise ArgumentError(f"explore knows revisions {sorted(_REVISIONS)}, not {revision.name!r}")
    if sessions < 1 or depth < 0 or shards < 1:
        raise ArgumentError("explore needs sessions >= 1, depth >= 0 and shards >= 1")
    if symmetry and sessions > 1 and revision.includes(PREVIEW_NAME):
        raise ArgumentError(
            "the symmetry reduction needs sessions that start alike; at the Preview sess_1 "
            "alone has a child"
        )
    only = None if actions is None else frozenset(actions)
    if only is not None and not only <= set(ACTION_NAMES):
        raise ArgumentError(f"explore's actions are {ACTION_NAMES}, not {sorted(only)}")
    options = Options(revision.name, sessions, only, should, symmetry, run)
    root, _ = judged(None, initial_node(revision, sessions), revision, should)
    seen: set[PairState] = {root.state}
    frontier: list[Node] = [root]
    transitions = 0
    found: dict[str, Counterexample] = {}
    for level in range(1, depth + 1):
        at_level = attrs.evolve(options, level=level)
        if shards == 1 and map_shards is _serial_map:  # this process: it knows every state
            results = [_expand(at_level, frontier, seen, None)]
        else:
            buckets: list[list[Node]] = [[] for _ in range(min(shards, len(frontier)))]
            for index, node in enumerate(frontier):
                buckets[shard_of(index, len(frontier), len(buckets))].append(node)
            results = map_shards(expand_shard, [(at_level, bucket) for bucket in buckets])
        nxt: list[Node] = []
        for result in results:  # in frontier order: independent of the shards
            for expansion in result:
                for _label, reached, violations in expansion:
                    transitions += 1
                    if reached is None or reached.state in seen:
                        continue
                    seen.add(reached.state)
                    for v in violations:
                        found.setdefault(v.rule, v)
                    if not violations:
                        nxt.append(reached)
        frontier = nxt
        yield ExploreLevel(level, len(seen), transitions, len(frontier), tuple(found.values()))
        if not frontier:
            return


def explore(
    *,
    revision: Revision = DEFAULT_REVISION,
    depth: int = 6,
    sessions: int = 1,
    shards: int = 1,
    map_shards: MapShards = _serial_map,
    actions: Iterable[str] | None = None,
    should: bool = False,
    symmetry: bool = False,
    run: str | None = None,
) -> ExploreResult:
    """Explore every interleaving up to `depth` actions; see the module docstring."""
    last = ExploreLevel(0, 1, 0, 1, ())
    for level in explore_levels(
        revision=revision,
        depth=depth,
        sessions=sessions,
        shards=shards,
        map_shards=map_shards,
        actions=actions,
        should=should,
        symmetry=symmetry,
        run=run,
    ):
        last = level
    return ExploreResult(last.states, last.transitions, last.depth, last.violations)
