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

#: The public submodules that are a name's home, in the order `moved_warning` looks.
HOMES: tuple[str, ...] = (
    "intents", "values", "connection", "engines", "codec", "sessions", "checker", "v1", "errors",
)  # fmt: skip

__all__ = [
    "HOMES",
    "RENAMED",
    "UpdatePlan",
    "UpdateSessionInfo",
    "UpdateTerminal",
    "UpdateToolCall",
    "moved_warning",
]


def moved_warning(where: str, name: str, homes: dict[str, tuple[str, ...]]) -> str:
    """The `DeprecationWarning` text for `where.name`, a 0.1 name that moved or was renamed.

    `homes` maps each public submodule to its `__all__` (the caller imports them: this
    module must not import the package)."""
    new = RENAMED.get(name, name)
    home = next((sub for sub in HOMES if new in homes.get(sub, ())), "intents")
    if new != name:
        return (
            f"{where}.{name} was renamed: use acp_core.{home}.{new} "
            "(the 0.1 name goes in 0.3; docs/api.md 'Names moved in 0.2')"
        )
    return (
        f"{where}.{name} moved: import it from acp_core.{home} "
        "(the root alias goes in 0.3; docs/api.md 'Names moved in 0.2')"
    )
