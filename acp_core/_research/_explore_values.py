"""The values of the `explore` model: the pair's state, each end's recording, a reached node.

Owns: `PairState` (both connections and the lines in flight each way, a frozen value: equal
states are the same state), `Recording` (what each end sent and read, in its own order: the
traces the checker judges; path data, not part of the state), `Node`, `Counterexample`
(a violation with its path) and `ExploreLevel` (what `explore` reports after each level).
Must not know: the alphabet or the search (`_research/_explore_model.py`, `explore.py`).
"""

from __future__ import annotations

import json
from typing import Any

import attrs

from acp_core._engines._connection_agent import AgentConnection
from acp_core._engines._connection_client_state import ClientConnection

__all__ = ["Counterexample", "Entry", "ExploreLevel", "Node", "PairState", "Recording"]

Entry = dict[str, Any]


@attrs.frozen
class PairState:
    """Both connections and the NDJSON lines in flight, oldest first, each way."""

    agent: AgentConnection
    client: ClientConnection
    to_agent: tuple[bytes, ...] = ()
    to_client: tuple[bytes, ...] = ()


@attrs.frozen
class Recording:
    """Each end's own recording: what it sent and read, in the order it did (checker traces).

    Entries are the encoded lines (hashable, cheap to ship); `agent_trace`/`client_trace`
    decode them into the checker's `{"from", "message"}` entries.
    """

    agent: tuple[tuple[str, bytes], ...] = ()
    client: tuple[tuple[str, bytes], ...] = ()

    def agent_trace(self) -> list[Entry]:
        return [{"from": side, "message": json.loads(line)} for side, line in self.agent]

    def client_trace(self) -> list[Entry]:
        return [{"from": side, "message": json.loads(line)} for side, line in self.client]


@attrs.frozen
class Node:
    """A reached state, the recording of the path that reached it first, and that path.

    `checks`: what the explorer's judge made of the recording so far (opaque to the model,
    not part of the state; None until judged)."""

    state: PairState
    recording: Recording
    path: tuple[str, ...] = ()
    checks: Any = attrs.field(default=None, eq=False, repr=False)

    def __reduce__(self) -> tuple[type[Node], tuple[PairState, Recording, tuple[str, ...]]]:
        # Shipped to another process without its checks (the receiver rebuilds them from
        # the recording, once): they double a node's pickle, and rebuilding them costs
        # about what unpickling them would (measured at depth 9).
        return Node, (self.state, self.recording, self.path)


@attrs.frozen
class Counterexample:
    """A violation and the shortest path found to it.

    Attributes:
        rule: the rule id (`docs/rules.md`), or `replay-law`.
        message: what broke.
        path: the actions from the initial state (initialize + sessions open, delivered).
        side: whose recording shows it (`agent` or `client`).
        entries: that recording, as checker entries (`{"from", "message"}`): a trace file
            `check` and `replay` accept, one entry a line.
        level: the rule's level (`MUST`, ..., `SHOULD NOT`; the replay law is a `MUST`).
    """

    rule: str
    message: str
    path: tuple[str, ...]
    side: str
    entries: tuple[Any, ...]
    level: str = "MUST"


@attrs.frozen
class ExploreLevel:
    """One breadth-first level: what was known once every state at `depth - 1` was expanded."""

    depth: int
    states: int
    transitions: int
    frontier: int
    violations: tuple[Counterexample, ...]
