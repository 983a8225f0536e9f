"""Totality of the v1 entry points (issue 15): `looks_like_v1` and `normalize_v1` return a
value for any input, hostile or not; nothing but an `AcpError` subclass may escape.

Each finding of the hostile-input run is a regression row; a property then throws
v1-shaped entries whose tags, ids and fields are anything at all.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import acp_core as acp

HUGE = 10**5000  # past Python's 4,300-digit int/str limit


def _deep(depth: int) -> list[Any]:
    root: list[Any] = []
    node = root
    for _ in range(depth):
        child: list[Any] = []
        node.append(child)
        node = child
    return root


DEEP = _deep(100_000)


def _agent(message: dict[str, Any]) -> dict[str, Any]:
    return {"from": "agent", "message": {"jsonrpc": "2.0", **message}}


def _client(message: dict[str, Any]) -> dict[str, Any]:
    return {"from": "client", "message": {"jsonrpc": "2.0", **message}}


def _update(update: object) -> dict[str, Any]:
    return _agent({"method": "session/update", "params": {"sessionId": "s", "update": update}})


def _prompt(request_id: object) -> dict[str, Any]:
    params = {"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}]}
    return _client({"id": request_id, "method": "session/prompt", "params": params})


REGRESSIONS = {
    "a list as update tag": [_update({"sessionUpdate": ["agent_message_chunk"]})],
    "an object as update tag": [_update({"sessionUpdate": {"kind": "plan"}})],
    "a list as request id": [_prompt([1]), _agent({"id": [1], "result": {"stopReason": "x"}})],
    "an object as request id": [_prompt({"a": 1}), _agent({"id": {"a": 1}, "result": {}})],
    "a huge request id": [_prompt(HUGE), _agent({"id": HUGE, "result": {"stopReason": "end"}})],
    "a huge terminal request id": [
        _agent(
            {
                "id": HUGE,
                "method": "terminal/create",
                "params": {"sessionId": "s", "command": "ls"},
            }
        ),
        _client({"id": HUGE, "result": {"terminalId": "t"}}),
    ],
    "a huge number in an update": [_update({"sessionUpdate": "usage_update", "used": HUGE})],
    "deeply nested lists as the message": [{"from": "agent", "message": DEEP}],
    "deeply nested lists in an update": [
        _update({"sessionUpdate": "tool_call", "toolCallId": "t", "rawInput": DEEP})
    ],
    "a lone surrogate in text and ids": [
        _update(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "\udfff",
                "content": {"type": "text", "text": "a\ud800"},
            }
        )
    ],
}


@pytest.mark.parametrize("entries", list(REGRESSIONS.values()), ids=list(REGRESSIONS))
def test_hostile_v1_input_gives_a_value(entries: list[Any]) -> None:
    assert isinstance(acp.looks_like_v1(entries), bool)
    out = acp.normalize_v1(entries)
    assert isinstance(out, acp.V1Result)


def test_a_huge_request_id_still_pairs_the_prompt_with_its_result() -> None:
    out = acp.normalize_v1(REGRESSIONS["a huge request id"])
    (user,) = [u.update for u in out.updates if isinstance(u.update, acp.UserMessage)]
    assert user.message_id == f"v1:prompt:0x{HUGE:x}"
    assert out.updates[-1].update == acp.IdleStateUpdate("end")
    assert not [d for d in out.diagnostics if d.rule == "v1.unmatched-response"]


def test_nested_batches_are_reported_not_followed() -> None:
    out = acp.normalize_v1([{"from": "agent", "message": [[{"jsonrpc": "2.0"}]]}])
    assert [(d.rule, d.path) for d in out.diagnostics] == [
        ("v1.invalid-message", "$[0].message[0]")
    ]


# -- the property ----------------------------------------------------------------------------


def _huge() -> int:
    return HUGE


def _deep_lists() -> list[Any]:
    return DEEP


_SCALARS = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.builds(_huge),
    st.floats(allow_nan=True),
    st.text(max_size=8),
    st.sampled_from(["\ud800", "a\udfffb", "v1:agent:1", "s", ""]),
)
_ANY = st.recursive(
    _SCALARS,
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=6), inner, max_size=3)
    ),
    max_leaves=12,
) | st.builds(_deep_lists)
_METHODS = st.sampled_from(
    [
        "session/update",
        "session/prompt",
        "session/cancel",
        "session/request_permission",
        "session/new",
        "session/load",
        "elicitation/create",
        "terminal/create",
        "terminal/output",
        "terminal/wait_for_exit",
        "terminal/release",
        "initialize",
    ]
)
_KINDS = st.sampled_from(
    [
        "agent_message_chunk",
        "agent_thought_chunk",
        "user_message_chunk",
        "tool_call",
        "tool_call_update",
        "plan",
        "config_option_update",
        "available_commands_update",
        "current_mode_update",
        "usage_update",
        "state_update",
    ]
)
_UPDATE = st.fixed_dictionaries(
    {"sessionUpdate": _KINDS | _ANY},
    optional={
        "messageId": _ANY,
        "content": _ANY,
        "toolCallId": _ANY,
        "title": _ANY,
        "status": _ANY,
        "entries": _ANY,
        "configOptions": _ANY,
        "availableCommands": _ANY,
    },
)
_PARAMS = st.fixed_dictionaries(
    {"sessionId": st.just("s") | _ANY},
    optional={
        "update": _UPDATE | _ANY,
        "prompt": _ANY,
        "toolCall": _UPDATE | _ANY,
        "message": _ANY,
        "terminalId": _ANY,
        "command": _ANY,
        "args": _ANY,
        "protocolVersion": _ANY,
    },
)
_REQUEST = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0"), "method": _METHODS | _ANY},
    optional={"id": st.integers(0, 3) | _ANY, "params": _PARAMS | _ANY},
)
_RESPONSE = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0"), "id": st.integers(0, 3) | _ANY},
    optional={"result": _ANY, "error": _ANY},
)
_MESSAGE = _REQUEST | _RESPONSE | st.lists(_REQUEST | _RESPONSE, max_size=3) | _ANY
_ENTRY = (
    st.fixed_dictionaries(
        {"message": _MESSAGE}, optional={"from": st.sampled_from(["agent", "client"]) | _ANY}
    )
    | _ANY
)


@given(st.lists(_ENTRY, max_size=8))
def test_v1_entry_points_are_total(entries: list[Any]) -> None:
    with contextlib.suppress(acp.AcpError):
        assert isinstance(acp.looks_like_v1(entries), bool)
    try:
        out = acp.normalize_v1(entries)
    except acp.AcpError:
        return
    assert isinstance(out, acp.V1Result)
    for item in out.updates:
        acp.encode_update(item.update)  # what it emits is a value the codec can write
