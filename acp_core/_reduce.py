"""The reducers: `reduce(state, update) -> state` for the whole v2 session-update surface.

Owns: what each update means for a `SessionState` (digest section 3: rules M1-M8 for
messages, T1-T12 for tool calls, X1-X10 for display terminals, P1-P6 for plans, and the
usage / info / config / commands / state rules), and the reducer diagnostics.
Must not know: JSON or the codec, which side we are, engines, clocks.

Theory of operation.
- Every entity is upserted by id: the first update for an unseen id creates it with the
  documented defaults (M2/M3, T1, X1, P1); later updates patch it. Patch fields follow one
  algebra: `UNSET` keeps, `None` clears (to the field's default: `kind` -> other, `status` ->
  pending, arrays -> empty), a value replaces wholesale (Q5, 3.1).
- Chunks append to whatever is current; a full update (`content` given) replaces all of it,
  chunk-built blocks included (M2, T3). A chunk's `_meta` stays with its block (M3, T6).
- The timeline lists messages, tool calls and plans in first-seen order; nothing moves later.
- Only `state_update` touches the foreground; any other update, in any state, leaves it alone
  (3.10, T9, R40).
- Reducers never raise on decoded data. Anomalies (Q6, Q16, Q24, Q32) are recorded as
  `Diagnostic`s and the state stays consistent; an update with bad base64 is not applied.
- An update that changes nothing returns the very same state object (cheap change checks).
- Speed: per-event cost does not grow with message length or session size (PVec appends,
  HAMT map sets, positional constructors; see docs/performance.md).
"""

from __future__ import annotations

import base64
import binascii
from collections.abc import Callable, Iterable
from typing import Any, Final

import attrs

from ._content import ContentBlock, TerminalRef, ToolCallContent
from ._errors import Diagnostic
from ._fastnew import fast_constructor
from ._json import UNSET, JsonObject, Meta
from ._pcoll import EMPTY_VEC, PMap, PVec
from ._revision import DEFAULT_REVISION, Revision
from ._state import (
    AGENT,
    MESSAGE,
    PLAN,
    THOUGHT,
    TOOL_CALL,
    USER,
    EntityRef,
    Foreground,
    PlanState,
    SessionAux,
    SessionInfo,
    SessionState,
    TerminalState,
    ToolCallState,
    Usage,
    new_message_state,
    new_session_state,
)
from ._updates import (
    AgentMessage,
    AgentMessageChunk,
    AgentThought,
    AgentThoughtChunk,
    AvailableCommandsUpdate,
    ConfigOptionUpdate,
    IdleStateUpdate,
    OtherStateUpdate,
    OtherUpdate,
    PlanUpdate,
    RequiresActionStateUpdate,
    RunningStateUpdate,
    SessionInfoUpdate,
    SessionUpdate,
    TerminalOutputChunk,
    TerminalUpdate,
    ToolCallContentChunk,
    ToolCallUpdate,
    ToolKind,
    UsageUpdate,
    UserMessage,
    UserMessageChunk,
)

__all__ = [
    "BAD_BASE64",
    "CHUNK_FOR_UNKNOWN_TOOL_CALL",
    "ROLE_MISMATCH",
    "V1_KIND_ON_V2",
    "fold",
    "reduce",
]

#: Diagnostic rule ids of the reducers (see docs/semantics.md).
ROLE_MISMATCH: Final = "reduce.role-mismatch"  # Q16
CHUNK_FOR_UNKNOWN_TOOL_CALL: Final = "reduce.chunk-for-unknown-tool-call"  # Q6
BAD_BASE64: Final = "reduce.bad-base64"  # Q24
V1_KIND_ON_V2: Final = "reduce.v1-kind-on-v2"  # Q32

_V1_KINDS: Final = frozenset({"tool_call", "plan", "current_mode_update"})
_EMPTY: Final[PMap[Any, Any]] = PMap()
_NEW_TOOL_CALL: Final = ToolCallState()
_TOOL_CALL: Final = fast_constructor(ToolCallState)
_TERMINAL: Final = fast_constructor(TerminalState)
_NEW_TERMINAL: Final = TerminalState()


