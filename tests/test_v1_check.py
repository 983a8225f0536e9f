"""`check --protocol 1|2|auto`: v1 traffic judged by the v1 rules, not by the v2 catalogue.

Before this mode `check` judged every recording as v2 and called valid v1 messages broken
(`D1`, `R1`, `R19`): 116 violations over the 16 hand-written v1 traces of tests/v1_traces.
The v1 rules (`acp_core._v1._v1_check.V1_RULES`) are the normalizer's diagnostics that name a
peer's fault; the rest of what it tolerates judges nobody.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import acp_core as acp
from acp_core.__main__ import main
from acp_core._v1._v1_check import V1_RULES, check_v1_trace

TRACES = Path(__file__).resolve().parent / "v1_traces"
V1_TRACES = sorted(TRACES.glob("*.jsonl"))
EXAMPLE_V2 = Path(acp.__file__).parent / "data" / "example-trace.jsonl"


def _entries(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


def _update(update: dict[str, Any]) -> dict[str, Any]:
    params = {"sessionId": "s1", "update": update}
    message = {"jsonrpc": "2.0", "method": "session/update", "params": params}
    return {"from": "agent", "message": message}


def _message(sender: str, **fields: Any) -> dict[str, Any]:
    return {"from": sender, "message": {"jsonrpc": "2.0", **fields}}


INITIALIZE_V1 = [
    _message("client", id=0, method="initialize", params={"protocolVersion": 1}),
    _message("agent", id=0, result={"protocolVersion": 1}),
]
PROMPT = _message("client", id=3, method="session/prompt", params={"sessionId": "s1", "prompt": []})

#: (a fault, the entries after a v1 initialize, the rule it breaks, at the last entry).
BAD: list[tuple[str, list[Any], str]] = [
    (
        "a chunk without content",
        [_update({"sessionUpdate": "agent_message_chunk"})],
        "v1.invalid-update",
    ),
    (
        "a v2-only kind",
        [_update({"sessionUpdate": "state_update", "state": "idle"})],
        "v1.v2-kind",
    ),
    (
        "a prompt result without stopReason",
        [PROMPT, _message("agent", id=3, result={})],
        "v1.missing-stop-reason",
    ),
    ("not JSON-RPC", [{"from": "agent", "message": "garbage"}], "v1.invalid-message"),
    ("an entry that is not an entry", ["not an entry"], "v1.invalid-message"),
]


@pytest.mark.parametrize("path", V1_TRACES, ids=lambda p: p.stem)
def test_every_valid_v1_trace_checks_clean_as_v1_and_not_as_v2(
    path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    assert main(["check", "--json", str(path)]) == 0  # auto: read as v1
    assert json.loads(capsys.readouterr().out) == []
    main(["check", "--json", "--protocol", "2", str(path)])
    assert json.loads(capsys.readouterr().out) != []  # what the v2 catalogue says of v1


@pytest.mark.parametrize(("fault", "entries", "rule"), BAD, ids=[b[0] for b in BAD])
def test_each_v1_fault_is_its_rule_at_its_line(fault: str, entries: list[Any], rule: str) -> None:
    found = check_v1_trace([*INITIALIZE_V1, *entries])
    assert [(v.rule, v.index) for v in found] == [(rule, len(INITIALIZE_V1) + len(entries) - 1)]
    assert found[0].level == V1_RULES[rule].level
    assert found[0].mandatory


def test_the_cli_reads_v1_says_so_and_fails_on_a_must(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    trace = tmp_path / "bad.jsonl"
    entries = [*INITIALIZE_V1, _update({"sessionUpdate": "state_update", "state": "idle"})]
    trace.write_text("".join(json.dumps(e) + "\n" for e in entries))
    assert main(["check", str(trace)]) == 1
    out = capsys.readouterr().out
    assert "read as ACP v1 traffic" in out
    assert f"{trace}:2: v1.v2-kind (MUST NOT" in out
    assert main(["check", "--side", "client", "--json", str(trace)]) == 0  # binds the agent
    assert json.loads(capsys.readouterr().out) == []


def test_auto_reads_v2_traffic_as_v2(capsys: pytest.CaptureFixture[str]) -> None:
    assert main(["check", "--json", str(EXAMPLE_V2)]) == 0
    auto = capsys.readouterr().out
    main(["check", "--json", "--protocol", "2", str(EXAMPLE_V2)])
    assert auto == capsys.readouterr().out
    assert "read as ACP v1" not in auto


def test_every_v1_rule_can_be_found() -> None:
    found = {rule for _, entries, rule in BAD}
    assert found == set(V1_RULES)


def test_docs_v1_md_lists_every_v1_rule_at_its_level() -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "v1.md").read_text()
    section = text.split("## Checking v1 traffic", 1)[1].split("\n## ", 1)[0]
    lines = [line for line in section.splitlines() if line.startswith("| `v1.")]
    rows = {line.split("|")[1].strip(" `"): line for line in lines}
    assert set(rows) == set(V1_RULES)
    for rule in V1_RULES.values():
        assert f"| {rule.level} | {rule.side} |" in rows[rule.id]
