"""An echo agent over stdio, built on acp-core's agent connection.

Run it under any ACP v2 client that speaks newline-delimited JSON-RPC on stdio, or let
`examples/stdio_client.py` start it. For every prompt it streams a thought and an echo of the
prompt, starts a fake "echo tool", asks permission to run it, then (if allowed) lets the tool
echo one word of the prompt per step, a little apart, until it is done or the client cancels.

The split: the connection (`acp_core.connection_step`) decides every protocol message, set-up
and errors included; `acp_core.aio.serve_stdio` reads the bytes, feeds them in and writes
the bytes that come out (as `asgi_app` does over HTTP); this file waits and runs the echo
turns. `--protocol 1|auto` serves v1 clients too (the official
Python SDK 0.12.1, Zed): the same turns, projected to v1 on the wire. With `--journal FILE`
every session is kept in SQLite (`journal.py`: `acp_core.aio.SqliteStore`), so a restarted
agent serves `session/resume` with the whole history. A step whose records cannot be
written is refused (not kept, nothing sent): a client request is answered with an error, a
turn ends with `error`, and the session goes on once the store works again.

`--listen HOST:PORT` serves the same agent remotely instead, at `http://HOST:PORT/acp`
(Streamable HTTP and the WebSocket upgrade: `acp_core.aio.asgi_app` under uvicorn), one
connection per client; the line `listening on URL` on stderr says where (port 0: any free
one). `--token T` beside it makes every request show `Authorization: Bearer T` (401 without
a token, 403 with another; `acp_core.aio.bearer_token`).
"""

from __future__ import annotations

import argparse
import asyncio
import sys
from typing import Any

from journal import Journal, SqliteStore
from ndjson import Channel, FramingError, TraceFile
from revision_flag import add_revision_flag, chosen_revision

import acp_core as acp
from acp_core import aio, engines
from acp_core import connection as c
from acp_core import intents as i
from acp_core import values as v
from acp_core.aio import SessionDamaged, StoreError

INFO = c.Implementation("acp-core-echo-agent", acp.__version__)

#: `--protocol`: which versions the connection serves (`new_agent_connection(protocols=...)`);
#: a v1 client is served through the v2 -> v1 projection (docs/v1.md, "Serving a v1 client").
PROTOCOLS = {"2": (2,), "1": (1,), "auto": (2, 1)}

OPTIONS = (
    v.PermissionOption("allow", "Allow", "allow_once"),
    v.PermissionOption("reject", "Reject", "reject_once"),
)


