"""The marker a judging function carries for the rules it decides: `@decides("R82")`.

Owns: `decides(*rule_ids)` and `declared()`, the `module:function` names the marked functions
registered, by rule id (what `_rules/_deciders.py` merges into `DECIDED_BY`, the Checked
column of docs/rules.md).
Must not know: what any rule says, how a finding is worded, which rules the checker reports.

A function marked here is its rule's deciding function without a line elsewhere, so adding a
checked rule edits the module that checks it and the catalogue, nothing more. Marking one
function twice for one rule raises at import: a rule is registered once per function.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from types import MappingProxyType
from typing import TypeVar

__all__ = ["decides", "declared"]

F = TypeVar("F", bound=Callable[..., object])

_DECLARED: dict[str, list[str]] = {}


def decides(*rule_ids: str) -> Callable[[F], F]:
    """Register the decorated function as deciding `rule_ids` (it is returned unchanged).

    Raises:
        ValueError: no rule id, or the function already registered for one of them.
    """
    if not rule_ids:
        raise ValueError("decides() needs at least one rule id")

    def mark(fn: F) -> F:
        name = f"{fn.__module__}:{fn.__qualname__}"
        for rule in rule_ids:
            names = _DECLARED.setdefault(rule, [])
            if name in names:
                raise ValueError(f"{name} is already registered as deciding {rule}")
            names.append(name)
        return fn

    return mark


def declared() -> Mapping[str, tuple[str, ...]]:
    """Rule id -> the functions marked `@decides(rule_id)` so far, in marking order."""
    return MappingProxyType({rule: tuple(names) for rule, names in _DECLARED.items()})
