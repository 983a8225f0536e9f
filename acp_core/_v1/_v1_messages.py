"""Message chunks of v1 traffic: synthetic ids, the full-reply guard, prompt echoes.

Owns: digest 6.2 rules 6-7 (id-less chunks get `v1:<role>:<n>` ids, boundaries per
`BoundaryPolicy`), the full-reply guard and the echo policy.
Must not know: tool calls, the turn, JSON-RPC envelopes.

Runs: the open id-less message of each role keeps its texts, so that a later chunk with an
id can be compared with it. A run ended by another chunk stays a guard candidate (an agent
re-sending `[thinking, text]` whole sends the thought first); a run ended by any other
update is forgotten (`Step.end_runs`).
"""

from __future__ import annotations

from typing import Any, Final

import attrs

from acp_core._state._pcoll import EMPTY_VEC, PMap
from acp_core._wire._content import ContentBlock, TextContent
from acp_core._wire._json import UNSET, JsonObject, Meta
from acp_core._wire._updates import (
    AgentMessage,
    AgentMessageChunk,
    AgentThought,
    AgentThoughtChunk,
    UserMessage,
    UserMessageChunk,
)

from ._v1_policy import (
    DUPLICATE_FULL_REPLY,
    ECHO_REPLACES_PROMPT,
    ECHO_SUPPRESSED,
    ESCAPED_ID,
    INVALID_UPDATE,
    ROLE_SPLIT,
    SYNTHETIC_MESSAGE_ID,
    EchoPolicy,
)
from ._v1_state import AGENT, OTHER, RESERVED, THOUGHT, USER, Run, V1Session, with_runs
from ._v1_step import Step

__all__ = ["chunk"]

_CHUNK: Final[dict[str, Any]] = {
    USER: UserMessageChunk,
    AGENT: AgentMessageChunk,
    THOUGHT: AgentThoughtChunk,
}
_UPSERT: Final[dict[str, Any]] = {USER: UserMessage, AGENT: AgentMessage, THOUGHT: AgentThought}


def chunk(step: Step, sid: str, role: str, update: dict[str, Any], path: str) -> None:
    raw_id = update.get("messageId")
    real_id: str | None = raw_id if type(raw_id) is str else None
    if raw_id is not None and real_id is None:
        step.diag(INVALID_UPDATE, f"{path}.messageId", "non-string messageId ignored")
    # Decode the block through a v2 wrapper (the id is filled in below).
    decoded = step.decode({**update, "messageId": ""}, path)
    if decoded is None:
        step.end_runs(sid, OTHER)
        step.keep_raw(sid, update, path)
        return
    assert isinstance(decoded, (UserMessageChunk, AgentMessageChunk, AgentThoughtChunk))
    block, meta, extra = decoded.content, decoded.meta, decoded.extra
    session = step.get(sid)
    if role == USER:
        if session.echo is not None and echo_chunk(
            step, sid, session, block, meta, extra, path, real_id
        ):
            return
        session = step.get(sid)  # the echo window may have closed
    elif role == AGENT and session.echo is not None:
        # The reply has started. A thought does not end the echo window: adapters send
        # heartbeat thoughts before they echo the prompt (a Cursor adapter).
        session = attrs.evolve(session, echo=None)
    if real_id is not None:
        chunk_with_id(step, sid, session, role, real_id, block, meta, extra, path)
        return
    runs = _close_others(step, session.runs, role)
    run = runs.get(role)
    if run is not None and len(run.texts) > 1 and _repeats(step, run, block):
        # The whole reply again without an id (a codex bridge). Only after two deltas or
        # more: one chunk said twice ("ha", "ha") is a stutter as often as a re-send.
        _replace_run(step, sid, session, runs, role, run, block, meta, extra, path, "id-less")
        return
    seq = session.seq
    if run is None or not run.open:
        seq += 1
        message_id = f"{RESERVED}{role}:{seq}"
        run = Run(message_id, EMPTY_VEC, 0, True, True)
        step.diag(
            SYNTHETIC_MESSAGE_ID,
            path,
            f"{role} chunk without messageId starts synthetic message {message_id!r}",
        )
    if type(block) is TextContent:
        run = Run(
            run.message_id,
            run.texts.append(block.text),
            run.length + len(block.text),
            run.text_only,
            True,
        )
    else:
        run = Run(run.message_id, run.texts, run.length, False, True)
    step.put(sid, with_runs(session, seq, runs.set(role, run)))
    step.emit(sid, _CHUNK[role](run.message_id, block, meta, extra))


def _close_others(step: Step, runs: PMap[str, Run], role: str) -> PMap[str, Run]:
    if not step.policy.boundary.role_change:
        return runs
    for other, run in runs.items():
        if other != role and run.open:
            runs = runs.set(other, attrs.evolve(run, open=False))
    return runs


def _escape(step: Step, message_id: str, path: str) -> str:
    """A real id, moved out of the synthetic ids' namespace if it intrudes on it."""
    if message_id.startswith(RESERVED):
        escaped = f"{RESERVED}id:{message_id}"
        step.diag(ESCAPED_ID, f"{path}.messageId", f"reserved prefix: used as {escaped!r}")
        return escaped
    return message_id


