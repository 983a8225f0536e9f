"""Value classes made as attrs makes them, with methods written at build time instead of import.

Owns: `prepare(cls, options)`, attrs' own reading of a class decorated `attrs.frozen(**options)`
(its `Attribute`s, field transformer included, and its `ClassProps`); `finish(prepared,
make)`, attrs' own slotted class made from that reading, with the `__init__` (or
`__attrs_init__`), `__repr__`, `__eq__` and `__hash__` that `make` returns in place of the
ones attrs would write and compile; `effective_methods(props)`, which of those a class gets.
Must not know: any ACP type; where `make` comes from (`_wire/_value.py` decides).

Why: of attrs' class builder, writing the methods' source and compiling it was most of the
cost of building a class (issue 24: about 45 of 70 ms on the quick start's path). The rest is
kept, calling attrs' own code, so the class is the one attrs would make: the same
`__attrs_attrs__`, `__attrs_props__`, `__slots__` (and `__weakref__`), `__match_args__`,
frozen `__setattr__`/`__delattr__`, pickling `__getstate__`/`__setstate__` and `__ne__`.

It calls attrs internals (`attr._make`), so it is used only with an attrs whose internals have
the shape the generated module was written against (`ATTRS_SHAPE`: the fields of attrs'
class builder, class properties and `Attribute`, the builder's steps, and the parameters of
`define` and `attrs`; the version itself would cost importing `importlib.metadata`):
`_wire/_value.py` checks it and otherwise lets attrs build the class.
`prepare` answers None (attrs builds the class) for any option or class feature this module
does not make: any option but `field_transformer`, `init`, `repr`, `eq`, `weakref_slot`,
`slots=True`, `order=False`; an exception class; `__attrs_pre_init__`;
`__attrs_init_subclass__`; a cached property; an own `__setattr__`; an unannotated field.
tests/test_values_built.py compares every value class made here with attrs' own build.
"""

from __future__ import annotations

import weakref
import zlib
from collections.abc import Callable
from functools import cached_property
from typing import Any

import attrs
from attr import _make
from attr._compat import PY_3_13_PLUS
from attrs.exceptions import UnannotatedAttributeError

#: attrs' internals, untyped: used only at `ATTRS_SHAPE` (module doc).
attrs_make: Any = _make

__all__ = ["ATTRS_SHAPE", "Prepared", "effective_methods", "finish", "prepare"]


def _attrs_shape() -> int | None:
    """A fingerprint of the attrs internals this module calls (module doc), the same on every
    Python version; None if attrs lacks them (a release before 25.4)."""
    builder = getattr(attrs_make, "_ClassBuilder", None)
    props = getattr(attrs_make, "ClassProps", None)
    if builder is None or props is None:
        return None
    define = attrs.define.__code__
    make = attrs_make.attrs.__code__
    parts = (
        props.__slots__,
        builder.__slots__,
        attrs_make.Attribute.__slots__,
        sorted(name for name in vars(builder) if not name.startswith("__")),
        define.co_varnames[: define.co_argcount + define.co_kwonlyargcount],
        make.co_varnames[: make.co_argcount + make.co_kwonlyargcount],
    )
    return zlib.crc32("|".join(",".join(part) for part in parts).encode())


#: The shape of the installed attrs' internals (`_attrs_shape`).
ATTRS_SHAPE = _attrs_shape()

#: The `attrs.frozen` options this module makes classes for, with the values it accepts
#: (None: any value).
_OPTIONS: dict[str, tuple[object, ...] | None] = {
    "field_transformer": None,
    "init": (True, False, None),
    "repr": (True, False, None),
    "eq": (True, False, None),
    "weakref_slot": (True, False),
    "slots": (True,),
    "order": (False,),
}

_Props: Any = getattr(attrs_make, "ClassProps", None)
_implement: Any = attrs_make._determine_whether_to_implement


class Prepared:
    """attrs' reading of one class: its builder (fields, class dict) and its `ClassProps`."""

    __slots__ = ("builder", "cls", "fields", "props")

    def __init__(self, cls: type, builder: Any, props: Any) -> None:
        self.cls = cls
        self.builder = builder
        self.props = props
        self.fields: tuple[attrs.Attribute[Any], ...] = builder._attrs


