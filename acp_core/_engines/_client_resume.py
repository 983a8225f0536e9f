"""A client engine's session resumed (`session/resume`), on this connection or a new one.

Owns: what the client connection tells its engine about a resume it sent and its answer
(`resume_sent`: with a replay cursor, children announced while it is answered replay in their
own windows, P8, C36; `resume_answered`: children still replaying are complete, with a
diagnostic, R57, or truncated, C37), and `carry_prompts`, a resumed session on a new
connection taking the unanswered keyed submissions of the lost one (C42, C43, C45).
Must not know: how the connection sends the resume or reads its answer
(`_engines/_connection_client*.py`), what a step does (`_engines/_client.py` and below). It
sits above `_engines/_client.py`: it takes and returns `ClientEngine` values.
"""

from __future__ import annotations

import attrs

from acp_core._errors import LocalProtocolError
from acp_core._rules._predicates import request_key
from acp_core._state._reduce_children import begin_resume, end_resume
from acp_core._wire._fields import PREVIEW_NAME
from acp_core._wire._jsonrpc import PromptRequest

from ._client import ClientEngine
from ._client_children import speaks_children
from ._client_records import SentPrompt

__all__ = ["carry_prompts", "resume_answered", "resume_sent"]


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
        if not isinstance(request.idempotency_key, str):  # C45 as a policy (_client_prompts)
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
