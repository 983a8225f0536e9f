"""`IncrementalCheck.feed` stays flat as a recording's sessions grow (issue 21 item 4).

    PYTHONPATH=<checkout> python benchmarks/incremental_check.py [--sessions 1000 10000]

The recording: the client's `initialize` and the agent's answer, then per session a
`session/new` and its answer and a `session/list` and its answer (so every part of the
checker's memory grows: the sessions' machines, the routing, the JSON-RPC framing, the
session-management answers, what `initialize` advertised). After each size, the CPU time of
one more `feed` (an agent text chunk), best of 5 x 200, in microseconds, and the ratio of the
last size to the first (1.0: flat). Prints one JSON object. Run it once per checkout to
compare two implementations; before the check's memory was persistent throughout, the cost
grew with the sessions (docs/performance.md cites the figures).
"""

from __future__ import annotations

import argparse
import json
import sys
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `acp_core` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from acp_core import codec
from acp_core.checker import IncrementalCheck


def _entry(side: str, message: dict[str, Any]) -> dict[str, Any]:
    return {"from": side, "message": {"jsonrpc": "2.0", **message}}


_SETUP = [
    _entry("client", {"id": 0, "method": "initialize", "params": {
        "protocolVersion": 2, "info": {"name": "c", "version": "1"}, "capabilities": {}}}),
    _entry("agent", {"id": 0, "result": {
        "protocolVersion": 2, "info": {"name": "a", "version": "1"},
        "capabilities": {"session": {"close": {}, "delete": {}, "list": {}}}}}),
]  # fmt: skip
_PROBE = _entry("agent", {"method": "session/update", "params": {"sessionId": "s0", "update": {
    "sessionUpdate": "agent_message_chunk", "messageId": "m", "content": {
        "type": "text", "text": "x"}}}})  # fmt: skip


def sessions(first: int, last: int) -> list[dict[str, Any]]:
    """The entries that open sessions `first` .. `last - 1` (and list them once each)."""
    out = []
    for k in range(first, last):
        new, listed = 10 + 2 * k, 11 + 2 * k
        out += [
            _entry("client", {"id": new, "method": "session/new",
                              "params": {"cwd": "/w", "mcpServers": []}}),
            _entry("agent", {"id": new, "result": {"sessionId": f"s{k}"}}),
            _entry("client", {"id": listed, "method": "session/list", "params": {}}),
            _entry("agent", {"id": listed, "result": {"sessions": []}}),
        ]  # fmt: skip
    return out


def feed_us(check: IncrementalCheck, rounds: int = 200, repeats: int = 5) -> float:
    best = float("inf")
    for _ in range(repeats):
        t0 = time.process_time()
        for _ in range(rounds):
            check.feed(_PROBE)
        best = min(best, (time.process_time() - t0) / rounds)
    return best * 1e6


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--sessions", type=int, nargs="+", default=[1000, 10000])
    args = parser.parse_args(argv)
    check = IncrementalCheck.start(codec.V2_PREVIEW).feed_all(_SETUP)
    done, costs = 0, {}
    for n in sorted(args.sessions):
        check = check.feed_all(sessions(done, n))
        done = n
        costs[str(n)] = round(feed_us(check), 1)
    values = list(costs.values())
    print(json.dumps({"feed_us": costs, "ratio": round(values[-1] / values[0], 2)}))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
