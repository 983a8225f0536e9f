"""Every JSON example of the v2 docs that belongs to the session surface is a codec test.

Session updates (with or without their envelope) and prompt-lifecycle messages must decode in
strict mode and re-encode to the identical dict.
"""

from __future__ import annotations

from typing import Any

import acp_core as acp


def _session_surface(examples: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        e
        for e in examples
        if "sessionUpdate" in e["message"] or e["message"].get("jsonrpc") == "2.0"
    ]


def test_the_doc_examples_include_the_session_surface(doc_examples: list[dict[str, Any]]) -> None:
    surface = _session_surface(doc_examples)
    updates = [e for e in surface if "sessionUpdate" in e["message"]]
    assert len(surface) >= 70
    assert len(updates) >= 8


def test_every_bare_update_example_round_trips(doc_examples: list[dict[str, Any]]) -> None:
    for example in doc_examples:
        wire = example["message"]
        if "sessionUpdate" not in wire:
            continue
        update = acp.decode_update(wire, strict=True)
        assert acp.encode_update(update) == wire, (example["page"], example["index"])


def test_every_jsonrpc_example_round_trips(doc_examples: list[dict[str, Any]]) -> None:
    for example in doc_examples:
        wire = example["message"]
        if wire.get("jsonrpc") != "2.0":
            continue
        message = acp.decode_message(wire, strict=True)
        assert acp.encode_message(message) == wire, (example["page"], example["index"])
