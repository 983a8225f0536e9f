"""The wire codec: JSON dicts <-> acp-core values, table-driven, lossless.

Owns: the wire name of every field, tag tables for every union, strict and lenient decoding,
and the diagnostics lenient decoding produces.
Must not know: what updates mean (reducers), which side we are (engines).

How it works. Each value class has one `_Record` spec listing its fields in class order with
their wire key, value codec and flags; unions map tag values to specs and fall back to an
`Other*` class that keeps the raw object. Decoding walks the spec; encoding walks it back.
- Absent keys decode to `UNSET`, `null` to `None`; encoding omits `UNSET` and writes `None`
  as `null`, so `encode(decode(d)) == d` and `decode(encode(v)) == v`.
- Unknown keys go to the value's `extra` (frozen) and are written back.
- A known tag with a bad payload is an error, never demoted to `Other*` (spec: migration
  checklist for SDKs).
- Lenient mode follows the schema's annotations: a malformed optional field
  (`x-deserialize-default-on-error`) becomes absent, a malformed item of a list marked
  `x-deserialize-skip-invalid-items` is dropped, a malformed required array marked
  default-on-error becomes empty; each is reported as a `Diagnostic`. Strict mode raises.
- JSON paths are built lazily (a linked chain), so the happy path formats no strings.
"""

from __future__ import annotations

import math
from collections.abc import Callable, Mapping
from typing import Any, Final, Generic, NamedTuple, TypeVar

import attrs

from . import _content as c
from . import _jsonrpc as j
from . import _updates as u
from ._errors import ArgumentError, DecodeError, Diagnostic
from ._fastnew import fast_constructor
from ._json import (
    EMPTY_OBJECT,
    MAX_INT_BITS,
    UNSET,
    JsonObject,
    JsonValue,
    Path,
    freeze_json,
    freeze_object,
    render_path,
    thaw_input,
    thaw_json,
)

__all__ = [
    "Decoded",
    "decode_message",
    "decode_message_diagnosed",
    "decode_permission_result",
    "decode_prompt_result",
    "decode_update",
    "decode_update_diagnosed",
    "encode_message",
    "encode_result",
    "encode_update",
]

T = TypeVar("T")

#: Diagnostic rule ids of the codec (documented in docs/semantics.md).
DEFAULT_ON_ERROR: Final = "codec.default-on-error"
SKIP_INVALID_ITEM: Final = "codec.skip-invalid-item"
DIAGNOSTICS_LIMIT: Final = "codec.diagnostics-limit"
#: Most diagnostics one lenient decode lists; the rest are counted in one summary diagnostic.
MAX_DIAGNOSTICS: Final = 100

_MISSING: Final = object()


class Decoded(NamedTuple, Generic[T]):
    """A decoded value with what lenient decoding tolerated on the way."""

    value: T
    diagnostics: tuple[Diagnostic, ...]


class _Ctx:
    """Per-call decoding context: strictness, and the diagnostics of a lenient decode.

    A collecting context is local to one decode call. The two shared ones hold no state:
    `_STRICT` raises instead of tolerating (its list stays empty), `_DISCARD` tolerates
    without recording, for callers that do not ask for diagnostics.
    """

    __slots__ = ("diagnostics", "dropped", "strict")

    def __init__(self, *, strict: bool) -> None:
        self.strict = strict
        self.diagnostics: list[Diagnostic] = []
        self.dropped = 0

    def tolerate(self, rule: str, error: DecodeError, what: str) -> None:
        if self.strict:
            raise error
        # Bounded: one line with a million bad items must not make a million diagnostics.
        if len(self.diagnostics) < MAX_DIAGNOSTICS:
            self.diagnostics.append(Diagnostic(rule, error.path, f"{what}: {error}"))
        else:
            self.dropped += 1

    def finish(self) -> tuple[Diagnostic, ...]:
        """The diagnostics of this decode, then one summary of those not listed."""
        if not self.dropped:
            return tuple(self.diagnostics)
        summary = Diagnostic(
            DIAGNOSTICS_LIMIT,
            "$",
            f"{self.dropped} more problems tolerated in this value are not listed "
            f"(at most {MAX_DIAGNOSTICS} per value)",
        )
        return (*self.diagnostics, summary)


class _Discard(_Ctx):
    __slots__ = ()

    def tolerate(self, rule: str, error: DecodeError, what: str) -> None:
        del self.diagnostics[:]  # nothing is kept, nothing accumulates


_STRICT: Final = _Ctx(strict=True)
_DISCARD: Final = _Discard(strict=False)


def _shared(strict: bool) -> _Ctx:
    return _STRICT if strict else _DISCARD


# -- value codecs ----------------------------------------------------------------------
# Each has `expected` (for messages), `decode(obj, path, ctx)` and `encode(value)`.


class _Codec:
    expected = "value"

    def decode(self, obj: object, path: Path, ctx: _Ctx) -> Any:
        raise NotImplementedError

    def encode(self, value: Any) -> object:
        return value

    def fail(self, path: Path) -> DecodeError:
        return DecodeError(render_path(path), self.expected)


class _Str(_Codec):
    expected = "string"

    def decode(self, obj: object, path: Path, ctx: _Ctx) -> str:
        if type(obj) is str:
            return obj
        raise self.fail(path)


class _Bool(_Codec):
    expected = "boolean"

    def decode(self, obj: object, path: Path, ctx: _Ctx) -> bool:
        if type(obj) is bool:
            return obj
        raise self.fail(path)


class _Int(_Codec):
    def __init__(self, lo: int, hi: int, name: str) -> None:
        self.lo = lo
        self.hi = hi
        self.expected = f"integer ({name})"

    def decode(self, obj: object, path: Path, ctx: _Ctx) -> int:
        if type(obj) is int and self.lo <= obj <= self.hi:
            return obj
        raise self.fail(path)


class _Number(_Codec):
    expected = "number"

    def decode(self, obj: object, path: Path, ctx: _Ctx) -> float:
        if type(obj) is float and math.isfinite(obj):
            return obj
        if type(obj) is int and obj.bit_length() <= MAX_INT_BITS:  # else no JSON printer writes it
            return obj
        raise self.fail(path)


class _Json(_Codec):
    expected = "JSON value"

    def decode(self, obj: object, path: Path, ctx: _Ctx) -> JsonValue:
        return freeze_json(obj, path)

    def encode(self, value: Any) -> object:
        return thaw_json(value)


