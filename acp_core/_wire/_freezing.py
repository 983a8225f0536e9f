"""Construction-time freezing: what a caller hands a value's constructor is copied into frozen
containers, deeply, or refused.

Owns: `freeze_given` (one value), `freezing_fields` (the attrs `field_transformer` every public
value class takes: `@attrs.frozen(field_transformer=freezing_fields)`), `freeze_fields_with`
(the same for a layer that adds container kinds of its own, such as the state's persistent
maps), and `is_frozen_value`.
Must not know: any ACP type; persistent state containers (`_state` adds them).

Why: a caller may hand a constructor a list or a dict where a tuple or a frozen map belongs;
storing it by reference would let the caller change a value (and what was "sent") later, and
make it unhashable. The decoders build their values with `fast_constructor`, which skips
`__init__` and so every converter here: their input is frozen already and they pay nothing.
"""

from __future__ import annotations

import enum
from collections.abc import Callable
from typing import Any, Final

import attrs
import immutables

from acp_core._errors import DecodeError

from ._json import UNSET, freeze_json

__all__ = ["freeze_fields_with", "freeze_given", "freezing_fields", "is_frozen_value"]

Converter = Callable[[Any], Any]

_SCALARS: Final = frozenset({str, int, float, bool, bytes, type(None), type(UNSET)})

# Containers that never belong in a field typed as one value (a str, a record, a union of
# records): refused there rather than frozen into a shape the field's type does not allow.
_CONTAINERS: Final = (list, tuple, dict, immutables.Map, set, frozenset)

# Classes found frozen (attrs frozen, or enums) by `is_frozen_value`: a memo of a property of
# the class, so a tuple of a thousand content blocks costs one set lookup per item.
_FROZEN_KINDS: set[type[Any]] = set()


def is_frozen_value(kind: type[Any]) -> bool:
    """Whether instances of `kind` are frozen values (attrs frozen classes, whose own
    constructors froze their fields, and enum members)."""
    if kind in _FROZEN_KINDS:
        return True
    frozen = issubclass(kind, enum.Enum) or (
        attrs.has(kind) and kind.__setattr__ is not object.__setattr__
    )
    if frozen:
        _FROZEN_KINDS.add(kind)
    return frozen


def freeze_given(value: object, where: str) -> object:
    """A deeply immutable copy of what a caller gave a constructor: lists and tuples become
    tuples, dicts become frozen JSON objects, `bytearray`/`memoryview` become bytes; frozen
    attrs values, enum members, scalars and `UNSET` are kept as they are.

    Raises:
        DecodeError: something that cannot be frozen (a set, a mutable object); `path` is
            `where` (for example `SendPrompt.content[0]`).
    """
    kind = type(value)
    if kind in _SCALARS or kind in _FROZEN_KINDS:
        return value
    if isinstance(value, (tuple, list)):
        out = tuple([freeze_given(item, f"{where}[{i}]") for i, item in enumerate(value)])
        if kind is tuple and all(a is b for a, b in zip(out, value, strict=True)):
            return value
        return out
    if isinstance(value, (dict, immutables.Map)):
        try:
            return freeze_json(value)
        except DecodeError as e:
            raise DecodeError(where + e.path[1:], e.expected) from None
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)
    if isinstance(value, bool):
        return bool(value)
    if isinstance(value, str):
        return str.__str__(value)  # a plain copy: a subclass could carry mutable attributes
    if isinstance(value, int):
        return int.__int__(value)
    if isinstance(value, float):
        return float.__float__(value)
    if is_frozen_value(kind):
        return value
    raise DecodeError(where, f"an immutable value, not {kind.__name__}")


def _json_converter(where: str) -> Converter:
    def convert(value: object) -> object:
        if value is UNSET or value is None:
            return value
        try:
            return freeze_json(value)
        except DecodeError as e:
            raise DecodeError(where + e.path[1:], e.expected) from None

    return convert


