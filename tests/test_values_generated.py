"""The value classes' generated methods (acp_core/_wire/_value.py, tools/generate_values.py):
the checked-in module is what the generator writes now, every core value class uses it,
they give each class the same constructor as attrs would, and a class that changed since
its file was written is built by attrs itself."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import ClassVar

import attrs

from acp_core._wire import _value

ROOT = Path(__file__).resolve().parent.parent

#: Every core value class's constructor signature and `__init__` annotations, keyed by class,
#: printed as JSON by a fresh interpreter (generated methods on or off).
SURVEY = """
import inspect, json, re, sys, attrs
from acp_core._wire import _value
_value.USE_GENERATED = {use}
sys.path.insert(0, {root!r})
from tools.generate_values import core_modules
import importlib
out = {{}}
for name in core_modules():
    module = importlib.import_module(name)
    for cls in vars(module).values():
        if isinstance(cls, type) and cls.__module__ == name and attrs.has(cls):
            init = cls.__init__
            out[name + "." + cls.__qualname__] = [
                re.sub(r" at 0x[0-9a-f]+", "", str(inspect.signature(cls))),
                repr(sorted(getattr(init, "__annotations__", {{}}).items())),
                getattr(getattr(init, "__code__", None), "co_filename", ""),
            ]
print(json.dumps(out))
"""


#: Classes with a field kind the generator does not write, built by attrs alone: a validator
#: (`Revision.lineage`, `V1Policy.echo`) or an eq key (`TerminalState.output`).
BUILT_BY_ATTRS = {
    "acp_core._wire._revision.Revision",
    "acp_core._state._state_entities.TerminalState",
    "acp_core._v1._v1_policy.V1Policy",
}


def survey(*, use_generated: bool) -> dict[str, list[str]]:
    code = SURVEY.format(use=use_generated, root=str(ROOT))
    out = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=True, cwd=ROOT
    )
    result: dict[str, list[str]] = json.loads(out.stdout)
    return result


def test_the_checked_in_generated_module_is_current() -> None:
    run = subprocess.run(
        [sys.executable, "tools/generate_values.py", "--check"],
        capture_output=True,
        text=True,
        cwd=ROOT,
        check=False,
    )
    assert run.returncode == 0, f"run `python tools/generate_values.py`:\n{run.stdout}{run.stderr}"


def test_every_core_value_class_has_attrs_constructor_signature_from_generated_code() -> None:
    generated, plain = survey(use_generated=True), survey(use_generated=False)
    assert generated.keys() == plain.keys()
    assert len(generated) > 200
    for name, (signature, init_annotations, filename) in generated.items():
        assert (signature, init_annotations) == tuple(plain[name][:2]), name
        from_file = filename.endswith("_value_methods.py")
        assert from_file == (name not in BUILT_BY_ATTRS), f"{name}: __init__ from {filename}"
        assert "attrs generated" in plain[name][2], name


@_value.frozen
class _NoGeneratedFile:
    """A value class the generated module does not know: attrs builds it."""

    a: int
    b: tuple[int, ...] = ()


def test_a_class_the_generated_module_does_not_know_is_built_by_attrs() -> None:
    assert "attrs generated" in _NoGeneratedFile.__init__.__code__.co_filename
    assert _NoGeneratedFile(1) == _NoGeneratedFile(1, ())
    assert repr(_NoGeneratedFile(1)) == "_NoGeneratedFile(a=1, b=())"


def test_a_class_changed_since_the_module_was_generated_is_built_by_attrs(monkeypatch) -> None:  # type: ignore[no-untyped-def]
    from acp_core._wire._value_build import ATTRS_SHAPE as CURRENT_SHAPE

    class Stale:
        a: int
        b: int = 2

    class Fake:
        SPECS: ClassVar = {"acp_core._nowhere:Stale": "1111 - a:a:n101111"}  # Stale had one field
        ATTRS_SHAPE = CURRENT_SHAPE  # written against these attrs internals: only the spec is stale

        @staticmethod
        def make_acp_core___nowhere__Stale(built, f, nothing):  # type: ignore[no-untyped-def]
            raise AssertionError("a stale factory must not be used")

    Stale.__module__ = "acp_core._nowhere"
    monkeypatch.setattr(_value, "_methods", Fake)
    built = _value.frozen(Stale)
    assert "attrs generated" in built.__init__.__code__.co_filename
    assert built(1) == built(1, 2)
    assert [a.name for a in attrs.fields(built)] == ["a", "b"]


def test_generated_methods_behave_as_attrs_methods() -> None:
    from acp_core.values import TextContent

    text = TextContent("x")
    assert text == TextContent("x")
    assert text != TextContent("y")
    assert hash(text) == hash(TextContent("x"))
    assert text.__eq__(object()) is NotImplemented
    assert repr(text).startswith("TextContent(text='x', ")
    assert attrs.evolve(text, text="y") == TextContent("y")
    assert TextContent.__init__.__qualname__ == "TextContent.__init__"
    assert TextContent.__init__.__module__ == "acp_core._wire._content"


#: The quick start (README) in a fresh interpreter, counting what `compile_generated` and attrs
#: compile on the way; prints the two counts.
QUICK_START_COMPILES = """
import attr._make as attrs_make
from acp_core._wire import _fastnew
ours, theirs = [], []
_fastnew.compile = lambda *a: ours.append(a[1]) or compile(*a)
attrs_compile = attrs_make._linecache_and_compile
def counted(script, filename, *rest, **kw):
    theirs.append(filename)
    return attrs_compile(script, filename, *rest, **kw)
