"""C15 in its one deciding function (`c15_breach`): every way a permission request pending at
a `session/cancel` can be answered (or not) after it, under 2026-08 (the only revision C15
applies in), judged at the answer or at the end of the recording."""

from __future__ import annotations

from typing import Any

import pytest

from acp_core._rules._conversation import Conversation, finish, observe
from acp_core._wire._codec import decode_message
from acp_core._wire._revision import V2_2026_08

SID = "sess_1"


def _msg(sender: str, wire: dict[str, Any]) -> tuple[str, object]:
    return sender, decode_message({"jsonrpc": "2.0", **wire})


def _update(body: dict[str, Any]) -> tuple[str, object]:
    return _msg("agent", {"method": "session/update", "params": {"sessionId": SID, "update": body}})


_OPTIONS = [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}]
_CALL = {"toolCallId": "t1", "title": "Edit", "kind": "edit", "status": "pending"}
_SUBJECT = {"type": "tool_call", "toolCall": _CALL}
_BEFORE = [
    _msg(
        "client", {"id": 1, "method": "session/prompt", "params": {"sessionId": SID, "prompt": []}}
    ),
    _update({"sessionUpdate": "state_update", "state": "running"}),
    _msg(
        "agent",
        {
            "id": 2,
            "method": "session/request_permission",
            "params": {
                "sessionId": SID,
                "title": "Edit?",
                "options": _OPTIONS,
                "subject": _SUBJECT,
            },
        },
    ),
    _update({"sessionUpdate": "state_update", "state": "requires_action"}),
    _msg("client", {"method": "session/cancel", "params": {"sessionId": SID}}),
]
_IDLE = _update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "cancelled"})


def _answer(body: dict[str, Any]) -> tuple[str, object]:
    return _msg("client", {"id": 2, **body})


def _run(steps: list[tuple[str, object]]) -> tuple[list[tuple[str, int]], list[tuple[str, int]]]:
    conv = Conversation.start(V2_2026_08)
    found = []
    for at, (sender, message) in enumerate(steps):
        conv, new = observe(conv, sender, message, at=at)  # type: ignore[arg-type]
        found += [(f.rule, f.at) for f in new if f.rule == "C15"]
    return found, [(f.rule, f.at) for f in finish(conv) if f.rule == "C15"]


@pytest.mark.parametrize(
    ("answer", "breaks"),
    [
        ({"result": {"outcome": {"outcome": "cancelled"}}}, False),
        ({"error": {"code": -32800, "message": "cancelled"}}, False),
        ({"result": {"outcome": {"outcome": "selected", "optionId": "allow"}}}, True),
        ({"error": {"code": -32603, "message": "internal"}}, True),
    ],
)
def test_an_answer_after_the_cancel(answer: dict[str, Any], breaks: bool) -> None:
    at_answer, at_end = _run([*_BEFORE, _answer(answer), _IDLE])
    assert at_answer == ([("C15", len(_BEFORE))] if breaks else [])
    assert at_end == []


def test_never_answered_after_the_cancelled_work_ended() -> None:
    at_answer, at_end = _run([*_BEFORE, _IDLE])
    assert at_answer == []
    assert at_end == [("C15", len(_BEFORE) - 1)]  # at the cancel
    # Not yet ended: the recording may simply stop early, and C15 waits for the idle.
    assert _run(_BEFORE) == ([], [])