def _tuple_converter(where: str) -> Converter:
    def convert(value: object) -> object:
        if type(value) is tuple:
            for item in value:  # the common case: a tuple of frozen values, kept as it is
                kind = type(item)
                if kind not in _FROZEN_KINDS and kind not in _SCALARS:
                    return freeze_given(value, where)
            return value
        if value is UNSET or value is None:
            return value
        if isinstance(value, (tuple, list)):
            return freeze_given(value, where)
        if isinstance(value, (dict, immutables.Map, set, frozenset)):
            raise DecodeError(where, f"a tuple, not {type(value).__name__}")
        return freeze_given(value, where)  # a union member that is one value

    return convert


def _one_value_converter(where: str, typed: str) -> Converter:
    def convert(value: object) -> object:
        kind = type(value)
        if kind in _SCALARS or kind in _FROZEN_KINDS:
            return value
        if isinstance(value, _CONTAINERS):
            raise DecodeError(where, f"{typed}, not {kind.__name__}")
        return freeze_given(value, where)

    return convert


def _frozenset_converter(where: str) -> Converter:
    other = _one_value_converter(where, "a frozenset")

    def convert(value: object) -> object:
        if isinstance(value, (set, frozenset)):
            items = [freeze_given(item, f"{where}[]") for item in value]
            return value if type(value) is frozenset else frozenset(items)
        return other(value)

    return convert


def _any_converter(where: str) -> Converter:
    def convert(value: object) -> object:
        return freeze_given(value, where)

    return convert


_JSON_WORDS: Final = ("JsonObject", "JsonValue", "Meta")


def _converter_for(where: str, typed: str) -> Converter | None:
    if typed in ("Any", "object"):
        return _any_converter(where)
    if any(word in typed for word in _JSON_WORDS) and not typed.startswith("tuple["):
        return _json_converter(where)
    if "tuple[" in typed:
        return _tuple_converter(where)
    if typed.startswith("frozenset["):
        return _frozenset_converter(where)
    return _one_value_converter(where, typed)


_OURS: Final = "__acp_freezing__"

#: Sets an attribute of a (frozen) `attrs.Attribute`.
_SET_FIELD: Final = object.__setattr__


def freeze_fields_with(
    special: Callable[[str, str], Converter | None],
) -> Callable[[type[Any], list[Any]], list[Any]]:
    """A `freezing_fields` that first asks `special(where, annotation)` for a converter (a
    later layer's container kinds), then falls back to the rules of `freezing_fields`."""

    def transform(cls: type[Any], fields: list[Any]) -> list[Any]:
        out = []
        for field in fields:
            # A converter of our own on an inherited field is made again: its refusals name
            # the class being built, not the base that declared the field.
            if field.converter is not None and not getattr(field.converter, _OURS, False):
                out.append(field)  # the class chose its own
                continue
            typed = str(field.type)  # a string under `from __future__ import annotations`
            where = f"{cls.__name__}.{field.alias}"
            convert = special(where, typed) or _converter_for(where, typed)
            # `__init__` takes the converter's parameter type: keep the field's own there
            # (signatures, docs/api.md and type checkers show what the field holds).
            convert.__annotations__ = {"value": field.type, "return": field.type}
            setattr(convert, _OURS, True)
            # Set in place, as attrs itself sets a field's default alias: attrs hands a
            # transformer `Attribute`s made for this class alone, and `evolve` (a copy through
            # `__getstate__`/`__setstate__`) was a tenth of building the value classes.
            _SET_FIELD(field, "converter", convert)
            out.append(field)
        return out

    return transform


def _no_special(where: str, typed: str) -> Converter | None:
    return None


#: The attrs `field_transformer` of every public value class:
#: `@attrs.frozen(field_transformer=freezing_fields)`. Per field, by its annotation:
#: - `JsonObject`, `JsonValue`, `Meta` (and patches of them): `freeze_json` (dicts to frozen
#:   maps, lists to tuples, deeply; what JSON cannot hold is refused);
#: - `tuple[...]`: lists to tuples, each item frozen (`freeze_given`); a tuple of frozen values
#:   is kept as it is;
#: - `frozenset[...]`: sets to frozensets;
#: - anything else (a scalar, a record, a union of records): a frozen value is kept, a
#:   container (list, tuple, dict, set) is refused, a scalar subclass is copied to the plain
#:   type, a mutable object is refused.
#: `UNSET` and None always pass. A refusal is a `DecodeError` whose path names the field.
freezing_fields: Final = freeze_fields_with(_no_special)
