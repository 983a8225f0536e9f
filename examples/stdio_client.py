"""A stdio client built on acp-core's client engine: starts an agent, prompts it, shows the view.

    python examples/stdio_client.py                      # talks to examples/stdio_agent.py
    python examples/stdio_client.py --trace out.jsonl    # also records the traffic
    python examples/stdio_client.py --view view.json     # also writes the view (docs/snapshot.md)
    python examples/stdio_client.py -- my-agent --flag   # any ACP v2 agent on stdio
    python examples/stdio_client.py --revision 2026-11 -- my-agent   # an agent on the later draft
    python examples/stdio_client.py --revision preview   # both examples on the v2 Preview
    python examples/stdio_client.py --connect http://127.0.0.1:8000/acp   # a remote agent
    python examples/stdio_client.py --connect ws://127.0.0.1:8000/acp --token T

Two prompts: the first is answered normally (the permission request is allowed); during the
second the client cancels as soon as the tool shows output. The client then prints what a UI
would show (`client.view`, rendered) and the trace checker's verdict on the recorded traffic.

The split: the connection (`acp_core.connection_step`) decides every protocol message and
keeps the state; `acp_core.aio.spawn_stdio` starts the agent and moves the bytes (as
`acp_core.aio.connect` does for a URL); this file waits (with a timeout on every read) and
decides what the "user" does. Whatever the agent does, the client ends with one line saying
how, and an exit status: 0 clean, 1 checker violations, 2 bad arguments, 3 the agent failed.

`--connect URL` talks to a remote agent instead of starting one: Streamable HTTP for an
`http://` URL, WebSocket for `ws://` (`acp_core.aio.connect`), with the same conversation,
trace, checker and exit statuses; `--token T` sends `Authorization: Bearer T`.
"""

from __future__ import annotations

import argparse
import asyncio
import json
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

from revision_flag import add_revision_flag, chosen_revision

import acp_core as acp
from acp_core import aio
from acp_core import connection as c
from acp_core import intents as i
from acp_core import values as v
from acp_core.v1 import check_v1_trace

#: `--protocol`: the versions the client allows, preferred first.
PROTOCOLS = {"2": (2,), "1": (1,), "auto": (2, 1)}

AGENT = Path(__file__).with_name("stdio_agent.py")
INFO = c.Implementation("acp-core-stdio-client", acp.__version__)

#: Exit statuses (also in docs/transports.md): 0 the conversation ran and the checker found
#: nothing; 1 it ran and the checker found violations; 2 bad arguments; 3 the agent failed
#: (would not start, closed its output, went silent, answered set-up with an error, ...).
EXIT_OK, EXIT_VIOLATIONS, EXIT_USAGE, EXIT_AGENT_FAILED = 0, 1, 2, 3

#: What the "user" answers to a permission request: an option id, or None to leave it open.
Chooser = Callable[[v.RequestPermissionRequest], "str | None"]


def allow_once(request: v.RequestPermissionRequest) -> str | None:
    """Pick the first `allow_once` option (a user who always clicks "Allow")."""
    return next((o.option_id for o in request.options if o.kind == "allow_once"), None)


class AgentError(Exception):
    """The agent did something this client cannot go on from (the message says what)."""


