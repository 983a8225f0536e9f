"""The stored phase of one session: what a cancel, a resume window or a close puts it in, each
phase holding only its own data (rustls' state-per-type, read for one ACP session).

Owns: the phase values (`Live`, `Cancelling`, `Cancelled`, `Replay`, `Resuming`, `Replaying`,
`Closed`), `LIVE` (the phase with no mode) and the moves between them that effects make
(`cancelled`, `uncancelled`, `fresh_work`, `resumed`, `window_over`, `closed`,
`history_seen`). Must not know: events, guards, the lifecycle table or which stage a `Live`
session is in (that is read off its turn and reported state, `_rules/_conversation_state.py`).

Theory of operation. A session's lifecycle has modes that can be stacked, each over the one
below it, and a stage row that is the outermost of them:
- `Closed(at, under)`: `session/close` was answered (R24). A close answered inside a resume
  window keeps the window below it; only a new `session/resume` reopens the session.
- `Resuming(under, replay)` / `Replaying(replay, under)`: a resume awaits its answer, without
  or with history (R39, R38). A resume without `replayFrom` forbids history even if an
  earlier resume of the same window asked for it, so `Resuming` keeps that replay's data.
- `Cancelling(at, by_close, late)`: a cancel (or close) awaits the idle that ends the work
  (R21, R24); `late` are the ids of earlier cancelled work no new work has cleared yet.
- `Cancelled(late)`: cancelled work ended; its items (`late`, never empty) take no update
  until new work starts (R23).
- `Live`: none of these; the stage is IDLE, UNKNOWN, WAITING, WORKING, BLOCKED or ANSWERED,
  read off the turn and the reported state (data every stage has, so it stays on the
  machine: the turn outlives a cancel and a window, the reported state is what R7, S1 and S2
  read whatever the mode).
A window lies only over a `Base` (a live, cancelling or cancelled session): a resume reopens a
closed session. A close lies over anything but another close.

Replay windows: one home each. The protocol machine keeps two windows, each stored once:
- here, the resume window of one session: from its `session/resume` to the answer, with what
  the cursor asked (R38, R39; every lifecycle rule reads an update in it as history). Every
  party needs it at every revision for the one session it runs (each engine carries its
  session's machine; the client connection judges nothing across sessions at 2026-08 or on
  v1), so it lives with the session;
- `_rules/_check_preview.PreviewState.replaying`, the history stream a cursor opens: from the
  resume to the revision's end marker (the Preview's `replay_complete`) or the answer, for
  the resumed session and every child announced in it (R57, R58, R60, R63, R64, C36). It
  needs the marker and the children, which no session's machine sees (a child has no resume
  of its own), and it outlives no answer.
Neither is derived from the other because neither holds the other's data (this one knows no
marker and no child; that one no cursor kind and not the 2026-08 client side). Where the
revision has no marker (2026-08, 2026-11, v1) they open and close on the same messages; a
party that asks "is this history?" asks the one it runs
(`_engines/_connection_client_state.history_open`) and keeps no copy. The state layer's
`SessionExtras.replay` is the view's, for hosts without a machine, and decides no rule.
"""

from __future__ import annotations

from typing import Final, TypeAlias

import attrs

from acp_core._state._pcoll import PMap
from acp_core._wire._value import frozen

__all__ = [
    "LIVE",
    "Base",
    "Cancelled",
    "Cancelling",
    "Closed",
    "Live",
    "Mode",
    "Replay",
    "Replaying",
    "Resuming",
    "Window",
    "base_of",
    "cancelled",
    "closed",
    "fresh_work",
    "history_seen",
    "resumed",
    "uncancelled",
    "window_of",
    "window_over",
]


@frozen
class Live:
    """No cancel, window or close: the stage is read off the turn and the reported state.
    `LIVE` is the value the machine uses; a copy or an unpickled one is another, equal
    instance, so the machine asks `type(mode) is Live`, never `mode is LIVE`."""


LIVE: Final = Live()


@frozen
class Cancelling:
    """A cancel (`by_close`: a `session/close`) at `at` waits for the idle that ends the work."""

    at: int
    by_close: bool
    late: PMap[str, bool] = attrs.field(factory=PMap)  # earlier cancelled work's items


@frozen
class Cancelled:
    """Cancelled work ended: its items (`late`, never empty) take no update until new work."""

    late: PMap[str, bool]


Base: TypeAlias = "Live | Cancelling | Cancelled"


@frozen
class Replay:
    """What a resume with `replayFrom` asked: the whole history (`from_start`), and whether
    the window has replayed a message yet (`replayed`, R38)."""

    from_start: bool
    replayed: bool = False


