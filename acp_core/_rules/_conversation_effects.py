"""The effects of the conversation machine: the bookkeeping each event kind does to one session.

Owns: `_EFFECTS` (event kind -> its effect), the per-kind effect functions (`_on_prompt`,
`_on_idle`, ...) and their small helpers, and `INERT` (per effect, when it would change
nothing for an update: the quiet path's only test); an effect records its changes on the
`Obs` it is given and runs after its cell's guards, unconditionally (a finding never wedges
the session). Must not know: the guards or which rules apply
(`_rules/_conversation_guards.py`), the lifecycle table (`_rules/_conversation_lifecycle.py`),
the phase table `TRANSITIONS` or how a machine is rebuilt (`_rules/_conversation.py`), how
messages become events (`_rules/_conversation_events.py`), which side it runs on, files or
JSON text.
"""

from __future__ import annotations

from collections.abc import Callable, Mapping
from typing import Final, TypeAlias

import attrs

from acp_core._state._pcoll import PMap
from acp_core._wire import _jsonrpc as j
from acp_core._wire import _updates as u
from acp_core._wire._json import JsonValue

from ._conversation_events import Obs
from ._conversation_guards import ending, prompt_of, work_before_running, work_id
from ._conversation_phases import (
    Live,
    Mode,
    Replay,
    cancelled,
    closed,
    fresh_work,
    history_seen,
    resumed,
    uncancelled,
    window_over,
)
from ._conversation_state import Conversation, Event, Finding, Kind, Phase, Prompt, Turn
from ._predicates import RequestKey, shown


def _start_turn(o: Obs, at: int, *, started: bool, prompt: RequestKey | None) -> Mode:
    # New work: its turn, and the mode with earlier cancelled work's items freed (R23).
    turn = Turn(prompt, at, started, started_at=at if started else None)
    o.set(turn=turn, work_ids=PMap())
    return fresh_work(o.conv.mode)


def _first_waiting(o: Obs) -> RequestKey | None:
    prompts: tuple[Prompt, ...] = o.get("prompts")
    return prompts[0].key if prompts else None


def _on_prompt(o: Obs, e: Event) -> Mode:
    msg: j.PromptRequest = e.message
    assert e.key is not None
    o.set(prompts=(*o.get("prompts"), Prompt(e.key, msg.id, e.at, message=msg)))
    c = o.conv
    if c.turn is None and c.phase in (Phase.UNKNOWN, Phase.IDLE) and not c.replaying:
        return _start_turn(o, e.at, started=False, prompt=e.key)
    return c.mode


def _replace_prompt(o: Obs, new: Prompt) -> None:
    o.set(prompts=tuple(new if p.key == new.key else p for p in o.get("prompts")))


def _on_prompt_answer(o: Obs, e: Event) -> Mode:
    c = o.conv
    p = prompt_of(c, e.key)
    if p is None:
        return c.mode
    turn = c.turn
    if isinstance(e.message, j.ErrorResponse):
        o.set(prompts=tuple(q for q in c.prompts if q is not p))
        if turn is not None and turn.prompt == p.key:
            if turn.started:
                o.set(turn=attrs.evolve(turn, prompt=None))
            else:
                # it cancelled (or refused) this turn, not work that comes later
                o.set(turn=None)
                return uncancelled(c.mode)
        return c.mode
    p = attrs.evolve(p, accepted=True)
    if turn is not None and turn.prompt is not None and turn.prompt != p.key:
        current = prompt_of(c, turn.prompt)
        # Under 2026-11 results name their messages, so a FIFO-bound user message proves
        # nothing about which prompt the work is for; under 2026-08 it does (Q7).
        if (
            current is not None
            and not current.accepted
            and (not current.user_reported or c.revision.prompt_result_has_message_id)
        ):
            # The agent took another waiting prompt (an older queued one, Q4): the work
            # belongs to the prompt it answered.
            o.set(turn=attrs.evolve(turn, prompt=p.key))
    result = e.message.result
    mid = result.get("messageId") if isinstance(result, Mapping) else None
    if c.revision.prompt_result_has_message_id and isinstance(mid, str) and mid:
        p = attrs.evolve(p, result_id=mid)
        if p.bound_id is not None and p.bound_id != mid:
            p = attrs.evolve(p, user_reported=mid in c.user_ids)  # the FIFO guess was wrong
        elif mid in c.user_ids:
            p = attrs.evolve(p, user_reported=True)
        if _retried(o, p, mid):
            return c.mode
    _replace_prompt(o, p)
    return c.mode


