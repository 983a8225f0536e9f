"""Session state as frozen values, and the queries users need on it.

Owns: `SessionState` and its parts (`Foreground`, `EntityRef`, `Usage`, `SessionInfo`),
`new_session`, its builders and hot slot, and read-only helpers (the tool calls of a turn).
The entity records and their queries live in `_state/_state_entities.py` (re-exported here).
Must not know: JSON, the codec, how updates change state (`_state/_reduce.py`).

Shape for speed: the per-event path rebuilds `SessionState` and one entity, so
`SessionState` keeps its fields few; data that changes rarely (commands, config options,
info, usage, unknown updates, diagnostics) sits in `SessionAux` and is passed through by
reference. Hot records are rebuilt with `_new_*` helpers that set slots directly, skipping
the attrs `__init__` (about twice as fast; see anchors-style-study section 4.2).
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any, Final

import attrs

from acp_core._errors import Diagnostic
from acp_core._wire._content import ContentBlock
from acp_core._wire._fastnew import fast_constructor, fast_replace
from acp_core._wire._json import JsonObject
from acp_core._wire._updates import (
    AvailableCommand,
    Cost,
    OtherUpdate,
    SessionConfigOption,
)
from acp_core._wire._updates_2026_11 import (
    BackgroundSubagent,
    BackgroundTerminal,
    BackgroundToolCall,
    BackgroundWork,
)
from acp_core._wire._value import frozen

from ._pcoll import (
    EMPTY_VEC,
    Packing,
    PMap,
    PVec,
    append_packed,
    compact_tail,
    extend_encoded,
)
from ._state_entities import (
    MessageState,
    PlanState,
    TerminalState,
    ToolCallState,
    message_text,
    terminal_bytes,
)
from ._state_extras import COMPACTION, NO_EXTRAS, SESSION_MESSAGE, SessionExtras
from ._state_freezing import freezing_state_fields
from ._text_runs import TEXT_RUNS

if TYPE_CHECKING:
    from acp_core._wire._jsonrpc import RpcError

__all__ = [
    "TIMELINE_RUNS",
    "EntityRef",
    "Foreground",
    "MessageState",
    "PlanState",
    "SessionAux",
    "SessionInfo",
    "SessionState",
    "TerminalState",
    "ToolCallState",
    "Usage",
    "entered",
    "entered_codes",
    "entry_code",
    "is_active",
    "message_text",
    "new_session",
    "terminal_bytes",
    "turn_tool_calls",
]

#: Message roles (from the update tag: user_*, agent_message*, agent_thought*).
USER: Final = "user"
AGENT: Final = "agent"
THOUGHT: Final = "thought"

#: Timeline entity kinds (the snapshot format's names).
MESSAGE: Final = "message"
TOOL_CALL: Final = "toolCall"
PLAN: Final = "plan"


def _item_id(item: BackgroundWork) -> str | None:
    if type(item) is BackgroundTerminal:
        return item.terminal_id
    if type(item) is BackgroundToolCall:
        return item.tool_call_id
    if type(item) is BackgroundSubagent:
        return item.session_id
    return None  # an unknown item type names nothing this library can look up


@frozen(field_transformer=freezing_state_fields)
class Foreground:
    """The agent's reported foreground state.

    Attributes:
        state: `idle`, `running`, `requires_action`, or an unknown value kept as sent.
        stop_reason: from the most recent idle update (None: not reported).
        meta: `_meta` of the most recent state update (replaced with it, Q14).
        raw: the whole update for an unknown state (None for known states).
        background: the latest `background` list (2026-11); None: the agent does not report
            one now (P12: not "nothing runs"), `()`: nothing runs in the background.
        last_known: for `unknown` (Preview) and `unconfirmed` (a child not yet reported,
            P4): the last state that was known, kept for display (C48); else None.
        error: the error object of an idle `error` stop (2026-11), else None.
    """

    state: str = "idle"
    stop_reason: str | None = None
    meta: JsonObject | None = None
    raw: JsonObject | None = None
    background: tuple[BackgroundWork, ...] | None = None
    last_known: str | None = None
    error: RpcError | None = None

    def is_background(self, kind: type[Any], item_id: str) -> bool:
        """Whether the latest background list names the item (3.8); False when not reported.

        `kind` is `BackgroundTerminal`, `BackgroundToolCall` or `BackgroundSubagent`."""
        return any(type(b) is kind and _item_id(b) == item_id for b in self.background or ())


@frozen(field_transformer=freezing_state_fields)
class EntityRef:
    """A timeline entry: `kind` is `message`, `toolCall` or `plan`."""

    kind: str
    id: str


@frozen(field_transformer=freezing_state_fields)
class SessionInfo:
    """Session metadata patched by `session_info_update`."""

    title: str | None = None
    updated_at: str | None = None
    meta: JsonObject | None = None


@frozen(field_transformer=freezing_state_fields)
class Usage:
    """Context window use and cumulative cost from the latest `usage_update`."""

    used: int
    size: int
    cost: Cost | None = None
    meta: JsonObject | None = None


@frozen(field_transformer=freezing_state_fields)
class SessionAux:
    """The parts of a session that change rarely (kept apart so hot updates skip them)."""

    available_commands: tuple[AvailableCommand, ...] | None = None
    config_options: tuple[SessionConfigOption, ...] | None = None
    info: SessionInfo = SessionInfo()
    usage: Usage | None = None
    unknown: PVec[OtherUpdate] = attrs.field(default=EMPTY_VEC)
    diagnostics: PVec[Diagnostic] = attrs.field(default=EMPTY_VEC)
    extras: SessionExtras = NO_EXTRAS


@frozen(field_transformer=freezing_state_fields, eq=False, repr=False, weakref_slot=False)
class SessionState:
    """Everything a client knows about one session, as an immutable value.

    Attributes:
        session_id: the session.
        foreground: the reported foreground state.
        timeline: messages, tool calls and plans in the order they were first seen.
        messages, tool_calls, terminals, plans: entities keyed by their id.
        aux: rarely-changing parts; read them through the properties below.

    Layout for speed (invisible through the public attributes): the message being streamed
    lives in the root as `_hot_id`/`_hot_content`, so a chunk for it builds only a new root
    and one sequence node; `_messages` holds every other message (and the hot one's role and
    `_meta`). `messages` is the merged view; equality, hashing and `repr` use that view, so
    where a message is kept never shows.
    """

    session_id: str
    foreground: Foreground
    timeline: PVec[EntityRef]
    _messages: PMap[str, MessageState]
    tool_calls: PMap[str, ToolCallState]
    terminals: PMap[str, TerminalState]
    plans: PMap[str, PlanState]
    aux: SessionAux
    _hot_id: str | None = None
    _hot_content: PVec[ContentBlock] | None = None

    @property
    def messages(self) -> PMap[str, MessageState]:
        """Every message by id (user, agent and thought).

        Free while no message is being streamed; otherwise built on each access (one map
        update), so keep the map in a local when reading it many times, or use `message`.
        """
        hot_id = self._hot_id
        if hot_id is None:
            return self._messages
        return self._messages.set(hot_id, self._hot_message(hot_id))

    def message(self, message_id: str) -> MessageState | None:
        """The message `message_id`, or None (a single lookup, never builds the map)."""
        if message_id == self._hot_id:
            return self._hot_message(message_id)
        return self._messages.get(message_id)

    def message_role(self, message_id: str) -> str | None:
        """The role of the message `message_id`, or None (builds no message value)."""
        base = self._messages.get(message_id)
        return None if base is None else base.role

    def _hot_message(self, hot_id: str) -> MessageState:
        base = self._messages[hot_id]
        return new_message_state(base.role, self._hot_content, base.meta, base.chunk_meta)  # type: ignore[arg-type]

    def _view(self) -> tuple[Any, ...]:
        return (
            self.session_id,
            self.foreground,
            self.timeline,
            self.messages,
            self.tool_calls,
            self.terminals,
            self.plans,
            self.aux,
        )

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if type(other) is not SessionState:
            return NotImplemented
        return self._view() == other._view()

    def __hash__(self) -> int:
        return hash(self._view())

    def __repr__(self) -> str:
        return (
            f"SessionState(session_id={self.session_id!r}, foreground={self.foreground!r}, "
            f"timeline={self.timeline!r}, messages={self.messages!r}, "
            f"tool_calls={self.tool_calls!r}, terminals={self.terminals!r}, "
            f"plans={self.plans!r}, aux={self.aux!r})"
        )

    @property
    def available_commands(self) -> tuple[AvailableCommand, ...] | None:
        """The latest command list (None until one is reported)."""
        return self.aux.available_commands

    @property
    def config_options(self) -> tuple[SessionConfigOption, ...] | None:
        """The latest complete config option set (None until one is reported)."""
        return self.aux.config_options

    @property
    def info(self) -> SessionInfo:
        """Title, updatedAt and `_meta` of the session."""
        return self.aux.info

    @property
    def usage(self) -> Usage | None:
        """The latest usage report (None until one arrives)."""
        return self.aux.usage

    @property
    def unknown(self) -> PVec[OtherUpdate]:
        """Updates of unknown kinds, verbatim, in arrival order."""
        return self.aux.unknown

    @property
    def extras(self) -> SessionExtras:
        """Compactions, notices, prompt suggestions, inter-session messages, replay window."""
        return self.aux.extras

    @property
    def diagnostics(self) -> PVec[Diagnostic]:
        """Anomalies the reducers tolerated, in order."""
        return self.aux.diagnostics


_EMPTY_AUX: Final = SessionAux()
_IDLE: Final = Foreground()
_EMPTY_MAP: Final[PMap[Any, Any]] = PMap()


def new_session(session_id: str) -> SessionState:
    """The state of a session nothing has been reported for yet (idle, Q2)."""
    return SessionState(
        session_id, _IDLE, EMPTY_VEC, _EMPTY_MAP, _EMPTY_MAP, _EMPTY_MAP, _EMPTY_MAP, _EMPTY_AUX
    )


# -- builders: every rebuild of a SessionState goes through these ---------------------------
# The hot slot (the message being streamed, kept in the root) is this module's business only:
# a builder that does not name the messages keeps the slot as it is; one that does writes the
# hot message back (or starts a new one). Each builder is one generated function
# (`_fastnew.fast_replace`, the package's one constructor trick): attrs' frozen __init__ calls
# object.__setattr__ per field, setting the slot descriptors gives the same object at about
# half the cost, and a rebuild stays a single call.

_S = SessionState
_NO_HOT: Final[dict[str, object]] = {"_hot_id": None, "_hot_content": None}

#: `state` with another foreground.
with_foreground: Final[Callable[[SessionState, Foreground], SessionState]] = fast_replace(
    _S, ("foreground",)
)
#: `state` with another timeline.
with_timeline: Final[Callable[[SessionState, PVec[EntityRef]], SessionState]] = fast_replace(
    _S, ("timeline",)
)
#: `state` with other tool calls, and the terminals and timeline they change.
with_tool_calls: Final[
    Callable[
        [SessionState, PMap[str, ToolCallState], PMap[str, TerminalState], PVec[EntityRef]],
        SessionState,
    ]
] = fast_replace(_S, ("tool_calls", "terminals", "timeline"))
#: `state` with other terminals.
with_terminals: Final[Callable[[SessionState, PMap[str, TerminalState]], SessionState]] = (
    fast_replace(_S, ("terminals",))
)
#: `state` with other plans, and the timeline they change.
with_plans: Final[Callable[[SessionState, PMap[str, PlanState], PVec[EntityRef]], SessionState]] = (
    fast_replace(_S, ("plans", "timeline"))
)
#: `state` with other session-wide parts.
with_aux: Final[Callable[[SessionState, SessionAux], SessionState]] = fast_replace(_S, ("aux",))
#: `state` with every message in `messages` (the streamed one included: it leaves the hot
#: slot) and the timeline they change.
with_messages: Final[
    Callable[[SessionState, PMap[str, MessageState], PVec[EntityRef]], SessionState]
] = fast_replace(_S, ("_messages", "timeline"), _NO_HOT)
#: `state` streaming `message_id` from now on (`messages`, `timeline`, `message_id`,
#: `content`): the content lives in the hot slot, its role and `_meta` in
#: `messages[message_id]` (every other message is there too).
with_streamed: Final[
    Callable[
        [SessionState, PMap[str, MessageState], PVec[EntityRef], str, PVec[ContentBlock]],
        SessionState,
    ]
] = fast_replace(_S, ("_messages", "timeline", "_hot_id", "_hot_content"))
_with_hot_content: Final[Callable[[SessionState, PVec[ContentBlock]], SessionState]] = fast_replace(
    _S, ("_hot_content",)
)

#: Positional `MessageState` constructor for hot paths (role, content, meta, chunk_meta).
new_message_state: Final[
    Callable[[str, PVec[ContentBlock], JsonObject | None, PMap[int, JsonObject]], MessageState]
] = fast_constructor(MessageState)

#: Positional `EntityRef` constructor for hot paths (kind, id): both are plain `str`s, which
#: the construction-time converters would keep as they are.
new_entity_ref: Final[Callable[[str, str], EntityRef]] = fast_constructor(EntityRef)

#: Positional `Foreground` constructor for the reducers (every field, in class order): they
#: pass values a decoder froze already, which `__init__`'s converters would only copy again.
new_foreground: Final[Callable[..., Foreground]] = fast_constructor(Foreground)


def messages_written_back(state: SessionState) -> PMap[str, MessageState]:
    """Every message, for a builder that names the messages (the hot one leaves the slot).

    The same map as `state.messages`, except that the leaving message's content is
    compacted: its tail chain of up to 32 nodes (one per streamed chunk) becomes one node,
    its plain text blocks there kept as strings (`_state/_text_runs.py`), so a long session
    keeps fewer objects for the cyclic garbage collector to walk.
    """
    hot_id = state._hot_id
    if hot_id is None:
        return state._messages
    base = state._messages[hot_id]
    content = compact_tail(state._hot_content, TEXT_RUNS)  # type: ignore[arg-type]
    return state._messages.set(
        hot_id, new_message_state(base.role, content, base.meta, base.chunk_meta)
    )


#: A timeline entry's kind as the first character of its packed form, and back.
_KIND_CODES: Final = {
    MESSAGE: "m",
    TOOL_CALL: "t",
    PLAN: "p",
    COMPACTION: "c",
    SESSION_MESSAGE: "s",
}
_CODE_KINDS: Final = {code: kind for kind, code in _KIND_CODES.items()}


def entry_code(kind: str, entry_id: str) -> str:
    """The packed form of the entry `EntityRef(kind, entry_id)` (one of the five kinds)."""
    return _KIND_CODES[kind] + entry_id


def _pack_refs(refs: Sequence[Any]) -> list[object] | None:
    # One string an entry: its kind's code, then its id. A run of strings is one tuple of
    # atoms, which the collector stops tracking at its first collection (a run of pairs
    # would need two: it sees the run before the pairs are untracked).
    codes: list[object] = []
    for ref in refs:
        code = _KIND_CODES.get(ref.kind) if type(ref) is EntityRef else None
        if code is None or type(ref.id) is not str:
            return None  # another kind, or not an entry: a hand-built vector, kept as it is
        codes.append(code + ref.id)
    return codes


def _unpack_refs(codes: tuple[Any, ...]) -> tuple[EntityRef, ...]:
    kinds = _CODE_KINDS
    return tuple([new_entity_ref(kinds[code[0]], code[1:]) for code in codes])


#: The timeline's packed runs (issue 24): each entry is kept as one string (its kind's code
#: and its id), a run of up to 32 in one tuple the cyclic collector stops tracking, instead
#: of one tracked `EntityRef` each (one per message and tool call: about 0.12 tracked
#: objects per update of `mixed`, each walked by every full collection for as long as the
#: session lives). `reduce` packs each block of 32 as it seals it (the entries were appended
#: lately: at hand); `fold` queues the codes and never builds the entries. Reading the
#: timeline builds equal entries again (it is read by snapshots and views, not by the
#: reducers).
TIMELINE_RUNS: Final = Packing(_pack_refs, _unpack_refs)


def entered(timeline: PVec[EntityRef], ref: EntityRef) -> PVec[EntityRef]:
    """`timeline.append(ref)`, the block it seals packed (`TIMELINE_RUNS`)."""
    return append_packed(timeline, ref, TIMELINE_RUNS)


def entered_codes(timeline: PVec[EntityRef], codes: Sequence[str]) -> PVec[EntityRef]:
    """`timeline` with the entries `codes` stand for (`entry_code`) appended in order, kept
    packed (`TIMELINE_RUNS`): no entry is built."""
    return extend_encoded(timeline, codes, TIMELINE_RUNS)


def add_to_timeline(state: SessionState, ref: EntityRef) -> SessionState:
    """`state` with `ref` appended to the timeline."""
    return with_timeline(state, entered(state.timeline, ref))


def appended_to_streamed(
    state: SessionState, message_id: str, block: ContentBlock, role: str
) -> SessionState | None:
    """The hot path: `block` appended to the message being streamed, if `message_id` is that
    message and `role` its role (one new root and one sequence node); else None."""
    if message_id != state._hot_id or state._messages[message_id].role != role:
        return None
    return _with_hot_content(state, append_packed(state._hot_content, block, TEXT_RUNS))  # type: ignore[arg-type]


# -- queries --------------------------------------------------------------------------


def is_active(state: SessionState) -> bool:
    """Whether foreground work is active: anything but idle (unknown states count, Q3)."""
    return state.foreground.state != "idle"


def turn_tool_calls(state: SessionState, user_message_id: str) -> tuple[str, ...]:
    """Ids of the tool calls first seen after the user message `user_message_id`, up to the
    next user message: the tool calls of that turn, in timeline order."""
    out: list[str] = []
    inside = False
    messages = state.messages
    for ref in state.timeline:
        if ref.kind == MESSAGE and messages[ref.id].role == USER:
            if inside:
                break
            inside = ref.id == user_message_id
        elif inside and ref.kind == TOOL_CALL:
            out.append(ref.id)
    return tuple(out)
