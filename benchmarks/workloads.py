"""Deterministic synthetic session-update workloads, as wire dicts.

Owns: the five benchmark workloads (`stream_small`, `stream_large`, `mixed`, `many_tools`,
`terminal`) as lists of v2 `session/update` payloads (the `update` object), plus the
equivalent v1 traffic for the official Python SDK where v1 can express it.
Must not know: any implementation under test.

Every workload is a pure function of its size: a small linear congruential generator (not
`random`, whose algorithms may change between Python versions) picks words, lengths and
branches, so two runs see byte-identical traffic. Each event is a fresh dict holding fresh
strings, as `json.loads` would hand them over, so nothing is shared between events by
accident.
"""

from __future__ import annotations

import base64
from dataclasses import dataclass, field
from typing import Any

__all__ = [
    "SESSION_ID",
    "Workload",
    "build_all",
    "many_tools",
    "mixed",
    "stream",
    "stream_large",
    "stream_small",
    "terminal",
]

Wire = dict[str, Any]

SESSION_ID = "sess_bench"

_WORDS = (
    "the", "agent", "reads", "file", "and", "then", "edits", "function", "to", "fix", "a",
    "bug", "in", "parser", "while", "tests", "run", "quickly", "on", "each", "change", "so",
    "reducer", "state", "stays", "pure", "value", "stream", "token", "output", "with", "code",
    "```python", "def", "return", "None", "import", "class", "self", "for", "if", "else",
    "\n", "\n\n", "- ", "**note**", "`x`", "é", "数据", "🙂",
)  # fmt: skip


class Rng:
    """A 64-bit LCG (Knuth's MMIX constants): tiny, fast and stable across versions."""

    __slots__ = ("_x",)

    def __init__(self, seed: int) -> None:
        self._x = seed & 0xFFFFFFFFFFFFFFFF

    def below(self, n: int) -> int:
        """An integer in [0, n)."""
        self._x = (self._x * 6364136223846793005 + 1442695040888963407) & 0xFFFFFFFFFFFFFFFF
        return (self._x >> 33) % n

    def word(self) -> str:
        # A fresh str object per call (as a JSON parser would produce), never a shared constant.
        return "".join((" ", _WORDS[self.below(len(_WORDS))]))


@dataclass
class Workload:
    """One workload: v2 traffic, the equivalent v1 traffic, and what it is made of.

    Attributes:
        name: the workload's name in tables and JSON.
        description: one line for the report.
        v2: the `update` objects of `session/update` notifications, in order.
        v1: equivalent v1 `update` objects for the Python SDK (None: v1 cannot express it).
        v1_note: how v1 traffic differs (events v1 has no counterpart for, and so on).
        text_chunks: how many of the v2 events are text message chunks.
        kinds: count of v2 events per `sessionUpdate` tag.
    """

    name: str
    description: str
    v2: list[Wire]
    v1: list[Wire] | None
    v1_note: str = ""
    text_chunks: int = 0
    kinds: dict[str, int] = field(default_factory=dict)


