"""Plain-text rendering of a session: what `demo` and `replay` print.

Owns: `render_session` (a `SessionState` as readable text: foreground, info, usage, the
transcript with roles, tool calls with status and content, plans, context compactions with
their status and summary, terminals, commands, config options, unknown updates and
diagnostics) and the one-line renderings of content.
Must not know: files, streams, argument parsing (`_cli_*.py`), how the state was built.

Pure: every function returns a string. Text is shown as sent; adjacent text blocks of one
message are joined (they are separate blocks only so replace/clear stay exact, Q23).
"""

from __future__ import annotations

from collections.abc import Iterable, Sequence
from typing import Final

from acp_core._errors import ArgumentError
from acp_core._state._session_state import (
    MESSAGE,
    PLAN,
    TOOL_CALL,
    MessageState,
    PlanState,
    SessionState,
    TerminalState,
    ToolCallState,
    Usage,
    terminal_bytes,
)
from acp_core._state._state_extras import COMPACTION, CompactionState
from acp_core._wire._content import (
    AudioContent,
    BlobResourceContents,
    ContentBlock,
    Diff,
    DiffChange,
    DiffPatch,
    EmbeddedResource,
    ImageContent,
    OtherContent,
    OtherToolCallContent,
    ResourceLink,
    SessionReference,
    TerminalRef,
    TextContent,
    ToolCallContent,
    ToolContent,
)
from acp_core._wire._updates import (
    OtherPlan,
    SessionConfigBoolean,
    SessionConfigSelect,
    SessionConfigSelectGroup,
)
from acp_core._wire._updates_preview import PlanMarkdown

__all__ = ["render_block", "render_session", "render_tool_content"]

_INDENT: Final = "    "

#: Plan entry markers by status (anything else shows `[?]`).
_PLAN_MARK: Final = {
    "pending": "[ ]",
    "in_progress": "[>]",
    "completed": "[x]",
    "cancelled": "[-]",
}


def _indent(text: str, prefix: str) -> list[str]:
    return [prefix + line if line else prefix.rstrip() for line in text.split("\n")]


def render_block(block: ContentBlock) -> str:
    """One content block as text: text verbatim, anything else as a bracketed summary."""
    if type(block) is TextContent:
        return block.text
    if type(block) is ImageContent:
        return f"[image {block.mime_type}]"
    if type(block) is AudioContent:
        return f"[audio {block.mime_type}]"
    if type(block) is ResourceLink:
        return f"[link {block.name} <{block.uri}>]"
    if type(block) is EmbeddedResource:
        resource = block.resource
        if isinstance(resource, BlobResourceContents):
            return f"[resource <{resource.uri}> (binary)]"
        return f"[resource <{resource.uri}>]\n{resource.text}"
    assert type(block) is OtherContent
    return f"[{block.type}: unknown content type, kept as sent]"


def _change(change: object) -> str:
    if type(change) is DiffChange:
        moved = f" (from {change.old_path})" if isinstance(change.old_path, str) else ""
        return f"{change.operation} {change.path}{moved}"
    return "unknown change, kept as sent"


def render_tool_content(item: ToolCallContent) -> str:
    """One tool call content item as text."""
    if type(item) is ToolContent:
        return render_block(item.content)
    if type(item) is Diff:
        lines = ["diff: " + ", ".join(_change(c) for c in item.changes)]
        if type(item.patch) is DiffPatch:
            lines.append(item.patch.text.rstrip("\n"))
        return "\n".join(lines)
    if type(item) is TerminalRef:
        return f"[terminal {item.terminal_id}]"
    if type(item) is SessionReference:  # (Preview) a link to a session, display only (C52)
        return f"[session {item.session_id}]"
    assert type(item) is OtherToolCallContent
    return f"[{item.type}: unknown tool content type, kept as sent]"


