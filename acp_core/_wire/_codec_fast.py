"""The hand-written fast path of update decoding: streamed text and terminal bytes.

Owns: `fast_update(obj)`, which decodes the five hottest wire shapes (a text chunk of a
message, thought or user message, a text tool-call content chunk, a terminal output chunk)
without the generic walk.
Must not know: the generic tables (`_wire/_codec_tables.py`), revisions.

It returns exactly what the generic decoder returns for those shapes under every revision, or
None to let the generic decoder decide (tests/test_codec_fast.py compares the two). A shape a
revision changes must leave this path.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Final

from . import _content as c
from . import _updates as u
from ._fastnew import fast_constructor
from ._json import EMPTY_OBJECT, UNSET

__all__ = ["fast_update"]

_MAKE_TEXT: Final = fast_constructor(c.TextContent)
_MAKE_TOOL_CONTENT: Final = fast_constructor(c.ToolContent)
_FAST_CHUNKS: Final[dict[object, Callable[..., u.SessionUpdate]]] = {
    "agent_message_chunk": fast_constructor(u.AgentMessageChunk),
    "agent_thought_chunk": fast_constructor(u.AgentThoughtChunk),
    "user_message_chunk": fast_constructor(u.UserMessageChunk),
}
_MAKE_TOOL_CHUNK: Final = fast_constructor(u.ToolCallContentChunk)
_MAKE_TERMINAL_CHUNK: Final = fast_constructor(u.TerminalOutputChunk)


def _text_block(content: object) -> c.TextContent | None:
    # Exactly {"type": "text", "text": str}: two keys, both right.
    if type(content) is dict and len(content) == 2 and content.get("type") == "text":
        text = content.get("text")
        if type(text) is str:
            return _MAKE_TEXT(text, UNSET, UNSET, EMPTY_OBJECT)
    return None


def fast_update(obj: object) -> u.SessionUpdate | None:
    """The update `obj` decodes to if it is one of the hot shapes, else None."""
    if type(obj) is not dict or len(obj) != 3:
        return None
    tag = obj.get("sessionUpdate")
    if type(tag) is not str:  # an unhashable tag (a list) must not reach the dict lookup
        return None
    make = _FAST_CHUNKS.get(tag)
    if make is not None:
        # `_text_block` written out: this is the hottest shape of all, and a call costs more
        # than the checks.
        message_id = obj.get("messageId")
        content = obj.get("content")
        if (
            type(message_id) is str
            and type(content) is dict
            and len(content) == 2
            and content.get("type") == "text"
        ):
            text = content.get("text")
            if type(text) is str:
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