class StdioClient:
    """The client side of one connection (`self.conn`, a value), driving one session.

    It reacts to the connection's events only: the id a step returns (`ConnectionStep.ids`)
    names what it asked, and `RequestAnswered`, `SessionOpened`, `PermissionRequested`,
    `ViewChanged` and `PromptEnded` tell it what happened to that."""

    def __init__(
        self,
        channel: RemoteChannel,
        *,
        timeout: float = 10.0,
        revision: acp.Revision = acp.DEFAULT_REVISION,
        protocols: tuple[int, ...] = (2,),
    ) -> None:
        self.channel = channel
        self.timeout = timeout
        self.revision = revision
        self.conn = acp.new_client_connection(INFO, revision=revision, protocols=protocols)
        self.session_id: str | None = None
        self.events: dict[Any, object] = {}  # the event that settles each request, by id
        self.asked: list[c.PermissionRequested] = []  # waiting for the user
        self.view_changed = False  # since the last read
        self.findings: list[c.Finding] = []

    # -- the connection, and the wire --------------------------------------------------------

    async def feed(self, input: object) -> tuple[Any, ...]:
        """Step the connection, write what it returns, note its events; the step's ids."""
        step = acp.connection_step(self.conn, input)
        self.conn = step.connection
        if step.outbound:
            await self.channel.write(step.data, step.outbound)
        for event in step.events:
            if isinstance(event, (c.RequestAnswered, c.PromptEnded)):
                self.events.setdefault(event.request_id, event)
            elif isinstance(event, (c.Initialized, c.SessionOpened)):
                self.events[event.request_id] = event  # its RequestAnswered follows
            elif isinstance(event, c.PermissionRequested):
                self.asked.append(event)
            elif isinstance(event, c.RequestCancelled):
                self.asked = [a for a in self.asked if a.request_id != event.request_id]
            elif isinstance(event, c.ViewChanged):
                self.view_changed = True
            elif isinstance(event, c.Finding):
                self.findings.append(event)
            elif isinstance(event, c.ExtensionRequest):
                await self.feed(c.FailRequest(event.request_id, -32601, "Method not found"))
        return step.ids

    async def receive(self, choose: Chooser) -> None:
        """Read and process the next message; every read has a timeout (a silent agent must
        not hang us), and answer the permission requests the user decides on."""
        try:
            event = await asyncio.wait_for(self.channel.next_event(), self.timeout)
        except EOFError:
            raise AgentError("the agent closed its output") from None
        except TimeoutError:
            raise AgentError(f"the agent sent nothing for {self.timeout:g} s") from None
        self.view_changed = False
        await self.feed(event)
        asked, self.asked = self.asked, []
        for request in asked:
            option = choose(request.request)  # asked once; None leaves it open
            if option is not None:
                answer = i.AnswerPermission(request.request_id, option)
                await self.feed(c.SessionIntent(request.session_id, answer))

    async def request(self, intent: object, what: str) -> object:
        """Send a connection request and wait for the event that settles it."""
        (request_id,) = await self.feed(intent)
        while request_id not in self.events:
            await self.receive(allow_once)
        answer = self.events.pop(request_id)
        if isinstance(answer, c.RequestAnswered) and answer.error is not None:
            message = answer.error.get("message")
            raise AgentError(f"{what} failed: {answer.error.get('code')} {message}")
        return answer

    # -- set-up ----------------------------------------------------------------------------

    async def start(self, cwd: str) -> str:
        """`initialize` and `session/new`; returns the session id."""
        done = await self.request(c.Initialize(), "initialize")
        # No `Initialized` for a version the host does not allow: the answer's is recorded.
        version = done.protocol_version if isinstance(done, c.Initialized) else None
        version = self.conn.protocol_version if version is None else version
        allowed = self.conn.protocols
        if version not in allowed:  # the connection found it too (E5): nothing can follow
            wanted = " or ".join(map(str, allowed))
            raise AgentError(f"the agent speaks protocol {version!r}, not {wanted}")
        opened = await self.request(c.NewSession(cwd), "session/new")
        if not isinstance(opened, c.SessionOpened):
            raise AgentError("session/new answered without a usable session id")
        self.session_id = opened.session_id
        return self.session_id

    # -- a turn ----------------------------------------------------------------------------

    async def prompt(
        self,
        text: str,
        *,
        choose: Chooser = allow_once,
        cancel_when: Callable[[acp.SessionState], bool] | None = None,
    ) -> str | None:
        """Send a prompt and wait until the turn it started is over; returns the stop reason
        (None when the agent rejected the prompt).

        `cancel_when(view)` is checked whenever the view changed; the first time it holds,
        the client sends `session/cancel`.
        """
        assert self.session_id is not None
        prompt = i.SendPrompt((v.TextContent(text),))
        (request_id,) = await self.feed(c.SessionIntent(self.session_id, prompt))
        while request_id not in self.events:
            await self.receive(choose)
            view = self.conn.view(self.session_id)
            if cancel_when is not None and self.view_changed and cancel_when(view):
                cancel_when = None
                await self.feed(c.SessionIntent(self.session_id, i.SendCancel()))
        ended = self.events.pop(request_id)
        assert isinstance(ended, c.PromptEnded)
        return ended.stop_reason


class RemoteChannel:
    """The client's channel over an `acp_core.aio` transport (`spawn_stdio` for an agent it
    starts, `connect` for a URL): messages, not bytes, each way; recorded as the trace format
    says (docs/trace-format.md)."""

    def __init__(self, transport: aio.RemoteTransport, trace: list[Any] | None) -> None:
        self.transport = transport
        self.trace = trace

    async def write(self, data: bytes, messages: tuple[dict[str, Any], ...] = ()) -> None:
        for message in messages:
            if self.trace is not None:
                self.trace.append({"from": "client", "message": message})
            await self.transport.send(message)

    async def next_event(self) -> c.Parsed | acp.FramingError:
        event = await self.transport.receive()
        if self.trace is not None and isinstance(event, c.Parsed):
            self.trace.append({"from": "agent", "message": event.value})
        return event


def tool_shows_output(view: acp.SessionState) -> bool:
    """True once a running tool call has shown some content."""
    return any(c.status == "in_progress" and len(c.content) for c in view.tool_calls.values())


async def talk(client: StdioClient) -> acp.SessionState:
    """The two-prompt conversation; the final view."""
    await client.start(str(Path.cwd()))
    await client.prompt("Hello, agent!")
    # The echo tool takes one step per word: this one runs long enough to be cancelled.
    await client.prompt(
        "Count slowly to ten: one two three four five six seven eight nine ten",
        cancel_when=tool_shows_output,
    )
    assert client.session_id is not None
    return client.conn.view(client.session_id)


