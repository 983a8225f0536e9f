"""Hypothesis strategies: content blocks and tool-call content.

Owns: strategies for `_wire/_content.py` values (each `Other*` with an unknown tag).
Must not know: updates, messages. Public surface: `acp_core.strategies`.
"""

from __future__ import annotations

from typing import Any, TypeVar

from acp_core._wire import _content as c
from acp_core._wire._fields import since_of
from acp_core._wire._json import UNSET
from acp_core._wire._revision import DEFAULT_REVISION, Revision

from ._strategies_base import (
    _CONTENT_TAGS,
    _DIFF_OPERATIONS,
    _FILE_TYPES,
    _ICON_THEMES,
    _ROLES,
    _TOOL_CONTENT_TAGS,
    _base64,
    _ids,
    _int64,
    _mime_types,
    _paths,
    _raw_objects,
    _texts,
    _timestamps,
    _tuples,
    _uint32,
    _uris,
    built_once,
    extras,
    metas,
    open_enum_values,
    patches,
    unknown_tags,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hypothesis import strategies as st
else:
    from ._hypothesis import st  # hypothesis is imported when a strategy is first built

T = TypeVar("T")

# -- content -----------------------------------------------------------------------------


@built_once
def content_annotations() -> st.SearchStrategy[c.Annotations]:
    """`Annotations` (priority within [0, 1], RFC 3339 `lastModified`)."""
    return st.builds(
        c.Annotations,
        audience=patches(_tuples(open_enum_values(_ROLES), max_size=2)),
        last_modified=patches(_timestamps()),
        priority=patches(st.floats(0, 1)),
        meta=metas(),
        extra=extras(),
    )


def text_contents() -> st.SearchStrategy[c.TextContent]:
    """`TextContent` blocks."""
    return st.builds(
        c.TextContent,
        text=_texts(),
        annotations=patches(content_annotations()),
        meta=metas(),
        extra=extras(),
    )


def image_contents() -> st.SearchStrategy[c.ImageContent]:
    """`ImageContent` blocks (base64 `data`)."""
    return st.builds(
        c.ImageContent,
        data=_base64(),
        mime_type=_mime_types(),
        uri=patches(_uris()),
        annotations=patches(content_annotations()),
        meta=metas(),
        extra=extras(),
    )


def audio_contents() -> st.SearchStrategy[c.AudioContent]:
    """`AudioContent` blocks (base64 `data`)."""
    return st.builds(
        c.AudioContent,
        data=_base64(),
        mime_type=_mime_types(),
        annotations=patches(content_annotations()),
        meta=metas(),
        extra=extras(),
    )


def icons() -> st.SearchStrategy[c.Icon]:
    """`Icon`s of resource links."""
    return st.builds(
        c.Icon,
        src=_uris(),
        mime_type=patches(_mime_types()),
        sizes=patches(_tuples(st.sampled_from(("16x16", "48x48", "any")), max_size=2)),
        theme=patches(open_enum_values(_ICON_THEMES)),
        extra=extras(),
    )


def resource_links() -> st.SearchStrategy[c.ResourceLink]:
    """`ResourceLink` blocks (int64 `size`)."""
    return st.builds(
        c.ResourceLink,
        name=_texts(),
        uri=_uris(),
        title=patches(_texts()),
        description=patches(_texts()),
        icons=patches(_tuples(icons(), max_size=2)),
        mime_type=patches(_mime_types()),
        size=patches(_int64()),
        annotations=patches(content_annotations()),
        meta=metas(),
        extra=extras(),
    )


def text_resource_contents() -> st.SearchStrategy[c.TextResourceContents]:
    """Text contents of an embedded resource."""
    return st.builds(
        c.TextResourceContents,
        uri=_uris(),
        text=_texts(),
        mime_type=patches(_mime_types()),
        meta=metas(),
        extra=extras(),
    )


def blob_resource_contents() -> st.SearchStrategy[c.BlobResourceContents]:
    """Binary (base64) contents of an embedded resource."""
    return st.builds(
        c.BlobResourceContents,
        uri=_uris(),
        blob=_base64(),
        mime_type=patches(_mime_types()),
        meta=metas(),
        extra=extras(),
    )


def embedded_resources() -> st.SearchStrategy[c.EmbeddedResource]:
    """`EmbeddedResource` blocks with text or blob contents."""
    return st.builds(
        c.EmbeddedResource,
        resource=text_resource_contents() | blob_resource_contents(),
        annotations=patches(content_annotations()),
        meta=metas(),
        extra=extras(),
    )


def other_contents() -> st.SearchStrategy[c.OtherContent]:
    """Content blocks of unknown `type`."""
    return st.builds(c.OtherContent, _raw_objects("type", unknown_tags(_CONTENT_TAGS)))


@built_once
def content_blocks() -> st.SearchStrategy[c.ContentBlock]:
    """Any `ContentBlock`, unknown types included."""
    return st.one_of(
        text_contents(),
        image_contents(),
        audio_contents(),
        resource_links(),
        embedded_resources(),
        other_contents(),
    )


# -- tool call content -------------------------------------------------------------------


def diff_changes() -> st.SearchStrategy[c.DiffChange]:
    """`DiffChange`s of the known operations (`move`/`copy` always name their `oldPath`; the
    others leave it absent or null, half the time each)."""
    single = (c.DiffOperation.ADD, c.DiffOperation.DELETE, c.DiffOperation.MODIFY)
    pair = (c.DiffOperation.MOVE, c.DiffOperation.COPY)
    common: dict[str, st.SearchStrategy[Any]] = {
        "path": _paths(),
        "file_type": patches(open_enum_values(_FILE_TYPES)),
        "mime_type": patches(_mime_types()),
        "meta": metas(),
        "extra": extras(),
    }
    return st.one_of(
        st.builds(
            c.DiffChange,
            operation=st.sampled_from(single),
            old_path=st.sampled_from((UNSET, None)),
            **common,
        ),
        st.builds(c.DiffChange, operation=st.sampled_from(pair), old_path=_paths(), **common),
    )


def other_diff_changes() -> st.SearchStrategy[c.OtherDiffChange]:
    """Diff changes with an unknown `operation`."""
    return st.builds(c.OtherDiffChange, _raw_objects("operation", unknown_tags(_DIFF_OPERATIONS)))


def diff_patches() -> st.SearchStrategy[c.DiffPatch]:
    """`DiffPatch` texts (format `git_patch` or another)."""
    return st.builds(
        c.DiffPatch, format=open_enum_values(("git_patch",)), text=_texts(), extra=extras()
    )


def tool_contents() -> st.SearchStrategy[c.ToolContent]:
    """`{"type": "content"}` tool-call content."""
    return st.builds(c.ToolContent, content=content_blocks(), meta=metas(), extra=extras())


def diffs() -> st.SearchStrategy[c.Diff]:
    """`{"type": "diff"}` tool-call content."""
    return st.builds(
        c.Diff,
        changes=_tuples(diff_changes() | other_diff_changes()),
        patch=patches(diff_patches()),
        meta=metas(),
        extra=extras(),
    )


def terminal_refs() -> st.SearchStrategy[c.TerminalRef]:
    """`{"type": "terminal"}` tool-call content."""
    return st.builds(c.TerminalRef, terminal_id=_ids(), meta=metas(), extra=extras())


def other_tool_call_contents() -> st.SearchStrategy[c.OtherToolCallContent]:
    """Tool-call content of unknown `type`."""
    return st.builds(c.OtherToolCallContent, _raw_objects("type", unknown_tags(_TOOL_CONTENT_TAGS)))


def tool_call_contents(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[c.ToolCallContent]:
    """Any `ToolCallContent` `revision` carries, unknown types included: from the Preview
    on, the `session` reference too."""
    kinds: list[st.SearchStrategy[Any]] = [
        tool_contents(),
        diffs(),
        terminal_refs(),
        other_tool_call_contents(),
    ]
    if revision.includes(since_of(c.SessionReference)):
        references = st.builds(c.SessionReference, session_id=_ids(), meta=metas(), extra=extras())
        kinds.append(references)
    return st.one_of(kinds)


def tool_call_locations() -> st.SearchStrategy[c.ToolCallLocation]:
    """`ToolCallLocation`s (uint32 `line`)."""
    return st.builds(
        c.ToolCallLocation, path=_paths(), line=patches(_uint32()), meta=metas(), extra=extras()
    )
