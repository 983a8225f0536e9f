"""A revision that renames one field and removes another, built in the tests only.

The test revision `2027-02` (`_later(V2_PREVIEW, ...)`, the registry's own constructor; it is
not in `REVISIONS`) renames `ToolCallUpdate.rawInput` to `input` and removes `rawOutput`. In
the package that is two edits (docs/contributing.md, walk-through B): the revision in
`_wire/_revision.py` and one declaration on each field, here

    raw_input: Patch[JsonValue] = attrs.field(default=UNSET, metadata=wire(key_since=RENAME))
    raw_output: Patch[JsonValue] = attrs.field(default=UNSET, metadata=wire(key_since=REMOVE))

which the `declared` fixture makes for the duration of this module (it gives the two attrs
fields that metadata, lets the codec's encoders see the revision as registered, and drops the
codec's cached tables on the way in and out). Then:
- decode, encode and both round trips at the test revision use `input`, and `rawInput` /
  `rawOutput` are unknown keys there, kept verbatim in `extra`;
- every registered revision is unchanged: the codec laws over `REVISIONS` still hold with the
  declarations in place, and `rawInput` is still the key there;
- the unknown-data-survives law holds at the test revision too;
- the engines write what the revision they speak says (`revision=` reaches `encode_*`).
"""

from __future__ import annotations

import copy
import json
from collections.abc import Iterator
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

import acp_core as acp
from acp_core import codec, intents, values
from acp_core import strategies as acps
from acp_core._wire import _codec_tables
from acp_core._wire._fields import WIRE, wire
from acp_core._wire._json import thaw_json
from acp_core._wire._revision import V2_PREVIEW, _later

#: The test revision: the Preview plus one rename and one removal.
RENAMING = _later(V2_PREVIEW, "2027-02", "test (not a real draft)")
RENAME = (("2027-02", "input"),)
REMOVE: tuple[tuple[str, str | None], ...] = (("2027-02", None),)


def _forget_tables() -> None:
    _codec_tables._CACHE.clear()
    _codec_tables._ENCODING.clear()
    _codec_tables._last[:] = [None, None]
    _codec_tables._last_encoding[:] = [None, None]


@pytest.fixture(scope="module", autouse=True)
def declared() -> Iterator[None]:
    """`ToolCallUpdate.raw_input` and `raw_output` carry their `wire(key_since=...)`, and the
    codec's encoders know the test revision as if it were registered (the union of known
    revisions they derive with includes it, as it would once in `REVISIONS`)."""
    cls = values.ToolCallUpdate
    before = cls.__attrs_attrs__  # type: ignore[attr-defined]
    declarations = {"raw_input": RENAME, "raw_output": REMOVE}
    after = type(before)(
        a.evolve(metadata={**a.metadata, **wire(key_since=declarations[a.name])})
        if a.name in declarations
        else a
        for a in before
    )
    assert all(WIRE in a.metadata for a in after if a.name in declarations)
    with pytest.MonkeyPatch.context() as mp:
        mp.setattr(cls, "__attrs_attrs__", after)
        mp.setattr(_codec_tables, "REVISIONS", {**acp.REVISIONS, RENAMING.name: RENAMING})
        _forget_tables()
        try:
            yield
        finally:
            _forget_tables()
    assert cls.__attrs_attrs__ is before  # type: ignore[attr-defined]
    _forget_tables()


def same_json(a: object, b: object) -> bool:
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


WIRE_TCU = {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "input": {"q": 1}}


# -- the test revision -----------------------------------------------------------------------


def test_decoding_at_the_renaming_revision_reads_the_new_key() -> None:
    update = acp.decode_update(WIRE_TCU, strict=True, revision=RENAMING)
    assert update == values.ToolCallUpdate("t1", raw_input={"q": 1})
    assert not update.extra


def test_the_renaming_revision_takes_the_generic_walk_for_tool_call_updates() -> None:
    # The hand-written fast path reads `rawInput`: a revision that renames it must not use it.
    from acp_core._wire._codec_tables import tables

    assert not tables(RENAMING).update.tool_calls
    assert tables(V2_PREVIEW).update.tool_calls


