"""The example agent when its journal cannot be written: the step is refused, the client is
told, and the session goes on once the store works again (issue 26, the first bullet).

In process: `EchoAgent` over a message channel of two queues, with a real `SqliteStore` whose
file may not grow (SQLite's `max_page_count`: the store reports SQLITE_FULL, as on a full
disk). Nothing is mocked; the client is acp-core's `ClientConnection`.
"""

from __future__ import annotations

import asyncio
import sys
from pathlib import Path
from typing import Any

import acp_core as acp
from acp_core.aio import SqliteStore, StoreError

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
TIMEOUT = 20.0


class Pipe:
    """The agent's message channel; the test is the client on the other end."""

    def __init__(self) -> None:
        self.to_agent: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        self.to_client: asyncio.Queue[dict[str, Any]] = asyncio.Queue()

    async def receive(self) -> dict[str, Any]:
        message = await self.to_agent.get()
        if message is None:
            raise EOFError
        return message

    async def send(self, message: dict[str, Any]) -> None:
        await self.to_client.put(message)


class Client:
    def __init__(self, pipe: Pipe) -> None:
        self.pipe = pipe
        self.conn = acp.new_client_connection(acp.Implementation("store-test", "0"))
        self.events: list[object] = []
        self.received: list[dict[str, Any]] = []

    async def do(self, input: object) -> None:
        step = acp.connection_step(self.conn, input)
        self.conn = step.connection
        self.events.extend(step.events)
        for message in step.outbound:
            await self.pipe.to_agent.put(dict(message))

    async def until(self, ready: Any) -> None:
        while not ready():
            message = await asyncio.wait_for(self.pipe.to_client.get(), TIMEOUT)
            self.received.append(message)
            await self.do(acp.Parsed(message))
            for session_id, session in self.conn.sessions.items():
                for request_id in list(session.engine.pending.keys()):
                    await self.do(
                        acp.SessionIntent(session_id, acp.AnswerPermission(request_id, "allow"))
                    )


def _full(store: SqliteStore, full: bool) -> None:
    """Let the store's file grow, or not (a full disk, as SQLite reports it)."""
    pages = store._db.execute("pragma page_count").fetchone()[0]
    store._db.execute(f"pragma max_page_count={pages if full else 1073741823}")


async def _run(path: Path) -> dict[str, Any]:
    sys.path.insert(0, str(EXAMPLES))
    try:
        import stdio_agent  # type: ignore[import-not-found]
    finally:
        sys.path.remove(str(EXAMPLES))
    store = SqliteStore(str(path))
    pipe = Pipe()
    agent = stdio_agent.EchoAgent(pipe, delay=0.01, journal=store)
    serving = asyncio.create_task(agent.serve())
    client = Client(pipe)
    out: dict[str, Any] = {}
    try:
        await client.do(acp.Initialize())
        await client.until(lambda: client.conn.sessions or client.events)
        await client.do(acp.NewSession("/tmp"))
        await client.until(lambda: client.conn.sessions)
        (sid,) = client.conn.sessions.keys()

        async def prompt(text: str) -> acp.PromptEnded:
            before = len(client.events)
            await client.do(acp.SessionIntent(sid, acp.SendPrompt((acp.TextContent(text),))))

            def ended() -> list[acp.PromptEnded]:
                return [e for e in client.events[before:] if isinstance(e, acp.PromptEnded)]

            await client.until(ended)
            return ended()[0]

        out["first"] = (await prompt("one two")).stop_reason
        _full(store, True)
        big = "x" * 200_000
        refused = await prompt(big)
        out["while_full"] = refused.stop_reason, refused.error
        out["errors"] = [m["error"] for m in client.received if "error" in m]
        out["big_seen"] = any(big in str(m) for m in client.received[-50:] if "method" in m)
        _full(store, False)
        out["after"] = (await prompt("three four")).stop_reason
    finally:
        await pipe.to_agent.put(None)
        await asyncio.wait_for(serving, TIMEOUT)
        store.close()
    again = SqliteStore(str(path))
    out["stored"] = again.load(sid)
    again.close()
    return out


