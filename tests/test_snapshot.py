"""Snapshots (docs/snapshot.md): `restore(snapshot(s)) == s`, also through JSON text; the
document is plain JSON; malformed documents raise `DecodeError` with a path; the worked example
in docs/snapshot.md is exactly what folding its documented updates gives."""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
import state_strategies as ss
from hypothesis import given
from hypothesis import strategies as st

import acp_core as acp
from acp_core import strategies as acps
from acp_core._state._pcoll import packed_runs
from acp_core._state._text_runs import TEXT_RUNS
from acp_core._wire._codec import encode_part

SID = "sess_1"
NEW = acp.new_session(SID)
DOC = Path(__file__).resolve().parents[1] / "docs" / "snapshot.md"

#: Colliding ids (small pools) plus a few updates with every field variant (public strategies,
#: which draw about 8x slower), drawn at the revision the fold reduces at (`ss.REVISION`): a
#: document without `revision` has that revision's parts, so a later value inside a part (a
#: command's 2026-11 `type`, a Preview markdown plan) comes back only from a document that
#: names its revision (`test_restore_inverts_a_snapshot_that_names_its_revision`).
update_lists = st.builds(
    lambda a, b: a + b,
    st.lists(ss.session_updates(), max_size=10),
    st.lists(acps.session_updates(revision=ss.REVISION), max_size=3),
)

pooled_lists = st.lists(ss.session_updates(), max_size=10)


def assert_plain_json(value: object, where: str = "$") -> None:
    """Only dict (string keys), list, str, int, float, bool and None, as `json` writes them."""
    if isinstance(value, dict):
        for k, v in value.items():
            assert type(k) is str, where
            assert_plain_json(v, f"{where}.{k}")
    elif isinstance(value, list):
        for i, v in enumerate(value):
            assert_plain_json(v, f"{where}[{i}]")
    else:
        assert value is None or type(value) in (str, int, float, bool), f"{type(value)} @ {where}"


@given(update_lists)
def test_restore_inverts_snapshot(updates: list[acp.SessionUpdate]) -> None:
    state = ss.fold(NEW, updates)
    doc = acp.snapshot(state)
    assert_plain_json(doc)
    assert acp.restore(doc) == state
    # through JSON text too, and the document is a fixed point
    text = json.dumps(doc, allow_nan=False)
    again = acp.restore(json.loads(text))
    assert again == state
    assert acp.snapshot(again) == doc


@given(update_lists)
def test_snapshot_content_is_every_block_encoded(updates: list[acp.SessionUpdate]) -> None:
    # The snapshot writes plain text kept packed straight from its string: the same JSON as
    # encoding each block the content reads back as (exactly, key order included).
    state = ss.fold(NEW, updates)
    doc = acp.snapshot(state)
    for message_id, m in state.messages.items():
        expected = [encode_part("ContentBlock", b, revision=acp.V2_2026_08) for b in m.content]
        assert json.dumps(doc["messages"][message_id]["content"]) == json.dumps(expected)
    for tool_call_id, t in state.tool_calls.items():
        expected = [encode_part("ToolCallContent", x, revision=acp.V2_2026_08) for x in t.content]
        assert json.dumps(doc["toolCalls"][tool_call_id]["content"]) == json.dumps(expected)


def test_restore_keeps_plain_text_packed_and_decodes_every_other_block() -> None:
    # Plain text (exactly `type` and `text`, in any key order) is restored as its string,
    # packed as the reducers pack it; a block with anything more is decoded, `_meta` kept.
    chunks = [acp.values.AgentMessageChunk("m", acp.values.TextContent(t)) for t in "abc"]
    doc = acp.snapshot(acp.fold(NEW, chunks))
    blocks = doc["messages"]["m"]["content"]
    blocks[1] = {"text": "b", "type": "text"}
    blocks[2] = {"type": "text", "text": "c", "_meta": {"k": 1}}
    restored = acp.restore(doc)
    content = restored.messages["m"].content
    assert [b.text for b in content] == ["a", "b", "c"]
    assert acp.thaw_json(content[2].meta) == {"k": 1}
    assert content[1].meta is acp.UNSET
    runs = list(packed_runs(content, TEXT_RUNS))
    assert runs == [(True, ("a", "b", content[2]))]
    blocks[0] = {"type": "text", "text": 5}
    with pytest.raises(acp.DecodeError) as e:
        acp.restore(doc)
    assert e.value.path.startswith("$.messages.m.content[0]")


