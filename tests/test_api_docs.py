"""docs/api.md is generated from the package's public names and docstrings, and kept in sync.

`api_markdown()` builds the reference: one section per area, one entry per public name, in
the order the defining module declares them, with its signature and its docstring (or the
`#:` comment above a constant, or the definition of a type alias). Regenerate with:

    python tests/test_api_docs.py
"""

from __future__ import annotations

import ast
import enum
import importlib
import inspect
import re
import sys
import types
from pathlib import Path
from typing import Any

import attrs

import acp_core
from acp_core._engines import _renamed

ROOT = Path(__file__).resolve().parents[1]
API_MD = ROOT / "docs" / "api.md"
PACKAGE = ROOT / "acp_core"

#: The reference's sections, grouped by what a user is doing, in reading order: a title, one
#: sentence on when you need it, and the private modules (dotted, under `acp_core.`; a prefix
#: covers the modules it starts) whose public names it lists. Every public name falls in one
#: (test_no_public_name_falls_outside_the_sections).
SECTIONS: tuple[tuple[str, str, tuple[str, ...]], ...] = (
    (
        "Driving a connection",
        "A whole ACP connection, either side, sans-IO: bytes in, a new connection value, bytes "
        "and host events out (docs/transports.md).",
        ("_engines._connection", "_engines._request_ids"),
    ),
    (
        "Framing and transports",
        "Turning bytes into JSON values and back: NDJSON on stdio, SSE and the Streamable HTTP "
        "profile's server.",
        ("_wire._framing", "_wire._pieces", "_wire._sse", "_wire._http", "_wire._setup"),
    ),
    (
        "One session's engines",
        "The agent and client engines of one session, stepped with `step`.",
        ("_engines._step", "_engines._agent", "_engines._client", "_engines._renamed"),
    ),
    (
        "Intents",
        "What a host asks an engine to do.",
        ("_engines._intents",),
    ),
    (
        "Session state and reducers",
        "The folded view of a session: `reduce`, `fold`, snapshots and rendering.",
        ("_state", "_cli._render"),
    ),
    (
        "Session updates",
        "Every `session/update` kind as a frozen value.",
        ("_wire._updates",),
    ),
    (
        "Content",
        "Content blocks and the values they carry.",
        ("_wire._content",),
    ),
    (
        "JSON-RPC messages and JSON values",
        "The envelope of every message, and the frozen JSON the values carry.",
        ("_wire._jsonrpc", "_wire._json"),
    ),
    (
        "Codec",
        "Decoding and encoding every value, losslessly, with errors that name the JSON path.",
        ("_wire._codec",),
    ),
    (
        "Checking traces and reports",
        "Which rules a recorded or live conversation breaks, the catalogue, and the pages "
        "that show it.",
        ("_rules", "_cli._report", "_cli._mermaid"),
    ),
    (
        "ACP v1",
        "Reading v1 traffic as v2 values.",
        ("_v1",),
    ),
    (
        "Revisions",
        "The protocol revisions, each a value passed explicitly.",
        ("_wire._revision",),
    ),
    (
        "Errors",
        "What every public function raises: an `AcpError` subclass.",
        ("_errors",),
    ),
)

#: Public submodules with names of their own (not in `acp_core._HOME`): each gets a section
#: listing its `__all__` (title, the sentence on when you need it).
OWN_SECTIONS: tuple[tuple[str, str, str], ...] = (
    (
        "strategies",
        "Research: strategies",
        "Hypothesis strategies for every value and for whole runs (needs hypothesis; "
        "docs/research.md).",
    ),
    (
        "explore",
        "Research: exhaustive exploration",
        "Every interleaving of two engines up to a depth, judged (docs/research.md).",
    ),
    (
        "aio",
        "Real I/O: acp_core.aio",
        "Hosting connections over real transports on anyio (needs the `http` extra).",
    ),
)


