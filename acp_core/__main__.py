"""Command line: `python -m acp_core <command>` (demo, replay, check, report, rules, explore,
schema-diff).

The only module of acp_core that does I/O: the `_cli_*` modules it calls (demo, replay) get
their output streams and a reader from here.
Owns: argument parsing, reading files and stdin, the packaged example, printing, exit codes.
Must not know: protocol rules (they live in the pure modules this calls).

Commands register in `COMMANDS` (name, help, a function adding its arguments, a function
running it and returning the exit status), so another command is one `Command(...)` entry.
Bad input ends with one line on stderr naming the file and line, and exit status 2; an
internal error with one line and exit status 3; never a traceback. Input files are read line
by line, never whole, except `schema-diff`'s two JSON documents (read whole, bounded).
"""

from __future__ import annotations

import argparse
import itertools
import json
import os
import sys
import time
from collections.abc import Callable, Iterable, Iterator
from importlib.resources import files
from typing import Any, NamedTuple, TextIO

from ._cli import _cli_demo, _cli_proxy, _cli_replay, _cli_report, _cli_schema_diff, _explore_cli
from ._cli._cli_processes import level_workers, memory_low, new_run_id, paused_collector
from ._cli._cli_processes import map_shards as _map_shards
from ._cli._cli_progress import ProgressLine
from ._cli._cli_revision import add_revision_argument, chosen_revision, revision_problem
from ._cli._replay_fold import DETECT_LINES
from ._cli._report import build_report, counting
from ._errors import AcpError
from ._rules._catalogue import rules_markdown
from ._rules._check import check_trace
from ._rules._severity import legend_line, summary_line
from ._rules._tck import Exercised, kit_markdown, tck_report
from ._v1._normalize import looks_like_v1
from ._v1._v1_check import check_v1_trace
from ._wire._revision import Revision

#: Exit statuses of `check`.
EXIT_OK = 0
EXIT_VIOLATION = 1
EXIT_BAD_INPUT = 2
EXIT_INTERNAL = 3


class Command(NamedTuple):
    """A subcommand: `configure` adds its arguments, `run` does the work and returns a status."""

    name: str
    help: str
    configure: Callable[[argparse.ArgumentParser], None]
    run: Callable[[argparse.Namespace], int]


class BadInputError(Exception):
    """Input that cannot be read; the message is the one line printed to stderr."""


#: Most characters one trace line may hold (16 Mi); a longer line is bad input (exit 2), so a
#: file without line ends (`/dev/zero`, a sparse file) costs bounded memory, never all of it.
MAX_TRACE_LINE = 16 * 1024 * 1024


# -- check ---------------------------------------------------------------------------------


def _open_lines(path: str) -> Iterator[str]:
    """The lines of a file (`-`: stdin), read one at a time: no whole file is held.

    Raises:
        BadInputError: the file cannot be opened or read, or is not UTF-8 (raised from the
            iteration, at the line where it happens).
    """
    try:
        stream = _stdin(path) if path == "-" else open(path, encoding="utf-8")  # noqa: SIM115
    except OSError as e:
        raise BadInputError(f"{path}: cannot read: {e.strerror or e}") from None
    try:
        yield from bounded_lines(stream, path)
    except (OSError, UnicodeDecodeError) as e:
        reason = e.strerror if isinstance(e, OSError) and e.strerror else str(e)
        raise BadInputError(f"{path}: cannot read: {reason}") from None
    finally:
        if stream is not sys.stdin:
            stream.close()


def _stdin(path: str) -> TextIO:
    """Standard input, to read `path` (`-`) from.

    Raises:
        BadInputError: it is closed (`<&-`: Python's `sys.stdin` is None).
    """
    if sys.stdin is None:
        raise BadInputError(f"{path}: cannot read: standard input is closed")
    return sys.stdin


def bounded_lines(stream: TextIO, path: str) -> Iterator[str]:
    """The lines of `stream`, none read past `MAX_TRACE_LINE` characters.

    Raises:
        BadInputError: a line is longer (said with its 0-based index).
    """
    index = 0
    while line := stream.readline(MAX_TRACE_LINE + 1):
        if len(line) > MAX_TRACE_LINE:
            raise BadInputError(
                f"{path}: line index {index}: longer than {MAX_TRACE_LINE:,} characters"
            )
        yield line
        index += 1


def read_trace(path: str) -> tuple[list[object], list[int]]:
    """Read a whole JSON-lines trace: the entries and, for each, its 0-based line index
    (for commands that need every entry at once; `check` streams with `stream_trace`).

    Raises:
        BadInputError: the file cannot be read or a line is not JSON.
    """
    lines: list[int] = []
    return list(stream_trace(path, lines)), lines