def test_the_old_keys_are_unknown_keys_at_the_renaming_revision() -> None:
    old = {"sessionUpdate": "tool_call_update", "toolCallId": "t1", "rawInput": 1, "rawOutput": 2}
    update = acp.decode_update(old, strict=True, revision=RENAMING)
    assert update == values.ToolCallUpdate("t1", extra={"rawInput": 1, "rawOutput": 2})
    assert same_json(acp.encode_update(update, revision=RENAMING), old)  # written back verbatim


def test_encoding_at_the_renaming_revision_writes_the_new_key() -> None:
    update = values.ToolCallUpdate("t1", raw_input={"q": 1})
    assert same_json(acp.encode_update(update, revision=RENAMING), WIRE_TCU)
    # the same value at the Preview (and by default) keeps `rawInput`
    preview = {**{k: v for k, v in WIRE_TCU.items() if k != "input"}, "rawInput": {"q": 1}}
    assert same_json(acp.encode_update(update, revision=acp.V2_PREVIEW), preview)
    assert same_json(acp.encode_update(update), preview)


def test_encoding_refuses_a_field_the_revision_removed() -> None:
    update = values.ToolCallUpdate("t1", raw_output="done")
    with pytest.raises(acp.ArgumentError, match="raw_output"):
        acp.encode_update(update, revision=RENAMING)
    assert acp.encode_update(update)["rawOutput"] == "done"  # still a field of the Preview


def test_messages_and_parts_take_the_revision_too() -> None:
    message = acp.decode_message(
        {
            "jsonrpc": "2.0",
            "id": 4,
            "method": "session/request_permission",
            "params": {
                "sessionId": "s1",
                "title": "Run ls?",
                "options": [{"optionId": "o", "name": "Allow", "kind": "allow_once"}],
                "subject": {"type": "tool_call", "toolCall": {"toolCallId": "t1", "input": "ls"}},
            },
        },
        strict=True,
        revision=RENAMING,
    )
    assert isinstance(message, values.RequestPermissionRequest)
    assert isinstance(message.subject, values.ToolCallPermissionSubject)
    tool_call = message.subject.tool_call
    assert tool_call == values.ToolCallUpdate("t1", raw_input="ls")
    wire_at = codec.encode_message(message, revision=RENAMING)
    assert wire_at["params"]["subject"]["toolCall"] == {"toolCallId": "t1", "input": "ls"}
    wire_p = codec.encode_message(message)
    assert wire_p["params"]["subject"]["toolCall"] == {"toolCallId": "t1", "rawInput": "ls"}
    assert codec.encode_message(values.Batch((message,)), revision=RENAMING) == [wire_at]
    part = codec.encode_part("ToolCallUpdate", tool_call, revision=RENAMING)
    assert part == {"toolCallId": "t1", "input": "ls"}
    assert codec.decode_part("ToolCallUpdate", part, revision=RENAMING) == tool_call


def _without_removed(update: acp.SessionUpdate) -> acp.SessionUpdate:
    if isinstance(update, values.ToolCallUpdate):
        return attrs.evolve(update, raw_output=values.UNSET)
    return update


@given(acps.session_updates(tolerated=True, revision=RENAMING))
def test_an_update_survives_both_directions_at_the_renaming_revision(
    drawn: acp.SessionUpdate,
) -> None:
    update = _without_removed(drawn)  # the test revision has no `rawOutput` to draw
    wire_at = acp.encode_update(update, revision=RENAMING)
    assert "rawInput" not in wire_at or "rawInput" in getattr(update, "extra", {})
    if isinstance(update, values.ToolCallUpdate) and update.raw_input is not values.UNSET:
        assert "input" in wire_at
    before = copy.deepcopy(wire_at)
    strict = codec.decode_update_diagnosed(wire_at, strict=True, revision=RENAMING)
    assert strict.value == update
    assert same_json(acp.encode_update(strict.value, revision=RENAMING), before)


