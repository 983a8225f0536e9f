"""Which rule naming a session the client does not know yet breaks, by how it is named.

Owns: `naming_rule` (the one home of R47 and R56: the rule a way of naming a session
breaks) and `named_sessions` (the ids an update names besides its envelope, each with that
rule), read by the checker (`_rules/_check_preview*.py`) and the agent engine alike.
Must not know: which sessions are known (the checker's `PreviewState` and the engine's tree
decide that), how an update names a session (`_state/_reduce_children.session_names` reads
that; the state layer names no rule).
"""

from __future__ import annotations

from typing import Literal, TypeAlias

from acp_core._state._reduce_children import NameKind, session_names
from acp_core._wire._updates import SessionUpdate

__all__ = ["Naming", "named_sessions", "naming_rule"]

#: How a session is named before the client may know it: an update's or a request's
#: envelope, or one of the ways an update names a session besides it (`NameKind`).
Naming: TypeAlias = Literal["envelope"] | NameKind


def naming_rule(how: Naming) -> str:
    """The rule that naming a session before its `subagent_update` breaks, by how it is
    named: R47 for traffic on it (an envelope) or a `session_message`'s sender or recipient,
    R56 for a `session` tool-content item, R74 for a background list's `subagent` entry
    (judged with its list, `_rules/_check_preview_updates.py`)."""
    if how == "content":
        return "R56"
    if how == "background":
        return "R74"
    return "R47"


def named_sessions(update: SessionUpdate) -> list[tuple[str, str]]:
    """The session ids `update` names besides its envelope, each with the rule naming it
    before the client knows it breaks (`naming_rule`)."""
    return [(sid, naming_rule(how)) for sid, how in session_names(update)]
