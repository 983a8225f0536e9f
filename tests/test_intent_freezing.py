"""Intents are checked and frozen at construction (issue 15).

A mistyped field is a `LocalProtocolError` (E0) naming the field; whatever mutable container
a caller hands an intent (a list, a dict, a bytearray) is copied into a frozen one, so
changing it afterwards changes neither the intent, nor the engine state, nor the wire dicts a
step already returned.
"""

from __future__ import annotations

import copy
from collections.abc import Callable
from typing import Any

import attrs
import immutables
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st
from pair import agent_intent_strategies, client_intent_strategies

import acp_core as acp
from acp_core._engines._agent import AGENT_INPUTS
from acp_core._engines._client import CLIENT_INPUTS

_T = acp.TextContent("x")

MISTYPED: list[tuple[Callable[[], object], str]] = [
    (lambda: acp.EndTurn(stop_reason=5), "EndTurn.stop_reason"),  # type: ignore[arg-type]
    (lambda: acp.SendAgentText(5), "SendAgentText.content"),  # type: ignore[arg-type]
    (lambda: acp.SendPrompt("hi"), "SendPrompt.content"),  # type: ignore[arg-type]
    (lambda: acp.SendPrompt(("hi",)), "SendPrompt.content[0]"),  # type: ignore[arg-type]
    (lambda: acp.SendThought(None), "SendThought.content"),  # type: ignore[arg-type]
    (lambda: acp.ReportUsage(True, 100), "ReportUsage.used"),
    (lambda: acp.ReportUsage(1, 10**5000), "ReportUsage.size"),
    (lambda: acp.AcceptPrompt(1.5), "AcceptPrompt.request_id"),  # type: ignore[arg-type]
    (lambda: acp.AcceptPrompt(2**63), "AcceptPrompt.request_id"),
    (lambda: acp.AcceptPrompt(1, chunked="yes"), "AcceptPrompt.chunked"),  # type: ignore[arg-type]
    (lambda: acp.RejectPrompt(1, "m", code="x"), "RejectPrompt.code"),  # type: ignore[arg-type]
    (lambda: acp.RejectPrompt(1, "m", data={1: 2}), "RejectPrompt.data"),  # type: ignore[dict-item]
    (lambda: acp.RequestPermission("t", "opts"), "RequestPermission.options"),  # type: ignore[arg-type]
    (lambda: acp.RequestPermission("t", ({"optionId": "y"},)), "RequestPermission.options[0]"),  # type: ignore[arg-type]
    (lambda: acp.StartToolCall(["t"]), "StartToolCall.title"),  # type: ignore[arg-type]
    (lambda: acp.StartToolCall("t", raw_input={"a": {1, 2}}), "StartToolCall.raw_input"),
    (lambda: acp.StartToolCall("t", raw_input=float("nan")), "StartToolCall.raw_input"),
    (lambda: acp.PatchToolCall("t", content=(_T,)), "PatchToolCall.content[0]"),
    (lambda: acp.SendToolContent("t", _T), "SendToolContent.content"),  # type: ignore[arg-type]
    (lambda: acp.PatchTerminal("t", output="text"), "PatchTerminal.output"),  # type: ignore[arg-type]
    (lambda: acp.SendTerminalOutput("t", "text"), "SendTerminalOutput.data"),  # type: ignore[arg-type]
    (lambda: acp.ReportPlan(entries=[5]), "ReportPlan.entries[0]"),  # type: ignore[list-item]
    (lambda: acp.PatchSessionInfo(title=5), "PatchSessionInfo.title"),  # type: ignore[arg-type]
    (lambda: acp.SendAgentText("x", meta=[1]), "SendAgentText.meta"),  # type: ignore[arg-type]
    (lambda: acp.AnswerPermission(1, None), "AnswerPermission.option_id"),  # type: ignore[arg-type]
    (lambda: acp.CancelPermission(object()), "CancelPermission.request_id"),  # type: ignore[arg-type]
    (lambda: acp.ReportAbort(detail=b"x"), "ReportAbort.detail"),  # type: ignore[arg-type]
    # A value the strict decoder refuses, inside an intent (a value refuses a wrong kind of
    # container or what JSON cannot hold itself: tests/test_value_freezing.py).
    (
        lambda: acp.RequestPermission("t", (acp.PermissionOption(5, "n", "allow_once"),)),
        "RequestPermission.options[0]",
    ),  # type: ignore[arg-type]
    (lambda: acp.ReportUsage(1, 2, acp.Cost(10**5000, "USD")), "ReportUsage.cost"),
    (
        lambda: acp.ReportPlan((acp.PlanEntry(None, "high", "pending"),)),
        "ReportPlan.entries[0]",
    ),  # type: ignore[arg-type]
    (
        lambda: acp.PatchTerminal("x", exit_status=acp.TerminalExitStatus(exit_code="1")),
        "PatchTerminal.exit_status",
    ),  # type: ignore[arg-type]
    (
        lambda: acp.StartToolCall("t", locations=(acp.ToolCallLocation(5),)),
        "StartToolCall.locations[0]",
    ),  # type: ignore[arg-type]
]


