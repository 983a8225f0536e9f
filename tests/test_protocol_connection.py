"""A live client connection holds the protocol machine's exchange part, and for the same
traffic it holds the same value as the checker's machine.

`ClientConnection.exchange` is an `ExchangeRules`, the type `Protocol.exchange` is: every
playable trace of the corpus, played into a real client connection (tests/client_replay.py)
and checked from what the connection exchanged, leaves the connection's and the machine's
advertised capabilities (J70-J80), sessions set up (J3, J56) and session-management answers
(J50-J64) equal. Framing is compared by what it does not know: its line labels are a
connection's count of lines and a trace's entry index, which differ by design.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any, Final

from client_replay import Refused, play
from test_check import load
from test_rule_consistency_connection import _replayable

import acp_core as acp
from acp_core._rules._check_exchange import ExchangeRules
from acp_core.checker import IncrementalCheck

TRACES: Final = Path(__file__).resolve().parent / "traces"
REVISIONS: Final = (acp.V2_2026_08, acp.V2_PREVIEW)
#: The connection does not run the machine's J37 (an answer echoing its request's id with
#: another type): it takes the answer for no request, so the pairing of answers differs
#: (pinned in tests/test_rule_consistency_connection.py as well).
_J37: Final = "bad_J37_1_answer_echoes_an_integer_id_as_a_string"
_COMPARED: Final = ("caps", "opened", "answers")


def _played(revision: acp.Revision, path: Path) -> Any:
    entries = load(path)
    if not _replayable(entries):
        return None
    try:
        return play(entries, revision)
    except Refused:
        return None


def test_the_connection_holds_what_the_machine_holds() -> None:
    compared, differ = 0, {}
    for revision in REVISIONS:
        for path in sorted(TRACES.glob("*.jsonl")):
            replay = _played(revision, path)
            if replay is None:  # a trace no client connection can play: nothing to compare
                continue
            held = replay.conn.exchange
            machine = IncrementalCheck.start(revision).feed_all(replay.trace).protocol
            assert type(held) is type(machine.exchange) is ExchangeRules
            parts = [p for p in _COMPARED if getattr(held, p) != getattr(machine.exchange, p)]
            if parts:
                differ[(revision.name, path.stem)] = parts
            compared += 1
    assert compared >= 200
    assert differ == {(r.name, _J37): ["answers"] for r in REVISIONS}
