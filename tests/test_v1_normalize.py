"""The v1 -> v2 mapping rules (digest 6.2), one table or case per rule, on emitted updates.

Also: the step is pure and total (bad input becomes diagnostics, never exceptions), the
state is frozen all the way down, and stepping message by message equals `normalize_v1`.
"""

from __future__ import annotations

import re
from collections import Counter
from typing import Any

import attrs
import immutables
import pytest
from hypothesis import given
from hypothesis import strategies as st
from v1_view import agent, chunk, client, load_trace, prompt, result, text, update

import acp_core as acp
from acp_core._rules._conversation import Phase

S = "s"


def ups(entries: list[dict[str, Any]], **policy: Any) -> list[Any]:
    out = acp.normalize_v1(entries, acp.V1Policy(**policy))
    return [u.update for u in out.updates]


def rules(entries: list[dict[str, Any]]) -> Counter[str]:
    return Counter(d.rule for d in acp.normalize_v1(entries).diagnostics)


def tool(tag: str = "tool_call", **fields: Any) -> dict[str, Any]:
    return update(S, {"sessionUpdate": tag, "toolCallId": "c", **fields})


# -- the prompt turn (rules 1-5) -----------------------------------------------------------


def test_prompt_request_is_the_user_message_and_running() -> None:
    assert ups([prompt(S, 7, text("hi"))]) == [
        acp.UserMessage("v1:prompt:7", (acp.TextContent("hi"),)),
        acp.RunningStateUpdate(),
    ]


def test_prompt_result_is_idle_with_the_stop_reason_and_meta() -> None:
    entries = [
        prompt(S, 1, text("hi")),
        agent({"id": 1, "result": {"stopReason": "max_tokens", "_meta": {"x": 1}}}),
    ]
    assert ups(entries)[-1] == acp.IdleStateUpdate(
        "max_tokens",
        acp.freeze_json({"x": 1}),  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("result_body", "stop", "rule"),
    [
        ({}, acp.UNSET, "v1.missing-stop-reason"),
        ({"stopReason": 3}, acp.UNSET, "v1.missing-stop-reason"),
        (
            {"stopReason": "end_turn", "usage": {"inputTokens": 1}},
            "end_turn",
            "v1.result-field-dropped",
        ),
        ([], acp.UNSET, "v1.missing-stop-reason"),
    ],
)
def test_unusual_prompt_results(result_body: Any, stop: Any, rule: str) -> None:
    entries = [prompt(S, 1, text("hi")), agent({"id": 1, "result": result_body})]
    assert ups(entries)[-1] == acp.IdleStateUpdate(stop)
    assert rules(entries)[rule] == 1


def test_prompt_error_is_idle_without_stop_reason_and_an_event() -> None:
    entries = [
        prompt(S, 1, text("hi")),
        agent({"id": 1, "error": {"code": -32000, "message": "auth required"}}),
    ]
    out = acp.normalize_v1(entries)
    assert out.updates[-1].update == acp.IdleStateUpdate()
    assert [e.event for e in out.events] == [
        acp.PromptError(1, acp.RpcError(-32000, "auth required"))
    ]


def test_prompt_ids_are_deterministic_and_never_reused() -> None:
    entries = [prompt(S, 1, text("a")), result(1), prompt(S, 1, text("b")), result(1)]
    entries += [prompt(S, "x-2", text("c"))]
    ids = [u.message_id for u in ups(entries) if isinstance(u, acp.UserMessage)]
    assert ids == ["v1:prompt:1", "v1:prompt:1#2", "v1:prompt:x-2"]


def test_overlapping_prompts_stay_running_until_the_last_result() -> None:
    entries = [prompt(S, 1, text("a")), prompt(S, 2, text("b")), result(1), result(2)]
    states = [type(u).__name__ for u in ups(entries) if not isinstance(u, acp.UserMessage)]
    assert states == [
        "RunningStateUpdate",
        "RunningStateUpdate",
        "IdleStateUpdate",
        "RunningStateUpdate",
        "IdleStateUpdate",
    ]


