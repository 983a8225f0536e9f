"""Hypothesis strategies: scalars, JSON, `_meta`, `extra`, patches and open enums.

Owns: the building blocks every other strategy module draws with, and the known tags an
unknown one must never be.
Must not know: any value class beyond the tag sets. Public surface: `acp_core.strategies`.
"""

from __future__ import annotations

import base64
import functools
from collections.abc import Callable, Iterable, Mapping
from typing import Any, Final, ParamSpec, TypeVar, cast

import attrs
import immutables

from acp_core._wire import _content as c
from acp_core._wire import _jsonrpc as j
from acp_core._wire import _updates as u
from acp_core._wire._fields import WIRE
from acp_core._wire._json import EMPTY_OBJECT, UNSET, JsonObject, JsonValue, Meta, Patch, Unset
from acp_core._wire._revision import REVISIONS, Revision

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hypothesis import strategies as st
else:
    from ._hypothesis import st  # hypothesis is imported when a strategy is first built

T = TypeVar("T")
P = ParamSpec("P")

_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1
_UINT32_MAX: Final = 2**32 - 1
_UINT64_MAX: Final = 2**64 - 1
_INT32_MIN: Final = -(2**31)
_INT32_MAX: Final = 2**31 - 1

# -- known tags (what an unknown tag must never be) -------------------------------------

_CONTENT_TAGS: Final = frozenset({"text", "image", "audio", "resource_link", "resource"})
_TOOL_CONTENT_TAGS: Final = frozenset({"content", "diff", "terminal"})
_DIFF_OPERATIONS: Final = (
    c.DiffOperation.ADD,
    c.DiffOperation.DELETE,
    c.DiffOperation.MODIFY,
    c.DiffOperation.MOVE,
    c.DiffOperation.COPY,
)
# Every update kind any revision defines: an "unknown" tag must be unknown to all of them.
_UPDATE_TAGS: Final = frozenset().union(*(r.update_kinds for r in REVISIONS.values()))
# `file` and `markdown` are reserved plan types the stable schema rejects (digest Q9).
_RESERVED_PLAN_TYPES: Final = ("file", "markdown")

# Words a future ACP revision might use; each is filtered against the known tags of its union.
_FUTURE_WORDS: Final = ("notice", "compaction", "paused", "error", "background", "widget")

_LOWER: Final = "abcdefghijklmnopqrstuvwxyz"
_KEY_ALPHABET: Final = _LOWER + "0123456789_"

# -- scalars -----------------------------------------------------------------------------


def built_once(build: Callable[P, T]) -> Callable[P, T]:
    """`build`, a public strategy's constructor, caching what it builds per arguments: a
    strategy is a description, and one that is rebuilt for every draw (hypothesis caches
    only so many) costs more than the draw (measured: 30 updates drawn in 46 s, 0.5 s
    once each constructor builds once). A function still, with `build`'s signature and
    docstring, so the API reference reads it as written."""
    # (the cache keys on the arguments, which a strategy constructor takes hashable)
    cached = cast(Callable[P, T], functools.cache(build))

    @functools.wraps(build)
    def once(*args: P.args, **kwargs: P.kwargs) -> T:
        return cached(*args, **kwargs)

    return once


@functools.cache
def _texts() -> st.SearchStrategy[str]:
    return st.text(max_size=10)


@functools.cache
def _ids() -> st.SearchStrategy[str]:
    return st.text(max_size=8)


def _edged(
    lo: int, hi: int, inside: st.SearchStrategy[int] | None = None
) -> st.SearchStrategy[int]:
    """Integers of `[lo, hi]` (or of `inside`), each edge `lo`, `hi` drawn 1 time in 8: a
    plain `integers` of a 64-bit range seldom draws its edges, and a bug at a width's limit
    (the codec's, a renderer's) hides behind that."""
    middle = st.integers(lo, hi) if inside is None else inside
    return st.builds(_pick_edge, st.just(lo), st.just(hi), st.integers(0, 7), middle)


def _pick_edge(lo: int, hi: int, roll: int, inside: int) -> int:
    return hi if roll == 1 else lo if roll == 2 else inside


