"""Per-prompt cost: is the bookkeeping of prompts flat as their number grows?

Owns: one measurement, run as `python -m benchmarks.prompts`: N prompt turns, one after the
other, through the agent engine, the client engine (fed the agent's output) and the checker
(fed the two-ended trace), at N, 10 N and 100 N. It prints microseconds per prompt and the
ratio to the smallest N, side by side in one run (never a timed test).
Must not know: anything but the public API.

A turn is: `session/prompt`, the answer, the user message, `running`, two agent text
chunks, `idle` + `end_turn`. Flat means the ratio stays near 1.0: the conversation machine
drops a prompt at the idle that ends its work, the client engine keeps its prompt records in
a persistent map, and the checker's answered-request memory is a bounded window.
"""

from __future__ import annotations

import sys
import time
from typing import Any

import acp_core as acp
from acp_core import Received, decode_message, new_agent, new_client, step
from acp_core.intents import AcceptPrompt, EndTurn, SendAgentText, SendPrompt
from acp_core.values import TextContent

SID = "sess_bench"
HELLO = (TextContent("hello"),)


def _turns(n: int) -> tuple[float, float, float]:
    """Seconds for n turns: (agent + client engines stepping, checker, agent alone)."""
    agent, client = new_agent(SID), new_client(SID)
    trace: list[dict[str, Any]] = []
    agent_time = 0.0
    start = time.perf_counter()
    for _ in range(n):
        client, out = step(client, SendPrompt(HELLO))
        trace += [{"from": "client", "message": w} for w in out]
        t = time.perf_counter()
        agent = step(agent, Received(decode_message(out[0]))).state
        replies: list[dict[str, Any]] = []
        for intent in (AcceptPrompt(out[0]["id"]), SendAgentText("a"), SendAgentText("b"),
                       EndTurn()):  # fmt: skip
            agent, sent = step(agent, intent)
            replies += sent
        agent_time += time.perf_counter() - t
        trace += [{"from": "agent", "message": w} for w in replies]
        for wire in replies:
            client = step(client, Received(decode_message(wire))).state
    engines = time.perf_counter() - start
    t = time.perf_counter()
    assert acp.check_trace(trace) == ()
    checker = time.perf_counter() - t
    assert engines.sent_prompt(client, n - 1) is not None
    assert engines.sent_prompt(client, n - 1).ended  # type: ignore[union-attr]
    return engines, checker, agent_time


def main(base: int = 100) -> None:
    sizes = (base, 10 * base, 100 * base)
    rows = [(n, *_turns(n)) for n in sizes]
    first = rows[0]
    print(f"{'prompts':>8} {'agent µs/prompt':>16} {'both engines':>13} {'checker':>9}  ratios")
    for n, engines, checker, agent in rows:
        per = (agent / n * 1e6, engines / n * 1e6, checker / n * 1e6)
        ratio = (
            (agent / n) / (first[3] / first[0]),
            (engines / n) / (first[1] / first[0]),
            (checker / n) / (first[2] / first[0]),
        )
        print(
            f"{n:>8} {per[0]:>16.1f} {per[1]:>13.1f} {per[2]:>9.1f}  "
            + " ".join(f"{r:.2f}" for r in ratio)
        )


if __name__ == "__main__":
    main(int(sys.argv[1]) if len(sys.argv) > 1 else 100)
