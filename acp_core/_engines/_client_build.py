"""One step of the client engine, as it is being built: messages sent and received through
the conversation machine of their session, changes, violations.

Owns: `Build` (local to one `client_step` call: what it sends, the engine fields it changes,
the agent's faults it records, our own faults it refuses) and the copying of the machine's
prompt binding into the prompt records.
Must not know: what any intent or received message means (`_engines/_client.py`,
`_engines/_client_preview.py`).
"""

from __future__ import annotations

from typing import TYPE_CHECKING, Any

import attrs

from acp_core._errors import LocalProtocolError
from acp_core._rules._catalogue import RULES
from acp_core._rules._check import Violation
from acp_core._rules._conversation import Conversation, Finding, observe
from acp_core._rules._predicates import RequestKey
from acp_core._state._pcoll import PMap
from acp_core._wire._codec import encode_message
from acp_core._wire._fastnew import fast_evolve
from acp_core._wire._jsonrpc import Message

from ._client_prompts import SentPrompt
from ._intents import Step

if TYPE_CHECKING:
    from ._client import ClientEngine

__all__ = ["Build", "machine_follows"]


class Build:
    """Collects one step's changes. Local to a single step call, never shared."""

    def __init__(self, engine: ClientEngine) -> None:
        self.engine = engine
        self.wire: list[dict[str, Any]] = []
        self.changes: dict[str, Any] = {}
        self.conversation = engine.conversation
        self.violations: list[Violation] = []
        self.ids: list[int | str | None] = []
        self.at = engine.messages

    def get(self, name: str) -> Any:
        return self.changes[name] if name in self.changes else getattr(self.engine, name)

    def set(self, **changes: Any) -> None:
        self.changes.update(changes)

    def machine(self, session: str | None) -> Conversation:
        if session is None or session == self.engine.session_id:
            return self.conversation
        lifecycles: PMap[str, Conversation] = self.get("lifecycles")
        found = lifecycles.get(session)
        return Conversation.mid_session(self.engine.revision) if found is None else found

    def keep(self, session: str | None, conv: Conversation) -> None:
        if session is None or session == self.engine.session_id:
            self.conversation = conv
        else:
            self.set(lifecycles=self.get("lifecycles").set(session, conv))

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

    def done(self) -> Step[ClientEngine]:
        if self.violations:
            self.set(violations=(*self.engine.violations, *self.violations))
        # One generated rebuild (fields without converters): this runs once per message.
        engine = fast_evolve(
            self.engine, conversation=self.conversation, messages=self.at, **self.changes
        )
        return Step(engine, tuple(self.wire), tuple(self.ids))


def _hinted(finding: Finding) -> str:
    return f"{finding.message} (the rule: {RULES[finding.rule].summary})"


def _sync_prompts(b: Build, conv: Conversation) -> None:
    # Copy the machine's binding (Q7) and the end of each prompt's work into the records.
    sent: PMap[RequestKey, SentPrompt] = b.get("sent")
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
    b.set(sent=sent)


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
    return b.done().state
