"""The context of one normalizer step: output buffers and the state being rebuilt.

Owns: `Step` (emit an update or event, report a diagnostic, read and replace one session's
state, decode a v2-shaped payload leniently, keep an unreadable update raw), the boundary
rule applied to non-chunk updates (`end_runs`), and what the turn's phase is: every emitted
update passes the session's conversation machine (`in_turn`, `prompt_open` read it and the
outstanding requests; nothing here tracks the turn a second time).
Must not know: what any message means (`_v1/_normalize.py`, `_v1/_v1_messages.py`,
`_v1/_v1_turn.py`).

A `Step` is created by `normalize_v1_step`, filled, read and dropped within that one call,
so the step stays pure to its callers.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import attrs

from acp_core._errors import DecodeError, Diagnostic
from acp_core._rules._conversation import Conversation, Phase, observe_update
from acp_core._state._pcoll import PMap
from acp_core._wire._codec import decode_update_diagnosed
from acp_core._wire._json import freeze_json
from acp_core._wire._updates import OtherUpdate, SessionUpdate

from ._v1_policy import INVALID_MESSAGE, INVALID_UPDATE
from ._v1_state import (
    NEW_SESSION,
    OTHER,
    PLAN,
    TOOL,
    TURN,
    NormalizedEvent,
    NormalizedUpdate,
    V1Session,
    V1State,
)

__all__ = ["Step"]

_NO_RUNS: Final[PMap[str, Any]] = PMap()
_IDLE: Final = Conversation.start()  # a session the normalizer has emitted nothing for
_NOT_IN_TURN: Final = frozenset({Phase.IDLE, Phase.UNKNOWN})


class Step:
    """Accumulates one step's output; local to one call, never shared or returned."""

    def __init__(self, state: V1State, index: int) -> None:
        self.policy = state.policy
        self.sessions = state.sessions
        self.requests = state.requests
        self.machines = state.machines
        self.index = index
        self.updates: list[NormalizedUpdate] = []
        self.events: list[NormalizedEvent] = []
        self.diags: list[Diagnostic] = []

    # -- plumbing

    def emit(self, sid: str, update: SessionUpdate) -> None:
        self.updates.append(NormalizedUpdate(sid, update, self.index))
        # The machine follows the v2 stream as emitted; what it finds is the checker's to
        # report on the output, not the normalizer's.
        machine = self.machines.get(sid, _IDLE)
        after, _ = observe_update(machine, update)
        if after is not machine:
            self.machines = self.machines.set(sid, after)

    def in_turn(self, sid: str) -> bool:
        """Whether the v2 stream emitted for `sid` shows foreground work (running or
        blocked): the machine's phase."""
        return self.machines.get(sid, _IDLE).phase not in _NOT_IN_TURN

    def prompt_open(self, sid: str) -> bool:
        """Whether a prompt of `sid` still awaits its result."""
        return any(p.kind == "prompt" and p.session_id == sid for p in self.requests.values())

    def event(self, sid: str, event: Any) -> None:
        self.events.append(NormalizedEvent(sid, event, self.index))

    def diag(self, rule: str, path: str, message: str) -> None:
        self.diags.append(Diagnostic(rule, path, message))

    def get(self, sid: str) -> V1Session:
        return self.sessions.get(sid, NEW_SESSION)

    def put(self, sid: str, session: V1Session) -> None:
        self.sessions = self.sessions.set(sid, session)

    def decode(self, wire: dict[str, Any], path: str) -> SessionUpdate | None:
        """Decode a v2-shaped update leniently; codec findings keep their paths."""
        try:
            decoded = decode_update_diagnosed(wire)
        except DecodeError as e:
            self.diag(INVALID_UPDATE, path + e.path[1:], f"not representable in v2: {e}")
            return None
        for d in decoded.diagnostics:
            self.diag(d.rule, path + d.path[1:], d.message)
        return decoded.value

    def keep_raw(self, sid: str, update: Mapping[str, Any], path: str) -> None:
        try:
            raw = freeze_json(update)
        except DecodeError as e:
            self.diag(INVALID_MESSAGE, path, f"update skipped: {e}")
            return
        assert isinstance(raw, PMap)
        self.emit(sid, OtherUpdate(raw))

    def end_runs(self, sid: str, category: str) -> None:
        """A non-chunk update or a turn boundary: forget runs if the policy says so."""
        session = self.get(sid)
        boundary = self.policy.boundary
        ends = {
            TOOL: boundary.tool_calls,
            PLAN: boundary.plans,
            OTHER: boundary.other_updates,
            TURN: True,
        }[category]
        echo = session.echo
        if category in (TOOL, TURN):
            # The agent is at work (or the turn is over): user chunks are no echo from now on.
            # Plans and metadata are not work on the reply; they leave the window open.
            echo = None
        runs = _NO_RUNS if ends and session.runs else session.runs
        if runs is not session.runs or echo is not session.echo:
            self.put(sid, attrs.evolve(session, runs=runs, echo=echo))

    def emit_decoded(
        self, sid: str, wire: dict[str, Any], original: Mapping[str, Any], path: str
    ) -> None:
        """Emit a v2-shaped payload; keep the v1 original raw if it does not decode."""
        decoded = self.decode(wire, path)
        if decoded is None:
            self.keep_raw(sid, original, path)
        else:
            self.emit(sid, decoded)
