"""The trace table of the prompt rules the Preview adds to the checker (R59, R61, R68, R70):
per rule good traces and bad ones, in the `CASES` row shape of tests/preview_traces.py
(`(rule, good, bad, index)`: `good` breaks nothing, `bad` breaks exactly `rule` at line
`index`). tests/preview_traces.py appends them to its `CASES`, so every table-driven test
there (incremental judging, silence at 2026-08, any mix never raising) runs them too."""

from __future__ import annotations

from trace_builders import (
    MARK,
    Entry,
    K,
    P,
    announce,
    cancel,
    chunk,
    client,
    error,
    prompt,
    result,
    resume,
    state,
    upd,
)

G = "sess_grand_1"
CANCELLED = -32800


def user(mid: str, sid: str = P) -> Entry:
    return upd(sid, "user_message", messageId=mid, content=[{"type": "text", "text": "hi"}])


def history(sid: str, mid: str) -> Entry:
    # A replayed message: the whole-message upsert first (reset-before-chunk, R63).
    return upd(sid, "agent_message", messageId=mid, content=[])


def withdraw_prompt(rid: object) -> Entry:
    # The client's $/cancel_request for one of its prompts.
    return client({"method": "$/cancel_request", "params": {"requestId": rid}})


def answered(rid: object, mid: str) -> Entry:
    return result("agent", rid, {"messageId": mid})


def _running_turn(*middle: Entry) -> list[Entry]:
    # Prompt 1 is inserted as u1 and runs; `middle` happens while it runs, then it ends.
    return [prompt(1), answered(1, "u1"), user("u1"), state(P, "running"), *middle]


def _replay(*window: Entry, after: tuple[Entry, ...] = ()) -> list[Entry]:
    # A resume with a replay cursor: `window` between the request and the marker.
    return [resume(3), *window, MARK, state(P), result("agent", 3), *after]


def _two_attempts(*answers: Entry) -> list[Entry]:
    # A keyed prompt and its retry, both sent before either is answered.
    return [prompt(1, key="k1"), prompt(2, key="k1"), *answers]


_IDLE_CANCELLED = state(P, "idle", stopReason="cancelled")


def _withdrawn_key(k4: str, k5: str) -> list[Entry]:
    # After a cancel: prompt 2 (key k2) and 4, a $/cancel_request for 2, then 5; all -32800.
    return _running_turn(
        cancel(P),
        prompt(2, key="k2"),
        prompt(4, key=k4),
        withdraw_prompt(2),
        prompt(5, key=k5),
        error(2, CANCELLED),
        error(4, CANCELLED),
        error(5, CANCELLED),
    )


