"""The coordinator of a parallel `explore` run on persistent workers (`_explore_workers`).

Owns: the merge of a level in frontier order (which successor reaches a state first, so
which path a state keeps and which violation is reported first: exactly what one process
finds), deciding by value when two workers found states with one fingerprint, and keeping
the workers' shares of the frontier balanced.
Must not know: the alphabet or judging (the workers do both), processes (a `Workers`
runs the requests: `_cli/_cli_processes.py` forks, `InProcessWorkers` does not).

A level, in three calls of every worker: `expand` (in `rounds` calls; each worker expands its
share of the frontier and judges the successors new to it), `states` (only when some
fingerprint was found by two workers, or by one that is not the fingerprint's owner: those
states are compared by value here, never by fingerprint alone), `commit` (which candidates
are the next frontier, at which positions); then `give`/`take` when one worker's share
outgrows another's by more than a twentieth of the frontier.
"""

from __future__ import annotations

from collections.abc import Iterator, Sequence
from typing import Any

from acp_core._errors import ArgumentError

from ._explore_judge import Options
from ._explore_values import Counterexample, ExploreLevel, PairState
from ._explore_workers import Fingerprint, Workers

__all__ = ["walk"]

#: Per worker, per fingerprint: (earlier levels' states, this level's candidates by id).
Shipped = list[dict[int, tuple[list[PairState], dict[int, PairState]]]]


def walk(
    workers: Workers,
    options: Options,
    depth: int,
    fingerprint: Fingerprint = hash,
    rounds: int = 1,
) -> Iterator[ExploreLevel]:
    """Breadth-first on `workers`, yielding after each completed level (1..depth)."""
    size = workers.size
    hellos = workers.call([("start", (options, index, fingerprint)) for index in range(size)])
    if len(set(hellos)) != 1:
        raise ArgumentError(
            "the workers fingerprint the initial state differently (processes that do not "
            "share one hash seed: fork them from this one, or set PYTHONHASHSEED for all)"
        )
    owners: dict[int, tuple[int, ...]] = {hellos[0]: (0,)}  # fingerprint -> who reached it
    shares: list[list[int]] = [[0]] + [[] for _ in range(1, size)]  # positions, per worker
    seen, transitions = 1, 0
    found: dict[str, Counterexample] = {}
    for level in range(1, depth + 1):
        rows, made = _expand(workers, shares, rounds)
        contested = _contested(made, owners)
        shipped: Shipped = [{} for _ in range(size)]
        if contested:
            wanted = sorted(contested)
            shipped = [
                {fp: (known, dict(cands)) for fp, (known, cands) in answer.items()}
                for answer in workers.call([("states", (wanted,))] * size)
            ]
        keep: list[list[tuple[int, int]]] = [[] for _ in range(size)]
        decided: list[set[int]] = [set() for _ in range(size)]
        accepted: dict[int, list[tuple[int, PairState]]] = {}  # contested fp -> this level's
        position = 0
        for worker, index in _in_order(shares):
            for cid in rows[worker][index]:
                transitions += 1
                if cid < 0 or cid in decided[worker]:
                    continue
                decided[worker].add(cid)
                fp, violations = made[worker][cid]
                if fp in contested and _reached_elsewhere(worker, cid, fp, shipped, accepted):
                    continue
                seen += 1
                if worker not in owners.get(fp, ()):
                    owners[fp] = (*owners.get(fp, ()), worker)
                for v in violations:
                    found.setdefault(v.rule, v)
                if not violations:
                    keep[worker].append((cid, position))
                    position += 1
        workers.call([("commit", (keep[w],)) for w in range(size)])
        shares = [[p for _, p in kept] for kept in keep]
        if level < depth:  # the last level's frontier is not expanded: nothing to balance
            shares = _balanced(workers, shares)
        yield ExploreLevel(level, seen, transitions, position, tuple(found.values()))
        if not position:
            return


