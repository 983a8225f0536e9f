"""The client engine's Preview half: child sessions, item cancellation, prompt retries.

Owns: routing a child's traffic to its own view and lifecycle (C27, C28; P3: never E3 for a
child, an unknown id waits in the tree's orphan bucket with a diagnostic), `session/cancel`
for a child only through its capabilities (C29, C35), `tool_call/cancel` and
`terminal/cancel` only while the item advertises it (C41) and their answers, and
`RetryPrompt` (the same `idempotencyKey` on every attempt, C42, C45), on this connection or,
for a submission carried over by `ResumeSession(unanswered=...)`, on the next one
(`unanswered`, `carry_prompts`).
Must not know: I/O, the agent engine; the 2026-08 rules (`_engines/_client.py` keeps them).

The client's own session stays `ClientEngine.session`; `ClientEngine.children` is a
`SessionTree` holding every child and grandchild (its entry for the client's own session
carries only the child links), and `ClientEngine.lifecycles` one conversation machine per
child, so the agent's faults on a child are found like those on the client's session. A
permission request for a child is pending like any other and answered with
`AnswerPermission`; one for a session nobody announced is answered with an error (-32602)
and recorded as a diagnostic, never raised.
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any, Final

import attrs

from acp_core._errors import Diagnostic, LocalProtocolError
from acp_core._rules._predicates import RequestKey, request_key
from acp_core._state._pcoll import PMap
from acp_core._state._reduce_children import (
    SessionTree,
    begin_resume,
    child_link,
    end_resume,
    reduce_tree,
)
from acp_core._state._session_state import SessionState
from acp_core._wire._fields import PREVIEW_NAME
from acp_core._wire._json import UNSET, Unset
from acp_core._wire._jsonrpc import (
    CancelSessionNotification,
    CancelTerminalRequest,
    CancelToolCallRequest,
    ErrorCode,
    ErrorResponse,
    Method,
    PromptRequest,
    RequestPermissionRequest,
    Response,
    RpcError,
    UpdateSessionNotification,
)
from acp_core._wire._revision import Revision

from ._client_prompts import SentPrompt
from ._intents_preview import CancelChild, CancelTerminal, CancelToolCall, RetryPrompt

if TYPE_CHECKING:
    from ._client import ClientEngine
    from ._client_build import Build as _Build

__all__ = [
    "CLIENT_PREVIEW_STEPS",
    "UNANNOUNCED_PERMISSION",
    "bind_lost",
    "cancel_answered",
    "carry_prompts",
    "child_permission",
    "child_update",
    "idempotency_key",
    "resume_answered",
    "resume_sent",
    "session_request_method",
    "speaks_children",
    "unanswered",
]

#: Diagnostic: a permission request for a session nobody announced (answered -32602, C33).
UNANNOUNCED_PERMISSION: Final = "client.unannounced-permission"


def speaks_children(revision: Revision) -> bool:
    """Child sessions exist on this revision's wire (the Preview on)."""
    return revision.includes(PREVIEW_NAME)


def _tree(b: _Build) -> SessionTree:
    tree: SessionTree = b.get("children")
    return tree


def child_update(b: _Build, message: UpdateSessionNotification) -> None:
    """An update for a session other than the client's own (C28): into the child's view; an
    unknown id waits in the tree's orphan bucket with a diagnostic (P3)."""
    tree = reduce_tree(_tree(b), message.session_id, message.update, revision=b.engine.revision)
    b.set(children=tree)


def child_permission(b: _Build, message: RequestPermissionRequest) -> bool:
    """A permission request naming another session: pending when it is a known child (C28);
    otherwise answered with an error and diagnosed. Returns True when it became pending."""
    tree = _tree(b)
    if message.session_id in tree.parents:
        return True
    detail = f"permission request for unannounced session {message.session_id!r}"
    diagnostic = Diagnostic(UNANNOUNCED_PERMISSION, f"$.id={message.id!r}", detail)
    b.set(children=attrs.evolve(tree, diagnostics=tree.diagnostics.append(diagnostic)))
    b.send(
        ErrorResponse(message.id, RpcError(ErrorCode.INVALID_PARAMS, detail)), message.session_id
    )
    return False


def idempotency_key(engine: ClientEngine, key: str | None) -> str | Unset:
    """The key a new `SendPrompt` carries (C42, C43): none, or one never used before in this
    session (a retry goes through `RetryPrompt`, which sends the same key again)."""
    if key is None:
        return UNSET
    if not engine.revision.includes(PREVIEW_NAME):
        raise LocalProtocolError(
            "E0", f"idempotencyKey is a Preview field; revision {engine.revision.name} lacks it"
        )
    for record in engine.sent.values():
        if record.request is not None and record.request.idempotency_key == key:
            raise LocalProtocolError(
                "C43",
                f"idempotencyKey {key!r} already names the submission of prompt "
                f"{record.request_id!r}: retry it with RetryPrompt, or use a new key",
            )
    return key


