"""`--revision NAME` on every command and example: the registry's names, what each changes,
and a bad name (one line on stderr, exit 2, before anything runs).

Every command takes the same option (`acp_core/_cli/_cli_revision.py`): the dated names of
`acp.REVISIONS` and the alias `preview`. Each test shows the revision reaching the command's
work, by an output that differs between revisions.
"""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

import pytest

import acp_core as acp
from acp_core.__main__ import COMMANDS, main

ROOT = Path(__file__).resolve().parents[1]
TRACES = ROOT / "tests" / "traces"
EXAMPLES = ROOT / "examples"
#: A `{}` prompt receipt: right in 2026-08, an R1 breach from 2026-11 on.
EMPTY_RECEIPT = TRACES / "bad_R1_2_v2026-11_result_without_message_id.jsonl"
BAD = "2027-01"
BAD_LINE = f"unknown revision '{BAD}'; known: 2026-08, 2026-11, 2026-11-20, preview"

#: The arguments each command needs besides `--revision` (a readable trace where it takes one).
ARGS = {
    "check": [str(EMPTY_RECEIPT)],
    "report": [str(EMPTY_RECEIPT), "-o", "-"],
    "replay": [str(EMPTY_RECEIPT)],
    "demo": [],
    "rules": [],
    "explore": ["--depth", "1"],
    "proxy": [],  # its agent command comes last (after `--`), so none here
    "schema-diff": ["old.json", "new.json"],
}


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(list(argv))
    out, err = capsys.readouterr()
    return status, out, err


def test_every_command_has_the_option() -> None:
    assert sorted(ARGS) == sorted(c.name for c in COMMANDS)


def test_the_registry_names_every_revision_and_the_alias() -> None:
    assert acp.REVISION_CHOICES == ("2026-08", "2026-11", "2026-11-20", "preview")
    assert acp.revision_named("preview") is acp.V2_PREVIEW is acp.REVISIONS["2026-11-20"]


