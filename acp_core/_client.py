"""The client engine: prompt bookkeeping, permission answers, and the local cancel overlay.

Owns: `ClientEngine` (the client side of one session, as a value), `new_client`, and the
client half of `step`. Applies the client rules of the catalogue (C-rules in docs/rules.md).
Must not know: I/O, clocks, randomness, the agent engine.

Theory of operation.
- `session` is the pure fold of what the agent reported (updates, and the `tool_call`
  subjects of permission requests, T10); `view` is that plus the client's own provisional
  marks (C14): on `SendCancel` every unfinished tool call of the current work (first seen or
  updated since the foreground last left idle, Q18) is shown `cancelled`. Later agent updates
  still apply to both (C16); any status the agent sends wins (Q19).
- Prompts are bound to the user message the agent reports (Q7): the first *new* message id of
  a user-message update binds to the oldest unbound prompt, first in first out; a result that
  carries a `messageId` (2026-11 revision) binds directly, and then FIFO binding is not used
  (the user message may arrive before the result that names it).
- On cancel the client answers every pending permission request with the `cancelled` outcome
  (C15), and any that arrives before the work goes idle too; a `$/cancel_request` for an open
  request is answered the same way (Q17).
- Unknown requests are answered with -32601 (C26); notifications are never answered (C25).
"""

from __future__ import annotations

import functools
from typing import Any, Final

import attrs

from ._codec import decode_prompt_result, encode_message, encode_result
from ._errors import AcpError, LocalProtocolError, RemoteProtocolError
from ._intents import AnswerPermission, Received, SendCancel, SendPrompt, Step
from ._json import UNSET, JsonValue, freeze_json
from ._jsonrpc import (
    CancelledOutcome,
    CancelRequestNotification,
    CancelSessionNotification,
    ErrorCode,
    ErrorResponse,
    Message,
    Notification,
    PromptRequest,
    Request,
    RequestPermissionRequest,
    RequestPermissionResult,
    Response,
    RpcError,
    SelectedOutcome,
    ToolCallPermissionSubject,
    UpdateSessionNotification,
)
from ._pcoll import PMap
from ._reduce import reduce
from ._revision import DEFAULT_REVISION, Revision
from ._state import SessionState, new_session
from ._updates import (
    SessionUpdate,
    ToolCallContentChunk,
    ToolCallStatus,
    ToolCallUpdate,
    UserMessage,
    UserMessageChunk,
)

__all__ = ["ClientEngine", "SentPrompt", "client_step", "new_client", "prompt_message_id"]


@attrs.frozen
class SentPrompt:
    """A prompt this client sent.

    Attributes:
        request_id: its JSON-RPC id.
        state: `sent`, `accepted` (answered `{}`) or `rejected` (answered with an error).
        message_id: the user message the agent reported for it, once bound (Q7).
    """

    request_id: int | str | None
    state: str = "sent"
    message_id: str | None = None


@attrs.frozen
class ClientEngine:
    """The client side of one session (a value).

    Attributes:
        session: what the agent reported, folded.
        view: `session` plus the local cancel marks: what a UI should show.
        revision: the protocol revision spoken.
        prompts: every prompt sent, in order.
        pending: permission requests not answered yet, by request id.
        cancel_requested: `session/cancel` sent and no idle seen since.
        work_tool_calls: tool calls of the current foreground work (Q18).
        next_request_id: next JSON-RPC id for requests this client sends.
    """

    session: SessionState
    view: SessionState
    revision: Revision = DEFAULT_REVISION
    prompts: tuple[SentPrompt, ...] = ()
    pending: PMap[int | str | None, RequestPermissionRequest] = attrs.field(factory=PMap)
    cancel_requested: bool = False
    work_tool_calls: PMap[str, bool] = attrs.field(factory=PMap)
    next_request_id: int = 0

    @property
    def session_id(self) -> str:
        """The session this client talks to."""
        return self.session.session_id


def new_client(session_id: str, *, revision: Revision = DEFAULT_REVISION) -> ClientEngine:
    """A fresh client engine for an established session (after `session/new`)."""
    state = new_session(session_id)
    return ClientEngine(state, state, revision)


def prompt_message_id(client: ClientEngine, request_id: int | str | None) -> str | None:
    """The user message id the agent reported for the prompt `request_id` (Q7)."""
    for prompt in client.prompts:
        if prompt.request_id == request_id:
            return prompt.message_id
    return None


