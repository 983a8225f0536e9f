"""The one severity vocabulary of the tools: how a finding is classed, worded and explained.

Owns: `Severity` (grade MUST / SHOULD / MAY x kind violation / warning), `severity_of`, the
one-line label every tool shows ("MUST violation", "MUST warning"), the summary line of a
check (`summary_line`) and the legend of every abbreviation the tools print: rule-id prefixes
(`RULE_PREFIXES`), the spec-source tags of the catalogue's `section` column (`SPEC_TAGS`),
`legend_for` and `legend_line`.
Must not know: how rules are checked (`_rules/_check.py`), the catalogue's rows
(`_rules/_catalogue.py`), files, HTML or exit statuses (the command line maps `fails` to 1).

Theory. A rule's level is an RFC 2119 word; its grade folds the negative forms into the
positive (MUST NOT -> MUST, SHOULD NOT -> SHOULD). A finding is a *violation* when the
recording shows the rule broken and a *warning* when it only shows that the rule may be
broken (the recording ends first, as for R7 while work still runs). Only a MUST violation
fails a trace (`Severity.fails`); a warning never does, whatever its grade. `check`, `check
--json`, `report` and `replay` all word a finding with `Severity.label` and count with
`summary_line`, so one fault reads the same in each.
"""

from __future__ import annotations

import re
from collections.abc import Iterable, Mapping
from types import MappingProxyType
from typing import Final, Literal

from acp_core._wire._value import frozen

__all__ = [
    "CLASSES",
    "GRADES",
    "KINDS",
    "RULE_PREFIXES",
    "SPEC_TAGS",
    "Grade",
    "Kind",
    "Severity",
    "abbreviations",
    "grade_of",
    "legend_for",
    "legend_line",
    "severity_of",
    "summary_line",
]

Grade = Literal["MUST", "SHOULD", "MAY"]
Kind = Literal["violation", "warning"]

GRADES: Final[tuple[Grade, ...]] = ("MUST", "SHOULD", "MAY")
KINDS: Final[tuple[Kind, ...]] = ("violation", "warning")

_MEANING: Final[Mapping[tuple[Grade, Kind], str]] = MappingProxyType(
    {
        ("MUST", "violation"): "a MUST or MUST NOT rule is broken, fails the trace (exit 1)",
        ("SHOULD", "violation"): "a SHOULD or SHOULD NOT rule is broken, never fails",
        ("MAY", "violation"): "a MAY rule is used wrongly, never fails",
        ("MUST", "warning"): (
            "the recording ends before a MUST rule could be kept (it may be broken), never fails"
        ),
        ("SHOULD", "warning"): "the recording ends before a SHOULD rule could be kept, never fails",
        ("MAY", "warning"): "the recording ends before a MAY rule could be kept, never fails",
    }
)


@frozen(order=False)
class Severity:
    """The class of a finding.

    Attributes:
        grade: `MUST`, `SHOULD` or `MAY` (the rule's level without NOT).
        kind: `violation` (the recording shows the rule broken) or `warning` (it ends before
            the rule could be kept).
    """

    grade: Grade
    kind: Kind

    @property
    def label(self) -> str:
        """The words every tool shows: `MUST violation`, `SHOULD warning`, ..."""
        return f"{self.grade} {self.kind}"

    @property
    def fails(self) -> bool:
        """True only for a MUST violation: what makes `check` exit 1."""
        return self.grade == "MUST" and self.kind == "violation"

    @property
    def css(self) -> str:
        """A class name for the report page: `sev-MUST-violation`."""
        return f"sev-{self.grade}-{self.kind}"

    @property
    def meaning(self) -> str:
        """One sentence saying what the class means (the legend's entry)."""
        return _MEANING[(self.grade, self.kind)]

    def tag(self, level: str) -> str:
        """The parenthesis after a rule id in a text line: the rule's own level (`MUST NOT`
        stays `MUST NOT`), with `, warning` for a warning: `R7 (MUST, warning)`."""
        return f"({level}, warning)" if self.kind == "warning" else f"({level})"

    def counted(self, n: int) -> str:
        """`1 MUST violation`, `2 MUST violations`."""
        return f"{n} {self.label}{'' if n == 1 else 's'}"


