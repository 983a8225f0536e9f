"""Each revision against its own schema: 2026-08 (`schema.json`), 2026-11
(`draft-2026-11/schema.json`, official) and the Preview (`preview-reconstructed/`, our merged
reconstruction).

- The update kinds a revision names are exactly the `sessionUpdate` tags of its schema.
- At each revision, no kind it names decodes to an unknown update: one minimal example per
  tag, valid against that revision's schema, decodes to its own class.
- Every message the engines emit in a scripted conversation validates against that
  revision's schema (root branch and the precise definition of the method, see
  schema_validation.py).
- The examples (`examples/stdio_client.py` starting `examples/stdio_agent.py`, real pipes)
  at each revision: every message either side recorded, set-up included, validates against
  that revision's schema, and each side's recording breaks none of its rules there.
"""

from __future__ import annotations

import json
import subprocess
import sys
from functools import cache
from pathlib import Path
from typing import Any

import jsonschema
import pytest
from conftest import SPEC_DIR, schema_2026_11_path
from jsonschema import Draft202012Validator
from pair import AgentClientPair
from schema_validation import ConversationValidator, OutboundValidator

import acp_core as acp
from acp_core import (
    AcceptPrompt,
    AnswerPermission,
    EndTurn,
    FinishToolCall,
    PatchTerminal,
    PermissionOption,
    RequestPermission,
    SendAgentText,
    SendCancel,
    SendPrompt,
    StartToolCall,
)

_SCHEMAS = {
    "2026-08": SPEC_DIR / "schema.json",
    "preview": SPEC_DIR / "preview-reconstructed" / "reconstructed-preview-merged.json",
}


def _revisions() -> list[acp.Revision]:
    return list(acp.REVISIONS.values())


def _schema_key(revision: acp.Revision) -> str:
    return "preview" if revision is acp.PREVIEW else revision.name


@cache
def _schema(key: str) -> dict[str, Any]:
    # 2026-11: the shared copy, else the npm SDK's (conftest)
    path = schema_2026_11_path() if key == "2026-11" else _SCHEMAS[key]
    if not path.exists():
        pytest.skip(f"{path} not found: set ACP_V2_SPEC_DIR to the shared acp-v2 folder")
    with path.open() as f:
        schema: dict[str, Any] = json.load(f)
    return schema


def _schema_tags(schema: dict[str, Any]) -> set[str]:
    variants = schema["$defs"]["SessionUpdate"]["anyOf"]
    tags = {v.get("properties", {}).get("sessionUpdate", {}).get("const") for v in variants}
    return {t for t in tags if t is not None}


def _valid(schema: dict[str, Any], definition: str, instance: Any) -> None:
    Draft202012Validator({"$defs": schema["$defs"], "$ref": f"#/$defs/{definition}"}).validate(
        instance
    )


_TEXT = {"type": "text", "text": "hi"}

#: One minimal valid update per tag (each is validated against the revision's schema first).
MINIMAL: dict[str, dict[str, Any]] = {
    "user_message_chunk": {"messageId": "m", "content": _TEXT},
    "user_message": {"messageId": "m"},
    "agent_message_chunk": {"messageId": "m", "content": _TEXT},
    "agent_message": {"messageId": "m"},
    "agent_thought_chunk": {"messageId": "m", "content": _TEXT},
    "agent_thought": {"messageId": "m"},
    "state_update": {"state": "running"},
    "tool_call_content_chunk": {
        "toolCallId": "t",
        "content": {"type": "content", "content": _TEXT},
    },
    "tool_call_update": {"toolCallId": "t"},
    "terminal_update": {"terminalId": "x"},
    "terminal_output_chunk": {"terminalId": "x", "data": "aGk="},
    "plan_update": {"plan": {"type": "items", "planId": "p", "entries": []}},
    "available_commands_update": {"availableCommands": []},
    "config_option_update": {"configOptions": []},
    "session_info_update": {},
    "usage_update": {"used": 1, "size": 2},
    "notice": {"severity": "info", "title": "t"},
    "compaction_update": {"compactionId": "k", "status": "in_progress"},
    "compaction_summary_chunk": {"compactionId": "k", "content": _TEXT},
    "plan_removed": {"planId": "p"},
    "replay_complete": {},
    "prompt_suggestions_update": {"suggestions": []},
    "subagent_update": {"sessionId": "c"},
    "session_message": {"messageId": "m"},
    "session_message_chunk": {"messageId": "m", "content": _TEXT},
}


@pytest.mark.parametrize("revision", _revisions(), ids=lambda r: r.name)
def test_update_kinds_are_the_schemas_tags(revision: acp.Revision) -> None:
    assert set(revision.update_kinds) == _schema_tags(_schema(_schema_key(revision)))


@pytest.mark.parametrize("revision", _revisions(), ids=lambda r: r.name)
def test_no_named_kind_decodes_to_an_unknown_update(revision: acp.Revision) -> None:
    schema = _schema(_schema_key(revision))
    unknown = []
    for tag in sorted(_schema_tags(schema)):
        wire = {"sessionUpdate": tag, **MINIMAL[tag]}
        _valid(schema, "SessionUpdate", wire)
        decoded = acp.decode_update(wire, strict=True, revision=revision)
        if isinstance(decoded, acp.OtherUpdate | acp.OtherStateUpdate):
            unknown.append(tag)
        assert acp.encode_update(decoded) == wire
    assert unknown == []


