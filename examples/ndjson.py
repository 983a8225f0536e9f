"""Newline-delimited JSON-RPC framing over asyncio streams (the I/O the core leaves out).

One JSON-RPC message (or batch) per line, UTF-8, no embedded newlines: the framing of ACP's
stdio transport. Nothing here knows ACP; the examples put acp-core on top of it.
"""

from __future__ import annotations

import asyncio
import json
import sys
from typing import Any

#: Longest line accepted (asyncio's default of 64 KiB is too small for file contents).
LINE_LIMIT = 16 * 1024 * 1024


class FramingError(Exception):
    """A line that is not JSON."""


class TraceFile:
    """A trace written as it happens, one JSON line per message (survives a crash)."""

    def __init__(self, path: str) -> None:
        self.file = open(path, "w", encoding="utf-8")  # noqa: SIM115 (closed in close())

    def append(self, entry: dict[str, Any]) -> None:
        self.file.write(json.dumps(entry, separators=(",", ":"), ensure_ascii=False) + "\n")
        self.file.flush()

    def close(self) -> None:
        self.file.close()


class Channel:
    """Send and receive JSON-RPC messages as lines; optionally record them as a trace.

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
    ) -> None:
        self.reader = reader
        self.writer = writer
        self.me = me
        self.peer = peer
        self.trace = trace

    async def send(self, message: Any) -> None:
        line = json.dumps(message, separators=(",", ":"), ensure_ascii=False)
        if self.trace is not None:
            self.trace.append({"from": self.me, "message": json.loads(line)})
        self.writer.write(line.encode("utf-8") + b"\n")
        await self.writer.drain()

    async def receive(self) -> Any:
        """The next message, or None at end of input. Blank lines are skipped.

        Raises:
            FramingError: the line is not JSON (the caller answers -32700).
        """
        while True:
            line = await self.reader.readline()
            if not line:
                return None
            if line.strip():
                break
        try:
            message = json.loads(line)
        except (json.JSONDecodeError, UnicodeDecodeError) as e:
            raise FramingError(str(e)) from None
        if self.trace is not None:
            self.trace.append({"from": self.peer, "message": message})
        return message


async def stdio_channel(*, me: str, peer: str, trace: TraceFile | None = None) -> Channel:
    """A channel over this process's stdin and stdout (for an agent started by a client)."""
    loop = asyncio.get_running_loop()
    reader = asyncio.StreamReader(limit=LINE_LIMIT)
    await loop.connect_read_pipe(lambda: asyncio.StreamReaderProtocol(reader), sys.stdin)
    transport, protocol = await loop.connect_write_pipe(
        asyncio.streams.FlowControlMixin, sys.stdout
    )
    writer = asyncio.StreamWriter(transport, protocol, reader, loop)
    return Channel(reader, writer, me=me, peer=peer, trace=trace)


def parse_error() -> dict[str, Any]:
    """The JSON-RPC answer to a line that is not JSON."""
    return {"jsonrpc": "2.0", "id": None, "error": {"code": -32700, "message": "Parse error"}}
