"""Shared test set-up: hypothesis profiles and the location of the v2 spec oracles."""

from __future__ import annotations

import json
import os
from pathlib import Path
from typing import Any

import pytest
from hypothesis import HealthCheck, settings

settings.register_profile("dev", max_examples=100)
# CI is deterministic (derandomize) so a red run can be replayed exactly.
settings.register_profile(
    "ci", max_examples=200, derandomize=True, suppress_health_check=[HealthCheck.too_slow]
)
settings.register_profile("fast", max_examples=20)
settings.load_profile(os.environ.get("HYPOTHESIS_PROFILE", "dev"))

SPEC_DIR = Path(
    os.environ.get("ACP_V2_SPEC_DIR", Path(__file__).resolve().parents[2] / "shared" / "acp-v2")
)


def _require(path: Path) -> Path:
    if not path.exists():
        pytest.skip(
            f"ACP v2 spec oracle {path} not found: set ACP_V2_SPEC_DIR to the shared acp-v2 folder"
        )
    return path


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
