"""The HTML report of large traces in headless Chromium: build, open, scroll, select.

Usage: python benchmarks/report_browser.py [--sizes 1000,5000,20000] [--json FILE]
       python benchmarks/report_browser.py --screenshots docs/   (the pictures of docs/report.md)

For each size (trace lines) it measures, in one run and side by side:
  build     python: `build_report` of the trace (check + fold + page), seconds
  page      the page's size in MB
  open      browser: from navigation to the load event, as the page reports it
            (`PerformanceNavigationTiming.loadEventEnd`: parse, JSON.parse, first draw)
  scroll    browser: the slowest of 40 scroll steps through the whole list (one draw each)
  select    browser: clicking the last line (the session view folds every line before it)
and the ratio of each to the smallest size, so a reader sees how the cost grows (the list is
virtualised: `rows drawn` stays flat while the trace grows).

Needs Chromium (`chromium` on PATH, or $CHROMIUM). Not a test: nothing here asserts a time.
"""

from __future__ import annotations

import argparse
import json
import sys
import tempfile
import time
from pathlib import Path
from typing import Any

if __package__ in (None, ""):  # run as a script: make `benchmarks` and `acp_core` importable
    sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import acp_core
from benchmarks.cdp import Browser, find_chromium

SESSION = "sess_large"


def _update(body: dict[str, Any]) -> dict[str, Any]:
    params = {"sessionId": SESSION, "update": body}
    return {"from": "agent", "message": {"jsonrpc": "2.0", "method": "session/update",
                                         "params": params}}  # fmt: skip


def large_trace(lines: int) -> list[dict[str, Any]]:
    """A trace of exactly `lines` entries: prompt turns with streamed text, a plan, a tool call
    with content, and every 25th turn ending without a stop reason (an R8 violation)."""
    out: list[dict[str, Any]] = []
    turn = 0
    while len(out) < lines:
        turn += 1
        prompt = {
            "jsonrpc": "2.0",
            "id": turn,
            "method": "session/prompt",
            "params": {
                "sessionId": SESSION,
                "prompt": [{"type": "text", "text": f"Question {turn}?"}],
            },
        }
        out.append({"from": "client", "message": prompt})
        out.append({"from": "agent", "message": {"jsonrpc": "2.0", "id": turn, "result": {}}})
        out.append(
            _update(
                {
                    "sessionUpdate": "user_message",
                    "messageId": f"u{turn}",
                    "content": [{"type": "text", "text": f"Question {turn}?"}],
                }
            )
        )
        out.append(_update({"sessionUpdate": "state_update", "state": "running"}))
        for i in range(24):
            out.append(
                _update(
                    {
                        "sessionUpdate": "agent_message_chunk",
                        "messageId": f"a{turn}",
                        "content": {"type": "text", "text": f"word{i} "},
                    }
                )
            )
        call = f"call{turn}"
        out.append(
            _update(
                {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": call,
                    "title": f"Read file {turn}",
                    "kind": "read",
                    "status": "pending",
                }
            )
        )
        out.append(
            _update(
                {
                    "sessionUpdate": "tool_call_content_chunk",
                    "toolCallId": call,
                    "content": {"type": "content", "content": {"type": "text", "text": "contents"}},
                }
            )
        )
        out.append(
            _update(
                {"sessionUpdate": "tool_call_update", "toolCallId": call, "status": "completed"}
            )
        )
        out.append(
            _update(
                {
                    "sessionUpdate": "plan_update",
                    "plan": {
                        "type": "items",
                        "planId": "plan",
                        "entries": [
                            {"content": f"step {turn}", "priority": "high", "status": "completed"}
                        ],
                    },
                }
            )
        )
        idle: dict[str, Any] = {"sessionUpdate": "state_update", "state": "idle"}
        if turn % 25:
            idle["stopReason"] = "end_turn"
        out.append(_update(idle))
    return out[:lines]  # fmt: skip


SCROLL = """(async () => {
  const list = document.getElementById("scroller"), frame = () => new Promise(
    r => requestAnimationFrame(() => requestAnimationFrame(r)));
  let worst = 0, drawn = 0;
  for (let k = 1; k <= 40; k++) {
    const t = performance.now();
    list.scrollTop = (list.scrollHeight - list.clientHeight) * k / 40;
    list.dispatchEvent(new Event("scroll"));
    await frame();
    worst = Math.max(worst, performance.now() - t);
    drawn = Math.max(drawn, document.querySelectorAll("#spacer .row").length);
  }
  return [worst, drawn];
})()"""