def stream_trace(path: str, lines: list[int]) -> Iterator[object]:
    """The entries of a JSON-lines trace, parsed as they are read; `lines` receives, for each
    entry yielded, its 0-based line index. Blank lines are skipped (they still count).

    Raises:
        BadInputError: the file cannot be read or a line is not JSON.
    """
    for index, line in enumerate(_open_lines(path)):
        if not line.strip():
            continue
        try:
            entry = json.loads(line)
        except json.JSONDecodeError as e:
            raise BadInputError(
                f"{path}: line index {index}: invalid JSON: {e.msg} (column {e.colno})"
            ) from None
        except (RecursionError, ValueError) as e:
            # RecursionError: nested too deeply; ValueError: an integer over 4,300 digits.
            deep = isinstance(e, RecursionError)
            what = "JSON nested too deeply" if deep else "a number too long"
            raise BadInputError(f"{path}: line index {index}: {what}") from None
        lines.append(index)
        yield entry


def read_input(path: str | None) -> tuple[str, Iterable[str]]:
    """Name and lines of a command's input: a file, `-` for stdin, None for the packaged
    example trace. A file's lines are read as they are consumed.

    Raises:
        _cli_replay.ReadError: the input cannot be read (the message is one line); for a
            file, raised while its lines are consumed.
    """
    if path is None:
        example = files("acp_core") / "data" / _cli_replay.EXAMPLE_TRACE
        return f"{_cli_replay.EXAMPLE_TRACE} (packaged example)", example.read_text("utf-8")
    return ("<stdin>" if path == "-" else path), _replay_lines(path)


def _replay_lines(path: str) -> Iterator[str]:
    try:
        yield from _open_lines(path)
    except BadInputError as e:
        raise _cli_replay.ReadError(str(e)) from None


_CLIENT_SIDE_NOTE = (
    "judging client rules only: agent rules such as R11 (requires_action before the "
    "answer) are judged on the agent's recording, since a quick answer can overtake a "
    "requires_action on its way to the client"
)


def _configure_check(p: argparse.ArgumentParser) -> None:
    p.add_argument("file", metavar="FILE", help="trace in JSON lines ('-' reads stdin)")
    p.add_argument("--json", action="store_true", help="print the violations as a JSON list")
    p.add_argument(
        "--format",
        choices=("text", "json", "tck"),
        default=None,
        help="text (the default), json (as --json) or tck: a JSON report in the official "
        "conformance kit's shape (per kit requirement: tier, passed / failed / not-observed, "
        "its lines) with the kit's verdict; exit 1 unless conformant",
    )
    add_revision_argument(p, "to judge by")
    p.add_argument(
        "--side",
        choices=("agent", "client"),
        help="judge only the rules that bind this side (judge each side on its own recording)",
    )
    p.add_argument(
        "--protocol",
        choices=("auto", "1", "2"),
        default="auto",
        help="judge the trace as ACP v1 traffic (the v1 rules, docs/v1.md) or v2 (the "
        "catalogue at --revision); default auto: the initialize answer, else the traffic, "
        "decides",
    )


def _protocol_of(choice: str, entries: Iterable[object]) -> tuple[int, Iterable[object]]:
    """The protocol `--protocol` names, or for `auto` the one the first lines show (v1 when
    `looks_like_v1` says so: a negotiated `protocolVersion` decides, else the traffic's
    evidence); the entries, still all there."""
    if choice != "auto":
        return int(choice), entries
    stream = iter(entries)
    head = list(itertools.islice(stream, DETECT_LINES))
    return (1 if looks_like_v1(head) else 2), itertools.chain(head, stream)


def _seeing(entries: Iterable[object], seen: Exercised) -> Iterator[object]:
    """`entries`, recording each one's triggers in `seen` as it passes (check streams)."""
    for index, entry in enumerate(entries):
        seen.see(index, entry)
        yield entry