def _retried(o: Obs, p: Prompt, mid: str) -> bool:
    # Preview (R67, R68): a keyed prompt answered with the messageId an earlier attempt of the
    # same key got is a retry resolved to that insertion: it inserts nothing and starts no
    # work; its turn (if it began one) is the original's, or nobody's.
    c = o.conv
    key = getattr(p.message, "idempotency_key", None)
    if not isinstance(key, str):
        return False
    first = c.keys.get(key)
    if first is None or first[0] != mid or first[1] == p.key:
        if first is None:
            o.set(keys=c.keys.set(key, (mid, p.key)))
        return False
    o.set(prompts=tuple(q for q in c.prompts if q.key != p.key))
    turn = c.turn
    if turn is not None and turn.prompt == p.key:
        original = prompt_of(c, first[1])
        if original is not None:
            o.set(turn=attrs.evolve(turn, prompt=original.key))
        elif turn.started:
            o.set(turn=attrs.evolve(turn, prompt=None))
        else:
            o.set(turn=None)
    return True


def _on_cancel(o: Obs, e: Event, *, by_close: bool = False) -> Mode:
    c = o.conv
    if not c.working:
        return c.mode  # harmless while idle; no reply expected (Q20)
    # The agent cancels on session/close as if session/cancel had come (R24); the client's
    # duty to answer pending requests `cancelled` (C15) belongs to session/cancel only, and
    # from 2026-11 on C40 replaces C15 (background requests stay open; _rules/_check_preview.py).
    if not by_close and c.revision.applies("C15"):
        pending = c.cancelled_permissions
        for key in c.permissions:
            pending = pending.set(key, (e.at, False))
        o.set(cancelled_permissions=pending)
    return cancelled(c.mode, e.at, by_close=by_close)


def _on_permission(o: Obs, e: Event) -> Mode:
    c = o.conv
    assert e.key is not None
    o.set(permissions=c.permissions.set(e.key, e.at))
    if c.phase is Phase.RUNNING and not c.replaying:
        o.set(silent=c.silent.set(e.key, e.at))
    return c.mode


def _on_permission_answer(o: Obs, e: Event) -> Mode:
    c = o.conv
    key = e.key
    assert key is not None
    asked = c.permissions.get(key)
    o.set(permissions=c.permissions.delete(key) if asked is not None else c.permissions)
    silent = c.silent.get(key)
    if silent is not None:
        o.set(silent=c.silent.delete(key))
        o.report(
            "R11",
            silent,
            "permission requested while running, but no requires_action was reported "
            f"before the client answered (line {e.at}). If this was recorded at the client, a "
            "quick answer can overtake a requires_action already on its way: judge agent "
            "rules on the agent's recording (`check --side agent`)",
        )
    cancelled = c.cancelled_permissions.get(key)
    if cancelled is not None:
        o.set(cancelled_permissions=c.cancelled_permissions.delete(key))
        breach = c15_breach(key, asked, cancelled[0], e.message, e.at)
        if breach is not None:
            o.found.append(breach)
    remaining: PMap[RequestKey, int] = o.get("permissions")
    if c.phase is Phase.REQUIRES_ACTION and not remaining and c.cancel_at is None:
        o.set(awaiting_resume=e.at)
    return c.mode


def c15_breach(
    key: RequestKey, asked: int | None, cancel_at: int, answer: object, at: int
) -> Finding | None:
    """C15, "when cancelling, answer every pending `session/request_permission` with the
    `cancelled` outcome": the permission request `key` (asked at `asked`), pending at the
    `session/cancel` of `cancel_at`, answered at `at` with `answer` (None: the recording
    ended with it never answered after the cancelled work ended)."""
    if answer is None:
        return Finding(
            "C15",
            f"permission request {shown(key[1])} was pending at this session/cancel and is "
            "never answered with the cancelled outcome",
            cancel_at,
        )
    if isinstance(answer, j.ErrorResponse):
        if answer.error.code == j.ErrorCode.REQUEST_CANCELLED:
            return None
        return Finding(
            "C15",
            f"permission request of line {asked} was pending at session/cancel (line "
            f"{cancel_at}); it is answered with error {shown(answer.error.code)} instead of "
            "the cancelled outcome",
            at,
        )
    result = getattr(answer, "result", None)
    outcome = result.get("outcome") if isinstance(result, Mapping) else None
    tag = outcome.get("outcome") if isinstance(outcome, Mapping) else None
    if not isinstance(tag, str) or tag == "cancelled":
        return None
    return Finding(
        "C15",
        f"permission request of line {asked} was pending when the client sent "
        f'session/cancel (line {cancel_at}); it must be answered with {{"outcome": '
        '"cancelled"}',
        at,
    )


