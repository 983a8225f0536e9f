"""Apply a unified diff (as `git diff` writes one) to a directory, in Python.

What tests/test_contributing_walkthrough.py needs of `git apply`, without git: each hunk's
old lines must stand in the file (at the line the hunk names, or further on, as `git apply`
allows an offset), and new files must not exist yet. `apply_patch(text, root, write=False)`
checks only; with `write=True` it writes the result. A hunk that does not apply raises
`PatchError` naming the file and the hunk.
"""

from __future__ import annotations

import re
from pathlib import Path

_HUNK = re.compile(r"^@@ -(\d+)(?:,\d+)? \+\d+(?:,\d+)? @@")


class PatchError(Exception):
    """A hunk of the patch does not apply to the tree."""


def _files(text: str) -> list[tuple[str | None, str, list[list[str]]]]:
    # (old path or None for a new file, new path, hunks as their raw lines)
    out: list[tuple[str | None, str, list[list[str]]]] = []
    old: str | None = None
    lines = text.splitlines()
    i = 0
    while i < len(lines):
        line = lines[i]
        if line.startswith("--- "):
            name = line[4:]
            old = None if name == "/dev/null" else name.removeprefix("a/")
            new = lines[i + 1][4:].removeprefix("b/")
            out.append((old, new, []))
            i += 2
            continue
        if line.startswith("@@"):
            out[-1][2].append([line])
        elif out and out[-1][2] and line[:1] in (" ", "-", "+", "\\"):
            out[-1][2][-1].append(line)
        i += 1
    return out


def apply_patch(text: str, root: Path, *, write: bool = False) -> list[str]:
    """Check (and with `write`, apply) the patch `text` against `root`; the files it names.

    Raises:
        PatchError: a hunk's old lines are not in its file, or a new file already exists.
    """
    touched = []
    for old, new, hunks in _files(text):
        target = root / new
        if old is None:
            if target.exists():
                raise PatchError(f"{new}: a new file of the patch already exists")
            content: list[str] = []
        else:
            content = (root / old).read_text().splitlines()
        at = 0
        for hunk in hunks:
            header = _HUNK.match(hunk[0])
            if header is None:
                raise PatchError(f"{new}: not a hunk header: {hunk[0]!r}")
            body = [line for line in hunk[1:] if not line.startswith("\\")]
            before = [line[1:] for line in body if line[:1] in (" ", "-")]
            after = [line[1:] for line in body if line[:1] in (" ", "+")]
            start = max(int(header.group(1)) - 1, 0) if before else int(header.group(1))
            found = next(
                (
                    p
                    for p in (start, *range(at, len(content) - len(before) + 1))
                    if p >= at and content[p : p + len(before)] == before
                ),
                None,
            )
            if found is None:
                raise PatchError(f"{new}: the hunk {hunk[0]!r} does not apply")
            content[found : found + len(before)] = after
            at = found + len(after)
        touched.append(new)
        if write:
            target.parent.mkdir(parents=True, exist_ok=True)
            target.write_text("\n".join(content) + "\n")
    return touched
