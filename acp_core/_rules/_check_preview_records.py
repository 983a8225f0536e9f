"""The frozen records of the Preview trace checks: what a recording said of one tool call, one
terminal, one resume being served, one session's open history window.

Owns: `Tool`, `Terminal`, `Resume`, `HistoryWindow` (frozen attrs records;
`_rules/_check_preview.py`'s `PreviewState` holds them in persistent maps), `window_request`
(the request replaying a session, read off its window) and the defaults the rules read for an
item the recording never showed.
Must not know: any rule (the `_check_preview*` modules judge).
"""

from __future__ import annotations

from typing import Final

from acp_core._state._pcoll import PMap
from acp_core._wire._value import frozen

from ._draft import EMPTY
from ._predicates import RequestKey

__all__ = [
    "EXITED",
    "FINAL_TOOL",
    "NEW_TERMINAL",
    "NEW_TOOL",
    "HistoryWindow",
    "Resume",
    "Terminal",
    "Tool",
    "window_request",
]

_NO: Final[frozenset[str]] = frozenset()


@frozen(slots=True)
class Resume:
    """A `session/resume` request being served (until its answer)."""

    session: str
    at: int
    cursor: bool
    children: tuple[str, ...] = ()  # announced while this resume was served (R60)
    marked: frozenset[str] = _NO  # sessions whose replay_complete arrived (R57)
    snapshot: bool = False  # a state_update of the session after its history (R62)
    stated: bool = False  # any state_update of the session while the resume was served
    expected: frozenset[str] = _NO  # user ids prompt answers returned (R64)
    users: PMap[str, bool] = EMPTY  # user message ids the replay showed


@frozen(slots=True)
class HistoryWindow:
    """One session's open history window (a resume with a cursor is replaying it, until its
    marker or its answer), stored once: the resume request replaying it, and the messages
    whose whole-message upsert the window showed (R63)."""

    request: RequestKey
    upserted: PMap[str, bool] = EMPTY


def window_request(replaying: PMap[str, HistoryWindow], session: str) -> RequestKey | None:
    """The resume request replaying `session`, while its history window is open."""
    window = replaying.get(session)
    return None if window is None else window.request


@frozen(slots=True)
class Tool:
    """What the recording said of one tool call."""

    cancel: bool = False  # its capabilities permit cancel
    final: bool = False  # it reached a terminal status
    name: str | None = None


@frozen(slots=True)
class Terminal:
    """What the recording said of one terminal."""

    cancel: bool = False
    exited: bool = False


NEW_TOOL: Final = Tool()  # a tool call seen for the first time
FINAL_TOOL: Final = Tool(final=True)  # an unknown tool call counts as finished
NEW_TERMINAL: Final = Terminal()
EXITED: Final = Terminal(exited=True)  # an unknown terminal counts as exited
