"""Faults found in real agents' traffic, each pinned by a trace written by hand in the style of
the recording (tests/traces/agents/; no third-party recording is copied).

Rows are `(trace, revision, findings)`: what `check` must report, as `(rule, line index)`,
when the trace is judged by that revision (on the agent's side, as a conformance run does).
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest

import acp_core as acp
from acp_core.__main__ import main

AGENTS = Path(__file__).resolve().parent / "traces" / "agents"
REVISIONS = {"2026-11": acp.V2_2026_11, "preview": acp.V2_PREVIEW}


def load(name: str) -> list[Any]:
    text = (AGENTS / name).read_text(encoding="utf-8")
    return [json.loads(line) for line in text.splitlines()]


CASES = [
    # A resume with `replayFrom` replays history and is answered with no state_update
    # snapshot (an adapter speaking protocol 2): R62 at 2026-11, and at the Preview R62 beside
    # the missing marker (R57); it used to be nothing at 2026-11 and only R57 at the Preview.
    ("resumed_replay_without_snapshot.jsonl", "2026-11", [("R62", 5)]),
    ("resumed_replay_without_snapshot.jsonl", "preview", [("R57", 5), ("R62", 5)]),
    # With the snapshot, 2026-11 has nothing to say; the Preview still wants the marker first.
    ("resumed_replay_with_snapshot.jsonl", "2026-11", []),
    ("resumed_replay_with_snapshot.jsonl", "preview", [("R57", 6)]),
    ("resumed_replay_marked_with_snapshot.jsonl", "preview", []),
]


@pytest.mark.parametrize(("name", "revision", "expected"), CASES)
def test_real_agent_faults_are_reported_as_they_are(
    name: str, revision: str, expected: list[tuple[str, int]]
) -> None:
    found = acp.check_trace(load(name), revision=REVISIONS[revision], side="agent")
    assert [(v.rule, v.index) for v in found] == expected


def _r43(entries: list[Any], revision: acp.Revision) -> list[str]:
    return [v.message for v in acp.check_trace(entries, revision=revision) if v.rule == "R43"]


@pytest.mark.parametrize("revision", ["2026-11", "preview"])
def test_an_unstable_field_is_named_as_such_not_as_a_custom_key(revision: str) -> None:
    # `usage` on a turn-ending idle (end-of-turn token usage) is a field of the unstable
    # schema: the hint says where it comes from instead of calling it custom.
    entries = load("idle_with_unstable_usage.jsonl")
    (message,) = _r43(entries, REVISIONS[revision])
    assert "'usage'" in message
    assert "unstable schema" in message
    assert "custom" not in message
    assert "_meta" not in message


def test_a_later_revisions_field_keeps_its_hint_and_a_custom_key_its_advice() -> None:
    entries = load("idle_with_unstable_usage.jsonl")
    idle = entries[-1]["message"]["params"]["update"]
    idle["background"] = []  # a 2026-11 field, judged by 2026-08
    idle["x_vendor"] = 1  # a custom key
    messages = _r43(entries, acp.V2_2026_08)
    assert len(messages) == 3
    custom, later, unstable = messages
    assert "custom key(s) 'x_vendor'" in custom
    assert "`_meta`" in custom
    assert "'background'" in later
    assert "check with --revision 2026-11" in later
    assert "custom" not in later
    assert "'usage'" in unstable
    assert "unstable schema" in unstable


# -- the replay view --------------------------------------------------------------------------


@pytest.mark.parametrize("revision", ["2026-11", "preview"])
def test_replay_text_shows_a_compaction_in_the_transcript(
    revision: str, capsys: pytest.CaptureFixture[str]
) -> None:
    assert (
        main(["replay", "--revision", revision, str(AGENTS / "compaction_during_turn.jsonl")]) == 0
    )
    out = capsys.readouterr().out
    transcript = out.split("Transcript\n", 1)[1].splitlines()
    assert transcript[:4] == [
        "  compaction compact_0001: completed",
        "    Earlier: renamed fmt_row to format_row; tests pass.",
        "  agent (msg_01JA0C2D4E6F8G0H2J4K6M8N0P):",
        "    Context compacted; continuing.",
    ]


def test_replay_text_shows_a_failed_compactions_error(
    tmp_path: Path, capsys: pytest.CaptureFixture[str]
) -> None:
    entries = load("compaction_during_turn.jsonl")
    entries[4]["message"]["params"]["update"].update(status="failed", error="context too large")
    path = tmp_path / "failed.jsonl"
    path.write_text("".join(json.dumps(e) + "\n" for e in entries), encoding="utf-8")
    assert main(["replay", "--revision", "preview", str(path)]) == 0
    out = capsys.readouterr().out
    assert "  compaction compact_0001: failed\n    error: context too large\n" in out
