"""How a message becomes a lifecycle event: classification and request pairing.

Owns: `Obs` (one observation's builder: changes and findings), `classify` (a message to an
`Event`, pairing answers with their requests: J1, J2, C25), `j2_breach` (J2's one deciding
function, asked here of each session's messages and by `_rules/_protocol.py` of ids shared
across sessions) and the window of answered requests. Must not know: what any event does to
the lifecycle (`_rules/_conversation.py`) or what the guards check
(`_rules/_conversation_guards.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from acp_core._state._pcoll import PMap
from acp_core._wire import _jsonrpc as j
from acp_core._wire import _updates as u
from acp_core._wire._json import JsonValue

from ._conversation_state import (
    AGENT,
    CLIENT,
    PEER,
    Conversation,
    Event,
    Finding,
    Kind,
    Pending,
    Sender,
)
from ._predicates import RequestKey, request_key, shown

__all__ = ["STATE_KINDS", "UPDATE_KIND", "Obs", "classify", "j2_breach", "stray_answer"]

# Updates that are conversation history (what a replay sends) and the agent's own output.
_USER: Final = (u.UserMessageChunk, u.UserMessage)
_WORK: Final = (
    u.AgentMessageChunk,
    u.AgentMessage,
    u.AgentThoughtChunk,
    u.AgentThought,
    u.ToolCallUpdate,
    u.ToolCallContentChunk,
    u.TerminalUpdate,
    u.TerminalOutputChunk,
    u.PlanUpdate,
)
_STATES: Final[Mapping[type, Kind]] = {
    u.RunningStateUpdate: Kind.RUNNING,
    u.RequiresActionStateUpdate: Kind.REQUIRES_ACTION,
    u.IdleStateUpdate: Kind.IDLE,
    u.OtherStateUpdate: Kind.OTHER_STATE,
}
_ANSWERS: Final[Mapping[tuple[str, Sender], Kind]] = {
    (j.Method.SESSION_PROMPT, AGENT): Kind.PROMPT_ANSWER,
    (j.Method.REQUEST_PERMISSION, CLIENT): Kind.PERMISSION_ANSWER,
    ("session/resume", AGENT): Kind.RESUME_ANSWER,
    ("session/close", AGENT): Kind.CLOSE_ANSWER,
    ("session/set_config_option", AGENT): Kind.CONFIG_ANSWER,
}
_ANSWERED_WINDOW: Final = 64
_ITEM_CANCELS: Final[Mapping[type, str]] = {
    j.CancelToolCallRequest: j.Method.TOOL_CALL_CANCEL,
    j.CancelTerminalRequest: j.Method.TERMINAL_CANCEL,
}


class Obs:
    """One observation's builder: changes and findings. Local to one `observe` call."""

    __slots__ = ("changes", "conv", "found")

    def __init__(self, conv: Conversation) -> None:
        self.conv = conv
        self.changes: dict[str, Any] = {}
        self.found: list[Finding] = []

    def get(self, name: str) -> Any:
        return self.changes[name] if name in self.changes else getattr(self.conv, name)

    def set(self, **changes: Any) -> None:
        self.changes.update(changes)

    def report(self, rule: str, at: int, message: str) -> None:
        self.found.append(Finding(rule, message, at))


# -- classification and request pairing ------------------------------------------------------


def _request(o: Obs, sender: Sender, request_id: object, pending: Pending) -> None:
    key = (sender, request_key(request_id))
    requests: PMap[tuple[Sender, RequestKey], Pending] = o.get("requests")
    first = requests.get(key)
    found = j2_breach(reused=(sender, request_id, None if first is None else first.at))
    if found is not None:
        o.report(found[0], pending.at, found[1])
    o.set(requests=requests.set(key, pending))


def _direction(o: Obs, sender: Sender, expected: Sender, method: str, at: int) -> bool:
    found = j2_breach(sent=(sender, expected, method))
    if found is not None:
        o.report(found[0], at, found[1])
        return False
    return True


