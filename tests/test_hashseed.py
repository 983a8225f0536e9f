"""Purity across processes: the core's outputs do not depend on Python's string hashing.

`PYTHONHASHSEED` changes the iteration order of every set and dict-of-sets a process builds.
A pure function must not let that order reach its output (an engine that withdraws pending
requests in set order would write its `$/cancel_request`s in a different order in each run,
and a derandomized hypothesis test would then pass or fail by process). So the same scripted
conversation and the same bounded exploration run under two hash seeds and must print the
same bytes (explore's timing fields aside).
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

ROOT = Path(__file__).resolve().parents[1]
SEEDS = ("1", "2")
REVISIONS = ("2026-08", "2026-11", "preview")
_TIMING = ("seconds", "states_per_second")


def _run(seed: str, *args: str) -> str:
    env = {**os.environ, "PYTHONHASHSEED": seed}
    done = subprocess.run(
        [sys.executable, "-m", "acp_core", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        env=env,
        timeout=120,
        check=False,
    )
    assert done.returncode == 0, done.stderr
    return done.stdout


def _without_timing(text: str) -> dict[str, Any]:
    doc: dict[str, Any] = json.loads(text)
    for key in _TIMING:
        doc.pop(key, None)
    return doc


@pytest.mark.parametrize("revision", REVISIONS)
def test_the_demo_writes_the_same_wire_under_every_hash_seed(revision: str) -> None:
    first, second = (_run(seed, "demo", "--json", "--revision", revision) for seed in SEEDS)
    assert first.count("\n") > 10  # a whole conversation, not an empty run
    assert first == second


@pytest.mark.parametrize("revision", REVISIONS)
def test_explore_finds_the_same_space_under_every_hash_seed(revision: str) -> None:
    args = ("explore", "--revision", revision, "--depth", "4", "--sessions", "2", "--json")
    first, second = (_without_timing(_run(seed, *args)) for seed in SEEDS)
    assert first["states"] > 100
    assert first == second