class _Object(_Codec):
    expected = "object"

    def decode(self, obj: object, path: Path, ctx: _Ctx) -> JsonObject:
        if type(obj) is dict:
            return freeze_object(obj, path, 1)
        raise self.fail(path)

    def encode(self, value: Any) -> object:
        return thaw_json(value)


_I64_MIN: Final = -(2**63)
_I64_MAX: Final = 2**63 - 1


class _RequestId(_Codec):
    expected = "request id (string, integer or null)"

    def decode(self, obj: object, path: Path, ctx: _Ctx) -> int | str | None:
        if obj is None or type(obj) is str or (type(obj) is int and _I64_MIN <= obj <= _I64_MAX):
            return obj
        raise self.fail(path)


class _List(_Codec):
    def __init__(self, item: _Codec, *, skip_invalid: bool) -> None:
        self.item = item
        self.skip_invalid = skip_invalid
        self.expected = f"array of {item.expected}"

    def decode(self, obj: object, path: Path, ctx: _Ctx) -> tuple[Any, ...]:
        if type(obj) is not list:
            raise self.fail(path)
        item = self.item
        out = []
        diagnostics = ctx.diagnostics
        for i, x in enumerate(obj):
            mark = len(diagnostics)
            try:
                out.append(item.decode(x, (path, i), ctx))
            except DecodeError as e:
                if not self.skip_invalid:
                    raise
                # The whole item is gone, so what was tolerated inside it is moot.
                del diagnostics[mark:]
                ctx.tolerate(SKIP_INVALID_ITEM, e, "invalid item dropped")
        return tuple(out)

    def encode(self, value: Any) -> object:
        enc = self.item.encode
        return [enc(x) for x in value]


class _NonEmpty(_Codec):
    """A list that must have at least one item (`minItems: 1`)."""

    def __init__(self, inner: _List) -> None:
        self.inner = inner
        self.expected = f"non-empty {inner.expected}"

    def decode(self, obj: object, path: Path, ctx: _Ctx) -> tuple[Any, ...]:
        items = self.inner.decode(obj, path, ctx)
        if not items:
            raise self.fail(path)
        return items

    def encode(self, value: Any) -> object:
        return self.inner.encode(value)


def _as_tuple(*args: Any) -> tuple[Any, ...]:
    return args


class _Field(NamedTuple):
    attr: str
    key: str
    codec: _Codec
    required: bool
    nullable: bool
    lenient: bool
    on_error: object  # what a tolerated malformed value becomes


def _f(
    attr: str,
    key: str,
    codec: _Codec,
    *,
    required: bool = False,
    lenient: bool | None = None,
    nullable: bool | None = None,
    on_error: object = UNSET,
) -> _Field:
    return _Field(
        attr,
        key,
        codec,
        required,
        (not required) if nullable is None else nullable,
        (not required) if lenient is None else lenient,
        on_error,
    )


class _Record(_Codec):
    """Spec of one value class: fields in class order, then `extra`."""

    def __init__(
        self,
        cls: type[Any] | None,
        name: str,
        fields: tuple[_Field, ...],
        tags: tuple[tuple[str, str], ...] = (),
        check: Callable[[Any, Path], None] | None = None,
    ) -> None:
        self.cls = cls
        self.fields = fields
        self.tags = tags
        self.check = check
        self.expected = f"object ({name})"
        self.known = frozenset([f.key for f in fields] + [k for k, _ in tags])
        # Plain tuples unpack faster than NamedTuple attribute access in the decode loop.
        self.plan = tuple(
            (f.key, f.codec, f.codec is _STR, f.required, f.nullable, f.lenient, f.on_error)
            for f in fields
        )
        if cls is not None:
            names = [a.name for a in attrs.fields(cls)]
            assert names == [f.attr for f in fields] + ["extra"], (cls, names)
            self.make = fast_constructor(cls)
        self.build = self._compile()

    def _compile(self) -> Callable[..., Any]:
        """Generate this spec's decoder, unrolled (as attrs generates `__init__`).

        `build(obj, path, ctx, make)` reads every field with one dict lookup; strings of
        string fields are taken inline, anything else (null, nested values, errors, lenient
        fallbacks) goes through `_field`. It returns `make(*fields, extra)`.
        """
        lines = ["def build(obj, path, ctx, make):", f"    found = {len(self.tags)}"]
        names = []
        for i, (key, _codec, is_str, required, *_) in enumerate(self.plan):
            a = f"a{i}"
            names.append(a)
            lines += [f"    v = obj.get({key!r}, MISSING)", "    if v is MISSING:"]
            lines.append(f"        missing(path, {i})" if required else f"        {a} = UNSET")
            lines += ["    else:", "        found += 1"]
            if is_str:
                lines.append(f"        {a} = v if type(v) is str else field({i}, v, path, ctx)")
            else:
                lines.append(f"        {a} = field({i}, v, path, ctx)")
        lines.append("    extra = EMPTY if found == len(obj) else extras(obj, path)")
        lines.append(f"    return make({', '.join([*names, 'extra'])})")
        namespace: dict[str, Any] = {
            "MISSING": _MISSING,
            "UNSET": UNSET,
            "EMPTY": EMPTY_OBJECT,
            "missing": self._missing,
            "field": self._field,
            "extras": self._extras,
        }
        exec("\n".join(lines), namespace)  # generated from this spec's own keys only
        build: Callable[..., Any] = namespace["build"]
        return build

    def _missing(self, path: Path, i: int) -> None:
        key, codec = self.plan[i][:2]
        raise DecodeError(render_path((path, key)), f"{codec.expected} (required)")

    def _field(self, i: int, v: object, path: Path, ctx: _Ctx) -> Any:
        key, codec, _, _, nullable, lenient, on_error = self.plan[i]
        if v is None and nullable:
            return None
        try:
            return codec.decode(v, (path, key), ctx)
        except DecodeError as e:
            if not lenient:
                raise
            ctx.tolerate(DEFAULT_ON_ERROR, e, f"malformed `{key}` ignored")
            return on_error

    def _extras(self, obj: dict[str, object], path: Path) -> JsonObject:
        known = self.known
        return freeze_object({k: v for k, v in obj.items() if k not in known}, path, 1)

    def decode_args(self, obj: dict[str, object], path: Path, ctx: _Ctx) -> tuple[Any, ...]:
        """The field values (then `extra`) of `obj`, in class order."""
        args: tuple[Any, ...] = self.build(obj, path, ctx, _as_tuple)
        return args

    def decode(self, obj: object, path: Path, ctx: _Ctx) -> Any:
        if type(obj) is not dict:
            raise self.fail(path)
        value = self.build(obj, path, ctx, self.make)
        if self.check is not None:
            self.check(value, path)
        return value

    def encode_into(self, value: Any, out: dict[str, object]) -> dict[str, object]:
        for k, tag in self.tags:
            out[k] = tag
        for f in self.fields:
            x = getattr(value, f.attr)
            if x is UNSET:
                continue
            out[f.key] = None if x is None else f.codec.encode(x)
        extra: JsonObject = value.extra
        if extra:
            for k, x in extra.items():
                if k not in out:
                    out[k] = thaw_json(x)
        return out

    def encode(self, value: Any) -> object:
        return self.encode_into(value, {})


