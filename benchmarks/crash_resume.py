"""Crash and resume under SIGKILL, at every point the attack used (issue 26, "Show").

Usage: python -m benchmarks.crash_resume --kills N [--seed S] [--delay D] [--json]

Each round runs `examples/stdio_agent.py --journal FILE` (the supported store,
`acp_core.aio.SqliteStore`) over real pipes, with acp-core's `ClientConnection` as the client,
kills the agent with SIGKILL at one of five points, and resumes the session on a new agent
process on the same file (`session/resume`, `replayFrom: start`). The rounds cycle through:

1. `mid-stream`: after k updates of the streaming echo tool (k drawn per round);
2. `permission`: while the agent's permission request is open (the client holds it);
3. `snapshot`: right after the session's update count reaches the journal's
   `SNAPSHOT_EVERY` (64; the agent has no flag for it, so the turn streams enough updates),
   at 0, 1 or 2 updates past the boundary (the append that snapshots and compacts);
4. `replay`: a mid-stream kill, then the second agent is killed while it is still writing
   its replay to the resuming client (the history is made larger than a pipe's buffer, the
   client reads only part of it), then a third agent is resumed;
5. `failed-write`: from outside the agent, its file-size limit (`RLIMIT_FSIZE`, set with
   `prlimit` on the running process) is lowered to the journal's current size, so the next
   commit fails (EFBIG, as a full disk); the agent is killed once it says on stderr that it
   is waiting for the journal, after 1 or 2 retries.

After each round the resumed view (a fresh client's, from the replay) is compared with what
the killed agent's client had received, the bytes still in the pipe included:

- **lost**: an entity (message, tool call) of the client's view missing from the resumed
  view (1, plus 1 per content block it had), a content block of it missing or different
  (its content must be a prefix; more is the step in flight at the kill), or 1 if every
  entity is there but the timeline is not a prefix of the resumed one;
- **doubled**: an id twice in the resumed timeline, a content block twice in one entity
  (the echo's words are unique per round), or two messages or tool calls with the same
  text (every prompt of a round differs in its words and length).

The resumed session then takes one more prompt to its end. The table counts rounds (kills),
lost and doubled per point; the exit status is 1 if anything was lost or doubled. The only
randomness is `random.Random(seed)`, for the kill offsets; the seed is printed.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import json
import os
import random
import re
import resource
import signal
import sys
import tempfile
import time
from collections import Counter
from dataclasses import asdict, dataclass, field
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `acp_core` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import acp_core as acp
from acp_core import connection as c
from acp_core import intents as i
from acp_core import values as v

AGENT = Path(__file__).resolve().parents[1] / "examples" / "stdio_agent.py"
POINTS = ("mid-stream", "permission", "snapshot", "replay", "failed-write")
#: The journal's `SNAPSHOT_EVERY` (examples/journal.py); checked against it at start.
SNAPSHOT_EVERY = 64
TIMEOUT = 30.0
JOURNAL = AGENT.parent / "journal.py"
READ = 4096  # small reads, so a kill lands close to the chosen point


@dataclass
class RoundResult:
    """One crash/resume round: where the agent was killed and what the resumed view held."""

    point: str
    kills: int
    lost: int
    doubled: int
    detail: str = ""
    on_point: bool = True  # the kill came where the point says (`replay`: before it ended)
    problems: list[str] = field(default_factory=list)


class Client:
    """A client connection over one agent process's pipes (stdout and stderr read)."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        self.process = process
        self.conn = acp.new_client_connection(c.Implementation("crash-resume", "0"))
        self.events: list[object] = []
        self.updates = 0  # `session/update` notifications received
        self.bytes = 0
        self._line = b""
        self.stderr = b""
        self.hold = False  # hold permission requests open instead of answering them
        self._stderr_task = asyncio.ensure_future(self._read_stderr())

    async def _read_stderr(self) -> None:
        assert self.process.stderr is not None
        while chunk := await self.process.stderr.read(4096):
            self.stderr += chunk

    async def do(self, input: object) -> None:
        step = acp.connection_step(self.conn, input)
        self.conn = step.connection
        self.events.extend(step.events)
        if step.data and self.process.returncode is None:
            assert self.process.stdin is not None
            try:
                self.process.stdin.write(step.data)
                await self.process.stdin.drain()
            except (BrokenPipeError, ConnectionResetError):
                pass

    def take(self, data: bytes) -> bytes:
        """Process received bytes; returns what the connection answers."""
        self.bytes += len(data)
        lines = (self._line + data).split(b"\n")
        self._line = lines.pop()
        for line in lines:
            if b'"session/update"' in line:
                with contextlib.suppress(ValueError):
                    self.updates += json.loads(line).get("method") == "session/update"
        step = acp.receive_bytes(self.conn, data)
        self.conn = step.connection
        self.events.extend(step.events)
        return step.data

    async def until(self, ready: Any, *, size: int = READ) -> None:
        """Read and process bytes until `ready()` holds; permissions answered `allow`
        unless `hold`."""
        assert self.process.stdout is not None
        assert self.process.stdin is not None
        while not ready():
            data = await asyncio.wait_for(self.process.stdout.read(size), TIMEOUT)
            if not data:
                raise RuntimeError(f"the agent closed its output: {self.stderr.decode()[-500:]}")
            out = self.take(data)
            if out:
                self.process.stdin.write(out)
            if self.hold:
                continue
            for session_id, session in self.conn.sessions.items():
                for request_id in list(session.engine.pending.keys()):
                    await self.do(
                        c.SessionIntent(session_id, i.AnswerPermission(request_id, "allow"))
                    )

    def answered(self, method: str) -> bool:
        return any(isinstance(e, c.RequestAnswered) and e.method == method for e in self.events)

    async def kill(self) -> None:
        """SIGKILL the agent; whatever was already in the pipe counts as received too."""
        if self.process.returncode is None:
            self.process.send_signal(signal.SIGKILL)
        # read to the end first: a paused pipe never sees its end, and `wait` waits for it
        assert self.process.stdout is not None
        rest = await asyncio.wait_for(self.process.stdout.read(), TIMEOUT)
        if rest:
            self.take(rest)
        await asyncio.wait_for(self._stderr_task, TIMEOUT)
        await asyncio.wait_for(self.process.wait(), TIMEOUT)

    async def close(self) -> None:
        if self.process.returncode is None:
            assert self.process.stdin is not None
            self.process.stdin.close()
            try:
                await asyncio.wait_for(self.process.wait(), TIMEOUT)
            except TimeoutError:
                self.process.kill()
                await self.process.wait()
        await self._stderr_task


