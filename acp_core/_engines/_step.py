"""`step`: one entry point for both engines (dispatch on the engine's type).

Owns: nothing but the dispatch. Must not know: what any intent means.
"""

from __future__ import annotations

from typing import overload

from acp_core._errors import ArgumentError

from ._agent import AgentEngine, agent_step
from ._client import ClientEngine, client_step
from ._intents import Step
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

    Pure: the given engine is unchanged; on error nothing was built.

    Raises:
        LocalProtocolError: the intent is illegal in the engine's current state.
        RemoteProtocolError: a received message breaks the protocol.
        ArgumentError: `engine` is not an engine (also a `TypeError`).
    """
    if type(engine) is AgentEngine:
        return agent_step(engine, intent)
    if type(engine) is ClientEngine:
        return client_step(engine, intent)
    msg = f"not an engine: {type(engine).__name__}"
    raise ArgumentError(msg)
