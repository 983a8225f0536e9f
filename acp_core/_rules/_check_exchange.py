"""The protocol machine's rules over a connection's exchange, as one value a live connection holds.

Owns: `ExchangeRules`, a frozen value of the three checker components that judge what the agent
answers to what the client sent and advertised: JSON-RPC framing (`_rules/_check_jsonrpc.
Framing`: J34-J44, J38), the answers to session management (`_rules/_check_answers.Answers`:
J50-J64) and what `initialize` advertised held against later traffic (`_rules/_check_capabilities.
Capabilities`: J70-J80, C2), with the sessions set up (`OpenSessions`, which J56 reads); and
`exchange_quiet` (and `exchange_quiet_update`, its answer per update class), the test for the
traffic none of them reads.
Must not know: what any of those rules says (each is decided in its component, the checker's
one home for it), the conversation of a session (`_rules/_conversation.py`), engines, I/O.

Why a value of its own. It is the exchange half of the protocol machine's connection-wide
part (`_rules/_connection_rules.ConnectionRules.exchange`, which `Protocol.rules` and a live
connection's `rules` hold alike: the trace checker feeds its components in the machine's
order, a connection through `ConnectionRules`), so both name the same rule for the same
fault. `see_raw` takes the JSON before decoding (framing judges the raw shape: a reply to
what asked for none is named there, and is then handled no further), `see` each decoded
message. Each call returns the next value; the components' persistent maps are shared, so a
call costs what the message changes, and the stream of session updates (the bulk of the
traffic) changes nothing here (`exchange_quiet`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import attrs

from acp_core._wire import _jsonrpc as j
from acp_core._wire._revision import Revision
from acp_core._wire._updates import ConfigOptionUpdate
from acp_core._wire._updates_preview import SubagentUpdate
from acp_core._wire._value import frozen

from ._check_answers import Answers
from ._check_capabilities import Capabilities
from ._check_jsonrpc import Framing
from ._check_message import Finding
from ._check_sessions import NO_SESSIONS, OpenSessions

__all__ = ["ExchangeRules", "exchange_quiet", "exchange_quiet_update", "exchange_quiet_wire"]

# The updates a component reads: the option set of a session (J62), an announced child (J56).
_READ_UPDATES: Final = (ConfigOptionUpdate, SubagentUpdate)
_READ_TAGS: Final = frozenset(dict(cls.__wire_tag__)["sessionUpdate"] for cls in _READ_UPDATES)


@frozen
class ExchangeRules:
    """What one connection's exchange showed so far, for the rules that span it (a value).

    Attributes:
        framing, answers, caps: the checker's components (each changes only by rebinding its
            persistent maps; this value holds one that nobody changes any more).
        opened: the sessions set up, as the checker counts them.
        at: the label framing gives the next line (a connection counts the lines it showed
            framing; the protocol machine takes a trace's entry index).
    """

    framing: Framing
    answers: Answers
    caps: Capabilities
    opened: OpenSessions = NO_SESSIONS
    at: int = 0

    @staticmethod
    def start(revision: Revision) -> ExchangeRules:
        """Before the connection's first message."""
        return ExchangeRules(Framing(), Answers(revision), Capabilities())

    def see_raw(self, side: str, raw: object) -> tuple[ExchangeRules, list[Finding], bool]:
        """`raw` (the JSON of one wire message of `side`, before decoding): the next value,
        what framing finds, and whether that names the message's fault (judge it no
        further: it is a reply to what asked for none, or a response of no valid shape)."""
        if side == "agent" and type(raw) is dict and "method" in raw:
            return self, [], False  # the agent's own request or notification: framing reads none
        framing = self.framing.copy()
        found, judged = framing.see(self.at, side, raw)
        return attrs.evolve(self, framing=framing, at=self.at + 1), found, judged

    def see(self, side: str, message: j.Message) -> tuple[ExchangeRules, list[Finding]]:
        """`message` (one decoded message of `side`, an item of a batch): the next value and
        what the answers and the advertised capabilities find."""
        if exchange_quiet(self, side, message):
            return self, []
        opened, _ = self.opened.follow(side, message)  # J3/J4/J30 are the connection's own
        caps, answers = self.caps.copy(), self.answers.copy()
        found = caps.follow(side, message)
        found.extend(answers.see(side, message, opened))
        return attrs.evolve(self, caps=caps, answers=answers, opened=opened), found


def exchange_quiet(rules: ExchangeRules, side: str, message: object) -> bool:
    """True when `see` would change nothing and find nothing: an agent's session update that
    no component reads, once the exchange has started."""
    return (
        side == "agent"
        and type(message) is j.UpdateSessionNotification
        and exchange_quiet_update(rules, type(message.update))
    )


def exchange_quiet_update(rules: ExchangeRules, cls: type) -> bool:
    """`exchange_quiet` of any agent's session update whose update is of class `cls`: it
    reads nothing else of the message, so a caller may ask once per class and value."""
    return rules.opened.started and rules.caps.started and not issubclass(cls, _READ_UPDATES)


def exchange_quiet_wire(rules: ExchangeRules, side: str, wire: Mapping[str, Any]) -> bool:
    """`exchange_quiet` for a message still in its JSON form (what an agent connection
    sends): true only where decoding it and asking `exchange_quiet` would be, so the bulk of
    an agent's output is never decoded for these rules."""
    if side != "agent" or wire.get("method") != j.Method.SESSION_UPDATE or "id" in wire:
        return False
    params = wire.get("params")
    update = params.get("update") if isinstance(params, Mapping) else None
    tag = update.get("sessionUpdate") if isinstance(update, Mapping) else None
    return (
        isinstance(tag, str)
        and tag not in _READ_TAGS
        and rules.opened.started
        and rules.caps.started
    )
