"""`python -m acp_core proxy -- AGENT...`: a live inspector between a real client and a real agent.

Owns: the `proxy` command (its options, the agent process, the two byte pumps, the live
judge, the trace file and the closing report) and `Judge`, which turns the bytes one side
sent into trace entries and the violations each entry adds.
Must not know: what any rule says (the checker `LiveCheck` and the v1 rules judge),
how a report page is built (`_cli/_report.py`).

Like `__main__`, this module may start processes and touch files and descriptors
(tests/test_purity.py names it); nothing in the core imports it.

Theory of operation. The client is this process's stdin and stdout; the agent is a child
process on two pipes (its stderr is ours, untouched). One thread per direction reads what
its side sent, hands a copy to the judge (a queue put that never waits) and writes it to
the other side at once and whole: forwarding never waits on judging, so no byte is
changed, dropped, reordered or held past the read that brought it, whatever the traffic
is. The copy goes first so the judge sees a request before the answer it causes (after
the write the agent may answer before this thread runs again). The queue holds at most
`QUEUED_READS` reads: traffic that outruns the judge that far stops the judging (told on
stderr once), never the bytes. The judge (the
main thread) frames each direction's bytes as NDJSON (`feed_ndjson`, one decoder a side,
any split), records each line as a trace entry (`{"from": side, "message": ...}`; a line
that is not JSON is recorded as its text, which `check` then reports as `D1`, the verdict
the live judge gave) and judges it: v2 traffic with `LiveCheck` at `--revision`, v1 traffic
with the v1 rules over the v1 normalizer (`v1_violations`). `--protocol auto` decides at the
agent's answer to `initialize` (its `protocolVersion`), else by the evidence of the first
lines (`looks_like_v1`); entries seen before the decision are judged once it is made. Each
violation goes to stderr as it is found, with its rule, level, side and the trace line.
When the agent closes its stdout the proxy waits for it to exit, judges what only the end
shows, writes the report (`--report`) and exits with the agent's status, so an editor sees
what it would have seen.
"""

from __future__ import annotations

import argparse
import contextlib
import functools
import json
import os
import queue
import signal
import subprocess
import threading
from collections.abc import Callable, Sequence
from typing import Any, Final, TextIO

from acp_core._rules._catalogue import RULES
from acp_core._rules._check import LiveCheck, Violation
from acp_core._rules._severity import severity_of
from acp_core._v1._normalize import looks_like_v1, normalize_v1_step
from acp_core._v1._v1_check import V1_RULES, v1_violations
from acp_core._v1._v1_state import V1State, new_v1_state
from acp_core._wire._framing import FramingError, NdjsonDecoder, Parsed, feed_ndjson
from acp_core._wire._revision import Revision

from ._cli_revision import add_revision_argument, chosen_revision

__all__ = ["HELP", "Finding", "Judge", "configure", "run"]

HELP: Final = (
    "sit between a client (this process's stdin/stdout) and an agent process, forward every "
    "byte unchanged, record the trace and report each violation on stderr as it happens; "
    "exit status: the agent's"
)
#: Bytes one read takes from a side (a read is forwarded whole before the next).
READ_SIZE: Final = 65_536
#: Reads waiting for the judge before judging gives up (at most 64 MiB held).
QUEUED_READS: Final = 1_024
#: Lines judged without an `initialize` answer before `--protocol auto` decides by evidence.
DETECT_LINES: Final = 64
#: Longest line the judge frames (bytes); a longer one is forwarded all the same and
#: reported once (`D1`): the limit bounds what judging holds, never what passes.
MAX_LINE: Final = 64 * 1024 * 1024

#: What the pumps hand the judge: (sender, a read), `None` at the sender's end of stream.
Chunks = queue.Queue[tuple[str, "bytes | None"]]

CLIENT: Final = "client"
AGENT: Final = "agent"


