"""Reducer rules of the v2 Preview (Preview digest §3) and its reducer test vectors (§10).

Values are built directly (the wire side is tested in test_preview_examples.py), so each row
names exactly the update the rule is about. Vectors V1-V15 keep their digest numbers.
"""

from __future__ import annotations

from typing import Any

import pytest

import acp_core as acp
from acp_core import freeze_json

P = "sess_parent"
C1 = "sess_child_1"
PREVIEW = acp.V2_2026_11  # the reducers' Preview rules do not depend on more than 2026-11


def meta(obj: dict[str, Any] | None) -> Any:
    return None if obj is None else freeze_json(obj)


def text(s: str) -> acp.TextContent:
    return acp.TextContent(s)


def tree_with(*session_ids: str) -> acp.SessionTree:
    tree = acp.new_tree()
    for sid in session_ids:
        tree = acp.open_session(tree, sid)
    return tree


def feed(tree: acp.SessionTree, *items: tuple[str, Any]) -> acp.SessionTree:
    for sid, update in items:
        tree = acp.reduce_tree(tree, sid, update, revision=PREVIEW)
    return tree


def rules(diagnostics: Any) -> list[str]:
    return [d.rule for d in diagnostics]


# -- 3.1 MetaPatch ------------------------------------------------------------------------

META_VECTORS = [
    # stored, patch, result (the digest's vectors, plus absent/empty/null rows of the table)
    ({"a": 1, "b": {"x": 1}}, {"b": {"y": 2}}, {"a": 1, "b": {"y": 2}}),
    ({"a": 1, "b": {"y": 2}}, {"a": None}, {"b": {"y": 2}}),
    ({"b": {"y": 2}}, None, None),
    (None, {"c": 3}, {"c": 3}),
    ({"a": 1}, {"a": {"z": None}}, {"a": {"z": None}}),  # a nested null is data
    ({"a": 1}, {}, {"a": 1}),  # an empty patch changes nothing
    ({"a": 1}, {"a": None}, None),  # no keys left: no metadata
    (None, {"k": None}, None),
]


@pytest.mark.parametrize(("stored", "patch", "result"), META_VECTORS)
def test_meta_patch_table(stored: Any, patch: Any, result: Any) -> None:
    first = acp.ToolCallUpdate("t", meta=meta(stored)) if stored is not None else None
    state = acp.new_session(P)
    if first is not None:
        state = acp.reduce(state, first, revision=PREVIEW)
    state = acp.reduce(state, acp.ToolCallUpdate("t", meta=meta(patch)), revision=PREVIEW)
    assert state.tool_calls["t"].meta == meta(result)


def test_meta_patch_absent_keeps() -> None:
    state = acp.reduce(acp.new_session(P), acp.ToolCallUpdate("t", meta=meta({"a": 1})))
    state = acp.reduce(state, acp.ToolCallUpdate("t", title="x"), revision=PREVIEW)
    assert state.tool_calls["t"].meta == meta({"a": 1})


def test_v6_tool_meta_merges_and_deletes() -> None:
    state = acp.new_session(P)
    for patch in ({"a": 1, "b": 2}, {"b": None, "c": 3}):
        state = acp.reduce(state, acp.ToolCallUpdate("t", meta=meta(patch)), revision=PREVIEW)
    assert state.tool_calls["t"].meta == meta({"a": 1, "c": 3})


@pytest.mark.parametrize(
    "make",
    [
        lambda m: acp.SubagentUpdate(C1, meta=m),
        lambda m: acp.SessionMessage("m1", meta=m),
        lambda m: acp.CompactionUpdate("k", meta=m),
    ],
    ids=["subagent_update", "session_message", "compaction_update"],
)
def test_meta_patch_on_every_new_upsert_entity(make: Any) -> None:
    # C54: the new Preview upsert entities patch `_meta` by key too.
    tree = tree_with(P)
    tree = feed(tree, (P, make(meta({"a": 1, "b": 2}))), (P, make(meta({"b": None}))))
    state = tree.sessions[P]
    extras = state.extras
    stored = [
        *(link.meta for link in extras.children.values()),
        *(m.meta for m in extras.session_messages.values()),
        *(k.meta for k in extras.compactions.values()),
    ]
    assert stored == [meta({"a": 1})]


