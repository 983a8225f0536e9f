"""The values of the conversation machine: phases, event kinds, findings, prompts, turns.

Owns: `Conversation` (one session's lifecycle as a frozen value), the small values it
holds or produces (`Phase`, `Kind`, `Event`, `Finding`, `Prompt`, `Turn`, `Pending`,
`Guard`) and `Stage` with `stage_of`, the row of the lifecycle table a machine is in (its
stored mode's, `_rules/_conversation_phases.py`, or for a live session the one its turn and
reported state give). Must not know: how a message becomes an event,
what any rule says or what the table holds (`_rules/_conversation.py`,
`_rules/_conversation_guards.py`, `_rules/_conversation_lifecycle.py`).
"""

from __future__ import annotations

import enum
from collections.abc import Callable, Mapping
from typing import Any, Final, Literal, TypeAlias

import attrs

from acp_core._state._pcoll import PMap
from acp_core._wire._revision import DEFAULT_REVISION, Revision
from acp_core._wire._value import frozen

from ._conversation_phases import (
    LIVE,
    Cancelled,
    Cancelling,
    Closed,
    Live,
    Mode,
    Replay,
    Replaying,
    Resuming,
    base_of,
    window_of,
)
from ._predicates import RequestKey, request_key

__all__ = [
    "AGENT",
    "CLIENT",
    "PEER",
    "Conversation",
    "Event",
    "Finding",
    "Guard",
    "Kind",
    "Pending",
    "Phase",
    "Prompt",
    "Sender",
    "Stage",
    "Turn",
    "stage_of",
]

Sender = Literal["agent", "client"]
AGENT: Final = "agent"
CLIENT: Final = "client"
PEER: Final[Mapping[str, Sender]] = {AGENT: CLIENT, CLIENT: AGENT}


class Phase(enum.Enum):
    """The foreground state as last reported."""

    __hash__ = object.__hash__  # members are singletons: identity hashing, in C (hot path)

    UNKNOWN = "unknown"  #: not reported yet in a recording that starts mid-session
    IDLE = "idle"
    RUNNING = "running"
    REQUIRES_ACTION = "requires_action"
    OTHER = "other"  #: a state value this revision does not know (R19 says so)


class Stage(enum.Enum):
    """Where a session is in its lifecycle: the row of the machine's table (`LIFECYCLE`,
    `_rules/_conversation_lifecycle.py`). The first five are the stored mode's
    (`Conversation.mode`: its outermost phase value, `_rules/_conversation_phases.py`); a
    `LIVE` session's is read off its turn and reported state (`stage_of`)."""

    __hash__ = object.__hash__  # members are singletons: identity hashing, in C (hot path)

    CLOSED = "closed"  #: session/close was answered: the session is freed (R24)
    RESUMING = "resuming"  #: a resume without `replayFrom` awaits its answer: no history (R39)
    REPLAYING = "replaying"  #: a resume with `replayFrom` awaits its answer: history, not live work
    CANCELLING = "cancelling"  #: a cancel (or close) awaits the idle that ends the work (R21)
    CANCELLED = "cancelled"  #: cancelled work ended; its items take no update until new work (R23)
    UNKNOWN = "unknown"  #: a recording that starts mid-session, nothing reported yet
    IDLE = "idle"  #: at rest: no turn, idle reported
    WAITING = "waiting"  #: a prompt sent while idle, its work not reported yet (R6)
    ANSWERED = "answered"  #: what blocked the work is answered: `running` is due (R12)
    BLOCKED = "blocked"  #: `requires_action` reported: a permission request holds the work
    WORKING = "working"  #: foreground work reported running (or in a state this revision lacks)


_PHASES: Final[Mapping[str, Phase]] = {
    "idle": Phase.IDLE,
    "running": Phase.RUNNING,
    "requires_action": Phase.REQUIRES_ACTION,
}