def section_of(module: str) -> int | None:
    """The index in `SECTIONS` of the longest prefix covering `module` (dotted, no package)."""
    best: tuple[int, int] | None = None
    for index, (_, _, prefixes) in enumerate(SECTIONS):
        for prefix in prefixes:
            # A prefix covers the modules it starts: `_wire._updates` covers `_updates_preview`.
            if module.startswith(prefix) and (best is None or len(prefix) > best[1]):
                best = (index, len(prefix))
    return None if best is None else best[0]


_SECTION_HEADS = ("Args", "Arguments", "Attributes", "Returns", "Raises", "Yields")
_ITEM = re.compile(r"^([A-Za-z_][\w, ]*|`[^`]+`)\s*(\([^)]*\))?:\s*(.*)$")


# -- where each name comes from -----------------------------------------------------------


def _origins() -> dict[str, str]:
    """Public name -> the private module that defines it (`acp_core._HOME`, without the package)."""
    return {name: module.removeprefix("acp_core.") for name, module in acp_core._HOME.items()}


#: Every public name: the curated root (`acp_core.__all__`) and the public submodules.
PUBLIC: tuple[str, ...] = tuple(n for n in acp_core._HOME if n not in _renamed.RENAMED)

#: The public submodules, in the order docs/api.md introduces them.
SUBMODULES = (
    "values",
    "intents",
    "connection",
    "engines",
    "codec",
    "sessions",
    "checker",
    "protocol",
    "v1",
    "errors",
)


def homes() -> dict[str, str]:
    """Public name -> where to import it from: the package root for the curated common path,
    else the one public submodule that is its home."""
    home = dict.fromkeys(acp_core.__all__, "acp_core")
    for sub in SUBMODULES:
        for name in getattr(acp_core, sub).__all__:
            home.setdefault(name, f"acp_core.{sub}")
    return home


def _module_source(module: str) -> tuple[str, ast.Module]:
    text = (PACKAGE / f"{module.replace('.', '/')}.py").read_text(encoding="utf-8")
    return text, ast.parse(text)


def _assignment(module: str, name: str) -> tuple[int, str, str] | None:
    """(line, `#:` comment, value source) of a module-level assignment to `name`."""
    text, tree = _module_source(module)
    lines = text.splitlines()
    for node in tree.body:
        target = None
        if isinstance(node, ast.Assign) and len(node.targets) == 1:
            target = node.targets[0]
        elif isinstance(node, ast.AnnAssign):
            target = node.target
        if not (isinstance(target, ast.Name) and target.id == name):
            continue
        comment: list[str] = []
        i = node.lineno - 2
        while i >= 0 and lines[i].strip().startswith("#:"):
            comment.insert(0, lines[i].strip()[2:].strip())
            i -= 1
        value = ast.get_source_segment(text, node.value) if node.value is not None else ""
        return node.lineno, " ".join(comment), " ".join((value or "").split())
    return None


def _line(module: str, name: str, obj: object) -> int:
    if inspect.isclass(obj) or inspect.isfunction(obj):
        try:
            return inspect.getsourcelines(obj)[1]
        except (OSError, TypeError):
            pass
    found = _assignment(module, name)
    return found[0] if found else 10**9


# -- rendering -----------------------------------------------------------------------------


def _annotation(annotation: Any) -> str:
    if annotation is inspect.Parameter.empty:
        return ""
    text = getattr(annotation, "__forward_arg__", annotation)
    return text if isinstance(text, str) else inspect.formatannotation(text)


_PUBLIC_VALUES = {
    id(acp_core.values.UNSET): "UNSET",
    id(acp_core.values.EMPTY_OBJECT): "EMPTY_OBJECT",
    id(acp_core.DEFAULT_REVISION): "DEFAULT_REVISION",
}


def _default(value: Any) -> str:
    if id(value) in _PUBLIC_VALUES:
        return _PUBLIC_VALUES[id(value)]
    if value is attrs.NOTHING or isinstance(value, attrs.Factory):  # type: ignore[arg-type]
        return "..."
    if callable(value) and hasattr(value, "__qualname__"):
        return str(value.__qualname__)  # not `<function f at 0x...>`: stable across runs
    text = repr(value)
    return text if len(text) <= 40 and " at 0x" not in text else "..."


