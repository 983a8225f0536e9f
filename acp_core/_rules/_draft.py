"""Drafts: the mutable twin of a frozen record that lives inside one call and never escapes.

Owns: `twins(frozen_cls, draft_cls)` (the generated `thaw` / `freeze` pair between a frozen
attrs record and a slotted draft class with the same fields), `OMap` (a persistent map that
iterates in insertion order, as a `dict` does, for the few maps whose order reaches the order
of findings) with its functional edits `oset`, `opop`, `oitems`, `EMPTY`, and `SlotDraft` (the
base of the checker's components that live by rebinding: equal when their fields are).
Must not know: any ACP rule.

Why. A function over a frozen value may edit a private draft of it in place, as long as the
draft is made inside the call and only its frozen result leaves: the Clojure transient / h2
idiom. Here a draft's fields hold the record's own persistent collections (`immutables.Map`,
tuples, frozensets); an edit replaces a field with a new persistent collection (`Map.set`,
`Map.delete`, or `Map.mutate()` for a loop of edits), so nothing the old record reaches ever
changes and a fork of the record (keeping the old value) costs nothing. `freeze` returns
the original record when no field was replaced. Thawing and freezing are one generated call
each (generated, as `_wire/_fastnew.py` does): a draft costs about as much as one record
construction, and freezing a draft that replaced nothing only compares identities.
"""

from __future__ import annotations

from collections.abc import Callable, Iterator
from typing import Any, Generic, TypeVar, overload

import attrs
import immutables

from acp_core._state._pcoll import PMap
from acp_core._wire._fastnew import compile_generated
from acp_core._wire._value import frozen

__all__ = [
    "EMPTY",
    "EMPTY_OMAP",
    "OMap",
    "SlotDraft",
    "oitems",
    "opop",
    "oset",
    "padd",
    "ppop",
    "twins",
]

K = TypeVar("K")
V = TypeVar("V")
F = TypeVar("F")
D = TypeVar("D")

EMPTY: PMap[Any, Any] = immutables.Map()


class SlotDraft:
    """A slotted component that changes only by rebinding its fields to persistent values
    (`Framing`, `Answers`, `Capabilities`): two are equal when their fields are, so a value
    that holds one (a checker's memory, a connection) compares by what it remembers."""

    __slots__ = ()

    def __eq__(self, other: object) -> bool:
        if type(other) is not type(self):
            return NotImplemented
        names: tuple[str, ...] = self.__slots__
        return all(getattr(self, name) == getattr(other, name) for name in names)

    def __hash__(self) -> int:
        # Equal components hash equal, which is all a hash owes. A value holding one (a
        # connection in `explore`'s reached set) is told apart by its other fields; hashing
        # every persistent map on each lookup would cost more than it tells.
        return hash(type(self))


