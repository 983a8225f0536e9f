"""Interop with the official TypeScript SDK 2.4.0 (`experimental/v2`), at revision 2026-11.

Three runs, every program a separate process talking newline-delimited JSON-RPC on stdio:
- `interop/sdk_client.mjs` (SDK client) drives `examples/stdio_agent.py --revision 2026-11`
  through three turns: a granted permission, a cancel at the first update, a cancel while the
  permission request is held open (the agent must withdraw it with `$/cancel_request`);
- `examples/stdio_client.py --revision 2026-11` drives `interop/sdk_agent.mjs` (SDK agent);
- the SDK client drives the SDK agent: its trace must fold and check clean in acp-core.

The SDK client reports what its SDK refused, dropped or altered (it compares what the SDK
handed over with the raw message on the wire); the SDK agent writes what a client's view must
hold, from what it sent. Every recorded trace is checked by `python -m acp_core check` and
validated against the official 2026-11 schema. Needs `node` and `npm` (see interop_setup).
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from interop_setup import INTEROP, sdk_unavailable
from jsonschema import Draft202012Validator

import acp_core as acp

ROOT = Path(__file__).resolve().parents[1]
AGENT = ROOT / "examples" / "stdio_agent.py"
CLIENT = ROOT / "examples" / "stdio_client.py"
RUN_TIMEOUT = 120  # seconds per process run; the programs time every wait out sooner
TURNS = ("granted", "cancel-first-update", "cancel-permission")


@pytest.fixture(scope="module", autouse=True)
def sdk() -> None:
    why = sdk_unavailable()
    if why is not None:
        pytest.skip(why)


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _run(command: list[str], **kwargs: Any) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        command, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False, **kwargs
    )


def _sdk_client(trace: Path, agent: list[str], *extra: str) -> tuple[int, dict[str, Any], str]:
    summary = trace.with_suffix(".summary.json")
    command = ["node", str(INTEROP / "sdk_client.mjs"), "--trace", str(trace)]
    run = _run([*command, "--summary", str(summary), *extra, "--", *agent], cwd=INTEROP)
    assert summary.exists(), run.stderr
    return run.returncode, json.loads(summary.read_text()), run.stderr


def _sdk_agent(*extra: str) -> list[str]:
    return ["node", str(INTEROP / "sdk_agent.mjs"), *extra]


def _violations(trace: Path, *, recorded_by: str) -> list[dict[str, Any]]:
    """What `python -m acp_core check` finds that the recording can judge.

    A recording judges the side that made it: the other side's messages are in the order they
    were read, and a fast answer can overtake what was already in the pipe (trace-format.md).
    """
    command = [sys.executable, "-m", "acp_core", "check", "--json", "--revision", "2026-11"]
    run = _run([*command, str(trace)])
    assert run.returncode in (0, 1), run.stderr
    found: list[dict[str, Any]] = json.loads(run.stdout)
    return [v for v in found if acp.RULES[v["rule"]].side in (recorded_by, "both")]


def _schema_errors(validator: Draft202012Validator, trace: list[dict[str, Any]]) -> list[str]:
    return [
        f"line {i}: {e.message[:200]}"
        for i, entry in enumerate(trace)
        for e in validator.iter_errors(entry["message"])
    ]


def _without_names(view: dict[str, Any]) -> dict[str, Any]:
    """The view with tool-call `name` left out (asserted on its own: a 2026-11 field that
    only a decoder told the revision keeps)."""
    calls = {i: {k: v for k, v in c.items() if k != "name"} for i, c in view["toolCalls"].items()}
    return {**view, "toolCalls": calls}


def _held_to(expected: dict[str, Any], view: dict[str, Any]) -> list[str]:
    """Where `view` does not hold what `expected` says; `[]` when it holds all of it."""
    wrong = [f"{k}: {view.get(k)!r} != {v!r}" for k, v in expected.items() if view.get(k) != v]
    extra = set(view) - set(expected) - {"version"}  # e.g. unknown updates, diagnostics
    return wrong + [f"{k} present: {view[k]!r}" for k in sorted(extra)]


@pytest.fixture(scope="module")
def validator(spec_schema_2026_11: dict[str, Any]) -> Draft202012Validator:
    return Draft202012Validator(spec_schema_2026_11)


# -- the SDK client drives the example agent --------------------------------------------------


@pytest.fixture(scope="module")
def python_agent(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("sdk-client")
    client_trace, agent_trace = tmp / "client.jsonl", tmp / "agent.jsonl"
    agent = [sys.executable, str(AGENT), "--revision", "2026-11", "--trace", str(agent_trace)]
    code, summary, stderr = _sdk_client(client_trace, agent)
    return {
        "code": code,
        "summary": summary,
        "stderr": stderr,
        "client_trace": client_trace,
        "agent_trace": agent_trace,
        "turns": {t["mode"]: t for t in summary["turns"]},
    }


def test_the_sdk_refuses_drops_and_alters_nothing_from_the_example_agent(
    python_agent: dict[str, Any],
) -> None:
    assert python_agent["summary"]["problems"] == [], python_agent["stderr"]
    assert python_agent["code"] == 0
    assert python_agent["summary"]["agentExit"] == {"code": 0, "signal": None}


@pytest.mark.parametrize(
    ("turn", "stop", "answers"),
    [
        ("granted", "end_turn", ["allow"]),
        # cancelled before the agent asked: it does not ask at all, or asks and is answered
        ("cancel-first-update", "cancelled", None),
        ("cancel-permission", "cancelled", ["cancelled"]),
    ],
)
def test_each_turn_ends_as_its_script_expects(
    python_agent: dict[str, Any], turn: str, stop: str, answers: list[str] | None
) -> None:
    seen = python_agent["turns"][turn]
    assert seen["stopReason"] == stop
    # the 2026-11 receipt names the user message the agent inserted for this prompt
    assert seen["receipt"] is not None
    assert seen["userMessageIds"] == [seen["receipt"]]
    if answers is not None:
        assert [p["answer"] for p in seen["permissions"]] == answers
    else:
        assert all(p["answer"] == "cancelled" for p in seen["permissions"])
    assert seen["updates"][-1] == "state_update:idle"


def test_the_agent_withdraws_the_permission_request_the_client_holds_open(
    python_agent: dict[str, Any],
) -> None:
    (asked,) = python_agent["turns"]["cancel-permission"]["permissions"]
    assert asked["withdrawn"]
    withdrawals = [
        e["message"]["params"]["requestId"]
        for e in _read(python_agent["client_trace"])
        if e["from"] == "agent" and e["message"].get("method") == "$/cancel_request"
    ]
    assert asked["id"] in withdrawals


def test_the_proxy_between_the_sdk_client_and_the_example_agent_changes_nothing(
    python_agent: dict[str, Any], tmp_path: Path
) -> None:
    """`python -m acp_core proxy` in the agent's place: the SDK sees what it saw directly."""
    client_trace, agent_trace = tmp_path / "client.jsonl", tmp_path / "agent.jsonl"
    proxy_trace, report = tmp_path / "proxy.jsonl", tmp_path / "proxy.html"
    agent = [sys.executable, str(AGENT), "--revision", "2026-11", "--trace", str(agent_trace)]
    proxy = [sys.executable, "-m", "acp_core", "proxy", "--revision", "2026-11"]
    proxy += ["--trace", str(proxy_trace), "--report", str(report), "--", *agent]
    code, summary, stderr = _sdk_client(client_trace, proxy)
    assert summary["problems"] == [], stderr
    assert code == 0
    assert summary["agentExit"] == {"code": 0, "signal": None}
    # Each turn ended as it did without the proxy.
    for turn in summary["turns"]:
        direct = python_agent["turns"][turn["mode"]]
        assert turn["stopReason"] == direct["stopReason"], turn["mode"]
        assert turn["updates"][-1] == direct["updates"][-1]
    # Per direction, the three recordings hold the same messages in the same order: what the
    # SDK wrote is what the agent read, what the agent wrote is what the SDK read.
    recordings = [_read(path) for path in (client_trace, proxy_trace, agent_trace)]
    for side in ("client", "agent"):
        sent = [[e["message"] for e in r if e["from"] == side] for r in recordings]
        assert sent[0] == sent[1] == sent[2], side
    # A clean exchange is told as clean, live and in the report.
    assert "acp_core proxy: line" not in stderr
    assert f"report written to {report}" in stderr
    assert "<html" in report.read_text().lower()


