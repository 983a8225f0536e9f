"""The trace checker over a hand-written corpus, plus revisions, sessions and robustness.

`tests/traces/bad_<RULE>_<INDEX>_<what>.jsonl` each break exactly one rule, at that 0-based
line; `good_*.jsonl` break none. A `_v2026-11_` in the name selects that revision. The good
traces follow the digest's typical sequences (section 5.3) with the doc examples' shapes.
"""

from __future__ import annotations

import copy
import json
import re
from pathlib import Path
from typing import Any

import pytest
from conftest import SPEC_DIR, schema_2026_11_path
from hypothesis import given
from hypothesis import strategies as st
from jsonschema import Draft202012Validator
from preview_traces import CASES as PREVIEW_CASES

import acp_core as acp

TRACES = Path(__file__).resolve().parent / "traces"
NAME = re.compile(
    r"(?P<kind>good|bad)_(?:(?P<rule>[A-Z]\d+)_(?P<index>\d+)_)?(?:v(?P<rev>\d{4}-\d\d)_)?"
)
REVISIONS = {r.name: r for r in (acp.V2_2026_08, acp.V2_2026_11)}
S = "sess_abc123def456"


def load(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def revision_of(path: Path) -> acp.Revision:
    m = NAME.match(path.name)
    assert m, path.name
    return REVISIONS[m["rev"] or "2026-08"]


BAD = sorted(TRACES.glob("bad_*.jsonl"))
GOOD = sorted(TRACES.glob("good_*.jsonl"))


def found(entries: list[Any], revision: acp.Revision = acp.V2_2026_08) -> list[tuple[str, int]]:
    return [(v.rule, v.index) for v in acp.check_trace(entries, revision=revision)]


# -- the corpus ------------------------------------------------------------------------------


@pytest.mark.parametrize("path", BAD, ids=lambda p: p.stem)
def test_each_bad_trace_breaks_exactly_its_rule_at_its_line(path: Path) -> None:
    m = NAME.match(path.name)
    assert m, path.name
    assert m["rule"], f"bad trace name must be bad_<RULE>_<INDEX>_...: {path.name}"
    violations = acp.check_trace(load(path), revision=revision_of(path))
    assert [(v.rule, v.index) for v in violations] == [(m["rule"], int(m["index"]))]
    (v,) = violations
    assert v.level == acp.RULES[v.rule].level
    assert v.message.strip()
    assert "\n" not in v.message


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_each_good_trace_has_no_violation(path: Path) -> None:
    assert acp.check_trace(load(path), revision=revision_of(path)) == ()


# What a recording that stops early is warned of: work still running (R7), a `_` request or
# an empty batch not answered yet (J35, J39).
_END_WARNINGS = frozenset({"R7", "J35", "J39"})


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_every_prefix_of_a_good_trace_is_clean(path: Path) -> None:
    # A recording may stop anywhere: nothing is demanded of work that has not ended; work
    # still running when it stops is an R7 warning, which never fails a trace (so are J35, J39).
    entries = load(path)
    for n in range(len(entries)):
        violations = acp.check_trace(entries[:n], revision=revision_of(path))
        assert [v.rule for v in violations if not v.warning] == [], n
        assert all(v.rule in _END_WARNINGS and not v.mandatory for v in violations), n


def test_the_corpus_covers_every_checked_rule_and_only_those() -> None:
    covered = {NAME.match(p.name)["rule"] for p in BAD}  # type: ignore[index]
    covered |= {case[0] for case in PREVIEW_CASES}  # the table of tests/test_check_preview.py
    # the kit's probes, whose client is at fault on purpose (tests/test_check_jsonrpc.py)
    covered |= {NAME.match(p.name)["rule"] for p in (TRACES / "probes").glob("bad_*.jsonl")}  # type: ignore[index]
    checked = {r.id for r in acp.RULES.values() if r.checked}
    assert covered == checked


def test_the_corpus_has_both_kinds() -> None:
    assert len(BAD) >= 30
    assert len(GOOD) >= 6


_VALIDATORS: dict[str, Draft202012Validator] = {}


def _validator(revision: str) -> Draft202012Validator:
    """The official schema of `revision` (2026-11 also from the npm SDK; skips if absent)."""
    if revision not in _VALIDATORS:
        path = SPEC_DIR / "schema.json" if revision == "2026-08" else schema_2026_11_path()
        if not path.exists():
            pytest.skip(f"ACP v2 spec oracle {path} not found: set ACP_V2_SPEC_DIR")
        _VALIDATORS[revision] = Draft202012Validator(json.loads(path.read_text()))
    return _VALIDATORS[revision]


@pytest.mark.parametrize("path", GOOD, ids=lambda p: p.stem)
def test_good_traces_are_valid_under_the_official_schema(path: Path) -> None:
    validator = _validator(revision_of(path).name)
    for entry in load(path):
        validator.validate(entry["message"])


# -- revisions -------------------------------------------------------------------------------


def test_a_2026_11_trace_breaks_2026_08_rules() -> None:
    entries = load(TRACES / "good_v2026-11_prompt_turn.jsonl")
    # result {"messageId"} (R1), tool status `paused` and stop reason `error` are unknown there
    assert found(entries) == [("R1", 2), ("R18", 4), ("R18", 5)]


def test_a_2026_08_prompt_result_lacks_the_2026_11_message_id() -> None:
    entries = load(TRACES / "good_prompt_turn.jsonl")
    assert found(entries, acp.V2_2026_11) == [("R1", 1)]


def _upd(update: dict[str, Any], sid: str = S) -> dict[str, Any]:
    params = {"sessionId": sid, "update": update}
    return {
        "from": "agent",
        "message": {"jsonrpc": "2.0", "method": "session/update", "params": params},
    }


def _prompt(rid: int, sid: str = S) -> dict[str, Any]:
    params = {"sessionId": sid, "prompt": [{"type": "text", "text": "hi"}]}
    message = {"jsonrpc": "2.0", "id": rid, "method": "session/prompt", "params": params}
    return {"from": "client", "message": message}


def _result(rid: int, result: dict[str, Any], sender: str = "agent") -> dict[str, Any]:
    return {"from": sender, "message": {"jsonrpc": "2.0", "id": rid, "result": result}}


def _user(mid: str) -> dict[str, Any]:
    return _upd({"sessionUpdate": "user_message", "messageId": mid, "content": []})


RUNNING = _upd({"sessionUpdate": "state_update", "state": "running"})
END = _upd({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})


@pytest.mark.parametrize(
    ("entries", "expected"),
    [
        # the user message carries the result's id, before or after the response
        ([_prompt(2), _result(2, {"messageId": "m1"}), _user("m1"), RUNNING, END], []),
        ([_prompt(2), _user("m1"), _result(2, {"messageId": "m1"}), RUNNING, END], []),
        # another id is another (foreign) message: the prompt's is still missing
        ([_prompt(2), _result(2, {"messageId": "m1"}), _user("m2"), RUNNING, END], [("R2", 4)]),
        ([_prompt(2), _user("m2"), _result(2, {"messageId": "m1"}), RUNNING, END], [("R2", 4)]),
    ],
)
def test_2026_11_binds_the_user_message_by_the_result_id(
    entries: list[Any], expected: list[tuple[str, int]]
) -> None:
    assert found(entries, acp.V2_2026_11) == expected


def test_2026_08_binds_user_messages_first_in_first_out() -> None:
    # Two prompts queued while idle-unknown; two user messages arrive; both turns end cleanly.
    entries = [
        _prompt(2),
        _prompt(3),
        _result(2, {}),
        _result(3, {}),
        _user("u1"),
        RUNNING,
        END,
        _user("u2"),
        RUNNING,
        END,
    ]
    assert found(entries) == []
    # without the second user message, the second turn ends too early
    assert found(entries[:7] + entries[8:]) == [("R2", 8)]


def test_a_rejected_prompt_starts_no_turn() -> None:
    error = {"jsonrpc": "2.0", "id": 2, "error": {"code": -32602, "message": "Invalid params"}}
    rejected = [_prompt(2), {"from": "agent", "message": error}]
    assert found(rejected) == []
    # the next prompt is an ordinary turn
    assert found([*rejected, _prompt(3), _result(3, {}), _user("u3"), RUNNING, END]) == []
    # and had the rejected one been bound, this turn would have no user message: it is R2
    assert found([*rejected, _prompt(3), _result(3, {}), RUNNING, END]) == [("R2", 5)]


def test_a_prompt_queued_during_a_turn_belongs_to_the_next_turn() -> None:
    entries = [
        _prompt(2),
        _result(2, {}),
        _user("u1"),
        RUNNING,
        _prompt(3),
        _result(3, {}),  # accepted while running: inserted later (Q4)
        END,
        RUNNING,
        _user("u2"),
        END,
    ]
    assert found(entries) == []
    # if the agent never inserts it, the turn it starts is the one that breaks R2
    assert found(entries[:8] + entries[9:]) == [("R2", 8)]


# -- decoding and specific explanations ------------------------------------------------------


def test_a_chunk_missing_more_than_its_message_id_is_undecodable_not_r4() -> None:
    bad = _upd({"sessionUpdate": "agent_message_chunk"})
    assert found([bad]) == [("D1", 0)]
    assert found(
        [_upd({"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": "x"}})]
    ) == [("R4", 0)]


