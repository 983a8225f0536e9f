"""Transients: the mutable view of a frozen value that lives inside one call and never escapes.

Owns: `MapDraft` (a persistent map being edited through `immutables.Map.mutate()`), `OMap`
(a persistent map that iterates in insertion order, as a `dict` does, for the few maps whose
order reaches a finding) and its `OMapDraft`, and `Transient`, the base of a record's
in-call view: a field is drafted the first time the call reads it, and `frozen()` returns
the record with the drafted fields frozen again (the record itself when nothing changed).
Must not know: any ACP rule.

Why. This is the Clojure transient / h2 idiom: a function over a frozen value may edit a
private draft of it in place for speed, as long as the draft is made inside the call and only
its frozen result leaves. `immutables`' `mutate()` is exactly that (O(1) to start, O(1) to
finish; edits copy only the paths they touch once). A draft read but never written returns
its original map, so a fork of the value (keeping the old one) costs nothing.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, ClassVar, Generic, TypeVar, overload

import attrs
import immutables

from acp_core._state._pcoll import PMap
from acp_core._wire._fastnew import evolve_frozen

__all__ = ["EMPTY", "EMPTY_OMAP", "MapDraft", "OMap", "OMapDraft", "Transient"]

K = TypeVar("K")
V = TypeVar("V")
D = TypeVar("D")
EMPTY: PMap[Any, Any] = immutables.Map()


class MapDraft(Generic[K, V]):
    """A `PMap` being edited: `dict`-like reads and writes; iteration walks a snapshot, so a
    loop may edit the draft as it goes. A set is a `MapDraft[K, bool]` (`add`, `discard`)."""

    __slots__ = ("_map", "_mut")

    def __init__(self, base: PMap[K, V]) -> None:
        self._map = base
        self._mut: immutables.MapMutation[K, V] | None = None

    def _w(self) -> immutables.MapMutation[K, V]:
        if self._mut is None:
            self._mut = self._map.mutate()
        return self._mut

    def frozen(self) -> PMap[K, V]:
        """The map as it is now (the draft stays usable)."""
        if self._mut is not None:
            self._map = self._mut.finish()
            self._mut = None
        return self._map

    @overload
    def get(self, key: K) -> V | None: ...
    @overload
    def get(self, key: K, default: D) -> V | D: ...
    def get(self, key: K, default: object = None) -> object:
        src = self._map if self._mut is None else self._mut
        return src.get(key, default)

    def __contains__(self, key: object) -> bool:
        return key in (self._map if self._mut is None else self._mut)

    def __getitem__(self, key: K) -> V:
        return (self._map if self._mut is None else self._mut)[key]

    def __setitem__(self, key: K, value: V) -> None:
        self._w()[key] = value

    def __delitem__(self, key: K) -> None:
        del self._w()[key]

    def __len__(self) -> int:
        return len(self._map if self._mut is None else self._mut)

    @overload
    def pop(self, key: K) -> V | None: ...
    @overload
    def pop(self, key: K, default: D) -> V | D: ...
    def pop(self, key: K, default: object = None) -> object:
        if key not in self:
            return default
        return self._w().pop(key)

    def setdefault(self, key: K, value: V) -> V:
        src = self._map if self._mut is None else self._mut
        if key in src:
            return src[key]
        self._w()[key] = value
        return value

    def add(self, key: K) -> None:
        if key not in self:
            self._w()[key] = True  # type: ignore[assignment]

    def discard(self, key: K) -> None:
        if key in self:
            del self._w()[key]

    def items(self) -> Iterator[tuple[K, V]]:
        return iter(self.frozen().items())

    def values(self) -> Iterator[V]:
        return iter(self.frozen().values())

    def __iter__(self) -> Iterator[K]:
        return iter(self.frozen().keys())


@attrs.frozen(slots=True)
class OMap(Generic[K, V]):
    """A persistent map that iterates in insertion order (a re-set key keeps its place, a
    deleted one re-inserted goes last), as a `dict`: for maps whose order reaches the order
    of findings on one line. Iterating sorts (these maps hold what is pending: a few items)."""

    entries: PMap[K, tuple[int, V]] = EMPTY
    next: int = 0


EMPTY_OMAP: OMap[Any, Any] = OMap()


class OMapDraft(Generic[K, V]):
    """An `OMap` being edited (the `MapDraft` surface; iteration in insertion order)."""

    __slots__ = ("_draft", "_next")

    def __init__(self, base: OMap[K, V]) -> None:
        self._draft: MapDraft[K, tuple[int, V]] = MapDraft(base.entries)
        self._next = base.next

    def frozen_omap(self) -> OMap[K, V]:
        return OMap(self._draft.frozen(), self._next)

    @overload
    def get(self, key: K) -> V | None: ...
    @overload
    def get(self, key: K, default: D) -> V | D: ...
    def get(self, key: K, default: object = None) -> object:
        got = self._draft.get(key)
        return default if got is None else got[1]

    def __contains__(self, key: object) -> bool:
        return key in self._draft

    def __getitem__(self, key: K) -> V:
        return self._draft[key][1]

    def __setitem__(self, key: K, value: V) -> None:
        old = self._draft.get(key)
        if old is None:
            order, self._next = self._next, self._next + 1
        else:
            order = old[0]
        self._draft[key] = (order, value)

    def __delitem__(self, key: K) -> None:
        del self._draft[key]

    def __len__(self) -> int:
        return len(self._draft)

    @overload
    def pop(self, key: K) -> V | None: ...
    @overload
    def pop(self, key: K, default: D) -> V | D: ...
    def pop(self, key: K, default: object = None) -> object:
        got = self._draft.pop(key)
        return default if got is None else got[1]

    def setdefault(self, key: K, value: V) -> V:
        got = self._draft.get(key)
        if got is None:
            self[key] = value
            return value
        return got[1]

    def items(self) -> Iterator[tuple[K, V]]:
        ordered = sorted(self._draft.items(), key=lambda kv: kv[1][0])
        return iter([(k, ov[1]) for k, ov in ordered])

    def values(self) -> Iterator[V]:
        return (v for _k, v in self.items())

    def __iter__(self) -> Iterator[K]:
        return (k for k, _v in self.items())


class Transient:
    """The in-call view of one frozen attrs record (`_of`): reading a field drafts it
    (`MapDraft` for a `PMap`, `OMapDraft` for an `OMap`, the nested record's `Transient` for
    the kinds in `_nested`, the value itself otherwise); assigning a field replaces it.
    Subclasses declare `__slots__` naming the record's fields, plus `_base` and `_touched`."""

    __slots__ = ("_base", "_touched")
    _nested: ClassVar[dict[str, type[Transient]]] = {}

    def __init__(self, base: Any) -> None:
        object.__setattr__(self, "_base", base)
        object.__setattr__(self, "_touched", [])

    def __getattr__(self, name: str) -> Any:  # only for a field not read yet in this call
        value = getattr(self._base, name)
        nested = self._nested.get(name)
        if nested is not None:
            value = nested(value)
        elif type(value) is immutables.Map:
            value = MapDraft(value)
        elif type(value) is OMap:
            value = OMapDraft(value)
        object.__setattr__(self, name, value)
        self._touched.append(name)
        return value

    def __setattr__(self, name: str, value: Any) -> None:
        try:
            object.__getattribute__(self, name)
        except AttributeError:
            self._touched.append(name)
        object.__setattr__(self, name, value)

    def frozen(self) -> Any:
        """The record with every drafted field frozen (the original when none changed)."""
        base = self._base
        changes: dict[str, Any] = {}
        for name in self._touched:
            value = object.__getattribute__(self, name)
            if isinstance(value, OMapDraft):
                old = getattr(base, name)
                value = value.frozen_omap()
                if value.entries is old.entries and value.next == old.next:
                    continue
            elif isinstance(value, (MapDraft, Transient)):
                value = value.frozen()
            if value is not getattr(base, name):
                changes[name] = value
        return evolve_frozen(base, **changes) if changes else base
