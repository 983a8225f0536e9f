"""Hypothesis strategies: every `sessionUpdate` variant, per revision.

Owns: strategies for `_wire/_updates.py` values; a field a later revision adds is drawn only for
revisions that carry it.
Must not know: JSON-RPC messages. Public surface: `acp_core.strategies`.
"""

from __future__ import annotations

import functools
from typing import Any, TypeVar

import attrs

from acp_core._wire import _updates as u
from acp_core._wire._codec import encode_update
from acp_core._wire._fields import PREVIEW_NAME, WIRE
from acp_core._wire._revision import DEFAULT_REVISION, Revision
from acp_core._wire._updates_2026_11 import (
    CancelCapability,
    TerminalCapabilities,
    TerminalSize,
    ToolCallCapabilities,
)

from ._strategies_base import (
    _UPDATE_TAGS,
    _base64,
    _edged,
    _ids,
    _int64,
    _paths,
    _raw_objects,
    _since,
    _texts,
    _tuples,
    _uint32,
    built_once,
    extras,
    json_values,
    metas,
    open_enum_values,
    patches,
    unknown_tags,
)
from ._strategies_config import (
    available_commands_updates,
    config_option_updates,
    plan_updates,
    session_info_updates,
    usage_updates,
)
from ._strategies_content import (
    content_blocks,
    tool_call_contents,
    tool_call_locations,
)
from ._strategies_later import later_updates, markdown_plans
from ._strategies_states import state_updates

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hypothesis import strategies as st
else:
    from ._hypothesis import st  # hypothesis is imported when a strategy is first built

T = TypeVar("T")

# -- session updates ---------------------------------------------------------------------


def user_message_chunks() -> st.SearchStrategy[u.UserMessageChunk]:
    """`user_message_chunk` updates."""
    return st.builds(
        u.UserMessageChunk,
        message_id=_ids(),
        content=content_blocks(),
        meta=metas(),
        extra=extras(),
    )


def agent_message_chunks() -> st.SearchStrategy[u.AgentMessageChunk]:
    """`agent_message_chunk` updates."""
    return st.builds(
        u.AgentMessageChunk,
        message_id=_ids(),
        content=content_blocks(),
        meta=metas(),
        extra=extras(),
    )


def agent_thought_chunks() -> st.SearchStrategy[u.AgentThoughtChunk]:
    """`agent_thought_chunk` updates."""
    return st.builds(
        u.AgentThoughtChunk,
        message_id=_ids(),
        content=content_blocks(),
        meta=metas(),
        extra=extras(),
    )


def user_messages() -> st.SearchStrategy[u.UserMessage]:
    """`user_message` upserts (content absent, null or a list)."""
    return st.builds(
        u.UserMessage,
        message_id=_ids(),
        content=patches(_tuples(content_blocks())),
        meta=metas(),
        extra=extras(),
    )


def agent_messages() -> st.SearchStrategy[u.AgentMessage]:
    """`agent_message` upserts."""
    return st.builds(
        u.AgentMessage,
        message_id=_ids(),
        content=patches(_tuples(content_blocks())),
        meta=metas(),
        extra=extras(),
    )


def agent_thoughts() -> st.SearchStrategy[u.AgentThought]:
    """`agent_thought` upserts."""
    return st.builds(
        u.AgentThought,
        message_id=_ids(),
        content=patches(_tuples(content_blocks())),
        meta=metas(),
        extra=extras(),
    )


# A tool call id is non-empty (J63), a terminal id too (R31): the checker refuses an empty one.
@functools.cache
def _tool_call_ids() -> st.SearchStrategy[str]:
    return st.text(min_size=1, max_size=8)


