"""Every core value class made from the generated module (acp_core/_wire/_value_build.py),
compared with the class attrs itself makes from the same class body: its twin.

Run in a fresh interpreter (`python tests/value_twins.py`, as tests/test_values_built.py does):
it switches on `_value.TWINS` before the core is imported, imports every core module, builds
each recorded class body again with `attrs.frozen(**options)`, and prints as JSON, per class
(`module:qualname`), the list of differences found (empty: indistinguishable).

What is compared: the class (its bases, metaclass, names, `__slots__`, `__match_args__`, the
keys and non-method values of its `__dict__`, frozen `__setattr__`/`__delattr__`,
`__attrs_props__`), every `Attribute` of `attrs.fields` (name, default, factory, validator,
converter, flags, metadata, type, alias, inheritance), every method's name, qualname, module,
doc, signature and annotations; and, on instances with the same field values, what each
operation gives: construction from keywords, `repr`, `==` and `!=` against a copy and against
a copy with each field changed, `hash`, `attrs.evolve` of each field, `attrs.asdict`,
`copy.copy`, `copy.deepcopy`, `__getstate__`/`__setstate__`, setting and deleting a field and
a non-field, a weak reference, and `match` by position.
"""

from __future__ import annotations

import copy
import inspect
import json
import re
import sys
import weakref
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent

#: `Attribute` attributes compared as they are (the converter is compared apart: the field
#: transformer makes a new function for each build).
ATTRIBUTE_PARTS = (
    "name", "default", "validator", "repr", "eq", "eq_key", "order", "order_key", "hash",
    "init", "metadata", "type", "kw_only", "inherited", "on_setattr", "alias",
    "alias_is_default",
)  # fmt: skip


def outcome(call: Any) -> str:
    """What `call()` gives, as text: its repr, or its exception's type and message."""
    try:
        result = call()
    except Exception as exc:
        return f"raises {type(exc).__name__}: {exc}"
    return "gives " + re.sub(r" at 0x[0-9a-f]+", "", repr(result))


def _method_view(fn: Any) -> Any:
    if not callable(fn):
        return repr(fn)
    try:
        signature = str(inspect.signature(fn))
    except (TypeError, ValueError):
        signature = "?"
    return (
        getattr(fn, "__name__", None),
        getattr(fn, "__qualname__", None),
        getattr(fn, "__module__", None),
        getattr(fn, "__doc__", None),
        re.sub(r" at 0x[0-9a-f]+", "", signature),
        repr(sorted(getattr(fn, "__annotations__", {}).items())),
    )


def _class_differences(fast: type, twin: type) -> list[str]:
    import attrs

    out: list[str] = []
    for part in ("__name__", "__qualname__", "__module__", "__doc__", "__slots__",
                 "__match_args__", "__bases__", "__setattr__", "__delattr__"):  # fmt: skip
        if getattr(fast, part, None) != getattr(twin, part, None):
            out.append(f"{part}: {getattr(fast, part, None)!r} != {getattr(twin, part, None)!r}")
    if type(fast) is not type(twin):
        out.append("metaclass")
    if fast.__mro__[1:] != twin.__mro__[1:]:
        out.append("__mro__")
    if attrs.has(fast) is not attrs.has(twin):
        out.append("attrs.has")
    # The twin is made from the class body after `fast` was: it copies the body's mark
    # `__attrs_base_of_slotted__` (set on the body by whichever build came first).
    twin_keys = set(vars(twin)) - {"__attrs_base_of_slotted__"}
    if set(vars(fast)) != twin_keys:
        out.append(f"__dict__ keys: {sorted(set(vars(fast)) ^ twin_keys)}")
    for name in set(vars(fast)) & set(vars(twin)):
        mine, theirs = vars(fast)[name], vars(twin)[name]
        if name in ("__attrs_attrs__", "__dict__", "__weakref__") or name in fast.__slots__:
            continue
        if name == "__attrs_props__":
            for slot in type(mine).__slots__:
                if getattr(mine, slot) != getattr(theirs, slot):
                    out.append(f"__attrs_props__.{slot}")
        elif inspect.isfunction(mine) or inspect.isfunction(theirs):
            if _method_view(mine) != _method_view(theirs):
                out.append(f"{name}: {_method_view(mine)} != {_method_view(theirs)}")
        elif mine is not theirs and mine != theirs:
            out.append(f"{name}: {mine!r} != {theirs!r}")
    if type(fast.__attrs_attrs__).__name__ != type(twin.__attrs_attrs__).__name__:  # type: ignore[attr-defined]
        out.append("__attrs_attrs__ type")
    mine_fields, their_fields = attrs.fields(fast), attrs.fields(twin)
    if len(mine_fields) != len(their_fields):
        return [*out, "number of fields"]
    for a, b in zip(mine_fields, their_fields, strict=True):
        if getattr(mine_fields, a.name) is not a:
            out.append(f"attrs.fields(...).{a.name}")
        for part in ATTRIBUTE_PARTS:
            if getattr(a, part) != getattr(b, part):
                out.append(f"field {a.name}.{part}: {getattr(a, part)!r} != {getattr(b, part)!r}")
        if _method_view(a.converter) != _method_view(b.converter):
            out.append(f"field {a.name}.converter")
    return out


