"""The agent's idempotency-key ledger (Preview digest §5.3 outcome table, R67-R69, P15, C43)."""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_core._engines._idempotency import (
    ANSWER,
    JOIN,
    NEW,
    Admission,
    KeyLedger,
    admit,
    inserted,
    released,
    valid_key,
)


def test_unseen_key_is_a_new_attempt() -> None:
    _, admission = admit(KeyLedger(), "K", 1)
    assert admission == Admission(NEW)


def test_v14_retry_after_insertion_is_answered_with_the_original_message() -> None:
    ledger, _ = admit(KeyLedger(), "K", 1)
    ledger, joined = inserted(ledger, "K", "M")
    assert joined == ()
    ledger, admission = admit(ledger, "K", 2)
    assert admission == Admission(ANSWER, "M", 1)
    _, again = admit(ledger, "K", 3)
    assert again.message_id == "M"  # every retry, not only the first


def test_retry_while_held_joins_and_resolves_with_the_original() -> None:
    ledger, _ = admit(KeyLedger(), "K", 1)
    ledger, admission = admit(ledger, "K", 2)
    assert admission == Admission(JOIN, None, 1)
    ledger, joined = inserted(ledger, "K", "M")
    assert joined == (2,)
    _, admission = admit(ledger, "K", 3)
    assert admission.kind == ANSWER


@pytest.mark.parametrize("why", ["failed before insertion", "cancelled while held"])
def test_a_released_key_is_free_and_joined_retries_share_the_error(why: str) -> None:
    ledger, _ = admit(KeyLedger(), "K", 1)
    ledger, _ = admit(ledger, "K", 2)
    ledger, joined = released(ledger, "K")
    assert joined == (2,)
    _, admission = admit(ledger, "K", 3)
    assert admission == Admission(NEW)


def test_release_after_insertion_changes_nothing() -> None:
    ledger, _ = admit(KeyLedger(), "K", 1)
    ledger, _ = inserted(ledger, "K", "M")
    assert released(ledger, "K") == (ledger, ())


def test_keys_are_case_sensitive() -> None:
    ledger, _ = admit(KeyLedger(), "k", 1)
    ledger, _ = inserted(ledger, "k", "M")
    assert admit(ledger, "K", 2)[1] == Admission(NEW)


@pytest.mark.parametrize(
    ("key", "ok"), [("", False), ("a", True), ("x" * 255, True), ("x" * 256, False), (5, False)]
)
def test_key_shape(key: object, ok: bool) -> None:
    assert valid_key(key) is ok


@given(st.lists(st.sampled_from(["admit", "insert", "release"]), max_size=30))
def test_at_most_one_insertion_per_key(ops: list[str]) -> None:
    # R67 as a law: whatever the order of retries, inserts and releases, a key that produced a
    # message answers every later attempt with that same message.
    ledger, first_message = KeyLedger(), None
    for n, op in enumerate(ops):
        if op == "admit":
            ledger, admission = admit(ledger, "K", n)
            if first_message is not None:
                assert admission == Admission(ANSWER, first_message, admission.original)
        elif op == "insert" and first_message is None and "K" in ledger.keys:
            ledger, _ = inserted(ledger, "K", f"M{n}")
            first_message = f"M{n}"
        elif op == "release":
            ledger, _ = released(ledger, "K")
