"""The persistent workers of a parallel `explore` run: what each keeps, and what it answers.

Owns: `LevelWorker` (one worker's share of a run, kept between levels: its frontier, with
the checker states and cached hashes its nodes were built with; every state it knows to be
reached; this level's candidates), `WorkerHost` (a request -> its answer: what a worker
process runs, and a `start` makes a fresh worker for each run), the `Workers` protocol (what
the coordinator calls: one request per worker, answers in worker order) and
`InProcessWorkers` (every worker in this process, requests and answers pickled as between
processes).
Must not know: the merge and its order (`_research/_explore_coordinator.py`), processes
(`_cli/_cli_processes.py`).

Why workers keep state: a state shipped to another process arrives without its cached
hashes (hashing a copy costs about 20 times what hashing the original does) and without its
checker states (rebuilt from the whole recording), so a state that crosses processes every
level costs more than expanding it. Here a node stays with the worker that found it; what
crosses is small: per successor an int, per new state its fingerprint and violations, and,
for the few fingerprints that two workers share, the states themselves, compared by value.
"""

from __future__ import annotations

import pickle
from collections.abc import Callable, Sequence
from typing import Any, Protocol

import attrs

from acp_core._errors import ArgumentError
from acp_core._wire._revision import REVISIONS

from ._explore_judge import Options, judged
from ._explore_model import initial_node, successors
from ._explore_values import Counterexample, Node, PairState

__all__ = [
    "Fingerprint",
    "InProcessWorkers",
    "LevelWorker",
    "Request",
    "WorkerHost",
    "Workers",
]

#: A state's fingerprint: equal states have equal fingerprints in every worker of a run
#: (the default, `hash`, holds that across processes forked from one interpreter).
Fingerprint = Callable[[PairState], int]

#: A call of one worker: a `LevelWorker` method's name and its arguments.
Request = tuple[str, tuple[Any, ...]]

#: What `expand` answers: per node expanded, its successors as candidate ids (-1: a state
#: this worker knows is reached); per candidate made, its fingerprint and violations.
Expanded = tuple[list[list[int]], list[tuple[int, tuple[Counterexample, ...]]]]


