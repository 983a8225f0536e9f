"""Every public value's constructor freezes what it is given (issue 15, Build 2).

The classes come from the public namespace (`acp_core._HOME`: every attrs class defined in
`_wire/` or `_state/`), so a class added later is covered without touching this file. For each,
hypothesis builds the arguments from the field annotations with MUTABLE containers (lists for
tuples and vectors, dicts for JSON objects and persistent maps, sets for frozensets), nested
values built the same way. Then:
- the value equals one built from a deep copy of the same arguments;
- after every list, dict and set handed in is changed, the value, its hash and its encoding
  (where the codec encodes it) are what they were, and nothing mutable is reachable from it;
- a container where one value belongs (a list for a `str`) is refused with a `DecodeError`
  naming the field.
"""

from __future__ import annotations

import copy
import importlib
import sys
import types
import typing
from typing import Any

import attrs
import immutables
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from test_immutability import assert_deeply_immutable

import acp_core as acp
import acp_core.values as public_values
from acp_core._state._pcoll import PMap, PVec
from acp_core._wire._codec_tables import encoding_tables


class _JsonObject:  # stand-ins for the recursive JSON aliases in evaluated annotations
    pass


class _JsonValue:
    pass


_OVERRIDES = {
    "JsonObject": _JsonObject,
    "JsonValue": _JsonValue,
    "Meta": typing.Union[_JsonObject, None, acp.Unset],  # noqa: UP007 (evaluated at runtime)
    "PMap": PMap,
    "PVec": PVec,
    "immutables": immutables,
}


def _value_classes() -> list[type[Any]]:
    out = []
    for name, home in sorted(acp._HOME.items()):
        if not home.startswith(("acp_core._wire.", "acp_core._state.")):
            continue
        obj = getattr(importlib.import_module(home), name)
        if isinstance(obj, type) and attrs.has(obj) and obj not in out:
            out.append(obj)  # (a name may be served from a module that re-exports it)
    return out


#: Public attrs classes that keep what they are given, and why.
EXEMPT: dict[str, str] = {
    # The framing's output: one freshly parsed JSON value that the caller owns and hands to
    # a decoder (which copies it into frozen values); freezing it would copy it twice.
    "Parsed": "holds fresh parsed JSON for the decoder, by design",
    # The same for the HTTP profile: the POSTed message, parsed, for the agent connection.
    "HttpReceived": "holds the fresh parsed message for the agent connection, by design",
}

CLASSES = [cls for cls in _value_classes() if cls.__name__ not in EXEMPT]


def _annotation(cls: type[Any], field: Any) -> Any:
    if not isinstance(field.type, str):
        return field.type
    namespace = {**vars(public_values), **vars(sys.modules[cls.__module__]), **_OVERRIDES}
    return eval(field.type, namespace)  # the class's own annotation text


class Built:
    """The mutable containers handed to constructors while building one value."""

    def __init__(self) -> None:
        self.handed: list[list[Any] | dict[Any, Any] | set[Any]] = []

    def mutate_all(self) -> None:
        for container in self.handed:
            if isinstance(container, list):
                container.append(["changed"])
                if len(container) > 1:
                    container[0] = "changed"
            elif isinstance(container, dict):
                container["changed"] = ["changed"]
                for key in list(container)[:1]:
                    container[key] = {"changed": [1]}
            else:
                container.add("changed")


_JSON_SCALARS = st.none() | st.booleans() | st.integers(-5, 5) | st.text(max_size=3)


def _json(data: st.DataObject, built: Built, depth: int, obj: bool = False) -> Any:
    kind = data.draw(st.sampled_from(["object"] if obj else ["scalar", "list", "object"]))
    if kind == "scalar" or (depth > 2 and not obj):
        return data.draw(_JSON_SCALARS)
    n = data.draw(st.integers(0 if depth else 1, 2))
    if kind == "list":
        out: Any = [_json(data, built, depth + 1) for _ in range(n)]
    else:
        keys = data.draw(st.lists(st.text("abk_", min_size=1, max_size=3), max_size=n))
        out = {k: _json(data, built, depth + 1) for k in keys} if depth < 3 else {}
    built.handed.append(out)
    return out


