"""Fast positional constructors for frozen attrs classes, for the hot paths only.

Owns: `fast_constructor(cls)`, which returns a function building an instance of `cls` from
all its fields, positionally, by setting the slots directly.
Must not know: any ACP type.

Why: attrs' frozen `__init__` goes through `object.__setattr__` once per field; calling the
slot descriptors instead builds the identical object in about half the time (measured in
anchors-style-study 4.2 and benchmarks/). The function is generated once per class (as attrs
generates its own `__init__`), unrolled so no per-call loop remains. Only for classes without
validators or converters, whose every field is passed.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, TypeVar

import attrs

__all__ = ["fast_constructor"]

T = TypeVar("T")


def fast_constructor(cls: type[T]) -> Callable[..., T]:
    """A positional constructor of `cls` taking every field in class order."""
    names = [a.name for a in attrs.fields(cls)]  # type: ignore[arg-type]
    params = ", ".join(f"a{i}" for i in range(len(names)))
    lines = [f"def make({params}):", "    obj = new(cls)"]
    namespace: dict[str, Any] = {"new": object.__new__, "cls": cls}
    for i, name in enumerate(names):
        namespace[f"s{i}"] = getattr(cls, name).__set__
        lines.append(f"    s{i}(obj, a{i})")
    lines.append("    return obj")
    exec("\n".join(lines), namespace)  # generated from attrs field names only
    make: Callable[..., T] = namespace["make"]
    make.__qualname__ = f"fast_{cls.__name__}"
    return make
