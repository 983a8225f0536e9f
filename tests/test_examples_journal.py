"""Crash and resume over real pipes: the example agent with `--journal`, killed mid-turn.

A client (acp-core's `ClientConnection`, bytes in and out) runs one turn and starts a second;
while the second's tool is streaming, the agent is killed with SIGKILL. A new agent process
on the same journal file is then asked, on a new connection, to resume the session with
`replayFrom: {"type": "start"}`. The replayed view must hold every update the client had
received before the crash; the interrupted turn ends as aborted, its tool failed.
"""

from __future__ import annotations

import asyncio
import signal
import sqlite3
import sys
from pathlib import Path

import acp_core as acp

AGENT = Path(__file__).resolve().parents[1] / "examples" / "stdio_agent.py"
TIMEOUT = 30.0


class Client:
    """One client connection over a child process's pipes."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdin is not None
        assert process.stdout is not None
        self.process = process
        self.conn = acp.new_client_connection(acp.Implementation("journal-test", "0"))
        self.events: list[object] = []

    async def do(self, input: object) -> None:
        step = acp.connection_step(self.conn, input)
        self.conn = step.connection
        self.events.extend(step.events)
        self.process.stdin.write(step.data)  # type: ignore[union-attr]
        await self.process.stdin.drain()  # type: ignore[union-attr]

    async def until(self, ready: object) -> None:
        """Read and process bytes until `ready()` holds; answer permission requests `allow`."""
        while not ready():  # type: ignore[operator]
            data = await asyncio.wait_for(self.process.stdout.read(65536), TIMEOUT)  # type: ignore[union-attr]
            assert data, "the agent closed its output"
            step = acp.receive_bytes(self.conn, data)
            self.conn = step.connection
            self.events.extend(step.events)
            self.process.stdin.write(step.data)  # type: ignore[union-attr]
            for session_id, session in self.conn.sessions.items():
                for request_id in list(session.engine.pending.keys()):
                    await self.do(
                        acp.SessionIntent(session_id, acp.AnswerPermission(request_id, "allow"))
                    )

    def answered(self, method: str) -> bool:
        return any(isinstance(e, acp.RequestAnswered) and e.method == method for e in self.events)


async def _agent(journal: Path) -> asyncio.subprocess.Process:
    return await asyncio.create_subprocess_exec(
        sys.executable,
        str(AGENT),
        "--journal",
        str(journal),
        "--delay",
        "0.2",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )


async def _crash_and_resume(journal: Path) -> tuple[acp.SessionState, acp.SessionState, str]:
    first = Client(await _agent(journal))
    try:
        await first.do(acp.Initialize())
        await first.until(lambda: first.answered("initialize"))
        await first.do(acp.NewSession("/tmp"))
        await first.until(lambda: first.conn.sessions)
        (session_id,) = first.conn.sessions.keys()
        view = lambda: first.conn.view(session_id)  # noqa: E731
        await first.do(acp.SessionIntent(session_id, acp.SendPrompt((acp.TextContent("one two"),))))
        await first.until(lambda: view().foreground.stop_reason == "end_turn")
        words = "three four five six seven eight nine ten eleven twelve"
        await first.do(acp.SessionIntent(session_id, acp.SendPrompt((acp.TextContent(words),))))
        streaming = lambda: any(  # noqa: E731
            c.status == "in_progress" and len(c.content) >= 2 for c in view().tool_calls.values()
        )
        await first.until(streaming)
        first.process.send_signal(signal.SIGKILL)  # mid-turn, mid-tool
        await first.process.wait()
        # whatever was already in the pipe counts as received too
        rest = await first.process.stdout.read()  # type: ignore[union-attr]
        first.conn = acp.receive_bytes(first.conn, rest).connection
        before = view()
    finally:
        if first.process.returncode is None:
            first.process.kill()
            await first.process.wait()

    second = Client(await _agent(journal))
    try:
        await second.do(acp.Initialize())
        await second.until(lambda: second.answered("initialize"))
        await second.do(acp.ResumeSession(session_id, "/tmp", replay=True))
        await second.until(lambda: second.answered("session/resume"))
        assert second.conn.replay(session_id) == "complete"
        replayed = second.conn.view(session_id)
        # the resumed session takes the next prompt as if nothing had happened
        await second.do(acp.SessionIntent(session_id, acp.SendPrompt((acp.TextContent("again"),))))
        await second.until(
            lambda: second.conn.view(session_id).foreground.stop_reason == "end_turn"
        )
        return before, replayed, session_id
    finally:
        second.process.stdin.close()  # type: ignore[union-attr]
        try:
            await asyncio.wait_for(second.process.wait(), TIMEOUT)
        except TimeoutError:
            second.process.kill()
            await second.process.wait()


def test_a_restarted_agent_replays_everything_the_client_had_seen(tmp_path: Path) -> None:
    before, after, _ = asyncio.run(_crash_and_resume(tmp_path / "journal.sqlite"))
    # every entity the client had, in the same order, with at least the content it had
    timeline = list(after.timeline)
    assert list(before.timeline) == timeline[: len(before.timeline)]
    for message_id, message in before.messages.items():
        replayed = after.messages[message_id]
        assert replayed.role == message.role
        assert list(replayed.content)[: len(message.content)] == list(message.content)
    for call_id, call in before.tool_calls.items():
        replayed_call = after.tool_calls[call_id]
        assert replayed_call.title == call.title
        assert list(replayed_call.content)[: len(call.content)] == list(call.content)
    # the turn the crash cut short ends aborted, its tool failed
    assert after.foreground.state == "idle"
    # (`error` is a stop reason from 2026-11 on; the agent speaks the default, the Preview)
    assert after.foreground.stop_reason == "error"
    statuses = [after.tool_calls[r.id].status for r in after.timeline if r.kind == "toolCall"]
    assert statuses == ["completed", "failed"]


def test_the_journal_restores_from_its_latest_snapshot_and_the_tail(tmp_path: Path) -> None:
    sys.path.insert(0, str(AGENT.parent))
    try:
        import journal
    finally:
        sys.path.remove(str(AGENT.parent))
    book = journal.Journal(str(tmp_path / "j.sqlite"))
    state = acp.new_session("s")
    book.open("s", "/tmp")
    for i in range(200):  # three snapshots on the way, and a tail after the last
        update = acp.AgentMessageChunk(f"m{i // 7}", acp.TextContent(str(i)))
        state = acp.reduce(state, update)
        book.append("s", [acp.encode_update(update)], state)
    book.close()
    # three snapshots on the way, each compacting what was behind it: the last one and the tail
    db = sqlite3.connect(tmp_path / "j.sqlite")
    assert db.execute("select count(*) from snapshots").fetchone()[0] == 1
    tail = db.execute("select count(*) from updates").fetchone()[0]
    db.close()
    assert tail == 200 - (200 // journal.SNAPSHOT_EVERY) * journal.SNAPSHOT_EVERY
    again = journal.Journal(str(tmp_path / "j.sqlite"))
    assert again.sessions() == [("s", "/tmp")]
    assert again.load("s", acp.DEFAULT_REVISION) == state
    # appending after a restart continues the sequence
    more = acp.AgentMessageChunk("m99", acp.TextContent("late"))
    state = acp.reduce(state, more)
    again.append("s", [acp.encode_update(more)], state)
    assert again.load("s", acp.DEFAULT_REVISION) == state
