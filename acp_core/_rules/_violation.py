"""What every judge of the protocol reports: one broken rule, at one line.

Owns: `Violation` (the finding of the trace checker, the protocol machine and the engines).
Must not know: which rule is broken where (the judges do), how findings are printed (`_cli/`).
"""

from __future__ import annotations

from acp_core._wire._value import frozen

from ._catalogue import Level
from ._severity import Severity, severity_of

__all__ = ["Violation", "printable"]


@frozen
class Violation:
    """One broken rule in a trace.

    Attributes:
        rule: the rule's id in the catalogue (`docs/rules.md`).
        level: the rule's level (`MUST`, `MUST NOT`, `SHOULD`, `SHOULD NOT`, `MAY`).
        index: 0-based index of the trace entry (line) where it shows.
        message: a readable explanation.
        warning: the trace only shows that the rule *may* be broken (it ends first, R7);
            a warning never makes a trace fail.
    """

    rule: str
    level: Level
    index: int
    message: str
    warning: bool = False

    @property
    def mandatory(self) -> bool:
        """True when a MUST or MUST NOT was broken (warnings never are)."""
        return self.level in ("MUST", "MUST NOT") and not self.warning

    @property
    def severity(self) -> Severity:
        """Its class, as every tool words it: `MUST violation`, `MUST warning`, ...

        `check`, `check --json`, `report` and `replay` show `severity.label`
        (`_rules/_severity.py`); `severity.fails` equals `mandatory`."""
        return severity_of(self.level, self.warning)

    def to_json(self) -> dict[str, object]:
        """The violation as a JSON object (what `check --json` prints)."""
        out: dict[str, object] = {
            "rule": self.rule,
            "level": self.level,
            "index": self.index,
            "message": self.message,
        }
        if self.warning:
            out["warning"] = True
        return out


def printable(message: str) -> str:
    """`message` with lone surrogates (from JSON `\\ud800` escapes), which cannot be printed
    or encoded, escaped."""
    return message.encode("utf-8", "backslashreplace").decode("utf-8")
