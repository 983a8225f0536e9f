"""The Preview reconstruction's examples (`preview-reconstructed/examples.jsonl`) on the wire.

Every positive example decodes in strict mode at the Preview revision into typed values (no
`OtherUpdate`, no generic `Request`) and re-encodes to the identical dict; each of the four
negative examples is refused in strict mode with a JSON path. Each example is a payload (params,
result or capability object) named by its schema definition, so it is wrapped in the JSON-RPC
envelope its definition belongs to.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import SPEC_DIR

import acp_core as acp

_EXAMPLES = SPEC_DIR / "preview-reconstructed" / "examples.jsonl"

#: definition -> (method, has an id) for the payloads that are JSON-RPC params.
_PARAMS = {
    "UpdateSessionNotification": ("session/update", False),
    "PromptRequest": ("session/prompt", True),
    "CancelSessionNotification": ("session/cancel", False),
    "CancelToolCallRequest": ("tool_call/cancel", True),
    "CancelTerminalRequest": ("terminal/cancel", True),
}


def _load() -> list[dict[str, Any]]:
    if not _EXAMPLES.exists():
        return []
    with _EXAMPLES.open() as f:
        return [json.loads(line) for line in f if line.strip()]


EXAMPLES = _load()
POSITIVE = [e for e in EXAMPLES if e.get("expect") != "invalid"]
NEGATIVE = [e for e in EXAMPLES if e.get("expect") == "invalid"]


def _wrap(example: dict[str, Any]) -> dict[str, Any]:
    method, has_id = _PARAMS[example["def"]]
    wire: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": example["msg"]}
    if has_id:
        wire["id"] = 1
    return wire


def _roundtrip(example: dict[str, Any]) -> tuple[Any, Any, Any]:
    """(decoded value, its re-encoding, the dict it must equal)."""
    revision = acp.PREVIEW
    definition, payload = example["def"], example["msg"]
    if definition == "PromptResponse":
        value = acp.decode_prompt_result(payload, strict=True, revision=revision)
        return value, acp.encode_result(value), payload
    if definition in ("ClientCapabilities", "ResumeSessionRequest"):
        # Payloads of set-up methods the engines do not run: decoded as schema parts.
        value = acp.decode_part(definition, payload, revision=revision)
        return value, acp.encode_part(definition, value), payload
    wire = _wrap(example)
    value = acp.decode_message(wire, strict=True, revision=revision)
    return value, acp.encode_message(value), wire


def test_the_examples_are_there() -> None:
    if not EXAMPLES:
        pytest.skip(f"{_EXAMPLES} not found: set ACP_V2_SPEC_DIR to the shared acp-v2 folder")
    assert (len(POSITIVE), len(NEGATIVE)) == (25, 4)


@pytest.mark.parametrize("example", POSITIVE, ids=[e["label"] for e in POSITIVE])
def test_positive_example_round_trips_typed(example: dict[str, Any]) -> None:
    value, encoded, expected = _roundtrip(example)
    assert encoded == expected
    assert type(value) not in (acp.Request, acp.Notification)
    update = getattr(value, "update", None)
    assert not isinstance(update, acp.OtherUpdate | acp.OtherStateUpdate), update


@pytest.mark.parametrize("example", NEGATIVE, ids=[e["label"] for e in NEGATIVE])
def test_negative_example_is_refused_with_a_path(example: dict[str, Any]) -> None:
    with pytest.raises(acp.DecodeError) as refused:
        _roundtrip(example)
    assert refused.value.path.startswith("$")
    assert refused.value.path != "$"  # the path names the offending member


def test_at_2026_11_the_preview_tags_are_unknown_updates() -> None:
    # The reason for a Preview revision: a 2026-11 decoder keeps them only as `other`.
    for example in POSITIVE:
        update = example["msg"].get("update")
        if example["def"] != "UpdateSessionNotification" or update is None:
            continue
        if update["sessionUpdate"] in {"subagent_update", "replay_complete", "plan_removed"}:
            decoded = acp.decode_update(update, strict=True, revision=acp.V2_2026_11)
            assert isinstance(decoded, acp.OtherUpdate)