@pytest.mark.parametrize("revision", list(acp.REVISIONS.values()), ids=lambda r: r.name)
def test_restore_inverts_a_snapshot_that_names_its_revision(revision: acp.Revision) -> None:
    # Every field the revision's updates carry (tests/test_strategies_fields.py) comes back.
    @given(st.lists(acps.session_updates(revision=revision), max_size=4))
    def law(updates: list[acp.SessionUpdate]) -> None:
        state = acp.fold(NEW, updates, revision=revision)
        doc = acp.snapshot(state, revision=revision)
        assert acp.restore(json.loads(json.dumps(doc, allow_nan=False))) == state

    law()


@given(pooled_lists, st.lists(ss.session_updates(), max_size=6))
def test_a_restored_state_folds_on_like_the_original(
    first: list[acp.SessionUpdate], then: list[acp.SessionUpdate]
) -> None:
    state = ss.fold(NEW, first)
    restored = acp.restore(json.loads(json.dumps(acp.snapshot(state))))
    assert ss.fold(restored, then) == ss.fold(state, then)


@given(pooled_lists)
def test_snapshot_does_not_alias_the_state(updates: list[acp.SessionUpdate]) -> None:
    state = ss.fold(NEW, updates)
    doc = acp.snapshot(state)
    for message in doc["messages"].values():
        message["content"].clear()
    doc["timeline"].clear()
    assert acp.snapshot(state)["timeline"] == [{"kind": r.kind, "id": r.id} for r in state.timeline]


def test_new_session_snapshot() -> None:
    doc = acp.snapshot(NEW)
    assert doc == {
        "version": 1,
        "sessionId": SID,
        "foreground": {"state": "idle"},
        "timeline": [],
        "messages": {},
        "toolCalls": {},
        "terminals": {},
        "plans": {},
        "info": {},
    }
    assert acp.restore(doc) == NEW


def test_the_issue_format_without_extra_keys_restores() -> None:
    # The required keys only (no version, info, chunkMeta, ...): still a valid document.
    doc = {
        "sessionId": "s",
        "foreground": {"state": "running", "stopReason": "end_turn"},
        "timeline": [{"kind": "message", "id": "m1"}],
        "messages": {"m1": {"role": "agent", "content": [{"type": "text", "text": "hi"}]}},
        "toolCalls": {},
        "terminals": {"x": {"output": "aGk="}},
        "plans": {},
    }
    state = acp.restore(doc)
    assert acp.message_text(state.messages["m1"]) == "hi"
    assert acp.terminal_bytes(state.terminals["x"]) == b"hi"
    assert state.foreground == acp.Foreground("running", "end_turn")
    assert state.info == acp.SessionInfo()


def test_empty_meta_objects_survive() -> None:
    # Regression: an empty plan_update `_meta` ({}) was dropped by snapshot.
    wire = [
        {
            "sessionUpdate": "plan_update",
            "plan": {"type": "items", "planId": "p", "entries": []},
            "_meta": {},
        },
        {"sessionUpdate": "agent_message", "messageId": "m", "_meta": {}},
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "m",
            "content": {"type": "text", "text": ""},
            "_meta": {},
        },
        {"sessionUpdate": "usage_update", "used": 0, "size": 0, "_meta": {}},
        {"sessionUpdate": "state_update", "state": "running", "_meta": {}},
        {"sessionUpdate": "session_info_update", "_meta": {}},
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "x",
            "_meta": {},
            "output": {"data": "", "_meta": {}},
        },
    ]
    state = ss.fold(NEW, [ss.decode_update(w) for w in wire])
    assert acp.restore(json.loads(json.dumps(acp.snapshot(state)))) == state


def test_unknown_updates_restore_as_unknown_whatever_their_tag() -> None:
    # An OtherUpdate a caller built with a known tag is still kept (and restored) as unknown.
    odd = acp.OtherUpdate(acp.freeze_json({"sessionUpdate": "agent_message", "messageId": "m"}))
    state = ss.reduce(NEW, odd)
    restored = acp.restore(acp.snapshot(state))
    assert restored == state
    assert not restored.messages


# -- malformed documents -----------------------------------------------------------------------