class _Emitter:
    """Builds v2 traffic and its v1 counterpart side by side."""

    def __init__(self) -> None:
        self.v2: list[Wire] = []
        self.v1: list[Wire] = []
        self.v1_tool_content: dict[str, list[Wire]] = {}
        self.text_chunks = 0

    # -- messages -------------------------------------------------------------------------

    def chunk(self, role: str, message_id: str, text: str) -> None:
        tag = f"{role}_chunk"
        self.v2.append(
            {
                "sessionUpdate": tag,
                "messageId": message_id,
                "content": {"type": "text", "text": text},
            }
        )
        # v1 chunks may carry messageId (optional there); the SDK schema accepts it.
        self.v1.append(
            {
                "sessionUpdate": tag,
                "messageId": message_id,
                "content": {"type": "text", "text": text},
            }
        )
        self.text_chunks += 1

    def user_message(self, message_id: str, text: str) -> None:
        self.v2.append(
            {
                "sessionUpdate": "user_message",
                "messageId": message_id,
                "content": [{"type": "text", "text": text}],
            }
        )
        # v2 -> v1: a content-bearing upsert on a fresh id becomes one chunk per block.
        self.v1.append(
            {
                "sessionUpdate": "user_message_chunk",
                "messageId": message_id,
                "content": {"type": "text", "text": text},
            }
        )

    # -- session-level --------------------------------------------------------------------

    def state(self, state: str, stop_reason: str | None = None) -> None:
        upd: Wire = {"sessionUpdate": "state_update", "state": state}
        if stop_reason is not None:
            upd["stopReason"] = stop_reason
        self.v2.append(upd)  # v1 has no state updates (turn ends are the prompt response)

    def usage(self, used: int, size: int, cents: int) -> None:
        cost = {"amount": cents / 100, "currency": "USD"}
        self.v2.append({"sessionUpdate": "usage_update", "used": used, "size": size, "cost": cost})
        self.v1.append(
            {"sessionUpdate": "usage_update", "used": used, "size": size, "cost": dict(cost)}
        )

    def info(self, title: str, updated_at: str) -> None:
        self.v2.append(
            {"sessionUpdate": "session_info_update", "title": title, "updatedAt": updated_at}
        )
        self.v1.append(
            {"sessionUpdate": "session_info_update", "title": title, "updatedAt": updated_at}
        )

    def commands(self, names: list[str]) -> None:
        self.v2.append(
            {
                "sessionUpdate": "available_commands_update",
                "availableCommands": [
                    {
                        "name": n,
                        "description": f"run {n}",
                        "input": {"type": "text", "hint": "args"},
                    }
                    for n in names
                ],
            }
        )
        self.v1.append(
            {
                "sessionUpdate": "available_commands_update",
                "availableCommands": [
                    {"name": n, "description": f"run {n}", "input": {"hint": "args"}} for n in names
                ],
            }
        )

    def plan(self, plan_id: str, entries: list[tuple[str, str, str]]) -> None:
        self.v2.append(
            {
                "sessionUpdate": "plan_update",
                "plan": {
                    "type": "items",
                    "planId": plan_id,
                    "entries": [{"content": c, "priority": p, "status": s} for c, p, s in entries],
                },
            }
        )
        self.v1.append(
            {
                "sessionUpdate": "plan",
                "entries": [{"content": c, "priority": p, "status": s} for c, p, s in entries],
            }
        )

    # -- tool calls -----------------------------------------------------------------------

    def tool_create(self, call_id: str, title: str, kind: str, path: str) -> None:
        self.v2.append(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": call_id,
                "title": title,
                "kind": kind,
                "status": "pending",
                "locations": [{"path": path}],
                "rawInput": {"path": path, "limit": 200},
            }
        )
        self.v1.append(
            {
                "sessionUpdate": "tool_call",
                "toolCallId": call_id,
                "title": title,
                "kind": kind,
                "status": "pending",
                "locations": [{"path": path}],
                "rawInput": {"path": path, "limit": 200},
            }
        )
        self.v1_tool_content[call_id] = []

    def tool_status(self, call_id: str, status: str, raw_output: Wire | None = None) -> None:
        upd: Wire = {"sessionUpdate": "tool_call_update", "toolCallId": call_id, "status": status}
        v1: Wire = dict(upd)
        if raw_output is not None:
            upd["rawOutput"] = raw_output
            v1["rawOutput"] = dict(raw_output)
        self.v2.append(upd)
        self.v1.append(v1)

    def tool_chunk(self, call_id: str, text: str) -> None:
        item = {"type": "content", "content": {"type": "text", "text": text}}
        self.v2.append(
            {"sessionUpdate": "tool_call_content_chunk", "toolCallId": call_id, "content": item}
        )
        # v1 cannot append: the bridge re-sends the whole content array (digest 6.3).
        acc = self.v1_tool_content.setdefault(call_id, [])
        acc.append(item)
        self.v1.append(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": call_id,
                "content": [{"type": "content", "content": dict(i["content"])} for i in acc],
            }
        )

    def tool_terminal_ref(self, call_id: str, terminal_id: str) -> None:
        self.v2.append(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": call_id,
                "title": "Run tests",
                "kind": "execute",
                "status": "in_progress",
                "content": [{"type": "terminal", "terminalId": terminal_id}],
            }
        )

    # -- terminals ------------------------------------------------------------------------

    def terminal_update(self, terminal_id: str, **fields: Any) -> None:
        self.v2.append({"sessionUpdate": "terminal_update", "terminalId": terminal_id, **fields})

    def terminal_chunk(self, terminal_id: str, data: bytes) -> None:
        self.v2.append(
            {
                "sessionUpdate": "terminal_output_chunk",
                "terminalId": terminal_id,
                "data": base64.b64encode(data).decode("ascii"),
            }
        )


