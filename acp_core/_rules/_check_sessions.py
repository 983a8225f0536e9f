"""Which session ids the agent may name: the sessions that exist on the connection (J3, J4,
J30).

Owns: `OpenSessions`, the checker's record (a value) of the sessions a recording set up (a
`session/new` or `session/fork` answer's `sessionId`, a `session/resume` request's, and at
the Preview every child a `subagent_update` announced), the J3 finding for an agent
message that names any other session, and `created_finding`, the one home of J4 (a creating
answer that gives an id one of them already has) and J30 (no non-empty string `sessionId`).
Must not know: the lifecycle of a session once it exists (`_rules/_conversation.py`: after
`session/close` it is R24's), decoding, files.

Why only from `initialize` on: a recording that starts mid-session (after setup) cannot
show where its sessions came from, so it names any session it likes; one that starts with
the client's `initialize` shows every setup. While a `session/new` (or `session/fork`) is
unanswered, an update naming a session nobody knows yet is the new session racing its
answer (digest Q12: agents may send commands, config or usage at once), not a fault.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

import attrs

from acp_core._state._pcoll import PMap
from acp_core._wire import _jsonrpc as j
from acp_core._wire._fastnew import fast_evolve
from acp_core._wire._updates_preview import SubagentUpdate
from acp_core._wire._value import frozen

from ._predicates import RequestKey, request_key, shown

__all__ = ["OpenSessions", "created_finding"]

_CREATING = frozenset({"session/new", "session/fork"})
_RESUMING = frozenset({"session/resume", "session/load"})
Found = tuple[str, str] | None


@frozen
class OpenSessions:
    """The sessions of one recording, as far as it has been read (a value: `follow` returns
    the next one).

    Attributes:
        started: the first message was seen; `judged`: the recording starts with the
            client's `initialize`, so every setup is in it.
        known: the session ids set up; `creating`: the client's session-creating requests
            not answered yet.
    """

    started: bool = False
    judged: bool = False
    known: PMap[str, bool] = attrs.field(factory=PMap)
    creating: PMap[RequestKey, bool] = attrs.field(factory=PMap)

    def follow(self, side: str, msg: object) -> tuple[OpenSessions, Found]:
        """What `msg` sets up (the next value), and the finding `(rule, message)` when the
        agent names a session that does not exist (J3) or creates one under an id in use
        (J4) or under no id (J30), else None."""
        opened = self
        if not self.started:
            judged = side == "client" and isinstance(msg, j.Request) and msg.method == "initialize"
            opened = fast_evolve(self, started=True, judged=judged)
        if not opened.judged:
            return opened, None
        if side == "client":
            return opened._client(msg), None
        if isinstance(msg, (j.Response, j.ErrorResponse)):
            return opened._answer(msg)
        return opened._agent(msg)

    def _client(self, msg: object) -> OpenSessions:
        if not isinstance(msg, j.Request):
            return self
        opened = self
        if msg.method in _CREATING:
            opened = fast_evolve(opened, creating=opened.creating.set(request_key(msg.id), True))
        params = msg.params if isinstance(msg.params, Mapping) else {}
        sid = params.get("sessionId")
        if msg.method in _RESUMING and isinstance(sid, str):
            opened = fast_evolve(opened, known=opened.known.set(sid, True))
        return opened

    def _answer(self, msg: j.Response | j.ErrorResponse) -> tuple[OpenSessions, Found]:
        key = request_key(msg.id)
        if key not in self.creating:
            return self, None
        opened = fast_evolve(self, creating=self.creating.delete(key))
        result = msg.result if isinstance(msg, j.Response) else None
        if result is None:
            return opened, None  # an error answer: a refused session is not judged
        sid = result.get("sessionId") if isinstance(result, Mapping) else None
        found = created_finding(sid, opened.known.__contains__)
        if found is not None or not isinstance(sid, str):  # (a str when nothing is found)
            return opened, found
        return fast_evolve(opened, known=opened.known.set(sid, True)), None

    def _agent(self, msg: object) -> tuple[OpenSessions, Found]:
        sid = getattr(msg, "session_id", None)
        if sid is None and isinstance(msg, j.Request) and isinstance(msg.params, Mapping):
            sid = msg.params.get("sessionId")
        if not isinstance(sid, str):
            return self, None
        if sid in self.known or self.creating:
            update = getattr(msg, "update", None)
            if isinstance(update, SubagentUpdate) and sid in self.known:
                # an announced child exists from now on
                return fast_evolve(self, known=self.known.set(update.session_id, True)), None
            return self, None
        return self, (
            "J3",
            f"the agent names session {shown(sid)}, which this connection never set up "
            "(no session/new or session/fork answer gave it, no session/resume named it"
            ", no subagent_update announced it)",
        )


def created_finding(sid: object, in_use: Callable[[str], bool]) -> Found:
    """J30 and J4: the finding `(rule, why)` for a session-creating answer whose `sessionId`
    is `sid` (None: absent), or None. A new session has a non-empty string id (J30) that no
    session of the connection has already (J4; `in_use` says which ids are taken). Asked by
    `OpenSessions` and by the client connection that opens the session."""
    if not isinstance(sid, str) or not sid:
        given = "no sessionId" if sid is None else f"sessionId {shown(sid)}"
        return (
            "J30",
            f"the agent answers a session-creating request with {given} instead of the "
            "new session's id (a non-empty string)",
        )
    if in_use(sid):
        return (
            "J4",
            f"the agent answers a session-creating request with session {shown(sid)}, "
            "an id a session of this connection already has",
        )
    return None


#: Before anything is read.
NO_SESSIONS: Final = OpenSessions()