def _patch_meta(old: JsonObject | None, patch: Meta) -> JsonObject | None:
    # Q15: the 2026-08 revision replaces `_meta` wholesale; the 2026-11 draft merges by
    # top-level key, which `reduce` does up front in `_merge_meta` when asked to.
    if patch is UNSET:
        return old
    return patch


def _with_aux(state: SessionState, aux: SessionAux) -> SessionState:
    return new_session_state(
        state.session_id,
        state.foreground,
        state.timeline,
        state._messages,
        state.tool_calls,
        state.terminals,
        state.plans,
        aux,
        state._hot_id,
        state._hot_content,
    )


def _set_aux(state: SessionState, **changes: Any) -> SessionState:
    # Session-wide data changes rarely, so `evolve` (slower than a positional build) is fine.
    return _with_aux(state, attrs.evolve(state.aux, **changes))


def _diagnose(state: SessionState, rule: str, path: str, message: str) -> SessionState:
    diagnostic = Diagnostic(rule, path, message)
    return _set_aux(state, diagnostics=state.aux.diagnostics.append(diagnostic))


# -- messages (M1-M8) ----------------------------------------------------------------------


def _chunk(
    state: SessionState, message_id: str, block: ContentBlock, meta: Meta, role: str
) -> SessionState:
    chunk_scoped = meta is not UNSET and meta is not None
    hot_id = state._hot_id
    if message_id == hot_id and not chunk_scoped and state._messages[hot_id].role == role:
        # The hot path: the message being streamed grows by one node; nothing else is built.
        return new_session_state(
            state.session_id,
            state.foreground,
            state.timeline,
            state._messages,
            state.tool_calls,
            state.terminals,
            state.plans,
            state.aux,
            hot_id,
            state._hot_content.append(block),  # type: ignore[union-attr]
        )
    messages = state.messages  # the hot message (if any) written back
    old = messages.get(message_id)
    timeline = state.timeline
    new_hot_id: str | None = None
    new_hot: PVec[ContentBlock] | None = None
    if old is None:
        timeline = timeline.append(EntityRef(MESSAGE, message_id))
        if chunk_scoped:
            messages = messages.set(
                message_id,
                new_message_state(role, EMPTY_VEC.append(block), None, _EMPTY.set(0, meta)),
            )
        else:
            # Becomes the hot message: the map keeps its role and _meta, the root its content.
            messages = messages.set(message_id, new_message_state(role, EMPTY_VEC, None, _EMPTY))
            new_hot_id, new_hot = message_id, EMPTY_VEC.append(block)
    elif chunk_scoped or old.role != role:
        chunk_meta = old.chunk_meta
        if meta is not UNSET and meta is not None:
            chunk_meta = chunk_meta.set(len(old.content), meta)
        messages = messages.set(
            message_id,
            new_message_state(old.role, old.content.append(block), old.meta, chunk_meta),
        )
    else:
        new_hot_id, new_hot = message_id, old.content.append(block)
    out = new_session_state(
        state.session_id,
        state.foreground,
        timeline,
        messages,
        state.tool_calls,
        state.terminals,
        state.plans,
        state.aux,
        new_hot_id,
        new_hot,
    )
    if old is not None and old.role != role:
        out = _role_mismatch(out, message_id, role, old.role)
    return out


def _role_mismatch(
    state: SessionState, message_id: str, role: str, first_role: str
) -> SessionState:
    return _diagnose(
        state,
        ROLE_MISMATCH,
        f"message {message_id}",
        f"a {role} chunk for message {message_id!r} first seen as {first_role}: "
        "the block was appended and the original role kept",
    )


def _user_chunk(state: SessionState, u: UserMessageChunk) -> SessionState:
    return _chunk(state, u.message_id, u.content, u.meta, USER)


