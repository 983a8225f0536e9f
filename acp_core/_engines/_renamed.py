"""The intent names of 0.1 that collided with value names, kept as aliases for one release.

The naming convention (docs/concepts.md): an intent is an imperative verb phrase (`Send...`,
`Report...`, `Start...`, `Finish...`, `Patch...`) and never starts with `Update`, so it can
never read as a value's words reversed (`ToolCallUpdate` is the update value, `PatchToolCall`
the intent that sends one). This module knows only the old names; it must not grow new ones.
"""

from __future__ import annotations

from acp_core._engines._intents import PatchSessionInfo, PatchTerminal, PatchToolCall, ReportPlan

#: Deprecated alias of `PatchToolCall` (the 0.1 name), removed in 0.3.
UpdateToolCall = PatchToolCall
#: Deprecated alias of `ReportPlan` (the 0.1 name), removed in 0.3.
UpdatePlan = ReportPlan
#: Deprecated alias of `PatchTerminal` (the 0.1 name), removed in 0.3.
UpdateTerminal = PatchTerminal
#: Deprecated alias of `PatchSessionInfo` (the 0.1 name), removed in 0.3.
UpdateSessionInfo = PatchSessionInfo

#: Old intent name -> new intent name.
RENAMED: dict[str, str] = {
    "UpdateToolCall": "PatchToolCall",
    "UpdatePlan": "ReportPlan",
    "UpdateTerminal": "PatchTerminal",
    "UpdateSessionInfo": "PatchSessionInfo",
}

__all__ = ["RENAMED", "UpdatePlan", "UpdateSessionInfo", "UpdateTerminal", "UpdateToolCall"]
