"""Which session ids the agent may name: the sessions that exist on the connection (J3, J4,
J30).

Owns: `OpenSessions`, the checker's record of the sessions a recording set up (a
`session/new` or `session/fork` answer's `sessionId`, a `session/resume` request's, and at
the Preview every child a `subagent_update` announced), the J3 finding for an agent
message that names any other session, and the J4 finding for a creating answer that gives
an id one of them already has, or none (J30: no non-empty string `sessionId`).
Must not know: the lifecycle of a session once it exists (`_rules/_conversation.py`: after
`session/close` it is R24's), decoding, files.

Why only from `initialize` on: a recording that starts mid-session (after setup) cannot
show where its sessions came from, so it names any session it likes; one that starts with
the client's `initialize` shows every setup. While a `session/new` (or `session/fork`) is
unanswered, an update naming a session nobody knows yet is the new session racing its
answer (digest Q12: agents may send commands, config or usage at once), not a fault.
"""

from __future__ import annotations

from collections.abc import Mapping

from acp_core._wire import _jsonrpc as j
from acp_core._wire._updates_preview import SubagentUpdate

from ._predicates import RequestKey, request_key, shown

__all__ = ["OpenSessions"]

_CREATING = frozenset({"session/new", "session/fork"})
_RESUMING = frozenset({"session/resume", "session/load"})


class OpenSessions:
    """The sessions of one recording (mutable, local to one `check_trace` call)."""

    __slots__ = ("creating", "judged", "known", "started")

    def __init__(self) -> None:
        self.started = False  # the first message was seen
        self.judged = False  # the recording starts with the client's `initialize`
        self.known: set[str] = set()
        self.creating: set[RequestKey] = set()  # client requests that create a session

    def copy(self) -> OpenSessions:
        """An independent copy (for a checker that forks)."""
        twin = OpenSessions()
        twin.started, twin.judged = self.started, self.judged
        twin.known, twin.creating = set(self.known), set(self.creating)
        return twin

    def follow(self, side: str, msg: object) -> tuple[str, str] | None:
        """Note what `msg` sets up; the finding `(rule, message)` when the agent names a
        session that does not exist (J3) or creates one under an id in use (J4) or under no
        id (J30), else None."""
        if not self.started:
            self.started = True
            self.judged = (
                side == "client" and isinstance(msg, j.Request) and msg.method == "initialize"
            )
        if not self.judged:
            return None
        if side == "client":
            self._client(msg)
            return None
        if isinstance(msg, (j.Response, j.ErrorResponse)):
            return self._answer(msg)
        unknown = self._agent(msg)
        return None if unknown is None else ("J3", unknown)

    def _client(self, msg: object) -> None:
        if isinstance(msg, j.Request):
            params = msg.params if isinstance(msg.params, Mapping) else {}
            if msg.method in _CREATING:
                self.creating.add(request_key(msg.id))
            sid = params.get("sessionId")
            if msg.method in _RESUMING and isinstance(sid, str):
                self.known.add(sid)

    def _answer(self, msg: j.Response | j.ErrorResponse) -> tuple[str, str] | None:
        key = request_key(msg.id)
        if key not in self.creating:
            return None
        self.creating.discard(key)
        result = msg.result if isinstance(msg, j.Response) else None
        if result is None:
            return None  # an error answer: a refused session is not judged
        sid = result.get("sessionId") if isinstance(result, Mapping) else None
        if not isinstance(sid, str) or not sid:
            given = "no sessionId" if sid is None else f"sessionId {shown(sid)}"
            return (
                "J30",
                f"the agent answers a session-creating request with {given} instead of the "
                "new session's id (a non-empty string)",
            )
        if sid in self.known:
            return (
                "J4",
                f"the agent answers a session-creating request with session {shown(sid)}, "
                "an id a session of this connection already has",
            )
        self.known.add(sid)
        return None

    def _agent(self, msg: object) -> str | None:
        sid = getattr(msg, "session_id", None)
        if sid is None and isinstance(msg, j.Request) and isinstance(msg.params, Mapping):
            sid = msg.params.get("sessionId")
        if not isinstance(sid, str):
            return None
        update = getattr(msg, "update", None)
        if sid in self.known or self.creating:
            if isinstance(update, SubagentUpdate) and sid in self.known:
                self.known.add(update.session_id)  # an announced child exists from now on
            return None
        return (
            f"the agent names session {shown(sid)}, which this connection never set up "
            "(no session/new or session/fork answer gave it, no session/resume named it"
            ", no subagent_update announced it)"
        )
