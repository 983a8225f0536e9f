"""The codec's leaf values: value codecs, decoding contexts and the codec's diagnostic rules.

Owns: the `Codec` protocol, how a JSON leaf value is checked and converted (strings, booleans,
numbers, integers of a width, request ids, raw JSON and objects, lists that drop bad items),
strict and lenient decoding contexts (and the signalling one: lenient until it would tolerate),
and the diagnostics lenient decoding produces.
Must not know: records, tagged unions or generated decoders (`_wire/_codec_core.py`), which classes
exist or their fields, JSON-RPC, what values mean.
"""

from __future__ import annotations

import math
from collections.abc import Mapping
from typing import Any, Final, Generic, NamedTuple, TypeGuard, TypeVar

from acp_core._errors import DecodeError, Diagnostic

from ._json import (
    MAX_INT_BITS,
    JsonObject,
    JsonValue,
    Path,
    freeze_json,
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
    "SIGNALLING",
    "SKIP_INVALID_ITEM",
    "STR",
    "STRICT",
    "BoundedStr",
    "Codec",
    "Ctx",
    "Decoded",
    "ListCodec",
    "NonEmpty",
    "Tolerated",
    "is_request_id",
    "shared_ctx",
]


T = TypeVar("T")

#: Diagnostic rule ids of the codec (documented in docs/semantics.md).
DEFAULT_ON_ERROR: Final = "codec.default-on-error"
SKIP_INVALID_ITEM: Final = "codec.skip-invalid-item"
DIAGNOSTICS_LIMIT: Final = "codec.diagnostics-limit"
#: Most diagnostics one lenient decode lists; the rest are counted in one summary diagnostic.
MAX_DIAGNOSTICS: Final = 100

MISSING: Final = object()


class Decoded(NamedTuple, Generic[T]):
    """A decoded value with what lenient decoding tolerated on the way."""

    value: T
    diagnostics: tuple[Diagnostic, ...]