def test_cancel_is_an_event_and_the_cancelled_result_ends_the_turn() -> None:
    entries = [
        prompt(S, 1, text("a")),
        client({"method": "session/cancel", "params": {"sessionId": S}}),
        result(1, "cancelled"),
    ]
    out = acp.normalize_v1(entries)
    assert [e.event for e in out.events] == [acp.CancelSessionNotification(S)]
    assert out.updates[-1].update == acp.IdleStateUpdate("cancelled")


def _permission(request_id: int, tool_call: dict[str, Any] | None = None) -> dict[str, Any]:
    params: dict[str, Any] = {
        "sessionId": S,
        "options": [{"optionId": "ok", "name": "OK", "kind": "allow_once"}],
    }
    if tool_call is not None:
        params["toolCall"] = tool_call
    return agent({"id": request_id, "method": "session/request_permission", "params": params})


def _answer(request_id: int) -> dict[str, Any]:
    return client(
        {"id": request_id, "result": {"outcome": {"outcome": "selected", "optionId": "ok"}}}
    )


def test_permission_requests_block_the_turn_until_all_are_answered() -> None:
    entries = [
        prompt(S, 0, text("a")),
        _permission(0, {"toolCallId": "c", "title": "Write"}),
        _permission(1, {"toolCallId": "d", "title": "Run"}),
        _answer(0),
        _answer(1),
        result(0),
    ]
    names = [type(u).__name__ for u in ups(entries)]
    assert names == [
        "UserMessage",
        "RunningStateUpdate",
        "ToolCallUpdate",
        "RequiresActionStateUpdate",
        "ToolCallUpdate",
        "RequiresActionStateUpdate",
        "RunningStateUpdate",  # only after the second answer
        "IdleStateUpdate",
    ]


def test_request_ids_of_both_sides_do_not_mix() -> None:
    # The client's prompt and the agent's permission request both use id 0.
    entries = [
        prompt(S, 0, text("a")),
        _permission(0, {"toolCallId": "c"}),
        _answer(0),
        result(0),
    ]
    names = [type(u).__name__ for u in ups(entries)][-2:]
    assert names == ["RunningStateUpdate", "IdleStateUpdate"]


def test_permission_while_idle_changes_no_state() -> None:
    entries = [_permission(3, {"toolCallId": "c", "title": "bg"}), _answer(3)]
    assert [type(u).__name__ for u in ups(entries)] == ["ToolCallUpdate"]


