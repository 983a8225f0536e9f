"""Messages (digest 3.2, rules M1-M8): the worked example and the 11-row table as table tests,
plus role mismatches (Q16), chunk-scoped `_meta` and the first-seen timeline (3.11)."""

from __future__ import annotations

from typing import Any

import pytest

import acp_core as acp
from acp_core import AgentMessage, TextContent, freeze_json

SID = "sess_1"


def _text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


A, B, C, D = _text("A"), _text("B"), _text("C"), _text("D")


def _msg(content: Any = ..., meta: Any = ..., mid: str = "m1", tag: str = "agent_message") -> Any:
    d: dict[str, Any] = {"sessionUpdate": tag, "messageId": mid}
    if content is not ...:
        d["content"] = content
    if meta is not ...:
        d["_meta"] = meta
    return d


def _chunk(
    block: dict[str, Any], mid: str = "m1", tag: str = "agent_message_chunk", **kw: Any
) -> Any:
    return {"sessionUpdate": tag, "messageId": mid, "content": block, **kw}


def fold_wire(*wire: dict[str, Any], state: acp.SessionState | None = None) -> acp.SessionState:
    # the reducer tables of the 2026-08 digest (section 3): decoded and folded at 2026-08
    updates = [acp.decode_update(w, strict=True, revision=acp.V2_2026_08) for w in wire]
    return acp.fold(state or acp.new_session(SID), updates, revision=acp.V2_2026_08)


def _blocks(*wire_blocks: dict[str, Any]) -> tuple[acp.ContentBlock, ...]:
    return tuple(TextContent(b["text"]) for b in wire_blocks)


def test_normative_worked_example_step_by_step() -> None:
    # [PL]: [A] -> chunk B -> [A, B] -> [C] -> chunk D -> [C, D]
    steps = [
        (_msg([A]), [A]),
        (_chunk(B), [A, B]),
        (_msg([C]), [C]),
        (_chunk(D), [C, D]),
    ]
    state = acp.new_session(SID)
    for update, expected in steps:
        state = acp.reduce(state, acp.decode_update(update))
        assert tuple(state.messages["m1"].content) == _blocks(*expected)
    assert acp.message_text(state.messages["m1"]) == "CD"
    assert len(state.messages) == 1


# The digest's message table (3.2): sequence -> (content, message meta, chunk meta).
MESSAGE_TABLE = [
    pytest.param([_msg([A]), _chunk(B)], [A, B], None, {}, id="1-full-then-chunk"),
    pytest.param([_msg([A]), _chunk(B), _msg([C])], [C], None, {}, id="2-full-replaces"),
    pytest.param(
        [_msg([A]), _chunk(B), _msg([C]), _chunk(D)], [C, D], None, {}, id="3-chunk-after"
    ),
    pytest.param([_chunk(A), _chunk(B), _msg([C])], [C], None, {}, id="4-chunks-then-full"),
    pytest.param([_msg([A]), _msg(meta={"x": 1})], [A], {"x": 1}, {}, id="5-meta-only"),
    pytest.param([_msg([A, B]), _msg(None)], [], None, {}, id="6-null-clears"),
    pytest.param([_msg([A]), _msg([]), _chunk(B)], [B], None, {}, id="7-empty-then-chunk"),
    pytest.param([_chunk(A)], [A], None, {}, id="8-chunk-creates"),
    pytest.param([_msg()], [], None, {}, id="9-bare-upsert-creates"),
    pytest.param(
        [_msg([A], meta={"x": 1}), _chunk(B, _meta={"y": 2})],
        [A, B],
        {"x": 1},
        {1: {"y": 2}},
        id="10-chunk-meta-stays-on-block",
    ),
    pytest.param([_msg(meta={"x": 1}), _msg(meta=None)], [], None, {}, id="11-meta-null-clears"),
]


