"""The codec's machinery: value codecs, records and tagged unions, and decoding contexts.

Owns: how a JSON value is checked and converted (strings, integers of a width, lists that drop
bad items, records, tagged unions with an `Other*` fallback), the generated unrolled decoder of
each record, strict and lenient decoding, and the diagnostics lenient decoding produces.
Must not know: which classes exist or their fields (`_wire/_codec_derive.py` builds the specs from
the classes), JSON-RPC, what values mean.

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

import itertools
from collections.abc import Callable, Mapping
from typing import Any, Final, NamedTuple

from acp_core._errors import ArgumentError, DecodeError

from ._codec_values import (
    BOOL,
    DEFAULT_ON_ERROR,
    DIAGNOSTICS_LIMIT,
    INTS,
    JSON,
    MAX_DIAGNOSTICS,
    MISSING,
    NUMBER,
    OBJECT,
    REQUEST_ID,
    SKIP_INVALID_ITEM,
    STR,
    STRICT,
    BoundedStr,
    Codec,
    Ctx,
    Decoded,
    ListCodec,
    NonEmpty,
    shared_ctx,
)
from ._fastnew import compile_generated, fast_constructor
from ._json import (
    EMPTY_OBJECT,
    UNSET,
    JsonObject,
    Path,
    freeze_object,
    render_path,
    thaw_json,
)

__all__ = [
    "BOOL",
    "DEFAULT_ON_ERROR",
    "DIAGNOSTICS_LIMIT",
    "INTS",
    "JSON",
    "MAX_DIAGNOSTICS",
    "MISSING",
    "NUMBER",
    "OBJECT",
    "REQUEST_ID",
    "SKIP_INVALID_ITEM",
    "STR",
    "STRICT",
    "BoundedStr",
    "Codec",
    "Ctx",
    "Decoded",
    "Field",
    "ListCodec",
    "NonEmpty",
    "Record",
    "Union",
    "shared_ctx",
]


def _as_tuple(*args: Any) -> tuple[Any, ...]:
    return args


class Field(NamedTuple):
    """One field of a record, in class order."""

    attr: str
    key: str
    codec: Codec
    required: bool
    nullable: bool
    lenient: bool
    on_error: object  # what a tolerated malformed value becomes
    on_wire: bool  # False: not in this revision's wire; the key stays in `extra`
    removed: bool = False  # a later revision removed it (`key_since`): encoding refuses it


_LABELS = itertools.count()


class Record(Codec):
    """Spec of one value class: fields in class order, then `extra`.

    `tags` are the variant's tag keys. A tagged record is decoded only through its `Union`,
    which has checked that the tag keys are present; the generated decoder counts them as
    found without looking (one lookup less per tag on the hot path).
    """

    def __init__(
        self,
        cls: type[Any] | None,
        name: str,
        fields: tuple[Field, ...],
        tags: tuple[tuple[str, str], ...] = (),
        check: Callable[[Any, Path], None] | None = None,
    ) -> None:
        self.cls = cls
        self.fields = fields
        self.tags = tags
        self.check = check
        self.expected = f"object ({name})"
        self.name = name
        self.known = frozenset([f.key for f in fields if f.on_wire] + [k for k, _ in tags])
        # Plain tuples unpack faster than NamedTuple attribute access in the decode loop.
        self.plan = tuple(
            (f.key, f.codec, f.codec is STR, f.required, f.nullable, f.lenient, f.on_error)
            for f in fields
        )
        # What encoding writes, as plain tuples; a removed field is never written.
        self.writes = tuple((f.attr, f.key, f.codec) for f in fields if not f.removed)
        self.removed = tuple(f.attr for f in fields if f.removed)
        if cls is not None:
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
        for i, (f, (key, _codec, is_str, required, *_)) in enumerate(
            zip(self.fields, self.plan, strict=True)
        ):
            a = f"a{i}"
            names.append(a)
            if not f.on_wire:
                lines.append(f"    {a} = UNSET  # {key}: not on this revision's wire")
                continue
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
            "MISSING": MISSING,
            "UNSET": UNSET,
            "EMPTY": EMPTY_OBJECT,
            "missing": self._missing,
            "field": self._field,
            "extras": self._extras,
        }
        label = f"decoder {self.name} #{next(_LABELS)}"
        return compile_generated(lines, "build", namespace, label)

    def _missing(self, path: Path, i: int) -> None:
        key, codec = self.plan[i][:2]
        raise DecodeError(render_path((path, key)), f"{codec.expected} (required)")

    def _field(self, i: int, v: object, path: Path, ctx: Ctx) -> Any:
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

    def decode_args(self, obj: dict[str, object], path: Path, ctx: Ctx) -> tuple[Any, ...]:
        """The field values (then `extra`) of `obj`, in class order."""
        args: tuple[Any, ...] = self.build(obj, path, ctx, _as_tuple)
        return args

    def decode(self, obj: object, path: Path, ctx: Ctx) -> Any:
        if type(obj) is not dict:
            raise self.fail(path)
        value = self.build(obj, path, ctx, self.make)
        if self.check is not None:
            self.check(value, path)
        return value

    def encode_into(self, value: Any, out: dict[str, object]) -> dict[str, object]:
        for k, tag in self.tags:
            out[k] = tag
        for attr, key, codec in self.writes:
            x = getattr(value, attr)
            if x is UNSET:
                continue
            out[key] = None if x is None else codec.encode(x)
        if self.removed:
            self._refuse_removed(value)
        extra: JsonObject = value.extra
        if extra:
            for k, x in sorted(extra.items()):  # a map's order is per process (thaw_json)
                if k not in out:
                    out[k] = thaw_json(x)
        return out

    def _refuse_removed(self, value: Any) -> None:
        for attr in self.removed:
            if getattr(value, attr) is not UNSET:
                msg = f"{self.name}.{attr} is not on this revision's wire (a revision removed it)"
                raise ArgumentError(msg)

    def encode(self, value: Any) -> object:
        return self.encode_into(value, {})


class Union(Codec):
    """A tagged union: `tag_key` selects a variant; unknown tags become `other(raw)`."""

    def __init__(
        self,
        tag_key: str,
        name: str,
        variants: Mapping[str, Codec],
        other: type[Any] | None,
        other_requires: tuple[str, ...] = (),
    ) -> None:
        self.tag_key = tag_key
        self.variants = dict(variants)
        self.other = other
        self.other_requires = other_requires
        self.expected = f"object ({name})"
        self.by_type: dict[type[Any], Codec] = {}
        for codec in variants.values():
            if isinstance(codec, Union):
                self.by_type.update(codec.by_type)
            elif isinstance(codec, Record):
                assert codec.cls is not None
                self.by_type[codec.cls] = codec
        if other is not None:
            self.by_type[other] = _RAW

    def decode(self, obj: object, path: Path, ctx: Ctx) -> Any:
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


class _Raw(Codec):
    """Encoder of `Other*` values: their raw object verbatim."""

    def encode(self, value: Any) -> object:
        return thaw_json(value.raw)


_RAW: Final = _Raw()
