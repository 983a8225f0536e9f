"""The lifecycle guards: one small check per rule, each named by the rule id it decides.

Owns: `GUARDS` (every guard, in the order they run for an event) and `CHECKED` (the rule
ids the machine decides, for the `checked` column of docs/rules.md).
Must not know: how messages are classified or how the bookkeeping changes
(`_rules/_conversation.py`), or in which stages it runs (`SPEAKS`,
`_rules/_conversation_lifecycle.py`: a guard still reads only the fields it needs, so one
placed in a stage it cannot speak in stays correct); a guard only reads the machine *before*
the event's effect.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from typing import Final

from acp_core._wire import _jsonrpc as j
from acp_core._wire import _updates as u
from acp_core._wire._json import UNSET, JsonValue, Unset
from acp_core._wire._revision import Revision

from ._conversation_state import Conversation, Event, Guard, Kind, Phase, Prompt
from ._predicates import RequestKey, shown

__all__ = ["CHECKED", "GUARDS", "ending", "prompt_of", "work_before_running", "work_id"]

# -- the checks ---------------------------------


def prompt_of(c: Conversation, key: RequestKey | None) -> Prompt | None:
    return None if key is None else next((p for p in c.prompts if p.key == key), None)


def ending(c: Conversation) -> bool:
    # Whether an idle now ends foreground work (and must carry its stop reason, ...).
    if c.replaying:
        return False
    if c.phase not in (Phase.UNKNOWN, Phase.IDLE):
        return True
    turn = c.turn
    if turn is None:
        return False
    p = prompt_of(c, turn.prompt)
    return turn.started or (p is not None and (p.accepted or p.user_reported))


def _stop(e: Event) -> str | None | Unset:
    stop: str | None | Unset = e.message.stop_reason
    return stop


def _r8(c: Conversation, e: Event) -> str | None:
    stop = _stop(e)
    if not ending(c) or isinstance(stop, str):
        return None
    return f"idle ends foreground work {'without' if stop is UNSET else 'with a null'} stopReason"


def work_before_running(c: Conversation, e: Event) -> str | None:
    """R6, "send `running` whenever foreground work starts": the turn's work shows itself
    before any `running`, by an idle that ends it or by output for its accepted prompt.

    Output: accepted means answered. A user message alone may be one the agent inserted
    while the prompt still waits (FIFO binding cannot tell, Q7), and background output is
    allowed then (R40). Said once per turn (`Turn.early_output`)."""
    turn = c.turn
    if turn is None or turn.started or turn.early_output:
        return None
    if e.kind is Kind.IDLE:
        if not ending(c):
            return None
        return (
            f"the turn that began at line {turn.at} ends with an idle before any running "
            "state_update"
        )
    if c.replaying:
        return None
    p = prompt_of(c, turn.prompt)
    if p is None or not p.accepted:
        return None
    return (
        f"the prompt of line {p.at} was accepted, but its work reports output before any "
        "running state_update"
    )


def _taken(c: Conversation) -> Prompt | None:
    # The prompt whose work an idle now ends: answered or with its user message reported
    # (else the work was other work that crossed a waiting prompt; it is judged later).
    p = prompt_of(c, c.turn.prompt) if c.turn is not None and ending(c) else None
    return p if p is not None and (p.accepted or p.user_reported) else None


def _r2(c: Conversation, e: Event) -> str | None:
    p = _taken(c)
    if p is None or p.user_reported:
        return None
    return (
        f"the turn ends before the user message of the prompt of line {p.at} was reported "
        "(user_message or user_message_chunk)"
    )


def _r21(c: Conversation, e: Event) -> str | None:
    stop = _stop(e)
    if c.cancel_at is None or c.cancel_by_close or not ending(c):
        return None
    if not isinstance(stop, str) or stop == "cancelled":
        return None
    return (
        f"the client cancelled at line {c.cancel_at}, but the work ends with stopReason "
        f'{shown(stop)} instead of "cancelled"'
    )


def _r24(c: Conversation, e: Event, *, freed: bool = False) -> str | None:
    # R24, "session/close cancels ongoing work as if session/cancel had been received, frees
    # the session and answers {}": its one home, asked at two points of the guard order.
    # `freed` (`_r24_freed`, first of all guards, for every update): once the close is
    # answered nothing more is reported for the session (the table's refusal in CLOSED).
    # Else: at the idle that ends the work the close cancelled, its stop reason; at the
    # close's answer, that the work ended before it, and the result. On one idle both can
    # speak with other guards' findings between them (a close answered while work ran, then
    # idle end_turn: R24 freed, R6, R2, R24 stop reason), hence two points of the order.
    if freed:
        if c.closed_at is None:
            return None
        return (
            f"session update after session/close was answered (line {c.closed_at}): the "
            "session is freed"
        )
    if e.kind is Kind.IDLE:
        stop = _stop(e)
        if c.cancel_at is None or not c.cancel_by_close or not ending(c):
            return None
        if not isinstance(stop, str) or stop == "cancelled":
            return None
        return (
            f"session/close (line {c.cancel_at}) cancels the work as session/cancel does, but "
            f'it ends with stopReason {shown(stop)} instead of "cancelled"'
        )
    msg = e.message
    if not isinstance(msg, j.Response):
        return None  # an error is allowed (unknown or inactive session)
    result = msg.result
    if ending(c):
        # Nothing may be reported for the session once the close is answered, so the idle +
        # "cancelled" that ends the work it cancelled (R21) can only come before the answer.
        return (
            "session/close is answered while the work it cancels has not ended: its idle "
            'with stopReason "cancelled" must come before the answer (nothing is reported '
            "for the session after it)"
        )
    if isinstance(result, Mapping) and not [k for k in result if k != "_meta"]:
        return None
    return (
        f"session/close is answered with {shown(result)}; the result is {{}} (only `_meta` besides)"
    )


#: `_r24` asked first of all guards, for every update: the session freed by the close's answer.
_r24_freed: Final = partial(_r24, freed=True)


def _s2(c: Conversation, e: Event) -> str | None:
    stop = _stop(e)
    if c.replaying or ending(c) or c.phase is not Phase.IDLE or not isinstance(stop, str):
        return None
    return f"idle repeated with stopReason {shown(stop)} while already idle"


def _s1(c: Conversation, e: Event) -> str | None:
    if c.replaying:
        return None
    was_working = c.phase in (Phase.RUNNING, Phase.REQUIRES_ACTION) or (
        c.turn is not None and c.turn.started
    )
    if was_working or not (c.phase is Phase.IDLE or c.turn is not None):
        return None
    return "state goes from idle to requires_action without running"


def _r12(c: Conversation, e: Event) -> str | None:
    if c.awaiting_resume is None or c.replaying:
        return None
    if c.phase is not Phase.REQUIRES_ACTION or c.cancel_at is not None:
        return None
    return (
        f"work resumed after the permission answer of line {c.awaiting_resume} without a "
        "running state_update"
    )


def _r39(c: Conversation, e: Event) -> str | None:
    if not c.replay_forbidden:
        return None
    return (
        "history update sent before the session/resume response, though the resume asked "
        "for no replay (`replayFrom` omitted or null)"
    )


def _r38(c: Conversation, e: Event) -> str | None:
    if not isinstance(e.message, j.Response) or not c.replay_from_start:
        return None
    if c.replayed or not c.history:
        return None
    return (
        'session/resume asked for the whole history (`replayFrom: {"type": "start"}`), but '
        "the agent answers before replaying any of this session's messages"
    )


def _r22(c: Conversation, e: Event) -> str | None:
    msg = e.message
    if not isinstance(msg, j.ErrorResponse) or c.cancel_at is None:
        return None
    turn = c.turn
    if turn is None or turn.prompt != e.key:
        return None
    # A prompt the cancel caught before any work started is answered -32800 (2026-11
    # draft: the cancel covers "prompts not yet inserted").
    if not turn.started and msg.error.code == j.ErrorCode.REQUEST_CANCELLED:
        return None
    return (
        f"after session/cancel (line {c.cancel_at}) the prompt is answered with error "
        f"{shown(msg.error.code)}; cancellation is reported as idle with stopReason "
        '"cancelled", never as an error'
    )


def _r1(c: Conversation, e: Event) -> str | None:
    # R1, "answer `session/prompt` as soon as the prompt is accepted; the result is `{}`" (or
    # `{"messageId": ...}` from 2026-11 on): at the answer, its result; at the idle that ends
    # the prompt's work, that the answer came.
    if e.kind is Kind.IDLE:
        p = _taken(c)
        if p is None or p.accepted:
            return None
        return f"the turn ends before the prompt of line {p.at} was answered"
    msg = e.message
    if not isinstance(msg, j.Response) or prompt_of(c, e.key) is None:
        return None
    return _result_fault(c.revision, msg.result)


def _result_fault(rev: Revision, result: JsonValue) -> str | None:
    if not isinstance(result, Mapping):
        return f"the session/prompt result is {shown(result)}, not an object"
    keys = sorted(k for k in result if k != "_meta")
    if not rev.prompt_result_has_message_id:
        if not keys:
            return None
        hint = (
            " (`messageId` in the result belongs to the 2026-11 draft: check with "
            "--revision 2026-11)"
            if keys == ["messageId"]
            else ""
        )
        return (
            f"the session/prompt result must be {{}} (only `_meta` besides) in revision "
            f"{rev.name}; it has {[shown(k) for k in keys]}{hint}"
        )
    mid = result.get("messageId")
    if isinstance(mid, str) and mid and keys == ["messageId"]:
        return None
    return (
        f'the session/prompt result must be {{"messageId": ...}} (and optional `_meta`) '
        f"in revision {rev.name}; it has {[shown(k) for k in keys]}"
    )


def _r23(c: Conversation, e: Event) -> str | None:
    if not c.late_ids:
        return None
    ident = work_id(e.message)
    if ident is None or not c.frozen(ident):
        return None
    return (
        f"{shown(ident)} belongs to the work the client cancelled, and is updated after that "
        'work ended with idle + "cancelled"; updates after a cancel must precede that idle'
    )


def _r41_answer(c: Conversation, e: Event) -> str | None:
    msg = e.message
    if not isinstance(msg, j.Response):
        return None
    result = msg.result
    options = result.get("configOptions") if isinstance(result, Mapping) else None
    if not isinstance(options, (list, tuple)):
        return "the session/set_config_option answer carries no `configOptions` list"
    wanted = e.pending.detail if e.pending is not None else None
    ids = {o.get("configId") for o in options if isinstance(o, Mapping)}
    if isinstance(wanted, str) and wanted not in ids:
        return (
            f"the session/set_config_option answer leaves out the option it set "
            f"({shown(wanted)}); it carries the complete option set"
        )
    return None


def work_id(upd: object) -> str | None:
    """The tool call or message an output update is about (None: neither)."""
    attribute = _WORK_ID[type(upd)]
    return None if attribute is None else getattr(upd, attribute)


class _WorkIdCache(dict[type, "str | None"]):
    # Update class -> the attribute naming what it is about (worked out once per class).
    def __missing__(self, cls: type) -> str | None:
        if issubclass(cls, (u.ToolCallUpdate, u.ToolCallContentChunk)):
            found: str | None = "tool_call_id"
        elif issubclass(
            cls, (u.AgentMessageChunk, u.AgentMessage, u.AgentThoughtChunk, u.AgentThought)
        ):
            found = "message_id"
        else:
            found = None
        self[cls] = found
        return found


_WORK_ID: Final = _WorkIdCache()


_UPDATES: Final = (
    Kind.RUNNING,
    Kind.REQUIRES_ACTION,
    Kind.IDLE,
    Kind.OTHER_STATE,
    Kind.USER_MESSAGE,
    Kind.WORK,
    Kind.BACKGROUND,
)

#: Every lifecycle check, by the rule it decides, in the order they run for an event.
GUARDS: Final[tuple[Guard, ...]] = (
    Guard("R24", _UPDATES, _r24_freed),
    Guard("R39", (Kind.USER_MESSAGE, Kind.WORK), _r39),
    Guard("R6", (Kind.WORK,), work_before_running),
    Guard("R12", (Kind.WORK,), _r12),
    Guard("R23", (Kind.WORK,), _r23),
    Guard("S1", (Kind.REQUIRES_ACTION,), _s1),
    Guard("S2", (Kind.IDLE,), _s2),
    Guard("R8", (Kind.IDLE,), _r8),
    Guard("R6", (Kind.IDLE,), work_before_running),
    Guard("R2", (Kind.IDLE,), _r2),
    Guard("R1", (Kind.IDLE,), _r1),
    Guard("R21", (Kind.IDLE,), _r21),
    Guard("R24", (Kind.IDLE,), _r24),
    Guard("R22", (Kind.PROMPT_ANSWER,), _r22),
    Guard("R1", (Kind.PROMPT_ANSWER,), _r1),
    Guard("R38", (Kind.RESUME_ANSWER,), _r38),
    Guard("R24", (Kind.CLOSE_ANSWER,), _r24),
    Guard("R41", (Kind.CONFIG_ANSWER,), _r41_answer),
)
#: Rules this machine decides, besides those of its effects below (J1, J2, C25 in pairing;
#: R11 and C15 at answers and at the end). Feeds the `checked` column of docs/rules.md.
CHECKED: Final = frozenset({g.rule for g in GUARDS} | {"J1", "J2", "C25", "R11", "C15", "R7"})