def _joined_blocks(blocks: Iterable[ContentBlock]) -> list[str]:
    # Adjacent text blocks are one paragraph to a reader (Q23); other blocks stand alone.
    out: list[str] = []
    text: list[str] = []
    for block in blocks:
        if type(block) is TextContent:
            text.append(block.text)
            continue
        if text:
            out.append("".join(text))
            text = []
        out.append(render_block(block))
    if text:
        out.append("".join(text))
    return out


def _message(message_id: str, message: MessageState) -> list[str]:
    lines = [f"  {message.role} ({message_id}):"]
    parts = _joined_blocks(message.content)
    for part in parts or ["(empty)"]:
        lines.extend(_indent(part, _INDENT))
    return lines


def _tool_call(tool_call_id: str, call: ToolCallState) -> list[str]:
    title = "(untitled)" if call.title is None else repr(call.title)
    name = "" if call.name is None else f" {call.name}"
    lines = [f"  tool call {tool_call_id} {title} [{call.kind}{name}]: {call.status}"]
    for location in call.locations:
        line = f":{location.line}" if isinstance(location.line, int) and location.line else ""
        lines.append(f"{_INDENT}at {location.path}{line}")
    for item in call.content:
        # Each item is complete (streamed items are not fragments): one item, one paragraph.
        lines.extend(_indent(render_tool_content(item).rstrip("\n"), _INDENT))
    return lines


def _plan(plan_id: str, state: PlanState) -> list[str]:
    plan = state.plan
    if isinstance(plan, PlanMarkdown):  # (the Preview's) the whole plan as Markdown text
        where = f" ({plan.path})" if isinstance(plan.path, str) else ""
        lines = [f"  plan {plan_id}{where}:"]
        lines.extend(_indent(plan.content.rstrip("\n") or "(empty)", _INDENT))
        return lines
    if isinstance(plan, OtherPlan):
        return [f"  plan {plan_id}: {plan.type} (unknown plan type, kept as sent)"]
    lines = [f"  plan {plan_id}:"]
    if not plan.entries:
        lines.append(f"{_INDENT}(no entries)")
    for entry in plan.entries:
        mark = _PLAN_MARK.get(entry.status)
        detail = entry.priority if mark else f"{entry.priority}, {entry.status}"
        lines.append(f"{_INDENT}{mark or '[?]'} {entry.content} ({detail})")
    return lines


def _compaction(compaction_id: str, state: CompactionState) -> list[str]:
    # The transcript shows where the context was compacted, how it went and what it kept.
    lines = [f"  compaction {compaction_id}: {state.status}"]
    if state.error is not None:
        lines.append(f"{_INDENT}error: {state.error}")
    for part in _joined_blocks(state.summary):
        lines.extend(_indent(part, _INDENT))
    return lines


def _terminal(terminal_id: str, terminal: TerminalState) -> list[str]:
    details = []
    if terminal.command is not None:
        details.append(f"$ {terminal.command}")
    if terminal.cwd is not None:
        details.append(f"(cwd {terminal.cwd})")
    status = terminal.exit_status
    if status is None:
        details.append("running")
    elif isinstance(status.exit_code, int):
        details.append(f"exited {status.exit_code}")
    elif isinstance(status.signal, str):
        details.append(f"killed by {status.signal}")
    else:
        details.append("exited")
    lines = [f"  {terminal_id}: " + "  ".join(details)]
    text = terminal_bytes(terminal).decode("utf-8", errors="replace")
    for line in text.rstrip("\n").split("\n") if text else ():
        lines.append(f"{_INDENT}| {line}")
    return lines


