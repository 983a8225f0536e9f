"""What the codec does with malformed input: lenient vs strict, error paths and codes.

Lenient mode (the default) follows the schema's annotations (digest Q29): a malformed optional
field marked default-on-error becomes absent, a malformed item of a list marked
skip-invalid-items is dropped, a malformed required array marked default-on-error becomes
empty; each is reported as a `Diagnostic`. A malformed required field rejects the update in
both modes, and strict mode rejects everything lenient mode tolerates. A known tag with a bad
payload is an error, never demoted to an `Other*` variant. Errors name the JSON path and what
the schema expected there, and carry the JSON-RPC code to answer with.
"""

from __future__ import annotations

from collections.abc import Iterator
from typing import Any, NamedTuple

import attrs
import immutables
import pytest

import acp_core as acp


class Tolerated(NamedTuple):
    wire: dict[str, Any]
    lenient: acp.SessionUpdate  # what lenient mode decodes
    rule: str  # the diagnostic it reports (at `path`); strict mode raises there
    path: str
    expected: str


_DEFAULT = "codec.default-on-error"
_SKIP = "codec.skip-invalid-item"
_TEXT = {"type": "text", "text": "a"}

TOLERATED: list[Tolerated] = [
    Tolerated(
        {"sessionUpdate": "tool_call_update", "toolCallId": "t", "title": 5},
        acp.ToolCallUpdate("t"),
        _DEFAULT,
        "$.title",
        "string",
    ),
    Tolerated(
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": ["end_turn"]},
        acp.IdleStateUpdate(),
        _DEFAULT,
        "$.stopReason",
        "string",
    ),
    Tolerated(
        {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": _TEXT, "_meta": 5},
        acp.AgentMessageChunk("m", acp.TextContent("a")),
        _DEFAULT,
        "$._meta",
        "object",
    ),
    Tolerated(
        {"sessionUpdate": "usage_update", "used": 1, "size": 2, "cost": {"amount": "1"}},
        acp.UsageUpdate(1, 2),
        _DEFAULT,
        "$.cost.amount",
        "number",
    ),
    Tolerated(
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t",
            "locations": [{"path": "/a", "line": 2**32}],
        },
        acp.ToolCallUpdate("t", locations=(acp.ToolCallLocation("/a"),)),
        _DEFAULT,
        "$.locations[0].line",
        "integer (uint32)",
    ),
    Tolerated(
        {
            "sessionUpdate": "agent_message",
            "messageId": "m",
            "content": [_TEXT, {"type": "text", "text": 5}],
        },
        acp.AgentMessage("m", (acp.TextContent("a"),)),
        _SKIP,
        "$.content[1].text",
        "string",
    ),
    Tolerated(
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "t",
            "content": {"type": "diff", "changes": [{"operation": "move", "path": "/b"}]},
        },
        acp.ToolCallContentChunk("t", acp.Diff(())),
        _SKIP,
        "$.content.changes[0].oldPath",
        "string (required)",
    ),
    Tolerated(
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [{"name": "x"}, {"name": "y", "description": "d"}],
        },
        acp.AvailableCommandsUpdate((acp.AvailableCommand("y", "d"),)),
        _SKIP,
        "$.availableCommands[0].description",
        "string (required)",
    ),
    Tolerated(
        {"sessionUpdate": "available_commands_update", "availableCommands": "nope"},
        acp.AvailableCommandsUpdate(()),
        _DEFAULT,
        "$.availableCommands",
        "array of object (AvailableCommand)",
    ),
    Tolerated(
        {"sessionUpdate": "config_option_update", "configOptions": {"0": {}}},
        acp.ConfigOptionUpdate(()),
        _DEFAULT,
        "$.configOptions",
        "array of object (SessionConfigOption)",
    ),
    Tolerated(
        {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": "p", "entries": 5}},
        acp.PlanUpdate(acp.PlanItems("p", ())),
        _DEFAULT,
        "$.plan.entries",
        "array of object (PlanEntry)",
    ),
]


def _tolerated_id(case: Tolerated) -> str:
    return case.path.removeprefix("$.")


@pytest.mark.parametrize("case", TOLERATED, ids=_tolerated_id)
def test_lenient_mode_tolerates_what_the_schema_marks_and_reports_it(case: Tolerated) -> None:
    decoded = acp.decode_update_diagnosed(case.wire)
    assert decoded.value == case.lenient
    [diagnostic] = decoded.diagnostics
    assert (diagnostic.rule, diagnostic.path) == (case.rule, case.path)
    assert case.expected in diagnostic.message