CASES: list[tuple[str, list[Entry], list[Entry], int]] = [
    # R61: on a resumed connection, child traffic before its re-announcement.
    (
        "R61",
        [resume(3, cursor=False), announce(P, K), chunk(K)],
        [resume(3, cursor=False), chunk(K), announce(P, K)],
        1,
    ),
    (
        "R61",
        _replay(announce(P, K), history(K, "m1"), upd(K, "replay_complete")),
        _replay(history(K, "m1"), announce(P, K), upd(K, "replay_complete")),
        1,
    ),
    (
        "R61",
        [resume(3, cursor=False), announce(P, K), announce(K, G), history(G, "g1")],
        [resume(3, cursor=False), announce(P, K), history(G, "g1"), announce(K, G)],
        2,
    ),
    # R59: the user message of a prompt sent during the replay comes before the marker.
    (
        "R59",
        _replay(prompt(5), history(P, "m0"), after=(user("u5"), answered(5, "u5"))),
        _replay(prompt(5), user("u5"), answered(5, "u5")),
        2,
    ),
    (
        "R59",
        _replay(prompt(5), after=(answered(5, "u5"), user("u5"))),
        _replay(prompt(5), user("u5"), after=(answered(5, "u5"),)),
        2,
    ),
    # R68: a retry sent while its original is unanswered shares the original's outcome.
    (
        "R68",
        _two_attempts(answered(1, "m1"), answered(2, "m1")),
        _two_attempts(answered(1, "m1"), error(2, -32603)),
        3,
    ),
    (
        "R68",
        _two_attempts(answered(1, "m1"), answered(2, "m1")),
        _two_attempts(answered(1, "m1"), answered(2, "m2")),
        3,
    ),
    (
        "R68",
        _two_attempts(error(2, -32603), error(1, -32603)),
        _two_attempts(answered(2, "m2"), error(1, -32603)),
        3,
    ),
    # ... the original failed first: the retry may have come after the key was freed (P15)
    (
        "R68",
        _two_attempts(error(1, -32603), answered(2, "m2")),
        _two_attempts(error(2, CANCELLED), error(1, -32603)),
        3,
    ),
    # ... a $/cancel_request for either attempt may split the outcomes
    (
        "R68",
        _two_attempts(withdraw_prompt(2), error(2, CANCELLED), answered(1, "m1")),
        _two_attempts(error(2, CANCELLED), answered(1, "m1")),
        3,
    ),
    # ... a retry swept at a cancel, its original inserted afterwards: R68's (not R70 too)
    (
        "R68",
        _running_turn(
            prompt(2, key="k2"),
            prompt(3, key="k2"),
            cancel(P),
            error(3, CANCELLED),
            error(2, CANCELLED),
            _IDLE_CANCELLED,
        ),
        _running_turn(
            prompt(2, key="k2"),
            prompt(3, key="k2"),
            cancel(P),
            error(3, CANCELLED),
            answered(2, "u2"),
            user("u2"),
            _IDLE_CANCELLED,
        ),
        8,
    ),
    # R70: a cancel answers the held prompts before it -32800, and only those.
    (
        "R70",
        _running_turn(prompt(2), cancel(P), error(2, CANCELLED), _IDLE_CANCELLED),
        _running_turn(cancel(P), prompt(2), error(2, CANCELLED), _IDLE_CANCELLED),
        6,
    ),
    (
        "R70",
        _running_turn(cancel(P), prompt(2), withdraw_prompt(2), error(2, CANCELLED)),
        _running_turn(cancel(P), prompt(2), error(2, CANCELLED)),
        6,
    ),
    # a retry of a withdrawn prompt shares its -32800 (R68), sent before the withdrawal or after
    ("R70", _withdrawn_key("k2", "k2"), _withdrawn_key("k4", "k2"), 10),
    ("R70", _withdrawn_key("k2", "k2"), _withdrawn_key("k2", "k5"), 11),
    (
        "R70",
        _running_turn(
            prompt(2),
            prompt(3),
            cancel(P),
            error(2, CANCELLED),
            error(3, CANCELLED),
            _IDLE_CANCELLED,
        ),
        _running_turn(
            prompt(2),
            prompt(3),
            cancel(P),
            error(2, CANCELLED),
            _IDLE_CANCELLED,
            answered(3, "u3"),
            user("u3"),
            state(P, "running"),
        ),
        9,
    ),
    (
        "R70",
        # the user message of prompt 3 came before the sweep: it was inserted by then
        _running_turn(
            prompt(2),
            prompt(3),
            cancel(P),
            user("u3"),
            error(2, CANCELLED),
            answered(3, "u3"),
            _IDLE_CANCELLED,
        ),
        _running_turn(
            prompt(2),
            prompt(3),
            cancel(P),
            error(2, CANCELLED),
            answered(3, "u3"),
            user("u3"),
            _IDLE_CANCELLED,
        ),
        8,
    ),
    (
        "R70",
        # a $/cancel_request for a held prompt does not excuse inserting it after the sweep;
        # the -32800 it earns is no sweep of the cancel's
        _running_turn(
            prompt(2),
            prompt(3),
            withdraw_prompt(2),
            cancel(P),
            error(2, CANCELLED),
            answered(3, "u3"),
            user("u3"),
            _IDLE_CANCELLED,
        ),
        _running_turn(
            prompt(2),
            prompt(3),
            withdraw_prompt(3),
            cancel(P),
            error(2, CANCELLED),
            answered(3, "u3"),
            user("u3"),
            _IDLE_CANCELLED,
        ),
        9,
    ),
    (
        "R70",
        # prompt 4 came after the cancel: it was never held at it
        _running_turn(
            prompt(2),
            cancel(P),
            prompt(4),
            error(2, CANCELLED),
            _IDLE_CANCELLED,
            answered(4, "u4"),
            user("u4"),
        ),
        _running_turn(
            prompt(2),
            prompt(4),
            cancel(P),
            error(2, CANCELLED),
            _IDLE_CANCELLED,
            answered(4, "u4"),
            user("u4"),
        ),
        9,
    ),
    (
        "R70",
        # a retry held with its original at the cancel is swept with it (R68 shares)
        _running_turn(
            prompt(2, key="k2"),
            prompt(3, key="k2"),
            cancel(P),
            error(2, CANCELLED),
            error(3, CANCELLED),
            _IDLE_CANCELLED,
        ),
        _running_turn(
            prompt(2, key="k2"),
            prompt(3, key="k2"),
            cancel(P),
            error(2, CANCELLED),
            _IDLE_CANCELLED,
            answered(3, "u3"),
        ),
        9,
    ),
]
