"""The Preview checks of checks-b beyond their table rows (tests/preview_traces_b.py): where
each one deliberately stays silent, one finding per fault (J3 over R47), and `state:
"unknown"` resolving and cancelling nothing (R77's trace-visible part, judged by other rules)."""

from __future__ import annotations

from typing import Any

import pytest
from preview_traces_b import TEXT, background_tool, elicit, with_elicitation
from trace_builders import (
    BG_T1,
    NEW,
    K,
    P,
    announce,
    cancel,
    chunk,
    permission,
    prompt,
    request,
    result,
    resume,
    state,
    tool,
    upd,
    withdraw,
)

import acp_core as acp

INIT = request("client", 0, "initialize", protocolVersion=2, clientCapabilities={})


def found(entries: list[Any], revision: acp.Revision = acp.V2_PREVIEW) -> list[tuple[str, int]]:
    return [(v.rule, v.index) for v in acp.check_trace(entries, revision=revision) if not v.warning]


# -- one finding per fault -----------------------------------------------------------------


def test_an_unannounced_child_in_a_recording_from_initialize_is_j3_only() -> None:
    # J3 judges the envelope at once; the later announcement adds no R47 for that line.
    assert found([INIT, *NEW, chunk(K), announce(P, K)]) == [("J3", 3)]
    assert found([INIT, *NEW, chunk(K), chunk(K, "m2"), announce(P, K)]) == [("J3", 3), ("J3", 4)]


def test_r47_still_judges_what_j3_cannot() -> None:
    # A recording that starts mid-session: no J3, the announcement proves the order wrong.
    assert found([chunk(K), announce(P, K)]) == [("R47", 0)]
    # From initialize, an id named besides the envelope (a participant) is R47's.
    ref = upd(P, "session_message", messageId="o1", recipientSessionId=K)
    assert found([INIT, *NEW, ref, announce(P, K)]) == [("R47", 3)]
    # An elicitation for a child before its announcement (R47 names both request kinds).
    assert found([elicit(5, K, None), announce(P, K)]) == [("R47", 0)]


# -- where the new checks stay silent ------------------------------------------------------


def test_r49_a_second_unrelated_parent_is_still_r48() -> None:
    trace = [announce(P, K), announce(K, "g"), announce("sess_q", "g")]
    assert found(trace) == [("R48", 2)]


@pytest.mark.parametrize(
    "trace",
    [
        # The child of a resumed session may have reported `running` on an earlier connection.
        [
            resume(3, cursor=False),
            announce(P, K),
            chunk(K),
            state(K, "idle"),
            state(P),
            result("agent", 3),
        ],
        # A recording that starts mid-session shows no session's whole life.
        [announce(P, K), chunk(K), state(K, "idle")],
        # Replayed output is history; its snapshot after the marker is no completion.
        [
            *NEW,
            announce(P, K),
            state(K, "running"),
            state(K, "idle"),
            resume(3),
            announce(P, K),
            upd(K, "agent_message", messageId="a", content=[TEXT]),
            upd(K, "replay_complete"),
            state(K, "idle"),
            upd(P, "replay_complete"),
            state(P),
            result("agent", 3),
        ],
        # Tool calls may be background work: only messages and thoughts count as output.
        [*NEW, announce(P, K), tool(K, title="w"), state(K, "idle")],
        # An idle without a stop reason ends nothing.
        [*NEW, announce(P, K), chunk(K), state(K, "idle", stopReason=None)],
    ],
)
def test_r50_is_judged_only_where_the_recording_shows_the_childs_whole_life(trace: Any) -> None:
    assert "R50" not in {rule for rule, _ in found(trace)}


@pytest.mark.parametrize(
    "trace",
    [
        # Tied to the session only: its scope alone does not make it the cancelled work's.
        [
            prompt(1),
            result("agent", 1, {"messageId": "u1"}),
            upd(P, "user_message", messageId="u1", content=[TEXT]),
            state(P, "running"),
            elicit(7, tool_call=None),
            cancel(P),
            state(P, "idle", stopReason="cancelled"),
        ],
        # Tied to a tool call that has not finished (background work keeps running).
        with_elicitation(final="in_progress"),
    ],
)
def test_r72_is_judged_only_for_an_elicitation_of_a_finished_tool_call(trace: Any) -> None:
    assert "R72" not in {rule for rule, _ in found(trace)}


def test_r73_window_ends_at_the_sessions_next_state_or_prompt() -> None:
    after_state = [*background_tool(), tool(P, status="cancelled")]
    assert "R73" not in {rule for rule, _ in found(after_state)}
    idle_cancel = [
        tool(P, title="watch", status="in_progress"),
        state(P, "idle", stopReason="end_turn", background=BG_T1),
        cancel(P),
        prompt(4),
        tool(P, status="cancelled"),
    ]
    assert "R73" not in {rule for rule, _ in found(idle_cancel)}
    # ... and a cancel with nothing running in the foreground still leaves listed work alone.
    assert ("R73", 3) in found([*idle_cancel[:3], tool(P, status="cancelled")])
    # Work the list does not name may be stopped (MAY).
    unlisted = [
        tool(P, title="watch", status="in_progress"),
        state(P, "running", background=[]),
        cancel(P),
        tool(P, status="cancelled"),
        state(P, "idle", stopReason="cancelled", background=[]),
    ]
    assert "R73" not in {rule for rule, _ in found(unlisted)}


# -- R77: `unknown` is not an outcome --------------------------------------------------------


def _working(*after: Any) -> list[Any]:
    return [
        prompt(1),
        upd(P, "user_message", messageId="u1", content=[TEXT]),
        result("agent", 1, {"messageId": "u1"}),
        state(P, "running"),
        *after,
    ]


def test_r77_unknown_cancels_nothing_the_cancel_still_owes_its_cancelled_idle() -> None:
    ok = _working(state(P, "unknown"), cancel(P), state(P, "idle", stopReason="cancelled"))
    assert found(ok) == []
    bad = _working(state(P, "unknown"), cancel(P), state(P, "unknown"), state(P, "idle"))
    assert found(bad) == [("R21", 7)]


def test_r77_unknown_resolves_no_permission_request() -> None:
    asked = [state(P, "requires_action"), permission(7), state(P, "unknown")]
    # The client may still answer it: the request is pending, not resolved by `unknown`.
    answered = _working(
        *asked,
        result("client", 7, {"outcome": {"outcome": "selected", "optionId": "a"}}),
        state(P, "running"),
        state(P, "idle"),
    )
    assert found(answered) == []
    # After a cancel, `unknown` does not end the cancelled work: the withdrawal is owed at
    # the idle that does (R71), not at the `unknown`.
    bad = _working(*asked, cancel(P), state(P, "unknown"), state(P, "idle", stopReason="cancelled"))
    assert found(bad) == [("R71", 9)]
    good = _working(
        *asked,
        cancel(P),
        state(P, "unknown"),
        withdraw(7),
        result("client", 7, {"outcome": {"outcome": "cancelled"}}),
        state(P, "idle", stopReason="cancelled"),
    )
    assert found(good) == []
