"""Names that moved keep working for one release, with a `DeprecationWarning` that names the
new home (the guide's rule for every public rename): the 0.1 root aliases (`acp_core.X` for a
name that now lives in a submodule) and the four renamed intents. The common path
(`acp_core.__all__`) and the submodules' own names never warn."""

from __future__ import annotations

import subprocess
import sys
import warnings

import pytest

import acp_core
from acp_core import intents

#: A fresh interpreter per case: the package caches a name once loaded (and warns once).
MOVED = "moved: import it from acp_core."
RENAMED = "was renamed: use acp_core.intents."
CASES = [
    ("import acp_core; acp_core.AcceptPrompt", f"acp_core.AcceptPrompt {MOVED}intents"),
    ("from acp_core import TextContent", f"acp_core.TextContent {MOVED}values"),
    ("import acp_core; acp_core.UpdatePlan", f"acp_core.UpdatePlan {RENAMED}ReportPlan"),
    (
        "from acp_core.intents import UpdateToolCall",
        f"acp_core.intents.UpdateToolCall {RENAMED}PatchToolCall",
    ),
]


@pytest.mark.parametrize(("code", "warning"), CASES, ids=[c[1].split(" ")[0] for c in CASES])
def test_a_moved_name_works_and_warns_with_its_home(code: str, warning: str) -> None:
    run = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", code],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 1
    assert f"DeprecationWarning: {warning}" in run.stderr
    works = subprocess.run([sys.executable, "-W", "ignore", "-c", code], check=False)
    assert works.returncode == 0


def test_the_common_path_and_the_homes_never_warn() -> None:
    code = (
        "import acp_core as a\n"
        "for n in a.__all__: getattr(a, n)\n"
        "from acp_core import intents, values, connection, engines, codec, sessions, checker, v1\n"
        "for m in (intents, values, connection, engines, codec, sessions, checker, v1):\n"
        "    [getattr(m, n) for n in m.__all__ if not n.startswith('Update')]\n"
    )
    run = subprocess.run(
        [sys.executable, "-W", "error::DeprecationWarning", "-c", code],
        capture_output=True,
        text=True,
        check=False,
    )
    assert run.returncode == 0, run.stderr


def test_a_renamed_intent_is_its_new_intent() -> None:
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert intents.UpdateToolCall is intents.PatchToolCall  # type: ignore[attr-defined]
        assert acp_core.UpdateSessionInfo is intents.PatchSessionInfo  # type: ignore[attr-defined]
