"""`evolve_frozen` (one generated function per class and keys as given) is `attrs.evolve`
for frozen values: any order of keys, names or their `__init__` aliases, a field outside
`__init__` (a remembered derived value) starting over, a subclass (its own function, its
own fields), and the refusals (an unknown key, a field given twice by name and alias)."""

from __future__ import annotations

import itertools

import attrs
import pytest

from acp_core._wire._fastnew import evolve_frozen


@attrs.frozen
class Base:
    a: int
    _b: str = "b"  # alias `b`
    c: tuple[int, ...] = ()
    memo: object = attrs.field(default=None, init=False, eq=False)


@attrs.frozen
class Child(Base):
    d: int = 4


@attrs.define(frozen=True, slots=False)
class Dicty:
    a: int
    b: int = 2


def _memo(x: Base, value: object) -> Base:
    object.__setattr__(x, "memo", value)
    return x


def test_any_key_order_and_alias_is_attrs_evolve() -> None:
    old = _memo(Base(1, "x", (1,)), "remembered")
    values = {"a": 9, "b": "y", "c": (2, 3)}
    for n in range(4):
        for keys in itertools.permutations(values, n):
            changes = {k: values[k] for k in keys}
            new = evolve_frozen(old, **changes)
            expected = attrs.evolve(old, **changes)
            assert (new.a, new._b, new.c) == (expected.a, expected._b, expected.c)
            assert new.memo is None  # starts over, as attrs.evolve's copy does
    # by the name, not the alias: the same field
    assert evolve_frozen(old, _b="z")._b == "z"
    assert evolve_frozen(old, b="z", a=1) == evolve_frozen(old, a=1, _b="z")


def test_a_subclass_gets_its_own_function() -> None:
    base = Base(1)
    evolve_frozen(base, a=2)  # the base's function cached first
    child = Child(1, d=7)
    new = evolve_frozen(child, a=2)
    assert type(new) is Child
    assert new == Child(2, d=7)
    assert evolve_frozen(child, d=8, b="q") == Child(1, "q", d=8)


# A frozen attrs class without slots keeps its fields in a `__dict__`: no slot descriptor to
# set, so `evolve_frozen` sets them one at a time (found by this attack, then fixed).
def test_a_class_without_slots() -> None:
    assert evolve_frozen(Dicty(1), b=5) == Dicty(1, 5)


@pytest.mark.parametrize(
    "changes", [{"nope": 1}, {"b": "x", "_b": "y"}, {"a": 1, "nope": 2}], ids=str
)
def test_unknown_or_twice_given_keys_are_refused(changes: dict[str, object]) -> None:
    with pytest.raises(TypeError, match="has no field"):
        evolve_frozen(Base(1), **changes)
    # and refused again (no function cached for them)
    with pytest.raises(TypeError, match="has no field"):
        evolve_frozen(Base(1), **changes)