class _Union(_Codec):
    """A tagged union: `tag_key` selects a variant; unknown tags become `other(raw)`."""

    def __init__(
        self,
        tag_key: str,
        name: str,
        variants: Mapping[str, _Codec],
        other: type[Any] | None,
        other_requires: tuple[str, ...] = (),
    ) -> None:
        self.tag_key = tag_key
        self.variants = dict(variants)
        self.other = other
        self.other_requires = other_requires
        self.expected = f"object ({name})"
        self.by_type: dict[type[Any], _Codec] = {}
        for codec in variants.values():
            if isinstance(codec, _Union):
                self.by_type.update(codec.by_type)
            elif isinstance(codec, _Record):
                assert codec.cls is not None
                self.by_type[codec.cls] = codec
        if other is not None:
            self.by_type[other] = _RAW

    def decode(self, obj: object, path: Path, ctx: _Ctx) -> Any:
        if type(obj) is not dict:
            raise self.fail(path)
        tag = obj.get(self.tag_key)
        if type(tag) is not str:
            raise DecodeError(render_path((path, self.tag_key)), "string (variant tag)")
        codec = self.variants.get(tag)
        if codec is not None:
            return codec.decode(obj, path, ctx)
        if self.other is None:
            known = ", ".join(sorted(self.variants))
            raise DecodeError(render_path((path, self.tag_key)), f"one of {known}")
        for key in self.other_requires:
            if type(obj.get(key)) is not str:
                raise DecodeError(render_path((path, key)), "string (required)")
        return self.other(freeze_object(obj, path, 1))

    def encode(self, value: Any) -> object:
        codec = self.by_type.get(type(value))
        if codec is None:
            msg = f"cannot encode {type(value).__name__} as {self.expected}"
            raise ArgumentError(msg)
        return codec.encode(value)


class _Raw(_Codec):
    """Encoder of `Other*` values: their raw object verbatim."""

    def encode(self, value: Any) -> object:
        return thaw_json(value.raw)


_RAW: Final = _Raw()
_STR: Final = _Str()
_BOOL: Final = _Bool()
_NUMBER: Final = _Number()
_JSON: Final = _Json()
_OBJECT: Final = _Object()
_REQUEST_ID: Final = _RequestId()
_UINT32: Final = _Int(0, 2**32 - 1, "uint32")
_UINT64: Final = _Int(0, 2**64 - 1, "uint64")
_INT64: Final = _Int(-(2**63), 2**63 - 1, "int64")


def _meta() -> _Field:
    return _f("meta", "_meta", _OBJECT)


def _list(item: _Codec, *, skip: bool = True) -> _List:
    return _List(item, skip_invalid=skip)


# -- content ---------------------------------------------------------------------------

_ANNOTATIONS = _Record(
    c.Annotations,
    "Annotations",
    (
        _f("audience", "audience", _list(_STR)),
        _f("last_modified", "lastModified", _STR),
        _f("priority", "priority", _NUMBER),
        _meta(),
    ),
)


def _tagged(cls: type[Any], name: str, tag: tuple[str, str], fields: tuple[_Field, ...]) -> _Record:
    return _Record(cls, name, fields, (tag,))


_TEXT = _tagged(
    c.TextContent,
    "TextContent",
    ("type", "text"),
    (
        _f("text", "text", _STR, required=True),
        _f("annotations", "annotations", _ANNOTATIONS),
        _meta(),
    ),
)
_IMAGE = _tagged(
    c.ImageContent,
    "ImageContent",
    ("type", "image"),
    (
        _f("data", "data", _STR, required=True),
        _f("mime_type", "mimeType", _STR, required=True),
        _f("uri", "uri", _STR),
        _f("annotations", "annotations", _ANNOTATIONS),
        _meta(),
    ),
)
_AUDIO = _tagged(
    c.AudioContent,
    "AudioContent",
    ("type", "audio"),
    (
        _f("data", "data", _STR, required=True),
        _f("mime_type", "mimeType", _STR, required=True),
        _f("annotations", "annotations", _ANNOTATIONS),
        _meta(),
    ),
)
_ICON = _Record(
    c.Icon,
    "Icon",
    (
        _f("src", "src", _STR, required=True),
        _f("mime_type", "mimeType", _STR),
        _f("sizes", "sizes", _list(_STR)),
        _f("theme", "theme", _STR),
    ),
)
_RESOURCE_LINK = _tagged(
    c.ResourceLink,
    "ResourceLink",
    ("type", "resource_link"),
    (
        _f("name", "name", _STR, required=True),
        _f("uri", "uri", _STR, required=True),
        _f("title", "title", _STR),
        _f("description", "description", _STR),
        _f("icons", "icons", _list(_ICON)),
        _f("mime_type", "mimeType", _STR),
        _f("size", "size", _INT64),
        _f("annotations", "annotations", _ANNOTATIONS),
        _meta(),
    ),
)
_TEXT_RESOURCE = _Record(
    c.TextResourceContents,
    "TextResourceContents",
    (
        _f("uri", "uri", _STR, required=True),
        _f("text", "text", _STR, required=True),
        _f("mime_type", "mimeType", _STR),
        _meta(),
    ),
)
_BLOB_RESOURCE = _Record(
    c.BlobResourceContents,
    "BlobResourceContents",
    (
        _f("uri", "uri", _STR, required=True),
        _f("blob", "blob", _STR, required=True),
        _f("mime_type", "mimeType", _STR),
        _meta(),
    ),
)


