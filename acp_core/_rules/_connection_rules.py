"""The connection-wide part of the protocol machine: one value the machine and a connection hold.

Owns: `ConnectionRules` (frozen: the rules over the exchange, `_check_exchange.ExchangeRules`;
from 2026-11 on the rules across the sessions of the connection, `_check_preview.PreviewState`,
the judge; and the judge's line counter), its per-message feeding (`see_raw`, `see`, `across`,
`passed`: each returns the next value and what it found), `NO_RULES`, and `session_of`.
Must not know: what any rule says (each component decides its own), which side it runs on
beyond the sender it is given (what a finding of one's own side means is the caller's: a
connection refuses a MUST its host would break), engines, sessions' lifecycles, bytes.

Why a value of its own, not a grown `ExchangeRules`: the two parts judge different things
(what a side answers to what was asked and advertised, at every revision; what spans the
sessions, from 2026-11 on, on a counter of its own) and each stays a value that knows nothing
of the other, while the machine (`Protocol.rules`) and both connections (`rules`) hold and
feed them together as this one type. `see_raw` takes one wire line's JSON before decoding (a
reply to what asked for none is named there and judged no further), `see` one decoded message
(an item of a batch), `across` one decoded message to the judge. Where a quiet test
(`exchange_quiet`, `_check_preview_quiet.quiet` and their wire forms) says a call would change
nothing, `see` returns this very value, and a caller streaming a run asks the judge's test
itself and counts what it passed over (`across(passed=n)`, `passed(n)`): a streamed text chunk
costs no allocation here. The machine (`_rules/_protocol.ProtocolDraft`) feeds the same
components in its own order within a line, and reads and writes this value around it.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final

import attrs

from acp_core._wire._fastnew import fast_constructor
from acp_core._wire._json import UNSET, Unset
from acp_core._wire._jsonrpc import Request
from acp_core._wire._revision import Revision
from acp_core._wire._value import frozen

from ._check_exchange import ExchangeRules, exchange_quiet
from ._check_message import Finding
from ._check_preview import PreviewState, observe_connection
from ._predicates import RequestKey

__all__ = ["NO_RULES", "ConnectionRules", "session_of"]


@frozen
class ConnectionRules:
    """The connection-wide rules of the protocol machine and what they read so far (a value).

    Attributes:
        exchange: the rules over the exchange (JSON-RPC framing J34-J44, the answers to
            session management J50-J64, what `initialize` advertised J70-J80, C2, and the
            sessions the agent may name J3). None where they do not run: a connection once
            its peer speaks v1 (they judge a v2 wire), one built by hand.
        judge: from 2026-11 on, the rules across the sessions of the connection (children,
            replay windows, keys, item cancels); None before, and on a connection built by
            hand. Once a connection speaks v1 it is no longer fed (its last value stays).
        judged: the label `across` gives the next message (a connection counts the messages
            it showed the judge; the machine holds a trace's next entry index). A position,
            not state: left out of equality.
    """

    exchange: ExchangeRules | None = None
    judge: PreviewState | None = None
    judged: int = attrs.field(default=0, eq=False)

    @staticmethod
    def start(revision: Revision) -> ConnectionRules:
        """Before the connection's first message, judging by `revision`."""
        judge = PreviewState(revision) if revision.includes("2026-11") else None
        return ConnectionRules(ExchangeRules.start(revision), judge)

    def see_raw(self, side: str, raw: object) -> tuple[ConnectionRules, list[Finding], bool]:
        """`raw` (the JSON of one wire line of `side`, before decoding) to the exchange rules:
        the next value, what framing finds, and whether that names the line's fault (judge it
        no further). No exchange rules: this value, nothing, False."""
        rules = self.exchange
        if rules is None:
            return self, [], False
        after, found, judged = rules.see_raw(side, raw)
        if after is rules:
            return self, found, judged
        return ConnectionRules(after, self.judge, self.judged), found, judged

    def see(self, side: str, message: object) -> tuple[ConnectionRules, list[Finding]]:
        """`message` (one decoded message of `side`, an item of a batch) to the exchange
        rules: the next value and what they find (this value where they read nothing of it,
        `exchange_quiet`)."""
        rules = self.exchange
        if rules is None or exchange_quiet(rules, side, message):
            return self, []
        after, found = rules.see(side, message)  # type: ignore[arg-type]
        return ConnectionRules(after, self.judge, self.judged), found

    def across(
        self,
        side: str,
        message: object,
        *,
        named: bool = False,
        cancels: Callable[[RequestKey], bool | None] | None = None,
        passed: int = 0,
        session: str | None | Unset = UNSET,
    ) -> tuple[ConnectionRules, list[Finding]]:
        """`message` (one decoded message of `side`) to the rules across sessions, after
        `passed` messages their quiet test passed over: labelled `judged + passed`, the next
        value (counted past it) and what they find. `named`: the envelope's fault was already
        reported as J3 (one finding a fault). `cancels`: for the client's `session/cancel`,
        what its session's machine says it cancels (R71). `session`: the session `message`
        belongs to where the caller knows it (else `session_of` says). No judge: this value,
        nothing."""
        judge = self.judge
        if judge is None:
            return self, []
        at = self.judged + passed
        sid = session_of(message) if session is UNSET else session
        after, found = observe_connection(
            judge, at, side, message, session=sid, judged_j3=named, cancels=cancels
        )
        out = [(f.rule, f.message) for f in found] if found else []
        # (the positional constructor: a run of terminal output reaches here once a chunk)
        return _make(self.exchange, after, at + 1), out

    def passed(self, count: int) -> ConnectionRules:
        """`count` messages went by that the judge reads nothing of (its quiet test said so):
        the counter advanced by `count`."""
        if count == 0:
            return self
        return ConnectionRules(self.exchange, self.judge, self.judged + count)


#: A connection built by hand (not by `new_*_connection`): no rule runs.
NO_RULES: Final = ConnectionRules()
_make: Final = fast_constructor(ConnectionRules)


def session_of(message: object) -> str | None:
    """The session `message` belongs to, as a connection hands it to the judge (an answer's
    session is the judge's own business: it pairs answers with requests itself)."""
    if type(message) is Request:
        params = message.params
        sid = params.get("sessionId") if isinstance(params, Mapping) else None
        return sid if isinstance(sid, str) else None
    sid = getattr(message, "session_id", None)
    return sid if isinstance(sid, str) else None