class Kind(enum.Enum):
    """What an observed message is, for the lifecycle."""

    __hash__ = object.__hash__  # members are singletons: identity hashing, in C (hot path)

    PROMPT = "prompt"
    PROMPT_ANSWER = "prompt answer"
    CANCEL = "cancel"
    PERMISSION = "permission request"
    PERMISSION_ANSWER = "permission answer"
    RESUME = "resume"
    RESUME_ANSWER = "resume answer"
    CLOSE = "close"
    CLOSE_ANSWER = "close answer"
    CONFIG_ANSWER = "set_config_option answer"
    RUNNING = "running"
    REQUIRES_ACTION = "requires_action"
    IDLE = "idle"
    OTHER_STATE = "other state"
    USER_MESSAGE = "user message"
    WORK = "work"  #: the agent's output: messages, thoughts, tool calls, terminals, plans
    BACKGROUND = "background update"  #: any other update (usage, commands, info, unknown)
    OTHER = "other"  #: requests, answers and notifications the lifecycle does not follow


@frozen
class Finding:
    """A broken rule: its id, where (`at`, the label the caller gave), and why.

    `warning`: the recording shows only that the rule *may* be broken (it ends first).
    """

    rule: str
    message: str
    at: int
    warning: bool = False


@frozen
class Prompt:
    """A `session/prompt` the agent has not finished with.

    Attributes:
        key: its request key; `request_id`: the id as sent; `at`: where it was sent.
        accepted: answered with a result; `user_reported`: its user message was reported.
        bound_id: the user message bound to it first in, first out (Q7, 2026-08).
        result_id: the `messageId` of its result (2026-11).
        message: the `session/prompt` request itself (what an agent engine accepts).
    """

    key: RequestKey
    request_id: object
    at: int
    accepted: bool = False
    user_reported: bool = False
    bound_id: str | None = None
    result_id: str | None = None
    message: Any = None

    def message_id(self, revision: Revision) -> str | None:
        """The user message of this prompt, as a client binds it (Q7)."""
        return self.result_id if revision.prompt_result_has_message_id else self.bound_id


@frozen
class Turn:
    """Foreground work from its start to the idle that ends it."""

    prompt: RequestKey | None  # the prompt it belongs to; None: agent-initiated or unknown
    at: int
    started: bool  # `running` (or `requires_action`) was reported
    early_output: bool = False  # R6 was reported for output before `running`
    started_at: int | None = None  # where that first `running` (or `requires_action`) was


@frozen
class Pending:
    """A request waiting for its answer."""

    method: str
    at: int
    detail: object = None  # what the answer is judged against (set_config_option: configId)


