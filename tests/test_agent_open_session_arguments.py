"""`OpenSession` with a `session_id` that is no string or a `state` that is no `SessionState`
is refused with `LocalProtocolError("E0")` by the agent connection, nothing changed.

Found by building every intent with fields of the wrong type and stepping it (session s6,
attack): `OpenSession("s", state="x")` raised `AttributeError` ('str' object has no attribute
'session_id'), `OpenSession({})` `TypeError` (unhashable).
"""

from __future__ import annotations

import pytest

import acp_core as acp
from acp_core import connection as cx


def _agent() -> cx.AgentConnection:
    return acp.new_agent_connection(cx.Implementation("a", "1"))


@pytest.mark.parametrize(
    "intent",
    [
        pytest.param(cx.OpenSession("s", state="x"), id="state-str"),  # type: ignore[arg-type]
        pytest.param(cx.OpenSession("s", state={}), id="state-dict"),  # type: ignore[arg-type]
        pytest.param(cx.OpenSession({}), id="id-dict"),  # type: ignore[arg-type]
        pytest.param(cx.OpenSession(5), id="id-int"),  # type: ignore[arg-type]
    ],
)
def test_an_open_session_of_the_wrong_kinds_is_refused(intent: cx.OpenSession) -> None:
    with pytest.raises(acp.LocalProtocolError) as e:
        acp.connection_step(_agent(), intent)
    assert e.value.rule == "E0"


def test_an_open_session_of_the_right_kinds_still_opens() -> None:
    step = acp.connection_step(_agent(), cx.OpenSession("s", state=acp.new_session("s")))
    assert "s" in step.connection.sessions
