"""Updates per second from an agent to a client: Streamable HTTP and WebSocket against stdio.

Owns: one measurement, run as `python -m benchmarks.remote [--updates N] [--repeats R]`: the
same agent (one turn streaming N `agent_message_chunk` updates, one step each, yielding to
the event loop between them) in a child process on each transport, `acp_core.aio` on both
ends: `asgi_app` under uvicorn on 127.0.0.1 reached by `connect` (http:// and ws://), and
`serve_stdio` reached by `spawn_stdio`. The client (this process, asyncio) times one prompt
from the send to its `PromptEnded`, every update folded into its view on the way. Repeats
are interleaved, each round in a rotated order; it prints the median updates per second per
transport and each one's ratio to stdio, side by side in one run (never a timed test).
Must not know: anything but the public API of `acp_core` and `acp_core.aio`.
"""

from __future__ import annotations

import argparse
import statistics
import subprocess
import sys
import time
from collections.abc import AsyncIterator, Callable
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any

import anyio

if __package__ in (None, ""):  # run as a script: make `acp_core` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import acp_core as acp
from acp_core import aio
from acp_core import connection as c
from acp_core import intents as i
from acp_core import values as v

TRANSPORTS = ("stdio", "http", "ws")
AGENT = c.Implementation("bench-streaming-agent", "1")
CLIENT = c.Implementation("bench-client", "1")
WORD = "word "


class StreamingAgent:
    """On a prompt whose text is a number N: N text chunks, one step each, then the end."""

    def __init__(self, link: aio.AgentLink) -> None:
        self.link = link
        self.connection = acp.new_agent_connection(AGENT)

    async def on_event(self, event: object) -> None:
        if isinstance(event, c.PromptReceived):
            self.link.start_soon(self.turn, event.session_id)

    async def turn(self, session_id: str) -> None:
        prompt = self.link.connection.engine(session_id).prompts[0]
        text = "".join(b.text for b in prompt.prompt if isinstance(b, v.TextContent))
        self.link.step(c.SessionIntent(session_id, i.AcceptPrompt(prompt.id)))
        for _ in range(int(text)):
            self.link.step(c.SessionIntent(session_id, i.SendAgentText(WORD)))
            await anyio.lowlevel.checkpoint()  # a real agent yields between its chunks
        self.link.step(c.SessionIntent(session_id, i.EndTurn()))


def _serve_http() -> None:
    # The agent process of the http and ws runs: uvicorn on a free port, its URL on stdout.
    import uvicorn

    config = uvicorn.Config(
        aio.asgi_app(StreamingAgent),
        host="127.0.0.1",
        port=0,
        lifespan="on",
        ws="wsproto",
        log_level="warning",
    )
    server = uvicorn.Server(config)

    async def main() -> None:
        async with anyio.create_task_group() as group:
            group.start_soon(server.serve)
            while not server.started:
                await anyio.sleep(0.01)  # uvicorn has no start callback
            port = server.servers[0].sockets[0].getsockname()[1]
            print(f"http://127.0.0.1:{port}/acp", flush=True)

    anyio.run(main)


async def _serve_stdio() -> None:
    await aio.serve_stdio(StreamingAgent)


def _agent_command(role: str) -> list[str]:
    return [sys.executable, "-m", "benchmarks.remote", "--agent", role]


@asynccontextmanager
async def _http_agent() -> AsyncIterator[str]:
    root = str(Path(__file__).resolve().parent.parent)
    process = subprocess.Popen(_agent_command("http"), stdout=subprocess.PIPE, text=True, cwd=root)
    try:
        assert process.stdout is not None
        url = await anyio.to_thread.run_sync(process.stdout.readline)
        if not url.startswith("http://"):
            raise RuntimeError("the HTTP agent did not start")
        yield url.strip()
    finally:
        process.terminate()
        process.wait(10)