# -- 3.2 child registry and routing ---------------------------------------------------------


def test_v1_child_traffic_before_announce_waits_in_an_orphan_bucket() -> None:
    tree = feed(tree_with(P), (C1, acp.AgentMessageChunk("m1", text("x"))))
    assert len(tree.orphans[C1]) == 1
    assert rules(tree.diagnostics) == [acp.UNANNOUNCED_SESSION]
    assert tree.sessions[P] == acp.new_session(P)
    assert C1 not in tree.sessions


def test_v2_announce_registers_the_child_and_drains_its_bucket() -> None:
    tree = feed(
        tree_with(P),
        (C1, acp.AgentMessageChunk("m1", text("x"))),
        (P, acp.SubagentUpdate(C1)),
    )
    assert acp.parent_of(tree, C1) == P
    assert acp.children_of(tree, P) == (C1,)
    assert C1 not in tree.orphans
    message = tree.sessions[C1].message("m1")
    assert message is not None
    assert list(message.content) == [text("x")]


def test_child_traffic_folds_into_the_child_view_only() -> None:
    tree = feed(
        tree_with(P),
        (P, acp.SubagentUpdate(C1, title="Test runner")),
        (C1, acp.AgentMessageChunk("m1", text("hi"))),
        (C1, acp.ToolCallUpdate("t1", title="run")),
    )
    assert tree.sessions[P].messages == acp.new_session(P).messages
    assert "t1" in tree.sessions[C1].tool_calls
    assert "t1" not in tree.sessions[P].tool_calls
    assert tree.diagnostics == acp.new_tree().diagnostics


def test_grandchild_registers_under_its_own_parent() -> None:
    tree = feed(
        tree_with(P), (P, acp.SubagentUpdate(C1)), (C1, acp.SubagentUpdate("sess_grandchild"))
    )
    assert acp.parent_of(tree, "sess_grandchild") == C1
    assert acp.children_of(tree, C1) == ("sess_grandchild",)
    assert acp.children_of(tree, P) == (C1,)


def test_child_fields_are_patches() -> None:
    caps = acp.SubagentSessionCapabilities(cancel=acp.SessionCancelCapabilities())
    tree = feed(
        tree_with(P),
        (P, acp.SubagentUpdate(C1, title="a", description="d", capabilities=caps, cwd="/w")),
        (P, acp.SubagentUpdate(C1, title="b")),  # absent fields keep
        (P, acp.SubagentUpdate(C1, description=None, additional_directories=("/x",))),
    )
    link = acp.child_link(tree, C1)
    assert link is not None
    assert (link.title, link.description, link.cwd) == ("b", None, "/w")
    assert link.additional_directories == ("/x",)
    assert link.can_cancel
    tree = feed(tree, (P, acp.SubagentUpdate(C1, capabilities=None)))
    link = acp.child_link(tree, C1)
    assert link is not None
    assert not link.can_cancel  # C29: no capabilities, no mutations


def test_v3_mirrored_state_null_is_unconfirmed_not_idle() -> None:
    tree = feed(tree_with(P), (P, acp.SubagentUpdate(C1, state=acp.RunningStateUpdate())))
    assert acp.effective_state(tree, C1) == "running"
    tree = feed(tree, (P, acp.SubagentUpdate(C1, state=None)))
    assert acp.effective_state(tree, C1) == "unconfirmed"
    assert tree.sessions[C1].foreground.state == "unconfirmed"


def test_child_own_state_wins_over_the_mirror() -> None:
    # P4, C32: the child's own state_update is authoritative once it arrives.
    tree = feed(
        tree_with(P),
        (P, acp.SubagentUpdate(C1, state=acp.RunningStateUpdate())),
        (C1, acp.IdleStateUpdate(stop_reason="end_turn")),
    )
    assert acp.effective_state(tree, C1) == "idle"


def test_v4_a_second_parent_is_refused_and_the_first_kept() -> None:
    tree = feed(
        tree_with(P, "sess_q"),
        (P, acp.SubagentUpdate(C1)),
        ("sess_q", acp.SubagentUpdate(C1, title="stolen")),
    )
    assert acp.parent_of(tree, C1) == P
    assert rules(tree.diagnostics) == [acp.REPARENT]
    assert acp.children_of(tree, "sess_q") == ()
    link = acp.child_link(tree, C1)
    assert link is not None
    assert link.title == "stolen"  # P5: the field patches still apply


