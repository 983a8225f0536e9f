"""A run of the agent's session updates read at once, received by the client connection in
one step.

Owns: `receive_update_run`: from a position in one read's framed values (and `HotLine`s,
the lines the compiled decoder took, already decoded), the run of
`session/update` notifications for one open session on which the connection's own rules
find nothing (the exchange rules, the judge across sessions), received as one step: the
session's engine takes them at once (`_client.receive_updates`: one engine rebuild, runs of
plain text chunks folded), the connection is rebuilt once, and the events are those
stepping each message would give (`_connection_client_events.update_run_events`).
Must not know: what any message means beyond the run's conditions (the general path is
`_engines/_connection_client.py`, taken for the first message outside a run), I/O.

Theory of operation.
- The law: receiving a read through `receive_bytes` gives the same connection and the same
  events as `connection_step` on each of its framed values in order
  (tests/test_connection_update_runs.py). Stepped alone, an update of an open session that
  is not replaying is shown to the exchange rules, stepped into its session's engine, and
  shown to the judge, in that order, with events in that order. So a run takes a message
  only where the exchange rules and the judge find nothing in it (their findings would
  come before and after its `ViewChanged`); they are fed each message here, in order, and
  what they were fed for the message that ends the run is dropped (they are values).
- The engine takes the run up to the first message that moves a prompt record (a prompt
  bound, ended or rejected: its `PromptEnded` comes right after that message's view
  event); the rules and the judge are taken as they were after that message, and the rest
  of the read goes on from there.
- A session replaying history, or closed, a child's traffic, the Preview's announcements
  and replay markers, a line lenient decoding tolerated something in (its D1 or J45, named
  by the general path), anything on a v1 connection: never in a run (stepped alone). A hot
  line (`HotLine`) tolerated nothing: the compiled decoder takes only shapes strict decoding
  takes too (`_wire/_codec_compiled.py`).
"""

from __future__ import annotations

from collections.abc import Sequence
from itertools import islice
from typing import Any, Final, TypeVar

from acp_core._errors import DecodeError
from acp_core._rules._check_exchange import exchange_quiet_update
from acp_core._rules._check_preview import QUIET_UPDATES, quiet_session, quiet_update
from acp_core._rules._connection_rules import ConnectionRules
from acp_core._wire._codec import decode_message_diagnosed_lazily
from acp_core._wire._fastnew import fast_evolve
from acp_core._wire._framing import Parsed
from acp_core._wire._jsonrpc import UpdateSessionNotification
from acp_core._wire._updates_preview import ReplayComplete, SubagentUpdate

from ._client import receive_updates
from ._connection_client_events import update_run_events
from ._connection_client_state import ClientConnection
from ._connection_values import ConnectionStep

__all__ = ["HotLine", "receive_update_run", "values_after"]

_SESSION_UPDATE = "session/update"
T = TypeVar("T")


def _session_named(value: object) -> str | None:
    # The session a framed value's `session/update` notification names, read off its JSON.
    if type(value) is not dict or value.get("method") != _SESSION_UPDATE or "id" in value:
        return None
    params = value.get("params")
    sid = params.get("sessionId") if type(params) is dict else None
    return sid if type(sid) is str else None


#: A line the compiled decoder took (`_connection._client_read`): the notification
#: `decode_message` gives for its JSON, and the line itself (parsed again if stepped alone).
HotLine = tuple[UpdateSessionNotification, bytes]


