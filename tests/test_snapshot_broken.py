"""`restore` refuses every state the reducers could never build (issue 15), with a path; and
every state it does restore renders, snapshots back to itself and keeps the invariants.

Shape errors are in tests/test_snapshot.py; this file holds the well-shaped documents that
describe impossible states, and hostile values anywhere in a document.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import acp_core as acp
from acp_core._state._snapshot_check import check_restorable


def _good() -> dict[str, Any]:
    wire = [
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "m1",
            "content": {"type": "text", "text": "a"},
            "_meta": {"k": 1},
        },
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "m1",
            "content": {"type": "text", "text": "b"},
        },
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "rawInput": {"a": [1]}},
        {"sessionUpdate": "terminal_update", "terminalId": "x1", "output": {"data": "aGk="}},
        {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p1", "entries": []}},
        {"sessionUpdate": "usage_update", "used": 1, "size": 2},
    ]
    doc = acp.snapshot(acp.fold(acp.new_session("s"), [acp.decode_update(w) for w in wire]))
    assert doc["messages"]["m1"]["chunkMeta"] == {"0": {"k": 1}}
    return doc


def _edit(path: list[Any], value: Any) -> Any:
    def edit(doc: dict[str, Any]) -> dict[str, Any]:
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = value
        return doc

    return edit


def _timeline(entries: list[dict[str, str]]) -> Any:
    return _edit(["timeline"], entries)


def _chunk_meta(key: str) -> Any:
    return _edit(["messages", "m1", "chunkMeta"], {key: {"k": 1}})


def _plan_under(plan_id: str) -> Any:
    def edit(doc: dict[str, Any]) -> dict[str, Any]:
        doc["plans"][plan_id] = doc["plans"].pop("p1")
        doc["timeline"] = [
            r if r["id"] != "p1" else {"kind": "plan", "id": plan_id} for r in doc["timeline"]
        ]
        return doc

    return edit


def _rekey(path: list[Any], key: object) -> Any:
    """Add under a non-string key a copy of the first entry of the object at `path`."""

    def edit(doc: dict[str, Any]) -> dict[str, Any]:
        target = doc
        for step in path:
            target = target[step]
        target[key] = copy.deepcopy(next(iter(target.values())))
        return doc

    return edit


M1, T1, P1 = (
    {"kind": "message", "id": "m1"},
    {"kind": "toolCall", "id": "t1"},
    {"kind": "plan", "id": "p1"},
)

IMPOSSIBLE = [
    pytest.param(_timeline([M1, T1, P1, M1]), "$.timeline[3]", id="duplicate-timeline-entry"),
    pytest.param(_timeline([T1, P1]), "$.messages.m1", id="message-missing-from-timeline"),
    pytest.param(_timeline([M1, P1]), "$.toolCalls.t1", id="tool-call-missing-from-timeline"),
    pytest.param(_timeline([M1, T1]), "$.plans.p1", id="plan-missing-from-timeline"),
    pytest.param(_plan_under("p2"), "$.plans.p2.planId", id="plan-under-another-id"),
    pytest.param(_edit(["usage", "used"], -1), "$.usage.used", id="negative-used"),
    pytest.param(_edit(["usage", "size"], -5), "$.usage.size", id="negative-size"),
    pytest.param(_edit(["usage", "used"], 10**400), "$.usage.used", id="used-10^400"),
    pytest.param(_edit(["usage", "size"], 2**64), "$.usage.size", id="size-over-uint64"),
    pytest.param(_chunk_meta("\u00b2"), "$.messages.m1.chunkMeta", id="chunk-key-superscript-two"),
    pytest.param(_chunk_meta("01"), "$.messages.m1.chunkMeta", id="chunk-key-leading-zero"),
    pytest.param(_chunk_meta("-1"), "$.messages.m1.chunkMeta", id="chunk-key-negative"),
    pytest.param(_chunk_meta("1" * 5000), "$.messages.m1.chunkMeta", id="chunk-key-5000-digits"),
    pytest.param(_chunk_meta("2"), "$.messages.m1.chunkMeta.2", id="chunk-meta-past-the-blocks"),
    # A document built in Python may key by a non-string (restored, then render raised TypeError).
    *(
        pytest.param(
            _rekey([where], key), f"$.{where}", id=f"{where}-keyed-by-{type(key).__name__}"
        )
        for where, key in [("terminals", 7), ("messages", None), ("toolCalls", 1.5), ("plans", 2)]
    ),
    pytest.param(
        _edit(["toolCalls", "t1", "rawInput"], {"n": 10**5000}),
        "$.toolCalls.t1.rawInput.n",
        id="raw-input-5000-digit-int",
    ),
    pytest.param(
        _edit(["toolCalls", "t1", "rawInput"], json.loads("[" * 300 + "]" * 300)),
        "$.toolCalls.t1.rawInput",
        id="raw-input-nested-300-deep",
    ),
]


@pytest.mark.parametrize(("edit", "path"), IMPOSSIBLE)
def test_restore_refuses_a_state_no_reducer_builds(edit: Any, path: str) -> None:
    doc = _good()
    acp.render_session(acp.restore(copy.deepcopy(doc)))  # the untouched document is fine
    with pytest.raises(acp.DecodeError) as e:
        acp.restore(edit(doc))
    assert e.value.path.startswith(path), e.value


# -- hostile values anywhere: refused, or a state that renders -------------------------------

_HOSTILE_LEAVES = st.sampled_from(
    [-1, 0, 2**64, 10**400, -(10**30), "\u00b2", "01", "\ud800", "", None, True, 1.5, [], {}, [[]]]
)


def _paths(value: Any, prefix: tuple[Any, ...] = ()) -> list[tuple[Any, ...]]:
    out = [prefix]
    if isinstance(value, dict):
        for k, v in value.items():
            out += _paths(v, (*prefix, k))
    elif isinstance(value, list):
        for i, v in enumerate(value):
            out += _paths(v, (*prefix, i))
    return out


@settings(max_examples=max(50, settings.default.max_examples), deadline=None)
@given(data=st.data())
def test_every_restored_state_renders_and_keeps_the_invariants(data: st.DataObject) -> None:
    doc = _good()
    for _ in range(data.draw(st.integers(1, 3))):
        path = data.draw(st.sampled_from(_paths(doc)[1:]))
        leaf = data.draw(_HOSTILE_LEAVES | st.sampled_from(["m1", "t1", "p1", "x1"]))
        target = doc
        for key in path[:-1]:
            target = target[key]
        target[path[-1]] = copy.deepcopy(leaf)  # a drawn list or dict is shared: no cycles
    for where in data.draw(st.lists(st.sampled_from(["messages", "toolCalls", "terminals"]))):
        if type(doc.get(where)) is dict and doc[where]:
            _rekey([where], data.draw(st.sampled_from([0, None, 1.5, ("t",)])))(doc)
    try:
        state = acp.restore(doc)
    except acp.DecodeError:
        return
    check_restorable(state)
    acp.render_session(state)
    assert acp.restore(acp.snapshot(state)) == state


@pytest.mark.parametrize(
    ("used", "size", "shown"),
    [(10**400, 3, "(100.0%)"), (2, 3, "(66.7%)"), (1, 3, "(33.3%)"), (5, 0, "tokens")],
)
def test_usage_renders_in_integers(used: int, size: int, shown: str) -> None:
    # usage.used of 10^400 crashed render_session (a float division overflowed).
    from acp_core._cli._render import _usage
    from acp_core._state._session_state import Usage

    assert _usage(Usage(used, size)).endswith(shown)
