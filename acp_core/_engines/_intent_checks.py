"""The check and freezing of every intent field at construction.

Owns: the field checks (`Check`, one per field type: a check takes the given value and where it
sits and returns the frozen value to store or raises `LocalProtocolError`), `_f` (an intent field
with its check) and `_Checked` (the base of every intent, which runs them once).
Must not know: the intents themselves (`_engines/_intents.py`), how an intent becomes wire
messages, JSON beyond asking the codec whether a diff is valid on the wire.

Checked and frozen at construction (issue 15). Every field is checked against its type when
the intent is built, and what the caller gave is frozen: a list becomes a tuple, a dict a
frozen JSON object, a `bytearray` bytes. A mistyped field is a `LocalProtocolError` (rule E0:
not an intent of the engine's alphabet) naming the field. Why at construction rather than at
`step`: the error points at the line that built the wrong value, an intent is then valid for
its whole life (so `step` trusts it and pays nothing per step), and a frozen intent can never
change what an engine stored or already sent.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import attrs
import immutables

from acp_core._errors import DecodeError, LocalProtocolError
from acp_core._wire._content import ContentBlock, TextContent, ToolCallContent, ToolCallLocation
from acp_core._wire._freezing import freeze_given
from acp_core._wire._json import (
    EMPTY_OBJECT,
    UNSET,
    JsonObject,
    JsonValue,
    freeze_json,
)
from acp_core._wire._jsonrpc import PermissionOption
from acp_core._wire._revision import V2_2026_08, V2_PREVIEW
from acp_core._wire._updates import Cost, OtherPlan, PlanEntry, PlanItems, TerminalExitStatus

from ._idempotency import valid_key

# -- field checks ------------------------------------------------------------------------
# A check takes the given value and where it sits (`SendPrompt.content[0]`) and returns the
# value to store (a frozen copy where needed) or raises `LocalProtocolError`.

Check = Callable[[Any, str], Any]

_I64: Final = (-(2**63), 2**63 - 1)
_U64: Final = (0, 2**64 - 1)
_CONTENT_BLOCKS: Final = ContentBlock.__args__
_TOOL_CONTENT: Final = ToolCallContent.__args__


def _mistyped(where: str, expected: str, value: object) -> LocalProtocolError:
    return LocalProtocolError(
        "E0",
        f"{where} must be {expected}, not {type(value).__name__}; "
        "build the intent with the types its docstring names",
    )


def _str(value: Any, where: str) -> str:
    if type(value) is str:
        return value
    if isinstance(value, str):
        return str.__str__(value)  # a plain copy of a str subclass
    raise _mistyped(where, "a string", value)


def _bool(value: Any, where: str) -> bool:
    if type(value) is bool:
        return value
    raise _mistyped(where, "a bool", value)


def _int_in(lo_hi: tuple[int, int], name: str) -> Check:
    lo, hi = lo_hi

    def check(value: Any, where: str) -> int:
        if isinstance(value, int) and not isinstance(value, bool):
            number = int.__int__(value)
            if lo <= number <= hi:
                return number
            raise LocalProtocolError("E0", f"{where} must be {name}: out of range")
        raise _mistyped(where, f"an integer ({name})", value)

    return check


_int64: Final = _int_in(_I64, "int64")
# A token count: negative ones are refused by the engine under the usage rule (R37); here only
# what no count can be (far wider than 64 bits, or not an integer).
_count: Final = _int_in((-(2**128), 2**128), "at most 128 bits wide")


def _request_id(value: Any, where: str) -> int | str | None:
    if value is None:
        return None
    if isinstance(value, str):
        return _str(value, where)
    if isinstance(value, int) and not isinstance(value, bool):
        return _int64(value, where)  # type: ignore[no-any-return]
    raise _mistyped(where, "a request id (int, str or None)", value)


def _idempotency_key(value: Any, where: str) -> str:
    key = _str(value, where)
    if not valid_key(key):  # the key shape has one home: `_idempotency.valid_key`
        raise LocalProtocolError("C43", f"{where} must be 1 to 255 characters, got {len(key)}")
    return key


def _bytes(value: Any, where: str) -> bytes:
    if type(value) is bytes:
        return value
    if isinstance(value, (bytes, bytearray, memoryview)):
        return bytes(value)  # a copy the caller cannot change
    raise _mistyped(where, "bytes", value)


def _json(value: Any, where: str) -> JsonValue:
    try:
        return freeze_json(value)
    except DecodeError as e:
        raise LocalProtocolError(
            "E0", f"{where} must be JSON: expected {e.expected} @ {where}{e.path[1:]}"
        ) from None


def _object(value: Any, where: str) -> JsonObject:
    if not isinstance(value, (dict, immutables.Map)):
        raise _mistyped(where, "a JSON object (dict)", value)
    frozen: JsonObject = _json(value, where)  # type: ignore[assignment]
    return frozen


def _instance(*classes: type[Any]) -> Check:
    names = " or ".join(c.__name__ for c in classes)

    def check(value: Any, where: str) -> Any:
        if isinstance(value, classes):
            try:
                return freeze_given(value, where)  # a frozen value: kept as it is
            except DecodeError as e:
                raise LocalProtocolError("E0", f"{where}: {e}") from None
        raise _mistyped(where, f"a {names}", value)

    return check


def _tuple_of(item: Check) -> Check:
    def check(value: Any, where: str) -> tuple[Any, ...]:
        if not isinstance(value, (tuple, list)):
            raise _mistyped(where, "a tuple", value)
        out = tuple(item(x, f"{where}[{i}]") for i, x in enumerate(value))
        if type(value) is tuple and all(a is b for a, b in zip(out, value, strict=True)):
            return value
        return out

    return check


def _or_none(check: Check) -> Check:
    return lambda value, where: None if value is None else check(value, where)


def _or_unset(check: Check) -> Check:
    return lambda value, where: UNSET if value is UNSET else check(value, where)


def _patch(check: Check) -> Check:
    return lambda value, where: value if value is None or value is UNSET else check(value, where)


def _text_or_block(value: Any, where: str) -> Any:
    if isinstance(value, str):
        return _str(value, where)
    return _block(value, where)


def _wire_valid(part: str, check: Check, *, latest: bool = False) -> Check:
    """`check`, then the value goes through the codec: encoded, and decoded back strictly.
    `latest`: decode at the latest revision (the Preview intents' values, which 2026-08
    would read as unknown variants); the engine judges the revision it speaks.
    The decoded copy is what the intent keeps. So the engine never emits what it would refuse
    itself (a `move` diff change without `oldPath`, a list where text belongs, an integer no
    JSON printer writes), and whatever a caller put inside a value (a dict in `_meta`, a list
    in `audience`) is frozen, deeply, even though value classes store what they are given.
    The codec keeps the rules; this only asks it."""

    def checked(value: Any, where: str) -> Any:
        value = check(value, where)
        if _plain_text(value):
            return value  # the streaming hot path: already what the round trip would give
        from acp_core._wire._codec import (  # the codec imports values, not intents
            decode_part,
            encode_part,
        )

        try:
            revision = V2_PREVIEW if latest else V2_2026_08
            return decode_part(part, encode_part(part, value, revision=revision), revision=revision)
        except DecodeError as e:
            problem = str(e)
        except Exception as e:  # a foreign object inside the value: its own methods raised
            problem = f"{type(e).__name__} while encoding it"
        raise LocalProtocolError("E0", f"{where} is not a valid {part} on the wire: {problem}")

    return checked


def _plain_text(value: Any) -> bool:
    return (
        type(value) is TextContent
        and type(value.text) is str
        and value.annotations is UNSET
        and value.meta is UNSET
        and value.extra is EMPTY_OBJECT
    )


def _plan_entry(value: Any, where: str) -> PlanEntry:
    # A plan entry is no codec part of its own: it travels inside an `items` plan.
    plan: PlanItems = _items_plan(PlanItems("p", (_instance(PlanEntry)(value, where),)), where)
    entry: PlanEntry = plan.entries[0]
    return entry


_block: Final = _wire_valid("ContentBlock", _instance(*_CONTENT_BLOCKS))
_blocks: Final = _tuple_of(_block)
# Read back at the latest revision: a Preview `session` reference stays one (at 2026-08 it
# would read as an unknown type); the engine judges it at the revision it speaks (R19 there).
_tool_content: Final = _wire_valid("ToolCallContent", _instance(*_TOOL_CONTENT), latest=True)
_tool_contents: Final = _tuple_of(_tool_content)
_locations: Final = _tuple_of(_wire_valid("ToolCallLocation", _instance(ToolCallLocation)))
_items_plan: Final = _wire_valid("PlanUpdateContent", _instance(PlanItems))


def _plan(value: Any, where: str) -> PlanItems | OtherPlan:
    if isinstance(value, OtherPlan):
        # Kept as given, frozen: the engine judges its `planId` and `type` (R29, D1).
        return OtherPlan(_object(value.raw, f"{where}.raw"))
    plan: PlanItems = _items_plan(value, where)
    return plan


_exit_status: Final = _wire_valid("TerminalExitStatus", _instance(TerminalExitStatus))
_cost: Final = _wire_valid("Cost", _instance(Cost))
_option: Final = _wire_valid("PermissionOption", _instance(PermissionOption))
_meta: Final = _patch(_object)
_CHECK: Final = "acp_core.check"


def _f(check: Check, default: Any = attrs.NOTHING) -> Any:
    """An intent field with its check (run by `_Checked` after attrs' `__init__`)."""
    return attrs.field(default=default, metadata={_CHECK: check})


_CHECKS: dict[type[Any], tuple[tuple[str, Check], ...]] = {}


class _Checked:
    """Base of every intent: checks and freezes each field once the instance is built."""

    __slots__ = ()

    def __attrs_post_init__(self) -> None:
        cls = type(self)
        checks = _CHECKS.get(cls)
        if checks is None:
            checks = tuple(
                (a.name, a.metadata[_CHECK])
                for a in attrs.fields(cls)  # type: ignore[arg-type]
                if _CHECK in a.metadata
            )
            _CHECKS[cls] = checks
        name = cls.__name__
        for field, check in checks:
            given = getattr(self, field)
            kept = check(given, f"{name}.{field}")
            if kept is not given:
                object.__setattr__(self, field, kept)  # frozen: only here, before use
