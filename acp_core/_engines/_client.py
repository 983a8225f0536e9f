"""The client engine: prompt bookkeeping, permission answers, and the local cancel overlay.

Owns: `ClientEngine` (the client side of one session, as a value), `new_client`,
`sent_prompt` and `prompt_message_id` (reading a prompt's record), and the client half of
`step`: the step table, `CLIENT_INPUTS`, which intents send a request the connection numbers
(`session_request_method`), the next engine made of a finished `Build`, and
`machine_follows`. Applies the client rules of the catalogue (C-rules in docs/rules.md).
Must not know: I/O, clocks, randomness, the agent engine; what any one intent or received
message does (the step modules below).

The modules, one part of the protocol each, imported only from here downward (none imports
this module: a step reads the engine through `_client_build.ClientView`):
- `_client_records`: `SentPrompt` (the leaf).
- `_client_build`: `Build`, one step's typed changes; the machines every message passes.
- `_client_view`: an agent update folded into the session and the view.
- `_client_prompts`: prompts sent, retried and answered.
- `_client_permissions`: the agent's permission requests, held and answered.
- `_client_cancel`: the client's `session/cancel`, of its session or a child's.
- `_client_children`: a child's traffic, views and lifecycles (Preview).
- `_client_items`: item cancels (2026-11).
- `_client_receive`: which received message goes where.
`_client_resume` sits above this module: what a resume does to an engine.

Theory of operation.
- `session` is the pure fold of what the agent reported (updates, and the `tool_call`
  subjects of permission requests, T10); `view` is that plus the client's own provisional
  marks (C14): on `SendCancel` every unfinished tool call of the current work (first seen or
  updated since the foreground last left idle, Q18) is shown `cancelled`. Later agent updates
  still apply to both (C16); any status the agent sends wins (Q19).
- Every message sent and received goes through the conversation machine
  (`_conversation.observe`), which holds the lifecycle: what the agent breaks is kept in
  `violations` (the same `Violation` values `check_trace` returns for this recording; the
  index counts the messages this engine sent and received), what this client would break
  is refused with `LocalProtocolError`. The same single-message checks as the checker run on
  what the agent sends.
- Prompts are bound to the user message the agent reports (Q7), as the machine binds them:
  the first *new* message id of a user-message update binds to the oldest unbound prompt,
  first in first out; a result that carries a `messageId` (2026-11 revision) binds directly,
  and then FIFO binding is not used (the user message may arrive before the result that
  names it). When the idle that ends a prompt's work arrives, its record says so
  (`SentPrompt.ended`, `stop_reason`; `sent_prompt` reads it).
- On cancel the client answers every pending permission request with the `cancelled` outcome
  (C15, 2026-08 only), and any that arrives before the work goes idle too; from 2026-11 on they
  stay open (C40: background requests must), the agent withdraws the cancelled work's ones
  with `$/cancel_request` (R71), and a `$/cancel_request` for an open request is answered
  `cancelled` (Q17, C40) at every revision.
- At the Preview, traffic for another session id is a child's (C28) or waits for its
  announcement (P3); `_engines/_client_children.py` owns it.
- Unknown requests are answered with -32601 (C26); notifications are never answered (C25).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import attrs

from acp_core._errors import LocalProtocolError
from acp_core._rules._check import Violation
from acp_core._rules._check_message import (
    plain_chunk_role,
    plain_tool_call_update,
    plain_tool_chunk,
    update_findings,
)
from acp_core._rules._conversation import Conversation, grown_update, quiet_update
from acp_core._rules._predicates import RequestKey, request_key
from acp_core._state._fold import fold
from acp_core._state._pcoll import PMap, PVec
from acp_core._state._reduce import reduce
from acp_core._state._reduce_children import SessionTree, new_tree, open_session
from acp_core._state._reduce_common import NEW_TOOL_CALL
from acp_core._state._reduce_tools import patched_tool_call
from acp_core._state._session_state import SessionState, new_session
from acp_core._wire._content import TextContent
from acp_core._wire._fastnew import fast_evolve
from acp_core._wire._json import UNSET
from acp_core._wire._jsonrpc import (
    Message,
    Method,
    PromptRequest,
    RequestPermissionRequest,
    UpdateSessionNotification,
)
from acp_core._wire._revision import DEFAULT_REVISION, Revision, revision_argument
from acp_core._wire._updates import (
    SessionInfoUpdate,
    SessionUpdate,
    ToolCallUpdate,
    UsageUpdate,
)
from acp_core._wire._value import frozen

from ._client_build import Build
from ._client_cancel import CANCEL_STEPS
from ._client_items import ITEM_STEPS
from ._client_permissions import PERMISSION_STEPS
from ._client_prompts import PROMPT_STEPS, unanswered
from ._client_receive import received
from ._client_records import SentPrompt
from ._client_view import apply_update
from ._intents import AnswerPermission, Received, SendCancel, SendPrompt, Step
from ._intents_preview import CancelChild, CancelTerminal, CancelToolCall, RetryPrompt
from ._kept import kept_violations

__all__ = [
    "ClientEngine",
    "SentPrompt",
    "client_step",
    "machine_follows",
    "new_client",
    "prompt_message_id",
    "receive_updates",
    "sent_prompt",
    "session_request_method",
]


@frozen
class ClientEngine:
    """The client side of one session (a value).

    Attributes:
        session: what the agent reported, folded.
        view: `session` plus the local cancel marks: what a UI should show.
        revision: the protocol revision spoken.
        sent: every prompt sent, by request key (`prompts` lists them in order).
        order: the request keys of `sent`, in sending order.
        pending: permission requests not answered yet, by request id.
        work_tool_calls: tool calls of the current foreground work (Q18).
        next_request_id: next JSON-RPC id for requests this client sends.
        conversation: the lifecycle of this session, as the conversation machine sees it.
        children: the Preview's child sessions, their views and links (C27, C28;
            `_engines/_client_children.py`); `lifecycles`: a conversation machine per child.
        requests: `tool_call/cancel` / `terminal/cancel` requests not answered yet, by
            request key: (method, session id).
        violations: what the agent broke, in the order received (`check_trace`'s values): the
            newest `MAX_VIOLATIONS_KEPT` (256) of them, so a peer that breaks a rule in every
            message cannot grow the engine without bound.
        violations_dropped: how many older violations were let go to keep that bound.
        messages: how many messages this engine sent and received.
    """

    session: SessionState
    view: SessionState
    revision: Revision = DEFAULT_REVISION
    sent: PMap[RequestKey, SentPrompt] = attrs.field(factory=PMap)
    order: PVec[RequestKey] = attrs.field(factory=PVec)
    pending: PMap[int | str | None, RequestPermissionRequest] = attrs.field(factory=PMap)
    work_tool_calls: PMap[str, bool] = attrs.field(factory=PMap)
    next_request_id: int = 0
    conversation: Conversation = attrs.field(factory=Conversation.start)
    violations: tuple[Violation, ...] = ()
    children: SessionTree = attrs.field(factory=new_tree)
    lifecycles: PMap[str, Conversation] = attrs.field(factory=PMap)
    requests: PMap[RequestKey, tuple[str, str]] = attrs.field(factory=PMap)
    # How many messages this engine sent and received: the index of its violations. A
    # position label, not state: left out of equality.
    messages: int = attrs.field(default=0, eq=False)
    violations_dropped: int = 0  # last: earlier fields keep their places

    @property
    def session_id(self) -> str:
        """The session this client talks to."""
        return self.session.session_id

    @property
    def prompts(self) -> tuple[SentPrompt, ...]:
        """Every prompt sent, in order (built on each read; `sent_prompt` reads one)."""
        return tuple(self.sent[key] for key in self.order)

    @property
    def unanswered(self) -> tuple[PromptRequest, ...]:
        """The keyed submissions no attempt of which was answered, oldest first: hand them to
        `ResumeSession(unanswered=...)` when the connection was lost (C45)."""
        return unanswered(self.prompts)

    @property
    def cancel_requested(self) -> bool:
        """`session/cancel` was sent during foreground work that has not ended yet."""
        return self.conversation.cancel_at is not None


def new_client(session_id: str, *, revision: Revision = DEFAULT_REVISION) -> ClientEngine:
    """A fresh client engine for an established session (after `session/new`).

    Raises:
        ArgumentError: `revision` is not a `Revision`.
    """
    revision_argument(revision)
    state = new_session(session_id)
    tree = open_session(new_tree(), session_id, revision=revision)
    return ClientEngine(
        state, state, revision, conversation=Conversation.start(revision), children=tree
    )


def sent_prompt(client: ClientEngine, request_id: int | str | None) -> SentPrompt | None:
    """The record of the prompt `request_id`: whether it was accepted, its user message, and
    whether its work ended (`ended`) with which stop reason (`stop_reason`)."""
    return client.sent.get(request_key(request_id))


def prompt_message_id(client: ClientEngine, request_id: int | str | None) -> str | None:
    """The user message id the agent reported for the prompt `request_id` (Q7)."""
    prompt = sent_prompt(client, request_id)
    return None if prompt is None else prompt.message_id


# -- the step table ------------------------------------------------------------------------

_STEPS: Final[dict[type[Any], Callable[[Build, Any], None]]] = {
    **PROMPT_STEPS,
    **CANCEL_STEPS,
    **PERMISSION_STEPS,
    Received: received,
    **ITEM_STEPS,
}

#: The client engine's input alphabet (the totality tests draw in this order).
CLIENT_INPUTS: Final = (
    SendPrompt,
    SendCancel,
    AnswerPermission,
    Received,
    CancelChild,
    CancelToolCall,
    CancelTerminal,
    RetryPrompt,
)
# Every step has its input, and each input is listed once.
assert set(CLIENT_INPUTS) == set(_STEPS)
assert len(CLIENT_INPUTS) == len(_STEPS)
_CLIENT_STEPS: Final[dict[type[Any], Callable[[Build, Any], None]]] = {
    kind: _STEPS[kind] for kind in CLIENT_INPUTS
}

_REQUESTS: Final[dict[type, str]] = {
    CancelToolCall: Method.TOOL_CALL_CANCEL,
    CancelTerminal: Method.TERMINAL_CANCEL,
    RetryPrompt: Method.SESSION_PROMPT,
}


def session_request_method(intent: object) -> str | None:
    """The method of the request a Preview intent sends (None: it sends none); a connection
    numbers these requests and routes their answers back to the engine."""
    return _REQUESTS.get(type(intent))


def client_step(engine: ClientEngine, intent: object) -> Step[ClientEngine]:
    """Apply one intent (or received message) to the client engine.

    Raises:
        LocalProtocolError: the intent is illegal here.
        RemoteProtocolError: a received message breaks the protocol.
    """
    handler = _CLIENT_STEPS.get(type(intent))
    if handler is None:
        raise LocalProtocolError("E0", f"not a client intent: {type(intent).__name__}")
    b = Build(engine)
    handler(b, intent)
    return Step(_next_engine(engine, b), tuple(b.wire), tuple(b.ids))


def _next_engine(engine: ClientEngine, b: Build) -> ClientEngine:
    violations, dropped = kept_violations(
        engine.violations, b.violations, engine.violations_dropped
    )
    # One generated rebuild (fields without converters): this runs once per message. Every
    # field a step may change is named; `revision` is carried.
    return fast_evolve(
        engine,
        session=b.session,
        view=b.view,
        sent=b.sent,
        order=b.order,
        pending=b.pending,
        work_tool_calls=b.work_tool_calls,
        next_request_id=b.next_request_id,
        conversation=b.conversation,
        violations=violations,
        violations_dropped=dropped,
        children=b.children,
        lifecycles=b.lifecycles,
        requests=b.requests,
        messages=b.at,
    )


def machine_follows(engine: ClientEngine, sender: str, message: Message) -> ClientEngine:
    """The connection sent a request of this engine's session itself (`session/resume`,
    `session/close`, `session/set_config_option`: `sender` "client") or got its answer
    ("agent"): the session's machine follows it as if the engine had, so it knows the replay
    window (R38, R39) or the close (R24) and keeps what the answer broke in `violations`
    (R24, R38, R41; any revision). A MUST of our own it would break raises, as `Build.send`."""
    b = Build(engine)
    if sender == "client":
        b.send(message)
        b.wire.clear()  # the connection writes the request itself
    else:
        b.receive(message)
    return _next_engine(engine, b)


# -- many updates at once ------------------------------------------------------------------


def receive_updates(
    engine: ClientEngine, messages: list[UpdateSessionNotification]
) -> tuple[ClientEngine, list[bool]]:
    """`client_step(engine, Received(m))` for the messages in order, as one step, up to and
    including the first whose machine step changes the prompt records (a prompt's work
    ended, or a prompt was bound: the connection reports that at its message): the engine
    after them (equal to stepping them one at a time, violations and their indexes
    included) and, for each message taken, whether it changed the view.

    Each message is an agent's update for this very session, neither the Preview's replay
    marker nor a `subagent_update` (the connection routes those alone). Every message goes
    through the session's machine, in order, as `client_step` would. Runs of plain text
    chunks (`plain_chunk_role`) whose message ids keep their roles, and of plain tool
    content chunks (`plain_tool_chunk`) of known tool calls, are then folded at once
    (`fold`: one write per streamed message or tool call): they break no rule of their own,
    move no foreground, and each appends a block, so each changes the view. Plain patches
    of a known tool call's status and raw values (`plain_tool_call_update`) join the run
    too: they break no rule of their own and move no foreground either, and each changes
    the view when one of its fields differs from what the view shows. So does a tool call's
    first sight (a `tool_call_update` of an id neither the session nor the run knows), judged
    by `update_findings` at its place (what it breaks reads only whether its id is known).
    So do the session-wide reports (`_SESSION_WIDE`: usage, session info), judged the same
    way (what they break reads the update alone): they move no foreground and touch only
    the session's own fields, so each changes the view when it changes those fields, which
    a probe (the session with the run's earlier reports) tells without folding the run.
    Every other update goes through `apply_update`, as `client_step` would."""
    b = Build(engine)
    sent = engine.sent
    revision = engine.revision
    changed: list[bool] = []
    run: list[SessionUpdate] = []
    roles: dict[str, str] = {}  # message id -> role, for the chunks in `run`
    # tool call id -> (status, raw input, raw output) as the view shows them after the
    # patches in `run` (chunks of the run leave these fields alone)
    patched: dict[str, tuple[Any, Any, Any]] = {}
    created: set[str] = set()  # the tool calls first reported in `run`
    session: SessionState = engine.session  # as of the start of `run` (and `b.view` too)
    # `session` with the run's session-wide reports (`_SESSION_WIDE`) reduced into it, in
    # order: what those fields are at this point of the run (no other update of a run
    # touches them), so whether a report changes the view is whether it changes `probe`.
    probe = session
    # The machine's last quiet answer for a plain text chunk, and what it was asked of: the
    # machine, the chunk's class and message id (all `quiet_update` reads of a chunk), so
    # the next chunks of a streamed message are not asked again while the machine stays.
    asked: tuple[Any, type, str] | None = None
    asked_quiet = False
    # The class and message id of the plain text chunk just taken on the machine's quiet
    # path into `run` (None: the last message was anything else). A plain chunk of the same
    # class and message id right after it gets the same answers with nothing asked: the
    # machine did not move (quiet), so its quiet answer stands (`asked`); its role is the
    # class's, which `roles` already holds for that id. (The bulk of every stream.)
    streak: tuple[type, str] | None = None
    text = TextContent
    for message in messages:
        update = message.update
        if streak is not None and type(update) is streak[0]:
            chunk: Any = update
            content = chunk.content
            if (
                chunk.message_id == streak[1]
                and type(content) is text
                and content.annotations is UNSET
                and not content.extra
                and not chunk.extra
            ):
                b.at += 1
                run.append(update)
                changed.append(True)
                continue
        streak = None
        moved = False  # only the machine moves the prompt records (`apply_update` never does)
        role = plain_chunk_role(update)
        conversation = b.conversation
        if role is None:
            quiet = quiet_update(conversation, update)
        else:
            chunk = update
            message_id: str = chunk.message_id
            if (
                asked is not None
                and asked[0] is conversation
                and asked[1] is type(update)
                and asked[2] == message_id
            ):
                quiet = asked_quiet
            else:
                quiet = asked_quiet = quiet_update(conversation, update)
                asked = (conversation, type(update), message_id)
        if quiet:
            b.at += 1  # what `b.receive` does on the machine's quiet path
        else:
            grown = grown_update(conversation, update)
            if grown is not None:  # what `b.receive` does when the work only grew
                b.conversation = grown
                b.at += 1
            else:
                b.receive(message)
                moved = b.sent is not sent
        if role is not None:
            known = roles.get(message_id)
            if known is None:
                known = session.message_role(message_id)
            if known is None or known == role:
                roles[message_id] = role
                run.append(update)
                changed.append(True)
                if moved:
                    break
                if quiet:
                    streak = (type(update), message_id)
                continue
        tool_call_id = plain_tool_chunk(update)
        if tool_call_id is not None and (
            tool_call_id in session.tool_calls or tool_call_id in created
        ):
            # Appended to a known tool call: nothing to find, a new view; the work's tool
            # calls grow as `apply_update` grows them (no update of the run moves the
            # foreground).
            if session.foreground.state != "idle":
                b.work_tool_calls = b.work_tool_calls.set(tool_call_id, True)
            run.append(update)
            changed.append(True)
            if moved:
                break
            continue
        tool_call_id = plain_tool_call_update(update, revision)
        if tool_call_id is not None and (
            tool_call_id in session.tool_calls or tool_call_id in created
        ):
            fields = patched.get(tool_call_id)
            if fields is None:
                shown = b.view.tool_calls.get(tool_call_id)
                fields = (
                    None if shown is None else (shown.status, shown.raw_input, shown.raw_output)
                )
            if fields is not None:
                # A patch of a known tool call's status and raw values: it changes the view
                # exactly when one of its fields differs from what the view shows (`reduce`
                # gives the state itself back for a patch that changes nothing).
                patch: Any = update
                status, raw_input, raw_output = fields
                after = (
                    status if patch.status is UNSET else patch.status,
                    raw_input if patch.raw_input is UNSET else patch.raw_input,
                    raw_output if patch.raw_output is UNSET else patch.raw_output,
                )
                patched[tool_call_id] = after
                if session.foreground.state != "idle":
                    b.work_tool_calls = b.work_tool_calls.set(tool_call_id, True)
                run.append(update)
                changed.append(after != fields)
                if moved:
                    break
                continue
        if type(update) is ToolCallUpdate:
            tool_call_id = update.tool_call_id
            if (
                tool_call_id
                and tool_call_id not in session.tool_calls
                and tool_call_id not in created
                and tool_call_id not in b.view.tool_calls
            ):
                # A tool call's first sight: judged as `apply_update` judges it (what it
                # breaks reads only whether its id is known, and `run` knows it not), then
                # folded; it moves no foreground, and a new tool call is a new view.
                b.record(update_findings(revision, session, update))
                first = patched_tool_call(NEW_TOOL_CALL, update)
                patched[tool_call_id] = (first.status, first.raw_input, first.raw_output)
                created.add(tool_call_id)
                if session.foreground.state != "idle":
                    b.work_tool_calls = b.work_tool_calls.set(tool_call_id, True)
                run.append(update)
                changed.append(True)
                if moved:
                    break
                continue
        if type(update) in _SESSION_WIDE:
            # A session-wide report: judged as `apply_update` judges it (what it breaks reads
            # the update alone), folded in its place; it moves no foreground and touches no
            # tool call, so only `probe` can say whether it changes the view.
            b.record(update_findings(revision, session, update))
            reported = probe
            probe = reduce(probe, update, revision=revision)
            run.append(update)
            changed.append(probe is not reported)
            if moved:
                break
            continue
        _fold_run(b, run)
        roles.clear()
        patched.clear()
        created.clear()
        view = b.view
        apply_update(b, update)
        session = probe = b.session
        changed.append(b.view is not view)
        if moved:
            break
    _fold_run(b, run)
    return _next_engine(engine, b), changed


#: Reports of the session as a whole (`SessionState.aux`: the usage, the session's info),
#: which a run folds in its place: no other update of a run touches what they change.
_SESSION_WIDE: Final = frozenset({UsageUpdate, SessionInfoUpdate})


def _fold_run(b: Build, run: list[SessionUpdate]) -> None:
    # Plain chunks move no foreground: only the session and the view change (the view stays
    # the session itself when no local mark sets it apart).
    if not run:
        return
    revision = b.engine.revision
    session, view = b.session, b.view
    folded = fold(session, run, revision=revision)
    b.session = folded
    b.view = folded if view is session else fold(view, run, revision=revision)
    run.clear()
