"""The HTML report in a real browser: headless Chromium driven over the DevTools protocol.

Opens reports from disk (file://) of the demo conversation, of broken traces and of a
20,000-line trace; finds the violations at their lines, clicks lines and sees the view panel
change, reads the console for errors and checks screenshots are not blank. Skipped, with the
reason, where Chromium is not installed (`.ci/run` installs it where it can). The time the
large trace takes is measured in benchmarks/report_browser.py, not here: the bounds below
are generous timeouts, not assertions about speed.
"""

from __future__ import annotations

import json
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import acp_core as acp
from benchmarks.cdp import Browser, png_colours
from benchmarks.cdp import find_chromium as _find_chromium
from benchmarks.report_browser import large_trace

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT / "tests" / "traces"
EXAMPLE = ROOT / "acp_core" / "data" / "example-trace.jsonl"
BROKEN = (
    "bad_R21_7_cancelled_turn_ends_with_end_turn",
    "bad_C15_6_permission_never_answered_after_cancel",
    "bad_D1_2_entry_from_unknown_party",
)

CHROMIUM = _find_chromium()
pytestmark = pytest.mark.skipif(
    CHROMIUM is None,
    reason="no Chromium to drive (apt-get install chromium, or set $CHROMIUM); "
    ".ci/run installs it where it can",
)


