"""What one agent step builds, and the checks every agent intent shares.

Owns: `Build` (one step's changes: the session folded so far, the wire dicts, the machine,
the generated ids, and every engine field a step may change, each a typed attribute: `mypy
--strict` refuses a misspelled or mistyped field, `__slots__` refuses a misspelled one at run
time), `AgentView` (what a step reads of the engine it steps), `refuse` and `remote`, the
checks of intents no message carries alone (message ids, known tool calls), and the one
judging home of every outbound message's own values:
`Build.obey` (every update, through the checker's judgement of one update,
`_rules/_check_message.update_findings`) and `Build.single` (every other message the checker
judges on its own: permission requests, `MessageRules.permission`).
Must not know: what any particular intent means (the step modules, `_engines/_agent_*.py`),
nor `AgentEngine` itself: a step reads the engine through `AgentView` and `_engines/_agent.py`
makes the next engine of a finished `Build`, so no step module imports the engine's module.
"""

from __future__ import annotations

from typing import Any, Final, Protocol

import attrs

from acp_core._errors import LocalProtocolError, RemoteProtocolError
from acp_core._rules._catalogue import RULES
from acp_core._rules._check import Violation
from acp_core._rules._check_message import MessageRules, StateSeen, update_findings
from acp_core._rules._conversation import Conversation, Finding, Sender, observe
from acp_core._rules._naming import named_sessions
from acp_core._state._pcoll import PMap
from acp_core._state._reduce import reduce
from acp_core._state._reduce_children import SessionTree
from acp_core._state._session_state import SessionState
from acp_core._wire._codec import decode_update, encode_message, encode_update
from acp_core._wire._content import (
    ContentBlock,
    TextContent,
)
from acp_core._wire._fields import PREVIEW_NAME, since_of
from acp_core._wire._json import UNSET
from acp_core._wire._jsonrpc import (
    ErrorCode,
    Message,
    PromptRequest,
    RequestPermissionRequest,
    UpdateSessionNotification,
)
from acp_core._wire._revision import Revision
from acp_core._wire._updates import (
    IdleStateUpdate,
    RequiresActionStateUpdate,
    RunningStateUpdate,
    SessionUpdate,
    ToolCallContentChunk,
    ToolCallUpdate,
)
from acp_core._wire._updates_2026_11 import BackgroundWork

from ._agent_records import PendingPermission, PermissionDecision, Turn
from ._idempotency import KeyLedger

#: The state updates that carry the background list (R74).
_LISTING: Final = (RunningStateUpdate, IdleStateUpdate, RequiresActionStateUpdate)

__all__ = [
    "AgentView",
    "Build",
    "KnownSessions",
    "as_block",
    "known_tool_call",
    "new_message_id",
    "refuse",
    "remote",
]


class AgentView(Protocol):
    """What a step reads of the engine it steps (`AgentEngine` is the one implementation;
    the step modules see it through this, so none imports `_engines/_agent.py`)."""

    @property
    def session(self) -> SessionState: ...
    @property
    def session_id(self) -> str: ...
    @property
    def revision(self) -> Revision: ...
    @property
    def id_prefix(self) -> str: ...
    @property
    def conversation(self) -> Conversation: ...
    @property
    def messages(self) -> int: ...
    @property
    def prompts(self) -> tuple[PromptRequest, ...]: ...
    # The stored records behind the `turn` and `pending` properties: what `Build` starts
    # from. They hold no cancel and no blocking: a step asks the machine (`conversation`).
    @property
    def _turn(self) -> Turn | None: ...
    @property
    def _pending(self) -> PMap[int | str | None, PendingPermission]: ...
    @property
    def decisions(self) -> PMap[int | str | None, PermissionDecision]: ...
    @property
    def open_message(self) -> tuple[str, str] | None: ...
    @property
    def counter(self) -> int: ...
    @property
    def next_request_id(self) -> int: ...
    @property
    def children(self) -> SessionTree: ...
    @property
    def child_conversations(self) -> PMap[str, Conversation]: ...
    @property
    def keys(self) -> KeyLedger: ...
    @property
    def background(self) -> tuple[BackgroundWork, ...] | None: ...