class Run:
    """One client connection and session over one transport."""

    def __init__(self, link: aio.ClientLink) -> None:
        self.link = link
        self.settled: dict[Any, object] = {}
        self.updates = 0

    async def until(self, request_id: Any) -> object:
        while request_id not in self.settled:
            step = await self.link.receive()
            for event in step.events:
                if isinstance(event, (c.RequestAnswered, c.PromptEnded)):
                    self.settled.setdefault(event.request_id, event)
                elif isinstance(event, (c.Initialized, c.SessionOpened)):
                    self.settled[event.request_id] = event
                elif isinstance(event, c.ViewChanged):
                    self.updates += 1
        return self.settled.pop(request_id)

    async def request(self, input: object) -> object:
        return await self.until((await self.link.step(input)).ids[0])

    async def start(self) -> str:
        await self.request(c.Initialize())
        opened = await self.request(c.NewSession("/bench"))
        assert isinstance(opened, c.SessionOpened)
        return opened.session_id

    async def turn(self, session_id: str, updates: int) -> float:
        """Seconds from the prompt sent to its end, `updates` chunks streamed meanwhile."""
        self.updates = 0
        prompt = c.SessionIntent(session_id, i.SendPrompt((v.TextContent(str(updates)),)))
        began = time.perf_counter()
        ended = await self.request(prompt)
        elapsed = time.perf_counter() - began
        assert isinstance(ended, c.PromptEnded)
        assert ended.stop_reason == "end_turn"
        text = "".join(
            v.message_text(m)
            for m in self.link.connection.view(session_id).messages.values()
            if m.role == "agent"
        )
        assert text.endswith(WORD * updates), "an update was lost"
        assert self.updates >= updates, "an update did not change the view"
        return elapsed


@asynccontextmanager
async def _transport(name: str, url: str | None) -> AsyncIterator[aio.RemoteTransport]:
    if name == "stdio":
        root = str(Path(__file__).resolve().parent.parent)
        async with aio.spawn_stdio(_agent_command("stdio"), cwd=root) as transport:
            yield transport
    else:
        assert url is not None
        target = url if name == "http" else url.replace("http://", "ws://")
        async with aio.connect(target) as transport:
            yield transport


async def measure(
    updates: int, repeats: int, report: Callable[[str], None] = print
) -> dict[str, list[float]]:
    """Updates per second for each transport, `repeats` turns each, interleaved."""
    rates: dict[str, list[float]] = {name: [] for name in TRANSPORTS}
    async with _http_agent() as url:
        for r in range(repeats):
            order = TRANSPORTS[r % 3 :] + TRANSPORTS[: r % 3]
            for name in order:
                async with _transport(name, url) as transport:
                    run = Run(aio.ClientLink(transport, acp.new_client_connection(CLIENT)))
                    session_id = await run.start()
                    await run.turn(session_id, min(updates, 50))  # warm both ends up
                    elapsed = await run.turn(session_id, updates)
                    rates[name].append(updates / elapsed)
            report(f"round {r + 1}/{repeats}: " + ", ".join(
                f"{n} {rates[n][-1]:,.0f}/s" for n in TRANSPORTS
            ))  # fmt: skip
    return rates


def main() -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--updates", type=int, default=5000, help="updates per timed turn")
    parser.add_argument("--repeats", type=int, default=5, help="timed turns per transport")
    parser.add_argument("--agent", choices=("stdio", "http"), help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.agent == "http":
        _serve_http()
        return 0
    if args.agent == "stdio":
        anyio.run(_serve_stdio)
        return 0
    rates = anyio.run(measure, args.updates, args.repeats)
    medians = {name: statistics.median(rates[name]) for name in TRANSPORTS}
    print(f"\n{args.updates} updates per turn, median of {args.repeats}, agent in a child process")
    print(f"{'transport':<10} {'updates/s':>12} {'vs stdio':>9}")
    for name in TRANSPORTS:
        print(f"{name:<10} {medians[name]:>12,.0f} {medians[name] / medians['stdio']:>9.2f}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