def _signature(name: str, obj: Any) -> str | None:
    try:
        signature = inspect.signature(obj)
    except (TypeError, ValueError):
        return None
    parts: list[str] = []
    star_done = False
    for p in signature.parameters.values():
        if p.kind is p.KEYWORD_ONLY and not star_done:
            parts.append("*")
            star_done = True
        if p.kind is p.VAR_POSITIONAL:
            star_done = True
            parts.append(f"*{p.name}")
            continue
        if p.kind is p.VAR_KEYWORD:
            parts.append(f"**{p.name}")
            continue
        text = p.name
        annotation = _annotation(p.annotation)
        if annotation:
            text += f": {annotation}"
        if p.default is not p.empty:
            text += f" = {_default(p.default)}" if annotation else f"={_default(p.default)}"
        parts.append(text)
    result = _annotation(signature.return_annotation)
    arrow = f" -> {result}" if result and not inspect.isclass(obj) else ""
    return f"{name}({', '.join(parts)}){arrow}"


def _markdown_doc(doc: str) -> list[str]:
    """A Google-style docstring as Markdown: sections become bold labels and bullet lists."""
    out: list[str] = []
    in_section = False
    for raw in doc.splitlines():
        stripped = raw.strip()
        if stripped.rstrip(":") in _SECTION_HEADS and stripped.endswith(":"):
            out += ["", f"**{stripped[:-1]}**", ""]
            in_section = True
            continue
        if in_section and raw.startswith("    "):
            item = _ITEM.match(stripped)
            if raw.startswith("        ") or item is None:
                if out and out[-1].startswith("- "):
                    out[-1] += " " + stripped
                else:
                    out.append(stripped)
            else:
                names = ", ".join(f"`{n.strip()}`" for n in item.group(1).strip("`").split(","))
                out.append(f"- {names}: {item.group(3)}")
            continue
        if in_section and stripped:
            in_section = False
            out.append("")
        out.append(raw)
    return out


def first_sentence(doc: str) -> str:
    """The first sentence of a docstring, whole however many lines it spans."""
    paragraph = " ".join(doc.split("\n\n", maxsplit=1)[0].split())
    match = re.search(r"(?<=[.!?])\s+(?=[A-Z`(])", paragraph)
    return paragraph if match is None else paragraph[: match.start()]


def _members(cls: type) -> list[str]:
    lines = []
    for member, value in vars(cls).items():
        if member.startswith("_"):
            continue
        if isinstance(value, property):
            summary = first_sentence(inspect.getdoc(value) or "")
            lines.append(f"- `.{member}` (property): {summary}")
        elif inspect.isfunction(value) or isinstance(value, (classmethod, staticmethod)):
            function = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
            summary = first_sentence(inspect.getdoc(function) or "")
            signature = _signature(member, function) or member
            signature = signature.replace("(self, ", "(").replace("(self)", "()")
            lines.append(f"- `.{signature}`: {summary}")
    return lines


def _constants(cls: type) -> list[str]:
    return [
        f"`{member} = {value!r}`"
        for member, value in vars(cls).items()
        if member.isupper() and isinstance(value, str)
    ]


