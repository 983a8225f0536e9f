"""The prompts the client sends: sending, retrying, and what their answers say.

Owns: the steps of `SendPrompt` (a fresh request id, E2; a new `idempotencyKey` only, C42,
C43, the Preview's) and `RetryPrompt` (the same key on every attempt, C42, C45, on this
connection or, for a submission carried over by `ResumeSession(unanswered=...)`, the next
one), `prompt_answered` (a prompt's result or error: `accepted` / `rejected`, a `messageId`
bound at once, C44; a malformed result is the machine's R1, kept as a violation),
`unanswered` (the keyed submissions to retry after a lost connection, C45) and
`bind_lost`; `Build.sent` and `Build.order` are this module's (the machine's binding is
copied in by `_engines/_client_build.py`, Q7).
Must not know: how answers are routed here (`_engines/_client_receive.py`), how a resumed
engine takes the carried submissions (`_engines/_client_resume.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final

import attrs

from acp_core._errors import LocalProtocolError
from acp_core._rules._check_preview_prompts import c43_breach
from acp_core._rules._predicates import RequestKey, request_key
from acp_core._state._pcoll import PMap
from acp_core._wire._fields import PREVIEW_NAME
from acp_core._wire._json import UNSET, Unset
from acp_core._wire._jsonrpc import ErrorResponse, PromptRequest, Response

from ._client_build import Build, ClientView
from ._client_records import SentPrompt
from ._intents import SendPrompt
from ._intents_preview import RetryPrompt

__all__ = [
    "PROMPT_STEPS",
    "bind_lost",
    "idempotency_key",
    "prompt_answered",
    "unanswered",
]


def idempotency_key(engine: ClientView, key: str | None, content: object) -> str | Unset:
    """The key a new `SendPrompt` of `content` carries (C42, C43): none, or one never used
    before in this session (a retry goes through `RetryPrompt`, which sends the same key
    again)."""
    if key is None:
        return UNSET
    if not engine.revision.includes(PREVIEW_NAME):
        raise LocalProtocolError(
            "E0", f"idempotencyKey is a Preview field; revision {engine.revision.name} lacks it"
        )
    for record in engine.sent.values():
        if record.request is not None and record.request.idempotency_key == key:
            # Another content under the key is C43, as the checker's `c43_breach` says; the
            # same content again is a retry, which the checker accepts: sending it through
            # SendPrompt instead of RetryPrompt is refused as a policy (under C43's id).
            found = c43_breach(key, record.request.prompt, content)
            rule, why = found or ("C43", f"idempotencyKey {key!r} already names a submission")
            raise LocalProtocolError(
                rule,
                f"{why} (prompt {record.request_id!r}): retry it with RetryPrompt, or use a "
                "new key",
            )
    return key


def unanswered(prompts: Iterable[SentPrompt]) -> tuple[PromptRequest, ...]:
    """The keyed submissions among `prompts` (in sending order) that no attempt has been
    answered for, oldest first: what a client retries after its connection was lost (C45).
    Each is the request as first sent (its id names it for `RetryPrompt`); a prompt without a
    key is never among them (C45: without a key, no automatic retry)."""
    answered: set[str] = set()
    first: dict[str, PromptRequest] = {}
    for record in prompts:
        request = record.request
        key = None if request is None else request.idempotency_key
        if request is None or not isinstance(key, str):
            continue
        first.setdefault(key, request)
        if record.state in ("accepted", "rejected"):
            answered.add(key)
    return tuple(r for k, r in first.items() if k not in answered)


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


def _send_prompt(b: Build, intent: SendPrompt) -> None:
    engine = b.engine
    request_id = intent.request_id
    if request_id is None:
        request_id = engine.next_request_id
        while request_key(request_id) in engine.sent:
            request_id += 1
        b.next_request_id = request_id + 1
        b.ids.append(request_id)
    elif request_key(request_id) in engine.sent or request_key(request_id) in engine.requests:
        raise LocalProtocolError("E2", f"request id {request_id!r} was already used")
    key_ = idempotency_key(engine, intent.idempotency_key, intent.content)
    request = PromptRequest(request_id, engine.session_id, intent.content, intent.meta, key_)
    b.send(request)
    key = request_key(request_id)
    record = SentPrompt(request_id, request=request)
    b.sent = engine.sent.set(key, record)
    b.order = engine.order.append(key)


def _retry_prompt(b: Build, intent: RetryPrompt) -> None:
    """C42, C45: send the prompt again with its content and its key; never without a key."""
    first = b.sent.get(request_key(intent.original))
    request: PromptRequest | None = None if first is None else first.request
    if request is None:
        raise LocalProtocolError("E2", f"no prompt was sent with id {intent.original!r}")
    if not isinstance(request.idempotency_key, str):
        # C45 (a SHOULD of the client) as a policy: no recording tells a retry without a key
        # from a new prompt of the same words, so no checker judges it.
        raise LocalProtocolError("C45", "a prompt sent without an idempotencyKey is never retried")
    request_id = b.request_id(intent.request_id)
    retry = attrs.evolve(request, id=request_id)
    b.send(retry)
    key = request_key(request_id)
    record = SentPrompt(request_id, request=retry, retry_of=intent.original)
    b.sent = b.sent.set(key, record)
    b.order = b.order.append(key)


def prompt_answered(b: Build, message: Response | ErrorResponse) -> bool:
    """The answer to a prompt of ours still `sent`: its record says so (False: not one)."""
    sent = b.sent
    key = request_key(message.id)
    prompt = sent.get(key)
    if prompt is None or prompt.state != "sent":
        return False
    if isinstance(message, ErrorResponse):
        answered = attrs.evolve(prompt, state="rejected")
    else:
        # A malformed result still answers the prompt: the conversation machine judged it
        # (`Build.receive`, R1's guard `_r1`; J45 for its `_meta`) and the engine keeps that
        # finding, as a client keeps every fault of the agent (issue 21 item 3).
        answered = attrs.evolve(prompt, state="accepted")  # the machine binds the id (Q7)
        mid = message.result.get("messageId") if isinstance(message.result, Mapping) else None
        if b.engine.revision.prompt_result_has_message_id and isinstance(mid, str):
            # A keyed retry the machine resolved to an earlier insertion leaves its prompts
            # at once (R67): its record takes the messageId here (C44).
            answered = attrs.evolve(answered, message_id=mid)
    b.sent = bind_lost(sent.set(key, answered), answered)
    return True


PROMPT_STEPS: Final[dict[type[Any], Callable[[Build, Any], None]]] = {
    SendPrompt: _send_prompt,
    RetryPrompt: _retry_prompt,
}
