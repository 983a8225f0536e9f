"""The quick selection (`pytest -m "not slow"`): every name in SLOW_TESTS still names a test,
so a renamed slow test does not silently rejoin the quick run (or vanish from the list)."""

from __future__ import annotations

import ast
from pathlib import Path

from conftest import SLOW_TESTS

TESTS = Path(__file__).parent


def test_every_slow_name_is_a_test_in_its_file() -> None:
    missing = []
    for key in sorted(SLOW_TESTS):
        file, name = key.split("::")
        path = TESTS / file
        tree = ast.parse(path.read_text(encoding="utf-8")) if path.exists() else None
        defined = set() if tree is None else {
            node.name
            for node in ast.walk(tree)
            if isinstance(node, (ast.FunctionDef, ast.AsyncFunctionDef, ast.ClassDef, ast.Assign))
            and hasattr(node, "name")
        } | {
            target.id
            for node in ([] if tree is None else ast.walk(tree))
            if isinstance(node, ast.Assign)
            for target in node.targets
            if isinstance(target, ast.Name)
        }
        if name not in defined:
            missing.append(key)
    assert missing == []