@pytest.mark.parametrize(("wire", "content", "meta", "chunk_meta"), MESSAGE_TABLE)
def test_message_table(
    wire: list[dict[str, Any]],
    content: list[dict[str, Any]],
    meta: dict[str, Any] | None,
    chunk_meta: dict[int, Any],
) -> None:
    state = fold_wire(*wire)
    message = state.messages["m1"]
    assert tuple(message.content) == _blocks(*content)
    assert message.meta == (None if meta is None else freeze_json(meta))
    assert dict(message.chunk_meta) == {i: freeze_json(m) for i, m in chunk_meta.items()}
    assert message.role == "agent"
    assert list(state.timeline) == [acp.EntityRef("message", "m1")]
    assert not state.diagnostics


@pytest.mark.parametrize(
    ("tag", "role"),
    [
        ("user_message", "user"),
        ("agent_message", "agent"),
        ("agent_thought", "thought"),
        ("user_message_chunk", "user"),
        ("agent_message_chunk", "agent"),
        ("agent_thought_chunk", "thought"),
    ],
)
def test_the_tag_gives_the_role_of_a_new_message(tag: str, role: str) -> None:
    update = _chunk(A, tag=tag) if tag.endswith("_chunk") else _msg([A], tag=tag)
    assert fold_wire(update).messages["m1"].role == role


def test_thoughts_are_messages_like_any_other() -> None:
    # M6: agent_thought patches, agent_thought_chunk appends.
    state = fold_wire(
        _msg([A], tag="agent_thought", mid="th"),
        _chunk(B, tag="agent_thought_chunk", mid="th"),
        _msg(meta={"k": True}, tag="agent_thought", mid="th"),
    )
    thought = state.messages["th"]
    assert (thought.role, tuple(thought.content)) == ("thought", _blocks(A, B))
    assert thought.meta == freeze_json({"k": True})


def test_messages_in_flight_interleave_by_id() -> None:
    # M5: key by id, not by "current message".
    state = fold_wire(
        _chunk(A, mid="m1"), _chunk(B, mid="m2"), _chunk(C, mid="m1"), _chunk(D, mid="m2")
    )
    assert acp.message_text(state.messages["m1"]) == "AC"
    assert acp.message_text(state.messages["m2"]) == "BD"


def test_adjacent_text_chunks_stay_separate_blocks() -> None:
    # Q23/M7: blocks are kept apart so replace/clear stay exact; message_text joins them.
    state = fold_wire(_chunk(_text("Hel")), _chunk(_text("lo")))
    message = state.messages["m1"]
    assert len(message.content) == 2
    assert acp.message_text(message) == "Hello"
    assert acp.message_text(message, " ") == "Hel lo"


def test_message_text_skips_non_text_blocks() -> None:
    link = {"type": "resource_link", "name": "a", "uri": "file:///a"}
    state = fold_wire(_msg([A, link, B]))
    assert acp.message_text(state.messages["m1"]) == "AB"


# -- role mismatch (Q16) ------------------------------------------------------------------


@pytest.mark.parametrize(
    "second",
    [
        pytest.param(_chunk(B, tag="agent_message_chunk"), id="chunk"),
        # Another role's upsert appends: it never erases what the first role said (issue 25).
        pytest.param(_msg([B], tag="agent_message"), id="upsert"),
        pytest.param(_chunk(B, tag="agent_thought_chunk"), id="thought-chunk"),
    ],
)
def test_role_mismatch_keeps_the_role_applies_and_diagnoses(second: dict[str, Any]) -> None:
    state = fold_wire(_msg([A], tag="user_message"), second)
    message = state.messages["m1"]
    assert message.role == "user"
    assert tuple(message.content) == _blocks(A, B)
    assert [d.rule for d in state.diagnostics] == ["reduce.role-mismatch"]
    assert "m1" in state.diagnostics[0].path


def test_matching_roles_produce_no_diagnostic() -> None:
    state = fold_wire(_msg([A], tag="user_message"), _chunk(B, tag="user_message_chunk"))
    assert not state.diagnostics


# -- chunk-scoped _meta (M3) ----------------------------------------------------------------


