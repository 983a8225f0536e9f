"""What only the client connection does in feeding the protocol machine's connection-wide part.

Owns: the client's `FeedsTheMachine` (`own = "client"`; on `_engines/_connection_judging.py`),
the half of the client connection's step builder (`Build`, `_connection_client_state.py`)
that shows `ClientConnection.rules` what arrived (its JSON and messages as they arrive, the
judge in `done`), then what the step sends, with what a client's `session/cancel` cancels
(`cancels_of`, the builder's); and `judged_finding`, a finding the connection makes itself
only where no judge runs. The agent's faults are `Finding` events; a MUST this client would
break by sending is refused before anything changes.
Must not know: sessions and engines beyond the session machine's word on a cancel, which
message is handled how, bytes; what any rule says (the rules' own modules decide).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

from acp_core._rules._connection_rules import session_of
from acp_core._rules._predicates import RequestKey
from acp_core._wire._codec import decode_message
from acp_core._wire._jsonrpc import CancelSessionNotification, Message

from . import _connection_judging

__all__ = ["FeedsTheMachine", "session_of"]


class FeedsTheMachine(_connection_judging.FeedsTheMachine):
    """The client's machine-feeding half of one step's builder (local to one call; `Build`
    is the whole). The attributes are the builder's: what arrived and is sent this step,
    whether the connection serves v1."""

    own = "client"
    wire: list[dict[str, Any]]
    inbound: list[Message]
    judged_envelopes: list[Message]
    v1: object

    def cancels_of(self, session_id: str) -> Callable[[RequestKey], bool | None] | None:
        raise NotImplementedError  # the builder's: the session machine before the cancel

    def speaks_v1(self) -> bool:
        return self.v1 is not None

    def judged_finding(self, rule: str, detail: str) -> None:
        """A finding the connection would make on its own for a rule the judge decides: made
        only when no judge runs, so one fault is one finding from one home. Its callers
        (`_connection_client_preview`) handle children, which exist only at the Preview,
        where the judge runs unless the agent negotiated v1 (its wire is normalized, the
        judge does not see it, yet a `subagent_update` still arrives): that is where it
        speaks (tests/test_one_home_parties.py reaches it)."""
        if self.conn.rules.judge is None or self.v1 is not None:
            self.finding(rule, detail)

    @property
    def judges_exchange(self) -> bool:
        """The checker's exchange rules run (v2): a finding they make is not made twice."""
        return self.rules.exchange is not None and self.v1 is None

    def received(self, message: Message) -> None:
        """`message` arrived (decoded, one item of a batch): the judge sees it in `done`."""
        if self.conn.rules.judge is not None and self.v1 is None:
            self.inbound.append(message)

    def _sent(self) -> list[Message]:
        # What this step sends, decoded (the connection writes single messages, never batches)
        # and shown to the exchange rules in wire order (what arrived was shown on arrival).
        sent = []
        for wire in self.wire:
            message = decode_message(wire, revision=self.conn.revision)
            if not self.exchanged_raw("client", wire):
                self.exchanged("client", message)
            sent.append(message)
        return sent  # type: ignore[return-value]

    def _judged(self, sent: list[Message]) -> None:
        # The rules across the sessions of the connection (`_rules/_check_preview.py`, the
        # checker's one home for them) over what arrived, then what this step sends, in wire
        # order. An envelope whose fault was reported on arrival (`route_child`) is `named`:
        # the judge adds nothing for it at the announcement, as the checker after its J3.
        judged = self.judged_envelopes
        for message in self.inbound:
            named = any(m is message for m in judged) if judged else False
            self.judge_message("agent", message, named=named, cancels=self._cancels(message))
        for message in sent:
            self.judge_message("client", message, cancels=self._cancels(message))
        self.judge_end()

    def _cancels(self, message: object) -> Callable[[RequestKey], bool | None] | None:
        # What a `session/cancel` cancels, as its session's machine says before it (R71).
        if type(message) is CancelSessionNotification:
            return self.cancels_of(message.session_id)
        return None
