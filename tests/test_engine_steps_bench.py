"""The engine-step benchmark's scripts are a clean conversation: every step is legal, neither
side breaks a rule, and they reach every step module of the agent and the client engine
(benchmarks/engine_steps.py; no timing here)."""

from __future__ import annotations

import sys
from pathlib import Path

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import acp_core as acp
from acp_core import intents
from acp_core._engines import (
    _agent_children,
    _agent_items,
    _agent_output,
    _agent_permissions,
    _agent_turn,
    _client_cancel,
    _client_items,
    _client_permissions,
    _client_prompts,
)
from benchmarks import engine_steps


def test_the_script_is_a_clean_conversation_over_every_step_module() -> None:
    script = engine_steps._script(8)
    engine = acp.new_agent(engine_steps.SID)
    sent = 0
    for intent in script:
        engine, out = acp.step(engine, intent)
        sent += len(out)
    assert engine.violations == ()
    assert engine.phase == "idle"
    assert sent > len(script)
    kinds = {type(i) for i in script}
    for table in (
        _agent_turn.TURN_STEPS,
        _agent_output.OUTPUT_STEPS,
        _agent_permissions.PERMISSION_STEPS,
        _agent_children.CHILDREN_STEPS,
        _agent_items.ITEM_STEPS,
    ):
        assert kinds & set(table)
    received = {type(i.message).__name__ for i in script if type(i) is intents.Received}
    assert {"PromptRequest", "Response", "CancelSessionNotification"} <= received
    assert "CancelToolCallRequest" in received


def test_the_client_script_is_the_same_conversation_from_the_other_side() -> None:
    script = engine_steps._client_script(8)
    client = acp.new_client(engine_steps.SID)
    for intent in script:
        client = acp.step(client, intent).state
    assert client.violations == ()
    assert [p.state for p in client.prompts] == ["accepted"] * 8
    every_fourth_cancelled = ["end_turn", "end_turn", "end_turn", "cancelled"] * 2
    assert [p.stop_reason for p in client.prompts] == every_fourth_cancelled
    kinds = {type(i) for i in script}
    for table in (
        _client_prompts.PROMPT_STEPS,
        _client_cancel.CANCEL_STEPS,
        _client_permissions.PERMISSION_STEPS,
        _client_items.ITEM_STEPS,
    ):
        assert kinds & set(table)


def test_measure_reports_a_cost_per_step() -> None:
    result = engine_steps.measure(2, repeats=1)
    assert result["steps"] == len(engine_steps._script(2))
    assert result["client_steps"] == len(engine_steps._client_script(2))
    assert result["per_step_us"] > 0
    assert result["client_per_step_us"] > 0