async def _agent(journal: Path, delay: float) -> Client:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(AGENT),
        "--journal",
        str(journal),
        "--delay",
        str(delay),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.PIPE,
        limit=READ,  # buffer little, so the agent cannot run far ahead of what is read
    )
    return Client(process)


async def _start(journal: Path, delay: float) -> tuple[Client, str]:
    client = await _agent(journal, delay)
    await client.do(c.Initialize())
    await client.until(lambda: client.answered("initialize"))
    await client.do(c.NewSession("/tmp"))
    await client.until(lambda: client.conn.sessions)
    (session_id,) = client.conn.sessions.keys()
    return client, session_id


async def _prompt(client: Client, session_id: str, text: str) -> None:
    await client.do(c.SessionIntent(session_id, i.SendPrompt((v.TextContent(text),))))


def _ended(client: Client, session_id: str, turns: int) -> bool:
    ended = [e for e in client.events if isinstance(e, c.PromptEnded)]
    return len(ended) >= turns and client.conn.view(session_id).foreground.state == "idle"


def _streamed(client: Client, session_id: str) -> int:
    """Content blocks of the session's tool call that is streaming now (0 if none)."""
    calls = client.conn.view(session_id).tool_calls.values()
    return max((len(t.content) for t in calls if t.status == "in_progress"), default=0)


