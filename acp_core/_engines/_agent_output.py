"""The agent's output intents: messages, thoughts, plans, tool calls, terminals, usage.

Owns: the steps of the intents that report work (`OUTPUT_STEPS`): each checks its values
(R4, R5, R13, R14, R18, R19, R29, R31, R37) and builds the updates; what one update breaks
on its own (R33 and the rest) is judged again as it goes out (`Build.obey`). They are allowed
inside a turn and outside one (background activity, R40); the conversation machine judges
their order when `Build` sends them.
Must not know: prompts, turns, permissions or received messages (`_engines/_agent_turn.py`,
`_engines/_agent_permissions.py`, `_engines/_agent_receive.py`).
"""

from __future__ import annotations

import base64
import re
from collections.abc import Callable
from typing import Any, Final

from acp_core._wire._content import ContentBlock
from acp_core._wire._json import UNSET, Meta
from acp_core._wire._updates import (
    AgentMessage,
    AgentMessageChunk,
    AgentThoughtChunk,
    Cost,
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

_CURRENCY: Final = re.compile(r"[A-Z]{3}")


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
    if not plan.plan_id:
        raise refuse("R29", "every plan carries a non-empty planId")
    b.update(PlanUpdate(plan))
    b.open_message = None


def _start_tool_call(b: Build, intent: StartToolCall) -> None:
    tool_call_id = intent.tool_call_id
    if tool_call_id is None:
        tool_call_id = b.new_id("call", b.session.tool_calls)
    elif tool_call_id in b.session.tool_calls or not tool_call_id:
        raise refuse("R13", f"tool call id {tool_call_id!r} is empty or already used")
    if not intent.title:
        raise refuse("R14", "give a tool call a title the first time it is reported")
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
        )
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
    if not intent.terminal_id:
        raise refuse("R31", "terminal ids are non-empty strings")
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
    if not intent.terminal_id:
        raise refuse("R31", "terminal ids are non-empty strings")
    # R34: each chunk is base64 of just its own bytes.
    b.update(TerminalOutputChunk(intent.terminal_id, _b64(intent.data)))


def _report_usage(b: Build, intent: ReportUsage) -> None:
    for name, value in (("used", intent.used), ("size", intent.size)):
        if type(value) is not int or not 0 <= value < 2**64:
            raise refuse("R37", f"usage `{name}` is a non-negative token count, got {value!r}")
    cost = intent.cost
    if isinstance(cost, Cost) and not _CURRENCY.fullmatch(cost.currency):
        raise refuse("R37", f"cost currency is an ISO 4217 code, got {cost.currency!r}")
    b.update(UsageUpdate(intent.used, intent.size, cost))


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