def test_a_top_level_session_cannot_be_claimed_as_a_child() -> None:
    tree = feed(tree_with(P, "sess_q"), (P, acp.SubagentUpdate("sess_q")))
    assert acp.parent_of(tree, "sess_q") is None
    assert rules(tree.diagnostics) == [acp.REPARENT]


def test_close_drops_the_session_and_its_children() -> None:
    # P13, C55: after the parent's close, traffic for it and its children is dropped.
    tree = feed(tree_with(P), (P, acp.SubagentUpdate(C1)), (C1, acp.SubagentUpdate("g")))
    tree = acp.close_session(tree, P)
    assert set(tree.sessions) == set()
    tree = feed(tree, (C1, acp.AgentMessageChunk("m", text("late"))))
    assert rules(tree.diagnostics) == [acp.CLOSED_SESSION_TRAFFIC]
    assert C1 not in tree.orphans


def test_references_to_unknown_sessions_are_diagnosed() -> None:
    # R56 (session content), R74 (background subagent) name only announced sessions.
    tree = feed(
        tree_with(P),
        (P, acp.ToolCallUpdate("t", content=(acp.SessionReference("ghost"),))),
    )
    assert rules(tree.diagnostics) == [acp.UNKNOWN_SESSION_REFERENCE]
    assert "t" in tree.sessions[P].tool_calls  # the update itself still applies


# -- 3.3 inter-session messages ----------------------------------------------------------------


def test_v5_session_message_upserts_chunks_and_cross_links() -> None:
    tree = feed(
        tree_with(P),
        (P, acp.SubagentUpdate(C1)),
        (C1, acp.SessionMessage("m_in_1", sender_session_id=P, content=(text("A"),))),
        (C1, acp.SessionMessageChunk("m_in_1", text("B"))),
        (C1, acp.SessionMessage("m_in_1", sender_message_id="m_out_7")),
    )
    message = tree.sessions[C1].extras.session_messages["m_in_1"]
    assert list(message.content) == [text("A"), text("B")]
    assert message.sender_session_id == P
    assert message.sender_message_id == "m_out_7"
    assert message.direction(C1) == "relayed"  # no recipient reported yet
    refs = [(r.kind, r.id) for r in tree.sessions[C1].timeline]
    assert refs == [("sessionMessage", "m_in_1")]


@pytest.mark.parametrize(
    ("update", "expected"),
    [
        (acp.SessionMessage("m", content=None), []),
        (acp.SessionMessage("m", content=()), []),
        (acp.SessionMessage("m", content=(text("Z"),)), [text("Z")]),
        (acp.SessionMessage("m"), [text("A"), text("B")]),
    ],
    ids=["null clears", "empty clears", "value replaces chunks", "absent keeps"],
)
def test_session_message_content_is_a_patch(update: Any, expected: list[Any]) -> None:
    state = acp.new_session(P)
    state = acp.reduce(state, acp.SessionMessage("m", content=(text("A"),)))
    state = acp.reduce(state, acp.SessionMessageChunk("m", text("B")))
    state = acp.reduce(state, update)
    assert list(state.extras.session_messages["m"].content) == expected


def test_session_message_direction() -> None:
    message = acp.SessionMessageState(sender_session_id=P, recipient_session_id=C1)
    assert (message.direction(P), message.direction(C1)) == ("outgoing", "incoming")


def test_session_message_id_collision_keeps_the_first_kind() -> None:
    state = acp.reduce(acp.new_session(P), acp.AgentMessage("m1", content=(text("a"),)))
    state = acp.reduce(state, acp.SessionMessage("m1", content=(text("b"),)))
    assert "m1" not in state.extras.session_messages
    assert rules(state.diagnostics) == ["reduce.message-id-collision"]


# -- 3.4 replay tracking ------------------------------------------------------------------------


