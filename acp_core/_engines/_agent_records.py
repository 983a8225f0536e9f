"""The records the agent engine keeps between steps: its turn and its permission requests.

Owns: `Turn` (the foreground work in progress), `PendingPermission` (a request the client has
not answered yet) and `PermissionDecision` (how one was answered): plain frozen values, the
leaf every agent step module may import.
Must not know: how a step makes, reads or judges them (`_engines/_agent_turn.py`,
`_engines/_agent_permissions.py`), nor `AgentEngine`, which holds them (`_engines/_agent.py`).
"""

from __future__ import annotations

from acp_core._wire._jsonrpc import PermissionOption
from acp_core._wire._value import frozen

__all__ = ["PendingPermission", "PermissionDecision", "Turn"]


@frozen
class Turn:
    """The foreground work in progress.

    Attributes:
        prompt_id: id of the prompt that started it; None for agent-initiated work.
        user_message_id: id under which the user message was reported.
        cancel_requested: the client sent `session/cancel` during this turn (as read through
            `AgentEngine.turn`: the conversation machine holds the cancel, so the value
            stored with the engine is never consulted).
    """

    prompt_id: int | str | None
    prompt_driven: bool
    user_message_id: str | None
    cancel_requested: bool = False


@frozen
class PendingPermission:
    """A permission request the client has not answered yet.

    Attributes:
        foreground: it blocks the current turn (False: background, a child's, or its turn
            has ended), as read through `AgentEngine.pending`: the conversation machine knows
            which requests the current work asked (`Conversation.blocks`), so the value
            stored with the engine is never consulted.
        session_id: the child whose request it is (Preview); None: the agent's own.
    """

    request_id: int | str | None
    tool_call_id: str | None
    options: tuple[PermissionOption, ...]
    foreground: bool = False
    session_id: str | None = None


@frozen
class PermissionDecision:
    """How a permission request was answered.

    Attributes:
        approved: True only for a selected option whose kind is `allow_*`.
        outcome: `selected`, `cancelled`, `error` or the unknown outcome's tag.
        option_id: the selected option, if any.
    """

    approved: bool
    outcome: str
    option_id: str | None = None
