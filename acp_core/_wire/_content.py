"""Content values: `ContentBlock` and `ToolCallContent` families, diffs, locations.

Owns: the frozen value types for message content (MCP-aligned blocks) and tool-call content
(content items, diffs, display-terminal references), each family with an `Other*` variant
that keeps an unknown payload verbatim.
Must not know: how values are decoded (`_codec*.py`), state. The wire shape is derived from
these classes; `__wire_tag__` and `wire(...)` metadata state only its exceptions
(`_wire/_fields.py`).

Conventions shared by every value type in acp-core:
- field names are the snake_case of the wire keys (`meta` is `_meta`); required fields come
  first; a field without a default is required on the wire;
- optional fields are tri-state: `UNSET` (absent), `None` (null) or a value, so a decoded
  value re-encodes to exactly the dict it came from;
- `extra` keeps unknown keys (frozen) for lossless round trips;
- open enums are plain `str` with the known values as constants on a namespace class.
"""

from __future__ import annotations

from typing import Final, TypeAlias

import attrs

from ._fields import PREVIEW_NAME, wire, wire_tag
from ._freezing import freezing_fields
from ._json import EMPTY_OBJECT, UNSET, JsonObject, Meta, Patch
from ._value import frozen

__all__ = [
    "Annotations",
    "AudioContent",
    "BlobResourceContents",
    "ContentBlock",
    "Diff",
    "DiffChange",
    "DiffFileType",
    "DiffOperation",
    "DiffPatch",
    "EmbeddedResource",
    "Icon",
    "ImageContent",
    "OtherContent",
    "OtherDiffChange",
    "OtherToolCallContent",
    "ResourceLink",
    "SessionReference",
    "TerminalRef",
    "TextContent",
    "TextResourceContents",
    "ToolCallContent",
    "ToolCallLocation",
    "ToolContent",
]


@frozen(field_transformer=freezing_fields)
class Annotations:
    """Display hints on a content block (MCP annotations)."""

    audience: Patch[tuple[str, ...]] = UNSET
    last_modified: Patch[str] = UNSET
    priority: Patch[float] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class TextContent:
    """`{"type": "text"}`: text, rendered as Markdown by clients."""

    __wire_tag__ = wire_tag(type="text")

    text: str
    annotations: Patch[Annotations] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class ImageContent:
    """`{"type": "image"}`: base64 image data."""

    __wire_tag__ = wire_tag(type="image")

    data: str
    mime_type: str
    uri: Patch[str] = UNSET
    annotations: Patch[Annotations] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class AudioContent:
    """`{"type": "audio"}`: base64 audio data."""

    __wire_tag__ = wire_tag(type="audio")

    data: str
    mime_type: str
    annotations: Patch[Annotations] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class Icon:
    """An icon of a resource link."""

    src: str
    mime_type: Patch[str] = UNSET
    sizes: Patch[tuple[str, ...]] = UNSET
    theme: Patch[str] = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class ResourceLink:
    """`{"type": "resource_link"}`: a reference to a resource the agent can fetch."""

    __wire_tag__ = wire_tag(type="resource_link")

    name: str
    uri: str
    title: Patch[str] = UNSET
    description: Patch[str] = UNSET
    icons: Patch[tuple[Icon, ...]] = UNSET
    mime_type: Patch[str] = UNSET
    size: Patch[int] = attrs.field(default=UNSET, metadata=wire(codec="int64"))
    annotations: Patch[Annotations] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class TextResourceContents:
    """Text form of an embedded resource."""

    uri: str
    text: str
    mime_type: Patch[str] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class BlobResourceContents:
    """Binary (base64) form of an embedded resource."""

    uri: str
    blob: str
    mime_type: Patch[str] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class EmbeddedResource:
    """`{"type": "resource"}`: resource contents embedded in the message."""

    __wire_tag__ = wire_tag(type="resource")

    resource: TextResourceContents | BlobResourceContents
    annotations: Patch[Annotations] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class OtherContent:
    """A content block of a type this library does not know; `raw` is the whole object."""

    raw: JsonObject

    @property
    def type(self) -> str:
        """The block's `type` tag."""
        tag = self.raw["type"]
        assert isinstance(tag, str)
        return tag


ContentBlock: TypeAlias = (
    TextContent | ImageContent | AudioContent | ResourceLink | EmbeddedResource | OtherContent
)


# -- tool call content ---------------------------------------------------------------------


class DiffOperation:
    """Known `DiffChange.operation` values (the set is open)."""

    ADD: Final = "add"
    DELETE: Final = "delete"
    MODIFY: Final = "modify"
    MOVE: Final = "move"
    COPY: Final = "copy"


class DiffFileType:
    """Known `DiffChange.fileType` values (the set is open)."""

    TEXT: Final = "text"
    BINARY: Final = "binary"
    DIRECTORY: Final = "directory"
    SYMLINK: Final = "symlink"


@frozen(field_transformer=freezing_fields)
class DiffChange:
    """One affected path of a diff. `old_path` is required for `move` and `copy` only."""

    operation: str
    path: str
    old_path: Patch[str] = attrs.field(default=UNSET, metadata=wire(lenient=False))
    file_type: Patch[str] = UNSET
    mime_type: Patch[str] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class OtherDiffChange:
    """A diff change with an operation this library does not know; `raw` is verbatim."""

    raw: JsonObject

    @property
    def operation(self) -> str:
        """The change's `operation` tag."""
        tag = self.raw["operation"]
        assert isinstance(tag, str)
        return tag


@frozen(field_transformer=freezing_fields)
class DiffPatch:
    """Patch text agreeing with a diff's changes (`format` is open; `git_patch` is known)."""

    format: str
    text: str
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class ToolContent:
    """`{"type": "content"}`: a content block produced by a tool (schema name `Content`)."""

    __wire_tag__ = wire_tag(type="content")

    content: ContentBlock
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class Diff:
    """`{"type": "diff"}`: file changes; `changes` is authoritative, `patch` optional."""

    __wire_tag__ = wire_tag(type="diff")

    changes: tuple[DiffChange | OtherDiffChange, ...]
    patch: Patch[DiffPatch] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class TerminalRef:
    """`{"type": "terminal"}`: a display anchor for an agent-owned terminal (schema `Terminal`)."""

    __wire_tag__ = wire_tag(type="terminal")

    terminal_id: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class OtherToolCallContent:
    """Tool-call content of a type this library does not know; `raw` is verbatim."""

    raw: JsonObject

    @property
    def type(self) -> str:
        """The item's `type` tag."""
        tag = self.raw["type"]
        assert isinstance(tag, str)
        return tag


@frozen(field_transformer=freezing_fields)
class SessionReference:
    """`{"type": "session"}` (Preview): a display-only link to a session the client knows;
    it grants no control and proves no work (C52)."""

    __wire_tag__ = wire_tag(type="session")
    __wire_since__ = PREVIEW_NAME

    session_id: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


ToolCallContent: TypeAlias = (
    ToolContent | Diff | TerminalRef | SessionReference | OtherToolCallContent
)


@frozen(field_transformer=freezing_fields)
class ToolCallLocation:
    """A file location a tool call touches (`line` is 1-based; 0 means no line)."""

    path: str
    line: Patch[int] = attrs.field(default=UNSET, metadata=wire(codec="uint32"))
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT
