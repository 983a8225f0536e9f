"""The trace checker, the rule catalogue and the reports built on them.

A public submodule of acp-core (docs/api.md lists each name in its home)."""

from __future__ import annotations

from acp_core._check import (
    Violation,
    check_trace,
)
from acp_core._mermaid import (
    mermaid_sequence,
)
from acp_core._report import (
    build_report,
    report_path_beside,
)
from acp_core._rules import (
    RULES,
    Rule,
    rules_markdown,
)

__all__ = [
    "RULES",
    "Rule",
    "Violation",
    "build_report",
    "check_trace",
    "mermaid_sequence",
    "report_path_beside",
    "rules_markdown",
]