class EchoAgent:
    """One connection (`self.conn`, a value) and the turn each of its sessions is running."""

    def __init__(
        self,
        channel: Channel,
        *,
        delay: float,
        revision: acp.Revision = acp.DEFAULT_REVISION,
        journal: SqliteStore | None = None,
        protocols: tuple[int, ...] = (2,),
    ) -> None:
        self.channel = channel
        self.delay = delay
        self.revision = revision
        self.journal = journal
        self.conn = acp.new_agent_connection(INFO, revision=revision, protocols=protocols)
        self.workers: dict[str, asyncio.Task[None]] = {}
        self.changed = asyncio.Condition()  # notified after every received message
        # The client's answers to our permission requests (`PermissionAnswered`), by id,
        # until the turn that asked takes them.
        self.decisions: dict[int | str | None, engines.PermissionDecision] = {}
        self.writing = asyncio.Lock()
        self.counter = 0
        if journal is not None:
            self.restore(journal)

    # -- the connection, and the wire --------------------------------------------------------

    async def feed(self, input: object) -> c.ConnectionStep:
        """Step the connection and write what it returns.

        The lock keeps the wire in the connection's order: the receive loop and the turns
        both step it, and a write may yield to the other half-way through. The journal is
        written before the step is kept and before its bytes, so whatever a client has seen
        is on disk. If the journal write fails the step is refused: the connection stays as
        it was, nothing is sent, and `StoreError` is raised (`serve` answers the client).
        """
        async with self.writing:
            step = acp.connection_step(self.conn, input)
            conn, outbound, events = step
            self.record(conn, outbound, events)  # may raise StoreError: nothing kept
            self.conn = conn
            if outbound:
                await self.write(outbound)
        for event in events:
            await self.on_event(event)
        return step

    async def write(self, outbound: tuple[dict[str, Any], ...]) -> None:
        write = getattr(self.channel, "write", None)
        if write is not None:  # a byte channel: one write for the whole step
            await write(b"".join(map(acp.encode_ndjson, outbound)), outbound)
        else:  # a message channel (an SDK connection, examples/sdk_agent.py)
            for message in outbound:
                await self.channel.send(message)

    async def do(
        self, session_id: str, intent: object, *, unless: Any = None
    ) -> c.ConnectionStep | None:
        """Step one session's engine (skipped if `unless()`, judged under the lock): the step,
        whose `ids` name the request id the connection chose for a request."""
        if unless is not None:
            async with self.writing:
                if unless():
                    return None
        return await self.feed(c.SessionIntent(session_id, intent))

    def engine(self, session_id: str) -> acp.AgentEngine | None:
        session = self.conn.sessions.get(session_id)
        return None if session is None else session.engine

    async def wait_until(self, session_id: str, ready: Any) -> Any:
        """Wait until `ready(engine)` returns something other than None or False."""
        async with self.changed:
            await self.changed.wait_for(lambda: ready(self.conn.engine(session_id)))
        return ready(self.conn.engine(session_id))

    def cancelled(self, session_id: str) -> bool:
        engine = self.engine(session_id)
        return engine is not None and engine.cancel_requested

    # -- the journal ---------------------------------------------------------------------------

    def record(
        self,
        conn: c.AgentConnection,
        outbound: tuple[dict[str, Any], ...],
        events: tuple[object, ...],
    ) -> None:
        if self.journal is None:
            return
        replayed = {e.session_id for e in events if isinstance(e, c.SessionOpened) and e.resumed}
        for event in events:
            if isinstance(event, c.SessionOpened) and not event.resumed:
                cwd = conn.sessions[event.session_id].cwd
                self.journal.open(event.session_id, cwd, revision=self.revision)
        updates: dict[str, list[dict[str, Any]]] = {}
        for message in outbound:
            if message.get("method") == "session/update":
                session_id = message["params"]["sessionId"]
                if session_id not in replayed:  # a replay repeats history: nothing new
                    updates.setdefault(session_id, []).append(message["params"]["update"])
        for session_id, items in updates.items():
            self.journal.append(session_id, items, conn.engine(session_id).session)

    def restore(self, journal: SqliteStore) -> None:
        """Open every journaled session, detached until a client resumes it. A session
        caught mid-turn by the crash ends that turn now: its unfinished tools failed, the
        turn aborted (`error`), recorded in the journal as a snapshot. A damaged session
        is left closed (said on stderr); the others open."""
        for session_id, cwd in journal.sessions():
            try:
                state = journal.load(session_id, self.revision)
            except SessionDamaged as e:
                print(f"echo agent: not restored: {e}", file=sys.stderr)
                continue
            self.conn = acp.connection_step(
                self.conn, c.OpenSession(session_id, state, cwd)
            ).connection
            if not v.is_active(state):
                continue
            for call_id, call in state.tool_calls.items():
                if not call.finished:
                    self.step_detached(session_id, i.FinishToolCall(call_id, "failed"))
            self.step_detached(session_id, i.ReportAbort("the agent restarted"))
            journal.save_snapshot(session_id, self.conn.engine(session_id).session)

    def step_detached(self, session_id: str, intent: object) -> None:
        self.conn = acp.connection_step(self.conn, c.SessionIntent(session_id, intent)).connection

    # -- receiving -------------------------------------------------------------------------------

    async def serve(self) -> None:
        while True:
            message: object = None
            try:
                message = await self.channel.receive()
            except FramingError as e:
                event: object = e.event
            except EOFError:
                return  # the client closed stdin
            else:
                event = c.Parsed(message)
            try:
                await self.feed(event)
            except StoreError as e:
                await self.refuse(message, e)
            async with self.changed:
                self.changed.notify_all()

    async def refuse(self, message: object, error: StoreError) -> None:
        """The journal could not record what `message` changed, so the connection did not
        take it: a request is answered with an internal error (the connection has nothing
        pending under its id), a notification is dropped; both said on stderr."""
        print(f"echo agent: refused, the journal failed: {error}", file=sys.stderr)
        if isinstance(message, dict) and "method" in message and "id" in message:
            answer = {
                "jsonrpc": "2.0",
                "id": message["id"],
                "error": {"code": -32603, "message": f"the session store failed: {error}"},
            }
            async with self.writing:
                await self.write((answer,))

    async def on_event(self, event: object) -> None:
        if isinstance(event, c.PromptReceived):
            self.start_turns(event.session_id)
        elif isinstance(event, c.ListSessions):
            listed = [
                {"sessionId": sid, "cwd": s.cwd}
                for sid, s in self.conn.sessions.items()
                if event.cwd is None or s.cwd == event.cwd
            ]
            await self.feed(c.AnswerRequest(event.request_id, v.freeze_json({"sessions": listed})))
        elif isinstance(event, c.DeleteSession):
            try:
                if self.journal is not None:
                    self.journal.delete(event.session_id)
            except StoreError as e:
                await self.feed(c.FailRequest(event.request_id, -32603, str(e)))
            else:
                await self.feed(c.AnswerRequest(event.request_id, v.EMPTY_OBJECT))
        elif isinstance(event, (c.ForkSession, c.ExtensionRequest)):
            await self.feed(c.FailRequest(event.request_id, -32601, "Method not found"))
        elif isinstance(event, c.PermissionAnswered):
            self.decisions[event.request_id] = event.decision
        elif isinstance(event, c.Finding):
            print(f"echo agent: ignored: [{event.rule}] {event.detail}", file=sys.stderr)

    # -- turns -------------------------------------------------------------------------------------

    def start_turns(self, session_id: str) -> None:
        worker = self.workers.get(session_id)
        if worker is None or worker.done():
            self.workers[session_id] = asyncio.create_task(self.run_turns(session_id))

    async def run_turns(self, session_id: str) -> None:
        # One turn at a time (Q4): prompts that arrive meanwhile wait in `engine.prompts`.
        while (engine := self.engine(session_id)) is not None and engine.prompts:
            prompt = engine.prompts[0]
            try:
                await self.do(session_id, i.AcceptPrompt(prompt.id))
            except StoreError as e:  # the user message cannot be recorded: refuse the prompt
                print(f"echo agent: prompt refused: {e}", file=sys.stderr)
                await self.do(session_id, i.RejectPrompt(prompt.id, f"not recorded: {e}"))
                continue
            try:
                await self.echo_turn(session_id, prompt)
            except (acp.LocalProtocolError, StoreError) as e:
                print(f"echo agent: {e}", file=sys.stderr)
                await self.abort(session_id, str(e))

    async def abort(self, session_id: str, detail: str) -> None:
        """End the session's turn with `error` (its open tool calls failed). A step the
        journal cannot record is refused, so this waits for the journal to work again."""
        while True:
            try:
                engine = self.engine(session_id)
                if engine is None or not v.is_active(engine.session):
                    return
                for call_id, call in engine.session.tool_calls.items():
                    if not call.finished:
                        await self.do(session_id, i.FinishToolCall(call_id, "failed"))
                await self.do(session_id, i.ReportAbort(detail))
                return
            except StoreError as e:
                print(f"echo agent: waiting for the journal: {e}", file=sys.stderr)
                await asyncio.sleep(max(self.delay, 0.05))

    async def echo_turn(self, session_id: str, prompt: v.PromptRequest) -> None:
        text = " ".join(b.text for b in prompt.prompt if isinstance(b, v.TextContent))
        await self.do(session_id, i.SendThought(f"Echoing {len(text)} characters."))
        await self.do(session_id, i.SendAgentText("You said: "))
        await self.do(session_id, i.SendAgentText(text))

        self.counter += 1
        call = f"echo-{self.counter}"
        while call in self.conn.engine(session_id).session.tool_calls:  # journaled ones too
            self.counter += 1
            call = f"echo-{self.counter}"
        await self.do(
            session_id,
            i.StartToolCall("Echo tool", call, kind="other", raw_input=v.freeze_json(text)),
        )
        if self.cancelled(session_id):  # cancelled already: no point asking
            await self.wind_down(session_id, call)
            return
        asked = await self.do(session_id, i.RequestPermission("Run the echo tool?", OPTIONS, call))
        assert asked is not None
        request_id = asked.ids[0]  # the connection chose it (unique on the connection)
        # Wait for the answer (`PermissionAnswered`) or a cancel, whichever comes first. On
        # a cancel the request is withdrawn (`$/cancel_request`) rather than waited for: a
        # client may hold it open until told, and the turn must end promptly either way.
        # The engine keeps the request pending, so the client's late answer is still
        # accepted (Q17).
        await self.wait_until(
            session_id, lambda _: request_id in self.decisions or self.cancelled(session_id)
        )
        decision = self.decisions.pop(request_id, None)
        if decision is None:  # still open, so the turn was cancelled: withdraw it
            await self.do(
                session_id,
                i.CancelPermission(request_id),
                unless=lambda: request_id in self.decisions,  # answered meanwhile
            )
            self.decisions.pop(request_id, None)
            await self.wind_down(session_id, call)
            return
        if not decision.approved:
            await self.do(session_id, i.FinishToolCall(call, "cancelled"))
            await self.do(session_id, i.SendAgentText("The tool did not run."))
            await self.do(session_id, i.EndTurn())
            return

        words = text.split()
        for word in words:
            await asyncio.sleep(self.delay)  # the tool at work; the receive loop runs meanwhile
            if self.cancelled(session_id):
                await self.wind_down(session_id, call)
                return
            chunk = v.ToolContent(v.TextContent(word + "\n"))
            await self.do(session_id, i.SendToolContent(call, chunk))
        await self.do(session_id, i.FinishToolCall(call))
        await self.do(session_id, i.SendAgentText(f"The tool echoed {len(words)} words."))
        await self.do(session_id, i.EndTurn())

    async def wind_down(self, session_id: str, call: str) -> None:
        """End a cancelled turn: its tool call `cancelled`, then idle (`cancelled`, R21)."""
        await self.do(session_id, i.FinishToolCall(call, "cancelled"))
        await self.do(session_id, i.EndTurn())


