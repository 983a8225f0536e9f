"""CI runs every test: under `ACP_FORBID_SKIPS=1` (.ci/run) a skip is a failure that says why,
unless its reason is in `ACP_ALLOWED_SKIPS`; a plain `pytest` still skips, saying why."""

from __future__ import annotations

import os
import shutil
import subprocess
import sys
from pathlib import Path

import pytest

TESTS = Path(__file__).resolve().parent
PLANTED = """
import pytest

def test_planted_skip():
    pytest.skip("planted: a peer that is not installed")

def test_planted_pass():
    pass
"""


def _run(tmp_path: Path, **env: str) -> subprocess.CompletedProcess[str]:
    for helper in ("conftest.py", "interop_setup.py"):
        shutil.copy(TESTS / helper, tmp_path / helper)
    (tmp_path / "test_planted.py").write_text(PLANTED, "utf-8")
    clean = {
        k: v for k, v in os.environ.items() if not k.startswith("ACP_") or k == "ACP_V2_SPEC_DIR"
    }
    return subprocess.run(
        [sys.executable, "-m", "pytest", "-q", "-p", "no:cacheprovider", str(tmp_path)],
        capture_output=True,
        text=True,
        cwd=tmp_path,
        env={**clean, **env},
        timeout=120,
        check=False,
    )


@pytest.mark.parametrize(
    ("env", "status", "shown"),
    [
        ({}, 0, "skipped: 1 x planted"),
        (
            {"ACP_FORBID_SKIPS": "1"},
            1,
            "skipped under ACP_FORBID_SKIPS=1 (CI must run it): planted",
        ),
        (
            {"ACP_FORBID_SKIPS": "1", "ACP_ALLOWED_SKIPS": "other|planted:"},
            0,
            "skipped: 1 x planted",
        ),
    ],
    ids=["plain-pytest-skips", "ci-fails-the-skip", "ci-allows-a-listed-reason"],
)
def test_a_skip_fails_under_ci_unless_allowed(
    tmp_path: Path, env: dict[str, str], status: int, shown: str
) -> None:
    run = _run(tmp_path, **env)
    assert run.returncode == status, run.stdout + run.stderr
    assert shown in run.stdout