@pytest.mark.parametrize("case", TOLERATED, ids=_tolerated_id)
def test_strict_mode_rejects_what_lenient_mode_tolerates(case: Tolerated) -> None:
    with pytest.raises(acp.DecodeError) as info:
        acp.decode_update(case.wire, strict=True)
    assert (info.value.path, info.value.expected) == (case.path, case.expected)
    assert info.value.code == -32602


@pytest.mark.parametrize("case", TOLERATED, ids=_tolerated_id)
def test_a_tolerated_update_re_encodes_to_a_strictly_valid_one(case: Tolerated) -> None:
    value = acp.decode_update(case.wire)
    assert acp.decode_update(acp.encode_update(value), strict=True) == value


def test_a_dropped_item_reports_its_drop_only_and_kept_items_keep_their_diagnostics() -> None:
    # The first change is dropped (a move needs oldPath) after its fileType was tolerated;
    # the second is kept with its fileType ignored.
    wire = {
        "sessionUpdate": "tool_call_content_chunk",
        "toolCallId": "t",
        "content": {
            "type": "diff",
            "changes": [
                {"operation": "move", "path": "/a", "fileType": 5},
                {"operation": "add", "path": "/b", "fileType": 6},
            ],
        },
    }
    decoded = acp.decode_update_diagnosed(wire)
    assert decoded.value == acp.ToolCallContentChunk("t", acp.Diff((acp.DiffChange("add", "/b"),)))
    assert [(d.rule, d.path) for d in decoded.diagnostics] == [
        (_SKIP, "$.content.changes[0].oldPath"),
        (_DEFAULT, "$.content.changes[1].fileType"),
    ]


def test_decode_update_without_diagnostics_is_the_lenient_value() -> None:
    for case in TOLERATED:
        assert acp.decode_update(case.wire) == case.lenient


# -- rejected in both modes ------------------------------------------------------------

REJECTED: list[tuple[Any, str, str]] = [
    # (wire, path, expected)
    ([], "$", "object (SessionUpdate)"),
    ({"sessionUpdate": 5}, "$.sessionUpdate", "string (variant tag)"),
    ({"type": "text"}, "$.sessionUpdate", "string (variant tag)"),
    ({"sessionUpdate": "tool_call_update"}, "$.toolCallId", "string (required)"),
    ({"sessionUpdate": "tool_call_update", "toolCallId": 7}, "$.toolCallId", "string"),
    (
        {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": {"text": "a"}},
        "$.content.type",
        "string (variant tag)",
    ),
    (
        {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": {"type": "text"}},
        "$.content.text",
        "string (required)",
    ),
    (
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "m",
            "content": {"type": "text", "text": 5},
        },
        "$.content.text",
        "string",
    ),
    ({"sessionUpdate": "usage_update", "used": -1, "size": 0}, "$.used", "integer (uint64)"),
    ({"sessionUpdate": "usage_update", "used": True, "size": 0}, "$.used", "integer (uint64)"),
    ({"sessionUpdate": "usage_update", "used": 1.0, "size": 0}, "$.used", "integer (uint64)"),
    ({"sessionUpdate": "usage_update", "used": 2**64, "size": 0}, "$.used", "integer (uint64)"),
    ({"sessionUpdate": "state_update"}, "$.state", "string (variant tag)"),
    (
        {"sessionUpdate": "plan_update", "plan": {"type": "_x"}},
        "$.plan.planId",
        "string (required)",
    ),
    (
        {"sessionUpdate": "plan_update", "plan": {"type": "items", "entries": []}},
        "$.plan.planId",
        "string (required)",
    ),
    (
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "x", "data": None},
        "$.data",
        "string",
    ),
]


@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
@pytest.mark.parametrize(("wire", "path", "expected"), REJECTED)
def test_a_malformed_required_field_rejects_the_update_in_both_modes(
    wire: Any, path: str, expected: str, strict: bool
) -> None:
    with pytest.raises(acp.DecodeError) as info:
        acp.decode_update(wire, strict=strict)
    assert (info.value.path, info.value.expected) == (path, expected)
    assert str(info.value) == f"expected {expected} @ {path}"


# -- a known tag is never demoted to Other* ---------------------------------------------

_OTHER_TYPES = (
    acp.OtherUpdate,
    acp.OtherStateUpdate,
    acp.OtherContent,
    acp.OtherToolCallContent,
    acp.OtherDiffChange,
    acp.OtherPlan,
    acp.OtherCommandInput,
    acp.OtherSessionConfigOption,
)