@given(acps.session_updates(tolerated=True))
def test_unknown_data_survives_at_the_renaming_revision(update: acp.SessionUpdate) -> None:
    # A Preview peer's wire read at the test revision: its `rawInput`/`rawOutput` are unknown
    # keys there, kept in `extra`, and the wire comes back as it came.
    wire_p = acp.encode_update(update, revision=acp.V2_PREVIEW)
    at = acp.decode_update(wire_p, strict=True, revision=RENAMING)
    assert same_json(acp.encode_update(at, revision=RENAMING), wire_p)


# -- every registered revision is unchanged ------------------------------------------------


_EVERY_REVISION = st.one_of(
    [
        st.tuples(st.just(r), acps.session_updates(tolerated=True, revision=r))
        for r in acp.REVISIONS.values()
    ]
)


@given(_EVERY_REVISION)
def test_registered_revisions_keep_their_keys(
    drawn: tuple[acp.Revision, acp.SessionUpdate],
) -> None:
    revision, update = drawn
    wire_r = acp.encode_update(update, revision=revision)
    if isinstance(update, values.ToolCallUpdate) and update.raw_input is not values.UNSET:
        assert "rawInput" in wire_r
    strict = codec.decode_update_diagnosed(wire_r, strict=True, revision=revision)
    assert strict.value == update
    assert same_json(acp.encode_update(strict.value, revision=revision), wire_r)


def test_the_codec_laws_still_hold_with_the_declarations_in_place() -> None:
    # tests/test_codec_laws.py, run here while the renaming declarations are on the fields.
    import test_codec_laws as laws

    laws.test_an_update_survives_both_directions()
    laws.test_a_message_survives_both_directions()
    laws.test_a_batch_decodes_entry_by_entry_and_re_encodes_as_it_came()
    verbatim = laws.test_unknown_data_and_explicit_nulls_are_kept_verbatim
    (mark,) = verbatim.pytestmark  # type: ignore[attr-defined]
    for param in mark.args[1]:
        verbatim(*param.values)
    laws.test_unknown_keys_of_a_known_update_go_to_extra()


@pytest.mark.parametrize("revision", list(acp.REVISIONS.values()), ids=list(acp.REVISIONS))
def test_registered_revisions_read_and_write_raw_input(revision: acp.Revision) -> None:
    wire_r = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t1",
        "rawInput": 1,
        "rawOutput": 2,
    }
    update = acp.decode_update(wire_r, strict=True, revision=revision)
    assert update == values.ToolCallUpdate("t1", raw_input=1, raw_output=2)
    assert same_json(acp.encode_update(update, revision=revision), wire_r)
    assert thaw_json(acp.decode_update(WIRE_TCU, revision=revision).extra) == {"input": {"q": 1}}


# -- the engines speak their revision ------------------------------------------------------


def test_an_agent_at_the_renaming_revision_sends_the_new_key() -> None:
    update = values.ToolCallUpdate("t1", title="ls", raw_input={"q": 1})
    sent: dict[str, Any] = {}
    for revision in (RENAMING, acp.V2_PREVIEW):
        step = acp.step(acp.new_agent("s1", revision=revision), intents.SendUpdate(update))
        (out,) = step.outbound
        sent[revision.name] = out["params"]["update"]
    assert sent["2027-02"] == {**WIRE_TCU, "title": "ls"}
    assert "rawInput" in sent[acp.V2_PREVIEW.name]
    assert "input" not in sent[acp.V2_PREVIEW.name]


def test_a_client_at_the_renaming_revision_reads_the_new_key() -> None:
    client = acp.new_client("s1", revision=RENAMING)
    wire_in = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s1", "update": WIRE_TCU},
    }
    step = acp.step(client, acp.Received(acp.decode_message(wire_in, revision=RENAMING)))
    assert thaw_json(step.state.session.tool_calls["t1"].raw_input) == {"q": 1}