@pytest.mark.parametrize(("build", "field"), MISTYPED, ids=[f for _, f in MISTYPED])
def test_a_mistyped_intent_is_refused_naming_the_field(
    build: Callable[[], object], field: str
) -> None:
    with pytest.raises(acp.LocalProtocolError) as e:
        build()
    assert e.value.rule == "E0"
    assert field in e.value.detail


# -- nothing mutable is reachable from an intent --------------------------------------------

_MUTABLE = (list, dict, set, bytearray)


def _mutable_parts(value: object, path: str = "$") -> list[str]:
    """Paths of every mutable container reachable from `value` (attrs fields, tuples, maps)."""
    if isinstance(value, _MUTABLE):
        return [path]
    if isinstance(value, tuple):
        return [p for i, v in enumerate(value) for p in _mutable_parts(v, f"{path}[{i}]")]
    if isinstance(value, immutables.Map):
        return [p for k, v in value.items() for p in _mutable_parts(v, f"{path}.{k}")]
    if attrs.has(type(value)):
        return [
            p
            for a in attrs.fields(type(value))
            for p in _mutable_parts(getattr(value, a.name), f"{path}.{a.name}")
        ]
    return []


def _loosen(value: object) -> object:
    """What a careless caller passes: tuples as lists, frozen maps as dicts, bytes as bytearray."""
    if isinstance(value, tuple):
        return [_loosen(v) for v in value]
    if isinstance(value, immutables.Map):
        return {k: _loosen(v) for k, v in value.items()}
    if type(value) is bytes:
        return bytearray(value)
    if attrs.has(type(value)):  # a value inside the intent: loosen its fields too
        return attrs.evolve(
            value,  # type: ignore[misc]
            **{
                a.name.lstrip("_"): _loosen(getattr(value, a.name))
                for a in attrs.fields(type(value))
            },
        )
    return value


def _scramble(value: object) -> None:
    """Change every mutable container reachable from what the caller passed."""
    if isinstance(value, list):
        for v in value:
            _scramble(v)
        value.append("changed")
    elif isinstance(value, dict):
        for v in value.values():
            _scramble(v)
        value["changed"] = True
    elif isinstance(value, bytearray):
        value += b"changed"
    elif attrs.has(type(value)):
        for a in attrs.fields(type(value)):
            _scramble(getattr(value, a.name))


_INTENT_KINDS = [k for k in (*AGENT_INPUTS, *CLIENT_INPUTS) if k is not acp.Received]


def _intents(kind: type[Any]) -> st.SearchStrategy[Any]:
    strategies = agent_intent_strategies() | client_intent_strategies()
    return strategies[kind]  # type: ignore[no-any-return]


