"""One severity vocabulary (issue 27 item 6): `check`, `check --json`, `report` and `replay`
class a finding the same way (MUST / SHOULD / MAY x violation / warning, `_rules/_severity.py`),
only a MUST violation fails, and every abbreviation they show is explained where it is shown.
"""

from __future__ import annotations

import contextlib
import io
import json
import re
from pathlib import Path
from typing import Any

import pytest

import acp_core as acp
from acp_core.__main__ import main
from acp_core._cli._report import build_report, report_model
from acp_core._rules._severity import (
    CLASSES,
    RULE_PREFIXES,
    Severity,
    legend_for,
    legend_line,
    severity_of,
    summary_line,
)
from acp_core._wire._revision import revision_named

TRACES = Path(__file__).resolve().parent / "traces"
R7 = TRACES / "bad_R7_3_recording_ends_while_running.jsonl"  # the recording ends mid-work
AT = ("--revision", "2026-08")  # the corpus's revision
AUGUST = revision_named("2026-08")


def call(*args: str) -> tuple[int, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(list(args))
    return status, out.getvalue()


def load(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def badges(page: str) -> list[str]:
    """The classes the summary bar of a report page counts."""
    bar = page[page.index('<div id="counts">') : page.index('<div id="facts">')]
    return re.findall(r'data-severity="([^"]+)"', bar)


# -- one fault, one class ------------------------------------------------------------------


def test_a_recording_that_ends_while_work_runs_is_a_must_warning_in_every_tool() -> None:
    status, text = call("check", *AT, str(R7))
    assert status == 0  # a warning never fails
    lines = text.splitlines()
    assert "R7 (MUST, warning)" in lines[0]
    assert lines[1] == "1 finding: 1 MUST warning; exit 0: no MUST violation"
    assert "(MUST, warning) = MUST warning" in lines[2]
    assert "R = agent rule" in lines[2]
    assert "of MUST level" not in text  # the old "1 violation(s), 0 of MUST level"

    (found,) = json.loads(call("check", *AT, "--json", str(R7))[1])
    assert (found["severity"], found["fails"]) == ("MUST warning", False)
    assert (found["rule"], found["level"], found["warning"]) == ("R7", "MUST", True)  # as before

    page = build_report(load(R7), revision=AUGUST)
    assert badges(page) == ["MUST warning"]  # not the red badge of a MUST violation
    assert ">1 MUST warning</span>" in page
    assert "sev-MUST-violation" not in page.split("<style>")[0]
    model = report_model(load(R7), revision=AUGUST)
    assert [label for row in model["rows"] for label in row.get("vs", ())] == ["MUST warning"]

    status, shown = call("replay", *AT, str(R7))
    assert status == 0
    tail = shown.splitlines()[-4:]
    assert tail[0] == "Checker"
    assert "R7 (MUST, warning)" in tail[1]
    assert tail[2] == "1 finding: 1 MUST warning; check would exit 0: no MUST violation"
    steps = json.loads(call("replay", *AT, "--steps", "--json", str(R7))[1].splitlines()[-1])
    assert steps["violations"] == [found]  # the same object `check --json` prints


#: A corpus trace per class the corpus holds, with the one class its finding has.
BY_CLASS = [
    ("bad_R8_5_idle_without_stop_reason.jsonl", "MUST violation", 1),
    ("bad_R11_4_permission_while_running_without_requires_action.jsonl", "SHOULD violation", 0),
    ("bad_S1_1_idle_to_requires_action.jsonl", "SHOULD violation", 0),
    ("bad_R7_3_recording_ends_while_running.jsonl", "MUST warning", 0),
]


@pytest.mark.parametrize(("name", "label", "exit_status"), BY_CLASS)
def test_each_class_reads_the_same_in_check_json_report_and_replay(
    name: str, label: str, exit_status: int
) -> None:
    path = str(TRACES / name)
    status, text = call("check", *AT, path)
    assert status == exit_status
    summary = text.splitlines()[-2]
    assert f"1 {label}" in summary
    assert summary.endswith(
        "exit 1: 1 MUST violation" if exit_status else "exit 0: no MUST violation"
    )
    assert {v["severity"] for v in json.loads(call("check", *AT, "--json", path)[1])} == {label}
    page = build_report(load(TRACES / name), revision=AUGUST)
    assert set(badges(page)) == {label}
    replayed = call("replay", *AT, path)[1]
    assert f"1 {label}" in replayed.split("\nChecker\n")[1]


@pytest.mark.parametrize("severity", CLASSES, ids=lambda s: s.label)
def test_the_table_of_classes(severity: Severity) -> None:
    level = severity.grade
    for word in (level, f"{level} NOT") if level != "MAY" else (level,):
        assert severity_of(word, severity.kind == "warning") == severity
    assert severity.label == f"{severity.grade} {severity.kind}"
    assert severity.fails == (severity.label == "MUST violation")
    assert severity.css == f"sev-{severity.grade}-{severity.kind}"
    assert severity.tag("MUST NOT") == (
        "(MUST NOT, warning)" if severity.kind == "warning" else "(MUST NOT)"
    )
    assert ("never fails" in severity.meaning) != severity.fails
    assert summary_line([severity]) == (
        f"1 finding: 1 {severity.label}; "
        + ("exit 1: 1 MUST violation" if severity.fails else "exit 0: no MUST violation")
    )
    assert f"= {severity.label}: {severity.meaning}" in legend_line(["R7"], [severity])


def test_the_summary_counts_every_class_and_only_a_must_violation_fails() -> None:
    assert summary_line([]) == "no violations"
    found = [*CLASSES, CLASSES[0], CLASSES[3]]
    assert summary_line(found) == (
        "8 findings: 2 MUST violations, 1 SHOULD violation, 1 MAY violation, "
        "2 MUST warnings, 1 SHOULD warning, 1 MAY warning; exit 1: 2 MUST violations"
    )
    assert summary_line(CLASSES[1:]).endswith("exit 0: no MUST violation")


def test_check_exits_1_exactly_when_a_finding_fails() -> None:
    for path in sorted(TRACES.glob("bad_*.jsonl")):
        status, text = call("check", *AT, "--json", str(path))
        found = json.loads(text)
        assert all(v["severity"] == severity_of(v["level"], v.get("warning", False)).label
                   for v in found)  # fmt: skip
        assert status == (1 if any(v["fails"] for v in found) else 0), path.name


# -- every abbreviation explained -----------------------------------------------------------

#: What counts as an abbreviation in a spec reference: bracketed tags, `§`, and words of two
#: capitals or more (with a `-`/`:` tail), the words a reader cannot look up in English.
_ABBREVIATION = re.compile(r"\[[^\]]+\]|§|(?<![\w-])[A-Z][A-Z0-9]+(?:[-:][A-Za-z0-9-]+)?(?!\w)")


def test_every_abbreviation_of_the_catalogue_has_a_legend_entry() -> None:
    missing = {
        (rule.id, token)
        for rule in acp.RULES.values()
        for token in _ABBREVIATION.findall(rule.section)
        if legend_for(token) is None
    }
    assert not missing
    assert {rule_id[0] for rule_id in acp.RULES} <= set(RULE_PREFIXES)
    for token in ("OV", "TR", "[SUBA]", "RFD:message-id", "Q12", "P14", "RESUME-204"):
        assert legend_for(token)  # the tags the issue names and each pattern


def test_the_report_explains_the_abbreviations_it_shows() -> None:
    # C25's spec is "OV, TR" (the issue's example); its page has a legend and tooltips.
    entries = load(TRACES / "bad_C25_5_client_answers_a_notification.jsonl")
    model = report_model(entries, revision=AUGUST)
    page = build_report(entries, revision=AUGUST)
    legend = page[page.index('<details id="legend">') : page.index("</details>")]
    for rule_id, entry in model["rules"].items():
        assert f"<dt>{rule_id[0]}…</dt>" in legend
        for token in _ABBREVIATION.findall(entry["section"]):
            assert f"<dt>{token}</dt><dd>{legend_for(token)}</dd>" in legend, token
            assert [token, legend_for(token)] in model["legend"]["abbr"][rule_id]
    assert "<dt>OV</dt>" in legend
    assert "<dt>TR</dt>" in legend
    assert "abbrTitle" in page  # the script puts the legend on the spec reference's <abbr>


def test_check_and_replay_end_with_a_legend_of_the_ids_they_printed() -> None:
    path = str(TRACES / "bad_C15_7_selected_after_cancel.jsonl")
    for out in (call("check", *AT, path)[1], call("replay", *AT, path)[1]):
        printed = set(re.findall(r"\b([RCDJSE])\d+ \(", out))
        legend = out.splitlines()[-1]
        assert printed
        assert legend.startswith("legend: ")
        assert all(f"{p} = {RULE_PREFIXES[p]}" in legend for p in printed)


# -- the page in a browser (skipped without Chromium, as tests/test_report_browser.py) -----


def test_the_report_page_shows_the_warning_class_and_the_spec_legend(tmp_path: Path) -> None:
    import sys

    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))
    from benchmarks.cdp import Browser, find_chromium

    chromium = find_chromium()
    if chromium is None:
        pytest.skip("no Chromium to drive (apt-get install chromium, or set $CHROMIUM)")
    page = tmp_path / "r7.html"
    page.write_text(build_report(load(R7), name="r7", revision=AUGUST), "utf-8")
    with Browser(chromium) as browser:
        browser.open(page.as_uri(), timeout=180)
        assert browser.evaluate("document.body.dataset.ready") == "1"
        finding = browser.evaluate("document.querySelector('.finding[data-rule=R7]').innerText")
        assert finding.startswith("R7 MUST warning: ")
        assert browser.evaluate("document.querySelector('.finding.warn') !== null")
        browser.click('.row[data-line="3"]')
        panel = browser.evaluate("document.getElementById('panel').innerText")
        assert "R7 (MUST warning, rule level MUST)" in panel
        title = browser.evaluate("document.querySelector('#panel abbr').title")
        assert title.startswith("PL = docs/protocol/v2/prompt-lifecycle.mdx")
        assert browser.console_errors() == []
