"""Hypothesis strategies: permission values, results and JSON-RPC messages.

Owns: strategies for `_wire/_jsonrpc.py` values.
Must not know: nothing beyond the values it draws. Public surface: `acp_core.strategies`.
"""

from __future__ import annotations

import functools
from typing import Any, TypeVar

from acp_core._wire import _jsonrpc as j
from acp_core._wire._codec import encode_message
from acp_core._wire._json import UNSET, JsonValue, Unset

from ._strategies_base import (
    _INT32_MAX,
    _INT32_MIN,
    _KEY_ALPHABET,
    _PERMISSION_KINDS,
    _TYPED_NOTIFICATIONS,
    _TYPED_REQUESTS,
    _ids,
    _int64,
    _paths,
    _raw_objects,
    _texts,
    _tuples,
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
from ._strategies_updates import (
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


def tool_call_permission_subjects() -> st.SearchStrategy[j.ToolCallPermissionSubject]:
    """`{"type": "tool_call"}` permission subjects."""
    return st.builds(j.ToolCallPermissionSubject, tool_call=tool_call_updates(), extra=extras())


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


def permission_subjects() -> st.SearchStrategy[j.PermissionSubject]:
    """Any permission subject."""
    return st.one_of(
        tool_call_permission_subjects(), command_permission_subjects(), other_permission_subjects()
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


def update_session_notifications(
    *, tolerated: bool = False
) -> st.SearchStrategy[j.UpdateSessionNotification]:
    """`session/update` notifications (see `other_plans` for `tolerated`)."""
    return st.builds(
        j.UpdateSessionNotification,
        session_id=_ids(),
        update=session_updates(tolerated=tolerated),
        meta=metas(),
        extra=extras(),
        envelope_extra=extras(),
    )


def prompt_requests() -> st.SearchStrategy[j.PromptRequest]:
    """`session/prompt` requests."""
    return st.builds(
        j.PromptRequest,
        id=request_ids(),
        session_id=_ids(),
        prompt=_tuples(content_blocks()),
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


def request_permission_requests() -> st.SearchStrategy[j.RequestPermissionRequest]:
    """`session/request_permission` requests (at least one option)."""
    return st.builds(
        j.RequestPermissionRequest,
        id=request_ids(),
        session_id=_ids(),
        title=_texts(),
        options=_tuples(permission_options(), min_size=1),
        description=patches(_texts()),
        subject=patches(permission_subjects()),
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


@functools.cache
def _other_methods() -> st.SearchStrategy[str]:
    return st.sampled_from(
        (
            "initialize",
            "session/new",
            "session/load",
            "fs/read_text_file",
            "session/set_config_option",
        )
    ) | st.text(_KEY_ALPHABET, max_size=8).map(lambda s: "_x/" + s)


def _params() -> st.SearchStrategy[JsonValue | Unset]:
    absent: st.SearchStrategy[JsonValue | Unset] = st.just(UNSET)
    return st.one_of(absent, st.none(), json_objects())


def requests() -> st.SearchStrategy[j.Request]:
    """Requests of methods without a typed message, params kept verbatim."""
    return st.builds(
        j.Request,
        id=request_ids(),
        method=_other_methods().filter(lambda m: m not in _TYPED_REQUESTS),
        params=_params(),
        envelope_extra=extras(),
    )


def notifications() -> st.SearchStrategy[j.Notification]:
    """Notifications of methods without a typed message, params kept verbatim."""
    return st.builds(
        j.Notification,
        method=_other_methods().filter(lambda m: m not in _TYPED_NOTIFICATIONS),
        params=_params(),
        envelope_extra=extras(),
    )


def responses() -> st.SearchStrategy[j.Response]:
    """Success responses with a raw JSON `result`."""
    return st.builds(j.Response, id=request_ids(), result=json_values(), envelope_extra=extras())


def rpc_errors() -> st.SearchStrategy[j.RpcError]:
    """`error` members (int32 codes, the named ones most often)."""
    codes = st.sampled_from(
        (
            j.ErrorCode.PARSE_ERROR,
            j.ErrorCode.INVALID_REQUEST,
            j.ErrorCode.METHOD_NOT_FOUND,
            j.ErrorCode.INVALID_PARAMS,
            j.ErrorCode.INTERNAL_ERROR,
            j.ErrorCode.REQUEST_CANCELLED,
            j.ErrorCode.AUTH_REQUIRED,
            j.ErrorCode.RESOURCE_NOT_FOUND,
        )
    ) | st.integers(_INT32_MIN, _INT32_MAX)
    data: st.SearchStrategy[JsonValue | Unset] = st.just(UNSET) | json_values()
    return st.builds(j.RpcError, code=codes, message=_texts(), data=data, extra=extras())


def error_responses() -> st.SearchStrategy[j.ErrorResponse]:
    """Error responses."""
    return st.builds(j.ErrorResponse, id=request_ids(), error=rpc_errors(), envelope_extra=extras())


def messages(*, tolerated: bool = False) -> st.SearchStrategy[j.Message]:
    """Any single JSON-RPC message of the prompt lifecycle, typed or generic."""
    return st.one_of(
        update_session_notifications(tolerated=tolerated),
        prompt_requests(),
        cancel_session_notifications(),
        request_permission_requests(),
        cancel_request_notifications(),
        requests(),
        notifications(),
        responses(),
        error_responses(),
    )


def wire_messages(*, tolerated: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    """Encoded messages: fresh JSON-RPC wire dicts."""
    encoded: st.SearchStrategy[dict[str, Any]] = messages(tolerated=tolerated).map(encode_message)
    return encoded
