"""`python -m acp_core report` and the Mermaid diagram: outputs, escaping, progress, errors."""

from __future__ import annotations

import contextlib
import io
import json
import re
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import acp_core as acp
from acp_core.__main__ import main, write_report_beside
from acp_core._cli._cli_progress import ProgressLine
from acp_core._cli._mermaid import escape_label, mermaid_sequence

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT / "tests" / "traces"
EXAMPLE = ROOT / "acp_core" / "data" / "example-trace.jsonl"
BAD = TRACES / "bad_R21_7_cancelled_turn_ends_with_end_turn.jsonl"


def load(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def call(*args: str) -> tuple[int, str, str]:
    out, err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(["report", *args])
    return status, out.getvalue(), err.getvalue()


def test_report_writes_the_page_beside_the_trace(tmp_path: Path) -> None:
    trace = tmp_path / "cx.jsonl"
    trace.write_text(BAD.read_text("utf-8"), "utf-8")
    status, out, err = call(str(trace), "--revision", "2026-08")  # a 2026-08 corpus trace
    page = (tmp_path / "cx.html").read_text("utf-8")
    assert (status, out, err) == (0, f"{tmp_path / 'cx.html'}\n", "")
    assert page.startswith("<!DOCTYPE html>")
    assert ">1 MUST violation</span>" in page  # the class `check` names (_rules/_severity.py)


def test_report_to_a_named_file_and_to_stdout(tmp_path: Path) -> None:
    target = tmp_path / "out.html"
    assert call(str(EXAMPLE), "-o", str(target), "--revision", "2026-11")[0] == 0
    assert "revision 2026-11" in target.read_text("utf-8")
    status, out, _ = call(str(EXAMPLE), "-o", "-")
    assert status == 0
    assert out.startswith("<!DOCTYPE html>")
    assert "no violations" in out


def test_report_of_an_unreadable_file_is_one_line_and_status_2(tmp_path: Path) -> None:
    status, out, err = call(str(tmp_path / "missing.jsonl"))
    assert status == 2
    assert out == ""
    assert err.startswith("acp_core report: ")
    assert err.count("\n") == 1
    bad = tmp_path / "bad.jsonl"
    bad.write_text('{"from": "agent"\n', "utf-8")
    assert call(str(bad))[0] == 2


def test_report_as_mermaid_on_stdout() -> None:
    status, out, _ = call(str(BAD), "--format", "mermaid")
    assert status == 0
    assert out == mermaid_sequence(load(BAD))
    lines = out.splitlines()
    assert lines[:3] == [
        "sequenceDiagram",
        "    participant L0 as client",
        "    participant L1 as agent",
    ]
    assert lines[3].startswith("    L0->>L1: 0 session/prompt: ")
    assert lines[4].startswith("    L1-->>L0: 1 response to session/prompt: {}")
    assert lines[-1].startswith("    Note over L1: R21 MUST: ")


def test_the_quiet_run_writes_nothing_to_stderr_and_a_terminal_gets_progress() -> None:
    # Not a terminal (the test's stderr): quiet.
    assert call(str(EXAMPLE), "-o", "-")[2] == ""
    stream = io.StringIO()
    progress = ProgressLine(stream, "report")
    acp.build_report(load(EXAMPLE) * 3, progress=progress)
    progress.done()
    text = stream.getvalue()
    assert "report: check 100% (126/126)" in text
    assert "report: fold 100%" in text
    assert text.endswith("\r")  # the line is cleared at the end


@pytest.mark.parametrize(
    "text", ["a;b", "x%%y", "#1", "<b>", "a\nb", "end", "{}", 'say "hi"', "a\\b", "L0->>L1: x"]
)
def test_mermaid_labels_cannot_end_a_statement_or_hold_markup(text: str) -> None:
    label = escape_label(text)
    bare = re.sub(r"#(\d+|lt|gt|amp);", "", label)  # Mermaid's entity codes
    for c in "\n;#<>%&":
        assert c not in bare, (c, label)
    kept = [c for c in text if c not in "\n;#<>%&"]
    assert [c for c in bare if c != " "] == [c for c in kept if c != " "]  # nothing else lost


def test_mermaid_participants_never_take_ids_from_the_trace() -> None:
    sid = "s;1\nparticipant X"
    entries = [
        {"from": "agent", "message": {"jsonrpc": "2.0", "method": "session/update", "params": {
            "sessionId": "p", "update": {"sessionUpdate": "subagent_update", "sessionId": sid}}}},
        {"from": "agent", "message": {"jsonrpc": "2.0", "method": "session/update", "params": {
            "sessionId": sid, "update": {"sessionUpdate": "state_update", "state": "running"}}}},
    ]  # fmt: skip
    out = mermaid_sequence(entries).splitlines()
    assert out[3] == "    participant L2 as child s#59;1 participant X"
    # the child ends the recording running: the last note is the checker's R7 warning
    assert out[-2].startswith("    L2-)L0: 1 update state_update")
    assert out[-1].startswith("    Note over L2: R7 ")
    assert all(line.startswith("    ") for line in out[1:])


def test_write_report_beside_is_what_explore_calls(tmp_path: Path) -> None:
    trace = tmp_path / "counterexample_3.jsonl"
    trace.write_text(BAD.read_text("utf-8"), "utf-8")
    entries = load(trace)
    path = write_report_beside(str(trace), entries, list(range(len(entries))))
    assert path == str(tmp_path / "counterexample_3.html")
    assert "R21" in Path(path).read_text("utf-8")


def test_report_runs_as_a_user_would(tmp_path: Path) -> None:
    result = subprocess.run(
        [sys.executable, "-m", "acp_core", "report", str(BAD), "-o", str(tmp_path / "r.html")],
        capture_output=True, text=True, cwd=ROOT, timeout=120, check=False,
    )  # fmt: skip
    assert (result.returncode, result.stderr) == (0, "")
    assert (tmp_path / "r.html").read_text("utf-8").count("R21") >= 1


class _Terminal(io.StringIO):
    def isatty(self) -> bool:
        return True


@pytest.mark.parametrize(
    ("command", "phase"), [("check", "check"), ("report", "fold"), ("replay", "read")]
)
def test_a_terminal_sees_progress_of_long_commands(
    command: str, phase: str, tmp_path: Path
) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text(EXAMPLE.read_text("utf-8") * 5, "utf-8")
    args = [command, str(trace)] + (["-o", str(tmp_path / "t.html")] if command == "report" else [])
    quiet_out, quiet_err = io.StringIO(), io.StringIO()
    with contextlib.redirect_stdout(quiet_out), contextlib.redirect_stderr(quiet_err):
        quiet = main(args)
    out, err = io.StringIO(), _Terminal()
    with contextlib.redirect_stdout(out), contextlib.redirect_stderr(err):
        status = main(args)
    assert quiet_err.getvalue() == ""  # not a terminal: quiet
    assert (status, out.getvalue()) == (quiet, quiet_out.getvalue())  # same result either way
    shown = err.getvalue()
    assert f"{command}: {phase} 100% " in shown
    assert shown.endswith("\r")  # and the line is cleared at the end


def test_a_lone_surrogate_in_the_trace_is_reported_losslessly(tmp_path: Path) -> None:
    # JSON allows a lone surrogate escape and `check`/`replay` accept it; the page used to
    # fail to encode (exit 3, UnicodeEncodeError). Now the embedded data keeps it as a JSON
    # escape (the same string after decoding) and element text shows U+FFFD.
    text = EXAMPLE.read_text("utf-8").replace("/home/user/project", "/home/user/pro\\ud800ject")
    assert "\\ud800" in text
    trace = tmp_path / "surrogate.jsonl"
    trace.write_text(text, "utf-8")
    status, out, err = call(str(trace))
    assert out == f"{tmp_path / 'surrogate.html'}\n"
    assert (status, err) == (0, "")
    page = (tmp_path / "surrogate.html").read_bytes().decode("utf-8")  # strict: encodable
    assert "\ud800" not in page
    data = re.search(r'<script type="application/json" id="report-data">(.*?)</script>', page)
    assert data is not None
    assert "/home/user/pro\ud800ject" in json.dumps(json.loads(data.group(1)), ensure_ascii=False)