async def _resume(journal: Path, delay: float, session_id: str) -> Client:
    client = await _agent(journal, delay)
    await client.do(c.Initialize())
    await client.until(lambda: client.answered("initialize"))
    await client.do(c.ResumeSession(session_id, "/tmp", replay=True))
    return client


def journal_snapshot_every() -> int:
    """The `SNAPSHOT_EVERY` examples/journal.py gives its store (read from its text: the
    module imports the store, which this process need not)."""
    found = re.search(r"^SNAPSHOT_EVERY = (\d+)$", JOURNAL.read_text(), re.MULTILINE)
    if found is None:
        raise RuntimeError(f"no SNAPSHOT_EVERY in {JOURNAL}")
    return int(found.group(1))


def _words(tag: str, n: int, width: int = 0) -> str:
    pad = "x" * width
    return " ".join(f"{tag}w{k}{pad}" for k in range(n))


def _texts(content: Any) -> list[str]:
    out = []
    for block in content:
        inner = getattr(block, "content", block)  # a tool's content wraps a block
        out.append(getattr(inner, "text", repr(inner)))
    return out


def compare(before: acp.SessionState, after: acp.SessionState) -> tuple[int, int, list[str]]:
    """(lost, doubled, what): `after` must hold everything of `before`, nothing twice."""
    lost = 0
    problems: list[str] = []
    timeline = list(after.timeline)
    head = list(before.timeline)
    if timeline[: len(head)] != head:  # a missing entity is counted below, once
        missing = [r for r in head if r not in timeline]
        lost += 0 if missing else 1
        problems.append(f"timeline not a prefix ({len(missing)} records missing)")
    for kind, mine, theirs in (
        ("message", before.messages, after.messages),
        ("tool call", before.tool_calls, after.tool_calls),
    ):
        for entity_id, entity in mine.items():
            other = theirs.get(entity_id)
            if other is None:
                lost += 1 + len(entity.content)
                problems.append(f"{kind} {entity_id} missing")
                continue
            had, has = list(entity.content), list(other.content)
            if has[: len(had)] != had:
                gone = sum(1 for n, x in enumerate(had) if n >= len(has) or has[n] != x)
                lost += gone
                problems.append(f"{kind} {entity_id}: {gone} content blocks missing or changed")
    doubled = 0
    for ref, n in Counter((r.kind, r.id) for r in timeline).items():
        if n > 1:
            doubled += n - 1
            problems.append(f"{ref} {n} times in the timeline")
    whole: Counter[tuple[str, str]] = Counter()
    for kind, entities in (("message", after.messages), ("tool call", after.tool_calls)):
        for entity_id, entity in entities.items():
            texts = _texts(entity.content)
            for text, n in Counter(texts).items():
                if n > 1:
                    doubled += n - 1
                    problems.append(f"{kind} {entity_id}: {text[:30]!r} {n} times")
            role = (
                getattr(entity, "role", None)
                or json.dumps(getattr(entity, "raw_input", None))[:200]
            )
            if texts:
                whole[(kind, f"{role}:{''.join(texts)}")] += 1
    for (kind, text), n in whole.items():
        if n > 1:
            doubled += n - 1
            problems.append(f"two {kind}s with the same text {text[:40]!r}")
    return lost, doubled, problems


