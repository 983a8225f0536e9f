"""Decoded values are immutable all the way down and share nothing with their input.

- Nothing reachable from a decoded value (attrs fields, tuples, `PVec`, `immutables.Map` keys
  and values) is a list, dict, set or bytearray, or anything but plain JSON scalars, `UNSET`
  and frozen containers; every attrs instance refuses assignment.
- Decoding copies: mutating the input afterwards (its `_meta`, `rawInput`, unknown keys,
  unknown variants, generic params) changes nothing in the value.
"""

from __future__ import annotations

import copy
import enum
from collections.abc import Iterator
from typing import Any

import attrs
import immutables
import pytest
from hypothesis import given
from hypothesis import strategies as st

import acp_core as acp
from acp_core import strategies as acps

_SCALARS = (type(None), bool, int, float, str, bytes, acp.Unset)
_MUTABLE = (list, dict, set, bytearray)


def reachable(value: object) -> Iterator[object]:
    """Every object reachable from `value` through fields, items, keys and values."""
    stack = [value]
    while stack:
        x = stack.pop()
        yield x
        kind = type(x)
        if kind is tuple or kind is acp.PVec or kind is frozenset:
            stack.extend(x)  # type: ignore[call-overload]
        elif kind is immutables.Map:
            for key, item in x.items():  # type: ignore[attr-defined]
                stack.append(key)
                stack.append(item)
        elif attrs.has(kind):
            stack.extend(getattr(x, f.name) for f in attrs.fields(kind))


def assert_deeply_immutable(value: object) -> None:
    """Fail unless everything reachable is a plain scalar or a frozen container/record."""
    records_checked: set[type] = set()
    for x in reachable(value):
        kind = type(x)
        assert not isinstance(x, _MUTABLE), f"mutable {kind.__name__} inside {value!r}"
        frozen_container = kind in (tuple, acp.PVec, immutables.Map, frozenset)
        assert kind in _SCALARS or frozen_container or attrs.has(kind), (
            f"unexpected {kind.__name__} ({x!r}) inside {value!r}"
        )
        if attrs.has(kind) and kind not in records_checked:
            # Frozenness is per class: one instance of each record type is enough to try.
            records_checked.add(kind)
            for f in attrs.fields(kind):
                with pytest.raises(attrs.exceptions.FrozenInstanceError):
                    setattr(x, f.name, None)


# -- every decoded value ---------------------------------------------------------------


@given(acps.session_updates(tolerated=True))
def test_a_decoded_update_is_deeply_immutable(update: acp.SessionUpdate) -> None:
    assert_deeply_immutable(acp.decode_update(acp.encode_update(update)))


@given(acps.messages(tolerated=True))
def test_a_decoded_message_is_deeply_immutable(message: acp.Message) -> None:
    assert_deeply_immutable(acp.decode_message(acp.encode_message(message)))


@given(acps.request_permission_results() | acps.prompt_results())
def test_a_decoded_result_is_deeply_immutable(
    result: acp.RequestPermissionResult | acp.PromptResult,
) -> None:
    wire = acp.encode_result(result)
    decode = (
        acp.decode_permission_result
        if isinstance(result, acp.RequestPermissionResult)
        else acp.decode_prompt_result
    )
    assert_deeply_immutable(decode(wire))


class _Str(str):
    """A str subclass: an instance can carry mutable attributes of its own."""


class _Level(enum.IntEnum):
    HIGH = 3


class _Float(float):
    pass


# JSON-shaped Python input as callers build it by hand: tuples for arrays, str/int/float
# subclasses for scalars (an IntEnum member, a str subclass), immutables.Map for objects.
_loose_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.floats(allow_nan=False, allow_infinity=False),
    st.text(max_size=4),
    st.text(max_size=4).map(_Str),
    st.just(_Level.HIGH),
    st.floats(-10, 10).map(_Float),
)
_loose_json = st.recursive(
    _loose_leaves,
    lambda children: st.one_of(
        st.lists(children, max_size=3),
        st.lists(children, max_size=3).map(tuple),
        st.dictionaries(st.text(max_size=3) | st.text(max_size=3).map(_Str), children, max_size=3),
        st.dictionaries(st.text(max_size=3), children, max_size=2).map(immutables.Map),
    ),
    max_leaves=10,
)


@given(_loose_json, st.dictionaries(st.text(max_size=3), _loose_json, max_size=3))
def test_free_json_is_copied_into_plain_frozen_json(raw: Any, meta: dict[str, Any]) -> None:
    wire = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t",
        "rawInput": raw,
        "_meta": meta,
        "zzExtra": raw,
    }
    update = acp.decode_update(wire, strict=True)
    assert_deeply_immutable(update)
    # and it encodes to plain JSON types only (dict, list, exact scalars)
    for x in _walk_plain(acp.encode_update(update)):
        assert type(x) in (dict, list, str, int, float, bool, type(None)), type(x)


def _walk_plain(obj: object) -> Iterator[object]:
    stack = [obj]
    while stack:
        x = stack.pop()
        yield x
        if isinstance(x, dict):
            stack.extend(x.keys())
            stack.extend(x.values())
        elif isinstance(x, list):
            stack.extend(x)