@frozen
class Replaying:
    """A resume with `replayFrom` awaits its answer: updates are history, not live work."""

    replay: Replay
    under: Base


@frozen
class Resuming:
    """A resume without `replayFrom` awaits its answer: no history may come (R39). `replay`:
    an earlier resume of the same window asked for history (still history, R38 still due)."""

    under: Base
    replay: Replay | None = None


Window: TypeAlias = "Replaying | Resuming"


@frozen
class Closed:
    """`session/close` was answered at `at`: the session is freed (R24)."""

    at: int
    under: Base | Replaying | Resuming


Mode: TypeAlias = "Live | Cancelling | Cancelled | Replaying | Resuming | Closed"


def _open(mode: Mode) -> Base | Replaying | Resuming:
    if isinstance(mode, Closed):
        return mode.under
    return mode


def window_of(mode: Mode) -> Replaying | Resuming | None:
    """The resume window the session is in (under a close, if closed), if any."""
    inner = _open(mode)
    return inner if type(inner) is Replaying or type(inner) is Resuming else None


def base_of(mode: Mode) -> Base:
    """The mode under any close and window: live, cancelling or cancelled."""
    inner = _open(mode)
    if isinstance(inner, (Replaying, Resuming)):
        return inner.under
    return inner


def _with_base(mode: Mode, base: Base) -> Mode:
    # `mode` with its base replaced (the close and the window above it kept).
    if isinstance(mode, Closed):
        return Closed(mode.at, _inner_with_base(mode.under, base))
    return _inner_with_base(mode, base)


def _inner_with_base(inner: Base | Replaying | Resuming, base: Base) -> Base | Replaying | Resuming:
    if isinstance(inner, Replaying):
        return Replaying(inner.replay, base)
    if isinstance(inner, Resuming):
        return Resuming(base, inner.replay)
    return base


def _late(base: Base) -> PMap[str, bool]:
    return base.late if type(base) is not Live else PMap()  # type: ignore[union-attr]


def _settled(late: PMap[str, bool]) -> Base:
    return Cancelled(late) if late else LIVE


def cancelled(mode: Mode, at: int, *, by_close: bool) -> Mode:
    """A cancel (or close) at `at` of the work in progress."""
    return _with_base(mode, Cancelling(at, by_close, _late(base_of(mode))))


def uncancelled(mode: Mode, late: PMap[str, bool] | None = None) -> Mode:
    """The cancel is over (its idle came, or the prompt it caught was refused): `late`, if
    given, are the items of the work it ended (R23); else the earlier ones stay."""
    base = base_of(mode)
    if type(base) is not Cancelling and late is None:
        return mode
    return _with_base(mode, _settled(_late(base) if late is None else late))


def fresh_work(mode: Mode) -> Mode:
    """New work started: earlier cancelled work's items are free again (R23)."""
    base = base_of(mode)
    if type(base) is Cancelling:
        return _with_base(mode, Cancelling(base.at, base.by_close)) if base.late else mode
    return _with_base(mode, LIVE) if type(base) is Cancelled else mode


def resumed(mode: Mode, replay: Replay | None) -> Mode:
    """A `session/resume` (`replay`: what its `replayFrom` asked; None: no history): it
    reopens a closed session and opens (or narrows) the window."""
    inner = _open(mode)
    if isinstance(inner, Resuming):
        return Resuming(inner.under, inner.replay if replay is None else replay)
    if isinstance(inner, Replaying):
        if replay is None:
            return Resuming(inner.under, inner.replay)
        return Replaying(replay, inner.under)
    return Resuming(inner) if replay is None else Replaying(replay, inner)


def window_over(mode: Mode) -> Mode:
    """The resume was answered: the window ends (a close answered inside it stays)."""
    inner = _open(mode)
    if not isinstance(inner, (Replaying, Resuming)):
        return mode
    return Closed(mode.at, inner.under) if isinstance(mode, Closed) else inner.under


def closed(mode: Mode, at: int) -> Mode:
    """`session/close` was answered at `at`."""
    return Closed(at, _open(mode))


def history_seen(mode: Mode) -> Mode:
    """A replayed message came in the window (R38 is then kept)."""
    window = window_of(mode)
    replay = None if window is None else window.replay
    if replay is None or replay.replayed:
        return mode
    assert window is not None
    seen = Replay(replay.from_start, True)
    new: Replaying | Resuming = (
        Replaying(seen, window.under) if type(window) is Replaying else Resuming(window.under, seen)
    )
    return Closed(mode.at, new) if isinstance(mode, Closed) else new
