"""stdio, both ends: an agent served on this process's stdin and stdout, and a spawned one.

Owns: `serve_stdio` (one `Agent` hosted on a byte pipe pair, newline-delimited JSON-RPC, as
`asgi_app` hosts one per HTTP connection: the same `Agent` and `AgentLink`) and `spawn_stdio`
(a command started as a child process, its pipes as a `RemoteTransport`, so `ClientLink`
drives it as it drives `connect`); the tasks, the reads and the writes.
Must not know: what a message means, or how a line is framed (`feed_ndjson`, `encode_ndjson`
and the connections decide it); this module only moves bytes and keeps tasks.

Theory of operation. The agent side is `asgi_app`'s, without the routing: the connection is
a value changed only by synchronous code between two awaits, so every step (a line read, or
the agent's own `AgentLink.step`) is judged, kept and queued in one go, in the connection's
order, and no lock is needed. A writer task drains the queue, joining whatever is waiting into
one write. The events of inbound steps go, in order, to one serial task that awaits
`Agent.on_event`; the agent's own tasks (`AgentLink.start_soon`) run beside it and are
cancelled when the input ends. This process's own stdin is read by a daemon thread and its
stdout written in a worker thread (a pipe or a terminal, on asyncio and trio alike); a
child's pipes are anyio's own streams.
"""

from __future__ import annotations

import contextlib
import math
import os
import subprocess
import sys
import threading
from collections import deque
from collections.abc import AsyncIterator, Callable, Mapping, Sequence
from typing import Any, BinaryIO, Protocol

import anyio
import anyio.from_thread
import anyio.lowlevel
import anyio.to_thread
from anyio.abc import Process
from anyio.lowlevel import EventLoopToken

from acp_core import connection_step
from acp_core._errors import AcpError
from acp_core.connection import (
    DEFAULT_MAX_LINE,
    AgentConnection,
    ConnectionStep,
    FramingError,
    NdjsonDecoder,
    Parsed,
    encode_ndjson,
    feed_ndjson,
    finish_ndjson,
)

from ._asgi import Agent, AgentLink
from ._client import RemoteTransport, TransportError

__all__ = ["ByteReader", "ByteWriter", "serve_stdio", "spawn_stdio"]

#: Bytes read at a time (a line may span many reads; the framing joins them).
READ_SIZE = 64 * 1024
#: JSON-RPC's internal error, the answer to a request whose step the agent's `keep` refused.
INTERNAL_ERROR = -32603


class ByteReader(Protocol):
    """Where `serve_stdio` reads (anyio's `ByteReceiveStream` is one)."""

    async def receive(self, max_bytes: int = 65536) -> bytes:
        """Some bytes; raises `anyio.EndOfStream` at the end."""


class ByteWriter(Protocol):
    """Where `serve_stdio` writes (anyio's `ByteSendStream` is one)."""

    async def send(self, item: bytes) -> None:
        """Write all of `item`."""


class _ThreadReader:
    # A daemon thread reads the file descriptor (`os.read` returns what is there) and hands
    # each piece to the event loop through a small bounded queue (it waits while the queue is
    # full). A daemon thread, not a worker of the loop's: a read still blocked when the
    # serving ends must not keep the process from exiting (asyncio joins its workers).
    def __init__(self, file: BinaryIO) -> None:
        self.fd = file.fileno()
        self.pieces_in, self.pieces = anyio.create_memory_object_stream[bytes](16)
        self.started = False

    def _pump(self, token: EventLoopToken) -> None:
        while True:
            try:
                data = os.read(self.fd, READ_SIZE)
            except OSError:
                data = b""
            try:
                if not data:
                    anyio.from_thread.run_sync(self.pieces_in.close, token=token)
                    return
                anyio.from_thread.run(self.pieces_in.send, data, token=token)
            except Exception:  # the loop is gone, or nothing reads any more
                return

    async def receive(self, max_bytes: int = 65536) -> bytes:
        if not self.started:
            self.started = True
            token = anyio.lowlevel.current_token()
            threading.Thread(target=self._pump, args=(token,), daemon=True).start()
        return await self.pieces.receive()  # anyio.EndOfStream at the end