def configure(p: argparse.ArgumentParser) -> None:
    add_revision_argument(p, "whose rules judge v2 traffic")
    p.add_argument(
        "--protocol",
        choices=("auto", "1", "2"),
        default="auto",
        help="judge the traffic as ACP v1 or v2 (default auto: the agent's answer to "
        "initialize decides)",
    )
    p.add_argument("--trace", metavar="FILE", help="write the trace (JSON lines) to FILE")
    p.add_argument(
        "--report", metavar="FILE.html", help="write the HTML report of the trace at the end"
    )
    p.add_argument(
        "agent",
        nargs=argparse.REMAINDER,
        metavar="-- AGENT_COMMAND...",
        help="the agent to run, after `--`",
    )


class Finding:
    """One verdict of the live judge: a `Violation` of a v2 or a v1 rule, with its sender."""

    __slots__ = ("index", "level", "message", "rule", "sender", "warning")

    def __init__(
        self, rule: str, level: str, index: int, sender: str, message: str, warning: bool
    ) -> None:
        self.rule, self.level, self.index = rule, level, index
        self.sender, self.message, self.warning = sender, message, warning

    def line(self) -> str:
        """The stderr line: rule, level (and `warning`), who sent it, whom the rule binds."""
        rule = RULES.get(self.rule) or V1_RULES.get(self.rule)
        binds = rule.side if rule is not None else "both"
        label = severity_of(self.level, self.warning).label  # check's words (`_severity`)
        return (
            f"acp_core proxy: line {self.index}: {self.rule} ({label}; {self.sender} sent it, "
            f"the rule binds {binds}) {self.message}"
        )


class Judge:
    """The bytes of both sides in, trace entries and findings out (no I/O: the caller
    writes them). Single-owner; one per proxied connection. `keep`: hold every entry for
    the report at the end (`entries`); without it only each entry's sender is kept."""

    def __init__(self, revision: Revision, protocol: str = "auto", *, keep: bool = True) -> None:
        self.revision = revision
        self.protocol: int | None = None if protocol == "auto" else int(protocol)
        self.decoders = {side: NdjsonDecoder(max_line=MAX_LINE) for side in (CLIENT, AGENT)}
        self.keep = keep
        self.entries: list[dict[str, Any]] = []
        self.senders: list[str] = []  # who sent each entry (a finding names its sender)
        self.undecided: list[dict[str, Any]] = []  # entries before `auto` decides
        self.v2 = LiveCheck(revision)
        self.v1: V1State = new_v1_state()
        self.judged = 0  # entries judged so far (the next one's index)

    def feed(self, sender: str, data: bytes) -> tuple[list[dict[str, Any]], list[Finding]]:
        """`data` as `sender` sent it: the new trace entries and the findings they add."""
        self.decoders[sender], events = feed_ndjson(self.decoders[sender], data)
        entries = [_entry(sender, event) for event in events]
        return entries, self._judge(entries)

    def finish(self) -> list[Finding]:
        """What only the end shows; a v2 judge also reports the end's rules."""
        found = self._decide(force=True)
        if self.protocol != 1:
            found += [self._from_violation(v) for v in self.v2.finish()]
        return found

    # -- judging --------------------------------------------------------------------------

    def _judge(self, entries: Sequence[dict[str, Any]]) -> list[Finding]:
        if self.keep:
            self.entries.extend(entries)
        self.senders.extend(entry["from"] for entry in entries)
        if self.protocol is None:
            self.undecided.extend(entries)
            return self._decide(force=False)
        return [f for entry in entries for f in self._one(entry)]

    def _decide(self, *, force: bool) -> list[Finding]:
        if self.protocol is not None and not self.undecided:
            return []
        if self.protocol is None:
            answered = _negotiated(self.undecided)
            if answered is None and not force and len(self.undecided) < DETECT_LINES:
                return []
            if answered is None:
                answered = 1 if looks_like_v1(self.undecided) else 2
            self.protocol = answered
        waiting, self.undecided = self.undecided, []
        return [f for entry in waiting for f in self._one(entry)]

    def _one(self, entry: dict[str, Any]) -> list[Finding]:
        index = self.judged
        self.judged += 1
        if self.protocol == 1:
            self.v1, output = normalize_v1_step(
                self.v1, entry["message"], sender=entry["from"], index=index
            )
            return [self._from_violation(v) for v in v1_violations(output.diagnostics, index)]
        return [self._from_violation(v) for v in self.v2.feed(entry)]

    def _from_violation(self, v: Violation) -> Finding:
        sender = self.senders[v.index] if v.index < len(self.senders) else "?"
        return Finding(v.rule, v.level, v.index, sender, v.message, v.warning)