class _ResourceContents(_Codec):
    """Untagged and closed: text contents (has `text`) or blob contents (has `blob`)."""

    expected = "object (TextResourceContents or BlobResourceContents)"

    def decode(self, obj: object, path: Path, ctx: _Ctx) -> Any:
        if type(obj) is dict:
            if "text" in obj:
                return _TEXT_RESOURCE.decode(obj, path, ctx)
            if "blob" in obj:
                return _BLOB_RESOURCE.decode(obj, path, ctx)
        raise self.fail(path)

    def encode(self, value: Any) -> object:
        if type(value) is c.TextResourceContents:
            return _TEXT_RESOURCE.encode(value)
        return _BLOB_RESOURCE.encode(value)


_EMBEDDED = _tagged(
    c.EmbeddedResource,
    "EmbeddedResource",
    ("type", "resource"),
    (
        _f("resource", "resource", _ResourceContents(), required=True),
        _f("annotations", "annotations", _ANNOTATIONS),
        _meta(),
    ),
)
CONTENT_BLOCK: Final = _Union(
    "type",
    "ContentBlock",
    {
        "text": _TEXT,
        "image": _IMAGE,
        "audio": _AUDIO,
        "resource_link": _RESOURCE_LINK,
        "resource": _EMBEDDED,
    },
    c.OtherContent,
)

# -- tool call content -----------------------------------------------------------------


def _check_diff_change(value: c.DiffChange, path: Path) -> None:
    # move/copy name their source; the other known operations have none.
    if value.operation in ("move", "copy") and not isinstance(value.old_path, str):
        raise DecodeError(render_path((path, "oldPath")), "string (required)")


_DIFF_CHANGE_RECORD = _Record(
    c.DiffChange,
    "DiffChange",
    (
        _f("operation", "operation", _STR, required=True),
        _f("path", "path", _STR, required=True),
        _f("old_path", "oldPath", _STR, lenient=False),
        _f("file_type", "fileType", _STR),
        _f("mime_type", "mimeType", _STR),
        _meta(),
    ),
    check=_check_diff_change,
)
_DIFF_CHANGE = _Union(
    "operation",
    "DiffChange",
    dict.fromkeys(("add", "delete", "modify", "move", "copy"), _DIFF_CHANGE_RECORD),
    c.OtherDiffChange,
)
_DIFF_PATCH = _Record(
    c.DiffPatch,
    "DiffPatch",
    (_f("format", "format", _STR, required=True), _f("text", "text", _STR, required=True)),
)
_TOOL_CONTENT = _tagged(
    c.ToolContent,
    "Content",
    ("type", "content"),
    (_f("content", "content", CONTENT_BLOCK, required=True), _meta()),
)
_DIFF = _tagged(
    c.Diff,
    "Diff",
    ("type", "diff"),
    (
        _f("changes", "changes", _list(_DIFF_CHANGE), required=True),
        _f("patch", "patch", _DIFF_PATCH),
        _meta(),
    ),
)
_TERMINAL_REF = _tagged(
    c.TerminalRef,
    "Terminal",
    ("type", "terminal"),
    (_f("terminal_id", "terminalId", _STR, required=True), _meta()),
)
TOOL_CALL_CONTENT: Final = _Union(
    "type",
    "ToolCallContent",
    {"content": _TOOL_CONTENT, "diff": _DIFF, "terminal": _TERMINAL_REF},
    c.OtherToolCallContent,
)
_LOCATION = _Record(
    c.ToolCallLocation,
    "ToolCallLocation",
    (
        _f("path", "path", _STR, required=True),
        _f("line", "line", _UINT32),
        _meta(),
    ),
)

# -- session updates -------------------------------------------------------------------

_SU: Final = "sessionUpdate"


def _chunk(cls: type[Any], tag: str) -> _Record:
    return _tagged(
        cls,
        "ContentChunk",
        (_SU, tag),
        (
            _f("message_id", "messageId", _STR, required=True),
            _f("content", "content", CONTENT_BLOCK, required=True),
            _meta(),
        ),
    )


def _upsert(cls: type[Any], tag: str, name: str) -> _Record:
    return _tagged(
        cls,
        name,
        (_SU, tag),
        (
            _f("message_id", "messageId", _STR, required=True),
            _f("content", "content", _list(CONTENT_BLOCK)),
            _meta(),
        ),
    )


def _state(cls: type[Any], state: str, fields: tuple[_Field, ...]) -> _Record:
    return _Record(cls, cls.__name__, fields, ((_SU, "state_update"), ("state", state)))


_TOOL_CALL_UPDATE_FIELDS: Final = (
    _f("tool_call_id", "toolCallId", _STR, required=True),
    _f("title", "title", _STR),
    _f("kind", "kind", _STR),
    _f("status", "status", _STR),
    _f("content", "content", _list(TOOL_CALL_CONTENT)),
    _f("locations", "locations", _list(_LOCATION)),
    _f("raw_input", "rawInput", _JSON),
    _f("raw_output", "rawOutput", _JSON),
    _meta(),
)
_TOOL_CALL_UPDATE = _tagged(
    u.ToolCallUpdate, "ToolCallUpdate", (_SU, "tool_call_update"), _TOOL_CALL_UPDATE_FIELDS
)
# The same shape without the tag, as carried by a permission request's tool_call subject.
_TOOL_CALL_PATCH = _Record(u.ToolCallUpdate, "ToolCallUpdate", _TOOL_CALL_UPDATE_FIELDS)

