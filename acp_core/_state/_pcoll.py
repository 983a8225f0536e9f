"""The persistent collections acp-core is built on, behind one seam.

Owns: which persistent map we use (`immutables.Map`, a C HAMT) and `PVec`, our own
append-friendly persistent sequence. Every other module imports collections from here, so
swapping an implementation is a one-file change.
Must not know: anything about ACP.

Why our own sequence: streams append one item at a time to sequences that can reach 10^5
items (message chunks, terminal bytes). `t + (x,)` copies the whole tuple (quadratic), a
nested-tuple cons list breaks `==`/`repr` with RecursionError, and pyrsistent's C vector is
not available on every Python we support. `PVec` appends in O(1) (one small node per append,
amortised O(log32 n) when a 32-item block is sealed) and keeps `==`, `hash`, `repr` and
iteration iterative.

Packed runs (issue 24): a vector may hold a block of items as one packed run, a plain tuple
of the items a `Packing` encoded, atoms (strings, say) where it could. CPython's cyclic
garbage collector stops tracking a tuple of atoms at its first collection, while the items it
stands for (frozen attrs instances) are always tracked; reading decodes the run into equal
items (new objects on each read). Four places pack, each touching an item once:
`append_packed` packs each block of 32 as it seals it (a vector that keeps growing: the
message being streamed, the timeline; the items were appended lately, so they are at hand),
`compact_tail` / `extend_compact` pack the unsealed tail of a vector that stops growing (and
the blocks `extend_compact` seals), `extend_encoded` builds the runs from items a caller
encoded as it received them (`fold`), and `append_encoded` grows a tail that is one run by
one item a caller encoded (a tool call's content, from its first item on).
Plain `append` and `extend` never pack. Readers (`__iter__`, `__getitem__`, `last`) tell a
run from a block by its first item, a private marker no caller can hold; `packed_runs` hands
a reader that can use a packing's encoding (a snapshot) each run as it is kept.
"""

from __future__ import annotations

from collections.abc import Callable, Iterable, Iterator, Sequence
from typing import Any, Final, Generic, TypeVar, cast, overload

import immutables

from acp_core._wire._fastnew import fast_constructor

__all__ = [
    "EMPTY_MAP",
    "EMPTY_VEC",
    "PMap",
    "PVec",
    "Packing",
    "append_encoded",
    "append_packed",
    "compact_tail",
    "extend_compact",
    "extend_encoded",
    "in_order",
    "packed_runs",
    "pmap",
]

K = TypeVar("K")
V = TypeVar("V")
T = TypeVar("T")

PMap = immutables.Map
EMPTY_MAP: immutables.Map[str, object] = immutables.Map()


def pmap(items: Iterable[tuple[K, V]] = ()) -> immutables.Map[K, V]:
    """Build a persistent map from key/value pairs."""
    return immutables.Map(items)


def _rank(key: object) -> tuple[int, int, str]:
    if type(key) is int:
        return (0, key, "")
    if type(key) is str:
        return (1, 0, key)
    return (2, 0, repr(key))


def in_order(m: immutables.Map[K, V]) -> list[tuple[K, V]]:
    """The items of `m` in key order (integers, then strings, then anything by `repr`).

    A HAMT iterates in the order of its keys' hashes, and string hashes change with each
    process (`PYTHONHASHSEED`). Wherever a map's order reaches an output (messages sent in
    turn, a snapshot's tables, a replay), iterate with this, so the same input gives the same
    bytes in every process (tests/test_hashseed.py)."""
    return sorted(m.items(), key=lambda item: _rank(item[0]))


_BLOCK = 32  # items per sealed block, and children per trie node

_setattr = object.__setattr__


