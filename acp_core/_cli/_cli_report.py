"""`python -m acp_core report`: a trace as an HTML page or a Mermaid sequence diagram.

Owns: the arguments of `report`, choosing the output (beside the trace, a file, or stdout)
and `report_beside` (what a caller such as a future `explore` writes next to a trace).
Must not know: how files are read or written or whether stderr is a terminal (`__main__.py`
passes a reader, a writer and a progress callback or None), how the page is built
(`_cli/_report.py`, `_cli/_mermaid.py`).
"""

from __future__ import annotations

import argparse
from collections.abc import Callable, Sequence
from typing import Final, TextIO

from acp_core._wire._revision import DEFAULT_REVISION, Revision

from ._cli_revision import add_revision_argument, chosen_revision
from ._mermaid import mermaid_from_model
from ._report import Progress, report_model, report_path_beside
from ._report_html import render_page

__all__ = ["HELP", "configure", "report_beside", "run"]

HELP: Final = (
    "draw a recorded trace as one self-contained HTML page (lanes per side, violations at "
    "their line, the session view after any line) or as a Mermaid sequence diagram"
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the arguments of `report`."""
    parser.add_argument("file", metavar="FILE", help="trace in JSON lines ('-' reads stdin)")
    parser.add_argument(
        "-o",
        "--output",
        metavar="OUT",
        help="where to write ('-': stdout; default: the HTML page beside FILE, "
        "FILE with .html instead of .jsonl, or stdout for Mermaid and stdin)",
    )
    add_revision_argument(parser, "to judge and fold by")
    parser.add_argument(
        "--side",
        choices=("agent", "client"),
        default=None,
        help="show only violations of rules that bind this side (and both sides)",
    )
    parser.add_argument(
        "--format",
        choices=("html", "mermaid"),
        default="html",
        help="an HTML page (default) or a Mermaid sequence diagram",
    )


def report_beside(
    trace_path: str,
    entries: Sequence[object],
    lines: Sequence[int] | None = None,
    *,
    revision: Revision = DEFAULT_REVISION,
) -> tuple[str, str]:
    """The HTML report of a trace file and where it goes: `(path beside the trace, page)`.

    For commands that write traces (a counterexample of `explore`): write the page at the
    path and a reader can open it next to the trace.
    """
    model = report_model(entries, lines=lines, name=trace_path, revision=revision)
    return report_path_beside(trace_path), render_page(model)


def run(
    args: argparse.Namespace,
    out: TextIO,
    read: Callable[[str], tuple[list[object], list[int]]],
    write: Callable[[str, str], None],
    progress: Progress | None,
) -> int:
    """Run `report`: write the page (or diagram) and say where on `out`; 0 when written.

    `read(path)` returns the trace's entries and line indices (or raises the command line's
    bad-input error); `write(path, text)` writes a file; `progress` is None when quiet.
    """
    entries, lines = read(args.file)
    name = "<stdin>" if args.file == "-" else args.file
    model = report_model(
        entries,
        lines=lines,
        name=name,
        revision=chosen_revision(args),
        side=args.side,
        progress=progress,
    )
    mermaid = args.format == "mermaid"
    text = mermaid_from_model(model) if mermaid else render_page(model)
    target = args.output
    if target is None:
        target = "-" if mermaid or args.file == "-" else report_path_beside(args.file)
    if target == "-":
        out.write(text)
    else:
        write(target, text)
        out.write(f"{target}\n")
    return 0
