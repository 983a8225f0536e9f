"""No import cycle among acp_core's modules: none at run time, and none through annotation-only
or deferred imports either.

Every `import` and `from ... import` of a module under acp_core/ is an edge to the acp_core
module it names (`from pkg import name` reaches `pkg.name` when that is a module, else `pkg`).
An edge is *runtime* when the import runs as the module loads: at its top level, outside an
`if TYPE_CHECKING:` block. Imports under `TYPE_CHECKING` (annotations only) and inside a
function (deferred to the call) are edges too, of the whole graph. The loading order needs
no runtime cycle (test_no_runtime_import_cycle). A cycle of the whole graph is a cohesion
smell, one concept cut over modules that know each other (docs/style.md "one job per
module"): there is none (test_no_import_cycle_at_all).
"""

from __future__ import annotations

import ast
from collections.abc import Iterable, Mapping
from pathlib import Path

import acp_core

PACKAGE = Path(acp_core.__file__).parent



def _module_name(path: Path) -> str:
    parts = path.relative_to(PACKAGE.parent).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _is_type_checking(test: ast.expr) -> bool:
    return (isinstance(test, ast.Name) and test.id == "TYPE_CHECKING") or (
        isinstance(test, ast.Attribute) and test.attr == "TYPE_CHECKING"
    )


def import_edges(
    module: str, source: str, modules: Iterable[str], *, is_package: bool = False
) -> set[tuple[str, str, bool]]:
    """(importer, imported, runtime) for each import of `source` that names one of `modules`."""
    known = set(modules)
    package = module if is_package else module.rpartition(".")[0]
    edges: set[tuple[str, str, bool]] = set()

    def target(base: str, name: str) -> str | None:
        full = f"{base}.{name}" if base else name
        return full if full in known else base if base in known else None

    def visit(node: ast.AST, runtime: bool) -> None:
        if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.Lambda)):
            runtime = False  # runs when called, not when the module loads
        if isinstance(node, ast.If) and _is_type_checking(node.test):
            for child in node.body:
                visit(child, False)
            for child in node.orelse:
                visit(child, runtime)
            return
        if isinstance(node, ast.Import):
            for alias in node.names:
                name = alias.name
                while name and name not in known:
                    name = name.rpartition(".")[0]
                if name:
                    edges.add((module, name, runtime))
        elif isinstance(node, ast.ImportFrom):
            if node.level:
                base = package
                for _ in range(node.level - 1):
                    base = base.rpartition(".")[0]
                base = f"{base}.{node.module}" if node.module else base
            else:
                base = node.module or ""
            for alias in node.names:
                found = target(base, alias.name)
                if found is not None:
                    edges.add((module, found, runtime))
        for child in ast.iter_child_nodes(node):
            visit(child, runtime)

    visit(ast.parse(source), True)
    return {(a, b, r) for a, b, r in edges if a != b or r}


def package_edges() -> set[tuple[str, str, bool]]:
    paths = {_module_name(p): p for p in PACKAGE.rglob("*.py")}
    edges: set[tuple[str, str, bool]] = set()
    for name, path in paths.items():
        source = path.read_text(encoding="utf-8")
        edges |= import_edges(name, source, paths, is_package=path.name == "__init__.py")
    return edges


def cycles(edges: Iterable[tuple[str, str]]) -> set[frozenset[str]]:
    """The strongly connected components with more than one module, or a module importing
    itself (Tarjan's algorithm, iterative)."""
    graph: dict[str, set[str]] = {}
    for a, b in edges:
        graph.setdefault(a, set()).add(b)
        graph.setdefault(b, set())
    return {c for c in _components(graph) if len(c) > 1 or next(iter(c)) in graph[next(iter(c))]}


def _components(graph: Mapping[str, set[str]]) -> list[frozenset[str]]:
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[frozenset[str]] = []
    for root in sorted(graph):
        if root in index:
            continue
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, children = work[-1]
            child = next(children, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                low[work[-1][0]] = min(low[work[-1][0]], low[node])
            if low[node] == index[node]:
                component = set()
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.add(member)
                    if member == node:
                        break
                found.append(frozenset(component))
    return found


def _show(found: Iterable[frozenset[str]]) -> list[list[str]]:
    return sorted(sorted(c) for c in found)


def test_no_runtime_import_cycle() -> None:
    edges = package_edges()
    assert _show(cycles((a, b) for a, b, runtime in edges if runtime)) == []


def test_no_import_cycle_at_all() -> None:
    # Annotation-only and deferred imports included (issue 21 item 7): the last two went in
    # the ninth session (the state reports and `RpcError` got modules of their own; the
    # Preview rules' draft memory, `_rules/_check_preview_draft.py`, and `Reporting`).
    found = cycles((a, b) for a, b, _ in package_edges())
    assert _show(found) == [], "an import cycle: cut it along the protocol's seams"


def test_the_engines_have_no_cycle_at_all() -> None:
    # Issue 21 item 7: their step modules read the engine through `_agent_build.AgentView` /
    # `_client_build.ClientView`, never the engine's module, not even for annotations.
    engines = [
        sorted(c)
        for c in cycles((a, b) for a, b, _ in package_edges())
        if any(m.startswith(("acp_core._engines._agent", "acp_core._engines._client")) for m in c)
    ]
    assert engines == []


def test_the_graph_sees_a_planted_cycle() -> None:
    # Planted cycles, one of each kind, so the checks above can fail.
    modules = ("p", "p.a", "p.b", "p.c")
    runtime = import_edges("p.a", "from .b import x\n", modules) | import_edges(
        "p.b", "from p import a\n", modules
    )
    assert cycles((a, b) for a, b, r in runtime if r) == {frozenset({"p.a", "p.b"})}
    annotation = import_edges("p.a", "from .c import y\n", modules) | import_edges(
        "p.c",
        "from typing import TYPE_CHECKING\nif TYPE_CHECKING:\n    from .a import z\n",
        modules,
    )
    assert cycles((a, b) for a, b, r in annotation if r) == set()
    assert cycles((a, b) for a, b, _ in annotation) == {frozenset({"p.a", "p.c"})}
    deferred = import_edges("p.b", "def f():\n    from . import c\n", modules)
    assert deferred == {("p.b", "p.c", False)}
    assert import_edges("p", "from . import a\n", modules, is_package=True) == {("p", "p.a", True)}
