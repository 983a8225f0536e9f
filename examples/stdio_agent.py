"""An echo agent over stdio, built on acp-core's agent engine.

Run it under any ACP v2 client that speaks newline-delimited JSON-RPC on stdio, or let
`examples/stdio_client.py` start it. For every prompt it streams a thought and an echo of the
prompt, starts a fake "echo tool", asks permission to run it, then (if allowed) lets the tool
echo one word of the prompt per step, a little apart, until it is done or the client cancels.

The split: the engine (`acp_core.step`) decides every protocol message; this file only reads
lines, routes them to the engine of their session, waits, and writes what the engine returns.
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from ndjson import Channel, FramingError, TraceFile, parse_error, stdio_channel

import acp_core as acp

#: The drafts `--revision` offers, by name.
REVISIONS = {r.name: r for r in (acp.V2_2026_08, acp.V2_2026_11)}

OPTIONS = (
    acp.PermissionOption("allow", "Allow", "allow_once"),
    acp.PermissionOption("reject", "Reject", "reject_once"),
)


class EchoAgent:
    """One connection: the engines of its sessions and the turn each is running."""

    def __init__(
        self, channel: Channel, *, delay: float, revision: acp.Revision = acp.DEFAULT_REVISION
    ) -> None:
        self.channel = channel
        self.delay = delay
        self.revision = revision
        self.engines: dict[str, acp.AgentEngine] = {}
        self.workers: dict[str, asyncio.Task[None]] = {}
        self.changed = asyncio.Condition()  # notified after every received message
        self.writing = asyncio.Lock()
        self.counter = 0

    # -- the engine, and the wire ----------------------------------------------------------

    async def do(self, session_id: str, intent: object, *, unless: Any = None) -> None:
        """Step the session's engine and write what it returns (skipped if `unless(engine)`).

        The lock keeps the wire in the engine's order: the receive loop and a turn both
        step engines, and a write may yield to the other half-way through its messages.
        `unless` is judged under the lock, against the engine the step would apply to.
        """
        async with self.writing:
            if unless is not None and unless(self.engines[session_id]):
                return
            self.engines[session_id], outbound = acp.step(self.engines[session_id], intent)
            for message in outbound:
                await self.channel.send(message)

    async def wait_until(self, session_id: str, ready: Any) -> Any:
        """Wait until `ready(engine)` returns something other than None or False."""
        async with self.changed:
            await self.changed.wait_for(lambda: ready(self.engines[session_id]))
        return ready(self.engines[session_id])

    def cancelled(self, session_id: str) -> bool:
        turn = self.engines[session_id].turn
        return turn is not None and turn.cancel_requested

    # -- receiving -------------------------------------------------------------------------

    async def serve(self) -> None:
        while True:
            try:
                message = await self.channel.receive()
            except FramingError:
                await self.send(parse_error())
                continue
            if message is None:
                return  # the client closed stdin
            for item in message if isinstance(message, list) else [message]:
                await self.handle(item)
            async with self.changed:
                self.changed.notify_all()

    async def handle(self, message: Any) -> None:
        method = message.get("method") if isinstance(message, dict) else None
        # Connection set-up is outside the session engines: answer it here.
        if method == "initialize":
            info = {"name": "acp-core-echo-agent", "version": acp.__version__}
            await self.reply(message, {"protocolVersion": 2, "info": info})
            return
        if method == "session/new":
            self.counter += 1
            new_id = f"sess_{self.counter}"
            self.engines[new_id] = acp.new_agent(new_id, revision=self.revision)
            await self.reply(message, {"sessionId": new_id})
            return
        try:
            decoded = acp.decode_message(message)
        except acp.DecodeError as e:
            await self.error(message, e.code, str(e))
            return
        assert not isinstance(decoded, acp.Batch)  # batches were split by `serve`
        session_id = self.route(decoded)
        if session_id is None:
            if isinstance(decoded, acp.Request):
                await self.error(message, -32601, "Method not found")
            return
        try:
            await self.do(session_id, acp.Received(decoded))
        except acp.RemoteProtocolError as e:
            await self.error(message, e.code, str(e))
            return
        if isinstance(decoded, acp.PromptRequest):
            self.start_turns(session_id)

    def route(self, message: Any) -> str | None:
        """The session a message belongs to (responses: the session that asked)."""
        session_id = getattr(message, "session_id", None)
        if session_id is not None:
            return session_id if session_id in self.engines else None
        if isinstance(message, (acp.Response, acp.ErrorResponse)):
            for session_id, engine in self.engines.items():
                if message.id in engine.pending:
                    return session_id
        return None

    async def send(self, message: Any) -> None:
        async with self.writing:
            await self.channel.send(message)

    async def reply(self, request: Any, result: Any) -> None:
        await self.send({"jsonrpc": "2.0", "id": request.get("id"), "result": result})

    async def error(self, message: Any, code: int, text: str) -> None:
        if isinstance(message, dict) and "method" in message and "id" in message:
            error = {"code": code, "message": text}
            await self.send({"jsonrpc": "2.0", "id": message["id"], "error": error})
        else:
            print(f"echo agent: ignored: {text}", file=sys.stderr)

    # -- turns -----------------------------------------------------------------------------

    def start_turns(self, session_id: str) -> None:
        worker = self.workers.get(session_id)
        if worker is None or worker.done():
            self.workers[session_id] = asyncio.create_task(self.run_turns(session_id))

    async def run_turns(self, session_id: str) -> None:
        # One turn at a time (Q4): prompts that arrive meanwhile wait in `engine.prompts`.
        while self.engines[session_id].prompts:
            prompt = self.engines[session_id].prompts[0]
            await self.do(session_id, acp.AcceptPrompt(prompt.id))
            try:
                await self.echo_turn(session_id, prompt)
            except acp.LocalProtocolError as e:
                print(f"echo agent: {e}", file=sys.stderr)
                await self.do(session_id, acp.ReportAbort(str(e)))

    async def echo_turn(self, session_id: str, prompt: acp.PromptRequest) -> None:
        text = " ".join(b.text for b in prompt.prompt if isinstance(b, acp.TextContent))
        await self.do(session_id, acp.SendThought(f"Echoing {len(text)} characters."))
        await self.do(session_id, acp.SendAgentText("You said: "))
        await self.do(session_id, acp.SendAgentText(text))

        self.counter += 1
        call = f"echo-{self.counter}"
        await self.do(
            session_id,
            acp.StartToolCall("Echo tool", call, kind="other", raw_input=acp.freeze_json(text)),
        )
        if self.cancelled(session_id):  # cancelled already: no point asking
            await self.do(session_id, acp.FinishToolCall(call, "cancelled"))
            await self.do(session_id, acp.EndTurn())  # goes out as `cancelled` (R21)
            return
        request_id = f"perm-{self.counter}"
        await self.do(
            session_id,
            acp.RequestPermission("Run the echo tool?", OPTIONS, call, request_id=request_id),
        )
        # Wait for the answer or a cancel, whichever comes first. On a cancel the request is
        # withdrawn (`$/cancel_request`) rather than waited for: a client may hold it open
        # until told, and the turn must end promptly either way. The engine keeps the
        # request pending, so the client's late answer is still accepted (Q17).
        await self.wait_until(
            session_id,
            lambda engine: request_id not in engine.pending or self.cancelled(session_id),
        )
        decision = acp.permission_decision(self.engines[session_id], request_id)
        if decision is None:  # still open, so the turn was cancelled: withdraw it
            await self.do(
                session_id,
                acp.CancelPermission(request_id),
                unless=lambda engine: request_id not in engine.pending,  # answered meanwhile
            )
            await self.do(session_id, acp.FinishToolCall(call, "cancelled"))
            await self.do(session_id, acp.EndTurn())  # goes out as `cancelled` (R21)
            return
        if not decision.approved:
            await self.do(session_id, acp.FinishToolCall(call, "cancelled"))
            await self.do(session_id, acp.SendAgentText("The tool did not run."))
            await self.do(session_id, acp.EndTurn())
            return

        words = text.split()
        for word in words:
            await asyncio.sleep(self.delay)  # the tool at work; the receive loop runs meanwhile
            if self.cancelled(session_id):
                await self.do(session_id, acp.FinishToolCall(call, "cancelled"))
                await self.do(session_id, acp.EndTurn())  # goes out as `cancelled` (R21)
                return
            chunk = acp.ToolContent(acp.TextContent(word + "\n"))
            await self.do(session_id, acp.SendToolContent(call, chunk))
        await self.do(session_id, acp.FinishToolCall(call))
        await self.do(session_id, acp.SendAgentText(f"The tool echoed {len(words)} words."))
        await self.do(session_id, acp.EndTurn())


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--delay", type=float, default=0.2, help="seconds per tool step")
    parser.add_argument("--trace", help="record the traffic as seen by the agent here (JSON lines)")
    parser.add_argument(
        "--revision",
        choices=sorted(REVISIONS),
        default=acp.DEFAULT_REVISION.name,
        help="the v2 draft to speak (2026-11: prompt results carry the user message's id)",
    )
    args = parser.parse_args()
    trace = None if args.trace is None else TraceFile(args.trace)
    channel = await stdio_channel(me="agent", peer="client", trace=trace)
    agent = EchoAgent(channel, delay=args.delay, revision=REVISIONS[args.revision])
    try:
        await agent.serve()
    finally:
        for worker in agent.workers.values():
            worker.cancel()
        if trace is not None:
            trace.close()


if __name__ == "__main__":
    asyncio.run(main())
