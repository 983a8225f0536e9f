"""The agent's output intents: messages, thoughts, plans, tool calls, terminals, usage.

Owns: the steps of the intents that report work (`OUTPUT_STEPS`): each builds its updates
and keeps the engine's own policies (an empty message or plan id, a reused or unknown tool
call id: stricter than R4, R29, R13); what one update breaks on its own (R14, R31, R33, R37,
J63 and the rest) is judged as it goes out (`Build.obey`), in the checker's words. They are allowed
inside a turn and outside one (background activity, R40); the conversation machine judges
their order when `Build` sends them.
Must not know: prompts, turns, permissions or received messages (`_engines/_agent_turn.py`,
`_engines/_agent_permissions.py`, `_engines/_agent_receive.py`).
"""

from __future__ import annotations

import base64
from collections.abc import Callable
from typing import Any, Final

from acp_core._wire._content import ContentBlock
from acp_core._wire._json import UNSET, Meta
from acp_core._wire._updates import (
    AgentMessage,
    AgentMessageChunk,
    AgentThoughtChunk,
    OtherPlan,
    PlanItems,
    PlanUpdate,
    SessionInfoUpdate,
    TerminalOutput,
    TerminalOutputChunk,
    TerminalUpdate,
    ToolCallContentChunk,
    ToolCallUpdate,
    UsageUpdate,
)

from ._agent_build import (
    Build,
    as_block,
    known_tool_call,
    new_message_id,
    refuse,
)
from ._intents import (
    FinishToolCall,
    PatchSessionInfo,
    PatchTerminal,
    PatchToolCall,
    ReportPlan,
    ReportUsage,
    SendAgentMessage,
    SendAgentText,
    SendTerminalOutput,
    SendThought,
    SendToolContent,
    StartToolCall,
)

__all__ = ["OUTPUT_STEPS"]

#: Policies stricter than a rule's level, refused in the checker's words (`Build.obey`): a
#: started tool call has a non-empty title (R14, a SHOULD), a usage cost an ISO 4217
#: currency (R37, a MAY's condition).
_TITLED: Final = frozenset({"R14"})
_PRICED: Final = frozenset({"R37"})


def _stream(
    b: Build, role: str, content: str | ContentBlock, given: str | None, new: bool, meta: Meta
) -> None:
    block = as_block(content)
    open_message = b.engine.open_message
    if given is None and not new and open_message is not None and open_message[0] == role:
        message_id = open_message[1]
    else:
        message_id = new_message_id(b, given, role)
    if role == "agent":
        b.update(AgentMessageChunk(message_id, block, meta))
    else:
        b.update(AgentThoughtChunk(message_id, block, meta))
    b.open_message = (role, message_id)


def _send_text(b: Build, intent: SendAgentText) -> None:
    _stream(b, "agent", intent.content, intent.message_id, intent.new_message, intent.meta)


def _send_thought(b: Build, intent: SendThought) -> None:
    _stream(b, "thought", intent.content, intent.message_id, intent.new_message, intent.meta)


def _send_message(b: Build, intent: SendAgentMessage) -> None:
    message_id = new_message_id(b, intent.message_id, "agent")
    b.update(AgentMessage(message_id, intent.content, intent.meta))
    b.open_message = ("agent", message_id)


def _update_plan(b: Build, intent: ReportPlan) -> None:
    plan: PlanItems | OtherPlan
    plan = PlanItems(intent.plan_id, intent.entries) if intent.plan is None else intent.plan
    if isinstance(plan, OtherPlan):
        # `raw` is the caller's JSON: check the two members every plan variant needs before
        # the properties read them.
        if not isinstance(plan.raw.get("type"), str):
            raise refuse("D1", "a plan object carries a string `type`")
        if not isinstance(plan.raw.get("planId"), str):
            raise refuse("R29", "every plan carries a non-empty planId")
    if not plan.plan_id:  # a policy stricter than R29 (it carries one; the checker accepts "")
        raise refuse("R29", "every plan carries a non-empty planId")
    b.update(PlanUpdate(plan))
    b.open_message = None


