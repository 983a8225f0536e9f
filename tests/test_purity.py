"""The core does no I/O: only the command line may (`acp_core/__main__.py`, the processes
of its `explore --workers`, `acp_core/_cli/_cli_processes.py`, and the pipes and threads of
`proxy`, `acp_core/_cli/_cli_proxy.py`).

Checked on the source, so a new module cannot slip an import of a clock, a socket, a file
system or a random source past review: every module but `__main__` is parsed and its
imports and calls are compared against the forbidden lists below.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

import acp_core

PACKAGE = Path(acp_core.__file__).parent
FORBIDDEN_MODULES = {
    "asyncio", "datetime", "importlib", "io", "logging", "multiprocessing", "os", "pathlib",
    "random", "secrets", "select", "selectors", "shutil", "signal", "socket", "subprocess",
    "sys", "tempfile", "threading", "time", "urllib", "uuid",
}  # fmt: skip
FORBIDDEN_CALLS = {"open", "print", "input", "breakpoint", "exit", "quit"}
#: The command line's modules that start processes, use pipes, threads or the clock.
PROCESS_MODULES = ("_cli_processes", "_cli_proxy")
COMMAND_LINE = {PACKAGE / "__main__.py", *(PACKAGE / "_cli" / f"{m}.py" for m in PROCESS_MODULES)}
# acp_core.aio is the real I/O (sockets, tasks, `secrets` for connection ids): allowed, and
# imported by nothing else in the package (test_nothing_in_the_core_imports_aio).
AIO = PACKAGE / "aio"
CORE = sorted(
    p for p in PACKAGE.rglob("*.py") if p not in COMMAND_LINE and AIO not in p.parents
)


def _violations(path: Path) -> list[str]:
    tree = ast.parse(path.read_text(encoding="utf-8"), filename=str(path))
    found = []
    for node in ast.walk(tree):
        names: list[str] = []
        if isinstance(node, ast.Import):
            names = [alias.name for alias in node.names]
        elif isinstance(node, ast.ImportFrom) and node.level == 0 and node.module:
            names = [node.module]
        found += [
            f"{path.name}:{node.lineno} imports {n}"
            for n in names
            if n.split(".")[0] in FORBIDDEN_MODULES
        ]
        if (
            isinstance(node, ast.Call)
            and isinstance(node.func, ast.Name)
            and node.func.id in FORBIDDEN_CALLS
        ):
            found.append(f"{path.name}:{node.lineno} calls {node.func.id}()")
    return found


def test_the_package_has_the_modules_this_test_reads() -> None:
    assert len(CORE) > 20
    assert all(path.exists() for path in COMMAND_LINE)


@pytest.mark.parametrize("path", CORE, ids=lambda p: p.name)
def test_core_module_does_no_io(path: Path) -> None:
    assert _violations(path) == []


def test_the_checker_of_this_test_sees_io(tmp_path: Path) -> None:
    sample = tmp_path / "sample.py"
    sample.write_text("import time\nfrom os import path\nprint(open('x'))\n")
    assert _violations(sample) == [
        "sample.py:1 imports time",
        "sample.py:2 imports os",
        "sample.py:3 calls print()",
        "sample.py:3 calls open()",
    ]


def test_only_the_command_line_imports_its_processes() -> None:
    # `_cli_processes` and `_cli_proxy` may start processes (and read the clock, use pipes
    # and threads) because only `__main__` uses them.
    importers = [
        p.name
        for p in CORE
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8")))
        if isinstance(node, (ast.Import, ast.ImportFrom))
        and any(m in ast.unparse(node) for m in PROCESS_MODULES)
    ]
    assert importers == []


def test_nothing_in_the_core_imports_aio() -> None:
    # The pure core must work without the `http` extra: only acp_core.aio itself imports it.
    assert (AIO / "_asgi.py").exists()
    importers = []
    for p in CORE:
        for node in ast.walk(ast.parse(p.read_text(encoding="utf-8"))):
            if isinstance(node, ast.Import):
                names = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                names = [("." * node.level) + (node.module or "")]
            else:
                continue
            if any(n.startswith("acp_core.aio") or n.lstrip(".").startswith("aio") for n in names):
                importers.append(p.name)
    assert importers == []