def _run_check(args: argparse.Namespace, out: TextIO | None = None) -> int:
    out = out or sys.stdout  # looked up at call time, so redirection works
    lines: list[int] = []
    entries: Iterable[object] = stream_trace(args.file, lines)
    form = args.format or ("json" if args.json else "text")
    if args.json and form != "json":
        raise BadInputError(f"--json and --format {form} ask for two outputs; give one")
    protocol, entries = _protocol_of(args.protocol, entries)
    if form == "tck" and protocol == 1:
        raise BadInputError(f"{args.file}: v1 traffic: the conformance kit's report judges v2")
    seen = Exercised()
    if form == "tck":
        entries = _seeing(entries, seen)
    progress = _progress("check")
    if progress is not None:  # a progress line needs the total: read the entries first
        entries = counting(list(entries), "check", progress)
    if protocol == 1:
        found = check_v1_trace(entries, side=args.side)
        if not args.json:
            out.write(f"{args.file}: read as ACP v1 traffic, judged by the v1 rules (docs/v1.md)\n")
    else:
        found = check_trace(entries, revision=chosen_revision(args), side=args.side)
    if progress is not None:
        progress.done()
    if not lines:
        raise BadInputError(f"{args.file}: empty: no trace entries to check")
    # `severity` and `fails` are added to the older keys (which stay as they were).
    violations = [
        v.to_json()
        | {"index": lines[v.index], "severity": v.severity.label, "fails": v.severity.fails}
        for v in found
    ]
    mandatory = sum(v.severity.fails for v in found)
    if form == "tck":
        report = tck_report(
            found, seen, lines=lines, side=args.side, revision=chosen_revision(args).name
        )
        out.write(json.dumps({"trace": args.file} | report, ensure_ascii=False) + "\n")
        verdict = report["verdict"]
        conformant = isinstance(verdict, dict) and verdict.get("conformant") is True
        return EXIT_OK if conformant else EXIT_VIOLATION
    if form == "json":
        out.write(json.dumps(violations, ensure_ascii=False) + "\n")
    else:
        if args.side == "client":
            out.write(f"{args.file}: {_CLIENT_SIDE_NOTE}\n")
        for v, shown in zip(found, violations, strict=True):
            tag = v.severity.tag(v.level)
            out.write(f"{args.file}:{shown['index']}: {v.rule} {tag} {v.message}\n")
        out.write(summary_line(v.severity for v in found) + "\n")
        if found:
            out.write(legend_line((v.rule for v in found), (v.severity for v in found)) + "\n")
    return EXIT_VIOLATION if mandatory else EXIT_OK


# -- report --------------------------------------------------------------------------------


def _progress(label: str) -> ProgressLine | None:
    """Progress on stderr when it is a terminal; None (quiet) when piped or redirected."""
    return ProgressLine(sys.stderr, label) if sys.stderr.isatty() else None


def _read_replay_input(path: str | None) -> tuple[str, str | Iterable[str]]:
    """`read_input`, with progress on a terminal for a file (by the share of its size read)."""
    name, lines = read_input(path)
    progress = _progress("replay")
    if progress is None or path in (None, "-") or isinstance(lines, str):
        return name, lines
    try:
        total = os.path.getsize(path)
    except OSError:
        return name, lines
    return name, _counted_lines(lines, total, progress)