@frozen
class Conversation:
    """One session's lifecycle, as seen from both sides (a value; see `_rules/_conversation.py`)."""

    revision: Revision = DEFAULT_REVISION
    phase: Phase = Phase.IDLE
    phase_at: int = 0
    turn: Turn | None = None
    prompts: tuple[Prompt, ...] = ()
    requests: PMap[tuple[Sender, RequestKey], Pending] = attrs.field(factory=PMap)
    answered: tuple[tuple[tuple[Sender, RequestKey], int], ...] = ()
    # Where a cancel, a resume window or a close put the session, with each one's own data
    # (`_rules/_conversation_phases.py`); `LIVE`: none of them.
    mode: Mode = LIVE
    permissions: PMap[RequestKey, int] = attrs.field(factory=PMap)
    silent: PMap[RequestKey, int] = attrs.field(factory=PMap)  # asked while running (R11)
    cancelled_permissions: PMap[RequestKey, tuple[int, bool]] = attrs.field(factory=PMap)
    awaiting_resume: int | None = None  # the answer that unblocked work (R12)
    history: bool = False  # the recording showed a message of this session (R38)
    user_ids: PMap[str, bool] = attrs.field(factory=PMap)
    work_ids: PMap[str, bool] = attrs.field(factory=PMap)  # ids the current turn touched
    ended: tuple[tuple[Prompt, str | None], ...] = ()  # prompts whose work the last event ended
    # Preview: idempotencyKey -> (messageId, prompt) of its first answered attempt (R67); the
    # prompt is None for an attempt of an earlier connection (a restored engine's keys, R69).
    keys: PMap[str, tuple[str, RequestKey | None]] = attrs.field(factory=PMap)
    # `stage_of`'s answer, remembered the first time it is asked (a machine is a value, so its
    # stage never changes): the quiet path asks it of every update. Not part of the value:
    # no `==`, hash or repr sees it, and a copy (`attrs.evolve`) starts without it.
    cached_stage: Stage | None = attrs.field(
        default=None, init=False, eq=False, hash=False, repr=False
    )

    @classmethod
    def start(cls, revision: Revision = DEFAULT_REVISION, foreground: str = "idle") -> Conversation:
        """A session in a known state: idle after `session/new` (what an engine starts from,
        Q2), or the reported state of a restored session (work in progress, no prompt)."""
        phase = _PHASES.get(foreground, Phase.OTHER)
        turn = None if phase is Phase.IDLE else Turn(None, 0, True, started_at=0)
        return cls(revision, phase, turn=turn)

    @classmethod
    def mid_session(cls, revision: Revision = DEFAULT_REVISION) -> Conversation:
        """A session whose earlier history is not known (a recording that starts late)."""
        return cls(revision, Phase.UNKNOWN)

    def prompt(self, request_id: object) -> Prompt | None:
        """The outstanding prompt with this id, if any."""
        key = request_key(request_id)
        return next((p for p in self.prompts if p.key == key), None)

    def awaits(self, sender: Sender, request_id: object) -> bool:
        """Whether a request of `sender` with this id still waits for its answer."""
        return (sender, request_key(request_id)) in self.requests

    def waiting_prompts(self) -> tuple[Prompt, ...]:
        """Prompts received and not answered yet, oldest first (the agent's queue, Q4)."""
        requests = self.requests
        return tuple(p for p in self.prompts if not p.accepted and (CLIENT, p.key) in requests)

    # -- the phase's data, read where it lives (None, False or empty outside its phase) ----

    @property
    def closed_at(self) -> int | None:
        """Where `session/close` was answered, while the session is closed (R24)."""
        mode = self.mode
        return mode.at if type(mode) is Closed else None

    @property
    def cancel_at(self) -> int | None:
        """Where the cancel (or close) the work has not ended yet came (R21-R23)."""
        base = base_of(self.mode)
        return base.at if type(base) is Cancelling else None

    @property
    def cancel_by_close(self) -> bool:
        """The pending cancel is a `session/close`'s (R24), not a `session/cancel`."""
        base = base_of(self.mode)
        return type(base) is Cancelling and base.by_close

    @property
    def late_ids(self) -> PMap[str, bool]:
        """Ids of cancelled work that has ended: no update for them until new work (R23)."""
        base = base_of(self.mode)
        return _NO_IDS if type(base) is Live else base.late  # type: ignore[union-attr]

    @property
    def replaying(self) -> bool:
        """A resume asked for history and awaits its answer: updates are history."""
        mode = self.mode
        if type(mode) is Live:
            return False  # (the quiet path asks this of every update)
        window = window_of(mode)
        return window is not None and window.replay is not None

    @property
    def replay_forbidden(self) -> bool:
        """A resume without `replayFrom` awaits its answer: no history may come (R39)."""
        return type(window_of(self.mode)) is Resuming

    @property
    def replay_from_start(self) -> bool:
        """The open window's resume asked for the whole history (R38)."""
        replay = self._replay
        return replay is not None and replay.from_start

    @property
    def replayed(self) -> bool:
        """The open window has replayed a message (R38)."""
        replay = self._replay
        return replay is not None and replay.replayed

    @property
    def _replay(self) -> Replay | None:
        window = window_of(self.mode)
        return None if window is None else window.replay

    @property
    def cancel_pending(self) -> bool:
        """`session/cancel` came during work that has not ended yet (R21-R23; a
        `session/close` cancels too, but is told apart by `cancel_by_close`)."""
        return self.cancel_at is not None and not self.cancel_by_close

    def frozen(self, ident: str) -> bool:
        """`ident` (a tool call, a terminal) belongs to cancelled work that has ended: R23
        allows it no more updates until new work starts."""
        return ident in self.late_ids and not self.replaying

    @property
    def work_started_at(self) -> int | None:
        """Where the current foreground work was first reported (`running` or
        `requires_action`); None while there is none (idle, or a prompt not taken yet)."""
        turn = self.turn
        return None if turn is None else turn.started_at

    def blocks(self, request_id: object) -> bool:
        """Whether the agent's unanswered permission request `request_id` was asked during
        the current foreground work: it blocks that work (R11, R12) and is withdrawn with it
        (R71). One asked outside it, before it or with its work ended, is background (C40)."""
        start = self.work_started_at
        if start is None:
            return False
        asked = self.permissions.get(request_key(request_id))
        return asked is not None and asked >= start

    def cancels(self, key: RequestKey) -> bool | None:
        """Whether a `session/cancel` now cancels the work that asked the agent's pending
        permission request `key` (R71): False when nothing is working (the machine ignores
        such a cancel, Q20), when the prompt's work has not begun (no `running` yet: what is
        asked then is background, as `blocks` says) or the request was asked before the
        current work began (background, R40), True when asked during it; None when the
        machine cannot tell (a request it never saw, work it never saw begin)."""
        if not self.working:
            return False
        turn = self.turn
        if turn is not None and not turn.started:
            return False  # a prompt's work not begun yet: a request asked now is background
        asked = self.permissions.get(key)
        start = self.work_started_at
        if asked is None or start is None:
            return None
        return asked >= start

    @property
    def stage(self) -> Stage:
        """Where this session is in its lifecycle (see `Stage`)."""
        return stage_of(self)

    @property
    def working(self) -> bool:
        """Foreground work is in progress (or a prompt is on its way to start it)."""
        return self.turn is not None or self.phase not in _AT_REST


