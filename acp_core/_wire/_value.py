"""Value classes: attrs' frozen classes whose generated methods were compiled at build time.

Owns: `frozen`, the decorator every value class in the package uses in place of
`attrs.frozen`; `spec_of`, the fingerprint of what a class's `__init__`, `__repr__`, `__eq__` and
`__hash__` must do; and the switch `USE_GENERATED` the generator turns off.
Must not know: any ACP type.

Why: attrs writes and compiles four methods per class when the class is created; compiling
them was about a third of the first use of the package (issue 24, cProfile of touching the
six common names: 0.105 s of 0.313 s in `compile`). The same methods, written once by
`tools/generate_values.py` into `_value_methods.py` (compiled to bytecode like any source),
cost nothing to compile at import. attrs still builds the class (slots, `__attrs_attrs__`,
`attrs.fields`, `attrs.evolve`, pickling, `__match_args__`), asked not to write those four
methods; it still compiles one, `__attrs_init__`, which it adds to every class built with
`init=False` (docs/performance.md says what that leaves).

Never stale: each generated factory carries the `spec_of` of the class it was written for; a
class whose spec differs (its fields changed since the file was generated), or that has no
generated factory, is built by `attrs.frozen` itself, exactly as before.
tests/test_values_generated.py checks the checked-in module is what the generator writes now.

Type checkers see `attrs.frozen` (the `TYPE_CHECKING` branch), so the attrs mypy plugin
types every value class as before.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import attrs

__all__ = ["USE_GENERATED", "frozen", "spec_of"]

TYPE_CHECKING = False

#: Off while `tools/generate_values.py` imports the package: it reads attrs' own classes.
USE_GENERATED = True

#: Every class built here while `USE_GENERATED` is off, for the generator: (class, which of
#: init/repr/eq it asks for).
BUILT: list[tuple[type, tuple[bool, bool, bool]]] = []


def _field_spec(a: Any) -> str | None:
    """One field's part of the spec; None if the generator does not write this field's kind
    (a validator, a `Converter` object, a factory taking self, a custom repr or eq key)."""
    if a.validator is not None or a.eq_key is not None or isinstance(a.converter, attrs.Converter):
        return None
    if a.repr not in (True, False):
        return None
    default = a.default
    if default is attrs.NOTHING:
        kind = "n"
    elif isinstance(default, attrs.Factory):  # type: ignore[arg-type]
        if default.takes_self:
            return None
        kind = "f"
    else:
        kind = "v"
    hashed = a.hash is True or (a.hash is None and a.eq is True)
    flags = "".join(
        "1" if x else "0"
        for x in (a.init, a.kw_only, a.converter is not None, a.eq, hashed, a.repr)
    )
    return f"{a.name}:{a.alias}:{kind}{flags}"


def spec_of(cls: type, own: tuple[bool, bool, bool]) -> str | None:
    """What the generated methods of `cls` depend on: its fields in order, each field's
    options, `__attrs_post_init__`, and which of init/repr/eq the class asks for. None if the
    generator does not write this class (it is then built by attrs alone)."""
    parts = []
    for a in attrs.fields(cls):
        part = _field_spec(a)
        if part is None:
            return None
        parts.append(part)
    post = "post" if hasattr(cls, "__attrs_post_init__") else "-"
    init, repr_, eq = own
    return f"{int(init)}{int(repr_)}{int(eq)} {post} " + " ".join(parts)


def __ne__(self: Any, other: Any) -> Any:  # noqa: N807  (installed as the method)
    """The negation of `__eq__` (as attrs' own `__ne__`)."""
    result = self.__eq__(other)
    if result is NotImplemented:
        return NotImplemented
    return not result


#: The generated methods' module, loaded with the first value class (None: not loaded yet).
_methods: Any = None


def _generated() -> Any:
    global _methods  # noqa: PLW0603  (loaded once, on first use)
    if _methods is None:
        from . import _value_methods

        _methods = _value_methods
    return _methods


def _install(built: type, make: Callable[..., Any], own: tuple[bool, bool, bool]) -> None:
    init, repr_, eq = own
    methods = make(built, attrs.fields(built), attrs.NOTHING)
    names = ["__init__", "__repr__", "__eq__", "__hash__"]
    wanted = [init, repr_, eq, eq]
    for name, method, want in zip(names, methods, wanted, strict=True):
        if not want:
            continue
        method.__module__ = built.__module__
        method.__qualname__ = f"{built.__qualname__}.{name}"
        setattr(built, name, method)
    if eq:
        built.__ne__ = __ne__  # type: ignore[assignment]


def _build(cls: type, options: dict[str, Any]) -> type:
    own = (
        bool(options.get("init", True)),
        bool(options.get("repr", True)),
        bool(options.get("eq", True)),
    )
    key = f"{cls.__module__}:{cls.__qualname__}"
    generated = _generated() if USE_GENERATED else None
    found = generated.SPECS.get(key) if generated is not None else None
    if found is not None:
        built: type = attrs.frozen(cls, **{**options, "init": False, "repr": False, "eq": False})
        if spec_of(built, own) == found:
            make = getattr(generated, "make_" + key.replace(":", ".").replace(".", "__"))
            _install(built, make, own)
            return built
    built = attrs.frozen(cls, **options)
    if not USE_GENERATED:
        BUILT.append((built, own))
    return built


TYPE_CHECKING = False
if TYPE_CHECKING:
    from attrs import frozen
else:

    def frozen(maybe_cls: type | None = None, **options: Any) -> Any:
        """`attrs.frozen`, with the generated methods compiled at build time (module doc)."""

        def wrap(cls: type) -> type:
            return _build(cls, options)

        return wrap if maybe_cls is None else wrap(maybe_cls)