def test_the_turn_s_phase_is_the_machine_s_over_the_emitted_stream() -> None:
    # A v2 `state_update` passed through moves the phase the synthesis reads (the one home
    # of the turn): after a passed-through idle the turn is over, so a permission request
    # blocks nothing (no requires_action, Q33) though the prompt's result is still to come.
    idle = update(S, {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"})
    entries = [prompt(S, 0, text("a")), idle, _permission(1, {"toolCallId": "c"}), _answer(1)]
    names = [type(u).__name__ for u in ups(entries)]
    assert names == ["UserMessage", "RunningStateUpdate", "IdleStateUpdate", "ToolCallUpdate"]
    state = acp.normalize_v1(entries).state
    assert state.machines[S].phase is Phase.IDLE


def test_permission_request_in_v2_shape() -> None:
    out = acp.normalize_v1([_permission(3, {"toolCallId": "c", "title": "Write", "status": None})])
    (event,) = out.events
    assert event.event == acp.RequestPermissionRequest(
        3,
        S,
        "Write",
        (acp.PermissionOption("ok", "OK", "allow_once"),),
        subject=acp.ToolCallPermissionSubject(acp.ToolCallUpdate("c", title="Write")),
    )


def test_unmatched_prompt_result() -> None:
    only = [chunk(S, "agent_message_chunk", "x"), result(9)]
    assert ups(only)[-1] == acp.IdleStateUpdate("end_turn")
    two = [*only[:1], chunk("other", "agent_message_chunk", "y"), result(9)]
    assert not any(isinstance(u, acp.IdleStateUpdate) for u in ups(two))
    assert rules(two)["v1.unmatched-response"] == 1
    # Answers to requests the normalizer does not track are no prompt results.
    assert ups([agent({"id": 4, "result": {}})]) == []


# -- tool calls (rules 8-11) ---------------------------------------------------------------

TOOLS = [
    (
        "tool_call creates",
        [tool(title="Read", kind="read", status="pending")],
        [acp.ToolCallUpdate("c", title="Read", kind="read", status="pending")],
        {},
    ),
    (
        "tool_call again resets what it omits",
        [tool(title="Read"), tool(title="Read again", status="in_progress")],
        [
            acp.ToolCallUpdate("c", title="Read"),
            acp.ToolCallUpdate(
                "c",
                title="Read again",
                kind="other",
                status="in_progress",
                content=(),
                locations=(),
            ),
        ],
        {"v1.tool-call-resent": 1},
    ),
    (
        "update first: a placeholder, never a failure",
        [tool("tool_call_update", rawOutput={"ok": True})],
        [acp.ToolCallUpdate("c", raw_output=acp.freeze_json({"ok": True}))],
        {"v1.placeholder-tool-call": 1},
    ),
    (
        "late tool_call keeps what updates set",
        [
            tool("tool_call_update", status="completed", title="Done"),
            tool(title="Run", kind="execute", status="pending"),
        ],
        [
            acp.ToolCallUpdate("c", title="Done", status="completed"),
            acp.ToolCallUpdate("c", kind="execute"),
        ],
        {"v1.placeholder-tool-call": 1, "v1.late-tool-call": 1},
    ),
    (
        "v1 null means unchanged",
        [tool(title="A"), tool("tool_call_update", title=None, content=None, status="failed")],
        [acp.ToolCallUpdate("c", title="A"), acp.ToolCallUpdate("c", status="failed")],
        {"v1.null-ignored": 1},
    ),
    (
        "an empty array still clears",
        [tool(title="A"), tool("tool_call_update", content=[], locations=[])],
        [acp.ToolCallUpdate("c", title="A"), acp.ToolCallUpdate("c", content=(), locations=())],
        {},
    ),
]


@pytest.mark.parametrize(
    ("entries", "expected", "rule_counts"), [r[1:] for r in TOOLS], ids=[r[0] for r in TOOLS]
)
def test_tool_calls(entries: list[Any], expected: list[Any], rule_counts: dict[str, int]) -> None:
    assert ups(entries) == expected
    counts = rules(entries)
    for rule, n in rule_counts.items():
        assert counts[rule] == n


def _content(item: dict[str, Any]) -> Any:
    (u,) = ups([tool(title="T", content=[item])])
    assert isinstance(u, acp.ToolCallUpdate)
    assert isinstance(u.content, tuple)
    return u.content[0]


def test_v1_diff_becomes_a_v2_diff_with_a_git_patch() -> None:
    item = _content({"type": "diff", "path": "/p/a.py", "oldText": "x\ny\n", "newText": "x\nz\n"})
    assert item.changes == (acp.DiffChange("modify", "/p/a.py", file_type="text"),)
    assert item.patch.format == "git_patch"
    assert item.patch.text == (
        "diff --git /p/a.py /p/a.py\n--- /p/a.py\n+++ /p/a.py\n@@ -1,2 +1,2 @@\n x\n-y\n+z\n"
    )
    assert acp.thaw_json(item.meta) == {"acp.v1/diff": {"oldText": "x\ny\n", "newText": "x\nz\n"}}


def test_v1_diff_without_old_text_adds_a_file() -> None:
    item = _content({"type": "diff", "path": "/p/new.txt", "oldText": None, "newText": "hi"})
    assert item.changes[0].operation == "add"
    assert item.patch.text == (
        "diff --git /p/new.txt /p/new.txt\nnew file mode 100644\n--- /dev/null\n+++ /p/new.txt\n"
        "@@ -0,0 +1 @@\n+hi\n\\ No newline at end of file\n"
    )


def test_v1_terminal_reference_is_kept_with_a_diagnostic() -> None:
    entries = [tool(title="T", content=[{"type": "terminal", "terminalId": "term_1"}])]
    (u,) = ups(entries)
    assert u.content == (acp.TerminalRef("term_1"),)
    assert rules(entries)["v1.terminal-reference"] == 1


def _apply(old: str, patch: str) -> str:
    """Apply a unified diff (as the normalizer writes it) to `old`: a test-only oracle."""
    src = old.splitlines(keepends=True)
    out: list[str] = []
    pos = 0
    lines = patch.splitlines(keepends=True)
    i = 0
    while i < len(lines):
        m = re.match(r"@@ -(\d+)(?:,(\d+))? \+\d+(?:,\d+)? @@", lines[i])
        i += 1
        if not m:
            continue
        start = int(m.group(1)) - (0 if m.group(2) == "0" else 1)
        out.extend(src[pos:start])
        pos = start
        while i < len(lines) and not lines[i].startswith("@@"):
            line = lines[i]
            nxt = lines[i + 1] if i + 1 < len(lines) else ""
            body = line[1:]
            if nxt.startswith("\\ No newline"):
                body = body.rstrip("\n")
                i += 1
            if line[0] in " -":
                pos += 1
            if line[0] in " +":
                out.append(body)
            i += 1
    out.extend(src[pos:])
    return "".join(out)


_lines = st.lists(st.sampled_from(["a", "b", "c", "", "d e"]), max_size=8).map("\n".join)


@given(old=st.none() | _lines, new=_lines, trailing=st.booleans())
def test_git_patch_turns_old_text_into_new_text(old: str | None, new: str, trailing: bool) -> None:
    new = new + ("\n" if trailing and new else "")
    item = _content({"type": "diff", "path": "/f", "oldText": old, "newText": new})
    assert item.patch.text.startswith("diff --git /f /f\n")
    assert _apply(old or "", item.patch.text) == new


# -- plans, removed and unknown kinds, renames (rules 12-17) -------------------------------


def test_plan_becomes_the_items_plan_main() -> None:
    entry = {"content": "x", "priority": "low", "status": "pending"}
    (u,) = ups([update(S, {"sessionUpdate": "plan", "entries": [entry], "_meta": {"v": 1}})])
    assert u == acp.PlanUpdate(
        acp.PlanItems("main", (acp.PlanEntry("x", "low", "pending"),)),
        acp.freeze_json({"v": 1}),  # type: ignore[arg-type]
    )


@pytest.mark.parametrize(
    ("upd", "rule"),
    [
        ({"sessionUpdate": "current_mode_update", "currentModeId": "ask"}, "v1.unknown-kind"),
        ({"sessionUpdate": "_vendor_thing", "x": 1}, "v1.unknown-kind"),
    ],
)
def test_removed_and_unknown_kinds_are_kept_raw(upd: dict[str, Any], rule: str) -> None:
    entries = [update(S, upd)]
    assert ups(entries) == [acp.OtherUpdate(acp.freeze_json(upd))]  # type: ignore[arg-type]
    assert rules(entries)[rule] == 1


def test_v2_kinds_pass_through_with_a_note() -> None:
    entries = [update(S, {"sessionUpdate": "state_update", "state": "running"})]
    assert ups(entries) == [acp.RunningStateUpdate()]
    assert rules(entries)["v1.v2-kind"] == 1


def test_v1_config_options_and_commands_are_renamed() -> None:
    config = {
        "sessionUpdate": "config_option_update",
        "configOptions": [
            {
                "id": "mode",
                "name": "Mode",
                "type": "select",
                "currentValue": "a",
                "options": [{"value": "a", "name": "A"}],
            }
        ],
    }
    commands = {
        "sessionUpdate": "available_commands_update",
        "availableCommands": [{"name": "web", "description": "search", "input": {"hint": "q"}}],
    }
    c, k = ups([update(S, config), update(S, commands)])
    assert c == acp.ConfigOptionUpdate(
        (acp.SessionConfigSelect("mode", "Mode", "a", (acp.SessionConfigSelectOption("a", "A"),)),)
    )
    assert k == acp.AvailableCommandsUpdate(
        (acp.AvailableCommand("web", "search", acp.TextCommandInput("q")),)
    )


# -- ids -----------------------------------------------------------------------------------


def test_real_ids_in_the_reserved_namespace_are_escaped() -> None:
    entries = [
        chunk(S, "agent_message_chunk", "x", "v1:agent:1"),
        chunk(S, "agent_message_chunk", "y"),
    ]
    assert [u.message_id for u in ups(entries)] == ["v1:id:v1:agent:1", "v1:agent:1"]
    assert rules(entries)["v1.escaped-id"] == 1


def test_a_real_id_shared_by_thought_and_reply_is_split_by_role() -> None:
    entries = [
        chunk(S, "agent_thought_chunk", "hmm", "m"),
        chunk(S, "agent_message_chunk", "answer", "m"),
        chunk(S, "agent_message_chunk", "!", "m"),
    ]
    assert [u.message_id for u in ups(entries)] == ["m", "v1:id:agent:m", "v1:id:agent:m"]
    assert rules(entries)["v1.role-split"] == 1


def test_session_load_is_a_turn_boundary() -> None:
    entries = [
        chunk(S, "agent_message_chunk", "a"),
        client(
            {
                "id": 1,
                "method": "session/load",
                "params": {"sessionId": S, "cwd": "/", "mcpServers": []},
            }
        ),
        chunk(S, "agent_message_chunk", "b"),
    ]
    assert [u.message_id for u in ups(entries)] == ["v1:agent:1", "v1:agent:2"]


def test_sessions_are_independent() -> None:
    entries = [
        chunk("s1", "agent_message_chunk", "a"),
        chunk("s2", "agent_message_chunk", "b"),
        chunk("s1", "agent_message_chunk", "c"),
    ]
    out = acp.normalize_v1(entries)
    assert out.session_ids == ("s1", "s2")
    assert [u.message_id for u in out.updates_for("s1")] == ["v1:agent:1", "v1:agent:1"]  # type: ignore[union-attr]
    assert [(u.session_id, u.index) for u in out.updates] == [("s1", 0), ("s2", 1), ("s1", 2)]


# -- robustness, purity --------------------------------------------------------------------

BAD = [
    ("not an object", "nope", "v1.invalid-message"),
    (
        "no sessionId",
        {"jsonrpc": "2.0", "method": "session/update", "params": {}},
        "v1.invalid-message",
    ),
    (
        "update without a kind",
        {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": S, "update": {}}},
        "v1.invalid-message",
    ),
    (
        "chunk without content",
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": S, "update": {"sessionUpdate": "agent_message_chunk"}},
        },
        "v1.invalid-update",
    ),
    (
        "tool call without an id",
        {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": S, "update": {"sessionUpdate": "tool_call", "title": "x"}},
        },
        "v1.invalid-update",
    ),
    ("neither request nor response", {"jsonrpc": "2.0", "id": 1}, "v1.invalid-message"),
]


@pytest.mark.parametrize(("message", "rule"), [r[1:] for r in BAD], ids=[r[0] for r in BAD])
def test_bad_input_becomes_a_diagnostic(message: Any, rule: str) -> None:
    out = acp.normalize_v1([{"from": "agent", "message": message}])
    assert rule in {d.rule for d in out.diagnostics}
    # What was read but not understood is kept raw, never dropped silently.
    for item in out.updates:
        assert isinstance(item.update, acp.OtherUpdate)


def test_entries_that_are_not_trace_entries_are_reported() -> None:
    out = acp.normalize_v1([42, {"from": "agent"}])  # type: ignore[list-item]
    assert [d.path for d in out.diagnostics] == ["$[0]", "$[1]"]


def test_a_batch_is_processed_in_order() -> None:
    batch = [chunk(S, "agent_message_chunk", t)["message"] for t in ("a", "b")]
    out = acp.normalize_v1([{"from": "agent", "message": batch}])
    assert [u.update.content for u in out.updates] == [acp.TextContent("a"), acp.TextContent("b")]  # type: ignore[union-attr]


_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=5),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=5), inner, max_size=3)
    ),
    max_leaves=6,
)
_kinds = st.sampled_from(
    ["agent_message_chunk", "user_message_chunk", "tool_call", "tool_call_update", "plan", "x"]
)
_messages = st.one_of(
    _json,
    st.builds(
        lambda kind, body: {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": S, "update": {**body, "sessionUpdate": kind}},
        },
        _kinds,
        st.dictionaries(
            st.sampled_from(["content", "messageId", "toolCallId", "entries", "title"]), _json
        ),
    ),
    st.builds(
        lambda i, body, method: {"jsonrpc": "2.0", "id": i, "method": method, "params": body},
        _json,
        _json,
        st.sampled_from(["session/prompt", "session/request_permission", "session/cancel"]),
    ),
    st.builds(lambda i, r: {"jsonrpc": "2.0", "id": i, "result": r}, _json, _json),
)


