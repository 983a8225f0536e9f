"""Shared test set-up: hypothesis profiles and the location of the v2 spec oracles."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings
from interop_setup import SDK_SCHEMA_2026_11, sdk_unavailable

# The default profile is deterministic: the README's plain `pytest` must be green on the first
# run of a fresh clone, every time. A health check about speed, or a per-example deadline, measures
# the machine and its load, not the code, so both are off in every profile.
# `HYPOTHESIS_PROFILE=random` explores new examples on each run (and keeps the example database),
# for a developer hunting bugs; `ci` is the default with more examples.
_QUIET = [HealthCheck.too_slow]
_CALM = {"suppress_health_check": _QUIET, "deadline": None}
settings.register_profile("default", max_examples=100, derandomize=True, database=None, **_CALM)
settings.register_profile("dev", parent=settings.get_profile("default"))  # the old name
settings.register_profile("ci", max_examples=200, derandomize=True, database=None, **_CALM)
settings.register_profile("random", max_examples=100, **_CALM)
settings.register_profile("fast", max_examples=20, derandomize=True, **_CALM)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "default"))

SPEC_DIR = Path(
    os.environ.get("ACP_V2_SPEC_DIR", Path(__file__).resolve().parents[2] / "shared" / "acp-v2")
)


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(
            f"ACP v2 spec oracle {path} not found: set ACP_V2_SPEC_DIR to the shared acp-v2 folder"
        )
    return path


def schema_2026_11_path() -> Path:
    """The official 2026-11 schema: the shared copy, else the one the npm SDK package ships
    (installed into interop/node_modules on demand, so any clone with Node has the oracle)."""
    shared = SPEC_DIR / "draft-2026-11" / "schema.json"
    if shared.exists():
        return shared
    why = sdk_unavailable()
    if why is None:
        return SDK_SCHEMA_2026_11
    pytest.skip(f"ACP v2 2026-11 schema: {shared} not found and not from npm either: {why}")


@pytest.fixture(scope="session")
def spec_schema_2026_11() -> dict[str, Any]:
    """The official 2026-11 draft JSON Schema (the one TypeScript SDK 2.4.0 bundles)."""
    with schema_2026_11_path().open() as f:
        schema: dict[str, Any] = json.load(f)
    return schema


@pytest.fixture(scope="session")
def spec_schema() -> dict[str, Any]:
    """The official stable v2 JSON Schema (2.0.0-alpha.3)."""
    with _require(SPEC_DIR / "schema.json").open() as f:
        schema: dict[str, Any] = json.load(f)
    return schema


@pytest.fixture(scope="session")
def doc_examples() -> list[dict[str, Any]]:
    """Every JSON example of the stable v2 documentation pages."""
    with _require(SPEC_DIR / "doc-examples.jsonl").open() as f:
        return [json.loads(line) for line in f if line.strip()]


# CI installs every optional peer and oracle, so there a skip would stand in for coverage:
# `ACP_FORBID_SKIPS=1` (set by .ci/run) turns each skip into a failure that gives its reason,
# except reasons containing one of the `|`-separated `ACP_ALLOWED_SKIPS` (what .ci/run could
# not install and said so). A user's plain `pytest` skips, saying why.
_FORBID_SKIPS = os.environ.get("ACP_FORBID_SKIPS") == "1"
_ALLOWED_SKIPS = tuple(filter(None, os.environ.get("ACP_ALLOWED_SKIPS", "").split("|")))


def _skip_reason(report: Any) -> str:
    longrepr = report.longrepr
    reason = longrepr[2] if isinstance(longrepr, tuple) else str(longrepr)
    return str(reason).removeprefix("Skipped: ")


def _forbid_skip(report: Any) -> None:
    if not (_FORBID_SKIPS and report.skipped) or hasattr(report, "wasxfail"):
        return
    reason = _skip_reason(report)
    if not any(allowed in reason for allowed in _ALLOWED_SKIPS):
        report.outcome = "failed"
        report.longrepr = f"skipped under ACP_FORBID_SKIPS=1 (CI must run it): {reason}"


@pytest.hookimpl(hookwrapper=True)
def pytest_runtest_makereport(item: pytest.Item, call: pytest.CallInfo[None]) -> Any:
    _forbid_skip((yield).get_result())


@pytest.hookimpl(hookwrapper=True)
def pytest_make_collect_report(collector: pytest.Collector) -> Any:
    _forbid_skip((yield).get_result())  # a module-level importorskip


def pytest_terminal_summary(terminalreporter: Any) -> None:
    """One closing line that says what was skipped and why (pytest alone lists only counts)."""
    reasons: dict[str, int] = {}
    for report in terminalreporter.stats.get("skipped", []):
        reason = _skip_reason(report)
        reasons[reason] = reasons.get(reason, 0) + 1
    if reasons:
        parts = "; ".join(f"{n} x {why}" for why, n in sorted(reasons.items()))
        terminalreporter.write_line(f"skipped: {parts}")
    else:
        terminalreporter.write_line("skipped: nothing")
