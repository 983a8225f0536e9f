"""`step`: one entry point for both engines (dispatch on the engine's type).

Owns: the dispatch, and a received batch taken apart into its messages in array order.
Must not know: what any intent means.
"""

from __future__ import annotations

from typing import Any, overload

from acp_core._errors import ArgumentError, RemoteProtocolError
from acp_core._rules._check_schema import d1_findings
from acp_core._wire._jsonrpc import Batch, InvalidEntry

from ._agent import AgentEngine, agent_step
from ._client import ClientEngine, client_step
from ._intents import Received, Step
from ._intents_preview import AgentIntent, ClientIntent

__all__ = ["step"]


@overload
def step(engine: AgentEngine, intent: AgentIntent) -> Step[AgentEngine]: ...
@overload
def step(engine: ClientEngine, intent: ClientIntent) -> Step[ClientEngine]: ...
def step(
    engine: AgentEngine | ClientEngine, intent: object
) -> Step[AgentEngine] | Step[ClientEngine]:
    """Apply an intent (or `Received(message)`) to an engine: `(engine', outbound)`.

    Pure: the given engine is unchanged; on error nothing was built. A received `Batch`
    (what `decode_message` gives for a JSON array) is its messages received one after the
    other, in array order, as one step: its outbound is theirs, joined.

    Raises:
        LocalProtocolError: the intent is illegal in the engine's current state.
        RemoteProtocolError: a received message breaks the protocol (for a batch: any of
            its messages, or an entry that did not decode, D1).
        ArgumentError: `engine` is not an engine (also a `TypeError`).
    """
    if type(intent) is Received and type(intent.message) is Batch:
        batched: Step[AgentEngine] | Step[ClientEngine] = _batch(engine, intent.message)
        return batched
    if type(engine) is AgentEngine:
        return agent_step(engine, intent)
    if type(engine) is ClientEngine:
        return client_step(engine, intent)
    msg = f"not an engine: {type(engine).__name__}"
    raise ArgumentError(msg)


def _batch(engine: Any, batch: Batch) -> Any:
    state = engine
    outbound: list[dict[str, Any]] = []
    ids: list[int | str | None] = []
    for item in batch.items:
        if isinstance(item, InvalidEntry):
            ((rule, why),) = d1_findings(invalid=item)  # the checker's words for it
            raise RemoteProtocolError(rule, why, item.code)
        state, sent, *_ = done = step(state, Received(item))
        outbound += sent
        ids += done.ids
    return Step(state, tuple(outbound), tuple(ids))