def test_the_example_agents_recordings_check_clean(python_agent: dict[str, Any]) -> None:
    assert _violations(python_agent["agent_trace"], recorded_by="agent") == []
    assert _violations(python_agent["client_trace"], recorded_by="client") == []


def test_the_example_agents_traffic_is_valid_2026_11(
    python_agent: dict[str, Any], validator: Draft202012Validator
) -> None:
    for name in ("client_trace", "agent_trace"):
        assert _schema_errors(validator, _read(python_agent[name])) == [], name


def test_the_sdk_client_reports_what_its_sdk_refuses(tmp_path: Path) -> None:
    # The detector can fail: at 2026-08 the agent answers prompts `{}`, which the SDK refuses.
    agent = [sys.executable, str(AGENT), "--revision", "2026-08"]
    code, summary, _ = _sdk_client(tmp_path / "t.jsonl", agent, "--turns", "granted")
    assert code == 1
    kinds = [p["kind"] for p in summary["problems"]]
    assert "prompt-rejected" in kinds


def test_the_sdk_client_reports_what_its_sdk_alters_or_drops(tmp_path: Path) -> None:
    lossy = [
        # 2026-11 requires `type` on commands: the SDK skips the item, the list arrives empty
        {"sessionUpdate": "available_commands_update",
         "availableCommands": [{"name": "x", "description": "y"}]},
        # a chunk without `messageId` is refused and the notification vanishes
        {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "lost"}},
    ]  # fmt: skip
    agent = _sdk_agent("--extra-updates", json.dumps(lossy))
    code, summary, _ = _sdk_client(tmp_path / "t.jsonl", agent, "--turns", "granted")
    assert code == 1
    problems = summary["problems"]
    (altered,) = [p["detail"] for p in problems if p["kind"] == "altered"][:1]
    assert "available_commands_update" in altered
    kinds = {p["kind"] for p in problems}
    assert {"sdk-logged-error", "dropped"} <= kinds  # what the SDK logged, and what was lost


