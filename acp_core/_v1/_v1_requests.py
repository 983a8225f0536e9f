"""Requests of v1 traffic outside the prompt turn: `session/new`, elicitations, terminals.

Owns: reading `session/new` and its result (the session it opens); `elicitation/create` and
its answer as a request/answer pair that blocks the turn like a permission request does
(`wait`/`unwait`); the client-owned v1 terminals (`terminal/create`, `terminal/output`,
`terminal/wait_for_exit`, `terminal/release`) shown through v2 `terminal_update`s built from
the client's answers (digest 6.2 rule 10: the client owns the bytes, so its responses are the
terminal's record).
Must not know: message chunks, tool calls, the prompt's own bookkeeping (`_v1/_v1_turn.py`).
"""

from __future__ import annotations

import base64
import shlex
from typing import Any, Final

import attrs

from acp_core._errors import DecodeError
from acp_core._state._pcoll import PMap
from acp_core._wire._json import freeze_json
from acp_core._wire._updates import RequiresActionStateUpdate, RunningStateUpdate

from ._v1_policy import INVALID_MESSAGE, TERMINAL_RELEASED, UNANSWERABLE_ELICITATION
from ._v1_state import (
    TOOL,
    Pending,
    RequestRef,
    V1Elicitation,
    V1ElicitationAnswer,
    request_ref,
)
from ._v1_step import Step

__all__ = [
    "TERMINAL_METHODS",
    "answered",
    "elicitation",
    "session_new",
    "terminal",
    "unwait",
    "wait",
]

#: The v1 client methods for terminals whose answers change what the view shows.
TERMINAL_METHODS: Final = frozenset(
    {"terminal/create", "terminal/output", "terminal/wait_for_exit", "terminal/release"}
)


# -- blocking requests (permissions and elicitations) -----------------------------------------


def wait(step: Step, sid: str, key: RequestRef) -> None:
    """A request the user must answer: inside a turn the work is blocked (a request while
    idle changes nothing, Q33)."""
    if step.in_turn(sid):
        step.emit(sid, RequiresActionStateUpdate())
    session = step.get(sid)
    step.put(sid, attrs.evolve(session, waiting=(*session.waiting, key)))


def unwait(step: Step, sid: str, key: RequestRef) -> None:
    """The user answered: the work resumes once nothing else waits for an answer."""
    session = step.get(sid)
    waiting = tuple(k for k in session.waiting if k != key)
    step.put(sid, attrs.evolve(session, waiting=waiting))
    if not waiting and step.in_turn(sid):
        step.emit(sid, RunningStateUpdate())


# -- session/new ----------------------------------------------------------------------------


def session_new(step: Step, msg: dict[str, Any], sender: str) -> None:
    """`session/new` carries no sessionId: its result names the session it opens."""
    key = request_ref(sender, msg["id"])
    if key is not None:
        step.requests = step.requests.set(key, Pending("session/new", "", msg["id"]))


def _session_opened(step: Step, msg: dict[str, Any], path: str) -> None:
    if "error" in msg:
        return  # no session was opened
    result = msg.get("result")
    sid = result.get("sessionId") if type(result) is dict else None
    if type(sid) is not str:
        step.diag(INVALID_MESSAGE, f"{path}.result", "session/new result without a sessionId")
        return
    step.put(sid, step.get(sid))  # known from now on, even before its first update


# -- elicitation/create -------------------------------------------------------------------------


def elicitation(step: Step, sid: str, msg: dict[str, Any], sender: str, path: str) -> None:
    key = request_ref(sender, msg["id"])
    params: dict[str, Any] = msg["params"]
    message = params.get("message")
    if key is None or type(message) is not str:
        what = "an invalid request id" if key is None else "no string message"
        step.diag(UNANSWERABLE_ELICITATION, path, f"elicitation/create with {what}: skipped")
        return
    try:
        frozen = freeze_json(params)
    except DecodeError as e:
        step.diag(UNANSWERABLE_ELICITATION, path, f"elicitation/create skipped: {e}")
        return
    assert isinstance(frozen, PMap)
    step.end_runs(sid, TOOL)  # what the agent says after the user answered is a new message
    step.requests = step.requests.set(key, Pending("elicitation", sid, msg["id"], label=message))
    wait(step, sid, key)
    step.event(sid, V1Elicitation(msg["id"], message, frozen))


