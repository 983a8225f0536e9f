"""The foreground state reports (`state_update`), one frozen value type per state, and their union.

Owns: `RunningStateUpdate`, `IdleStateUpdate`, `RequiresActionStateUpdate`, the Preview's
`UnknownStateUpdate` (`state: "unknown"`), `OtherStateUpdate` (a state this library does
not know) and `StateUpdate`, their union. A module of its own because two surfaces carry a
state report: a session's own `state_update` (`_wire/_updates.SessionUpdate`) and, at the
Preview, a child's mirrored state inside `subagent_update` (`_wire/_updates_preview.
SubagentUpdate.state`); both import it, it imports neither.
Must not know: decoding (`_codec*.py`), what a state means to a session (`_state/_reduce.py`,
`_rules/_conversation.py`), JSON-RPC beyond the `error` value an idle carries
(`_wire/_jsonrpc_error.py`).
"""

from __future__ import annotations

from typing import TypeAlias

import attrs

from ._fields import PREVIEW_NAME, wire, wire_tag
from ._freezing import freezing_fields
from ._json import EMPTY_OBJECT, UNSET, JsonObject, Meta, Patch
from ._jsonrpc_error import RpcError
from ._updates_2026_11 import BackgroundWork
from ._value import frozen

__all__ = [
    "IdleStateUpdate",
    "OtherStateUpdate",
    "RequiresActionStateUpdate",
    "RunningStateUpdate",
    "StateUpdate",
    "UnknownStateUpdate",
]


@frozen(field_transformer=freezing_fields)
class RunningStateUpdate:
    """`state_update` with `state: running`: foreground work is in progress."""

    __wire_tag__ = wire_tag(sessionUpdate="state_update", state="running")

    meta: Meta = UNSET
    #: The background-work snapshot (2026-11 on): None/absent = not reported, () = none.
    background: Patch[tuple[BackgroundWork, ...]] = attrs.field(
        default=UNSET, metadata=wire(since="2026-11")
    )
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class IdleStateUpdate:
    """`state_update` with `state: idle`; `stop_reason` says why work ended (if it did)."""

    __wire_tag__ = wire_tag(sessionUpdate="state_update", state="idle")

    stop_reason: Patch[str] = UNSET
    meta: Meta = UNSET
    #: The background-work snapshot (2026-11 on): None/absent = not reported, () = none.
    background: Patch[tuple[BackgroundWork, ...]] = attrs.field(
        default=UNSET, metadata=wire(since="2026-11")
    )
    #: The error of an `error` stop (2026-11 on; `ErrorStopReason.error`).
    error: Patch[RpcError] = attrs.field(default=UNSET, metadata=wire(since="2026-11"))
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class RequiresActionStateUpdate:
    """`state_update` with `state: requires_action`: work is blocked on the user."""

    __wire_tag__ = wire_tag(sessionUpdate="state_update", state="requires_action")

    meta: Meta = UNSET
    #: The background-work snapshot (2026-11 on): None/absent = not reported, () = none.
    background: Patch[tuple[BackgroundWork, ...]] = attrs.field(
        default=UNSET, metadata=wire(since="2026-11")
    )
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class UnknownStateUpdate:
    """`state_update` with `state: "unknown"`: foreground activity cannot be observed now.

    Not an outcome: it cancels and resolves nothing (R77); the last known state is kept (C48).
    """

    __wire_tag__ = wire_tag(sessionUpdate="state_update", state="unknown")
    __wire_since__ = PREVIEW_NAME

    background: Patch[tuple[BackgroundWork, ...]] = UNSET
    meta: Meta = UNSET
    extra: JsonObject = EMPTY_OBJECT


@frozen(field_transformer=freezing_fields)
class OtherStateUpdate:
    """`state_update` with a state this library does not know; `raw` is the whole update."""

    __wire_tag__ = wire_tag(sessionUpdate="state_update")

    raw: JsonObject

    @property
    def state(self) -> str:
        """The unknown `state` value."""
        tag = self.raw["state"]
        assert isinstance(tag, str)
        return tag


StateUpdate: TypeAlias = (
    RunningStateUpdate
    | IdleStateUpdate
    | RequiresActionStateUpdate
    | UnknownStateUpdate
    | OtherStateUpdate
)
