"""The 2026-11 / Preview intents: checked and frozen at construction like every intent, part
of the engines' alphabets, refused plainly where an engine does not send them (yet)."""

from __future__ import annotations

from typing import Any

import pytest

import acp_core as acp
from acp_core import intents


def test_the_intents_live_in_acp_core_intents() -> None:
    for name in (
        "SendUpdate",
        "ReportBackground",
        "CancelChild",
        "CancelToolCall",
        "CancelTerminal",
        "RetryPrompt",
    ):
        assert getattr(intents, name) is getattr(acp, name)


@pytest.mark.parametrize(
    "build",
    [
        lambda: acp.SendUpdate({"sessionUpdate": "notice"}),  # a dict, not an update value
        lambda: acp.SendUpdate(acp.Notice("info", "t"), session_id=3),
        lambda: acp.SendUpdate(acp.AgentMessageChunk("m", acp.TextContent(5))),  # type: ignore[arg-type]
        lambda: acp.ReportBackground((acp.TextContent("x"),)),
        lambda: acp.ReportBackground((acp.BackgroundTerminal(7),)),  # type: ignore[arg-type]
        lambda: acp.ReportBackground(acp.BackgroundTerminal("t")),
        lambda: acp.CancelChild(None),  # type: ignore[arg-type]
        lambda: acp.CancelToolCall("t", request_id=1.5),  # type: ignore[arg-type]
        lambda: acp.CancelTerminal(b"t"),  # type: ignore[arg-type]
        lambda: acp.RetryPrompt([1]),  # type: ignore[arg-type]
    ],
    ids=[
        "update dict",
        "session id",
        "bad text",
        "not an item",
        "bad id",
        "no tuple",
        "child id",
        "request id",
        "terminal id",
        "original",
    ],
)
def test_mistyped_fields_are_refused_with_e0(build: Any) -> None:
    with pytest.raises(acp.LocalProtocolError) as error:
        build()
    assert error.value.rule == "E0"


def test_values_are_kept_as_the_wire_carries_them() -> None:
    items = [acp.BackgroundToolCall("t1"), acp.OtherBackgroundWork(acp.freeze_json({"type": "_j"}))]
    intent = acp.ReportBackground(items)  # type: ignore[arg-type]
    assert intent.items == tuple(items)
    update = acp.SubagentUpdate("c1", additional_directories=["/a"])  # type: ignore[arg-type]
    assert acp.SendUpdate(update).update.additional_directories == ("/a",)


@pytest.mark.parametrize("key", ["", "k" * 256])
def test_an_idempotency_key_is_1_to_255_characters(key: str) -> None:
    with pytest.raises(acp.LocalProtocolError) as error:
        acp.SendPrompt((), idempotency_key=key)
    assert error.value.rule == "C43"
    assert acp.SendPrompt((), idempotency_key="k" * 255).idempotency_key == "k" * 255
