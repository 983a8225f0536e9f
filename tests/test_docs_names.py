"""The README and docs teach only public names: every `acp.X` they show is in
`acp_core.__all__` (the common path) or a public submodule (`acp.intents.AcceptPrompt`).

Before, 16 of the 40 `acp.X` names in the README, quickstart, concepts, transports and research
pages were root aliases that docs/api.md says stop working in 0.3 (issue 27)."""

from __future__ import annotations

import re
from pathlib import Path

import pytest

import acp_core

ROOT = Path(__file__).resolve().parents[1]
PAGES = [ROOT / "README.md", *sorted(p for p in (ROOT / "docs").glob("*.md") if p.name != "api.md")]
#: `acp.X`, not part of a longer dotted name or a path (`/tmp/acp.jsonl`).
NAME = re.compile(r"(?<![\w./-])acp\.([A-Za-z_][A-Za-z0-9_]*)\b")
PUBLIC_ROOT = set(acp_core.__all__) | set(acp_core._SUBMODULES) | {"aio", "explore", "strategies"}


def root_names(text: str) -> set[str]:
    return {m.group(1) for m in NAME.finditer(text)} - {"contrib"}  # `acp.contrib`: a domain


@pytest.mark.parametrize("page", PAGES, ids=lambda p: p.name)
def test_every_acp_name_a_page_shows_is_public(page: Path) -> None:
    assert sorted(root_names(page.read_text(encoding="utf-8")) - PUBLIC_ROOT) == []


def test_the_scan_sees_a_root_alias() -> None:
    shown = root_names("acp.AcceptPrompt(1); acp.intents.EndTurn(); see /tmp/acp.jsonl")
    assert shown == {"AcceptPrompt", "intents"}
    assert shown - PUBLIC_ROOT == {"AcceptPrompt"}