class _ThreadWriter:
    def __init__(self, file: BinaryIO) -> None:
        self.file = file

    def _write(self, data: bytes) -> None:
        self.file.write(data)
        self.file.flush()

    async def send(self, item: bytes) -> None:
        await anyio.to_thread.run_sync(self._write, item)


class _StdioHost:
    """The one connection's I/O side: the outbound queue and the serial event queue."""

    def __init__(self) -> None:
        self.out_in, self.out = anyio.create_memory_object_stream[bytes](math.inf)
        self.events_in, self.events_out = anyio.create_memory_object_stream[tuple[object, ...]](
            math.inf
        )
        self.closed = False

    def step(self, link: AgentLink, input: object) -> ConnectionStep:
        if self.closed:
            return ConnectionStep(link._connection, (), ())
        stepped = connection_step(link.connection, input)
        if link.keep is not None:
            link.keep(stepped)  # raises to refuse: nothing kept, nothing sent
        link._connection = stepped.connection
        if link.trace is not None:
            if isinstance(input, Parsed):
                link.trace.append({"from": "client", "message": input.value})
            for message in stepped.outbound:
                link.trace.append({"from": "agent", "message": message})
        if stepped.outbound:
            self.out_in.send_nowait(stepped.data)
        link._notify()
        return stepped

    def inbound(self, link: AgentLink, event: Parsed | FramingError) -> None:
        try:
            events = self.step(link, event).events
        except AcpError as e:  # the agent's `keep` refused the step: a request is answered
            message = event.value if isinstance(event, Parsed) else None
            if isinstance(message, dict) and "method" in message and "id" in message:
                error = {"code": INTERNAL_ERROR, "message": f"the agent refused the step: {e}"}
                answer = {"jsonrpc": "2.0", "id": message["id"], "error": error}
                self.out_in.send_nowait(encode_ndjson(answer))
            return
        if events:
            self.events_in.send_nowait(events)

    async def read(self, link: AgentLink, stdin: ByteReader, max_line: int) -> None:
        decoder = NdjsonDecoder(max_line)
        while not self.closed:
            try:
                data = await stdin.receive(READ_SIZE)
            except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
                break
            except OSError:
                break
            decoder, events = feed_ndjson(decoder, data)
            for event in events:
                self.inbound(link, event)
        if not self.closed:
            for event in finish_ndjson(decoder):
                self.inbound(link, event)

    async def write(self, stdout: ByteWriter, gone: anyio.CancelScope) -> None:
        # Whatever waits is joined into one write; a peer that stopped reading ends it all.
        try:
            async with self.out:
                async for data in self.out:
                    parts = [data]
                    with contextlib.suppress(anyio.WouldBlock):
                        while True:
                            parts.append(self.out.receive_nowait())
                    await stdout.send(b"".join(parts))
        except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError):
            self.closed = True
            gone.cancel()

    async def serve_events(self, agent: Agent) -> None:
        async with self.events_out:
            async for events in self.events_out:
                for event in events:
                    await agent.on_event(event)


