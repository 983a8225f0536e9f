"""Totality of both engines: for every (phase, input kind), a generated input (legal or not)
either steps or raises `LocalProtocolError` (a received message may also raise
`RemoteProtocolError`); nothing else escapes. When it steps, the outbound messages validate
against the stable v2 schema, the new session is the fold of the engine's own updates, and
the old engine is untouched; when it is refused, the caller's engine is unchanged.

Phases (agent): idle without a turn (with and without a waiting prompt), running,
requires_action, cancel requested; (client): idle, running, waiting on a permission answer,
cancel sent. Phases carry known tool calls, messages and requests, so the id pools reach the
legal paths.
"""

from __future__ import annotations

import copy
import functools
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pair import (
    agent_intent_strategies,
    cancel_wire,
    client_intent_strategies,
    prompt_wire,
    receive,
)
from schema_validation import OutboundValidator

import acp_core as acp
from acp_core import (
    AcceptPrompt,
    EndTurn,
    LocalProtocolError,
    PermissionOption,
    RemoteProtocolError,
    RequestPermission,
    StartToolCall,
    step,
)
from acp_core._engines._agent import AGENT_INPUTS
from acp_core._engines._client import CLIENT_INPUTS

SID = "sess_1"
OPTIONS = (PermissionOption("y", "Yes", "allow_once"), PermissionOption("n", "No", "reject_once"))
# Every (phase, kind) pair is a test of its own: a fraction of the profile's examples each.
EXAMPLES = max(5, settings.default.max_examples // 5)


@functools.cache
def _agent_phase(phase: str, revision: acp.Revision) -> acp.AgentEngine:
    engine = acp.new_agent(SID, revision=revision)
    for intent_or_wire in (
        prompt_wire(5),
        AcceptPrompt(5),
        acp.SendAgentText("earlier"),
        StartToolCall("Earlier", tool_call_id="t0"),
        EndTurn(),
        StartToolCall("Background", tool_call_id="b1"),
        RequestPermission("Background?", OPTIONS, "b1"),  # pending, not blocking
        prompt_wire(1),
    ):
        if isinstance(intent_or_wire, dict):
            engine = receive(engine, intent_or_wire).state
        else:
            engine = step(engine, intent_or_wire).state
    if phase == "idle":
        return engine
    if phase == "idle_no_prompt":
        return step(engine, acp.RejectPrompt(1, "busy")).state
    engine = step(engine, AcceptPrompt(1)).state
    engine = receive(engine, prompt_wire(2)).state
    engine = step(engine, StartToolCall("Edit", tool_call_id="t1")).state
    if phase == "running":
        return engine
    engine = step(engine, RequestPermission("Edit?", OPTIONS, "t1")).state
    if phase == "requires_action":
        return engine
    return receive(engine, cancel_wire()).state


AGENT_PHASES = ("idle", "idle_no_prompt", "running", "requires_action", "cancel_requested")
REVISIONS = {"2026-08": acp.V2_2026_08, "2026-11": acp.V2_2026_11}


@pytest.fixture(scope="module")
def validate(spec_schema: dict[str, Any]) -> OutboundValidator:
    return OutboundValidator(spec_schema)


def test_phases_are_what_they_say() -> None:
    phases = {p: _agent_phase(p, acp.V2_2026_08) for p in AGENT_PHASES}
    assert phases["idle"].turn is None
    assert phases["idle"].phase == "idle"
    assert phases["idle"].prompts
    assert phases["idle_no_prompt"].turn is None
    assert not phases["idle_no_prompt"].prompts
    assert phases["running"].phase == "running"
    assert phases["requires_action"].phase == "requires_action"
    cancelled = phases["cancel_requested"]
    assert cancelled.turn is not None
    assert cancelled.cancel_requested


def test_the_strategies_cover_every_input_kind() -> None:
    assert set(agent_intent_strategies(acp.V2_2026_08, SID)) == set(AGENT_INPUTS)
    assert set(client_intent_strategies(SID)) == set(CLIENT_INPUTS)


@functools.cache
def _copy(engine: Any) -> Any:
    # The phase engines are cached and shared by all examples: a step that mutated one in
    # place would show against this deep copy taken once.
    return copy.deepcopy(engine)


def _check_step(
    validate: OutboundValidator, side: str, engine: Any, intent: object
) -> tuple[str, Any]:
    before = _copy(engine)
    error: acp.ProtocolError | None = None
    try:
        new, outbound = step(engine, intent)
    except (LocalProtocolError, RemoteProtocolError) as e:
        error = e
    if error is not None:
        assert engine == before  # refused: the caller's engine is still valid
        assert isinstance(error.rule, str)
        assert error.rule
        if isinstance(error, RemoteProtocolError):
            assert isinstance(intent, acp.Received), f"{type(intent).__name__}: {error!r}"
        return type(error).__name__, error.rule
    assert engine == before  # pure: the old engine is untouched
    for wire in outbound:
        json.dumps(wire)
        validate(side, wire)
    if side == "agent":
        # The engine keeps what it sent: its session is the fold of its own updates.
        own = [
            w["params"]["update"]
            for w in outbound
            if w.get("method") == "session/update" and w["params"]["sessionId"] == engine.session_id
        ]  # a child's updates (Preview) belong to the child's view, not this session
        revision = engine.revision
        updates = [acp.decode_update(u, strict=True, revision=revision) for u in own]
        assert new.session == acp.fold(engine.session, updates, revision=engine.revision)
    else:
        assert new.view.messages == new.session.messages
        assert new.view.foreground == new.session.foreground
    return "stepped", None


@pytest.mark.parametrize("phase", AGENT_PHASES)
@pytest.mark.parametrize("kind", AGENT_INPUTS, ids=lambda k: k.__name__)
@settings(max_examples=EXAMPLES, deadline=None)
@given(data=st.data())
def test_agent_engine_is_total(
    validate: OutboundValidator, kind: type, phase: str, data: st.DataObject
) -> None:
    revision = data.draw(st.sampled_from(sorted(REVISIONS)), label="revision")
    engine = _agent_phase(phase, REVISIONS[revision])
    intent = data.draw(agent_intent_strategies(engine.revision, SID)[kind], label="intent")
    _check_step(validate, "agent", engine, intent)


@functools.cache
def _client_phase(phase: str) -> acp.ClientEngine:
    client = acp.new_client(SID, revision=acp.V2_2026_08)  # receipts below are 2026-08 `{}`
    client = step(client, acp.SendPrompt((acp.TextContent("hi"),))).state
    client = step(client, acp.SendPrompt((acp.TextContent("again"),))).state
    wires: list[dict[str, Any]] = [
        {"jsonrpc": "2.0", "id": 0, "result": {}},
        _update({"sessionUpdate": "tool_call_update", "toolCallId": "b1", "title": "bg"}),
    ]
    if phase != "idle":
        wires += [
            _update(
                {
                    "sessionUpdate": "user_message",
                    "messageId": "u1",
                    "content": [{"type": "text", "text": "hi"}],
                }
            ),
            _update({"sessionUpdate": "state_update", "state": "running"}),
            _update({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "title": "Edit"}),
        ]
    if phase in ("requires_action", "cancel_requested"):
        wires += [
            {
                "jsonrpc": "2.0",
                "id": 5,
                "method": "session/request_permission",
                "params": {
                    "sessionId": SID,
                    "title": "Edit?",
                    "options": [
                        {"optionId": "y", "name": "Yes", "kind": "allow_once"},
                        {"optionId": "n", "name": "No", "kind": "reject_once"},
                    ],
                },
            },
            _update({"sessionUpdate": "state_update", "state": "requires_action"}),
        ]
    for wire in wires:
        client = receive(client, wire).state
    if phase == "cancel_requested":
        client = step(client, acp.SendCancel()).state
    return client


def _update(update: dict[str, Any]) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": SID, "update": update},
    }


CLIENT_PHASES = ("idle", "running", "requires_action", "cancel_requested")


def test_client_phases_are_what_they_say() -> None:
    assert _client_phase("idle").session.foreground.state == "idle"
    assert _client_phase("running").session.foreground.state == "running"
    assert 5 in _client_phase("requires_action").pending
    cancelled = _client_phase("cancel_requested")
    assert cancelled.cancel_requested
    assert not cancelled.pending


@pytest.mark.parametrize("phase", CLIENT_PHASES)
@pytest.mark.parametrize("kind", CLIENT_INPUTS, ids=lambda k: k.__name__)
@settings(max_examples=EXAMPLES, deadline=None)
@given(data=st.data())
def test_client_engine_is_total(
    validate: OutboundValidator, kind: type, phase: str, data: st.DataObject
) -> None:
    client = _client_phase(phase)
    intent = data.draw(client_intent_strategies(SID)[kind], label="intent")
    _check_step(validate, "client", client, intent)
