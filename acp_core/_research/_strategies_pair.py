"""Hypothesis strategies over the `explore` model: whole conversations of a connection pair.

Owns: `PairRun` (a program of the pair: the actions taken and both ends' recordings),
`pair_runs` (programs of enabled actions only, so every drawn run reaches a real state:
prompts accepted, tools asked about, cancels and deliveries racing), `traces` (one end's
recording of such a run: a whole conversation at a revision, as checker entries) and
`enabled_intents` (the intents the model's alphabet enables in a given pair state, each one
the connection accepts).
Must not know: the search (`explore.py`); hypothesis is imported here only, as in every
strategies module (the `strategies` extra).
"""

from __future__ import annotations

from typing import Any

import attrs
from hypothesis import strategies as st

from acp_core._engines._connection import connection_step
from acp_core._errors import AcpError, ArgumentError
from acp_core._wire._revision import DEFAULT_REVISION, Revision

from ._explore_model import ACTIONS, Node, PairState, initial_node, session_ids, successors

__all__ = ["EnabledIntent", "PairRun", "enabled_intents", "pair_runs", "traces"]


@attrs.frozen
class PairRun:
    """A run of the pair: the actions (`explore`'s labels), the state reached, and each end's
    recording as checker entries (`{"from", "message"}`; judge agent rules on `agent_trace`,
    client rules on `client_trace`)."""

    path: tuple[str, ...]
    state: PairState
    agent_trace: tuple[Any, ...]
    client_trace: tuple[Any, ...]


def _run(node: Node, choices: list[int], sessions: int) -> PairRun:
    for choice in choices:
        options = list(successors(node, sessions))
        if not options:
            break
        node = options[choice % len(options)][1]
    rec = node.recording
    return PairRun(node.path, node.state, tuple(rec.agent_trace()), tuple(rec.client_trace()))


def pair_runs(
    *, revision: Revision = DEFAULT_REVISION, sessions: int = 1, max_steps: int = 12
) -> st.SearchStrategy[PairRun]:
    """Runs of up to `max_steps` enabled actions of an agent and a client connection (set up:
    initialized, `sessions` sessions open). Shrinks towards shorter runs and earlier actions."""
    root = initial_node(revision, sessions)
    return st.lists(st.integers(0, 31), max_size=max_steps).map(
        lambda choices: _run(root, choices, sessions)
    )


def traces(
    *,
    revision: Revision = DEFAULT_REVISION,
    sessions: int = 1,
    max_steps: int = 12,
    side: str = "client",
) -> st.SearchStrategy[tuple[Any, ...]]:
    """Whole conversations at `revision` as one end records them (`side`: `client` or
    `agent`), from `initialize` on: checker entries (`{"from", "message"}`) a `check_trace`,
    `replay` or a reader of traces takes. Each is a `pair_runs` recording, so it breaks no
    MUST rule (`explore` shows it for every run up to its depth)."""
    if side not in ("client", "agent"):
        raise ArgumentError(f"side is 'client' or 'agent', not {side!r}")
    runs = pair_runs(revision=revision, sessions=sessions, max_steps=max_steps)
    return runs.map(lambda run: run.client_trace if side == "client" else run.agent_trace)


@attrs.frozen
class EnabledIntent:
    """An intent the model enables: its label (`explore`'s), which end steps it (`agent` or
    `client`), and the intent (a `SessionIntent` or a connection intent)."""

    label: str
    side: str
    intent: Any


def _enabled(state: PairState, sessions: int) -> list[EnabledIntent]:
    found = []
    for sid in session_ids(sessions):
        for name, guard in ACTIONS:
            chosen = guard(state, sid)
            if chosen is None:
                continue
            side, intent = chosen
            try:
                connection_step(state.agent if side == "agent" else state.client, intent)
            except AcpError:
                continue
            found.append(EnabledIntent(f"{name} {sid}", side, intent))
    return found


def enabled_intents(state: PairState, *, sessions: int = 1) -> st.SearchStrategy[EnabledIntent]:
    """One of the intents valid in `state` (a `PairRun.state`): the alphabet's guard holds and
    the connection steps it without an `AcpError`. Empty (`st.nothing()`) when none is."""
    found = _enabled(state, sessions)
    return st.sampled_from(found) if found else st.nothing()
