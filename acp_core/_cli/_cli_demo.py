"""`python -m acp_core demo`: a scripted conversation between the two engines, in-process.

Owns: the demo script (`demo_conversation`, pure and deterministic), the in-memory wire that
joins an agent engine to a client engine, and the `demo` subcommand (arguments, printing).
Must not know: how engines decide anything (it only states intents), real transports.

The conversation has two prompts. The first streams a thought, agent text, a plan, a tool
call that needs permission (granted), tool content chunks, terminal output, a usage report,
and ends with `end_turn`. The second is cancelled by the client mid-tool and ends with
`cancelled`. Every message crosses the wire as JSON text, so what is recorded is exactly
what a transport would carry; `demo --json` prints that recording in the trace format
(docs/trace-format.md), and it is the trace shipped as `acp_core/data/example-trace.jsonl`.
"""

from __future__ import annotations

import argparse
import json
from collections import deque
from typing import Any, Final, TextIO

import attrs

from acp_core._engines._agent import AgentEngine, agent_step, new_agent, permission_decision
from acp_core._engines._client import ClientEngine, client_step, new_client
from acp_core._engines._intents import (
    AcceptPrompt,
    AnswerPermission,
    EndTurn,
    FinishToolCall,
    PatchSessionInfo,
    PatchTerminal,
    Received,
    ReportPlan,
    ReportUsage,
    RequestPermission,
    SendAgentText,
    SendCancel,
    SendPrompt,
    SendTerminalOutput,
    SendThought,
    SendToolContent,
    StartToolCall,
)
from acp_core._engines._step import step
from acp_core._wire._codec import decode_message
from acp_core._wire._content import TerminalRef, TextContent, ToolContent
from acp_core._wire._json import freeze_json
from acp_core._wire._jsonrpc import Batch, PermissionOption
from acp_core._wire._revision import DEFAULT_REVISION, Revision
from acp_core._wire._updates import Cost, PlanEntry, TerminalExitStatus

from ._cli_revision import add_revision_argument, chosen_revision
from ._render import render_session

__all__ = ["HELP", "Demo", "configure", "demo_conversation", "run", "trace_lines"]

SESSION_ID: Final = "sess_demo"
CWD: Final = "/home/user/project"

# The session set-up happens before the engines take over (they start with an established
# session): it is recorded so the trace reads like a whole conversation.
_HANDSHAKE: Final = (
    (
        "client",
        {
            "jsonrpc": "2.0",
            "id": "init",
            "method": "initialize",
            "params": {"protocolVersion": 2, "info": {"name": "demo-client", "version": "0.1.0"}},
        },
    ),
    (
        "agent",
        {
            "jsonrpc": "2.0",
            "id": "init",
            "result": {"protocolVersion": 2, "info": {"name": "demo-agent", "version": "0.1.0"}},
        },
    ),
    (
        "client",
        {"jsonrpc": "2.0", "id": "new", "method": "session/new", "params": {"cwd": CWD}},
    ),
    ("agent", {"jsonrpc": "2.0", "id": "new", "result": {"sessionId": SESSION_ID}}),
)

_OPTIONS: Final = (
    PermissionOption("allow", "Allow once", "allow_once"),
    PermissionOption("reject", "Reject", "reject_once"),
)


@attrs.frozen
class Demo:
    """A finished demo conversation.

    Attributes:
        entries: the recorded wire traffic, `{"from": ..., "message": ...}` per message.
        agent: the agent engine at the end.
        client: the client engine at the end (`client.view` is what a UI shows).
    """

    entries: tuple[dict[str, Any], ...]
    agent: AgentEngine
    client: ClientEngine


class _Wire:
    """Two engines joined by an in-memory wire (local to one `demo_conversation` call).

    Messages are delivered first in, first out, each as JSON text, like a real transport.
    """

    def __init__(self, revision: Revision) -> None:
        self.revision = revision
        self.agent = new_agent(SESSION_ID, revision=revision)
        self.client = new_client(SESSION_ID, revision=revision)
        self.entries: list[dict[str, Any]] = [
            {"from": side, "message": message} for side, message in _HANDSHAKE
        ]
        self._queue: deque[tuple[str, str]] = deque()

    def _relay(self, sender: str, message: dict[str, Any]) -> None:
        text = json.dumps(message)  # the bytes a transport would carry
        self.entries.append({"from": sender, "message": json.loads(text)})
        self._queue.append((sender, text))

    def _send(self, sender: str, outbound: tuple[dict[str, Any], ...]) -> None:
        for message in outbound:
            self._relay(sender, message)
        while self._queue:
            source, text = self._queue.popleft()
            decoded = decode_message(json.loads(text), revision=self.revision)
            assert not isinstance(decoded, Batch)  # engines never emit batches (Q25)
            received = Received(decoded)
            if source == "agent":
                self.client, reply = step(self.client, received)
                for message in reply:
                    self._relay("client", message)
            else:
                self.agent, reply = step(self.agent, received)
                for message in reply:
                    self._relay("agent", message)

    def agent_does(self, *intents: object) -> None:
        for intent in intents:
            self.agent, outbound = agent_step(self.agent, intent)
            self._send("agent", outbound)

    def client_does(self, *intents: object) -> None:
        for intent in intents:
            self.client, outbound = client_step(self.client, intent)
            self._send("client", outbound)


