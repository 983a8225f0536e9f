"""Generated code: fast positional constructors for frozen attrs classes, and the one place
that compiles generated source.

Owns: `fast_constructor(cls)`, which returns a function building an instance of `cls` from
all its fields, positionally, by setting the slots directly; `fast_replace` and `fast_evolve`,
copies with some fields changed, built the same way, and `evolve_frozen` (the same for any
frozen value, its converters skipped by contract); and `compile_generated`, which
compiles generated source under a readable file name registered in `linecache` (as attrs'
`_linecache_and_compile` does), so tracebacks, `inspect.getsource` and debuggers show it.
Must not know: any ACP type.

Why: attrs' frozen `__init__` goes through `object.__setattr__` once per field; calling the
slot descriptors instead builds the identical object in about half the time (measured in
benchmarks/). The function is generated once per class (as attrs generates its own
`__init__`), unrolled so no per-call loop remains. Only for classes without validators or
converters, whose every field is passed. This is the only such trick in the package: the
codec, the state builders and the persistent vector all build through it.
"""

from __future__ import annotations

import linecache
import types
from collections.abc import Callable
from functools import partial
from typing import Any, Final, TypeVar

import attrs

__all__ = ["compile_generated", "evolve_frozen", "fast_constructor", "fast_evolve", "fast_replace"]

T = TypeVar("T")


def compile_generated(
    lines: list[str], name: str, namespace: dict[str, Any], label: str
) -> Callable[..., Any]:
    """Compile the function `name` defined by `lines` in `namespace` and return it.

    The source is registered in `linecache` under `<acp_core generated LABEL>`, so it is
    visible wherever Python shows source. Labels are unique per generated function.
    """
    source = "\n".join(lines) + "\n"
    filename = f"<acp_core generated {label}>"
    # (size, mtime=None: never checked against a file, lines, fullname), as attrs does.
    linecache.cache[filename] = (len(source), None, source.splitlines(True), filename)
    if RECORD is not None:
        RECORD.append((source, name))
    code = _precompiled(source, name, filename)
    if code is not None:
        namespace[name] = types.FunctionType(code, namespace, name)
    else:
        exec(compile(source, filename, "exec"), namespace)  # our own generated source only
    fn: Callable[..., Any] = namespace[name]
    return fn


#: While `tools/generate_values.py` runs: every (source, name) compiled, for it to write.
RECORD: list[tuple[str, str]] | None = None
#: `_compiled_sources` (generated), loaded on the first call; False: do not use it.
_sources: Any = None


def _precompiled(source: str, name: str, filename: str) -> types.CodeType | None:
    """The code of `source` compiled with the package (`_compiled_sources.py`, written by
    tools/generate_values.py), or None if that module does not hold this exact source.

    Only a source that is one `def` without defaults or decorators is stored there, each
    under its own name; its code object is the one `compile(source)` would define (same
    bytecode), given back the generated function's name and the label's file name and first
    line, so tracebacks and `inspect.getsource` show the same as a fresh compile. Looked up by
    the exact text, so a changed generator can only miss (and compile as before)."""
    global _sources  # noqa: PLW0603  (loaded once, on first use)
    if _sources is None:
        from . import _compiled_sources

        _sources = _compiled_sources if RECORD is None else False
    if _sources is False:
        return None
    stored = _sources.SOURCES.get(source)
    if stored is None:
        return None
    code: types.CodeType = getattr(_sources, stored).__code__
    return code.replace(co_name=name, co_qualname=name, co_filename=filename, co_firstlineno=1)


def fast_constructor(cls: type[T]) -> Callable[..., T]:
    """A positional constructor of `cls` taking every field in class order (attrs fields,
    or the `__slots__` of a plain slotted class such as `PVec`)."""
    slots: list[str] = list(getattr(cls, "__slots__", ()))
    names = [a.name for a in attrs.fields(cls)] if attrs.has(cls) else slots
    params = ", ".join(f"a{i}" for i in range(len(names)))
    lines = [f"def make({params}):", "    obj = new(cls)"]
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    for i, name in enumerate(names):
        # The class's own slot descriptor (a subclass's __dict__ does not hold inherited ones).
        namespace[f"s{i}"] = getattr(cls, name).__set__
        lines.append(f"    s{i}(obj, a{i})")
    lines.append("    return obj")
    label = f"fast constructor {cls.__module__}.{cls.__qualname__}"
    make: Callable[..., T] = compile_generated(lines, "make", namespace, label)
    make.__qualname__ = f"fast_{cls.__name__}"
    return make


