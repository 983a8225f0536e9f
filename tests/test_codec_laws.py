"""The codec is lossless in both directions.

Laws, over everything `acp_core.strategies` draws (unknown variants, unknown enum values,
`extra` keys, `_meta`, explicit nulls and the tolerated plan types included), both checked on
each drawn value `v` and its wire dict `d = encode(v)`:
- `decode(encode(v)) == v` for values;
- `encode(decode(d)) == d` for wire dicts, compared as JSON text so `True` never passes for
  `1` nor `1.0` for `1`.
Then the same for JSON-RPC messages and batches, and a few readable examples of what "kept"
means for unknown data.
"""

from __future__ import annotations

import copy
import json
from typing import Any

import immutables
import pytest
from hypothesis import given
from hypothesis import strategies as st

import acp_core as acp
from acp_core import strategies as acps


def same_json(a: object, b: object) -> bool:
    """Equal as JSON text: types count (bool vs int, int vs float, -0.0 vs 0.0)."""
    return json.dumps(a, sort_keys=True) == json.dumps(b, sort_keys=True)


# -- updates ---------------------------------------------------------------------------


@given(acps.session_updates(tolerated=True))
def test_an_update_survives_both_directions(update: acp.SessionUpdate) -> None:
    # value -> wire -> value
    wire = acp.encode_update(update)
    before = copy.deepcopy(wire)
    strict = acp.decode_update_diagnosed(wire, strict=True)
    assert strict.value == update
    assert type(strict.value) is type(update)
    # wire -> value -> wire, compared as JSON text
    assert same_json(acp.encode_update(strict.value), before)
    assert same_json(wire, before)  # decoding did not touch its input
    # valid input: lenient decoding agrees and tolerates nothing
    lenient = acp.decode_update_diagnosed(wire)
    assert strict.diagnostics == lenient.diagnostics == ()
    assert lenient.value == update
    # a fresh dict on every call
    assert acp.encode_update(update) is not wire


# -- results ---------------------------------------------------------------------------


@given(acps.request_permission_results())
def test_a_permission_result_survives_both_directions(result: acp.RequestPermissionResult) -> None:
    wire = acp.encode_result(result)
    assert acp.decode_permission_result(wire, strict=True) == result
    assert same_json(acp.encode_result(acp.decode_permission_result(wire, strict=True)), wire)


@given(acps.prompt_results())
def test_a_prompt_result_survives_both_directions(result: acp.PromptResult) -> None:
    wire = acp.encode_result(result)
    assert acp.decode_prompt_result(wire, strict=True) == result
    assert same_json(acp.encode_result(acp.decode_prompt_result(wire, strict=True)), wire)


# -- messages --------------------------------------------------------------------------


def _at_a_revision(revision: acp.Revision) -> st.SearchStrategy[tuple[acp.Revision, Any]]:
    return st.tuples(st.just(revision), acps.messages(tolerated=True, revision=revision))


@given(st.sampled_from(list(acp.REVISIONS.values())).flatmap(_at_a_revision))
def test_a_message_survives_both_directions(drawn: tuple[acp.Revision, acp.Message]) -> None:
    # at every revision, what it draws, as it keys it
    revision, message = drawn
    wire = acp.encode_message(message, revision=revision)
    before = copy.deepcopy(wire)
    decoded = acp.decode_message_diagnosed(wire, strict=True, revision=revision)
    assert decoded.value == message
    assert type(decoded.value) is type(message)
    assert decoded.diagnostics == ()
    assert same_json(acp.encode_message(decoded.value, revision=revision), before)
    assert acp.decode_message(wire, revision=revision) == message  # lenient agrees
    if isinstance(message, acp.UpdateSessionNotification):
        # the envelope adds nothing to the update: decode_update reads the same value
        update = acp.decode_update(wire["params"]["update"], strict=True, revision=revision)
        assert update == message.update


# Batch entries that do not decode, with the code a receiver answers them with.
_INVALID_ENTRIES: list[tuple[Any, int]] = [
    (5, -32600),
    ("ping", -32600),
    ([], -32600),
    ({}, -32600),
    ({"jsonrpc": "1.0", "method": "session/cancel", "params": {"sessionId": "s"}}, -32600),
    ({"jsonrpc": "2.0", "id": [1], "method": "x"}, -32600),
    ({"jsonrpc": "2.0", "id": 1.5, "result": {}}, -32600),
    ({"jsonrpc": "2.0", "method": 7}, -32600),
    ({"jsonrpc": "2.0", "id": 1}, -32600),
    ({"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s"}}, -32602),
    ({"jsonrpc": "2.0", "method": "session/cancel", "params": []}, -32602),
    ({"jsonrpc": "2.0", "id": 1, "method": "session/prompt", "params": {"sessionId": 1}}, -32602),
]


