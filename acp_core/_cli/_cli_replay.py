"""`python -m acp_core replay`: fold a recorded trace into session state and show it.

Owns: reading a trace file (or the packaged example) into lines with their line numbers,
and the `replay` subcommand (arguments, printing, exit codes). Folding lives in
`_cli/_replay_fold.py` (through the client engine, v1 through the normalizer).
Must not know: what updates mean (the reducers do), how sessions are drawn (`_cli/_render.py`).

The input streams: each line is parsed and folded as it is read, so memory is bounded by the
sessions' state, not by the file (benchmarks/replay_memory.py). `--steps` prints, per line,
what that line changed (the updates it folded, the requests that started or stopped waiting)
as soon as it is folded, never whole states. Bad input (a line that is not JSON, not a trace
entry, or a message that does not decode) stops the replay with one line naming the file and
line, and exit status 2 (with `--steps`, after the steps of the lines before it).
"""

from __future__ import annotations

import argparse
import bisect
import json
import math
from collections.abc import Callable, Iterable, Iterator
from typing import Any, Final, TextIO

from acp_core._errors import Diagnostic
from acp_core._rules._check import LiveCheck, Violation
from acp_core._rules._severity import legend_line, summary_line
from acp_core._state._snapshot import snapshot
from acp_core._wire._codec import encode_update
from acp_core._wire._revision import DEFAULT_REVISION, Revision

from ._cli_revision import add_revision_argument, chosen_revision
from ._render import render_session
from ._replay_fold import (
    Line,
    LineEffect,
    Replay,
    TraceError,
    Waiting,
    replay_lines,
    replay_trace,
)

__all__ = [
    "EXAMPLE_TRACE",
    "HELP",
    "Line",
    "LineEffect",
    "ReadError",
    "Replay",
    "TraceError",
    "configure",
    "iter_trace",
    "parse_trace",
    "replay_trace",
    "run",
    "violation_json",
]

#: The trace shipped with the package (the `demo` conversation, as recorded).
EXAMPLE_TRACE: Final = "example-trace.jsonl"

BAD_INPUT: Final = 2


class ReadError(Exception):
    """The input could not be read; the message is the one line to print."""


# -- reading -------------------------------------------------------------------------------


def parse_trace(text: str | Iterable[str]) -> tuple[Line, ...]:
    """Parse trace text, or its lines as they are read (JSON lines; blank lines are skipped).

    Raises:
        TraceError: a line is not JSON or not a `{"from", "message"}` entry.
    """
    return tuple(iter_trace(text))


def iter_trace(text: str | Iterable[str]) -> Iterator[Line]:
    """`parse_trace`, one line at a time as the input is read (nothing is kept).

    Raises:
        TraceError: from the iteration, at a line that is not JSON or not a trace entry.
    """
    for number, raw in enumerate(text.split("\n") if isinstance(text, str) else text):
        if not raw.strip():
            continue
        try:
            entry = json.loads(raw)
        except json.JSONDecodeError as e:
            raise TraceError(number, f"not JSON: {e.msg} (column {e.colno})") from None
        except RecursionError:
            raise TraceError(number, "not JSON this reader accepts: nested too deeply") from None
        except ValueError:  # an integer of more than 4,300 digits
            raise TraceError(number, "not JSON this reader accepts: a number too long") from None
        if type(entry) is not dict or "message" not in entry:
            raise TraceError(
                number, 'not a trace entry: expected {"from": "client"|"agent", "message": ...}'
            )
        sender = entry.get("from")
        if sender not in ("client", "agent"):
            raise TraceError(number, f'"from" must be "client" or "agent", got {sender!r}')
        yield Line(number, sender, entry["message"])


# -- printing ------------------------------------------------------------------------------


def _describe(line: Line) -> str:
    message = line.message
    items = message if type(message) is list else [message]
    parts = []
    for item in items:
        if type(item) is not dict:
            parts.append("?")
        elif "method" in item:
            method = str(item["method"])
            params = item.get("params")
            if method == "session/update" and type(params) is dict:
                update = params.get("update")
                kind = update.get("sessionUpdate") if type(update) is dict else None
                method += f" {kind}"
            parts.append(method)
        elif "error" in item:
            parts.append(f"error response to {item.get('id')!r}")
        else:
            parts.append(f"response to {item.get('id')!r}")
    return ", ".join(parts)