def test_v8_replay_resets_messages_and_ends_at_the_marker() -> None:
    tree = feed(tree_with(P), (P, acp.AgentMessageChunk("m2", text("old"))))
    tree = acp.begin_resume(tree, P, 7, replay=True)
    assert tree.sessions[P].extras.replay.phase == "replaying"
    tree = feed(
        tree,
        (P, acp.AgentMessage("m2", content=())),  # reset-before-chunk (R63)
        (P, acp.AgentMessageChunk("m2", text("hi"))),
        (P, acp.ReplayComplete()),
        (P, acp.IdleStateUpdate(stop_reason="end_turn")),
    )
    tree = acp.end_resume(tree, 7, succeeded=True)
    state = tree.sessions[P]
    message = state.message("m2")
    assert message is not None
    assert list(message.content) == [text("hi")]
    assert state.extras.replay.phase == "complete"
    assert state.foreground.state == "idle"
    assert rules(state.diagnostics) == []


def test_v9_resume_failing_before_the_marker_truncates() -> None:
    tree = acp.begin_resume(tree_with(P), P, 7, replay=True)
    tree = feed(tree, (P, acp.AgentMessage("m1", content=(text("a"),))))
    tree = acp.end_resume(tree, 7, succeeded=False)
    assert tree.sessions[P].extras.replay.phase == "truncated"
    assert tree.sessions[P].message("m1") is not None  # what arrived is kept


def test_resume_success_without_marker_completes_with_a_diagnostic() -> None:
    # P24: the agent broke R57; the client marks the replay complete and says so.
    tree = acp.end_resume(acp.begin_resume(tree_with(P), P, 7, replay=True), 7, succeeded=True)
    assert tree.sessions[P].extras.replay.phase == "complete"
    assert rules(tree.sessions[P].diagnostics) == [acp.REPLAY_WITHOUT_MARKER]


def test_marker_without_replay_is_ignored_with_a_diagnostic() -> None:
    tree = feed(acp.begin_resume(tree_with(P), P, 7, replay=False), (P, acp.ReplayComplete()))
    assert tree.sessions[P].extras.replay.phase == "none"
    assert rules(tree.sessions[P].diagnostics) == [acp.UNEXPECTED_REPLAY_MARKER]


def test_children_announced_during_a_replay_replay_on_their_own() -> None:
    # R60, C36: each child has its own window and its own marker.
    tree = acp.begin_resume(tree_with(P), P, 7, replay=True)
    tree = feed(tree, (P, acp.SubagentUpdate(C1)))
    assert tree.sessions[C1].extras.replay.phase == "replaying"
    tree = feed(tree, (C1, acp.ReplayComplete()))
    assert tree.sessions[C1].extras.replay.phase == "complete"
    assert tree.sessions[P].extras.replay.phase == "replaying"
    tree = acp.end_resume(tree, 7, succeeded=False)
    assert tree.sessions[C1].extras.replay.phase == "complete"
    assert tree.sessions[P].extras.replay.phase == "truncated"


def test_notices_and_suggestions_in_replay_are_dropped() -> None:
    # R65: they are live, never history.
    tree = acp.begin_resume(tree_with(P), P, 7, replay=True)
    suggestion = acp.PromptSuggestion((text("go"),))
    tree = feed(
        tree,
        (P, acp.Notice("info", "Heads up")),
        (P, acp.PromptSuggestionsUpdate((suggestion,))),
    )
    extras = tree.sessions[P].extras
    assert list(extras.notices) == []
    assert extras.prompt_suggestions == ()
    tree = feed(tree, (P, acp.ReplayComplete()), (P, acp.Notice("info", "Live")))
    assert [n.title for n in tree.sessions[P].extras.notices] == ["Live"]


# -- 3.5 plans ---------------------------------------------------------------------------------


def _items(plan_id: str) -> acp.PlanUpdate:
    return acp.PlanUpdate(acp.PlanItems(plan_id, ()))


def test_plan_removed_deletes_the_plan_and_its_timeline_entry() -> None:
    state = acp.new_session(P)
    for u in (_items("p1"), _items("p2"), acp.PlanRemoved("p1")):
        state = acp.reduce(state, u)
    assert set(state.plans) == {"p2"}
    assert [r.id for r in state.timeline] == ["p2"]


def test_v11_unknown_plan_removed_is_a_no_op() -> None:
    state = acp.reduce(acp.new_session(P), _items("p1"))
    assert acp.reduce(state, acp.PlanRemoved("nope")) is state


def test_plan_update_after_removal_is_a_new_plan_at_a_new_position() -> None:
    # P11
    state = acp.new_session(P)
    for u in (_items("p1"), _items("p2"), acp.PlanRemoved("p1"), _items("p1")):
        state = acp.reduce(state, u)
    assert [r.id for r in state.timeline] == ["p2", "p1"]


