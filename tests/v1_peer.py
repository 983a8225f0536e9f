"""A v1 agent process on real pipes and the acp-core `ClientConnection` that talks to it.

Shared by tests/test_v1_live_client.py (the Python SDK 0.12.1's agent) and
tests/test_interop_sdk_v1.py (the TypeScript SDK 2.4.0's v1 agent). The connection is the
sans-IO one, fed with `receive_bytes` and writing `ConnectionStep.data`, as
examples/stdio_client.py does. Every read waits with a generous limit so a silent agent
fails the test instead of hanging it; nothing asserts on time.
"""

from __future__ import annotations

import json
import os
import select
import subprocess
import sys
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest

import acp_core as acp
from acp_core import connection as c

AGENT = Path(__file__).resolve().parent / "v1_sdk_echo_agent.py"
READ_LIMIT = 30.0  # seconds a single read may wait before the test fails (not a timing assert)


class V1Peer:
    """The SDK agent process and the client connection that talks to it."""

    def __init__(
        self, protocols: tuple[int, ...] = (2, 1), command: list[str] | None = None
    ) -> None:
        self.process = subprocess.Popen(
            command or [sys.executable, str(AGENT)],
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=subprocess.PIPE,
        )
        self.conn = c.new_client_connection(
            c.Implementation("v1-live-test", "1"), protocols=protocols
        )
        self.events: list[object] = []
        self.sent: list[dict[str, Any]] = []  # what went on the wire, in order
        self.received: list[dict[str, Any]] = []
        self.pending = b""  # a partial line read, for `received`
        self.received_bytes = b""  # every byte the agent wrote, as read
        self.trace: list[dict[str, Any]] = []  # both directions, in this side's order

    def reconnect(self) -> None:
        """Start a new client connection on the same agent process (and pipes): a fresh
        `ClientConnection` with no sessions, and fresh records of what it sends and reads, as
        a client that restarted would be. The agent keeps its sessions."""
        assert self.pending == b""  # nothing of the old connection is half read
        self.conn = c.new_client_connection(
            c.Implementation("v1-live-test", "1"), protocols=self.conn.protocols
        )
        self.events, self.sent, self.received, self.trace = [], [], [], []

    def _write(self, step: c.ConnectionStep) -> None:
        self.conn = step.connection
        self.events.extend(step.events)
        self.sent.extend(step.outbound)
        self.trace.extend({"from": "client", "message": m} for m in step.outbound)
        assert self.process.stdin is not None
        if step.outbound:
            self.process.stdin.write(step.data)
            self.process.stdin.flush()

    def step(self, intent: object) -> None:
        self._write(c.connection_step(self.conn, intent))

    def read_one(self) -> None:
        """Read what the agent wrote (any split: the framing keeps partial lines)."""
        assert self.process.stdout is not None
        fd = self.process.stdout.fileno()
        ready, _, _ = select.select([fd], [], [], READ_LIMIT)
        if not ready:
            pytest.fail(f"the SDK agent sent nothing; stderr: {self._stderr()}")
        data = os.read(fd, 65536)
        if not data:
            pytest.fail(f"the SDK agent closed its output; stderr: {self._stderr()}")
        self.pending += data
        self.received_bytes += data
        *lines, self.pending = self.pending.split(b"\n")
        read = [json.loads(line) for line in lines if line.strip()]
        self.received.extend(read)
        self.trace.extend({"from": "agent", "message": m} for m in read)
        self._write(c.receive_bytes(self.conn, data))

    def until(self, done: Callable[[c.ClientConnection], bool]) -> None:
        while not done(self.conn):
            self.read_one()

    def request(self, intent: object) -> c.RequestAnswered:
        before = len(self.events)
        self.step(intent)
        request_id = self.sent[-1]["id"]

        def answered(_: object) -> bool:
            return any(
                type(e) is c.RequestAnswered and e.request_id == request_id
                for e in self.events[before:]
            )

        self.until(answered)
        return next(
            e
            for e in self.events[before:]
            if type(e) is c.RequestAnswered and e.request_id == request_id
        )

    def start(self) -> str:
        self.request(c.Initialize())
        assert self.conn.protocol_version == 1
        self.request(c.NewSession(os.getcwd()))
        opened = [e for e in self.events if type(e) is c.SessionOpened]
        assert len(opened) == 1
        return opened[0].session_id

    def prompt(self, sid: str, text: str, *, choose: str | None = None) -> acp.SentPrompt:
        self.step(c.SessionIntent(sid, acp.SendPrompt((acp.TextContent(text),))))
        request_id = self.conn.engine(sid).prompts[-1].request_id

        def ended(conn: c.ClientConnection) -> bool:
            engine = conn.engine(sid)
            if choose is not None:
                for pending in list(engine.pending):
                    self.step(c.SessionIntent(sid, acp.AnswerPermission(pending, choose)))
                    engine = self.conn.engine(sid)
            record = acp.sent_prompt(engine, request_id)
            return record is not None and record.ended

        self.until(ended)
        record = acp.sent_prompt(self.conn.engine(sid), request_id)
        assert record is not None
        return record

    def _stderr(self) -> str:
        self.close()
        assert self.process.stderr is not None
        return self.process.stderr.read().decode(errors="replace")[-2000:]

    def close(self) -> None:
        if self.process.poll() is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                self.process.wait(10)
            except subprocess.TimeoutExpired:
                self.process.kill()
                self.process.wait()