#: Every class, in the order summaries list them (violations first, MUST first).
CLASSES: Final[tuple[Severity, ...]] = tuple(Severity(g, k) for k in KINDS for g in GRADES)


def grade_of(level: str) -> Grade:
    """The grade of an RFC 2119 level: `MUST NOT` -> `MUST`, `SHOULD NOT` -> `SHOULD`.

    An unknown word grades as `MAY` (never fails).
    """
    word = level.split(" ", maxsplit=1)[0]
    return word if word in ("MUST", "SHOULD") else "MAY"  # type: ignore[return-value]


def severity_of(level: str, warning: bool = False) -> Severity:
    """The class of a finding of a rule of `level`, a warning or a violation."""
    return Severity(grade_of(level), "warning" if warning else "violation")


def summary_line(found: Iterable[Severity], exit_word: str = "exit") -> str:
    """The last counting line of a check: `no violations`, or the count per class and what
    the exit status says, e.g. `1 finding: 1 MUST warning; exit 0: no MUST violation`
    (`exit_word` says whose exit status: `replay` says `check would exit`)."""
    counts: dict[Severity, int] = {}
    for s in found:
        counts[s] = counts.get(s, 0) + 1
    if not counts:
        return "no violations"
    total = sum(counts.values())
    parts = ", ".join(s.counted(counts[s]) for s in CLASSES if s in counts)
    failing = sum(n for s, n in counts.items() if s.fails)
    verdict = (
        f"{exit_word} 1: {Severity('MUST', 'violation').counted(failing)}"
        if failing
        else f"{exit_word} 0: no MUST violation"
    )
    return f"{total} finding{'' if total == 1 else 's'}: {parts}; {verdict}"


# -- the legend ----------------------------------------------------------------------------

#: What the letter of a rule id says (docs/rules.md).
RULE_PREFIXES: Final[Mapping[str, str]] = MappingProxyType(
    {
        "R": "agent rule",
        "C": "client rule",
        "D": "decoding rule of the checker",
        "J": "JSON-RPC rule of the checker",
        "S": "unusual state transition (checker)",
        "E": "policy of the acp-core engines",
        "v": "ACP v1 rule (`v1.`..., docs/v1.md, `check --protocol 1`)",
    }
)

#: The tags of the catalogue's `section` (spec) column: the requirements digest's source
#: tags, then the Preview digest's (its sources table), then the words the column abbreviates.
SPEC_TAGS: Final[Mapping[str, str]] = MappingProxyType(
    {
        "PL": "docs/protocol/v2/prompt-lifecycle.mdx",
        "TC": "docs/protocol/v2/tool-calls.mdx",
        "AP": "docs/protocol/v2/agent-plan.mdx",
        "CT": "docs/protocol/v2/content.mdx",
        "SS": "docs/protocol/v2/session-setup.mdx",
        "SC": "docs/protocol/v2/slash-commands.mdx",
        "CO": "docs/protocol/v2/session-config-options.mdx",
        "MG": "docs/protocol/v2/migration.mdx",
        "EX": "docs/protocol/v2/extensibility.mdx",
        "OV": "docs/protocol/v2/overview.mdx",
        "TR": "docs/protocol/v2/transports.mdx",
        "DR": "docs/protocol/v2/draft/*.mdx",
        "SCH": "schema/v2/schema.json",
        "RFD:x": "docs/rfds/x.mdx or docs/rfds/v2/x.mdx",
        "§n, Qn": "sections and decisions of the requirements digest",
        "Pn": "decisions of the Preview digest",
        "[ANN-SUB]": "announcement: subagents stabilized",
        "[ANN-PLAN]": "announcement: plan operations stabilized",
        "[SUBA]": "docs/protocol/v2/subagents.md",
        "[RC-RFD]": "docs/rfds/v2/session-replay-complete.md",
        "[IK-RFD]": "docs/rfds/v2/idempotency-keys.md",
        "[BG-RFD]": "docs/rfds/v2/background-work.md",
        "[META-RFD]": "docs/rfds/v2/meta-patches.md",
        "[REL120]": "the spec's release v1.20.0",
        "[RS-SUB]": "Rust schema crate: SubagentUpdate",
        "[RS-RC]": "Rust schema crate: ReplayComplete",
        "[RS-SM]": "Rust schema crate: SessionMessage, SessionMessageChunk",
        "[RS-SREF]": "Rust schema crate: SessionReference",
        "[RS-PS]": "Rust schema crate: PromptSuggestion, PromptSuggestionsUpdate",
        "[RS-IK]": "Rust schema crate: IdempotencyKey",
        "[RS-CN]": "Rust schema crate: the session/cancel notification",
        "[RS-PLAN]": "Rust schema crate: PlanMarkdown, PlanRemoved",
        "[RS-CU]": "Rust schema crate: CompactionUpdate",
        "[RS-UU]": "Rust schema crate: UsageUpdate",
        "[RS-CLOSE]": "Rust schema crate: CloseSessionRequest",
        "[D11]": "the 2026-11 draft schema",
        "[TS240U]": "TypeScript SDK 2.4.0 unstable schema",
        "[TCK]": "the official conformance kit (acp-tck); NAME-n is one of its requirement ids",
        "[PR2175]": "spec pull request #2175 (message id on prompt insertion)",
        "[RHO]": "rho-coding-agent 3.7.0 (an independent Preview implementation)",
        "[CLAUDE]": "claude-agent-acp releases",
        "[CODEX]": "codex-acp preview releases",
        "JSON-RPC": "the JSON-RPC 2.0 specification",
        "SDK": "software development kit",
    }
)