def _entry(sender: str, event: Parsed | FramingError) -> dict[str, Any]:
    if isinstance(event, Parsed):
        return {"from": sender, "message": event.value}
    # Not JSON: recorded as what it says, so `check` of the trace gives the same D1.
    return {"from": sender, "message": f"<{event.kind}: {event.detail}>"}


def _negotiated(entries: Sequence[dict[str, Any]]) -> int | None:
    """The `protocolVersion` of the agent's answer to the client's `initialize`, if seen."""
    asked = set()
    for entry in entries:
        message = entry["message"]
        if not isinstance(message, dict):
            continue
        if entry["from"] == CLIENT and message.get("method") == "initialize":
            asked.add(repr(message.get("id")))
        elif entry["from"] == AGENT and repr(message.get("id")) in asked:
            result = message.get("result")
            version = result.get("protocolVersion") if isinstance(result, dict) else None
            if type(version) is int:
                return 1 if version == 1 else 2
    return None


# -- the process and the pumps ---------------------------------------------------------------


def run(
    args: argparse.Namespace,
    client_in: int,
    client_out: int,
    err: TextIO,
    write_report: Callable[[str, list[dict[str, Any]], Revision], None],
) -> int:
    """Run the proxy: returns the agent's exit status (2: the agent could not start)."""
    command = list(args.agent)
    if command and command[0] == "--":
        command = command[1:]
    if not command:
        err.write("acp_core proxy: no agent command (python -m acp_core proxy -- AGENT ...)\n")
        return 2
    revision = chosen_revision(args)
    trace = None
    if args.trace is not None:
        try:
            # backslashreplace: a lone surrogate (valid JSON text, not UTF-8) can only sit in a
            # JSON string, where `\udXXX` is its own escape: the line reads back the same.
            trace = open(args.trace, "w", encoding="utf-8", errors="backslashreplace")  # noqa: SIM115
        except OSError as e:
            err.write(f"acp_core proxy: cannot write the trace {args.trace}: {e.strerror}\n")
            return 2
    try:
        agent = subprocess.Popen(command, stdin=subprocess.PIPE, stdout=subprocess.PIPE, bufsize=0)
    except OSError as e:
        err.write(f"acp_core proxy: cannot start {command[0]!r}: {e.strerror or e}\n")
        if trace is not None:
            trace.close()
        return 2
    assert agent.stdin is not None
    assert agent.stdout is not None
    chunks: Chunks = queue.Queue(maxsize=QUEUED_READS)
    overrun = threading.Event()
    to_agent, from_agent = agent.stdin, agent.stdout
    up = threading.Thread(
        target=_pump,
        args=(client_in, to_agent.fileno(), CLIENT, chunks, overrun, to_agent.close),
        daemon=True,  # a client that never closes stdin must not keep the proxy alive
    )
    down = threading.Thread(
        target=_pump,
        args=(from_agent.fileno(), client_out, AGENT, chunks, overrun, None),
        daemon=True,
    )
    up.start()
    down.start()
    judge = Judge(revision, args.protocol, keep=args.report is not None)
    judging = True
    previous = signal.signal(signal.SIGTERM, lambda *_: agent.terminate())
    try:
        while True:
            try:
                sender, data = chunks.get()
            except KeyboardInterrupt:
                agent.terminate()
                continue
            if data is None:
                if sender == AGENT:
                    break
                continue
            if judging and overrun.is_set():  # a pump found the queue full: behind for good
                err.write(
                    "acp_core proxy: judging stopped: the traffic came faster than it could "
                    f"be judged ({QUEUED_READS} reads behind); forwarding goes on\n"
                )
                judging = False
            if judging:
                judging = _judged(err, trace, functools.partial(judge.feed, sender, data))
        status = agent.wait()
        if judging:
            _judged(err, trace, lambda: ([], judge.finish()))
    finally:
        signal.signal(signal.SIGTERM, previous)
        if trace is not None:
            trace.close()
        from_agent.close()
    _close_report(args, judge, revision, err, write_report)
    return status if status >= 0 else 128 - status


