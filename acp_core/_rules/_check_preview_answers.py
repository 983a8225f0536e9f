"""The Preview trace checks of the agent's answers: resume, prompt keys, item cancels, children.

Owns: `agent_answer` (what the agent's answer to a client request breaks: R53, R57, R60,
R62, R64, R75; it also records closed sessions for R76 and the ids `session/new` returns;
prompt answers go on to `_rules/_check_preview_prompts.py`).
Must not know: updates (`_rules/_check_preview_updates.py`), one session's turn lifecycle.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

from acp_core._wire import _jsonrpc as j

from ._check_preview_draft import PreviewMemory
from ._draft import EMPTY, opop, padd
from ._predicates import request_key, shown

__all__ = ["RESTRICTED", "agent_answer"]

#: Methods a client never sends for a child (C34; P14), and the agent must refuse (R53).
RESTRICTED: Final = frozenset(
    {
        j.Method.SESSION_PROMPT,
        "session/set_config_option",
        "session/resume",
        "session/close",
        "session/delete",
        "session/fork",
    }
)


def agent_answer(
    r: PreviewMemory,
    i: int,
    method: str,
    sid: str | None,
    request: object,
    msg: j.Response | j.ErrorResponse,
) -> None:
    """Check the agent's answer `msg` (line `i`) to the client's `method` request."""
    ok = isinstance(msg, j.Response)
    result = msg.result if isinstance(msg, j.Response) else None
    if method == "session/resume":
        _resume(r, i, msg)
    elif method == j.Method.SESSION_NEW and isinstance(result, Mapping):
        new = result.get("sessionId")  # (the request names no session: `sid` is None)
        if isinstance(new, str):
            r.named = r.named.add(new, True)
            r.fresh = padd(r.fresh, new)  # its whole life is in the recording (R50)
    if sid is None:
        return
    if ok and method in RESTRICTED and sid in r.parents:
        r.report(
            "R53",
            i,
            f"the agent accepts `{method}` for child session {shown(sid)}; a child is "
            "mutated only through its capabilities (reject with -32602)",
        )
    if method == j.Method.SESSION_PROMPT and isinstance(request, j.PromptRequest):
        mid = result.get("messageId") if isinstance(result, Mapping) else None
        if isinstance(mid, str):
            r.inserted = r.inserted.set(sid, r.inserted.get(sid, EMPTY).set(mid, True))
        if request_key(msg.id) in r.book.pending:
            r.edit_book().answer(r, i, sid, msg)  # keys, retries, held prompts (R59, R67, R68, R70)
    elif method in (j.Method.TOOL_CALL_CANCEL, j.Method.TERMINAL_CANCEL) and ok:
        known, cancellable, final = request if isinstance(request, tuple) else (False,) * 3
        if not known or not cancellable or final:
            why = "unknown" if not known else "already final" if final else "not cancellable"
            r.report(
                "R75",
                i,
                f"`{method}` of an item that was {why} when asked is accepted; it is "
                "answered -32602",
            )
    elif method == "session/close" and ok:
        r.closed = r.closed.set(sid, i)


def _resume(r: PreviewMemory, i: int, msg: j.Response | j.ErrorResponse) -> None:
    key = request_key(msg.id)
    r.resumes, resume = opop(r.resumes, key)
    if resume is None:
        return
    replayed = [resume.session, *resume.children]
    for s in replayed:
        window = r.replaying.get(s)
        if window is not None and window.request == key:
            r.replaying = r.replaying.delete(s)
    if not isinstance(msg, j.Response):
        return  # failed or cancelled: the replay is truncated, no marker is owed (R58)
    # No marker is owed where the revision has none (2026-11): the history ends at the answer.
    missing = r.r57(i, answered=resume)
    for child in resume.children:
        if child not in resume.marked:
            r.report(
                "R60",
                i,
                f"child {shown(child)}, announced during the resume of line {resume.at}, "
                "gets no replay_complete of its own before the response",
            )
    lost = sorted(m for m in resume.expected if m not in resume.users)
    if resume.cursor and not missing and lost and len(resume.users) >= len(resume.expected):
        r.report(
            "R64",
            i,
            f"the replay shows no user message {', '.join(shown(m) for m in lost)}: a replayed "
            "user message keeps the messageId its session/prompt answer returned",
        )
    # Without the marker (R57) a state_update sent may have been the snapshot, sent too early:
    # that is R57's fault alone. With no state_update at all, the snapshot is missing too.
    if not resume.snapshot and not (missing and resume.stated):
        r.report(
            "R62",
            i,
            f"the resume of line {resume.at} is answered without a state_update snapshot of "
            f"{shown(resume.session)} after its history",
        )
