"""Two trees side by side: a client connection's per-message CPU cost, live and in a replay.

Usage: python benchmarks/replay_window.py OLD_TREE NEW_TREE [--rounds N]

Each round runs one fresh process per tree (old, new; the next round new, old), so a package
is never imported twice. Each process feeds the `mixed` workload's updates (5,000, as NDJSON
reads) through a `ClientConnection` at the default revision twice: `live` (an open session:
the update runs and the judge's quiet path) and `replay` (the same updates as the history of
a `ResumeSession(replay=True)`: a replaying session takes the general path for every update,
then the marker and the answer). It prints the median over rounds of each tree's best-of-3
CPU microseconds per message and the ratio new/old. Written for issue 21's one replay home:
where the client connection asks the protocol machine instead of keeping a window string.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
import warnings
from pathlib import Path
from typing import Any

SID = "sess_bench"


def measure(repeats: int) -> dict[str, float]:
    """This process's tree (first on `sys.path`): best-of-`repeats` CPU µs per message."""
    import acp_core
    from benchmarks import bytes_phase
    from benchmarks.workloads import mixed

    wire = mixed(5_000).v2
    reads = bytes_phase.ndjson_reads(SID, wire)
    live = bytes_phase.open_client(SID)
    marker = {"sessionId": SID, "update": {"sessionUpdate": "replay_complete"}}
    end = acp_core.encode_ndjson({"jsonrpc": "2.0", "method": "session/update", "params": marker})

    def run_live() -> Any:
        return bytes_phase.acp_connection(live, reads)

    def run_replay() -> Any:
        conn = acp_core.new_client_connection(acp_core.Implementation("bench", "0"))
        step = acp_core.connection_step(conn, acp_core.ResumeSession(SID, "/b", replay=True))
        conn = bytes_phase.acp_connection(step.connection, reads)
        conn = acp_core.receive_bytes(conn, end).connection
        answer = {"jsonrpc": "2.0", "id": step.outbound[0]["id"], "result": {}}
        return acp_core.receive_bytes(conn, acp_core.encode_ndjson(answer)).connection

    out = {}
    for name, fn in (("live", run_live), ("replay", run_replay)):
        best = float("inf")
        for _ in range(repeats):
            start = time.process_time()
            fn()
            best = min(best, time.process_time() - start)
        out[name] = 1e6 * best / len(wire)
    return out


def main() -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("old", type=Path, nargs="?")
    parser.add_argument("new", type=Path, nargs="?")
    parser.add_argument("--rounds", type=int, default=4)
    parser.add_argument("--child", action="store_true", help=argparse.SUPPRESS)
    args = parser.parse_args()
    if args.child:
        warnings.simplefilter("ignore")  # the old tree's root aliases warn on import
        print(json.dumps(measure(3)))
        return 0
    runs: dict[str, list[dict[str, float]]] = {"old": [], "new": []}
    for r in range(args.rounds):
        order = (("old", args.old), ("new", args.new))
        for label, tree in order if r % 2 == 0 else order[::-1]:
            cmd = [sys.executable, str(Path(__file__).resolve()), "--child"]
            env = {**os.environ, "PYTHONPATH": str(tree)}
            done = subprocess.run(
                cmd, cwd=tree, env=env, capture_output=True, text=True, check=True
            )
            runs[label].append(json.loads(done.stdout))
    for kind in ("live", "replay"):
        old = statistics.median(x[kind] for x in runs["old"])
        new = statistics.median(x[kind] for x in runs["new"])
        print(f"{kind:6} old {old:6.2f} us/msg  new {new:6.2f} us/msg  new/old {new / old:.3f}")
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