def load(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


@pytest.fixture(scope="module")
def browser() -> Iterator[Browser]:
    assert CHROMIUM is not None
    with Browser(CHROMIUM) as b:
        yield b


def open_report(
    browser: Browser, folder: Path, entries: list[Any], name: str, **options: Any
) -> None:
    path = folder / f"{name}.html"
    path.write_text(acp.build_report(entries, name=name, **options), "utf-8")
    browser.events.clear()
    browser.open(path.as_uri(), timeout=180)
    assert browser.evaluate("document.body.dataset.ready") == "1"


def settle(browser: Browser) -> None:
    """Wait two animation frames: what a scroll or a filter redraws is drawn."""
    browser.evaluate("new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r)))")


def panel(browser: Browser) -> str:
    text: str = browser.evaluate("document.getElementById('panel').innerText")
    return text


def drawn_lines(browser: Browser) -> list[int]:
    lines: list[str] = browser.evaluate(
        "[...document.querySelectorAll('#spacer .row')].map(r => r.dataset.line)"
    )
    return [int(n) for n in lines]


def check_screenshot(browser: Browser, path: Path) -> None:
    png = browser.screenshot()
    path.write_bytes(png)
    assert png_colours(path.read_bytes()) > 50  # a blank or unstyled page has a handful


def test_the_demo_report_steps_through_the_fold(browser: Browser, tmp_path: Path) -> None:
    entries = load(EXAMPLE)
    open_report(browser, tmp_path, entries, "demo")
    assert "no violations" in browser.evaluate("document.getElementById('bar').innerText")
    assert browser.evaluate("document.querySelectorAll('.finding').length") == 0
    assert panel(browser).startswith("Select a line")
    # The user's prompt is reported at line 6; by line 28 the agent has answered.
    browser.click('.row[data-line="6"]')
    early = panel(browser)
    assert "Session sess_demo after line 6" in early
    assert "What is in this project?" in early
    assert "Transcript (1)" in early
    browser.click('.row[data-line="28"]')
    late = panel(browser)
    assert late != early
    assert "Session sess_demo after line 28" in late
    assert "The project has a README" in late
    assert "Run ls [execute]: completed" in late
    assert "exited 0" in late  # the terminal, folded from its chunks
    # A request shows where it was answered, and the link goes there.
    browser.click('.row[data-line="4"]')
    assert "answered at line 5" in panel(browser)
    browser.click("#pair")
    assert panel(browser).startswith("Line 5 ")
    assert browser.evaluate("document.querySelector('.row.sel').dataset.line") == "5"
    assert browser.console_errors() == []
    check_screenshot(browser, tmp_path / "demo.png")


@pytest.mark.parametrize("name", BROKEN)
def test_violations_show_at_their_line(browser: Browser, tmp_path: Path, name: str) -> None:
    entries = load(TRACES / f"{name}.jsonl")
    expected = sorted((v.index, v.rule) for v in acp.check_trace(entries))
    assert expected
    open_report(browser, tmp_path, entries, name)
    found = browser.evaluate(
        "[...document.querySelectorAll('#spacer .row')].flatMap(r =>"
        " [...r.querySelectorAll('.finding[data-rule]')].map(f =>"
        " [+r.dataset.line, f.dataset.rule]))"
    )
    assert sorted(tuple(f) for f in found) == expected
    line, rule = expected[0]
    bar = browser.evaluate("document.getElementById('bar').innerText")
    assert f"{len(expected)} MUST" in bar or "SHOULD" in bar
    browser.click(f'.row[data-line="{line}"]')
    text = panel(browser)
    assert text.startswith(f"Line {line} ")
    assert f"{rule} (" in text
    assert acp.RULES[rule].section in text  # the catalogue's spec reference
    # "Lines with findings only" leaves exactly the lines with violations.
    browser.click("#only-findings")
    settle(browser)
    assert drawn_lines(browser) == sorted({i for i, _ in expected})
    assert browser.console_errors() == []
    check_screenshot(browser, tmp_path / f"{name}.png")


def test_a_hostile_trace_runs_no_script(browser: Browser, tmp_path: Path) -> None:
    payload = "</script><script>window.pwned=1</script><img src=x onerror='window.pwned=2'>"
    entries = [
        {"from": "agent", "message": {"jsonrpc": "2.0", "method": "session/update", "params": {
            "sessionId": payload, "update": {"sessionUpdate": "agent_message_chunk",
            "messageId": payload, "content": {"type": "text", "text": payload}}}}},
        {"from": payload, "message": payload},
    ]  # fmt: skip
    open_report(browser, tmp_path, entries, "hostile")
    browser.click('.row[data-line="0"]')
    assert browser.evaluate("window.pwned === undefined")
    assert browser.evaluate("document.querySelectorAll('img, #spacer script').length") == 0
    assert payload in panel(browser)  # shown as text
    assert browser.console_errors() == []


def test_twenty_thousand_lines_open_scroll_and_select(browser: Browser, tmp_path: Path) -> None:
    entries = large_trace(20_000)  # 2026-08 traffic (`{}` receipts): judged at 2026-08
    open_report(browser, tmp_path, entries, "large", revision=acp.V2_2026_08)
    first = drawn_lines(browser)
    assert first[0] == 0
    assert len(first) < 100
    browser.evaluate(
        "(async () => { const s = document.getElementById('scroller');"
        " s.scrollTop = s.scrollHeight; s.dispatchEvent(new Event('scroll'));"
        " await new Promise(r => requestAnimationFrame(() => requestAnimationFrame(r))); })()"
    )
    last = drawn_lines(browser)
    assert len(last) < 100
    assert last[-1] > 19_900
    browser.click(f'.row[data-line="{last[-1]}"]')
    text = panel(browser)
    assert "Session sess_large after line 19999" in text  # the view after the run it ends
    users = [e for e in entries if "user_message" in json.dumps(e)]
    last_user = users[-1]["message"]["params"]["update"]["content"][0]["text"]
    assert f"user\n{last_user}" in text  # the last user message, folded from 20,000 lines
    # Violations (R8 every 25th turn) are still where the checker puts them.
    browser.click("#only-findings")
    settle(browser)
    rows = drawn_lines(browser)
    r8 = [v.index for v in acp.check_trace(entries, revision=acp.V2_2026_08)]
    assert rows == r8[: len(rows)]
    assert rows
    assert browser.console_errors() == []
    check_screenshot(browser, tmp_path / "large.png")


def test_the_report_of_a_proxy_run_shows_what_the_proxy_told(
    browser: Browser, tmp_path: Path
) -> None:
    """`proxy --report` between a scripted client and the example agent: the page shows the
    finding at the line the proxy named on stderr as it happened."""
    import re

    from test_cli_proxy import AGENT, INITIALIZE, _close, _line, _proxy, _read_line, _request

    trace, report = tmp_path / "proxy.jsonl", tmp_path / "proxy.html"
    process = _proxy(
        "--trace", str(trace), "--report", str(report), agent=[sys.executable, str(AGENT)]
    )
    assert process.stdin is not None
    for message in (INITIALIZE, _request(1, "session/new", {"cwd": "/w", "mcpServers": []})):
        process.stdin.write(_line(message))
        process.stdin.flush()
        _read_line(process)
    process.stdin.write(_line({"jsonrpc": "2.0", "id": 99, "result": {}}))  # C25
    process.stdin.flush()
    code, stderr = _close(process)
    assert code == 0, stderr
    told = [(int(n), rule) for n, rule in re.findall(r"proxy: line (\d+): (\S+) \(", stderr)]
    assert (4, "C25") in told
    browser.events.clear()
    browser.open(report.as_uri(), timeout=180)
    assert browser.evaluate("document.body.dataset.ready") == "1"
    found = browser.evaluate(
        "[...document.querySelectorAll('#spacer .row')].flatMap(r =>"
        " [...r.querySelectorAll('.finding[data-rule]')].map(f =>"
        " [+r.dataset.line, f.dataset.rule]))"
    )
    assert sorted(tuple(f) for f in found) == sorted(told)
    browser.click('.row[data-line="4"]')
    assert "C25 (" in panel(browser)
    assert browser.console_errors() == []
