"""The host intents of a client connection: what the application asks the connection to send.

Owns: `Initialize`, `NewSession`, `ResumeSession`, `CloseSession`, `SetConfigOption`,
`SendRequest`, `SendNotification`, `CancelRequest` (frozen values).
Must not know: the connection's state or what an intent sends
(`_engines/_connection_client_state.py`).
"""

from __future__ import annotations

import attrs

from acp_core._wire._json import UNSET, JsonValue, Unset
from acp_core._wire._jsonrpc import PromptRequest
from acp_core._wire._value import frozen

__all__ = [
    "CancelRequest",
    "CloseSession",
    "Initialize",
    "NewSession",
    "ResumeSession",
    "SendNotification",
    "SendRequest",
    "SetConfigOption",
]


def _prompts(value: object) -> tuple[PromptRequest, ...]:
    return tuple(value)  # type: ignore[arg-type]


@frozen
class Initialize:
    """Send `initialize` (protocol version 2, this client's info and capabilities)."""

    request_id: int | str | None = None


@frozen
class NewSession:
    """Send `session/new` for `cwd` (absolute)."""

    cwd: str
    request_id: int | str | None = None


@frozen
class ResumeSession:
    """Send `session/resume`; with `replay` the agent replays the whole history first
    (`replayFrom: {"type": "start"}`) into a fresh view of the session.

    `unanswered`: after a lost connection, the keyed prompts it left unanswered
    (`old_connection.engine(session_id).unanswered`); the session records them, and
    `RetryPrompt(their id)` sends each again with its key once the resume is answered (C45)."""

    session_id: str
    cwd: str
    replay: bool = False
    request_id: int | str | None = None
    unanswered: tuple[PromptRequest, ...] = attrs.field(default=(), converter=_prompts)


@frozen
class CloseSession:
    """Send `session/close`; the session is forgotten once answered (`-32002` too)."""

    session_id: str
    request_id: int | str | None = None


@frozen
class SetConfigOption:
    """Send `session/set_config_option` (`type` `boolean` for a bool value, else `id`)."""

    session_id: str
    config_id: str
    value: str | bool
    request_id: int | str | None = None


@frozen
class SendRequest:
    """Send any other request (`session/list`, `session/delete`, `session/fork`, `_x`...);
    its answer comes back as a `RequestAnswered` event. The protocol machine judges it
    first, as the checker would: a notification's method (`session/cancel`) or the agent's
    (`session/request_permission`) is refused (`LocalProtocolError("J2")`)."""

    method: str
    params: JsonValue | Unset = UNSET
    request_id: int | str | None = None


@frozen
class SendNotification:
    """Send a notification (an extension's, typically). The protocol machine judges it
    first, as the checker would: a request's method (`session/prompt`) or the agent's
    (`session/update`) is refused (`LocalProtocolError("J2")`)."""

    method: str
    params: JsonValue | Unset = UNSET


@frozen
class CancelRequest:
    """Withdraw a pending request of ours with `$/cancel_request` (it is still answered)."""

    request_id: int | str | None
