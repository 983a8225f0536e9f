"""Hypothesis strategies: permission values, results and JSON-RPC messages.

Owns: strategies for `_wire/_jsonrpc.py` values, drawn so that a revision's message
strategies give exactly the typed messages that revision decodes (the codec's own table of
typed messages, `_wire/_codec_tables.TYPED_METHODS`: a class belongs to the revisions whose
lineage holds its `__wire_since__`) and leave every other method to the generic `Request` /
`Notification`.
Must not know: nothing beyond the values it draws. Public surface: `acp_core.strategies`.
"""

from __future__ import annotations

import functools
from typing import Any, Final, TypeVar

import attrs

from acp_core._wire import _jsonrpc as j
from acp_core._wire._codec import encode_message
from acp_core._wire._codec_tables import TYPED_METHODS
from acp_core._wire._fields import WIRE, since_of
from acp_core._wire._json import UNSET, JsonValue, Unset
from acp_core._wire._revision import DEFAULT_REVISION, Revision

from ._strategies_base import (
    _KEY_ALPHABET,
    _PERMISSION_KINDS,
    _bounded_texts,
    _ids,
    _int64,
    _paths,
    _raw_objects,
    _since,
    _texts,
    _tuples,
    built_once,
    extras,
    json_objects,
    json_values,
    metas,
    open_enum_values,
    patches,
    unknown_tags,
)
from ._strategies_content import (
    content_blocks,
)
from ._strategies_states import rpc_errors
from ._strategies_updates import (
    _tool_call_ids,
    session_updates,
    tool_call_updates,
)

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hypothesis import strategies as st
else:
    from ._hypothesis import st  # hypothesis is imported when a strategy is first built

T = TypeVar("T")

# -- permission values and results -------------------------------------------------------


def permission_options() -> st.SearchStrategy[j.PermissionOption]:
    """Choices of a permission prompt."""
    return st.builds(
        j.PermissionOption,
        option_id=_ids(),
        name=_texts(),
        kind=open_enum_values(_PERMISSION_KINDS),
        meta=metas(),
        extra=extras(),
    )


