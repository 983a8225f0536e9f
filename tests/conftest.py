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


# The quick selection for daily work: `pytest -m "not slow"` leaves out the tests below, the
# slowest of the suite (each took 4 s or more in a measured run, most of them exploration
# and whole-revision properties); every module is still exercised by its other tests. CI runs
# everything. tests/test_quick_selection.py checks each name still names a test.
SLOW_TESTS: frozenset[str] = frozenset({
    "test_check_preview_value.py::test_observing_on_a_fork_never_changes_the_original",
    "test_fold_batching.py::test_fold_equals_the_reduce_loop_on_any_generated_updates",
    "test_replay_gen.py::test_replay_rebuilds_the_state_in_a_fresh_view",
    "test_explore_workers.py::test_workers_in_this_process_give_the_one_process_result",
    "test_explore_workers.py::test_forked_workers_give_the_one_process_result",
    "test_explore_workers.py::test_a_merge_worker_by_worker_is_caught",
    "test_explore_workers.py::test_violations_and_their_shortest_paths_are_the_one_process_ones",
    "test_explore_workers.py::test_the_workers_shares_stay_balanced",
    "test_explore_workers.py::test_the_cli_s_workers_stop_on_the_budget",
    "test_explore_workers.py::test_the_cli_s_workers_find_what_one_process_finds",
    "test_revision_totality.py::test_reduce_fold_and_both_engines_are_total_over_decodable_updates",
    "test_replay_steps_bench.py::test_the_generated_trace_has_the_asked_length_and_replays",
    "test_hashseed.py::test_explore_finds_the_same_space_under_every_hash_seed",
    "test_hashseed.py::test_the_demo_writes_the_same_wire_under_every_hash_seed",
    "test_explore_mutants.py::test_explore_finds_the_planted_bug",
    "test_explore.py::test_a_named_run_remembers_reached_states_and_changes_nothing",
    "test_explore_engine_mutants.py::test_explore_finds_the_engine_mutant",
    "test_revision_schemas.py::test_every_message_of_the_examples_validates_against_the_revisions_schema",
    "test_benchmark_terminal_cost.py::test_the_terminal_cost_report_has_every_row_and_ratio",
    "test_codec_derived.py::test_the_strategies_draw_what_the_revision_decodes",
    "test_typing.py::test_mypy_follows_an_engine_through_steps",
    "test_typing.py::test_the_core_idioms_type_check",
    "test_docs_runnable.py::test_every_runnable_block_passes_mypy_strict",
    "test_examples_hostile.py::test_the_example_client_ends_with_one_clear_line_whatever_the_agent_does",
    "test_benchmarks_smoke.py::test_harness_runs_end_to_end_without_the_sdk",
    "test_ci_forbids_skips.py::test_a_skip_fails_under_ci_unless_allowed",
    "test_immutability.py::test_a_decoded_update_is_deeply_immutable",
    "test_immutability.py::test_a_decoded_message_is_deeply_immutable",
    "test_state_machine.py::TestReducerVersusModel",
    "test_explore_dask.py::test_a_local_cluster_of_processes_gives_the_one_process_result",
    "test_client_fast_paths.py::test_the_view_is_reduced_as_the_slow_way_reduces_it",
    # Measured at 4-6 s in the quick run of stop 31 (189.5 s on an idle 2-core machine).
    "test_engine_obeys_checker.py::test_any_send_update_goes_out_must_clean_or_is_refused_with_the_checkers_rule",
    "test_cli_proxy.py::test_any_bytes_come_back_exactly_as_sent",
    "test_report_browser.py::test_twenty_thousand_lines_open_scroll_and_select",
    "test_strategies_variants.py::test_every_variant_defined_at_a_revision_is_drawn_there",
    # 5 s: the planted bug of test_strategies_fields.py (the walk itself stays quick, ~4 s a root).
    "test_strategies_fields.py::test_a_field_the_strategies_stop_drawing_is_reported",
    # 4.4 s under the ci profile (200 runs of up to 50 steps), 0.5 s under fast.
    "test_http_profile_machine.py::TestHttpProfile",
    # 3.5 s: a TypeScript SDK agent process, two connections, three `check` runs.
    "test_interop_sdk_v1.py::test_a_new_connection_loads_the_sdk_v1_agent_s_session_with_its_history",
})  # fmt: skip


def _slow_key(item: pytest.Item) -> str:
    # "file.py::function" (parameters and class members folded into their test).
    file = Path(str(item.fspath)).name
    name = item.nodeid.split("::")[1] if "::" in item.nodeid else ""
    return f"{file}::{name.split('[')[0]}"


def pytest_collection_modifyitems(config: pytest.Config, items: list[pytest.Item]) -> None:
    slow = pytest.mark.slow
    for item in items:
        if _slow_key(item) in SLOW_TESTS:
            item.add_marker(slow)
