"""The agent connection's replies to a client's batch, held until they go out as one array.

Owns: `HeldReplies` (a batch's replies so far and the requests still unanswered), `BatchReplies`
(every held batch of a connection, a value) and the two moves on one step's outbound wire:
`take_batch` (the step that received the batch: what it answered goes in, the rest waits) and
`gather` (a later step: an answer to a held request joins its batch; the last one sends it).
Must not know: which request is answered how (the handlers), the rules (the checker's J42
says why: JSON-RPC 2.0 §6, a batch holding requests is answered with one array of their
responses, sent when all of them are done), I/O.

Theory of operation. A client batch may hold requests, notifications and invalid entries. Each
request is answered by whoever answers it alone (a handler at once, an engine at the end of a
turn, the host later); the answers a step puts on the wire are taken out of it here and kept
beside the batch, in the order they came; when the batch's last request is answered, its
replies go on the wire as one array where that last answer would have gone. An invalid entry's
error (`id: null`) is answered at once, so it is taken in the receiving step. A batch of
notifications only is answered with nothing. The held replies are bounded by the requests
the client has pending (each waits on one), which the host answers.
"""

from __future__ import annotations

from collections.abc import Iterable
from typing import Any

import attrs

from acp_core._state._pcoll import PMap
from acp_core._wire._value import frozen

__all__ = ["BatchReplies", "HeldReplies", "gather", "take_batch"]

RequestId = int | str | None


@frozen
class HeldReplies:
    """One client batch's replies so far (in the order answered) and the requests of it not
    answered yet."""

    waiting: frozenset[int | str]
    replies: tuple[dict[str, Any], ...]


@frozen
class BatchReplies:
    """Every client batch whose replies wait for an answer, as a value.

    Attributes:
        held: batch number -> its replies so far.
        by_request: request id -> the batch number it belongs to (each waiting request).
        next_batch: the number the next held batch gets.
    """

    held: PMap[int, HeldReplies] = attrs.field(factory=PMap)
    by_request: PMap[int | str, int] = attrs.field(factory=PMap)
    next_batch: int = 0


def _reply_id(message: object) -> tuple[bool, RequestId]:
    # (is it a response, its id): a response carries an id and no method.
    if type(message) is dict and "method" not in message and "id" in message:
        rid = message["id"]
        return True, rid if rid is None or isinstance(rid, (int, str)) else None
    return False, None


def take_batch(
    replies: BatchReplies, wire: list[Any], start: int, requests: Iterable[int | str]
) -> BatchReplies:
    """The step that received a batch with the given (newly pending) `requests` wrote its
    answers from `wire[start]` on: take them out (with every `id: null` error, an invalid
    entry's); the array goes on the wire if nothing is left to wait for, else it is held."""
    waiting = set(requests)
    kept: list[Any] = []
    taken: list[dict[str, Any]] = []
    for message in wire[start:]:
        response, rid = _reply_id(message)
        if response and (rid is None or rid in waiting):
            taken.append(message)
            if rid is not None:
                waiting.discard(rid)
        else:
            kept.append(message)
    if not taken and not waiting:
        return replies  # notifications only: answered with nothing
    del wire[start:]
    wire.extend(kept)
    if not waiting:
        wire.append(taken)
        return replies
    number = replies.next_batch
    held = replies.held.set(number, HeldReplies(frozenset(waiting), tuple(taken)))
    by_request = replies.by_request
    for rid in waiting:
        by_request = by_request.set(rid, number)
    return BatchReplies(held, by_request, number + 1)


def gather(replies: BatchReplies, wire: list[Any]) -> BatchReplies:
    """A later step's `wire`, with each answer to a held request taken into its batch, and a
    batch whose last request it answers replaced by the batch's array."""
    if not replies.by_request:
        return replies  # the common case: no batch waits (one lookup a step)
    held, by_request = replies.held, replies.by_request
    out: list[Any] = []
    for message in wire:
        response, rid = _reply_id(message)
        number = by_request.get(rid) if response and rid is not None else None
        if number is None or rid is None:
            out.append(message)
            continue
        batch = held[number]
        by_request = by_request.delete(rid)
        waiting = batch.waiting - {rid}
        taken = (*batch.replies, message)
        if waiting:
            held = held.set(number, HeldReplies(waiting, taken))
        else:
            held = held.delete(number)
            out.append(list(taken))
    wire[:] = out
    return BatchReplies(held, by_request, replies.next_batch)