_TERMINAL_OUTPUT = _Record(
    u.TerminalOutput,
    "TerminalOutput",
    (_f("data", "data", _STR, required=True), _meta()),
)
_EXIT_STATUS = _Record(
    u.TerminalExitStatus,
    "TerminalExitStatus",
    (
        _f("exit_code", "exitCode", _UINT32),
        _f("signal", "signal", _STR),
        _meta(),
    ),
)
_PLAN_ENTRY = _Record(
    u.PlanEntry,
    "PlanEntry",
    (
        _f("content", "content", _STR, required=True),
        _f("priority", "priority", _STR, required=True),
        _f("status", "status", _STR, required=True),
        _meta(),
    ),
)
_PLAN_ITEMS = _tagged(
    u.PlanItems,
    "PlanItems",
    ("type", "items"),
    (
        _f("plan_id", "planId", _STR, required=True),
        _f("entries", "entries", _list(_PLAN_ENTRY), required=True, lenient=True, on_error=()),
        _meta(),
    ),
)
# Q9: any plan type other than `items` is kept raw (the stable schema's exclusion of `file`
# and `markdown` is not enforced), but every plan must carry a string planId.
_PLAN_CONTENT = _Union(
    "type", "PlanUpdateContent", {"items": _PLAN_ITEMS}, u.OtherPlan, ("planId",)
)
_TEXT_INPUT = _tagged(
    u.TextCommandInput,
    "TextCommandInput",
    ("type", "text"),
    (_f("hint", "hint", _STR, required=True), _meta()),
)
_COMMAND = _Record(
    u.AvailableCommand,
    "AvailableCommand",
    (
        _f("name", "name", _STR, required=True),
        _f("description", "description", _STR, required=True),
        _f(
            "input",
            "input",
            _Union("type", "AvailableCommandInput", {"text": _TEXT_INPUT}, u.OtherCommandInput),
        ),
        _meta(),
    ),
)
_SELECT_OPTION = _Record(
    u.SessionConfigSelectOption,
    "SessionConfigSelectOption",
    (
        _f("value", "value", _STR, required=True),
        _f("name", "name", _STR, required=True),
        _f("description", "description", _STR),
        _meta(),
    ),
)
_SELECT_GROUP = _Record(
    u.SessionConfigSelectGroup,
    "SessionConfigSelectGroup",
    (
        _f("group_id", "groupId", _STR, required=True),
        _f("name", "name", _STR, required=True),
        _f("options", "options", _list(_SELECT_OPTION), required=True, lenient=True, on_error=()),
        _meta(),
    ),
)


class _SelectOptions(_Codec):
    """Untagged and closed: a flat option list, or a list of groups (items have `groupId`)."""

    expected = "array of select options or of option groups"
    _flat = _List(_SELECT_OPTION, skip_invalid=False)
    _grouped = _List(_SELECT_GROUP, skip_invalid=False)

    def decode(self, obj: object, path: Path, ctx: _Ctx) -> tuple[Any, ...]:
        if type(obj) is not list:
            raise self.fail(path)
        grouped = any(type(x) is dict and "groupId" in x for x in obj)
        return (self._grouped if grouped else self._flat).decode(obj, path, ctx)

    def encode(self, value: Any) -> object:
        return [
            (_SELECT_GROUP if type(x) is u.SessionConfigSelectGroup else _SELECT_OPTION).encode(x)
            for x in value
        ]


def _config_common() -> tuple[_Field, ...]:
    return (
        _f("config_id", "configId", _STR, required=True),
        _f("name", "name", _STR, required=True),
    )


def _config_tail() -> tuple[_Field, ...]:
    return (_f("description", "description", _STR), _f("category", "category", _STR), _meta())


_CONFIG_OPTION = _Union(
    "type",
    "SessionConfigOption",
    {
        "select": _tagged(
            u.SessionConfigSelect,
            "SessionConfigSelect",
            ("type", "select"),
            (
                *_config_common(),
                _f("current_value", "currentValue", _STR, required=True),
                _f("options", "options", _SelectOptions(), required=True),
                *_config_tail(),
            ),
        ),
        "boolean": _tagged(
            u.SessionConfigBoolean,
            "SessionConfigBoolean",
            ("type", "boolean"),
            (
                *_config_common(),
                _f("current_value", "currentValue", _BOOL, required=True),
                *_config_tail(),
            ),
        ),
    },
    u.OtherSessionConfigOption,
)
_COST = _Record(
    u.Cost,
    "Cost",
    (
        _f("amount", "amount", _NUMBER, required=True),
        _f("currency", "currency", _STR, required=True),
        _meta(),
    ),
)

SESSION_UPDATE: Final = _Union(
    _SU,
    "SessionUpdate",
    {
        "user_message_chunk": _chunk(u.UserMessageChunk, "user_message_chunk"),
        "user_message": _upsert(u.UserMessage, "user_message", "UserMessage"),
        "agent_message_chunk": _chunk(u.AgentMessageChunk, "agent_message_chunk"),
        "agent_message": _upsert(u.AgentMessage, "agent_message", "AgentMessage"),
        "agent_thought_chunk": _chunk(u.AgentThoughtChunk, "agent_thought_chunk"),
        "agent_thought": _upsert(u.AgentThought, "agent_thought", "AgentThought"),
        "state_update": _Union(
            "state",
            "StateUpdate",
            {
                "running": _state(u.RunningStateUpdate, "running", (_meta(),)),
                "idle": _state(
                    u.IdleStateUpdate,
                    "idle",
                    (_f("stop_reason", "stopReason", _STR), _meta()),
                ),
                "requires_action": _state(
                    u.RequiresActionStateUpdate, "requires_action", (_meta(),)
                ),
            },
            u.OtherStateUpdate,
        ),
        "tool_call_content_chunk": _tagged(
            u.ToolCallContentChunk,
            "ToolCallContentChunk",
            (_SU, "tool_call_content_chunk"),
            (
                _f("tool_call_id", "toolCallId", _STR, required=True),
                _f("content", "content", TOOL_CALL_CONTENT, required=True),
                _meta(),
            ),
        ),
        "tool_call_update": _TOOL_CALL_UPDATE,
        "terminal_update": _tagged(
            u.TerminalUpdate,
            "TerminalUpdate",
            (_SU, "terminal_update"),
            (
                _f("terminal_id", "terminalId", _STR, required=True),
                _f("command", "command", _STR),
                _f("cwd", "cwd", _STR),
                _f("output", "output", _TERMINAL_OUTPUT),
                _f("exit_status", "exitStatus", _EXIT_STATUS),
                _meta(),
            ),
        ),
        "terminal_output_chunk": _tagged(
            u.TerminalOutputChunk,
            "TerminalOutputChunk",
            (_SU, "terminal_output_chunk"),
            (
                _f("terminal_id", "terminalId", _STR, required=True),
                _f("data", "data", _STR, required=True),
                _meta(),
            ),
        ),
        "plan_update": _tagged(
            u.PlanUpdate,
            "PlanUpdate",
            (_SU, "plan_update"),
            (_f("plan", "plan", _PLAN_CONTENT, required=True), _meta()),
        ),
        "available_commands_update": _tagged(
            u.AvailableCommandsUpdate,
            "AvailableCommandsUpdate",
            (_SU, "available_commands_update"),
            (
                _f(
                    "available_commands",
                    "availableCommands",
                    _list(_COMMAND),
                    required=True,
                    lenient=True,
                    on_error=(),
                ),
                _meta(),
            ),
        ),
        "config_option_update": _tagged(
            u.ConfigOptionUpdate,
            "ConfigOptionUpdate",
            (_SU, "config_option_update"),
            (
                _f(
                    "config_options",
                    "configOptions",
                    _list(_CONFIG_OPTION),
                    required=True,
                    lenient=True,
                    on_error=(),
                ),
                _meta(),
            ),
        ),
        "session_info_update": _tagged(
            u.SessionInfoUpdate,
            "SessionInfoUpdate",
            (_SU, "session_info_update"),
            (_f("title", "title", _STR), _f("updated_at", "updatedAt", _STR), _meta()),
        ),
        "usage_update": _tagged(
            u.UsageUpdate,
            "UsageUpdate",
            (_SU, "usage_update"),
            (
                _f("used", "used", _UINT64, required=True),
                _f("size", "size", _UINT64, required=True),
                _f("cost", "cost", _COST),
                _meta(),
            ),
        ),
    },
    u.OtherUpdate,
)