def _counted_lines(lines: Iterable[str], total: int, progress: ProgressLine) -> Iterator[str]:
    done, step, mark = 0, max(1, total // 100), 0
    for line in lines:
        done += len(line)  # characters, not bytes: close enough for a share
        if done >= mark:
            progress("read", min(done, total), total)
            mark = done + step
        yield line
    progress("read", total, total)
    progress.done()


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


# -- explore (the clock and the files of `_explore_cli`; its processes: `_cli_processes`) ----


def _run_explore(args: argparse.Namespace) -> int:
    def write_trace(name: str, example: Any) -> str:
        os.makedirs(args.out, exist_ok=True)
        path = os.path.join(args.out, name)
        write_text(path, "".join(_explore_cli.trace_lines(example)))
        write_report_beside(path, list(example.entries), list(range(len(example.entries))))
        return path

    with paused_collector():
        return _explore_cli.run(
            args,
            sys.stdout,
            time.perf_counter,
            write_trace,
            _map_shards,
            run_id=new_run_id(),
            workers_factory=level_workers,
            memory_low=memory_low,
        )


# -- rules ---------------------------------------------------------------------------------


def _configure_rules(p: argparse.ArgumentParser) -> None:
    add_revision_argument(p, "whose rules to print", default=None)
    p.add_argument(
        "--kit",
        action="store_true",
        help="print the conformance kit coverage table (docs/kit-coverage.md) instead",
    )


def _run_rules(args: argparse.Namespace, out: TextIO | None = None) -> int:
    if getattr(args, "kit", False):
        (out or sys.stdout).write(kit_markdown())
        return EXIT_OK
    given = getattr(args, "revision", None) is not None
    (out or sys.stdout).write(rules_markdown(chosen_revision(args) if given else None))
    return EXIT_OK


COMMANDS: list[Command] = [
    Command(
        "check",
        "check a recorded conversation (JSON lines) against the rule catalogue; "
        "exit 0: no MUST broken, 1: a MUST broken, 2: unreadable or empty input, "
        "3: internal error",
        _configure_check,
        _run_check,
    ),
    Command("report", _cli_report.HELP, _cli_report.configure, _run_report),
    Command("explore", _explore_cli.HELP, _explore_cli.configure, _run_explore),
    Command(
        "rules",
        "print the rule catalogue as Markdown (docs/rules.md; with --revision only the rules "
        "that apply in that revision)",
        _configure_rules,
        _run_rules,
    ),
    Command(
        "demo",
        _cli_demo.HELP,
        _cli_demo.configure,
        lambda args: _cli_demo.run(args, sys.stdout, sys.stderr),
    ),
    Command(
        "proxy",
        _cli_proxy.HELP,
        _cli_proxy.configure,
        lambda args: _cli_proxy.run(
            args, _stdin("-").fileno(), sys.stdout.fileno(), sys.stderr, _write_proxy_report
        ),
    ),
    Command(
        "replay",
        _cli_replay.HELP,
        _cli_replay.configure,
        lambda args: _cli_replay.run(args, sys.stdout, sys.stderr, _read_replay_input),
    ),
    Command(
        "schema-diff",
        _cli_schema_diff.HELP,
        _cli_schema_diff.configure,
        lambda args: _cli_schema_diff.run(args, sys.stdout, sys.stderr, _read_text),
    ),
]


def _write_proxy_report(path: str, entries: list[Any], revision: Revision) -> None:
    with open(path, "w", encoding="utf-8") as f:  # OSError: the proxy says so and goes on
        f.write(build_report(entries, name=path, revision=revision))


def _read_text(path: str, limit: int) -> str:
    """At most `limit` characters of a whole-document input (`schema-diff`'s schema files).

    Raises:
        OSError, UnicodeDecodeError: the file cannot be opened, read or decoded.
    """
    with open(path, encoding="utf-8") as f:
        return f.read(limit)


def build_parser() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(prog="python -m acp_core", description=__doc__.split("\n")[0])
    sub = parser.add_subparsers(dest="command", required=True, metavar="COMMAND")
    for command in COMMANDS:
        p = sub.add_parser(command.name, help=command.help, description=command.help)
        command.configure(p)
        p.set_defaults(run=command.run)
    return parser


def _printable(stream: TextIO) -> None:
    # Text from a trace may hold lone surrogates (valid in JSON strings, not in UTF-8):
    # print them escaped instead of failing mid-output with UnicodeEncodeError.
    reconfigure = getattr(stream, "reconfigure", None)
    if reconfigure is not None:
        reconfigure(errors="backslashreplace")


def main(argv: list[str] | None = None) -> int:
    """Run the command line; returns the exit status (never a traceback).

    0: done (for `check`: no MUST broken), 1: `check` found a MUST broken, 2: bad input or an
    I/O error, such as output that cannot be written (one line on stderr), 3: an internal
    error of acp-core (one line on stderr; please report it).
    """
    args = build_parser().parse_args(argv)
    if sys.stdout is None:  # closed (`>&-`): what would be printed is dropped, the status stays
        sys.stdout = open(os.devnull, "w", encoding="utf-8")  # noqa: SIM115
    unknown = revision_problem(args)
    if unknown is not None:
        sys.stderr.write(f"acp_core {args.command}: {unknown}\n")
        return EXIT_BAD_INPUT
    _printable(sys.stdout)
    _printable(sys.stderr)
    try:
        status: int = args.run(args)
    except (BadInputError, _cli_replay.ReadError) as e:
        sys.stderr.write(f"acp_core {args.command}: {e}\n")
        return EXIT_BAD_INPUT
    except AcpError as e:
        # Only input the core refused reaches here: still bad input, not a crash.
        sys.stderr.write(f"acp_core {args.command}: bad input: {e}\n")
        return EXIT_BAD_INPUT
    except BrokenPipeError:
        # The reader went away (`... | head`): stop quietly, as Unix tools do.
        devnull = os.open(os.devnull, os.O_WRONLY)
        os.dup2(devnull, sys.stdout.fileno())
        return EXIT_OK
    except OSError as e:
        # Input errors are said where they are read (BadInputError): this is the environment
        # (output to a full disk, a device error), not a bug of acp-core.
        sys.stderr.write(f"acp_core {args.command}: I/O error: {e.strerror or e}\n")
        return EXIT_BAD_INPUT
    except Exception as e:  # the promise: one line, never a traceback
        sys.stderr.write(
            f"acp_core {args.command}: internal error: {type(e).__name__}: {e} "
            "(a bug in acp-core; please report it with the input)\n"
        )
        return EXIT_INTERNAL
    return status


if __name__ == "__main__":
    sys.exit(main())
