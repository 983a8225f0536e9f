"""The prompt records of the client engine: `SentPrompt` and the queries that read them.

Owns: `SentPrompt` (what the client knows of one prompt it sent), `sent_prompt` and
`prompt_message_id` (reading one record off a `ClientEngine`).
Must not know: how the records are kept up to date (the client engine's step does that),
I/O, clocks, randomness, the agent engine.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import attrs

from acp_core._rules._predicates import request_key
from acp_core._wire._jsonrpc import PromptRequest
from acp_core._wire._value import frozen

if TYPE_CHECKING:
    from ._client import ClientEngine

__all__ = [
    "SentPrompt",
    "prompt_message_id",
    "sent_prompt",
]


@frozen
class SentPrompt:
    """A prompt this client sent.

    Attributes:
        request_id: its JSON-RPC id.
        state: `sent`, `accepted` (answered `{}`), `rejected` (answered with an error; a
            rejected prompt never has work) or `lost` (sent on an earlier connection that was
            lost before the answer; carried over by `ResumeSession(unanswered=...)` to be
            retried with `RetryPrompt`, C45).
        message_id: the user message the agent reported for it, once bound (Q7).
        ended: the idle that ends its work arrived.
        stop_reason: that idle's stop reason (None while running, or when it had none).
        request: the request as sent (what `RetryPrompt` sends again, C42, C45).
        retry_of: for a retry, the request id of the first attempt.
    """

    request_id: int | str | None
    state: str = "sent"
    message_id: str | None = None
    ended: bool = False
    stop_reason: str | None = None
    request: PromptRequest | None = attrs.field(default=None, eq=False)  # a record, not identity
    retry_of: int | str | None = None


def sent_prompt(client: ClientEngine, request_id: int | str | None) -> SentPrompt | None:
    """The record of the prompt `request_id`: whether it was accepted, its user message, and
    whether its work ended (`ended`) with which stop reason (`stop_reason`)."""
    return client.sent.get(request_key(request_id))


def prompt_message_id(client: ClientEngine, request_id: int | str | None) -> str | None:
    """The user message id the agent reported for the prompt `request_id` (Q7)."""
    prompt = sent_prompt(client, request_id)
    return None if prompt is None else prompt.message_id