def _render(replay: Replay, session_id: str, state: Any) -> str:
    waiting = replay.pending.get(session_id, ())
    return render_session(
        state,
        pending=[str(w) for w in waiting if w.kind == "permission"],
        inputs=[str(w) for w in waiting if w.kind != "permission"],
    )


def _json(value: object) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except ValueError:  # an integer past Python's int/str digit limit
        return "<not printable as JSON: an integer too long to print>"


def _update_text(session_id: str, update: Any, revision: Revision) -> str:
    wire = encode_update(update, revision=revision)
    kind = wire.pop("sessionUpdate", "?")
    return f"  {session_id}: {kind} {_json(wire)}\n"


def _write_step_text(effect: LineEffect, out: TextIO, revision: Revision) -> None:
    line = effect.line
    out.write(f"--- line index {line.index} ({line.sender}): {_describe(line)}\n")
    if not (effect.updates or effect.asked or effect.answered):
        out.write("(no session state changed)\n")
    for session_id, update in effect.updates:
        out.write(_update_text(session_id, update, revision))
    for w in effect.asked:
        out.write(f"  {w.session_id}: awaiting {w.kind}: {w}\n")
    for w in effect.answered:
        out.write(f"  {w.session_id}: answered: {w}\n")
    out.write("\n")


class _Judged:
    """The checker beside the fold: every line read is judged too (`check`'s rules and
    words), and its findings are shown after the state; not for v1 traffic."""

    def __init__(self, check: LiveCheck) -> None:
        self.check = check
        self.count = 0
        # (entry number, file line index minus entry number) where that offset changes (at
        # blank lines only), so memory does not grow with the file's length.
        self.shifts: list[tuple[int, int]] = [(0, 0)]

    def read(self, lines: Iterable[Line]) -> Iterator[Line]:
        for line in lines:
            self.check.feed({"from": line.sender, "message": line.message})
            if line.index - self.count != self.shifts[-1][1]:
                self.shifts.append((self.count, line.index - self.count))
            self.count += 1
            yield line

    def line_of(self, entry: int) -> int:
        at = bisect.bisect_right(self.shifts, (entry, math.inf)) - 1
        return entry + self.shifts[at][1]

    def found(self, replay: Replay) -> list[tuple[int, Violation]]:
        if replay.protocol == 1:
            return []  # the v2 rules do not judge v1 traffic
        self.check.finish()
        return [(self.line_of(v.index), v) for v in self.check.found()]


def violation_json(index: int, v: Violation) -> dict[str, Any]:
    """A finding as `check --json` prints it (with `severity` and `fails`)."""
    return v.to_json() | {"index": index, "severity": v.severity.label, "fails": v.severity.fails}


def _write_findings(found: list[tuple[int, Violation]], out: TextIO) -> None:
    # Only when there are findings: a clean trace's replay reads as it always did.
    if not found:
        return
    out.write("Checker\n")
    for index, v in found:
        out.write(f"  line index {index}: {v.rule} {v.severity.tag(v.level)} {v.message}\n")
    out.write(summary_line((v.severity for _, v in found), "check would exit") + "\n")
    out.write(legend_line((v.rule for _, v in found), (v.severity for _, v in found)) + "\n")


def _write_text(replay: Replay, args: argparse.Namespace, name: str, out: TextIO) -> None:
    if args.steps:
        out.write("=== final state\n\n")
    if not replay.sessions:
        out.write(f"{name}: no session updates in this trace\n")
    for session_id, state in replay.sessions.items():
        out.write(_render(replay, session_id, state) + "\n\n")
    if replay.notes:
        what = "Normalizer" if replay.protocol == 1 else "Decoder"
        out.write(f"{what} notes\n")
        for number, d in replay.notes:
            out.write(f"  line index {number}: {d.rule} @ {d.path}: {d.message}\n")


def _waiting_json(w: Waiting) -> dict[str, Any]:
    return {"sessionId": w.session_id, "requestId": w.request_id, "kind": w.kind, "label": w.label}


def _note_json(d: Diagnostic) -> dict[str, Any]:
    return {"rule": d.rule, "path": d.path, "message": d.message}


