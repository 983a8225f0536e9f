"""`python -m acp_core check` and `rules`: output and exit codes.

The main paths run as a user would (a subprocess); the finer cases call `main(argv)` in
process, which is the same code without the interpreter start-up (the suite stays fast).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

from acp_core.__main__ import main

TRACES = Path(__file__).resolve().parent / "traces"
ROOT = Path(__file__).resolve().parents[1]


def _at_2026_08(args: tuple[str, ...]) -> list[str]:
    """`check` judges the corpus at the revision its traces were recorded in (2026-08: `{}`
    prompt receipts) unless a test names another; the default (the Preview) would add R1."""
    if args[:1] == ("check",) and "--revision" not in args:
        return ["check", "--revision", "2026-08", *args[1:]]
    return list(args)


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_core", *_at_2026_08(args)],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


class Ran:
    def __init__(self, returncode: int, stdout: str, stderr: str) -> None:
        self.returncode, self.stdout, self.stderr = returncode, stdout, stderr


def run_in_process(capsys: pytest.CaptureFixture[str], *args: str) -> Ran:
    code = main(_at_2026_08(args))
    out, err = capsys.readouterr()
    return Ran(code, out, err)


def test_a_good_trace_exits_0() -> None:
    r = run("check", str(TRACES / "good_permission_turn.jsonl"))
    assert (r.returncode, r.stdout, r.stderr) == (0, "no violations\n", "")


def test_a_broken_must_exits_1_and_names_rule_line_and_reason() -> None:
    path = TRACES / "bad_R8_5_idle_without_stop_reason.jsonl"
    r = run("check", str(path))
    assert r.returncode == 1
    first = r.stdout.splitlines()[0]
    assert first.startswith(f"{path}:5: R8 (MUST) ")
    assert "stopReason" in first
    # The summary counts per class and says the exit rule; the legend line ends the output.
    assert r.stdout.splitlines()[-2] == "1 finding: 1 MUST violation; exit 1: 1 MUST violation"
    assert r.stdout.splitlines()[-1].startswith("legend: R = agent rule; (MUST) = MUST violation")


def test_only_should_violations_exit_0(capsys: pytest.CaptureFixture[str]) -> None:
    r = run_in_process(
        capsys, "check", "--json", str(TRACES / "bad_R14_4_tool_call_without_title.jsonl")
    )
    assert r.returncode == 0
    assert [(v["rule"], v["level"]) for v in json.loads(r.stdout)] == [("R14", "SHOULD")]


def test_json_output_is_a_list_of_rule_level_index_message() -> None:
    r = run("check", "--json", str(TRACES / "bad_R21_7_cancelled_turn_ends_with_end_turn.jsonl"))
    assert r.returncode == 1
    out = json.loads(r.stdout)
    assert len(out) == 1
    assert set(out[0]) >= {"rule", "level", "index", "message"}
    assert (out[0]["rule"], out[0]["level"], out[0]["index"]) == ("R21", "MUST", 7)
    assert json.loads(run("check", "--json", str(TRACES / "good_cancel_turn.jsonl")).stdout) == []


def test_revision_option_changes_the_verdict(capsys: pytest.CaptureFixture[str]) -> None:
    path = str(TRACES / "good_v2026-11_prompt_turn.jsonl")
    assert run_in_process(capsys, "check", "--revision", "2026-11", path).returncode == 0
    r = run_in_process(capsys, "check", "--json", path)
    assert r.returncode == 1
    assert [v["rule"] for v in json.loads(r.stdout)] == ["R1", "R18", "R18"]
    # the default revision is the Preview, which includes 2026-11: the same verdict as 2026-11
    assert main(["check", path]) == 0
    capsys.readouterr()


def test_indices_are_line_indices_even_with_blank_lines(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    lines = (TRACES / "bad_R2_4_turn_ends_before_user_message.jsonl").read_text().splitlines()
    trace = tmp_path / "spaced.jsonl"
    trace.write_text("\n\n".join(lines) + "\n")  # line i moves to line 2i
    out = json.loads(run_in_process(capsys, "check", "--json", str(trace)).stdout)
    assert [(v["rule"], v["index"]) for v in out] == [("R2", 8)]


def test_stdin_is_read_for_dash() -> None:
    text = (TRACES / "bad_R6_3_output_before_running.jsonl").read_text()
    r = run("check", "--json", "-", stdin=text)
    assert r.returncode == 1
    assert [v["rule"] for v in json.loads(r.stdout)] == ["R6"]


@pytest.mark.parametrize(
    ("content", "expected"),
    [
        (
            '{"from": "client", "message": {}}\n{"from": "agent", nope}\n',
            "line index 1: invalid JSON",
        ),
        ("[" * 100_000 + "\n", "line index 0: "),
        (b"\xff\xfe\n", "cannot read"),
    ],
)
def test_unreadable_input_exits_2_with_one_line(
    tmp_path: Path, content: str | bytes, expected: str
) -> None:
    trace = tmp_path / "broken.jsonl"
    if isinstance(content, bytes):
        trace.write_bytes(content)
    else:
        trace.write_text(content)
    r = run("check", str(trace))
    assert r.returncode == 2
    assert r.stdout == ""
    assert r.stderr.count("\n") == 1
    assert str(trace) in r.stderr
    assert expected in r.stderr
    assert "Traceback" not in r.stderr


def test_a_missing_file_exits_2_with_one_line(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    missing = tmp_path / "absent.jsonl"
    r = run_in_process(capsys, "check", str(missing))
    assert r.returncode == 2
    assert r.stderr == f"acp_core check: {missing}: cannot read: No such file or directory\n"


def test_malformed_entries_in_valid_json_are_violations_not_errors(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "odd.jsonl"
    trace.write_text('42\n{"from": "agent", "message": {"jsonrpc": "2.0"}}\n')
    r = run_in_process(capsys, "check", "--json", str(trace))
    assert r.returncode == 1
    assert [(v["rule"], v["index"]) for v in json.loads(r.stdout)] == [("D1", 0), ("D1", 1)]


def test_rules_prints_the_generated_catalogue() -> None:
    r = run("rules")
    assert r.returncode == 0
    assert r.stdout == (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def test_usage_errors_exit_2(capsys: pytest.CaptureFixture[str]) -> None:
    for argv in ([], ["check"], ["check", "--side", "both", "x"]):
        with pytest.raises(SystemExit) as exc:
            main(argv)
        assert exc.value.code == 2
        assert "usage:" in capsys.readouterr().err
    # an unknown revision name is one line, not a usage text (tests/test_cli_revision.py)


# -- one side's rules, warnings ----------------------------------------------------------


def test_side_agent_leaves_client_rules_out_and_side_client_says_why(
    capsys: pytest.CaptureFixture[str],
) -> None:
    client_fault = str(TRACES / "bad_C15_7_selected_after_cancel.jsonl")
    agent_fault = str(TRACES / "bad_R11_4_permission_while_running_without_requires_action.jsonl")
    assert run_in_process(capsys, "check", "--side", "agent", client_fault).returncode == 0
    ran = run_in_process(capsys, "check", "--side", "client", client_fault)
    assert ran.returncode == 1
    assert "C15 (MUST)" in ran.stdout
    assert "R11" in ran.stdout.splitlines()[0]  # the ordering note comes first
    ran = run_in_process(capsys, "check", "--side", "client", agent_fault)
    assert ran.returncode == 0
    assert "R11 (SHOULD)" not in ran.stdout


def test_a_trace_that_ends_while_running_is_a_warning_not_a_failure(
    capsys: pytest.CaptureFixture[str],
) -> None:
    trace = str(TRACES / "bad_R7_3_recording_ends_while_running.jsonl")
    ran = run_in_process(capsys, "check", trace)
    assert ran.returncode == 0
    assert "R7 (MUST, warning)" in ran.stdout
    (v,) = json.loads(run_in_process(capsys, "check", "--json", trace).stdout)
    assert (v["rule"], v["warning"]) == ("R7", True)