@pytest.mark.parametrize("command", sorted(ARGS))
def test_a_bad_name_is_one_line_and_exit_2(
    command: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    extra = ["--out", str(tmp_path)] if command == "explore" else []
    status, out, err = _run(capsys, command, *ARGS[command], *extra, "--revision", BAD)
    assert status == 2
    assert err == f"acp_core {command}: {BAD_LINE}\n"
    assert out == ""  # refused before the command ran
    assert not list(tmp_path.iterdir())


@pytest.mark.parametrize("command", sorted(ARGS))
def test_the_help_names_every_revision(command: str, capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit):
        main([command, "--help"])
    text = " ".join(capsys.readouterr().out.split())
    assert "--revision NAME" in text
    assert "2026-08, 2026-11, 2026-11-20, preview" in text


@pytest.mark.parametrize("name", acp.REVISION_CHOICES)
def test_check_judges_by_the_named_revision(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "check", "--json", "--revision", name, str(EMPTY_RECEIPT))
    rules = [v["rule"] for v in json.loads(out)]
    if acp.revision_named(name).prompt_result_has_message_id:
        assert (status, rules) == (1, ["R1"])
    else:
        assert (status, rules) == (0, [])


@pytest.mark.parametrize("name", acp.REVISION_CHOICES)
def test_report_names_and_uses_the_revision(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    revision = acp.revision_named(name)
    status, page, _ = _run(capsys, "report", "--revision", name, "-o", "-", str(EMPTY_RECEIPT))
    assert status == 0
    assert f"revision {revision.name}" in page
    argv = ["report", "--format", "mermaid", "--revision", name, str(EMPTY_RECEIPT)]
    status, diagram, _ = _run(capsys, *argv)
    assert status == 0
    assert ("Note over L1: R1 MUST" in diagram) == revision.prompt_result_has_message_id


def _trace(tmp_path: Path, *updates: dict[str, object]) -> str:
    path = tmp_path / "t.jsonl"
    lines = [
        {
            "from": "agent",
            "message": {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"sessionId": "s1", "update": u},
            },
        }
        for u in updates
    ]
    path.write_text("".join(json.dumps(line) + "\n" for line in lines))
    return str(path)


@pytest.mark.parametrize("name", acp.REVISION_CHOICES)
def test_replay_decodes_by_the_named_revision(
    name: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # `notice` is a 2026-11 kind, `plan_removed` a Preview one: unknown before, typed from on
    trace = _trace(
        tmp_path,
        {"sessionUpdate": "notice", "severity": "info", "title": "hi"},
        {"sessionUpdate": "plan_removed", "planId": "p"},
    )
    status, out, _ = _run(capsys, "replay", "--revision", name, trace)
    assert status == 0
    unknown = out.split("Unknown updates (kept as sent)")[-1] if "Unknown updates" in out else ""
    revision = acp.revision_named(name)
    assert ("notice" in unknown) == (not revision.includes("2026-11"))
    assert ("plan_removed" in unknown) == (not revision.includes(acp.PREVIEW.name))


@pytest.mark.parametrize("name", acp.REVISION_CHOICES)
def test_demo_speaks_the_named_revision(name: str, capsys: pytest.CaptureFixture[str]) -> None:
    status, out, _ = _run(capsys, "demo", "--json", "--revision", name)
    assert status == 0
    entries = [json.loads(line) for line in out.splitlines()]
    prompts = {
        e["message"]["id"] for e in entries if e["message"].get("method") == "session/prompt"
    }
    receipts = [
        e["message"]["result"]
        for e in entries
        if e["from"] == "agent" and e["message"].get("id") in prompts
    ]
    assert len(receipts) == 2
    expected = {"messageId"} if acp.revision_named(name).prompt_result_has_message_id else set()
    assert all(set(r) == expected for r in receipts)
    # and the demo's verdict was given at that revision: it breaks nothing there
    assert acp.check_trace(entries, revision=acp.revision_named(name)) == ()


def test_rules_without_a_revision_prints_the_whole_catalogue(
    capsys: pytest.CaptureFixture[str],
) -> None:
    status, out, _ = _run(capsys, "rules")
    assert status == 0
    assert out == (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")


def _rule_ids(markdown: str) -> set[str]:
    return {line.split("|")[1].strip() for line in markdown.splitlines() if line.startswith("| ")}


@pytest.mark.parametrize("name", acp.REVISION_CHOICES)
def test_rules_with_a_revision_prints_only_the_rules_that_apply_there(
    name: str, capsys: pytest.CaptureFixture[str]
) -> None:
    status, out, _ = _run(capsys, "rules", "--revision", name)
    assert status == 0
    revision = acp.revision_named(name)
    shown = _rule_ids(out) & set(acp.RULES)
    assert shown == {r for r in acp.RULES if revision.applies(r)}
    assert f"revision `{revision.name}`" in out
    assert ("C15" in shown) == (not revision.includes("2026-11"))  # C40 replaces it
    # the item-cancel rules come with 2026-11, the child-session rules with the Preview
    assert ({"R75", "C40", "C41"} <= shown) == revision.includes("2026-11")
    assert ({"R47", "C27", "R67", "C42"} <= shown) == revision.includes(acp.PREVIEW.name)


def test_a_rule_a_later_revision_adds_applies_only_from_there(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # A rule's `since` scopes it to the revisions built on the one it names.
    from acp_core._wire import _revision

    later = _revision._later(acp.V2_PREVIEW, "2099-01", "test")
    scopes = _revision._declared_scopes()
    moved = {**scopes, "R1": _revision.RuleScope(since="2099-01")}
    monkeypatch.setattr(_revision, "_SCOPES", [moved])
    assert later.applies("R1")
    assert not acp.V2_PREVIEW.applies("R1")
    assert not acp.V2_2026_08.applies("R1")
    assert acp.V2_2026_08.applies("R2")


@pytest.mark.parametrize("name", ["2026-08", "2026-11"])
def test_explore_walks_at_the_named_revision(
    name: str, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    argv = ["explore", "--revision", name, "--depth", "1", "--json", "--out", str(tmp_path)]
    status, out, _ = _run(capsys, *argv)
    assert status == 0
    assert json.loads(out)["revision"] == name


# -- the examples ----------------------------------------------------------------------------


@pytest.mark.parametrize("example", ["stdio_agent.py", "stdio_client.py", "sdk_agent.py"])
def test_an_example_refuses_a_bad_name_in_one_line(example: str) -> None:
    if example == "sdk_agent.py":
        pytest.importorskip("acp", reason="sdk_agent.py needs the official Python SDK")
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / example), "--revision", BAD],
        capture_output=True,
        text=True,
        stdin=subprocess.DEVNULL,
        timeout=60,
        check=False,
    )
    prog = example.removesuffix(".py").replace("_", " ")
    assert (r.returncode, r.stdout, r.stderr) == (2, "", f"{prog}: {BAD_LINE}\n")


@pytest.mark.parametrize("example", ["stdio_agent.py", "stdio_client.py"])
def test_an_examples_help_names_every_revision(example: str) -> None:
    r = subprocess.run(
        [sys.executable, str(EXAMPLES / example), "--help"],
        capture_output=True,
        text=True,
        timeout=60,
        check=False,
    )
    assert r.returncode == 0
    assert "2026-08, 2026-11, 2026-11-20, preview" in " ".join(r.stdout.split())
