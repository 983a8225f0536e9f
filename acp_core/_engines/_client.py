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
- Every message sent and received goes through the conversation machine
  (`_conversation.observe`), which holds the lifecycle: what the agent breaks is kept in
  `violations` (the same `Violation` values `check_trace` returns for this recording; the
  index counts the messages this engine sent and received), what this client would break
  is refused with `LocalProtocolError`. The same single-message checks as the checker run on
  what the agent sends.
- Prompts are bound to the user message the agent reports (Q7), as the machine binds them:
  the first *new* message id of a user-message update binds to the oldest unbound prompt,
  first in first out; a result that carries a `messageId` (2026-11 revision) binds directly,
  and then FIFO binding is not used (the user message may arrive before the result that
  names it). When the idle that ends a prompt's work arrives, its record says so
  (`SentPrompt.ended`, `stop_reason`; `sent_prompt` reads it).
- On cancel the client answers every pending permission request with the `cancelled` outcome
  (C15, 2026-08 only), and any that arrives before the work goes idle too; from 2026-11 on they
  stay open (C40: background requests must), the agent withdraws the cancelled work's ones
  with `$/cancel_request` (R71), and a `$/cancel_request` for an open request is answered
  `cancelled` (Q17, C40) at every revision.
- At the Preview, traffic for another session id is a child's (C28) or waits for its
  announcement (P3); `_engines/_client_preview.py` owns it and the Preview intents.