class PVec(Generic[T]):
    """An immutable sequence with cheap `append` that shares structure with its ancestors.

    Layout: sealed items live in `_body`, a tuple of levels (a base-32 counter of full
    nodes: level k holds nodes of 32**k blocks, most recent level last); the unsealed
    tail (at most 32 items) is a chain of nodes, each `PVec` holding its last item and a
    link to the vector it was appended to. When the tail is full it is sealed into one
    tuple block and pushed into the body.
    """

    __slots__ = ("_base", "_tail_len", "_prev", "_item")

    # _base = (levels, number of sealed items); shared by every node of one tail.
    _base: tuple[tuple[tuple[object, ...], ...], int]
    # Items in the tail (0..32). Stored instead of the total length: small ints are shared
    # objects in CPython, a total above 256 would cost a 32-byte int per append.
    _tail_len: int
    _prev: PVec[T] | None
    _item: object

    def __init__(self, items: Iterable[T] = ()) -> None:
        empty: PVec[T] = _EMPTY if _EMPTY_READY else _raw((((),), 0), 0, None, None)  # type: ignore[assignment]
        built = empty.extend(items)
        _setattr(self, "_base", built._base)
        _setattr(self, "_tail_len", built._tail_len)
        _setattr(self, "_prev", built._prev)
        _setattr(self, "_item", built._item)

    # -- construction -------------------------------------------------------------------

    def append(self, item: T) -> PVec[T]:
        """Return a new vector with `item` at the end (this one is unchanged)."""
        tail_len = self._tail_len
        if tail_len < _BLOCK:
            return _raw(self._base, tail_len + 1, self if tail_len else None, item)
        levels, sealed = self._base
        return _raw((_push_block(levels, self._tail()), sealed + tail_len), 1, None, item)

    def extend(self, items: Iterable[T]) -> PVec[T]:
        """Return a new vector with every item of `items` appended in order.

        Bulk: full blocks are sealed straight from the input, so extending by k items costs
        O(k) tuple work plus at most 32 tail nodes, not k appends.
        """
        new = tuple(items)
        if not new:
            return self
        levels, sealed = self._base
        buffer = self._tail() + new
        start = 0
        while len(buffer) - start > _BLOCK:
            levels = _push_block(levels, buffer[start : start + _BLOCK])
            start += _BLOCK
            sealed += _BLOCK
        if start:
            rest = buffer[start:]
            return _raw((levels, sealed), len(rest), None, _bundle(rest))
        # No block sealed: one node continues this vector's tail chain and shares its base.
        tail_len = self._tail_len
        return _raw(self._base, tail_len + len(new), self if tail_len else None, _bundle(new))

    # -- reading ------------------------------------------------------------------------

    @property
    def _len(self) -> int:
        return self._base[1] + self._tail_len

    def __len__(self) -> int:
        return self._base[1] + self._tail_len

    def __bool__(self) -> bool:
        return self._base[1] + self._tail_len != 0

    def _tail(self) -> tuple[T, ...]:
        if not self._tail_len:
            return ()
        if self._prev is None:  # one node: one item, one bundle or one packed run
            item = self._item
            if type(item) is _Bundle:
                return tuple(item)
            if type(item) is tuple and item and item[0] is _PACKED:
                return _unpacked(item)  # type: ignore[return-value]
            return (item,)  # type: ignore[return-value]
        # Every run decoded: no packing has the index -1.
        return tuple(_tail_parts(self, -1)[1])  # type: ignore[arg-type]

    def __iter__(self) -> Iterator[T]:
        levels = self._base[0]
        count = len(levels)
        for i, level in enumerate(levels):
            for node in level:
                yield from _iter_node(node, count - 1 - i)
        yield from self._tail()

    @overload
    def __getitem__(self, index: int) -> T: ...
    @overload
    def __getitem__(self, index: slice) -> tuple[T, ...]: ...
    def __getitem__(self, index: int | slice) -> T | tuple[T, ...]:
        if isinstance(index, slice):
            return tuple(self)[index]
        n = self._len
        if index < 0:
            index += n
        if not 0 <= index < n:
            msg = "PVec index out of range"
            raise IndexError(msg)
        if index >= self._base[1]:
            return self._tail()[index - self._base[1]]
        return _body_get(self._base[0], index)  # type: ignore[return-value]

    @property
    def last(self) -> T:
        """The last item (IndexError when empty)."""
        if self._len == 0:
            msg = "last of an empty PVec"
            raise IndexError(msg)
        if self._tail_len:
            item = self._item
            if type(item) is _Bundle:
                return item[-1]  # type: ignore[no-any-return]
            if type(item) is tuple and item and item[0] is _PACKED:
                return _unpacked(item)[-1]  # type: ignore[return-value]
            return item  # type: ignore[return-value]
        return self[self._len - 1]

    def to_tuple(self) -> tuple[T, ...]:
        """All items as a tuple (O(n))."""
        return tuple(self)

    # -- value semantics ----------------------------------------------------------------

    def __eq__(self, other: object) -> bool:
        if self is other:
            return True
        if not isinstance(other, PVec):
            return NotImplemented
        if self._len != other._len:
            return False
        return all(a is b or a == b for a, b in zip(self, other, strict=True))

    def __hash__(self) -> int:
        return hash((PVec, tuple(self)))

    def __repr__(self) -> str:
        return f"PVec({list(self)!r})"

    def __setattr__(self, name: str, value: object) -> None:
        msg = "PVec is immutable"
        raise AttributeError(msg)

    def __delattr__(self, name: str) -> None:
        msg = "PVec is immutable"
        raise AttributeError(msg)

    def __reduce__(self) -> tuple[type[PVec[T]], tuple[tuple[T, ...]]]:
        return (PVec, (tuple(self),))