@given(st.lists(st.tuples(st.sampled_from(["agent", "client", None]), _messages), max_size=6))
def test_normalize_never_raises(pairs: list[tuple[str | None, Any]]) -> None:
    entries = [{"from": f, "message": m} for f, m in pairs]
    out = acp.normalize_v1(entries)
    for item in out.updates:
        acp.encode_update(item.update)  # every emitted update is a well-formed value


def _no_mutables(value: object, depth: int = 0) -> None:
    assert not isinstance(value, (list, dict, set)), value
    if attrs.has(type(value)):
        for field in attrs.fields(type(value)):
            _no_mutables(getattr(value, field.name), depth + 1)
    elif isinstance(value, immutables.Map):
        for k, v in value.items():
            _no_mutables(k, depth + 1)
            _no_mutables(v, depth + 1)
    elif isinstance(value, (tuple, acp.PVec)):
        for item in value:
            _no_mutables(item, depth + 1)


@pytest.mark.parametrize("name", ["interleaved_no_ids.jsonl", "echo.jsonl", "cancel.jsonl"])
def test_stepping_equals_normalizing_and_is_pure(name: str) -> None:
    entries = load_trace(name)
    whole = acp.normalize_v1(entries)
    assert whole == acp.normalize_v1(entries)  # deterministic
    state = acp.new_v1_state()
    updates: list[Any] = []
    for index, entry in enumerate(entries):
        before = state
        state, out = acp.normalize_v1_step(
            state, entry["message"], sender=entry["from"], index=index
        )
        again = acp.normalize_v1_step(before, entry["message"], sender=entry["from"], index=index)
        assert again == (state, out)  # the old state is still valid and gives the same step
        updates.extend(out.updates)
    assert tuple(updates) == whole.updates
    assert state == whole.state
    _no_mutables(state)
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        state.policy = acp.V1Policy()  # type: ignore[misc]


