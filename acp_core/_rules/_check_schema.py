"""D1 (a message matches the schema) decided in one place.

Owns: `d1_findings`, D1's one deciding function: a trace entry that is no
`{"from": "client"|"agent", "message": ...}` object (asked by `_rules/_check.py`), a decoded
message's schema mismatches (at most `MAX_DIAGNOSTICS` a line, then one summary) and a batch
entry that does not decode (asked by `_rules/_protocol.py`), and a message that does not decode
when no specific rule explains why (asked by `_rules/_check_undecodable.py`).
Must not know: decoding itself (the codec reports the mismatches and failures), which specific
rule explains an undecodable message, the conversation.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from acp_core._errors import Diagnostic
from acp_core._wire import _jsonrpc as j

from ._check_message import Finding
from ._conversation_state import AGENT, CLIENT
from ._predicates import shown

__all__ = ["MAX_DIAGNOSTICS", "d1_findings"]

MAX_DIAGNOSTICS: Final = 20  # per line; then one summary (a 3 MB line is not a million)
_SIDES: Final = (CLIENT, AGENT)
_NOT_GIVEN: Final = object()


def d1_findings(
    *,
    entry: object = _NOT_GIVEN,
    side: str = "",
    diagnostics: Sequence[Diagnostic] = (),
    invalid: j.InvalidEntry | None = None,
    unexplained: bool = False,
) -> list[Finding]:
    """D1: what a recording or a peer sent is not what the schema says. The facts of one
    place at a time: a trace `entry` (no finding when it is a well-formed entry); a decoded
    message's schema `diagnostics` (sent by `side`); a batch entry that does not decode
    (`invalid`); a message that does not decode and no specific rule explains (`unexplained`,
    its finding says no more than the decode error does)."""
    found: list[Finding] = []
    if entry is not _NOT_GIVEN:
        if not isinstance(entry, Mapping):
            why = f'trace entry is {shown(entry)}, not an object {{"from": ..., "message": ...}}'
            found.append(("D1", why))
        elif entry.get("from") not in _SIDES:
            sender = shown(entry.get("from"))
            found.append(("D1", f'trace entry has "from": {sender}; expected "client" or "agent"'))
        elif "message" not in entry:
            found.append(("D1", 'trace entry has no "message"'))
        return found  # (asked once per entry: nothing else to read)
    for d in diagnostics[:MAX_DIAGNOSTICS]:
        found.append(("D1", f"{side} message does not match the schema: {d.message}"))
    if len(diagnostics) > MAX_DIAGNOSTICS:
        found.append(("D1", f"... and {len(diagnostics) - MAX_DIAGNOSTICS} more schema mismatches"))
    if invalid is not None:
        why = f"batch entry does not decode: expected {invalid.expected} @ {invalid.path}"
        found.append(("D1", why))
    if unexplained:
        found.append(("D1", ""))
    return found
