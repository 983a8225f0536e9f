"""How much the protocol machine remembers of the session ids a peer names: the newest.

Owns: `MAX_REMEMBERED_IDS` (the bound) and `Recent`, a persistent map that keeps at most that
many keys and forgets the oldest first, half the bound at a time (a re-set key counts as new).
Must not know: any ACP rule, which maps use it (the rule modules say, and what forgetting
costs them).

Why. The checker's cross-session rules remember ids that name no live session: an id the
client named, one the agent used before anybody set it up, a session whose close was
answered, its last cancel, a delete answered. A peer adds one with every message that names a
fresh id, without the host's consent, so without a bound a long-lived connection to a hostile
or broken peer grows forever (about 20 bytes a message). h2 meets the same problem for closed
streams (`H2Connection` remembers at most `MAX_CLOSED_STREAMS = 2**16` of them, forgetting
the oldest); we take its bound and its order, forgetting in halves rather than one by one.
Live sessions are not bounded here: the host answers the `session/new` that makes one.

How: two generations. A key is set in `young`; when `young` holds half the bound it becomes
`old` and the old `old` is forgotten whole (dropping a reference: O(1), its memory freed at
once, which is O(1) amortized over the half-bound of edits since the last turn). So a `Recent`
keeps at most `MAX_REMEMBERED_IDS` keys and at least the newest half of that, and everything
it forgets is older than everything it keeps (a key set again goes to `young`). Each edit is
one or two persistent-map edits, a read at most two lookups, a fork shares everything, and
nothing scans the memory. One entry a key: at the bound it holds as much as a plain map of
the same keys would (an exact first-in-first-out order beside it would cost two more maps a
key, which the collector then walks). Within the bound a `Recent` answers exactly what the
unbounded map did.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final, Generic, TypeVar

from acp_core._state._pcoll import PMap
from acp_core._wire._fastnew import fast_constructor
from acp_core._wire._value import frozen

__all__ = ["EMPTY_RECENT", "MAX_REMEMBERED_IDS", "Recent"]

K = TypeVar("K")
V = TypeVar("V")

#: The most ids each of the protocol machine's memories of ids that name no live session
#: keeps (the checker's and every connection's): h2's `MAX_CLOSED_STREAMS`. It forgets the
#: oldest half at once, so an id is remembered until at least half as many newer ones were
#: set; the rules that read those memories say what forgetting costs.
MAX_REMEMBERED_IDS: Final = 2**16

_NOTHING: PMap[Any, Any] = PMap()
_MISSING: Final = object()


@frozen(slots=True)
class Recent(Generic[K, V]):
    """A persistent map of at most `MAX_REMEMBERED_IDS` keys, the newest set (a value: each
    edit returns the next one). Read it as a map (`in`, `get`, `[]`, `len`, `items`); a hot
    path may test `key in r.young or key in r.old` itself (no method call)."""

    young: PMap[K, V] = _NOTHING  # set since the last turn (fewer than half the bound)
    old: PMap[K, V] = _NOTHING  # set in the generation before (forgotten at the next turn)

    def __contains__(self, key: object) -> bool:
        return key in self.young or key in self.old

    def __getitem__(self, key: K) -> V:
        value = self.young.get(key, _MISSING)
        return self.old[key] if value is _MISSING else value  # type: ignore[return-value]

    def __len__(self) -> int:
        return len(self.young) + len(self.old)

    def __bool__(self) -> bool:
        return len(self.young) > 0 or len(self.old) > 0

    def __iter__(self) -> Iterator[K]:
        yield from self.young
        yield from self.old

    def get(self, key: K, default: Any = None) -> Any:
        value = self.young.get(key, _MISSING)
        return self.old.get(key, default) if value is _MISSING else value

    def items(self) -> Iterator[tuple[K, V]]:
        yield from self.young.items()
        yield from self.old.items()

    def set(self, key: K, value: V) -> Recent[K, V]:
        """This map with `key` set to `value`, now among the newest; at half the bound the
        newest become the old generation and the old one is forgotten."""
        if self.young.get(key, _MISSING) is value:
            return self
        young = self.young.set(key, value)
        old = self.old.delete(key) if key in self.old else self.old
        if len(young) >= MAX_REMEMBERED_IDS // 2:  # (read at each call: tests lower it)
            return _new(_NOTHING, young)
        return _new(young, old)

    def touch(self, key: K) -> Recent[K, V]:
        """This map with `key` among the newest again if it is in the old generation (else
        this very map: using a key set lately changes nothing, so a key used at least once
        in every half-bound of new keys is never forgotten)."""
        value = self.old.get(key, _MISSING)
        return self if value is _MISSING else self.set(key, value)  # type: ignore[arg-type]

    def add(self, key: K, value: V) -> Recent[K, V]:
        """`set` for a key not remembered yet; a remembered key keeps its value and place."""
        return self if key in self else self.set(key, value)

    def delete(self, key: K) -> Recent[K, V]:
        """This map without `key` (itself when `key` is not remembered)."""
        if key in self.young:
            return _new(self.young.delete(key), self.old)
        if key in self.old:
            return _new(self.young, self.old.delete(key))
        return self

    def pop(self, key: K) -> tuple[Recent[K, V], V | None]:
        """This map without `key`, and the value it had (None: it had none)."""
        if key not in self:
            return self, None
        return self.delete(key), self[key]


_new = fast_constructor(Recent)  # (each edit makes one: the attrs `__init__` costs more)

#: Nothing remembered.
EMPTY_RECENT: Final[Recent[Any, Any]] = Recent()
