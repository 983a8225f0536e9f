"""What one client-connection step shows the protocol machine's connection-wide parts.

Owns: `FeedsTheMachine`, the half of the client connection's step builder (`Build`,
`_engines/_connection_client_state.py`) that feeds what a step received and sent to the
checker's exchange rules (`_rules/_check_exchange.ExchangeRules`: JSON-RPC framing, the
answers to session management, what `initialize` advertised; every v2 revision) and to its
rules across the sessions of the connection (`_rules/_check_preview.PreviewState`, the
connection's `judge`; from 2026-11 on), in the machine's order: what arrived (its JSON as it
arrives, the judge in `done`), then what the step sends. The agent's faults are `Finding`
events; a MUST this client would break by sending is refused before anything changes.
Must not know: sessions and engines beyond the session machine's word on what a cancel
cancels (`cancels_of`, the builder's), which message is handled how, bytes; what any rule
says (the rules' own modules decide). The agent side's twin is
`_engines/_connection_agent_judging.py`.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Any

from acp_core._errors import LocalProtocolError
from acp_core._rules._catalogue import RULES
from acp_core._rules._check_exchange import ExchangeRules, exchange_quiet
from acp_core._rules._check_preview import PreviewState, observe_connection, quiet
from acp_core._rules._predicates import RequestKey
from acp_core._wire._codec import decode_message
from acp_core._wire._jsonrpc import CancelSessionNotification, Message, Request

from ._connection_values import JudgedConnection

__all__ = ["FeedsTheMachine", "session_of"]



class FeedsTheMachine:
    """The machine-feeding half of one step's builder (local to one call; `Build` is the
    whole). The attributes are the builder's: what arrived and is sent this step, the
    exchange rules as they stand, whether the connection serves v1."""

    conn: JudgedConnection
    changes: dict[str, Any]
    wire: list[dict[str, Any]]
    inbound: list[Message]
    judged_envelopes: list[Message]
    exchange: ExchangeRules | None
    v1: object

    def finding(self, rule: str, detail: str) -> None:
        raise NotImplementedError  # the builder's

    def cancels_of(self, session_id: str) -> Callable[[RequestKey], bool | None] | None:
        raise NotImplementedError  # the builder's: the session machine before the cancel

    def judged_finding(self, rule: str, detail: str) -> None:
        """A finding the connection would make on its own for a rule the judge decides: made
        only when no judge runs, so one fault is one finding from one home. Its callers
        (`_connection_client_preview`) handle children, which exist only at the Preview,
        where the judge runs unless the agent negotiated v1 (its wire is normalized, the
        judge does not see it, yet a `subagent_update` still arrives): that is where it
        speaks (tests/test_one_home_parties.py reaches it)."""
        if self.conn.judge is None or self.v1 is not None:
            self.finding(rule, detail)

    @property
    def judges_exchange(self) -> bool:
        """The checker's exchange rules run (v2): a finding they make is not made twice."""
        return self.exchange is not None and self.v1 is None

    def exchanged_raw(self, side: str, raw: object) -> bool:
        """Show the exchange rules the JSON of one wire message of `side` (before decoding);
        True when their finding names its fault (the connection handles it no further, as
        the checker judges it no further)."""
        rules = self.exchange
        if rules is None or self.v1 is not None:
            return False
        self.exchange, found, judged = rules.see_raw(side, raw)
        self._exchange_findings(side, found)
        return judged

    def exchanged(self, side: str, message: Message) -> None:
        """Show the exchange rules one decoded message of `side` (an item of a batch)."""
        rules = self.exchange
        if rules is None or self.v1 is not None or exchange_quiet(rules, side, message):
            return
        self.exchange, found = rules.see(side, message)
        self._exchange_findings(side, found)

    def _exchange_findings(self, side: str, found: list[tuple[str, str]]) -> None:
        for rule_id, why in found:
            rule = RULES[rule_id]
            if side == "client" and rule.side == "client" and rule.mandatory:
                # this client would break a MUST by sending it: refused, nothing changed
                raise LocalProtocolError(rule_id, f"{why} (the rule: {rule.summary})")
            self.finding(rule_id, why)

    def received(self, message: Message) -> None:
        """`message` arrived (decoded, one item of a batch): the judge sees it in `done`."""
        if self.conn.judge is not None and self.v1 is None:
            self.inbound.append(message)

    def _sent(self) -> list[Message]:
        # What this step sends, decoded (the connection writes single messages, never batches)
        # and shown to the exchange rules in wire order (what arrived was shown on arrival).
        sent = []
        for wire in self.wire:
            message = decode_message(wire, revision=self.conn.revision)
            if not self.exchanged_raw("client", wire):
                self.exchanged("client", message)  # type: ignore[arg-type]
            sent.append(message)
        return sent  # type: ignore[return-value]

    def _judged(self, sent: list[Message]) -> None:
        # The rules across the sessions of the connection (children, replay windows, keys,
        # item cancels: `_rules/_check_preview.py`, the checker's one home for them) over
        # what arrived, then what this step sends, in wire order. The agent's faults are
        # findings; a MUST this client would break by sending is refused (nothing changed).
        judge, at = self.conn.judge, self.conn.judged
        assert judge is not None
        judged = self.judged_envelopes
        for message in self.inbound:
            named = any(m is message for m in judged) if judged else False
            if not named and quiet(judge, "agent", message):  # the bulk: text chunks
                at += 1
                continue
            judge, at = self._observe(judge, at, "agent", message, named)
        for message in sent:
            judge, at = self._observe(judge, at, "client", message)
        self.changes["judge"], self.changes["judged"] = judge, at

    def _observe(
        self, judge: PreviewState, at: int, sender: str, message: object, named: bool = False
    ) -> tuple[PreviewState, int]:
        session = session_of(message)
        cancels = None
        if type(message) is CancelSessionNotification and session is not None:
            cancels = self.cancels_of(session)
        # `named`: the envelope's fault was reported on arrival (`route_child`), so the judge
        # adds nothing for it at the announcement, as the checker after its J3 (`judged_j3`).
        judge, findings = observe_connection(
            judge, at, sender, message, session=session, judged_j3=named, cancels=cancels
        )
        for f in findings:
            rule = RULES[f.rule]
            if sender == "client" and rule.side == "client" and rule.mandatory:
                raise LocalProtocolError(f.rule, f"{f.message} (the rule: {rule.summary})")
            self.finding(f.rule, f.message)
        return judge, at + 1


def session_of(message: object) -> str | None:
    # The session a message belongs to, as the checker routes it (an answer's session is
    # the judge's own business: it pairs answers with requests itself).
    if type(message) is Request:
        params = message.params
        sid = params.get("sessionId") if isinstance(params, Mapping) else None
        return sid if isinstance(sid, str) else None
    sid = getattr(message, "session_id", None)
    return sid if isinstance(sid, str) else None