@pytest.mark.parametrize(
    "entry",
    [
        None,
        3,
        "text",
        [],
        {"message": {}},
        {"from": "client"},
        {"from": "both", "message": {}},
        {"from": "agent", "message": {"jsonrpc": "1.0", "method": "x"}},
        {"from": "agent", "message": []},
        {"from": "client", "message": {"jsonrpc": "2.0"}},
    ],
)
def test_malformed_entries_are_violations_not_exceptions(entry: Any) -> None:
    assert found([entry]) == [("D1", 0)]


def test_lenient_codec_findings_are_reported() -> None:
    # A malformed optional field decodes leniently (dropped), but it still breaks the schema.
    entry = _upd({"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": 5})
    violations = acp.check_trace([entry])
    assert [v.rule for v in violations] == ["D1", "R14"]  # and the title is then missing
    assert "title" in violations[0].message


def test_violations_are_sorted_by_line_and_serialise() -> None:
    entries = load(TRACES / "bad_C15_6_permission_never_answered_after_cancel.jsonl")
    entries.append(_upd({"sessionUpdate": "progress_note"}))
    violations = acp.check_trace(entries, revision=acp.V2_2026_08)  # C15 is 2026-08 only
    assert [v.index for v in violations] == sorted(v.index for v in violations)
    assert violations[0].to_json() == {
        "rule": "C15",
        "level": "MUST",
        "index": 6,
        "message": violations[0].message,
    }
    assert violations[0].mandatory


