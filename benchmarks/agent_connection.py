"""Per-message cost on an agent connection as its sessions grow: what the host's sends cost.

Owns: one measurement, run as `python -m benchmarks.agent_connection`: an agent connection with
N open sessions (N = 1, 100, 1,000), a prompt running on one of them, then the CPU cost of the
host's common sends there (a text chunk, a tool call started and finished, a permission request
with the client's answer) and of a client's request naming an announced child (answered -32602:
its owner is looked up). It prints microseconds per round and the ratio to N = 1 in one run
(never a timed test). Compare two trees by running it with each on PYTHONPATH, alternating.
Must not know: anything but the public API.
"""

from __future__ import annotations

import json
import sys
import time

import acp_core as acp
from acp_core import connection as c
from acp_core import intents as i
from acp_core import values as v

ROUNDS = 400
SIZES = (1, 100, 1000)
_INFO = c.Implementation("bench-agent", "1")


def _line(message: dict[str, object]) -> bytes:
    return (json.dumps(message) + "\n").encode()


def _connection_with(n: int) -> acp.AgentConnection:
    conn = acp.new_agent_connection(_INFO)
    init = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 2}}
    conn = acp.receive_bytes(conn, _line(init)).connection
    for k in range(n):
        new = {"jsonrpc": "2.0", "id": 1 + k, "method": "session/new"}
        conn = acp.receive_bytes(conn, _line({**new, "params": {"cwd": "/w", "mcpServers": []}}))
        conn = conn.connection
    params = {"sessionId": "sess_1", "prompt": [{"type": "text", "text": "hi"}]}
    prompt = {"jsonrpc": "2.0", "id": "p", "method": "session/prompt", "params": params}
    conn = acp.receive_bytes(conn, _line(prompt)).connection
    return acp.connection_step(conn, c.SessionIntent("sess_1", i.AcceptPrompt("p"))).connection


def per_send(n: int) -> dict[str, float]:
    """Microseconds per chunk, per tool call (start and finish) and per permission round."""
    conn = _connection_with(n)
    out: dict[str, float] = {}
    say = c.SessionIntent
    start = time.process_time()
    for _ in range(ROUNDS):
        conn = acp.connection_step(conn, say("sess_1", i.SendAgentText("x"))).connection
    out["chunk"] = (time.process_time() - start) / ROUNDS * 1e6
    start = time.process_time()
    for k in range(ROUNDS):
        call = i.StartToolCall("read", f"t{k}", kind="read")
        conn = acp.connection_step(conn, say("sess_1", call)).connection
        conn = acp.connection_step(conn, say("sess_1", i.FinishToolCall(f"t{k}"))).connection
    out["tool call"] = (time.process_time() - start) / ROUNDS * 1e6
    option = v.PermissionOption("a", "Allow", "allow_once")
    start = time.process_time()
    for _ in range(ROUNDS):
        ask = i.RequestPermission("Run?", (option,))
        step = acp.connection_step(conn, say("sess_1", ask))
        rid = next(m["id"] for m in step.outbound if "id" in m)
        answer = {"outcome": {"outcome": "selected", "optionId": "a"}}
        conn = acp.receive_bytes(
            step.connection, _line({"jsonrpc": "2.0", "id": rid, "result": answer})
        ).connection
    out["permission"] = (time.process_time() - start) / ROUNDS * 1e6
    announce = i.SendUpdate(v.SubagentUpdate("c1", title="child"))
    conn = acp.connection_step(conn, say("sess_1", announce)).connection
    start = time.process_time()
    for k in range(ROUNDS):  # a restricted request naming the child: its owner is looked up
        close = {"jsonrpc": "2.0", "id": f"x{k}", "method": "session/close"}
        conn = acp.receive_bytes(conn, _line({**close, "params": {"sessionId": "c1"}})).connection
    out["child request"] = (time.process_time() - start) / ROUNDS * 1e6
    return out


def main() -> int:
    rows = {n: per_send(n) for n in SIZES}
    base = rows[SIZES[0]]
    print("sessions  " + "  ".join(f"{k} us (ratio)" for k in base))
    for n, row in rows.items():
        cells = "  ".join(f"{row[k]:9.1f} ({row[k] / base[k]:4.2f}x)" for k in base)
        print(f"{n:8d}  {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
