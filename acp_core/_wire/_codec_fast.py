"""The hand-written fast path of update decoding: streamed text, terminal bytes, tool calls.

Owns: `fast_update(obj)`, which decodes the six hottest wire shapes (a text chunk of a
message, thought or user message, a text tool-call content chunk, a terminal output chunk,
and a `tool_call_update` of the plain fields: title, kind, status, file locations, raw input
and output) without the generic walk.
Must not know: the generic tables (`_wire/_codec_tables.py`), revisions.

It returns exactly what the generic decoder returns for those shapes under every revision, or
None to let the generic decoder decide (tests/test_codec_fast.py compares the two). A shape a
revision changes must leave this path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from acp_core._errors import DecodeError

from . import _content as c
from . import _updates as u
from ._fastnew import fast_constructor
from ._json import EMPTY_OBJECT, UNSET, freeze_json

__all__ = ["TOOL_CALL_KEYS", "fast_update"]

_MAKE_TEXT: Final = fast_constructor(c.TextContent)
_MAKE_TOOL_CONTENT: Final = fast_constructor(c.ToolContent)
_FAST_CHUNKS: Final[dict[object, Callable[..., u.SessionUpdate]]] = {
    "agent_message_chunk": fast_constructor(u.AgentMessageChunk),
    "agent_thought_chunk": fast_constructor(u.AgentThoughtChunk),
    "user_message_chunk": fast_constructor(u.UserMessageChunk),
}
_MAKE_TOOL_CHUNK: Final = fast_constructor(u.ToolCallContentChunk)
_MAKE_TERMINAL_CHUNK: Final = fast_constructor(u.TerminalOutputChunk)
_MAKE_TOOL_CALL_UPDATE: Final = fast_constructor(u.ToolCallUpdate)
_MAKE_LOCATION: Final = fast_constructor(c.ToolCallLocation)
# The keys of a plain tool call update: the ones every revision decodes alike (`name` and
# `capabilities` are 2026-11's, `content` and `_meta` take the generic walk).
_TOOL_CALL_KEYS: Final = frozenset(
    ("sessionUpdate", "toolCallId", "title", "kind", "status", "locations", "rawInput", "rawOutput")
)
_ABSENT: Final = object()


def _text_block(content: object) -> c.TextContent | None:
    # Exactly {"type": "text", "text": str}: two keys, both right.
    if type(content) is dict and len(content) == 2 and content.get("type") == "text":
        text = content.get("text")
        if type(text) is str:
            return _MAKE_TEXT(text, UNSET, UNSET, EMPTY_OBJECT)
    return None


def _locations(items: object) -> tuple[c.ToolCallLocation, ...] | None:
    # Exactly a list of `{"path": str}`: anything else (a line, `_meta`) takes the generic walk.
    if type(items) is not list:
        return None
    out = []
    for item in items:
        if type(item) is not dict or len(item) != 1:
            return None
        path = item.get("path")
        if type(path) is not str:
            return None
        out.append(_MAKE_LOCATION(path, UNSET, UNSET, EMPTY_OBJECT))
    return tuple(out)


def _tool_call_update(obj: dict[str, object]) -> u.ToolCallUpdate | None:
    if not _TOOL_CALL_KEYS.issuperset(obj):
        return None
    tool_call_id = obj.get("toolCallId")
    if type(tool_call_id) is not str:
        return None
    strings: list[object] = []
    for key in ("title", "kind", "status"):
        value = obj.get(key, UNSET)
        if value is not UNSET and type(value) is not str:
            return None  # null or a wrong type: the generic walk says what it means
        strings.append(value)
    locations: object = obj.get("locations", UNSET)
    if locations is not UNSET:
        locations = _locations(locations)
        if locations is None:
            return None
    raw: list[object] = []
    for key in ("rawInput", "rawOutput"):
        value = obj.get(key, _ABSENT)
        if value is _ABSENT:
            raw.append(UNSET)
            continue
        try:
            raw.append(freeze_json(value))  # null stays None, as the generic walk keeps it
        except DecodeError:
            return None  # the generic walk reports it at its path (or tolerates it)
    title, kind, status = strings
    return _MAKE_TOOL_CALL_UPDATE(
        tool_call_id, title, kind, status, UNSET, locations, raw[0], raw[1], UNSET, UNSET,
        UNSET, EMPTY_OBJECT,
    )  # fmt: skip


#: The `tool_call_update` fields the path reads, by attribute: their wire keys (what a
#: revision's table must still say for the path to apply: `_codec_tables.UpdateCodec`).
TOOL_CALL_KEYS: Final = {
    "tool_call_id": "toolCallId", "title": "title", "kind": "kind", "status": "status",
    "locations": "locations", "raw_input": "rawInput", "raw_output": "rawOutput",
}  # fmt: skip


def fast_update(obj: object, tool_calls: bool = False) -> u.SessionUpdate | None:
    """The update `obj` decodes to if it is one of the hot shapes, else None.

    `tool_calls`: the revision decodes `tool_call_update`'s plain fields under the keys and
    codecs this path assumes (`TOOL_CALL_KEYS`), so the path may take them too. The other
    shapes are the same at every revision the registry holds."""
    if type(obj) is not dict:
        return None
    tag = obj.get("sessionUpdate")
    if type(tag) is not str:  # an unhashable tag (a list) must not reach the dict lookup
        return None
    if tag == "tool_call_update":
        return _tool_call_update(obj) if tool_calls else None
    if len(obj) != 3:
        return None
    make = _FAST_CHUNKS.get(tag)
    if make is not None:
        # `_text_block` written out: this is the hottest shape of all, and a call costs more
        # than the checks. Subscripts, not `.get` (a specialised opcode against a method
        # call): a missing key is not this shape.
        try:
            message_id = obj["messageId"]
            content = obj["content"]
            if type(content) is not dict or len(content) != 2 or content["type"] != "text":
                return None
            text = content["text"]
        except KeyError:
            return None
        if type(message_id) is str and type(text) is str:
            return make(
                message_id, _MAKE_TEXT(text, UNSET, UNSET, EMPTY_OBJECT), UNSET, EMPTY_OBJECT
            )
        return None
    if tag == "tool_call_content_chunk":
        tool_call_id = obj.get("toolCallId")
        item = obj.get("content")
        if (
            type(tool_call_id) is str
            and type(item) is dict
            and len(item) == 2
            and item.get("type") == "content"
        ):
            block = _text_block(item.get("content"))
            if block is not None:
                tool_content = _MAKE_TOOL_CONTENT(block, UNSET, EMPTY_OBJECT)
                return _MAKE_TOOL_CHUNK(tool_call_id, tool_content, UNSET, EMPTY_OBJECT)
        return None
    if tag == "terminal_output_chunk":
        terminal_id = obj.get("terminalId")
        data = obj.get("data")
        if type(terminal_id) is str and type(data) is str:
            return _MAKE_TERMINAL_CHUNK(terminal_id, data, UNSET, EMPTY_OBJECT)
    return None