# -- permission values and results -----------------------------------------------------

_PERMISSION_OPTION = _Record(
    j.PermissionOption,
    "PermissionOption",
    (
        _f("option_id", "optionId", _STR, required=True),
        _f("name", "name", _STR, required=True),
        _f("kind", "kind", _STR, required=True),
        _meta(),
    ),
)
_PERMISSION_SUBJECT = _Union(
    "type",
    "RequestPermissionSubject",
    {
        "tool_call": _tagged(
            j.ToolCallPermissionSubject,
            "ToolCallPermissionSubject",
            ("type", "tool_call"),
            (_f("tool_call", "toolCall", _TOOL_CALL_PATCH, required=True),),
        ),
        "command": _tagged(
            j.CommandPermissionSubject,
            "CommandPermissionSubject",
            ("type", "command"),
            (
                _f("command", "command", _STR, required=True),
                _f("cwd", "cwd", _STR, required=True),
                _f("tool_call_id", "toolCallId", _STR),
                _f("terminal_id", "terminalId", _STR),
                _meta(),
            ),
        ),
    },
    j.OtherPermissionSubject,
)
_OUTCOME = _Union(
    "outcome",
    "RequestPermissionOutcome",
    {
        "selected": _tagged(
            j.SelectedOutcome,
            "SelectedPermissionOutcome",
            ("outcome", "selected"),
            (_f("option_id", "optionId", _STR, required=True), _meta()),
        ),
        "cancelled": _tagged(j.CancelledOutcome, "CancelledOutcome", ("outcome", "cancelled"), ()),
    },
    j.OtherPermissionOutcome,
)
_PERMISSION_RESULT = _Record(
    j.RequestPermissionResult,
    "RequestPermissionResponse",
    (_f("outcome", "outcome", _OUTCOME, required=True), _meta()),
)
_PROMPT_RESULT = _Record(
    j.PromptResult,
    "PromptResponse",
    # messageId: required by the 2026-11 draft, unknown to 2026-08; tolerated either way.
    # Never null: the draft types it as a string and the value as `str | Unset`.
    (_f("message_id", "messageId", _STR, lenient=False, nullable=False), _meta()),
)
_RESULTS: Final[dict[type[Any], _Record]] = {
    j.PromptResult: _PROMPT_RESULT,
    j.RequestPermissionResult: _PERMISSION_RESULT,
}
_RPC_ERROR = _Record(
    j.RpcError,
    "Error",
    (
        _f("code", "code", _INT64, required=True),
        _f("message", "message", _STR, required=True),
        _f("data", "data", _JSON, lenient=False),
    ),
)


class _UpdateCodec(_Codec):
    """`SESSION_UPDATE`, trying the fast path for streamed chunks first."""

    expected = SESSION_UPDATE.expected

    def decode(self, obj: object, path: Path, ctx: _Ctx) -> Any:
        fast = _fast_update(obj)
        return SESSION_UPDATE.decode(obj, path, ctx) if fast is None else fast

    def encode(self, value: Any) -> object:
        return SESSION_UPDATE.encode(value)


# -- typed messages --------------------------------------------------------------------
# Params specs have no class of their own: the message class is (id?, *params, extra,
# envelope_extra).


class _Typed(NamedTuple):
    cls: type[Any]
    method: str
    has_id: bool
    params: _Record


def _typed(cls: type[Any], method: str, *, has_id: bool, fields: tuple[_Field, ...]) -> _Typed:
    names = [a.name for a in attrs.fields(cls)]
    expect = (["id"] if has_id else []) + [f.attr for f in fields] + ["extra", "envelope_extra"]
    assert names == expect, (cls, names)
    return _Typed(cls, method, has_id, _Record(None, cls.__name__, fields))


_MESSAGES: Final = (
    _typed(
        j.UpdateSessionNotification,
        j.Method.SESSION_UPDATE,
        has_id=False,
        fields=(
            _f("session_id", "sessionId", _STR, required=True),
            _f("update", "update", _UpdateCodec(), required=True),
            _meta(),
        ),
    ),
    _typed(
        j.PromptRequest,
        j.Method.SESSION_PROMPT,
        has_id=True,
        fields=(
            _f("session_id", "sessionId", _STR, required=True),
            _f("prompt", "prompt", _list(CONTENT_BLOCK, skip=False), required=True),
            _meta(),
        ),
    ),
    _typed(
        j.CancelSessionNotification,
        j.Method.SESSION_CANCEL,
        has_id=False,
        fields=(_f("session_id", "sessionId", _STR, required=True), _meta()),
    ),
    _typed(
        j.RequestPermissionRequest,
        j.Method.REQUEST_PERMISSION,
        has_id=True,
        fields=(
            _f("session_id", "sessionId", _STR, required=True),
            _f("title", "title", _STR, required=True),
            _f(
                "options",
                "options",
                _NonEmpty(_list(_PERMISSION_OPTION, skip=False)),
                required=True,
            ),
            _f("description", "description", _STR),
            _f("subject", "subject", _PERMISSION_SUBJECT, lenient=False),
            _meta(),
        ),
    ),
    _typed(
        j.CancelRequestNotification,
        j.Method.CANCEL_REQUEST,
        has_id=False,
        fields=(_f("request_id", "requestId", _REQUEST_ID, required=True), _meta()),
    ),
)
_BY_METHOD: Final = {(t.method, t.has_id): t for t in _MESSAGES}
_BY_CLASS: Final = {t.cls: t for t in _MESSAGES}
_ENVELOPE_KEYS: Final = frozenset(("jsonrpc", "id", "method", "params", "result", "error"))
# The envelope members each kind of message owns; a JSON-RPC member beside them that the kind
# does not own (`result` beside `method`, `error` beside `result`, `params` on a response) is
# refused by strict decoding and kept verbatim in `envelope_extra` by lenient decoding, so
# decoding never drops a member silently.
_CALL_KEYS: Final = frozenset(("jsonrpc", "id", "method", "params"))
_RESULT_KEYS: Final = frozenset(("jsonrpc", "id", "result"))
_ERROR_KEYS: Final = frozenset(("jsonrpc", "id", "error"))