class HostedEchoAgent(EchoAgent):
    """The echo agent on one connection hosted by `acp_core.aio` (`serve_stdio`, or one of
    `asgi_app`'s): the link steps the connection and writes what it sends (stdout, the SSE
    streams or the socket); the turns are the same. With a journal, every step is recorded
    before it counts (`link.keep`): a step the journal cannot write is refused."""

    def __init__(
        self,
        link: aio.AgentLink,
        trace: TraceFile | None,
        *,
        journal: SqliteStore | None = None,
        **options: Any,
    ) -> None:
        self.link = link
        self.running: set[str] = set()
        self.live = False  # the link holds the connection once the host took `connection`
        super().__init__(None, journal=journal, **options)  # type: ignore[arg-type]  # the link
        link.trace = trace
        if journal is not None:
            link.keep = self.keep

    @property
    def conn(self) -> c.AgentConnection:
        return self.link.connection if self.live else self.connection

    @conn.setter
    def conn(self, value: c.AgentConnection) -> None:
        self.connection = value  # the start (restored from the journal), read once by the host

    def keep(self, step: c.ConnectionStep) -> None:
        try:
            self.record(step.connection, step.outbound, step.events)
        except StoreError as e:
            print(f"echo agent: refused, the journal failed: {e}", file=sys.stderr)
            raise

    async def feed(self, input: object) -> c.ConnectionStep:
        self.live = True
        async with self.writing:
            step = self.link.full_step(input)  # may raise StoreError: nothing kept
        for event in step.events:
            await self.on_event(event)
        return step

    async def on_event(self, event: object) -> None:
        # Called by the host for every event of a client message, and by `feed` above.
        self.live = True
        await super().on_event(event)
        async with self.changed:
            self.changed.notify_all()

    def start_turns(self, session_id: str) -> None:
        if session_id not in self.running:  # in the connection's tasks: cancelled with it
            self.running.add(session_id)
            self.link.start_soon(self.turns, session_id)

    async def turns(self, session_id: str) -> None:
        try:
            await self.run_turns(session_id)
        finally:
            self.running.discard(session_id)


