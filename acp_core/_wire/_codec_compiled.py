"""The compiled decode of the hottest `session/update` lines, from bytes (the `fast` extra).

Owns: `compiled_notification(line)` (and `compiled_reader`, the same as a line reader with a
fallback, in one call per line), which decodes one NDJSON line holding a
`session/update` notification of a hot shape at the default revision (a text chunk of a
message, thought or user message; a whole message, thought or user message of text blocks;
a text tool-call content chunk; a terminal output chunk; a `tool_call_update` of the plain
fields: title, kind, status, file locations, raw input and output; a `running` or `idle`
state update) with msgspec, straight from the bytes.
Must not know: the generic tables (`_wire/_codec_tables.py`), framing, other revisions.

Theory of operation. msgspec validates the line against frozen Structs in C: each Struct
forbids unknown fields, each string field takes a JSON string only (msgspec never coerces
in JSON decoding), the tags and the envelope are literals, and there are no number fields
at all (numbers only occur inside raw JSON, frozen by `freeze_json` as the pure path does).
So a line msgspec accepts has exactly one of the shapes listed, each of which the pure path
decodes to one value with no unknown members (`_codec_fast.fast_update` and
`_codec._fast_notification` take most of them), and the same values are built with the same
generated constructors. Anything else (an unknown member such as `_meta`, a null, an `id`, a
duplicate tag that disagrees, a lone surrogate, a number out of range, nesting or an
integer `freeze_json` refuses) is None: the caller takes the pure path, which keeps or
reports it. tests/test_codec_compiled.py compares the two on everything the strategies
draw and on hostile lines.

Where the two parsers could read the same bytes differently, msgspec refuses and the pure
path decides: a key given twice with different tags or literals fails validation; a key
given twice elsewhere keeps its last value in both; integers keep their exact value in both
(msgspec has no 64-bit limit, unlike orjson: `_framing._has_long_digit_run`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final, Literal, TypeVar

import msgspec

from acp_core._errors import DecodeError

from . import _content as c
from . import _jsonrpc as j
from . import _updates as u
from ._fastnew import fast_constructor
from ._json import EMPTY_OBJECT, UNSET, freeze_json

__all__ = ["compiled_notification", "compiled_reader"]

_MAKE_TEXT: Final = fast_constructor(c.TextContent)
_MAKE_TOOL_CONTENT: Final = fast_constructor(c.ToolContent)
_MAKE_LOCATION: Final = fast_constructor(c.ToolCallLocation)
_MAKE_AGENT_CHUNK: Final = fast_constructor(u.AgentMessageChunk)
_MAKE_THOUGHT_CHUNK: Final = fast_constructor(u.AgentThoughtChunk)
_MAKE_USER_CHUNK: Final = fast_constructor(u.UserMessageChunk)
_MAKE_USER_MESSAGE: Final = fast_constructor(u.UserMessage)
_MAKE_AGENT_MESSAGE: Final = fast_constructor(u.AgentMessage)
_MAKE_THOUGHT: Final = fast_constructor(u.AgentThought)
_MAKE_RUNNING: Final = fast_constructor(u.RunningStateUpdate)
_MAKE_IDLE: Final = fast_constructor(u.IdleStateUpdate)
_MAKE_TOOL_CHUNK: Final = fast_constructor(u.ToolCallContentChunk)
_MAKE_TERMINAL_CHUNK: Final = fast_constructor(u.TerminalOutputChunk)
_MAKE_TOOL_CALL_UPDATE: Final = fast_constructor(u.ToolCallUpdate)
_MAKE_NOTIFICATION: Final = fast_constructor(j.UpdateSessionNotification)
_NO: Final = msgspec.UNSET

# Every Struct: frozen (nothing to mutate between decode and conversion), unknown fields
# refused (the pure path keeps them), camelCase wire names, and not tracked by the cyclic
# GC (`gc=False`): a Struct lives only until `value()` has read it and holds decoded JSON
# (strings, Structs, tuples, raw JSON containers), which can form no cycle. Tracked, the
# three per line (update, params, envelope) would count toward the collector's thresholds
# like the state's objects do, and trigger more collections of a growing state.
_STRUCT: Final[dict[str, Any]] = {
    "frozen": True,
    "forbid_unknown_fields": True,
    "rename": "camel",
    "gc": False,
}
_UPDATE: Final[dict[str, Any]] = {**_STRUCT, "tag_field": "sessionUpdate"}


class _Text(msgspec.Struct, **_STRUCT):
    # Not in a union, so the tag is a literal field: a missing `type` must fail.
    type: Literal["text"]
    text: str


class _ToolContent(msgspec.Struct, **_STRUCT):
    type: Literal["content"]
    content: _Text


class _Location(msgspec.Struct, **_STRUCT):
    path: str


class _AgentChunk(msgspec.Struct, tag="agent_message_chunk", **_UPDATE):
    message_id: str
    content: _Text

    def value(self) -> u.SessionUpdate:
        text = _MAKE_TEXT(self.content.text, UNSET, UNSET, EMPTY_OBJECT)
        return _MAKE_AGENT_CHUNK(self.message_id, text, UNSET, EMPTY_OBJECT)


class _ThoughtChunk(msgspec.Struct, tag="agent_thought_chunk", **_UPDATE):
    message_id: str
    content: _Text

    def value(self) -> u.SessionUpdate:
        text = _MAKE_TEXT(self.content.text, UNSET, UNSET, EMPTY_OBJECT)
        return _MAKE_THOUGHT_CHUNK(self.message_id, text, UNSET, EMPTY_OBJECT)


class _UserChunk(msgspec.Struct, tag="user_message_chunk", **_UPDATE):
    message_id: str
    content: _Text

    def value(self) -> u.SessionUpdate:
        text = _MAKE_TEXT(self.content.text, UNSET, UNSET, EMPTY_OBJECT)
        return _MAKE_USER_CHUNK(self.message_id, text, UNSET, EMPTY_OBJECT)


def _texts(blocks: tuple[_Text, ...]) -> tuple[c.TextContent, ...]:
    return tuple([_MAKE_TEXT(b.text, UNSET, UNSET, EMPTY_OBJECT) for b in blocks])


class _UserMessage(msgspec.Struct, tag="user_message", **_UPDATE):
    message_id: str
    content: tuple[_Text, ...]  # text blocks only: any other block takes the pure path

    def value(self) -> u.SessionUpdate:
        return _MAKE_USER_MESSAGE(self.message_id, _texts(self.content), UNSET, EMPTY_OBJECT)


class _AgentMessage(msgspec.Struct, tag="agent_message", **_UPDATE):
    message_id: str
    content: tuple[_Text, ...]

    def value(self) -> u.SessionUpdate:
        return _MAKE_AGENT_MESSAGE(self.message_id, _texts(self.content), UNSET, EMPTY_OBJECT)


class _Thought(msgspec.Struct, tag="agent_thought", **_UPDATE):
    message_id: str
    content: tuple[_Text, ...]

    def value(self) -> u.SessionUpdate:
        return _MAKE_THOUGHT(self.message_id, _texts(self.content), UNSET, EMPTY_OBJECT)


class _DeclinedError(Exception):
    """A Struct holds a combination the pure path reads differently: take the pure path."""


class _StateUpdate(msgspec.Struct, tag="state_update", **_UPDATE):
    # One Struct for both states (msgspec tags a union by one field: `sessionUpdate`).
    state: Literal["running", "idle"]
    stop_reason: str | msgspec.UnsetType = _NO

    def value(self) -> u.SessionUpdate:
        if self.state == "idle":
            stop = UNSET if self.stop_reason is _NO else self.stop_reason
            return _MAKE_IDLE(stop, UNSET, UNSET, UNSET, EMPTY_OBJECT)
        if self.stop_reason is not _NO:
            raise _DeclinedError  # `running` keeps a stop reason as an unknown member
        return _MAKE_RUNNING(UNSET, UNSET, EMPTY_OBJECT)


class _ToolChunk(msgspec.Struct, tag="tool_call_content_chunk", **_UPDATE):
    tool_call_id: str
    content: _ToolContent

    def value(self) -> u.SessionUpdate:
        text = _MAKE_TEXT(self.content.content.text, UNSET, UNSET, EMPTY_OBJECT)
        item = _MAKE_TOOL_CONTENT(text, UNSET, EMPTY_OBJECT)
        return _MAKE_TOOL_CHUNK(self.tool_call_id, item, UNSET, EMPTY_OBJECT)


class _TerminalChunk(msgspec.Struct, tag="terminal_output_chunk", **_UPDATE):
    terminal_id: str
    data: str

    def value(self) -> u.SessionUpdate:
        return _MAKE_TERMINAL_CHUNK(self.terminal_id, self.data, UNSET, EMPTY_OBJECT)


def _raw(value: object) -> object:
    # Absent stays UNSET; anything else is frozen as the pure path freezes it (null is None).
    # A value `freeze_json` refuses (too deep, too wide an integer) raises DecodeError: the
    # pure path reports it at its path.
    return UNSET if value is _NO else freeze_json(value)


class _ToolCallUpdate(msgspec.Struct, tag="tool_call_update", **_UPDATE):
    tool_call_id: str
    title: str | msgspec.UnsetType = _NO
    kind: str | msgspec.UnsetType = _NO
    status: str | msgspec.UnsetType = _NO
    locations: tuple[_Location, ...] | msgspec.UnsetType = _NO
    raw_input: Any = _NO
    raw_output: Any = _NO

    def value(self) -> u.SessionUpdate:
        locations: object = UNSET
        if self.locations is not _NO:
            locations = tuple(
                [_MAKE_LOCATION(x.path, UNSET, UNSET, EMPTY_OBJECT) for x in self.locations]
            )
        return _MAKE_TOOL_CALL_UPDATE(
            self.tool_call_id,
            UNSET if self.title is _NO else self.title,
            UNSET if self.kind is _NO else self.kind,
            UNSET if self.status is _NO else self.status,
            UNSET,
            locations,
            _raw(self.raw_input),
            _raw(self.raw_output),
            UNSET, UNSET, UNSET, EMPTY_OBJECT,
        )  # fmt: skip


_Update = (
    _AgentChunk | _ThoughtChunk | _UserChunk | _ToolChunk | _TerminalChunk | _ToolCallUpdate
    | _UserMessage | _AgentMessage | _Thought | _StateUpdate
)  # fmt: skip


class _Params(msgspec.Struct, **_STRUCT):
    session_id: str
    update: _Update


class _Notification(msgspec.Struct, frozen=True, forbid_unknown_fields=True, gc=False):
    jsonrpc: Literal["2.0"]
    method: Literal["session/update"]
    params: _Params


_DECODE: Final = msgspec.json.Decoder(_Notification).decode
_INVALID: Final = (msgspec.ValidationError, msgspec.DecodeError, DecodeError, _DeclinedError)


def compiled_notification(line: bytes) -> j.UpdateSessionNotification | None:
    """The notification `line` decodes to at the default revision if it is one of the hot
    shapes, else None (the pure path decides: it may still decode it, or refuse it)."""
    try:
        message = _DECODE(line)
        update = message.params.update.value()
    except _INVALID:
        return None
    return _MAKE_NOTIFICATION(message.params.session_id, update, UNSET, EMPTY_OBJECT, EMPTY_OBJECT)


T = TypeVar("T")


def compiled_reader(
    fallback: Callable[[bytes], T],
) -> Callable[[bytes], j.UpdateSessionNotification | T]:
    """A line reader: `compiled_notification(line)` where it takes the line, else
    `fallback(line)`; the same, in one call per line (`decode_ndjson`, per line)."""
    decode, make, invalid = _DECODE, _MAKE_NOTIFICATION, _INVALID

    def read(line: bytes) -> j.UpdateSessionNotification | T:
        try:
            params = decode(line).params
            update = params.update.value()
        except invalid:
            pass  # not a hot shape: the fallback decides (outside this handler)
        else:
            return make(params.session_id, update, UNSET, EMPTY_OBJECT, EMPTY_OBJECT)
        return fallback(line)

    return read