def _envelope_extra(
    obj: dict[str, object], path: Path, owned: frozenset[str], ctx: _Ctx
) -> JsonObject:
    if all(k in owned for k in obj):
        return EMPTY_OBJECT
    if ctx.strict:
        for k in obj:
            if k in _ENVELOPE_KEYS and k not in owned:
                raise _invalid((path, k), f"no `{k}` member in this kind of message")
    return freeze_object({k: v for k, v in obj.items() if k not in owned}, path, 1)


def _invalid(path: Path, expected: str) -> DecodeError:
    return DecodeError(render_path(path), expected, -32600)


def _decode_one(obj: object, path: Path, ctx: _Ctx) -> j.Message:
    if type(obj) is not dict:
        raise _invalid(path, "a JSON-RPC message object")
    version = obj.get("jsonrpc")
    if type(version) is not str or version != "2.0":  # never call a foreign __eq__
        raise _invalid((path, "jsonrpc"), '"2.0"')
    has_id = "id" in obj
    msg_id: int | str | None = None
    if has_id:
        try:
            msg_id = _REQUEST_ID.decode(obj["id"], (path, "id"), ctx)
        except DecodeError as e:
            raise _invalid((path, "id"), e.expected) from None
    method = obj.get("method", _MISSING)
    if method is not _MISSING:
        extra = _envelope_extra(obj, path, _CALL_KEYS, ctx)
        if type(method) is not str:
            raise _invalid((path, "method"), "string")
        params = obj.get("params", _MISSING)
        typed = _BY_METHOD.get((method, has_id))
        if typed is None:
            frozen = UNSET if params is _MISSING else freeze_json(params, (path, "params"))
            if has_id:
                return j.Request(msg_id, method, frozen, extra)
            return j.Notification(method, frozen, extra)
        params_path: Path = (path, "params")
        if type(params) is not dict:
            raise DecodeError(render_path(params_path), typed.params.expected)
        args = typed.params.decode_args(params, params_path, ctx)
        if has_id:
            return typed.cls(msg_id, *args, extra)  # type: ignore[no-any-return]
        return typed.cls(*args, extra)  # type: ignore[no-any-return]
    if not has_id:
        raise _invalid(path, "a request, notification or response")
    if "result" in obj:
        extra = _envelope_extra(obj, path, _RESULT_KEYS, ctx)
        return j.Response(msg_id, freeze_json(obj["result"], (path, "result")), extra)
    if "error" in obj:
        extra = _envelope_extra(obj, path, _ERROR_KEYS, ctx)
        error = _RPC_ERROR.decode(obj["error"], (path, "error"), ctx)
        return j.ErrorResponse(msg_id, error, extra)
    raise _invalid(path, "`method`, `result` or `error`")


def _safe_freeze(obj: object) -> JsonValue:
    try:
        return freeze_json(obj)
    except DecodeError:
        return None


# -- public API ------------------------------------------------------------------------


def _plain(obj: object) -> object:
    # Frozen JSON (e.g. `Response.result`, `OtherUpdate.raw`) decodes like the dicts it froze.
    if type(obj) is dict or type(obj) is list:
        return obj
    return thaw_input(obj)  # bounded: deep hostile nesting is a DecodeError


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


def _fast_update(obj: object) -> u.SessionUpdate | None:
    """Decode the hottest wire shapes (streamed text and terminal bytes) without the generic
    walk. Returns exactly what the generic decoder would, or None to let it decide."""
    if type(obj) is not dict or len(obj) != 3:
        return None
    tag = obj.get("sessionUpdate")
    if type(tag) is not str:  # an unhashable tag (a list) must not reach the dict lookup
        return None
    make = _FAST_CHUNKS.get(tag)
    if make is not None:
        message_id = obj.get("messageId")
        block = _text_block(obj.get("content"))
        if type(message_id) is str and block is not None:
            return make(message_id, block, UNSET, EMPTY_OBJECT)
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


def decode_update_diagnosed(obj: object, *, strict: bool = False) -> Decoded[u.SessionUpdate]:
    """Decode a `sessionUpdate` object and report what lenient decoding tolerated.

    Paths in errors and diagnostics start at the update object (`$` is the update).

    Raises:
        DecodeError: the object is not a valid update (in strict mode also for anything
            lenient mode would have tolerated).
    """
    fast = _fast_update(obj)
    if fast is not None:
        return Decoded(fast, ())
    ctx = _Ctx(strict=strict)
    value = SESSION_UPDATE.decode(_plain(obj), None, ctx)
    return Decoded(value, ctx.finish())


def decode_update(obj: object, *, strict: bool = False) -> u.SessionUpdate:
    """Decode a `sessionUpdate` object (the `update` member of `session/update` params).

    Raises:
        DecodeError: the object is not a valid update; `path` names where.
    """
    fast = _fast_update(obj)
    if fast is not None:
        return fast
    value: u.SessionUpdate = SESSION_UPDATE.decode(_plain(obj), None, _shared(strict))
    return value


def encode_update(update: u.SessionUpdate) -> dict[str, Any]:
    """Encode an update to its wire dict (a fresh dict; lossless for decoded values)."""
    out: dict[str, Any] = SESSION_UPDATE.encode(update)  # type: ignore[assignment]
    return out


def decode_message_diagnosed(obj: object, *, strict: bool = False) -> Decoded[j.Message | j.Batch]:
    """Decode a JSON-RPC message or batch and report what lenient decoding tolerated.

    A batch (a JSON array) decodes to `Batch`; an entry that does not decode becomes an
    `InvalidEntry` instead of failing the others.

    Raises:
        DecodeError: not a message (code -32600), or bad params of a known method (-32602).
    """
    ctx = _Ctx(strict=strict)
    return Decoded(_decode_message(obj, ctx), ctx.finish())


