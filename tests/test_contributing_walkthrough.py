"""docs/contributing.md's walk-through A2 (a variant with a field, state and a rule:
`focus_update`) is a patch that applies to this tree, not a story.

tests/walkthroughs/focus_update.patch is the change done for real (a fake Preview-only
protocol feature, so it stays out of the package): the package files and the walk-through's
own tests. The generated modules (`_wire/_value_methods.py`, `_wire/_compiled_sources.py`)
and the regenerated docs are not in it: `python tools/generate_values.py`,
`python tests/test_api_docs.py` and `python -m acp_core rules` write those. Here:
- the patch edits at most 7 package files, and the doc's table names exactly the files the
  patch edits, package and tests alike, with the count the doc states (no drift either way);
- the patch applies to this working tree, checked in Python as `git apply --check` checks
  it, so no git is needed (a change on main that touches the same lines breaks it: refresh
  the patch by redoing the walk-through);
- (slow) in a copy of the package and the tests, the patch applied and the generator run, the
  walk-through's own tests and the sanity checks of the public namespace pass.
"""

from __future__ import annotations

import os
import re
import shutil
import subprocess
import sys
from pathlib import Path

import pytest
from conftest import SPEC_DIR
from unified_patch import PatchError, apply_patch

ROOT = Path(__file__).resolve().parents[1]
PATCH = ROOT / "tests" / "walkthroughs" / "focus_update.patch"
CONTRIBUTING = ROOT / "docs" / "contributing.md"
HEADING = "### A variant with a field, state and a rule: `focus_update`"
#: Written by `python tools/generate_values.py`, never by hand: not counted, not in the patch.
GENERATED = frozenset({"acp_core/_wire/_value_methods.py", "acp_core/_wire/_compiled_sources.py"})
#: The change cost the contributing guide promises for this walk-through (issue 21, Build 9).
MAX_PACKAGE_FILES = 7
#: What the slow test runs after applying the patch: the walk-through's own tests (the
#: variant, its state and R82; the checker's corpus row; the engine's refusal) and the
#: namespace sanity checks (the new public name has one home and the root serves it).
AFTER_APPLY = (
    "tests/test_focus_update.py",
    "tests/test_check_preview.py::test_every_preview_rule_the_checker_reports_has_a_case",
    "tests/test_check_preview.py::test_good_trace_is_clean_and_bad_trace_breaks_its_rule",
    "tests/test_engine_obeys_checker.py::test_the_engine_refuses_what_the_checker_rejects_and_sends_the_good_variant",
    "tests/test_namespace.py",
    "tests/test_values_generated.py::test_the_checked_in_generated_module_is_current",
)


def patched_files(patch_text: str) -> list[str]:
    """The paths a git patch edits (or creates), in order."""
    return re.findall(r"^diff --git a/(\S+) b/\S+$", patch_text, flags=re.MULTILINE)


def _section(markdown: str) -> str:
    start = markdown.index(HEADING)
    following = markdown.find("\n## ", start)
    nested = markdown.find("\n### ", start + len(HEADING))
    ends = [i for i in (following, nested) if i != -1]
    return markdown[start : min(ends) if ends else len(markdown)]


def table_files(section: str) -> list[str]:
    """The File column of the section's first table (`| # | \\`path\\` | what |` rows)."""
    return re.findall(r"^\| *\d+ *\| *`([^`]+)` *\|", section, flags=re.MULTILINE)


def _package(files: list[str]) -> list[str]:
    return [f for f in files if f.startswith("acp_core/") and f not in GENERATED]


def test_the_patch_edits_at_most_seven_package_files_and_no_generated_module() -> None:
    files = patched_files(PATCH.read_text(encoding="utf-8"))
    package = _package(files)
    assert len(package) <= MAX_PACKAGE_FILES, package
    assert not GENERATED & set(files), "the generator writes these: leave them out of the patch"
    assert all(f.startswith(("acp_core/", "tests/")) for f in files), files
    assert "tests/test_focus_update.py" in files


