"""Tool calls (digest 3.3, rules T1-T12, Q5, Q6): the prompt-lifecycle walk-through and a patch
semantics table, plus chunk-scoped `_meta`, terminal references (X1) and identity."""

from __future__ import annotations

from typing import Any

import attrs
import pytest

import acp_core as acp
from acp_core import ToolCallUpdate, freeze_json

SID = "sess_1"


def fold_wire(*wire: dict[str, Any], state: acp.SessionState | None = None) -> acp.SessionState:
    # the reducer tables of the 2026-08 digest (section 3): decoded and folded at 2026-08
    updates = [acp.decode_update(w, strict=True, revision=acp.V2_2026_08) for w in wire]
    return acp.fold(state or acp.new_session(SID), updates, revision=acp.V2_2026_08)


def _tcu(tid: str = "call_001", **fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "tool_call_update", "toolCallId": tid, **fields}


def _tcc(item: dict[str, Any], tid: str = "call_001", **kw: Any) -> dict[str, Any]:
    return {"sessionUpdate": "tool_call_content_chunk", "toolCallId": tid, "content": item, **kw}


def _item(text: str) -> dict[str, Any]:
    return {"type": "content", "content": {"type": "text", "text": text}}


def _items(state: acp.SessionState, tid: str = "call_001") -> list[Any]:
    """The call's content as wire items (encoded through the public codec)."""
    content = tuple(state.tool_calls[tid].content)
    items: list[Any] = acp.encode_update(ToolCallUpdate(tid, content=content))["content"]
    return items


def test_prompt_lifecycle_walk_through() -> None:
    # Digest 3.3 worked example, one row per step.
    done = _item("Analysis complete: no syntax errors found.")
    steps: list[tuple[dict[str, Any], dict[str, Any]]] = [
        (
            _tcu(title="Analyzing Python code", kind="other", status="pending"),
            {"title": "Analyzing Python code", "kind": "other", "status": "pending", "content": []},
        ),
        (
            _tcu(status="in_progress"),
            {
                "title": "Analyzing Python code",
                "kind": "other",
                "status": "in_progress",
                "content": [],
            },
        ),
        (
            _tcc(_item("Checked syntax...")),
            {
                "title": "Analyzing Python code",
                "kind": "other",
                "status": "in_progress",
                "content": [_item("Checked syntax...")],
            },
        ),
        (
            _tcu(status="completed", content=[done]),
            {
                "title": "Analyzing Python code",
                "kind": "other",
                "status": "completed",
                "content": [done],
            },
        ),
    ]
    state = acp.new_session(SID)
    for update, expected in steps:
        state = acp.reduce(state, acp.decode_update(update, strict=True))
        call = state.tool_calls["call_001"]
        seen = {
            "title": call.title,
            "kind": call.kind,
            "status": call.status,
            "content": _items(state),
        }
        assert seen == expected
    assert state.tool_calls["call_001"].finished
    assert not state.diagnostics
    assert [(r.kind, r.id) for r in state.timeline] == [("toolCall", "call_001")]


def test_prompt_lifecycle_doc_tool_call_updates(doc_examples: list[dict[str, Any]]) -> None:
    # The same walk-through straight from the page's JSON examples.
    updates = [
        e["message"]["params"]["update"]
        for e in doc_examples
        if e["page"] == "prompt-lifecycle"
        and e["message"].get("method") == "session/update"
        and e["message"]["params"]["update"]["sessionUpdate"].startswith("tool_call")
    ]
    assert len(updates) == 4
    state = fold_wire(*updates)
    call = state.tool_calls["call_001"]
    assert (call.title, call.kind, call.status) == ("Analyzing Python code", "other", "completed")
    assert _items(state) == updates[-1]["content"]
    assert not state.diagnostics


FULL = _tcu(
    title="Read file",
    kind="read",
    status="in_progress",
    content=[_item("a")],
    locations=[{"path": "/a.py", "line": 3}],
    rawInput={"path": "/a.py"},
    rawOutput={"ok": True},
    _meta={"m": 1},
)
BASE = acp.ToolCallState(
    title="Read file",
    kind="read",
    status="in_progress",
    content=acp.PVec([acp.ToolContent(acp.TextContent("a"))]),
    locations=(acp.ToolCallLocation("/a.py", 3),),
    raw_input=freeze_json({"path": "/a.py"}),
    raw_output=freeze_json({"ok": True}),
    meta=freeze_json({"m": 1}),
)