async def converse_remote(
    url: str,
    *,
    token: str | None = None,
    timeout: float = 10.0,
    revision: acp.Revision = acp.DEFAULT_REVISION,
    trace: list[Any] | None = None,
    protocols: tuple[int, ...] = (2,),
) -> tuple[acp.SessionState, int | None]:
    """The same conversation with the agent at `url` (http:// or ws://).

    Raises:
        AgentError: the agent could not be reached, refused us, or did something we cannot
            go on from.
    """
    try:
        async with aio.connect(url, token=token) as transport:
            client = StdioClient(
                RemoteChannel(transport, trace),
                timeout=timeout,
                revision=revision,
                protocols=protocols,
            )
            view = await talk(client)
            return view, client.conn.protocol_version
    except aio.TransportError as e:
        raise AgentError(str(e)) from None


async def converse(
    command: list[str],
    *,
    timeout: float = 10.0,
    revision: acp.Revision = acp.DEFAULT_REVISION,
    trace: list[Any] | None = None,
    protocols: tuple[int, ...] = (2,),
) -> tuple[acp.SessionState, int | None]:
    """Start the agent, run the two-prompt conversation, stop the agent; the final view and
    the protocol version the agent answered.

    Raises:
        AgentError: the agent could not be started or did something we cannot go on from.
    """
    try:
        async with aio.spawn_stdio(command, grace=timeout) as transport:
            client = StdioClient(
                RemoteChannel(transport, trace),
                timeout=timeout,
                revision=revision,
                protocols=protocols,
            )
            return await talk(client), client.conn.protocol_version
    except aio.TransportError as e:  # it would not start, or its pipe broke
        raise AgentError(str(e)) from None

def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--trace", type=Path, help="write the recorded traffic here (JSON lines)")
    parser.add_argument("--view", type=Path, help="write the final view here (docs/snapshot.md)")
    parser.add_argument("--timeout", type=float, default=10.0, help="seconds to wait per read")
    add_revision_flag(parser, "to speak (the default agent is started with the same flag)")
    parser.add_argument(
        "--protocol",
        choices=tuple(PROTOCOLS),
        default="2",
        help="the ACP generation to speak: 2, 1, or auto (offer 2, speak 1 if the agent does)",
    )
    parser.add_argument(
        "--connect",
        metavar="URL",
        help="talk to the agent at URL (http:// Streamable HTTP, ws:// WebSocket), not stdio",
    )
    parser.add_argument("--token", help="with --connect: send `Authorization: Bearer TOKEN`")
    parser.add_argument("agent", nargs="*", help="agent command (default: the example agent)")
    args = parser.parse_args()
    revision = chosen_revision(args, "stdio client")
    if args.connect is not None:
        if args.agent:
            parser.error("--connect talks to a running agent: no agent command")
        if not args.connect.startswith(("http://", "https://", "ws://", "wss://")):
            parser.error(f"--connect takes an http:// or ws:// URL, not {args.connect!r}")
    elif args.token is not None:
        parser.error("--token needs --connect")
    command = args.agent or [sys.executable, str(AGENT), "--revision", revision.name]
    trace: list[Any] = []
    options: dict[str, Any] = {
        "timeout": args.timeout,
        "revision": revision,
        "trace": trace,
        "protocols": PROTOCOLS[args.protocol],
    }
    try:
        if args.connect is not None:
            talking = converse_remote(args.connect, token=args.token, **options)
        else:
            talking = converse(command, **options)
        view, spoken = asyncio.run(talking)
    except AgentError as e:
        print(f"stdio client: {e}", file=sys.stderr)
        return EXIT_AGENT_FAILED
    except Exception as e:  # anything else the agent provoked: one line, never a traceback
        print(f"stdio client: the conversation failed: {type(e).__name__}: {e}", file=sys.stderr)
        return EXIT_AGENT_FAILED
    finally:
        if args.trace is not None:
            args.trace.write_text("".join(json.dumps(entry) + "\n" for entry in trace))
    if args.view is not None:
        args.view.write_text(json.dumps(acp.snapshot(view), indent=2) + "\n")
    print(acp.render_session(view))
    # A recording judges the side that made it: the client saw its own messages in the order
    # it sent them, but the agent's in the order it read them (a fast answer can overtake a
    # `requires_action` already in the pipe). Agent rules: record at the agent (--trace).
    if spoken == 1:  # a v1 agent: judged by the v1 rules (`check --protocol 1`)
        found = check_v1_trace(trace, side="client")
    else:
        found = acp.check_trace(trace, revision=revision, side="client")
    violations = list(found)
    print(
        f"\nChecker, client and wire rules: {len(trace)} messages, {len(violations)} violation(s)"
    )
    for found_one in violations:
        print(f"  line {found_one.index}: [{found_one.rule} {found_one.level}] {found_one.message}")
    return EXIT_VIOLATIONS if violations else EXIT_OK


if __name__ == "__main__":
    sys.exit(main())