def _usage(usage: Usage) -> str:
    # Q28: no validation beyond the codec's; avoid dividing by zero, clamp the share.
    # Tenths of a percent, rounded half up, in integers: a float division overflows on counts
    # far beyond any real window.
    share = ""
    if usage.size > 0:
        tenths = min(1000, (max(0, usage.used) * 2000 // usage.size + 1) // 2)
        share = f" ({tenths // 10}.{tenths % 10}%)"
    line = f"{usage.used:,} of {usage.size:,} tokens{share}"
    if usage.cost is not None:
        line += f", cost {usage.cost.amount:g} {usage.cost.currency}"
    return line


def _foreground(state: SessionState) -> str:
    foreground = state.foreground
    line = foreground.state
    if foreground.state == "idle":
        if foreground.stop_reason is not None:
            line += f" (stop reason: {foreground.stop_reason})"
    elif foreground.state == "requires_action":
        line += " (waiting for the user)"
    elif foreground.state != "running":
        line += " (unknown state, treated as busy)"  # Q3
    return line


def _config(state: SessionState) -> list[str]:
    lines: list[str] = []
    for option in state.config_options or ():
        if type(option) is SessionConfigSelect:
            names: list[str] = []
            for entry in option.options:
                if isinstance(entry, SessionConfigSelectGroup):
                    names.extend(o.value for o in entry.options)
                else:
                    names.append(entry.value)
            lines.append(f"  {option.config_id} = {option.current_value} (of {', '.join(names)})")
        elif type(option) is SessionConfigBoolean:
            lines.append(f"  {option.config_id} = {str(option.current_value).lower()}")
        else:
            lines.append("  (an unknown config option type, kept as sent)")
    return lines


def render_session(
    state: SessionState, *, pending: Sequence[str] = (), inputs: Sequence[str] = ()
) -> str:
    """A session as readable text (ends without a newline).

    Args:
        state: the session to show (a client's `view`, or a fold of a recorded trace).
        pending: one-line descriptions of permission requests waiting for an answer.
        inputs: one-line descriptions of other questions to the user waiting for an answer
            (elicitations).

    Raises:
        ArgumentError: `state` is not a `SessionState`.
    """
    if not isinstance(state, SessionState):  # typed callers never get here; others may
        msg = f"render_session takes a SessionState, not {type(state).__name__}"  # type: ignore[unreachable]
        raise ArgumentError(msg)
    lines = [f"Session {state.session_id}", f"  foreground: {_foreground(state)}"]
    info = state.info
    if info.title is not None:
        lines.append(f"  title: {info.title}")
    if info.updated_at is not None:
        lines.append(f"  updated at: {info.updated_at}")
    if state.usage is not None:
        lines.append(f"  usage: {_usage(state.usage)}")
    for request in pending:
        lines.append(f"  awaiting permission: {request}")
    for request in inputs:
        lines.append(f"  awaiting input: {request}")

    lines += ["", "Transcript"]
    if not len(state.timeline):
        lines.append("  (nothing reported yet)")
    messages = state.messages
    for ref in state.timeline:
        if ref.kind == MESSAGE:
            lines.extend(_message(ref.id, messages[ref.id]))
        elif ref.kind == TOOL_CALL:
            lines.extend(_tool_call(ref.id, state.tool_calls[ref.id]))
        elif ref.kind == PLAN:
            lines.extend(_plan(ref.id, state.plans[ref.id]))
        elif ref.kind == COMPACTION:
            compaction = state.aux.extras.compactions.get(ref.id)
            if compaction is not None:
                lines.extend(_compaction(ref.id, compaction))

    if len(state.terminals):
        lines += ["", "Terminals"]
        for terminal_id in sorted(state.terminals.keys()):
            lines.extend(_terminal(terminal_id, state.terminals[terminal_id]))
    if state.available_commands:
        lines += ["", "Commands"]
        lines.extend(f"  /{c.name}: {c.description}" for c in state.available_commands)
    if state.config_options:
        lines += ["", "Config"]
        lines.extend(_config(state))
    if len(state.unknown):
        lines += ["", "Unknown updates (kept as sent)"]
        for update in state.unknown:
            lines.append(f"  {update.session_update}")
    if len(state.diagnostics):
        lines += ["", "Diagnostics"]
        for d in state.diagnostics:
            lines.append(f"  {d.rule} @ {d.path}: {d.message}")
    return "\n".join(lines)