def fast_replace(
    cls: type[T], names: tuple[str, ...], fixed: dict[str, object] | None = None
) -> Callable[..., T]:
    """`replace(old, *values)`: a copy of `old` with the fields `names` set to `values` (in
    that order) and the fields in `fixed` set to those constants; one generated function, so
    a rebuild of a large record is one call (the reducers' named state builders)."""
    fixed = fixed or {}
    params = ", ".join(["old", *(f"v{i}" for i in range(len(names)))])
    lines = [f"def replace({params}):", "    obj = new(cls)"]
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    for k, a in enumerate(attrs.fields(cls)):  # type: ignore[arg-type]
        namespace[f"s{k}"] = getattr(cls, a.name).__set__
        if a.name in names:
            value = f"v{names.index(a.name)}"
        elif a.name in fixed or not a.init:
            # A field outside `__init__` (a remembered derived value) starts over, as
            # `attrs.evolve` does: its plain default.
            namespace[f"c{k}"] = fixed.get(a.name, a.default)
            value = f"c{k}"
        else:
            value = f"old.{a.name}"
        lines.append(f"    s{k}(obj, {value})")
    lines.append("    return obj")
    label = f"fast replace {cls.__module__}.{cls.__qualname__} {','.join(names)}"
    replace: Callable[..., T] = compile_generated(lines, "replace", namespace, label)
    return replace


def evolve_frozen(old: T, **changes: Any) -> T:
    """`attrs.evolve(old, **changes)` without `__init__`: the unchanged fields are `old`'s (frozen
    already) and the changed ones must be frozen values too (what the reducers build), so the
    construction-time converters (`_wire/_freezing.py`) would only copy them a second time.
    Keys are field names or their `__init__` aliases. One generated function per class and
    set of keys, as `fast_evolve` (a class with converters is fine here: they are skipped by
    contract)."""
    key = (type(old), tuple(changes))
    replace: Callable[..., T] | None = _FROZEN_REPLACERS.get(key)
    if replace is None:
        replace = _frozen_replacer(*key)
    return replace(old, *changes.values())


#: `evolve_frozen`'s generated functions, by (class, keys as given): a few per class.
_FROZEN_REPLACERS: dict[tuple[type[Any], tuple[str, ...]], Callable[..., Any]] = {}


def _frozen_replacer(cls: type[Any], keys: tuple[str, ...]) -> Callable[..., Any]:
    fields = attrs.fields(cls)
    by_key = {a.name: a.name for a in fields} | {a.alias: a.name for a in fields}
    names = tuple(by_key.get(k, "") for k in keys)
    if "" in names or len(set(names)) != len(names):
        msg = f"{cls.__name__} has no field among {sorted(keys)}"
        raise TypeError(msg)
    if any(type(getattr(cls, a.name, None)) is not _SLOT for a in fields):
        # A class keeping its fields in a `__dict__` (no slots to set): one field at a time.
        made: Callable[..., Any] = partial(_set_each, cls, names)
    else:
        made = fast_replace(cls, names)
    _FROZEN_REPLACERS[cls, keys] = made
    return made


#: What a slotted class holds for each field: the descriptor `fast_replace` sets.
_SLOT: Final = types.MemberDescriptorType


def _set_each(cls: type[Any], names: tuple[str, ...], old: Any, *values: Any) -> Any:
    changes = dict(zip(names, values, strict=True))
    obj = object.__new__(cls)
    for a in attrs.fields(cls):
        if a.name in changes:
            value = changes[a.name]
        elif not a.init:
            value = a.default  # a remembered derived value starts over (as attrs.evolve)
        else:
            value = getattr(old, a.name)
        object.__setattr__(obj, a.name, value)
    return obj


#: `fast_evolve`'s generated functions, by (class, changed names): a few per class.
_REPLACERS: dict[tuple[type[Any], tuple[str, ...]], Callable[..., Any]] = {}


def _replacer(cls: type[Any], names: tuple[str, ...]) -> Callable[..., Any]:
    fields = attrs.fields(cls)
    by_alias = {a.alias: a.name for a in fields}
    if any(a.converter is not None or a.validator is not None for a in fields) or hasattr(
        cls, "__attrs_post_init__"
    ):
        raise TypeError(f"{cls.__name__} runs code at construction: use attrs.evolve")
    unknown = [n for n in names if n not in by_alias]
    if unknown:
        raise TypeError(f"{cls.__name__} has no field among {sorted(unknown)}")
    made = _REPLACERS[cls, names] = fast_replace(cls, tuple(by_alias[n] for n in names))
    return made


def fast_evolve(old: T, **changes: Any) -> T:
    """`attrs.evolve(old, **changes)` as one generated call, for a class whose fields have no
    converter or validator (so `__init__` would only copy them): the engines' and the
    connections' per-step rebuilds. One function is generated per class and set of changed
    names (the call sites' sets and orders of keywords: a bounded number), then cached.
    Refuses, at generation, a class with converters, validators or `__attrs_post_init__`."""
    key = (type(old), tuple(changes))
    replace: Callable[..., T] | None = _REPLACERS.get(key)
    if replace is None:
        replace = _replacer(*key)
    return replace(old, *changes.values())
