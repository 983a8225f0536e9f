"""The hot paths give the answers of the full paths they stand in for.

- `observe`'s quiet path (a message that changes nothing and breaks nothing returns the same
  machine at once) against `observe` with the quiet path turned off, message by message over
  every checker trace, mutated traces and engine pair runs; `grown_update` (the work only
  grew) against `observe` where the quiet test says no;
- `update_findings`' text-chunk path against `MessageRules.update` with `StateSeen`;
- `plain_tool_call_update` (the client engine folds such patches of known tool calls
  without `update_findings`): such a patch breaks no rule and touches only its tool call.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import acp_core as acp
import acp_core.strategies as acps
from acp_core._errors import AcpError
from acp_core._rules import _conversation as machine
from acp_core._rules._check_message import (
    MessageRules,
    StateSeen,
    plain_tool_call_update,
    update_findings,
)
from acp_core._rules._conversation import Conversation, observe
from acp_core._state._reduce import reduce
from acp_core._state._session_state import new_session
from acp_core._wire._codec import decode_message
from acp_core._wire._content import TextContent
from acp_core._wire._jsonrpc import UpdateSessionNotification
from acp_core._wire._revision import REVISIONS
from acp_core._wire._updates import AgentMessageChunk, RunningStateUpdate, UsageUpdate
from acp_core.values import EMPTY_OBJECT, UNSET, ToolCallStatus, ToolCallUpdate

TRACES = sorted((Path(__file__).resolve().parent / "traces").glob("*.jsonl"))


def _messages(path: Path) -> list[tuple[Any, Any]]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        entry = json.loads(line)
        if not isinstance(entry, dict) or entry.get("from") not in ("agent", "client"):
            continue
        try:
            out.append((entry["from"], decode_message(entry["message"])))
        except (AcpError, KeyError):
            continue
    return out


MESSAGES = [m for path in TRACES for m in _messages(path)]
_USAGE = UpdateSessionNotification("s", UsageUpdate(1, 10))


def _follow(
    messages: list[tuple[Any, Any]], revision: acp.Revision, quiet: bool, mid: bool
) -> list[Any]:
    conv = Conversation.mid_session(revision) if mid else Conversation.start(revision)
    seen = []
    saved = machine._quiet, machine._work_grown
    if not quiet:  # both shortcuts off: every message takes the full path
        machine._quiet = lambda conv, upd: False  # type: ignore[assignment]
        machine._work_grown = lambda conv, upd: None  # type: ignore[assignment]
    try:
        for at, (sender, message) in enumerate(messages):
            conv, found = observe(conv, sender, message, at=at)
            seen.append((conv, found))
    finally:
        machine._quiet, machine._work_grown = saved
    return seen


@pytest.mark.parametrize("revision", list(REVISIONS.values()), ids=list(REVISIONS))
@pytest.mark.parametrize("path", TRACES, ids=[p.name for p in TRACES])
def test_the_quiet_path_changes_no_answer_on_the_traces(path: Path, revision: Any) -> None:
    messages = _messages(path)
    # Each message again with a background update after it: it clears what the message left
    # for one event only (`ended`), so the message after it meets the quiet path's tests.
    spaced = [m for pair in messages for m in (pair, ("agent", _USAGE))]
    for sequence in (messages, spaced):
        for mid in (False, True):
            quiet = _follow(sequence, revision, True, mid)
            assert quiet == _follow(sequence, revision, False, mid)


def test_the_work_grown_path_is_taken() -> None:
    # A tool call's first update, a chunk of a message the running turn has not touched yet
    # (once the history began: the first agent message takes the full path): only the work's
    # items grow, and the shortcut gives what the full path gives.
    conv, _ = observe(
        Conversation.start(), "agent", UpdateSessionNotification("s", RunningStateUpdate())
    )
    updates = (
        (ToolCallUpdate("t1", title="T"), "t1"),
        (AgentMessageChunk("m1", TextContent("x")), None),
        (AgentMessageChunk("m2", TextContent("x")), "m2"),
    )
    for update, item in updates:
        note = UpdateSessionNotification("s", update)
        grown = machine._work_grown(conv, update)
        saved = machine._work_grown
        machine._work_grown = lambda conv, upd: None  # type: ignore[assignment]
        try:
            full = observe(conv, "agent", note)
        finally:
            machine._work_grown = saved
        assert observe(conv, "agent", note) == full
        if item is None:
            assert grown is None
        else:
            assert grown is not None
            assert full == (grown, ())
            assert set(grown.work_ids) == {*conv.work_ids, item}
        conv = full[0]


def _assert_grown_update_is_observe(messages: list[tuple[Any, Any]], conv: Conversation) -> int:
    # `grown_update`, where the quiet test says no, is None or exactly what `observe` gives
    # (the client engine's runs take it instead of `observe`); how often it was not None.
    taken = 0
    for at, (sender, message) in enumerate(messages):
        update = message.update if type(message) is UpdateSessionNotification else None
        if sender == "agent" and update is not None and not machine.quiet_update(conv, update):
            grown = machine.grown_update(conv, update)
            if grown is not None:
                taken += 1
                assert observe(conv, sender, message, at=at) == (grown, ())
        conv, _ = observe(conv, sender, message, at=at)
    return taken


@pytest.mark.parametrize("revision", list(REVISIONS.values()), ids=list(REVISIONS))
def test_grown_update_is_observe_where_it_answers_on_the_traces(revision: Any) -> None:
    taken = 0
    for path in TRACES:
        for start in (Conversation.start(revision), Conversation.mid_session(revision)):
            taken += _assert_grown_update_is_observe(_messages(path), start)
    assert taken > 20  # not vacuous: the traces' turns grow their work


@given(st.lists(st.sampled_from(MESSAGES), max_size=30), st.sampled_from(list(REVISIONS.values())))
def test_grown_update_is_observe_where_it_answers_on_shuffled_traffic(
    messages: list[tuple[Any, Any]], revision: Any
) -> None:
    _assert_grown_update_is_observe(messages, Conversation.start(revision))


_CHUNKS = ("AgentMessageChunk", "AgentThoughtChunk", "UserMessageChunk")


@pytest.mark.parametrize("revision", list(REVISIONS.values()), ids=list(REVISIONS))
def test_the_quiet_answer_to_a_chunk_reads_its_class_and_message_id_alone(revision: Any) -> None:
    # What the client engine's runs rely on to keep one answer for the chunks of a streamed
    # message (`_engines/_client.receive_updates`): from one machine, two chunks of one class
    # and message id get the same answer, whatever else they hold.
    asked = 0
    for path in TRACES:
        messages = _messages(path)
        machines = [Conversation.start(revision)] + [
            conv for conv, _ in _follow(messages, revision, True, False)
        ]
        chunks = [m.update for _, m in messages if type(m).__name__ == "UpdateSessionNotification"]
        chunks = [u for u in chunks if type(u).__name__ in _CHUNKS]
        for conv in machines[:: max(1, len(machines) // 12)]:
            for chunk in chunks[:20]:
                other = attrs.evolve(chunk, content=TextContent("something else entirely"))
                answer = machine.quiet_update(conv, chunk)
                assert machine.quiet_update(conv, other) == answer
                asked += answer
    assert asked  # not vacuous: some chunks are quiet


_REBUILT = [f.name for f in attrs.fields(Conversation) if f.init]


@settings(max_examples=200, deadline=None)
@given(st.data())
def test_a_rebuilt_machine_is_the_one_evolve_gives(data: st.DataObject) -> None:
    # `_rebuild` (one generated copy per set of changed fields, in the order given) against
    # `attrs.evolve` with the same changes: the same value, its remembered stage started over.
    path = data.draw(st.sampled_from(TRACES))
    seen = [conv for conv, _ in _follow(_messages(path), acp.V2_PREVIEW, True, False)]
    if len(seen) < 2:
        return
    old, new = data.draw(st.sampled_from(seen)), data.draw(st.sampled_from(seen))
    names = data.draw(st.lists(st.sampled_from(_REBUILT), unique=True))
    changes = {name: getattr(new, name) for name in names}
    machine.stage_of(old)  # remembered on `old`
    rebuilt = machine._rebuild(old, changes)
    assert rebuilt == attrs.evolve(old, **changes)
    assert rebuilt.cached_stage is None
    assert machine.stage_of(rebuilt) == machine.stage_of(attrs.evolve(old, **changes))


def test_a_misspelled_change_is_refused_not_dropped() -> None:
    # Review F4: a change whose name is no field (an effect's typo) raised nowhere and the
    # change was lost; `_rebuild` now names it, whether or not a rebuild of that set of names
    # was made before, and a correct change still goes through.
    conv = Conversation.start()
    for _ in range(2):
        with pytest.raises(TypeError, match="phse"):
            machine._rebuild(conv, {"phse": "oops"})
        with pytest.raises(TypeError, match="phse"):
            machine._rebuild(conv, {"mode": conv.mode, "phse": "oops"})
    assert machine._rebuild(conv, {"mode": conv.mode}) == conv


def test_the_quiet_path_is_taken() -> None:
    # A chunk of a message the running turn already touched: the same machine comes back.
    note = UpdateSessionNotification("s", AgentMessageChunk("m1", TextContent("x")))
    conv, _ = observe(
        Conversation.start(), "agent", UpdateSessionNotification("s", RunningStateUpdate())
    )
    conv, _ = observe(conv, "agent", note)
    assert machine._quiet(conv, note.update)
    assert observe(conv, "agent", note) == (conv, ())


@given(st.lists(st.sampled_from(MESSAGES), max_size=30), st.sampled_from(list(REVISIONS.values())))
def test_the_quiet_path_changes_no_answer_on_shuffled_traffic(
    messages: list[tuple[Any, Any]], revision: Any
) -> None:
    assert _follow(messages, revision, True, False) == _follow(messages, revision, False, False)


@given(st.lists(acps.session_updates(), max_size=8), acps.session_updates())
def test_update_findings_is_message_rules(before: list[Any], update: Any) -> None:
    for revision in REVISIONS.values():
        state = new_session("s")
        for u in before:
            state = reduce(state, u, revision=revision)
        expected = MessageRules(revision).update(StateSeen(state), update)
        assert update_findings(revision, state, update) == expected


@pytest.mark.parametrize("role", ["user", "agent", "thought"])
def test_a_text_chunk_reusing_another_role_s_id_is_r5_on_the_fast_path(role: str) -> None:
    chunk = {"user": acp.UserMessageChunk, "agent": acp.AgentMessageChunk}.get(
        role, acp.AgentThoughtChunk
    )
    state = reduce(new_session("s"), acp.UserMessage("m1", (acp.TextContent("hi"),)))
    found = update_findings(acp.V2_2026_08, state, chunk("m1", acp.TextContent("x")))
    assert [rule for rule, _ in found] == ([] if role == "user" else ["R5"])


#: Patches of tool call "c1", mostly of the fields a plain patch has (so that many are plain).
_C1_PATCHES = st.builds(
    ToolCallUpdate,
    tool_call_id=st.sampled_from(["c1", "c1", "c2", ""]),
    title=st.one_of(st.just(UNSET), acps.patches(st.just("T"))),
    kind=st.one_of(st.just(UNSET), acps.patches(st.sampled_from(["read", "weird"]))),
    status=acps.patches(
        st.one_of(
            st.sampled_from(sorted(ToolCallStatus.KNOWN | {"paused", "weird", "_mine"})),
            acps.open_enum_values(ToolCallStatus.KNOWN),
        )
    ),
    raw_input=acps.patches(acps.json_values()),
    raw_output=acps.patches(acps.json_values()),
    meta=st.one_of(st.just(UNSET), acps.metas()),
    extra=st.one_of(st.just(EMPTY_OBJECT), acps.extras()),
)


@settings(max_examples=200, deadline=None)
@given(st.lists(acps.session_updates(), max_size=6), _C1_PATCHES)
def test_a_plain_tool_call_patch_of_a_known_call_breaks_nothing_and_touches_only_it(
    before: list[Any], patch: Any
) -> None:
    for revision in REVISIONS.values():
        state = new_session("s")
        for u in [ToolCallUpdate("c1", title="Read"), *before]:
            state = reduce(state, u, revision=revision)
        tool_call_id = plain_tool_call_update(patch, revision)
        if tool_call_id is None or tool_call_id not in state.tool_calls:
            continue
        assert update_findings(revision, state, patch) == []
        assert MessageRules(revision).update(StateSeen(state), patch) == []
        after = reduce(state, patch, revision=revision)
        old = state.tool_calls[tool_call_id]
        new = after.tool_calls[tool_call_id]
        # Only the patched fields of its own tool call: no foreground, no timeline entry.
        status = old.status if patch.status is UNSET else patch.status
        raw_input = old.raw_input if patch.raw_input is UNSET else patch.raw_input
        raw_output = old.raw_output if patch.raw_output is UNSET else patch.raw_output
        assert (new.status, new.raw_input, new.raw_output) == (status, raw_input, raw_output)
        assert attrs.evolve(new, status=old.status, raw_input=old.raw_input,
                            raw_output=old.raw_output) == old  # fmt: skip
        assert (after is state) == (new == old)
        assert attrs.evolve(after, tool_calls=state.tool_calls) == state


def test_plain_tool_call_update_takes_the_status_patches() -> None:
    for revision in REVISIONS.values():
        assert plain_tool_call_update(ToolCallUpdate("c1", status="completed"), revision)
        done = ToolCallUpdate("c1", status="completed", raw_output=3)
        assert plain_tool_call_update(done, revision) == "c1"
        assert plain_tool_call_update(ToolCallUpdate("c1", status="weird"), revision) is None
        assert plain_tool_call_update(ToolCallUpdate("c1", title="T"), revision) is None
        assert plain_tool_call_update(ToolCallUpdate("", status="failed"), revision) is None
