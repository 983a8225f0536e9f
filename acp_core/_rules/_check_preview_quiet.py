"""The quiet paths of the connection-wide judge: which messages reach no rule of it, and
which reach only the tool call records.

Owns: `quiet` (a decoded message), `quiet_session` and `quiet_update` (its two halves, which
the client connection asks once per run and once per update class), `QUIET_UPDATES`, and
`quiet_wire` (a message still in its JSON form). Each says true only where
`_rules/_check_preview.observe_connection` would leave the `PreviewState` as it is and find
nothing; `observe_connection` asks `quiet` first. And `only_tool`: a tool call update whose
whole judgement is its tool call's record (`_check_preview_updates.recorded_tool`, R81), so
`observe_connection` edits that one field instead of the whole state (a tool call's first
sight and its finish: most tool traffic the quiet path cannot take).
tests/test_check_preview_quiet.py holds both paths against the full one.
Must not know: what any rule says (the rule modules `_check_preview_*.py` decide them), which
side it runs on beyond the sender it is given, files.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final, Protocol

from acp_core._wire import _jsonrpc as j
from acp_core._wire import _updates as u
from acp_core._wire._content import SessionReference
from acp_core._wire._json import UNSET

from ._check_preview_cancels import Cancels
from ._check_preview_records import Tool
from ._recent import Recent


class PreviewState(Protocol):
    """What the quiet path reads of `_rules/_check_preview.PreviewState` (a structural view,
    so this module does not import the judge that imports it)."""

    @property
    def named(self) -> Recent[str, bool]: ...
    @property
    def fresh(self) -> Mapping[str, bool]: ...
    @property
    def parents(self) -> Mapping[str, str]: ...
    @property
    def replaying(self) -> Mapping[str, object]: ...
    @property
    def tools(self) -> Mapping[tuple[str, str], Tool]: ...
    @property
    def background(self) -> Mapping[str, object]: ...
    @property
    def resumes(self) -> object: ...
    @property
    def cancelled(self) -> object: ...
    @property
    def cancels(self) -> Cancels: ...

__all__ = ["QUIET_UPDATES", "only_tool", "quiet", "quiet_session", "quiet_update", "quiet_wire"]

#: Updates that change nothing here on a top-level session outside a replay window: the
#: agent's own text streams (the bulk of every connection's traffic), and the updates
#: `on_update` has no branch for that name no session (`session_names`: no `background`,
#: content or envelope ids), so only its replay window (outside the quiet path) reads them.
_QUIET_UPDATES: Final = (
    u.AgentMessageChunk,
    u.AgentThoughtChunk,
    u.UsageUpdate,
    u.PlanUpdate,
    u.SessionInfoUpdate,
    u.AvailableCommandsUpdate,
)


def quiet(state: PreviewState, sender: str, message: object) -> bool:
    """Whether `observe_connection` would leave `state` as it is and find nothing."""
    # The quiet path: an agent chunk on a session the connection named, that is nobody's
    # child and not replaying, reaches no rule of this module (no session refs, no book
    # entry, no child output, no window), so the state stays as it is and nothing is found.
    # So does a tool content chunk that names no session, and a patch of a tool call already
    # recorded that leaves its record as it is (`_quiet_tool`).
    if sender != "agent" or type(message) is not j.UpdateSessionNotification:
        return False
    sid = message.session_id
    return quiet_session(state, sid) and quiet_update(state, sid, message.update)


def quiet_session(state: PreviewState, sid: str) -> bool:
    """The part of `quiet` that reads no update: whether an agent's update of session `sid`
    can be quiet at all (a session the connection named, nobody's child, not replaying)."""
    named = state.named  # (its two generations read here: no method call on the hot path)
    return (
        (sid in state.fresh or sid in named.young or sid in named.old)
        and sid not in state.parents
        and sid not in state.replaying
    )


def quiet_update(state: PreviewState, sid: str, upd: object) -> bool:
    """The rest of `quiet` for an agent's update `upd` of session `sid` where `quiet_session`
    holds; true for every update of a class in `QUIET_UPDATES` (a caller may skip the call)."""
    if type(upd) in _QUIET_UPDATES:
        return True
    if type(upd) is u.ToolCallContentChunk:
        return type(upd.content) is not SessionReference
    if type(upd) is u.RunningStateUpdate or type(upd) is u.IdleStateUpdate:
        return _quiet_state(state, sid, upd)
    return type(upd) is u.ToolCallUpdate and _quiet_tool(state, sid, upd)


def _quiet_state(
    state: PreviewState, sid: str, upd: u.RunningStateUpdate | u.IdleStateUpdate
) -> bool:
    # `_check_preview_updates._state` changes nothing and reports nothing (the session is
    # nobody's child, `quiet_session`): no cancel window open (R73), no resume to serve
    # (R62), for an idle no permission pending since a cancel (R71) and no elicitation
    # (R72), and no background list where the session already showed none (R74).
    if state.cancels.windows or state.resumes:
        return False
    if type(upd) is u.IdleStateUpdate and (state.cancelled or state.cancels.elicitations):
        return False
    if isinstance(getattr(upd, "background", UNSET), tuple):
        return False
    return sid in state.background and state.background[sid] is None


def only_tool(state: PreviewState, sender: str, message: object) -> bool:
    """Whether `message` is an agent's tool call update that reaches no rule of the judge
    but its tool call's record: on a session `quiet_session` holds for (known, nobody's
    child, not replaying: so its envelope is no R47/R76 use and no replay window reads it),
    no cancel window open on it (R73), and no content that names a session (R47's
    bookkeeping). Quiet or not: `quiet` is asked first."""
    if sender != "agent" or type(message) is not j.UpdateSessionNotification:
        return False
    upd = message.update
    if type(upd) is not u.ToolCallUpdate:
        return False
    sid = message.session_id
    if sid in state.cancels.windows or not quiet_session(state, sid):
        return False
    content = upd.content
    return not isinstance(content, tuple) or not any(
        type(item) is SessionReference for item in content
    )


#: The update classes `quiet_update` finds quiet whatever they hold.
QUIET_UPDATES: Final = frozenset(_QUIET_UPDATES)


def _quiet_tool(state: PreviewState, sid: str, upd: u.ToolCallUpdate) -> bool:
    # `_check_preview_updates._tool` keeps the record as it is and reports nothing (no
    # capabilities, no name, no status that finishes an unfinished call), no cancel window
    # is open on the session (R73), and no content names a session (R47's bookkeeping).
    if (
        upd.content is not UNSET
        or upd.capabilities is not UNSET
        or upd.name is not UNSET
        or sid in state.cancels.windows
    ):
        return False
    tool = state.tools.get((sid, upd.tool_call_id))
    if tool is None:
        return False
    status = upd.status
    return tool.final or not (isinstance(status, str) and status in u.ToolCallStatus.TERMINAL)


def quiet_wire(state: PreviewState, sender: str, wire: Mapping[str, Any]) -> bool:
    """`quiet` for a message still in its JSON form (an agent connection's outbound): true
    only where decoding it and calling `quiet` would be."""
    if sender != "agent" or wire.get("method") != j.Method.SESSION_UPDATE or "id" in wire:
        return False
    params = wire.get("params")
    update = params.get("update") if isinstance(params, Mapping) else None
    if not isinstance(update, Mapping):
        return False
    sid = params.get("sessionId")  # type: ignore[union-attr]
    return (
        update.get("sessionUpdate") in _QUIET_TAGS
        and isinstance(sid, str)
        and (sid in state.fresh or sid in state.named.young or sid in state.named.old)
        and sid not in state.parents
        and sid not in state.replaying
    )


_QUIET_TAGS: Final = ("agent_message_chunk", "agent_thought_chunk")
