"""`python -m acp_core replay`: fold a recorded trace into session state and show it.

Owns: reading a trace file (or the packaged example) into entries with line numbers, folding
entries into one `SessionState` per session (`replay_trace`, pure), the v1 route through the
normalizer, and the `replay` subcommand (arguments, printing, exit codes).
Must not know: what updates mean (the reducers do), how sessions are drawn (`_render.py`).

What is folded, per session: every `session/update` through `reduce`, and the `tool_call`
subject of a permission request (T10), exactly as a client engine would. Permission requests
not answered yet are listed with the session. Bad input (a line that is not JSON, not a trace
entry, or a message that does not decode) stops the replay with one line naming the file and
line, and exit status 2.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable, Iterable, Sequence
from typing import Any, Final, TextIO

import attrs

from ._codec import decode_message_diagnosed
from ._errors import DecodeError, Diagnostic
from ._jsonrpc import (
    Batch,
    ErrorResponse,
    InvalidEntry,
    Message,
    RequestPermissionRequest,
    Response,
    ToolCallPermissionSubject,
    UpdateSessionNotification,
)
from ._reduce import reduce
from ._render import render_session
from ._revision import DEFAULT_REVISION, V2_2026_08, V2_2026_11, Revision
from ._snapshot import snapshot
from ._state import SessionState, new_session

__all__ = [
    "EXAMPLE_TRACE",
    "HELP",
    "ReadError",
    "Replay",
    "TraceError",
    "configure",
    "parse_trace",
    "replay_trace",
    "run",
]

#: The trace shipped with the package (the `demo` conversation, as recorded).
EXAMPLE_TRACE: Final = "example-trace.jsonl"

BAD_INPUT: Final = 2

_REVISIONS: Final[dict[str, Revision]] = {r.name: r for r in (V2_2026_08, V2_2026_11)}


class ReadError(Exception):
    """The input could not be read; the message is the one line to print."""


class TraceError(Exception):
    """Bad input at a line of a trace (its 0-based line index, as in docs/trace-format.md);
    the CLI prints it and exits 2."""

    def __init__(self, index: int, reason: str) -> None:
        super().__init__(index, reason)
        self.index = index
        self.reason = reason


@attrs.frozen
class Line:
    """One trace entry and the line it came from (0-based line index; blank lines count)."""

    index: int
    sender: str
    message: Any


@attrs.frozen
class LineEffect:
    """What one trace line did: the sessions it changed, and notes the decoder made."""

    line: Line
    touched: tuple[str, ...]


@attrs.frozen
class Replay:
    """A folded trace.

    Attributes:
        sessions: the state of each session, in first-seen order.
        pending: per session, the permission requests not answered (one line each).
        notes: (line index, diagnostic) pairs from the decoder or the v1 normalizer.
        steps: per trace line, which sessions it changed, with the states after it.
        protocol: 1 when the trace was read as v1 traffic, else 2.
    """

    sessions: dict[str, SessionState]
    pending: dict[str, dict[str, str]]
    notes: tuple[tuple[int, Diagnostic], ...]
    steps: tuple[tuple[LineEffect, tuple[SessionState, ...]], ...]
    protocol: int


# -- reading -------------------------------------------------------------------------------


def parse_trace(text: str | Iterable[str]) -> tuple[Line, ...]:
    """Parse trace text, or its lines as they are read (JSON lines; blank lines are skipped).

    Raises:
        TraceError: a line is not JSON or not a `{"from", "message"}` entry.
    """
    lines: list[Line] = []
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
        lines.append(Line(number, sender, entry["message"]))
    return tuple(lines)


# -- folding -------------------------------------------------------------------------------


def _id_key(request_id: object) -> str:
    return json.dumps(request_id)


class _Fold:
    """Sessions under construction (local to one `replay_trace` call)."""

    def __init__(self, revision: Revision) -> None:
        self.revision = revision
        self.sessions: dict[str, SessionState] = {}
        self.pending: dict[str, dict[str, str]] = {}
        self.asked: dict[str, str] = {}  # agent request id -> session
        self.notes: list[tuple[int, Diagnostic]] = []

    def session(self, session_id: str) -> SessionState:
        state = self.sessions.get(session_id)
        if state is None:
            state = self.sessions[session_id] = new_session(session_id)
            self.pending[session_id] = {}
        return state

    def apply(self, session_id: str, update: Any) -> None:
        self.sessions[session_id] = reduce(self.session(session_id), update, revision=self.revision)

    def message(self, line: Line, message: Message, touched: dict[str, None]) -> None:
        if type(message) is UpdateSessionNotification:
            self.apply(message.session_id, message.update)
            touched[message.session_id] = None
        elif type(message) is RequestPermissionRequest and line.sender == "agent":
            sid = message.session_id
            if isinstance(message.subject, ToolCallPermissionSubject):
                self.apply(sid, message.subject.tool_call)  # T10
            self.session(sid)
            self.pending[sid][_id_key(message.id)] = f"{message.title} (request {message.id})"
            self.asked[_id_key(message.id)] = sid
            touched[sid] = None
        elif isinstance(message, (Response, ErrorResponse)) and line.sender == "client":
            key = _id_key(message.id)
            answered = self.asked.pop(key, None)
            if answered is not None:
                self.pending[answered].pop(key, None)  # the session state itself is unchanged

    def line(self, line: Line) -> tuple[str, ...]:
        try:
            decoded = decode_message_diagnosed(line.message)
        except DecodeError as e:
            raise TraceError(line.index, f"not an ACP v2 message: {e}") from None
        except RecursionError:
            raise TraceError(line.index, "message nested too deeply to decode") from None
        self.notes.extend((line.index, d) for d in decoded.diagnostics)
        touched: dict[str, None] = {}
        value = decoded.value
        for item in value.items if isinstance(value, Batch) else (value,):
            if isinstance(item, InvalidEntry):
                raise TraceError(
                    line.index,
                    f"batch entry not an ACP v2 message: expected {item.expected} @ {item.path}",
                )
            self.message(line, item, touched)
        return tuple(touched)


def _v1_normalizer() -> tuple[Any, Any]:
    import acp_core

    normalize = getattr(acp_core, "normalize_v1", None)
    looks = getattr(acp_core, "looks_like_v1", None)
    return normalize, looks


def replay_trace(
    lines: Sequence[Line], *, protocol: int | None = None, revision: Revision = DEFAULT_REVISION
) -> Replay:
    """Fold parsed trace lines into sessions (pure).

    Args:
        lines: from `parse_trace`.
        protocol: 2 (v2 traffic), 1 (v1 traffic, through the v1 normalizer), or None to
            detect v1 traffic when the normalizer can tell.
        revision: the v2 revision the reducers follow (`_meta` patches merge in 2026-11).

    Raises:
        TraceError: a message does not decode (v2), or v1 was asked for and the
            normalizer is not available.
    """
    normalize, looks = _v1_normalizer()
    entries = [{"from": line.sender, "message": line.message} for line in lines]
    if protocol is None:
        protocol = 1 if looks is not None and looks(entries) else 2
    fold = _Fold(revision)
    steps: list[tuple[LineEffect, tuple[SessionState, ...]]] = []
    if protocol == 1:
        if normalize is None:
            raise TraceError(
                lines[0].index if lines else 0,
                "v1 traffic needs the v1 normalizer (acp_core.normalize_v1), "
                "which this build does not have",
            )
        result = normalize(entries)
        by_index: dict[int, list[Any]] = {}
        for item in result.updates:
            by_index.setdefault(item.index, []).append(item)
        for d in result.diagnostics:
            fold.notes.append((_line_of(d.path, lines), d))
        for index, line in enumerate(lines):
            touched: dict[str, None] = {}
            for item in by_index.get(index, ()):
                fold.apply(item.session_id, item.update)
                touched[item.session_id] = None
            steps.append(_step(fold, line, tuple(touched)))
    else:
        for line in lines:
            steps.append(_step(fold, line, fold.line(line)))
    notes = tuple(sorted(fold.notes, key=lambda n: n[0]))
    return Replay(fold.sessions, fold.pending, notes, tuple(steps), protocol)


def _step(
    fold: _Fold, line: Line, touched: tuple[str, ...]
) -> tuple[LineEffect, tuple[SessionState, ...]]:
    return LineEffect(line, touched), tuple(fold.sessions[sid] for sid in touched)


def _line_of(path: str, lines: Sequence[Line]) -> int:
    # Normalizer paths start `$[index]`: map the entry index back to its file line.
    if path.startswith("$["):
        index = path[2 : path.find("]")]
        if index.isdigit() and int(index) < len(lines):
            return lines[int(index)].index
    return -1


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


def _render(replay: Replay, session_id: str, state: SessionState) -> str:
    pending = tuple(replay.pending.get(session_id, {}).values())
    return render_session(state, pending=pending)


def _render_steps(replay: Replay, out: TextIO) -> None:
    for step_, states in replay.steps:
        line = step_.line
        out.write(f"--- line index {line.index} ({line.sender}): {_describe(line)}\n")
        if not states:
            out.write("(no session state changed)\n\n")
        for state in states:
            out.write(render_session(state) + "\n\n")


def _write_text(replay: Replay, args: argparse.Namespace, name: str, out: TextIO) -> None:
    if replay.protocol == 1:
        out.write(f"{name}: read as ACP v1 traffic and normalized to v2 (docs/v1.md)\n\n")
    if args.steps:
        _render_steps(replay, out)
        out.write("=== final state\n\n")
    if not replay.sessions:
        out.write(f"{name}: no session updates in this trace\n")
    for session_id, state in replay.sessions.items():
        out.write(_render(replay, session_id, state) + "\n\n")
    if replay.notes:
        what = "Normalizer" if replay.protocol == 1 else "Decoder"
        out.write(f"{what} notes\n")
        for number, d in replay.notes:
            where = f"line index {number}" if number >= 0 else "trace"
            out.write(f"  {where}: {d.rule} @ {d.path}: {d.message}\n")


def _write_json(replay: Replay, args: argparse.Namespace, out: TextIO) -> None:
    if args.steps:
        for step_, states in replay.steps:
            doc = {
                "index": step_.line.index,
                "sessions": {s.session_id: snapshot(s) for s in states},
            }
            out.write(json.dumps(doc, separators=(",", ":")) + "\n")
        return
    doc = {sid: snapshot(state) for sid, state in replay.sessions.items()}
    out.write(json.dumps(doc, indent=2) + "\n")


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
    parser.add_argument(
        "--revision",
        choices=sorted(_REVISIONS),
        default=DEFAULT_REVISION.name,
        help="protocol revision the reducers follow (default: %(default)s)",
    )
    parser.add_argument(
        "--steps",
        action="store_true",
        help="after every line, show the sessions it changed",
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
    try:
        revision = _REVISIONS[getattr(args, "revision", DEFAULT_REVISION.name)]
        replay = replay_trace(parse_trace(text), protocol=args.protocol, revision=revision)
    except TraceError as e:
        err.write(f"acp_core replay: {name}: line index {e.index}: {e.reason}\n")
        return BAD_INPUT
    if args.json:
        _write_json(replay, args, out)
    else:
        _write_text(replay, args, name, out)
    return 0