def j2_breach(
    *,
    sent: tuple[Sender, Sender, str] | None = None,
    unnumbered: str | None = None,
    numbered: tuple[str, object] | None = None,
    reused: tuple[Sender, object, int | None] | None = None,
    shared: tuple[object, str | None, str | None] | None = None,
    held: tuple[Sender, object] | None = None,
) -> tuple[str, str] | None:
    """J2: each message is sent by the side its method belongs to, as a request (with an id)
    or a notification (without) as its method is, and a request's id is not in use by another
    pending request of its sender on the connection. The facts of one clause at a time:
    `sent` (sender, the side the method belongs to, method); `unnumbered` (the method of a
    notification); `numbered` (method and id of a request); `reused` (sender, id, the line of
    the sender's pending request of that session with that id, if any: the session machines);
    `shared` (id, its session, the session of the pending request with that id: the protocol
    machine, across sessions); `held` (sender, id of a request refused before any machine saw
    it because a request of the sender with that id still waits: the engines and connections,
    which keep no line). Returns the rule and why, or None."""
    why: str | None = None
    if sent is not None and sent[0] != sent[1]:
        sender, expected, method = sent
        why = f"`{method}` is sent by the {expected}, but this one comes from the {sender}"
    elif unnumbered in (j.Method.SESSION_PROMPT, j.Method.REQUEST_PERMISSION):
        why = f"`{unnumbered}` is a request but is sent without an id"
    elif numbered is not None and numbered[0] in (j.Method.SESSION_UPDATE, j.Method.SESSION_CANCEL):
        why = f"`{numbered[0]}` is a notification but is sent with id {shown(numbered[1])}"
    elif reused is not None and reused[2] is not None:
        sender, request_id, first_at = reused
        why = (
            f"{sender} reuses request id {shown(request_id)} while the request of line "
            f"{first_at} is still unanswered"
        )
    elif shared is not None and shared[2] != shared[1] and shared[0] is not None:
        request_id, _sid, owner = shared
        holder = "the connection" if owner is None else shown(owner)
        why = (
            f"request id {shown(request_id)} is already in use by a pending request of "
            f"{holder} (ids are unique per connection, not per session)"
        )
    elif held is not None:
        sender, request_id = held
        why = (
            f"{sender} reuses request id {shown(request_id)} while its request of that id is "
            "still unanswered"
        )
    return None if why is None else ("J2", why)


def stray_answer(sender: Sender, request_id: object, earlier: int | None = None) -> tuple[str, str]:
    """J1 (the agent) and C25 (the client): a response answers a request of the peer, once.
    The rule and why for a response of `sender` under `request_id` that answers no pending
    request of the peer (`earlier`: the line where that id was answered, if known). Asked by
    the session machines and by the engines and connections that meet such an answer."""
    if earlier is not None:
        why = f"request {shown(request_id)} was already answered at line {earlier}"
    else:
        why = (
            f"no outstanding request from the {PEER[sender]} has id {shown(request_id)} "
            "(notifications are never answered)"
        )
    return ("C25" if sender == CLIENT else "J1"), f"{sender} sends a response, but {why}"


def _answer(o: Obs, sender: Sender, msg: j.Response | j.ErrorResponse, at: int) -> Event | None:
    if isinstance(msg, j.ErrorResponse) and msg.id is None:
        return None  # an answer to a message that could not be read (JSON-RPC parse errors)
    peer = PEER[sender]
    key = (peer, request_key(msg.id))
    requests: PMap[tuple[Sender, RequestKey], Pending] = o.get("requests")
    pending = requests.get(key)
    if pending is None:
        earlier = next((i for k, i in o.conv.answered if k == key), None)
        rule, why = stray_answer(sender, msg.id, earlier)
        o.report(rule, at, why)
        return None
    o.set(
        requests=requests.delete(key),
        answered=(*o.conv.answered[-(_ANSWERED_WINDOW - 1) :], (key, at)),
    )
    kind = _ANSWERS.get((pending.method, sender), Kind.OTHER)
    return Event(kind, sender, at, msg, pending, key[1])


