"""What folding a recorded trace gives: its lines, what each changed, the folded result.

Owns: `TraceError`, `Line`, `Waiting`, `LineEffect` and `Replay` (values only).
Must not know: how a trace is folded (`_cli/_replay_fold.py`), printing, I/O.
"""

from __future__ import annotations

from typing import Any

import attrs

from acp_core._errors import Diagnostic
from acp_core._rules._predicates import shown
from acp_core._state._session_state import SessionState
from acp_core._wire._updates import SessionUpdate

__all__ = ["Line", "LineEffect", "Replay", "TraceError", "Waiting"]


class TraceError(Exception):
    """Bad input at a line of a trace (its 0-based line index, as in docs/trace-format.md);
    the CLI prints it and exits 2."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(index, reason)
        self.index = index
        self.reason = reason


@attrs.frozen
class Line:
    """One trace entry and the line it came from (0-based line index; blank lines count)."""

    index: int
    sender: str
    message: Any


@attrs.frozen
class Waiting:
    """A request waiting for the user: `kind` is `permission` or `input` (an elicitation)."""

    session_id: str
    request_id: object
    kind: str
    label: str

    def __str__(self) -> str:
        return f"{self.label} (request {shown(self.request_id)})"


@attrs.frozen
class LineEffect:
    """What one trace line changed: the updates folded (session id, update, in order), the
    requests that started or stopped waiting for the user, and the notes it raised."""

    line: Line
    updates: tuple[tuple[str, SessionUpdate], ...] = ()
    asked: tuple[Waiting, ...] = ()
    answered: tuple[Waiting, ...] = ()
    notes: tuple[Diagnostic, ...] = ()

    @property
    def touched(self) -> tuple[str, ...]:
        """The sessions whose state this line changed, in first-changed order."""
        return tuple(dict.fromkeys(sid for sid, _ in self.updates))


@attrs.frozen
class Replay:
    """A folded trace.

    Attributes:
        sessions: the state of each session (what the agent reported), in first-seen order.
        pending: per session, the requests still waiting for the user.
        notes: (line index, diagnostic) pairs from the decoder, the v1 normalizer or the
            client engine, in line order.
        steps: what each line changed (only when `replay_trace(..., steps=True)`).
        protocol: 1 when the trace was read as v1 traffic, else 2.
    """

    sessions: dict[str, SessionState]
    pending: dict[str, tuple[Waiting, ...]]
    notes: tuple[tuple[int, Diagnostic], ...]
    steps: tuple[LineEffect, ...]
    protocol: int