def demo_conversation(revision: Revision = DEFAULT_REVISION) -> Demo:
    """Run the scripted two-prompt conversation at `revision` (pure: the same result every
    time); both engines speak it and the wire decodes by it."""
    wire = _Wire(revision)

    # -- prompt 1: a full turn with a permission request, ending with end_turn -------------
    wire.client_does(
        SendPrompt((TextContent("What is in this project? Run `ls` to find out."),), 1)
    )
    wire.agent_does(
        AcceptPrompt(1),
        PatchSessionInfo(title="Exploring the project"),
        SendThought("The user wants a listing. "),
        SendThought("Running `ls` needs their permission."),
        SendAgentText("Let me look at the files. "),
        SendAgentText("I'll list the directory first."),
        ReportPlan(
            (
                PlanEntry("List the project directory", "high", "in_progress"),
                PlanEntry("Summarise what is there", "medium", "pending"),
            )
        ),
        StartToolCall(
            "Run ls", "call-ls", kind="execute", raw_input=freeze_json({"command": "ls"})
        ),
        RequestPermission(f"Run `ls` in {CWD}?", _OPTIONS, "call-ls"),
    )
    (request_id,) = wire.client.pending.keys()
    wire.client_does(AnswerPermission(request_id, "allow"))
    decision = permission_decision(wire.agent, request_id)
    # Granted: the engine has already marked the tool call in_progress (R15).
    assert decision is not None
    assert decision.approved
    wire.agent_does(
        PatchTerminal("term-1", command="ls", cwd=CWD),
        SendToolContent("call-ls", TerminalRef("term-1")),
        SendTerminalOutput("term-1", b"README.md\nacp_core\n"),
        SendTerminalOutput("term-1", b"docs\nexamples\n"),
        PatchTerminal("term-1", exit_status=TerminalExitStatus(exit_code=0)),
        SendToolContent("call-ls", ToolContent(TextContent("4 entries"))),
        FinishToolCall("call-ls"),
        ReportPlan(
            (
                PlanEntry("List the project directory", "high", "completed"),
                PlanEntry("Summarise what is there", "medium", "completed"),
            )
        ),
        SendAgentText("The project has a README, the `acp_core` package, docs and examples."),
        ReportUsage(5_210, 200_000, Cost(0.0042, "USD")),
        EndTurn("end_turn"),
    )

    # -- prompt 2: cancelled by the client while a tool runs -------------------------------
    wire.client_does(SendPrompt((TextContent("Now search every file for TODO."),), 2))
    wire.agent_does(
        AcceptPrompt(2),
        SendAgentText("Searching for TODO comments."),
        StartToolCall("Search for TODO", "call-grep", kind="search", status="in_progress"),
        SendToolContent("call-grep", ToolContent(TextContent("acp_core/_v1.py: 0 matches"))),
    )
    # The client cancels: its view shows the running tool cancelled at once (C14).
    wire.client_does(SendCancel())
    wire.agent_does(
        FinishToolCall("call-grep", status="cancelled"),
        ReportUsage(6_020, 200_000, Cost(0.0051, "USD")),
        # Any stop reason asked for after a cancel goes out as `cancelled` (R21).
        EndTurn("end_turn"),
    )
    return Demo(tuple(wire.entries), wire.agent, wire.client)


# -- the subcommand ------------------------------------------------------------------------


#: One line for `python -m acp_core --help`.
HELP: Final = (
    "run a scripted two-prompt conversation between the agent engine and the client engine "
    "in-process; print the client's view and the checker's verdict (--json: the wire trace)"
)


def configure(parser: argparse.ArgumentParser) -> None:
    """Add the arguments of `demo`."""
    parser.add_argument(
        "--json",
        action="store_true",
        help="print the recorded wire traffic as a trace (JSON lines) instead",
    )
    add_revision_argument(parser, "both engines speak and the checker judges by")


def trace_lines(entries: tuple[dict[str, Any], ...]) -> str:
    """Entries as trace-format text: one compact JSON object per line."""
    return "".join(json.dumps(entry, separators=(",", ":")) + "\n" for entry in entries)


def run(args: argparse.Namespace, out: TextIO, err: TextIO) -> int:
    """Run `demo`: 0 when the checker finds nothing, 1 otherwise (writes to the given streams;
    the command line passes stdout and stderr)."""
    from acp_core._rules._check import check_trace

    revision = chosen_revision(args)
    demo = demo_conversation(revision)
    violations = check_trace(demo.entries, revision=revision)
    if args.json:
        out.write(trace_lines(demo.entries))
    else:
        prompts = sum(1 for e in demo.entries if e["message"].get("method") == "session/prompt")
        out.write(
            f"A scripted conversation: {prompts} prompts, {len(demo.entries)} messages "
            "between the agent engine and the client engine.\n"
            "What the client shows (client.view):\n\n"
        )
        out.write(render_session(demo.client.view) + "\n\n")
        if violations:
            out.write(f"Checker: {len(violations)} violation(s):\n")
            for v in violations:
                out.write(f"  line index {v.index}: {v.rule} ({v.level}) {v.message}\n")
        else:
            out.write(f"Checker: the {len(demo.entries)} messages break no rule (docs/rules.md).\n")
    if violations and args.json:
        err.write(f"demo: the checker found {len(violations)} violation(s)\n")
    return 1 if violations else 0