async def _failed_write(client: Client, journal: Path, rng: random.Random) -> str:
    """Make the agent's next journal commit fail, from outside: its file-size limit lowered
    to the journal's current size. Returns once it has said it waits for the journal."""
    files = [p for p in journal.parent.iterdir() if p.name.startswith(journal.name)]
    limit = max(p.stat().st_size for p in files)
    hard = resource.prlimit(client.process.pid, resource.RLIMIT_FSIZE)[1]
    resource.prlimit(client.process.pid, resource.RLIMIT_FSIZE, (limit, hard))
    retries = rng.randint(1, 2)

    def failing() -> bool:
        return client.stderr.count(b"waiting for the journal") >= retries

    deadline = time.monotonic() + TIMEOUT
    while not failing():
        if time.monotonic() > deadline:
            raise RuntimeError(f"the write never failed: {client.stderr.decode()[-500:]}")
        try:  # keep the pipe drained (nothing should come while the store fails)
            assert client.process.stdout is not None
            data = await asyncio.wait_for(client.process.stdout.read(READ), 0.02)
        except TimeoutError:
            continue
        if data:
            client.take(data)
    # The line that says it waits (a refused step's own line may come first).
    said = [ln for ln in client.stderr.decode().splitlines() if "waiting for the journal" in ln]
    return f"limit {limit} B, killed after {retries} retries ({said[0][:120] if said else ''})"


async def run_round(
    point: str, rng: random.Random, workdir: Path, *, delay: float = 0.005
) -> RoundResult:
    """One crash/resume round at `point` (one of `POINTS`), journal in `workdir`."""
    journal = workdir / "journal.sqlite"
    tag = f"r{rng.randrange(10**6)}"
    kills = 1
    detail = ""
    on_point = True
    first, sid = await _start(journal, delay)
    try:
        # a finished turn first, so there is history before the crash
        width = 3000 if point == "replay" else 0  # the replay then outgrows a pipe's buffer
        await _prompt(first, sid, _words(tag + "a", 40 if width else 2, width))
        await first.until(lambda: _ended(first, sid, 1))
        if point == "snapshot":
            if journal_snapshot_every() != SNAPSHOT_EVERY:
                raise RuntimeError("examples/journal.py snapshots at another count")
            words = SNAPSHOT_EVERY + 20
        else:
            words = 12
        await _prompt(first, sid, _words(tag + "b", words))
        if point in ("mid-stream", "replay"):
            k = rng.randint(1, words - 1)
            detail = f"after {k} tool updates"
            await first.until(lambda: _streamed(first, sid) >= k, size=256)
        elif point == "permission":
            first.hold = True
            await first.until(lambda: bool(first.conn.sessions[sid].engine.pending), size=256)
            detail = "permission request open"
        elif point == "snapshot":
            j = rng.randint(0, 2)
            detail = f"{j} updates past update {SNAPSHOT_EVERY}"
            await first.until(lambda: first.updates >= SNAPSHOT_EVERY + j, size=128)
        elif point == "failed-write":
            k = rng.randint(1, words - 2)
            await first.until(lambda: _streamed(first, sid) >= k, size=256)
            detail = f"after {k} tool updates, " + await _failed_write(first, journal, rng)
        else:
            raise ValueError(f"unknown kill point {point!r}")
        await first.kill()
        before = first.conn.view(sid)
    finally:
        await first.kill()

    if point == "replay":  # kill the second agent while it writes the replay
        second = await _resume(journal, delay, sid)
        try:
            assert second.process.stdout is not None
            cut = rng.randint(READ, 300_000)  # of a replay of some 490 kB
            while second.bytes < cut and not second.answered("session/resume"):
                data = await asyncio.wait_for(second.process.stdout.read(READ), TIMEOUT)
                if not data:
                    break
                second.take(data)
            await second.kill()
            kills += 1
            on_point = not second.answered("session/resume")  # the bytes left in the pipe too
            detail += f"; second killed {second.bytes} B into its replay" + (
                "" if on_point else " (after it had ended)"
            )
            partial = second.conn.view(sid) if sid in second.conn.sessions else None
        finally:
            await second.kill()
    else:
        partial = None

    last = await _resume(journal, delay, sid)
    try:
        await last.until(lambda: last.answered("session/resume"))
        after = last.conn.view(sid)
        if point == "replay":
            detail += f" of {last.bytes} B"
        lost, doubled, problems = compare(before, after)
        if partial is not None:  # what the cut replay had shown is in the full one too
            more_lost, more_doubled, more = compare(partial, after)
            lost, doubled = lost + more_lost, doubled + more_doubled
            problems += [f"cut replay: {p}" for p in more]
        if last.conn.replay(sid) != "complete":
            problems.append("the replay did not complete")
        # the resumed session goes on
        turns = len([e for e in last.events if isinstance(e, c.PromptEnded)])
        await _prompt(last, sid, tag + "again")
        await last.until(lambda: _ended(last, sid, turns + 1))
        if last.conn.view(sid).foreground.stop_reason != "end_turn":
            problems.append("the next prompt did not end with end_turn")
    finally:
        await last.close()
    return RoundResult(point, kills, lost, doubled, detail, on_point, problems)