def _bounded_texts(lo: int, hi: int) -> st.SearchStrategy[str]:
    """Strings of `lo` to `hi` characters: short ones mostly, and 1 time in 8 each, exactly
    `lo` and exactly `hi` (one drawn character repeated: a long random text costs draws)."""
    return st.builds(
        _pick_length,
        st.just(lo),
        st.just(hi),
        st.integers(0, 7),
        st.text(min_size=lo, max_size=min(hi, lo + 8)),
    )


def _pick_length(lo: int, hi: int, roll: int, inside: str) -> str:
    if roll == 1:
        return (inside or "x")[0] * hi
    return inside[:lo] if roll == 2 else inside  # `inside` has at least `lo` characters


@functools.cache
def _uint32() -> st.SearchStrategy[int]:
    return _edged(0, _UINT32_MAX)


@functools.cache
def _uint64() -> st.SearchStrategy[int]:
    return _edged(0, _UINT64_MAX)


@functools.cache
def _int64() -> st.SearchStrategy[int]:
    return _edged(_INT64_MIN, _INT64_MAX)


@functools.cache
def _paths() -> st.SearchStrategy[str]:
    return st.lists(st.text(_LOWER, min_size=1, max_size=5), min_size=1, max_size=3).map(
        lambda parts: "/" + "/".join(parts)
    )


@functools.cache
def _uris() -> st.SearchStrategy[str]:
    return _paths().map(lambda path: "file://" + path)


@functools.cache
def _mime_types() -> st.SearchStrategy[str]:
    return st.sampled_from(
        ("text/plain", "text/markdown", "image/png", "audio/wav", "application/json")
    )


@functools.cache
def _base64() -> st.SearchStrategy[str]:
    return st.binary(max_size=24).map(lambda b: base64.b64encode(b).decode("ascii"))


@functools.cache
def _currencies() -> st.SearchStrategy[str]:
    return st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=3, max_size=3)


@functools.cache
def _timestamps() -> st.SearchStrategy[str]:
    return st.builds(
        "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z".format,
        st.integers(1970, 2100),
        st.integers(1, 12),
        st.integers(1, 28),
        st.integers(0, 23),
        st.integers(0, 59),
        st.integers(0, 59),
    )


@functools.cache
def _extra_keys() -> st.SearchStrategy[str]:
    return st.builds(str.__add__, st.sampled_from(("_x", "zz")), st.text(_KEY_ALPHABET, max_size=5))


def _tuples(
    strategy: st.SearchStrategy[T], *, min_size: int = 0, max_size: int = 3
) -> st.SearchStrategy[tuple[T, ...]]:
    return st.lists(strategy, min_size=min_size, max_size=max_size).map(tuple)


# -- JSON, meta, extra, patches, open enums ------------------------------------------------


@built_once
def json_values(*, max_leaves: int = 6) -> st.SearchStrategy[JsonValue]:
    """Frozen JSON: None, bools, int64 integers, finite floats, strings, tuples, Maps."""
    leaves: st.SearchStrategy[JsonValue] = st.one_of(
        st.none(),
        st.booleans(),
        _int64(),
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=8),
    )

    def extend(children: st.SearchStrategy[JsonValue]) -> st.SearchStrategy[JsonValue]:
        arrays: st.SearchStrategy[JsonValue] = _tuples(children)
        objects: st.SearchStrategy[JsonValue] = st.dictionaries(
            st.text(max_size=6), children, max_size=3
        ).map(immutables.Map)
        return arrays | objects

    return st.recursive(leaves, extend, max_leaves=max_leaves)


@built_once
def json_objects(*, max_leaves: int = 6) -> st.SearchStrategy[JsonObject]:
    """Frozen JSON objects (`immutables.Map` with string keys)."""
    return st.dictionaries(st.text(max_size=6), json_values(max_leaves=max_leaves), max_size=3).map(
        immutables.Map
    )


@built_once
def metas() -> st.SearchStrategy[Meta]:
    """A `_meta` field: `UNSET` (absent), `None` (null) or a JSON object."""
    return st.one_of(st.just(UNSET), st.none(), json_objects(max_leaves=4))