@functools.cache
def _cancelled() -> JsonValue:
    # Built on first use, not at import: encoding derives the codec's tables (issue 15).
    return freeze_json(encode_result(RequestPermissionResult(CancelledOutcome())))


class _Build:
    """Collects one step's changes. Local to a single step call, never shared."""

    def __init__(self, engine: ClientEngine) -> None:
        self.engine = engine
        self.wire: list[dict[str, Any]] = []
        self.changes: dict[str, Any] = {}

    def get(self, name: str) -> Any:
        return self.changes[name] if name in self.changes else getattr(self.engine, name)

    def set(self, **changes: Any) -> None:
        self.changes.update(changes)

    def send(self, message: Message) -> None:
        self.wire.append(encode_message(message))

    def done(self) -> Step[ClientEngine]:
        return Step(attrs.evolve(self.engine, **self.changes), tuple(self.wire))


def _apply(b: _Build, update: SessionUpdate, *, subject: bool = False) -> None:
    """Fold one agent update into both the session and the view, with the bookkeeping.

    `subject`: the update is the `tool_call` subject of a permission request (T10). It
    restates the tool call rather than reporting a new status, so it leaves a local cancel
    mark in the view alone (only a status the agent *reports* wins over it, Q19).
    """
    before: SessionState = b.get("session")
    view: SessionState = b.get("view")
    revision = b.engine.revision
    session = reduce(before, update, revision=revision)
    view_update = update
    if subject and isinstance(update, ToolCallUpdate):
        shown = view.tool_calls.get(update.tool_call_id)
        known = before.tool_calls.get(update.tool_call_id)
        if shown is not None and known is not None and shown.status != known.status:
            view_update = attrs.evolve(update, status=UNSET)
    b.set(session=session, view=reduce(view, view_update, revision=revision))
    was_idle = before.foreground.state == "idle"
    now_idle = session.foreground.state == "idle"
    if was_idle and not now_idle:
        b.set(work_tool_calls=PMap())  # new foreground work starts (Q18)
    if now_idle and b.get("cancel_requested"):
        b.set(cancel_requested=False)  # any idle ends the wait for cancellation (Q20)
    if not now_idle and isinstance(update, (ToolCallUpdate, ToolCallContentChunk)):
        b.set(work_tool_calls=b.get("work_tool_calls").set(update.tool_call_id, True))
    if isinstance(update, (UserMessage, UserMessageChunk)) and not (
        b.engine.revision.prompt_result_has_message_id
    ):
        # FIFO only where results carry no id; otherwise the result binds, instead (Q7).
        message_id = update.message_id
        if before.message(message_id) is None:
            _bind(b, message_id)


def _bind(b: _Build, message_id: str) -> None:
    prompts: tuple[SentPrompt, ...] = b.get("prompts")
    if any(p.message_id == message_id for p in prompts):
        return
    for i, prompt in enumerate(prompts):
        if prompt.message_id is None and prompt.state != "rejected":
            bound = attrs.evolve(prompt, message_id=message_id)
            b.set(prompts=(*prompts[:i], bound, *prompts[i + 1 :]))
            return
    # Not ours: a user message inserted by the agent or another client (M8).


def _answer_cancelled(b: _Build, request_id: int | str | None) -> None:
    b.send(Response(request_id, _cancelled()))
    b.set(pending=b.get("pending").delete(request_id))


# -- client intents ------------------------------------------------------------------------


def _send_prompt(b: _Build, intent: SendPrompt) -> None:
    engine = b.engine
    request_id = intent.request_id
    if request_id is None:
        request_id = engine.next_request_id
        while any(p.request_id == request_id for p in engine.prompts):
            request_id += 1
        b.set(next_request_id=request_id + 1)
    elif any(p.request_id == request_id for p in engine.prompts):
        raise LocalProtocolError("E2", f"request id {request_id!r} was already used")
    b.send(PromptRequest(request_id, engine.session_id, intent.content, intent.meta))
    b.set(prompts=(*engine.prompts, SentPrompt(request_id)))


def _send_cancel(b: _Build, intent: SendCancel) -> None:
    engine = b.engine
    b.send(CancelSessionNotification(engine.session_id))
    for request_id in list(engine.pending.keys()):
        _answer_cancelled(b, request_id)  # C15
    if engine.session.foreground.state == "idle":
        return  # nothing is running: expect no reply (Q20)
    b.set(cancel_requested=True)
    view = engine.view
    for tool_call_id in engine.work_tool_calls:
        call = view.tool_calls.get(tool_call_id)
        if call is not None and call.status not in ToolCallStatus.TERMINAL:
            # C14: shown cancelled at once; a later status from the agent wins (Q19).
            mark = ToolCallUpdate(tool_call_id, status="cancelled")
            view = reduce(view, mark, revision=engine.revision)
    b.set(view=view)


