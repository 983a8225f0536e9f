"""The package's layers, in data-flow order: each imports only the layers before it.

acp_core/_wire (JSON, values, codec, revisions, framing) -> _state (collections, SessionState,
reducers, fold, snapshot) -> _rules (catalogue, conversation machine, checker) -> _v1 (the v1
normalizer: the client connection reads a v1 agent through it) -> _engines (intents, agent and
client engines, connections, replay generation) ->
_research (the explore model, strategy parts) -> _cli (command-line helpers, rendering,
reports). The root holds the public facade (`__init__`, the documented submodules,
`strategies`, `explore`), the command line (`__main__`) and `_errors`, which every layer uses.
"""

from __future__ import annotations

import ast
from pathlib import Path

import acp_core

PACKAGE = Path(acp_core.__file__).parent
LAYERS = ["_wire", "_state", "_rules", "_v1", "_engines", "_research", "_cli"]


def _imported_layers(source: str) -> set[str]:
    found = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.ImportFrom) and node.module:
            parts = node.module.split(".")
            if node.level == 0 and parts[0] == "acp_core" and len(parts) > 1:
                found.add(parts[1])
            elif node.level == 2:  # from .._x import: a sibling layer
                found.add(parts[0])
    return found & set(LAYERS)


def test_every_private_module_lives_in_a_layer() -> None:
    loose = {p.name for p in PACKAGE.glob("_*.py")} - {"__init__.py", "__main__.py", "_errors.py"}
    assert loose == set()
    assert {p.name for p in PACKAGE.iterdir() if p.is_dir() and p.name.startswith("_")} >= set(
        LAYERS
    )


def test_the_wheel_ships_every_layer() -> None:
    # setuptools lists the packages explicitly; a layer missing there installs as a broken wheel
    import tomllib

    pyproject = tomllib.loads((PACKAGE.parent / "pyproject.toml").read_text(encoding="utf-8"))
    listed = set(pyproject["tool"]["setuptools"]["packages"])
    folders = {
        ".".join(p.relative_to(PACKAGE.parent).parts[:-1])
        for p in PACKAGE.rglob("__init__.py")
    }
    assert listed == folders


def test_each_layer_imports_only_the_layers_before_it() -> None:
    upward = []
    for i, layer in enumerate(LAYERS):
        for path in sorted((PACKAGE / layer).glob("*.py")):
            later = _imported_layers(path.read_text(encoding="utf-8")) & set(LAYERS[i + 1 :])
            upward += [f"{layer}/{path.name} imports {name}" for name in sorted(later)]
    assert upward == []


def test_the_test_sees_an_upward_import() -> None:
    # planted upward imports, absolute and relative, so the check above can fail
    assert _imported_layers("from acp_core._cli._render import render_session\n") == {"_cli"}
    assert _imported_layers("from .._engines import _agent\n") == {"_engines"}
    assert _imported_layers("from ._codec import decode_update\n") == set()