# (patch fields on an existing, fully populated call) -> changed ToolCallState fields
PATCH_TABLE = [
    pytest.param({}, {}, id="absent-keeps-everything"),
    pytest.param({"title": None}, {"title": None}, id="title-null-unsets"),
    pytest.param({"title": "New"}, {"title": "New"}, id="title-replaces"),
    pytest.param({"kind": None}, {"kind": "other"}, id="kind-null-is-other-Q5"),
    pytest.param({"kind": "_custom"}, {"kind": "_custom"}, id="kind-unknown-kept"),
    pytest.param({"status": None}, {"status": "pending"}, id="status-null-is-pending-Q5"),
    pytest.param({"status": "cancelled"}, {"status": "cancelled"}, id="status-replaces"),
    pytest.param({"content": None}, {"content": acp.PVec()}, id="content-null-empties"),
    pytest.param({"content": []}, {"content": acp.PVec()}, id="content-empty-empties"),
    pytest.param(
        {"content": [_item("b"), _item("c")]},
        {"content": acp.PVec([acp.ToolContent(acp.TextContent(t)) for t in "bc"])},
        id="content-replaces",
    ),
    pytest.param({"locations": None}, {"locations": ()}, id="locations-null-empties"),
    pytest.param({"locations": []}, {"locations": ()}, id="locations-empty-empties"),
    pytest.param(
        {"locations": [{"path": "/b"}]},
        {"locations": (acp.ToolCallLocation("/b"),)},
        id="locations-replace",
    ),
    pytest.param({"rawInput": None}, {"raw_input": None}, id="rawInput-null-clears"),
    pytest.param({"rawInput": [1, 2]}, {"raw_input": (1, 2)}, id="rawInput-replaces"),
    pytest.param({"rawOutput": None}, {"raw_output": None}, id="rawOutput-null-clears"),
    pytest.param(
        {"rawOutput": {"x": {"y": 1}}},
        {"raw_output": freeze_json({"x": {"y": 1}})},
        id="rawOutput-replaces-no-merge",
    ),
    pytest.param({"_meta": None}, {"meta": None}, id="meta-null-clears"),
    pytest.param({"_meta": {"n": 2}}, {"meta": freeze_json({"n": 2})}, id="meta-replaces"),
]


@pytest.mark.parametrize(("patch", "changed"), PATCH_TABLE)
def test_patch_semantics_on_an_existing_call(
    patch: dict[str, Any], changed: dict[str, Any]
) -> None:
    state = fold_wire(FULL)
    assert state.tool_calls["call_001"] == BASE
    after = fold_wire(_tcu(**patch), state=state)
    assert after.tool_calls["call_001"] == attrs.evolve(BASE, **changed)
    assert after.foreground == state.foreground
    assert list(after.timeline) == list(state.timeline)


# First sight: T1 defaults, then the patch (nulls mean the defaults too).
# T1 defaults, spelled out: untitled, kind other, status pending, no content, no locations,
# no raw input/output, no meta.
T1 = {
    "title": None,
    "kind": "other",
    "status": "pending",
    "content": [],
    "locations": (),
    "raw_input": None,
    "raw_output": None,
    "meta": None,
}

# First sight: T1 defaults, then the patch (nulls mean the defaults too).
CREATE_TABLE = [
    pytest.param({}, {}, id="bare-id-gets-defaults"),
    pytest.param(
        {
            "title": None,
            "kind": None,
            "status": None,
            "content": None,
            "locations": None,
            "rawInput": None,
            "rawOutput": None,
            "_meta": None,
        },
        {},
        id="all-null-gets-defaults",
    ),
    pytest.param({"kind": "execute"}, {"kind": "execute"}, id="kind-given"),
    pytest.param(
        {"title": "t", "status": "in_progress"},
        {"title": "t", "status": "in_progress"},
        id="title-status-given",
    ),
]


@pytest.mark.parametrize(("patch", "changed"), CREATE_TABLE)
def test_first_sight_creates_with_defaults(patch: dict[str, Any], changed: dict[str, Any]) -> None:
    state = fold_wire(_tcu(**patch))
    call = state.tool_calls["call_001"]
    seen = {name: getattr(call, name) for name in T1}
    seen["content"] = list(call.content)
    assert seen == {**T1, **changed}
    assert not call.chunk_meta
    assert [(r.kind, r.id) for r in state.timeline] == [("toolCall", "call_001")]
    assert not state.diagnostics


def test_content_update_replaces_chunk_appended_items() -> None:
    # T3 + T4: chunks append to any replacement array; the next array replaces them all.
    state = fold_wire(
        _tcu(content=[_item("a")]),
        _tcc(_item("b")),
        _tcc(_item("c")),
    )
    assert _items(state) == [_item("a"), _item("b"), _item("c")]
    state = fold_wire(_tcu(content=[_item("z")]), _tcc(_item("y")), state=state)
    assert _items(state) == [_item("z"), _item("y")]
    state = fold_wire(_tcu(content=None), state=state)
    assert _items(state) == []