def test_chunk_meta_never_leaks_into_the_message_meta() -> None:
    state = fold_wire(_chunk(A, _meta={"c": 0}), _chunk(B), _chunk(C, _meta={"c": 2}))
    message = state.messages["m1"]
    assert message.meta is None
    assert dict(message.chunk_meta) == {0: freeze_json({"c": 0}), 2: freeze_json({"c": 2})}


def test_chunk_meta_null_is_not_stored() -> None:
    state = fold_wire(_chunk(A, _meta=None))
    assert not state.messages["m1"].chunk_meta


def test_a_full_update_drops_chunk_meta() -> None:
    state = fold_wire(_chunk(A, _meta={"c": 0}), _msg([C]), _chunk(D, _meta={"d": 1}))
    assert dict(state.messages["m1"].chunk_meta) == {1: freeze_json({"d": 1})}


def test_a_meta_only_update_keeps_content_and_chunk_meta() -> None:
    state = fold_wire(_chunk(A, _meta={"c": 0}), _msg(meta={"m": 1}))
    message = state.messages["m1"]
    assert tuple(message.content) == _blocks(A)
    assert dict(message.chunk_meta) == {0: freeze_json({"c": 0})}
    assert message.meta == freeze_json({"m": 1})


def test_meta_object_replaces_without_merging() -> None:
    # Q15: the 2026-08 revision replaces `_meta` wholesale.
    state = fold_wire(_msg(meta={"a": 1}), _msg(meta={"b": 2}))
    assert state.messages["m1"].meta == freeze_json({"b": 2})


# -- timeline (3.11) and identity -----------------------------------------------------------


def test_timeline_is_first_seen_order_and_never_moves() -> None:
    state = fold_wire(
        _msg([A], mid="m1"),
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "title": "x"},
        _chunk(B, mid="m2"),
        _chunk(C, mid="m1"),
        _msg([D], mid="m2"),
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "status": "completed"},
    )
    assert [(r.kind, r.id) for r in state.timeline] == [
        ("message", "m1"),
        ("toolCall", "t1"),
        ("message", "m2"),
    ]


def test_message_and_tool_call_ids_are_separate_namespaces() -> None:
    state = fold_wire(
        _msg([A], mid="same"), {"sessionUpdate": "tool_call_update", "toolCallId": "same"}
    )
    assert [(r.kind, r.id) for r in state.timeline] == [("message", "same"), ("toolCall", "same")]
    assert "same" in state.messages
    assert "same" in state.tool_calls


def test_an_all_unset_upsert_on_an_existing_message_returns_the_same_state() -> None:
    state = fold_wire(_msg([A], meta={"x": 1}))
    assert acp.reduce(state, AgentMessage("m1")) is state


def test_a_repeated_identical_upsert_returns_the_same_state() -> None:
    state = fold_wire(_msg([A, B], meta={"x": 1}))
    again = acp.decode_update(_msg([A, B], meta={"x": 1}))
    assert acp.reduce(state, again) is state


def test_a_bare_upsert_on_an_unseen_id_creates_the_message() -> None:
    state = acp.reduce(acp.new_session(SID), AgentMessage("m9"))
    assert "m9" in state.messages
    assert len(state.messages["m9"].content) == 0


def test_prompt_lifecycle_doc_messages(doc_examples: list[dict[str, Any]]) -> None:
    # The prompt-lifecycle page: the agent_message then a chunk appended to it (M3).
    updates = [
        e["message"]["params"]["update"]
        for e in doc_examples
        if e["page"] == "prompt-lifecycle"
        and e["message"].get("method") == "session/update"
        and e["message"]["params"]["update"]["sessionUpdate"].startswith("agent_message")
    ]
    assert [u["sessionUpdate"] for u in updates] == ["agent_message", "agent_message_chunk"]
    state = fold_wire(*updates)
    (message,) = state.messages.values()
    full = updates[0]["content"]
    expected = "".join(b["text"] for b in full if b["type"] == "text")
    assert acp.message_text(message) == expected + updates[1]["content"]["text"]
    assert len(message.content) == len(full) + 1
