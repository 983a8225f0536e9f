"""The agent engine's prompt keys (the Preview's `idempotencyKey`).

Owns: what the agent engine does with a prompt's `idempotencyKey` (R67, R68: insert once,
answer a retry of an inserted prompt with the original `messageId`, let a retry of a held
prompt share the original's outcome, P15: a released key is free again; the ledger itself is
`_engines/_idempotency.py`), kept in `Build.keys`.
Must not know: I/O; how prompts are accepted or turns run (`_engines/_agent_turn.py`), or why
a held prompt is released (a rejection, `_engines/_agent_turn.py`; a cancel,
`_engines/_agent_cancel.py`).

The ledger lives in the engine (`AgentEngine.keys`), so it is remembered with the session
(R69): an engine restored from storage keeps answering retries after a reconnect.
"""

from __future__ import annotations

from acp_core._wire._codec import encode_result
from acp_core._wire._json import JsonObject
from acp_core._wire._jsonrpc import (
    ErrorResponse,
    PromptRequest,
    PromptResult,
    Response,
    RpcError,
)

from ._agent_build import Build
from ._idempotency import ANSWER, JOIN, admit, inserted, released

__all__ = ["keyed_prompt", "prompt_inserted", "prompt_released"]


def keyed_prompt(b: Build, prompt: PromptRequest) -> bool:
    """A received prompt (R67, R68). True: a new attempt, held like any prompt. False: a
    retry, answered now with the inserted original's `messageId`, or joined to the held
    original (answered with its outcome later)."""
    key = prompt.idempotency_key
    if not isinstance(key, str):
        return True
    ledger, admission = admit(b.keys, key, prompt.id)
    b.keys = ledger
    if admission.kind == ANSWER:
        result = encode_result(PromptResult(admission.message_id), revision=b.engine.revision)  # type: ignore[arg-type]
        b.send(Response(prompt.id, result))  # type: ignore[arg-type]
        return False
    return admission.kind != JOIN


def prompt_inserted(b: Build, prompt: PromptRequest, message_id: str, result: JsonObject) -> None:
    """The keyed prompt was inserted as `message_id`: remember it; joined retries get the
    same result."""
    key = prompt.idempotency_key
    if not isinstance(key, str):
        return
    ledger, joined = inserted(b.keys, key, message_id)
    b.keys = ledger
    for request_id in joined:
        b.send(Response(request_id, result))


def prompt_released(b: Build, prompt: PromptRequest, error: RpcError) -> None:
    """The keyed prompt was rejected or cancelled before insertion: the key is free again
    and joined retries get the same error (P15)."""
    key = prompt.idempotency_key
    if not isinstance(key, str):
        return
    ledger, joined = released(b.keys, key)
    b.keys = ledger
    for request_id in joined:
        b.send(ErrorResponse(request_id, error))