def test_the_doc_table_lists_exactly_the_patch_files_and_states_the_count() -> None:
    files = patched_files(PATCH.read_text(encoding="utf-8"))
    section = _section(CONTRIBUTING.read_text(encoding="utf-8"))
    listed = table_files(section)
    assert len(listed) == len(set(listed)), "a file listed twice in the table"
    assert sorted(_package(listed)) == sorted(_package(files))
    tests_listed = sorted(f for f in listed if f.startswith("tests/"))
    assert tests_listed == sorted(f for f in files if f.startswith("tests/"))
    stated = re.search(r"\*\*(\d+) package files", section)
    assert stated is not None, "the section states its package file count in bold"
    assert int(stated.group(1)) == len(_package(files))


def test_the_patch_applies_to_this_tree() -> None:
    # Checked in Python (`tests/unified_patch.py`), as `git apply --check` would: every hunk's
    # old lines stand in its file, and the new test file does not exist yet.
    text = PATCH.read_text(encoding="utf-8")
    try:
        touched = apply_patch(text, ROOT)
    except PatchError as e:
        pytest.fail(
            "tests/walkthroughs/focus_update.patch no longer applies: redo docs/contributing.md's "
            f"focus_update walk-through on this tree and store the new diff ({e})"
        )
    assert touched == patched_files(text)  # every file of the patch was checked


def test_a_hunk_that_does_not_match_is_refused(tmp_path: Path) -> None:
    # The checker of the patch can fail: the same patch against a file whose lines moved on.
    (tmp_path / "a.py").write_text("one\ntwo\nthree\n")
    patch = "--- a/a.py\n+++ b/a.py\n@@ -1,2 +1,2 @@\n one\n-two\n+2\n"
    assert apply_patch(patch, tmp_path) == ["a.py"]
    apply_patch(patch, tmp_path, write=True)
    assert (tmp_path / "a.py").read_text() == "one\n2\nthree\n"
    with pytest.raises(PatchError):
        apply_patch(patch, tmp_path)  # "two" is gone


@pytest.mark.slow
def test_the_patched_copy_passes_the_walkthrough_tests(tmp_path: Path) -> None:
    copy = tmp_path / "tree"
    ignore = shutil.ignore_patterns("__pycache__", "*.pyc", ".hypothesis")
    for folder in ("acp_core", "tests", "tools"):
        shutil.copytree(ROOT / folder, copy / folder, ignore=ignore)
    shutil.copy2(ROOT / "pyproject.toml", copy / "pyproject.toml")
    env = {
        **os.environ,
        "PYTHONPATH": str(copy),
        "HYPOTHESIS_PROFILE": "fast",
        # The spec oracles stay where they are (the tests asked for here need none).
        "ACP_V2_SPEC_DIR": os.environ.get("ACP_V2_SPEC_DIR", str(SPEC_DIR)),
    }

    def run(*argv: str) -> str:
        done = subprocess.run(argv, cwd=copy, env=env, capture_output=True, text=True, check=False)
        assert done.returncode == 0, f"{argv}\n{done.stdout[-4000:]}\n{done.stderr[-4000:]}"
        return done.stdout

    apply_patch(PATCH.read_text(), copy, write=True)
    run(sys.executable, "tools/generate_values.py")
    where = run(sys.executable, "-c", "import acp_core; print(acp_core.__file__)")
    assert Path(where.strip()).is_relative_to(copy), where
    # One -q (the project's addopts add another, which hides the summary line).
    out = run(sys.executable, "-m", "pytest", "-o", "addopts=", "-q", "-p", "no:cacheprovider",
              *AFTER_APPLY)  # fmt: skip
    # Every test passed: no failure, error, skip or deselection in the summary line.
    summary = re.search(r"^(\d+) passed in [\d.]+s\b.*$", out, flags=re.MULTILINE)
    assert summary is not None, out
    assert int(summary.group(1)) >= len(AFTER_APPLY), out
