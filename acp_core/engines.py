"""The agent and client engines and their records (`acp_core.step` drives them).

A public submodule of acp-core (docs/api.md lists each name in its home)."""

from __future__ import annotations

from acp_core._engines._agent import (
    AgentEngine,
    PendingPermission,
    PermissionDecision,
    Turn,
    new_agent,
    permission_decision,
)
from acp_core._engines._client import (
    ClientEngine,
    SentPrompt,
    new_client,
    prompt_message_id,
    sent_prompt,
)
from acp_core._engines._step import (
    step,
)

__all__ = [
    "AgentEngine",
    "ClientEngine",
    "PendingPermission",
    "PermissionDecision",
    "SentPrompt",
    "Turn",
    "new_agent",
    "new_client",
    "permission_decision",
    "prompt_message_id",
    "sent_prompt",
    "step",
]