attrs_make._linecache_and_compile = counted
import acp_core as acp
agent, client = acp.new_agent("s1"), acp.new_client("s1")
client, out = acp.step(client, acp.intents.SendPrompt((acp.values.TextContent("Hi"),)))
agent, out = acp.step(agent, acp.Received(acp.decode_message(out[0])))
acp.fold(acp.new_session("s1"), ())
acp.check_trace(())
print(len(ours))
for name in theirs:
    print(name)
"""


def test_the_quick_start_compiles_no_generated_source_of_ours() -> None:
    out = subprocess.run(
        [sys.executable, "-c", QUICK_START_COMPILES],
        capture_output=True,
        text=True,
        check=True,
        cwd=ROOT,
    )
    ours, *attrs_classes = out.stdout.splitlines()
    assert ours == "0"  # every fast constructor, decoder and draft builder came precompiled
    # attrs compiles methods only for the classes it builds alone (a validator, an eq key):
    # every other value class on the way was made from the generated module.
    built_by_attrs = {name.split()[-1].rstrip(">") for name in attrs_classes}
    assert built_by_attrs == {
        "acp_core._wire._revision.Revision",
        "acp_core._state._state_entities.TerminalState",
    }
    assert built_by_attrs <= BUILT_BY_ATTRS


def test_a_precompiled_source_is_the_code_compile_would_make() -> None:
    from acp_core._wire import _compiled_sources, _fastnew

    source, stored = next(iter(_compiled_sources.SOURCES.items()))
    name = source[len("def ") : source.index("(")]
    namespace: dict[str, object] = {}
    fn = _fastnew.compile_generated(source.rstrip("\n").split("\n"), name, namespace, "t")
    fresh: dict[str, object] = {}
    exec(compile(source, "<acp_core generated t>", "exec"), fresh)
    made = fresh[name].__code__  # type: ignore[attr-defined]
    assert fn.__code__ is not made
    assert fn.__code__.co_code == made.co_code
    assert fn.__code__.co_consts == made.co_consts
    assert fn.__code__.co_names == made.co_names
    assert fn.__code__.co_filename == made.co_filename
    assert fn.__qualname__ == name
    assert fn.__globals__ is namespace
    assert getattr(_compiled_sources, stored).__code__.co_code == made.co_code


def test_a_source_the_package_did_not_precompile_is_compiled() -> None:
    from acp_core._wire._fastnew import compile_generated

    namespace: dict[str, object] = {"k": 3}
    fn = compile_generated(["def f(x):", "    return x * k"], "f", namespace, "unknown source")
    assert fn(2) == 6
    assert fn.__code__.co_filename == "<acp_core generated unknown source>"