def _unsupported(cls: type, options: dict[str, Any]) -> bool:
    for name, value in options.items():
        accepted = _OPTIONS.get(name, ())
        if accepted is not None and value not in accepted:
            return True
    own = cls.__dict__
    return (
        issubclass(cls, BaseException)
        or "__setattr__" in own
        or hasattr(cls, "__attrs_pre_init__")
        or hasattr(cls, "__attrs_init_subclass__")
        or any(isinstance(v, cached_property) for v in own.values())
    )


def _props(cls: type, options: dict[str, Any]) -> Any:
    """The `ClassProps` attrs' `define(frozen=True, **options)` gives `cls` (its `wrap`)."""
    eq = _implement(cls, options.get("eq"), True, ("__eq__", "__ne__"))
    hashability = _Props.Hashability
    if "__hash__" in cls.__dict__ or not eq:
        hashable = hashability.LEAVE_ALONE
    else:
        hashable = hashability.HASHABLE
    # A subclass of a frozen class inherits its frozen-ness with a no-op on_setattr.
    frozen_base = any(b.__setattr__ is attrs_make._frozen_setattrs for b in cls.__bases__)
    return _Props(
        is_exception=False,
        is_slotted=True,
        has_weakref_slot=options.get("weakref_slot", True),
        is_frozen=True,
        kw_only=_Props.KeywordOnly.NO,
        collected_fields_by_mro=True,
        added_init=_implement(cls, options.get("init"), True, ("__init__",)),
        added_repr=_implement(cls, options.get("repr"), True, ("__repr__",)),
        added_eq=eq,
        added_ordering=False,
        hashability=hashable,
        added_match_args=True,
        added_str=False,
        added_pickling=_implement(cls, None, True, ("__getstate__", "__setstate__")),
        on_setattr_hook=attrs.setters.NO_OP if frozen_base else None,
        field_transformer=options.get("field_transformer"),
    )


def effective_methods(props: Any) -> tuple[bool, bool, bool, bool]:
    """Which of `__init__`, `__repr__`, `__eq__` and `__hash__` attrs writes for a class with
    these `ClassProps` (`__attrs_init__` in place of an `__init__` it does not write)."""
    return (
        bool(props.added_init),
        bool(props.added_repr),
        bool(props.added_eq),
        props.hashability is _Props.Hashability.HASHABLE,
    )


def prepare(cls: type, options: dict[str, Any]) -> Prepared | None:
    """attrs' reading of `cls` as `attrs.frozen(cls, **options)` would read it, or None if
    this module does not make such a class (module doc). Leaves `cls` untouched."""
    if _unsupported(cls, options):
        return None
    props = _props(cls, options)
    try:
        builder = attrs_make._ClassBuilder(
            cls, None, auto_attribs=True, props=props, has_custom_setattr=False
        )
    except UnannotatedAttributeError:
        return None  # `define` would read it with auto_attribs=False: attrs builds it
    return Prepared(cls, builder, props)


def finish(prepared: Prepared, make: Callable[..., tuple[Any, Any, Any, Any]]) -> type:
    """The slotted class attrs makes from `prepared`, its methods from `make(cls, fields,
    NOTHING)` (the generated factory: `__init__` or `__attrs_init__`, `__repr__`, `__eq__`,
    `__hash__`)."""
    builder, props, cls = prepared.builder, prepared.props, prepared.cls
    init, repr_, eq, hashed = effective_methods(props)
    own = cls.__dict__
    if eq:
        builder._cls_dict["__ne__"] = attrs_make.__ne__
    if PY_3_13_PLUS and "__replace__" not in own:
        builder.add_replace()
    if "__match_args__" not in own:
        builder.add_match_args()
    built: type = builder._create_slots_class()
    cls.__attrs_base_of_slotted__ = weakref.ref(built)  # type: ignore[attr-defined]
    methods = make(built, built.__attrs_attrs__, attrs.NOTHING)  # type: ignore[attr-defined]
    names = ("__init__" if init else "__attrs_init__", "__repr__", "__eq__", "__hash__")
    for name, method, wanted in zip(names, methods, (True, repr_, eq, hashed), strict=True):
        if wanted:
            method.__name__ = name
            setattr(built, name, builder._add_method_dunders(method))
    return built