def _draw(tp: Any, data: st.DataObject, built: Built, depth: int) -> Any:
    origin, args = typing.get_origin(tp), typing.get_args(tp)
    if tp is _JsonObject:
        return _json(data, built, depth, obj=True)
    if tp is _JsonValue or tp is Any or tp is object:
        return _json(data, built, depth)
    if origin in (typing.Union, types.UnionType):
        options = list(args)
        if depth > 2:  # keep nesting shallow: prefer absent/null where the field allows
            options = [a for a in args if a in (type(None), acp.Unset)] or options
        return _draw(data.draw(st.sampled_from(options)), data, built, depth)
    if origin is tuple or origin is PVec or origin is frozenset:
        item_types = [a for a in args if a is not Ellipsis]
        if (args and args[-1] is Ellipsis) or origin is not tuple:
            n = 0 if depth > 2 else data.draw(st.integers(0, 2))
            items = [_draw(item_types[0], data, built, depth + 1) for _ in range(n)]
        else:
            items = [_draw(a, data, built, depth + 1) for a in item_types]
        if origin is frozenset:
            out_set = set(items)
            built.handed.append(out_set)
            return out_set
        built.handed.append(items)
        return items
    if origin is immutables.Map:
        n = 0 if depth > 2 else data.draw(st.integers(0, 2))
        out = {
            _draw(args[0], data, built, depth + 1): _draw(args[1], data, built, depth + 1)
            for _ in range(n)
        }
        built.handed.append(out)
        return out
    if tp is acp.Unset:
        return acp.UNSET
    if tp is type(None):
        return None
    if tp is str:
        return data.draw(st.text(max_size=4))
    if tp is bool:
        return data.draw(st.booleans())
    if tp is int:
        return data.draw(st.integers(0, 1000))
    if tp is float:
        return data.draw(st.floats(0, 10, allow_nan=False))
    if tp is bytes:
        return data.draw(st.binary(max_size=4))
    if tp is acp.Revision:
        return acp.V2_2026_08
    if isinstance(tp, type) and attrs.has(tp):
        return tp(**_arguments(tp, data, built, depth + 1))
    raise AssertionError(f"no strategy for {tp!r}: teach this test the new field type")


def _arguments(cls: type[Any], data: st.DataObject, built: Built, depth: int) -> dict[str, Any]:
    out = {}
    for field in attrs.fields(cls):
        if not field.init:
            continue
        optional = field.default is not attrs.NOTHING
        if optional and field.name.startswith("_"):
            continue  # a private layout field (SessionState's hot message): never the caller's
        if optional and (depth > 2 or data.draw(st.booleans())):
            continue  # the default
        out[field.alias] = _draw(_annotation(cls, field), data, built, depth)
    return out


def _encoding(value: Any) -> Any:
    parts = encoding_tables(acp.DEFAULT_REVISION).parts
    try:
        if type(value).__name__ in parts:
            return parts[type(value).__name__].encode(value)
        if isinstance(value, acp.SessionState):
            return acp.snapshot(value)
        if isinstance(value, typing.get_args(acp.SessionUpdate)):
            return acp.encode_update(value)
        return acp.encode_message(value)
    except acp.AcpError:
        return None  # a combination the codec refuses (the constructor does not check it)


def test_every_public_value_class_is_enumerated() -> None:
    names = {cls.__name__ for cls in CLASSES}
    # a sample of each layer and family, so an empty enumeration cannot pass
    for name in (
        "TextContent",
        "ToolCallUpdate",
        "PromptRequest",
        "Notice",
        "SessionMessage",
        "ResumeSessionRequest",
        "SessionState",
        "ChildLink",
        "SessionTree",
    ):
        assert name in names
    assert len(CLASSES) > 100


@pytest.mark.parametrize("cls", CLASSES, ids=lambda c: c.__name__)
@settings(max_examples=min(settings().max_examples, 40))  # x 130 classes
@given(data=st.data())
def test_a_value_built_with_mutable_containers_is_frozen(cls: type[Any], data: Any) -> None:
    built = Built()
    arguments = _arguments(cls, data, built, 0)
    twin_arguments = copy.deepcopy(arguments)
    value = cls(**arguments)
    twin = cls(**twin_arguments)
    assert value == twin
    before_hash, before_encoding = hash(value), _encoding(value)
    built.mutate_all()
    assert value == twin
    assert hash(value) == before_hash
    assert _encoding(value) == before_encoding
    assert_deeply_immutable(value)


def _str_fields() -> list[tuple[type[Any], str]]:
    out = []
    for cls in CLASSES:
        for field in attrs.fields(cls):
            if field.init and field.type == "str":
                out.append((cls, field.alias))
                break
    return out


@pytest.mark.parametrize(("cls", "name"), _str_fields(), ids=lambda x: getattr(x, "__name__", x))
@pytest.mark.parametrize("wrong", [["x"], {"k": "v"}, {"x"}], ids=["list", "dict", "set"])
def test_a_container_for_a_string_field_is_refused_naming_it(
    cls: type[Any], name: str, wrong: object
) -> None:
    arguments = {
        f.alias: "x" if f.type == "str" else acp.UNSET
        for f in attrs.fields(cls)
        if f.init and f.default is attrs.NOTHING
    }
    arguments[name] = wrong
    with pytest.raises(acp.DecodeError) as e:
        cls(**arguments)
    assert e.value.path == f"{cls.__name__}.{name}"
