"""The agent engine: an agent states its intent, the engine returns the protocol messages.

Owns: `AgentEngine` (the agent side of one session, as a value), `new_agent`, and the
agent half of `step`: the step table, `AGENT_INPUTS`, and the next engine made of a finished
`Build`. Enforces the agent rules of the catalogue (R1-R46 in docs/rules.md) by construction
or by refusing the intent with `LocalProtocolError(rule)`.
Must not know: I/O, clocks, randomness; the wire format beyond `encode_update`; what any one
intent or received message does (the step modules below).

The modules, one part of the protocol each, imported only from here downward (none imports
this module: a step reads the engine through `_agent_build.AgentView`):
- `_agent_records`: `Turn`, `PendingPermission`, `PermissionDecision` (the leaf).
- `_agent_build`: `Build`, one step's typed changes, and the checks on every outbound message.
- `_agent_turn`: prompts answered, turns started and ended.
- `_agent_output`: messages, thoughts, plans, tool calls, terminals, usage.
- `_agent_permissions`: permission requests, asked, withdrawn and answered.
- `_agent_children`: child sessions (Preview): announcing them and reporting on them.
- `_agent_items`: the background list and the item cancels (2026-11).
- `_agent_cancel`: what a `session/cancel` reaches: the turn's requests, held prompts, children.
- `_agent_keys`: prompts' idempotency keys.
- `_agent_receive`: which received message goes where.

Theory of operation.
- The engine keeps the `SessionState` of everything it sent, by folding its own updates
  through the same reducers a client uses, so agent and client cannot disagree. The foreground
  state (`idle` / `running` / `requires_action`) is read from that state.
- A turn is foreground work: prompt-driven (from `AcceptPrompt`) or agent-initiated
  (`StartWork`). Accepting a prompt answers it (`{}`; `{"messageId"}` in the 2026-11
  revision), reports the user message under an agent-owned id, and reports `running`, in that
  order (R1-R3, R6). One turn runs at a time; other prompts wait until the agent accepts or
  rejects them (Q4).
- A permission request blocks a running turn: `requires_action` follows the request (R11);
  the answer resumes it with `running` (R12) and, when granted, marks the tool `in_progress`
  (R15). A `cancelled` outcome, an unknown outcome or an error (`-32800` included) is never
  approval (R25, Q17).
- After `session/cancel` the agent may still report (R23); the turn then ends with idle +
  `cancelled` whatever stop reason the agent asks for, and an abort becomes `cancelled` too
  (R21, R22). Prompts received but not accepted yet are answered -32800 at once. At the
  Preview the cancel also reaches the children that are part of the cancelled work (P19): see
  `cancelled_children`.
- Every message update carries a message id (R4); ids are the caller's or come from a
  deterministic counter (R5). Custom enum values must be `_`-prefixed (R18, R19).
- Updates outside a turn are background activity (R40): allowed, foreground unchanged.
- `step` is pure: an illegal intent raises before anything is built, so the caller's old
  state stays valid.
- One home per protocol fact: the conversation machine (`conversation`) holds the lifecycle,
  and the engine reads it there: the cancel of the turn (`cancel_requested`), which
  permission requests block it (`blocks`), the waiting prompts (`prompts`). The records
  (`Turn`, `PendingPermission`) keep only what the machine does not: ids, options, the
  child a request belongs to. `phase` is read from `session`, the exact reported string
  (the machine keeps the same fact classified, `Conversation.phase`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import attrs

from acp_core._errors import LocalProtocolError
from acp_core._rules._check import Violation
from acp_core._rules._conversation import Conversation
from acp_core._rules._predicates import request_key
from acp_core._state._pcoll import PMap
from acp_core._state._reduce_children import SessionTree, new_tree, open_session
from acp_core._state._session_state import SessionState, new_session
from acp_core._wire._jsonrpc import PromptRequest
from acp_core._wire._revision import DEFAULT_REVISION, Revision, revision_argument
from acp_core._wire._updates_2026_11 import BackgroundWork
from acp_core._wire._value import frozen

from ._agent_build import Build, KnownSessions
from ._agent_cancel import cancelled_children
from ._agent_children import CHILDREN_STEPS
from ._agent_items import ITEM_STEPS
from ._agent_output import OUTPUT_STEPS
from ._agent_permissions import PERMISSION_STEPS
from ._agent_receive import received
from ._agent_records import PendingPermission, PermissionDecision, Turn, read_pending, read_turn
from ._agent_turn import TURN_STEPS
from ._idempotency import KeyLedger
from ._intents import (
    AcceptPrompt,
    EndTurn,
    Received,
    RejectPrompt,
    ReportAbort,
    ReportUserMessage,
    StartWork,
    Step,
)
from ._kept import kept_violations

__all__ = [
    "AgentEngine",
    "PendingPermission",
    "PermissionDecision",
    "Turn",
    "agent_step",
    "new_agent",
    "permission_decision",
]


@frozen
class AgentEngine:
    """The agent side of one session (a value: keep the old one to go back in time).

    Attributes:
        session: the `SessionState` of every update this engine sent.
        revision: the protocol revision spoken.
        turn: the foreground work in progress, if any (a property over the stored record;
            whether the client cancelled it is the machine's: `cancel_requested`).
        prompts: received prompts not yet accepted or rejected, oldest first (a property:
            the machine's queue of waiting prompts).
        pending: permission requests awaiting an answer, by request id (a property over the
            stored records; whether one blocks the current turn is the machine's: `blocks`).
        decisions: answered permission requests, by request id.
        open_message: (role, id) of the message that text chunks currently continue.
        counter: next number of the deterministic id counter.
        next_request_id: next JSON-RPC id for requests this engine sends.
        id_prefix: prefix of generated ids (keeps ids unique across engines).
        conversation: the session's lifecycle as the conversation machine follows it; every
            message this engine sends passes it first.
        violations: what the client broke, in the order received (`check_trace`'s values): the
            newest `MAX_VIOLATIONS_KEPT` (256) of them, so a peer that breaks a rule in every
            message cannot grow the engine without bound.
        violations_dropped: how many older violations were let go to keep that bound.
        children: the child sessions this engine announced and what it sent on them, as the
            client's `SessionTree` holds them (Preview; `_engines/_agent_children.py`).
        child_conversations: each child's lifecycle, one conversation machine per child.
        cancelled_children: (a property) the children whose work was cancelled and has not
            ended yet: the client's cancel of a child, or the parent's cancel reaching the
            children that are part of its foreground work (P19, `_engines/_agent_cancel.py`).
        keys: the prompts' idempotency keys of this session (Preview, R67-R69).
        background: the background list every state update carries once `ReportBackground`
            was used (2026-11 on, R74); None: not reporting.
        messages: how many messages this engine sent and received.
    """

    session: SessionState
    revision: Revision = DEFAULT_REVISION
    # `turn=` and `pending=` to construct; read them through `turn` and `pending`. The records
    # hold only what the machine does not: the cancel and which requests block the work are
    # `conversation`'s (`cancel_requested`, `blocks`).
    _turn: Turn | None = None
    _pending: PMap[int | str | None, PendingPermission] = attrs.field(factory=PMap)
    decisions: PMap[int | str | None, PermissionDecision] = attrs.field(factory=PMap)
    open_message: tuple[str, str] | None = None
    counter: int = 1
    next_request_id: int = 0
    id_prefix: str = ""
    conversation: Conversation = attrs.field(factory=Conversation.start)
    violations: tuple[Violation, ...] = ()
    children: SessionTree = attrs.field(factory=new_tree)
    child_conversations: PMap[str, Conversation] = attrs.field(factory=PMap)
    keys: KeyLedger = attrs.field(factory=KeyLedger)
    background: tuple[BackgroundWork, ...] | None = None
    # How many messages this engine sent and received: the index of its violations. A
    # position label, not state: left out of equality.
    messages: int = attrs.field(default=0, eq=False)
    violations_dropped: int = 0  # last: earlier fields keep their places

    @property
    def session_id(self) -> str:
        """The session this engine speaks for."""
        return self.session.session_id

    @property
    def turn(self) -> Turn | None:
        """The foreground work in progress, if any (the stored record: until 0.3 its
        deprecated `cancel_requested` reads the machine's answer, `cancel_requested`)."""
        turn = self._turn
        if turn is None:
            return None
        return read_turn(turn, self.conversation.cancel_pending)

    @property
    def cancel_requested(self) -> bool:
        """The client sent `session/cancel` during the foreground work, which has not ended
        yet: the turn must end `cancelled` (R21). The conversation machine's answer
        (`Conversation.cancel_pending`; a `session/close` cancels too, but is not this)."""
        return self.conversation.cancel_pending

    def blocks(self, request_id: int | str | None) -> bool:
        """Whether this session's pending permission request `request_id` blocks the current
        turn (R11, R12): asked during the current work, as the conversation machine says
        (`Conversation.blocks`). False for a child's request, a background one (asked before
        the work began, or its work has ended) and an id that is not pending."""
        request = self._pending.get(request_id)
        return (
            request is not None
            and request.session_id is None
            and self.conversation.blocks(request_id)
        )

    @property
    def cancelled_children(self) -> tuple[str, ...]:
        """The child sessions whose work was cancelled and has not ended yet (the client's
        cancel of a child, C35, or the parent's cancel reaching it, P19): stop them, and end
        each one's work with idle + `cancelled` (R21 per child)."""
        return cancelled_children(self)

    @property
    def pending(self) -> PMap[int | str | None, PendingPermission]:
        """Permission requests awaiting an answer, by request id (the stored records: until
        0.3 each one's deprecated `foreground` reads the machine's answer, `blocks`)."""
        stored = self._pending
        if not stored:
            return stored
        conv = self.conversation
        out = stored
        for request_id, request in stored.items():
            blocks = request.session_id is None and conv.blocks(request_id)
            read = read_pending(request, blocks)
            if read is not request:
                out = out.set(request_id, read)
        return out

    @property
    def prompts(self) -> tuple[PromptRequest, ...]:
        """Received prompts not yet accepted or rejected, oldest first (the machine's queue),
        without the keyed retries that wait for their original (R68: never held twice)."""
        waiting = tuple(p.message for p in self.conversation.waiting_prompts())
        if not self.keys.keys:
            return waiting
        joined = {request_key(r) for r in self.keys.joined()}
        return tuple(p for p in waiting if request_key(p.id) not in joined)

    @property
    def phase(self) -> str:
        """The foreground state last reported: `idle`, `running` or `requires_action` (or a
        custom `_`-prefixed state), as the session folds it. The conversation machine's
        `Conversation.phase` is the same fact classified for its rules (a custom state is
        `Phase.OTHER` there), so the exact string is read here."""
        return self.session.foreground.state


def new_agent(
    session_id: str, *, revision: Revision = DEFAULT_REVISION, id_prefix: str = ""
) -> AgentEngine:
    """A fresh agent engine for a session that is idle (Q2).

    Raises:
        ArgumentError: `revision` is not a `Revision`.
    """
    revision_argument(revision)
    return AgentEngine(
        new_session(session_id),
        revision,
        id_prefix=id_prefix,
        conversation=Conversation.start(revision),
        children=open_session(new_tree(), session_id, revision=revision),
    )


def permission_decision(
    engine: AgentEngine, request_id: int | str | None
) -> PermissionDecision | None:
    """How the permission request `request_id` was answered (None while pending/unknown)."""
    return engine.decisions.get(request_id)


# -- the step table ------------------------------------------------------------------------

_STEPS: Final[dict[type[Any], Callable[[Build, Any], None]]] = {
    **TURN_STEPS,
    **OUTPUT_STEPS,
    **PERMISSION_STEPS,
    Received: received,
    **CHILDREN_STEPS,
    **ITEM_STEPS,
}

#: The agent engine's input alphabet (used by the totality tests, which draw in this order).
AGENT_INPUTS: Final = (
    AcceptPrompt,
    RejectPrompt,
    ReportUserMessage,
    StartWork,
    *OUTPUT_STEPS,
    *PERMISSION_STEPS,
    EndTurn,
    ReportAbort,
    Received,
    *CHILDREN_STEPS,
    *ITEM_STEPS,
)
# Every step has its input, and each input is listed once.
assert set(AGENT_INPUTS) == set(_STEPS)
assert len(AGENT_INPUTS) == len(_STEPS)
_AGENT_STEPS: Final[dict[type[Any], Callable[[Build, Any], None]]] = {
    kind: _STEPS[kind] for kind in AGENT_INPUTS
}


def agent_step(
    engine: AgentEngine, intent: object, elsewhere: KnownSessions | None = None
) -> Step[AgentEngine]:
    """Apply one intent (or received message) to the agent engine.

    `elsewhere`: on a connection, what the client knows of the connection's other sessions
    (its judge): an update may name those too (`Build.name_known`). None: the engine alone.

    Returns:
        `Step(engine, outbound)`: the new engine and the wire dicts to send, in order.

    Raises:
        LocalProtocolError: the intent is illegal here (`rule` names the rule).
        RemoteProtocolError: a received message breaks the protocol.
    """
    handler = _AGENT_STEPS.get(type(intent))
    if handler is None:
        raise LocalProtocolError("E0", f"not an agent intent: {type(intent).__name__}")
    b = Build(engine, elsewhere)
    handler(b, intent)
    violations, dropped = kept_violations(
        engine.violations, b.violations, engine.violations_dropped
    )
    # `evolve` carries the fields no step changes (`revision`, `id_prefix`, any added later).
    after = attrs.evolve(
        engine,
        session=b.session,
        turn=b.turn,
        pending=b.pending,
        decisions=b.decisions,
        open_message=b.open_message,
        counter=b.counter,
        next_request_id=b.next_request_id,
        conversation=b.conversation,
        violations=violations,
        violations_dropped=dropped,
        children=b.children,
        child_conversations=b.child_conversations,
        keys=b.keys,
        background=b.background,
        messages=b.at,
    )
    return Step(after, tuple(b.wire), tuple(b.ids))
