"""`python -m acp_core demo`, run as a user would (subprocess), and the demo script itself."""

from __future__ import annotations

import json
import subprocess
import sys
from importlib.resources import files
from pathlib import Path
from typing import Any

import pytest

import acp_core as acp
from acp_core._cli._cli_demo import demo_conversation, trace_lines

ROOT = Path(__file__).resolve().parents[1]


def run(*args: str) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_core", *args],
        capture_output=True,
        text=True,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


@pytest.fixture(scope="module")
def text_run() -> subprocess.CompletedProcess[str]:
    return run("demo")


@pytest.fixture(scope="module")
def json_run() -> subprocess.CompletedProcess[str]:
    return run("demo", "--json")


def _updates(entries: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        e["message"]["params"]["update"]
        for e in entries
        if e["message"].get("method") == "session/update"
    ]


def test_demo_prints_the_view_and_a_clean_verdict(
    text_run: subprocess.CompletedProcess[str],
) -> None:
    assert text_run.returncode == 0, text_run.stderr
    assert text_run.stderr == ""
    out = text_run.stdout
    assert "Session sess_demo" in out
    assert "foreground: idle (stop reason: cancelled)" in out
    assert "tool call call-ls 'Run ls' [execute]: completed" in out
    # the second turn's tool was cancelled mid-run
    assert "tool call call-grep 'Search for TODO' [search]: cancelled" in out
    assert "term-1: $ ls  (cwd /home/user/project)  exited 0" in out
    assert "usage: 6,020 of 200,000 tokens (3.0%), cost 0.0051 USD" in out
    assert out.rstrip().endswith("break no rule (docs/rules.md).")


def test_demo_text_is_the_rendered_client_view(text_run: subprocess.CompletedProcess[str]) -> None:
    assert acp.render_session(demo_conversation().client.view) in text_run.stdout


def test_demo_json_is_a_trace_in_the_trace_format(
    json_run: subprocess.CompletedProcess[str],
) -> None:
    assert json_run.returncode == 0, json_run.stderr
    entries = [json.loads(line) for line in json_run.stdout.splitlines()]
    assert entries
    assert all(set(e) == {"from", "message"} for e in entries)
    assert {e["from"] for e in entries} == {"client", "agent"}
    assert all(e["message"]["jsonrpc"] == "2.0" for e in entries)
    assert acp.check_trace(entries) == ()


def test_demo_covers_the_scripted_surface(json_run: subprocess.CompletedProcess[str]) -> None:
    entries = [json.loads(line) for line in json_run.stdout.splitlines()]
    methods = [e["message"].get("method") for e in entries]
    assert methods.count("session/prompt") == 2
    assert methods.count("session/request_permission") == 1
    assert methods.count("session/cancel") == 1
    kinds = {u["sessionUpdate"] for u in _updates(entries)}
    assert {
        "agent_thought_chunk",
        "agent_message_chunk",
        "plan_update",
        "tool_call_update",
        "tool_call_content_chunk",
        "terminal_update",
        "terminal_output_chunk",
        "usage_update",
        "user_message",
        "state_update",
    } <= kinds
    idles = [
        u.get("stopReason")
        for u in _updates(entries)
        if u["sessionUpdate"] == "state_update" and u["state"] == "idle"
    ]
    assert idles == ["end_turn", "cancelled"]
    # the permission was granted by the client with the offered `allow` option
    answer = next(
        e["message"]
        for e in entries
        if e["from"] == "client"
        and "result" in e["message"]
        and "outcome" in e["message"]["result"]
    )
    assert answer["result"]["outcome"] == {"outcome": "selected", "optionId": "allow"}
    # the cancel arrives while the second tool call is still in progress
    cancel_at = methods.index("session/cancel")
    statuses = [
        u.get("status")
        for e in entries[:cancel_at]
        if e["message"].get("method") == "session/update"
        for u in [e["message"]["params"]["update"]]
        if u["sessionUpdate"] == "tool_call_update" and u["toolCallId"] == "call-grep"
    ]
    assert statuses == ["in_progress"]


def test_the_packaged_example_trace_is_the_demo_recording(
    json_run: subprocess.CompletedProcess[str],
) -> None:
    # Regenerate with: python -m acp_core demo --json > acp_core/data/example-trace.jsonl
    packaged = (files("acp_core") / "data" / "example-trace.jsonl").read_text(encoding="utf-8")
    # compared as bytes: the codec writes the same key order in every process
    assert packaged == json_run.stdout


def test_the_demo_is_deterministic_and_both_sides_agree() -> None:
    first, second = demo_conversation(), demo_conversation()
    assert trace_lines(first.entries) == trace_lines(second.entries)
    # what the agent emitted and what the client folded are the same session
    assert first.agent.session == first.client.session
    # the agent's final cancelled status agrees with the client's provisional mark
    assert first.client.view == first.client.session
