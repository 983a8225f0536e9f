"""Protocol revisions: what differs between the v2 drafts acp-core speaks, as a value.

Owns: `Revision` and the two known drafts. Engines and the checker take a revision argument
(default `V2_2026_08`), so supporting a later draft is a parameter, not a fork.
Must not know: anything else.
"""

from __future__ import annotations

from typing import Final

import attrs

__all__ = ["DEFAULT_REVISION", "V2_2026_08", "V2_2026_11", "Revision"]


@attrs.frozen
class Revision:
    """One v2 draft and the rules that differ in it.

    Attributes:
        name: the draft's date, e.g. ``2026-08``.
        schema_version: the schema version it ships with.
        prompt_result_has_message_id: the `session/prompt` result carries the inserted user
            message's `messageId` (2026-11) instead of being `{}` (2026-08).
        meta_patch_merges: `_meta` patches merge by top-level key (2026-11) instead of
            replacing the object (2026-08).
        stop_reasons, tool_statuses: the known (non-extension) values of these open enums.
    """

    name: str
    schema_version: str
    prompt_result_has_message_id: bool
    meta_patch_merges: bool
    stop_reasons: frozenset[str]
    tool_statuses: frozenset[str]


_STOP: Final = frozenset({"end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled"})
_STATUS: Final = frozenset({"pending", "in_progress", "completed", "failed", "cancelled"})

#: The stable v2 draft of 2026-08 (schema 2.0.0-alpha.3): `session/prompt` answers `{}`.
V2_2026_08: Final = Revision("2026-08", "2.0.0-alpha.3", False, False, _STOP, _STATUS)

#: The later draft of 2026-11 (TypeScript SDK 2.4.0): the prompt result carries `messageId`,
#: `_meta` patches merge by key, stop reason `error` and tool status `paused` exist.
V2_2026_11: Final = Revision(
    "2026-11", "2.4.0 (SDK bundle)", True, True, _STOP | {"error"}, _STATUS | {"paused"}
)

#: The revision used when none is given.
DEFAULT_REVISION: Final = V2_2026_08
