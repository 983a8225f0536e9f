"""A stdio client built on acp-core's client engine: starts an agent, prompts it, shows the view.

    python examples/stdio_client.py                      # talks to examples/stdio_agent.py
    python examples/stdio_client.py --trace out.jsonl    # also records the traffic
    python examples/stdio_client.py --view view.json     # also writes the view (docs/snapshot.md)
    python examples/stdio_client.py -- my-agent --flag   # any ACP v2 agent on stdio
    python examples/stdio_client.py --revision 2026-11 -- my-agent   # an agent on the later draft

Two prompts: the first is answered normally (the permission request is allowed); during the
second the client cancels as soon as the tool shows output. The client then prints what a UI
would show (`client.view`, rendered) and the trace checker's verdict on the recorded traffic.

The split: the engine (`acp_core.step`) decides every protocol message and keeps the state;
this file starts the process, frames lines, waits (with a timeout on every read), and decides
what the "user" does.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from ndjson import LINE_LIMIT, Channel

import acp_core as acp

AGENT = Path(__file__).with_name("stdio_agent.py")

#: The drafts `--revision` offers, by name.
REVISIONS = {r.name: r for r in (acp.V2_2026_08, acp.V2_2026_11)}

#: What the "user" answers to a permission request: an option id, or None to leave it open.
Chooser = Callable[[acp.RequestPermissionRequest], "str | None"]


def allow_once(request: acp.RequestPermissionRequest) -> str | None:
    """Pick the first `allow_once` option (a user who always clicks "Allow")."""
    return next((o.option_id for o in request.options if o.kind == "allow_once"), None)


class StdioClient:
    """The client side of one connection, driving one session."""

    def __init__(
        self,
        channel: Channel,
        *,
        timeout: float = 10.0,
        revision: acp.Revision = acp.DEFAULT_REVISION,
    ) -> None:
        self.channel = channel
        self.timeout = timeout
        self.revision = revision
        self.engine: acp.ClientEngine | None = None
        self.next_id = 0
        self.results: dict[Any, Any] = {}  # answers to the set-up requests

    # -- the wire --------------------------------------------------------------------------

    async def receive(self) -> Any:
        """The next message; every read has a timeout (a silent agent must not hang us)."""
        message = await asyncio.wait_for(self.channel.receive(), self.timeout)
        if message is None:
            raise ConnectionError("the agent closed its output")
        return message

    async def step(self, intent: object) -> None:
        """Step the client engine and write what it returns."""
        assert self.engine is not None
        self.engine, outbound = acp.step(self.engine, intent)
        for message in outbound:
            await self.channel.send(message)

    async def handle(self, message: Any, choose: Chooser) -> None:
        if isinstance(message, list):  # a batch: in array order (Q25)
            for item in message:
                await self.handle(item, choose)
            return
        if "method" not in message and message.get("id") in self.results:
            self.results[message["id"]] = message  # an answer to a set-up request
            return
        if self.engine is None:
            return  # no session yet: nothing to apply it to
        decoded = acp.decode_message(message)
        assert not isinstance(decoded, acp.Batch)  # batches were split above
        await self.step(acp.Received(decoded))
        for request_id, request in list(self.engine.pending.items()):
            option = choose(request)
            if option is not None and request_id in self.engine.pending:
                await self.step(acp.AnswerPermission(request_id, option))

    # -- set-up (outside the session engine) -----------------------------------------------

    async def request(self, method: str, params: Any) -> Any:
        self.next_id += 1
        request_id = f"setup-{self.next_id}"
        self.results[request_id] = None
        await self.channel.send(
            {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
        )
        while self.results[request_id] is None:
            await self.handle(await self.receive(), allow_once)
        answer = self.results.pop(request_id)
        if "error" in answer:
            raise RuntimeError(f"{method} failed: {answer['error']}")
        return answer["result"]

    async def start(self, cwd: str) -> str:
        """`initialize` and `session/new`; returns the session id."""
        info = {"name": "acp-core-stdio-client", "version": acp.__version__}
        await self.request("initialize", {"protocolVersion": 2, "info": info})
        result = await self.request("session/new", {"cwd": cwd})
        session_id: str = result["sessionId"]
        self.engine = acp.new_client(session_id, revision=self.revision)
        return session_id

    # -- a turn ----------------------------------------------------------------------------

    async def prompt(
        self,
        text: str,
        *,
        choose: Chooser = allow_once,
        cancel_when: Callable[[acp.SessionState], bool] | None = None,
    ) -> str | None:
        """Send a prompt and wait until the turn it started is over; returns the stop reason.

        `cancel_when(view)` is checked after every message; the first time it holds, the
        client sends `session/cancel`.
        """
        assert self.engine is not None
        await self.step(acp.SendPrompt((acp.TextContent(text),)))
        request_id = self.engine.prompts[-1].request_id
        started = False
        while True:
            await self.handle(await self.receive(), choose)
            sent = next(p for p in self.engine.prompts if p.request_id == request_id)
            if sent.state == "rejected":
                return None
            foreground = self.engine.view.foreground
            # The turn starts once our user message is reported and the agent is busy;
            # it ends at the next idle (any stop reason ends a wait for a cancel, Q20).
            started = started or (sent.message_id is not None and foreground.state != "idle")
            if started and foreground.state == "idle":
                return foreground.stop_reason
            if cancel_when is not None and started and cancel_when(self.engine.view):
                cancel_when = None
                await self.step(acp.SendCancel())


def tool_shows_output(view: acp.SessionState) -> bool:
    """True once a running tool call has shown some content."""
    return any(c.status == "in_progress" and len(c.content) for c in view.tool_calls.values())


async def converse(
    command: list[str], *, timeout: float = 10.0, revision: acp.Revision = acp.DEFAULT_REVISION
) -> tuple[Any, list[Any]]:
    """Start the agent, run the two-prompt conversation, stop the agent.

    Returns the client engine at the end and the recorded trace.
    """
    process = await asyncio.create_subprocess_exec(
        *command,
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        limit=LINE_LIMIT,
    )
    assert process.stdin is not None
    assert process.stdout is not None
    trace: list[Any] = []
    channel = Channel(process.stdout, process.stdin, me="client", peer="agent", trace=trace)
    client = StdioClient(channel, timeout=timeout, revision=revision)
    try:
        await client.start(str(Path.cwd()))
        await client.prompt("Hello, agent!")
        # The echo tool takes one step per word: this one runs long enough to be cancelled.
        await client.prompt(
            "Count slowly to ten: one two three four five six seven eight nine ten",
            cancel_when=tool_shows_output,
        )
    finally:
        process.stdin.close()  # end of input: the agent exits
        try:
            await asyncio.wait_for(process.wait(), timeout)
        except TimeoutError:
            process.kill()
            await process.wait()
    return client.engine, trace


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trace", type=Path, help="write the recorded traffic here (JSON lines)")
    parser.add_argument("--view", type=Path, help="write the final view here (docs/snapshot.md)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait per read")
    parser.add_argument(
        "--revision",
        choices=sorted(REVISIONS),
        default=acp.DEFAULT_REVISION.name,
        help="the v2 draft to speak; the default agent is started with the same flag",
    )
    parser.add_argument("agent", nargs="*", help="agent command (default: the example agent)")
    args = parser.parse_args()
    revision = REVISIONS[args.revision]
    command = args.agent or [sys.executable, str(AGENT), "--revision", revision.name]
    engine, trace = asyncio.run(converse(command, timeout=args.timeout, revision=revision))
    if args.trace is not None:
        args.trace.write_text("".join(json.dumps(entry) + "\n" for entry in trace))
    if args.view is not None:
        args.view.write_text(json.dumps(acp.snapshot(engine.view), indent=2) + "\n")
    print(acp.render_session(engine.view))
    # A recording judges the side that made it: the client saw its own messages in the order
    # it sent them, but the agent's in the order it read them (a fast answer can overtake a
    # `requires_action` already in the pipe). Agent rules: record at the agent (--trace).
    violations = [
        v for v in acp.check_trace(trace, revision=revision) if acp.RULES[v.rule].side != "agent"
    ]
    print(
        f"\nChecker, client and wire rules: {len(trace)} messages, {len(violations)} violation(s)"
    )
    for v in violations:
        print(f"  line {v.index}: [{v.rule} {v.level}] {v.message}")
    return 1 if violations else 0


if __name__ == "__main__":
    sys.exit(main())
