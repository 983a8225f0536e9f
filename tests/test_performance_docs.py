"""docs/performance.md's results are generated from the committed run (benchmarks/results.json).

`python benchmarks/run.py --json benchmarks/results.json --docs docs/performance.md` writes both;
this fails when someone edits the tables by hand or commits one without the other."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from benchmarks.run import DOCS_END, docs_section, splice_docs

ROOT = Path(__file__).resolve().parent.parent
RESULTS = "benchmarks/results.json"


def _run() -> dict[str, object]:
    data: dict[str, object] = json.loads((ROOT / RESULTS).read_text())
    return data


def test_the_generated_section_is_the_committed_run() -> None:
    doc = (ROOT / "docs" / "performance.md").read_text()
    section = docs_section(_run(), RESULTS)
    assert section in doc
    assert doc.count(DOCS_END) == 1


def test_the_run_is_at_the_default_revision_and_has_the_issue_targets() -> None:
    import acp_core

    run = _run()
    assert run["default_revision"] == acp_core.DEFAULT_REVISION.name
    names = " | ".join(str(t["name"]) for t in run["targets"])  # type: ignore[attr-defined]
    for target in ("mixed apply", "mixed decode+apply", "ClientConnection", "TS SDK", "split"):
        assert target in names


def test_a_hand_edit_is_caught_and_splicing_replaces_only_the_section() -> None:
    doc = (ROOT / "docs" / "performance.md").read_text()
    edited = doc.replace("| mixed | acp_core |", "| mixed | acp_core (edited) |", 1)
    assert edited != doc
    assert docs_section(_run(), RESULTS) not in edited
    assert splice_docs(edited, _run(), RESULTS) == doc
    with pytest.raises(SystemExit):
        splice_docs("no markers here", _run(), RESULTS)