class KnownSessions(Protocol):
    """What the party stepping an engine knows of the connection's sessions beyond the
    engine's own tree (the agent connection's cross-session judge,
    `_rules/_check_preview.PreviewState`)."""

    def knows(self, session_id: str) -> bool: ...


class Build:
    """Collects one step's changes. Local to a single step call, never shared.

    `engine` is the engine as the step began (read it for what the step must not see
    change, such as `engine.conversation`); the other attributes start as the engine's and
    are what the step changed: `_engines/_agent.py` makes the next engine of them.
    `elsewhere`: what the connection knows of its other sessions (None: an engine alone)."""

    __slots__ = (
        "at",
        "background",
        "child_conversations",
        "children",
        "conversation",
        "counter",
        "decisions",
        "elsewhere",
        "engine",
        "ids",
        "keys",
        "next_request_id",
        "open_message",
        "pending",
        "session",
        "turn",
        "violations",
        "wire",
    )

    def __init__(self, engine: AgentView, elsewhere: KnownSessions | None = None) -> None:
        self.engine = engine
        self.elsewhere = elsewhere
        self.session = engine.session
        self.wire: list[dict[str, Any]] = []
        self.conversation = engine.conversation
        self.violations: list[Violation] = []  # the client's, found in this step
        self.ids: list[int | str | None] = []
        self.at = engine.messages
        # The engine's fields a step may change (the stored records, not the properties
        # `AgentEngine.turn` and `.pending` hand out for their deprecated reads).
        self.turn = engine._turn
        self.pending = engine._pending
        self.decisions = engine.decisions
        self.open_message = engine.open_message
        self.counter = engine.counter
        self.next_request_id = engine.next_request_id
        self.children = engine.children
        self.child_conversations = engine.child_conversations
        self.keys = engine.keys
        self.background = engine.background

    def own(self, message: Message) -> None:
        # Every message we send passes the single-message rules and the conversation machine
        # first: a finding is a rule this engine would break, refused before anything is
        # returned (the step is pure).
        self.single(self.session, message)
        self.conversation, findings = observe(self.conversation, "agent", message, at=self.at)
        self.at += 1
        self._judge(findings)

    def _judge(self, findings: tuple[Finding, ...]) -> None:
        for f in findings:
            if RULES[f.rule].side == "client" or f.warning:  # the client's fault, shown here
                self.violations.append(Violation(f.rule, RULES[f.rule].level, f.at, f.message))
            else:
                raise refuse(f.rule, f"{f.message} (the rule: {RULES[f.rule].summary})")

    def receive(self, message: Message) -> None:
        """Follow a message of the client through the machine; keep what it broke."""
        self.conversation, findings = observe(self.conversation, "client", message, at=self.at)
        self.at += 1
        for f in findings:
            self.violations.append(Violation(f.rule, RULES[f.rule].level, f.at, f.message))

    def note(self, rule: str, message: str) -> None:
        """Keep a violation of the client that no machine sees (`violations`)."""
        self.violations.append(Violation(rule, RULES[rule].level, self.at, message))

    def child_machine(self, session_id: str, sender: Sender, message: Message) -> None:
        """A child session's message through the child's own conversation machine (Preview:
        each child has the lifecycle of a session, R50; R21/R23 apply per child). The machine
        starts idle at the announcement, and the agent's findings below MUST (S1, S2) are
        refused as its own session's are: the engine's policy. The checker starts a child's
        machine mid-session (its work may predate the announcement), so it reports them only
        for a session it saw begin (tests/test_connection_send_update.py, `POLICIES`)."""
        machines = self.child_conversations
        conv = machines.get(session_id)
        if conv is None:
            conv = Conversation.start(self.engine.revision)
        conv, findings = observe(conv, sender, message, at=self.at)
        self.at += 1
        self.child_conversations = machines.set(session_id, conv)
        if sender == "agent":
            self._judge(findings)
        else:
            for f in findings:
                self.violations.append(Violation(f.rule, RULES[f.rule].level, f.at, f.message))

    def update(self, update: SessionUpdate, *, also: frozenset[str] = frozenset()) -> None:
        """Send `update` on the session; `also`: rules below MUST whose findings the intent
        refuses too, as the engine's policy (see `obey`)."""
        if type(update) in _TOOL_UPDATES:  # (a text chunk pays one type test)
            update = as_sent(update, self.engine.revision)
        background = self.background
        if background is not None and isinstance(update, _LISTING) and update.background is UNSET:
            update = attrs.evolve(update, background=background)  # R74: once reporting, always
        session_id = self.session.session_id
        for named, rule in named_sessions(update):  # only sessions the client knows
            self.name_known(session_id, named, rule)
        self.obey(self.session, update, also)
        self.own(UpdateSessionNotification(session_id, update))
        self.session = reduce(self.session, update, revision=self.engine.revision)
        self.wire.append(_update_wire(session_id, update, self.engine.revision))

    def name_known(self, on: str, named: str, rule: str) -> None:
        """Refuse with `rule` (R47, R56, R74: how the update names it, `named_sessions`) an
        update about to be sent on `on` that names the session `named` the client does not
        know: one neither in this engine's tree nor, on a connection, known to the client
        there (another session the connection set up, a child another session announced:
        `elsewhere`, the checker's `client_knows`). The checker, which judges a recording
        that may start mid-session, reports such a name only once a later `subagent_update`
        announces it as a child; the engine, which cannot take back what it sent, refuses
        it at once (tests/test_connection_send_update.py lists it as a policy)."""
        tree, elsewhere = self.children, self.elsewhere
        if named == on or named in tree.parents or named in tree.sessions:
            return
        if elsewhere is not None and elsewhere.knows(named):
            return
        raise refuse(
            rule,
            f"{named!r} is named before it was announced: announce it first with "
            "SendUpdate(SubagentUpdate(...)) on its parent",
        )

    def obey(
        self, before: SessionState, update: SessionUpdate, also: frozenset[str] = frozenset()
    ) -> None:
        """Refuse `update`, about to be sent into the session `before` folds, when the
        checker's own judgement of one update (`update_findings`, the home of R5, R18, R19,
        R31, R33, R34, R41, R43, R52, R78, J63 ...) finds a MUST; every outbound update passes
        here (`update`, `update_child`), whichever intent built it. SHOULD and MAY findings
        go out, except the rules in `also`: an intent's policy stricter than the rule's level
        (StartToolCall refuses R14, ReportUsage R37), refused in the checker's words."""
        self._refuse_must(update_findings(self.engine.revision, before, update), also)

    def refuse_found(self, findings: list[tuple[str, str]]) -> None:
        """Refuse on a MUST of the agent among `findings`, what a checker's decider said of a
        message this step is about to send (R74's background list, `_engines/_agent_items.py`)."""
        self._refuse_must(findings)

    def _refuse_must(
        self, findings: list[tuple[str, str]], also: frozenset[str] = frozenset()
    ) -> None:
        for rule, message in findings:
            if (RULES[rule].mandatory or rule in also) and RULES[rule].side != "client":
                raise refuse(rule, f"{message} (the rule: {RULES[rule].summary})")

    def single(self, before: SessionState, message: Message) -> None:
        """Refuse `message`, about to be sent into the session `before` folds, when the
        checker's single-message rules for it (`_rules/_check_message.MessageRules`) find a
        MUST that binds the agent. Updates are judged by `obey` (on the update, with its fast
        path); a permission request here (R26, R18/R19 option kinds, R43 ...). The checker
        judges no other single message an agent engine can emit (batches are the caller's)."""
        if type(message) is RequestPermissionRequest:
            rules = MessageRules(self.engine.revision)
            self._refuse_must(rules.permission(StateSeen(before), message))

    def send_child(self, session_id: str, message: Message) -> None:
        """Send a request or answer of the child `session_id` (its machine judges it)."""
        self.single(self.children.sessions[session_id], message)
        self.child_machine(session_id, "agent", message)
        self.wire.append(encode_message(message, revision=self.engine.revision))

    def update_child(self, session_id: str, update: SessionUpdate, before: SessionState) -> None:
        """Report `update` on the announced child `session_id` (its tree entry is already
        reduced by the caller; `before` is the child's session as it was before)."""
        self.obey(before, update)
        self.child_machine(session_id, "agent", UpdateSessionNotification(session_id, update))
        self.wire.append(_update_wire(session_id, update, self.engine.revision))

    def send(self, message: Message) -> None:
        self.own(message)
        self.wire.append(encode_message(message, revision=self.engine.revision))

    def new_id(self, kind: str, taken: PMap[str, Any]) -> str:
        n = self.counter
        while True:
            candidate = f"{self.engine.id_prefix}{kind}-{n}"
            n += 1
            if candidate not in taken:
                self.counter = n
                self.ids.append(candidate)
                return candidate


