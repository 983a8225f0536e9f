"""Snapshots of the 2026-11 / Preview view state (issue 15, docs/snapshot.md "2026-11 and Preview").

- Law: `restore(snapshot(s, revision=r)) == s` for every state the Preview reducers build
  (notices, compactions, session messages, child links, replay windows, markdown and removed
  plans, prompt suggestions, unknown and background state, tool-call and terminal
  capabilities, terminal sizes, interleaved with 2026-08 traffic and resume replays).
- Without `revision` the Preview keys still restore (they decode at the Preview).
- Table: documents no reducer sequence could build are refused with a `DecodeError` whose
  path points at the offending key.
"""

from __future__ import annotations

import copy
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st
from state_strategies import wire_updates

import acp_core as acp
from acp_core._wire import _updates_2026_11 as u11
from acp_core._wire import _updates_preview as up

P = acp.V2_PREVIEW
SID = "sess_a"
ids = st.sampled_from(["a", "b", "c"])
texts = st.text("xyz ", max_size=4)
blocks = texts.map(acp.TextContent)
metas = st.none() | st.just(acp.UNSET) | st.dictionaries(st.sampled_from("kl"), st.integers(0, 3))
patch_texts = st.just(acp.UNSET) | st.none() | texts
cancel = st.just(acp.UNSET) | st.builds(u11.CancelCapability)
background = st.just(acp.UNSET) | st.lists(
    st.builds(u11.BackgroundTerminal, ids) | st.builds(u11.BackgroundToolCall, ids), max_size=2
)
state_updates = st.one_of(
    st.builds(acp.RunningStateUpdate, background=background),
    st.builds(
        acp.IdleStateUpdate, st.sampled_from(["end_turn", "cancelled"]), background=background
    ),
    st.builds(
        acp.IdleStateUpdate,
        st.just("error"),
        error=st.builds(acp.RpcError, st.integers(-5, 5), texts),
    ),
    st.builds(up.UnknownStateUpdate, background=background),
)
preview_updates = st.one_of(
    st.builds(u11.Notice, st.sampled_from(["info", "warning"]), texts, patch_texts, metas),
    st.builds(
        u11.CompactionUpdate,
        ids,
        st.just(acp.UNSET) | st.sampled_from(["in_progress", "completed"]),
        st.just(acp.UNSET) | st.lists(blocks, max_size=2),
        patch_texts,
        metas,
    ),
    st.builds(u11.CompactionSummaryChunk, ids, blocks, metas),
    st.builds(
        up.SessionMessage,
        ids,
        patch_texts,
        patch_texts,
        patch_texts,
        patch_texts,
        st.just(acp.UNSET) | st.lists(blocks, max_size=2),
        metas,
    ),
    st.builds(up.SessionMessageChunk, ids, blocks, metas),
    st.builds(
        up.SubagentUpdate,
        ids.map(lambda c: f"child_{c}"),
        patch_texts,
        patch_texts,
        st.just(acp.UNSET)
        | st.builds(
            up.SubagentSessionCapabilities,
            st.just(acp.UNSET) | st.builds(up.SessionCancelCapabilities),
        ),
        st.just(acp.UNSET) | state_updates,
        patch_texts,
        st.just(acp.UNSET) | st.lists(texts, max_size=2),
        metas,
    ),
    st.builds(up.PlanMarkdown, ids, texts, patch_texts).map(acp.PlanUpdate),
    st.builds(up.PlanRemoved, ids),
    st.builds(
        up.PromptSuggestionsUpdate,
        st.lists(
            st.builds(up.PromptSuggestion, st.lists(blocks, min_size=1, max_size=2)), max_size=2
        ),
    ),
    st.builds(up.ReplayComplete),
    state_updates,
    st.builds(acp.ToolCallUpdate, ids, capabilities=st.builds(u11.ToolCallCapabilities, cancel)),
    st.builds(
        acp.TerminalUpdate,
        ids,
        size=st.builds(u11.TerminalSize, st.integers(1, 200), st.integers(1, 60)),
        capabilities=st.builds(u11.TerminalCapabilities, cancel),
    ),
)
def _at_the_preview(wire: dict[str, Any]) -> acp.SessionUpdate | None:
    # 2026-08 wire the Preview reads too; a tag 2026-08 leaves unknown may be a Preview variant
    # with required fields (`notice` needs `severity`), which this wire need not have
    try:
        return acp.decode_update(wire, strict=True, revision=P)
    except acp.DecodeError:
        return None


# A step: an update (Preview, or 2026-08-shaped wire read as the Preview reads it: a session
# speaks one revision), or a resume replay starting or ending.
steps = st.one_of(
    preview_updates,
    wire_updates().map(_at_the_preview).filter(lambda update: update is not None),
    st.tuples(st.just("begin"), st.integers(1, 3) | st.just("r")),
    st.tuples(st.just("end"), st.booleans()),
)


def build(actions: list[Any]) -> acp.SessionState:
    state = acp.new_session(SID)
    for action in actions:
        if isinstance(action, tuple) and action[0] == "begin":
            state = acp.begin_replay(state, action[1])
        elif isinstance(action, tuple):
            state = acp.end_replay(state, succeeded=action[1])
        else:
            state = acp.reduce(state, action, revision=P)
    return state


@given(st.lists(steps, max_size=14))
def test_restore_inverts_snapshot_of_preview_states(actions: list[Any]) -> None:
    state = build(actions)
    doc = acp.snapshot(state, revision=P)
    assert doc["revision"] == P.name
    assert acp.restore(copy.deepcopy(doc)) == state
    assert acp.snapshot(acp.restore(doc), revision=P) == doc


