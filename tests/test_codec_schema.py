"""What acp-core encodes, the official stable v2 schema accepts.

Every value `acp_core.strategies` draws is encoded and validated with `jsonschema` (Draft
2020-12) against the schema definition of its wire shape: `session/update` params against
`UpdateSessionNotification`, prompt and permission requests against their params, results
against their response types. The doc examples' session updates validate too, before and after
a decode/encode round trip. Plan types `file`/`markdown` (tolerated, digest Q9) are never drawn
here: the stable schema rejects them, as the last tests pin down.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest
from hypothesis import given
from jsonschema import Draft202012Validator, ValidationError

import acp_core as acp
from acp_core import strategies as acps

Validate = Callable[[str, Any], None]


@pytest.fixture(scope="module")
def validate(spec_schema: dict[str, Any]) -> Validate:
    """`validate(definition, instance)`: raise ValidationError unless the instance matches."""
    cache: dict[str, Draft202012Validator] = {}

    def check(definition: str, instance: Any) -> None:
        validator = cache.get(definition)
        if validator is None:
            assert definition in spec_schema["$defs"], definition
            validator = Draft202012Validator(
                {"$defs": spec_schema["$defs"], "$ref": f"#/$defs/{definition}"}
            )
            cache[definition] = validator
        validator.validate(instance)

    return check


# -- values drawn by the strategies ------------------------------------------------------


# The stable schema is 2026-08's: each strategy draws what that revision has (no update kind,
# field or message a later revision brings).
_STABLE = acp.V2_2026_08


@given(acps.update_session_notifications(revision=_STABLE))
def test_every_encoded_update_is_valid_session_update_params(
    validate: Validate, notification: acp.UpdateSessionNotification
) -> None:
    wire = acp.encode_message(notification, revision=_STABLE)
    assert wire["method"] == "session/update"
    validate("UpdateSessionNotification", wire["params"])


@given(acps.request_permission_requests(revision=_STABLE))
def test_every_encoded_permission_request_is_valid(
    validate: Validate, request: acp.RequestPermissionRequest
) -> None:
    wire = acp.encode_message(request, revision=_STABLE)
    assert wire["method"] == "session/request_permission"
    validate("RequestPermissionRequest", wire["params"])
    validate("RequestId", wire["id"])


@given(acps.prompt_requests(revision=_STABLE))
def test_every_encoded_prompt_request_is_valid(
    validate: Validate, request: acp.PromptRequest
) -> None:
    wire = acp.encode_message(request, revision=_STABLE)
    assert wire["method"] == "session/prompt"
    validate("PromptRequest", wire["params"])
    validate("RequestId", wire["id"])


@given(acps.cancel_session_notifications() | acps.cancel_request_notifications())
def test_every_encoded_cancellation_is_valid(
    validate: Validate, message: acp.CancelSessionNotification | acp.CancelRequestNotification
) -> None:
    wire = acp.encode_message(message)
    definition = (
        "CancelSessionNotification"
        if isinstance(message, acp.CancelSessionNotification)
        else "CancelRequestNotification"
    )
    validate(definition, wire["params"])


@given(acps.request_permission_results())
def test_every_encoded_permission_result_is_valid(
    validate: Validate, result: acp.RequestPermissionResult
) -> None:
    validate("RequestPermissionResponse", acp.encode_result(result))


@given(acps.prompt_results())
def test_every_encoded_prompt_result_is_valid(validate: Validate, result: acp.PromptResult) -> None:
    validate("PromptResponse", acp.encode_result(result))


@given(acps.error_responses())
def test_every_encoded_error_is_valid(validate: Validate, response: acp.ErrorResponse) -> None:
    wire = acp.encode_message(response)
    validate("Error", wire["error"])
    validate("RequestId", wire["id"])


# -- the doc examples --------------------------------------------------------------------


def test_every_doc_example_update_is_valid_before_and_after_a_round_trip(
    validate: Validate, doc_examples: list[dict[str, Any]]
) -> None:
    checked = 0
    for example in doc_examples:
        wire = example["message"]
        if wire.get("method") == "session/update":
            params = wire["params"]
            validate("UpdateSessionNotification", params)
            message = acp.decode_message(wire, strict=True)
            validate("UpdateSessionNotification", acp.encode_message(message)["params"])
            checked += 1
        elif "sessionUpdate" in wire:
            validate("SessionUpdate", wire)
            validate("SessionUpdate", acp.encode_update(acp.decode_update(wire, strict=True)))
            checked += 1
    assert checked >= 20


# -- the validator is not vacuous ------------------------------------------------------


@pytest.mark.parametrize(
    ("definition", "instance"),
    [
        pytest.param(
            "UpdateSessionNotification",
            {"sessionId": "s", "update": {"sessionUpdate": "usage_update", "used": -1, "size": 0}},
            id="negative-usage",
        ),
        pytest.param(
            "UpdateSessionNotification",
            {
                "sessionId": "s",
                "update": {
                    "sessionUpdate": "usage_update",
                    "used": 1,
                    "size": 2,
                    "cost": {"amount": 1.0, "currency": "usd"},
                },
            },
            id="lower-case-currency",
        ),
        pytest.param(
            "RequestPermissionRequest",
            {"sessionId": "s", "title": "t", "options": []},
            id="no-permission-options",
        ),
        pytest.param(
            "SessionUpdate",
            {"sessionUpdate": "agent_message_chunk", "messageId": "m"},
            id="known-tag-without-payload",
        ),
    ],
)
def test_the_schema_rejects_what_the_codec_rejects(
    validate: Validate, definition: str, instance: Any
) -> None:
    with pytest.raises(ValidationError):
        validate(definition, instance)


@pytest.mark.parametrize("plan_type", ["file", "markdown"])
def test_reserved_plan_types_are_tolerated_by_the_codec_but_not_by_the_stable_schema(
    validate: Validate, plan_type: str
) -> None:
    wire = {"sessionUpdate": "plan_update", "plan": {"type": plan_type, "planId": "p1"}}
    update = acp.decode_update(wire, strict=True, revision=acp.V2_2026_08)  # the stable one
    assert isinstance(update, acp.PlanUpdate)
    assert isinstance(update.plan, acp.OtherPlan)
    assert acp.encode_update(update) == wire
    with pytest.raises(ValidationError):
        validate("SessionUpdate", wire)