def _valid() -> dict[str, Any]:
    wire = [
        {
            "sessionUpdate": "agent_message",
            "messageId": "m1",
            "content": [{"type": "text", "text": "a"}],
        },
        {"sessionUpdate": "tool_call_update", "toolCallId": "t1"},
        {"sessionUpdate": "terminal_update", "terminalId": "x1", "output": {"data": "aGk="}},
        {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p1", "entries": []}},
        {"sessionUpdate": "usage_update", "used": 1, "size": 2},
        {"sessionUpdate": "_custom"},
    ]
    return acp.snapshot(ss.fold(NEW, [ss.decode_update(w) for w in wire]))


def _set(path: list[Any], value: Any) -> Any:
    def edit(doc: dict[str, Any]) -> dict[str, Any]:
        target = doc
        for key in path[:-1]:
            target = target[key]
        if value is _DELETE:
            del target[path[-1]]
        else:
            target[path[-1]] = value
        return doc

    return edit


_DELETE = object()

BAD_DOCS = [
    pytest.param(lambda d: [d], "$", id="not-an-object"),
    pytest.param(_set(["sessionId"], _DELETE), "$.sessionId", id="no-session-id"),
    pytest.param(_set(["sessionId"], 1), "$.sessionId", id="session-id-type"),
    pytest.param(_set(["foreground", "state"], None), "$.foreground.state", id="no-state"),
    pytest.param(_set(["foreground", "_meta"], [1]), "$.foreground._meta", id="fg-meta-type"),
    pytest.param(_set(["timeline", 0, "kind"], "terminal"), "$.timeline[0].kind", id="kind"),
    pytest.param(_set(["timeline", 0], "m1"), "$.timeline[0]", id="timeline-entry"),
    pytest.param(_set(["messages", "m1", "role"], "system"), "$.messages.m1.role", id="role"),
    pytest.param(
        _set(["messages", "m1", "content", 0], {"type": "text"}),
        "$.messages.m1.content[0].text",
        id="content-block",
    ),
    pytest.param(
        _set(["messages", "m1", "chunkMeta"], {"x": {}}), "$.messages.m1.chunkMeta", id="chunk-key"
    ),
    pytest.param(_set(["toolCalls", "t1", "kind"], _DELETE), "$.toolCalls.t1.kind", id="tool-kind"),
    pytest.param(
        _set(["toolCalls", "t1", "locations"], None), "$.toolCalls.t1.locations", id="locations"
    ),
    pytest.param(
        _set(["terminals", "x1", "output"], "!!"), "$.terminals.x1.output", id="terminal-base64"
    ),
    pytest.param(
        _set(["terminals", "x1", "exitStatus"], {"exitCode": -1}),
        "$.terminals.x1.exitStatus.exitCode",
        id="exit-code",
    ),
    pytest.param(_set(["plans", "p1", "planId"], 3), "$.plans.p1.planId", id="plan"),
    pytest.param(_set(["usage", "used"], "1"), "$.usage.used", id="usage-used"),
    pytest.param(_set(["usage", "size"], True), "$.usage.size", id="usage-bool"),
    pytest.param(_set(["unknown", 0], {"x": 1}), "$.unknown[0]", id="unknown-entry"),
    pytest.param(_set(["diagnostics"], [{"rule": "r"}]), "$.diagnostics[0].path", id="diagnostic"),
    pytest.param(
        _set(["timeline", 0, "id"], "ghost"), "$.timeline[0].id", id="dangling-timeline-ref"
    ),
]


@pytest.mark.parametrize(("edit", "path"), BAD_DOCS)
def test_malformed_documents_raise_decode_error_with_a_path(edit: Any, path: str) -> None:
    doc = _valid()
    assert acp.restore(doc) is not None
    with pytest.raises(acp.DecodeError) as info:
        acp.restore(edit(doc))
    assert info.value.path.startswith(path), info.value


# -- the worked example of docs/snapshot.md -------------------------------------------------


def _doc_block(marker: str) -> Any:
    text = DOC.read_text(encoding="utf-8")
    found = re.search(re.escape(marker) + r"\s*```json\n(.*?)\n```", text, re.DOTALL)
    assert found, f"no ```json block after {marker} in {DOC}"
    return json.loads(found.group(1))


def test_the_documented_example_restores_and_re_snapshots_to_itself() -> None:
    example = _doc_block("<!-- snapshot-example -->")
    assert acp.snapshot(acp.restore(example)) == example


def test_the_documented_example_is_the_fold_of_the_documented_updates() -> None:
    updates = _doc_block("<!-- snapshot-example-updates -->")
    example = _doc_block("<!-- snapshot-example -->")
    state = ss.fold(
        acp.new_session(example["sessionId"]), [ss.decode_update(u, strict=True) for u in updates]
    )
    assert acp.snapshot(state) == example


def test_the_documented_example_covers_every_top_level_key() -> None:
    example = _doc_block("<!-- snapshot-example -->")
    assert set(example) == {
        "version",
        "sessionId",
        "foreground",
        "timeline",
        "messages",
        "toolCalls",
        "terminals",
        "plans",
        "planMeta",
        "availableCommands",
        "configOptions",
        "info",
        "usage",
        "unknown",
        "diagnostics",
    }
