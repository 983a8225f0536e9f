"""How much the protocol machine remembers of the session ids a peer names: the newest.

Owns: `MAX_REMEMBERED_IDS` (the bound) and `Recent`, a persistent map that keeps at most that
many keys and forgets the one set longest ago first (a re-set key counts as new).
Must not know: any ACP rule, which maps use it (the rule modules say, and what forgetting
costs them).

Why. The checker's cross-session rules remember ids that name no live session: an id the
client named, one the agent used before anybody set it up, a session whose close was
answered, its last cancel, a delete answered. A peer adds one with every message that names a
fresh id, without the host's consent, so without a bound a long-lived connection to a hostile
or broken peer grows forever (about 20 bytes a message). h2 meets the same problem for closed
streams (`H2Connection` remembers at most `MAX_CLOSED_STREAMS = 2**16` of them, forgetting
the oldest); we take its bound and its order. Live sessions are not bounded here: the host
answers the `session/new` that makes one.

How. Beside the map itself (`entries`, read it as any map) a second map gives each key its
place in insertion order and a third the key at each place; a new key takes the next place,
and once there are more than the bound the lowest place still taken is forgotten. The lowest
place only rises, so finding it costs O(1) amortized; every edit is a few persistent-map
edits, a fork shares everything, and nothing scans the memory. Within the bound a `Recent`
answers exactly what the unbounded map did.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, Final, Generic, TypeVar

from acp_core._state._pcoll import PMap
from acp_core._wire._value import frozen

__all__ = ["EMPTY_RECENT", "MAX_REMEMBERED_IDS", "Recent"]

K = TypeVar("K")
V = TypeVar("V")

#: The most ids each of the protocol machine's memories of ids that name no live session
#: keeps (the checker's and every connection's): h2's `MAX_CLOSED_STREAMS`. Beyond it the id
#: set longest ago is forgotten; the rules that read those memories say what that costs.
MAX_REMEMBERED_IDS: Final = 2**16

_NOTHING: PMap[Any, Any] = PMap()


@frozen(slots=True)
class Recent(Generic[K, V]):
    """A persistent map of at most `MAX_REMEMBERED_IDS` keys, the newest set (a value: each
    edit returns the next one). Read it as a map (`in`, `get`, `[]`, `len`, `items`), or read
    `entries`, the map itself, where a method call would cost (a hot path)."""

    entries: PMap[K, V] = _NOTHING
    places: PMap[K, int] = _NOTHING  # key -> its place (a higher place: set later)
    order: PMap[int, K] = _NOTHING  # place -> key, for the places still taken
    first: int = 0  # no place below it is taken
    next: int = 0  # the place the next new key takes

    def __contains__(self, key: object) -> bool:
        return key in self.entries

    def __getitem__(self, key: K) -> V:
        return self.entries[key]

    def __len__(self) -> int:
        return len(self.entries)

    def __bool__(self) -> bool:
        return len(self.entries) > 0

    def __iter__(self) -> Iterator[K]:
        return iter(self.entries)

    def get(self, key: K, default: Any = None) -> Any:
        return self.entries.get(key, default)

    def items(self) -> Iterator[tuple[K, V]]:
        return iter(self.entries.items())

    def set(self, key: K, value: V) -> Recent[K, V]:
        """This map with `key` set to `value`, now the newest key; the oldest forgotten when
        that makes one more than the bound."""
        place = self.places.get(key)
        if place is not None and place == self.next - 1:  # already the newest: keep its place
            if self.entries[key] is value:
                return self
            return Recent(
                self.entries.set(key, value), self.places, self.order, self.first, self.next
            )
        entries = self.entries.set(key, value)
        places = self.places.set(key, self.next)
        order = (self.order if place is None else self.order.delete(place)).set(self.next, key)
        first = self.first
        while len(entries) > MAX_REMEMBERED_IDS:  # (read at each call: tests lower it)
            while first not in order:  # places freed by a delete or a re-set
                first += 1
            oldest = order[first]
            entries, places, order = (
                entries.delete(oldest),
                places.delete(oldest),
                order.delete(first),
            )
            first += 1
        return Recent(entries, places, order, first, self.next + 1)

    def touch(self, key: K) -> Recent[K, V]:
        """This map with `key` (remembered) the newest again, once it is in the older half of
        what the bound keeps (else this very map: using a key set lately changes nothing, so
        a key used at least once in every half-bound of new keys is never forgotten)."""
        place = self.places.get(key)
        if place is None or place >= self.next - MAX_REMEMBERED_IDS // 2:
            return self
        return self.set(key, self.entries[key])

    def add(self, key: K, value: V) -> Recent[K, V]:
        """`set` for a key not remembered yet; a remembered key keeps its value and place."""
        return self if key in self.entries else self.set(key, value)

    def delete(self, key: K) -> Recent[K, V]:
        """This map without `key` (itself when `key` is not remembered)."""
        place = self.places.get(key)
        if place is None:
            return self
        return Recent(
            self.entries.delete(key),
            self.places.delete(key),
            self.order.delete(place),
            self.first + 1 if place == self.first else self.first,
            self.next,
        )

    def pop(self, key: K) -> tuple[Recent[K, V], V | None]:
        """This map without `key`, and the value it had (None: it had none)."""
        if key not in self.entries:
            return self, None
        return self.delete(key), self.entries[key]


#: Nothing remembered.
EMPTY_RECENT: Final[Recent[Any, Any]] = Recent()
