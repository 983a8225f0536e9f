"""Smoke test of benchmarks/replay_steps.py: its trace has the length asked for and replays
cleanly. No timing here (the figures are in docs/performance.md)."""

from __future__ import annotations

import json
import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from benchmarks import replay_steps


def test_the_generated_trace_has_the_asked_length_and_replays() -> None:
    text = replay_steps.trace(700)
    lines = text.splitlines()
    assert len(lines) == 700
    assert all(json.loads(line)["from"] in ("client", "agent") for line in lines)
    figures = replay_steps.measure(text, as_json=True)
    assert figures["output_mib"] > 0
    assert figures["seconds"] > 0