def _answer_permission(b: _Build, intent: AnswerPermission) -> None:
    request = b.engine.pending.get(intent.request_id)
    if request is None:
        raise LocalProtocolError(
            "E2", f"no pending permission request has id {intent.request_id!r}"
        )
    if all(o.option_id != intent.option_id for o in request.options):
        raise LocalProtocolError(
            "E4", f"option {intent.option_id!r} was not offered by request {intent.request_id!r}"
        )
    result = encode_result(RequestPermissionResult(SelectedOutcome(intent.option_id)))
    b.send(Response(intent.request_id, freeze_json(result)))
    b.set(pending=b.engine.pending.delete(intent.request_id))


# -- received messages ---------------------------------------------------------------------


def _remote(rule: str, detail: str) -> RemoteProtocolError:
    return RemoteProtocolError(rule, detail, ErrorCode.INVALID_REQUEST)


def _prompt_answered(b: _Build, message: Response | ErrorResponse) -> bool:
    prompts: tuple[SentPrompt, ...] = b.get("prompts")
    for i, prompt in enumerate(prompts):
        if prompt.request_id != message.id or prompt.state != "sent":
            continue
        if isinstance(message, ErrorResponse):
            answered = attrs.evolve(prompt, state="rejected")
        else:
            try:
                result = decode_prompt_result(message.result)
            except AcpError:
                raise _remote(
                    "R1", f"prompt {message.id!r} answered with a malformed result"
                ) from None
            message_id = result.message_id if isinstance(result.message_id, str) else None
            answered = attrs.evolve(
                prompt, state="accepted", message_id=prompt.message_id or message_id
            )
        b.set(prompts=(*prompts[:i], answered, *prompts[i + 1 :]))
        return True
    return False


def _received(b: _Build, intent: Received) -> None:
    message = intent.message
    engine = b.engine
    if isinstance(message, UpdateSessionNotification):
        if message.session_id != engine.session_id:
            raise _remote("E3", f"update for session {message.session_id!r}")
        _apply(b, message.update)
    elif isinstance(message, RequestPermissionRequest):
        if message.session_id != engine.session_id:
            raise _remote("E3", f"permission request for session {message.session_id!r}")
        if message.id in engine.pending:
            raise _remote("E3", f"permission request id {message.id!r} is already pending")
        if isinstance(message.subject, ToolCallPermissionSubject):
            _apply(b, message.subject.tool_call, subject=True)  # T10
        b.set(pending=engine.pending.set(message.id, message))
        if engine.cancel_requested:
            _answer_cancelled(b, message.id)  # C15: everything pending after a cancel
    elif isinstance(message, CancelRequestNotification):
        if message.request_id in engine.pending:
            _answer_cancelled(b, message.request_id)  # Q17
    elif isinstance(message, (Response, ErrorResponse)):
        if not _prompt_answered(b, message):
            raise _remote("E3", f"response {message.id!r} answers no request of this client")
    elif isinstance(message, Request):
        b.send(ErrorResponse(message.id, RpcError(ErrorCode.METHOD_NOT_FOUND, "Method not found")))
    elif isinstance(message, Notification):
        pass  # C26: unknown notifications are ignored (and never answered, C25)
    else:
        raise _remote("E3", f"a client does not receive {type(message).__name__}")


_CLIENT_STEPS: Final[dict[type[Any], Any]] = {
    SendPrompt: _send_prompt,
    SendCancel: _send_cancel,
    AnswerPermission: _answer_permission,
    Received: _received,
}

#: The client engine's input alphabet.
CLIENT_INPUTS: Final = tuple(_CLIENT_STEPS)


def client_step(engine: ClientEngine, intent: object) -> Step[ClientEngine]:
    """Apply one intent (or received message) to the client engine.

    Raises:
        LocalProtocolError: the intent is illegal here.
        RemoteProtocolError: a received message breaks the protocol.
    """
    handler = _CLIENT_STEPS.get(type(intent))
    if handler is None:
        raise LocalProtocolError("E0", f"not a client intent: {type(intent).__name__}")
    b = _Build(engine)
    handler(b, intent)
    return b.done()
