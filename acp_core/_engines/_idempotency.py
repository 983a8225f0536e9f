"""Prompt idempotency keys (Preview digest §5.3): the agent's ledger of keys, as a value.

Owns: `KeyLedger` (per-session key -> what became of the prompt that carried it), the three
answers a keyed prompt gets (`Admission`: a new attempt, an immediate answer with the original
`messageId`, or a join onto the held original), and the key shape (`valid_key`, C43).
Must not know: JSON-RPC, engines, sessions other than by being stored per session.

At most one user message is inserted per (session, key) (R67). A retry while the original is
still held joins it and resolves with its outcome (R68); once the original was inserted as M
every retry is answered with M at once. An original that fails or is cancelled before
insertion frees the key (P15): joined retries get the same error, a later retry is new.
Keys are kept as long as the ledger is (it lives in the agent engine, R69); the inserted ones
leave with a snapshot of the session (`remembered`, written as `promptKeys`) and come back
with it (`KeyLedger.remembering`), so a retry on a new connection is still recognized.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final

import attrs

from acp_core._state._pcoll import PMap
from acp_core._wire._value import frozen

__all__ = [
    "ANSWER",
    "JOIN",
    "NEW",
    "Admission",
    "KeyEntry",
    "KeyLedger",
    "admit",
    "inserted",
    "released",
    "valid_key",
]

#: What to do with a keyed prompt.
NEW: Final = "new"  # hold / insert it like any prompt
ANSWER: Final = "answer"  # answer at once with `Admission.message_id`, insert nothing
JOIN: Final = "join"  # wait for the original; answer with its outcome

_MAX_KEY: Final = 255


def valid_key(key: object) -> bool:
    """An idempotency key is an opaque string of 1 to 255 characters (C43)."""
    return type(key) is str and 1 <= len(key) <= _MAX_KEY


@frozen
class KeyEntry:
    """One key: the request that carries the attempt, retries joined to it, and the inserted
    message once there is one."""

    request_id: int | str | None
    joined: tuple[int | str | None, ...] = ()
    message_id: str | None = None


@frozen
class KeyLedger:
    """Every key seen in one session."""

    keys: PMap[str, KeyEntry] = attrs.field(factory=PMap)

    @classmethod
    def remembering(cls, inserted: Mapping[str, str]) -> KeyLedger:
        """A ledger that knows the keys a stored session inserted (key -> messageId, what
        `remembered` gave when it was stored): their retries are answered at once (R69)."""
        return cls(PMap({key: KeyEntry(None, (), mid) for key, mid in inserted.items()}))

    def remembered(self) -> PMap[str, str]:
        """The keys that inserted a message, with its id: what outlives the connection (a
        held or released attempt belongs to the connection it arrived on)."""
        return PMap({key: e.message_id for key, e in self.keys.items() if e.message_id is not None})

    def original_of(self, request_id: int | str | None) -> int | str | None:
        """The held original a retry `request_id` waits for (None: not a joined retry)."""
        for entry in self.keys.values():
            if request_id in entry.joined:
                return entry.request_id
        return None

    def joined(self) -> tuple[int | str | None, ...]:
        """The request ids of every retry waiting for its held original (R68)."""
        return tuple(r for entry in self.keys.values() for r in entry.joined)


@frozen
class Admission:
    """The answer to a keyed prompt: `kind` is `NEW`, `ANSWER` (with `message_id`) or `JOIN`
    (with `original`, the request whose outcome it shares)."""

    kind: str
    message_id: str | None = None
    original: int | str | None = None


def admit(ledger: KeyLedger, key: str, request_id: int | str | None) -> tuple[KeyLedger, Admission]:
    """A prompt with `key` arrived as request `request_id`."""
    entry = ledger.keys.get(key)
    if entry is None:
        return KeyLedger(ledger.keys.set(key, KeyEntry(request_id))), Admission(NEW)
    if entry.message_id is not None:
        return ledger, Admission(ANSWER, entry.message_id, entry.request_id)
    joined = attrs.evolve(entry, joined=(*entry.joined, request_id))
    return KeyLedger(ledger.keys.set(key, joined)), Admission(JOIN, None, entry.request_id)


def inserted(
    ledger: KeyLedger, key: str, message_id: str
) -> tuple[KeyLedger, tuple[int | str | None, ...]]:
    """The keyed prompt was inserted as `message_id`; returns the joined retries to answer
    with it. The key stays: later retries are answered with the same id."""
    entry = ledger.keys.get(key)
    if entry is None:
        return KeyLedger(ledger.keys.set(key, KeyEntry(None, (), message_id))), ()
    done = KeyEntry(entry.request_id, (), message_id)
    return KeyLedger(ledger.keys.set(key, done)), entry.joined


def released(ledger: KeyLedger, key: str) -> tuple[KeyLedger, tuple[int | str | None, ...]]:
    """The keyed prompt failed or was cancelled before insertion: the key is free again;
    returns the joined retries, which share the original's error (R68, P15)."""
    entry = ledger.keys.get(key)
    if entry is None or entry.message_id is not None:
        return ledger, ()
    return KeyLedger(ledger.keys.delete(key)), entry.joined