@given(
    st.lists(
        acps.wire_messages().map(lambda w: (w, 0)) | st.sampled_from(_INVALID_ENTRIES),
        min_size=1,
        max_size=4,
    )
)
def test_a_batch_decodes_entry_by_entry_and_re_encodes_as_it_came(
    entries: list[tuple[Any, int]],
) -> None:
    wire = [copy.deepcopy(entry) for entry, _ in entries]
    batch = acp.decode_message(wire, strict=True)
    assert isinstance(batch, acp.Batch)
    assert len(batch.items) == len(entries)
    for i, ((entry, code), item) in enumerate(zip(entries, batch.items, strict=True)):
        if code:
            assert isinstance(item, acp.InvalidEntry)
            assert item.code == code
            assert item.path.startswith(f"$[{i}]")
            assert item.raw == acp.freeze_json(entry)
        else:
            assert item == acp.decode_message(entry, strict=True)
    assert same_json(acp.encode_message(batch), [entry for entry, _ in entries])


def test_an_invalid_batch_entry_does_not_fail_its_neighbours() -> None:
    good = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s1"}}
    bad = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": 1}}
    batch = acp.decode_message([good, bad, good])
    assert isinstance(batch, acp.Batch)
    first, invalid, last = batch.items
    assert first == last == acp.CancelSessionNotification("s1")
    assert invalid == acp.InvalidEntry(
        acp.freeze_json(bad), "$[1].params.sessionId", "string", -32602
    )


def test_an_empty_batch_is_an_invalid_request() -> None:
    with pytest.raises(acp.DecodeError) as info:
        acp.decode_message([])
    assert info.value.code == -32600
    assert info.value.path == "$"


# -- what "kept" means, by example -----------------------------------------------------


@pytest.mark.parametrize(
    "wire",
    [
        pytest.param(
            {"sessionUpdate": "_acme_progress", "percent": 40, "_meta": {"k": [1, None]}},
            id="unknown-update",
        ),
        pytest.param(
            {"sessionUpdate": "notice", "text": "compacted", "level": None},
            id="future-update-with-null",
        ),
        pytest.param(
            {"sessionUpdate": "state_update", "state": "_paused", "reason": "user"},
            id="unknown-state",
        ),
        pytest.param(
            {"sessionUpdate": "state_update", "state": "idle", "stopReason": "_budget"},
            id="unknown-stop-reason",
        ),
        pytest.param(
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m1",
                "content": {"type": "_widget", "spec": {"w": 3}},
            },
            id="unknown-content-block",
        ),
        pytest.param(
            {
                "sessionUpdate": "tool_call_update",
                "toolCallId": "t1",
                "kind": "_deploy",
                "status": "paused",
                "content": [
                    {"type": "_chart", "points": [1, 2]},
                    {"type": "diff", "changes": [{"operation": "_chmod", "path": "/a"}]},
                ],
                "title": None,
                "rawInput": None,
                "_meta": None,
                "zzExtension": {"nested": [True, 1, 1.0]},
            },
            id="unknown-values-nulls-and-extra-keys",
        ),
        pytest.param(
            {"sessionUpdate": "plan_update", "plan": {"type": "_graph", "planId": "p", "g": []}},
            id="unknown-plan",
        ),
        pytest.param(
            {
                "sessionUpdate": "config_option_update",
                "configOptions": [
                    {"type": "_slider", "configId": "c", "name": "n", "min": 0},
                    {"type": "boolean", "configId": "b", "name": "B", "currentValue": False},
                ],
            },
            id="unknown-config-option",
        ),
        pytest.param(
            {
                "sessionUpdate": "available_commands_update",
                "availableCommands": [
                    {"name": "x", "description": "d", "input": {"type": "_form", "f": 1}}
                ],
            },
            id="unknown-command-input",
        ),
        pytest.param(
            {"sessionUpdate": "usage_update", "used": 1, "size": 2, "cost": None, "_x": 1},
            id="null-cost-and-extra",
        ),
    ],
)
def test_unknown_data_and_explicit_nulls_are_kept_verbatim(wire: dict[str, Any]) -> None:
    # at 2026-08, where `notice` is a future kind
    update = acp.decode_update(wire, strict=True, revision=acp.V2_2026_08)
    assert same_json(acp.encode_update(update), wire)


def test_an_unknown_update_keeps_its_whole_object_as_raw() -> None:
    wire = {"sessionUpdate": "_acme_progress", "percent": 40, "_meta": {"k": [1, None]}}
    update = acp.decode_update(wire)
    assert update == acp.OtherUpdate(
        immutables.Map(
            {
                "sessionUpdate": "_acme_progress",
                "percent": 40,
                "_meta": immutables.Map({"k": (1, None)}),
            }
        )
    )
    assert isinstance(update, acp.OtherUpdate)
    assert update.session_update == "_acme_progress"


def test_unknown_keys_of_a_known_update_go_to_extra() -> None:
    update = acp.decode_update(
        {"sessionUpdate": "session_info_update", "title": "T", "zzFuture": [1], "_x": None}
    )
    assert update == acp.SessionInfoUpdate(
        title="T", extra=immutables.Map({"zzFuture": (1,), "_x": None})
    )


def test_unknown_envelope_and_params_keys_are_kept_apart() -> None:
    wire = {
        "jsonrpc": "2.0",
        "method": "session/cancel",
        "params": {"sessionId": "s", "reason": "user"},
        "trace": "abc",
    }
    message = acp.decode_message(wire)
    assert message == acp.CancelSessionNotification(
        "s",
        extra=immutables.Map({"reason": "user"}),
        envelope_extra=immutables.Map({"trace": "abc"}),
    )
    assert same_json(acp.encode_message(message), wire)
