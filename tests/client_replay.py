"""Play a recorded trace into a real client connection: the client's lines become the host's
intents, the agent's lines arrive as decoded messages, and what the connection judged comes back
as rule ids (its `Finding` events and its sessions' engine violations).

tests/test_rule_consistency_connection.py uses it to hold the checker and the client connection
to the same verdict on the same traffic. Each session the trace names is opened first (a
`session/new` the scripted agent answers with that id), so the connection knows it; a trace
that starts with `initialize` plays that handshake before.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from typing import Any

from acp_core import connection as c
from acp_core import errors, values
from acp_core import intents as i
from acp_core.codec import Revision, decode_message

Entry = dict[str, Any]
_INFO = c.Implementation("replay-client", "1")


class Refused(Exception):  # noqa: N818 (what happened, not a failure of the harness)
    """The client connection refused to send a client line (the rule it named)."""

    def __init__(self, rule: str) -> None:
        super().__init__(rule)
        self.rule = rule


class ClientReplay:
    """One client connection, fed a trace line by line."""

    def __init__(
        self, revision: Revision, sessions: tuple[str, ...], handshake: Sequence[Entry] = ()
    ) -> None:
        self.revision = revision
        self.conn = c.new_client_connection(_INFO, revision=revision)
        self.events: list[object] = []
        self.trace: list[Entry] = []
        for entry in handshake:
            self.feed(entry)
        self.open(sessions)

    def open(self, sessions: tuple[str, ...]) -> None:
        """Open each session (a `session/new` the scripted agent answers with its id)."""
        for sid in sessions:
            out = self._do(c.NewSession("/w", request_id=f"open-{sid}"))
            self._receive({"jsonrpc": "2.0", "id": out[0]["id"], "result": {"sessionId": sid}})

    # -- the two directions --------------------------------------------------------------------

    def _do(self, intent: object) -> list[dict[str, Any]]:
        step = c.connection_step(self.conn, intent)
        self.conn = step.connection
        self.events.extend(step.events)
        out = [json.loads(json.dumps(m)) for m in step.outbound]
        self.trace.extend({"from": "client", "message": m} for m in out)
        return out

    def _receive(self, wire: dict[str, Any]) -> None:
        # As bytes, the way a transport hands them over: what does not decode is the
        # connection's own finding (D1), as it would be live.
        self.trace.append({"from": "agent", "message": wire})
        step = c.receive_bytes(self.conn, json.dumps(wire).encode() + b"\n")
        self.conn = step.connection
        self.events.extend(step.events)
        out = [json.loads(json.dumps(m)) for m in step.outbound]
        self.trace.extend({"from": "client", "message": m} for m in out)

    def feed(self, entry: Entry) -> None:
        message = entry["message"]
        if entry["from"] == "agent":
            self._receive(message)
            return
        try:
            self._do(self._intent(message))
        except errors.LocalProtocolError as refused:
            raise Refused(refused.rule) from refused

    def _intent(self, message: dict[str, Any]) -> object:
        method, params = message.get("method"), message.get("params") or {}
        sid = params.get("sessionId")
        if method == "session/prompt":
            prompt = decode_message(message, revision=self.revision)
            assert isinstance(prompt, values.PromptRequest)
            send = i.SendPrompt(
                prompt.prompt,
                request_id=prompt.id,
                idempotency_key=params.get("idempotencyKey"),
            )
            return c.SessionIntent(sid, send)
        if method == "session/cancel" and "id" not in message:
            return c.SessionIntent(sid, i.SendCancel())
        if method == "session/resume":
            replay = "replayFrom" in params
            return c.ResumeSession(sid, params["cwd"], replay=replay, request_id=message["id"])
        if method == "session/close":
            return c.CloseSession(sid, request_id=message["id"])
        if method == "$/cancel_request":
            return c.CancelRequest(params["requestId"])
        if method is not None and "id" in message:
            return c.SendRequest(method, params, request_id=message["id"])
        if method is not None:
            return c.SendNotification(method, params)
        held = self._permission_session(message.get("id"))
        if held is not None and "result" in message:
            outcome = message["result"].get("outcome", {})
            if outcome.get("outcome") == "selected":
                return c.SessionIntent(held, i.AnswerPermission(message["id"], outcome["optionId"]))
        if "error" in message:
            error = message["error"]
            return c.FailRequest(message["id"], error["code"], error.get("message", ""))
        return c.AnswerRequest(message["id"], message["result"])

    def _permission_session(self, request_id: object) -> str | None:
        # The session whose engine holds this permission request (it answers, not the host).
        for sid, session in self.conn.sessions.items():
            if request_id in session.engine.pending:
                return sid
        return None

    # -- what it judged -----------------------------------------------------------------------

    def rules(self) -> list[str]:
        found = [ev.rule for ev in self.events if isinstance(ev, c.Finding)]
        for session in self.conn.sessions.values():
            found.extend(v.rule for v in session.engine.violations if not v.warning)
        return found


def sessions_named(entries: list[Entry]) -> tuple[str, ...]:
    """The top-level sessions a trace names (opened before it plays): every `sessionId` of a
    line's params but those the trace announces as children or sets up itself (an answer
    that gives it)."""
    named: list[str] = []
    children: set[object] = set()
    set_up: set[object] = set()
    for entry in entries:
        result = entry["message"].get("result") if isinstance(entry["message"], dict) else None
        if entry["from"] == "agent" and isinstance(result, dict):
            set_up.add(result.get("sessionId"))  # the trace sets it up itself
        params = entry["message"].get("params") if isinstance(entry["message"], dict) else None
        if not isinstance(params, dict):
            continue
        update = params.get("update")
        if isinstance(update, dict) and update.get("sessionUpdate") == "subagent_update":
            children.add(update.get("sessionId"))
        sid = params.get("sessionId")
        if isinstance(sid, str) and sid not in named:
            named.append(sid)
    return tuple(sid for sid in named if sid not in children and sid not in set_up)


def play(entries: list[Entry], revision: Revision) -> ClientReplay:
    """A client connection that played `entries` (stopping at a line it refused to send).

    A trace that starts with the client's `initialize` plays it, up to the agent's answer,
    before the sessions are opened: the connection and the checker then both judge the
    traffic against what the handshake advertised (J70-J80, C2), as a live connection does."""
    handshake = _handshake(entries)
    replay = ClientReplay(revision, (), entries[:handshake])
    replay.open(sessions_named(entries) or ("sess_parent",))
    for entry in entries[handshake:]:
        replay.feed(entry)
    return replay


def _handshake(entries: list[Entry]) -> int:
    # How many leading lines are the client's `initialize` and what comes until its answer.
    first = entries[0]["message"] if entries else None
    if entries[0]["from"] != "client" or not isinstance(first, dict):
        return 0
    if first.get("method") != "initialize" or "id" not in first:
        return 0
    for n, entry in enumerate(entries[1:], start=2):
        message = entry["message"]
        answer = entry["from"] == "agent" and isinstance(message, dict) and "method" not in message
        if answer and message.get("id") == first["id"]:
            return n
    return 0


__all__ = ["ClientReplay", "Refused", "play", "sessions_named"]
