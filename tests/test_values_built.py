"""Value classes made from the generated module without attrs writing their methods
(acp_core/_wire/_value_build.py) are the classes attrs itself makes: every core value class is
compared with its twin built by `attrs.frozen` from the same class body (tests/value_twins.py
says what is compared), pickles, and a class the fast build cannot vouch for is built by
attrs."""

from __future__ import annotations

import importlib
import json
import pickle
import subprocess
import sys
from pathlib import Path
from typing import Any, ClassVar

import attrs
import pytest
from value_twins import field_values, outcome, raw_instance

from acp_core._wire import _value, _value_build, _value_methods

ROOT = Path(__file__).resolve().parent.parent
KEYS = sorted(_value_methods.SPECS)


@pytest.fixture(scope="module")
def report() -> dict[str, list[str]]:
    run = subprocess.run(
        [sys.executable, "tests/value_twins.py"],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    result: dict[str, list[str]] = json.loads(run.stdout)
    return result


def _class(key: str) -> Any:
    module, qualname = key.split(":")
    found: Any = importlib.import_module(module)
    for part in qualname.split("."):
        found = getattr(found, part)
    return found


def test_every_generated_class_is_made_without_attrs_and_compared(
    report: dict[str, list[str]],
) -> None:
    assert sorted(report) == KEYS
    assert len(KEYS) > 250


@pytest.mark.parametrize("key", KEYS)
def test_the_class_is_indistinguishable_from_attrs_own(
    key: str, report: dict[str, list[str]]
) -> None:
    assert report[key] == []


@pytest.mark.parametrize("key", KEYS)
def test_an_instance_pickles_and_copies_back_to_an_equal_one(key: str) -> None:
    cls = _class(key)
    one = raw_instance(cls, field_values(cls))
    back = pickle.loads(pickle.dumps(one))
    assert type(back) is cls
    assert back.__getstate__() == one.__getstate__()
    assert outcome(lambda: repr(back)) == outcome(lambda: repr(one))
    assert outcome(lambda: back == one) == outcome(lambda: one == one)


def test_the_classes_are_made_from_the_generated_module_in_this_process() -> None:
    from acp_core.values import TextContent

    assert TextContent.__init__.__code__.co_filename.endswith("_value_methods.py")
    assert "__attrs_init__" not in vars(TextContent)  # attrs compiled nothing for it
    assert TextContent.__attrs_props__.added_init  # type: ignore[attr-defined]
    assert TextContent.__match_args__ == ("text", "annotations", "meta", "extra")  # type: ignore[attr-defined]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        TextContent("x").text = "y"  # type: ignore[misc]


class _Body:
    a: int
    b: tuple[int, ...] = ()


def _fake(spec: str, shape: object) -> type:
    """A generated module knowing `_Body` (spec `spec`) written against attrs of `shape`."""

    class Fake:
        SPECS: ClassVar = {"acp_core._nowhere:_Body": spec}
        ATTRS_SHAPE = shape
        made: ClassVar[list[type]] = []

        @staticmethod
        def make_acp_core___nowhere___Body(built, f, nothing):  # type: ignore[no-untyped-def]
            Fake.made.append(built)

            def __init__(self, a, b=f[1].default):  # type: ignore[no-untyped-def]  # noqa: N807
                built.a.__set__(self, a)
                built.b.__set__(self, b)

            def __repr__(self):  # type: ignore[no-untyped-def]  # noqa: N807
                return f"_Body(a={self.a!r}, b={self.b!r})"

            def __eq__(self, other):  # type: ignore[no-untyped-def]  # noqa: N807
                return (self.a, self.b) == (other.a, other.b)

            def __hash__(self):  # type: ignore[no-untyped-def]  # noqa: N807
                return hash((self.a, self.b))

            __init__.__annotations__ = {"a": "int", "b": "tuple[int, ...]", "return": None}
            return __init__, __repr__, __eq__, __hash__

    return Fake


def _body() -> type:
    cls = type("_Body", (), {"__annotations__": {"a": "int", "b": "tuple[int, ...]"}, "b": ()})
    cls.__module__ = "acp_core._nowhere"
    return cls


CURRENT_SPEC = "1111 - a:a:n100111 b:b:v100111"


def test_a_current_generated_entry_makes_the_class(monkeypatch: pytest.MonkeyPatch) -> None:
    fake = _fake(CURRENT_SPEC, _value_build.ATTRS_SHAPE)
    monkeypatch.setattr(_value, "_methods", fake)
    built = _value.frozen(_body())
    assert fake.made == [built]  # type: ignore[attr-defined]
    assert built(1).b == ()
    assert built(1) == built(1, ())
    assert repr(built(1)) == "_Body(a=1, b=())"
    assert built.__init__.__qualname__ == "_Body.__init__"
    assert [a.name for a in attrs.fields(built)] == ["a", "b"]


@pytest.mark.parametrize(
    ("spec", "shape", "options"),
    [
        ("1111 - a:a:n100111", "current", {}),  # the class gained a field since
        ("1111 - a:a:n100111 b:b:n100111", "current", {}),  # b's default is new
        (CURRENT_SPEC, 12345, {}),  # other attrs internals
        (CURRENT_SPEC, "current", {"order": True}),  # an option the fast build does not make
        (CURRENT_SPEC, "current", {"cache_hash": True}),
    ],
)
def test_a_class_the_fast_build_cannot_vouch_for_is_built_by_attrs(
    monkeypatch: pytest.MonkeyPatch, spec: str, shape: object, options: dict[str, Any]
) -> None:
    fake = _fake(spec, _value_build.ATTRS_SHAPE if shape == "current" else shape)
    monkeypatch.setattr(_value, "_methods", fake)
    built = _value.frozen(_body(), **options)
    assert fake.made == []  # type: ignore[attr-defined]
    assert "attrs generated" in built.__init__.__code__.co_filename
    assert built(1) == built(1, ())
    assert repr(built(1)) == "_Body(a=1, b=())"
