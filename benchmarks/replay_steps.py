"""`replay --steps` cost against trace length: time and peak memory at 5k, 10k and 20k lines.

Usage: python benchmarks/replay_steps.py [--quick] [--json FILE]

A generated v2 conversation (prompts, replies streamed as chunks of one long message per
turn, tool calls, a permission request per turn, answered) is replayed in-process through the
`replay` command (`--steps`, text and `--json`) into a sink that counts what is written. The
figure that matters is the cost per line at each length, side by side in one run: flat when
the command is linear, doubling with the length when it is quadratic (the old `--steps`
printed every changed session whole). Peak memory is tracemalloc's, for the whole command
(reading the trace included).
"""

from __future__ import annotations

import argparse
import gc
import json
import sys
import time
import tracemalloc
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `acp_core` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

from acp_core._cli import _cli_replay

SESSION = "sess_bench"
SIZES = (5_000, 10_000, 20_000)
QUICK_SIZES = (1_000, 2_000, 4_000)


def _agent(method: str, params: dict[str, Any], request_id: int | None = None) -> dict[str, Any]:
    message: dict[str, Any] = {"jsonrpc": "2.0", "method": method, "params": params}
    if request_id is not None:
        message["id"] = request_id
    return {"from": "agent", "message": message}


def _update(update: dict[str, Any]) -> dict[str, Any]:
    return _agent("session/update", {"sessionId": SESSION, "update": update})


def trace(lines: int) -> str:
    """A v2 trace of exactly `lines` lines (deterministic)."""
    out: list[dict[str, Any]] = []
    turn = 0
    while len(out) < lines:
        turn += 1
        pid = 1000 + turn
        out.append(
            {
                "from": "client",
                "message": {
                    "jsonrpc": "2.0",
                    "id": pid,
                    "method": "session/prompt",
                    "params": {"sessionId": SESSION, "prompt": [{"type": "text", "text": "go"}]},
                },
            }
        )
        out.append({"from": "agent", "message": {"jsonrpc": "2.0", "id": pid, "result": {}}})
        out.append(
            _update(
                {
                    "sessionUpdate": "user_message",
                    "messageId": f"u{turn}",
                    "content": [{"type": "text", "text": "go"}],
                }
            )
        )
        out.append(_update({"sessionUpdate": "state_update", "state": "running"}))
        tool = f"t{turn}"
        out.append(
            _update(
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": tool,
                    "title": f"Run step {turn}",
                    "kind": "execute",
                    "status": "pending",
                }
            )
        )
        out.append(
            _agent(
                "session/request_permission",
                {
                    "sessionId": SESSION,
                    "title": f"Run step {turn}?",
                    "options": [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}],
                    "subject": {"type": "tool_call", "toolCall": {"toolCallId": tool}},
                },
                turn,
            )
        )
        out.append(
            {
                "from": "client",
                "message": {
                    "jsonrpc": "2.0",
                    "id": turn,
                    "result": {"outcome": {"outcome": "selected", "optionId": "allow"}},
                },
            }
        )
        for i in range(200):  # one long reply: whole-state printing would grow with it
            out.append(
                _update(
                    {
                        "sessionUpdate": "agent_message_chunk",
                        "messageId": f"a{turn}",
                        "content": {"type": "text", "text": f"token{i} "},
                    }
                )
            )
        out.append(
            _update(
                {"sessionUpdate": "tool_call_update", "toolCallId": tool, "status": "completed"}
            )
        )
        out.append(
            _update({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
        )
    return "".join(json.dumps(e, separators=(",", ":")) + "\n" for e in out[:lines])


class _Sink:
    """A text stream that only counts what it is given."""

    def __init__(self) -> None:
        self.chars = 0

    def write(self, text: str) -> int:
        self.chars += len(text)
        return len(text)


def _run(text: str, as_json: bool) -> _Sink:
    args = argparse.Namespace(file="-", json=as_json, steps=True, protocol=None, revision="2026-08")
    out, err = _Sink(), _Sink()
    status = _cli_replay.run(args, out, err, lambda _path: ("<bench>", text))  # type: ignore[arg-type]
    if status != 0 or err.chars:
        raise SystemExit(f"replay failed with status {status}")
    return out


def measure(text: str, *, as_json: bool) -> dict[str, float]:
    """In-process `replay --steps [--json] -` over `text`: seconds (best of two plain runs),
    then peak MiB (one more run under tracemalloc, which slows it down) and output size."""
    seconds = []
    for _ in range(2):
        gc.collect()
        start = time.perf_counter()
        out = _run(text, as_json)
        seconds.append(time.perf_counter() - start)
    gc.collect()
    tracemalloc.start()
    _run(text, as_json)
    _, peak = tracemalloc.get_traced_memory()
    tracemalloc.stop()
    return {"seconds": min(seconds), "peak_mib": peak / 2**20, "output_mib": out.chars / 2**20}


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--quick", action="store_true", help="1k/2k/4k lines (a smoke run)")
    parser.add_argument("--json", metavar="FILE", help="also write the figures as JSON")
    args = parser.parse_args(argv)
    sizes = QUICK_SIZES if args.quick else SIZES
    rows = []
    print(
        f"{'mode':6} {'lines':>6} {'seconds':>8} {'us/line':>8} {'peak MiB':>9} "
        f"{'B/line':>7} {'out MiB':>8}"
    )
    for as_json in (False, True):
        for lines in sizes:
            text = trace(lines)
            m = measure(text, as_json=as_json)
            row = {"mode": "json" if as_json else "text", "lines": lines, **m}
            rows.append(row)
            print(
                f"{row['mode']:6} {lines:>6} {m['seconds']:>8.2f} "
                f"{m['seconds'] / lines * 1e6:>8.1f} {m['peak_mib']:>9.1f} "
                f"{m['peak_mib'] * 2**20 / lines:>7.0f} {m['output_mib']:>8.2f}"
            )
    for mode in ("text", "json"):
        mine = [r for r in rows if r["mode"] == mode]
        small, large = mine[0], mine[-1]
        scale = large["lines"] / small["lines"]
        print(
            f"{mode}: {scale:.0f}x the lines -> {large['seconds'] / small['seconds']:.2f}x the "
            f"time, {large['peak_mib'] / small['peak_mib']:.2f}x the peak memory"
        )
    if args.json:
        Path(args.json).write_text(json.dumps(rows, indent=2) + "\n")
    return 0


if __name__ == "__main__":
    sys.exit(main())
