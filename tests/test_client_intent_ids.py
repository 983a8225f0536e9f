"""A client connection's host intents with a `request_id` that is no request id (an object, an
array, a float, a bool, an integer out of int64) or a `method` that is no string are refused
with `LocalProtocolError("E0")`, nothing sent, nothing changed.

Found by building every intent with fields of the wrong type and stepping it (session s6,
attack): `NewSession("/w", request_id={})` (and `Initialize`, `CloseSession`,
`ResumeSession`, `SetConfigOption`, `SendRequest`) raised `TypeError: unhashable type` from
the pending-request map, `SendRequest({}, ...)` the same from the method lookup; a float,
bool or out-of-range id was sent and refused only by the connection's own decoding of what it
sent (`DecodeError`).
"""

from __future__ import annotations

from typing import Any

import pytest

import acp_core as acp
from acp_core import connection as cx

BAD_IDS: list[Any] = [{}, [], 1.5, True, 2**63]


def _client() -> cx.ClientConnection:
    return acp.new_client_connection(cx.Implementation("c", "1"))


@pytest.mark.parametrize("rid", BAD_IDS, ids=repr)
@pytest.mark.parametrize(
    "make",
    [
        lambda rid: cx.Initialize(request_id=rid),
        lambda rid: cx.SendRequest("_x/y", request_id=rid),
        lambda rid: cx.SendRequest("x/y", {"a": 1}, request_id=rid),
    ],
    ids=["Initialize", "SendRequest-ext", "SendRequest"],
)
def test_a_request_id_that_is_no_id_is_refused_and_nothing_changes(rid: object, make: Any) -> None:
    conn = _client()
    with pytest.raises(acp.LocalProtocolError) as e:
        acp.connection_step(conn, make(rid))
    assert e.value.rule == "E0"
    assert "request_id" in str(e.value)


@pytest.mark.parametrize("method", [{}, [], 5, None], ids=repr)
def test_a_method_that_is_no_string_is_refused(method: object) -> None:
    for intent in (cx.SendRequest(method), cx.SendNotification(method)):  # type: ignore[arg-type]
        with pytest.raises(acp.LocalProtocolError) as e:
            acp.connection_step(_client(), intent)
        assert e.value.rule == "E0"


def test_good_ids_and_methods_are_still_sent() -> None:
    for rid in ("a", 7, -(2**63), 2**63 - 1, None):
        step = acp.connection_step(_client(), cx.SendRequest("x/y", request_id=rid))
        [sent] = step.outbound
        assert sent["method"] == "x/y"
        assert rid is None or sent["id"] == rid
