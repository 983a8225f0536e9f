"""Every intent: what an agent or client engine is asked to do next (`acp_core.step`).

A public submodule of acp-core (docs/api.md lists each name in its home)."""

from __future__ import annotations

from acp_core._engines._intents import (
    AcceptPrompt,
    AnswerPermission,
    CancelPermission,
    EndTurn,
    FinishToolCall,
    PatchSessionInfo,
    PatchTerminal,
    PatchToolCall,
    Received,
    RejectPrompt,
    ReportAbort,
    ReportPlan,
    ReportUsage,
    ReportUserMessage,
    RequestPermission,
    SendAgentMessage,
    SendAgentText,
    SendCancel,
    SendPrompt,
    SendTerminalOutput,
    SendThought,
    SendToolContent,
    StartToolCall,
    StartWork,
    Step,
)
from acp_core._engines._intents_preview import (  # the 2026-11 draft and the Preview
    AgentIntent,
    CancelChild,
    CancelTerminal,
    CancelToolCall,
    ClientIntent,
    ReportBackground,
    RetryPrompt,
    SendUpdate,
)
from acp_core._engines._renamed import RENAMED, moved_warning

TYPE_CHECKING = False
if TYPE_CHECKING:  # the 0.1 names, for one release: at run time they warn (`__getattr__`)
    from acp_core._engines._renamed import (
        UpdatePlan,
        UpdateSessionInfo,
        UpdateTerminal,
        UpdateToolCall,
    )

__all__ = [
    "AcceptPrompt",
    "AgentIntent",
    "AnswerPermission",
    "CancelChild",
    "CancelPermission",
    "CancelTerminal",
    "CancelToolCall",
    "ClientIntent",
    "EndTurn",
    "FinishToolCall",
    "PatchSessionInfo",
    "PatchTerminal",
    "PatchToolCall",
    "Received",
    "RejectPrompt",
    "ReportAbort",
    "ReportBackground",
    "ReportPlan",
    "ReportUsage",
    "ReportUserMessage",
    "RequestPermission",
    "RetryPrompt",
    "SendAgentMessage",
    "SendAgentText",
    "SendCancel",
    "SendPrompt",
    "SendTerminalOutput",
    "SendThought",
    "SendToolContent",
    "SendUpdate",
    "StartToolCall",
    "StartWork",
    "Step",
    "UpdatePlan",
    "UpdateSessionInfo",
    "UpdateTerminal",
    "UpdateToolCall",
]


def __getattr__(name: str) -> object:
    """The 0.1 intent names (`UpdateToolCall`, ...): their new intent, with a warning."""
    new = RENAMED.get(name)
    if new is None:
        raise AttributeError(f"module 'acp_core.intents' has no attribute {name!r}")
    import warnings

    text = moved_warning("acp_core.intents", name, {"intents": tuple(__all__)})
    warnings.warn(text, DeprecationWarning, stacklevel=2)
    return globals()[new]