_UPDATE_PATH: Final[Path] = ((None, "params"), "update")
_MAKE_UPDATE_NOTIFICATION: Final = fast_constructor(j.UpdateSessionNotification)


def _fast_notification(obj: dict[str, Any], ctx: _Ctx) -> j.UpdateSessionNotification | None:
    """`session/update` in its plain shape (`jsonrpc`, `method`, `params` with `sessionId`
    and `update`, nothing else): the members the generic walk would check, checked directly,
    and the same value built. Anything else (None) takes the generic walk."""
    if len(obj) != 3 or obj.get("method") != "session/update" or obj.get("jsonrpc") != "2.0":
        return None
    params = obj.get("params")
    if type(params) is not dict or len(params) != 2:
        return None
    session_id = params.get("sessionId")
    update = params.get("update")
    if type(session_id) is not str or update is None:
        return None
    value = _fast_update(update)
    if value is None:
        value = SESSION_UPDATE.decode(update, _UPDATE_PATH, ctx)
    return _MAKE_UPDATE_NOTIFICATION(session_id, value, UNSET, EMPTY_OBJECT, EMPTY_OBJECT)


def _decode_message(obj: object, ctx: _Ctx) -> j.Message | j.Batch:
    value: j.Message | j.Batch
    if type(obj) is dict:
        fast = _fast_notification(obj, ctx)
        if fast is not None:
            return fast
    if type(obj) is list:
        if not obj:
            raise _invalid(None, "a non-empty batch")
        items: list[j.Message | j.InvalidEntry] = []
        for i, entry in enumerate(obj):
            try:
                items.append(_decode_one(entry, (None, i), ctx))
            except DecodeError as e:
                items.append(j.InvalidEntry(_safe_freeze(entry), e.path, e.expected, e.code))
        value = j.Batch(tuple(items))
    else:
        value = _decode_one(obj, None, ctx)
    return value


def decode_message(obj: object, *, strict: bool = False) -> j.Message | j.Batch:
    """Decode a JSON-RPC message (or batch) of the prompt lifecycle.

    Known methods (`session/update`, `session/prompt`, `session/cancel`,
    `session/request_permission`, `$/cancel_request`) decode to typed messages; any other
    method to `Request`/`Notification` with its params verbatim; responses to
    `Response`/`ErrorResponse`.

    Raises:
        DecodeError: see `decode_message_diagnosed`.
    """
    return _decode_message(obj, _shared(strict))


def encode_message(message: j.Message | j.Batch) -> Any:
    """Encode a message to its wire dict (a batch to a list)."""
    if type(message) is j.Batch:
        return [
            thaw_json(item.raw) if type(item) is j.InvalidEntry else encode_message(item)  # type: ignore[arg-type]
            for item in message.items
        ]
    out: dict[str, Any] = {"jsonrpc": "2.0"}
    typed = _BY_CLASS.get(type(message))
    if typed is not None:
        if typed.has_id:
            out["id"] = message.id  # type: ignore[union-attr]
        out["method"] = typed.method
        out["params"] = typed.params.encode_into(message, {})
    elif type(message) is j.Request:
        out["id"] = message.id
        out["method"] = message.method
        if message.params is not UNSET:
            out["params"] = thaw_json(message.params)
    elif type(message) is j.Notification:
        out["method"] = message.method
        if message.params is not UNSET:
            out["params"] = thaw_json(message.params)
    elif type(message) is j.Response:
        out["id"] = message.id
        out["result"] = thaw_json(message.result)
    elif type(message) is j.ErrorResponse:
        out["id"] = message.id
        out["error"] = _RPC_ERROR.encode(message.error)
    else:
        msg = f"cannot encode {type(message).__name__} as a JSON-RPC message"
        raise ArgumentError(msg)
    for k, v in message.envelope_extra.items():  # type: ignore[union-attr]
        out.setdefault(k, thaw_json(v))
    return out


def decode_prompt_result(obj: object, *, strict: bool = False) -> j.PromptResult:
    """Decode the result of `session/prompt` (`{}`, or `{"messageId"}` in the 2026-11 draft).

    Raises:
        DecodeError: the result is not an object of that shape.
    """
    value: j.PromptResult = _PROMPT_RESULT.decode(_plain(obj), None, _shared(strict))
    return value


def decode_permission_result(obj: object, *, strict: bool = False) -> j.RequestPermissionResult:
    """Decode the result of `session/request_permission`.

    Raises:
        DecodeError: the result is not an object of that shape.
    """
    value: j.RequestPermissionResult = _PERMISSION_RESULT.decode(_plain(obj), None, _shared(strict))
    return value


def encode_result(result: j.PromptResult | j.RequestPermissionResult) -> dict[str, Any]:
    """Encode a typed result to the `result` member of a response."""
    record = _RESULTS.get(type(result))
    if record is None:
        msg = f"cannot encode {type(result).__name__} as a result"
        raise ArgumentError(msg)
    return record.encode_into(result, {})


# -- parts, for other layers that store values as JSON (snapshots) ---------------------

_PARTS: Final[dict[str, _Codec]] = {
    "ContentBlock": CONTENT_BLOCK,
    "ToolCallContent": TOOL_CALL_CONTENT,
    "ToolCallLocation": _LOCATION,
    "PlanUpdateContent": _PLAN_CONTENT,
    "AvailableCommand": _COMMAND,
    "SessionConfigOption": _CONFIG_OPTION,
    "Cost": _COST,
    "TerminalExitStatus": _EXIT_STATUS,
    "SessionUpdate": SESSION_UPDATE,
    "ToolCallUpdate": _TOOL_CALL_PATCH,
    "JsonObject": _OBJECT,
    "PermissionOption": _PERMISSION_OPTION,
    "RequestPermissionSubject": _PERMISSION_SUBJECT,
}


def decode_part(name: str, obj: object, path: Path = None) -> Any:
    """Decode one schema part (strict), e.g. `decode_part("ContentBlock", {...})`.

    Raises:
        DecodeError: the object does not match the part.
    """
    return _PARTS[name].decode(_plain(obj), path, _STRICT)


def encode_part(name: str, value: Any) -> Any:
    """Encode one schema part to JSON."""
    return _PARTS[name].encode(value)
