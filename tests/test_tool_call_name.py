"""The 2026-11 tool-call `name` field, end to end: codec, reducers, render, snapshot.

`name` is stable in the 2026-11 draft (patch semantics: absent = unchanged, null = cleared,
string = replaced) and unknown to 2026-08, where it stays an unknown key in `extra`.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conftest import schema_2026_11_path
from hypothesis import given
from jsonschema import Draft202012Validator

import acp_core as acp
from acp_core import strategies as acps

V08, V11 = acp.V2_2026_08, acp.V2_2026_11
NEW = acp.new_session("s")


def _tc(**fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "tool_call_update", "toolCallId": "c", **fields}


def test_2026_11_decodes_name_as_a_field_and_2026_08_keeps_it_unknown() -> None:
    wire = _tc(title="Read", name="read_file")
    late = acp.decode_update(wire, strict=True, revision=V11)
    early = acp.decode_update(wire, strict=True, revision=V08)
    assert isinstance(late, acp.ToolCallUpdate)
    assert isinstance(early, acp.ToolCallUpdate)
    assert (late.name, dict(late.extra)) == ("read_file", {})
    assert (early.name, dict(early.extra)) == (acp.UNSET, {"name": "read_file"})
    assert acp.decode_update(wire) == late  # the default revision, the Preview, includes 2026-11
    # Lossless either way.
    assert acp.encode_update(late) == wire == acp.encode_update(early)


@pytest.mark.parametrize(
    ("value", "expected"), [(None, None), ("grep", "grep"), (7, acp.UNSET), ([], acp.UNSET)]
)
def test_name_is_nullable_and_lenient(value: object, expected: object) -> None:
    decoded = acp.decode_update_diagnosed(_tc(name=value), revision=V11)
    assert isinstance(decoded.value, acp.ToolCallUpdate)
    assert decoded.value.name == expected
    assert [d.rule for d in decoded.diagnostics] == (
        [] if expected is not acp.UNSET else ["codec.default-on-error"]
    )
    if expected is acp.UNSET:
        with pytest.raises(acp.DecodeError, match=r"\$\.name"):
            acp.decode_update(_tc(name=value), strict=True, revision=V11)


def test_the_message_decoder_follows_the_revision_too() -> None:
    message = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": _tc(name="edit")},
    }
    late = acp.decode_message(message, revision=V11)
    early = acp.decode_message(message, revision=V08)
    assert isinstance(late, acp.UpdateSessionNotification)
    assert isinstance(early, acp.UpdateSessionNotification)
    assert isinstance(late.update, acp.ToolCallUpdate)
    assert isinstance(early.update, acp.ToolCallUpdate)
    assert (late.update.name, early.update.name) == ("edit", acp.UNSET)
    diagnosed = acp.decode_message_diagnosed(message, revision=V11)
    assert diagnosed.value == late


def _fold(revision: acp.Revision, *updates: dict[str, Any]) -> acp.ToolCallState:
    decoded = [acp.decode_update(w, revision=revision) for w in updates]
    by_reduce = NEW
    for update in decoded:
        by_reduce = acp.reduce(by_reduce, update, revision=revision)
    by_fold = acp.fold(NEW, decoded, revision=revision)
    assert by_fold == by_reduce
    return by_fold.tool_calls["c"]


@pytest.mark.parametrize(
    ("patches", "expected"),
    [
        ([_tc()], None),  # first sight without a name: no name is available
        ([_tc(name=None)], None),
        ([_tc(name="read")], "read"),
        ([_tc(name="read"), _tc(title="t")], "read"),  # absent: unchanged
        ([_tc(name="read"), _tc(name=None)], None),  # null: cleared
        ([_tc(name="read"), _tc(name="write")], "write"),  # string: replaced
        ([_tc(name="read"), {"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c",
          "content": {"type": "content", "content": {"type": "text", "text": "x"}}}], "read"),
    ],
)  # fmt: skip
def test_the_reducers_patch_the_name(patches: list[dict[str, Any]], expected: str | None) -> None:
    assert _fold(V11, *patches).name == expected
    assert _fold(V08, *patches).name is None  # 2026-08 has no such field


def test_render_shows_the_name_beside_the_kind() -> None:
    state = acp.reduce(NEW, acp.ToolCallUpdate("c", title="Read", kind="read", name="read_file"))
    assert "tool call c 'Read' [read read_file]: pending" in acp.render_session(state)
    unnamed = acp.reduce(NEW, acp.ToolCallUpdate("c", title="Read", kind="read"))
    assert "tool call c 'Read' [read]: pending" in acp.render_session(unnamed)


def test_the_snapshot_keeps_the_name_and_restores_older_snapshots_without_it() -> None:
    state = acp.reduce(NEW, acp.ToolCallUpdate("c", title="Read", name="read_file"))
    doc = acp.snapshot(state)
    assert doc["toolCalls"]["c"]["name"] == "read_file"
    assert acp.restore(json.loads(json.dumps(doc))) == state
    del doc["toolCalls"]["c"]["name"]
    assert acp.restore(doc).tool_calls["c"].name is None
    doc["toolCalls"]["c"]["name"] = 3
    with pytest.raises(acp.DecodeError, match="name"):
        acp.restore(doc)


@pytest.fixture(scope="module")
def draft_tool_call_update() -> Draft202012Validator:
    with schema_2026_11_path().open() as f:  # skips, saying why, when there is none
        schema = json.load(f)
    return Draft202012Validator({"$defs": schema["$defs"], "$ref": "#/$defs/ToolCallUpdate"})


@given(acps.tool_call_updates(revision=V11))
def test_every_2026_11_tool_call_update_round_trips_and_the_draft_accepts_its_name(
    draft_tool_call_update: Draft202012Validator, update: acp.ToolCallUpdate
) -> None:
    wire = acp.encode_update(update)
    assert acp.decode_update(wire, revision=V11) == update
    if update.name is not acp.UNSET:
        subset = {k: wire[k] for k in ("toolCallId", "name")}
        draft_tool_call_update.validate(subset)
