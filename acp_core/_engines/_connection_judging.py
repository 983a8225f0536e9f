"""What one connection step shows the protocol machine's connection-wide part, for either side.

Owns: `FeedsTheMachine`, the role-neutral half of a connection step's builder that feeds the
connection's `rules` (`_rules/_connection_rules.ConnectionRules`, the type `Protocol.rules`
is) what the step received and sends, through that value's own functions: a line's JSON
(`exchanged_raw`), a decoded message to the exchange rules (`exchanged`) and to the judge
(`judge_message`, counting what its quiet test passes over); and what their findings mean
for the side the connection speaks for (`own`): a MUST that side would break by sending is
refused (`LocalProtocolError`, nothing changed) while `refuses` says so; all else is a
`Finding` event.
Must not know: sessions, engines, bytes, which message is handled how, what any rule says.
What only one side does stays in its module (`_connection_client_judging.py`,
`_connection_agent_judging.py`): the order it shows its traffic in, the client's cancels and
`judged_finding`, the agent's batches, wire forms and `judged_first`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, ClassVar

from acp_core._errors import LocalProtocolError
from acp_core._rules._catalogue import RULES
from acp_core._rules._check_preview import quiet
from acp_core._rules._connection_rules import ConnectionRules
from acp_core._rules._predicates import RequestKey

from ._connection_values import JudgedConnection

__all__ = ["FeedsTheMachine"]


class FeedsTheMachine:
    """The machine-feeding half of one step's builder (local to one call; the side's
    `Build` is the whole). `rules` is the connection's value as this step has fed it so far
    (the builder starts it from `conn.rules` and its `done` keeps it)."""

    #: The side this connection speaks for: the sender whose MUSTs it refuses to break.
    own: ClassVar[str]
    conn: JudgedConnection
    changes: dict[str, Any]
    rules: ConnectionRules
    heard = False  # this step's input came from the peer (set on its first line)
    # Messages the judge's quiet test passed over since it last read one (the bulk of the
    # traffic: counted here, so each costs no new value; `judge_end` adds them).
    _passed: int = 0

    def finding(self, rule: str, detail: str) -> None:
        raise NotImplementedError  # the builder's

    def speaks_v1(self) -> bool:
        """The peer speaks v1 at this point of the step: the v2 rules read none of it."""
        raise NotImplementedError  # the side's

    def refuses(self) -> bool:
        """A MUST of `own` found in what this step sends is refused (else it is a finding)."""
        return True

    def exchanged_raw(self, side: str, raw: object) -> bool:
        """Show the exchange rules the JSON of one wire line of `side` (before decoding);
        True when their finding names its fault (the connection handles it no further, as
        the checker judges it no further)."""
        if side != self.own:
            self.heard = True
        if self.speaks_v1():
            return False
        self.rules, found, judged = self.rules.see_raw(side, raw)
        if found:
            self.reported(side, found)
        return judged

    def exchanged(self, side: str, message: object) -> None:
        """Show the exchange rules one decoded message of `side` (an item of a batch)."""
        if self.speaks_v1():
            return
        self.rules, found = self.rules.see(side, message)
        if found:
            self.reported(side, found)

    def judge_message(
        self,
        side: str,
        message: object,
        *,
        named: bool = False,
        cancels: Callable[[RequestKey], bool | None] | None = None,
    ) -> None:
        """Show the rules across sessions one decoded message of `side` (in wire order; a
        step shows them all its exchange first, then this, then `judge_end`). `named`: its
        envelope's fault was reported on arrival (J3: the judge adds nothing for it);
        `cancels`: a client's `session/cancel`'s word from its session's machine (R71)."""
        rules = self.rules
        judge = rules.judge
        if judge is None:
            return
        if not named and quiet(judge, side, message):  # the bulk: text chunks
            self._passed += 1
            return
        passed, self._passed = self._passed, 0
        self.rules, found = rules.across(side, message, named=named, cancels=cancels, passed=passed)
        if found:
            self.reported(side, found)

    def judge_quiet(self) -> None:
        """A message the caller found quiet for the judge (its wire form's test) went by."""
        self._passed += 1

    def judge_end(self) -> None:
        """The step showed the judge all it has: the messages passed over are counted."""
        if self._passed:
            self.rules, self._passed = self.rules.passed(self._passed), 0

    def reported(self, side: str, found: list[tuple[str, str]]) -> None:
        """What the rules found in a message of `side`: a MUST of `own`'s, refused while
        `refuses` says so (nothing changed); anything else a finding."""
        for rule_id, why in found:
            rule = RULES[rule_id]
            if side == self.own and rule.side == side and rule.mandatory and self.refuses():
                raise LocalProtocolError(rule_id, f"{why} (the rule: {rule.summary})")
            self.finding(rule_id, why)
