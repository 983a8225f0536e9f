"""A run of the `explore` model as a public value, and the hard parts of the protocol it reached.

Owns: `PairRun` (the actions taken, the state reached and each end's recording as checker
entries: what `pair_runs` draws and what an `explore` check is handed), `FEATURES` and
`run_features` (which of the protocol's hard parts a run reached: cancels, permission
requests and each of their outcomes, closes, resumes, retries, children).
Must not know: hypothesis, the search (`explore.py`); it reads actions by their labels only.
"""

from __future__ import annotations

from typing import Any

import attrs

from ._explore_values import Node, PairState

__all__ = ["FEATURES", "PairRun", "pair_run_of", "run_features"]

#: The hard parts `run_features` names, each with what shows it in a run.
FEATURES: tuple[tuple[str, str], ...] = (
    ("cancel", "the client sent a cancel (`cancel`)"),
    ("permission", "the agent asked for a permission (`ask`)"),
    ("granted", "the client granted one (`allow`)"),
    ("denied", "the client denied one (`deny`)"),
    ("cancelled", "the client answered one `cancelled` (a cancel or a withdrawal over it)"),
    ("withdrawn", "the agent withdrew one (`withdraw`)"),
    ("close", "the client closed a session (`close`)"),
    ("resume", "the client resumed a session, with replay (`resume`)"),
    ("retry", "the client retried a keyed prompt (`retry`; the Preview)"),
    ("child", "the agent announced a child session (`announce`; the Preview)"),
)

_BY_ACTION = {
    "cancel": "cancel",
    "ask": "permission",
    "allow": "granted",
    "deny": "denied",
    "withdraw": "withdrawn",
    "close": "close",
    "resume": "resume",
    "retry": "retry",
    "announce": "child",
}


@attrs.frozen
class PairRun:
    """A run of the pair: the actions (`explore`'s labels), the state reached, and each end's
    recording as checker entries (`{"from", "message"}`; judge agent rules on `agent_trace`,
    client rules on `client_trace`). `features()` names the hard parts it reached."""

    path: tuple[str, ...]
    state: PairState
    agent_trace: tuple[Any, ...]
    client_trace: tuple[Any, ...]

    def features(self) -> frozenset[str]:
        """The hard parts this run reached (`run_features`)."""
        return run_features(self)


def _answered_cancelled(entry: Any) -> bool:
    message = entry.get("message")
    if entry.get("from") != "client" or not isinstance(message, dict):
        return False
    result = message.get("result")
    outcome = result.get("outcome") if isinstance(result, dict) else None
    return isinstance(outcome, dict) and outcome.get("outcome") == "cancelled"


def run_features(run: PairRun) -> frozenset[str]:
    """Which of `FEATURES` `run` reached: from its actions, and for a permission answered
    `cancelled` (which the client's connection sends on its own), from the client's
    recording."""
    found = {
        _BY_ACTION[name]
        for name in (label.split(" ")[0] for label in run.path)
        if name in _BY_ACTION
    }
    if any(_answered_cancelled(entry) for entry in run.client_trace):
        found.add("cancelled")
    return frozenset(found)


def pair_run_of(node: Node) -> PairRun:
    """The public value of a reached node (its recordings decoded into checker entries)."""
    rec = node.recording
    return PairRun(node.path, node.state, tuple(rec.agent_trace()), tuple(rec.client_trace()))