def _entry(name: str, module: str, obj: Any = None, home: str | None = None) -> list[str]:
    """The entry of `name` (defined in `module`): from the package unless `obj` is given."""
    obj = getattr(acp_core, name) if obj is None else obj
    lines = [f"### `{name}`", "", f"`from {home or homes()[name]} import {name}`", ""]
    if inspect.isclass(obj) or inspect.isfunction(obj):
        is_enum = inspect.isclass(obj) and issubclass(obj, enum.Enum)
        constants = _constants(obj) if inspect.isclass(obj) and not is_enum else []
        signature = None if constants or is_enum else _signature(name, obj)
        if signature:
            kind = "class " if inspect.isclass(obj) else ""
            lines += ["```python", f"{kind}{signature}", "```", ""]
        lines += _markdown_doc(inspect.getdoc(obj) or "")
        if constants:
            lines += ["", "Known values: " + ", ".join(constants) + "."]
        if is_enum:
            lines += ["", "Members: " + ", ".join(f"`{name}.{m.name}`" for m in obj) + "."]
        elif inspect.isclass(obj):
            members = _members(obj)
            if members:
                lines += ["", "**Properties and methods**", "", *members]
    else:
        found = _assignment(module, name)
        comment, value = (found[1], found[2]) if found else ("", "")
        alias = isinstance(obj, (types.UnionType, str)) or type(obj).__module__ == "typing"
        if alias:
            # A quoted alias ("A | B") shows unquoted; any other expression as written.
            quoted = len(value) > 1 and value[0] == value[-1] == '"' and '"' not in value[1:-1]
            lines += ["```python", f"{name} = {value[1:-1] if quoted else value}", "```", ""]
            lines.append(comment or "A type alias (for annotations).")
        else:
            kind = "read-only mapping" if isinstance(obj, types.MappingProxyType) else None
            lines += [f"A {kind or f'`{type(obj).__name__}`'} value. {comment}".rstrip()]
    return [*(line.rstrip() for line in lines), ""]


#: The "Names moved in 0.2" note (the renames come from `acp_core._engines._intents.RENAMED`).
MOVED: tuple[str, ...] = (
    "## Names moved in 0.2",
    "",
    "The package root now holds only the common path. Every other name moved to its home "
    "submodule (named in each entry below); `acp_core.X` and `from acp_core import X` still "
    "work for every name of 0.1, for one release, with a `DeprecationWarning` that names the "
    "home submodule. Switch to it before 0.3.",
    "",
    "Four intents were renamed so that no intent reads as a value's words reversed (intents are "
    "imperative verbs and never start with `Update`); the old names stay as aliases until 0.3 "
    "(each warns with its new name):",
    "",
    *(f"- `{old}` → `{new}`" for old, new in _renamed.RENAMED.items()),
)


def _own_names(sub: str) -> list[tuple[str, str, Any]]:
    """(name, defining module, object) of a submodule's own public names, in its order."""
    module = importlib.import_module(f"acp_core.{sub}")
    known = set(PUBLIC)
    return [
        (name, _definer(module, name), getattr(module, name))
        for name in module.__all__
        if name not in known
    ]


def _definer(module: types.ModuleType, name: str) -> str:
    """The module that defines `name`: a class's or function's own, else the module the
    public submodule imports it from (a constant's `__module__` is its type's)."""
    obj = getattr(module, name)
    if inspect.isclass(obj) or inspect.isfunction(obj):
        return str(obj.__module__)
    path = Path(module.__file__ or "")
    base = module.__name__ if path.name == "__init__.py" else module.__name__.rpartition(".")[0]
    for node in ast.parse(path.read_text(encoding="utf-8")).body:
        if isinstance(node, ast.ImportFrom) and any(a.name == name for a in node.names):
            if node.level == 0:
                return str(node.module)
            return f"{base}.{node.module}" if node.module else base
    return module.__name__


def _anchor(title: str) -> str:
    return re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")


