"""Folding a recorded trace into sessions, line by line, through the client engine.

Owns: `Replayer` (one trace line at a time: what it changed), `replay_trace` and
`replay_lines`; the values they return (`Line`, `LineEffect`, `Waiting`, `Replay`) are in
`_cli/_replay_values.py`. Each session is watched by a client engine (`new_client`) used
as a passive observer: what the agent sent goes in as `Received(message)`, what the client
sent as the intent that would have sent it (`SendPrompt`, `SendCancel`, `AnswerPermission`),
its outbound messages dropped. The engine does the folding, T10 and the pending permission
requests; this module only routes each message to the engine of its session (by sessionId,
or for answers by the id of the request they answer) and says what each line changed. v1
traffic goes through the v1 normalizer first, one step per line.
Must not know: what updates mean (the reducers, through the engine), printing, I/O.
"""

from __future__ import annotations

import itertools
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final

import attrs

from acp_core._engines._client import ClientEngine, client_step, new_client
from acp_core._engines._intents import AnswerPermission, Received, SendCancel, SendPrompt
from acp_core._errors import AcpError, DecodeError, Diagnostic
from acp_core._rules._predicates import RequestKey, request_key
from acp_core._v1._normalize import normalize_v1_step
from acp_core._v1._v1_detect import looks_like_v1
from acp_core._v1._v1_state import V1State, new_v1_state
from acp_core._wire._codec import decode_message_diagnosed, decode_permission_result
from acp_core._wire._jsonrpc import (
    Batch,
    CancelRequestNotification,
    CancelSessionNotification,
    ErrorResponse,
    InvalidEntry,
    Message,
    PromptRequest,
    RequestPermissionRequest,
    Response,
    SelectedOutcome,
    ToolCallPermissionSubject,
    UpdateSessionNotification,
)
from acp_core._wire._revision import DEFAULT_REVISION, Revision
from acp_core._wire._updates import SessionUpdate

from ._replay_values import Line, LineEffect, Replay, TraceError, Waiting

__all__ = [
    "Line",
    "LineEffect",
    "Replay",
    "Replayer",
    "TraceError",
    "Waiting",
    "detect_protocol",
    "replay_lines",
    "replay_trace",
]

#: Rule id of a note about a message the client engine refused (the engine's rule follows).
REFUSED = "replay.refused"
#: Lines `replay_lines` reads to detect v1 traffic before it folds any (a negotiated
#: `protocolVersion` in them decides; else the evidence of these lines is weighed): what
#: streaming holds beyond the state.
DETECT_LINES: Final = 1_000
#: v1 requests that wait for the user, as `replay` lists them.
_V1_WAITING = {"permission": "permission", "elicitation": "input"}


def detect_protocol(lines: Sequence[Line]) -> int:
    """1 if the lines look like v1 traffic, else 2."""
    return 1 if looks_like_v1({"message": line.message} for line in lines) else 2


class _Effect:
    """One line's changes under construction (local to one `Replayer.line` call)."""

    def __init__(self) -> None:
        self.updates: list[tuple[str, SessionUpdate]] = []
        self.asked: list[Waiting] = []
        self.answered: list[Waiting] = []
        self.notes: list[Diagnostic] = []


