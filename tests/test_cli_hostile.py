"""The command line under hostile input (issue 15): one line and exit 2 for bad input, one line
and exit 3 for an internal error, exit 1 only for a broken MUST, no traceback ever; input is
read line by line; lone surrogates print escaped."""

from __future__ import annotations

import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import acp_core.__main__ as cli

ROOT = Path(__file__).resolve().parents[1]


def _run(*args: str, env: dict[str, str] | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_core", *args],
        capture_output=True,
        text=True,
        encoding="utf-8",
        errors="replace",
        cwd=ROOT,
        timeout=120,
        check=False,
        env=env,
    )


def _line(message: dict[str, Any], sender: str = "agent") -> str:
    return json.dumps({"from": sender, "message": message}) + "\n"


def _chunk(text: str) -> dict[str, Any]:
    update = {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "m",
        "content": {"type": "text", "text": text},
    }
    params = {"sessionId": "s", "update": update}
    return {"jsonrpc": "2.0", "method": "session/update", "params": params}


def _one_line_error(stderr: str) -> None:
    assert "Traceback" not in stderr
    assert stderr.count("\n") == 1, stderr


@pytest.mark.parametrize("command", ["check", "replay"])
def test_lone_surrogates_print_escaped_without_a_traceback(tmp_path: Path, command: str) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text(_line(_chunk("\ud800 hi")), encoding="utf-8")  # json.dumps escapes it
    env = {"PATH": "/usr/bin:/bin", "PYTHONIOENCODING": "utf-8"}
    result = _run(command, str(trace), env=env)
    assert "Traceback" not in result.stderr
    assert result.returncode == 0, result.stderr
    if command == "replay":
        assert "\\ud800 hi" in result.stdout


def test_check_on_an_empty_file_says_so_with_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    empty = tmp_path / "empty.jsonl"
    empty.write_text("\n\n", encoding="utf-8")
    assert cli.main(["check", str(empty)]) == 2
    err = capsys.readouterr().err
    _one_line_error(err)
    assert "empty" in err


@pytest.mark.parametrize(
    "text",
    [
        pytest.param('{"from": "agent", "message": {"id": ' + "1" * 5000 + "}}\n", id="huge-int"),
        pytest.param("[" * 100_000 + "\n", id="deep"),
        pytest.param("\xff\n", id="not-json"),
    ],
)
@pytest.mark.parametrize("command", ["check", "replay"])
def test_bad_input_is_one_line_and_exit_2(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str, text: str
) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text(text, encoding="utf-8")
    assert cli.main([command, str(trace)]) == 2
    _one_line_error(capsys.readouterr().err)


@pytest.mark.parametrize("command", ["check", "replay"])
def test_a_file_that_is_not_utf8_is_bad_input(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], command: str
) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_bytes(_line(_chunk("ok")).encode() + b"\xff\xfe\n")
    assert cli.main([command, str(trace)]) == 2
    err = capsys.readouterr().err
    _one_line_error(err)
    assert "cannot read" in err


def test_an_internal_error_is_one_line_and_exit_3(
    tmp_path: Path, capsys: pytest.CaptureFixture[str], monkeypatch: pytest.MonkeyPatch
) -> None:
    def broken(*args: object, **kwargs: object) -> None:
        raise TypeError("a planted bug")

    monkeypatch.setattr(cli, "check_trace", broken)
    trace = tmp_path / "t.jsonl"
    trace.write_text(_line(_chunk("x")), encoding="utf-8")
    assert cli.main(["check", str(trace)]) == 3
    err = capsys.readouterr().err
    _one_line_error(err)
    assert "internal error" in err
    assert "a planted bug" in err


def test_a_broken_must_keeps_exit_1(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    trace = tmp_path / "t.jsonl"
    trace.write_text(_line({"jsonrpc": "2.0", "id": [1], "result": {}}), encoding="utf-8")
    assert cli.main(["check", str(trace)]) == 1
    assert "D1" in capsys.readouterr().out


def test_check_reads_its_input_line_by_line(monkeypatch: pytest.MonkeyPatch) -> None:
    # The checker sees the first entry before the reader has read the second line.
    read: list[int] = []

    def lines(path: str) -> Any:
        for i, text in enumerate([_line(_chunk("a")), _line(_chunk("b"))]):
            read.append(i)
            yield text

    seen_when: list[list[int]] = []

    def check(entries: Any, **kwargs: object) -> tuple[()]:
        for _ in entries:
            seen_when.append(list(read))
        return ()

    monkeypatch.setattr(cli, "_open_lines", lines)
    monkeypatch.setattr(cli, "check_trace", check)
    assert cli.main(["check", "--protocol", "2", "trace.jsonl"]) == 0
    assert seen_when == [[0], [0, 1]]


def test_check_auto_reads_at_most_the_detection_window_ahead(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # `--protocol auto` (the default) looks at the first DETECT_LINES entries to tell v1 from
    # v2, then streams: the checker sees the first entry before the reader goes further.
    from acp_core._cli._replay_fold import DETECT_LINES

    read: list[int] = []

    def lines(path: str) -> Any:
        for i in range(DETECT_LINES * 3):
            read.append(i)
            yield _line(_chunk(str(i)))

    seen_when: list[int] = []

    def check(entries: Any, **kwargs: object) -> tuple[()]:
        for _ in entries:
            seen_when.append(len(read))
        return ()

    monkeypatch.setattr(cli, "_open_lines", lines)
    monkeypatch.setattr(cli, "check_trace", check)
    assert cli.main(["check", "trace.jsonl"]) == 0
    assert len(seen_when) == DETECT_LINES * 3
    assert seen_when[0] == DETECT_LINES
    assert seen_when[-1] == DETECT_LINES * 3


@pytest.mark.parametrize("command", ["check", "replay", "report"])
def test_a_line_over_the_limit_is_bad_input(
    tmp_path: Path,
    capsys: pytest.CaptureFixture[str],
    monkeypatch: pytest.MonkeyPatch,
    command: str,
) -> None:
    # Before the limit a file without line ends (`check /dev/zero`) was read whole: exit 3
    # (MemoryError) at the memory cap. Now at most MAX_TRACE_LINE + 1 characters are read.
    monkeypatch.setattr(cli, "MAX_TRACE_LINE", 300)
    fits = _line(_chunk("x" * 8))
    assert len(fits) <= 300
    trace = tmp_path / "long.jsonl"
    trace.write_text(fits + "\0" * 10_000, "utf-8")
    status = cli.main([command, str(trace)])
    err = capsys.readouterr().err
    assert status == cli.EXIT_BAD_INPUT
    assert err.count("\n") == 1
    assert "line index 1: longer than 300 characters" in err


def test_no_read_goes_past_the_line_limit(monkeypatch: pytest.MonkeyPatch) -> None:
    monkeypatch.setattr(cli, "MAX_TRACE_LINE", 100)
    sizes: list[int] = []

    class Recording(io.StringIO):
        def readline(self, size: int | None = -1, /) -> str:
            line = super().readline(size)
            sizes.append(len(line))
            return line

    stream = Recording("a\n" + "\0" * 1_000_000)  # like /dev/zero: no line end, ever
    lines = cli.bounded_lines(stream, "zeros")
    assert next(lines) == "a\n"
    with pytest.raises(cli.BadInputError, match="line index 1: longer than 100 characters"):
        next(lines)
    assert max(sizes) == 101