- Unknown requests are answered with -32601 (C26); notifications are never answered (C25).
"""

from __future__ import annotations

import functools
from collections.abc import Mapping
from typing import Any, Final

import attrs

from acp_core._errors import AcpError, LocalProtocolError, RemoteProtocolError
from acp_core._rules._check import Violation
from acp_core._rules._check_message import (
    MessageRules,
    StateSeen,
    plain_chunk_role,
    plain_tool_chunk,
    update_findings,
)
from acp_core._rules._conversation import Conversation, quiet_update
from acp_core._rules._predicates import RequestKey, request_key
from acp_core._state._fold import fold
from acp_core._state._pcoll import PMap, PVec, in_order
from acp_core._state._reduce import reduce
from acp_core._state._reduce_children import SessionTree, new_tree, open_session
from acp_core._state._session_state import SessionState, new_session
from acp_core._wire._codec import decode_prompt_result, encode_result
from acp_core._wire._json import UNSET, JsonValue, freeze_json
from acp_core._wire._jsonrpc import (
    CancelledOutcome,
    CancelRequestNotification,
    CancelSessionNotification,
    ErrorCode,
    ErrorResponse,
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
from acp_core._wire._revision import DEFAULT_REVISION, Revision
from acp_core._wire._updates import (
    SessionUpdate,
    ToolCallContentChunk,
    ToolCallStatus,
    ToolCallUpdate,
)
from acp_core._wire._updates_preview import ReplayComplete, SubagentUpdate
from acp_core._wire._value import frozen

from . import _client_preview as preview
from ._client_build import Build as _Build
from ._client_prompts import SentPrompt, prompt_message_id, sent_prompt
from ._intents import AnswerPermission, Received, SendCancel, SendPrompt, Step
from ._request_ids import REQUESTS, id_refusal, valid_request_id

__all__ = [
    "ClientEngine",
    "SentPrompt",
    "client_step",
    "new_client",
    "prompt_message_id",
    "receive_updates",
    "sent_prompt",
]


@frozen
class ClientEngine:
    """The client side of one session (a value).

    Attributes:
        session: what the agent reported, folded.
        view: `session` plus the local cancel marks: what a UI should show.
        revision: the protocol revision spoken.
        sent: every prompt sent, by request key (`prompts` lists them in order).
        order: the request keys of `sent`, in sending order.
        pending: permission requests not answered yet, by request id.
        work_tool_calls: tool calls of the current foreground work (Q18).
        next_request_id: next JSON-RPC id for requests this client sends.
        conversation: the lifecycle of this session, as the conversation machine sees it.
        children: the Preview's child sessions, their views and links (C27, C28;
            `_engines/_client_preview.py`); `lifecycles`: a conversation machine per child.
        requests: `tool_call/cancel` / `terminal/cancel` requests not answered yet, by
            request key: (method, session id).
        violations: what the agent broke, in the order received (`check_trace`'s values).
        messages: how many messages this engine sent and received.
    """

    session: SessionState
    view: SessionState
    revision: Revision = DEFAULT_REVISION
    sent: PMap[RequestKey, SentPrompt] = attrs.field(factory=PMap)
    order: PVec[RequestKey] = attrs.field(factory=PVec)
    pending: PMap[int | str | None, RequestPermissionRequest] = attrs.field(factory=PMap)
    work_tool_calls: PMap[str, bool] = attrs.field(factory=PMap)
    next_request_id: int = 0
    conversation: Conversation = attrs.field(factory=Conversation.start)
    violations: tuple[Violation, ...] = ()
    children: SessionTree = attrs.field(factory=new_tree)
    lifecycles: PMap[str, Conversation] = attrs.field(factory=PMap)
    requests: PMap[RequestKey, tuple[str, str]] = attrs.field(factory=PMap)
    # How many messages this engine sent and received: the index of its violations. A
    # position label, not state: left out of equality.
    messages: int = attrs.field(default=0, eq=False)

    @property
    def session_id(self) -> str:
        """The session this client talks to."""
        return self.session.session_id

    @property
    def prompts(self) -> tuple[SentPrompt, ...]:
        """Every prompt sent, in order (built on each read; `sent_prompt` reads one)."""
        return tuple(self.sent[key] for key in self.order)

    @property
    def unanswered(self) -> tuple[PromptRequest, ...]:
        """The keyed submissions no attempt of which was answered, oldest first: hand them to
        `ResumeSession(unanswered=...)` when the connection was lost (C45)."""
        return preview.unanswered(self)

    @property
    def cancel_requested(self) -> bool:
        """`session/cancel` was sent during foreground work that has not ended yet."""
        return self.conversation.cancel_at is not None


def new_client(session_id: str, *, revision: Revision = DEFAULT_REVISION) -> ClientEngine:
    """A fresh client engine for an established session (after `session/new`)."""
    state = new_session(session_id)
    tree = open_session(new_tree(), session_id, revision=revision)
    return ClientEngine(
        state, state, revision, conversation=Conversation.start(revision), children=tree
    )


@functools.cache
def _cancelled(revision: Revision) -> JsonValue:
    # Built on first use, not at import: encoding derives the codec's tables (issue 15).
    return freeze_json(
        encode_result(RequestPermissionResult(CancelledOutcome()), revision=revision)
    )


def _apply(b: _Build, update: SessionUpdate, *, subject: bool = False) -> None:
    """Fold one agent update into both the session and the view, with the bookkeeping.

    `subject`: the update is the `tool_call` subject of a permission request (T10). It
    restates the tool call rather than reporting a new status, so it leaves a local cancel
    mark in the view alone (only a status the agent *reports* wins over it, Q19).
    """
    before: SessionState = b.get("session")
    view: SessionState = b.get("view")
    revision = b.engine.revision
    if not subject:
        b.record(update_findings(revision, before, update))
    session = reduce(before, update, revision=revision)
    view_update = update
    if subject and isinstance(update, ToolCallUpdate):
        shown = view.tool_calls.get(update.tool_call_id)
        known = before.tool_calls.get(update.tool_call_id)
        if shown is not None and known is not None and shown.status != known.status:
            view_update = attrs.evolve(update, status=UNSET)
    if view is before and view_update is update:
        # No local mark sets the view apart: it is the session, and reducing it a second
        # time would build the same value again (reduce is a pure function of its inputs).
        shown_state = session
    else:
        shown_state = reduce(view, view_update, revision=revision)
    b.set(session=session, view=shown_state)
    was_idle = before.foreground.state == "idle"
    now_idle = session.foreground.state == "idle"
    if was_idle and not now_idle:
        b.set(work_tool_calls=PMap())  # new foreground work starts (Q18)
    if not now_idle and isinstance(update, (ToolCallUpdate, ToolCallContentChunk)):
        b.set(work_tool_calls=b.get("work_tool_calls").set(update.tool_call_id, True))


def _answer_cancelled(b: _Build, request_id: int | str | None) -> None:
    pending: PMap[int | str | None, RequestPermissionRequest] = b.get("pending")
    asked = pending.get(request_id)
    b.send(
        Response(request_id, _cancelled(b.engine.revision)),
        None if asked is None else asked.session_id,
    )
    b.set(pending=pending.delete(request_id))


# -- client intents ------------------------------------------------------------------------


def _send_prompt(b: _Build, intent: SendPrompt) -> None:
    engine = b.engine
    request_id = intent.request_id
    if request_id is None:
        request_id = engine.next_request_id
        while request_key(request_id) in engine.sent:
            request_id += 1
        b.set(next_request_id=request_id + 1)
        b.ids.append(request_id)
    elif request_key(request_id) in engine.sent or request_key(request_id) in engine.requests:
        raise LocalProtocolError("E2", f"request id {request_id!r} was already used")
    key_ = preview.idempotency_key(engine, intent.idempotency_key)
    request = PromptRequest(request_id, engine.session_id, intent.content, intent.meta, key_)
    b.send(request)
    key = request_key(request_id)
    record = SentPrompt(request_id, request=request)
    b.set(sent=engine.sent.set(key, record), order=engine.order.append(key))


def _send_cancel(b: _Build, intent: SendCancel) -> None:
    engine = b.engine
    b.send(CancelSessionNotification(engine.session_id))
    if engine.revision.applies("C15"):  # 2026-08; later C40 leaves them open (background)
        for request_id, asked in in_order(engine.pending):
            if asked.session_id == engine.session_id:
                _answer_cancelled(b, request_id)  # C15
    if engine.session.foreground.state == "idle":
        return  # nothing is running: nothing to mark, and expect no reply (Q20)
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
    result = encode_result(
        RequestPermissionResult(SelectedOutcome(intent.option_id)), revision=b.engine.revision
    )
    b.send(Response(intent.request_id, freeze_json(result)), request.session_id)
    b.set(pending=b.engine.pending.delete(intent.request_id))


# -- received messages ---------------------------------------------------------------------


def _remote(rule: str, detail: str) -> RemoteProtocolError:
    return RemoteProtocolError(rule, detail, ErrorCode.INVALID_REQUEST)


def _prompt_answered(b: _Build, message: Response | ErrorResponse) -> bool:
    sent: PMap[RequestKey, SentPrompt] = b.get("sent")
    key = request_key(message.id)
    prompt = sent.get(key)
    if prompt is None or prompt.state != "sent":
        return False
    if isinstance(message, ErrorResponse):
        answered = attrs.evolve(prompt, state="rejected")
    else:
        try:
            decode_prompt_result(message.result)
        except AcpError:
            raise _remote("R1", f"prompt {message.id!r} answered with a malformed result") from None
        answered = attrs.evolve(prompt, state="accepted")  # the machine binds the id (Q7)
        mid = message.result.get("messageId") if isinstance(message.result, Mapping) else None
        if b.engine.revision.prompt_result_has_message_id and isinstance(mid, str):
            # A keyed retry the machine resolved to an earlier insertion leaves its prompts
            # at once (R67): its record takes the messageId here (C44).
            answered = attrs.evolve(answered, message_id=mid)
    b.set(sent=preview.bind_lost(sent.set(key, answered), answered))
    return True


def _id_refused(b: _Build, request: object) -> bool:
    """An agent request the client cannot serve under its id (null, not a string or an
    integer, or the id of a permission request still pending, a child's included) is answered
    -32600 with `id: null` before any machine sees it: the pending request stays as it was."""
    request_id = getattr(request, "id", None)
    error = id_refusal(request_id, b.get("pending").__contains__)
    if error is None:
        return False
    b.at += 1  # the refused request was received: later indexes stay those of the trace
    if valid_request_id(request_id):
        b.record([("J2", error.message)])  # the reuse a machine would have seen (at its index)
    b.send(ErrorResponse(None, error))
    return True


def _received(b: _Build, intent: Received) -> None:
    message = intent.single
    engine = b.engine
    if isinstance(message, REQUESTS) and _id_refused(b, message):
        return
    session_id = getattr(message, "session_id", engine.session_id)
    if session_id != engine.session_id:
        if not preview.speaks_children(engine.revision) or not isinstance(
            message, (UpdateSessionNotification, RequestPermissionRequest)
        ):
            raise _remote("E3", f"{type(message).__name__} for session {session_id!r}")
        _child_received(b, message)  # C28: a child's traffic, never E3
        return
    if isinstance(message, (Response, ErrorResponse)):
        asked = engine.requests.get(request_key(message.id))
        b.receive(message, None if asked is None else asked[1])
    else:
        b.receive(message)  # before any answer this step sends in reply
    if isinstance(message, UpdateSessionNotification):
        if type(message.update) is ReplayComplete:
            # The marker closes the replay window `resume_sent` opened in the tree; the view
            # keeps no window of its own (it stays what the agent's engine holds).
            preview.child_update(b, message)
            return
        _apply(b, message.update)
        if isinstance(message.update, SubagentUpdate):
            preview.child_update(b, message)  # C27: the child is registered
    elif isinstance(message, RequestPermissionRequest):
        b.record(MessageRules(engine.revision).permission(StateSeen(engine.session), message))
        if isinstance(message.subject, ToolCallPermissionSubject):
            _apply(b, message.subject.tool_call, subject=True)  # T10
        b.set(pending=engine.pending.set(message.id, message))
        if b.conversation.cancel_at is not None and engine.revision.applies("C15"):
            _answer_cancelled(b, message.id)  # C15: everything pending after a cancel
    elif isinstance(message, CancelRequestNotification):
        if message.request_id in engine.pending:
            _answer_cancelled(b, message.request_id)  # Q17
    elif isinstance(message, (Response, ErrorResponse)):
        if not _prompt_answered(b, message) and preview.cancel_answered(b, message) is None:
            raise _remote("E3", f"response {message.id!r} answers no request of this client")
    elif isinstance(message, (Request, PromptRequest)):
        # Every request gets its answer; one the client never serves (a `session/prompt` from
        # the agent: J2, as the machine says) gets method-not-found.
        b.send(ErrorResponse(message.id, RpcError(ErrorCode.METHOD_NOT_FOUND, "Method not found")))
    elif isinstance(message, Notification):
        pass  # C26: unknown notifications are ignored (and never answered, C25)
    else:
        raise _remote("E3", f"a client does not receive {type(message).__name__}")


def _child_received(
    b: _Build, message: UpdateSessionNotification | RequestPermissionRequest
) -> None:
    # Traffic of a child (or of an id nobody announced yet: it waits, P3) at the Preview.
    b.receive(message, message.session_id)
    if isinstance(message, UpdateSessionNotification):
        preview.child_update(b, message)
        return
    if not preview.child_permission(b, message):
        return
    pending: PMap[int | str | None, RequestPermissionRequest] = b.get("pending")
    if isinstance(message.subject, ToolCallPermissionSubject):  # T10, on the child's view
        preview.child_update(
            b, UpdateSessionNotification(message.session_id, message.subject.tool_call)
        )
    b.set(pending=pending.set(message.id, message))


_CLIENT_STEPS: Final[dict[type[Any], Any]] = {
    SendPrompt: _send_prompt,
    SendCancel: _send_cancel,
    AnswerPermission: _answer_permission,
    Received: _received,
    **preview.CLIENT_PREVIEW_STEPS,
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


# -- many updates at once ------------------------------------------------------------------


def receive_updates(
    engine: ClientEngine, messages: list[UpdateSessionNotification]
) -> tuple[ClientEngine, list[bool]]:
    """`client_step(engine, Received(m))` for the messages in order, as one step, up to and
    including the first whose machine step changes the prompt records (a prompt's work
    ended, or a prompt was bound: the connection reports that at its message): the engine
    after them (equal to stepping them one at a time, violations and their indexes
    included) and, for each message taken, whether it changed the view.

    Each message is an agent's update for this very session, neither the Preview's replay
    marker nor a `subagent_update` (the connection routes those alone). Every message goes
    through the session's machine, in order, as `client_step` would. Runs of plain text
    chunks (`plain_chunk_role`) whose message ids keep their roles, and of plain tool
    content chunks (`plain_tool_chunk`) of known tool calls, are then folded at once
    (`fold`: one write per streamed message or tool call): they break no rule of their own,
    move no foreground, and each appends a block, so each changes the view. Every other
    update goes through `_apply`, as `client_step` would."""
    b = _Build(engine)
    sent = engine.sent
    changed: list[bool] = []
    run: list[SessionUpdate] = []
    roles: dict[str, str] = {}  # message id -> role, for the chunks in `run`
    session: SessionState = engine.session  # as of the start of `run`
    for message in messages:
        update = message.update
        moved = False  # only the machine moves the prompt records (`_apply` never does)
        if quiet_update(b.conversation, update):
            b.at += 1  # what `b.receive` does on the machine's quiet path
        else:
            b.receive(message)
            moved = b.get("sent") is not sent
        role = plain_chunk_role(update)
        if role is not None:
            chunk: Any = update
            message_id: str = chunk.message_id
            known = roles.get(message_id)
            if known is None:
                known = session.message_role(message_id)
            if known is None or known == role:
                roles[message_id] = role
                run.append(update)
                changed.append(True)
                if moved:
                    break
                continue
        tool_call_id = plain_tool_chunk(update)
        if tool_call_id is not None and tool_call_id in session.tool_calls:
            # Appended to a known tool call: nothing to find, a new view; the work's tool
            # calls grow as `_apply` grows them (no update of the run moves the foreground).
            if session.foreground.state != "idle":
                b.set(work_tool_calls=b.get("work_tool_calls").set(tool_call_id, True))
            run.append(update)
            changed.append(True)
            if moved:
                break
            continue
        _fold_run(b, run)
        roles.clear()
        view = b.get("view")
        _apply(b, update)
        session = b.get("session")
        changed.append(b.get("view") is not view)
        if moved:
            break
    _fold_run(b, run)
    return b.done().state, changed


def _fold_run(b: _Build, run: list[SessionUpdate]) -> None:
    # Plain chunks move no foreground: only the session and the view change (the view stays
    # the session itself when no local mark sets it apart).
    if not run:
        return
    revision = b.engine.revision
    session: SessionState = b.get("session")
    view: SessionState = b.get("view")
    folded = fold(session, run, revision=revision)
    b.set(session=folded, view=folded if view is session else fold(view, run, revision=revision))
    run.clear()
