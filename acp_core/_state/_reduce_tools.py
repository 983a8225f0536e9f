"""Tool-call and display-terminal reducers (digest 3.3 T1-T12, 3.4 X1-X10).

Owns: `tool_call_update` (upsert with the patch algebra and the T1 defaults),
`tool_call_content_chunk` (append; Q6 for unseen ids), `terminal_update` (patch; output is a
replacement snapshot, Q8, Q24), `terminal_output_chunk` (decode each chunk alone, append), the
terminal records that tool-content references create (X1), and the bulk versions `fold` uses.
Must not know: messages, plans, the foreground, JSON, engines.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable
from typing import Any, Final

from acp_core._wire._content import TerminalRef, ToolCallContent
from acp_core._wire._json import UNSET, Meta
from acp_core._wire._updates import (
    TerminalOutputChunk,
    TerminalUpdate,
    ToolCallContentChunk,
    ToolCallUpdate,
    ToolKind,
)

from ._pcoll import EMPTY_VEC, PMap, PVec, append_encoded, extend_compact
from ._reduce_common import (
    BAD_BASE64,
    CHUNK_FOR_UNKNOWN_TOOL_CALL,
    EMPTY_PMAP,
    NEW_TERMINAL,
    NEW_TOOL_CALL,
    b64decode,
    diagnose,
    make_terminal,
    make_tool_call,
    meta_or_none,
    patch_meta,
    with_terminals,
)
from ._session_state import (
    TOOL_CALL,
    SessionState,
    TerminalState,
    ToolCallState,
    entered,
    new_entity_ref,
    with_tool_calls,
)
from ._text_runs import TOOL_TEXT_RUNS, tool_item_encoded

__all__ = [
    "REDUCERS",
    "appended_tool_content",
    "patched_tool_call",
    "terminal_refs",
    "terminal_run",
    "unknown_tool_call",
]

# -- tool calls (T1-T12) -------------------------------------------------------------------


def terminal_refs(
    terminals: PMap[str, TerminalState], items: Iterable[ToolCallContent]
) -> PMap[str, TerminalState]:
    # X1: a terminal reference may be the first sight of a terminal; keep a record for it.
    for item in items:
        if type(item) is TerminalRef and item.terminal_id not in terminals:
            terminals = terminals.set(item.terminal_id, NEW_TERMINAL)
    return terminals


def patched_tool_call(old: ToolCallState, u: ToolCallUpdate) -> ToolCallState:
    """The tool call after the patch `u` (T1-T3, T7, Q5): the record-level rule, shared by
    `reduce` and `fold`."""
    content = old.content
    chunk_meta = old.chunk_meta
    if u.content is not UNSET:
        # Packed as appended content is (the items were just decoded: at hand).
        content = extend_compact(EMPTY_VEC, u.content, TOOL_TEXT_RUNS) if u.content else EMPTY_VEC
        chunk_meta = EMPTY_PMAP
    return make_tool_call(
        old.title if u.title is UNSET else u.title,
        old.kind if u.kind is UNSET else (ToolKind.OTHER if u.kind is None else u.kind),
        old.status if u.status is UNSET else ("pending" if u.status is None else u.status),
        content,
        old.locations if u.locations is UNSET else (u.locations or ()),
        old.raw_input if u.raw_input is UNSET else u.raw_input,
        old.raw_output if u.raw_output is UNSET else u.raw_output,
        patch_meta(old.meta, u.meta),
        chunk_meta,
        old.name if u.name is UNSET else u.name,
        old.capabilities if u.capabilities is UNSET else u.capabilities,
    )


def appended_tool_content(old: ToolCallState, item: ToolCallContent, meta: Meta) -> ToolCallState:
    """The tool call with one content item appended (T4), the chunk's `_meta` kept by its
    index (T6)."""
    content = old.content
    chunk_meta = old.chunk_meta
    if meta is not UNSET and meta is not None:
        chunk_meta = chunk_meta.set(len(content), meta)
    # Encoded as it arrives (the item was just decoded: at hand), so the call's content is
    # one node and one run the collector does not track; read back, equal items.
    encoded = tool_item_encoded(item)
    return make_tool_call(
        old.title,
        old.kind,
        old.status,
        content.append(item)
        if encoded is None
        else append_encoded(content, encoded, TOOL_TEXT_RUNS),
        old.locations,
        old.raw_input,
        old.raw_output,
        old.meta,
        chunk_meta,
        old.name,
        old.capabilities,
    )


def _tool_call_update(state: SessionState, u: ToolCallUpdate) -> SessionState:
    tool_call_id = u.tool_call_id
    tool_calls = state.tool_calls
    old = tool_calls.get(tool_call_id)
    created = old is None
    new = patched_tool_call(NEW_TOOL_CALL if old is None else old, u)
    terminals = state.terminals
    if isinstance(u.content, tuple):  # a reference may be a terminal's first sight (X1)
        terminals = terminal_refs(terminals, u.content)
    if not created and new == old and terminals is state.terminals:
        return state
    timeline = state.timeline
    if created:
        timeline = entered(timeline, new_entity_ref(TOOL_CALL, tool_call_id))
    return with_tool_calls(state, tool_calls.set(tool_call_id, new), terminals, timeline)


def _tool_call_content_chunk(state: SessionState, u: ToolCallContentChunk) -> SessionState:
    tool_call_id = u.tool_call_id
    old = state.tool_calls.get(tool_call_id)
    timeline = state.timeline
    unknown = old is None
    if old is None:
        old = NEW_TOOL_CALL  # Q6: create with T1 defaults, then append
        timeline = entered(timeline, new_entity_ref(TOOL_CALL, tool_call_id))
    item = u.content
    terminals = state.terminals
    if type(item) is TerminalRef:  # only a reference can be a terminal's first sight (X1)
        terminals = terminal_refs(terminals, (item,))
    out = with_tool_calls(
        state,
        state.tool_calls.set(tool_call_id, appended_tool_content(old, item, u.meta)),
        terminals,
        timeline,
    )
    if unknown:
        out = unknown_tool_call(out, tool_call_id)
    return out


def unknown_tool_call(state: SessionState, tool_call_id: str) -> SessionState:
    return diagnose(
        state,
        CHUNK_FOR_UNKNOWN_TOOL_CALL,
        f"toolCall {tool_call_id}",
        f"content chunk for unseen tool call {tool_call_id!r}: created with defaults",
    )


# -- display terminals (X1-X10) ------------------------------------------------------------


def _terminal_update(state: SessionState, u: TerminalUpdate) -> SessionState:
    terminal_id = u.terminal_id
    old = state.terminals.get(terminal_id)
    created = old is None
    if old is None:
        old = NEW_TERMINAL
    output = old.output
    snapshot_meta = old.snapshot_meta
    if u.output is not UNSET:
        if u.output is None:
            output, snapshot_meta = EMPTY_VEC, None  # Q8: clear to empty
        else:
            data = b64decode(u.output.data)
            if data is None:  # Q24: reject the whole update, record why
                return diagnose(
                    state,
                    BAD_BASE64,
                    f"terminal {terminal_id}",
                    f"terminal_update for {terminal_id!r} has invalid base64 output: not applied",
                )
            # X3: a snapshot replaces every byte; never merged with the old ones.
            output = EMPTY_VEC.append(data) if data else EMPTY_VEC
            snapshot_meta = meta_or_none(u.output.meta)
    new = make_terminal(
        old.command if u.command is UNSET else u.command,
        old.cwd if u.cwd is UNSET else u.cwd,
        output,
        snapshot_meta,
        old.exit_status if u.exit_status is UNSET else u.exit_status,
        patch_meta(old.meta, u.meta),
        old.size if u.size is UNSET else u.size,
        old.capabilities if u.capabilities is UNSET else u.capabilities,
    )
    if not created and _same_terminal(old, new):
        return state
    return with_terminals(state, state.terminals.set(terminal_id, new))


def _same_terminal(old: TerminalState, new: TerminalState) -> bool:
    # Output kept by reference (no `output` in the update) is equal without a look at its
    # bytes: `==` on TerminalState joins all of them, which made a no-op cost O(terminal size).
    if new.output is not old.output:
        return new == old
    return (
        new.command == old.command
        and new.cwd == old.cwd
        and new.snapshot_meta == old.snapshot_meta
        and new.exit_status == old.exit_status
        and new.meta == old.meta
        and new.size == old.size
        and new.capabilities == old.capabilities
    )


def _terminal_output_chunk(state: SessionState, u: TerminalOutputChunk) -> SessionState:
    terminal_id = u.terminal_id
    data = b64decode(u.data)
    if data is None:
        return bad_chunk(state, terminal_id)
    old = state.terminals.get(terminal_id)
    if old is None:
        old = NEW_TERMINAL  # X1: output may arrive before any reference or update
    elif not data:
        return state
    # X4: each chunk is decoded alone and its bytes appended (chunk _meta is chunk-scoped
    # and not kept: terminal state has no per-chunk slot).
    return _with_output(state, terminal_id, old, old.output.append(data) if data else old.output)


def _with_output(
    state: SessionState, terminal_id: str, old: TerminalState, output: PVec[bytes]
) -> SessionState:
    # the terminal with its output replaced, everything else as it was (X4)
    new = make_terminal(
        old.command,
        old.cwd,
        output,
        old.snapshot_meta,
        old.exit_status,
        old.meta,
        old.size,
        old.capabilities,
    )
    return with_terminals(state, state.terminals.set(terminal_id, new))


def bad_chunk(state: SessionState, terminal_id: str) -> SessionState:
    return diagnose(
        state,
        BAD_BASE64,
        f"terminal {terminal_id}",
        f"terminal_output_chunk for {terminal_id!r} has invalid base64: not applied",
    )


# -- bulk versions for `fold` ---------------------------------------------------------


def terminal_run(state: SessionState, run: list[TerminalOutputChunk]) -> SessionState:
    terminal_id = run[0].terminal_id
    chunks: list[bytes] = []
    valid = False
    for u in run:
        data = b64decode(u.data)
        if data is None:
            state = bad_chunk(state, terminal_id)
            continue
        valid = True
        if data:
            chunks.append(data)
    if not valid:
        return state
    old = state.terminals.get(terminal_id)
    if old is None:
        old = NEW_TERMINAL
    elif not chunks:
        return state
    return _with_output(state, terminal_id, old, old.output.extend(chunks))


REDUCERS: Final[dict[type[Any], Callable[[SessionState, Any], SessionState]]] = {
    ToolCallContentChunk: _tool_call_content_chunk,
    TerminalOutputChunk: _terminal_output_chunk,
    ToolCallUpdate: _tool_call_update,
    TerminalUpdate: _terminal_update,
}