def test_scalar_subclasses_become_plain_scalars() -> None:
    label = _Str("fast")
    label.note = "mutable"  # type: ignore[attr-defined]
    update = acp.decode_update(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t",
            "rawInput": {_Str("mode"): label, "level": _Level.HIGH, "ratio": _Float(0.5)},
        }
    )
    assert isinstance(update, acp.ToolCallUpdate)
    assert update.raw_input == immutables.Map({"mode": "fast", "level": 3, "ratio": 0.5})
    assert isinstance(update.raw_input, immutables.Map)
    kinds = {type(k) for k in update.raw_input} | {type(v) for v in update.raw_input.values()}
    assert kinds == {str, int, float}


# -- decoding never aliases its input --------------------------------------------------


def _mutate_everything(obj: Any) -> None:
    """Change every dict and list inside `obj`, in place."""
    stack = [obj]
    while stack:
        node = stack.pop()
        if isinstance(node, dict):
            stack.extend(node.values())
            node["zzInjected"] = ["x"]
        elif isinstance(node, list):
            stack.extend(node)
            node.append({"injected": True})


_ALIASING_CASES: list[tuple[str, Any]] = [
    (
        "update",
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "rawInput": {"argv": ["ls", "-l"], "env": {"A": "1"}},
            "rawOutput": [{"line": 1}],
            "content": [{"type": "content", "content": {"type": "text", "text": "hi"}}],
            "_meta": {"trace": {"spans": [1, 2]}},
            "zzExtension": {"k": [True]},
        },
    ),
    ("update", {"sessionUpdate": "_custom", "payload": {"rows": [[1, 2], [3]]}}),
    (
        "update",
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "m",
            "content": {"type": "_widget", "spec": {"w": [1]}},
        },
    ),
    (
        "message",
        {"jsonrpc": "2.0", "id": 3, "method": "_x/tool", "params": {"a": [{"b": []}]}},
    ),
    ("message", {"jsonrpc": "2.0", "id": 3, "result": {"items": [{"k": {}}]}}),
    (
        "message",
        {
            "jsonrpc": "2.0",
            "id": 4,
            "error": {"code": -32603, "message": "m", "data": {"stack": ["f"]}},
            "trace": {"id": [1]},
        },
    ),
    (
        "message",
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {
                "sessionId": "s",
                "update": {"sessionUpdate": "session_info_update", "_meta": {"tags": ["a"]}},
                "_meta": {"hop": [1]},
                "zz": {"y": []},
            },
        },
    ),
    ("message", [{"jsonrpc": "2.0", "method": "_x/n", "params": [[1]]}, {"bad": [1]}]),
    ("permission", {"outcome": {"outcome": "_later", "why": {"a": [1]}}, "_meta": {"m": []}}),
    ("prompt", {"messageId": "m1", "_meta": {"m": [1]}, "zz": {"k": []}}),
]
_DECODERS = {
    "update": acp.decode_update,
    "message": acp.decode_message,
    "permission": acp.decode_permission_result,
    "prompt": acp.decode_prompt_result,
}


@pytest.mark.parametrize(("kind", "wire"), _ALIASING_CASES)
def test_mutating_the_input_after_decoding_changes_nothing(kind: str, wire: Any) -> None:
    decode = _DECODERS[kind]
    pristine = copy.deepcopy(wire)
    value = decode(wire)
    _mutate_everything(wire)
    assert wire != pristine
    assert value == decode(pristine)
    assert_deeply_immutable(value)


def test_mutating_an_encoded_dict_changes_nothing_in_the_value() -> None:
    update = acp.decode_update(
        {"sessionUpdate": "tool_call_update", "toolCallId": "t", "rawInput": {"a": [1]}}
    )
    wire = acp.encode_update(update)
    _mutate_everything(wire)
    assert acp.encode_update(update) == {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t",
        "rawInput": {"a": [1]},
    }


# -- the containers themselves refuse change -------------------------------------------


def test_values_refuse_assignment_and_deletion() -> None:
    update = acp.decode_update({"sessionUpdate": "session_info_update", "title": "T"})
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        update.title = "other"  # type: ignore[misc]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        del update.title  # type: ignore[misc]


def test_frozen_json_refuses_item_assignment() -> None:
    meta = acp.freeze_json({"a": [1]})
    assert isinstance(meta, immutables.Map)
    with pytest.raises(TypeError):
        meta["b"] = 2  # type: ignore[index]
    with pytest.raises(TypeError):
        meta["a"][0] = 2


def test_pvec_refuses_assignment() -> None:
    vec = acp.PVec([1, 2, 3])
    with pytest.raises(AttributeError):
        vec._len = 0  # type: ignore[misc]
    with pytest.raises(AttributeError):
        vec.anything = 1  # type: ignore[attr-defined]
    with pytest.raises(AttributeError):
        del vec._len
    with pytest.raises(TypeError):
        vec[0] = 5  # type: ignore[index]
    assert list(vec) == [1, 2, 3]
    assert vec.append(4) == acp.PVec([1, 2, 3, 4])
    assert list(vec) == [1, 2, 3]
