"""The agent's idempotency-key ledger (Preview digest §5.3 outcome table, R67-R69, P15, C43)."""

from __future__ import annotations

import json

import pytest
from hypothesis import given
from hypothesis import strategies as st

import acp_core as acp
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


# -- R69: the inserted keys outlive the connection, with the session's snapshot --------------


def test_r69_remembered_holds_exactly_the_inserted_keys() -> None:
    ledger, _ = admit(KeyLedger(), "held", 1)
    ledger, _ = admit(ledger, "done", 2)
    ledger, _ = inserted(ledger, "done", "M")
    ledger, _ = admit(ledger, "gone", 3)
    ledger, _ = released(ledger, "gone")
    assert dict(ledger.remembered()) == {"done": "M"}  # a held attempt dies with its connection


def test_r69_a_remembered_ledger_answers_a_retry_with_the_original_message() -> None:
    ledger = KeyLedger.remembering({"K": "M"})
    ledger, admission = admit(ledger, "K", 7)
    assert admission == Admission(ANSWER, "M", None)
    assert dict(ledger.remembered()) == {"K": "M"}
    assert admit(KeyLedger.remembering({}), "K", 7)[1] == Admission(NEW)


def _state() -> acp.SessionState:
    user = acp.UserMessage("M", (acp.TextContent("hi"),))
    return acp.fold(acp.new_session("s"), [user], revision=acp.PREVIEW)


@pytest.mark.parametrize("keys", [{"K": "M"}, {"K": "M", "k": "M2", "x" * 255: "M"}, {}, None])
def test_r69_prompt_keys_travel_beside_the_state_in_its_snapshot(
    keys: dict[str, str] | None,
) -> None:
    doc = json.loads(json.dumps(acp.snapshot(_state(), prompt_keys=keys)))
    assert ("promptKeys" in doc) is bool(keys)  # optional keys are omitted, never empty
    assert dict(acp.restore_prompt_keys(doc)) == (keys or {})
    assert acp.restore(doc) == _state()  # the keys are not part of the state


def test_r69_a_snapshot_written_before_prompt_keys_reads_as_no_keys() -> None:
    doc = json.loads(json.dumps(acp.snapshot(_state())))
    assert "promptKeys" not in doc
    assert acp.restore_prompt_keys(doc) == acp.restore_prompt_keys({"sessionId": "s"})
    assert len(acp.restore_prompt_keys(doc)) == 0


@pytest.mark.parametrize(
    ("prompt_keys", "path"),
    [
        ([], "$.promptKeys"),
        ({"K": 1}, "$.promptKeys.K"),
        ({"": "M"}, "$.promptKeys."),
        (None, "$.promptKeys"),  # written as null: never by `snapshot`
    ],
)
def test_r69_malformed_prompt_keys_are_a_decode_error_with_a_path(
    prompt_keys: object, path: str
) -> None:
    doc = {**acp.snapshot(_state()), "promptKeys": prompt_keys}
    with pytest.raises(acp.DecodeError) as bad:
        acp.restore_prompt_keys(doc)
    assert bad.value.path == path
    assert acp.restore(doc) == _state()  # unknown to `restore`: ignored there


@pytest.mark.parametrize("keys", [{"K": 1}, {2: "M"}, ["K"]])
def test_snapshot_refuses_prompt_keys_that_are_not_strings(keys: object) -> None:
    with pytest.raises(acp.ArgumentError):
        acp.snapshot(_state(), prompt_keys=keys)  # type: ignore[arg-type]


def test_r69_an_agent_opened_from_storage_answers_a_retry_without_inserting() -> None:
    # The engine level of the connection table in tests/test_connection_preview.py: the keys
    # `OpenSession` brings back make the first prompt of the new connection a retry.
    conn = acp.new_agent_connection(acp.Implementation("a", "1"), revision=acp.PREVIEW)
    opened = acp.OpenSession("s", _state(), prompt_keys={"K": "M"})
    conn = acp.connection_step(conn, opened).connection
    assert dict(conn.engine("s").keys.remembered()) == {"K": "M"}
    with pytest.raises(acp.LocalProtocolError):
        acp.connection_step(conn, acp.OpenSession("t", None, prompt_keys={"": "M"}))
