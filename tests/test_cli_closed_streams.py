"""The command line with a closed or failing standard stream: one line on stderr, a meaningful
exit status, never "internal error ... a bug in acp-core" (exit 3) for what is the caller's
environment.

Found by running every command under closed and full streams (session s6, attack):
`check -` with stdin closed (`<&-`) said `internal error: AttributeError: 'NoneType' object has
no attribute 'readline'` (exit 3); with stdout closed (`>&-`) `... no attribute 'write'`
(exit 3); with stdout on a full disk (`>/dev/full`) `internal error: OSError: [Errno 28] No
space left on device` (exit 3).
"""

from __future__ import annotations

import os
import subprocess
import sys
from pathlib import Path

import pytest

import acp_core.__main__ as cli

ROOT = Path(__file__).resolve().parents[1]
GOOD = '{"from": "agent", "message": {"jsonrpc": "2.0", "method": "_zz/ping"}}\n'
BROKEN = (
    '{"from": "agent", "message": {"jsonrpc": "2.0", "id": 1, "result": {}}}\n'  # answers nothing
)


def _run(args: list[str], **streams: object) -> subprocess.CompletedProcess[str]:
    env = dict(os.environ, PYTHONPATH=str(ROOT))
    return subprocess.run(  # noqa: PLW1510 (the status is what is tested)
        [sys.executable, "-m", "acp_core", *args],
        stderr=subprocess.PIPE,
        text=True,
        cwd=ROOT,
        timeout=120,
        env=env,
        **streams,  # type: ignore[call-overload]
    )


@pytest.mark.parametrize("command", [["check", "-"], ["replay", "-"], ["report", "-", "-o", "-"]])
def test_reading_a_closed_stdin_is_bad_input(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], command: list[str]
) -> None:
    monkeypatch.setattr(sys, "stdin", None)  # what Python makes of `<&-`
    assert cli.main(command) == cli.EXIT_BAD_INPUT
    err = capsys.readouterr().err
    assert err.count("\n") == 1
    assert "standard input is closed" in err
    assert "internal error" not in err


def test_a_closed_stdout_drops_the_output_and_keeps_the_verdict(tmp_path: Path) -> None:
    good, broken = tmp_path / "good.jsonl", tmp_path / "broken.jsonl"
    good.write_text(GOOD, encoding="utf-8")
    broken.write_text(BROKEN, encoding="utf-8")
    for trace, status in ((good, cli.EXIT_OK), (broken, cli.EXIT_VIOLATION)):
        # fd 1 closed in the child before Python starts: its `sys.stdout` is None (`>&-`)
        result = _run(["check", str(trace)], preexec_fn=lambda: os.close(1), check=False)
        assert result.returncode == status, result.stderr
        assert "internal error" not in result.stderr


def test_output_to_a_full_disk_is_one_line_and_exit_2(tmp_path: Path) -> None:
    trace = tmp_path / "good.jsonl"
    trace.write_text(GOOD * 2000, encoding="utf-8")
    with open("/dev/full", "w") as full:
        result = _run(["replay", str(trace)], stdout=full, check=False)
    assert result.returncode == cli.EXIT_BAD_INPUT, result.stderr
    assert result.stderr.count("\n") == 1, result.stderr
    assert "No space left on device" in result.stderr
    assert "internal error" not in result.stderr
    assert "Traceback" not in result.stderr