#: The updates whose content an intent may hold as a later revision reads it (`as_sent`).
_TOOL_UPDATES: Final = frozenset({ToolCallUpdate, ToolCallContentChunk})


def as_sent(update: SessionUpdate, revision: Revision) -> SessionUpdate:
    """`update` as `revision`'s wire carries it. A tool intent keeps its content as the
    latest revision reads it (`_engines/_intent_checks.py`: a Preview `session` reference
    stays one); at a revision whose wire has no such item it goes out as the unknown type
    that wire reads (the codec's round trip), and is judged, named and reduced as such
    (R19 for `session` at 2026-11, not R56), as the checker judges the line."""
    if revision.includes(PREVIEW_NAME):
        return update
    items: tuple[object, ...]
    if type(update) is ToolCallUpdate:
        if not isinstance(update.content, tuple):
            return update
        items = update.content
    elif type(update) is ToolCallContentChunk:
        items = (update.content,)
    else:
        return update
    if all(revision.includes(since_of(type(item))) for item in items):
        return update
    return decode_update(encode_update(update, revision=revision), revision=revision)


def _update_wire(session_id: str, update: SessionUpdate, revision: Revision) -> dict[str, Any]:
    return {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {"sessionId": session_id, "update": encode_update(update, revision=revision)},
    }


