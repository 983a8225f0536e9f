"""Codec specs derived from the value classes: each wire type is declared once, as its class.

Owns: the derivation rules, applied to an attrs class field by field:
- the wire key is the camelCase of the attribute (`meta` is `_meta`), unless `wire(key=...)`;
- a field without a default is required; a field whose type admits `None` is nullable;
- an optional field is lenient, a required one strict, unless `wire(lenient=...)`;
- the value codec follows the annotation: `str`, `bool`, `float`, `int` (with
  `wire(codec=<width>)`), frozen JSON, tuples (lists), attrs classes (records) and unions of
  classes (tagged unions built from the members' `__wire_tag__`, with the tag-less `Other*`
  member as the fallback);
- a field or class with a `since` that is not in the revision's lineage is not on the wire;
- a field's key is the latest `wire(key_since=...)` pair of the key lineage (a rename), and a
  pair with key None takes the field off that revision's wire (a removal). The key lineage is
  the revision's own: decoding and encoding a revision read the same keys.
Also owns the two hooks for shapes those rules cannot express: `custom` codecs by member set
(untagged unions, a tag that is a field) and display `names` of unions.
Must not know: which classes exist, JSON-RPC methods, the public decode API (`_wire/_codec.py`).
"""

from __future__ import annotations

import types
import typing
from collections.abc import Callable, Mapping
from typing import Any, Final

import attrs

from ._codec_core import (
    BOOL,
    INTS,
    JSON,
    NUMBER,
    OBJECT,
    STR,
    BoundedStr,
    Codec,
    Field,
    ListCodec,
    NonEmpty,
    Record,
    Union,
)
from ._fields import WIRE, WireField, since_of
from ._json import UNSET, Unset

__all__ = ["Deriver", "Members", "members_of"]

#: A union's identity: the set of its member types (absent and null removed).
Members = frozenset[object]

_NONE: Final = type(None)
_NO_EXCEPTIONS: Final = WireField()
# Skipped by every record: they are not wire keys of the object itself.
_NOT_KEYS: Final = frozenset({"extra", "envelope_extra"})


class _JsonValue:
    """Stands for `JsonValue` while annotations are resolved (the real alias is a flat
    union of scalars that would lose its identity)."""


class _JsonObject:
    """Stands for `JsonObject` while annotations are resolved."""


# What the aliases of `_wire/_json.py` mean to the resolver.
_MARKS: Final[Mapping[str, object]] = {
    "JsonValue": _JsonValue,
    "JsonObject": _JsonObject,
    "Meta": typing.Union[_JsonObject, None, Unset],  # noqa: UP007 (a runtime value)
}


def _resolve(annotation: object, scope: dict[str, object], resolved: dict[str, object]) -> object:
    """`annotation` evaluated in `scope`, once per text: the same few dozen annotations recur
    across hundreds of fields (issue 24: 626 evaluations, each merging the namespace, were a
    fifth of the codec's first use)."""
    if not isinstance(annotation, str):
        return annotation
    hint = resolved.get(annotation, _UNRESOLVED)
    if hint is _UNRESOLVED:
        hint = resolved[annotation] = eval(annotation, scope)  # our own class annotations only
    return hint


_UNRESOLVED = object()


def _members(hint: object) -> tuple[object, ...]:
    if typing.get_origin(hint) in (typing.Union, types.UnionType):
        return typing.get_args(hint)
    return (hint,)


def members_of(alias: object) -> Members:
    """The member set of a union alias (e.g. `SessionUpdate`), as the deriver keys it."""
    return frozenset(m for m in _members(alias) if m not in (_NONE, Unset))


def _camel(name: str) -> str:
    head, *rest = name.split("_")
    return head + "".join(part.capitalize() for part in rest)


def _is_raw(cls: object) -> bool:
    # An `Other*` class: it keeps the whole object and has no wire fields of its own.
    return attrs.has(cls) and [a.name for a in attrs.fields(cls)] == ["raw"]  # type: ignore[arg-type]


def _union_name(tag_value: str) -> str:
    return "".join(part.capitalize() for part in tag_value.split("_"))