_DECISION: Final = re.compile(r"[QP]\d+")
_RULE_ID: Final = re.compile(r"([RCDJSE])\d+")
_KIT_ID: Final = re.compile(r"[A-Z]+-\d+")
#: The abbreviations a `section` text holds: bracketed tags, `§`, and words of two or more
#: capitals (with a `-` or `:` tail: `JSON-RPC`, `RFD:message-id`, `RESUME-204`).
_ABBREVIATION: Final = re.compile(
    r"\[[A-Z0-9-]+\]|§|(?<![\w-])[A-Z][A-Z0-9]+(?:[-:][A-Za-z0-9-]+)?(?!\w)"
)


def abbreviations(text: str) -> list[str]:
    """The abbreviations in a spec reference or finding text, in order, each once."""
    return list(dict.fromkeys(_ABBREVIATION.findall(text)))


def legend_for(token: str) -> str | None:
    """What an abbreviation the tools print stands for; None for one this module does not
    explain (a test keeps every abbreviation of the catalogue explained)."""
    if token in SPEC_TAGS:
        return SPEC_TAGS[token]
    if token.startswith("RFD:"):
        return f"docs/rfds/{token[4:]}.mdx or docs/rfds/v2/{token[4:]}.mdx"
    if token == "§":
        return SPEC_TAGS["§n, Qn"]
    if _DECISION.fullmatch(token):
        return SPEC_TAGS["§n, Qn" if token[0] == "Q" else "Pn"]
    rule = _RULE_ID.fullmatch(token)
    if rule:
        return f"{RULE_PREFIXES[rule.group(1)]} {token} (docs/rules.md)"
    if _KIT_ID.fullmatch(token):
        return "a requirement id of the official conformance kit (acp-tck)"
    return None


def legend_line(rule_ids: Iterable[str], found: Iterable[Severity] = ()) -> str:
    """The legend line a text output ends with: the rule-id letters shown and the classes
    shown, e.g. `legend: R = agent rule; (MUST, warning) = MUST warning: ...; rules:
    docs/rules.md`."""
    letters = sorted({r[:1] for r in rule_ids if r[:1] in RULE_PREFIXES})
    parts = [f"{p} = {RULE_PREFIXES[p]}" for p in letters]
    shown = set(found)
    parts += [f"{s.tag(s.grade)} = {s.label}: {s.meaning}" for s in CLASSES if s in shown]
    return "legend: " + "; ".join([*parts, "rules: docs/rules.md"])