def _agent_chunk(state: SessionState, u: AgentMessageChunk) -> SessionState:
    return _chunk(state, u.message_id, u.content, u.meta, AGENT)


def _thought_chunk(state: SessionState, u: AgentThoughtChunk) -> SessionState:
    return _chunk(state, u.message_id, u.content, u.meta, THOUGHT)


def _upsert(
    state: SessionState, u: UserMessage | AgentMessage | AgentThought, role: str
) -> SessionState:
    message_id = u.message_id
    messages = state.messages
    old = messages.get(message_id)
    timeline = state.timeline
    if old is None:
        old = new_message_state(role, EMPTY_VEC, None, _EMPTY)
        timeline = timeline.append(EntityRef(MESSAGE, message_id))
        created = True
    else:
        created = False
        if u.content is UNSET and u.meta is UNSET:
            return state
    content = old.content
    chunk_meta = old.chunk_meta
    if u.content is not UNSET:
        # M2: content replaces everything accumulated, chunk-built blocks and their _meta too.
        content = PVec(u.content) if u.content else EMPTY_VEC
        chunk_meta = _EMPTY
    new = new_message_state(old.role, content, _patch_meta(old.meta, u.meta), chunk_meta)
    if not created and new == old:
        return state
    out = new_session_state(
        state.session_id,
        state.foreground,
        timeline,
        messages.set(message_id, new),
        state.tool_calls,
        state.terminals,
        state.plans,
        state.aux,
        None,  # `messages` wrote the hot message back
        None,
    )
    if old.role != role:
        out = _diagnose(
            out,
            ROLE_MISMATCH,
            f"message {message_id}",
            f"a {role} update for message {message_id!r} first seen as {old.role}: "
            "applied, original role kept",
        )
    return out


def _user_message(state: SessionState, u: UserMessage) -> SessionState:
    return _upsert(state, u, USER)


def _agent_message(state: SessionState, u: AgentMessage) -> SessionState:
    return _upsert(state, u, AGENT)


def _agent_thought(state: SessionState, u: AgentThought) -> SessionState:
    return _upsert(state, u, THOUGHT)


# -- foreground state (3.10, section 5) ----------------------------------------------------


def _set_foreground(state: SessionState, foreground: Foreground) -> SessionState:
    if foreground == state.foreground:
        return state  # Q21: repeats are idempotent
    return new_session_state(
        state.session_id,
        foreground,
        state.timeline,
        state._messages,
        state.tool_calls,
        state.terminals,
        state.plans,
        state.aux,
        state._hot_id,
        state._hot_content,
    )


def _meta_or_none(meta: Meta) -> JsonObject | None:
    return None if meta is UNSET else meta


def _running(state: SessionState, u: RunningStateUpdate) -> SessionState:
    # The stop reason belongs to the most recent idle; a running update does not clear it.
    fg = state.foreground
    return _set_foreground(state, Foreground("running", fg.stop_reason, _meta_or_none(u.meta)))


def _requires_action(state: SessionState, u: RequiresActionStateUpdate) -> SessionState:
    fg = state.foreground
    return _set_foreground(
        state, Foreground("requires_action", fg.stop_reason, _meta_or_none(u.meta))
    )


def _idle(state: SessionState, u: IdleStateUpdate) -> SessionState:
    # Q1: a missing/null stop reason reads as "not reported".
    stop = None if u.stop_reason is UNSET else u.stop_reason
    return _set_foreground(state, Foreground("idle", stop, _meta_or_none(u.meta)))


def _other_state(state: SessionState, u: OtherStateUpdate) -> SessionState:
    # Q3: keep an unknown state raw; it is "not idle" for gating, nothing more is inferred.
    meta = u.raw.get("_meta")
    fg = Foreground(
        u.state,
        state.foreground.stop_reason,
        meta if isinstance(meta, PMap) else None,
        u.raw,
    )
    return _set_foreground(state, fg)


# -- tool calls (T1-T12) -------------------------------------------------------------------


