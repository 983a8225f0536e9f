"""The prompt rules of the Preview checker beyond their table rows (tests/preview_prompt_traces.py):
one finding per fault where R47, R61 and J3 meet, and what each rule leaves alone."""

from __future__ import annotations

from typing import Any

from preview_prompt_traces import answered, history, user
from trace_builders import MARK, K, P, announce, chunk, prompt, request, result, resume, state

import acp_core as acp


def found(entries: list[Any]) -> list[tuple[str, int]]:
    return [(v.rule, v.index) for v in acp.check_trace(entries, revision=acp.V2_PREVIEW)]


def test_child_traffic_before_any_resume_stays_r47() -> None:
    # The resume comes after the traffic: nothing says the child is an earlier connection's.
    assert found([chunk(K), resume(3, cursor=False), announce(P, K)]) == [("R47", 0)]


def test_a_recording_from_initialize_names_it_j3_once() -> None:
    # From `initialize` on J3 judges every id at once; R61 then adds nothing (one finding).
    entries = [
        request("client", 0, "initialize", protocolVersion=2, clientCapabilities={}),
        result("agent", 0, {"protocolVersion": 2}),
        resume(3, cursor=False),
        chunk(K),
        announce(P, K),
    ]
    assert [r for r in found(entries) if r[0] in ("J3", "R47", "R61")] == [("J3", 3)]


def test_a_keyed_prompt_in_the_replay_window_is_left_alone() -> None:
    # Its answer may name an insertion from before the resume (R69): history, not live.
    entries = [resume(3), prompt(5, key="k"), user("u5"), answered(5, "u5"), MARK, state(P)]
    assert found(entries) == []


def test_a_prompt_sent_before_the_resume_may_interleave() -> None:
    # Sent before the request: its updates may reach the client inside the window (R59 note).
    entries = [prompt(5), resume(3), user("u5"), answered(5, "u5"), history(P, "m0"), MARK]
    assert [r for r in found(entries) if r[0] == "R59"] == []
