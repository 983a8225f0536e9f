"""Plain text kept as strings in a message's or a tool call's packed runs (issue 24).

Owns: `TEXT_RUNS`, the `Packing` of a message's content, and `TOOL_TEXT_RUNS`, the one of
a tool call's content (with `tool_item_encoded`, its test of one item).
`TEXT_RUNS` packs each block of 32 as the streamed message seals it, and the tail when the
message stops being written (it leaves the hot slot, or `fold` writes it): a `TextContent`
that carries nothing but its text (no annotations, no `_meta`, no unknown fields) is kept as
its `str`; any other block is kept as it is. (`fold` encodes the same way inline, once a
chunk, in `_state/_fold.py`: the two tests of "plain text" must agree, which
tests/test_packed_tails.py holds.) `TOOL_TEXT_RUNS`: a content item that is a `ToolContent`
holding nothing but a plain text block is kept as the block's `str`, encoded as the item
arrives (`_state/_reduce_tools.appended_tool_content`); any other item is kept as it is.
Must not know: `SessionState`, when content is compacted (`_state/_session_state.py`,
`_state/_fold.py`), JSON.

Why: a frozen attrs instance is always tracked by CPython's cyclic garbage collector, and a
session keeps one `TextContent` per streamed chunk: about half of the objects (and, with
their strings, more than half of the memory) every full collection walks
(docs/performance.md, "Long streams and the cyclic GC"). A tuple of strings is not tracked,
so its strings are not visited either. Reading the content decodes the strings into equal
`TextContent` values (new objects on each read, equal to the ones packed).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from acp_core._wire._content import TextContent, ToolContent
from acp_core._wire._fastnew import fast_constructor
from acp_core._wire._json import EMPTY_OBJECT, UNSET

from ._pcoll import Packing

__all__ = ["TEXT_RUNS", "TOOL_TEXT_RUNS", "tool_item_encoded"]

_make_text: Final = fast_constructor(TextContent)
_make_tool_content: Final = fast_constructor(ToolContent)
_EMPTY: Final = EMPTY_OBJECT


class _UnpackableError(Exception):
    """A string among the blocks (a hand-built vector): it would read back as text."""


def _kept(item: object) -> object:
    if type(item) is str or isinstance(item, str):
        raise _UnpackableError
    return item


def _pack(blocks: Sequence[Any]) -> list[object] | None:
    # One comprehension, the conditions inline: it runs once for every chunk a session
    # keeps (at most 32 a message write), so a call per item would be most of its cost.
    try:
        return [
            b.text
            if type(b) is TextContent
            and b.annotations is UNSET
            and b.meta is UNSET
            and b.extra is _EMPTY
            else _kept(b)
            for b in blocks
        ]
    except _UnpackableError:
        return None


def _unpack(encoded: Sequence[object]) -> tuple[Any, ...]:
    # Positional fields in class order: text, annotations, meta, extra.
    return tuple([_make_text(x, UNSET, UNSET, _EMPTY) if type(x) is str else x for x in encoded])


#: A message's content blocks, plain text ones kept as their strings.
TEXT_RUNS: Final = Packing(_pack, _unpack)


def tool_item_encoded(item: Any) -> object:
    """A tool call's content item as `TOOL_TEXT_RUNS` keeps it: a `ToolContent` holding a
    plain text block (no annotations, `_meta` or unknown fields on either) as the text,
    anything else as it is; None for an item it cannot keep (a hand-built `str`, never
    decoded, which would read back as text). A None item comes back as itself, which is
    None too: the caller keeps it unpacked either way."""
    if type(item) is ToolContent and item.meta is UNSET and item.extra is _EMPTY:
        block = item.content
        if (
            type(block) is TextContent
            and block.annotations is UNSET
            and block.meta is UNSET
            and block.extra is _EMPTY
        ):
            return block.text
    elif isinstance(item, str):
        return None
    return item


def _pack_tool_items(items: Sequence[Any]) -> list[object] | None:
    encoded = [tool_item_encoded(item) for item in items]
    return None if None in encoded else encoded


def _unpack_tool_items(encoded: Sequence[object]) -> tuple[Any, ...]:
    # Positional fields in class order: ToolContent(content, meta, extra).
    return tuple(
        [
            _make_tool_content(_make_text(x, UNSET, UNSET, _EMPTY), UNSET, _EMPTY)
            if type(x) is str
            else x
            for x in encoded
        ]
    )


#: A tool call's content items, plain text ones kept as their strings (one per item).
TOOL_TEXT_RUNS: Final = Packing(_pack_tool_items, _unpack_tool_items)