class LevelWorker:
    """One worker's share of a breadth-first run (mutable: it lives in one process)."""

    def __init__(self, options: Options, index: int, fingerprint: Fingerprint = hash) -> None:
        self.options = options
        self.revision = REVISIONS[options.revision]
        self.fingerprint = fingerprint
        root = initial_node(self.revision, options.sessions)
        self.root_fingerprint = fingerprint(root.state)
        #: This level's nodes as (position in the run's frontier, node), by position.
        self.frontier: list[tuple[int, Node]] = []
        #: Every state this worker knows to be reached, by fingerprint.
        self.known: dict[int, list[PairState]] = {}
        #: This level's new states: (node, fingerprint, violations), in the order found.
        self.candidates: list[tuple[Node, int, tuple[Counterexample, ...]]] = []
        self._candidate_ids: dict[int, list[int]] = {}
        self._cursor = 0
        if index == 0:
            judged_root = judged(None, root, self.revision, options.should, options.checks)[0]
            self.frontier = [(0, judged_root)]
            self._know(root.state, self.root_fingerprint)

    def _know(self, state: PairState, fp: int) -> None:
        self.known.setdefault(fp, []).append(state)

    def _is_known(self, state: PairState, fp: int) -> bool:
        return any(state == other for other in self.known.get(fp, ()))

    def _candidate(self, state: PairState, fp: int) -> int | None:
        for cid in self._candidate_ids.get(fp, ()):
            if self.candidates[cid][0].state == state:
                return cid
        return None

    def hello(self) -> int:
        """The root state's fingerprint: the coordinator checks every worker agrees."""
        return self.root_fingerprint

    def expand(self, limit: int) -> Expanded:
        """Expand the next `limit` nodes of the frontier (in position order): each successor
        this worker already knows is reached is -1; a new one is judged once and becomes a
        candidate (one id per distinct state, however many nodes reach it here)."""
        options, revision = self.options, self.revision
        rows: list[list[int]] = []
        first = len(self.candidates)
        end = min(len(self.frontier), self._cursor + max(limit, 1))
        for _, node in self.frontier[self._cursor : end]:
            row: list[int] = []
            for _, successor in successors(node, options.sessions, options.only, options.symmetry):
                state = successor.state
                fp = self.fingerprint(state)
                if self._is_known(state, fp):
                    row.append(-1)
                    continue
                cid = self._candidate(state, fp)
                if cid is None:
                    reached, violations = judged(
                        node, successor, revision, options.should, options.checks
                    )
                    cid = len(self.candidates)
                    self.candidates.append((reached, fp, violations))
                    self._candidate_ids.setdefault(fp, []).append(cid)
                row.append(cid)
            rows.append(row)
        self._cursor = end
        made = [(fp, violations) for _, fp, violations in self.candidates[first:]]
        return rows, made

    def states(
        self, fingerprints: Sequence[int]
    ) -> dict[int, tuple[list[PairState], list[tuple[int, PairState]]]]:
        """Per fingerprint: the states of earlier levels this worker knows, and this level's
        candidates (id, state) with it (what the coordinator compares by value)."""
        return {
            fp: (
                list(self.known.get(fp, ())),
                [(cid, self.candidates[cid][0].state) for cid in self._candidate_ids.get(fp, ())],
            )
            for fp in fingerprints
        }

    def commit(self, keep: Sequence[tuple[int, int]]) -> int:
        """End the level: every candidate is reached (here or by another worker first); the
        candidates `keep` names, as (id, position), are the next level's frontier."""
        for node, fp, _ in self.candidates:
            self._know(node.state, fp)
        self.frontier = [(position, self.candidates[cid][0]) for cid, position in keep]
        self.frontier.sort(key=lambda item: item[0])
        self.candidates, self._candidate_ids, self._cursor = [], {}, 0
        return len(self.frontier)

    def give(self, positions: Sequence[int]) -> list[tuple[int, Node, Any]]:
        """Hand the nodes at `positions` over, with their checker states (to balance the
        workers: unpickling a checker state costs a quarter of rebuilding it, measured ten
        steps deep)."""
        wanted = set(positions)
        given = [(p, node, node.checks) for p, node in self.frontier if p in wanted]
        self.frontier = [item for item in self.frontier if item[0] not in wanted]
        return given

    def take(self, nodes: Sequence[tuple[int, Node, Any]]) -> int:
        """Take the nodes another worker gave (`give`)."""
        for position, node, checks in nodes:
            self.frontier.append((position, attrs.evolve(node, checks=checks)))
            self._know(node.state, self.fingerprint(node.state))
        self.frontier.sort(key=lambda item: item[0])
        return len(self.frontier)


class WorkerHost:
    """Answers requests for one worker; `start` begins a run with a fresh `LevelWorker`."""

    def __init__(self) -> None:
        self.worker: LevelWorker | None = None

    def handle(self, request: Request) -> Any:
        name, args = request
        if name == "start":
            self.worker = LevelWorker(*args)
            return self.worker.hello()
        if self.worker is None or name not in _METHODS:
            raise ArgumentError(f"a worker answers {sorted(_METHODS)} after start, not {name!r}")
        return getattr(self.worker, name)(*args)


_METHODS = frozenset({"expand", "states", "commit", "give", "take"})


class Workers(Protocol):
    """What the coordinator of a parallel run calls: `call` sends one request to each worker
    (request i to worker i), runs them side by side, and returns the answers in worker
    order. Worker 0 may be the coordinator's own process."""

    @property
    def size(self) -> int: ...

    def call(self, requests: Sequence[Request]) -> list[Any]: ...


class InProcessWorkers:
    """`size` workers in this process, one after another; every request and answer except
    worker 0's is pickled and unpickled, as between processes (so what a process pool would
    lose on the way, cached hashes and checker states, is lost here too)."""

    def __init__(self, size: int) -> None:
        if size < 1:
            raise ArgumentError("InProcessWorkers needs size >= 1")
        self.hosts = [WorkerHost() for _ in range(size)]

    @property
    def size(self) -> int:
        return len(self.hosts)

    def call(self, requests: Sequence[Request]) -> list[Any]:
        answers = []
        for index, (host, request) in enumerate(zip(self.hosts, requests, strict=True)):
            if index == 0:
                answers.append(host.handle(request))
            else:
                answer = host.handle(pickle.loads(pickle.dumps(request)))
                answers.append(pickle.loads(pickle.dumps(answer)))
        return answers
