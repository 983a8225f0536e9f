"""Bounded exhaustive exploration of an agent connection and a client connection.

Every interleaving of the alphabet in `_explore_model` (client actions, agent intents, and
deliveries of the lines in flight, each direction first in first out, the two directions
racing) is walked breadth-first up to a depth; states are deduplicated by value (the frozen
`PairState`'s hash and equality); every reached recording is judged by the checker and every
agent session by the replay law. A violation is reported once per rule, with the first path
that shows it: breadth-first, that path is a shortest one (among the paths the deduplication
keeps: a state is reached once, by its first path). A state in violation is not expanded.

Pure: `explore` and `explore_levels` read no clock and write no file. Two ways to run in
parallel, both giving exactly the states, transitions and violations of one process:
- persistent workers (`workers=`, what `explore --workers W` runs): each worker keeps the
  nodes it found between levels, and a coordinator merges what they found in frontier
  order, comparing by value the states two workers share a fingerprint with
  (`_research/_explore_workers.py`, `_research/_explore_coordinator.py`). A state crosses
  processes only to balance the workers or when its fingerprint is contested.
- shards (`map_shards`, for Dask and where processes cannot be forked): each level's
  frontier is cut into contiguous runs (`shard_of`), each expanded by `expand_shard`, and
  the results merged in frontier order. A worker of a named run (`run`) remembers the states
  it reached at earlier levels (`_REACHED`); nodes travel without their checker states
  (`Node` pickles without them); `pack_expansions` sends back only the lines each action
  added.
In one process, a successor whose state an earlier level reached is not judged.

Judging (`_research/_explore_judge.py`): agent rules on the agent's own recording, client
rules on the client's (each end reads its peer's messages in its own order;
docs/transports.md, "Recording"), and the rules that bind both on both (a message's form,
and an id in use, read the same in either order: the agent's reuse of a request id shows on
its own recording at once).
Only broken MUST / MUST NOT rules count, not warnings (what `python -m acp_core check` exits
1 for; a recording that ends mid-turn is an R7 warning); `should=True` counts broken SHOULD /
SHOULD NOT rules too. Each node carries its two `IncrementalCheck`s (the checker's state after each
recording), and a successor's are its parent's extended by the lines the action added: each
line is decoded and observed once, not once per state that contains it. The replay
law: folding the replay the agent would send on resume rebuilds the session it folds (its
rule id here is `replay-law`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any

import attrs

from ._errors import ArgumentError
from ._research._explore_coordinator import walk
from ._research._explore_judge import REPLAY_LAW, Check, Options, judge, judged
from ._research._explore_model import (
    ACTION_NAMES,
    ACTIONS,
    Node,
    PairState,
    initial_node,
    successors,
)
from ._research._explore_runs import FEATURES, PairRun, run_features
from ._research._explore_shards import (
    Expansion,
    pack_expansions,
    shard_of,
    unpack_expansions,
)
from ._research._explore_values import Counterexample, ExploreLevel
from ._research._explore_workers import Fingerprint, InProcessWorkers, Workers
from ._wire._fields import PREVIEW_NAME
from ._wire._revision import DEFAULT_REVISION, REVISIONS, Revision

__all__ = [
    "ACTIONS",
    "ACTION_NAMES",
    "FEATURES",
    "REPLAY_LAW",
    "Check",
    "Counterexample",
    "ExploreLevel",
    "ExploreResult",
    "InProcessWorkers",
    "Options",
    "PairRun",
    "PairState",
    "Workers",
    "expand_shard",
    "explore",
    "explore_levels",
    "judge",
    "judged",
    "pack_expansions",
    "run_features",
    "shard_of",
    "unpack_expansions",
]

_REVISIONS = REVISIONS  # every revision of the registry (2026-08, 2026-11, the Preview)


@attrs.frozen
class ExploreResult:
    """The outcome: distinct states, transitions taken, the depth completed, violations."""

    states: int
    transitions: int
    depth: int
    violations: tuple[Counterexample, ...]


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
            node = judged(None, node, revision, options.should, options.checks)[0]
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
            nxt, violations = judged(node, successor, revision, options.should, options.checks)
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
    workers: Workers | None = None,
    rounds: int = 1,
    fingerprint: Fingerprint = hash,
    checks: Iterable[Check] = (),
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

    `workers`: run on persistent workers instead (`Workers`: the CLI's forked processes, or
    `InProcessWorkers`); each keeps the nodes it found between levels and the run's
    coordinator merges their findings in frontier order (`_research/_explore_coordinator`),
    so `shards`, `map_shards` and `run` do not apply. `rounds`: how many calls each level's
    expansion is cut into (a caller's `Workers` can stop between calls). `fingerprint`: what
    workers tell states apart by before the coordinator compares the rest by value (equal
    states must have equal fingerprints in every worker; tests pass a coarse one to force
    those comparisons). The results are the same as one process's.

    `checks`: a researcher's own checks (`Check`), each a pure function handed every reached
    run as a `PairRun` (its path, `PairState` and both recordings) that returns a message
    per thing it finds wrong. Each message is a violation under the function's `__name__`
    (`Counterexample.rule`; `side` `agent`, `entries` the agent's recording), reported
    once, with its shortest path, and a state it is found in is not expanded, like a
    broken rule. Without checks nothing changes; a check that finds nothing changes no
    state or transition count. On workers or shards in other processes a check must
    pickle (a module's top-level function).
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
    options = Options(revision.name, sessions, only, should, symmetry, run, checks=tuple(checks))
    if workers is not None:
        if rounds < 1 or map_shards is not _serial_map:
            raise ArgumentError("explore on workers needs rounds >= 1 and no map_shards")
        yield from walk(workers, options, depth, fingerprint, rounds)
        return
    root, _ = judged(None, initial_node(revision, sessions), revision, should, options.checks)
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
    workers: Workers | None = None,
    rounds: int = 1,
    fingerprint: Fingerprint = hash,
    checks: Iterable[Check] = (),
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
        workers=workers,
        rounds=rounds,
        fingerprint=fingerprint,
        checks=checks,
    ):
        last = level
    return ExploreResult(last.states, last.transitions, last.depth, last.violations)
