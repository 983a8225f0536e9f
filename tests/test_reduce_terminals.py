"""Display terminals (digest 3.4, rules X1-X7, Q8, Q24, Q31): the doc walk-through and the
snapshot / append / clear / reject rules."""

from __future__ import annotations

import base64
from typing import Any

import pytest

import acp_core as acp
from acp_core import TerminalUpdate, freeze_json

SID = "sess_1"
RUNNING = "cnVubmluZyB0ZXN0cw0K"  # "running tests\r\n" (tool-calls.mdx)
PASSED = "cGFzc2VkDQo="  # "passed\r\n"


def fold_wire(*wire: dict[str, Any], state: acp.SessionState | None = None) -> acp.SessionState:
    # the reducer tables of the 2026-08 digest (section 3): decoded and folded at 2026-08
    updates = [acp.decode_update(w, strict=True, revision=acp.V2_2026_08) for w in wire]
    return acp.fold(state or acp.new_session(SID), updates, revision=acp.V2_2026_08)


def _tu(tid: str = "term_001", **fields: Any) -> dict[str, Any]:
    return {"sessionUpdate": "terminal_update", "terminalId": tid, **fields}


def _chunk(data: str, tid: str = "term_001", **kw: Any) -> dict[str, Any]:
    return {"sessionUpdate": "terminal_output_chunk", "terminalId": tid, "data": data, **kw}


def _bytes(state: acp.SessionState, tid: str = "term_001") -> bytes:
    return acp.terminal_bytes(state.terminals[tid])


DOC_UPDATE = _tu(
    command="cargo test",
    cwd="/home/user/project",
    output={"data": RUNNING},
    exitStatus={"exitCode": 0, "signal": None},
)


def test_doc_walk_through() -> None:
    state = fold_wire(DOC_UPDATE)
    terminal = state.terminals["term_001"]
    assert _bytes(state) == b"running tests\r\n"
    assert (terminal.command, terminal.cwd) == ("cargo test", "/home/user/project")
    assert terminal.exited
    assert terminal.exit_status == acp.TerminalExitStatus(exit_code=0, signal=None)
    # Q31: a chunk after the exit still appends
    state = fold_wire(_chunk(PASSED), state=state)
    assert _bytes(state) == b"running tests\r\npassed\r\n"
    assert state.terminals["term_001"].exited
    assert not state.diagnostics
    # terminals are not timeline entities
    assert len(state.timeline) == 0


def test_doc_examples_of_both_pages(doc_examples: list[dict[str, Any]]) -> None:
    def bare(page: str, tag: str) -> dict[str, Any]:
        (found,) = [
            e["message"]
            for e in doc_examples
            if e["page"] == page and e["message"].get("sessionUpdate") == tag
        ]
        return found

    for page, first in [
        ("tool-calls", b"running tests\r\n"),
        ("migration", b"running 123 tests\r\n"),
    ]:
        state = fold_wire(bare(page, "terminal_update"), bare(page, "terminal_output_chunk"))
        assert _bytes(state) == first + b"passed\r\n", page


def test_a_snapshot_replaces_all_bytes() -> None:
    # X3: never merged or spliced with the old bytes.
    state = fold_wire(_tu(output={"data": RUNNING}), _chunk(PASSED), _tu(output={"data": PASSED}))
    assert _bytes(state) == b"passed\r\n"
    state = fold_wire(_chunk(RUNNING), state=state)
    assert _bytes(state) == b"passed\r\nrunning tests\r\n"


def test_chunks_before_any_terminal_update_are_kept() -> None:
    # X1: output may come first; the later update patches around the bytes.
    state = fold_wire(_chunk(RUNNING, tid="early"))
    assert _bytes(state, "early") == b"running tests\r\n"
    assert state.terminals["early"].command is None
    state = fold_wire(_tu("early", command="cargo test"), _chunk(PASSED, tid="early"), state=state)
    assert _bytes(state, "early") == b"running tests\r\npassed\r\n"
    assert state.terminals["early"].command == "cargo test"


def test_output_null_clears_the_bytes() -> None:
    # Q8: empty buffer; later chunks append to empty.
    state = fold_wire(
        _tu(output={"data": RUNNING, "_meta": {"snap": 1}}), _chunk(PASSED), _tu(output=None)
    )
    assert _bytes(state) == b""
    assert state.terminals["term_001"].snapshot_meta is None
    assert _bytes(fold_wire(_chunk(PASSED), state=state)) == b"passed\r\n"


def test_output_meta_is_the_snapshot_meta() -> None:
    state = fold_wire(_tu(output={"data": RUNNING, "_meta": {"snap": 1}}))
    assert state.terminals["term_001"].snapshot_meta == freeze_json({"snap": 1})
    state = fold_wire(_tu(output={"data": PASSED}), state=state)
    assert state.terminals["term_001"].snapshot_meta is None


def test_exit_status_null_clears_and_empty_object_marks_exited() -> None:
    # X7
    state = fold_wire(_tu(exitStatus={}))
    assert state.terminals["term_001"].exited
    assert state.terminals["term_001"].exit_status == acp.TerminalExitStatus()
    state = fold_wire(_tu(exitStatus=None), state=state)
    assert not state.terminals["term_001"].exited
    state = fold_wire(_tu(exitStatus={"signal": "SIGTERM"}), state=state)
    assert state.terminals["term_001"].exit_status == acp.TerminalExitStatus(signal="SIGTERM")


