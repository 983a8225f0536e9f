"""The agent engine's cost per `step` over a scripted conversation, two trees side by side.

Usage: python benchmarks/engine_steps.py OLD_TREE NEW_TREE [--rounds N] [--turns T] [--json FILE]
       python benchmarks/engine_steps.py --one TREE [--turns T]   (one tree, prints JSON)

The conversation is built from intents and pre-decoded received messages at the default
revision (the Preview), so what is timed is `step` alone: per turn a keyed prompt received
and accepted, streamed text and a thought, a tool call with a permission request answered
and finished, a plan, usage, a child announced (once) and reported on with its own permission
request answered, the background list, a tool-call cancel answered, and the turn ended; every
fourth turn is cancelled by the client instead. A package cannot be imported twice in one
process, so each round runs each tree in a fresh process (old, new; the next round new, old)
and reads the CPU time per step (`time.process_time`, the best of a few repetitions in that
process). The table shows the median over the rounds of each tree's figure and of the ratio
new / old per round, so machine load hits both sides of a ratio alike.
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

SID = "sess_bench"


def _script(turns: int) -> list[object]:
    """The intents (and received messages) of `turns` turns, in order."""
    from acp_core import codec, intents, values

    allow = (
        values.PermissionOption("y", "Allow", "allow_once"),
        values.PermissionOption("n", "Deny", "reject_once"),
    )
    revision = codec.PREVIEW

    def received(wire: dict[str, Any]) -> object:
        return intents.Received(codec.decode_message(wire, strict=True, revision=revision))

    def answer(request_id: int) -> object:
        outcome = {"outcome": "selected", "optionId": "y"}
        return received({"jsonrpc": "2.0", "id": request_id, "result": {"outcome": outcome}})

    tool_cancel = values.ToolCallCapabilities(cancel=values.CancelCapability())
    script: list[object] = [intents.SendUpdate(values.SubagentUpdate("c1", title="helper"))]
    request_id = 0
    for n in range(turns):
        prompt = {
            "jsonrpc": "2.0",
            "id": n + 1,
            "method": "session/prompt",
            "params": {
                "sessionId": SID,
                "prompt": [{"type": "text", "text": f"question {n}"}],
                "idempotencyKey": f"key-{n}",
            },
        }
        script += [received(prompt), intents.AcceptPrompt(n + 1)]
        script += [intents.SendAgentText(f"part {k} ") for k in range(4)]
        script.append(intents.SendThought("thinking"))
        if n % 4 == 3:  # the client cancels this turn
            cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SID}}
            script += [received(cancel), intents.EndTurn()]
            continue
        tool = f"t{n}"
        script.append(intents.StartToolCall("read", tool_call_id=tool))
        script += [intents.RequestPermission("Read?", allow, tool_call_id=tool), answer(request_id)]
        request_id += 1
        script.append(intents.FinishToolCall(tool))
        script.append(intents.ReportPlan((values.PlanEntry("step", "high", "completed"),)))
        script.append(intents.ReportUsage(100 * n, 10_000))
        child_tool = f"c{n}"
        child_call = values.ToolCallUpdate(
            child_tool, title="run", status="in_progress", capabilities=tool_cancel
        )
        script.append(intents.SendUpdate(child_call, session_id="c1"))
        script.append(
            intents.SendUpdate(values.AgentMessageChunk(f"cm{n}", values.TextContent("x")), "c1")
        )
        script.append(intents.ReportBackground((values.BackgroundSubagent("c1"),)))
        cancel_item = {
            "jsonrpc": "2.0",
            "id": f"x{n}",
            "method": "tool_call/cancel",
            "params": {"sessionId": "c1", "toolCallId": child_tool},
        }
        script.append(received(cancel_item))
        script.append(intents.EndTurn())
    return script


def measure(turns: int, repeats: int = 5) -> dict[str, float]:
    """CPU seconds per step of the scripted conversation (best of `repeats`)."""
    import acp_core as acp

    script = _script(turns)
    best = float("inf")
    for _ in range(repeats):
        engine = acp.new_agent(SID)
        step = acp.step
        start = time.process_time()
        for intent in script:
            engine = step(engine, intent).state
        best = min(best, time.process_time() - start)
    assert engine.violations == (), engine.violations
    return {"per_step_us": best / len(script) * 1e6, "steps": float(len(script))}


def _run_tree(tree: Path, turns: int) -> dict[str, float]:
    env = {**os.environ, "PYTHONPATH": str(tree)}
    cmd = [sys.executable, str(Path(__file__).resolve()), "--one", str(tree), "--turns", str(turns)]
    done = subprocess.run(cmd, cwd=tree, env=env, check=True, capture_output=True, text=True)
    result: dict[str, float] = json.loads(done.stdout)
    return result


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("trees", nargs="*", type=Path)
    parser.add_argument("--one", type=Path, help="measure this tree in this process")
    parser.add_argument("--rounds", type=int, default=6)
    parser.add_argument("--turns", type=int, default=200)
    parser.add_argument("--json", type=Path)
    args = parser.parse_args(argv)
    if args.one is not None:
        sys.path.insert(0, str(args.one.resolve()))
        print(json.dumps(measure(args.turns)))
        return 0
    old, new = (t.resolve() for t in args.trees)
    olds: list[float] = []
    news: list[float] = []
    for r in range(args.rounds):
        order = ((old, olds), (new, news)) if r % 2 == 0 else ((new, news), (old, olds))
        for tree, into in order:
            into.append(_run_tree(tree, args.turns)["per_step_us"])
    ratios = [n / o for o, n in zip(olds, news, strict=True)]
    summary = {
        "old_us_per_step": statistics.median(olds),
        "new_us_per_step": statistics.median(news),
        "ratio_new_over_old": statistics.median(ratios),
        "ratios": ratios,
        "rounds": args.rounds,
        "turns": args.turns,
    }
    print(f"old {old}: {summary['old_us_per_step']:.2f} us/step (median of {args.rounds})")
    print(f"new {new}: {summary['new_us_per_step']:.2f} us/step")
    print(
        f"new/old: {summary['ratio_new_over_old']:.3f} (per round: "
        + ", ".join(f"{x:.3f}" for x in ratios)
        + ")"
    )
    if args.json is not None:
        args.json.write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