class Deriver:
    """Builds the specs of one revision, each class's once (records are shared within it).

    `namespace` resolves the classes' annotations (the value modules' names); `custom` maps a
    member set to a factory for the codec of that set; `names` gives unions their schema
    names (used in error messages).
    """

    def __init__(
        self,
        lineage: tuple[str, ...],
        namespace: Mapping[str, object],
        custom: Mapping[Members, Callable[[Deriver], Codec]],
        names: Mapping[Members, str],
        keys: tuple[str, ...] | None = None,
    ) -> None:
        self.lineage = lineage
        self.keys = lineage if keys is None else keys
        self.namespace = namespace
        self._scope = {**namespace, **_MARKS}
        self._resolved: dict[str, object] = {}
        self.custom = custom
        self.names = names
        self._records: dict[tuple[type[Any], bool], Record] = {}
        self._codecs: dict[Members, Codec] = {}

    def on_wire(self, since: str | None) -> bool:
        return since is None or since in self.lineage

    def record(
        self,
        cls: type[Any],
        *,
        tagged: bool = False,
        check: Callable[[Any, Any], None] | None = None,
    ) -> Record:
        """The record of `cls`; `tagged` when reached through its union (it writes the tag)."""
        record = self._records.get((cls, tagged))
        if record is None:
            tags: tuple[tuple[str, str], ...] = getattr(cls, "__wire_tag__", ()) if tagged else ()
            record = Record(cls, cls.__name__, self.fields(cls), tags, check)
            self._records[(cls, tagged)] = record
        return record

    def fields(self, cls: type[Any], skip: frozenset[str] = frozenset()) -> tuple[Field, ...]:
        """The wire fields of `cls` in class order (without `extra` and the names in `skip`)."""
        out = []
        for a in attrs.fields(cls):
            if a.name in _NOT_KEYS or a.name in skip:
                continue
            wf: WireField = a.metadata.get(WIRE, _NO_EXCEPTIONS)
            members = _members(_resolve(a.type, self._scope, self._resolved))
            types_ = tuple(m for m in members if m not in (_NONE, Unset))
            required = a.default is attrs.NOTHING
            key = wf.key or ("_meta" if a.name == "meta" else _camel(a.name))
            removed = False
            for revision, later in wf.key_since:  # the latest key this lineage has
                if revision in self.keys:
                    removed = later is None
                    key = key if later is None else later
            out.append(
                Field(
                    a.name,
                    key,
                    self._codec(types_, wf, f"{cls.__name__}.{a.name}"),
                    required,
                    _NONE in members or _JsonValue in types_,
                    (not required) if wf.lenient is None else wf.lenient,
                    UNSET if wf.on_error is None else wf.on_error,
                    self.on_wire(wf.since) and not removed,
                    removed,
                )
            )
        return tuple(out)

    def _codec(self, types_: tuple[object, ...], wf: WireField, where: str) -> Codec:
        if len(types_) != 1:
            return self.union(frozenset(types_), types_)
        (t,) = types_
        if typing.get_origin(t) is tuple:
            item, _ellipsis = typing.get_args(t)
            codec: Codec = ListCodec(self.of_type(item, where), skip_invalid=wf.skip_invalid)
            return NonEmpty(codec) if wf.min_items else codec  # type: ignore[arg-type]
        if t is int:
            width = wf.codec
            for revision, later in wf.codec_since:  # the latest width this lineage has
                if revision in self.lineage:
                    width = later
            if width is None:
                msg = f"{where}: an int field needs wire(codec=...) to say its width"
                raise TypeError(msg)
            return INTS[width]
        if t is str and wf.length is not None:
            return BoundedStr(*wf.length)
        scalar = _SCALARS.get(t)
        if scalar is not None:
            return scalar
        return self.of_type(t, where)

    def of_type(self, t: object, where: str) -> Codec:
        """The codec of a type: a class's record, or the union of an alias's members."""
        members = _members(t)
        if len(members) > 1:
            return self.union(members_of(t), members)
        if isinstance(t, type) and attrs.has(t):
            return self.record(t)
        scalar = _SCALARS.get(t)
        if scalar is None:
            msg = f"{where}: no codec for {t!r}"
            raise TypeError(msg)
        return scalar

    def union(self, key: Members, members: tuple[object, ...]) -> Codec:
        """The codec of a member set: a custom one, or the tagged union of the members."""
        codec = self._codecs.get(key)
        if codec is None:
            factory = self.custom.get(key)
            if factory is not None:
                codec = factory(self)
            else:
                name = self.names.get(key, " | ".join(getattr(m, "__name__", "?") for m in members))
                codec = self.tagged_union(members, name)
            self._codecs[key] = codec
        return codec

    def tagged_union(self, members: tuple[object, ...], name: str, depth: int = 0) -> Union:
        """The union of `members` by their tags at `depth` (nested tags nest unions)."""
        groups: dict[str, list[Any]] = {}
        other: type[Any] | None = None
        tag_key = ""
        for m in members:
            if not self.on_wire(since_of(m)):
                continue  # a later revision's variant: an unknown tag here
            tag: tuple[tuple[str, str], ...] = getattr(m, "__wire_tag__", ())
            if len(tag) <= depth:
                if _is_raw(m):
                    other = m  # type: ignore[assignment]
                # else: a value class with no wire declaration yet (no `__wire_tag__`): it
                # is not decoded, its tag stays unknown (tests/test_codec_derived.py lists
                # such classes, so none is forgotten).
                continue
            key, value = tag[depth]
            assert tag_key in ("", key), f"{name}: tags under two keys ({tag_key}, {key})"
            tag_key = key
            groups.setdefault(value, []).append(m)
        variants: dict[str, Codec] = {}
        for value, group in groups.items():
            (first,) = group if len(group) == 1 else (None,)
            if first is not None and len(first.__wire_tag__) == depth + 1 and not _is_raw(first):
                variants[value] = self.record(first, tagged=True)
            else:
                variants[value] = self.tagged_union(tuple(group), _union_name(value), depth + 1)
        requires: tuple[str, ...] = getattr(other, "__wire_requires__", ())
        return Union(tag_key, name, variants, other, requires)


_SCALARS: Final[Mapping[object, Codec]] = {
    str: STR,
    bool: BOOL,
    float: NUMBER,
    _JsonValue: JSON,
    _JsonObject: OBJECT,
}
