"""Every code block marked runnable in README.md and docs/ runs, each on its own.

The marker is the fence's info string: a block opened with ```` ```python runnable ```` is
run in a fresh namespace (its assertions are the test); plain ```` ```python ```` blocks are
illustrations that need more than the package (a transport library, the examples folder).
"""

from __future__ import annotations

import contextlib
import io
import re
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
_BLOCK = re.compile(r"^```python runnable[ \t]*\n(.*?)^```[ \t]*$", re.S | re.M)


def _blocks() -> list[tuple[str, str]]:
    found = []
    for path in DOCS:
        text = path.read_text(encoding="utf-8")
        for match in _BLOCK.finditer(text):
            line = text.count("\n", 0, match.start()) + 1
            found.append((f"{path.relative_to(ROOT)}:{line}", match.group(1)))
    return found


BLOCKS = _blocks()


def test_the_pages_that_teach_by_example_have_runnable_blocks() -> None:
    per_file: dict[str, int] = {}
    for where, _ in BLOCKS:
        name = where.split(":")[0]
        per_file[name] = per_file.get(name, 0) + 1
    assert per_file.get("README.md", 0) >= 1
    assert per_file.get("docs/quickstart.md", 0) >= 2
    assert per_file.get("docs/concepts.md", 0) >= 3


@pytest.mark.parametrize(("where", "code"), BLOCKS, ids=[where for where, _ in BLOCKS])
def test_block_runs(where: str, code: str) -> None:
    namespace = {"__name__": "__main__"}
    with contextlib.redirect_stdout(io.StringIO()):
        exec(compile(code, where, "exec"), namespace)


def test_every_runnable_block_passes_mypy_strict(tmp_path: Path) -> None:
    # The idioms the docs teach must type-check as a user's code would (issue 27): each block
    # is its own module, all checked in one mypy run. A block that needs a looser type says
    # so with a `# type: ignore[code]` a reader can see.
    api = pytest.importorskip("mypy.api")  # mypy is in the `test` extra
    files = {}
    for n, (where, code) in enumerate(BLOCKS):
        path = tmp_path / f"block_{n}.py"
        path.write_text(code, encoding="utf-8")
        files[path.name] = where
    blocks = [str(path) for path in sorted(tmp_path.glob("block_*.py"))]
    cache = ["--cache-dir", str(tmp_path / "cache")]
    out, err, status = api.run(["--strict", "--no-incremental", *cache, *blocks])
    errors = [line for line in out.splitlines() if ": error:" in line]
    named = [f"{files[line.split(':')[0].rsplit('/', 1)[-1]]}: {line}" for line in errors]
    assert not named, "\n".join(named)
    assert status == 0, out + err
