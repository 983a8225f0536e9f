"""The host events one step of a session's client engine implies, on the client connection.

Owns: `engine_events` (by comparing the session's engine before and after the step: a
permission request that now waits for the host, one that left without the host's answer,
a view that is a new value, a prompt of the host's whose work ended or that was rejected)
and `update_run_events`, its twin for a run of updates received as one engine step.
Must not know: how the engine decides (it reads the engine's public fields only), the wire,
the connection's own state.
"""

from __future__ import annotations

from typing import Final

from acp_core._rules._predicates import request_key
from acp_core._wire._fastnew import fast_constructor
from acp_core._wire._json import UNSET, JsonObject, freeze_json, thaw_json
from acp_core._wire._jsonrpc import (
    CancelRequestNotification,
    ErrorResponse,
    RequestPermissionRequest,
    ToolCallPermissionSubject,
    UpdateSessionNotification,
)
from acp_core._wire._updates import SessionUpdate

from ._client import ClientEngine
from ._connection_values import (
    PermissionRequested,
    PromptEnded,
    RequestCancelled,
    ViewChanged,
)
from ._intents import AnswerPermission, Received

__all__ = ["engine_events", "update_run_events"]

#: `ViewChanged` without attrs' frozen `__init__` (one per update of a run: the bulk of the
#: events a client connection makes).
_MAKE_VIEW_CHANGED: Final = fast_constructor(ViewChanged)


def _cause(intent: object) -> SessionUpdate | None:
    # What changed the view: a received update, or a permission request's tool call (T10).
    if type(intent) is not Received:
        return None
    message = intent.message
    if type(message) is UpdateSessionNotification:
        return message.update
    if type(message) is RequestPermissionRequest and isinstance(
        message.subject, ToolCallPermissionSubject
    ):
        return message.subject.tool_call
    return None


def _error(intent: object, request_id: object) -> JsonObject | None:
    message = intent.message if type(intent) is Received else None
    if not isinstance(message, ErrorResponse) or message.id != request_id:
        return None
    raw: dict[str, object] = {"code": message.error.code, "message": message.error.message}
    if message.error.data is not UNSET:
        raw["data"] = thaw_json(message.error.data)
    frozen: JsonObject = freeze_json(raw)  # type: ignore[assignment]
    return frozen


def engine_events(
    session_id: str,
    before: ClientEngine,
    after: ClientEngine,
    intent: object,
    open_prompts: tuple[int | str | None, ...],
) -> tuple[list[object], tuple[int | str | None, ...]]:
    """The events of one engine step of `session_id` (in this order: permissions, the view,
    prompts ended), and the host's prompts still open after it.

    Identity comparisons only (an engine keeps a field's value when nothing changed), so the
    cost does not grow with the session's history."""
    events: list[object] = []
    if after.pending is not before.pending:
        if type(intent) is Received and type(intent.message) is RequestPermissionRequest:
            asked = intent.message
            if asked.id in after.pending and asked.id not in before.pending:
                events.append(PermissionRequested(session_id, asked.id, after.pending[asked.id]))
        elif type(intent) is not AnswerPermission:
            # Left without the host's answer: withdrawn by the agent (Q17), or answered
            # `cancelled` by the client's own cancel (C15).
            withdrawn = (
                (intent.message.request_id,)
                if type(intent) is Received and type(intent.message) is CancelRequestNotification
                else tuple(before.pending)
            )
            events.extend(
                RequestCancelled(rid)
                for rid in withdrawn
                if rid in before.pending and rid not in after.pending
            )
    if after.view is not before.view:
        events.append(ViewChanged(session_id, _cause(intent)))
    return events, _prompts_ended(events, session_id, before, after, intent, open_prompts)


def update_run_events(
    session_id: str,
    before: ClientEngine,
    after: ClientEngine,
    messages: list[UpdateSessionNotification],
    changed: list[bool],
    open_prompts: tuple[int | str | None, ...],
) -> tuple[list[object], tuple[int | str | None, ...]]:
    """`engine_events` of the steps of `_client.receive_updates`, one per message of
    `messages` (`changed`: whether each changed the view; only the last can have changed
    the prompt records), joined in order: the same events, and the prompts still open."""
    make = _MAKE_VIEW_CHANGED
    taken = len(changed)
    events: list[object]
    if all(changed):  # (the common case: every message taken changed the view)
        taken_messages = messages if taken == len(messages) else messages[:taken]
        events = [make(session_id, m.update) for m in taken_messages]
    else:
        shown = zip(messages, changed, strict=False)  # the messages taken, with their flags
        events = [make(session_id, m.update) for m, shows in shown if shows]
    last = Received(messages[len(changed) - 1])
    return events, _prompts_ended(events, session_id, before, after, last, open_prompts)


def _prompts_ended(
    events: list[object],
    session_id: str,
    before: ClientEngine,
    after: ClientEngine,
    intent: object,
    open_prompts: tuple[int | str | None, ...],
) -> tuple[int | str | None, ...]:
    # A prompt of the host's whose work ended, or that was rejected: `PromptEnded`.
    if not open_prompts or after.sent is before.sent:
        return open_prompts
    still: list[int | str | None] = []
    for request_id in open_prompts:
        record = after.sent.get(request_key(request_id))
        if record is not None and record.state == "rejected":
            error = _error(intent, request_id)
            events.append(PromptEnded(session_id, request_id, None, error))
        elif record is not None and record.ended:
            events.append(PromptEnded(session_id, request_id, record.stop_reason))
        else:
            still.append(request_id)
    return tuple(still)