def _elicitation_answered(
    step: Step, pending: Pending, key: RequestRef, msg: dict[str, Any]
) -> None:
    answer = msg.get("result", msg.get("error"))
    action = answer.get("action") if type(answer) is dict and "error" not in msg else None
    try:
        frozen = freeze_json(answer)
    except DecodeError:
        frozen = None
    unwait(step, pending.session_id, key)
    step.event(
        pending.session_id,
        V1ElicitationAnswer(pending.request_id, action if type(action) is str else None, frozen),
    )


# -- terminals ------------------------------------------------------------------------------


def terminal(step: Step, sid: str, msg: dict[str, Any], sender: str) -> None:
    """Remember a `terminal/*` request until the client's answer shows what happened."""
    key = request_ref(sender, msg["id"])
    if key is None:
        return
    method: str = msg["method"]
    params: dict[str, Any] = msg["params"]
    if method == "terminal/create":
        command = params.get("command")
        args = params.get("args")
        if type(command) is str and type(args) is list and all(type(a) is str for a in args):
            command = shlex.join([command, *args])
        cwd = params.get("cwd")
        pending = Pending(
            method,
            sid,
            msg["id"],
            command=command if type(command) is str else None,
            cwd=cwd if type(cwd) is str else None,
        )
    else:
        terminal_id = params.get("terminalId")
        if type(terminal_id) is not str:
            return
        pending = Pending(method, sid, msg["id"], terminal_id=terminal_id)
    step.requests = step.requests.set(key, pending)


def _exit_status(value: object) -> dict[str, Any]:
    """A v1 exit status (`{exitCode, signal}`, nulls for unknown) in its v2 shape."""
    if type(value) is not dict:
        return {}
    return {k: value[k] for k in ("exitCode", "signal") if value.get(k) is not None}


def _terminal_answered(step: Step, pending: Pending, msg: dict[str, Any], path: str) -> None:
    result = msg.get("result")
    if "error" in msg or type(result) is not dict:
        return  # the client could not do it: nothing changed on its side
    sid = pending.session_id
    wire: dict[str, Any] = {"sessionUpdate": "terminal_update"}
    if pending.kind == "terminal/create":
        terminal_id = result.get("terminalId")
        if type(terminal_id) is not str:
            step.diag(INVALID_MESSAGE, f"{path}.result", "terminal/create result without an id")
            return
        wire["terminalId"] = terminal_id
        if pending.command is not None:
            wire["command"] = pending.command
        if pending.cwd is not None:
            wire["cwd"] = pending.cwd
    else:
        terminal_id = pending.terminal_id
        assert terminal_id is not None
        wire["terminalId"] = terminal_id
        exited = step.get(sid).exited.get(terminal_id, False)
        if pending.kind == "terminal/output":
            output = result.get("output")
            if type(output) is str:
                data = base64.b64encode(output.encode("utf-8", "surrogatepass")).decode("ascii")
                wire["output"] = {"data": data}  # the client's whole retained output
            if type(result.get("exitStatus")) is dict:
                wire["exitStatus"] = _exit_status(result["exitStatus"])
        elif pending.kind == "terminal/wait_for_exit":
            wire["exitStatus"] = _exit_status(result)
        elif not exited:  # released while still running as far as the trace shows
            step.diag(
                TERMINAL_RELEASED,
                path,
                f"terminal {terminal_id!r} released before its exit was seen: shown exited",
            )
            wire["exitStatus"] = {}
        if len(wire) == 2:
            return
    if "exitStatus" in wire:
        session = step.get(sid)
        step.put(sid, attrs.evolve(session, exited=session.exited.set(terminal_id, True)))
    decoded = step.decode(wire, path)  # what does not decode is reported and not shown
    if decoded is not None:
        step.emit(sid, decoded)


# -- answers --------------------------------------------------------------------------------


def answered(step: Step, pending: Pending, key: RequestRef, msg: dict[str, Any], path: str) -> None:
    """The response to a request of this module."""
    if pending.kind == "session/new":
        _session_opened(step, msg, path)
    elif pending.kind == "elicitation":
        _elicitation_answered(step, pending, key, msg)
    else:
        _terminal_answered(step, pending, msg, path)