class _KindCache(dict[type, Kind]):
    def __missing__(self, cls: type) -> Kind:
        kind = _STATES.get(cls)
        if kind is None:
            kind = (
                Kind.USER_MESSAGE
                if issubclass(cls, _USER)
                else Kind.WORK
                if issubclass(cls, _WORK)
                else Kind.BACKGROUND
            )
        self[cls] = kind
        return kind


#: The event kind of an update, by its class (worked out once per class).
UPDATE_KIND: Final[Mapping[type, Kind]] = _KindCache()


def classify(o: Obs, sender: Sender, msg: object, at: int) -> Event | None:
    if isinstance(msg, j.UpdateSessionNotification):
        if not _direction(o, sender, AGENT, "session/update", at):
            return None
        upd = msg.update
        return Event(UPDATE_KIND[type(upd)], sender, at, upd)
    if isinstance(msg, j.PromptRequest):
        _request(o, sender, msg.id, Pending(j.Method.SESSION_PROMPT, at))
        if not _direction(o, sender, CLIENT, "session/prompt", at):
            return None
        return Event(Kind.PROMPT, sender, at, msg, key=request_key(msg.id))
    if isinstance(msg, j.CancelSessionNotification):
        if not _direction(o, sender, CLIENT, "session/cancel", at):
            return None
        return Event(Kind.CANCEL, sender, at, msg)
    if isinstance(msg, j.RequestPermissionRequest):
        _request(o, sender, msg.id, Pending(j.Method.REQUEST_PERMISSION, at))
        if not _direction(o, sender, AGENT, "session/request_permission", at):
            return None
        return Event(Kind.PERMISSION, sender, at, msg, key=request_key(msg.id))
    if isinstance(msg, j.Request):
        return _generic_request(o, sender, msg, at)
    if isinstance(msg, (j.CancelToolCallRequest, j.CancelTerminalRequest)):  # 2026-11 on
        method = _ITEM_CANCELS[type(msg)]
        _request(o, sender, msg.id, Pending(method, at))
        _direction(o, sender, CLIENT, method, at)
        return None  # paired with its answer (J1, C25); no lifecycle effect (R75)
    if isinstance(msg, j.Notification):
        found = j2_breach(unnumbered=msg.method)
        if found is not None:
            o.report(found[0], at, found[1])
        return None
    if isinstance(msg, (j.Response, j.ErrorResponse)):
        return _answer(o, sender, msg, at)
    return None  # $/cancel_request: either side may send it; nothing to track


def _generic_request(o: Obs, sender: Sender, msg: j.Request, at: int) -> Event | None:
    params: Mapping[str, JsonValue] = msg.params if isinstance(msg.params, Mapping) else {}
    found = j2_breach(numbered=(msg.method, msg.id))
    if found is not None:
        o.report(found[0], at, found[1])
    detail = params.get("configId") if msg.method == "session/set_config_option" else None
    _request(o, sender, msg.id, Pending(msg.method, at, detail))
    kind = _CLIENT_REQUESTS.get(msg.method)
    if kind is None or not _direction(o, sender, CLIENT, msg.method, at):
        return None  # (an agent's resume or close is a J2 finding, not a lifecycle event)
    return Event(kind, sender, at, params)


#: The client's session requests the lifecycle follows, by method.
_CLIENT_REQUESTS: Final[Mapping[str, Kind]] = {
    j.Method.SESSION_RESUME: Kind.RESUME,
    "session/close": Kind.CLOSE,
}
#: The client's methods whose direction J2 judges here (an agent sending one is J2's fault,
#: not a method no client defines: `_rules/_check_capabilities.py`'s J80 leaves them be).
CLIENT_DIRECTED: Final = frozenset(
    {j.Method.SESSION_PROMPT, j.Method.SESSION_CANCEL, *_CLIENT_REQUESTS}
)


#: The event kinds of reported states (they move the phase).
STATE_KINDS: Final = frozenset(_STATES.values())
