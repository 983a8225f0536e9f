"""The replay an agent owes on `session/resume`, generated from the session state it folds.

Owns: `replay_updates` (the history of a `SessionState` as the updates that rebuild it in a
fresh view), `state_snapshot` (the current `state_update`), and `END_MARKERS`, the per-revision
end-of-history marker (the Preview's `replay_complete`; none before it).
Must not know: the wire, JSON-RPC ids, connections or engines.

What is replayed and how (digest 3.13; Preview R62-R65):
- Timeline entities in first-seen order, so the rebuilt timeline is the same. A message goes
  whole (one upsert) unless it carries chunk-scoped `_meta`; then a reset upsert with empty
  content comes first and every block follows as a chunk with its own `_meta` (reset before
  chunks, R63). Message ids are the originals, so a replayed user message keeps the id its
  prompt response named (R64).
- A tool call goes as one `tool_call_update` carrying every field (content as chunks after an
  empty-content upsert when its items carry chunk `_meta`), a plan as its `plan_update`, a
  terminal as one `terminal_update` snapshot (all its bytes).
- Session-wide values last (commands, config options, info, usage), then the foreground as a
  state snapshot (with the background list once reported; none for a child whose state was
  never confirmed; `unknown` as it is). A running state that still carries the previous
  turn's stop reason is preceded by that idle, which is what put the stop reason there.
- Not replayed: unknown updates (`state.unknown`: notices and every kind this library does not
  know are live-only, R65) and diagnostics (each receiver finds its own). docs/semantics.md
  lists these exceptions to the replay law.
"""

from __future__ import annotations

import base64
from collections.abc import Callable, Iterator, Mapping
from typing import Final

from acp_core._state._pcoll import PMap, in_order
from acp_core._state._reduce_preview import UNCONFIRMED, UNKNOWN
from acp_core._state._session_state import MessageState, SessionState, TerminalState, ToolCallState
from acp_core._wire._fields import PREVIEW_NAME
from acp_core._wire._json import UNSET, JsonObject, Meta
from acp_core._wire._revision import Revision
from acp_core._wire._updates import (
    AgentMessage,
    AgentMessageChunk,
    AgentThought,
    AgentThoughtChunk,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    IdleStateUpdate,
    OtherStateUpdate,
    PlanUpdate,
    RequiresActionStateUpdate,
    RunningStateUpdate,
    SessionInfoUpdate,
    SessionUpdate,
    TerminalOutput,
    TerminalUpdate,
    ToolCallContentChunk,
    ToolCallUpdate,
    UsageUpdate,
    UserMessage,
    UserMessageChunk,
)
from acp_core._wire._updates_preview import ReplayComplete, UnknownStateUpdate

__all__ = ["END_MARKERS", "end_marker", "replay_updates", "state_snapshot"]

#: The update that ends one session's replayed history, by revision name. The 2026-08 and
#: 2026-11 drafts have none (the resume response ends the history); the Preview's revision
#: registers its `replay_complete` here, and the connection sends it after each session's
#: history and before that session's state snapshot (R57, R62).
END_MARKERS: Final[dict[str, SessionUpdate]] = {PREVIEW_NAME: ReplayComplete()}

_WHOLE: Final[dict[str, Callable[..., SessionUpdate]]] = {
    "user": UserMessage,
    "agent": AgentMessage,
    "thought": AgentThought,
}
_CHUNK: Final[dict[str, Callable[..., SessionUpdate]]] = {
    "user": UserMessageChunk,
    "agent": AgentMessageChunk,
    "thought": AgentThoughtChunk,
}


def end_marker(revision: Revision) -> SessionUpdate | None:
    """The end-of-history marker of `revision`, if it has one (a revision built on one with
    a marker keeps it)."""
    for name in reversed(revision.lineage):
        marker = END_MARKERS.get(name)
        if marker is not None:
            return marker
    return None


def _meta(value: JsonObject | None) -> Meta:
    return UNSET if value is None else value


def _message(message_id: str, message: MessageState) -> Iterator[SessionUpdate]:
    whole = _WHOLE.get(message.role, AgentMessage)
    if not message.chunk_meta:
        yield whole(message_id, tuple(message.content), _meta(message.meta))
        return
    chunk = _CHUNK.get(message.role, AgentMessageChunk)
    yield whole(message_id, (), _meta(message.meta))  # reset before chunks (R63)
    metas: PMap[int, JsonObject] = message.chunk_meta
    for i, block in enumerate(message.content):
        yield chunk(message_id, block, _meta(metas.get(i)))


