"""Patch fields keep absent, null and value apart, and re-encode exactly as they came.

For every patch field of the upsert-style updates (`tool_call_update`, `terminal_update`,
`session_info_update`, `user_message`/`agent_message`/`agent_thought`, `usage_update.cost`,
the idle state's `stopReason`, and the fields nested in a terminal's `exitStatus`):
omitted -> `UNSET`, `null` -> `None`, value -> value. The reducers give these three their
meaning (unchanged, cleared, replaced), so the codec must never collapse them.
"""

from __future__ import annotations

import copy
import json
from typing import Any, NamedTuple

import attrs
import immutables
import pytest

import acp_core as acp


class PatchField(NamedTuple):
    base: dict[str, Any]  # a valid update without the field
    wire_path: tuple[str, ...]  # where the field sits on the wire
    attr_path: tuple[str, ...]  # where it sits in the value
    wire_value: Any
    value: Any


_TOOL_CALL = {"sessionUpdate": "tool_call_update", "toolCallId": "t1"}
_TERMINAL = {"sessionUpdate": "terminal_update", "terminalId": "x1"}
_EXITED = {**_TERMINAL, "exitStatus": {}}
_INFO = {"sessionUpdate": "session_info_update"}
_USAGE = {"sessionUpdate": "usage_update", "used": 10, "size": 100}
_IDLE = {"sessionUpdate": "state_update", "state": "idle"}
_META = {"trace": {"id": 7}, "tags": ["a"]}
_FROZEN_META = immutables.Map({"trace": immutables.Map({"id": 7}), "tags": ("a",)})
_TEXT = {"type": "text", "text": "hi"}


def _message_fields(tag: str) -> list[PatchField]:
    base = {"sessionUpdate": tag, "messageId": "m1"}
    return [
        PatchField(base, ("content",), ("content",), [_TEXT], (acp.TextContent("hi"),)),
        PatchField(base, ("_meta",), ("meta",), _META, _FROZEN_META),
    ]


PATCH_FIELDS: list[PatchField] = [
    PatchField(_TOOL_CALL, ("title",), ("title",), "Read a.py", "Read a.py"),
    PatchField(_TOOL_CALL, ("kind",), ("kind",), "read", "read"),
    PatchField(_TOOL_CALL, ("status",), ("status",), "in_progress", "in_progress"),
    PatchField(
        _TOOL_CALL,
        ("content",),
        ("content",),
        [{"type": "content", "content": _TEXT}, {"type": "terminal", "terminalId": "x1"}],
        (acp.ToolContent(acp.TextContent("hi")), acp.TerminalRef("x1")),
    ),
    PatchField(
        _TOOL_CALL,
        ("locations",),
        ("locations",),
        [{"path": "/a.py", "line": 3}],
        (acp.ToolCallLocation("/a.py", 3),),
    ),
    PatchField(
        _TOOL_CALL,
        ("rawInput",),
        ("raw_input",),
        {"cmd": ["ls", "-l"]},
        immutables.Map({"cmd": ("ls", "-l")}),
    ),
    PatchField(_TOOL_CALL, ("rawOutput",), ("raw_output",), "ok", "ok"),
    PatchField(_TOOL_CALL, ("_meta",), ("meta",), _META, _FROZEN_META),
    PatchField(_TERMINAL, ("command",), ("command",), "make test", "make test"),
    PatchField(_TERMINAL, ("cwd",), ("cwd",), "/repo", "/repo"),
    PatchField(_TERMINAL, ("output",), ("output",), {"data": "aGk="}, acp.TerminalOutput("aGk=")),
    PatchField(
        _TERMINAL,
        ("exitStatus",),
        ("exit_status",),
        {"exitCode": 0},
        acp.TerminalExitStatus(exit_code=0),
    ),
    PatchField(_TERMINAL, ("_meta",), ("meta",), _META, _FROZEN_META),
    PatchField(_EXITED, ("exitStatus", "exitCode"), ("exit_status", "exit_code"), 2, 2),
    PatchField(_EXITED, ("exitStatus", "signal"), ("exit_status", "signal"), "SIGINT", "SIGINT"),
    PatchField(_INFO, ("title",), ("title",), "Refactor", "Refactor"),
    PatchField(
        _INFO, ("updatedAt",), ("updated_at",), "2026-08-22T10:00:00Z", "2026-08-22T10:00:00Z"
    ),
    PatchField(_INFO, ("_meta",), ("meta",), _META, _FROZEN_META),
    *_message_fields("user_message"),
    *_message_fields("agent_message"),
    *_message_fields("agent_thought"),
    PatchField(
        _USAGE,
        ("cost",),
        ("cost",),
        {"amount": 0.25, "currency": "USD"},
        acp.Cost(0.25, "USD"),
    ),
    PatchField(_IDLE, ("stopReason",), ("stop_reason",), "end_turn", "end_turn"),
]


