"""Bytes over asyncio streams, framed by acp-core (the I/O the core leaves out).

The framing itself is `acp_core.feed_ndjson` / `encode_ndjson` (sans-IO: one JSON-RPC
message per line, lines of any length up to a limit, hostile bytes reported, never raised).
This file only moves bytes: it reads what is there, hands it to the framing, and writes what
it is given. Nothing here knows ACP beyond that.
"""

from __future__ import annotations

import asyncio
import json
from collections import deque
from typing import Any

import acp_core as acp
from acp_core import connection as c

#: Bytes read at a time (a line may span many reads; the framing joins them).
READ_SIZE = 64 * 1024
#: Kept for callers that size their own stream buffers (reads never wait for a whole line).
LINE_LIMIT = 16 * 1024 * 1024


class FramingError(Exception):
    """A line that is not a JSON value; `event` is the framing's report (its `.reply` is the
    `-32700` answer owed)."""

    def __init__(self, event: acp.FramingError) -> None:
        super().__init__(event.detail)
        self.event = event


class TraceFile:
    """A trace written as it happens, one JSON line per message (survives a crash)."""

    def __init__(self, path: str) -> None:
        self.file = open(path, "w", encoding="utf-8")  # noqa: SIM115 (closed in close())

    def append(self, entry: dict[str, Any]) -> None:
        self.file.write(acp.encode_ndjson(entry).decode("utf-8"))
        self.file.flush()

    def close(self) -> None:
        self.file.close()


class Channel:
    """Read and write NDJSON bytes; optionally record every message as a trace.

    `trace`, when given, receives `{"from": side, "message": ...}` for every message, in the
    order this end saw them (`me` for sent, `peer` for received): the trace format of
    docs/trace-format.md, ready for `acp_core.check_trace`.
    """

    def __init__(
        self,
        reader: asyncio.StreamReader,
        writer: asyncio.StreamWriter,
        *,
        me: str,
        peer: str,
        trace: list[dict[str, Any]] | TraceFile | None = None,
        max_line: int = c.DEFAULT_MAX_LINE,
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.me = me
        self.peer = peer
        self.trace = trace
        self.decoder = acp.NdjsonDecoder(max_line)
        self.events: deque[c.Parsed | acp.FramingError] = deque()
        self.ended = False

    async def write(self, data: bytes, messages: tuple[dict[str, Any], ...] = ()) -> None:
        """Write bytes (the NDJSON of `messages`, which are recorded)."""
        if self.trace is not None:
            for message in messages:
                self.trace.append(
                    {"from": self.me, "message": json.loads(acp.encode_ndjson(message))}
                )
        self.writer.write(data)
        await self.writer.drain()

    async def send(self, message: Any) -> None:
        await self.write(acp.encode_ndjson(message), (message,))

    async def next_event(self) -> c.Parsed | acp.FramingError:
        """The next framed message or framing error.

        Raises:
            EOFError: the peer closed its output (a last line without newline counts).
        """
        while not self.events:
            if self.ended:
                raise EOFError
            data = await self.reader.read(READ_SIZE)
            if data:
                self.decoder, events = acp.feed_ndjson(self.decoder, data)
            else:
                self.ended = True
                events = acp.finish_ndjson(self.decoder)
            self.events.extend(events)
        event = self.events.popleft()
        if self.trace is not None and isinstance(event, c.Parsed):
            self.trace.append({"from": self.peer, "message": event.value})
        return event

    async def receive(self) -> Any:
        """The next message (any JSON value, `null` included).

        Raises:
            FramingError: the line is not JSON (answer it with `error.event.reply`).
            EOFError: end of input.
        """
        event = await self.next_event()
        if isinstance(event, acp.FramingError):
            raise FramingError(event)
        return event.value


def parse_error() -> dict[str, Any]:
    """The JSON-RPC answer to a line that is not JSON."""
    return c.parse_error_reply("not JSON")
