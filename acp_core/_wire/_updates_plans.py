"""Plan `sessionUpdate` values: `plan_update` with its items content and open enums.

Owns: `PlanUpdate`, the `items` plan content (`PlanItems`, `PlanEntry`), `OtherPlan` for
unknown plan types, and the `PlanEntryPriority` / `PlanEntryStatus` open enums.
Must not know: decoding (`_codec*.py`), reducers. Re-exported by `_wire/_updates.py`, which lists
every variant in `SessionUpdate`.
"""

from __future__ import annotations

from typing import Final

import attrs

from ._fields import wire, wire_tag
from ._freezing import freezing_fields
from ._json import EMPTY_OBJECT, UNSET, JsonObject, Meta
from ._updates_preview import PlanMarkdown
from ._value import frozen

__all__ = [
    "OtherPlan",
    "PlanEntry",
    "PlanEntryPriority",
    "PlanEntryStatus",
    "PlanItems",
    "PlanUpdate",
]


# -- open enums ------------------------------------------------------------------------


class PlanEntryPriority:
    """Priority of a plan entry."""

    HIGH: Final = "high"
    MEDIUM: Final = "medium"
    LOW: Final = "low"
    KNOWN: Final = frozenset({HIGH, MEDIUM, LOW})


class PlanEntryStatus:
    """Status of a plan entry."""

    PENDING: Final = "pending"
    IN_PROGRESS: Final = "in_progress"
    COMPLETED: Final = "completed"
    CANCELLED: Final = "cancelled"
    KNOWN: Final = frozenset({PENDING, IN_PROGRESS, COMPLETED, CANCELLED})


# -- plans -----------------------------------------------------------------------------


@frozen(field_transformer=freezing_fields)
class PlanEntry:
    """One entry of an `items` plan."""

    content: str
    priority: str
    status: str
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class PlanItems:
    """`{"type": "items"}` plan content: the complete entry list."""

    __wire_tag__ = wire_tag(type="items")

    plan_id: str
    entries: tuple[PlanEntry, ...] = attrs.field(metadata=wire(lenient=True, on_error=()))
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class OtherPlan:
    """Plan content of a type this library does not know; `raw` keeps it (with `planId`)."""

    raw: JsonObject

    __wire_requires__ = ("planId",)  # Q9: every plan variant carries a string planId

    @property
    def type(self) -> str:
        """The plan's `type` tag."""
        tag = self.raw["type"]
        assert isinstance(tag, str)
        return tag

    @property
    def plan_id(self) -> str:
        """The plan's id (required on every plan variant)."""
        plan_id = self.raw["planId"]
        assert isinstance(plan_id, str)
        return plan_id


@frozen(field_transformer=freezing_fields)
class PlanUpdate:
    """`plan_update`: replace the whole content of the plan `plan.plan_id`."""

    __wire_tag__ = wire_tag(sessionUpdate="plan_update")

    plan: PlanItems | PlanMarkdown | OtherPlan
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT
