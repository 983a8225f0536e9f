"""Hostile input to the wire layer (issue 15): decoding is lossless or refuses, and costs that
must not grow with state do not.

Each test is a finding of issue 15 turned into a regression test.
"""

from __future__ import annotations

import contextlib
from typing import Any

import pytest

import acp_core as acp
from acp_core._state._pcoll import EMPTY_VEC

# -- strict decoding is lossless or refuses -------------------------------------------------

FOREIGN_MEMBERS: list[dict[str, Any]] = [
    {"jsonrpc": "2.0", "id": 1, "method": "x/y", "params": {}, "result": 5},
    {"jsonrpc": "2.0", "method": "x/y", "error": {"code": 1, "message": "m"}},
    {"jsonrpc": "2.0", "id": 1, "method": "session/cancel", "result": None},
    {"jsonrpc": "2.0", "id": 1, "result": {}, "error": {"code": 1, "message": "m"}},
    {"jsonrpc": "2.0", "id": 1, "result": {}, "params": {}},
    {"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "m"}, "method": 5},
    {"jsonrpc": "2.0", "id": 1, "error": {"code": 1, "message": "m"}, "params": []},
]


@pytest.mark.parametrize("wire", FOREIGN_MEMBERS)
def test_strict_decoding_refuses_a_member_the_kind_does_not_own(wire: dict[str, Any]) -> None:
    # A `method` that is not a string is refused in both modes (it is not a message at all).
    with pytest.raises(acp.DecodeError) as e:
        acp.decode_message(wire, strict=True)
    assert e.value.code == -32600


@pytest.mark.parametrize("wire", [w for w in FOREIGN_MEMBERS if type(w.get("method", "")) is str])
def test_lenient_decoding_keeps_a_foreign_member_and_writes_it_back(wire: dict[str, Any]) -> None:
    message = acp.decode_message(wire)
    assert acp.encode_message(message) == wire


# -- a no-op terminal_update does not look at the bytes ---------------------------------------


class _Unjoinable:
    """Stands in for terminal bytes that must not be read: `b"".join` refuses it."""


def test_a_no_op_terminal_update_never_reads_the_terminal_bytes() -> None:
    # Built by hand: output the reducer could join only by failing. A no-op update must
    # return the very same state without comparing bytes (it joined 100 MiB before: 184 ms).
    state = acp.reduce(acp.new_session("s"), acp.TerminalUpdate("t", command="ls"))
    terminal = state.terminals["t"]
    poisoned = acp.TerminalState(
        terminal.command,
        terminal.cwd,
        EMPTY_VEC.append(_Unjoinable()),  # type: ignore[arg-type]
    )
    state = acp.restore(acp.snapshot(state))  # an ordinary state around the terminal
    from acp_core._state._reduce_common import with_terminals

    state = with_terminals(state, state.terminals.set("t", poisoned))
    for update in (
        acp.TerminalUpdate("t"),
        acp.TerminalUpdate("t", command="ls"),
        acp.TerminalUpdate("t", cwd=acp.UNSET),
    ):
        assert acp.reduce(state, update) is state
    changed = acp.reduce(state, acp.TerminalUpdate("t", command="pwd"))
    assert changed.terminals["t"].command == "pwd"
    assert changed.terminals["t"].output is poisoned.output


# -- only AcpError escapes the decoders and restore, whatever they are handed ---------------


class _Hostile:
    """An object whose comparisons and hash raise."""

    def __eq__(self, other: object) -> bool:
        raise RuntimeError("eq")

    def __ne__(self, other: object) -> bool:
        raise RuntimeError("ne")

    def __hash__(self) -> int:
        raise RuntimeError("hash")


class _LyingDict(dict):  # type: ignore[type-arg]
    """A dict subclass whose readers raise (the storage it inherits is sound)."""

    def items(self):  # type: ignore[no-untyped-def]
        raise RuntimeError("items")

    def get(self, *args):  # type: ignore[no-untyped-def]
        raise RuntimeError("get")

    def __iter__(self):  # type: ignore[no-untyped-def]
        raise RuntimeError("iter")


def _nested(make: Any, depth: int = 50_000) -> Any:
    value: Any = make(None)
    for _ in range(depth):
        value = make(value)
    return value


_CHUNK = {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": {"type": "text"}}
HOSTILE: list[Any] = [
    pytest.param(_nested(lambda v: (v,)), id="deep-tuple"),
    pytest.param(_nested(lambda v: __import__("immutables").Map(a=v)), id="deep-map"),
    pytest.param(_Hostile(), id="hostile-object"),
    pytest.param({"jsonrpc": _Hostile(), "sessionUpdate": _Hostile()}, id="hostile-members"),
    pytest.param(_LyingDict(_CHUNK), id="dict-subclass"),
    pytest.param(
        {"jsonrpc": "2.0", "id": 1, "method": "x/y", "params": _LyingDict(a=1)},
        id="dict-subclass-params",
    ),
    pytest.param({"jsonrpc": "2.0", "id": 10**5000, "method": "x/y"}, id="huge-id"),
    pytest.param({"jsonrpc": "2.0", "id": 1, "result": {"n": 10**5000}}, id="huge-int-result"),
    pytest.param(
        {"jsonrpc": "2.0", "id": 1, "method": "x/y", "params": _nested(lambda v: [v])},
        id="deep-list",
    ),
]
DECODERS: list[Any] = [
    acp.decode_update,
    acp.decode_message,
    acp.decode_prompt_result,
    acp.decode_permission_result,
    acp.restore,
]


@pytest.mark.parametrize("decode", DECODERS, ids=lambda f: f.__name__)
@pytest.mark.parametrize("obj", HOSTILE)
@pytest.mark.parametrize("strict", [False, True])
def test_hostile_input_gives_a_value_or_an_acp_error(decode: Any, obj: Any, strict: bool) -> None:
    with contextlib.suppress(acp.DecodeError):  # anything else fails the test
        decode(obj) if decode is acp.restore else decode(obj, strict=strict)


def test_a_huge_request_id_is_refused_where_it_is() -> None:
    with pytest.raises(acp.DecodeError) as e:
        acp.decode_message({"jsonrpc": "2.0", "id": 2**63, "method": "x/y"})
    assert e.value.path == "$.id"
    assert acp.decode_message({"jsonrpc": "2.0", "id": 2**63 - 1, "result": {}}).id == 2**63 - 1


def test_lone_surrogates_decode_as_text() -> None:
    update = acp.decode_update(_CHUNK | {"content": {"type": "text", "text": "\ud800"}})
    assert update.content == acp.TextContent("\ud800")  # type: ignore[union-attr]


def test_a_dict_subclass_is_read_through_the_storage_it_inherits() -> None:
    message = acp.decode_message(
        {"jsonrpc": "2.0", "id": 1, "method": "x/y", "params": _LyingDict(a=1)}
    )
    assert message.params == acp.freeze_json({"a": 1})  # type: ignore[union-attr]


# -- a wrong kind of argument is an AcpError too (and still a TypeError) ---------------------

WRONG_ARGUMENTS: list[Any] = [
    pytest.param(lambda: acp.render_session(object()), id="render_session"),
    pytest.param(lambda: acp.render_session(None), id="render_session-None"),
    pytest.param(lambda: acp.snapshot(object()), id="snapshot"),
    pytest.param(lambda: acp.step(object(), acp.StartWork()), id="step-engine"),
    pytest.param(lambda: acp.reduce(acp.new_session("s"), object()), id="reduce"),
    pytest.param(lambda: acp.fold(acp.new_session("s"), [object()]), id="fold"),
    pytest.param(lambda: acp.encode_update(object()), id="encode_update"),
    pytest.param(lambda: acp.encode_message(object()), id="encode_message"),
]


@pytest.mark.parametrize("call", WRONG_ARGUMENTS)
def test_a_wrong_kind_of_argument_is_an_argument_error(call: Any) -> None:
    with pytest.raises(acp.ArgumentError) as e:
        call()
    assert isinstance(e.value, acp.AcpError)
    assert isinstance(e.value, TypeError)
