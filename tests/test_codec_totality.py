"""The decoders are total: any input whatsoever yields a value or an `AcpError`.

Wrong types, huge integers, NaN and infinities, lone surrogates, non-string keys, tuples, sets,
bytes and arbitrary objects go into `decode_update`, `decode_message`, `decode_prompt_result`
and `decode_permission_result` (lenient and strict): nothing but an `AcpError` may escape, and
never a `RecursionError`, even 10,000 levels deep. Valid updates mutated at a random depth
(a value replaced, a key deleted, a tag changed) must behave the same. Whatever decodes must
re-encode to something the strict decoder reads back as the same value.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import immutables
import pytest
from hypothesis import given
from hypothesis import strategies as st

import acp_core as acp
from acp_core import strategies as acps

Decoder = Callable[..., Any]


class _Opaque:
    """An object no JSON decoder ever produces."""


class _Str(str):
    """A str subclass: a str to isinstance, not to the codec."""


# Wire keys and tag values the codec looks at, so arbitrary input reaches deep into it.
# (Word lists read best as one string each.)
_KEYS = (  # noqa: SIM905
    "sessionUpdate type state outcome operation planId messageId toolCallId terminalId "
    "content text data mimeType uri resource blob changes path oldPath patch entries "
    "availableCommands configOptions options groupId currentValue used size cost amount "
    "currency exitStatus output locations line rawInput rawOutput _meta title kind status "
    "jsonrpc id method params result error code message sessionId update prompt subject "
    "toolCall command cwd requestId optionId"
).split()
_TAGS = (  # noqa: SIM905
    "user_message_chunk user_message agent_message_chunk agent_message agent_thought_chunk "
    "agent_thought state_update tool_call_content_chunk tool_call_update terminal_update "
    "terminal_output_chunk plan_update available_commands_update config_option_update "
    "session_info_update usage_update running idle requires_action text image audio "
    "resource_link resource content diff terminal items select boolean add delete modify "
    "move copy selected cancelled tool_call command 2.0 session/update session/prompt "
    "session/cancel session/request_permission $/cancel_request"
).split()
_TAG_KEYS = ("sessionUpdate", "type", "state", "outcome", "operation", "method")

_leaves = st.one_of(
    st.none(),
    st.booleans(),
    st.integers(),
    st.sampled_from([2**64, -(2**63) - 1, 10**400, -(10**400)]),
    st.floats(),  # NaN and infinities included
    st.text(max_size=6),
    st.text(st.characters(categories=["Cs"]), min_size=1, max_size=2),  # lone surrogates
    st.sampled_from(["\ud800", "a\udfffb", *_TAGS]),
    st.binary(max_size=4),
    st.binary(max_size=4).map(bytearray),
    st.builds(_Opaque),
    st.builds(object),
    st.text(max_size=3).map(_Str),
    st.complex_numbers(max_magnitude=10),
)
_keys = st.one_of(
    st.sampled_from(_KEYS),
    st.text(max_size=4),
    st.integers(-2, 2),
    st.none(),
    st.booleans(),
    st.tuples(st.integers(0, 2)),
    st.frozensets(st.integers(0, 2), max_size=2),
    st.text(max_size=3).map(_Str),
)


def _tagged(children: st.SearchStrategy[Any]) -> st.SearchStrategy[dict[Any, Any]]:
    """A dict with a known tag under a tag key, the rest arbitrary: reaches the variant codecs."""
    return st.builds(
        lambda d, key, tag: {**d, key: tag},
        st.dictionaries(st.sampled_from(_KEYS), children, max_size=5),
        st.sampled_from(_TAG_KEYS),
        st.sampled_from(_TAGS),
    )


def _extend(children: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    return st.one_of(
        st.lists(children, max_size=3),
        st.tuples(children, children),
        st.sets(st.integers(0, 3) | st.text(max_size=2), max_size=3),
        st.frozensets(st.integers(0, 3), max_size=2),
        st.dictionaries(_keys, children, max_size=4),
        _tagged(children),
        st.dictionaries(st.text(max_size=2), children, max_size=2).map(immutables.Map),
    )


anything = st.recursive(_leaves, _extend, max_leaves=16)

DECODERS: list[Decoder] = [
    acp.decode_update,
    acp.decode_update_diagnosed,
    acp.decode_message,
    acp.decode_message_diagnosed,
    acp.decode_prompt_result,
    acp.decode_permission_result,
]


def _decode_or_none(decoder: Decoder, obj: object, *, strict: bool) -> Any:
    """The decoded value, or None when decoding raised an AcpError (anything else escapes)."""
    try:
        return decoder(obj, strict=strict)
    except acp.AcpError:
        return None


def _check_total(obj: object) -> None:
    for decoder in DECODERS:
        for strict in (False, True):
            _decode_or_none(decoder, obj, strict=strict)
    _check_update_normalises(obj)
    _check_message_normalises(obj)


def _check_update_normalises(obj: object) -> None:
    # What lenient mode accepts, re-encoded, is strictly valid and decodes to the same value.
    value = _decode_or_none(acp.decode_update, obj, strict=False)
    if value is not None:
        assert acp.decode_update(acp.encode_update(value), strict=True) == value


def _check_message_normalises(obj: object) -> None:
    value = _decode_or_none(acp.decode_message, obj, strict=False)
    if value is None or isinstance(value, acp.Batch):
        # (A batch's invalid entries keep only their frozen raw JSON, not a re-decodable form.)
        return
    wire = acp.encode_message(value)
    foreign = [k for k in getattr(value, "envelope_extra", {}) if k in _ENVELOPE_MEMBERS]
    if foreign:
        # Lenient decoding keeps a JSON-RPC member this kind of message does not own (`result`
        # beside `method`) verbatim; strict decoding refuses exactly that, naming the member.
        with pytest.raises(acp.DecodeError) as refused:
            acp.decode_message(wire, strict=True)
        assert refused.value.path.rsplit(".", 1)[-1] in foreign
        return
    assert acp.decode_message(wire, strict=True) == value


_ENVELOPE_MEMBERS = frozenset(("jsonrpc", "id", "method", "params", "result", "error"))


@given(anything)
def test_arbitrary_input_yields_a_value_or_an_acp_error(obj: Any) -> None:
    _check_total(obj)


@given(_tagged(anything))
def test_arbitrary_tagged_objects_yield_a_value_or_an_acp_error(obj: dict[Any, Any]) -> None:
    _check_total(obj)
    _check_total({"jsonrpc": "2.0", "method": "session/update", "params": {"update": obj}})


@given(
    st.fixed_dictionaries(
        {"jsonrpc": st.just("2.0") | anything},
        optional={
            "id": anything,
            "method": st.sampled_from(_TAGS) | anything,
            "params": anything,
            "result": anything,
            "error": anything,
            "zz": anything,
        },
    )
)
def test_arbitrary_envelopes_yield_a_message_or_an_acp_error(obj: dict[str, Any]) -> None:
    _check_total(obj)
    _check_total([obj, obj])


# -- mutated valid updates -------------------------------------------------------------


def _containers(root: Any) -> list[Any]:
    """Every dict and list inside `root` (root first), iteratively."""
    found, stack = [], [root]
    while stack:
        node = stack.pop()
        if isinstance(node, (dict, list)):
            found.append(node)
            stack.extend(node.values() if isinstance(node, dict) else node)
    return found


def _mutate(wire: dict[str, Any], data: st.DataObject) -> None:
    """Apply one random mutation somewhere inside `wire` (in place)."""
    node = data.draw(st.sampled_from(_containers(wire)), label="node")
    action = data.draw(st.sampled_from(["replace", "delete", "retag", "insert"]), label="action")
    if isinstance(node, list):
        if not node or action == "insert":
            node.append(data.draw(anything, label="item"))
            return
        i = data.draw(st.integers(0, len(node) - 1), label="index")
        if action == "delete":
            del node[i]
        else:
            node[i] = data.draw(anything, label="item")
        return
    if action == "retag":
        key = data.draw(st.sampled_from(_TAG_KEYS), label="tag key")
        node[key] = data.draw(st.sampled_from(_TAGS) | anything, label="tag")
    elif action == "insert" or not node:
        node[data.draw(_keys, label="key")] = data.draw(anything, label="value")
    else:
        key = data.draw(st.sampled_from(list(node)), label="key")
        if action == "delete":
            del node[key]
        else:
            node[key] = data.draw(anything, label="value")


@given(acps.wire_updates(tolerated=True), st.data())
def test_a_mutated_valid_update_yields_a_value_or_an_acp_error(
    wire: dict[str, Any], data: st.DataObject
) -> None:
    for _ in range(data.draw(st.integers(1, 3), label="mutations")):
        _mutate(wire, data)
    _check_total(wire)


@given(acps.wire_messages(tolerated=True), st.data())
def test_a_mutated_valid_message_yields_a_message_or_an_acp_error(
    wire: dict[str, Any], data: st.DataObject
) -> None:
    _mutate(wire, data)
    _check_total(wire)


# -- 10,000 levels deep ----------------------------------------------------------------

DEPTH = 10_000


def _deep_dict(depth: int = DEPTH) -> dict[str, Any]:
    node: dict[str, Any] = {}
    for _ in range(depth):
        node = {"a": node}
    return node


def _deep_list(depth: int = DEPTH) -> list[Any]:
    node: list[Any] = []
    for _ in range(depth):
        node = [node]
    return node


_CHUNK = {
    "sessionUpdate": "agent_message_chunk",
    "messageId": "m",
    "content": {"type": "text", "text": "x"},
}


@pytest.mark.parametrize(
    ("wire", "path_prefix"),
    [
        pytest.param({**_CHUNK, "_meta": _deep_dict()}, "$._meta.a.a", id="_meta"),
        pytest.param(
            {"sessionUpdate": "tool_call_update", "toolCallId": "t", "rawInput": _deep_list()},
            "$.rawInput[0][0]",
            id="rawInput",
        ),
        pytest.param(
            {"sessionUpdate": "tool_call_update", "toolCallId": "t", "rawOutput": _deep_dict()},
            "$.rawOutput.a",
            id="rawOutput",
        ),
    ],
)
def test_deep_nesting_in_a_tolerant_field_is_an_error_strictly_and_dropped_leniently(
    wire: dict[str, Any], path_prefix: str
) -> None:
    with pytest.raises(acp.DecodeError) as info:
        acp.decode_update(wire, strict=True)
    assert info.value.path.startswith(path_prefix)
    assert "nested at most" in info.value.expected
    decoded = acp.decode_update_diagnosed(wire)
    [diagnostic] = decoded.diagnostics
    assert diagnostic.rule == "codec.default-on-error"
    assert diagnostic.path.startswith(path_prefix)


@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
@pytest.mark.parametrize(
    ("decoder", "wire"),
    [
        pytest.param(acp.decode_update, _deep_dict(), id="update-is-deep"),
        pytest.param(acp.decode_update, _deep_list(), id="update-is-a-deep-list"),
        pytest.param(acp.decode_update, {**_CHUNK, "zzExtra": _deep_dict()}, id="update-extra"),
        pytest.param(
            acp.decode_update,
            {"sessionUpdate": "_custom", "payload": _deep_list()},
            id="unknown-update-raw",
        ),
        pytest.param(
            acp.decode_update,
            {**_CHUNK, "content": {"type": "_custom", "x": _deep_dict()}},
            id="unknown-content-raw",
        ),
        pytest.param(acp.decode_message, _deep_dict(), id="message-is-deep"),
        pytest.param(
            acp.decode_message,
            {"jsonrpc": "2.0", "method": "_x/deep", "params": _deep_dict()},
            id="generic-params",
        ),
        pytest.param(
            acp.decode_message, {"jsonrpc": "2.0", "id": 1, "result": _deep_list()}, id="result"
        ),
        pytest.param(
            acp.decode_message,
            {"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "m", "data": _deep_dict()}},
            id="error-data",
        ),
        pytest.param(acp.decode_prompt_result, {"zz": _deep_dict()}, id="prompt-result"),
        pytest.param(
            acp.decode_permission_result,
            {"outcome": {"outcome": "_later", "why": _deep_list()}},
            id="permission-outcome-raw",
        ),
    ],
)
def test_deep_nesting_anywhere_else_is_a_decode_error_not_a_recursion_error(
    decoder: Decoder, wire: Any, strict: bool
) -> None:
    with pytest.raises(acp.DecodeError) as info:
        decoder(wire, strict=strict)
    assert str(info.value)  # formatting the error does not recurse either


def test_a_deep_batch_entry_becomes_an_invalid_entry() -> None:
    batch = acp.decode_message([_deep_list(), {"jsonrpc": "2.0", "method": "_x/ok"}])
    assert isinstance(batch, acp.Batch)
    invalid, ok = batch.items
    assert isinstance(invalid, acp.InvalidEntry)
    assert (invalid.path, invalid.code) == ("$[0]", -32600)
    assert ok == acp.Notification("_x/ok")


def test_realistic_nesting_is_accepted() -> None:
    # MAX_DEPTH bounds hostile input only; a 100-deep _meta is fine.
    wire = {**_CHUNK, "_meta": _deep_dict(100)}
    update = acp.decode_update(wire, strict=True)
    assert acp.encode_update(update) == copy.deepcopy(wire)