def _on_resume(o: Obs, e: Event) -> Mode:
    params: Mapping[str, JsonValue] = e.message
    replay = params.get("replayFrom")
    # omitted or null: no replay allowed; a resumed session is open again
    return resumed(o.conv.mode, None if replay is None else Replay(_from_start(replay)))


def _from_start(replay: JsonValue) -> bool:
    return isinstance(replay, Mapping) and replay.get("type") == "start"


def _on_resume_answer(o: Obs, e: Event) -> Mode:
    # Replayed turns are history, not live work; what the window saw ends with it.
    o.set(turn=None)
    return window_over(o.conv.mode)


def _on_close(o: Obs, e: Event) -> Mode:
    return _on_cancel(o, e, by_close=True)


def _on_close_answer(o: Obs, e: Event) -> Mode:
    mode = o.conv.mode
    return closed(mode, e.at) if isinstance(e.message, j.Response) else mode


def _work_reported(o: Obs, e: Event) -> Mode:
    # `running` or `requires_action` reports work: it starts the turn (or marks it started)
    # and is the resume a permission answer waited for (R12). A replayed state does nothing.
    c = o.conv
    mode = c.mode
    if c.turn is None:
        mode = _start_turn(o, e.at, started=True, prompt=_first_waiting(o))
    elif not c.turn.started:
        o.set(turn=attrs.evolve(c.turn, started=True, started_at=e.at))
    o.set(awaiting_resume=None)
    return mode


def _on_running(o: Obs, e: Event) -> Mode:
    return o.conv.mode if o.conv.replaying else _work_reported(o, e)


def _on_requires_action(o: Obs, e: Event) -> Mode:
    if o.conv.replaying:
        return o.conv.mode
    o.set(silent=PMap())  # the requests asked while running are reported now (R11)
    return _work_reported(o, e)


def _on_idle(o: Obs, e: Event) -> Mode:
    c = o.conv
    if not ending(c):
        return c.mode
    turn = c.turn
    prompt = prompt_of(c, turn.prompt) if turn is not None else None
    stop = _stop_of(e)
    if c.cancel_at is not None:
        marked = c.cancelled_permissions
        for key, (at, _) in c.cancelled_permissions.items():
            marked = marked.set(key, (at, True))
        o.set(cancelled_permissions=marked)
    # Prompts inserted into this turn are done; later ones wait for the next turn. A turn
    # prompt neither answered nor reported was not taken: the work was other work that
    # crossed it (agent-initiated, seen first from the client's end), so it waits on.
    if prompt is not None and not (prompt.accepted or prompt.user_reported):
        prompt = None
    done = tuple(p for p in c.prompts if p is prompt or p.user_reported)
    o.set(
        prompts=tuple(p for p in c.prompts if p is not prompt and not p.user_reported),
        turn=None,
        awaiting_resume=None,
        work_ids=PMap(),
        ended=tuple((p, stop if isinstance(stop, str) else None) for p in done),
    )
    # The cancel (if any) is over; the items of the work it ended take no more updates (R23).
    return uncancelled(c.mode, c.work_ids if c.cancel_at is not None else None)


def _on_user_message(o: Obs, e: Event) -> Mode:
    c = o.conv
    message_id: str = e.message.message_id
    if c.replaying:
        # history (R38), even a message the live session already showed
        if message_id not in c.user_ids:
            o.set(user_ids=c.user_ids.set(message_id, True))
        return history_seen(c.mode)
    if message_id in c.user_ids:
        return c.mode
    o.set(user_ids=c.user_ids.set(message_id, True), history=True)
    waiting = [p for p in c.prompts if not p.user_reported]
    match = next((p for p in waiting if p.result_id == message_id), None)
    if match is None:  # first in, first out among prompts not bound by a result id
        match = next((p for p in waiting if p.result_id is None and _may_bind(c, p)), None)
    if match is not None:
        _replace_prompt(o, attrs.evolve(match, user_reported=True, bound_id=message_id))
    return c.mode


