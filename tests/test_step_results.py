"""What a step tells its caller besides the new engine and the wire: the ids it generated
(`Step.ids`), and, on the client, whether a prompt's work ended (`sent_prompt`)."""

from __future__ import annotations

import acp_core as acp
from acp_core import (
    AcceptPrompt,
    EndTurn,
    Received,
    RequestPermission,
    SendAgentText,
    SendPrompt,
    StartToolCall,
    TextContent,
    decode_message,
    new_agent,
    new_client,
    sent_prompt,
    step,
)

SID = "s1"
HELLO = (TextContent("hi"),)
OPTIONS = (acp.PermissionOption("y", "Yes", "allow_once"),)


def _with_prompt() -> tuple[acp.AgentEngine, acp.ClientEngine]:
    client, out = step(new_client(SID), SendPrompt(HELLO))
    agent = step(new_agent(SID), Received(decode_message(out[0]))).state
    return agent, client


def test_a_step_names_the_ids_it_generated_in_order() -> None:
    agent, _ = _with_prompt()
    result = step(agent, AcceptPrompt(0))
    assert result.ids == ("user-1",)
    engine, outbound = result  # still unpacks as (engine, outbound)
    assert outbound[1]["params"]["update"]["messageId"] == "user-1"
    result = step(engine, StartToolCall("Edit"))
    assert result.ids == ("call-2",)
    assert step(result.state, SendAgentText("x")).ids == ("agent-3",)
    permission = step(result.state, RequestPermission("Edit?", OPTIONS, "call-2"))
    assert permission.ids == (0,)
    assert permission.outbound[0]["id"] == 0


def test_ids_the_caller_gave_are_not_listed() -> None:
    agent, _ = _with_prompt()
    assert step(agent, AcceptPrompt(0, user_message_id="mine")).ids == ()
    client = new_client(SID)
    assert step(client, SendPrompt(HELLO)).ids == (0,)
    assert step(client, SendPrompt(HELLO, request_id=7)).ids == ()


def test_the_client_knows_when_and_how_a_prompts_work_ended() -> None:
    agent, client = _with_prompt()
    assert sent_prompt(client, 0) == acp.SentPrompt(0)
    for intent in (AcceptPrompt(0), SendAgentText("done"), EndTurn("max_tokens")):
        agent, out = step(agent, intent)
        for wire in out:
            client = step(client, Received(decode_message(wire))).state
            if (
                wire.get("method")
                and wire["params"]["update"]["sessionUpdate"] == "agent_message_chunk"
            ):
                assert not sent_prompt(client, 0).ended  # type: ignore[union-attr]
    record = sent_prompt(client, 0)
    assert record == acp.SentPrompt(0, "accepted", "user-1", True, "max_tokens")
    assert sent_prompt(client, 99) is None
    assert client.violations == ()
