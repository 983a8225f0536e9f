"""The intents of the 2026-11 draft and the v2 Preview, checked and frozen at construction.

Owns: the agent intents `SendUpdate` (any session update, on the agent's own session or on an
announced child's: R47, R49) and `ReportBackground` (the background-work list, R74); the
client intents `CancelChild` (C35), `CancelToolCall` / `CancelTerminal` (C41) and
`RetryPrompt` (C42, C45); and the unions `AgentIntent` / `ClientIntent` of every intent, the
2026-08 ones included (what `step` takes).
Must not know: how they become wire messages or when they are legal (the engines and the
conversation machine decide that); which revision an engine speaks (values are checked at
the latest revision here, the engine refuses what its revision lacks).

Checked and frozen like every intent (`_engines/_intent_checks.py`): a mistyped field is a
`LocalProtocolError` E0 naming it; an update or background item goes through the codec at the
latest revision, so what the intent keeps is exactly what the wire would carry.
"""

from __future__ import annotations

from typing import Any, Final, TypeAlias, get_args

from acp_core._wire._updates import RunningStateUpdate, SessionUpdate
from acp_core._wire._updates_2026_11 import BackgroundWork
from acp_core._wire._value import frozen

from . import _intents
from ._intent_checks import (
    _Checked,
    _f,
    _instance,
    _or_none,
    _request_id,
    _str,
    _tuple_of,
    _wire_valid,
)

__all__ = [
    "AgentIntent",
    "CancelChild",
    "CancelTerminal",
    "CancelToolCall",
    "ClientIntent",
    "ReportBackground",
    "RetryPrompt",
    "SendUpdate",
]

_update: Final = _wire_valid("SessionUpdate", _instance(*get_args(SessionUpdate)), latest=True)
_background_kind: Final = _instance(*get_args(BackgroundWork))


def _background_item(value: Any, where: str) -> BackgroundWork:
    # A background item is no codec part of its own: it travels inside a state update's
    # `background` list, so it is checked there (like a plan entry inside its plan).
    value = _background_kind(value, where)
    carrier = _update(RunningStateUpdate(background=(value,)), where)
    item: BackgroundWork = carrier.background[0]
    return item


_background_items: Final = _tuple_of(_background_item)


# -- agent intents -----------------------------------------------------------------------


@frozen
class SendUpdate(_Checked):
    """Report any session update (`session/update`), Preview variants included.

    `session_id` names an announced child (R47, R49); None: the agent's own session. A
    `SubagentUpdate` announces a child on the session it is sent on (its parent) or patches
    it; a child's own messages, tool calls, terminals, plans and state go on the child's id.
    The agent's own foreground state stays with `StartWork` / `EndTurn` (E1)."""

    update: SessionUpdate = _f(_update)
    session_id: str | None = _f(_or_none(_str), None)


@frozen
class ReportBackground(_Checked):
    """Report the background-work list (2026-11 on), sent now as a state snapshot and then
    on every `state_update` of the session (R74). Each item is reported (terminal, tool call)
    or announced (child) before it is listed; an item leaves the list only once final
    (terminal exited, tool call finished, child idle)."""

    items: tuple[BackgroundWork, ...] = _f(_background_items)


# -- client intents ----------------------------------------------------------------------


@frozen
class CancelChild(_Checked):
    """Send `session/cancel` for a child session, only while the child advertises
    `capabilities.cancel` (C35; else `LocalProtocolError` C29)."""

    session_id: str = _f(_str)


@frozen
class CancelToolCall(_Checked):
    """Send `tool_call/cancel`, only while the call advertises `capabilities.cancel` (C41).
    `session_id` names a child's call (None: the client's session)."""

    tool_call_id: str = _f(_str)
    session_id: str | None = _f(_or_none(_str), None)
    request_id: int | str | None = _f(_request_id, None)


@frozen
class CancelTerminal(_Checked):
    """Send `terminal/cancel`, only while the terminal advertises `capabilities.cancel` (C41).
    `session_id` names a child's terminal (None: the client's session)."""

    terminal_id: str = _f(_str)
    session_id: str | None = _f(_or_none(_str), None)
    request_id: int | str | None = _f(_request_id, None)


@frozen
class RetryPrompt(_Checked):
    """Send the prompt `original` (its request id) again, with its content and its
    `idempotencyKey` (C42, C45); a prompt sent without a key is never retried (C45)."""

    original: int | str | None = _f(_request_id)
    request_id: int | str | None = _f(_request_id, None)


#: Every preview intent class, by side (the engines' tables and the tests read these).
AGENT_PREVIEW_INTENTS: Final = (SendUpdate, ReportBackground)
CLIENT_PREVIEW_INTENTS: Final = (CancelChild, CancelToolCall, CancelTerminal, RetryPrompt)

#: Everything the agent engine steps with (`step(AgentEngine, AgentIntent)`), the 2026-11
#: and Preview intents included.
AgentIntent: TypeAlias = _intents.AgentIntent | SendUpdate | ReportBackground

#: Everything the client engine steps with (`step(ClientEngine, ClientIntent)`).
ClientIntent: TypeAlias = (
    _intents.ClientIntent | CancelChild | CancelToolCall | CancelTerminal | RetryPrompt
)