class Replayer:
    """Folds a trace one line at a time (mutable, local to one replay; values go out)."""

    def __init__(self, protocol: int = 2, revision: Revision = DEFAULT_REVISION) -> None:
        self.protocol = protocol
        self.revision = revision
        self.engines: dict[str, ClientEngine] = {}
        self.notes: list[tuple[int, Diagnostic]] = []
        # Routing only (a transport's job, Q12): which session a request belongs to, so that
        # its answer reaches the same engine.
        self._prompted: dict[RequestKey, str] = {}
        self._asked: dict[RequestKey, str] = {}
        self._v1: V1State = new_v1_state()
        self._entries = 0

    # -- reading one line

    def line(self, line: Line) -> LineEffect:
        """Fold one line; what it changed.

        Raises:
            TraceError: a v2 message does not decode.
        """
        effect = _Effect()
        if self.protocol == 1:
            self._v1_line(line, effect)
        else:
            self._v2_line(line, effect)
        self.notes.extend((line.index, d) for d in effect.notes)
        return LineEffect(
            line,
            tuple(effect.updates),
            tuple(effect.asked),
            tuple(effect.answered),
            tuple(effect.notes),
        )

    def _v2_line(self, line: Line, effect: _Effect) -> None:
        try:
            decoded = decode_message_diagnosed(line.message, revision=self.revision)
        except DecodeError as e:
            raise TraceError(line.index, f"not an ACP v2 message: {e}") from None
        except RecursionError:
            raise TraceError(line.index, "message nested too deeply to decode") from None
        effect.notes.extend(decoded.diagnostics)
        value = decoded.value
        for item in value.items if isinstance(value, Batch) else (value,):
            if isinstance(item, InvalidEntry):
                raise TraceError(
                    line.index,
                    f"batch entry not an ACP v2 message: expected {item.expected} @ {item.path}",
                )
            if line.sender == "agent":
                self._from_agent(item, effect)
            else:
                self._from_client(item, effect)

    def _from_agent(self, message: Message, effect: _Effect) -> None:
        sid: str | None = None
        if isinstance(message, UpdateSessionNotification):
            sid = message.session_id
            effect.updates.append((sid, message.update))
        elif isinstance(message, RequestPermissionRequest):
            sid = message.session_id
            self._asked[request_key(message.id)] = sid
            if isinstance(message.subject, ToolCallPermissionSubject):
                effect.updates.append((sid, message.subject.tool_call))  # T10
        elif isinstance(message, CancelRequestNotification):
            sid = self._asked.get(request_key(message.request_id))
        elif isinstance(message, (Response, ErrorResponse)):
            sid = self._prompted.get(request_key(message.id))
        if sid is not None:
            self._feed(sid, Received(message), effect)

    def _from_client(self, message: Message, effect: _Effect) -> None:
        if isinstance(message, PromptRequest):
            self._prompted[request_key(message.id)] = message.session_id
            intent = SendPrompt(message.prompt, message.id, message.meta)
            self._feed(message.session_id, intent, effect)
        elif isinstance(message, CancelSessionNotification):
            self._feed(message.session_id, SendCancel(), effect)
        elif isinstance(message, (Response, ErrorResponse)):
            sid = self._asked.pop(request_key(message.id), None)
            if sid is not None:
                self._answer(sid, message, effect)

    def _answer(self, sid: str, message: Response | ErrorResponse, effect: _Effect) -> None:
        """The client answered a permission request of session `sid`."""
        engine = self._engine(sid)
        if message.id not in engine.pending:
            return  # already answered (cancelled by the engine on `session/cancel`, C15)
        option = None
        if isinstance(message, Response):
            try:
                outcome = decode_permission_result(message.result).outcome
            except AcpError:
                outcome = None
            if isinstance(outcome, SelectedOutcome):
                option = outcome.option_id
        if option is not None and self._feed(sid, AnswerPermission(message.id, option), effect):
            return
        # Answered otherwise (cancelled, an error, an option not offered): the engine has no
        # intent for a user who dismisses a request, so the request stops waiting here.
        self._set(sid, attrs.evolve(engine, pending=engine.pending.delete(message.id)), effect)

    # -- v1

    def _v1_line(self, line: Line, effect: _Effect) -> None:
        before = self._v1.requests
        self._v1, out = normalize_v1_step(
            self._v1, line.message, sender=line.sender, index=self._entries
        )
        self._entries += 1
        effect.notes.extend(out.diagnostics)
        for item in out.updates:
            effect.updates.append((item.session_id, item.update))
            self._feed(
                item.session_id,
                Received(UpdateSessionNotification(item.session_id, item.update)),
                effect,
            )
        after = self._v1.requests
        if after is not before:
            for key, pending in before.items():
                if key not in after and pending.kind in _V1_WAITING:
                    effect.answered.append(_v1_waiting(pending))
            for key, pending in after.items():
                if key not in before and pending.kind in _V1_WAITING:
                    effect.asked.append(_v1_waiting(pending))

    # -- the engines

    def _engine(self, sid: str) -> ClientEngine:
        engine = self.engines.get(sid)
        if engine is None:
            engine = self.engines[sid] = new_client(sid, revision=self.revision)
        return engine

    def _feed(self, sid: str, intent: object, effect: _Effect) -> bool:
        """Step the session's engine; a refusal is a note and leaves the engine as it was."""
        engine = self._engine(sid)
        try:
            new, _ = client_step(engine, intent)
        except AcpError as e:
            effect.notes.append(Diagnostic(REFUSED, "$", f"the client engine refused it: {e}"))
            return False
        self._set(sid, new, effect)
        return True

    def _set(self, sid: str, new: ClientEngine, effect: _Effect) -> None:
        old = self.engines[sid].pending
        self.engines[sid] = new
        if new.pending is old:
            return
        for request_id, request in old.items():
            if request_id not in new.pending:
                effect.answered.append(_v2_waiting(sid, request))
        for request_id, request in new.pending.items():
            if request_id not in old:
                effect.asked.append(_v2_waiting(sid, request))

    # -- the result

    def pending(self) -> dict[str, tuple[Waiting, ...]]:
        """Per session, the requests still waiting for the user."""
        if self.protocol == 1:
            requests = self._v1.requests
            return {
                sid: tuple(_v1_waiting(requests[key]) for key in session.waiting)
                for sid, session in self._v1.sessions.items()
                if session.waiting
            }
        return {
            sid: tuple(_v2_waiting(sid, r) for r in engine.pending.values())
            for sid, engine in self.engines.items()
            if len(engine.pending)
        }

    def result(self, steps: Iterable[LineEffect] = ()) -> Replay:
        sessions = {sid: engine.session for sid, engine in self.engines.items()}
        notes = tuple(sorted(self.notes, key=lambda n: n[0]))
        return Replay(sessions, self.pending(), notes, tuple(steps), self.protocol)


