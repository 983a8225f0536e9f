"""What one agent-connection step shows the protocol machine's connection-wide parts.

Owns: `FeedsTheMachine`, the half of the agent connection's step builder (`Build`,
`_engines/_connection_agent_state.py`) that feeds what a step received and sent to the
checker's exchange rules (`_rules/_check_exchange.ExchangeRules`: JSON-RPC framing, the
answers to session management, what `initialize` advertised; every revision) and to its
rules across the sessions of the connection (`_rules/_check_preview.PreviewState`, the
connection's `judge`; from 2026-11 on), in the machine's order: what arrived, then what the
step sends; and `judged_first`, a child's `state_update` shown to those rules before its
engine's lifecycle. A MUST the agent would break in a step the host asked for is refused
(nothing changed); everything else, and all the client's faults, are `Finding` events.
Must not know: sessions, engines, which method is answered how, bytes (the builder and the
handlers own those); what any rule says (the rules' own modules decide).
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from acp_core._errors import LocalProtocolError
from acp_core._rules._catalogue import RULES
from acp_core._rules._check_exchange import ExchangeRules, exchange_quiet, exchange_quiet_wire
from acp_core._rules._check_preview import PreviewState, observe_connection, quiet_wire
from acp_core._rules._predicates import RequestKey
from acp_core._wire._codec import decode_message, encode_message
from acp_core._wire._jsonrpc import (
    Batch,
    InvalidEntry,
    Message,
    Request,
    UpdateSessionNotification,
)

from ._connection_values import JudgedConnection

__all__ = ["FeedsTheMachine", "judged_first"]



class FeedsTheMachine:
    """The machine-feeding half of one step's builder (local to one call; `Build` is the
    whole). The attributes are the builder's: what arrived and is sent this step, the
    exchange rules as they stand, and whether the step's input came from the client."""

    conn: JudgedConnection
    changes: dict[str, Any]
    wire: list[Any]
    inbound: list[Message]
    cancels: dict[int, Callable[[RequestKey], bool | None] | None] | None
    exchange: ExchangeRules | None
    heard: bool
    _sent: dict[int, Message]

    def finding(self, rule: str, detail: str) -> None:
        raise NotImplementedError  # the builder's

    def exchanged_raw(self, sender: str, raw: object) -> bool:
        """Show the exchange rules the JSON of one wire message of `sender` (the client's
        before it is decoded, the agent's as it is sent); True when their finding names its
        fault (a reply to what asked for none: the checker judges it no further)."""
        if sender == "client":
            self.heard = True
        rules = self.exchange
        if rules is None or self._v1():
            return False
        self.exchange, found, judged = rules.see_raw(sender, raw)
        self._findings(sender, found)
        return judged

    def heard_decoded(self, decoded: Message | Batch) -> None:
        """A message the host decoded itself (`Received`): the exchange rules read its JSON
        as they read the bytes' (the JSON-RPC framing rules judge the raw shape)."""
        self.heard = True
        if self.exchange is not None and not self._v1():
            self.exchanged_raw("client", encode_message(decoded, revision=self.conn.revision))

    def _exchanged(self, sender: str, message: Message) -> None:
        rules = self.exchange
        if rules is None or exchange_quiet(rules, sender, message):
            return
        self.exchange, found = rules.see(sender, message)
        self._findings(sender, found)

    def judges_schema(self) -> bool:
        """The client's lines are judged against the v2 schema (D1) as the checker judges
        them: not once serving v1 (its lines are v1's)."""
        return not self._v1()

    def _v1(self) -> bool:
        return self.changes.get("v1", self.conn.v1) is not None

    def _findings(self, sender: str, found: list[tuple[str, str]]) -> None:
        # The agent's own MUST, in a step the host asked for, is refused (nothing changed);
        # everything else is a finding.
        for rule_id, why in found:
            rule = RULES[rule_id]
            own = sender == "agent" and rule.side == "agent" and rule.mandatory
            if own and not self.heard:
                raise LocalProtocolError(rule_id, f"{why} (the rule: {rule.summary})")
            self.finding(rule_id, why)

    def _decoded(self, index: int) -> Message:
        # One outbound message decoded (once, for whichever rules read it).
        if index not in self._sent:
            decoded = decode_message(self.wire[index], revision=self.conn.revision)
            self._sent[index] = decoded  # type: ignore[assignment]
        return self._sent[index]

    def _items(self, index: int) -> list[Message]:
        # The replies of a reply array on the wire, decoded.
        batch = decode_message(self.wire[index], revision=self.conn.revision)
        items = batch.items if type(batch) is Batch else ()
        return [item for item in items if type(item) is not InvalidEntry]  # type: ignore[misc]

    def _exchange_step(self) -> None:
        # What arrived (its JSON was shown on arrival), then what this step sends, in order.
        for message in self.inbound:
            self._exchanged("client", message)
        for index, wire in enumerate(self.wire):
            rules = self.exchange
            assert rules is not None
            if type(wire) is list:  # a batch's reply array: its JSON, then each reply
                if not self.exchanged_raw("agent", wire):
                    for item in self._items(index):
                        self._exchanged("agent", item)
                continue
            if exchange_quiet_wire(rules, "agent", wire):  # the bulk: the agent's output
                continue
            if not self.exchanged_raw("agent", wire):
                self._exchanged("agent", self._decoded(index))

    def _judged(self) -> None:
        # The rules across the sessions of the connection (`_rules/_check_preview.py`, the
        # checker's one home for them) over what arrived, then what this step sends. The
        # client's faults are findings. A MUST this agent would break by sending is refused
        # when the host asked for it (nothing changed); sent in answer to the client (a
        # replay, an answer), it is a finding: receiving never raises.
        judge, at = self.conn.judge, self.conn.judged
        assert judge is not None
        for index, message in enumerate(self.inbound):
            cancels = self.cancels.get(index) if self.cancels else None
            judge, at = self._observe(judge, at, "client", message, cancels)
        for index, wire in enumerate(self.wire):
            if type(wire) is list:  # a batch's reply array: each reply
                for item in self._items(index):
                    judge, at = self._observe(judge, at, "agent", item)
                continue
            if quiet_wire(judge, "agent", wire):  # the bulk of the traffic: text chunks
                at += 1
                continue
            judge, at = self._observe(judge, at, "agent", self._decoded(index))
        self.changes["judge"], self.changes["judged"] = judge, at

    def _observe(
        self,
        judge: PreviewState,
        at: int,
        sender: str,
        message: object,
        cancels: Callable[[RequestKey], bool | None] | None = None,
    ) -> tuple[PreviewState, int]:
        sid = getattr(message, "session_id", None)
        if type(message) is Request and isinstance(message.params, Mapping):
            sid = message.params.get("sessionId")
        session = sid if isinstance(sid, str) else None
        judge, findings = observe_connection(
            judge, at, sender, message, session=session, cancels=cancels
        )
        self._findings(sender, [(f.rule, f.message) for f in findings])
        return judge, at + 1



def judged_first(b: FeedsTheMachine, message: UpdateSessionNotification) -> None:
    """Refuse a child's `state_update` that breaks a MUST of the rules across sessions
    before the engine's lifecycle sees it, in the machine's order (`ProtocolDraft.message`:
    those rules, then the session's lifecycle): R50's idle of a child that never reported
    `running` is R50's, as `check_trace` names it, not the engine's repeated idle (S2).
    Only a child's state (rare next to its chunks); `done` judges it again as it goes out."""
    judge = b.conn.judge
    if judge is None or b.conn.v1 is not None:
        return
    _, found = observe_connection(
        judge, b.conn.judged, "agent", message, session=message.session_id
    )
    for f in found:
        rule = RULES[f.rule]
        if rule.side == "agent" and rule.mandatory:
            raise LocalProtocolError(f.rule, f"{f.message} (the rule: {rule.summary})")
