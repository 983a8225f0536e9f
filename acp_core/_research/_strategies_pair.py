"""Hypothesis strategies over the `explore` model: whole conversations of a connection pair.

Owns: `PairRun` (a program of the pair: the actions taken and both ends' recordings) and
`pair_runs` (programs of enabled actions only, so every drawn run reaches a real state:
prompts accepted, tools asked about, cancels and deliveries racing).
Must not know: the search (`explore.py`); hypothesis is imported here only, as in every
strategies module (the `strategies` extra).
"""

from __future__ import annotations

from typing import Any

import attrs
from hypothesis import strategies as st

from acp_core._wire._revision import V2_2026_08, Revision

from ._explore_model import Node, PairState, initial_node, successors

__all__ = ["PairRun", "pair_runs"]


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
    *, revision: Revision = V2_2026_08, sessions: int = 1, max_steps: int = 12
) -> st.SearchStrategy[PairRun]:
    """Runs of up to `max_steps` enabled actions of an agent and a client connection (set up:
    initialized, `sessions` sessions open). Shrinks towards shorter runs and earlier actions."""
    root = initial_node(revision, sessions)
    return st.lists(st.integers(0, 31), max_size=max_steps).map(
        lambda choices: _run(root, choices, sessions)
    )
