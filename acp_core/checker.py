"""The trace checker, the rule catalogue and the reports built on them.

A public submodule of acp-core (docs/api.md lists each name in its home)."""

from __future__ import annotations

from acp_core._cli._mermaid import (
    mermaid_sequence,
)
from acp_core._cli._report import (
    build_report,
    report_path_beside,
)
from acp_core._rules._catalogue import (
    RULES,
    Rule,
    rules_markdown,
)
from acp_core._rules._check import (
    IncrementalCheck,
    LiveCheck,
    check_trace,
)
from acp_core._rules._recent import (
    MAX_REMEMBERED_IDS,
)
from acp_core._rules._violation import (
    Violation,
)

__all__ = [
    "MAX_REMEMBERED_IDS",
    "RULES",
    "IncrementalCheck",
    "LiveCheck",
    "Rule",
    "Violation",
    "build_report",
    "check_trace",
    "mermaid_sequence",
    "report_path_beside",
    "rules_markdown",
]