# -- checks --------------------------------------------------------------------------------


def refuse(rule: str, detail: str) -> LocalProtocolError:
    return LocalProtocolError(rule, detail)


def remote(rule: str, detail: str, code: int = ErrorCode.INVALID_REQUEST) -> RemoteProtocolError:
    """The client broke `rule` with a message no answer can carry (raised by `step`)."""
    return RemoteProtocolError(rule, detail, code)


def as_block(content: str | ContentBlock) -> ContentBlock:
    return TextContent(content) if isinstance(content, str) else content


def new_message_id(b: Build, given: str | None, role: str) -> str:
    messages = b.session.messages
    if given is None:
        return b.new_id(role, messages)
    if not given:
        # A policy stricter than R4 (a non-null id; the checker accepts ""): an empty id
        # names no message the client could tell from another.
        raise refuse("R4", "message ids are non-empty strings")
    return given


def known_tool_call(b: Build, tool_call_id: str) -> None:
    # A policy, not the checker's judgement: a patch, chunk or finish names a tool call the
    # engine started (the checker would accept a titled first patch, and say only R14, a
    # SHOULD, of an untitled one). "R13" (report the invocation with a tool call) is the
    # nearest rule, not a finding of the checker.
    if tool_call_id not in b.session.tool_calls:
        raise refuse(
            "R13", f"tool call {tool_call_id!r} was never reported: start it with StartToolCall"
        )