def _terminal_refs(
    terminals: PMap[str, TerminalState], items: Iterable[ToolCallContent]
) -> PMap[str, TerminalState]:
    # X1: a terminal reference may be the first sight of a terminal; keep a record for it.
    for item in items:
        if type(item) is TerminalRef and item.terminal_id not in terminals:
            terminals = terminals.set(item.terminal_id, _NEW_TERMINAL)
    return terminals


def _tool_call_update(state: SessionState, u: ToolCallUpdate) -> SessionState:
    tool_call_id = u.tool_call_id
    tool_calls = state.tool_calls
    old = tool_calls.get(tool_call_id)
    created = old is None
    if old is None:
        old = _NEW_TOOL_CALL
    title = old.title if u.title is UNSET else u.title
    kind = old.kind if u.kind is UNSET else (ToolKind.OTHER if u.kind is None else u.kind)
    status = old.status if u.status is UNSET else ("pending" if u.status is None else u.status)
    content = old.content
    chunk_meta = old.chunk_meta
    terminals = state.terminals
    if u.content is not UNSET:
        content = PVec(u.content) if u.content else EMPTY_VEC
        chunk_meta = _EMPTY
        if u.content:
            terminals = _terminal_refs(terminals, u.content)
    locations = old.locations
    if u.locations is not UNSET:
        locations = u.locations or ()
    raw_input = old.raw_input if u.raw_input is UNSET else u.raw_input
    raw_output = old.raw_output if u.raw_output is UNSET else u.raw_output
    new = _TOOL_CALL(
        title,
        kind,
        status,
        content,
        locations,
        raw_input,
        raw_output,
        _patch_meta(old.meta, u.meta),
        chunk_meta,
    )
    if not created and new == old and terminals is state.terminals:
        return state
    timeline = state.timeline
    if created:
        timeline = timeline.append(EntityRef(TOOL_CALL, tool_call_id))
    return new_session_state(
        state.session_id,
        state.foreground,
        timeline,
        state._messages,
        tool_calls.set(tool_call_id, new),
        terminals,
        state.plans,
        state.aux,
        state._hot_id,
        state._hot_content,
    )


def _tool_call_content_chunk(state: SessionState, u: ToolCallContentChunk) -> SessionState:
    tool_call_id = u.tool_call_id
    old = state.tool_calls.get(tool_call_id)
    timeline = state.timeline
    unknown = old is None
    if old is None:
        old = _NEW_TOOL_CALL  # Q6: create with T1 defaults, then append
        timeline = timeline.append(EntityRef(TOOL_CALL, tool_call_id))
    chunk_meta = old.chunk_meta
    if u.meta is not UNSET and u.meta is not None:
        chunk_meta = chunk_meta.set(len(old.content), u.meta)
    new = _TOOL_CALL(
        old.title,
        old.kind,
        old.status,
        old.content.append(u.content),
        old.locations,
        old.raw_input,
        old.raw_output,
        old.meta,
        chunk_meta,
    )
    out = new_session_state(
        state.session_id,
        state.foreground,
        timeline,
        state._messages,
        state.tool_calls.set(tool_call_id, new),
        _terminal_refs(state.terminals, (u.content,)),
        state.plans,
        state.aux,
        state._hot_id,
        state._hot_content,
    )
    if unknown:
        out = _unknown_tool_call(out, tool_call_id)
    return out


def _unknown_tool_call(state: SessionState, tool_call_id: str) -> SessionState:
    return _diagnose(
        state,
        CHUNK_FOR_UNKNOWN_TOOL_CALL,
        f"toolCall {tool_call_id}",
        f"content chunk for unseen tool call {tool_call_id!r}: created with defaults",
    )


# -- display terminals (X1-X10) ------------------------------------------------------------


