"""What only the agent connection does in feeding the protocol machine's connection-wide part.

Owns: the agent's `FeedsTheMachine` (`own = "agent"`; on `_engines/_connection_judging.py`),
the half of the agent connection's step builder (`Build`, `_connection_agent_state.py`) that
shows `AgentConnection.rules` what the step received (its JSON on arrival), then what it
sends: a batch's reply array as its JSON and then each reply, the bulk of the agent's output
tested in its JSON form and never decoded for them; and `judged_first`, a child's
`state_update` shown to the rules across sessions before its engine's lifecycle. A MUST the
agent would break in a step the host asked for is refused (nothing changed, `refuses`);
everything else, and all the client's faults, are `Finding` events.
Must not know: sessions, engines, which method is answered how, bytes; what any rule says.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp_core._errors import LocalProtocolError
from acp_core._rules._catalogue import RULES
from acp_core._rules._check_exchange import exchange_quiet_wire
from acp_core._rules._check_preview import quiet_wire
from acp_core._rules._predicates import RequestKey
from acp_core._wire._codec import decode_message, encode_message
from acp_core._wire._jsonrpc import Batch, InvalidEntry, Message, UpdateSessionNotification

from . import _connection_judging

__all__ = ["FeedsTheMachine", "judged_first"]


class FeedsTheMachine(_connection_judging.FeedsTheMachine):
    """The agent's machine-feeding half of one step's builder (local to one call; `Build`
    is the whole). The attributes are the builder's: what arrived and is sent this step,
    and whether the step's input came from the client."""

    own = "agent"
    wire: list[Any]
    inbound: list[Message]
    cancels: dict[int, Callable[[RequestKey], bool | None] | None] | None
    _sent: dict[int, Message]

    def speaks_v1(self) -> bool:
        return self.changes.get("v1", self.conn.v1) is not None

    def refuses(self) -> bool:
        # Sent in answer to the client (a replay, an answer) it is a finding: receiving
        # never raises. Only a step the host asked for refuses.
        return not self.heard

    def heard_decoded(self, decoded: Message | Batch) -> None:
        """A message the host decoded itself (`Received`): the exchange rules read its JSON
        as they read the bytes' (the JSON-RPC framing rules judge the raw shape)."""
        self.heard = True
        if self.rules.exchange is not None and not self.speaks_v1():
            self.exchanged_raw("client", encode_message(decoded, revision=self.conn.revision))

    def judges_schema(self) -> bool:
        """The client's lines are judged against the v2 schema (D1) as the checker judges
        them: not once serving v1 (its lines are v1's)."""
        return not self.speaks_v1()

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
            self.exchanged("client", message)
        for index, wire in enumerate(self.wire):
            if type(wire) is list:  # a batch's reply array: its JSON, then each reply
                if not self.exchanged_raw("agent", wire):
                    for item in self._items(index):
                        self.exchanged("agent", item)
                continue
            exchange = self.rules.exchange
            if exchange is not None and exchange_quiet_wire(exchange, "agent", wire):
                continue  # the bulk: the agent's output
            if not self.exchanged_raw("agent", wire):
                self.exchanged("agent", self._decoded(index))

    def _judged(self) -> None:
        # The rules across the sessions of the connection (`_rules/_check_preview.py`, the
        # checker's one home for them) over what arrived, then what this step sends.
        for index, message in enumerate(self.inbound):
            cancels = self.cancels.get(index) if self.cancels else None
            self.judge_message("client", message, cancels=cancels)
        for index, wire in enumerate(self.wire):
            if type(wire) is list:  # a batch's reply array: each reply
                for item in self._items(index):
                    self.judge_message("agent", item)
                continue
            judge = self.rules.judge
            if judge is not None and quiet_wire(judge, "agent", wire):
                self.judge_quiet()  # the bulk of the traffic: text chunks
                continue
            self.judge_message("agent", self._decoded(index))
        self.judge_end()


def judged_first(b: FeedsTheMachine, message: UpdateSessionNotification) -> None:
    """Refuse a child's `state_update` that breaks a MUST of the rules across sessions
    before the engine's lifecycle sees it, in the machine's order (`ProtocolDraft.message`:
    those rules, then the session's lifecycle): R50's idle of a child that never reported
    `running` is R50's, as `check_trace` names it, not the engine's repeated idle (S2).
    Only a child's state (rare next to its chunks); `done` judges it again as it goes out."""
    if b.conn.v1 is not None:
        return
    _, found = b.conn.rules.across("agent", message)
    for rule_id, why in found:
        rule = RULES[rule_id]
        if rule.side == "agent" and rule.mandatory:
            raise LocalProtocolError(rule_id, f"{why} (the rule: {rule.summary})")