def _expand(
    workers: Workers, shares: list[list[int]], rounds: int
) -> tuple[list[list[list[int]]], list[list[tuple[int, tuple[Counterexample, ...]]]]]:
    # Each worker expands its share in `rounds` calls (so a caller can stop between them).
    size = len(shares)
    rows: list[list[list[int]]] = [[] for _ in range(size)]
    made: list[list[tuple[int, tuple[Counterexample, ...]]]] = [[] for _ in range(size)]
    limits = [max(1, -(-len(share) // rounds)) for share in shares]
    for _ in range(rounds):
        for worker, (r, m) in enumerate(workers.call([("expand", (n,)) for n in limits])):
            rows[worker].extend(r)
            made[worker].extend(m)
    return rows, made


def _contested(
    made: Sequence[Sequence[tuple[int, Any]]], owners: dict[int, tuple[int, ...]]
) -> set[int]:
    # A fingerprint found by two workers, or by one that did not reach the states of earlier
    # levels with it: only a comparison by value can say whether the states are one.
    finders: dict[int, set[int]] = {}
    for worker, candidates in enumerate(made):
        for fp, _ in candidates:
            finders.setdefault(fp, set()).add(worker)
    return {fp for fp, ws in finders.items() if len(ws.union(owners.get(fp, ()))) > 1}


def _reached_elsewhere(
    worker: int,
    cid: int,
    fp: int,
    shipped: Shipped,
    accepted: dict[int, list[tuple[int, PairState]]],
) -> bool:
    # Whether another worker holds a state equal to this candidate: one reached at an
    # earlier level, or one of this level accepted before it (in frontier order). A worker
    # never holds two equal states, so its own are not compared.
    state = shipped[worker][fp][1][cid]
    for other, by_fp in enumerate(shipped):
        if other != worker and fp in by_fp and state in by_fp[fp][0]:
            return True
    if any(other != worker and state == s for other, s in accepted.get(fp, ())):
        return True
    accepted.setdefault(fp, []).append((worker, state))
    return False


def _in_order(shares: list[list[int]]) -> list[tuple[int, int]]:
    # The frontier by position: (worker, index in that worker's share).
    total = sum(len(share) for share in shares)
    where: list[tuple[int, int]] = [(0, 0)] * total
    for worker, share in enumerate(shares):
        for index, position in enumerate(share):
            where[position] = (worker, index)
    return where


_RUN = 32


def _balanced(workers: Workers, shares: list[list[int]]) -> list[list[int]]:
    # Moves nodes from the largest share to the smallest while they differ by more than a
    # twentieth of the frontier. The nodes moved are runs of `_RUN` neighbours (neighbours
    # in the frontier are mostly siblings, which reach the same states: kept together,
    # those states are told apart in one worker, not compared across two) spread over the
    # giver's share, so no worker's share is the frontier's front: a state two workers
    # reach at one level is kept by the first in frontier order, and a share that comes
    # first would win every such state and keep growing.
    total = sum(len(share) for share in shares)
    size = len(shares)
    while True:
        big = max(range(size), key=lambda w: len(shares[w]))
        small = min(range(size), key=lambda w: len(shares[w]))
        gap, have = len(shares[big]) - len(shares[small]), len(shares[big])
        if gap <= max(1, total // 20):
            return shares
        count = gap // 2
        runs = -(-count // _RUN)
        picks = {
            j * have // runs + t
            for j in range(runs)
            for t in range(count // runs + (j < count % runs))
        }
        moved = [p for i, p in enumerate(shares[big]) if i in picks]
        gives: list[Any] = [("give", ([],))] * size
        gives[big] = ("give", (moved,))
        nodes = workers.call(gives)[big]
        takes: list[Any] = [("take", ([],))] * size
        takes[small] = ("take", (nodes,))
        workers.call(takes)
        shares[big] = [p for i, p in enumerate(shares[big]) if i not in picks]
        shares[small] = sorted(shares[small] + moved)
