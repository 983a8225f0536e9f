"""The records the agent engine keeps between steps: its turn and its permission requests.

Owns: `Turn` (the foreground work in progress), `PendingPermission` (a request the client has
not answered yet) and `PermissionDecision` (how one was answered): plain frozen values, the
leaf every agent step module may import; and, until 0.3, the deprecated reads of two facts
these records no longer hold (`Turn.cancel_requested`, `PendingPermission.foreground`: the
conversation machine holds both, `AgentEngine.cancel_requested` and `AgentEngine.blocks` read
them there) with `read_turn` and `read_pending`, which hand the machine's answer to them.
Must not know: how a step makes, reads or judges them (`_engines/_agent_turn.py`,
`_engines/_agent_permissions.py`), nor `AgentEngine`, which holds them (`_engines/_agent.py`),
nor the conversation machine (the caller passes its answer).
"""

from __future__ import annotations

import warnings
from collections.abc import Callable
from typing import Final

import attrs

from acp_core._wire._jsonrpc import PermissionOption
from acp_core._wire._value import frozen

__all__ = ["PendingPermission", "PermissionDecision", "Turn", "read_pending", "read_turn"]

_GONE: Final = (
    "{0}.{1} is deprecated: the conversation machine holds it, read {2} (the {3} goes in 0.3)"
)
_CANCEL_HOME: Final = "AgentEngine.cancel_requested"
_BLOCKS_HOME: Final = "AgentEngine.blocks(request_id)"


def _warn_gone(cls: str, name: str, home: str, what: str, *, stacklevel: int) -> None:
    # The one deprecation message of both records (`what`: the keyword, argument or property).
    warnings.warn(_GONE.format(cls, name, home, what), DeprecationWarning, stacklevel=stacklevel)


@frozen
class Turn:
    """The foreground work in progress.

    Attributes:
        prompt_id: id of the prompt that started it; None for agent-initiated work.
        prompt_driven: it was started by accepting a prompt (False: `StartWork`).
        user_message_id: id under which the user message was reported.

    Whether the client cancelled it is the conversation machine's: `AgentEngine.cancel_requested`.
    `cancel_requested` (the keyword and the property) is deprecated and goes in 0.3.
    """

    prompt_id: int | str | None
    prompt_driven: bool
    user_message_id: str | None
    # Deprecated (goes in 0.3): the `cancel_requested=` keyword's value, which no step reads,
    # and the machine's answer `AgentEngine.turn` hands the deprecated read (`read_turn`).
    # Neither is part of the value: no `==`, hash or repr sees them.
    _cancel_requested: bool | None = attrs.field(default=None, eq=False, hash=False, repr=False)
    _cancel_read: bool | None = attrs.field(
        default=None, init=False, eq=False, hash=False, repr=False
    )

    def __attrs_post_init__(self) -> None:
        if self._cancel_requested is not None:
            _warn_gone("Turn", "cancel_requested", _CANCEL_HOME, "keyword", stacklevel=4)

    @property
    def cancel_requested(self) -> bool:
        """Deprecated (goes in 0.3): read `AgentEngine.cancel_requested`, the machine's."""
        _warn_gone("Turn", "cancel_requested", _CANCEL_HOME, "property", stacklevel=3)
        read = self._cancel_read
        return bool(self._cancel_requested) if read is None else read


@frozen
class PendingPermission:
    """A permission request the client has not answered yet.

    Attributes:
        request_id: its JSON-RPC id.
        tool_call_id: the tool call it asks about, if any.
        options: the options it offered.
        session_id: the child whose request it is (Preview); None: the agent's own.

    Whether it blocks the current turn is the conversation machine's:
    `AgentEngine.blocks(request_id)`. `foreground` (the argument and the property) is
    deprecated and goes in 0.3.
    """

    request_id: int | str | None
    tool_call_id: str | None
    options: tuple[PermissionOption, ...]
    # Deprecated (goes in 0.3), as `Turn._cancel_requested` and `Turn._cancel_read` are.
    _foreground: bool | None = attrs.field(default=None, eq=False, hash=False, repr=False)
    session_id: str | None = None
    _foreground_read: bool | None = attrs.field(
        default=None, init=False, eq=False, hash=False, repr=False
    )

    def __attrs_post_init__(self) -> None:
        if self._foreground is not None:
            _warn_gone("PendingPermission", "foreground", _BLOCKS_HOME, "argument", stacklevel=4)

    @property
    def foreground(self) -> bool:
        """Deprecated (goes in 0.3): read `AgentEngine.blocks(request_id)`, the machine's."""
        _warn_gone("PendingPermission", "foreground", _BLOCKS_HOME, "property", stacklevel=3)
        read = self._foreground_read
        return bool(self._foreground) if read is None else read


@frozen
class PermissionDecision:
    """How a permission request was answered.

    Attributes:
        approved: True only for a selected option whose kind is `allow_*`.
        outcome: `selected`, `cancelled`, `error` or the unknown outcome's tag.
        option_id: the selected option, if any.
    """

    approved: bool
    outcome: str
    option_id: str | None = None


# -- the deprecated reads (go in 0.3 with the properties) -----------------------------------

# The slots' own descriptors: a frozen class refuses `setattr`.
_SET_CANCEL_READ: Final[Callable[[Turn, bool], None]] = vars(Turn)["_cancel_read"].__set__
_SET_FOREGROUND_READ: Final[Callable[[PendingPermission, bool], None]] = vars(PendingPermission)[
    "_foreground_read"
].__set__


def read_turn(turn: Turn, cancelled: bool) -> Turn:
    """`turn` as `AgentEngine.turn` hands it out: its deprecated `cancel_requested` reads
    `cancelled`, the machine's answer (the stored record itself when it already would)."""
    if cancelled is bool(turn._cancel_requested):
        return turn
    read = Turn(turn.prompt_id, turn.prompt_driven, turn.user_message_id)
    _SET_CANCEL_READ(read, cancelled)
    return read


def read_pending(request: PendingPermission, blocks: bool) -> PendingPermission:
    """`request` as `AgentEngine.pending` hands it out: its deprecated `foreground` reads
    `blocks`, the machine's answer (the stored record itself when it already would)."""
    if blocks is bool(request._foreground):
        return request
    read = PendingPermission(
        request.request_id, request.tool_call_id, request.options, session_id=request.session_id
    )
    _SET_FOREGROUND_READ(read, blocks)
    return read