async def serve_stdio(
    make_agent: Callable[[AgentLink], Agent],
    *,
    stdin: ByteReader | None = None,
    stdout: ByteWriter | None = None,
    max_line: int = DEFAULT_MAX_LINE,
) -> AgentConnection:
    """Serve one agent on stdio until its input ends; the connection's last value.

    `make_agent(link)` is called once, as `asgi_app` calls it per connection, and returns the
    `Agent`; every line read is stepped into its connection (a line that is not JSON is
    answered `-32700` by the connection), its events go to `agent.on_event` in order, and every
    step's messages are written in the order stepped. `stdin` and `stdout` default to this
    process's own (any anyio byte streams will do, a child's pipes for instance); a line longer
    than `max_line` bytes is reported and skipped. When the input ends (or the output breaks)
    the agent's tasks are cancelled, what is queued is written, and this returns. A request
    whose step the link's `keep` refused (it raised an `AcpError`) is answered `-32603`.

    Raises:
        Exception: whatever the agent's `on_event` or one of its tasks raised (the serving
            ends with it).
    """
    reader = _ThreadReader(sys.stdin.buffer) if stdin is None else stdin
    writer = _ThreadWriter(sys.stdout.buffer) if stdout is None else stdout
    host = _StdioHost()
    link = AgentLink(host, "stdio")
    try:
        async with anyio.create_task_group() as outer:
            outer.start_soon(host.write, writer, outer.cancel_scope)
            async with anyio.create_task_group() as group:  # the agent's tasks
                link._group = group
                agent = make_agent(link)
                link._connection = agent.connection
                group.start_soon(host.serve_events, agent)
                await host.read(link, reader, max_line)
                group.cancel_scope.cancel()
            host.out_in.close()  # the writer writes what is queued, then ends
    except BaseExceptionGroup as group_error:
        raise _first(group_error) from None
    return link.connection


def _first(group: BaseExceptionGroup[BaseException]) -> BaseException:
    # The one exception a task raised (task groups wrap them).
    error: BaseException = group.exceptions[0]
    return _first(error) if isinstance(error, BaseExceptionGroup) else error


class _StdioTransport:
    """A child process's pipes as a `RemoteTransport`."""

    def __init__(self, process: Process, max_line: int) -> None:
        self.process = process
        self.connection_id: str | None = None
        self.decoder = NdjsonDecoder(max_line)
        self.events: deque[Parsed | FramingError] = deque()
        self.ended = False
        self.lock = anyio.Lock()

    async def send(self, message: dict[str, Any]) -> None:
        assert self.process.stdin is not None
        async with self.lock:
            try:
                await self.process.stdin.send(encode_ndjson(message))
            except (OSError, anyio.BrokenResourceError, anyio.ClosedResourceError) as e:
                raise TransportError(
                    f"the agent's pipe broke: {str(e) or type(e).__name__}"
                ) from None

    async def receive(self) -> Parsed | FramingError:
        stdout: Any = self.process.stdout
        while not self.events:
            if self.ended:
                raise EOFError
            try:
                data = await stdout.receive(READ_SIZE)
            except (anyio.EndOfStream, anyio.BrokenResourceError, anyio.ClosedResourceError):
                self.ended = True
                self.events.extend(finish_ndjson(self.decoder))
            else:
                self.decoder, events = feed_ndjson(self.decoder, data)
                self.events.extend(events)
        return self.events.popleft()


@contextlib.asynccontextmanager
async def spawn_stdio(
    command: Sequence[str],
    *,
    env: Mapping[str, str] | None = None,
    cwd: str | None = None,
    max_line: int = DEFAULT_MAX_LINE,
    grace: float = 10.0,
) -> AsyncIterator[RemoteTransport]:
    """Start `command` as an agent on stdio; its pipes as a `RemoteTransport` (for
    `ClientLink`, as `connect` gives one for a URL), until the block ends.

    The agent's stderr is this process's. `receive` frames its stdout (a line longer than
    `max_line` bytes is a `FramingError`; its end is `EOFError`). Leaving the block closes
    the agent's stdin (its end of input), waits up to `grace` seconds for it to exit, then
    kills it.

    Raises:
        TransportError: the command could not be started (from `send`: the pipe broke).
    """
    try:
        process = await anyio.open_process(
            list(command),
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=None,
            env=None if env is None else dict(env),
            cwd=cwd,
        )
    except OSError as e:
        raise TransportError(f"could not start the agent: {e}") from None
    try:
        yield _StdioTransport(process, max_line)
    finally:
        with anyio.CancelScope(shield=True):
            assert process.stdin is not None
            with contextlib.suppress(OSError, anyio.BrokenResourceError):
                await process.stdin.aclose()
            with anyio.move_on_after(grace) as waited:
                await process.wait()
            if waited.cancelled_caught:
                process.kill()
                await process.wait()
            await process.aclose()