@pytest.mark.parametrize(
    ("field", "value", "attr", "expected"),
    [
        ("command", None, "command", None),
        ("command", "ls", "command", "ls"),
        ("cwd", None, "cwd", None),
        ("cwd", "/tmp", "cwd", "/tmp"),
        ("_meta", None, "meta", None),
        ("_meta", {"k": [1]}, "meta", freeze_json({"k": [1]})),
    ],
)
def test_patch_fields(field: str, value: Any, attr: str, expected: Any) -> None:
    # X2: command, cwd and _meta follow the patch algebra; absent keeps.
    state = fold_wire(
        _tu(command="cargo test", cwd="/home", _meta={"k": 0}, output={"data": PASSED})
    )
    after = fold_wire(_tu(**{field: value}), state=state)
    assert getattr(after.terminals["term_001"], attr) == expected
    assert _bytes(after) == b"passed\r\n"
    untouched = fold_wire(_tu(), state=state)
    assert getattr(untouched.terminals["term_001"], attr) == getattr(
        state.terminals["term_001"], attr
    )


@pytest.mark.parametrize("bad", ["!!!!", "a", "YW Jj", "YW-_", "é===", "aGk=\n"])
def test_bad_base64_is_rejected_with_a_diagnostic_and_no_change(bad: str) -> None:
    # Q24: the whole update is not applied (not even its command), the state stays as it was.
    state = fold_wire(_tu(command="cargo test", output={"data": RUNNING}))
    for update in (_tu(command="rm -rf", output={"data": bad}), _chunk(bad)):
        after = fold_wire(update, state=state)
        assert after.terminals == state.terminals
        assert [d.rule for d in after.diagnostics] == ["reduce.bad-base64"]
        assert "term_001" in after.diagnostics[0].path


def test_bad_base64_for_an_unknown_terminal_creates_nothing() -> None:
    for update in (_tu("ghost", output={"data": "!!"}), _chunk("!!", tid="ghost")):
        after = fold_wire(update)
        assert "ghost" not in after.terminals
        assert [d.rule for d in after.diagnostics] == ["reduce.bad-base64"]


def test_missing_padding_is_tolerated() -> None:
    # Q24: decode the standard alphabet; tolerate missing padding.
    assert _bytes(fold_wire(_chunk("aGk"))) == b"hi"
    assert _bytes(fold_wire(_tu(output={"data": "cGFzc2VkDQo"}))) == b"passed\r\n"


def test_each_chunk_is_decoded_alone() -> None:
    # X4: "aA==" + "aQ==" concatenated is not valid base64; decoded apart they are "hi".
    state = fold_wire(_chunk("aA=="), _chunk("aQ=="))
    assert _bytes(state) == b"hi"


def test_bytes_are_kept_verbatim_across_chunk_boundaries() -> None:
    # X6: a UTF-8 sequence and an ANSI escape split over chunks; invalid UTF-8 too.
    raw = "é\x1b[31mred\x1b[0m".encode() + b"\xff\xfe"
    pieces = [raw[:1], raw[1:4], raw[4:], b""]
    state = fold_wire(*[_chunk(base64.b64encode(p).decode()) for p in pieces])
    assert _bytes(state) == raw


def test_chunk_meta_is_not_stored_on_the_terminal() -> None:
    with_meta = fold_wire(_chunk(PASSED, _meta={"c": 1}))
    without = fold_wire(_chunk(PASSED))
    assert with_meta.terminals == without.terminals


def test_terminal_equality_ignores_how_bytes_were_chunked() -> None:
    split = fold_wire(_chunk("cnVubmluZyB0"), _chunk("ZXN0cw0K"))
    whole = fold_wire(_tu(output={"data": RUNNING}))
    assert split.terminals["term_001"] == whole.terminals["term_001"]


def test_terminal_updates_while_idle_never_change_the_foreground() -> None:
    idle = fold_wire({"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
    state = fold_wire(DOC_UPDATE, _chunk(PASSED), _tu(exitStatus=None), state=idle)
    assert state.foreground is idle.foreground


def test_identity_for_updates_that_change_nothing() -> None:
    state = fold_wire(DOC_UPDATE)
    assert acp.reduce(state, TerminalUpdate("term_001")) is state
    assert acp.reduce(state, acp.decode_update(DOC_UPDATE)) is state
    assert acp.reduce(state, acp.decode_update(_chunk(""))) is state


@pytest.mark.parametrize("kind", ["content", "terminal"])
def test_a_content_chunk_reference_is_a_terminals_first_sight_through_reduce(kind: str) -> None:
    # X1 on `reduce` alone (one update at a time): a terminal reference in a content chunk
    # creates the terminal's record; any other item creates none.
    content: dict[str, Any] = (
        {"type": "terminal", "terminalId": "term_9"}
        if kind == "terminal"
        else {"type": "content", "content": {"type": "text", "text": "x"}}
    )
    update = acp.decode_update(
        {"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c1", "content": content}
    )
    state = acp.reduce(acp.new_session(SID), update)
    assert list(state.terminals) == (["term_9"] if kind == "terminal" else [])
    assert list(state.tool_calls["c1"].content) == [update.content]  # type: ignore[attr-defined]