def receive_update_run(
    conn: ClientConnection, framed: Sequence[object], start: int
) -> tuple[ConnectionStep, int] | None:
    """The step that receives the run of session updates starting at `framed[start]`, and
    how many framed values it took (at least one); None when `framed[start]` starts no run
    (step it alone). The framed values are the framing's (`Parsed`, `FramingError`) and
    `HotLine`s: their notifications are taken as decoded (a hot line names its session in
    its message, as its JSON does)."""
    if conn.v1 is not None:
        return None
    first = framed[start]
    kind = type(first)
    if kind is tuple:
        sid: str | None = first[0].session_id  # type: ignore[index]
    elif kind is Parsed:
        sid = _session_named(first.value)  # type: ignore[attr-defined]
    else:
        return None
    if sid is None:
        return None
    session = conn.sessions.get(sid)
    if session is None or conn.replaying(sid):
        return None
    revision = conn.revision
    rules = conn.rules  # the machine's connection-wide part, fed through its own functions
    first = rules.judged  # the judge's label of the run's first message
    messages: list[UpdateSessionNotification] = []
    # The rules after the messages taken, where the exchange rules or the judge changed: (how
    # many messages were taken, rules), in order (the bulk of a run changes neither).
    kept: list[tuple[int, ConnectionRules]] = [(0, rules)]
    # Per update class, whether every agent update of this session of that class passes the
    # exchange rules and the judge as they are (`_quiet_class`): worked out again whenever
    # either changes.
    quiet_classes: dict[type, bool] = {}
    judge = rules.judge
    session_quiet = judge is not None and quiet_session(judge, sid)
    take = messages.append
    item: Any
    for item in islice(framed, start, None):
        kind = type(item)
        if kind is tuple:
            message: Any = item[0]
            if message.session_id != sid:
                break
            # (the bulk of the traffic: a hot line of a class that joins the run as it is)
            if quiet_classes.get(type(message.update)):
                take(message)
                continue
        elif kind is Parsed:
            if _session_named(item.value) != sid:
                break
            try:
                message, tolerated = decode_message_diagnosed_lazily(item.value, revision=revision)
            except DecodeError:
                break
            if tolerated:  # the checker's D1 or J45 for it: stepped alone, which names them
                break
        else:
            break
        if type(message) is not UpdateSessionNotification:
            break
        update = message.update
        cls = type(update)
        passes = quiet_classes.get(cls)
        if passes is None:
            passes = quiet_classes[cls] = _quiet_class(
                rules.exchange, judge, session_quiet, cls
            )
        if passes:
            take(message)
            continue
        if cls in _ALONE:
            break
        after = rules
        exchange = rules.exchange
        if exchange is not None and not exchange_quiet_update(exchange, cls):
            after, found = rules.see("agent", message)
            if found:  # none of today's exchange rules finds a fault in an update: a guard
                break
        if judge is not None and not (session_quiet and quiet_update(judge, sid, update)):
            # counted as the judge counts: after every message taken before it
            passed = first + len(messages) - after.judged
            after, found = after.across("agent", message, passed=passed, session=sid)
            if found:
                break
        take(message)
        if after.exchange is not rules.exchange or after.judge is not judge:
            rules, judge = after, after.judge
            kept.append((len(messages), rules))
            quiet_classes.clear()
            session_quiet = judge is not None and quiet_session(judge, sid)
    if not messages:
        return None
    engine, changed = receive_updates(session.engine, messages)
    taken = len(changed)  # the engine stops where a prompt record moved
    rules = values_after(kept, taken)
    if rules.judge is not None:  # the judge counted every message taken
        rules = rules.passed(first + taken - rules.judged)
    events, open_prompts = update_run_events(
        sid, session.engine, engine, messages, changed, session.open_prompts
    )
    session = fast_evolve(session, engine=engine, open_prompts=open_prompts)
    sessions = conn.sessions.set(sid, session)
    conn = fast_evolve(conn, sessions=sessions, rules=rules)
    return ConnectionStep(conn, (), tuple(events)), taken


#: Updates the connection itself routes (`_connection_client._update`): never in a run.
_ALONE: Final = frozenset({ReplayComplete, SubagentUpdate})


def values_after(kept: Sequence[tuple[int, T]], taken: int) -> T:
    """The rules after the first `taken` messages of a run, from `kept`: (messages taken,
    rules) at the start (0) and wherever they changed, in order."""
    for count, rules in reversed(kept):
        if count <= taken:
            return rules
    return kept[0][1]  # (never reached: the first entry is the run's start, 0)


def _quiet_class(rules: Any, judge: Any, session_quiet: bool, cls: type) -> bool:
    # Whether every agent update of class `cls` for the run's session may join the run as
    # the exchange rules `rules` and the judge `judge` stand, whatever it holds: not one the
    # connection routes itself, one the exchange rules do not read (`exchange_quiet`'s
    # answer per class), and one the judge lets through for its class alone (`quiet`: the
    # session may be quiet at all, and the class is among `QUIET_UPDATES`). An update this
    # says no to is asked the full questions.
    return (
        cls not in _ALONE
        and (rules is None or exchange_quiet_update(rules, cls))
        and (judge is None or (session_quiet and cls in QUIET_UPDATES))
    )