def _pump(
    source: int,
    target: int,
    sender: str,
    chunks: Chunks,
    overrun: threading.Event,
    at_end: Callable[[], None] | None,
) -> None:
    """Hand each read of `source` to the judge and forward it to `target`."""
    forwarding, judged = True, True
    while True:
        try:
            data = os.read(source, READ_SIZE)
        except OSError:
            data = b""
        if not data:
            break
        if judged:
            try:
                chunks.put_nowait((sender, data))
            except queue.Full:
                judged = False
                overrun.set()  # the judge stops at its next read; this thread never waits
        if forwarding:
            forwarding = _write_all(target, data)
    if at_end is not None:
        with contextlib.suppress(OSError):
            at_end()
    chunks.put((sender, None))


def _write_all(target: int, data: bytes) -> bool:
    """Write all of `data`; False once the reader is gone (the judge still sees the bytes)."""
    view = memoryview(data)
    while view:
        try:
            view = view[os.write(target, view) :]
        except OSError:
            return False
    return True


def _judged(
    err: TextIO,
    trace: TextIO | None,
    judged: Callable[[], tuple[Sequence[dict[str, Any]], Sequence[Finding]]],
) -> bool:
    """Judge, record and tell; False when judging must stop (the bytes still flow)."""
    try:
        entries, found = judged()
    except Exception as e:  # a bug in acp-core must not cost the client a byte
        err.write(
            f"acp_core proxy: internal error: {type(e).__name__}: {e}; judging stopped, "
            "forwarding goes on (a bug in acp-core; please report it with the trace)\n"
        )
        return False
    if trace is not None and entries:
        try:
            for entry in entries:
                trace.write(json.dumps(entry, ensure_ascii=False) + "\n")
            trace.flush()  # a proxy killed mid-run leaves the trace up to its last read
        except (OSError, ValueError) as e:
            err.write(f"acp_core proxy: the trace stopped: {e}\n")
            trace.close()
            return False
    _tell(err, found)
    return True


def _tell(err: TextIO, found: Sequence[Finding]) -> None:
    for finding in found:
        err.write(finding.line() + "\n")
    if found:
        err.flush()


def _close_report(
    args: argparse.Namespace,
    judge: Judge,
    revision: Revision,
    err: TextIO,
    write_report: Callable[[str, list[dict[str, Any]], Revision], None],
) -> None:
    if args.report is None:
        return
    if judge.protocol == 1:
        # The report judges and folds v2 traffic; a v1 page would judge every line wrong.
        err.write(
            f"acp_core proxy: {args.report} not written: the traffic was ACP v1 and the "
            "report reads v2 (the trace and `python -m acp_core replay` read v1)\n"
        )
        return
    try:
        write_report(args.report, judge.entries, revision)
    except OSError as e:
        err.write(f"acp_core proxy: cannot write the report {args.report}: {e.strerror}\n")
        return
    err.write(f"acp_core proxy: report written to {args.report}\n")