def api_markdown() -> str:
    """The text of docs/api.md."""
    origin = _origins()
    out = [
        "# API reference",
        "",
        "<!-- Generated from `acp_core._HOME` and the docstrings by `api_markdown()` in",
        "     tests/test_api_docs.py (`python tests/test_api_docs.py` rewrites this file);",
        "     do not edit by hand: the test keeps the two in sync. -->",
        "",
        f"Every public name of acp-core {acp_core.__version__}, grouped by what you are doing, "
        "each with its home: the package root holds the common path (`import acp_core as acp; "
        "acp.step(...)`, the names in `acp_core.__all__`); the rest live in the public "
        "submodules "
        + ", ".join(f"`acp_core.{sub}`" for sub in (*SUBMODULES, *(o[0] for o in OWN_SECTIONS)))
        + ". The private modules named below are where each one is defined; do not import "
        "from them.",
        "",
        *MOVED,
        "",
    ]
    toc = []
    body: list[str] = []
    for index, (title, purpose, _) in enumerate(SECTIONS):
        names = [n for n in PUBLIC if section_of(origin[n]) == index]
        if not names:
            continue
        names.sort(
            key=lambda n: (origin[n], _line(origin[n], n, getattr(acp_core, n)))
        )
        modules = sorted({origin[n] for n in names})
        toc.append(f"- [{title}](#{_anchor(title)}): " + ", ".join(f"`{n}`" for n in names))
        body += [f"## {title}", "", purpose, ""]
        body += [f"Defined in {', '.join(f'`{m}`' for m in modules)}.", ""]
        for name in names:
            body += _entry(name, origin[name])
    listed: set[str] = set()
    for sub, title, purpose in OWN_SECTIONS:
        # A name two of these modules share (`FEATURES`) is listed once, in the first.
        own = [o for o in _own_names(sub) if o[0] not in listed]
        listed |= {name for name, _, _ in own}
        toc.append(f"- [{title}](#{_anchor(title)}): " + ", ".join(f"`{n}`" for n, _, _ in own))
        body += [f"## {title}", "", f"`import acp_core.{sub}`: {purpose}", ""]
        for name, module, obj in own:
            body += _entry(name, module.removeprefix("acp_core."), obj, f"acp_core.{sub}")
    text = "\n".join([*out, *toc, "", *body])
    return re.sub(r"\n{3,}", "\n\n", text).rstrip() + "\n"


# -- tests ---------------------------------------------------------------------------------


def test_docs_api_md_is_generated_from_the_package() -> None:
    assert API_MD.read_text(encoding="utf-8") == api_markdown(), (
        "docs/api.md is out of date: run `python tests/test_api_docs.py`"
    )


def test_every_public_name_has_an_entry() -> None:
    text = api_markdown()
    for name in PUBLIC:
        assert text.count(f"\n### `{name}`\n") == 1, name


def test_no_public_name_falls_outside_the_sections() -> None:
    origin = _origins()
    assert [n for n in PUBLIC if section_of(origin[n]) is None] == []


def test_every_own_name_of_the_research_and_io_modules_has_an_entry() -> None:
    text = api_markdown()
    for sub, _, _ in OWN_SECTIONS:
        names = [name for name, _, _ in _own_names(sub)]
        assert names, sub  # each module has names of its own
        for name in names:
            assert text.count(f"\n### `{name}`\n") == 1, (sub, name)


def test_member_summaries_are_whole_sentences() -> None:
    assert first_sentence("One line\ngoes on. Second.") == "One line goes on."
    assert first_sentence("Ends e.g. here.\n\nNext paragraph.") == "Ends e.g. here."
    for line in api_markdown().splitlines():
        if line.startswith("- `.") and ": " in line:
            summary = line.split("`: ", 1)[-1].split(" (property): ")[-1]
            assert not summary or summary.rstrip().endswith((".", ":", "!", "?", ")", "`")), line


def test_every_public_name_is_documented() -> None:
    # A docstring, a `#:` comment above a constant, or a type alias's own definition.
    origin = _origins()
    undocumented = []
    for name in PUBLIC:
        obj = getattr(acp_core, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            if not inspect.getdoc(obj):
                undocumented.append(name)
            continue
        found = _assignment(origin[name].lstrip("."), name)
        alias = isinstance(obj, (types.UnionType, str)) or type(obj).__module__ == "typing"
        if found is None or not (found[1] or alias):
            undocumented.append(name)
    assert undocumented == []


if __name__ == "__main__":
    import warnings

    warnings.simplefilter("ignore", DeprecationWarning)  # the generator reads the 0.1 aliases
    API_MD.write_text(api_markdown(), encoding="utf-8")
    sys.stdout.write(f"wrote {API_MD}\n")