def one_round(point: str, seed: int, *, delay: float = 0.005) -> RoundResult:
    """`run_round` in a fresh temporary directory and event loop (for tests)."""
    with tempfile.TemporaryDirectory() as tmp:
        return asyncio.run(run_round(point, random.Random(seed), Path(tmp), delay=delay))


async def run(kills: int, seed: int, delay: float) -> list[RoundResult]:
    rng = random.Random(seed)
    results: list[RoundResult] = []
    n = 0
    while sum(r.kills for r in results) < kills:
        point = POINTS[n % len(POINTS)]
        n += 1
        with tempfile.TemporaryDirectory() as tmp:
            results.append(await run_round(point, rng, Path(tmp), delay=delay))
    return results


def table(results: list[RoundResult]) -> list[dict[str, Any]]:
    rows = []
    for point in POINTS:
        mine = [r for r in results if r.point == point]
        if mine:
            rows.append(
                {
                    "point": point,
                    "rounds": len(mine),
                    "kills": sum(r.kills for r in mine),
                    "on_point": sum(r.on_point for r in mine),
                    "lost": sum(r.lost for r in mine),
                    "doubled": sum(r.doubled for r in mine),
                    "problems": sum(len(r.problems) for r in mine),
                }
            )
    return rows


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--kills", type=int, default=60, help="SIGKILLs in all (default 60)")
    parser.add_argument("--seed", type=int, default=None, help="seed of the kill offsets")
    parser.add_argument("--delay", type=float, default=0.005, help="the agent's --delay")
    parser.add_argument("--json", action="store_true", help="print JSON instead of a table")
    args = parser.parse_args(argv)
    seed = args.seed if args.seed is not None else random.SystemRandom().randrange(2**32)
    started = time.perf_counter()
    results = asyncio.run(run(args.kills, seed, args.delay))
    wall = time.perf_counter() - started
    rows = table(results)
    bad = any(r["lost"] or r["doubled"] or r["problems"] for r in rows)
    if args.json:
        out = {"seed": seed, "wall_s": round(wall, 2), "rows": rows}
        out["rounds"] = [asdict(r) for r in results]
        print(json.dumps(out, indent=1))
    else:
        print(
            f"seed {seed}, {len(results)} rounds, {sum(r['kills'] for r in rows)} kills,"
            f" {wall:.1f} s wall ({os.cpu_count()} CPUs)"
        )
        print(
            f"{'point':<14}{'rounds':>7}{'kills':>7}{'on point':>10}{'lost':>6}"
            f"{'doubled':>9}{'problems':>10}"
        )
        for r in rows:
            print(
                f"{r['point']:<14}{r['rounds']:>7}{r['kills']:>7}{r['on_point']:>10}"
                f"{r['lost']:>6}{r['doubled']:>9}{r['problems']:>10}"
            )
        for result in results:
            for problem in result.problems:
                print(f"  {result.point} ({result.detail}): {problem}")
    return 1 if bad else 0


if __name__ == "__main__":
    sys.exit(main())
