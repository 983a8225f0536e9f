"""docs/api.md is generated from the package's public names and docstrings, and kept in sync.

`api_markdown()` builds the reference: one section per area, one entry per public name, in
the order the defining module declares them, with its signature and its docstring (or the
`#:` comment above a constant, or the definition of a type alias). Regenerate with:

    python tests/test_api_docs.py
"""

from __future__ import annotations

import ast
import enum
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

#: Areas of the reference, in reading order, and the private modules each one covers.
SECTIONS: tuple[tuple[str, tuple[str, ...]], ...] = (
    ("Engines", ("_step", "_agent", "_client")),
    ("Intents", ("_intents",)),
    ("Codec", ("_codec",)),
    ("Session state and reducers", ("_state", "_reduce", "_fold", "_snapshot", "_render")),
    ("Trace checker and rule catalogue", ("_check", "_rules")),
    ("Reports", ("_report", "_mermaid")),
    ("v1 normalizer", ("_v1", "_v1_policy", "_v1_state")),
    ("Session updates", ("_updates",)),
    ("Content", ("_content",)),
    ("JSON-RPC messages", ("_jsonrpc",)),
    ("JSON values and collections", ("_json", "_pcoll")),
    ("Errors", ("_errors",)),
    ("Revisions", ("_revision",)),
)

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
    id(acp_core.UNSET): "UNSET",
    id(acp_core.EMPTY_OBJECT): "EMPTY_OBJECT",
    id(acp_core.DEFAULT_REVISION): "DEFAULT_REVISION",
}


def _default(value: Any) -> str:
    if id(value) in _PUBLIC_VALUES:
        return _PUBLIC_VALUES[id(value)]
    if value is attrs.NOTHING or isinstance(value, attrs.Factory):  # type: ignore[arg-type]
        return "..."
    text = repr(value)
    return text if len(text) <= 40 else "..."


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


def _members(cls: type) -> list[str]:
    lines = []
    for member, value in vars(cls).items():
        if member.startswith("_"):
            continue
        if isinstance(value, property):
            summary = (inspect.getdoc(value) or "").split("\n")[0]
            lines.append(f"- `.{member}` (property): {summary}")
        elif inspect.isfunction(value) or isinstance(value, (classmethod, staticmethod)):
            function = value.__func__ if isinstance(value, (classmethod, staticmethod)) else value
            summary = (inspect.getdoc(function) or "").split("\n")[0]
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


def _entry(name: str, module: str) -> list[str]:
    obj = getattr(acp_core, name)
    lines = [f"### `{name}`", "", f"`from {homes()[name]} import {name}`", ""]
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
            lines += ["```python", f"{name} = {value.strip(chr(34))}", "```", ""]
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
    "work for every name of 0.1, for one release, without a warning. Switch to the home "
    "submodule before 0.3.",
    "",
    "Four intents were renamed so that no intent reads as a value's words reversed (intents are "
    "imperative verbs and never start with `Update`); the old names stay as aliases until 0.3:",
    "",
    *(f"- `{old}` → `{new}`" for old, new in _renamed.RENAMED.items()),
)


def api_markdown() -> str:
    """The text of docs/api.md."""
    origin = _origins()
    known = {m for _, modules in SECTIONS for m in modules}
    sections = list(SECTIONS)
    extra = sorted({origin[n].lstrip(".") for n in PUBLIC} - known)
    if extra:
        sections.append(("More", tuple(extra)))
    out = [
        "# API reference",
        "",
        "<!-- Generated from `acp_core._HOME` and the docstrings by `api_markdown()` in",
        "     tests/test_api_docs.py (`python tests/test_api_docs.py` rewrites this file);",
        "     do not edit by hand: the test keeps the two in sync. -->",
        "",
        f"Every public name of acp-core {acp_core.__version__}, each with its home: the package "
        "root holds the common path (`import acp_core as acp; acp.step(...)`, the names in "
        "`acp_core.__all__`); the rest live in the public submodules "
        + ", ".join(f"`acp_core.{sub}`" for sub in SUBMODULES)
        + ". The private modules named below are where each one is defined; do not import "
        "from them.",
        "",
        *MOVED,
        "",
    ]
    toc = []
    body: list[str] = []
    for title, modules in sections:
        names = [n for n in PUBLIC if origin[n].lstrip(".") in modules]
        if not names:
            continue
        names.sort(
            key=lambda n: (
                modules.index(origin[n].lstrip(".")),
                _line(origin[n].lstrip("."), n, getattr(acp_core, n)),
            )
        )
        anchor = re.sub(r"[^a-z0-9 -]", "", title.lower()).replace(" ", "-")
        toc.append(f"- [{title}](#{anchor}): " + ", ".join(f"`{n}`" for n in names))
        body += [f"## {title}", "", f"Defined in {', '.join(f'`{m}`' for m in modules)}.", ""]
        for name in names:
            body += _entry(name, origin[name].lstrip("."))
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
    API_MD.write_text(api_markdown(), encoding="utf-8")
    sys.stdout.write(f"wrote {API_MD}\n")