# -- the example client drives the SDK agent --------------------------------------------------


@pytest.fixture(scope="module")
def sdk_agent(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("sdk-agent")
    trace, agent_trace = tmp / "client.jsonl", tmp / "agent.jsonl"
    view, expect = tmp / "view.json", tmp / "expect.json"
    command = [sys.executable, str(CLIENT), "--revision", "2026-11", "--trace", str(trace)]
    agent = _sdk_agent("--expect", str(expect), "--trace", str(agent_trace))
    run = _run([*command, "--view", str(view), "--", *agent])
    assert expect.exists(), run.stdout + run.stderr
    (expected,) = json.loads(expect.read_text()).values()
    return {
        "run": run,
        "trace": trace,
        "agent_trace": agent_trace,
        "view": json.loads(view.read_text()),
        "expected": expected,
    }


def test_the_example_client_converses_with_the_sdk_agent(sdk_agent: dict[str, Any]) -> None:
    run = sdk_agent["run"]
    assert run.returncode == 0, run.stdout + run.stderr
    assert "foreground: idle (stop reason: cancelled)" in run.stdout
    assert ", 0 violation(s)" in run.stdout


def test_the_client_view_holds_everything_the_sdk_agent_sent(sdk_agent: dict[str, Any]) -> None:
    expected, view = sdk_agent["expected"], sdk_agent["view"]
    # two turns: the first completed its tool, the second was cancelled while it ran
    assert [c["status"] for c in expected["toolCalls"].values()] == ["completed", "cancelled"]
    assert _held_to(_without_names(expected), _without_names(view)) == []


def _names(view: dict[str, Any]) -> dict[str, str | None]:
    return {i: c.get("name") for i, c in view["toolCalls"].items()}


def test_the_client_view_keeps_the_sdk_agents_tool_call_names(sdk_agent: dict[str, Any]) -> None:
    assert _names(sdk_agent["view"]) == _names(sdk_agent["expected"])
    assert set(_names(sdk_agent["view"]).values()) == {"run_command"}


def test_both_recordings_of_the_sdk_agent_conversation_check_clean(
    sdk_agent: dict[str, Any], validator: Draft202012Validator
) -> None:
    assert _violations(sdk_agent["trace"], recorded_by="client") == []
    assert _violations(sdk_agent["agent_trace"], recorded_by="agent") == []
    for name in ("trace", "agent_trace"):
        assert _schema_errors(validator, _read(sdk_agent[name])) == [], name


def test_the_proxy_between_the_example_client_and_the_sdk_agent_changes_nothing(
    sdk_agent: dict[str, Any], tmp_path: Path
) -> None:
    """`python -m acp_core proxy` in front of the SDK agent: the client's view is the one it
    had without the proxy, and the three recordings agree per direction."""
    trace, agent_trace = tmp_path / "client.jsonl", tmp_path / "agent.jsonl"
    proxy_trace, report = tmp_path / "proxy.jsonl", tmp_path / "proxy.html"
    view, expect = tmp_path / "view.json", tmp_path / "expect.json"
    command = [sys.executable, str(CLIENT), "--revision", "2026-11", "--trace", str(trace)]
    agent = _sdk_agent("--expect", str(expect), "--trace", str(agent_trace))
    proxy = [sys.executable, "-m", "acp_core", "proxy", "--revision", "2026-11"]
    proxy += ["--trace", str(proxy_trace), "--report", str(report), "--", *agent]
    run = _run([*command, "--view", str(view), "--", *proxy])
    assert run.returncode == 0, run.stdout + run.stderr
    assert _without_names(json.loads(view.read_text())) == _without_names(sdk_agent["view"])
    recordings = [_read(path) for path in (trace, proxy_trace, agent_trace)]
    for side in ("client", "agent"):
        sent = [[e["message"] for e in r if e["from"] == side] for r in recordings]
        assert sent[0] == sent[1] == sent[2], side
    assert "acp_core proxy: line" not in run.stderr
    assert f"report written to {report}" in run.stderr


# -- the SDK pair, judged by acp-core ---------------------------------------------------------


@pytest.fixture(scope="module")
def sdk_pair(tmp_path_factory: pytest.TempPathFactory) -> dict[str, Any]:
    tmp = tmp_path_factory.mktemp("sdk-pair")
    trace, agent_trace, expect = tmp / "pair.jsonl", tmp / "agent.jsonl", tmp / "expect.json"
    agent = _sdk_agent("--expect", str(expect), "--trace", str(agent_trace))
    code, summary, stderr = _sdk_client(trace, agent)
    return {
        "code": code,
        "summary": summary,
        "stderr": stderr,
        "trace": trace,
        "agent_trace": agent_trace,
        "expected": json.loads(expect.read_text()),
    }


def test_the_sdk_pair_runs_its_turns_cleanly(sdk_pair: dict[str, Any]) -> None:
    assert sdk_pair["summary"]["problems"] == [], sdk_pair["stderr"]
    assert sdk_pair["code"] == 0
    stops = [t["stopReason"] for t in sdk_pair["summary"]["turns"]]
    assert stops == ["end_turn", "cancelled", "cancelled"]


def test_the_sdk_pairs_trace_checks_clean(
    sdk_pair: dict[str, Any], validator: Draft202012Validator
) -> None:
    assert _violations(sdk_pair["trace"], recorded_by="client") == []
    assert _violations(sdk_pair["agent_trace"], recorded_by="agent") == []
    for name in ("trace", "agent_trace"):
        assert _schema_errors(validator, _read(sdk_pair[name])) == [], name


def test_the_sdk_pairs_trace_folds_into_what_the_agent_sent(sdk_pair: dict[str, Any]) -> None:
    command = [sys.executable, "-m", "acp_core", "replay", "--json", "--revision", "2026-11"]
    run = _run([*command, str(sdk_pair["trace"])])
    assert run.returncode == 0, run.stderr
    views = json.loads(run.stdout)
    assert set(views) == set(sdk_pair["expected"])
    for session_id, expected in sdk_pair["expected"].items():
        assert _held_to(_without_names(expected), _without_names(views[session_id])) == []
        assert _names(views[session_id]) == _names(expected)