def _start_tool_call(b: Build, intent: StartToolCall) -> None:
    tool_call_id = intent.tool_call_id
    if tool_call_id is None:
        tool_call_id = b.new_id("call", b.session.tool_calls)
    elif tool_call_id in b.session.tool_calls:
        # A policy: StartToolCall starts a new tool call (the checker reads a reused id as a
        # patch). An empty id is refused as it goes out: J63, the checker's finding.
        raise refuse("R13", f"tool call id {tool_call_id!r} is already used")
    b.update(
        ToolCallUpdate(
            tool_call_id,
            intent.title,
            intent.kind,
            intent.status,
            intent.content or UNSET,
            intent.locations or UNSET,
            intent.raw_input,
            UNSET,
            intent.meta,
        ),
        also=_TITLED,
    )
    b.open_message = None


def _update_tool_call(b: Build, intent: PatchToolCall) -> None:
    known_tool_call(b, intent.tool_call_id)
    b.update(
        ToolCallUpdate(
            intent.tool_call_id,
            intent.title,
            intent.kind,
            intent.status,
            intent.content,
            intent.locations,
            intent.raw_input,
            intent.raw_output,
            intent.meta,
        )
    )
    b.open_message = None


def _send_tool_content(b: Build, intent: SendToolContent) -> None:
    known_tool_call(b, intent.tool_call_id)
    b.update(ToolCallContentChunk(intent.tool_call_id, intent.content, intent.meta))
    b.open_message = None


def _finish_tool_call(b: Build, intent: FinishToolCall) -> None:
    known_tool_call(b, intent.tool_call_id)
    b.update(
        ToolCallUpdate(
            intent.tool_call_id,
            status=intent.status,
            content=intent.content,
            raw_output=intent.raw_output,
        )
    )
    b.open_message = None


def _b64(data: bytes) -> str:
    return base64.b64encode(data).decode("ascii")


def _update_terminal(b: Build, intent: PatchTerminal) -> None:
    output = intent.output
    b.update(
        TerminalUpdate(
            intent.terminal_id,
            intent.command,
            intent.cwd,
            TerminalOutput(_b64(output)) if isinstance(output, bytes) else output,
            intent.exit_status,
            intent.meta,
        )
    )


def _send_terminal_output(b: Build, intent: SendTerminalOutput) -> None:
    # R34: each chunk is base64 of just its own bytes.
    b.update(TerminalOutputChunk(intent.terminal_id, _b64(intent.data)))


def _report_usage(b: Build, intent: ReportUsage) -> None:
    for name, value in (("used", intent.used), ("size", intent.size)):
        # The schema's uint64: the checker's decode of such a line reports D1.
        if type(value) is not int or not 0 <= value < 2**64:
            raise refuse("D1", f"usage `{name}` is a non-negative token count, got {value!r}")
    b.update(UsageUpdate(intent.used, intent.size, intent.cost), also=_PRICED)


def _update_info(b: Build, intent: PatchSessionInfo) -> None:
    b.update(SessionInfoUpdate(intent.title, intent.updated_at, intent.meta))


OUTPUT_STEPS: Final[dict[type[Any], Callable[[Build, Any], None]]] = {
    SendAgentText: _send_text,
    SendThought: _send_thought,
    SendAgentMessage: _send_message,
    ReportPlan: _update_plan,
    StartToolCall: _start_tool_call,
    PatchToolCall: _update_tool_call,
    SendToolContent: _send_tool_content,
    FinishToolCall: _finish_tool_call,
    PatchTerminal: _update_terminal,
    SendTerminalOutput: _send_terminal_output,
    ReportUsage: _report_usage,
    PatchSessionInfo: _update_info,
}