class _Bundle(tuple):  # type: ignore[type-arg]
    """Several tail items held by one node (what `extend` builds); never a user's item."""

    __slots__ = ()


def _bundle(items: tuple[object, ...]) -> object:
    return items[0] if len(items) == 1 else _Bundle(items)


# The package's one fast constructor sets the slots directly: about twice as fast as
# object.__setattr__, and the public __setattr__ still refuses every assignment.
# (base, tail_len, prev, item), in `__slots__` order.
_raw: Callable[
    [tuple[tuple[tuple[object, ...], ...], int], int, PVec[Any] | None, object], PVec[Any]
] = fast_constructor(PVec)


class Packing:
    """How a tail's items are packed into a run the cyclic GC does not walk.

    `pack(items)` returns the encoded items (as many as `items`, each an atom where the item
    could be encoded, else the item itself), or None when the items cannot be packed;
    `unpack(encoded)` returns items equal to the ones encoded, in order. Both total and
    pure; `unpack(pack(items)) == items` is the contract (tests hold each packing to it).
    """

    __slots__ = ("_index", "pack")

    def __init__(
        self,
        pack: Callable[[Sequence[Any]], Sequence[object] | None],
        unpack: Callable[[tuple[object, ...]], tuple[Any, ...]],
    ) -> None:
        self.pack = pack
        # A run names its packing by index: a function in the run would keep it tracked.
        self._index = len(_UNPACKERS)
        _UNPACKERS.append(unpack)


#: The first item of a packed run (private, so never a user's item). `object()` is not
#: tracked, so a run of atoms is not either (CPython untracks such tuples in a collection).
_PACKED: Final = object()
_UNPACKERS: list[Callable[[tuple[object, ...]], tuple[Any, ...]]] = []


def _unpacked(run: tuple[object, ...]) -> tuple[object, ...]:
    # (_PACKED, packing index, *encoded items)
    return _UNPACKERS[cast(int, run[1])](run[2:])


def _sealed(block: tuple[object, ...], packing: Packing) -> tuple[object, ...]:
    # A full block (32 items) as the body keeps it: a packed run where `packing` takes the
    # items, else the block itself. Both are tuples; readers tell them by the first item.
    encoded = packing.pack(block)
    if encoded is None:
        return block
    return (_PACKED, packing._index, *encoded)


def append_packed(vec: PVec[T], item: T, packing: Packing) -> PVec[T]:
    """`vec.append(item)`, except that a block sealed by this append is packed by `packing`.

    What a vector that keeps growing for long (the message being streamed) appends with:
    every 32 appends its full tail becomes one sealed block, and a packed block of atoms is
    one tuple the cyclic GC stops tracking, where a plain one keeps 32 tracked items for as
    long as the vector lives. The cost is one `packing.pack` of 32 items per 32 appends;
    the other 31 appends are `append`'s. Equal to `vec.append(item)`.
    """
    tail_len = vec._tail_len
    if tail_len < _BLOCK:
        return _raw(vec._base, tail_len + 1, vec if tail_len else None, item)
    levels, sealed = vec._base
    block = _sealed(vec._tail(), packing)
    return _raw((_push_block(levels, block), sealed + tail_len), 1, None, item)


def _compacted(base: Any, tail: Sequence[T], packing: Packing | None) -> PVec[T]:
    # One node holding `tail` (1..32 items) on `base`: a packed run where `packing` takes
    # the items, else a bundle (or the one item).
    if packing is not None:
        encoded = packing.pack(tail)
        if encoded is not None:
            return _raw(base, len(tail), None, (_PACKED, packing._index, *encoded))
    return _raw(base, len(tail), None, _bundle(tuple(tail)))


def compact_tail(vec: PVec[T], packing: Packing | None = None) -> PVec[T]:
    """`vec` with its unsealed tail held by one node instead of a chain (equal to `vec`).

    A vector built by `append` keeps one node per tail item (up to 32). A vector that will
    be kept but no longer appended to (a message that stopped streaming) can drop that
    chain: one node and one bundle instead of up to 32 nodes, which the cyclic garbage
    collector would otherwise walk on every full collection for as long as the vector lives.
    With a `packing`, the tail becomes one packed run where the packing takes its items
    (reading decodes them again: equal values, not the same objects). O(tail length). Not a
    `PVec` method: the public type's surface stays as it was.
    """
    if not vec._tail_len:
        return vec
    if vec._prev is None:
        item = vec._item
        if packing is None or (type(item) is tuple and item and item[0] is _PACKED):
            return vec
    return _compacted(vec._base, vec._tail(), packing)


