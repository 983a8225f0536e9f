"""Session-wide `sessionUpdate` values: slash commands, config options, session info, usage.

Owns: `available_commands_update`, `config_option_update`, `session_info_update` and
`usage_update` with the values they carry (commands and their input, config options, costs).
Must not know: decoding (`_codec*.py`), reducers. Re-exported by `_wire/_updates.py`, which lists
every variant in `SessionUpdate`.
"""

from __future__ import annotations

from typing import TypeAlias

import attrs

from ._fields import wire, wire_tag
from ._freezing import freezing_fields
from ._json import EMPTY_OBJECT, UNSET, JsonObject, Meta, Patch
from ._value import frozen

__all__ = [
    "AvailableCommand",
    "AvailableCommandsUpdate",
    "ConfigOptionUpdate",
    "Cost",
    "OtherCommandInput",
    "OtherSessionConfigOption",
    "SessionConfigBoolean",
    "SessionConfigOption",
    "SessionConfigSelect",
    "SessionConfigSelectGroup",
    "SessionConfigSelectOption",
    "SessionInfoUpdate",
    "TextCommandInput",
    "UsageUpdate",
]


@frozen(field_transformer=freezing_fields)
class TextCommandInput:
    """`{"type": "text"}` command input with a hint."""

    __wire_tag__ = wire_tag(type="text")

    hint: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class OtherCommandInput:
    """Command input of a type this library does not know; `raw` is verbatim."""

    raw: JsonObject


@frozen(field_transformer=freezing_fields)
class AvailableCommand:
    """A slash command the agent offers."""

    name: str
    description: str
    input: Patch[TextCommandInput | OtherCommandInput] = UNSET
    meta: Meta = UNSET
    #: The command's kind tag (2026-11 on: `command`, or an unknown kind kept as sent).
    type: Patch[str] = attrs.field(default=UNSET, metadata=wire(since="2026-11", lenient=False))
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class AvailableCommandsUpdate:
    """`available_commands_update`: the complete command list."""

    __wire_tag__ = wire_tag(sessionUpdate="available_commands_update")

    available_commands: tuple[AvailableCommand, ...] = attrs.field(
        metadata=wire(lenient=True, on_error=())
    )
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class SessionConfigSelectOption:
    """One value of a select config option."""

    value: str
    name: str
    description: Patch[str] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class SessionConfigSelectGroup:
    """A named group of select values."""

    group_id: str
    name: str
    options: tuple[SessionConfigSelectOption, ...] = attrs.field(
        metadata=wire(lenient=True, on_error=())
    )
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class SessionConfigSelect:
    """`{"type": "select"}` config option; `options` is flat or grouped."""

    __wire_tag__ = wire_tag(type="select")

    config_id: str
    name: str
    current_value: str
    options: tuple[SessionConfigSelectOption, ...] | tuple[SessionConfigSelectGroup, ...]
    description: Patch[str] = UNSET
    category: Patch[str] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class SessionConfigBoolean:
    """`{"type": "boolean"}` config option."""

    __wire_tag__ = wire_tag(type="boolean")

    config_id: str
    name: str
    current_value: bool
    description: Patch[str] = UNSET
    category: Patch[str] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class OtherSessionConfigOption:
    """A config option of a type this library does not know; `raw` is verbatim."""

    raw: JsonObject


SessionConfigOption: TypeAlias = (
    SessionConfigSelect | SessionConfigBoolean | OtherSessionConfigOption
)


@frozen(field_transformer=freezing_fields)
class ConfigOptionUpdate:
    """`config_option_update`: the complete config option set."""

    __wire_tag__ = wire_tag(sessionUpdate="config_option_update")

    config_options: tuple[SessionConfigOption, ...] = attrs.field(
        metadata=wire(lenient=True, on_error=())
    )
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class SessionInfoUpdate:
    """`session_info_update`: patch the session's title, updatedAt and `_meta`."""

    __wire_tag__ = wire_tag(sessionUpdate="session_info_update")

    title: Patch[str] = UNSET
    updated_at: Patch[str] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class Cost:
    """Cumulative session cost."""

    amount: float
    currency: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class UsageUpdate:
    """`usage_update`: context window use and (optionally) cumulative cost."""

    __wire_tag__ = wire_tag(sessionUpdate="usage_update")

    used: int = attrs.field(metadata=wire(codec="uint64"))
    size: int = attrs.field(metadata=wire(codec="uint64"))
    cost: Patch[Cost] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT
