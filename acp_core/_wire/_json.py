"""Arbitrary JSON as deeply frozen values, and the tri-state `UNSET` sentinel.

Owns: `JsonValue` (None, bool, int, float, str, tuples and persistent maps, nothing mutable),
`freeze_json`/`thaw_json`, JSON paths for error messages, and `UNSET`/`Patch[T]`.
Must not know: any ACP type.

`freeze_json` copies, so a decoded value never aliases the caller's dicts, and it refuses what
JSON cannot hold (NaN, non-string keys, other Python objects) and nesting deeper than
`MAX_DEPTH`, so hostile input ends in a `DecodeError` rather than a `RecursionError`.
"""

from __future__ import annotations

import enum
import math
from collections.abc import Mapping
from typing import Any, Final, TypeAlias, TypeVar, Union

import immutables

from acp_core._errors import DecodeError

__all__ = [
    "EMPTY_OBJECT",
    "MAX_DEPTH",
    "MAX_INT_BITS",
    "UNSET",
    "JsonObject",
    "JsonValue",
    "Meta",
    "Patch",
    "Path",
    "Unset",
    "freeze_json",
    "render_path",
    "thaw_input",
    "thaw_json",
]

T = TypeVar("T")

JsonValue: TypeAlias = Union[
    None, bool, int, float, str, tuple["JsonValue", ...], "immutables.Map[str, JsonValue]"
]
JsonObject: TypeAlias = "immutables.Map[str, JsonValue]"

#: Deepest nesting accepted in decoded JSON (real ACP payloads nest a handful of levels).
MAX_DEPTH: Final = 200


class Unset(enum.Enum):
    """Type of `UNSET`: the key was absent on the wire (as opposed to `null` = None)."""

    UNSET = "UNSET"

    def __repr__(self) -> str:
        return "UNSET"


#: The key was absent. In a patch: leave the stored value unchanged.
UNSET: Final = Unset.UNSET

#: A patch field: `UNSET` (absent: unchanged), `None` (null: clear) or a value (replace).
Patch: TypeAlias = Union[T, None, Unset]  # noqa: UP007 (generic alias over a TypeVar)

# A JSON path, built lazily as a linked chain (parent, key) so the happy path never formats
# strings; `None` is the root `$`.
Path: TypeAlias = Union[tuple["Path", "str | int"], None]  # noqa: UP007 (recursive alias)

#: The empty frozen JSON object (shared; default of every `extra` field).
EMPTY_OBJECT: Final[immutables.Map[str, JsonValue]] = immutables.Map()
_EMPTY = EMPTY_OBJECT

#: A `_meta` field: absent, null, or a frozen JSON object.
Meta: TypeAlias = "JsonObject | None | Unset"


def render_path(path: Path) -> str:
    """Format a lazy path as `$.a.b[2].c`."""
    parts: list[str | int] = []
    while path is not None:
        path, key = path
        parts.append(key)
    out = ["$"]
    for key in reversed(parts):
        out.append(f"[{key}]" if isinstance(key, int) else f".{key}")
    return "".join(out)


#: Widest integer accepted in JSON values: Python refuses to print integers of more than 4,300
#: digits (`sys.get_int_max_str_digits`), so a wider one could be held but never be written.
MAX_INT_BITS: Final = 14_000  # about 4,200 decimal digits


def freeze_json(value: object, path: Path = None, depth: int = 0) -> JsonValue:
    """Copy a JSON-shaped Python value into a deeply immutable one.

    Raises:
        DecodeError: the value is not JSON (or nests deeper than `MAX_DEPTH`, or is an integer
            wider than `MAX_INT_BITS`).
    """
    if value is None or type(value) is str or type(value) is bool:
        return value
    if type(value) is int:
        if value.bit_length() <= MAX_INT_BITS:
            return value
        raise DecodeError(render_path(path), "an integer of at most 4,200 digits")
    if type(value) is float:
        if math.isfinite(value):
            return value
        raise DecodeError(render_path(path), "a finite JSON number")
    if depth >= MAX_DEPTH:
        raise DecodeError(render_path(path), f"JSON nested at most {MAX_DEPTH} deep")
    if isinstance(value, (dict, immutables.Map)):
        return freeze_object(value, path, depth)
    if isinstance(value, (list, tuple)):
        return tuple([freeze_json(item, (path, i), depth + 1) for i, item in enumerate(value)])
    # A subclass of a JSON scalar (an IntEnum member, a str subclass) is copied to the plain
    # type: the instance itself could carry mutable attributes of the caller's.
    if isinstance(value, str):
        return str.__str__(value)
    if isinstance(value, int):
        return freeze_json(int.__int__(value), path, depth)
    if isinstance(value, float):
        return freeze_json(float.__float__(value), path, depth)
    raise DecodeError(render_path(path), "a JSON value")


def freeze_object(
    value: Mapping[Any, object], path: Path, depth: int
) -> immutables.Map[str, JsonValue]:
    """Freeze a JSON object (keys must be strings)."""
    if not value:
        return _EMPTY
    # A dict subclass may override `items` (or raise from it): read the storage it inherits.
    items: Any = dict.items(value) if isinstance(value, dict) else immutables.Map.items(value)  # type: ignore[arg-type]
    out = _EMPTY.mutate()
    for key, item in items:
        name = key
        if type(name) is not str:
            if not isinstance(name, str):
                raise DecodeError(render_path(path), "an object with string keys")
            name = str.__str__(name)  # a str subclass: keep a plain copy (see freeze_json)
        out[name] = freeze_json(item, (path, name), depth + 1)
    return out.finish()


def thaw_json(value: JsonValue) -> object:
    """Turn a frozen JSON value back into plain dicts and lists (a fresh copy), each object's
    keys in sorted order: a persistent map keeps no insertion order and iterates by string
    hash, which differs per process, so sorting is what makes the same value thaw (and
    encode) to the same bytes everywhere (tests/test_hashseed.py)."""
    if isinstance(value, immutables.Map):
        return {key: thaw_json(item) for key, item in sorted(value.items())}
    if isinstance(value, tuple):
        return [thaw_json(item) for item in value]
    return value


def thaw_input(value: object, path: Path = None, depth: int = 0) -> object:
    """Like `thaw_json`, for input that is not known to be frozen JSON: tuples and maps turn
    into lists and dicts up to `MAX_DEPTH` deep; anything else is returned as it is, for the
    decoder to judge.

    Raises:
        DecodeError: nesting deeper than `MAX_DEPTH` (a `RecursionError` otherwise).
    """
    if not isinstance(value, (immutables.Map, tuple)):
        return value
    if depth >= MAX_DEPTH:
        raise DecodeError(render_path(path), f"JSON nested at most {MAX_DEPTH} deep")
    if isinstance(value, tuple):
        return [thaw_input(item, (path, i), depth + 1) for i, item in enumerate(value)]
    return {
        key: thaw_input(item, (path, key if type(key) is str else "?"), depth + 1)
        for key, item in immutables.Map.items(value)
    }
