"""Building blocks shared by the reducers: diagnostic ids, the patch algebra, state rebuilds.

Owns: the reducer diagnostic rule ids, `patch_meta` (the one place that says what a `_meta`
patch does), session-wide rebuilds (`set_aux`, `diagnose`), base64 decoding of terminal
bytes, and the default records of new entities. State rebuilds go through the named builders
of `_state/_session_state.py` (re-exported here for the reducers), which alone know the hot slot.
Must not know: what any particular update means (the `_reduce_*` modules), JSON, engines.
"""

from __future__ import annotations

import binascii
from typing import Any, Final

from acp_core._errors import Diagnostic
from acp_core._wire._fastnew import evolve_frozen, fast_constructor
from acp_core._wire._json import UNSET, JsonObject, Meta

from ._pcoll import PMap
from ._session_state import (
    SessionState,
    TerminalState,
    ToolCallState,
    add_to_timeline,
    with_aux,
    with_terminals,
)

__all__ = [
    "BAD_BASE64",
    "CHUNK_FOR_UNKNOWN_TOOL_CALL",
    "EMPTY_PMAP",
    "NEW_TERMINAL",
    "NEW_TOOL_CALL",
    "ROLE_MISMATCH",
    "V1_KINDS",
    "V1_KIND_ON_V2",
    "add_to_timeline",
    "b64decode",
    "diagnose",
    "make_terminal",
    "make_tool_call",
    "meta_or_none",
    "patch_meta",
    "set_aux",
    "with_aux",
    "with_terminals",
]

#: Diagnostic rule ids of the reducers (see docs/semantics.md).
ROLE_MISMATCH: Final = "reduce.role-mismatch"  # Q16
CHUNK_FOR_UNKNOWN_TOOL_CALL: Final = "reduce.chunk-for-unknown-tool-call"  # Q6
BAD_BASE64: Final = "reduce.bad-base64"  # Q24
V1_KIND_ON_V2: Final = "reduce.v1-kind-on-v2"  # Q32

V1_KINDS: Final = frozenset({"tool_call", "plan", "current_mode_update"})
EMPTY_PMAP: Final[PMap[Any, Any]] = PMap()
NEW_TOOL_CALL: Final = ToolCallState()
make_tool_call: Final = fast_constructor(ToolCallState)
make_terminal: Final = fast_constructor(TerminalState)
NEW_TERMINAL: Final = TerminalState()


def patch_meta(old: JsonObject | None, patch: Meta) -> JsonObject | None:
    # Q15: the 2026-08 revision replaces `_meta` wholesale; the 2026-11 draft merges by
    # top-level key, which `reduce` does up front in `_merge_meta` when asked to.
    if patch is UNSET:
        return old
    return patch


def set_aux(state: SessionState, **changes: Any) -> SessionState:
    # Session-wide data changes rarely, so `evolve` (slower than a positional build) is fine.
    return with_aux(state, evolve_frozen(state.aux, **changes))


def diagnose(state: SessionState, rule: str, path: str, message: str) -> SessionState:
    diagnostic = Diagnostic(rule, path, message)
    return set_aux(state, diagnostics=state.aux.diagnostics.append(diagnostic))


def meta_or_none(meta: Meta) -> JsonObject | None:
    return None if meta is UNSET else meta


_a2b: Final = binascii.a2b_base64


def b64decode(data: str) -> bytes | None:
    """Decode RFC 4648 base64 (standard alphabet, padding optional); None when invalid."""
    # `binascii`'s strict mode refuses exactly what `base64.b64decode(validate=True)` does on
    # data padded to a whole quantum, without its regular-expression pass (one call per
    # terminal chunk; tests/test_client_fast_paths.py holds the two equal).
    try:
        return _a2b(data + "=" * (-len(data) % 4), strict_mode=True)
    except (binascii.Error, ValueError):
        return None