# Read once: a member read through its enum class is an attribute lookup each time.
_AT_REST: Final = frozenset({Phase.UNKNOWN, Phase.IDLE})
_CLOSED, _RESUMING, _REPLAYING = Stage.CLOSED, Stage.RESUMING, Stage.REPLAYING
_CANCELLING, _CANCELLED, _UNKNOWN = Stage.CANCELLING, Stage.CANCELLED, Stage.UNKNOWN
_IDLE, _WAITING, _ANSWERED = Stage.IDLE, Stage.WAITING, Stage.ANSWERED
_BLOCKED, _WORKING = Stage.BLOCKED, Stage.WORKING
# The stage of each phase but `Live`: its outermost mode.
_MODE_STAGES: Final[Mapping[type, Stage]] = {
    Closed: _CLOSED,
    Resuming: _RESUMING,
    Replaying: _REPLAYING,
    Cancelling: _CANCELLING,
    Cancelled: _CANCELLED,
}
_NO_IDS: Final[PMap[str, bool]] = PMap()
_PHASE_IDLE, _PHASE_UNKNOWN, _PHASE_BLOCKED = Phase.IDLE, Phase.UNKNOWN, Phase.REQUIRES_ACTION


def stage_of(c: Conversation) -> Stage:
    """The stage of `c`: its mode's outermost phase (a close over a window over a cancel,
    `_rules/_conversation_phases.py`), or for a live session the one its turn and reported
    phase give. Worked out once per machine value (`Conversation.cached_stage`)."""
    stage = c.cached_stage
    if stage is None:
        stage = _derive_stage(c)
        _REMEMBER_STAGE(c, stage)  # the slot itself: a frozen class refuses `setattr`
    return stage


# The slot's own descriptor (in the class's namespace; the class attribute reads as a value).
_REMEMBER_STAGE: Final[Callable[[Conversation, Stage], None]] = vars(Conversation)[
    "cached_stage"
].__set__


def _derive_stage(c: Conversation) -> Stage:
    mode = c.mode
    if type(mode) is not Live:
        stage = _MODE_STAGES.get(type(mode))
        if stage is not None:
            return stage
    turn = c.turn
    phase = c.phase
    if turn is None:
        if phase is _PHASE_IDLE:
            return _IDLE
        if phase is _PHASE_UNKNOWN:
            return _UNKNOWN
    elif not turn.started:
        return _WAITING
    if phase is _PHASE_BLOCKED:
        return _BLOCKED if c.awaiting_resume is None else _ANSWERED
    return _WORKING


class Event:
    """One observed message, classified (built for each message: a plain slotted class)."""

    __slots__ = ("at", "key", "kind", "message", "pending", "sender")

    def __init__(
        self,
        kind: Kind,
        sender: Sender,
        at: int,
        message: Any,
        pending: Pending | None = None,
        key: RequestKey | None = None,
    ) -> None:
        self.kind = kind
        self.sender = sender
        self.at = at
        self.message = message
        self.pending = pending  # for answers: the request answered
        self.key = key


_Check: TypeAlias = Callable[[Conversation, Event], "str | None"]


def _always(revision: Revision) -> bool:
    return True


@frozen
class Guard:
    """One rule check: `check(conversation, event)` returns the finding's message or None."""

    rule: str
    kinds: tuple[Kind, ...]
    check: _Check
    applies: Callable[[Revision], bool] = _always