def _tool_call(tool_call_id: str, call: ToolCallState) -> Iterator[SessionUpdate]:
    as_chunks = bool(call.chunk_meta)
    yield ToolCallUpdate(
        tool_call_id,
        UNSET if call.title is None else call.title,
        call.kind,
        call.status,
        () if as_chunks else tuple(call.content),
        call.locations,
        call.raw_input,
        call.raw_output,
        _meta(call.meta),
        name=UNSET if call.name is None else call.name,
        capabilities=UNSET if call.capabilities is None else call.capabilities,
    )
    if as_chunks:
        for i, item in enumerate(call.content):
            yield ToolCallContentChunk(tool_call_id, item, _meta(call.chunk_meta.get(i)))


def _terminal(terminal_id: str, terminal: TerminalState) -> TerminalUpdate:
    data = b"".join(terminal.output)
    output: TerminalOutput | None
    if data or terminal.snapshot_meta is not None:
        output = TerminalOutput(
            base64.b64encode(data).decode("ascii"), _meta(terminal.snapshot_meta)
        )
    else:
        output = None
    return TerminalUpdate(
        terminal_id,
        UNSET if terminal.command is None else terminal.command,
        UNSET if terminal.cwd is None else terminal.cwd,
        UNSET if output is None else output,
        UNSET if terminal.exit_status is None else terminal.exit_status,
        _meta(terminal.meta),
        # the program's size and what the client may do (2026-11 on), where reported
        UNSET if terminal.size is None else terminal.size,
        UNSET if terminal.capabilities is None else terminal.capabilities,
    )


def _session_wide(state: SessionState) -> Iterator[SessionUpdate]:
    if state.available_commands is not None:
        yield AvailableCommandsUpdate(state.available_commands)
    if state.config_options is not None:
        yield ConfigOptionUpdate(state.config_options)
    info = state.info
    if info.title is not None or info.updated_at is not None or info.meta is not None:
        yield SessionInfoUpdate(
            UNSET if info.title is None else info.title,
            UNSET if info.updated_at is None else info.updated_at,
            _meta(info.meta),
        )
    usage = state.usage
    if usage is not None:
        cost = UNSET if usage.cost is None else usage.cost
        yield UsageUpdate(usage.used, usage.size, cost, _meta(usage.meta))


def state_snapshot(state: SessionState) -> tuple[SessionUpdate, ...]:
    """The `state_update` that reports the current foreground state (R62), preceded by the
    idle that left the stop reason a busy state still shows, if any."""
    fg = state.foreground
    meta = _meta(fg.meta)
    # The background list goes with the snapshot once reported (R74); a child whose state
    # was never confirmed has nothing to snapshot (P4), an unobservable one says so (R77).
    background = UNSET if fg.background is None else fg.background
    if fg.state == UNCONFIRMED:
        return ()
    if fg.state == UNKNOWN:
        return (UnknownStateUpdate(background, meta),)
    if fg.state == "idle":
        stop = UNSET if fg.stop_reason is None else fg.stop_reason
        error = UNSET if fg.error is None else fg.error  # an `error` stop's error (2026-11 on)
        return (IdleStateUpdate(stop, meta, background, error),)
    head: tuple[SessionUpdate, ...] = ()
    if fg.stop_reason is not None:
        head = (IdleStateUpdate(fg.stop_reason),)
    if fg.raw is not None:
        return (*head, OtherStateUpdate(fg.raw))
    if fg.state == "requires_action":
        return (*head, RequiresActionStateUpdate(meta, background))
    return (*head, RunningStateUpdate(meta, background))


def replay_updates(state: SessionState) -> Iterator[SessionUpdate]:
    """The session's history as updates, in order, without the closing state snapshot.

    Lazy: a long history is generated while it is written, never held twice.
    """
    messages: Mapping[str, MessageState] = state.messages
    for ref in state.timeline:
        if ref.kind == "message":
            yield from _message(ref.id, messages[ref.id])
        elif ref.kind == "toolCall":
            yield from _tool_call(ref.id, state.tool_calls[ref.id])
        elif ref.kind == "plan":
            plan = state.plans[ref.id]
            yield PlanUpdate(plan.plan, _meta(plan.meta))
    for terminal_id, terminal in in_order(state.terminals):
        yield _terminal(terminal_id, terminal)
    yield from _session_wide(state)
