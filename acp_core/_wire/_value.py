"""Value classes: attrs' frozen classes whose generated methods were written at build time.

Owns: `frozen`, the decorator every value class in the package uses in place of
`attrs.frozen`; `spec_of`, the fingerprint of what a class's `__init__`, `__repr__`, `__eq__` and
`__hash__` must do; and the switch `USE_GENERATED` the generator turns off.
Must not know: any ACP type.

Why: attrs writes and compiles four methods per class when the class is created, and
compiling them was about a third of the first use of the package (issue 24, cProfile of
touching the six common names: 0.105 s of 0.313 s in `compile`). The same methods, written
once by `tools/generate_values.py` into `_value_methods.py` (compiled to bytecode like any
source), cost nothing to compile at import. The class itself is made by
`_wire/_value_build.py` with attrs' own field reading and slotted-class making, so it is the
class attrs would make (`__attrs_attrs__`, `attrs.fields`, `attrs.evolve`, pickling,
`__match_args__`, `__slots__`), but attrs writes and compiles none of its methods, not even
`__attrs_init__`.

Never stale: each generated factory carries the `spec_of` of the class it was written for.
A class is built by `attrs.frozen` itself, exactly as attrs alone would build it, when its
spec differs (its fields changed since the file was generated), when it has no generated
factory, when it uses an option `_value_build.py` does not make, or when the installed attrs'
internals are not the ones the file was generated against (`_value_build.ATTRS_SHAPE`).
tests/test_values_generated.py checks the checked-in module is what the
generator writes now; tests/test_values_built.py compares every class made from it with
attrs' own build.

Type checkers see `attrs.frozen` (the `TYPE_CHECKING` branch), so the attrs mypy plugin
types every value class as before.
"""

from __future__ import annotations

from typing import Any

import attrs

from ._value_build import ATTRS_SHAPE, effective_methods, finish, prepare

__all__ = ["USE_GENERATED", "frozen", "spec_of", "spec_of_fields"]

TYPE_CHECKING = False

#: Off while `tools/generate_values.py` imports the package: it reads attrs' own classes.
USE_GENERATED = True

#: Every class built here while `USE_GENERATED` is off, for the generator: (class, which of
#: init/repr/eq/hash attrs writes for it).
BUILT: list[tuple[type, tuple[bool, bool, bool, bool]]] = []

#: While tests/test_values_built.py surveys the classes (None otherwise): every class made from
#: the generated module, as (the class as written, its options, the class made).
TWINS: list[tuple[type, dict[str, Any], type]] | None = None


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


def spec_of(cls: type, own: tuple[bool, bool, bool, bool]) -> str | None:
    """What the generated methods of `cls` depend on (`spec_of_fields` of its fields)."""
    return spec_of_fields(attrs.fields(cls), hasattr(cls, "__attrs_post_init__"), own)


def spec_of_fields(
    fields: tuple[Any, ...], post_init: bool, own: tuple[bool, bool, bool, bool]
) -> str | None:
    """What the generated methods of a class depend on: its fields in order, each field's
    options, whether it has `__attrs_post_init__`, and which of init/repr/eq/hash attrs writes
    for it (`_value_build.effective_methods`). None if the generator does not write this class
    (it is then built by attrs alone)."""
    parts = []
    for a in fields:
        part = _field_spec(a)
        if part is None:
            return None
        parts.append(part)
    post = "post" if post_init else "-"
    return "".join(str(int(x)) for x in own) + f" {post} " + " ".join(parts)


#: The generated methods' module, loaded with the first value class (None: not loaded yet).
_methods: Any = None


def _generated() -> Any:
    global _methods  # noqa: PLW0603  (loaded once, on first use)
    if _methods is None:
        from . import _value_methods

        _methods = _value_methods
    return _methods


def _factory(generated: Any, key: str) -> Any:
    return getattr(generated, "make_" + key.replace(":", ".").replace(".", "__"))


def _current(generated: Any) -> bool:
    """The generated module was written against the installed attrs' internals."""
    return ATTRS_SHAPE is not None and getattr(generated, "ATTRS_SHAPE", None) == ATTRS_SHAPE


def _build(cls: type, options: dict[str, Any]) -> type:
    key = f"{cls.__module__}:{cls.__qualname__}"
    generated = _generated() if USE_GENERATED else None
    found = generated.SPECS.get(key) if generated is not None else None
    if found is not None and _current(generated):
        prepared = prepare(cls, options)
        if prepared is not None:
            own = effective_methods(prepared.props)
            post_init = hasattr(cls, "__attrs_post_init__")
            if spec_of_fields(prepared.fields, post_init, own) == found:
                built = finish(prepared, _factory(generated, key))
                if TWINS is not None:
                    TWINS.append((cls, options, built))
                return built
    built = attrs.frozen(cls, **options)
    if not USE_GENERATED:
        BUILT.append((built, effective_methods(built.__attrs_props__)))  # type: ignore[attr-defined]
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