def _b64(data: str) -> bytes | None:
    """Decode RFC 4648 base64 (standard alphabet, padding optional); None when invalid."""
    try:
        return base64.b64decode(data + "=" * (-len(data) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


def _with_terminals(state: SessionState, terminals: PMap[str, TerminalState]) -> SessionState:
    return new_session_state(
        state.session_id,
        state.foreground,
        state.timeline,
        state._messages,
        state.tool_calls,
        terminals,
        state.plans,
        state.aux,
        state._hot_id,
        state._hot_content,
    )


def _terminal_update(state: SessionState, u: TerminalUpdate) -> SessionState:
    terminal_id = u.terminal_id
    old = state.terminals.get(terminal_id)
    created = old is None
    if old is None:
        old = _NEW_TERMINAL
    output = old.output
    snapshot_meta = old.snapshot_meta
    if u.output is not UNSET:
        if u.output is None:
            output, snapshot_meta = EMPTY_VEC, None  # Q8: clear to empty
        else:
            data = _b64(u.output.data)
            if data is None:  # Q24: reject the whole update, record why
                return _diagnose(
                    state,
                    BAD_BASE64,
                    f"terminal {terminal_id}",
                    f"terminal_update for {terminal_id!r} has invalid base64 output: not applied",
                )
            # X3: a snapshot replaces every byte; never merged with the old ones.
            output = EMPTY_VEC.append(data) if data else EMPTY_VEC
            snapshot_meta = _meta_or_none(u.output.meta)
    new = _TERMINAL(
        old.command if u.command is UNSET else u.command,
        old.cwd if u.cwd is UNSET else u.cwd,
        output,
        snapshot_meta,
        old.exit_status if u.exit_status is UNSET else u.exit_status,
        _patch_meta(old.meta, u.meta),
    )
    if not created and new == old:
        return state
    return _with_terminals(state, state.terminals.set(terminal_id, new))


def _terminal_output_chunk(state: SessionState, u: TerminalOutputChunk) -> SessionState:
    terminal_id = u.terminal_id
    data = _b64(u.data)
    if data is None:
        return _bad_chunk(state, terminal_id)
    old = state.terminals.get(terminal_id)
    if old is None:
        old = _NEW_TERMINAL  # X1: output may arrive before any reference or update
    elif not data:
        return state
    # X4: each chunk is decoded alone and its bytes appended (chunk _meta is chunk-scoped
    # and not kept: terminal state has no per-chunk slot).
    new = _TERMINAL(
        old.command,
        old.cwd,
        old.output.append(data) if data else old.output,
        old.snapshot_meta,
        old.exit_status,
        old.meta,
    )
    return _with_terminals(state, state.terminals.set(terminal_id, new))


def _bad_chunk(state: SessionState, terminal_id: str) -> SessionState:
    return _diagnose(
        state,
        BAD_BASE64,
        f"terminal {terminal_id}",
        f"terminal_output_chunk for {terminal_id!r} has invalid base64: not applied",
    )


# -- plans (P1-P6) -------------------------------------------------------------------------


def _plan_update(state: SessionState, u: PlanUpdate) -> SessionState:
    plan = u.plan
    plan_id = plan.plan_id
    plans = state.plans
    new = PlanState(plan, _meta_or_none(u.meta))
    old = plans.get(plan_id)
    if old == new:
        return state
    timeline = state.timeline
    if old is None:
        timeline = timeline.append(EntityRef(PLAN, plan_id))
    return new_session_state(
        state.session_id,
        state.foreground,
        timeline,
        state._messages,
        state.tool_calls,
        state.terminals,
        plans.set(plan_id, new),
        state.aux,
        state._hot_id,
        state._hot_content,
    )


# -- session-wide updates ------------------------------------------------------------------


def _commands(state: SessionState, u: AvailableCommandsUpdate) -> SessionState:
    if state.aux.available_commands == u.available_commands:
        return state
    return _set_aux(state, available_commands=u.available_commands)


def _config_options(state: SessionState, u: ConfigOptionUpdate) -> SessionState:
    if state.aux.config_options == u.config_options:
        return state
    return _set_aux(state, config_options=u.config_options)


def _session_info(state: SessionState, u: SessionInfoUpdate) -> SessionState:
    info = state.aux.info
    new = SessionInfo(
        info.title if u.title is UNSET else u.title,
        info.updated_at if u.updated_at is UNSET else u.updated_at,
        _patch_meta(info.meta, u.meta),
    )
    if new == info:
        return state
    return _set_aux(state, info=new)


def _usage(state: SessionState, u: UsageUpdate) -> SessionState:
    aux = state.aux
    previous_cost = None if aux.usage is None else aux.usage.cost
    # Q11: no `cost` keeps the last reported one; null clears it.
    cost = previous_cost if u.cost is UNSET else u.cost
    new = Usage(u.used, u.size, cost, _meta_or_none(u.meta))
    if new == aux.usage:
        return state
    return _set_aux(state, usage=new)


def _other(state: SessionState, u: OtherUpdate) -> SessionState:
    out = _set_aux(state, unknown=state.aux.unknown.append(u))
    if u.session_update in _V1_KINDS:
        out = _diagnose(
            out,
            V1_KIND_ON_V2,
            f"update {u.session_update}",
            f"v1 update kind {u.session_update!r} on the v2 surface: kept raw as an unknown "
            "update, not interpreted (Q32)",
        )
    return out


# -- dispatch --------------------------------------------------------------------------

# A type-keyed table: constant-time dispatch on the exact class (values are never subclassed).
_REDUCERS: Final[dict[type[Any], Callable[[SessionState, Any], SessionState]]] = {
    AgentMessageChunk: _agent_chunk,
    AgentThoughtChunk: _thought_chunk,
    UserMessageChunk: _user_chunk,
    ToolCallContentChunk: _tool_call_content_chunk,
    TerminalOutputChunk: _terminal_output_chunk,
    ToolCallUpdate: _tool_call_update,
    AgentMessage: _agent_message,
    AgentThought: _agent_thought,
    UserMessage: _user_message,
    RunningStateUpdate: _running,
    IdleStateUpdate: _idle,
    RequiresActionStateUpdate: _requires_action,
    OtherStateUpdate: _other_state,
    TerminalUpdate: _terminal_update,
    PlanUpdate: _plan_update,
    AvailableCommandsUpdate: _commands,
    ConfigOptionUpdate: _config_options,
    SessionInfoUpdate: _session_info,
    UsageUpdate: _usage,
    OtherUpdate: _other,
}


def _merge_meta(state: SessionState, update: Any) -> Any:
    """Q15, 2026-11 revision: a `_meta` patch object merges into the stored one by top-level
    key instead of replacing it. Done by rewriting the update, so the reducers stay one."""
    patch = update.meta
    if not isinstance(patch, PMap):
        return update
    kind = type(update)
    old: JsonObject | None
    if kind is ToolCallUpdate:
        entity = state.tool_calls.get(update.tool_call_id)
        old = None if entity is None else entity.meta
    elif kind is TerminalUpdate:
        terminal = state.terminals.get(update.terminal_id)
        old = None if terminal is None else terminal.meta
    elif kind is SessionInfoUpdate:
        old = state.info.meta
    elif kind in (UserMessage, AgentMessage, AgentThought):
        message = state.message(update.message_id)
        old = None if message is None else message.meta
    else:
        return update  # chunk and snapshot `_meta` are not patches
    if not old:
        return update
    return attrs.evolve(update, meta=old.update(patch))


def reduce(
    state: SessionState, update: SessionUpdate, *, revision: Revision = DEFAULT_REVISION
) -> SessionState:
    """Apply one session update to a state and return the new state (pure).

    The input state is never changed. An update that changes nothing returns `state`
    itself. Never raises for a decoded update; anomalies become `state.diagnostics`.
    `revision` only matters for `_meta` patches (replace in 2026-08, merge in 2026-11).

    Raises:
        TypeError: `update` is not a session update value (a programming error).
    """
    reducer = _REDUCERS.get(type(update))
    if reducer is None:
        msg = f"not a session update: {type(update).__name__}"
        raise TypeError(msg)
    if revision.meta_patch_merges:
        update = _merge_meta(state, update)
    return reducer(state, update)


# -- fold: chunks are applied in bulk ------------------------------------------------------
# A stream is mostly chunks. `fold` appends them in bulk, building each entity and the
# session once per batch instead of once per chunk; the result is exactly the state the
# one-by-one `reduce` loop gives (tested as a law in tests/test_fold_batching.py).


def _tool_content_run(state: SessionState, run: list[ToolCallContentChunk]) -> SessionState:
    tool_call_id = run[0].tool_call_id
    old = state.tool_calls.get(tool_call_id)
    timeline = state.timeline
    unknown = old is None
    if old is None:
        old = _NEW_TOOL_CALL
        timeline = timeline.append(EntityRef(TOOL_CALL, tool_call_id))
    chunk_meta = old.chunk_meta
    first = len(old.content)
    for i, u in enumerate(run):
        if u.meta is not UNSET and u.meta is not None:
            chunk_meta = chunk_meta.set(first + i, u.meta)
    items = [u.content for u in run]
    new = _TOOL_CALL(
        old.title,
        old.kind,
        old.status,
        old.content.extend(items),
        old.locations,
        old.raw_input,
        old.raw_output,
        old.meta,
        chunk_meta,
    )
    out = new_session_state(
        state.session_id,
        state.foreground,
        timeline,
        state._messages,
        state.tool_calls.set(tool_call_id, new),
        _terminal_refs(state.terminals, items),
        state.plans,
        state.aux,
        state._hot_id,
        state._hot_content,
    )
    return _unknown_tool_call(out, tool_call_id) if unknown else out


def _terminal_run(state: SessionState, run: list[TerminalOutputChunk]) -> SessionState:
    terminal_id = run[0].terminal_id
    chunks: list[bytes] = []
    valid = False
    for u in run:
        data = _b64(u.data)
        if data is None:
            state = _bad_chunk(state, terminal_id)
            continue
        valid = True
        if data:
            chunks.append(data)
    if not valid:
        return state
    old = state.terminals.get(terminal_id)
    if old is None:
        old = _NEW_TERMINAL
    elif not chunks:
        return state
    new = _TERMINAL(
        old.command,
        old.cwd,
        old.output.extend(chunks),
        old.snapshot_meta,
        old.exit_status,
        old.meta,
    )
    return _with_terminals(state, state.terminals.set(terminal_id, new))


def _flush(state: SessionState, kind: type[Any], run: list[Any]) -> SessionState:
    if len(run) == 1:
        return _REDUCERS[kind](state, run[0])
    if kind is ToolCallContentChunk:
        return _tool_content_run(state, run)
    return _terminal_run(state, run)


_CHUNK_ROLES: Final[dict[type[Any], str]] = {
    AgentMessageChunk: AGENT,
    AgentThoughtChunk: THOUGHT,
    UserMessageChunk: USER,
}
#: Longest run applied at once: long enough to amortise, short enough that the run's own
#: buffers stay small (one 100k-item run measured ~1.6x slower per item, GC included).
_RUN_CAP: Final = 4096
#: The chunk kinds `fold` batches, with the attribute naming the entity they append to.
_RUN_KEYS: Final[dict[type[Any], str]] = {
    ToolCallContentChunk: "tool_call_id",
    TerminalOutputChunk: "terminal_id",
}
_UPSERTS: Final = (UserMessage, AgentMessage, AgentThought)


def _add_to_timeline(state: SessionState, ref: EntityRef) -> SessionState:
    return new_session_state(
        state.session_id,
        state.foreground,
        state.timeline.append(ref),
        state._messages,
        state.tool_calls,
        state.terminals,
        state.plans,
        state.aux,
        state._hot_id,
        state._hot_content,
    )


# A pending message: [role kept, message when buffering began (None: new), blocks, chunk
# _meta by block index (None: none)]. Local to one `fold` call.
_Buffer = list[Any]


def _write_pending(state: SessionState, pending: dict[str, _Buffer]) -> SessionState:
    """Write buffered message chunks into the state: one map update per message."""
    if not pending:
        return state
    messages = state.messages  # the hot message (if any) written back
    for message_id, (role, base, blocks, metas) in pending.items():
        if base is None:
            content, meta, chunk_meta = EMPTY_VEC.extend(blocks), None, _EMPTY
        else:
            content, meta, chunk_meta = base.content.extend(blocks), base.meta, base.chunk_meta
        if metas:
            for index, chunk_scoped in metas.items():
                chunk_meta = chunk_meta.set(index, chunk_scoped)
        messages = messages.set(message_id, new_message_state(role, content, meta, chunk_meta))
    return new_session_state(
        state.session_id,
        state.foreground,
        state.timeline,
        messages,
        state.tool_calls,
        state.terminals,
        state.plans,
        state.aux,
        None,
        None,
    )


def fold(
    state: SessionState,
    updates: Iterable[SessionUpdate],
    *,
    revision: Revision = DEFAULT_REVISION,
) -> SessionState:
    """Apply updates in order: `fold(s, a + b) == fold(fold(s, a), b)`.

    Equal to `reduce` applied one update at a time, only faster on streams.

    Raises:
        TypeError: an item is not a session update value (a programming error).
    """
    if revision.meta_patch_merges:
        for update in updates:
            state = reduce(state, update, revision=revision)
        return state
    # A transient builder, invisible to callers: message chunks are buffered per message id
    # and written once at the end (or before an upsert of that message reads it). What
    # depends on event order happens at the event: the timeline entry of a new message and
    # role-mismatch diagnostics. Runs of tool-content and terminal chunks are applied in bulk.
    table = _REDUCERS
    roles = _CHUNK_ROLES
    run_keys = _RUN_KEYS
    pending: dict[str, _Buffer] = {}
    run: list[Any] = []
    run_kind: type[Any] | None = None
    run_key: object = None
    item: Any  # one update; typed loosely, as the table dispatch checks it
    for item in updates:
        kind = type(item)
        role = roles.get(kind)
        if role is not None:
            if run:
                state = _flush(state, run_kind, run)  # type: ignore[arg-type]
                run, run_kind, run_key = [], None, None
            message_id = item.message_id
            buffer = pending.get(message_id)
            if buffer is None:
                old = state.message(message_id)
                if old is None:
                    state = _add_to_timeline(state, EntityRef(MESSAGE, message_id))
                    buffer = [role, None, [], None]
                else:
                    buffer = [old.role, old, [], None]
                pending[message_id] = buffer
            if buffer[0] != role:
                state = _role_mismatch(state, message_id, role, buffer[0])
            blocks = buffer[2]
            meta = item.meta
            if meta is not UNSET and meta is not None:
                first = 0 if buffer[1] is None else len(buffer[1].content)
                if buffer[3] is None:
                    buffer[3] = {}
                buffer[3][first + len(blocks)] = meta
            blocks.append(item.content)
            continue
        attr = run_keys.get(kind)
        if attr is not None:
            key = getattr(item, attr)
            if kind is run_kind and key == run_key and len(run) < _RUN_CAP:
                run.append(item)
                continue
            if run:
                state = _flush(state, run_kind, run)  # type: ignore[arg-type]
            run, run_kind, run_key = [item], kind, key
            continue
        if run:
            state = _flush(state, run_kind, run)  # type: ignore[arg-type]
            run, run_kind, run_key = [], None, None
        reducer = table.get(kind)
        if reducer is None:
            msg = f"not a session update: {kind.__name__}"
            raise TypeError(msg)
        if kind in _UPSERTS and item.message_id in pending:
            state = _write_pending(state, {item.message_id: pending.pop(item.message_id)})
        state = reducer(state, item)
    if run:
        state = _flush(state, run_kind, run)  # type: ignore[arg-type]
    return _write_pending(state, pending)
