"""Per-message cost on a client connection as its sessions grow: is it flat?

Owns: one measurement, run as `python -m benchmarks.connection_sessions`: a client connection
with N open sessions (N = 1, 100, 1,000, 3,000), then the cost, on one of them, of an agent's
permission request received and answered, of a `$/cancel_request` for it, of one
`agent_message_chunk` (decoded, and as bytes read), of a prompt sent, cancelled
(`session/cancel`) and answered `cancelled`, and of a chunk on an announced child. It
prints microseconds per round and the ratio to N = 1, side by side in one run (never a timed
test). Flat means the ratio stays near 1.0.
Must not know: anything but the public API.
"""

from __future__ import annotations

import sys
import time
from typing import Any

from acp_core import connection as c
from acp_core import intents as i
from acp_core import values as v
from acp_core.codec import decode_message

ROUNDS = 300
SIZES = (1, 100, 1000, 3000)


def _connection_with(n: int) -> Any:
    conn = c.new_client_connection(c.Implementation("bench", "1"))
    for k in range(n):
        step = c.connection_step(conn, c.NewSession("/w"))
        request_id = step.outbound[0]["id"]
        answer = {"jsonrpc": "2.0", "id": request_id, "result": {"sessionId": f"s{k}"}}
        conn = c.connection_step(step.connection, i.Received(decode_message(answer))).connection
    return conn


def _permission(request_id: int) -> Any:
    option = {"optionId": "a", "name": "Allow", "kind": "allow_once"}
    params = {"sessionId": "s0", "title": "Run?", "options": [option]}
    wire = {"jsonrpc": "2.0", "id": request_id, "method": "session/request_permission"}
    return i.Received(decode_message({**wire, "params": params}))


def _withdrawal(request_id: int) -> Any:
    params = {"requestId": request_id}
    return i.Received(
        decode_message({"jsonrpc": "2.0", "method": "$/cancel_request", "params": params})
    )


_CHUNK_WIRE = {
    "jsonrpc": "2.0",
    "method": "session/update",
    "params": {
        "sessionId": "s0",
        "update": {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "m1",
            "content": {"type": "text", "text": "x"},
        },
    },
}
_CHUNK = i.Received(decode_message(_CHUNK_WIRE))  # decoded by the host
_CHUNK_LINE = c.encode_ndjson(_CHUNK_WIRE)  # the same message as bytes read


def per_round(n: int) -> dict[str, float]:
    """Microseconds per permission round, withdrawal round, chunk and prompt cancelled, with
    `n` sessions."""
    conn = _connection_with(n)
    out: dict[str, float] = {}
    start = time.process_time()
    for k in range(ROUNDS):
        conn = c.connection_step(conn, _permission(10_000 + k)).connection
        answer = c.SessionIntent("s0", i.AnswerPermission(10_000 + k, "a"))
        conn = c.connection_step(conn, answer).connection
    out["permission"] = (time.process_time() - start) / ROUNDS * 1e6
    start = time.process_time()
    for k in range(ROUNDS):
        conn = c.connection_step(conn, _permission(20_000 + k)).connection
        conn = c.connection_step(conn, _withdrawal(20_000 + k)).connection
    out["withdrawal"] = (time.process_time() - start) / ROUNDS * 1e6
    start = time.process_time()
    for _ in range(ROUNDS):
        conn = c.connection_step(conn, _CHUNK).connection
    out["chunk"] = (time.process_time() - start) / ROUNDS * 1e6
    start = time.process_time()
    for _ in range(ROUNDS):  # the same chunk as bytes read (`receive_bytes`: a run of one)
        conn = c.receive_bytes(conn, _CHUNK_LINE).connection
    out["chunk read"] = (time.process_time() - start) / ROUNDS * 1e6
    start = time.process_time()
    for k in range(ROUNDS):
        prompt = i.SendPrompt((v.TextContent("go"),), request_id=30_000 + k)
        conn = c.connection_step(conn, c.SessionIntent("s0", prompt)).connection
        conn = c.connection_step(conn, c.SessionIntent("s0", i.SendCancel())).connection
        conn = c.connection_step(conn, _cancelled(30_000 + k)).connection
    out["cancel"] = (time.process_time() - start) / ROUNDS * 1e6
    conn = c.connection_step(conn, _update("s0", _ANNOUNCE)).connection
    start = time.process_time()
    for _ in range(ROUNDS):  # a chunk on s0's child: routed by the connection's owner index
        conn = c.connection_step(conn, _CHILD_CHUNK).connection
    out["child chunk"] = (time.process_time() - start) / ROUNDS * 1e6
    return out


def _update(session_id: str, update: dict[str, Any]) -> Any:
    params = {"sessionId": session_id, "update": update}
    return i.Received(
        decode_message({"jsonrpc": "2.0", "method": "session/update", "params": params})
    )


_ANNOUNCE = {"sessionUpdate": "subagent_update", "sessionId": "c0"}
_CHILD_CHUNK = _update(
    "c0",
    {
        "sessionUpdate": "agent_message_chunk",
        "messageId": "k",
        "content": {"type": "text", "text": "x"},
    },
)


def _cancelled(request_id: int) -> Any:
    answer = {"jsonrpc": "2.0", "id": request_id, "result": {"stopReason": "cancelled"}}
    return i.Received(decode_message(answer))


def main() -> int:
    rows = {n: per_round(n) for n in SIZES}
    base = rows[SIZES[0]]
    print(
        "sessions  permission us (ratio)  withdrawal us (ratio)  chunk us (ratio)"
        "  chunk read us (ratio)  cancel us (ratio)  child chunk us (ratio)"
    )
    for n, row in rows.items():
        cells = "  ".join(f"{row[k]:9.1f} ({row[k] / base[k]:4.2f}x)" for k in base)
        print(f"{n:8d}  {cells}")
    return 0


if __name__ == "__main__":
    sys.exit(main())