def listen_address(text: str) -> tuple[str, int]:
    """`HOST:PORT` (argparse type): the host and port to listen on."""
    host, sep, port = text.rpartition(":")
    if not sep or not host or not port.isdigit():
        raise argparse.ArgumentTypeError(f"not HOST:PORT: {text!r}")
    return host.strip("[]"), int(port)


async def listen(
    address: tuple[str, int],
    *,
    token: str | None,
    trace: TraceFile | None,
    delay: float,
    revision: acp.Revision,
    protocols: tuple[int, ...],
) -> None:
    """Serve the echo agent at http://HOST:PORT/acp until interrupted."""
    import uvicorn

    def make_agent(link: aio.AgentLink) -> HostedEchoAgent:
        return HostedEchoAgent(
            link, trace=trace, delay=delay, revision=revision, protocols=protocols
        )

    check = None if token is None else aio.bearer_token(token)
    app = aio.asgi_app(make_agent, authorize=check)
    host, port = address
    config = uvicorn.Config(
        app, host=host, port=port, lifespan="on", ws="wsproto", log_level="warning"
    )
    server = uvicorn.Server(config)
    served = asyncio.create_task(server.serve())
    while not server.started and not served.done():
        await asyncio.sleep(0.01)  # uvicorn has no start callback
    if served.done():
        await served  # it could not bind: its error
        sys.exit(f"stdio agent: could not listen on {host}:{port}")
    bound = server.servers[0].sockets[0].getsockname()[1]
    shown = f"[{host}]" if ":" in host else host
    print(f"listening on http://{shown}:{bound}/acp", file=sys.stderr, flush=True)
    await served