def extend_compact(vec: PVec[T], items: Sequence[T], packing: Packing) -> PVec[T]:
    """`compact_tail(vec.extend(items), packing)`, without building the vector in between
    (what `fold` writes for a message: one copy of the items, its tail packed)."""
    if not items:
        return compact_tail(vec, packing)
    tail_len = vec._tail_len + len(items)
    if tail_len <= _BLOCK:
        tail = items if not vec._tail_len else (*vec._tail(), *items)
        return _compacted(vec._base, tail, packing)
    # The blocks it seals are packed too (as `append_packed` seals them): a long message
    # `fold` writes keeps no tracked item per chunk either.
    levels, sealed = vec._base
    buffer = (*vec._tail(), *items) if vec._tail_len else tuple(items)
    start = 0
    while len(buffer) - start > _BLOCK:
        levels = _push_block(levels, _sealed(buffer[start : start + _BLOCK], packing))
        start += _BLOCK
        sealed += _BLOCK
    return _compacted((levels, sealed), buffer[start:], packing)


def append_encoded(vec: PVec[T], encoded: object, packing: Packing) -> PVec[T]:
    """`extend_encoded(vec, (encoded,), packing)` for one item, without its copies where the
    tail is one run of `packing` already (or empty): the run grows by the item (a new tuple
    of at most 32 encoded items) and a full run is sealed as it stands, so no item is read
    again. What a tool call's content appends with: a call gets a few items, and its tail
    is one node and one untracked run from the first item on, where `append` keeps one
    node per item and the items themselves (two tracked objects each). Equal to
    `vec.append(unpack((encoded,))[0])`.
    """
    tail_len = vec._tail_len
    if not tail_len:
        return _raw(vec._base, 1, None, (_PACKED, packing._index, encoded))
    run = vec._item
    if (
        vec._prev is None
        and type(run) is tuple
        and run
        and run[0] is _PACKED
        and run[1] == packing._index
    ):
        if tail_len < _BLOCK:
            # Concatenation, not `(*run, encoded)`: one copy instead of a list and a copy.
            return _raw(vec._base, tail_len + 1, None, run + (encoded,))  # noqa: RUF005
        levels, sealed = vec._base
        body = (_push_block(levels, run), sealed + tail_len)
        return _raw(body, 1, None, (_PACKED, packing._index, encoded))
    return extend_encoded(vec, (encoded,), packing)


def extend_encoded(vec: PVec[T], encoded: Sequence[object], packing: Packing) -> PVec[T]:
    """`extend_compact(vec, items, packing)` given the items already encoded by `packing`
    (`encoded` as its `pack` would return them): what `fold` writes for a message it buffered
    encoded. Every block it seals and its tail are packed runs of `encoded` as given, so no
    item is read again (a long stream's chunk values are scattered over memory: reading each
    one back costs a cache miss). Equal to `vec.extend(unpack(encoded))`.
    """
    if not vec._tail_len:
        buffer: Sequence[object] = encoded  # sliced below: copied once, into the runs
    else:
        head = _tail_encoded(vec, packing)
        if head is None:  # a tail this packing cannot take: extend with the items themselves
            return extend_compact(vec, _UNPACKERS[packing._index](tuple(encoded)), packing)
        buffer = (*head, *encoded)
    if not buffer:
        return vec
    index = packing._index
    if len(buffer) <= _BLOCK:  # no block to seal: the base is shared, not copied
        return _raw(vec._base, len(buffer), None, (_PACKED, index, *buffer))
    levels, sealed = vec._base
    start = 0
    while len(buffer) - start > _BLOCK:
        levels = _push_block(levels, (_PACKED, index, *buffer[start : start + _BLOCK]))
        start += _BLOCK
        sealed += _BLOCK
    return _raw((levels, sealed), len(buffer) - start, None, (_PACKED, index, *buffer[start:]))


