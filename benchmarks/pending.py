"""Per-request cost with many permission requests pending: is it flat as their number grows?

Owns: one measurement, run as `python -m benchmarks.pending`: an agent engine in a turn with
N permission requests pending, then the cost of one more request and its answer, at N = 10,
100, 1,000 and 4,000. It prints microseconds per request-and-answer and the ratio to the
smallest N, side by side in one run (never a timed test). Flat means the ratio stays near 1.0.
Must not know: anything but the public API.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from acp_core import Received, decode_message, new_agent, new_client, step
from acp_core.intents import AcceptPrompt, RequestPermission, SendPrompt
from acp_core.values import PermissionOption, TextContent

SID = "sess_bench"
OPTIONS = (PermissionOption("allow", "Allow", "allow_once"),)
ROUNDS = 200


def _engine_with(n: int) -> Any:
    agent, client = new_agent(SID), new_client(SID)
    client, out = step(client, SendPrompt((TextContent("hi"),)))
    agent = step(agent, Received(decode_message(out[0]))).state
    agent, _ = step(agent, AcceptPrompt(out[0]["id"]))
    for _ in range(n):
        agent, _ = step(agent, RequestPermission("May I?", OPTIONS))
    return agent


def _answer(request_id: object) -> Any:
    result = {"outcome": {"outcome": "selected", "optionId": "allow"}}
    return decode_message({"jsonrpc": "2.0", "id": request_id, "result": result})


def per_request(n: int) -> float:
    """Microseconds for one request and its answer with `n` others pending."""
    agent = _engine_with(n)
    start = time.perf_counter()
    for _ in range(ROUNDS):
        agent, sent = step(agent, RequestPermission("May I?", OPTIONS))
        agent = step(agent, Received(_answer(sent[-1]["id"]))).state
    elapsed = time.perf_counter() - start
    assert len(agent.pending) == n
    return elapsed / ROUNDS * 1e6


def main(sizes: tuple[int, ...] = (10, 100, 1000, 4000)) -> None:
    rows = [(n, per_request(n)) for n in sizes]
    print(f"{'pending':>8} {'µs per request+answer':>22}  ratio")
    for n, cost in rows:
        print(f"{n:>8} {cost:>22.1f}  {cost / rows[0][1]:.2f}")


if __name__ == "__main__":
    main(tuple(int(a) for a in sys.argv[1:]) or (10, 100, 1000, 4000))
