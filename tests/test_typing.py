"""`mypy --strict` follows an engine through `step`: the overloads of `step` give back the
engine's own type, refuse an intent of the other engine or no intent at all, and the package
exports `AgentIntent` / `ClientIntent` for code that holds intents."""

from __future__ import annotations

import textwrap
from pathlib import Path

import pytest

api = pytest.importorskip("mypy.api")  # mypy is in the `test` extra

PROGRAM = textwrap.dedent(
    """
    import acp_core as acp

    agent, out = acp.step(acp.new_agent("s"), acp.EndTurn())
    reveal_type(agent)
    client, _ = acp.step(acp.new_client("s"), acp.SendCancel())
    reveal_type(client)
    again = acp.step(agent, acp.SendAgentText("hi"))
    reveal_type(again.state)
    reveal_type(out)
    intent: acp.AgentIntent = acp.EndTurn()
    acp.step(agent, intent)
    acp.step(agent, "not an intent")  # E1
    acp.step(agent, acp.SendCancel())  # E2
    agent.no_such_attribute  # E3
    """
)


def test_mypy_follows_an_engine_through_steps(tmp_path: Path) -> None:
    program = tmp_path / "uses_step.py"
    program.write_text(PROGRAM, encoding="utf-8")
    out, err, status = api.run(
        ["--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), str(program)]
    )
    assert err == ""
    lines = [line.split(": ", 1)[1] for line in out.splitlines() if ": " in line]
    revealed = [line for line in lines if line.startswith("note: Revealed type")]
    assert revealed == [
        'note: Revealed type is "acp_core._engines._agent.AgentEngine"',
        'note: Revealed type is "acp_core._engines._client.ClientEngine"',
        'note: Revealed type is "acp_core._engines._agent.AgentEngine"',
        'note: Revealed type is "tuple[dict[str, Any], ...]"',
    ]
    errors = {int(line.split(":")[1]) for line in out.splitlines() if ": error:" in line}
    source = PROGRAM.splitlines()
    expected = {i for i, text in enumerate(source, 1) if "# E" in text}
    assert errors == expected, out
    assert status == 1


def test_the_intent_unions_are_what_the_engines_take() -> None:
    import typing

    import acp_core as acp
    from acp_core._engines._agent import AGENT_INPUTS
    from acp_core._engines._client import CLIENT_INPUTS

    assert set(typing.get_args(acp.AgentIntent)) == set(AGENT_INPUTS)
    assert set(typing.get_args(acp.ClientIntent)) == set(CLIENT_INPUTS)


IDIOMS = textwrap.dedent(
    """
    import acp_core as acp
    from acp_core.connection import Implementation, new_client_connection

    wire = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}
    agent, out = acp.step(acp.new_agent("s"), acp.Received(acp.decode_message(wire)))
    conn = new_client_connection(Implementation("editor", "1.0"))
    reveal_type(conn.view)
    """
)


def test_the_core_idioms_type_check(tmp_path: Path) -> None:
    # `Received(decode_message(wire))` (decode_message may give a Batch) and a connection's
    # view were rejected or Any under --strict (issue 27).
    program = tmp_path / "idioms.py"
    program.write_text(IDIOMS, encoding="utf-8")
    out, err, status = api.run(
        ["--strict", "--no-incremental", "--cache-dir", str(tmp_path / "cache"), str(program)]
    )
    assert ": error:" not in out, out
    assert '"def (session_id: str) -> acp_core._state._session_state.SessionState"' in out
    assert status == 0, out + err
