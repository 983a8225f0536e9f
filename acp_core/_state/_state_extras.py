"""Per-session view state the 2026-11 draft and the Preview added, as frozen values.

Owns: `SessionExtras` (compactions, live notices, prompt suggestions, inter-session messages,
the replay window) and its records `CompactionState`, `SessionMessageState`, `ReplayWindow`,
plus the replay phase names. `SessionAux.extras` holds one `SessionExtras`, so a session that
never sees these updates pays nothing for them.
Must not know: JSON, the codec, how updates change these records (`_state/_reduce_extras.py`,
`_state/_reduce_preview.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Final

import attrs

from acp_core._wire._content import ContentBlock
from acp_core._wire._json import JsonObject
from acp_core._wire._updates_2026_11 import CompactionStatus, Notice
from acp_core._wire._updates_preview import (
    PromptSuggestion,
    SessionCancelCapabilities,
    SubagentSessionCapabilities,
)
from acp_core._wire._value import frozen

from ._pcoll import EMPTY_VEC, PMap, PVec
from ._state_freezing import freezing_state_fields

if TYPE_CHECKING:
    from acp_core._wire._updates import StateUpdate

__all__ = [
    "COMPACTION",
    "NO_EXTRAS",
    "REPLAY_COMPLETE",
    "REPLAY_NONE",
    "REPLAY_REPLAYING",
    "REPLAY_TRUNCATED",
    "SESSION_MESSAGE",
    "ChildLink",
    "CompactionState",
    "ReplayWindow",
    "SessionExtras",
    "SessionMessageState",
]

#: Timeline entity kinds added by these records (beside `message`, `toolCall`, `plan`).
COMPACTION: Final = "compaction"
SESSION_MESSAGE: Final = "sessionMessage"

#: Replay phases of one session (Preview digest §3.4).
REPLAY_NONE: Final = "none"
REPLAY_REPLAYING: Final = "replaying"
REPLAY_COMPLETE: Final = "complete"
REPLAY_TRUNCATED: Final = "truncated"


@frozen(field_transformer=freezing_state_fields)
class CompactionState:
    """One context compaction: its status, summary blocks, error text and `_meta`."""

    status: str = CompactionStatus.IN_PROGRESS
    summary: PVec[ContentBlock] = attrs.field(default=EMPTY_VEC)
    error: str | None = None
    meta: JsonObject | None = None
    chunk_meta: PMap[int, JsonObject] = attrs.field(factory=PMap)


@frozen(field_transformer=freezing_state_fields)
class SessionMessageState:
    """An inter-session message as one transcript shows it (incoming, outgoing or relayed).

    `sender_message_id` links an incoming copy to its outgoing copy in the sender's
    transcript; `recipient_message_id` links an outgoing copy to the incoming one (R55)."""

    content: PVec[ContentBlock] = attrs.field(default=EMPTY_VEC)
    sender_session_id: str | None = None
    recipient_session_id: str | None = None
    sender_message_id: str | None = None
    recipient_message_id: str | None = None
    meta: JsonObject | None = None
    chunk_meta: PMap[int, JsonObject] = attrs.field(factory=PMap)

    def direction(self, session_id: str) -> str:
        """`incoming`, `outgoing` or `relayed`, as seen from the transcript of `session_id`."""
        if self.recipient_session_id == session_id:
            return "incoming"
        if self.sender_session_id == session_id:
            return "outgoing"
        return "relayed"


@frozen(field_transformer=freezing_state_fields)
class ReplayWindow:
    """Where a session's view is in a resume replay: `phase` and the resume request that
    asked (the state layer's view, not a judge: see `SessionExtras.replay`)."""

    phase: str = REPLAY_NONE
    request_id: int | str | None = None

    @property
    def replaying(self) -> bool:
        """Updates arriving now are history, not live (C36)."""
        return self.phase == REPLAY_REPLAYING


@frozen(field_transformer=freezing_state_fields)
class ChildLink:
    """A child session as its parent announced it (`subagent_update`, Preview digest §3.2).

    Attributes:
        title, description, cwd, additional_directories: as last patched (None: unset; an
            unset `cwd` / `additional_directories` inherits the parent's, R52).
        capabilities: what the client may do to the child (None: nothing, C29).
        mirrored_state: the parent's mirror of the child's state; None means unconfirmed
            (no report, or `state: null`), which is neither idle nor cancelled (C31).
        meta: the link's `_meta` (a metadata patch merges by key, C54).
    """

    title: str | None = None
    description: str | None = None
    capabilities: SubagentSessionCapabilities | None = None
    mirrored_state: StateUpdate | None = None
    cwd: str | None = None
    additional_directories: tuple[str, ...] | None = None
    meta: JsonObject | None = None

    @property
    def can_cancel(self) -> bool:
        """True while the child advertises `capabilities.cancel` (C35)."""
        caps = self.capabilities
        return caps is not None and isinstance(caps.cancel, SessionCancelCapabilities)


@frozen(field_transformer=freezing_state_fields)
class SessionExtras:
    """The 2026-11 / Preview parts of a session's view.

    Attributes:
        compactions: by compaction id (timeline position at first sight).
        notices: live notices in arrival order (transient: never history, dropped in replay).
        prompt_suggestions: the latest suggestion list (unstable; never in the timeline).
        session_messages: inter-session messages by id (same id space as messages, P6).
        replay: the replay window of this session, as the view folds it: what a host that
            keeps only `SessionState` (`apply_update`, `fold`, `begin_replay`/`end_replay`,
            no protocol machine) uses to drop live-only updates from history (notices,
            suggestions, C36) and to show `complete` or `truncated`. It is not a second
            judge: it decides no rule. Whether a session replays history is the protocol
            machine's alone (the judge's `PreviewState.replaying`, the session machine's
            `Conversation.replaying`); no engine, connection or checker reads this field to
            decide anything (tests/test_one_replay_home.py holds them to it), and its
            diagnostics (`reduce.replay-without-marker`, `reduce.unexpected-replay-marker`)
            are the view's notes, R57/R58 are the judge's.
        children: the child sessions announced on this session, by child id.
        child_order: child ids in the order they were first announced.
    """

    compactions: PMap[str, CompactionState] = attrs.field(factory=PMap)
    notices: PVec[Notice] = attrs.field(default=EMPTY_VEC)
    prompt_suggestions: tuple[PromptSuggestion, ...] = ()
    session_messages: PMap[str, SessionMessageState] = attrs.field(factory=PMap)
    replay: ReplayWindow = ReplayWindow()
    children: PMap[str, ChildLink] = attrs.field(factory=PMap)
    child_order: tuple[str, ...] = ()


#: The extras of a session that has seen none of these updates.
NO_EXTRAS: Final = SessionExtras()
