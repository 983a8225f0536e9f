"""What the agent reported, folded twice: the session, and the view a UI shows.

Owns: `apply_update`, one agent update folded into `Build.session` (the pure fold of what the
agent reported) and `Build.view` (that plus the client's own provisional marks, C14), with
the single-update checks on what the agent sends (`update_findings`, kept as violations) and
the tool calls of the current foreground work (`Build.work_tool_calls`, Q18). A permission
request's `tool_call` subject restates the call (T10): it leaves a local cancel mark alone,
only a status the agent reports wins over it (Q19).
Must not know: where an update comes from (`_engines/_client_receive.py`), or when the marks
are made (`_engines/_client_cancel.py`).
"""

from __future__ import annotations

import attrs

from acp_core._rules._check_message import update_findings
from acp_core._state._pcoll import PMap
from acp_core._state._reduce import reduce
from acp_core._wire._json import UNSET
from acp_core._wire._updates import SessionUpdate, ToolCallContentChunk, ToolCallUpdate

from ._client_build import Build

__all__ = ["apply_update"]


def apply_update(b: Build, update: SessionUpdate, *, subject: bool = False) -> None:
    """Fold one agent update into both the session and the view, with the bookkeeping.

    `subject`: the update is the `tool_call` subject of a permission request (T10). It
    restates the tool call rather than reporting a new status, so it leaves a local cancel
    mark in the view alone (only a status the agent *reports* wins over it, Q19).
    """
    before = b.session
    view = b.view
    revision = b.engine.revision
    if not subject:
        b.record(update_findings(revision, before, update))
    session = reduce(before, update, revision=revision)
    view_update = update
    if subject and isinstance(update, ToolCallUpdate):
        shown = view.tool_calls.get(update.tool_call_id)
        known = before.tool_calls.get(update.tool_call_id)
        if shown is not None and known is not None and shown.status != known.status:
            view_update = attrs.evolve(update, status=UNSET)
    if view is before and view_update is update:
        # No local mark sets the view apart: it is the session, and reducing it a second
        # time would build the same value again (reduce is a pure function of its inputs).
        shown_state = session
    else:
        shown_state = reduce(view, view_update, revision=revision)
    b.session = session
    b.view = shown_state
    was_idle = before.foreground.state == "idle"
    now_idle = session.foreground.state == "idle"
    if was_idle and not now_idle:
        b.work_tool_calls = PMap()  # new foreground work starts (Q18)
    if not now_idle and isinstance(update, (ToolCallUpdate, ToolCallContentChunk)):
        b.work_tool_calls = b.work_tool_calls.set(update.tool_call_id, True)