def _id(field: PatchField) -> str:
    tag = field.base["sessionUpdate"]
    if tag == "state_update":
        tag = field.base["state"]
    return f"{tag}.{'.'.join(field.wire_path)}"


parametrize_fields = pytest.mark.parametrize("field", PATCH_FIELDS, ids=_id)

_OMIT = object()


def _wire(field: PatchField, wire_value: Any) -> dict[str, Any]:
    wire = copy.deepcopy(field.base)
    holder = wire
    for key in field.wire_path[:-1]:
        holder = holder[key]
    assert field.wire_path[-1] not in holder
    if wire_value is not _OMIT:
        holder[field.wire_path[-1]] = copy.deepcopy(wire_value)
    return wire


def _get(value: Any, attr_path: tuple[str, ...]) -> Any:
    for name in attr_path:
        value = getattr(value, name)
    return value


def _with(value: Any, attr_path: tuple[str, ...], new: Any) -> Any:
    name, *rest = attr_path
    inner = new if not rest else _with(getattr(value, name), tuple(rest), new)
    return attrs.evolve(value, **{name: inner})


def _same_json(a: object, b: object) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


@parametrize_fields
def test_an_omitted_field_decodes_to_unset_and_stays_omitted(field: PatchField) -> None:
    wire = _wire(field, _OMIT)
    update = acp.decode_update(wire, strict=True)
    assert _get(update, field.attr_path) is acp.UNSET
    assert _same_json(acp.encode_update(update), wire)


@parametrize_fields
def test_a_null_field_decodes_to_none_and_re_encodes_as_null(field: PatchField) -> None:
    wire = _wire(field, None)
    update = acp.decode_update(wire, strict=True)
    assert _get(update, field.attr_path) is None
    assert _same_json(acp.encode_update(update), wire)


@parametrize_fields
def test_a_present_field_decodes_to_its_value_and_re_encodes_exactly(field: PatchField) -> None:
    wire = _wire(field, field.wire_value)
    update = acp.decode_update(wire, strict=True)
    assert _get(update, field.attr_path) == field.value
    assert _same_json(acp.encode_update(update), wire)


@parametrize_fields
def test_omitted_null_and_value_are_three_different_updates(field: PatchField) -> None:
    omitted, null, present = (
        acp.decode_update(_wire(field, v), strict=True) for v in (_OMIT, None, field.wire_value)
    )
    assert omitted != null
    assert null != present
    assert omitted != present


@parametrize_fields
def test_setting_a_field_to_unset_omits_it_and_to_none_writes_null(field: PatchField) -> None:
    present = acp.decode_update(_wire(field, field.wire_value), strict=True)
    assert _same_json(
        acp.encode_update(_with(present, field.attr_path, acp.UNSET)), _wire(field, _OMIT)
    )
    assert _same_json(acp.encode_update(_with(present, field.attr_path, None)), _wire(field, None))


# rawInput/rawOutput accept any JSON value, so nothing there is malformed.
_TYPED_FIELDS = [f for f in PATCH_FIELDS if f.attr_path not in {("raw_input",), ("raw_output",)}]


@pytest.mark.parametrize("field", _TYPED_FIELDS, ids=_id)
def test_a_malformed_field_is_absent_not_null_in_lenient_mode(field: PatchField) -> None:
    wire_value = 12345.5 if field.wire_path[-1] != "exitCode" else -1
    # at 2026-08, where a negative exit code is malformed (it is signed from 2026-11 on)
    decoded = acp.decode_update_diagnosed(_wire(field, wire_value), revision=acp.V2_2026_08)
    assert _get(decoded.value, field.attr_path) is acp.UNSET
    [diagnostic] = decoded.diagnostics
    assert diagnostic.rule == "codec.default-on-error"
    assert diagnostic.path == "$." + ".".join(field.wire_path)