async def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--delay", type=float, default=0.2, help="seconds per tool step")
    parser.add_argument("--trace", help="record the traffic as seen by the agent here (JSON lines)")
    add_revision_flag(parser, "to speak (from 2026-11 prompt results carry the message's id)")
    parser.add_argument(
        "--journal", help="keep every session in this SQLite file (resumable after a restart)"
    )
    parser.add_argument(
        "--protocol",
        choices=sorted(PROTOCOLS),
        default="2",
        help="the protocol versions to serve: 2, 1, or auto (whichever the client asks for)",
    )
    parser.add_argument(
        "--listen",
        type=listen_address,
        metavar="HOST:PORT",
        help="serve at http://HOST:PORT/acp (Streamable HTTP and WebSocket) instead of stdio",
    )
    parser.add_argument(
        "--token", help="with --listen: require `Authorization: Bearer TOKEN` on every request"
    )
    args = parser.parse_args()
    revision = chosen_revision(args, "stdio agent")
    if args.token is not None and args.listen is None:
        parser.error("--token needs --listen")
    if args.listen is not None and args.journal is not None:
        parser.error("--journal is for stdio (one client); --listen serves many")
    trace = None if args.trace is None else TraceFile(args.trace)
    if args.listen is not None:
        try:
            await listen(
                args.listen,
                token=args.token,
                trace=trace,
                delay=args.delay,
                revision=revision,
                protocols=PROTOCOLS[args.protocol],
            )
        finally:
            if trace is not None:
                trace.close()
        return
    try:
        journal = None if args.journal is None else Journal(args.journal)
    except StoreError as e:
        sys.exit(f"stdio agent: cannot use the journal {args.journal}: {e}")

    def make_agent(link: aio.AgentLink) -> HostedEchoAgent:
        return HostedEchoAgent(
            link,
            trace=trace,
            journal=journal,
            delay=args.delay,
            revision=revision,
            protocols=PROTOCOLS[args.protocol],
        )

    try:
        await aio.serve_stdio(make_agent)  # until the client closes stdin
    except StoreError as e:  # the journal's list of sessions cannot be read at all
        sys.exit(f"stdio agent: cannot restore from the journal {args.journal}: {e}")
    finally:
        if trace is not None:
            trace.close()
        if journal is not None:
            journal.close()

if __name__ == "__main__":
    asyncio.run(main())