def test_sender_is_inferred_when_missing() -> None:
    entries = [prompt(S, 1, text("a")), result(1)]
    for entry in entries:
        del entry["from"]
    assert ups(entries)[-1] == acp.IdleStateUpdate("end_turn")


# -- detection -----------------------------------------------------------------------------

DETECT = [
    ("v1 chunks without ids", [chunk(S, "agent_message_chunk", "x")], True),
    ("v1 tool_call", [tool(title="x")], True),
    ("v1 prompt result", [result(1)], True),
    ("v2 state update", [update(S, {"sessionUpdate": "state_update", "state": "idle"})], False),
    (
        "negotiated v2 wins",
        [agent({"id": 0, "result": {"protocolVersion": 2}}), chunk(S, "agent_message_chunk", "x")],
        False,
    ),
    (
        "requested v1",
        [client({"id": 0, "method": "initialize", "params": {"protocolVersion": 1}})],
        True,
    ),
    (
        "v2 permission request",
        [agent({"id": 1, "method": "session/request_permission", "params": {"title": "t"}})],
        False,
    ),
    ("v1 permission request", [_permission(1, {"toolCallId": "c"})], True),
    ("nothing to go on", [], False),
]


@pytest.mark.parametrize(
    ("entries", "expected"), [r[1:] for r in DETECT], ids=[r[0] for r in DETECT]
)
def test_looks_like_v1(entries: list[Any], expected: bool) -> None:
    assert acp.looks_like_v1(entries) is expected


def test_v2_doc_examples_do_not_look_like_v1(doc_examples: list[dict[str, Any]]) -> None:
    entries = [
        {"from": "agent", "message": e["message"]}
        for e in doc_examples
        if e["message"].get("method") == "session/update"
    ]
    assert entries
    assert not acp.looks_like_v1(entries)
