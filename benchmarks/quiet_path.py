"""The conversation machine's quiet path, two trees side by side (issue 21 item 2).

Usage: python benchmarks/quiet_path.py OLD_TREE NEW_TREE [--rounds N]
       python benchmarks/quiet_path.py --one TREE   (one tree, prints JSON)

A session in a working turn (a prompt answered, `running`, its user message and a first agent
chunk reported) meets what most traffic is: another chunk of the same message and a usage
update (both on the quiet path: `observe` returns the same machine), and, for scale, a tool
call update naming a new tool call (the full path: an observation, the effect, a new machine).
Each figure is the CPU time per call in nanoseconds (`time.process_time`, best of 5). A package
cannot be imported twice in one process, so each round runs each tree in a fresh process (old,
new; the next round new, old); the table shows the medians over the rounds and of the ratio
new / old per round.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import subprocess
import sys
import time
from pathlib import Path
from typing import Any

SID = "sess_1"
FIGURES = ("quiet_chunk_ns", "quiet_usage_ns", "full_new_tool_ns")


def measure() -> dict[str, float]:
    from acp_core._rules._conversation import Conversation, observe
    from acp_core._wire._codec import decode_message

    def message(wire: dict[str, Any]) -> object:
        return decode_message({"jsonrpc": "2.0", **wire})

    def update(body: dict[str, Any]) -> object:
        return message({"method": "session/update", "params": {"sessionId": SID, "update": body}})

    text = {"type": "text", "text": "hi"}
    user = {"sessionUpdate": "user_message_chunk", "messageId": "u1", "content": text}
    agent = {"sessionUpdate": "agent_message_chunk", "messageId": "m1", "content": text}
    prompt = {"sessionId": SID, "prompt": [text]}
    steps = [
        ("client", message({"id": 1, "method": "session/prompt", "params": prompt})),
        ("agent", update({"sessionUpdate": "state_update", "state": "running"})),
        ("agent", message({"id": 1, "result": {"messageId": "u1"}})),
        ("agent", update(user)),
        ("agent", update(agent)),
    ]
    conv = Conversation.start()
    for at, (sender, msg) in enumerate(steps):
        conv, _ = observe(conv, sender, msg, at=at)  # type: ignore[arg-type]
    chunk = update({**agent, "content": {"type": "text", "text": "more"}})
    usage = update({"sessionUpdate": "usage_update", "used": 1, "size": 10})
    tool = update({"sessionUpdate": "tool_call_update", "toolCallId": "t7", "status": "pending"})
    assert observe(conv, "agent", chunk, at=9)[0] is conv
    assert observe(conv, "agent", usage, at=9)[0] is conv
    assert observe(conv, "agent", tool, at=9)[0] is not conv

    def best(msg: object, calls: int) -> float:
        figure = float("inf")
        for _ in range(5):
            start = time.process_time()
            for _ in range(calls):
                observe(conv, "agent", msg, at=9)
            figure = min(figure, (time.process_time() - start) / calls * 1e9)
        return round(figure, 1)

    return dict(
        zip(FIGURES, (best(chunk, 100_000), best(usage, 100_000), best(tool, 20_000)), strict=True)
    )


def _run_tree(tree: Path) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", str(tree)]
    done = subprocess.run(cmd, cwd=tree, env=env, check=True, capture_output=True, text=True)
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path)
    parser.add_argument("--one", type=Path, help="measure this tree in this process")
    parser.add_argument("--rounds", type=int, default=4)
    args = parser.parse_args(argv)
    if args.one is not None:
        sys.path.insert(0, str(args.one.resolve()))
        print(json.dumps(measure()))
        return 0
    old, new = (t.resolve() for t in args.trees)
    runs: dict[Path, list[dict[str, float]]] = {old: [], new: []}
    for r in range(args.rounds):
        for tree in (old, new) if r % 2 == 0 else (new, old):
            runs[tree].append(_run_tree(tree))
    for name in FIGURES:
        olds = [run[name] for run in runs[old]]
        news = [run[name] for run in runs[new]]
        ratios = [n / o for o, n in zip(olds, news, strict=True)]
        print(
            f"{name}: old {statistics.median(olds):.0f} ns, new {statistics.median(news):.0f} ns "
            f"(medians of {args.rounds}); new/old {statistics.median(ratios):.3f} (per round: "
            + ", ".join(f"{x:.3f}" for x in ratios)
            + ")"
        )
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