def test_a_failed_journal_write_is_refused_reported_and_then_the_session_goes_on(
    tmp_path: Path,
) -> None:
    out = asyncio.run(_run(tmp_path / "j.sqlite"))
    assert out["first"] == "end_turn"
    # while the store is full the prompt is answered, with an error, not left hanging
    stop_reason, error = out["while_full"]
    assert stop_reason is None
    assert error is not None
    assert "disk is full" in error["message"]
    # nothing the store refused went out to the client
    assert not out["big_seen"]
    # and once the store has room again the session takes the next prompt as usual
    assert out["after"] == "end_turn"
    stored = out["stored"]
    texts = [
        b.text
        for m in stored.messages.values()
        for b in m.content
        if isinstance(b, acp.TextContent)
    ]
    assert "three four" in " ".join(texts)
    assert all("x" * 1000 not in t for t in texts)


class WatchedStore(SqliteStore):
    """The real store, telling the test when an append failed (so no sleep is needed)."""

    def __init__(self, path: str) -> None:
        super().__init__(path)
        self.failed = asyncio.Event()

    def append(self, session_id: str, updates: Any, state: acp.SessionState) -> None:
        try:
            super().append(session_id, updates, state)
        except StoreError:
            self.failed.set()
            raise


async def _mid_turn(path: Path) -> dict[str, Any]:
    sys.path.insert(0, str(EXAMPLES))
    try:
        import stdio_agent
    finally:
        sys.path.remove(str(EXAMPLES))
    store = WatchedStore(str(path))
    pipe = Pipe()
    agent = stdio_agent.EchoAgent(pipe, delay=0.01, journal=store)
    serving = asyncio.create_task(agent.serve())
    client = Client(pipe)
    out: dict[str, Any] = {}
    try:
        await client.do(acp.Initialize())
        await client.until(lambda: client.events)
        await client.do(acp.NewSession("/tmp"))
        await client.until(lambda: client.conn.sessions)
        (sid,) = client.conn.sessions.keys()
        before = len(client.events)
        words = " ".join(f"w{i}" for i in range(200))
        await client.do(acp.SessionIntent(sid, acp.SendPrompt((acp.TextContent(words),))))
        await client.until(
            lambda: any(
                c.status == "in_progress" and len(c.content) >= 2
                for c in client.conn.view(sid).tool_calls.values()
            )
        )
        # the store refuses every write from now on (as a read-only file would)
        store._db.execute("pragma query_only=on")
        await asyncio.wait_for(store.failed.wait(), TIMEOUT)
        (streaming,) = client.conn.view(sid).tool_calls.values()
        seen = len(streaming.content)
        store._db.execute("pragma query_only=off")  # it works again

        def ended() -> list[acp.PromptEnded]:
            return [e for e in client.events[before:] if isinstance(e, acp.PromptEnded)]

        await client.until(ended)
        out["ended"] = ended()[0].stop_reason
        view = client.conn.view(sid)
        (call,) = view.tool_calls.values()
        out["call"] = call.status
        out["content_at_failure"] = seen
        out["content"] = len(call.content)
        before = len(client.events)
        await client.do(acp.SessionIntent(sid, acp.SendPrompt((acp.TextContent("again"),))))
        await client.until(ended)
        out["after"] = ended()[0].stop_reason
    finally:
        await pipe.to_agent.put(None)
        await asyncio.wait_for(serving, TIMEOUT)
        store.close()
    again = SqliteStore(str(path))
    out["stored"] = again.load(sid)
    out["client"] = client.conn.view(sid)
    again.close()
    return out


def test_a_turn_whose_write_fails_ends_with_error_once_the_store_works_again(
    tmp_path: Path,
) -> None:
    out = asyncio.run(_mid_turn(tmp_path / "j.sqlite"))
    assert out["ended"] == "error"
    assert out["call"] == "failed"
    # the refused tool output never reached the client
    assert out["content"] == out["content_at_failure"]
    assert out["after"] == "end_turn"
    # what the client saw is what the store holds
    assert out["stored"].tool_calls == out["client"].tool_calls
    assert set(out["stored"].messages.keys()) == set(out["client"].messages.keys())