def _v2_waiting(sid: str, request: RequestPermissionRequest) -> Waiting:
    return Waiting(sid, request.id, "permission", request.title)


def _v1_waiting(pending: Any) -> Waiting:
    return Waiting(
        pending.session_id, pending.request_id, _V1_WAITING[pending.kind], pending.label or ""
    )


def replay_trace(
    lines: Sequence[Line],
    *,
    protocol: int | None = None,
    revision: Revision = DEFAULT_REVISION,
    steps: bool = False,
) -> Replay:
    """Fold parsed trace lines into sessions (pure).

    Args:
        lines: from `parse_trace`.
        protocol: 2 (v2 traffic), 1 (v1 traffic, through the v1 normalizer), or None to
            detect v1 traffic.
        revision: the v2 revision the client engine follows (`_meta` patches merge in 2026-11).
        steps: keep what each line changed in `Replay.steps`.

    Raises:
        TraceError: a v2 message does not decode.
    """
    effects: list[LineEffect] = []
    replay = replay_lines(
        lines,
        protocol=detect_protocol(lines) if protocol is None else protocol,
        revision=revision,
        on_step=effects.append if steps else None,
    )
    return attrs.evolve(replay, steps=tuple(effects))


def replay_lines(
    lines: Iterable[Line],
    *,
    protocol: int | None = None,
    revision: Revision = DEFAULT_REVISION,
    on_step: Callable[[LineEffect], object] | None = None,
    on_protocol: Callable[[int], object] | None = None,
) -> Replay:
    """Fold trace lines as they come (pure; what it holds is the sessions' state, the notes
    and, to detect v1 traffic when `protocol` is None, the first `DETECT_LINES` lines).

    `on_step(effect)` is called with what each line changed as soon as it is folded (the
    `Replay` keeps no steps); `on_protocol(p)` once the protocol is known, before any step.

    Raises:
        TraceError: a v2 message does not decode (the lines before it were folded).
    """
    rest = iter(lines)
    head: list[Line] = []
    if protocol is None:
        head = list(itertools.islice(rest, DETECT_LINES))
        protocol = detect_protocol(head)
    if on_protocol is not None:
        on_protocol(protocol)
    replayer = Replayer(protocol, revision)
    for line in itertools.chain(head, rest):
        effect = replayer.line(line)
        if on_step is not None:
            on_step(effect)
    head.clear()
    return replayer.result()
