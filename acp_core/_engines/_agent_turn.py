"""The prompt turn: answering prompts, and the foreground work they and the agent start.

Owns: the steps of `AcceptPrompt` (answer `{}` / `{"messageId"}`, report the user message
under an agent-owned id, report `running`: R1-R3, R5, R6, Q4, Q7), `RejectPrompt`,
`ReportUserMessage`, `StartWork` (agent-initiated work, Q4), `EndTurn` and `ReportAbort` (R2,
R7; a cancelled turn ends `cancelled`, R21, R22): `TURN_STEPS`, and `Build.turn`, the only
steps that set it.
Must not know: how prompts are received and queued (`_engines/_agent_receive.py`, the
conversation machine), what a prompt's idempotency key does beyond the two calls into
`_engines/_agent_keys.py`, what a cancel reaches (`_engines/_agent_cancel.py`), or the output
reported inside a turn (`_engines/_agent_output.py`).
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from acp_core._wire._codec import encode_result
from acp_core._wire._content import ContentBlock
from acp_core._wire._json import UNSET, JsonObject
from acp_core._wire._jsonrpc import ErrorResponse, PromptResult, Response, RpcError
from acp_core._wire._updates import (
    IdleStateUpdate,
    RunningStateUpdate,
    UserMessage,
    UserMessageChunk,
)

from ._agent_build import Build, new_message_id, refuse
from ._agent_keys import prompt_inserted, prompt_released
from ._agent_records import Turn
from ._intents import (
    AcceptPrompt,
    EndTurn,
    RejectPrompt,
    ReportAbort,
    ReportUserMessage,
    StartWork,
)

__all__ = ["TURN_STEPS"]


def _report_user_message(
    b: Build, content: tuple[ContentBlock, ...], message_id: str, *, chunked: bool
) -> None:
    if chunked and content:
        for block in content:
            b.update(UserMessageChunk(message_id, block))
    else:
        b.update(UserMessage(message_id, content))


def _accept_prompt(b: Build, intent: AcceptPrompt) -> None:
    engine = b.engine
    prompt = next((p for p in engine.prompts if p.id == intent.request_id), None)
    if prompt is None:
        raise refuse("R1", f"no received, unanswered prompt has id {intent.request_id!r}")
    if b.turn is not None:
        raise refuse(
            "E1",
            "foreground work is active: end it before accepting another prompt (Q4), "
            "or reject the prompt",
        )
    if prompt is not engine.prompts[0] and not engine.revision.prompt_result_has_message_id:
        # Q7: with `{}` results a client binds user messages to its prompts first in, first
        # out, so a newer prompt inserted first would be taken for the older one.
        raise refuse(
            "E1",
            f"prompt {engine.prompts[0].id!r} is older: accept or reject it first "
            "(the 2026-08 result names no message, Q7)",
        )
    content = prompt.prompt if intent.content is None else intent.content
    if intent.user_message_id is not None and b.session.message(intent.user_message_id):
        # R5: the prompt lands as a new message; reusing an id would overwrite an old one and
        # leave the client nothing new to bind the prompt to (Q7). A policy stricter than
        # R5's home (which refuses only another role's id, on the update this would send).
        raise refuse("R5", f"message id {intent.user_message_id!r} is already used")
    message_id = new_message_id(b, intent.user_message_id, "user")
    result = PromptResult(message_id if engine.revision.prompt_result_has_message_id else UNSET)
    encoded = encode_result(result, revision=engine.revision)
    b.send(Response(prompt.id, encoded))  # type: ignore[arg-type]
    prompt_inserted(b, prompt, message_id, encoded)  # type: ignore[arg-type]  # R68
    _report_user_message(b, content, message_id, chunked=intent.chunked)
    b.update(RunningStateUpdate())
    b.turn = Turn(prompt.id, True, message_id)
    b.open_message = None


def _reject_prompt(b: Build, intent: RejectPrompt) -> None:
    engine = b.engine
    prompt = next((p for p in engine.prompts if p.id == intent.request_id), None)
    if prompt is None:
        raise refuse("R1", f"no received, unanswered prompt has id {intent.request_id!r}")
    error = RpcError(intent.code, intent.message, intent.data)
    b.send(ErrorResponse(prompt.id, error))
    prompt_released(b, prompt, error)  # joined retries share the outcome (R68, P15)


def _report_user(b: Build, intent: ReportUserMessage) -> None:
    message_id = new_message_id(b, intent.message_id, "user")
    _report_user_message(b, intent.content, message_id, chunked=intent.chunked)
    turn = b.turn
    if turn is not None and turn.user_message_id is None:
        b.turn = Turn(turn.prompt_id, turn.prompt_driven, message_id)
    b.open_message = None


def _start_work(b: Build, intent: StartWork) -> None:
    if b.turn is not None:
        raise refuse("E1", "foreground work is already active")
    if b.engine.prompts:
        # A client that sees `running` after its prompt takes it for that prompt's turn;
        # waiting prompts come first: accept or reject them before starting own work (Q4).
        raise refuse("E1", "a received prompt is waiting: accept or reject it first")
    b.update(RunningStateUpdate())
    b.turn = Turn(None, False, None)
    b.open_message = None


def _end(b: Build, stop_reason: str, meta: JsonObject | None = None) -> None:
    if b.turn is None:
        # A policy, not the checker's judgement: the intent has nothing to end (sent, its idle
        # would be an idle repeated while idle, S2, a SHOULD). Whether the user message was
        # reported before the end (R2) is the machine's to say, as every outbound is (`own`).
        raise refuse("R7", "there is no foreground work to end")
    if b.conversation.cancel_pending:
        stop_reason = "cancelled"  # R21: a cancelled turn ends in `cancelled`, nothing else
    # The machine ends the work with this idle: requests it asked become background, so a
    # late answer does not hold up the next turn (`Conversation.blocks`).
    b.update(IdleStateUpdate(stop_reason, UNSET if meta is None else meta))
    b.turn = None
    b.open_message = None


def _end_turn(b: Build, intent: EndTurn) -> None:
    _end(b, intent.stop_reason, None if intent.meta is UNSET else intent.meta)


def _report_abort(b: Build, intent: ReportAbort) -> None:
    # R22: an abort caused by the cancel is reported as `cancelled`, never as an error.
    stop = intent.stop_reason
    if stop is None:
        stop = "error" if "error" in b.engine.revision.stop_reasons else "_error"
    _end(b, stop)


TURN_STEPS: Final[dict[type[Any], Callable[[Build, Any], None]]] = {
    AcceptPrompt: _accept_prompt,
    RejectPrompt: _reject_prompt,
    ReportUserMessage: _report_user,
    StartWork: _start_work,
    EndTurn: _end_turn,
    ReportAbort: _report_abort,
}
