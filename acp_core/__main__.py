"""Command line: `python -m acp_core <command>` (demo, replay, check, report, rules).

The only module of acp_core that does I/O: the `_cli_*` modules it calls (demo, replay) get
their output streams and a reader from here.
Owns: argument parsing, reading files and stdin, the packaged example, printing, exit codes.
Must not know: protocol rules (they live in the pure modules this calls).

Commands register in `COMMANDS` (name, help, a function adding its arguments, a function
running it and returning the exit status), so another command is one `Command(...)` entry.
Bad input ends with one line on stderr naming the file and line, and exit status 2; never a
traceback.
"""

from __future__ import annotations

import argparse
import json
import os
import sys
from collections.abc import Callable
from importlib.resources import files
from typing import NamedTuple, TextIO

from . import _cli_demo, _cli_replay, _cli_report
from ._check import check_trace
from ._cli_progress import ProgressLine
from ._report import counting
from ._revision import V2_2026_08, V2_2026_11, Revision
from ._rules import rules_markdown

#: Exit statuses of `check`.
EXIT_OK = 0
EXIT_VIOLATION = 1
EXIT_BAD_INPUT = 2

_REVISIONS: dict[str, Revision] = {r.name: r for r in (V2_2026_08, V2_2026_11)}


class Command(NamedTuple):
    """A subcommand: `configure` adds its arguments, `run` does the work and returns a status."""

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


class BadInputError(Exception):
    """Input that cannot be read; the message is the one line printed to stderr."""


# -- check ---------------------------------------------------------------------------------


def read_trace(path: str) -> tuple[list[object], list[int]]:
    """Read a JSON-lines trace: the entries and, for each, its 0-based line index.

    Blank lines are skipped (they still count for line indices).

    Raises:
        BadInputError: the file cannot be read or a line is not JSON.
    """
    try:
        if path == "-":
            text = sys.stdin.read()
        else:
            with open(path, encoding="utf-8") as f:
                text = f.read()
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise BadInputError(f"{path}: cannot read: {reason}") from None
    entries: list[object] = []
    lines: list[int] = []
    for index, line in enumerate(text.split("\n")):
        if not line.strip():
            continue
        try:
            entries.append(json.loads(line))
        except json.JSONDecodeError as e:
            raise BadInputError(
                f"{path}: line index {index}: invalid JSON: {e.msg} (column {e.colno})"
            ) from None
        except RecursionError:
            raise BadInputError(f"{path}: line index {index}: JSON nested too deeply") from None
        lines.append(index)
    return entries, lines


def read_input(path: str | None) -> tuple[str, str]:
    """Name and text of a command's input: a file, `-` for stdin, None for the packaged
    example trace.

    Raises:
        _cli_replay.ReadError: the input cannot be read (the message is one line).
    """
    if path is None:
        example = files("acp_core") / "data" / _cli_replay.EXAMPLE_TRACE
        return f"{_cli_replay.EXAMPLE_TRACE} (packaged example)", example.read_text("utf-8")
    if path == "-":
        return "<stdin>", sys.stdin.read()
    try:
        with open(path, encoding="utf-8") as f:
            return path, f.read()
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise _cli_replay.ReadError(f"{path}: cannot read: {reason}") from None


def _configure_check(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="trace in JSON lines ('-' reads stdin)")
    p.add_argument("--json", action="store_true", help="print the violations as a JSON list")
    p.add_argument(
        "--revision",
        choices=sorted(_REVISIONS),
        default=V2_2026_08.name,
        help="protocol revision to judge by (default: %(default)s)",
    )


def _run_check(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # looked up at call time, so redirection works
    entries, lines = read_trace(args.file)
    progress = _progress("check")
    found = check_trace(counting(entries, "check", progress), revision=_REVISIONS[args.revision])
    if progress is not None:
        progress.done()
    violations = [v.to_json() | {"index": lines[v.index]} for v in found]
    mandatory = sum(v["level"] in ("MUST", "MUST NOT") for v in violations)
    if args.json:
        out.write(json.dumps(violations, ensure_ascii=False) + "\n")
    else:
        for v in violations:
            out.write(f"{args.file}:{v['index']}: {v['rule']} ({v['level']}) {v['message']}\n")
        out.write(
            f"{len(violations)} violation(s), {mandatory} of MUST level\n"
            if violations
            else "no violations\n"
        )
    return EXIT_VIOLATION if mandatory else EXIT_OK


# -- report --------------------------------------------------------------------------------


def _progress(label: str) -> ProgressLine | None:
    """Progress on stderr when it is a terminal; None (quiet) when piped or redirected."""
    return ProgressLine(sys.stderr, label) if sys.stderr.isatty() else None


def write_text(path: str, text: str) -> None:
    """Write a file the command line produces (a report page)."""
    try:
        with open(path, "w", encoding="utf-8") as f:
            f.write(text)
    except OSError as e:
        raise BadInputError(f"{path}: cannot write: {e.strerror or e}") from None


def write_report_beside(trace_path: str, entries: list[object], lines: list[int]) -> str:
    """Write the HTML report of a trace beside it (for `explore`); returns the page's path."""
    path, page = _cli_report.report_beside(trace_path, entries, lines)
    write_text(path, page)
    return path


def _run_report(args: argparse.Namespace) -> int:
    progress = _progress("report")
    try:
        return _cli_report.run(args, sys.stdout, read_trace, write_text, progress)
    finally:
        if progress is not None:
            progress.done()


# -- rules ---------------------------------------------------------------------------------


def _run_rules(args: argparse.Namespace, out: TextIO | None = None) -> int:
    (out or sys.stdout).write(rules_markdown())
    return EXIT_OK


COMMANDS: list[Command] = [
    Command(
        "check",
        "check a recorded conversation (JSON lines) against the rule catalogue; "
        "exit 0: no MUST broken, 1: a MUST broken, 2: unreadable input",
        _configure_check,
        _run_check,
    ),
    Command("report", _cli_report.HELP, _cli_report.configure, _run_report),
    Command(
        "rules", "print the rule catalogue as Markdown (docs/rules.md)", lambda p: None, _run_rules
    ),
    Command(
        "demo",
        _cli_demo.HELP,
        _cli_demo.configure,
        lambda args: _cli_demo.run(args, sys.stdout, sys.stderr),
    ),
    Command(
        "replay",
        _cli_replay.HELP,
        _cli_replay.configure,
        lambda args: _cli_replay.run(args, sys.stdout, sys.stderr, read_input),
    ),
]


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m acp_core", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        p = sub.add_parser(command.name, help=command.help, description=command.help)
        command.configure(p)
        p.set_defaults(run=command.run)
    return parser


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status."""
    args = build_parser().parse_args(argv)
    try:
        status: int = args.run(args)
    except BadInputError as e:
        sys.stderr.write(f"acp_core {args.command}: {e}\n")
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader went away (`... | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    return status


if __name__ == "__main__":
    sys.exit(main())