def unanswered(engine: ClientEngine) -> tuple[PromptRequest, ...]:
    """The keyed submissions of this session that no attempt has been answered for, oldest
    first: what a client retries after its connection was lost (C45). Each is the request as
    first sent (its id names it for `RetryPrompt`); a prompt without a key is never among them
    (C45: without a key, no automatic retry)."""
    answered: set[str] = set()
    first: dict[str, PromptRequest] = {}
    for record in engine.prompts:
        request = record.request
        key = None if request is None else request.idempotency_key
        if request is None or not isinstance(key, str):
            continue
        first.setdefault(key, request)
        if record.state in ("accepted", "rejected"):
            answered.add(key)
    return tuple(r for k, r in first.items() if k not in answered)


def carry_prompts(engine: ClientEngine, prompts: tuple[PromptRequest, ...]) -> ClientEngine:
    """A resumed session on a new connection takes the unanswered keyed submissions of the
    lost one (`unanswered` of the old engine): each is recorded `lost` under its old request
    id, so `RetryPrompt(old id)` sends it again with its key (C42, C45) and its key is never
    reused for another submission (C43). A submission the engine already records (the same
    key) is not recorded twice."""
    if not prompts:
        return engine
    if not engine.revision.includes(PREVIEW_NAME):
        raise LocalProtocolError(
            "E0", f"idempotencyKey is a Preview field; revision {engine.revision.name} lacks it"
        )
    known = {r.request.idempotency_key for r in engine.sent.values() if r.request is not None}
    sent, order = engine.sent, engine.order
    for request in prompts:
        prompt: object = request  # a caller's value: not necessarily typed as declared
        if not isinstance(prompt, PromptRequest) or prompt.session_id != engine.session_id:
            raise LocalProtocolError("E3", f"not a prompt of session {engine.session_id!r}")
        if not isinstance(request.idempotency_key, str):
            raise LocalProtocolError(
                "C45", "a prompt sent without an idempotencyKey is never retried"
            )
        key = request_key(request.id)
        if request.idempotency_key in known:
            continue
        if key in sent:
            raise LocalProtocolError("E2", f"request id {request.id!r} was already used")
        known.add(request.idempotency_key)
        sent = sent.set(key, SentPrompt(request.id, state="lost", request=request))
        order = order.append(key)
    return attrs.evolve(engine, sent=sent, order=order)


def bind_lost(
    sent: PMap[RequestKey, SentPrompt], answered: SentPrompt
) -> PMap[RequestKey, SentPrompt]:
    """C44: a retry of a submission carried over from a lost connection was answered with a
    `messageId`: the carried record names that message too (its own answer never came)."""
    if answered.retry_of is None or answered.message_id is None:
        return sent
    key = request_key(answered.retry_of)
    first = sent.get(key)
    if first is None or first.state != "lost":
        return sent
    return sent.set(key, attrs.evolve(first, message_id=answered.message_id))


def _next_id(b: _Build, given: int | str | None) -> int | str | None:
    sent: Any = b.get("sent")
    requests: Any = b.get("requests")
    if given is not None:
        if request_key(given) in sent or request_key(given) in requests:
            raise LocalProtocolError("E2", f"request id {given!r} was already used")
        return given
    request_id: int = b.get("next_request_id")
    while request_key(request_id) in sent or request_key(request_id) in requests:
        request_id += 1
    b.set(next_request_id=request_id + 1)
    b.ids.append(request_id)
    return request_id


def _session_of(b: _Build, session_id: str | None) -> SessionState:
    engine = b.engine
    if session_id is None or session_id == engine.session_id:
        view: SessionState = b.get("view")
        return view
    tree = _tree(b)
    state = tree.sessions.get(session_id)
    if state is None or session_id not in tree.parents:
        raise LocalProtocolError("E3", f"session {session_id!r} is not a known child")
    return state


def _cancel_child(b: _Build, intent: CancelChild) -> None:
    """C29, C35: `session/cancel` for a child only while it advertises `capabilities.cancel`."""
    _needs_children(b, intent)
    link = child_link(_tree(b), intent.session_id)
    if link is None:
        raise LocalProtocolError("E3", f"session {intent.session_id!r} is not a known child")
    if not link.can_cancel:
        raise LocalProtocolError(
            "C29",
            f"child {intent.session_id!r} does not advertise capabilities.cancel: not cancelled",
        )
    b.send(CancelSessionNotification(intent.session_id), intent.session_id)