@pytest.mark.parametrize("kind", _INTENT_KINDS, ids=lambda k: k.__name__)
@settings(max_examples=max(10, settings.default.max_examples // 5), deadline=None)
@given(data=st.data())
def test_every_intent_freezes_what_it_is_given(kind: type[Any], data: st.DataObject) -> None:
    intent = data.draw(_intents(kind))
    given_fields = {a.name: _loosen(getattr(intent, a.name)) for a in attrs.fields(kind)}
    rebuilt = kind(**given_fields)
    assert rebuilt == intent  # the same intent, whatever containers it was given
    assert _mutable_parts(rebuilt) == []
    hash(rebuilt)
    before = copy.deepcopy(rebuilt)
    for value in given_fields.values():
        _scramble(value)
    assert rebuilt == before  # the caller's containers are not the intent's


def test_every_intent_kind_is_covered() -> None:
    from acp_core._engines import _intents, _intents_preview

    public = {getattr(_intents, n) for n in _intents.__all__} | {
        getattr(_intents_preview, n) for n in _intents_preview.__all__
    }
    checked = {k for k in public if isinstance(k, type) and issubclass(k, _intents._Checked)}
    assert checked == set(_INTENT_KINDS)
    assert checked <= set(agent_intent_strategies()) | set(client_intent_strategies())


# -- the engine never stores or sends the caller's containers ------------------------------


def test_permission_options_given_as_a_list_are_not_shared_with_the_engine() -> None:
    agent, _ = acp.step(acp.new_agent("s"), acp.StartWork())
    options = [acp.PermissionOption("y", "Yes", "allow_once")]
    agent, out = acp.step(agent, acp.RequestPermission("Edit?", options))  # type: ignore[arg-type]
    sent = copy.deepcopy(out)
    state = copy.deepcopy(agent)
    options.append(acp.PermissionOption("n", "No", "reject_once"))
    options.clear()
    assert out == sent
    assert agent == state
    hash(agent)


def test_raw_input_given_as_a_dict_is_not_shared_with_the_engine_or_the_wire() -> None:
    agent, _ = acp.step(acp.new_agent("s"), acp.StartWork())
    raw_input = {"path": "/a", "lines": [1, 2]}
    agent, out = acp.step(agent, acp.StartToolCall("Read", "t1", raw_input=raw_input))
    sent = copy.deepcopy(out)
    raw_input["lines"].append(3)  # type: ignore[attr-defined]
    raw_input["path"] = "/b"
    assert out == sent
    stored = agent.session.tool_calls["t1"].raw_input
    assert acp.thaw_json(stored) == {"path": "/a", "lines": [1, 2]}
    hash(agent)
    # ...and changing the wire dict already returned does not reach the engine either.
    out[0]["params"]["update"]["rawInput"]["path"] = "/c"
    assert acp.thaw_json(agent.session.tool_calls["t1"].raw_input)["path"] == "/a"  # type: ignore[index]


def test_a_dict_inside_a_value_inside_an_intent_is_frozen_too() -> None:
    # Value classes store what they are given; the intent keeps the codec's frozen copy.
    meta = {"trace": ["a"]}
    block = acp.TextContent("hi", meta=meta)  # type: ignore[arg-type]
    intent = acp.SendAgentText(block)
    meta["trace"].append("b")
    assert intent.content == acp.TextContent("hi", meta=acp.freeze_json({"trace": ["a"]}))
    assert _mutable_parts(intent) == []
    hash(intent)


def test_terminal_bytes_given_as_a_bytearray_are_copied() -> None:
    agent, _ = acp.step(acp.new_agent("s"), acp.StartWork())
    data = bytearray(b"abc")
    agent, _ = acp.step(agent, acp.SendTerminalOutput("term", data))
    data[:] = b"xyz"
    assert acp.terminal_bytes(agent.session.terminals["term"]) == b"abc"