def field_values(cls: type, changed: str | None = None) -> dict[str, Any]:
    """A value for every field: its default (a factory called), else a string; the field
    `changed` gets another value."""
    import attrs

    values: dict[str, Any] = {}
    for a in attrs.fields(cls):
        if a.name == changed:
            values[a.name] = f"other {a.name}"
        elif isinstance(a.default, attrs.Factory):  # type: ignore[arg-type]
            values[a.name] = a.default.factory()
        elif a.default is not attrs.NOTHING:
            values[a.name] = a.default
        else:
            values[a.name] = f"value of {a.name}"
    return values


def raw_instance(cls: type, values: dict[str, Any]) -> Any:
    """An instance with these field values, set directly (no `__init__`)."""
    obj = object.__new__(cls)
    for name, value in values.items():
        object.__setattr__(obj, name, value)
    return obj


def _behaviour(cls: type) -> dict[str, str]:
    """What each operation gives on instances of `cls` (module doc)."""
    import attrs

    fields = attrs.fields(cls)
    values = field_values(cls)
    one, same = raw_instance(cls, values), raw_instance(cls, values)
    seen: dict[str, str] = {
        "repr": outcome(lambda: repr(one)),
        "eq copy": outcome(lambda: (one == same, one != same)),
        "eq other type": outcome(lambda: (one == object(), one != object())),
        "hash copy": outcome(lambda: hash(one) == hash(same)),
        "init": outcome(lambda: repr(cls(**{a.alias: values[a.name] for a in fields if a.init}))),
        "init positional": outcome(
            lambda: repr(cls(*(values[a.name] for a in fields if a.init and not a.kw_only)))
        ),
        "asdict": outcome(lambda: attrs.asdict(one, recurse=False)),
        "astuple": outcome(lambda: attrs.astuple(one, recurse=False)),
        "copy": outcome(lambda: copy.copy(one) == one),
        "deepcopy": outcome(lambda: copy.deepcopy(one) == one),
        "getstate": outcome(one.__getstate__),
        "setstate": outcome(lambda: _set_state(cls, one)),
        "set new attribute": outcome(lambda: setattr(one, "no_such_field", 1)),
        "weakref": outcome(lambda: weakref.ref(one)() is one),
        "match": outcome(lambda: _match(one, cls)),
    }
    for a in fields:
        other = raw_instance(cls, field_values(cls, changed=a.name))
        seen[f"eq {a.name}"] = outcome(lambda other=other: (one == other, one != other))
        seen[f"hash {a.name}"] = outcome(lambda other=other: hash(one) == hash(other))
        seen[f"set {a.name}"] = outcome(lambda a=a: setattr(one, a.name, 1))
        seen[f"del {a.name}"] = outcome(lambda a=a: delattr(one, a.name))
        if a.init:
            seen[f"evolve {a.name}"] = outcome(
                lambda a=a: repr(attrs.evolve(one, **{a.alias: f"new {a.name}"}))
            )
    return seen


def _set_state(cls: type, one: Any) -> str:
    blank = object.__new__(cls)
    blank.__setstate__(one.__getstate__())
    return repr(blank)


def _match(one: Any, cls: type) -> object:
    args = cls.__match_args__  # type: ignore[attr-defined]
    return tuple(getattr(one, name) for name in args)


def differences(fast: type, raw: type, options: dict[str, Any]) -> list[str]:
    """How the class made from the generated module differs from attrs' own build."""
    import attrs

    twin = attrs.frozen(raw, **options)
    out = _class_differences(fast, twin)
    mine = _behaviour(fast)
    # The class's own methods name their class by its module's global (`type(other) is not
    # SessionState`): while the twin is tried, that name is the twin.
    module = sys.modules[fast.__module__]
    named = getattr(module, fast.__name__, None) is fast
    if named:
        setattr(module, fast.__name__, twin)
    try:
        theirs = _behaviour(twin)
    finally:
        if named:
            setattr(module, fast.__name__, fast)
    for operation in sorted(set(mine) | set(theirs)):
        if mine.get(operation) != theirs.get(operation):
            out.append(f"{operation}: {mine.get(operation)} != {theirs.get(operation)}")
    init = vars(fast).get("__init__") or vars(fast).get("__attrs_init__")
    if not init.__code__.co_filename.endswith("_value_methods.py"):
        out.append(f"methods not from the generated module: {init.__code__.co_filename}")
    return out


def main() -> None:
    sys.path.insert(0, str(ROOT))
    from acp_core._wire import _value

    _value.TWINS = twins = []
    import importlib

    from tools.generate_values import core_modules

    for name in core_modules():
        importlib.import_module(name)
    report = {
        f"{fast.__module__}:{fast.__qualname__}": differences(fast, raw, options)
        for raw, options, fast in twins
    }
    sys.stdout.write(json.dumps(report))


if __name__ == "__main__":
    main()