def _kinds(events: list[Wire]) -> dict[str, int]:
    out: dict[str, int] = {}
    for e in events:
        out[e["sessionUpdate"]] = out.get(e["sessionUpdate"], 0) + 1
    return out


def _finish(name: str, description: str, em: _Emitter, v1: bool, v1_note: str) -> Workload:
    return Workload(
        name=name,
        description=description,
        v2=em.v2,
        v1=em.v1 if v1 else None,
        v1_note=v1_note,
        text_chunks=em.text_chunks,
        kinds=_kinds(em.v2),
    )


def stream(name: str, chunks: int, seed: int = 1) -> Workload:
    """One agent message streamed as `chunks` text chunks (the hot path of every client)."""
    rng = Rng(seed)
    em = _Emitter()
    for _ in range(chunks):
        em.chunk("agent_message", "msg_1", rng.word())
    return _finish(name, f"one agent message of {chunks:,} text chunks", em, True, "same events")


def stream_small() -> Workload:
    """`stream` with 1,000 chunks."""
    return stream("stream_small", 1_000)


def stream_large(chunks: int = 100_000) -> Workload:
    """`stream` with 100,000 chunks (30,000 with --quick)."""
    return stream("stream_large", chunks)


_KINDS = ("read", "edit", "search", "execute", "fetch", "think")
_STATUSES = ("pending", "in_progress", "completed")
_PRIORITIES = ("high", "medium", "low")


def mixed(events: int = 100_000, seed: int = 7) -> Workload:
    """A long conversation: turns of user message, thoughts, agent messages, tool calls.

    Per turn: a user message (upsert or chunks), `running`, a thought (chunks), then
    alternating agent message segments and tool calls (create, in_progress, 1-3 content
    chunks, completed), a plan now and then, usage, and `idle`. Tool-call traffic is about
    20% of events. Generation stops at exactly `events` v2 events.
    """
    rng = Rng(seed)
    em = _Emitter()
    em.commands(["web", "test", "plan"])
    em.info("Benchmark session", "2026-01-01T00:00:00Z")
    turn = 0
    tool_n = 0
    msg_n = 0
    used = 1000
    while len(em.v2) < events:
        turn += 1
        msg_n += 1
        user_id = f"msg_{msg_n}"
        if rng.below(2):
            em.user_message(user_id, "".join(rng.word() for _ in range(12)))
        else:
            for _ in range(1 + rng.below(3)):
                em.chunk("user_message", user_id, rng.word())
        em.state("running")
        msg_n += 1
        thought_id = f"msg_{msg_n}"
        for _ in range(8 + rng.below(15)):
            em.chunk("agent_thought", thought_id, rng.word())
        if rng.below(3) == 0:
            plan = [
                (f"step {k}", _PRIORITIES[rng.below(3)], _STATUSES[rng.below(3)])
                for k in range(3 + rng.below(4))
            ]
            em.plan("main", plan)
        for _ in range(1 + rng.below(4)):  # agent segments, each followed by a tool call
            msg_n += 1
            agent_id = f"msg_{msg_n}"
            for _ in range(4 + rng.below(16)):
                em.chunk("agent_message", agent_id, rng.word())
            tool_n += 1
            call = f"call_{tool_n}"
            path = f"/work/project/src/mod_{tool_n % 97}.py"
            em.tool_create(call, f"Read {path}", _KINDS[rng.below(len(_KINDS))], path)
            em.tool_status(call, "in_progress")
            for _ in range(1 + rng.below(3)):
                em.tool_chunk(call, rng.word() + rng.word())
            em.tool_status(call, "completed", {"lines": rng.below(500)})
        used += 500 + rng.below(2000)
        em.usage(used, 200_000, turn * 3)
        em.state("idle", "end_turn")
        if turn % 50 == 0:
            em.info(f"Benchmark session, turn {turn}", f"2026-01-01T00:{turn % 60:02d}:00Z")
    # Trim to the exact size (v1 keeps the last turn whole: it is only ever used as a prefix).
    del em.v2[events:]
    kinds = _kinds(em.v2)
    tool = kinds.get("tool_call_update", 0) + kinds.get("tool_call_content_chunk", 0)
    wl = _finish(
        "mixed",
        f"{events:,} events over {turn:,} turns, {tool / events:.0%} tool-call traffic",
        em,
        True,
        "no state_update in v1; tool content chunks become whole-array tool_call_update",
    )
    wl.text_chunks = sum(
        kinds.get(k, 0)
        for k in ("user_message_chunk", "agent_message_chunk", "agent_thought_chunk")
    )
    return wl


