"""Hypothesis strategies: plans, commands, config options, session info and usage updates.

Owns: strategies for the `_wire/_updates.py` values that describe a session rather than its
conversation (plans, available commands, config options, session info, usage and cost).
Must not know: JSON-RPC messages. Public surface: `acp_core.strategies`.
"""

from __future__ import annotations

from acp_core._wire import _updates as u
from acp_core._wire._revision import DEFAULT_REVISION, Revision

from ._strategies_base import (
    _CATEGORIES,
    _RESERVED_PLAN_TYPES,
    _currencies,
    _ids,
    _raw_objects,
    _since,
    _texts,
    _timestamps,
    _tuples,
    _uint64,
    extras,
    metas,
    open_enum_values,
    patches,
    unknown_tags,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hypothesis import strategies as st
else:
    from ._hypothesis import st  # hypothesis is imported when a strategy is first built

__all__ = [
    "available_commands",
    "available_commands_updates",
    "command_inputs",
    "config_option_updates",
    "costs",
    "other_command_inputs",
    "other_plans",
    "other_session_config_options",
    "plan_entries",
    "plan_items",
    "plan_updates",
    "session_config_booleans",
    "session_config_options",
    "session_config_select_groups",
    "session_config_select_options",
    "session_config_selects",
    "session_info_updates",
    "text_command_inputs",
    "usage_updates",
]


def plan_entries() -> st.SearchStrategy[u.PlanEntry]:
    """Entries of an `items` plan."""
    return st.builds(
        u.PlanEntry,
        content=_texts(),
        priority=open_enum_values(u.PlanEntryPriority.KNOWN),
        status=open_enum_values(u.PlanEntryStatus.KNOWN),
        meta=metas(),
        extra=extras(),
    )


def plan_items() -> st.SearchStrategy[u.PlanItems]:
    """`{"type": "items"}` plans."""
    return st.builds(
        u.PlanItems, plan_id=_ids(), entries=_tuples(plan_entries()), meta=metas(), extra=extras()
    )


def other_plans(*, tolerated: bool = False) -> st.SearchStrategy[u.OtherPlan]:
    """Plans of unknown `type`, always with a string `planId`.

    With `tolerated=True` the reserved type `file` is drawn too: acp-core keeps it (digest Q9)
    but the stable schema rejects it. `markdown`, reserved in 2026-08, is a real plan type from
    the Preview on (`PlanMarkdown`, with its required `content`), so it is never drawn as an
    unknown plan: at the Preview its raw form without `content` does not decode.
    """
    tags = unknown_tags({"items", *_RESERVED_PLAN_TYPES})
    if tolerated:
        tags = tags | st.just("file")
    return st.builds(u.OtherPlan, _raw_objects("type", tags, {"planId": _ids()}))


def plan_updates(*, tolerated: bool = False) -> st.SearchStrategy[u.PlanUpdate]:
    """`plan_update` updates (see `other_plans` for `tolerated`)."""
    return st.builds(
        u.PlanUpdate,
        plan=plan_items() | other_plans(tolerated=tolerated),
        meta=metas(),
        extra=extras(),
    )


def text_command_inputs() -> st.SearchStrategy[u.TextCommandInput]:
    """`{"type": "text"}` command inputs."""
    return st.builds(u.TextCommandInput, hint=_texts(), meta=metas(), extra=extras())


def other_command_inputs() -> st.SearchStrategy[u.OtherCommandInput]:
    """Command inputs of unknown `type`."""
    return st.builds(u.OtherCommandInput, _raw_objects("type", unknown_tags(("text",))))


def command_inputs() -> st.SearchStrategy[u.TextCommandInput | u.OtherCommandInput]:
    """Any command input."""
    return st.one_of(text_command_inputs(), other_command_inputs())


def available_commands(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[u.AvailableCommand]:
    """Slash commands (a `type`, `command` or an unknown kind, from 2026-11 on)."""
    kinds = _since(u.AvailableCommand, "type", revision, patches(open_enum_values(("command",))))
    return st.builds(
        u.AvailableCommand,
        name=_texts(),
        description=_texts(),
        input=patches(command_inputs()),
        meta=metas(),
        type=kinds,
        extra=extras(),
    )


def available_commands_updates(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[u.AvailableCommandsUpdate]:
    """`available_commands_update` updates (commands as `revision` has them)."""
    return st.builds(
        u.AvailableCommandsUpdate,
        available_commands=_tuples(available_commands(revision=revision)),
        meta=metas(),
        extra=extras(),
    )


def session_config_select_options() -> st.SearchStrategy[u.SessionConfigSelectOption]:
    """Values of a select config option."""
    return st.builds(
        u.SessionConfigSelectOption,
        value=_ids(),
        name=_texts(),
        description=patches(_texts()),
        meta=metas(),
        extra=extras(),
    )


def session_config_select_groups() -> st.SearchStrategy[u.SessionConfigSelectGroup]:
    """Groups of select values."""
    return st.builds(
        u.SessionConfigSelectGroup,
        group_id=_ids(),
        name=_texts(),
        options=_tuples(session_config_select_options(), max_size=2),
        meta=metas(),
        extra=extras(),
    )


def session_config_selects() -> st.SearchStrategy[u.SessionConfigSelect]:
    """`{"type": "select"}` config options, flat or grouped."""
    options: st.SearchStrategy[
        tuple[u.SessionConfigSelectOption, ...] | tuple[u.SessionConfigSelectGroup, ...]
    ] = _tuples(session_config_select_options()) | _tuples(
        session_config_select_groups(), max_size=2
    )
    return st.builds(
        u.SessionConfigSelect,
        config_id=_ids(),
        name=_texts(),
        current_value=_ids(),
        options=options,
        description=patches(_texts()),
        category=patches(open_enum_values(_CATEGORIES)),
        meta=metas(),
        extra=extras(),
    )


def session_config_booleans() -> st.SearchStrategy[u.SessionConfigBoolean]:
    """`{"type": "boolean"}` config options."""
    return st.builds(
        u.SessionConfigBoolean,
        config_id=_ids(),
        name=_texts(),
        current_value=st.booleans(),
        description=patches(_texts()),
        category=patches(open_enum_values(_CATEGORIES)),
        meta=metas(),
        extra=extras(),
    )


def other_session_config_options() -> st.SearchStrategy[u.OtherSessionConfigOption]:
    """Config options of unknown `type` (with the `configId` and `name` every option has)."""
    return st.builds(
        u.OtherSessionConfigOption,
        _raw_objects(
            "type", unknown_tags(("select", "boolean")), {"configId": _ids(), "name": _texts()}
        ),
    )


def session_config_options() -> st.SearchStrategy[u.SessionConfigOption]:
    """Any config option, unknown types included."""
    return st.one_of(
        session_config_selects(), session_config_booleans(), other_session_config_options()
    )


def config_option_updates() -> st.SearchStrategy[u.ConfigOptionUpdate]:
    """`config_option_update` updates."""
    return st.builds(
        u.ConfigOptionUpdate,
        config_options=_tuples(session_config_options(), max_size=2),
        meta=metas(),
        extra=extras(),
    )


def session_info_updates() -> st.SearchStrategy[u.SessionInfoUpdate]:
    """`session_info_update` patches (RFC 3339 `updatedAt`)."""
    return st.builds(
        u.SessionInfoUpdate,
        title=patches(_texts()),
        updated_at=patches(_timestamps()),
        meta=metas(),
        extra=extras(),
    )


def costs() -> st.SearchStrategy[u.Cost]:
    """Session costs (ISO 4217-shaped currency)."""
    amounts: st.SearchStrategy[float] = st.floats(allow_nan=False, allow_infinity=False) | (
        st.integers(0, 10**6)
    )
    return st.builds(u.Cost, amount=amounts, currency=_currencies(), meta=metas(), extra=extras())


def usage_updates() -> st.SearchStrategy[u.UsageUpdate]:
    """`usage_update` updates (uint64 `used` and `size`)."""
    return st.builds(
        u.UsageUpdate,
        used=_uint64(),
        size=_uint64(),
        cost=patches(costs()),
        meta=metas(),
        extra=extras(),
    )
