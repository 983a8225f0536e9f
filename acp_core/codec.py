"""The codec beyond the common path: diagnosed decoders, result codecs and the revision
registry.

A public submodule of acp-core (docs/api.md lists each name in its home)."""

from __future__ import annotations

# The revisions answer `Revision.applies` from the rule scopes the catalogue declares.
import acp_core._rules  # noqa: F401
from acp_core._wire._codec import (
    Decoded,
    decode_message,
    decode_message_diagnosed,
    decode_part,
    decode_permission_result,
    decode_prompt_result,
    decode_update,
    decode_update_diagnosed,
    encode_message,
    encode_part,
    encode_result,
    encode_update,
)
from acp_core._wire._revision import (
    DEFAULT_REVISION,
    KNOWN_UPDATE_TAGS,
    PREVIEW,
    REVISION_ALIASES,
    REVISION_CHOICES,
    REVISIONS,
    V2_2026_08,
    V2_2026_11,
    V2_PREVIEW,
    Revision,
    revision_named,
)

__all__ = [
    "DEFAULT_REVISION",
    "KNOWN_UPDATE_TAGS",
    "PREVIEW",
    "REVISIONS",
    "REVISION_ALIASES",
    "REVISION_CHOICES",
    "V2_2026_08",
    "V2_2026_11",
    "V2_PREVIEW",
    "Decoded",
    "Revision",
    "decode_message",
    "decode_message_diagnosed",
    "decode_part",
    "decode_permission_result",
    "decode_prompt_result",
    "decode_update",
    "decode_update_diagnosed",
    "encode_message",
    "encode_part",
    "encode_result",
    "encode_update",
    "revision_named",
]