@built_once
def extras() -> st.SearchStrategy[JsonObject]:
    """An `extra` map of unknown keys; the keys (`_x...`, `zz...`) are no ACP type's wire key."""
    return st.one_of(
        st.just(EMPTY_OBJECT),
        st.dictionaries(_extra_keys(), json_values(max_leaves=3), min_size=1, max_size=2).map(
            immutables.Map
        ),
    )


def patches(strategy: st.SearchStrategy[T]) -> st.SearchStrategy[Patch[T]]:
    """A tri-state field: `UNSET` (absent), `None` (null) or a value drawn from `strategy`."""
    absent: st.SearchStrategy[Patch[T]] = st.just(UNSET)
    return st.one_of(absent, st.none(), strategy)


def unknown_tags(known: Iterable[str]) -> st.SearchStrategy[str]:
    """Tags or enum values outside `known`: `_`-prefixed extension ones and future ones."""
    known_set = frozenset(known)
    return st.one_of(
        st.text(max_size=8).map(lambda s: "_" + s),
        st.sampled_from(_FUTURE_WORDS).filter(lambda s: s not in known_set),
        st.text(min_size=1, max_size=10).filter(
            lambda s: not s.startswith("_") and s not in known_set
        ),
    )


def open_enum_values(known: Iterable[str]) -> st.SearchStrategy[str]:
    """A value of an open enum: a known constant, an extension value or a future one."""
    known_sorted = sorted(known)
    return st.one_of(st.sampled_from(known_sorted), unknown_tags(known_sorted))


def _raw_objects(
    tag_key: str,
    tags: st.SearchStrategy[str],
    fields: Mapping[str, st.SearchStrategy[Any]] | None = None,
) -> st.SearchStrategy[JsonObject]:
    """The raw object of an `Other*` variant: unknown tag, required fields, free extras."""
    free = st.dictionaries(_extra_keys(), json_values(max_leaves=3), max_size=2)
    required = st.fixed_dictionaries({**(fields or {}), tag_key: tags})
    return st.builds(_merge_raw, free, metas(), required)


def _merge_raw(free: dict[str, JsonValue], meta: Meta, required: dict[str, Any]) -> JsonObject:
    out = dict(free)
    if meta is not UNSET:
        out["_meta"] = meta
    out.update(required)
    return immutables.Map(out)


_ROLES: Final = ("assistant", "user")
_ICON_THEMES: Final = ("light", "dark")
_FILE_TYPES: Final = (
    c.DiffFileType.TEXT,
    c.DiffFileType.BINARY,
    c.DiffFileType.DIRECTORY,
    c.DiffFileType.SYMLINK,
)
_CATEGORIES: Final = (
    u.SessionConfigOptionCategory.MODE,
    u.SessionConfigOptionCategory.MODEL,
    u.SessionConfigOptionCategory.MODEL_CONFIG,
    u.SessionConfigOptionCategory.THOUGHT_LEVEL,
)
_PERMISSION_KINDS: Final = (
    j.PermissionOptionKind.ALLOW_ONCE,
    j.PermissionOptionKind.ALLOW_ALWAYS,
    j.PermissionOptionKind.REJECT_ONCE,
    j.PermissionOptionKind.REJECT_ALWAYS,
)


def _on_wire(cls: type[Any], name: str, revision: Revision) -> bool:
    # A field a later revision adds (`wire(since=...)`) is on the wire of revisions after it.
    wire = attrs.fields_dict(cls)[name].metadata.get(WIRE)
    return wire is None or wire.since is None or revision.includes(wire.since)


def _since(
    cls: type[Any], name: str, revision: Revision, strategy: st.SearchStrategy[T]
) -> st.SearchStrategy[T | Unset]:
    """`strategy` where `revision` carries the field `cls.name`, else always absent: a field a
    later revision adds is drawn only for revisions that carry it."""
    absent: st.SearchStrategy[T | Unset] = st.just(UNSET)
    return strategy if _on_wire(cls, name, revision) else absent