def _cancel_item(b: _Build, intent: CancelToolCall | CancelTerminal) -> None:
    """C41: `tool_call/cancel` / `terminal/cancel` only while the item advertises
    `capabilities.cancel` (of the client's session or a child's: P20)."""
    _needs_items(b, intent)
    state = _session_of(b, intent.session_id)
    if isinstance(intent, CancelToolCall):
        item_id, noun, method = intent.tool_call_id, "tool call", Method.TOOL_CALL_CANCEL
        found: Any = state.tool_calls.get(item_id)
    else:
        item_id, noun, method = intent.terminal_id, "terminal", Method.TERMINAL_CANCEL
        found = state.terminals.get(item_id)
    if found is None or not found.can_cancel:
        raise LocalProtocolError(
            "C41", f"{noun} {item_id!r} does not advertise capabilities.cancel"
        )
    request_id = _next_id(b, intent.request_id)
    make = CancelToolCallRequest if isinstance(intent, CancelToolCall) else CancelTerminalRequest
    b.send(make(request_id, state.session_id, item_id), state.session_id)
    _pending(b, request_id, method, state.session_id)


def _pending(b: _Build, request_id: int | str | None, method: str, session_id: str) -> None:
    requests: Any = b.get("requests")
    b.set(requests=requests.set(request_key(request_id), (method, session_id)))


def cancel_answered(b: _Build, message: Response | ErrorResponse) -> str | None:
    """The answer to one of our item-cancel requests (acceptance only; the final state comes
    as updates, R75): the session it belongs to, or None when the id is not one of them."""
    requests: Any = b.get("requests")
    key: RequestKey = request_key(message.id)
    asked = requests.get(key)
    if asked is None:
        return None
    b.set(requests=requests.delete(key))
    session_id: str = asked[1]
    return session_id


def _retry_prompt(b: _Build, intent: RetryPrompt) -> None:
    """C42, C45: send the prompt again with its content and its key; never without a key."""
    sent: Any = b.get("sent")
    first = sent.get(request_key(intent.original))
    request: PromptRequest | None = None if first is None else first.request
    if request is None:
        raise LocalProtocolError("E2", f"no prompt was sent with id {intent.original!r}")
    if not isinstance(request.idempotency_key, str):
        raise LocalProtocolError("C45", "a prompt sent without an idempotencyKey is never retried")
    request_id = _next_id(b, intent.request_id)
    retry = attrs.evolve(request, id=request_id)
    b.send(retry)
    key = request_key(request_id)
    record = SentPrompt(request_id, request=retry, retry_of=intent.original)
    b.set(sent=b.get("sent").set(key, record), order=b.get("order").append(key))


def _needs_children(b: _Build, intent: object) -> None:
    if not speaks_children(b.engine.revision):
        raise LocalProtocolError(
            "E0",
            f"{type(intent).__name__}: revision {b.engine.revision.name} has no child sessions",
        )


def _needs_items(b: _Build, intent: object) -> None:
    if not b.engine.revision.includes("2026-11"):
        raise LocalProtocolError(
            "E0", f"{type(intent).__name__}: revision {b.engine.revision.name} has no item cancel"
        )


_REQUESTS: Final[dict[type, str]] = {
    CancelToolCall: Method.TOOL_CALL_CANCEL,
    CancelTerminal: Method.TERMINAL_CANCEL,
    RetryPrompt: Method.SESSION_PROMPT,
}


def session_request_method(intent: object) -> str | None:
    """The method of the request a Preview intent sends (None: it sends none); a connection
    numbers these requests and routes their answers back to the engine."""
    return _REQUESTS.get(type(intent))


def resume_sent(
    engine: ClientEngine, request_id: int | str | None, *, replay: bool
) -> ClientEngine:
    """The client sent `session/resume` for the engine's session: with a replay cursor,
    children announced while it is answered replay in their own windows (P8, C36)."""
    if not replay or not speaks_children(engine.revision):
        return engine
    tree = begin_resume(
        engine.children, engine.session_id, request_id, replay=True, revision=engine.revision
    )
    return attrs.evolve(engine, children=tree)


def resume_answered(
    engine: ClientEngine, request_id: int | str | None, *, ok: bool
) -> ClientEngine:
    """The resume was answered: children still replaying are complete (success, with a
    diagnostic: R57) or truncated (failure, C37)."""
    if not speaks_children(engine.revision):
        return engine
    tree = end_resume(engine.children, request_id, succeeded=ok)
    return attrs.evolve(engine, children=tree)


#: The client engine's steps for the Preview intents.
CLIENT_PREVIEW_STEPS: Final[dict[type[Any], Any]] = {
    CancelChild: _cancel_child,
    CancelToolCall: _cancel_item,
    CancelTerminal: _cancel_item,
    RetryPrompt: _retry_prompt,
}
