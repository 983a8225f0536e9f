"""The agent engine's cost per `step` over a scripted conversation, two trees side by side.

Usage: python benchmarks/engine_steps.py OLD_TREE NEW_TREE [--rounds N] [--turns T] [--json FILE]
       python benchmarks/engine_steps.py --one TREE [--turns T]   (one tree, prints JSON)

The client engine is timed on the same conversation from its side: what the agent's script
receives is sent by client intents, and every message the agent sent is received.

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


def _client_script(turns: int) -> list[object]:
    """The client's side of the same conversation: each message the agent's script receives
    is sent by a client intent instead (`SendPrompt`, `AnswerPermission`, `SendCancel`,
    `CancelToolCall`), and everything the agent sends is received, decoded, in order."""
    import acp_core as acp
    from acp_core import codec, intents, values

    revision = codec.PREVIEW
    client_side: list[object] = []
    agent = acp.new_agent(SID)
    for item in _script(turns):
        if type(item) is intents.Received:
            message = item.message
            kind = type(message).__name__
            if kind == "PromptRequest":
                text = message.prompt[0].text
                client_side.append(
                    intents.SendPrompt(
                        (values.TextContent(text),),
                        request_id=message.id,
                        idempotency_key=message.idempotency_key,
                    )
                )
            elif kind == "Response":
                option = message.result["outcome"]["optionId"]
                client_side.append(intents.AnswerPermission(message.id, option))
            elif kind == "CancelSessionNotification":
                client_side.append(intents.SendCancel())
            elif kind == "CancelToolCallRequest":
                client_side.append(
                    intents.CancelToolCall(
                        message.tool_call_id, session_id=message.session_id, request_id=message.id
                    )
                )
            else:
                raise AssertionError(kind)
        agent, out = acp.step(agent, item)
        for wire in out:
            decoded = codec.decode_message(wire, strict=True, revision=revision)
            client_side.append(intents.Received(decoded))
    return client_side


def _best(engine: Any, script: list[object], repeats: int) -> tuple[float, Any]:
    import acp_core as acp

    best = float("inf")
    step = acp.step
    for _ in range(repeats):
        state = engine
        start = time.process_time()
        for intent in script:
            state = step(state, intent).state
        best = min(best, time.process_time() - start)
    return best, state


def measure(turns: int, repeats: int = 5) -> dict[str, float]:
    """CPU microseconds per step of each side's scripted conversation (best of `repeats`)."""
    import acp_core as acp

    script = _script(turns)
    best, agent = _best(acp.new_agent(SID), script, repeats)
    assert agent.violations == (), agent.violations
    client_script = _client_script(turns)
    client_best, client = _best(acp.new_client(SID), client_script, repeats)
    assert client.violations == (), client.violations
    return {
        "per_step_us": best / len(script) * 1e6,
        "steps": float(len(script)),
        "client_per_step_us": client_best / len(client_script) * 1e6,
        "client_steps": float(len(client_script)),
    }


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
    figures: dict[str, dict[Path, list[float]]] = {
        side: {old: [], new: []} for side in ("per_step_us", "client_per_step_us")
    }
    for r in range(args.rounds):
        for tree in (old, new) if r % 2 == 0 else (new, old):
            result = _run_tree(tree, args.turns)
            for side, by_tree in figures.items():
                by_tree[tree].append(result[side])
    summary: dict[str, Any] = {"rounds": args.rounds, "turns": args.turns}
    for side, label in (("per_step_us", "agent"), ("client_per_step_us", "client")):
        olds, news = figures[side][old], figures[side][new]
        ratios = [n / o for o, n in zip(olds, news, strict=True)]
        summary[label] = {
            "old_us_per_step": statistics.median(olds),
            "new_us_per_step": statistics.median(news),
            "ratio_new_over_old": statistics.median(ratios),
            "ratios": ratios,
        }
        print(
            f"{label}: old {statistics.median(olds):.2f} us/step, new "
            f"{statistics.median(news):.2f} us/step (medians of {args.rounds}); new/old "
            f"{statistics.median(ratios):.3f} (per round: "
            + ", ".join(f"{x:.3f}" for x in ratios)
            + ")"
        )
    if args.json is not None:
        args.json.write_text(json.dumps(summary, indent=2))
    return 0


if __name__ == "__main__":
    raise SystemExit(main())