def test_markdown_plans_replace_wholesale() -> None:
    # C47, R78
    state = acp.new_session(P)
    for body in ("# a", "# b"):
        plan = acp.PlanMarkdown("p", body, path="/w/PLAN.md")
        state = acp.reduce(state, acp.PlanUpdate(plan))
    plan = state.plans["p"].plan
    assert isinstance(plan, acp.PlanMarkdown)
    assert (plan.content, plan.path) == ("# b", "/w/PLAN.md")


# -- 3.6 prompt suggestions --------------------------------------------------------------------


def test_v12_prompt_suggestions_replace_and_never_enter_the_timeline() -> None:
    s1, s2 = acp.PromptSuggestion((text("S1"),)), acp.PromptSuggestion((text("S2"),))
    state = acp.reduce(acp.new_session(P), acp.PromptSuggestionsUpdate((s1, s2)))
    assert state.extras.prompt_suggestions == (s1, s2)
    state = acp.reduce(state, acp.PromptSuggestionsUpdate(()))
    assert state.extras.prompt_suggestions == ()
    assert list(state.timeline) == []


# -- 3.7 compaction ----------------------------------------------------------------------------


def test_v10_compaction_status_is_a_patch() -> None:
    state = acp.new_session(P)
    seen = []
    for u in (
        acp.CompactionUpdate("k"),
        acp.CompactionUpdate("k", status="completed"),
        acp.CompactionUpdate("k"),
        acp.CompactionUpdate("k", status=None),
    ):
        state = acp.reduce(state, u)
        seen.append(state.extras.compactions["k"].status)
    assert seen == ["in_progress", "completed", "completed", "in_progress"]
    assert [(r.kind, r.id) for r in state.timeline] == [("compaction", "k")]


def test_compaction_summary_chunks_append_and_a_summary_replaces() -> None:
    state = acp.new_session(P)
    for u in (
        acp.CompactionSummaryChunk("k", text("a")),  # first sight creates it in progress
        acp.CompactionSummaryChunk("k", text("b"), meta=meta({"c": 1})),
    ):
        state = acp.reduce(state, u)
    record = state.extras.compactions["k"]
    assert (record.status, list(record.summary)) == ("in_progress", [text("a"), text("b")])
    assert dict(record.chunk_meta) == {1: meta({"c": 1})}
    state = acp.reduce(state, acp.CompactionUpdate("k", summary=(text("z"),), error="e"))
    record = state.extras.compactions["k"]
    assert (list(record.summary), record.error, dict(record.chunk_meta)) == ([text("z")], "e", {})
    state = acp.reduce(state, acp.CompactionUpdate("k", summary=None, error=None))
    record = state.extras.compactions["k"]
    assert (list(record.summary), record.error) == ([], None)


# -- 3.8 background (state-level), 5.1 unknown state -------------------------------------------


def test_v15_unknown_state_keeps_the_last_known() -> None:
    state = acp.reduce(acp.new_session(P), acp.RunningStateUpdate())
    state = acp.reduce(state, acp.UnknownStateUpdate())
    assert (state.foreground.state, state.foreground.last_known) == ("unknown", "running")
    assert acp.is_active(state)  # never idle (C48)
    state = acp.reduce(state, acp.UnknownStateUpdate())
    assert state.foreground.last_known == "running"  # repeats keep the same last known


def test_unknown_state_carries_its_background_list() -> None:
    items = (acp.BackgroundTerminal("term_9"), acp.BackgroundSubagent(C1))
    state = acp.reduce(acp.new_session(P), acp.UnknownStateUpdate(background=items))
    fg = state.foreground
    assert fg.background == items
    assert fg.is_background(acp.BackgroundTerminal, "term_9")
    assert fg.is_background(acp.BackgroundSubagent, C1)
    assert not fg.is_background(acp.BackgroundToolCall, "term_9")


def test_notice_is_live_view_state() -> None:
    state = acp.reduce(acp.new_session(P), acp.Notice("warning", "Rate limited", "retry soon"))
    assert [(n.severity, n.title) for n in state.extras.notices] == [("warning", "Rate limited")]
    assert list(state.timeline) == []
