"""A peer naming a fresh session id in every message: memory bounded, per-message cost flat.

    python benchmarks/remembered_ids.py OLD_TREE NEW_TREE [--rounds 3] [--fresh 80000]

Owns: one measurement, old tree and new tree strictly alternating (a package cannot be
imported twice in one process: each run is a fresh process, CPU clock, `gc.freeze()` after
the workloads are built, as benchmarks/run.py does). Two hostile workloads of `--fresh`
rounds (past `MAX_REMEMBERED_IDS`, 65,536): the checker (`IncrementalCheck.feed_all`, in
blocks of 1,000 entries) fed the client's `session/cancel` of a fresh id and the agent's chunk
on another fresh id (J3, never set up), and a live `ClientConnection` fed an agent's chunk on a
fresh id and a `config_option_update` on another. For each: microseconds per message over
the first ten blocks and the last ten (flat: last/first near 1.0), the size the memories
reached, and after it the cost of an ordinary chunk on a named session (the quiet path).
Prints a table of medians over the rounds.
Must not know: anything but the public API and the memories' field names.
"""

from __future__ import annotations

import argparse
import gc
import json
import os
import statistics
import subprocess
import sys
import time
from typing import Any

BLOCK = 1000


def _entry(side: str, message: dict[str, Any]) -> dict[str, Any]:
    return {"from": side, "message": {"jsonrpc": "2.0", **message}}


_TEXT = {"type": "text", "text": "x"}
_INFO = {"name": "x", "version": "1"}


def _chunk(sid: str) -> dict[str, Any]:
    update = {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": _TEXT}
    return {"method": "session/update", "params": {"sessionId": sid, "update": update}}


def _checker(fresh: int) -> dict[str, Any]:
    from acp_core import codec
    from acp_core.checker import IncrementalCheck

    hello = {"protocolVersion": 2, "info": _INFO, "capabilities": {}}
    setup = [
        _entry("client", {"id": 0, "method": "initialize", "params": hello}),
        _entry("agent", {"id": 0, "result": hello}),
        _entry("client", {"id": 1, "method": "session/new", "params": {"cwd": "/w"}}),
        _entry("agent", {"id": 1, "result": {"sessionId": "s0"}}),
    ]
    hostile = []
    for k in range(fresh):
        cancel = {"method": "session/cancel", "params": {"sessionId": f"n{k}"}}
        hostile.append(_entry("client", cancel))
        hostile.append(_entry("agent", _chunk(f"u{k}")))
    blocks = [hostile[i : i + BLOCK] for i in range(0, len(hostile), BLOCK)]
    probe = _entry("agent", _chunk("s0"))
    check = IncrementalCheck.start(codec.V2_PREVIEW).feed_all(setup)
    gc.collect()
    gc.freeze()
    per_block = []
    for block in blocks:
        start = time.process_time()
        check = check.feed_all(block)
        per_block.append((time.process_time() - start) / len(block) * 1e6)
    start = time.process_time()
    for _ in range(2000):
        check.feed(probe)
    quiet = (time.process_time() - start) / 2000 * 1e6
    preview = check._memory.preview  # type: ignore[attr-defined]
    sizes = {n: len(getattr(preview, n)) for n in ("named", "unclaimed", "j3")}
    sizes["book.cancels"] = len(preview.book.cancels)
    return _summary(per_block, quiet, sizes)


def _connection(fresh: int) -> dict[str, Any]:
    from acp_core import connection as c
    from acp_core import intents as i
    from acp_core.codec import decode_message

    def received(message: dict[str, Any]) -> Any:
        return i.Received(decode_message({"jsonrpc": "2.0", **message}))

    conn = c.new_client_connection(c.Implementation("t", "1"))
    step = c.connection_step(conn, c.NewSession("/w"))
    answer = {"id": step.outbound[0]["id"], "result": {"sessionId": "s0"}}
    conn = c.connection_step(step.connection, received(answer)).connection
    options = {"sessionUpdate": "config_option_update", "configOptions": []}
    hostile = []
    for k in range(fresh):
        hostile.append(received(_chunk(f"u{k}")))
        params = {"sessionId": f"o{k}", "update": options}
        hostile.append(received({"method": "session/update", "params": params}))
    probe = received(_chunk("s0"))
    gc.collect()
    gc.freeze()
    per_block = []
    for b in range(0, len(hostile), BLOCK):
        start = time.process_time()
        for message in hostile[b : b + BLOCK]:
            conn = c.connection_step(conn, message).connection
        per_block.append((time.process_time() - start) / BLOCK * 1e6)
    start = time.process_time()
    for _ in range(2000):
        c.connection_step(conn, probe)
    quiet = (time.process_time() - start) / 2000 * 1e6
    sizes = {
        "unclaimed": len(conn.rules.judge.unclaimed),
        "answers.options": len(conn.rules.exchange.answers.options),
    }
    return _summary(per_block, quiet, sizes)


def _summary(per_block: list[float], quiet: float, sizes: dict[str, int]) -> dict[str, Any]:
    first = statistics.median(per_block[:10])
    last = statistics.median(per_block[-10:])
    return {"first": first, "last": last, "flat": last / first, "quiet": quiet, "sizes": sizes}


def _child(fresh: int) -> None:
    print(json.dumps({"checker": _checker(fresh), "connection": _connection(fresh)}))


def _run(tree: str, fresh: int) -> dict[str, Any]:
    env = {**os.environ, "PYTHONPATH": tree}
    cmd = [sys.executable, __file__, "--child", "--fresh", str(fresh)]
    out = subprocess.run(cmd, env=env, capture_output=True, text=True, check=True)
    return json.loads(out.stdout)  # type: ignore[no-any-return]


def main() -> None:
    parser = argparse.ArgumentParser()
    parser.add_argument("trees", nargs="*")
    parser.add_argument("--rounds", type=int, default=3)
    parser.add_argument("--fresh", type=int, default=80_000)
    parser.add_argument("--child", action="store_true")
    args = parser.parse_args()
    if args.child:
        _child(args.fresh)
        return
    old, new = args.trees
    runs: dict[str, list[dict[str, Any]]] = {old: [], new: []}
    for r in range(args.rounds):
        for tree in (old, new) if r % 2 == 0 else (new, old):
            runs[tree].append(_run(tree, args.fresh))
    print(f"{args.fresh} rounds of fresh ids, medians of {args.rounds} alternating runs (µs)")
    for workload in ("checker", "connection"):
        print(f"\n{workload}:")
        head = f"{'first 10k':>9} {'last 10k':>9} {'last/first':>10} {'quiet':>7}"
        print(f"  {'tree':<22} {head}  sizes")
        for tree in (old, new):
            rows = [run[workload] for run in runs[tree]]
            keys = ("first", "last", "flat", "quiet")
            med = {k: statistics.median(row[k] for row in rows) for k in keys}
            print(
                f"  {tree[-22:]:<22} {med['first']:9.2f} {med['last']:9.2f} {med['flat']:10.2f} "
                f"{med['quiet']:7.2f}  {rows[-1]['sizes']}"
            )


if __name__ == "__main__":
    main()
