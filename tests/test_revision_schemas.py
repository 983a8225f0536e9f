"""Each revision against its own schema: 2026-08 (`schema.json`), 2026-11
(`draft-2026-11/schema.json`, official) and the Preview (`preview-reconstructed/`, our merged
reconstruction).

- The update kinds a revision names are exactly the `sessionUpdate` tags of its schema.
- At each revision, no kind it names decodes to an unknown update: one minimal example per
  tag, valid against that revision's schema, decodes to its own class.
- Every message the engines emit in a scripted conversation validates against that
  revision's schema (root branch and the precise definition of the method, see
  schema_validation.py).
"""

from __future__ import annotations

import json
from functools import cache
from typing import Any

import pytest
from conftest import SPEC_DIR, schema_2026_11_path
from jsonschema import Draft202012Validator
from pair import AgentClientPair
from schema_validation import OutboundValidator

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