def _rich_state() -> acp.SessionState:
    return build(
        [
            u11.Notice("info", "n"),
            u11.CompactionUpdate("c1", summary=(acp.TextContent("s"),)),
            u11.CompactionSummaryChunk("c1", acp.TextContent("t"), {"k": 1}),
            up.SessionMessage("m1", sender_session_id="other", content=(acp.TextContent("hi"),)),
            up.SubagentUpdate("child_1", title="t", state=acp.RunningStateUpdate()),
            up.SubagentUpdate("child_2"),
            up.PromptSuggestionsUpdate((up.PromptSuggestion((acp.TextContent("p"),)),)),
            acp.RunningStateUpdate(background=(u11.BackgroundTerminal("t1"),)),
            acp.TerminalUpdate("t1", size=u11.TerminalSize(80, 24)),
            acp.ToolCallUpdate("x", capabilities=u11.ToolCallCapabilities(u11.CancelCapability())),
            up.UnknownStateUpdate(),  # the foreground keeps `running` as its last known state
            ("begin", 7),
        ]
    )


def test_the_preview_keys_restore_without_a_revision() -> None:
    state = _rich_state()
    doc = acp.snapshot(state)
    assert "revision" not in doc
    assert set(doc["extras"]) == {
        "compactions",
        "notices",
        "promptSuggestions",
        "sessionMessages",
        "replay",
        "children",
        "childOrder",
    }
    assert doc["foreground"]["lastKnown"] == "running"
    assert acp.restore(doc) == state


def test_a_2026_08_state_snapshots_without_preview_keys() -> None:
    state = acp.fold(acp.new_session(SID), [acp.UserMessageChunk("m", acp.TextContent("x"))])
    doc = acp.snapshot(state)
    assert "extras" not in doc
    assert "revision" not in doc
    assert set(doc["foreground"]) == {"state"}


def _broken(edit: Any) -> dict[str, Any]:
    doc = acp.snapshot(_rich_state(), revision=P)
    edit(doc)
    return doc


BROKEN = [
    (lambda d: d.update(revision="2099-01"), "$.revision"),
    (lambda d: d["extras"]["compactions"].pop("c1"), "$.timeline[0].id"),
    (lambda d: d["timeline"].pop(0), "$.extras.compactions.c1"),
    (lambda d: d["timeline"].append(d["timeline"][1]), "$.timeline[3]"),
    (lambda d: d["timeline"].append({"kind": "notice", "id": "n"}), "$.timeline[3].kind"),
    (
        lambda d: d["extras"]["compactions"]["c1"]["chunkMeta"].update({"9": {}}),
        "$.extras.compactions.c1.chunkMeta.9",
    ),
    (lambda d: d["extras"]["compactions"]["c1"].update(status=5), "$.extras.compactions.c1.status"),
    (
        lambda d: d["extras"]["sessionMessages"]["m1"].pop("content"),
        "$.extras.sessionMessages.m1.content",
    ),
    (
        lambda d: d["extras"].update(
            notices=[
                {
                    "sessionUpdate": "agent_message_chunk",
                    "messageId": "m",
                    "content": {"type": "text", "text": "x"},
                }
            ]
        ),
        "$.extras.notices[0]",
    ),
    (lambda d: d["extras"]["notices"].append([]), "$.extras.notices[1]"),
    (lambda d: d["extras"]["childOrder"].append("child_1"), "$.extras.childOrder[2]"),
    (lambda d: d["extras"]["childOrder"].pop(), "$.extras.children.child_2"),
    (lambda d: d["extras"]["childOrder"].append("nobody"), "$.extras.childOrder[2]"),
    (
        lambda d: d["extras"]["children"]["child_1"].update(
            mirroredState={"sessionUpdate": "plan_removed", "planId": "p"}
        ),
        "$.extras.children.child_1.mirroredState",
    ),
    (
        lambda d: d["extras"]["children"]["child_1"].update(additionalDirectories=[1]),
        "$.extras.children.child_1.additionalDirectories[0]",
    ),
    (lambda d: d["extras"]["children"].update(child_3=[]), "$.extras.children.child_3"),
    (lambda d: d["extras"]["replay"].update(phase="paused"), "$.extras.replay.phase"),
    (lambda d: d["extras"]["replay"].update(requestId=[1]), "$.extras.replay.requestId"),
    (
        lambda d: d["extras"].update(replay={"phase": "none", "requestId": 3}),
        "$.extras.replay.requestId",
    ),
    (
        lambda d: d["extras"]["promptSuggestions"][0].update(prompt="p"),
        "$.extras.promptSuggestions[0].prompt",
    ),
    (
        lambda d: d["foreground"].update(background=[{"type": "terminal"}]),
        "$.foreground.background[0].terminalId",
    ),
    (lambda d: d["foreground"].update(lastKnown=3), "$.foreground.lastKnown"),
    (
        lambda d: d["terminals"]["t1"].update(size={"cols": -1, "rows": 2}),
        "$.terminals.t1.size.cols",
    ),
    (lambda d: d["toolCalls"]["x"].update(capabilities=[]), "$.toolCalls.x.capabilities"),
    (lambda d: d.update(extras=[]), "$.extras"),
]


@pytest.mark.parametrize(("edit", "path"), BROKEN)
def test_impossible_preview_states_are_refused_with_a_path(edit: Any, path: str) -> None:
    with pytest.raises(acp.DecodeError) as e:
        acp.restore(_broken(edit))
    assert e.value.path == path