SELECT = """(async () => {
  const rows = document.querySelectorAll("#spacer .row"), last = rows[rows.length - 1];
  const t = performance.now();
  last.click();
  await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)));
  return [performance.now() - t, last.dataset.line,
          document.querySelector("#panel .view-title").textContent];
})()"""


def measure(browser: Browser, size: int, folder: Path) -> dict[str, Any]:
    entries = large_trace(size)
    start = time.perf_counter()
    page = acp_core.build_report(entries, name=f"large trace ({size} lines)")
    build = time.perf_counter() - start
    path = folder / f"large_{size}.html"
    path.write_text(page, "utf-8")
    browser.open(path.as_uri(), timeout=300)
    opened = browser.evaluate(
        "performance.getEntriesByType('navigation')[0].loadEventEnd", timeout=300
    )
    ready = browser.evaluate("document.body.dataset.ready")
    worst, drawn = browser.evaluate(SCROLL, timeout=300)
    selected, line, title = browser.evaluate(SELECT, timeout=300)
    errors = browser.console_errors()
    return {
        "lines": size,
        "build_s": round(build, 3),
        "page_mb": round(len(page.encode()) / 1e6, 2),
        "open_ms": round(opened, 1),
        "scroll_worst_ms": round(worst, 1),
        "select_last_ms": round(selected, 1),
        "rows_drawn": drawn,
        "ok": ready == "1" and not errors and bool(line) and title.endswith(f"line {size - 1}"),
    }


EXAMPLE = Path(acp_core.__file__).resolve().parent / "data" / "example-trace.jsonl"


def broken_demo() -> list[dict[str, Any]]:
    """The demo conversation with two mistakes: the agent asks for permission without first
    reporting `requires_action` (R11), and ends the cancelled turn with `end_turn` (R21)."""
    lines = EXAMPLE.read_text("utf-8").splitlines()
    out = []
    for line in lines:
        entry = json.loads(line)
        update = entry["message"].get("params", {}).get("update", {})
        if update.get("state") == "requires_action":
            continue
        if update.get("stopReason") == "cancelled":
            update["stopReason"] = "end_turn"
        out.append(entry)
    return out


def screenshots(folder: Path, binary: str) -> list[Path]:
    """Screenshots of the demo's report (a line selected) and of a broken variant's."""
    demo = [json.loads(line) for line in EXAMPLE.read_text("utf-8").splitlines()]
    shots = [
        ("report-demo", demo, "the demo conversation", '.row[data-line="28"]'),
        ("report-broken", broken_demo(), "the demo, broken", ".row .finding"),
    ]
    written = []
    with tempfile.TemporaryDirectory() as tmp, Browser(binary, width=1280, height=760) as b:
        for name, entries, title, target in shots:
            page = Path(tmp) / f"{name}.html"
            page.write_text(acp_core.build_report(entries, name=title), "utf-8")
            b.open(page.as_uri())
            b.click(target)
            path = folder / f"{name}.png"
            path.write_bytes(b.screenshot())
            written.append(path)
    return written


def main(argv: list[str] | None = None) -> int:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sizes", default="1000,5000,20000")
    parser.add_argument("--json", metavar="FILE")
    parser.add_argument("--screenshots", metavar="DIR", help="write the docs' pictures instead")
    args = parser.parse_args(argv)
    binary = find_chromium()
    if binary is None:
        print("no Chromium found (install chromium or set $CHROMIUM)", file=sys.stderr)
        return 2
    if args.screenshots:
        for path in screenshots(Path(args.screenshots), binary):
            print(path)
        return 0
    sizes = [int(s) for s in args.sizes.split(",")]
    results = []
    with tempfile.TemporaryDirectory() as folder, Browser(binary) as browser:
        for size in sizes:
            results.append(measure(browser, size, Path(folder)))
    base = results[0]
    keys = ("build_s", "page_mb", "open_ms", "scroll_worst_ms", "select_last_ms", "rows_drawn")
    print(f"{'lines':>7} " + " ".join(f"{k:>16}" for k in keys) + "  ok")
    for r in results:
        cells = []
        for k in keys:
            ratio = r[k] / base[k] if base[k] else 0.0
            cells.append(f"{r[k]:>8} ({ratio:4.1f}x)")
        print(f"{r['lines']:>7} " + " ".join(f"{c:>16}" for c in cells) + f"  {r['ok']}")
    if args.json:
        Path(args.json).write_text(json.dumps(results, indent=2) + "\n", "utf-8")
    return 0 if all(r["ok"] for r in results) else 1


if __name__ == "__main__":
    sys.exit(main())