class Ctx:
    """Per-call decoding context: strictness, and the diagnostics of a lenient decode.

    A collecting context is local to one decode call. The three shared ones hold no state:
    `STRICT` raises instead of tolerating (its list stays empty), `_DISCARD` tolerates
    without recording, for callers that do not ask for diagnostics, and `SIGNALLING` raises
    `Tolerated` where it would tolerate, for callers that want diagnostics only when there
    are some.
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


class _Discard(Ctx):
    __slots__ = ()

    def tolerate(self, rule: str, error: DecodeError, what: str) -> None:
        del self.diagnostics[:]  # nothing is kept, nothing accumulates


class Tolerated(Exception):  # noqa: N818 (a signal, not an error: nothing failed)
    """`SIGNALLING` met something lenient decoding tolerates: the caller decodes again with
    a collecting context to learn what (never raised out of the codec's public functions)."""


class _Signal(Ctx):
    __slots__ = ()

    def tolerate(self, rule: str, error: DecodeError, what: str) -> None:
        raise Tolerated


STRICT: Final = Ctx(strict=True)
_DISCARD: Final = _Discard(strict=False)
#: A lenient context that keeps nothing and stops at the first thing it would tolerate
#: (`Tolerated`): until then a decode goes exactly as a collecting one does (tolerating is
#: where they differ), so a value that tolerates nothing costs no diagnostics, and one that
#: tolerated something is decoded again to say what.
SIGNALLING: Final = _Signal(strict=False)


def shared_ctx(strict: bool) -> Ctx:
    return STRICT if strict else _DISCARD


# -- value codecs ----------------------------------------------------------------------
# Each has `expected` (for messages), `decode(obj, path, ctx)` and `encode(value)`.


class Codec:
    expected = "value"

    def decode(self, obj: object, path: Path, ctx: Ctx) -> Any:
        raise NotImplementedError

    def encode(self, value: Any) -> object:
        return value

    def fail(self, path: Path) -> DecodeError:
        return DecodeError(render_path(path), self.expected)


class _Str(Codec):
    expected = "string"

    def decode(self, obj: object, path: Path, ctx: Ctx) -> str:
        if type(obj) is str:
            return obj
        raise self.fail(path)


class _Bool(Codec):
    expected = "boolean"

    def decode(self, obj: object, path: Path, ctx: Ctx) -> bool:
        if type(obj) is bool:
            return obj
        raise self.fail(path)


class _Int(Codec):
    def __init__(self, lo: int, hi: int, name: str) -> None:
        self.lo = lo
        self.hi = hi
        self.expected = f"integer ({name})"

    def decode(self, obj: object, path: Path, ctx: Ctx) -> int:
        if type(obj) is int and self.lo <= obj <= self.hi:
            return obj
        raise self.fail(path)


class BoundedStr(Codec):
    """A string whose length the schema bounds (`minLength` / `maxLength`)."""

    def __init__(self, lo: int, hi: int) -> None:
        self.lo = lo
        self.hi = hi
        self.expected = f"string of {lo} to {hi} characters"

    def decode(self, obj: object, path: Path, ctx: Ctx) -> str:
        if type(obj) is str and self.lo <= len(obj) <= self.hi:
            return obj
        raise self.fail(path)


class _Number(Codec):
    expected = "number"

    def decode(self, obj: object, path: Path, ctx: Ctx) -> float:
        if type(obj) is float and math.isfinite(obj):
            return obj
        if type(obj) is int and obj.bit_length() <= MAX_INT_BITS:  # else no JSON printer writes it
            return obj
        raise self.fail(path)


class _Json(Codec):
    expected = "JSON value"

    def decode(self, obj: object, path: Path, ctx: Ctx) -> JsonValue:
        return freeze_json(obj, path)

    def encode(self, value: Any) -> object:
        return thaw_json(value)


class _Object(Codec):
    expected = "object"

    def decode(self, obj: object, path: Path, ctx: Ctx) -> JsonObject:
        if type(obj) is dict:
            return freeze_object(obj, path, 1)
        raise self.fail(path)

    def encode(self, value: Any) -> object:
        return thaw_json(value)


_I64_MIN: Final = -(2**63)
_I64_MAX: Final = 2**63 - 1


def is_request_id(obj: object) -> TypeGuard[int | str | None]:
    """Whether a raw JSON value is a request id the codec takes: null, a string, or an
    integer in the int64 range (the one rule: a connection answering an undecodable request
    echoes its id only when it is one, else `id: null`)."""
    return obj is None or type(obj) is str or (type(obj) is int and _I64_MIN <= obj <= _I64_MAX)


class _RequestId(Codec):
    expected = "request id (string, integer or null)"

    def decode(self, obj: object, path: Path, ctx: Ctx) -> int | str | None:
        if is_request_id(obj):
            return obj
        raise self.fail(path)


class ListCodec(Codec):
    def __init__(self, item: Codec, *, skip_invalid: bool) -> None:
        self.item = item
        self.skip_invalid = skip_invalid
        self.expected = f"array of {item.expected}"

    def decode(self, obj: object, path: Path, ctx: Ctx) -> tuple[Any, ...]:
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


class NonEmpty(Codec):
    """A list that must have at least one item (`minItems: 1`)."""

    def __init__(self, inner: ListCodec) -> None:
        self.inner = inner
        self.expected = f"non-empty {inner.expected}"

    def decode(self, obj: object, path: Path, ctx: Ctx) -> tuple[Any, ...]:
        items = self.inner.decode(obj, path, ctx)
        if not items:
            raise self.fail(path)
        return items

    def encode(self, value: Any) -> object:
        return self.inner.encode(value)


STR: Final = _Str()
BOOL: Final = _Bool()
NUMBER: Final = _Number()
JSON: Final = _Json()
OBJECT: Final = _Object()
REQUEST_ID: Final = _RequestId()
#: Integer codecs by the width names `wire(codec=...)` uses.
INTS: Final[Mapping[str, Codec]] = {
    "uint16": _Int(1, 2**16 - 1, "uint16, at least 1"),  # terminal sizes (2026-11)
    "uint32": _Int(0, 2**32 - 1, "uint32"),
    "uint64": _Int(0, 2**64 - 1, "uint64"),
    "int64": _Int(-(2**63), 2**63 - 1, "int64"),
}