def many_tools(calls: int = 10_000, seed: int = 11) -> Workload:
    """`calls` tool calls of 4 updates each (create, in_progress, content chunk, completed),
    eight calls in flight at a time so their updates interleave."""
    rng = Rng(seed)
    em = _Emitter()
    batch = 8
    for start in range(0, calls, batch):
        ids = [f"call_{i}" for i in range(start, min(start + batch, calls))]
        for call in ids:
            path = f"/work/project/src/{call}.py"
            em.tool_create(call, f"Edit {path}", _KINDS[rng.below(len(_KINDS))], path)
        for call in ids:
            em.tool_status(call, "in_progress")
        for call in ids:
            em.tool_chunk(call, rng.word() + rng.word())
        for call in ids:
            em.tool_status(call, "completed", {"ok": True})
    return _finish(
        "many_tools",
        f"{calls:,} tool calls x 4 updates, 8 in flight",
        em,
        True,
        "create is v1 tool_call; the content chunk is a whole-array tool_call_update",
    )


def terminal(chunks: int = 50_000, seed: int = 13) -> Workload:
    """A display terminal streaming `chunks` output chunks (32-160 bytes of ANSI-coloured
    text each, split at arbitrary bytes), with a snapshot, a tool-call reference and an exit."""
    rng = Rng(seed)
    em = _Emitter()
    em.tool_terminal_ref("call_term", "term_1")
    em.terminal_update(
        "term_1",
        command="cargo test",
        cwd="/work/project",
        output={"data": base64.b64encode(b"running tests\r\n").decode("ascii")},
    )
    line_no = 0
    pending = b""
    while len(em.v2) < chunks + 2:
        while len(pending) < 200:
            line_no += 1
            colour = b"\x1b[32m" if rng.below(10) else b"\x1b[31m"
            pending += colour + f"test t_{line_no} ... ok".encode() + b"\x1b[0m\r\n"
        cut = 32 + rng.below(129)
        em.terminal_chunk("term_1", pending[:cut])
        pending = pending[cut:]
    em.terminal_update("term_1", exitStatus={"exitCode": 0})
    return _finish(
        "terminal",
        f"one display terminal, {chunks:,} output chunks",
        em,
        False,
        "v1 has no display terminals (its terminals are client-owned)",
    )


def build_all(*, quick: bool) -> list[Workload]:
    """The five workloads at full size, or at the --quick sizes."""
    return [
        stream_small(),
        stream_large(30_000 if quick else 100_000),
        mixed(20_000 if quick else 100_000),
        many_tools(2_000 if quick else 10_000),
        terminal(10_000 if quick else 50_000),
    ]