def tool_call_permission_subjects(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[j.ToolCallPermissionSubject]:
    """`{"type": "tool_call"}` permission subjects (the tool call as `revision` has it)."""
    return st.builds(
        j.ToolCallPermissionSubject,
        tool_call=tool_call_updates(revision=revision),
        extra=extras(),
    )


def command_permission_subjects() -> st.SearchStrategy[j.CommandPermissionSubject]:
    """`{"type": "command"}` permission subjects."""
    return st.builds(
        j.CommandPermissionSubject,
        command=_texts(),
        cwd=_paths(),
        tool_call_id=patches(_ids()),
        terminal_id=patches(_ids()),
        meta=metas(),
        extra=extras(),
    )


def other_permission_subjects() -> st.SearchStrategy[j.OtherPermissionSubject]:
    """Permission subjects of unknown `type`."""
    return st.builds(
        j.OtherPermissionSubject, _raw_objects("type", unknown_tags(("tool_call", "command")))
    )


def permission_subjects(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[j.PermissionSubject]:
    """Any permission subject of `revision`."""
    return st.one_of(
        tool_call_permission_subjects(revision=revision),
        command_permission_subjects(),
        other_permission_subjects(),
    )


def selected_outcomes() -> st.SearchStrategy[j.SelectedOutcome]:
    """`{"outcome": "selected"}`."""
    return st.builds(j.SelectedOutcome, option_id=_ids(), meta=metas(), extra=extras())


def cancelled_outcomes() -> st.SearchStrategy[j.CancelledOutcome]:
    """`{"outcome": "cancelled"}`."""
    return st.builds(j.CancelledOutcome, extra=extras())


def other_permission_outcomes() -> st.SearchStrategy[j.OtherPermissionOutcome]:
    """Outcomes this library does not know."""
    return st.builds(
        j.OtherPermissionOutcome, _raw_objects("outcome", unknown_tags(("selected", "cancelled")))
    )


def permission_outcomes() -> st.SearchStrategy[j.PermissionOutcome]:
    """Any permission outcome."""
    return st.one_of(selected_outcomes(), cancelled_outcomes(), other_permission_outcomes())


def request_permission_results() -> st.SearchStrategy[j.RequestPermissionResult]:
    """Results of `session/request_permission`."""
    return st.builds(
        j.RequestPermissionResult, outcome=permission_outcomes(), meta=metas(), extra=extras()
    )


def prompt_results() -> st.SearchStrategy[j.PromptResult]:
    """Results of `session/prompt` (`messageId` absent, as in 2026-08, or a string)."""
    message_ids: st.SearchStrategy[str | Unset] = st.just(UNSET) | _ids()
    return st.builds(j.PromptResult, message_id=message_ids, meta=metas(), extra=extras())


# -- messages ----------------------------------------------------------------------------


def request_ids() -> st.SearchStrategy[int | str | None]:
    """JSON-RPC ids: int64 integers, strings or null."""
    return st.one_of(_int64(), _ids(), st.none())


@built_once
def update_session_notifications(
    *, tolerated: bool = False, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[j.UpdateSessionNotification]:
    """`session/update` notifications carrying any update of `revision` (`session_updates`;
    see `other_plans` for `tolerated`)."""
    return st.builds(
        j.UpdateSessionNotification,
        session_id=_ids(),
        update=session_updates(tolerated=tolerated, revision=revision),
        meta=metas(),
        extra=extras(),
        envelope_extra=extras(),
    )


@built_once
def prompt_requests(*, revision: Revision = DEFAULT_REVISION) -> st.SearchStrategy[j.PromptRequest]:
    """`session/prompt` requests (with or without a non-empty `idempotencyKey` where
    `revision` has it: the Preview on)."""
    # The schema bounds the key's length (1 to 255): both edges are drawn.
    length = attrs.fields_dict(j.PromptRequest)["idempotency_key"].metadata[WIRE].length
    keys = patches(_bounded_texts(*length))
    return st.builds(
        j.PromptRequest,
        id=request_ids(),
        session_id=_ids(),
        prompt=_tuples(content_blocks()),
        meta=metas(),
        idempotency_key=_since(j.PromptRequest, "idempotency_key", revision, keys),
        extra=extras(),
        envelope_extra=extras(),
    )


def cancel_tool_call_requests() -> st.SearchStrategy[j.CancelToolCallRequest]:
    """`tool_call/cancel` requests (2026-11 on; `messages` draws them only there)."""
    return st.builds(
        j.CancelToolCallRequest,
        id=request_ids(),
        session_id=_ids(),
        tool_call_id=_tool_call_ids(),
        meta=metas(),
        extra=extras(),
        envelope_extra=extras(),
    )


def cancel_terminal_requests() -> st.SearchStrategy[j.CancelTerminalRequest]:
    """`terminal/cancel` requests (2026-11 on; `messages` draws them only there)."""
    return st.builds(
        j.CancelTerminalRequest,
        id=request_ids(),
        session_id=_ids(),
        terminal_id=_tool_call_ids(),
        meta=metas(),
        extra=extras(),
        envelope_extra=extras(),
    )


def cancel_session_notifications() -> st.SearchStrategy[j.CancelSessionNotification]:
    """`session/cancel` notifications."""
    return st.builds(
        j.CancelSessionNotification,
        session_id=_ids(),
        meta=metas(),
        extra=extras(),
        envelope_extra=extras(),
    )


@built_once
def request_permission_requests(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[j.RequestPermissionRequest]:
    """`session/request_permission` requests (at least one option; a tool-call subject as
    `revision` has it)."""
    return st.builds(
        j.RequestPermissionRequest,
        id=request_ids(),
        session_id=_ids(),
        title=_texts(),
        options=_tuples(permission_options(), min_size=1),
        description=patches(_texts()),
        subject=patches(permission_subjects(revision=revision)),
        meta=metas(),
        extra=extras(),
        envelope_extra=extras(),
    )


def cancel_request_notifications() -> st.SearchStrategy[j.CancelRequestNotification]:
    """`$/cancel_request` notifications."""
    return st.builds(
        j.CancelRequestNotification,
        request_id=request_ids(),
        meta=metas(),
        extra=extras(),
        envelope_extra=extras(),
    )


# Every typed message and its method: the codec's own table (tests/test_strategies_messages.py
# fails when a class there has no strategy here). A revision draws a class when its lineage
# holds the class's `__wire_since__`; any other method is drawn as a generic `Request` /
# `Notification`, as that revision decodes it.
_TYPED_MESSAGES: Final = TYPED_METHODS


def _typed_methods(revision: Revision, *, with_id: bool) -> frozenset[str]:
    """The methods `revision` decodes into a typed request (`with_id`) or notification."""
    return frozenset(
        method
        for cls, method in _TYPED_MESSAGES
        if revision.includes(since_of(cls)) and ("id" in attrs.fields_dict(cls)) == with_id
    )


@functools.cache
def _other_methods() -> st.SearchStrategy[str]:
    return st.sampled_from(
        (
            "initialize",
            "session/new",
            "session/load",
            "fs/read_text_file",
            "session/set_config_option",
            # typed from 2026-11 on, generic before (drawn where the revision has no class)
            j.Method.TOOL_CALL_CANCEL,
            j.Method.TERMINAL_CANCEL,
        )
    ) | st.text(_KEY_ALPHABET, max_size=8).map(lambda s: "_x/" + s)


def _params() -> st.SearchStrategy[JsonValue | Unset]:
    absent: st.SearchStrategy[JsonValue | Unset] = st.just(UNSET)
    return st.one_of(absent, st.none(), json_objects())


@built_once
def requests(*, revision: Revision = DEFAULT_REVISION) -> st.SearchStrategy[j.Request]:
    """Requests of methods `revision` has no typed message for, params kept verbatim."""
    typed = _typed_methods(revision, with_id=True)
    return st.builds(
        j.Request,
        id=request_ids(),
        method=_other_methods().filter(lambda m: m not in typed),
        params=_params(),
        envelope_extra=extras(),
    )


@built_once
def notifications(*, revision: Revision = DEFAULT_REVISION) -> st.SearchStrategy[j.Notification]:
    """Notifications of methods `revision` has no typed message for, params kept verbatim."""
    typed = _typed_methods(revision, with_id=False)
    return st.builds(
        j.Notification,
        method=_other_methods().filter(lambda m: m not in typed),
        params=_params(),
        envelope_extra=extras(),
    )


def responses() -> st.SearchStrategy[j.Response]:
    """Success responses with a raw JSON `result`."""
    return st.builds(j.Response, id=request_ids(), result=json_values(), envelope_extra=extras())


def error_responses() -> st.SearchStrategy[j.ErrorResponse]:
    """Error responses."""
    return st.builds(j.ErrorResponse, id=request_ids(), error=rpc_errors(), envelope_extra=extras())


@built_once
def messages(
    *, tolerated: bool = False, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[j.Message]:
    """Any single JSON-RPC message of `revision`, typed or generic: every typed message it
    decodes (the item cancels `tool_call/cancel` and `terminal/cancel` from 2026-11 on), each
    with the fields and variants it has, and generic requests, notifications, responses and
    errors; what `decode_message(encode_message(m, revision=revision), revision=revision)`
    gives back unchanged (see `other_plans` for `tolerated`)."""
    typed: dict[type[Any], st.SearchStrategy[Any]] = {
        j.UpdateSessionNotification: update_session_notifications(
            tolerated=tolerated, revision=revision
        ),
        j.PromptRequest: prompt_requests(revision=revision),
        j.CancelSessionNotification: cancel_session_notifications(),
        j.RequestPermissionRequest: request_permission_requests(revision=revision),
        j.CancelRequestNotification: cancel_request_notifications(),
        j.CancelToolCallRequest: cancel_tool_call_requests(),
        j.CancelTerminalRequest: cancel_terminal_requests(),
    }
    return st.one_of(
        *(typed[cls] for cls, _ in _TYPED_MESSAGES if revision.includes(since_of(cls))),
        requests(revision=revision),
        notifications(revision=revision),
        responses(),
        error_responses(),
    )


def wire_messages(
    *, tolerated: bool = False, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[dict[str, Any]]:
    """Encoded messages: fresh JSON-RPC wire dicts, as `revision` keys them."""
    encoded: st.SearchStrategy[dict[str, Any]] = messages(
        tolerated=tolerated, revision=revision
    ).map(lambda message: encode_message(message, revision=revision))
    return encoded