def tool_call_updates(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[u.ToolCallUpdate]:
    """`tool_call_update` patches (every field tri-state; `name` from 2026-11 on)."""
    return st.builds(
        u.ToolCallUpdate,
        tool_call_id=_tool_call_ids(),
        title=patches(_texts()),
        kind=patches(open_enum_values(u.ToolKind.KNOWN)),
        status=patches(open_enum_values(u.ToolCallStatus.KNOWN)),
        content=patches(_tuples(tool_call_contents(revision=revision), max_size=2)),
        locations=patches(_tuples(tool_call_locations(), max_size=2)),
        raw_input=patches(json_values()),
        raw_output=patches(json_values()),
        name=_since(u.ToolCallUpdate, "name", revision, patches(_texts())),
        capabilities=_since(u.ToolCallUpdate, "capabilities", revision, patches(_capabilities())),
        meta=metas(),
        extra=extras(),
    )


def _capabilities() -> st.SearchStrategy[ToolCallCapabilities]:
    # What the client may do to a tool call (2026-11 on): `cancel` present or not.
    cancel = st.builds(CancelCapability, meta=metas(), extra=extras())
    return st.builds(ToolCallCapabilities, cancel=patches(cancel), meta=metas(), extra=extras())


def tool_call_content_chunks(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[u.ToolCallContentChunk]:
    """`tool_call_content_chunk` updates (content as `revision` carries it)."""
    return st.builds(
        u.ToolCallContentChunk,
        tool_call_id=_tool_call_ids(),
        content=tool_call_contents(revision=revision),
        meta=metas(),
        extra=extras(),
    )


def terminal_outputs() -> st.SearchStrategy[u.TerminalOutput]:
    """Terminal output snapshots (base64 `data`)."""
    return st.builds(u.TerminalOutput, data=_base64(), meta=metas(), extra=extras())


def terminal_exit_statuses(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[u.TerminalExitStatus]:
    """Terminal exit statuses (`exitCode` uint32 at 2026-08, int64 from 2026-11 on)."""
    # The codec's own widening (`wire(codec_since=...)`): int64 once `revision` has it.
    wire = attrs.fields_dict(u.TerminalExitStatus)["exit_code"].metadata[WIRE]
    signed = any(revision.includes(since) for since, codec in wire.codec_since)
    codes = _int64() if signed else _uint32()
    return st.builds(
        u.TerminalExitStatus,
        exit_code=patches(codes),
        signal=patches(st.sampled_from(("SIGTERM", "SIGKILL", "SIGINT")) | _texts()),
        meta=metas(),
        extra=extras(),
    )


def terminal_updates(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[u.TerminalUpdate]:
    """`terminal_update` patches (`size` and `capabilities` from 2026-11 on)."""
    return st.builds(
        u.TerminalUpdate,
        terminal_id=_tool_call_ids(),
        command=patches(_texts()),
        cwd=patches(_paths()),
        output=patches(terminal_outputs()),
        exit_status=patches(terminal_exit_statuses(revision=revision)),
        meta=metas(),
        size=_since(u.TerminalUpdate, "size", revision, patches(_terminal_sizes())),
        capabilities=_since(
            u.TerminalUpdate, "capabilities", revision, patches(_terminal_capabilities())
        ),
        extra=extras(),
    )


def _terminal_sizes() -> st.SearchStrategy[TerminalSize]:
    # Columns and rows: uint16, at least 1 (2026-11 on).
    sides = _edged(1, 2**16 - 1)
    return st.builds(TerminalSize, cols=sides, rows=sides, meta=metas(), extra=extras())


def _terminal_capabilities() -> st.SearchStrategy[TerminalCapabilities]:
    # What the client may do to a display terminal (2026-11 on): `cancel` present or not.
    cancel = st.builds(CancelCapability, meta=metas(), extra=extras())
    return st.builds(TerminalCapabilities, cancel=patches(cancel), meta=metas(), extra=extras())


def terminal_output_chunks() -> st.SearchStrategy[u.TerminalOutputChunk]:
    """`terminal_output_chunk` updates (base64 `data`)."""
    return st.builds(
        u.TerminalOutputChunk,
        terminal_id=_tool_call_ids(),
        data=_base64(),
        meta=metas(),
        extra=extras(),
    )


def other_updates() -> st.SearchStrategy[u.OtherUpdate]:
    """Updates with an unknown `sessionUpdate` tag."""
    return st.builds(u.OtherUpdate, _raw_objects("sessionUpdate", unknown_tags(_UPDATE_TAGS)))


@built_once
def session_updates(
    *, tolerated: bool = False, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[u.SessionUpdate]:
    """Any `SessionUpdate` of `revision`, every variant it defines (those of 2026-11 and the
    Preview only where the revision includes them) and unknown ones (see `other_plans` for
    `tolerated`); what `decode_update(..., revision=revision)` gives back unchanged."""
    plans: st.SearchStrategy[u.PlanUpdate] = plan_updates(tolerated=tolerated)
    if revision.includes(PREVIEW_NAME):
        plans = plans | st.builds(u.PlanUpdate, plan=markdown_plans(), meta=metas(), extra=extras())
    return st.one_of(
        user_message_chunks(),
        user_messages(),
        agent_message_chunks(),
        agent_messages(),
        agent_thought_chunks(),
        agent_thoughts(),
        state_updates(revision=revision),
        tool_call_content_chunks(revision=revision),
        tool_call_updates(revision=revision),
        terminal_updates(revision=revision),
        terminal_output_chunks(),
        plans,
        available_commands_updates(revision=revision),
        config_option_updates(),
        session_info_updates(),
        usage_updates(),
        other_updates(),
        *later_updates(revision=revision),
    )


def wire_updates(
    *, tolerated: bool = False, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[dict[str, Any]]:
    """Encoded updates: fresh wire dicts as an agent would send them in `update`."""
    updates = session_updates(tolerated=tolerated, revision=revision)
    return updates.map(lambda update: encode_update(update, revision=revision))