def test_the_input_is_not_modified() -> None:
    entries = load(TRACES / "good_permission_turn.jsonl")
    before = copy.deepcopy(entries)
    acp.check_trace(entries)
    assert entries == before


# -- sessions --------------------------------------------------------------------------------


def _relabel(value: Any, sid: str, id_offset: int) -> Any:
    """The same trace in another session, with request ids moved out of the way."""
    if isinstance(value, list):
        return [_relabel(v, sid, id_offset) for v in value]
    if not isinstance(value, dict):
        return value
    out = {k: _relabel(v, sid, id_offset) for k, v in value.items()}
    if out.get("sessionId") == S:
        out["sessionId"] = sid
    if "jsonrpc" in out and isinstance(out.get("id"), int):
        out["id"] += id_offset
    return out


@given(st.lists(st.booleans(), min_size=40, max_size=40))
def test_interleaved_sessions_do_not_interfere(picks: list[bool]) -> None:
    a = load(TRACES / "good_permission_turn.jsonl")
    b = _relabel(load(TRACES / "good_cancel_turn.jsonl"), "sess_other", 1000)
    merged = []
    for take_a in picks:
        if take_a and a:
            merged.append(a.pop(0))
        elif b:
            merged.append(b.pop(0))
    merged += a + b
    assert found(merged) == []


def test_a_violation_in_one_session_stays_there() -> None:
    good = _relabel(load(TRACES / "good_prompt_turn.jsonl"), "sess_other", 1000)
    bad = load(TRACES / "bad_R6_3_output_before_running.jsonl")
    assert found(bad + good) == [("R6", 3)]


# -- robustness ------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=10,
)
SHAPES = [load(p) for p in GOOD + BAD]


@st.composite
def mutated_traces(draw: st.DrawFn) -> list[Any]:
    """A corpus trace with some entries replaced, dropped or shuffled."""
    entries = copy.deepcopy(draw(st.sampled_from(SHAPES)))
    for _ in range(draw(st.integers(0, 3))):
        if not entries:
            break
        i = draw(st.integers(0, len(entries) - 1))
        action = draw(st.sampled_from(["drop", "swap", "junk", "junk_message"]))
        if action == "drop":
            del entries[i]
        elif action == "swap":
            j = draw(st.integers(0, len(entries) - 1))
            entries[i], entries[j] = entries[j], entries[i]
        elif action == "junk":
            entries[i] = draw(json_values)
        else:
            entries[i] = {
                "from": draw(st.sampled_from(["client", "agent"])),
                "message": draw(json_values),
            }
    return entries


@given(mutated_traces())
def test_the_checker_is_total(entries: list[Any]) -> None:
    for v in acp.check_trace(entries):
        assert v.rule in acp.RULES
        assert v.level == acp.RULES[v.rule].level
        assert 0 <= v.index < len(entries)