def _tail_parts(vec: PVec[Any], index: int) -> tuple[Sequence[object] | None, list[object]]:
    # The tail as (the run packed by packing `index`, if its oldest node is one: its items
    # encoded, taken as they are; the other items, oldest first, a run of another packing
    # decoded). A packed run is only ever the tail's oldest node: what the last `fold` or
    # compaction wrote, before `reduce` appended one item at a time.
    items: list[object] = []  # newest first
    run: Sequence[object] | None = None
    node: PVec[Any] | None = vec
    while node is not None:
        item = node._item
        if type(item) is _Bundle:
            items.extend(reversed(item))
        elif type(item) is tuple and item and item[0] is _PACKED:
            if item[1] == index:
                run = item[2:]
            else:
                items.extend(reversed(_unpacked(item)))
        else:
            items.append(item)
        node = node._prev
    items.reverse()
    return run, items


def _tail_encoded(vec: PVec[Any], packing: Packing) -> Sequence[object] | None:
    # The tail's items as `packing` encodes them, oldest first, or None where it cannot take
    # one. Its packed run is taken as it is: decoding it to encode it again would build every
    # item of the run anew, on each `fold` of a connection's short runs.
    run, items = _tail_parts(vec, packing._index)
    if not items:
        return () if run is None else run
    loose = packing.pack(items)
    if loose is None:
        return None
    return loose if run is None else (*run, *loose)


def packed_runs(vec: PVec[T], packing: Packing) -> Iterator[tuple[bool, Sequence[object]]]:
    """The items of `vec`, in order, a run at a time, for a reader that can use `packing`'s
    encoding as it is (a snapshot writing plain text without building the blocks again):
    `(True, encoded)` for a run `packing` keeps (its items as `packing` encoded them),
    `(False, items)` for items kept as they are (a run of another packing comes decoded).
    Joined, `unpack` of each encoded run and the items are `tuple(vec)`."""
    levels = vec._base[0]
    count = len(levels)
    index = packing._index
    for i, level in enumerate(levels):
        for node in level:
            for block in _blocks(node, count - 1 - i):
                if block[0] is _PACKED:
                    if block[1] == index:
                        yield True, block[2:]
                    else:
                        yield False, _unpacked(block)
                else:
                    yield False, block
    if vec._tail_len:
        run, items = _tail_parts(vec, index)
        if run is not None:
            yield True, run
        if items:
            yield False, items


def _blocks(node: object, height: int) -> Iterator[tuple[object, ...]]:
    # The blocks of a body element, in order (`_iter_node`, a block at a time).
    if height == 0:
        yield node  # type: ignore[misc]
        return
    for child in node:  # type: ignore[attr-defined]
        yield from _blocks(child, height - 1)


def _push_block(
    body: tuple[tuple[object, ...], ...], block: tuple[object, ...]
) -> tuple[tuple[object, ...], ...]:
    # body[-1] is level 0 (blocks); body[-2] level 1 (nodes of 32 blocks) and so on.
    # Adding a block is incrementing a base-32 counter: a full level carries into the next.
    levels = list(body)
    carry: tuple[object, ...] = block
    depth = len(levels) - 1
    while True:
        grown = (*levels[depth], carry)
        if len(grown) < _BLOCK:
            levels[depth] = grown
            break
        levels[depth] = ()
        carry = grown
        if depth == 0:
            levels.insert(0, (carry,))
            break
        depth -= 1
    return tuple(levels)


def _iter_node(node: object, height: int) -> Iterator[T]:
    # An element at height 0 is a block of items; at height h a tuple of height h-1 elements.
    if height == 0:
        if node[0] is _PACKED:  # type: ignore[index]
            yield from _unpacked(node)  # type: ignore[arg-type,misc]
        else:
            yield from node  # type: ignore[misc]
        return
    for child in node:  # type: ignore[attr-defined]
        yield from _iter_node(child, height - 1)


def _body_get(body: tuple[tuple[object, ...], ...], index: int) -> object:
    count = len(body)
    for i, level in enumerate(body):
        height = count - 1 - i
        span = _BLOCK ** (height + 1)  # items under one node of this level
        covered = len(level) * span
        if index < covered:
            node: object = level[index // span]
            index %= span
            while height > 0:
                span //= _BLOCK
                node = node[index // span]  # type: ignore[index]
                index %= span
                height -= 1
            if node[0] is _PACKED:  # type: ignore[index]
                return _unpacked(node)[index]  # type: ignore[arg-type]
            return node[index]  # type: ignore[index]
        index -= covered
    msg = "PVec index out of range"
    raise IndexError(msg)


_EMPTY_READY = False
_EMPTY: PVec[object] = _raw((((),), 0), 0, None, None)
_EMPTY_READY = True
EMPTY_VEC: PVec[Any] = _EMPTY