def _conversation(pair: AgentClientPair) -> None:
    """Two prompt turns: text, a tool call, a terminal, a permission round trip, an end; then
    a cancelled turn with a pending permission request."""
    options = (
        PermissionOption("y", "Yes", "allow_once"),
        PermissionOption("n", "No", "reject_once"),
    )
    pair.client_does(SendPrompt((acp.TextContent("hello"),)))
    for intent in (
        AcceptPrompt(0),
        SendAgentText("thinking about it"),
        StartToolCall("Read file", tool_call_id="t1", kind="read", status="in_progress"),
        PatchTerminal("term-1", command="make", cwd="/src", output=b"ok\n"),
        RequestPermission("Run it?", options, tool_call_id="t1"),
    ):
        pair.agent_does(intent)
    pair.client_does(AnswerPermission(0, "y"))
    pair.agent_does(FinishToolCall("t1"))
    pair.agent_does(EndTurn())
    pair.client_does(SendPrompt((acp.TextContent("again"),)))
    pair.agent_does(AcceptPrompt(1))
    pair.agent_does(RequestPermission("Again?", options))
    pair.client_does(SendCancel())
    pair.agent_does(EndTurn("cancelled"))


@pytest.mark.parametrize("revision", _revisions(), ids=lambda r: r.name)
def test_engine_output_validates_against_the_revisions_schema(revision: acp.Revision) -> None:
    validator = OutboundValidator(_schema(_schema_key(revision)))
    pair = AgentClientPair(revision=revision, validator=validator)
    _conversation(pair)
    sides = {side for side, _ in pair.sent}
    assert sides == {"agent", "client"}
    assert pair.violations() == ()


EXAMPLES = Path(__file__).resolve().parents[1] / "examples"


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.fixture(scope="module", params=sorted(acp.REVISIONS))
def examples_run(
    request: pytest.FixtureRequest, tmp_path_factory: pytest.TempPathFactory
) -> tuple[acp.Revision, dict[str, list[dict[str, Any]]]]:
    """The example client and agent, both at one revision: two prompts, the second cancelled;
    each side's own recording."""
    name: str = request.param
    tmp = tmp_path_factory.mktemp(f"examples-{name}")
    client_trace, agent_trace = tmp / "client.jsonl", tmp / "agent.jsonl"
    client = [sys.executable, str(EXAMPLES / "stdio_client.py"), "--revision", name]
    agent = [sys.executable, str(EXAMPLES / "stdio_agent.py"), "--revision", name]
    run = subprocess.run(
        [*client, "--trace", str(client_trace), "--", *agent, "--trace", str(agent_trace)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    return acp.REVISIONS[name], {"client": _read(client_trace), "agent": _read(agent_trace)}


def test_every_message_of_the_examples_validates_against_the_revisions_schema(
    examples_run: tuple[acp.Revision, dict[str, list[dict[str, Any]]]],
) -> None:
    revision, traces = examples_run
    validate = ConversationValidator(_schema(_schema_key(revision)))
    for recording in traces.values():
        methods = {e["message"].get("method") for e in recording}
        # the whole conversation, not just the prompt lifecycle
        assert {"initialize", "session/new", "session/prompt", "session/cancel"} <= methods
        assert validate(recording) == len(recording)


def test_the_examples_recordings_break_no_rule_at_their_revision(
    examples_run: tuple[acp.Revision, dict[str, list[dict[str, Any]]]],
) -> None:
    revision, traces = examples_run
    assert acp.check_trace(traces["agent"], revision=revision) == ()
    client_side = acp.check_trace(traces["client"], revision=revision)
    assert [v for v in client_side if acp.RULES[v.rule].side != "agent"] == []
    prompts = {
        e["message"]["id"]
        for e in traces["agent"]
        if e["message"].get("method") == "session/prompt"
    }
    receipts = [
        e["message"]["result"]
        for e in traces["agent"]
        if e["from"] == "agent" and "result" in e["message"] and e["message"]["id"] in prompts
    ]
    users = [
        u["messageId"] for u in _updates(traces["agent"]) if u["sessionUpdate"] == "user_message"
    ]
    assert len(receipts) == 2
    if revision.prompt_result_has_message_id:
        assert receipts == [{"messageId": m} for m in users]
    else:
        assert receipts == [{}, {}]


def _updates(recording: list[dict[str, Any]]) -> list[dict[str, Any]]:
    return [
        e["message"]["params"]["update"]
        for e in recording
        if e["message"].get("method") == "session/update"
    ]


def test_the_conversation_validator_refuses_what_the_schema_refuses(
    examples_run: tuple[acp.Revision, dict[str, list[dict[str, Any]]]],
) -> None:
    # the validation above can fail: a message id that is not a string, a result for a
    # request nobody sent
    revision, traces = examples_run
    validate = ConversationValidator(_schema(_schema_key(revision)))
    recording = json.loads(json.dumps(traces["agent"]))
    update = next(u for u in _updates(recording) if u["sessionUpdate"] == "user_message")
    update["messageId"] = 7
    with pytest.raises(jsonschema.ValidationError):
        validate(recording)
    stray = {"from": "agent", "message": {"jsonrpc": "2.0", "id": "nobody", "result": {}}}
    with pytest.raises(AssertionError, match="no request"):
        validate([*traces["agent"], stray])