@overload
def twins(
    frozen_cls: type[F], draft_cls: type[D], scratch: tuple[tuple[str, str], ...] = ()
) -> tuple[Callable[[F], D], Callable[[D, F], F]]: ...
@overload
def twins(
    frozen_cls: type[F],
    draft_cls: type[Any],
    scratch: tuple[tuple[str, str], ...],
    made: type[D],
) -> tuple[Callable[[F], D], Callable[[D, F], F]]: ...
def twins(
    frozen_cls: type[F],
    draft_cls: type[Any],
    scratch: tuple[tuple[str, str], ...] = (),
    made: type[D] | None = None,
) -> tuple[Callable[[F], D], Callable[[D, F], F]]:
    """`(thaw, freeze)`: `thaw(record)` is a draft holding the record's fields (the draft
    class's own `__slots__` are exactly the record's fields, in order; extra slots live on a
    base class, and `thaw` sets each `(name, source expression)` of `scratch`);
    `freeze(draft, record)` is the record with the draft's fields, or `record` itself when
    the draft replaced none. `made`: the class `thaw` makes, a subclass of `draft_cls` that
    adds methods and no slot (default `draft_cls` itself)."""
    names = tuple(a.name for a in attrs.fields(frozen_cls))  # type: ignore[arg-type]
    if tuple(draft_cls.__dict__["__slots__"]) != names:
        raise TypeError(f"{draft_cls.__name__}.__slots__ must be {frozen_cls.__name__}'s fields")
    made_cls = draft_cls if made is None else made
    if made_cls is not draft_cls and (
        not issubclass(made_cls, draft_cls) or made_cls.__dict__.get("__slots__") != ()
    ):
        raise TypeError(f"{made_cls.__name__} must extend {draft_cls.__name__} with no slot")
    namespace: dict[str, Any] = {"new": object.__new__, "D": made_cls, "F": frozen_cls}
    for i, name in enumerate(names):  # the slot descriptors, called directly
        namespace[f"d{i}"] = getattr(draft_cls, name).__set__
        namespace[f"f{i}"] = getattr(frozen_cls, name).__set__
    label = f"{frozen_cls.__qualname__}/{draft_cls.__qualname__}"
    thaw_lines = ["def thaw(r):", "    d = new(D)"]
    thaw_lines += [f"    d{i}(d, r.{n})" for i, n in enumerate(names)]
    thaw_lines += [f"    d.{n} = {expr}" for n, expr in scratch]
    thaw_lines.append("    return d")
    same = " and ".join(f"d.{n} is r.{n}" for n in names)
    freeze_lines = ["def freeze(d, r):", f"    if {same}:", "        return r", "    o = new(F)"]
    freeze_lines += [f"    f{i}(o, d.{n})" for i, n in enumerate(names)]
    freeze_lines.append("    return o")
    thaw: Callable[[F], D] = compile_generated(thaw_lines, "thaw", namespace, f"thaw {label}")
    freeze: Callable[[D, F], F] = compile_generated(
        freeze_lines, "freeze", dict(namespace), f"freeze {label}"
    )
    return thaw, freeze


@frozen(slots=True)
class OMap(Generic[K, V]):
    """A persistent map that iterates in insertion order (a re-set key keeps its place, a
    deleted one set again goes last), as a `dict`: for maps whose order reaches the order of
    findings on one line. Iterating sorts (these maps hold what is pending: a few items)."""

    entries: PMap[K, tuple[int, V]] = EMPTY
    next: int = 0

    def get(self, key: K) -> V | None:
        got = self.entries.get(key)
        return None if got is None else got[1]

    def __contains__(self, key: object) -> bool:
        return key in self.entries

    def __len__(self) -> int:
        return len(self.entries)


EMPTY_OMAP: OMap[Any, Any] = OMap()


def oset(m: OMap[K, V], key: K, value: V) -> OMap[K, V]:
    """`m` with `key` set to `value` (a new key goes last)."""
    old = m.entries.get(key)
    if old is None:
        return OMap(m.entries.set(key, (m.next, value)), m.next + 1)
    return OMap(m.entries.set(key, (old[0], value)), m.next)


def opop(m: OMap[K, V], key: K) -> tuple[OMap[K, V], V | None]:
    """`m` without `key`, and the value it had (None: it had none)."""
    old = m.entries.get(key)
    if old is None:
        return m, None
    return OMap(m.entries.delete(key), m.next), old[1]


def oitems(m: OMap[K, V]) -> Iterator[tuple[K, V]]:
    """The items of `m` in insertion order."""
    ordered = sorted(m.entries.items(), key=lambda kv: kv[1][0])
    return iter([(k, ov[1]) for k, ov in ordered])


def ppop(m: PMap[K, V], key: K) -> tuple[PMap[K, V], V | None]:
    """`m` without `key`, and the value it had (None: it had none)."""
    old = m.get(key)
    return (m, None) if old is None and key not in m else (m.delete(key), old)


def padd(m: PMap[K, bool], key: K) -> PMap[K, bool]:
    """The set `m` (a map to True) with `key` in it."""
    return m if key in m else m.set(key, True)