def _may_bind(c: Conversation, p: Prompt) -> bool:
    # A user message reported during agent-initiated work is the agent's own (M8), not a
    # waiting prompt's, until the agent answers that prompt (Q7 binds only prompt work).
    turn = c.turn
    agents_own = turn is not None and turn.started and turn.prompt is None
    return p.accepted or not agents_own


def _on_work(o: Obs, e: Event) -> Mode:
    c = o.conv
    if c.replaying:
        return history_seen(c.mode)
    if not c.history and isinstance(e.message, (u.AgentMessageChunk, u.AgentMessage)):
        o.set(history=True)
    if c.awaiting_resume is not None:
        o.set(awaiting_resume=None)
    if c.turn is not None and work_before_running(c, e) is not None:
        o.set(turn=attrs.evolve(c.turn, early_output=True))  # R6 is said once per turn
    ident = work_id(e.message)
    if ident is not None and c.working and ident not in c.work_ids:
        o.set(work_ids=c.work_ids.set(ident, True))
    return c.mode


def _on_other_state(o: Obs, e: Event) -> Mode:
    return o.conv.mode


def _nothing_to_do(c: Conversation, upd: object) -> bool:
    return True


def _user_message_inert(c: Conversation, upd: object) -> bool:
    # `_on_user_message` changes nothing for a live message the session already showed.
    return not c.replaying and upd.message_id in c.user_ids  # type: ignore[attr-defined]


def _work_settled(c: Conversation, upd: object) -> bool:
    # `_on_work` changes nothing but, at most, the work's items: a live session (no window,
    # whose history the output would be, R38; a cancel or close has guards on work anyway),
    # no resume awaited, the message history already begun, no turn whose early output it
    # would mark (R6).
    if type(c.mode) is not Live or c.awaiting_resume is not None:
        return False
    if not c.history and isinstance(upd, (u.AgentMessageChunk, u.AgentMessage)):
        return False
    turn = c.turn
    return turn is None or turn.started or turn.early_output


def _work_inert(c: Conversation, upd: object) -> bool:
    # `_on_work` changes nothing: settled, and what it is about (if anything) already
    # touched by the work or outside any work.
    if not _work_settled(c, upd):
        return False
    ident = work_id(upd)
    return ident is None or ident in c.work_ids or not c.working


def work_grown(c: Conversation, upd: object) -> str | None:
    """The item (message or tool call id) `upd` adds to the running work where that is all
    `_on_work` does for it (`_work_inert` fails on its last test alone); None otherwise."""
    if not _work_settled(c, upd):
        return None
    ident = work_id(upd)
    if ident is None or ident in c.work_ids or not c.working:
        return None
    return ident


#: An effect: the bookkeeping of one event (recorded on the `Obs`), returning the session's
#: next mode (the phase value; the same one when the event moves none).
Effect: TypeAlias = Callable[[Obs, Event], Mode]

_EFFECTS: Final[Mapping[Kind, Effect]] = {
    Kind.PROMPT: _on_prompt,
    Kind.PROMPT_ANSWER: _on_prompt_answer,
    Kind.CANCEL: _on_cancel,
    Kind.PERMISSION: _on_permission,
    Kind.PERMISSION_ANSWER: _on_permission_answer,
    Kind.RESUME: _on_resume,
    Kind.RESUME_ANSWER: _on_resume_answer,
    Kind.CLOSE: _on_close,
    Kind.CLOSE_ANSWER: _on_close_answer,
    Kind.RUNNING: _on_running,
    Kind.REQUIRES_ACTION: _on_requires_action,
    Kind.IDLE: _on_idle,
    Kind.OTHER_STATE: _on_other_state,
    Kind.USER_MESSAGE: _on_user_message,
    Kind.WORK: _on_work,
}


def _stop_of(e: Event) -> str | None:
    stop = e.message.stop_reason
    return stop if isinstance(stop, str) else None


#: Per effect (None: a kind without one), when it would change nothing for an update:
#: `(machine, update) -> bool`. The quiet path takes a guard-free entry only through this;
#: an effect without a test here never takes it (a changed effect turns it off by itself).
INERT: Final[Mapping[Effect | None, Callable[[Conversation, object], bool]]] = {
    None: _nothing_to_do,
    _on_user_message: _user_message_inert,
    _on_work: _work_inert,
}
#: `_on_work`'s inert test: an entry whose quiet test it is has no guard and no effect but
#: `_on_work` (`work_grown` may stand in for the full path there).
WORK_INERT: Final = _work_inert
