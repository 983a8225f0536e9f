"""The records the client engine keeps of the prompts it sent.

Owns: `SentPrompt` (what the client knows of one prompt it sent): a plain frozen value, the
leaf every client step module may import.
Must not know: how the records are made and kept up to date (`_engines/_client_prompts.py`,
`_engines/_client_build.py` copies the machine's binding into them), nor `ClientEngine`,
which holds them (`_engines/_client.py`, with `sent_prompt` and `prompt_message_id`).
"""

from __future__ import annotations

import attrs

from acp_core._wire._jsonrpc import PromptRequest
from acp_core._wire._value import frozen

__all__ = ["SentPrompt"]


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
