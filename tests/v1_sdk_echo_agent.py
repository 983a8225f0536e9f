"""A v1 agent written on the official Python SDK (`agent-client-protocol` 0.12.1, import `acp`):
the independent peer `tests/test_v1_live_client.py` drives acp-core's `ClientConnection`
against over real pipes.

It echoes each prompt back as a streamed reply of two `agent_message_chunk`s (no message ids,
as v1 agents send them) and ends the turn with `end_turn`. A prompt whose text starts with
`tool` first asks for permission on a tool call and reports the outcome the client chose
(`allowed` or `rejected`) as the reply; a `session/cancel` while that request is open (the
client then answers it `cancelled`, as v1 asks) fails the tool call and ends the turn
`cancelled`. A prompt `read PATH` asks the client
for the file (`fs/read_text_file`) and echoes its content; a prompt `run COMMAND` runs it in
a client terminal (`terminal/create`, `terminal/output`, `terminal/release`) and echoes the
output. It advertises `loadSession`: `session/load` replays each earlier prompt and its
reply as a `user_message_chunk` and an `agent_message_chunk`.

    python tests/v1_sdk_echo_agent.py
"""

from __future__ import annotations

import asyncio
from typing import Any

import acp
from acp.schema import (
    AgentCapabilities,
    AllowedOutcome,
    Implementation,
    InitializeResponse,
    LoadSessionResponse,
    NewSessionResponse,
    PermissionOption,
    PromptResponse,
    ToolCallUpdate,
)


class EchoAgent:
    """The SDK's `Agent` protocol, the methods a prompt turn needs."""

    def __init__(self) -> None:
        self.client: Any = None
        self.sessions = 0
        self.history: dict[str, list[tuple[str, str]]] = {}  # (prompt, reply) per session
        self.cancelled: set[str] = set()

    def on_connect(self, conn: Any) -> None:
        self.client = conn

    async def initialize(self, protocol_version: int, **kwargs: Any) -> InitializeResponse:
        return InitializeResponse(
            protocol_version=acp.PROTOCOL_VERSION,
            agent_capabilities=AgentCapabilities(load_session=True),
            agent_info=Implementation(name="v1-sdk-echo", version="0.1"),
        )

    async def new_session(self, cwd: str, **kwargs: Any) -> NewSessionResponse:
        self.sessions += 1
        session_id = f"sdk-sess-{self.sessions}"
        self.history[session_id] = []
        return NewSessionResponse(session_id=session_id)

    async def load_session(
        self, cwd: str, session_id: str, mcp_servers: Any = None, **kwargs: Any
    ) -> LoadSessionResponse:
        for said, reply in self.history.get(session_id, []):
            await self.client.session_update(session_id, acp.update_user_message_text(said))
            await self.client.session_update(session_id, acp.update_agent_message_text(reply))
        return LoadSessionResponse()

    async def prompt(self, session_id: str, prompt: list[Any], **kwargs: Any) -> PromptResponse:
        self.cancelled.discard(session_id)
        said = "".join(getattr(block, "text", "") for block in prompt)
        text = said
        if text.startswith("tool"):
            text = await self._permission(session_id)
        elif text.startswith("read "):
            text = (await self.client.read_text_file(session_id=session_id, path=text[5:])).content
        elif text.startswith("run "):
            text = await self._terminal(session_id, text[4:])
        for part in ("echo: ", text):
            await self.client.session_update(session_id, acp.update_agent_message_text(part))
        self.history.setdefault(session_id, []).append((said, f"echo: {text}"))
        stop = "cancelled" if session_id in self.cancelled else "end_turn"
        return PromptResponse(stop_reason=stop)

    async def _permission(self, session_id: str) -> str:
        await self.client.session_update(
            session_id, acp.start_tool_call("call-1", "Write notes.txt", kind="edit")
        )
        answer = await self.client.request_permission(
            session_id,
            ToolCallUpdate(tool_call_id="call-1"),
            [
                PermissionOption(option_id="allow", name="Allow", kind="allow_once"),
                PermissionOption(option_id="deny", name="Deny", kind="reject_once"),
            ],
        )
        allowed = isinstance(answer.outcome, AllowedOutcome) and answer.outcome.option_id == "allow"
        status = "completed" if allowed else "failed"
        await self.client.session_update(session_id, acp.update_tool_call("call-1", status=status))
        if session_id in self.cancelled:
            return "cancelled"
        return "allowed" if allowed else "rejected"

    async def _terminal(self, session_id: str, command: str) -> str:
        made = await self.client.create_terminal(session_id=session_id, command=command)
        output = await self.client.terminal_output(
            session_id=session_id, terminal_id=made.terminal_id
        )
        await self.client.release_terminal(session_id=session_id, terminal_id=made.terminal_id)
        return output.output

    async def cancel(self, session_id: str, **kwargs: Any) -> None:
        self.cancelled.add(session_id)


if __name__ == "__main__":
    asyncio.run(acp.run_agent(EchoAgent()))