def step_json(effect: LineEffect, revision: Revision = DEFAULT_REVISION) -> dict[str, Any]:
    """One `--steps --json` line (docs/trace-format.md, "Replaying a trace"); the updates
    are written as `revision` (the one the reducers follow) keys them."""
    doc: dict[str, Any] = {
        "index": effect.line.index,
        "from": effect.line.sender,
        "updates": [
            {"sessionId": sid, "update": encode_update(u, revision=revision)}
            for sid, u in effect.updates
        ],
    }
    if effect.asked:
        doc["asked"] = [_waiting_json(w) for w in effect.asked]
    if effect.answered:
        doc["answered"] = [_waiting_json(w) for w in effect.answered]
    if effect.notes:
        doc["notes"] = [_note_json(d) for d in effect.notes]
    return doc


def _write_json(
    replay: Replay, args: argparse.Namespace, out: TextIO, found: list[tuple[int, Violation]]
) -> None:
    final = {sid: snapshot(state) for sid, state in replay.sessions.items()}
    if args.steps:
        pending = {
            sid: [_waiting_json(w) for w in waiting] for sid, waiting in replay.pending.items()
        }
        violations = [violation_json(i, v) for i, v in found]
        doc = {"final": final, "pending": pending, "violations": violations}
        out.write(json.dumps(doc, separators=(",", ":")) + "\n")
        return
    out.write(json.dumps(final, indent=2) + "\n")


#: One line for `python -m acp_core --help`.
HELP: Final = (
    "fold a recorded trace into session state and show each session (transcript, tool calls, "
    "plans, terminals, usage, foreground); without FILE, the packaged example trace"
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the arguments of `replay`."""
    parser.add_argument(
        "file",
        metavar="FILE",
        nargs="?",
        help='the trace to replay, JSON lines of {"from", "message"} (\'-\' reads stdin; '
        "default: the example trace shipped with acp-core)",
    )
    parser.add_argument(
        "--json",
        action="store_true",
        help="print {sessionId: snapshot} (docs/snapshot.md) instead of text",
    )
    parser.add_argument(
        "--protocol",
        type=int,
        choices=(1, 2),
        default=None,
        help="read the trace as v1 traffic (through the v1 normalizer) or v2 "
        "(default: detect v1 traffic)",
    )
    add_revision_argument(parser, "the reducers follow")
    parser.add_argument(
        "--steps",
        action="store_true",
        help="before the final state, show what every line changed (the updates it folded, "
        "requests that started or stopped waiting); with --json, one object per line",
    )


def run(
    args: argparse.Namespace,
    out: TextIO,
    err: TextIO,
    read: Callable[[str | None], tuple[str, str | Iterable[str]]],
) -> int:
    """Run `replay`: 0 on success, 2 on bad input (one line on `err`, no traceback).

    `read(path)` is the command line's reader (this module does no I/O): it returns the
    input's display name and text (`None`: the packaged example, `-`: stdin) and raises
    `ReadError` with a one-line reason when it cannot.
    """
    try:
        name, text = read(args.file)
    except ReadError as e:
        err.write(f"acp_core replay: {e}\n")
        return BAD_INPUT

    def on_protocol(protocol: int) -> None:
        if protocol == 1 and not args.json:
            out.write(f"{name}: read as ACP v1 traffic and normalized to v2 (docs/v1.md)\n\n")

    def on_step(effect: LineEffect) -> None:
        if args.json:
            out.write(json.dumps(step_json(effect, revision), separators=(",", ":")) + "\n")
        else:
            _write_step_text(effect, out, revision)

    revision = chosen_revision(args)
    judged = _Judged(LiveCheck(revision))
    try:
        replay = replay_lines(
            judged.read(iter_trace(text)),
            protocol=args.protocol,
            revision=revision,
            on_step=on_step if args.steps else None,
            on_protocol=on_protocol,
        )
    except TraceError as e:
        err.write(f"acp_core replay: {name}: line index {e.index}: {e.reason}\n")
        return BAD_INPUT
    found = judged.found(replay)
    if args.json:
        _write_json(replay, args, out, found)
    else:
        _write_text(replay, args, name, out)
        _write_findings(found, out)
    return 0