def _reachable(value: object) -> Iterator[object]:
    stack = [value]
    while stack:
        x = stack.pop()
        yield x
        if attrs.has(type(x)):
            stack.extend(getattr(x, f.name) for f in attrs.fields(type(x)))
        elif isinstance(x, tuple):
            stack.extend(x)


KNOWN_TAG_BAD_PAYLOAD: list[dict[str, Any]] = [
    {"sessionUpdate": "agent_message_chunk", "messageId": "m"},
    {"sessionUpdate": "usage_update", "used": "1", "size": 2},
    {"sessionUpdate": "state_update", "state": "idle", "_meta": []},
    {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": {"type": "image"}},
    {"sessionUpdate": "agent_message", "messageId": "m", "content": [{"type": "audio", "data": 1}]},
    {"sessionUpdate": "tool_call_content_chunk", "toolCallId": "t", "content": {"type": "diff"}},
    {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t",
        "content": [{"type": "terminal"}, {"type": "content", "content": {"type": "text"}}],
    },
    {
        "sessionUpdate": "tool_call_content_chunk",
        "toolCallId": "t",
        "content": {"type": "diff", "changes": [{"operation": "copy", "path": "/a"}]},
    },
    {"sessionUpdate": "plan_update", "plan": {"type": "items", "planId": 5, "entries": []}},
    {
        "sessionUpdate": "available_commands_update",
        "availableCommands": [{"name": "n", "description": "d", "input": {"type": "text"}}],
    },
    {
        "sessionUpdate": "config_option_update",
        "configOptions": [{"type": "boolean", "configId": "c", "name": "n", "currentValue": "y"}],
    },
]


@pytest.mark.parametrize("wire", KNOWN_TAG_BAD_PAYLOAD)
def test_a_known_tag_with_a_bad_payload_is_never_demoted_to_other(wire: dict[str, Any]) -> None:
    with pytest.raises(acp.DecodeError):
        acp.decode_update(wire, strict=True)
    try:
        decoded = acp.decode_update_diagnosed(wire)
    except acp.DecodeError:
        return  # rejected outright: fine
    # Tolerated: the bad part was dropped, not kept as an unknown variant.
    assert decoded.diagnostics
    assert not any(isinstance(x, _OTHER_TYPES) for x in _reachable(decoded.value))


def test_an_unknown_tag_with_any_payload_is_other() -> None:
    wire = {"sessionUpdate": "agent_message_chunk_v2", "messageId": 5}
    assert acp.decode_update(wire, strict=True) == acp.OtherUpdate(immutables.Map(wire))


# -- messages: paths and codes ---------------------------------------------------------

_CHUNK_BAD_TEXT = {
    "sessionUpdate": "agent_message_chunk",
    "messageId": "m",
    "content": {"type": "text", "text": 5},
}
_OPTION = {"optionId": "o", "name": "Allow", "kind": "allow_once"}

MESSAGE_ERRORS: list[tuple[Any, str, str, int]] = [
    # (wire, path, expected, code): -32600 not a JSON-RPC message, -32602 bad params
    (5, "$", "a JSON-RPC message object", -32600),
    ({"method": "session/cancel"}, "$.jsonrpc", '"2.0"', -32600),
    ({"jsonrpc": "1.0", "method": "x"}, "$.jsonrpc", '"2.0"', -32600),
    (
        {"jsonrpc": "2.0", "id": {}, "method": "x"},
        "$.id",
        "request id (string, integer or null)",
        -32600,
    ),
    (
        {"jsonrpc": "2.0", "id": True, "method": "x"},
        "$.id",
        "request id (string, integer or null)",
        -32600,
    ),
    ({"jsonrpc": "2.0", "method": 5}, "$.method", "string", -32600),
    ({"jsonrpc": "2.0"}, "$", "a request, notification or response", -32600),
    ({"jsonrpc": "2.0", "id": 1}, "$", "`method`, `result` or `error`", -32600),
    ([], "$", "a non-empty batch", -32600),
    (
        {"jsonrpc": "2.0", "method": "session/cancel"},
        "$.params",
        "object (CancelSessionNotification)",
        -32602,
    ),
    (
        {"jsonrpc": "2.0", "method": "session/cancel", "params": {}},
        "$.params.sessionId",
        "string (required)",
        -32602,
    ),
    (
        {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s", "update": 1}},
        "$.params.update",
        "object (SessionUpdate)",
        -32602,
    ),
    (
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": "s", "update": _CHUNK_BAD_TEXT},
        },
        "$.params.update.content.text",
        "string",
        -32602,
    ),
    (
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "session/prompt",
            "params": {"sessionId": "s", "prompt": [{"type": "text", "text": "hi"}, {}]},
        },
        "$.params.prompt[1].type",
        "string (variant tag)",
        -32602,
    ),
    (
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "session/request_permission",
            "params": {"sessionId": "s", "title": "t", "options": []},
        },
        "$.params.options",
        "non-empty array of object (PermissionOption)",
        -32602,
    ),
    (
        {
            "jsonrpc": "2.0",
            "id": 1,
            "method": "session/request_permission",
            "params": {
                "sessionId": "s",
                "title": "t",
                "options": [_OPTION],
                "subject": {"type": "command", "cwd": "/"},
            },
        },
        "$.params.subject.command",
        "string (required)",
        -32602,
    ),
    (
        {"jsonrpc": "2.0", "method": "$/cancel_request", "params": {"requestId": 1.5}},
        "$.params.requestId",
        "request id (string, integer or null)",
        -32602,
    ),
    (
        {"jsonrpc": "2.0", "method": "_x/anything", "params": {"v": float("nan")}},
        "$.params.v",
        "a finite JSON number",
        -32602,
    ),
]


