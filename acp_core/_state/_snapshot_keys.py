"""The agent's remembered prompt keys in a snapshot document (`promptKeys`, R69).

Owns: writing and reading the optional top-level `promptKeys` object of docs/snapshot.md
(idempotency key -> the `messageId` of the user message its prompt inserted).
Must not know: the key ledger or how an agent answers a retry (`_engines/_idempotency.py`,
`_engines/_agent_keys.py`); everything else of the document (`_state/_snapshot.py`).

The keys are not part of the `SessionState`: no update carries them, and the state is the fold
of what was sent. They travel beside it in the same document, so an agent that stores a
session's snapshot and serves it again on a new connection (`OpenSession(prompt_keys=...)`)
still answers a retry after reconnect + resume with the original `messageId` (R69). A document
without the key (every snapshot written before it existed) reads as no keys.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from acp_core._errors import ArgumentError, DecodeError
from acp_core._wire._json import Path, render_path

from ._pcoll import PMap

__all__ = ["PROMPT_KEYS", "put_prompt_keys", "restore_prompt_keys"]

#: The top-level key of the document.
PROMPT_KEYS: Final = "promptKeys"


def put_prompt_keys(out: dict[str, Any], keys: Mapping[str, str] | None) -> None:
    """Write `keys` into the document `out` (nothing when there are none: optional keys are
    omitted, never empty-by-default)."""
    if keys is None:
        return
    given: object = keys  # a caller's value: not necessarily typed as declared
    if not isinstance(given, Mapping) or not all(
        type(k) is str and type(v) is str for k, v in given.items()
    ):
        raise ArgumentError("prompt_keys maps idempotency keys to message ids (strings)")
    if keys:
        out[PROMPT_KEYS] = dict(keys)


def restore_prompt_keys(doc: object) -> PMap[str, str]:
    """The remembered prompt keys of a snapshot document (empty when it has none).

    Raises:
        DecodeError: `promptKeys` is not an object of strings (the path names where).
    """
    if type(doc) is not dict:
        raise DecodeError("$", "object (snapshot)")
    raw = doc.get(PROMPT_KEYS)
    if raw is None and PROMPT_KEYS not in doc:
        return PMap()
    where: Path = (None, PROMPT_KEYS)
    if type(raw) is not dict:
        raise DecodeError(render_path(where), "object (idempotency key -> messageId)")
    for key, message_id in raw.items():
        if not key or type(message_id) is not str:
            raise DecodeError(render_path((where, key)), "string (the messageId the key inserted)")
    return PMap(raw)
