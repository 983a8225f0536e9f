"""One step of the client engine, as it is being built: messages sent and received through
the conversation machine of their session, changes, violations.

Owns: `Build` (local to one `client_step` call: what it sends, the engine fields it changes,
each a typed attribute, so `mypy --strict` refuses a misspelled or mistyped field and
`__slots__` a misspelled one at run time; the agent's faults it records, our own faults it
refuses), `ClientView` (what a step reads of the engine it steps), the request ids of the
requests a step numbers (`Build.request_id`), and the copying of the machine's prompt binding
into the prompt records.
Must not know: what any intent or received message means (the step modules,
`_engines/_client_*.py`), nor `ClientEngine` itself: a step reads the engine through
`ClientView` and `_engines/_client.py` makes the next engine of a finished `Build`, so no step
module imports the engine's module.
"""

from __future__ import annotations

from typing import Any, Protocol

import attrs

from acp_core._errors import LocalProtocolError
from acp_core._rules._catalogue import RULES
from acp_core._rules._check import Violation
from acp_core._rules._conversation import Conversation, Finding, observe
from acp_core._rules._predicates import RequestKey, request_key
from acp_core._state._pcoll import PMap, PVec
from acp_core._state._reduce_children import SessionTree
from acp_core._state._session_state import SessionState
from acp_core._wire._codec import encode_message
from acp_core._wire._jsonrpc import Message, RequestPermissionRequest
from acp_core._wire._revision import Revision

from ._client_records import SentPrompt

__all__ = ["Build", "ClientView"]


class ClientView(Protocol):
    """What a step reads of the engine it steps (`ClientEngine` is the one implementation;
    the step modules see it through this, so none imports `_engines/_client.py`)."""

    @property
    def session(self) -> SessionState: ...
    @property
    def view(self) -> SessionState: ...
    @property
    def revision(self) -> Revision: ...
    @property
    def session_id(self) -> str: ...
    @property
    def sent(self) -> PMap[RequestKey, SentPrompt]: ...
    @property
    def order(self) -> PVec[RequestKey]: ...
    @property
    def pending(self) -> PMap[int | str | None, RequestPermissionRequest]: ...
    @property
    def work_tool_calls(self) -> PMap[str, bool]: ...
    @property
    def next_request_id(self) -> int: ...
    @property
    def conversation(self) -> Conversation: ...
    @property
    def children(self) -> SessionTree: ...
    @property
    def lifecycles(self) -> PMap[str, Conversation]: ...
    @property
    def requests(self) -> PMap[RequestKey, tuple[str, str]]: ...
    @property
    def messages(self) -> int: ...


class Build:
    """Collects one step's changes. Local to a single step call, never shared.

    `engine` is the engine as the step began; the other attributes start as the engine's and
    are what the step changed: `_engines/_client.py` makes the next engine of them."""

    __slots__ = (
        "at",
        "children",
        "conversation",
        "engine",
        "ids",
        "lifecycles",
        "next_request_id",
        "order",
        "pending",
        "requests",
        "sent",
        "session",
        "view",
        "violations",
        "wire",
        "work_tool_calls",
    )

    def __init__(self, engine: ClientView) -> None:
        self.engine = engine
        self.wire: list[dict[str, Any]] = []
        self.conversation = engine.conversation
        self.violations: list[Violation] = []  # the agent's, found in this step
        self.ids: list[int | str | None] = []
        self.at = engine.messages
        # The engine's fields a step may change.
        self.session = engine.session
        self.view = engine.view
        self.sent = engine.sent
        self.order = engine.order
        self.pending = engine.pending
        self.work_tool_calls = engine.work_tool_calls
        self.next_request_id = engine.next_request_id
        self.children = engine.children
        self.lifecycles = engine.lifecycles
        self.requests = engine.requests

    def machine(self, session: str | None) -> Conversation:
        if session is None or session == self.engine.session_id:
            return self.conversation
        found = self.lifecycles.get(session)
        return Conversation.mid_session(self.engine.revision) if found is None else found

    def keep(self, session: str | None, conv: Conversation) -> None:
        if session is None or session == self.engine.session_id:
            self.conversation = conv
        else:
            self.lifecycles = self.lifecycles.set(session, conv)

    def send(self, message: Message, session: str | None = None) -> None:
        """Send `message` (of our own session, or of the child `session`)."""
        conv, findings = observe(self.machine(session), "client", message, at=self.at)
        self.keep(session, conv)
        self.at += 1
        for f in findings:
            # What our own message shows can be the agent's fault (R11 shows at the answer).
            if RULES[f.rule].side == "agent" or f.warning:
                self.record((f,))
            else:
                raise LocalProtocolError(f.rule, _hinted(f))
        self.wire.append(encode_message(message, revision=self.engine.revision))

    def receive(self, message: Message, session: str | None = None) -> None:
        """Follow a message of the agent through the machine of its session; keep what it
        broke."""
        before = self.machine(session)
        after, findings = observe(before, "agent", message, at=self.at)
        self.keep(session, after)
        self.at += 1
        self.record(findings)
        if after is not self.conversation:
            return
        if after.prompts is not before.prompts or after.ended:
            _sync_prompts(self, after)

    def record(self, findings: tuple[Finding, ...] | list[tuple[str, str]]) -> None:
        at = self.at - 1
        for f in findings:
            rule, message, where, warning = (
                (f.rule, f.message, f.at, f.warning)
                if isinstance(f, Finding)
                else (f[0], f[1], at, False)
            )
            self.violations.append(Violation(rule, RULES[rule].level, where, message, warning))

    def request_id(self, given: int | str | None) -> int | str | None:
        """The id of a request this step sends besides a prompt (an item cancel, a retry):
        `given`, refused when a prompt or such a request already used it (E2), or the next
        free one of the counter."""
        sent = self.sent
        requests = self.requests
        if given is not None:
            if request_key(given) in sent or request_key(given) in requests:
                raise LocalProtocolError("E2", f"request id {given!r} was already used")
            return given
        request_id = self.next_request_id
        while request_key(request_id) in sent or request_key(request_id) in requests:
            request_id += 1
        self.next_request_id = request_id + 1
        self.ids.append(request_id)
        return request_id


def _hinted(finding: Finding) -> str:
    return f"{finding.message} (the rule: {RULES[finding.rule].summary})"


def _sync_prompts(b: Build, conv: Conversation) -> None:
    # Copy the machine's binding (Q7) and the end of each prompt's work into the records.
    sent = b.sent
    revision = b.engine.revision
    for p in conv.prompts:
        record = sent.get(p.key)
        message_id = p.message_id(revision)
        if record is not None and message_id is not None and record.message_id != message_id:
            sent = sent.set(p.key, attrs.evolve(record, message_id=message_id))
    for p, stop in conv.ended:
        record = sent.get(p.key)
        if record is not None:
            message_id = p.message_id(revision) or record.message_id
            sent = sent.set(
                p.key, attrs.evolve(record, message_id=message_id, ended=True, stop_reason=stop)
            )
    b.sent = sent