@pytest.mark.parametrize("strict", [False, True], ids=["lenient", "strict"])
@pytest.mark.parametrize(("wire", "path", "expected", "code"), MESSAGE_ERRORS)
def test_decode_message_names_the_path_expectation_and_code(
    wire: Any, path: str, expected: str, code: int, strict: bool
) -> None:
    with pytest.raises(acp.DecodeError) as info:
        acp.decode_message(wire, strict=strict)
    assert (info.value.path, info.value.expected, info.value.code) == (path, expected, code)


def test_message_diagnostics_carry_paths_from_the_message_root() -> None:
    wire = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {
            "sessionId": "s",
            "update": {"sessionUpdate": "tool_call_update", "toolCallId": "t", "kind": 3},
            "_meta": "x",
        },
    }
    decoded = acp.decode_message_diagnosed(wire)
    assert decoded.value == acp.UpdateSessionNotification("s", acp.ToolCallUpdate("t"))
    assert [(d.rule, d.path) for d in decoded.diagnostics] == [
        (_DEFAULT, "$.params.update.kind"),
        (_DEFAULT, "$.params._meta"),
    ]
    with pytest.raises(acp.DecodeError) as info:
        acp.decode_message(wire, strict=True)
    assert info.value.path == "$.params.update.kind"


def test_a_batch_entry_error_path_starts_with_its_index() -> None:
    good = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": "s"}}
    bad = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": "s", "update": _CHUNK_BAD_TEXT},
    }
    batch = acp.decode_message([good, bad])
    assert isinstance(batch, acp.Batch)
    invalid = batch.items[1]
    assert isinstance(invalid, acp.InvalidEntry)
    assert (invalid.path, invalid.expected, invalid.code) == (
        "$[1].params.update.content.text",
        "string",
        -32602,
    )


# -- results ---------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("wire", "path", "expected"),
    [
        ({"outcome": "selected"}, "$.outcome", "object (RequestPermissionOutcome)"),
        ({"outcome": {"outcome": "selected"}}, "$.outcome.optionId", "string (required)"),
        ({"outcome": {}}, "$.outcome.outcome", "string (variant tag)"),
        ({}, "$.outcome", "object (RequestPermissionOutcome) (required)"),
    ],
)
def test_a_malformed_permission_result_is_rejected(wire: Any, path: str, expected: str) -> None:
    with pytest.raises(acp.DecodeError) as info:
        acp.decode_permission_result(wire)
    assert (info.value.path, info.value.expected) == (path, expected)


def test_an_unknown_permission_outcome_is_kept_not_read_as_a_choice() -> None:
    result = acp.decode_permission_result({"outcome": {"outcome": "_deferred", "until": 3}})
    assert result.outcome == acp.OtherPermissionOutcome(
        immutables.Map({"outcome": "_deferred", "until": 3})
    )


@pytest.mark.parametrize("message_id", [5, None, ["m"]])
def test_a_prompt_result_message_id_must_be_a_string(message_id: Any) -> None:
    # The 2026-11 draft types messageId as a string; null is not "absent".
    for strict in (False, True):
        with pytest.raises(acp.DecodeError) as info:
            acp.decode_prompt_result({"messageId": message_id}, strict=strict)
        assert (info.value.path, info.value.expected) == ("$.messageId", "string")


def test_a_prompt_result_tolerates_a_malformed_meta_only_in_lenient_mode() -> None:
    assert acp.decode_prompt_result({"_meta": 5}) == acp.PromptResult()
    with pytest.raises(acp.DecodeError):
        acp.decode_prompt_result({"_meta": 5}, strict=True)
