"""Regression tests for findings of issue 15 that had none of their own.

- "one 3 MB line produces a million diagnostics": a value with very many tolerated problems
  gives a bounded number of diagnostics, then one summary that counts the rest, in the lenient
  decoder and in the checker;
- "the agent engine can emit a message its own strict decoder refuses (a `move` diff change
  without its destination)": every intent that carries tool-call content refuses it.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import acp_core as acp
from acp_core._wire._codec_values import MAX_DIAGNOSTICS

BAD_ITEMS = 10_000


def _update() -> dict[str, Any]:
    # every content item is invalid: the lenient decoder drops each with a diagnostic
    return {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t",
        "title": "x",
        "content": [5] * BAD_ITEMS,
    }


def test_the_lenient_decoder_lists_at_most_its_limit_then_counts_the_rest() -> None:
    decoded = acp.decode_update_diagnosed(_update())
    assert decoded.value.content == ()
    *listed, summary = decoded.diagnostics
    assert len(listed) == MAX_DIAGNOSTICS
    assert summary.rule == "codec.diagnostics-limit"
    assert f"{BAD_ITEMS - MAX_DIAGNOSTICS} more" in summary.message


def test_the_checker_reports_a_bounded_number_per_line_then_one_summary() -> None:
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": _update()},
    }
    violations = acp.check_trace([{"from": "agent", "message": message}])
    assert 1 < len(violations) <= 25
    assert violations[-1].message.startswith("... and ")
    assert violations[-1].message.endswith("more schema mismatches")


_MOVE_WITHOUT_DESTINATION = acp.Diff(changes=(acp.DiffChange("move", "/b"),))


@pytest.mark.parametrize(
    "build",
    [
        lambda: acp.SendToolContent("t", _MOVE_WITHOUT_DESTINATION),
        lambda: acp.StartToolCall("t", content=(_MOVE_WITHOUT_DESTINATION,)),
        lambda: acp.PatchToolCall("t", content=(_MOVE_WITHOUT_DESTINATION,)),
    ],
    ids=["SendToolContent", "StartToolCall", "PatchToolCall"],
)
def test_a_move_without_its_destination_never_reaches_the_wire(build: Callable[[], Any]) -> None:
    with pytest.raises(acp.LocalProtocolError) as e:
        build()
    assert "oldPath" in str(e.value)
    # ...and what the intent would have carried is what the strict decoder refuses
    with pytest.raises(acp.DecodeError):
        acp.decode_update(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t",
                "content": [{"type": "diff", "changes": [{"operation": "move", "path": "/b"}]}],
            },
            strict=True,
        )