def chunk_with_id(
    step: Step,
    sid: str,
    session: V1Session,
    role: str,
    real_id: str,
    block: ContentBlock,
    meta: Meta,
    extra: JsonObject,
    path: str,
) -> None:
    original = session
    own_id = _escape(step, real_id, path)
    # One v1 id may name a thought and a reply (both halves of one model message); v2 ids
    # name one message of one role, so the later role gets its own id.
    first_role = session.id_roles.get(own_id)
    if first_role is None:
        session = attrs.evolve(session, id_roles=session.id_roles.set(own_id, role))
    elif first_role != role:
        split = f"{RESERVED}id:{role}:{own_id}"
        if split not in session.id_roles:
            step.diag(
                ROLE_SPLIT,
                f"{path}.messageId",
                f"{real_id!r} already names a {first_role} message: this {role} one is {split!r}",
            )
            session = attrs.evolve(session, id_roles=session.id_roles.set(split, role))
        own_id = split
    message_id = session.aliases.get(f"{role}:{own_id}", own_id)
    runs = _close_others(step, session.runs, role)
    run = runs.get(role)
    if run is not None and _repeats(step, run, block):
        # The whole reply again, after its deltas: replace them, alias the real id.
        target = run.message_id
        aliases = session.aliases.set(f"{role}:{own_id}", target)
        session = attrs.evolve(session, aliases=aliases)
        what = f"{real_id!r}, which now names {target!r}"
        _replace_run(step, sid, session, runs, role, run, block, meta, extra, path, what)
        return
    if run is not None and run.open:
        runs = runs.set(role, attrs.evolve(run, open=False))
    if runs is not session.runs or session is not original:
        step.put(sid, with_runs(session, session.seq, runs))
    step.emit(sid, _CHUNK[role](message_id, block, meta, extra))


def _repeats(step: Step, run: Run, block: ContentBlock) -> bool:
    """The full-reply guard's test: `block` is exactly the joined text of `run`."""
    return (
        step.policy.full_reply_guard
        and run.text_only
        and type(block) is TextContent
        and run.length == len(block.text) > 0
        and "".join(run.texts) == block.text
    )


def _replace_run(
    step: Step,
    sid: str,
    session: V1Session,
    runs: PMap[str, Run],
    role: str,
    run: Run,
    block: ContentBlock,
    meta: Meta,
    extra: JsonObject,
    path: str,
    what: str,
) -> None:
    """The whole reply `block` after its deltas `run`: an upsert of the run's message with
    it (the view keeps one copy), and the run is over (the whole text ended the message)."""
    target = run.message_id
    step.diag(
        DUPLICATE_FULL_REPLY,
        path,
        f"{role} chunk ({what}) repeats the id-less chunks of {target!r}: "
        f"it replaces them (an upsert of {target!r})",
    )
    if meta is UNSET and not extra:
        step.emit(sid, _UPSERT[role](target, (block,)))
    else:  # keep the chunk's own _meta and extra keys with its block
        step.emit(sid, _UPSERT[role](target, ()))
        step.emit(sid, _CHUNK[role](target, block, meta, extra))
    step.put(sid, attrs.evolve(session, runs=runs.delete(role)))


def echo_chunk(
    step: Step,
    sid: str,
    session: V1Session,
    block: ContentBlock,
    meta: Meta,
    extra: JsonObject,
    path: str,
    real_id: str | None,
) -> bool:
    """A user chunk while the prompt's echo window is open; True if it was consumed."""
    echo = session.echo
    assert echo is not None
    mode = step.policy.echo
    if mode == EchoPolicy.KEEP:
        return False
    if mode == EchoPolicy.REPLACE:
        if not echo.replacing:
            step.diag(
                ECHO_REPLACES_PROMPT,
                path,
                f"the agent's echo replaces the prompt's content in {echo.message_id!r}",
            )
            step.emit(sid, UserMessage(echo.message_id, ()))
        aliases = session.aliases
        if real_id is not None:
            aliases = aliases.set(f"{USER}:{_escape(step, real_id, path)}", echo.message_id)
        step.put(
            sid, attrs.evolve(session, echo=attrs.evolve(echo, replacing=True), aliases=aliases)
        )
        step.emit(sid, UserMessageChunk(echo.message_id, block, meta, extra))
        return True
    if type(block) is TextContent:
        text = block.text
        matches = bool(text) and echo.text.startswith(text, echo.cursor)
        cursor = echo.cursor + len(text)
    else:
        matches = block in echo.blocks
        cursor = echo.cursor
    if not matches:
        # Not (or no longer) an echo: from here on user chunks are ordinary.
        step.put(sid, attrs.evolve(session, echo=None))
        return False
    step.diag(
        ECHO_SUPPRESSED,
        path,
        f"user chunk repeats the prompt already shown as {echo.message_id!r}: dropped",
    )
    step.put(sid, attrs.evolve(session, echo=attrs.evolve(echo, cursor=cursor)))
    return True
