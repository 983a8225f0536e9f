"""The checker at the Preview revision: `check_trace` over a large trace, and the fork cost.

    PYTHONPATH=<checkout> python benchmarks/preview_check.py [--copies N] [--repeats R]

The trace: every good and bad trace of the Preview rule table (tests/preview_traces.py),
each copied N times with its session, request, tool call, terminal and message ids renamed
per copy, one after another (a long connection with many sessions, children, resumes, keys
and cancels). Prints one JSON object: entries, violations (a digest, so two checkouts can be
compared), entries per CPU second of `check_trace` (best of R; CPU time, as the machine may
be shared), and, after a quarter, half and all of the trace, the cost of a fork (an
`IncrementalCheck` fed nothing: `feed_all(())`) and of feeding one more entry (`feed`: flat
as the connection's sessions grow), in microseconds, best of R. Run it once per checkout in
the same shell to compare two implementations (a checkout from before `IncrementalCheck`
measures its `TraceCheck.extended`).
"""

from __future__ import annotations

import argparse
import hashlib
import json
import sys
import time
from pathlib import Path
from typing import Any

sys.path.insert(0, str(Path(__file__).resolve().parent.parent / "tests"))

from preview_traces import CASES

from acp_core import checker as ck
from acp_core import codec


def _start(revision: Any) -> Any:
    incremental = getattr(ck, "IncrementalCheck", None)
    if incremental is not None:
        return incremental.start(revision)
    from acp_core._rules._check import TraceCheck  # a checkout from before IncrementalCheck

    check = TraceCheck(revision)
    return _Old(check)


class _Old:
    """`TraceCheck` read as an `IncrementalCheck` (feed_all, feed)."""

    def __init__(self, check: Any) -> None:
        self.check = check

    def feed_all(self, entries: Any) -> Any:
        return _Old(self.check.extended(entries))

    def feed(self, entry: Any) -> Any:
        return _Old(self.check.extended((entry,)))

_RENAMED = frozenset(
    {
        *("sessionId", "senderSessionId", "recipientSessionId", "parentSessionId"),
        *("id", "requestId", "toolCallId", "terminalId", "messageId", "idempotencyKey"),
    }
)


def _renamed(x: Any, k: int) -> Any:
    if isinstance(x, dict):
        out = {}
        for key, value in x.items():
            if key in _RENAMED and isinstance(value, str):
                out[key] = f"{value}~{k}"
            elif key in _RENAMED and isinstance(value, int) and not isinstance(value, bool):
                out[key] = value + 1_000_000 * k
            else:
                out[key] = _renamed(value, k)
        return out
    if isinstance(x, list):
        return [_renamed(item, k) for item in x]
    return x


def workload(copies: int) -> list[Any]:
    traces = [t for _rule, good, bad, _i in CASES for t in (good, bad)]
    return [_renamed(e, k) for k in range(copies) for t in traces for e in t]


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser()
    parser.add_argument("--copies", type=int, default=20)
    parser.add_argument("--repeats", type=int, default=5)
    args = parser.parse_args(argv)
    entries = workload(args.copies)
    revision = codec.V2_PREVIEW
    best = float("inf")
    found: tuple[Any, ...] = ()
    for _ in range(args.repeats):
        t0 = time.process_time()
        found = ck.check_trace(entries, revision=revision)
        best = min(best, time.process_time() - t0)
    digest = hashlib.sha256(
        json.dumps([x.to_json() for x in found], sort_keys=True).encode()
    ).hexdigest()[:16]
    forks, feeds = {}, {}
    check = _start(revision)
    done = 0
    probe = entries[0]  # one more entry: the first trace's first line, renamed into copy 0
    for share in (4, 2, 1):
        upto = len(entries) // share
        check = check.feed_all(entries[done:upto])
        done = upto
        fork = feed = float("inf")
        for _ in range(args.repeats):
            t0 = time.process_time()
            for _ in range(20):
                check.feed_all(())
            fork = min(fork, (time.process_time() - t0) / 20)
            t0 = time.process_time()
            for _ in range(20):
                check.feed(probe)
            feed = min(feed, (time.process_time() - t0) / 20)
        forks[f"after_{upto}"] = round(fork * 1e6, 1)
        feeds[f"after_{upto}"] = round(feed * 1e6, 1)
    print(
        json.dumps(
            {
                "entries": len(entries),
                "violations": len(found),
                "digest": digest,
                "check_trace_entries_per_s": round(len(entries) / best),
                "fork_us": forks,
                "feed_us": feeds,
            }
        )
    )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
