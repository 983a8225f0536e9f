"""Smoke test of benchmarks/terminal_cost.py: it runs and reports every row (no timing here)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks.terminal_cost import terminal_costs


def test_the_terminal_cost_report_has_every_row_and_ratio() -> None:
    report = terminal_costs(8192, factors=(1, 2), repeats=1)
    lines = report.splitlines()
    assert lines[1].split()[-1] == "2x/1x"
    for row in ("no-op terminal_update", "patch command", "append one 4 KiB chunk"):
        assert any(line.startswith(row) for line in lines), row