def test_chunk_for_an_unknown_tool_call_creates_it_and_diagnoses() -> None:
    # T12 / Q6
    state = fold_wire(_tcc(_item("early"), tid="ghost"))
    call = state.tool_calls["ghost"]
    assert (call.kind, call.status, call.title) == ("other", "pending", None)
    assert _items(state, "ghost") == [_item("early")]
    assert [(r.kind, r.id) for r in state.timeline] == [("toolCall", "ghost")]
    assert [d.rule for d in state.diagnostics] == ["reduce.chunk-for-unknown-tool-call"]
    assert "ghost" in state.diagnostics[0].path
    # the next chunk for the now-known call is not an anomaly
    assert len(fold_wire(_tcc(_item("more"), tid="ghost"), state=state).diagnostics) == 1


def test_chunk_meta_is_kept_by_index_and_dropped_by_a_content_update() -> None:
    # T6: chunk `_meta` is chunk-scoped; the call's own `_meta` is untouched.
    state = fold_wire(
        _tcu(_meta={"own": 1}),
        _tcc(_item("a"), _meta={"c": 0}),
        _tcc(_item("b")),
        _tcc(_item("c"), _meta={"c": 2}),
    )
    call = state.tool_calls["call_001"]
    assert call.meta == freeze_json({"own": 1})
    assert dict(call.chunk_meta) == {0: freeze_json({"c": 0}), 2: freeze_json({"c": 2})}
    after = fold_wire(_tcu(content=[_item("x")]), state=state)
    assert not after.tool_calls["call_001"].chunk_meta
    kept = fold_wire(_tcu(status="completed"), state=state)
    assert kept.tool_calls["call_001"].chunk_meta == call.chunk_meta


@pytest.mark.parametrize(
    "wire",
    [
        pytest.param(_tcu(content=[{"type": "terminal", "terminalId": "term_9"}]), id="update"),
        pytest.param(_tcc({"type": "terminal", "terminalId": "term_9"}), id="chunk"),
    ],
)
def test_terminal_reference_in_tool_content_creates_the_terminal(wire: dict[str, Any]) -> None:
    # X1: a reference may be the first sight of a terminal.
    state = fold_wire(_tcu(), wire)
    terminal = state.terminals["term_9"]
    assert (terminal.command, terminal.cwd, terminal.meta, terminal.snapshot_meta) == (None,) * 4
    assert acp.terminal_bytes(terminal) == b""
    assert not terminal.exited
    # terminals are not timeline entities
    assert [r.kind for r in state.timeline] == ["toolCall"]


def test_terminal_reference_keeps_an_existing_terminal() -> None:
    state = fold_wire(
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "term_9", "data": "aGk="},
        _tcu(content=[{"type": "terminal", "terminalId": "term_9"}]),
    )
    assert acp.terminal_bytes(state.terminals["term_9"]) == b"hi"


def test_tool_call_and_terminal_ids_are_separate_namespaces() -> None:
    state = fold_wire(_tcu("same", content=[{"type": "terminal", "terminalId": "same"}]))
    assert set(state.tool_calls) == {"same"}
    assert set(state.terminals) == {"same"}


def test_tool_call_updates_while_idle_never_change_the_foreground() -> None:
    # T9: background tool calls
    idle = fold_wire({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
    state = fold_wire(
        _tcu(status="in_progress"), _tcc(_item("x")), _tcu(status="completed"), state=idle
    )
    assert state.foreground is idle.foreground


def test_any_status_sequence_is_applied() -> None:
    # T8: no transition constraints; unknown statuses are not finished.
    state = fold_wire(_tcu(status="completed"), _tcu(status="in_progress"))
    assert state.tool_calls["call_001"].status == "in_progress"
    assert not state.tool_calls["call_001"].finished
    assert not fold_wire(_tcu(status="_paused")).tool_calls["call_001"].finished
    for status in ("completed", "failed", "cancelled"):
        assert fold_wire(_tcu(status=status)).tool_calls["call_001"].finished


def test_an_all_unset_patch_returns_the_same_state() -> None:
    state = fold_wire(FULL)
    assert acp.reduce(state, ToolCallUpdate("call_001")) is state


def test_a_repeated_identical_update_returns_the_same_state() -> None:
    state = fold_wire(FULL)
    assert acp.reduce(state, acp.decode_update(FULL)) is state


def test_turn_tool_calls_lists_the_calls_after_a_user_message() -> None:
    def user(mid: str) -> dict[str, Any]:
        return {"sessionUpdate": "user_message", "messageId": mid, "content": []}

    state = fold_wire(
        _tcu("before"),
        user("u1"),
        _tcu("a"),
        {"sessionUpdate": "agent_message", "messageId": "m"},
        _tcu("b"),
        user("u2"),
        _tcu("c"),
        _tcu("a", status="completed"),
    )
    assert acp.turn_tool_calls(state, "u1") == ("a", "b")
    assert acp.turn_tool_calls(state, "u2") == ("c",)
    assert acp.turn_tool_calls(state, "nope") == ()
