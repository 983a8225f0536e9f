"""The `session/update` envelope fast path decodes exactly what the generic walk decodes.

An envelope with one more member (kept in `envelope_extra`) always takes the generic walk,
so comparing the two (extra member aside) checks the fast path, errors and paths included.
"""

from __future__ import annotations

from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import acp_core as acp
from acp_core import strategies as acps


def _envelope(update: Any) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": update},
    }


def _both(obj: dict[str, Any]) -> tuple[Any, Any]:
    def attempt(value: dict[str, Any]) -> Any:
        try:
            return acp.decode_message(value)
        except acp.DecodeError as e:
            return ("error", e.path, e.expected, e.code)

    fast = attempt(obj)
    generic = attempt({**obj, "zz": 1})
    if isinstance(generic, acp.UpdateSessionNotification):
        generic = attrs.evolve(generic, envelope_extra=acp.EMPTY_OBJECT)
    return fast, generic


@given(acps.wire_updates())
def test_valid_updates_decode_the_same_on_both_paths(update: dict[str, Any]) -> None:
    fast, generic = _both(_envelope(update))
    assert fast == generic
    assert isinstance(fast, acp.UpdateSessionNotification)


@given(
    st.dictionaries(
        st.sampled_from(["sessionUpdate", "messageId", "content", "toolCallId"]),
        st.one_of(
            st.none(),
            st.integers(),
            st.text(max_size=3),
            st.sampled_from(["agent_message_chunk", "tool_call_update"]),
        ),
    )
)
def test_malformed_updates_fail_the_same_on_both_paths(update: dict[str, Any]) -> None:
    fast, generic = _both(_envelope(update))
    assert fast == generic


@pytest.mark.parametrize(
    "obj",
    [
        {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": 5, "update": {}}},
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s", "update": None},
        },
        {"jsonrpc": "2.0", "method": "session/update", "params": []},
        {"jsonrpc": "1.0", "method": "session/update", "params": {"sessionId": "s", "update": {}}},
        {"jsonrpc": "2.0", "id": 1, "method": "session/update"},
    ],
)
def test_other_shapes_take_the_generic_walk(obj: dict[str, Any]) -> None:
    fast, generic = _both(obj)
    if isinstance(fast, acp.Request):
        generic = attrs.evolve(generic, envelope_extra=acp.EMPTY_OBJECT)
    assert fast == generic
