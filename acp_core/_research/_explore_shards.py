"""What a shard of an `explore` level is cut from and sent back as, between processes.

Owns: `shard_of` (which contiguous run of the frontier a node belongs to) and the packing of
a shard's expansions for the trip back (`pack_expansions` / `unpack_expansions`: only the
lines each action added, since a successor's recording starts with its parent's).
Must not know: the alphabet, judging, executors (`explore.py` owns the search).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any

import attrs

from ._explore_values import Counterexample, Node, PairState

__all__ = ["Expansion", "Packed", "Task", "pack_expansions", "shard_of", "unpack_expansions"]

#: What `expand_shard` returns for one node: (label, successor, its violations); the
#: successor is None when its state is known to be reached already (a transition, no more).
Expansion = list[tuple[str, "Node | None", tuple[Counterexample, ...]]]

#: One shard: the run's options (`explore.Options`) and the nodes to expand.
Task = tuple[Any, Sequence[Node]]


#: A shard's expansions packed for the trip back to the process that sent the shard:
#: each successor as (its state, the lines its action added to each recording).
Packed = list[list[tuple[str, "tuple[PairState, Any, Any] | None", tuple[Counterexample, ...]]]]


def pack_expansions(task: Task, results: list[Expansion]) -> Packed:
    """`results` without what the sender of `task` has already: a successor's recording
    starts with its parent's, and its path is its parent's and its label."""
    packed: Packed = []
    for parent, expansion in zip(task[1], results, strict=True):
        agent, client = len(parent.recording.agent), len(parent.recording.client)
        packed.append(
            [
                (
                    label,
                    None
                    if node is None
                    else (node.state, node.recording.agent[agent:], node.recording.client[client:]),
                    violations,
                )
                for label, node, violations in expansion
            ]
        )
    return packed


def unpack_expansions(task: Task, packed: Packed) -> list[Expansion]:
    """What `pack_expansions` packed, as `expand_shard` returned it (without checks)."""
    results: list[Expansion] = []
    for parent, expansion in zip(task[1], packed, strict=True):
        rec, path = parent.recording, parent.path
        results.append(
            [
                (
                    label,
                    None
                    if item is None
                    else Node(
                        item[0],
                        attrs.evolve(rec, agent=rec.agent + item[1], client=rec.client + item[2]),
                        (*path, label),
                    ),
                    violations,
                )
                for label, item, violations in expansion
            ]
        )
    return results


def shard_of(index: int, frontier: int, shards: int) -> int:
    """The shard of the `index`-th of `frontier` nodes: contiguous, balanced runs (nodes
    next to each other share most of their path, so a shard's pickles share structure).
    Which shard expands a node changes nothing but who does the work: results are merged
    in frontier order."""
    return index * shards // max(frontier, 1)
