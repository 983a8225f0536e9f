"""`freezing_fields`, the shared helper that freezes what a caller gives a value class (issue 15):
dicts to frozen maps and lists to tuples, deeply; mutating the caller's input changes nothing.

The value classes of `_content`/`_updates`/`_jsonrpc` are being reworked (codec helper); they
take the helper with `@attrs.frozen(field_transformer=freezing_fields)`. Here it is proven on
classes shaped like them.
"""

from __future__ import annotations

import copy

import attrs
import pytest

import acp_core as acp
from acp_core._wire._freezing import freezing_fields
from acp_core._wire._json import (
    EMPTY_OBJECT,
    UNSET,
    JsonObject,
    JsonValue,
    Meta,
    Patch,
)


@attrs.frozen(field_transformer=freezing_fields)
class Sample:
    name: str
    items: tuple[str, ...] = ()
    nested: tuple[tuple[int, ...], ...] = ()
    meta: Meta = UNSET
    raw: JsonValue = None
    extra: JsonObject = EMPTY_OBJECT
    optional: Patch[tuple[str, ...]] = UNSET


def test_lists_and_dicts_are_frozen_deeply_and_copied() -> None:
    items, nested = ["a", "b"], [[1, 2], [3]]
    meta, raw = {"k": [1, {"x": 2}]}, [{"a": [1]}]
    value = Sample("n", items, nested, meta, raw, {"e": 1}, ["o"])  # type: ignore[arg-type]
    assert value.items == ("a", "b")
    assert value.nested == ((1, 2), (3,))
    assert value.meta == acp.freeze_json({"k": [1, {"x": 2}]})
    assert value.raw == acp.freeze_json([{"a": [1]}])
    assert value.optional == ("o",)
    before = copy.deepcopy(value)
    items.append("c")
    nested[0].append(9)
    meta["k"].append(3)  # type: ignore[attr-defined]
    raw[0]["a"] = []
    assert value == before
    hash(value)


def test_unset_none_and_frozen_input_pass_through() -> None:
    frozen = acp.freeze_json({"k": 1})
    items = ("a",)
    value = Sample("n", items, meta=frozen)  # type: ignore[arg-type]
    assert value.items is items
    assert value.meta == frozen  # copied: a frozen map may still hold a caller's list
    assert Sample("n").meta is UNSET
    assert Sample("n", raw=None).raw is None


def test_what_json_cannot_hold_is_refused_with_the_field() -> None:
    with pytest.raises(acp.DecodeError) as e:
        Sample("n", meta={"k": {1, 2}})  # type: ignore[arg-type]
    assert e.value.path == "Sample.meta.k"
