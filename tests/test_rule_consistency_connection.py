"""One fact, one rule id, at the connection: every bad trace of the checker's corpus, played
into a real client connection (tests/client_replay.py), makes the connection name the rule the
checker names for the same traffic, at 2026-08 and at the Preview.

Where they still differ the reason is pinned in `DIVERGES` with what each side says; a fix
that makes them agree fails `test_what_still_diverges_still_does` until its row goes, so the
list only shrinks. The engine-level twin of this table is tests/test_rule_consistency.py.
R71's cancel windows (tests/test_rule_consistency_agent.py's, read here by the client
connection, every line delivered) hold the same for what a client's own cancel cancels.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, Final

import pytest
from client_replay import Refused, play
from conn_pair import Pair
from preview_traces import CASES as PREVIEW_CASES
from test_check import load
from test_rule_consistency_agent import _windows as cancel_windows

import acp_core as acp
from acp_core.codec import Revision

TRACES: Final = Path(__file__).resolve().parent / "traces"
REVISIONS: Final = {"2026-08": acp.V2_2026_08, "preview": acp.V2_PREVIEW}

# Why the connection does not (yet) name the checker's rule. Keys: (revision, case id).
_ANSWERED_ITSELF = (
    "the client connection answers a pending permission `cancelled` itself at the cancel "
    "(C15 kept); the host's late `selected` is then a second answer, refused C25"
)
_KEYED = "the client connection refuses to send the reused key (C43) the trace needs"
_PROMPT_META = "the replay's SendPrompt carries no `_meta`: the traffic shows no J44 to judge"
_J44 = "bad_J44_1_prompt_with_meta_refused_as_invalid_params"
_CREATED = "the replay opens every session the trace names: the deleted one was created (J54)"
_J56 = "bad_J56_3_delete_of_a_never_created_session_refused"
_DIRECTORIES = "`ResumeSession` carries no additionalDirectories: the traffic shows no J58"
_J58 = "bad_J58_7_additional_directories_of_session_resume_refused"
_CUSTOM_OUTCOME = (
    "the client connection answers a permission only with an option it offered; the replay "
    "of a custom `_` outcome is refused (E2)"
)
_DOWNGRADE = "the replay's client offers its own version (2): it cannot ask for version 1"
_J33 = "bad_J33_1_downgrade_request_answered_with_an_error"
DIVERGES: Final[dict[tuple[str, str], str]] = {
    **{(rev, _J33): _DOWNGRADE for rev in REVISIONS},
    **{(rev, _J44): _PROMPT_META for rev in REVISIONS},
    **{(rev, _J56): _CREATED for rev in REVISIONS},
    **{(rev, _J58): _DIRECTORIES for rev in REVISIONS},
    **{
        (rev, "bad_J64_8_prompt_refused_after_a_custom_permission_outcome"): _CUSTOM_OUTCOME
        for rev in REVISIONS
    },
    ("2026-08", "bad_C15_7_selected_after_cancel"): _ANSWERED_ITSELF,
}


# Faults a client connection cannot be made to play, so there is nothing to compare.
NOT_PLAYABLE: Final = {
    # It answers every pending permission request `cancelled` itself on a cancel.
    "bad_C15_6_permission_never_answered_after_cancel",
    # The replay opens every session the trace names, so none is left unset.
    "bad_J3_12_update_for_a_session_never_set_up",
}


def _corpus() -> list[Any]:
    cases = []
    for name, revision in REVISIONS.items():
        for path in sorted(TRACES.glob("bad_*.jsonl")):
            entries = load(path)
            rule = path.stem.split("_")[1]
            if path.stem in NOT_PLAYABLE or not _replayable(entries):
                continue
            if revision.applies(rule) and _judged(entries, rule, revision):
                cases.append(pytest.param(name, path.stem, rule, entries, id=f"{name}-{path.stem}"))
    for n, (rule, _good, bad, _index) in enumerate(PREVIEW_CASES):
        case = f"preview_{rule}_{n}"
        cases.append(pytest.param("preview", case, rule, bad, id=f"preview-{case}"))
    return cases


def _replayable(entries: list[Any]) -> bool:
    # A client sends one message a line (batches are the framing's, tests/test_engine_batch.py),
    # and only what it can say: a prompt has an id, sessions are named.
    for entry in entries:
        message = entry["message"]
        if not isinstance(message, dict) or entry["from"] not in ("client", "agent"):
            return False
        if message.get("method") == "session/prompt" and "id" not in message:
            return False
    return True


def _judged(entries: list[Any], rule: str, revision: Revision) -> bool:
    # The rule the file is named for, as the checker reports it on the trace as recorded.
    return rule in {v.rule for v in acp.check_trace(entries, revision=revision) if not v.warning}


def _verdicts(entries: list[Any], revision: Revision) -> tuple[list[str], list[str]]:
    """(what the connection named, what the checker names on the traffic it exchanged)."""
    try:
        replay = play(entries, revision)
    except Refused as refused:
        return [f"refused {refused.rule}"], []
    checked = acp.check_trace(replay.trace, revision=revision)
    return replay.rules(), [v.rule for v in checked if not v.warning]


CORPUS: Final = _corpus()


def _agrees(rule: str, said: list[str], checked: list[str]) -> bool:
    return f"refused {rule}" in said or (rule in said and rule in checked)


def _diverges(revision: str, case: str) -> str | None:
    if (revision, case) in DIVERGES:
        return DIVERGES[(revision, case)]
    if revision == "preview" and case.startswith("preview_"):
        return _PREVIEW_DIVERGES.get(case)
    return None


@pytest.mark.parametrize(("revision", "case", "rule", "entries"), CORPUS)
def test_the_client_connection_names_the_checkers_rule(
    revision: str, case: str, rule: str, entries: list[Any]
) -> None:
    said, checked = _verdicts(entries, REVISIONS[revision])
    if _diverges(revision, case) is None:
        assert _agrees(rule, said, checked), (said, checked)


@pytest.mark.parametrize(("revision", "case", "rule", "entries"), CORPUS)
def test_what_still_diverges_still_does(
    revision: str, case: str, rule: str, entries: list[Any]
) -> None:
    # A pinned divergence that was fixed must leave the list: the list only shrinks.
    if _diverges(revision, case) is not None:
        said, checked = _verdicts(entries, REVISIONS[revision])
        assert not _agrees(rule, said, checked), f"{case} agrees now: drop its DIVERGES row"


def test_the_table_is_large_and_spans_the_revisions() -> None:
    agreeing = [
        (p.values[0], p.values[2])
        for p in CORPUS
        if _diverges(str(p.values[0]), str(p.values[1])) is None
    ]
    assert len(agreeing) >= 30
    assert {rev for rev, _ in agreeing} == set(REVISIONS)
    # The cross-session rules of 2026-11 and the Preview among them, live on the connection.
    later = {"R47", "R48", "R49", "R57", "R58", "R61", "R62", "R63", "R71", "R73", "R76"}
    assert later | {"R52", "R78", "R33", "C34", "C41"} <= {rule for _, rule in agreeing}


def test_a_planted_swap_of_the_response_rules_is_caught() -> None:
    # The connections once named the receiver's rule for a stray response (C25 where the
    # agent answered twice): the table's J1 row must see such a swap.
    entries = load(TRACES / "bad_J1_2_agent_answers_prompt_twice.jsonl")
    said, checked = _verdicts(entries, acp.V2_2026_08)
    assert _agrees("J1", said, checked)
    assert not _agrees("J1", [r.replace("J1", "C25") for r in said], checked)


#: The Preview table's rows (tests/preview_traces.py, by rule and position) where the
#: connection and the checker still differ. On 2026-12-03 the client connection judged 7 of
#: the 68 rows; since it feeds every message through the checker's cross-session rules
#: (`ClientConnection.rules.judge`) it judges 48; since it judges a child's updates on their own
#: (`update_findings` on the child's view, R54 among them) 49, and these 19 are left.
_KEYED_ROWS: Final = "R67_16 R68_53 R68_54 R68_55 R68_56 R68_57 R68_58 R70_61 R70_62 R70_67"
_CHILD_ROWS: Final = "R53_6 C29_28 C29_29 C34_30"
_C41_ROWS: Final = "R75_22"
_UNPLAYED_ROWS: Final = "C40_32 R72_40 R72_41 R72_42"
_CHILD = "the trace's client line names a child session, which a SessionIntent cannot (E3)"
_C41 = "the trace needs a client fault (C41) the connection refuses to send"
_UNPLAYED = "the connection answers for itself, so the recorded traffic no longer shows it"
_PREVIEW_DIVERGES: Final = {
    **{f"preview_{row}": _KEYED for row in _KEYED_ROWS.split()},
    **{f"preview_{row}": _CHILD for row in _CHILD_ROWS.split()},
    **{f"preview_{row}": _C41 for row in _C41_ROWS.split()},
    **{f"preview_{row}": _UNPLAYED for row in _UNPLAYED_ROWS.split()},
}


@pytest.mark.parametrize(("revision", "steps"), cancel_windows())
def test_the_client_connection_judges_r71_with_the_session_machines_cancels(
    revision: acp.Revision, steps: list[tuple[str, object]]
) -> None:
    """The same cancel windows read by the client connection, which sees every line (no
    "unread" step: a permission request stays pending, the host never answers it). The
    client's own `session/cancel` reaches its judge with the session machine's word on what
    it cancels (`Build.cancels_of`), as the checker's does: a request asked while idle is
    background, a cancel while idle cancels nothing. Without that word the judge counts every
    request pending at the cancel as the cancelled work's and names the agent's untouched
    background request R71 where `check_trace` over the client's recording finds nothing."""
    pair = Pair(revision=revision)
    sid = pair.open()
    for who, intent in steps:
        if who == "unread":
            continue
        if who == "cancel":
            cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": intent}}
            pair.client_trace.append({"from": "client", "message": cancel})
            pair.agent_bytes((json.dumps(cancel) + "\n").encode())
        elif who == "agent":
            pair.agent_says(sid, intent)
        else:
            pair.client_says(sid, intent)
        pair.settle()
    checked = acp.check_trace(pair.client_trace, revision=revision)
    expected = sorted(x.rule for x in checked if not x.warning)
    assert sorted(f.rule for f in pair.findings("client")) == expected


def test_an_envelope_j3_named_is_not_r47_again_at_its_announcement() -> None:
    # A connection judged from `initialize`: an update for a session nobody set up is J3 at
    # once (held: a child may be announced later); the announcement that follows adds no R47
    # for it (one finding a fault), as `check_trace` judges the same recording.
    pair = Pair(revision=acp.V2_PREVIEW)
    sid = pair.open()
    chunk = {"sessionUpdate": "agent_message_chunk", "messageId": "m1",
             "content": {"type": "text", "text": "early"}}  # fmt: skip
    announce = {"sessionUpdate": "subagent_update", "sessionId": "c1", "title": "Child"}
    for session, update in (("c1", chunk), (sid, announce)):
        line = {"jsonrpc": "2.0", "method": "session/update",
                "params": {"sessionId": session, "update": update}}  # fmt: skip
        pair.to_client.append((json.dumps(line) + "\n").encode())
        pair.settle()
    checked = acp.check_trace(pair.client_trace, revision=acp.V2_PREVIEW)
    expected = sorted(x.rule for x in checked if not x.warning)
    assert expected == ["J3"]
    assert sorted(f.rule for f in pair.findings("client")) == expected
