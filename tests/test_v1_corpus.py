"""The v1 corpus (tests/v1_traces): traces written to reproduce what real v1 agents do, each
normalized and folded into the session view a user should see.

Every expected view is written out by hand from the trace; the diagnostics each trace must
raise are listed too, so a habit that stops being recognised fails here.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

import pytest
from v1_view import TRACES, fold_session, load_trace, view

import acp_core as acp

_EDIT = json.dumps(
    [
        {
            "type": "diff",
            "changes": [
                {"operation": "modify", "path": "/home/user/calc/calc.py", "fileType": "text"}
            ],
            "patch": {
                "format": "git_patch",
                "text": "diff --git /home/user/calc/calc.py /home/user/calc/calc.py\n"
                "--- /home/user/calc/calc.py\n+++ /home/user/calc/calc.py\n"
                "@@ -1,2 +1,2 @@\n def add(a, b):\n-    return a - b\n+    return a + b\n",
            },
            "_meta": {
                "acp.v1/diff": {
                    "oldText": "def add(a, b):\n    return a - b\n",
                    "newText": "def add(a, b):\n    return a + b\n",
                }
            },
        }
    ],
    sort_keys=True,
)


_TERMINAL = '[{"terminalId": "term_%d", "type": "terminal"}]'


def _content(*texts: str) -> str:
    return json.dumps(
        [{"type": "content", "content": {"type": "text", "text": t}} for t in texts],
        sort_keys=True,
    )


# name -> (session id, expected timeline, expected foreground, diagnostics expected (counts))
CORPUS: dict[str, tuple[str, list[Any], tuple[str, str | None], dict[str, int]]] = {
    # Claude-style: thoughts, text and tools interleaved, no message ids anywhere.
    "interleaved_no_ids.jsonl": (
        "sess_claude",
        [
            ("message", "user", "Fix the failing test in calc.py"),
            ("message", "thought", "Let me look at the test."),
            ("message", "agent", "I'll read the file first."),
            (
                "tool",
                "toolu_01",
                "Read calc.py",
                "read",
                "completed",
                _content("def add(a, b):\n    return a - b\n"),
            ),
            ("message", "thought", "The bug is in add."),
            ("message", "agent", "Found it: `add` subtracts."),
            ("plan", "main", (("Fix add", "completed"), ("Run the tests", "completed"))),
            ("tool", "toolu_02", "Edit calc.py", "edit", "completed", _EDIT),
            ("message", "agent", "Fixed."),
        ],
        ("idle", "end_turn"),
        {"v1.synthetic-message-id": 5},
    ),
    # A reply streamed as deltas and then re-sent whole with an id (also [thinking, text]).
    "delta_then_full.jsonl": (
        "sess_delta",
        [
            ("message", "user", "Say hello"),
            ("message", "agent", "Hello there!"),
            ("message", "user", "Think, then answer"),
            ("message", "thought", "Thinking..."),
            ("message", "agent", "The answer"),
            ("message", "user", "And now?"),
            ("message", "agent", "AB"),
            ("message", "agent", "Something else"),
        ],
        ("idle", "end_turn"),
        {"v1.synthetic-message-id": 4, "v1.duplicate-full-reply": 3, "v1.role-split": 1},
    ),
    # Tool updates before their tool call; a permission request for an unseen tool call.
    "update_before_create.jsonl": (
        "sess_early",
        [
            ("message", "user", "Run the tests"),
            ("tool", "call_1", "pytest", "execute", "completed", _content("3 passed")),
            ("tool", "call_2", "rm -rf build", "delete", "pending", "[]"),
            ("tool", "call_3", None, "other", "pending", "[]"),
            ("message", "agent", "All green."),
        ],
        ("idle", "end_turn"),
        {
            "v1.placeholder-tool-call": 3,
            "v1.late-tool-call": 1,
            "v1.synthetic-message-id": 1,
        },
    ),
    # Cancel: the agent keeps streaming, then answers the prompt with `cancelled`.
    "cancel.jsonl": (
        "sess_cancel",
        [
            ("message", "user", "Refactor everything"),
            ("message", "agent", "Starting"),
            ("tool", "t1", "sed -i ...", "execute", "in_progress", "[]"),
            ("message", "agent", "Stopping."),
        ],
        ("idle", "cancelled"),
        {"v1.synthetic-message-id": 2},
    ),
    # The agent echoes the live prompt as user chunks; later a genuine user chunk.
    "echo.jsonl": (
        "sess_echo",
        [
            ("message", "user", "Summarize please"),
            ("message", "agent", "Summary: short."),
            ("message", "user", "What next?"),
            ("message", "agent", "Tests."),
            ("message", "user", "(typed while you worked)"),
        ],
        ("idle", "end_turn"),
        {"v1.echo-suppressed": 4, "v1.synthetic-message-id": 3},
    ),
    # session/load replays history as id-less chunks, then a live turn.
    "load_replay.jsonl": (
        "sess_load",
        [
            ("message", "user", "Hi"),
            ("message", "agent", "Hello!"),
            ("message", "user", "Bye"),
            ("message", "agent", "See you"),
            ("message", "user", "Again"),
            ("message", "agent", "Sure"),
        ],
        ("idle", "end_turn"),
        {"v1.synthetic-message-id": 5},
    ),
    # A trace that starts in the middle of a turn.
    "mid_session.jsonl": (
        "sess_mid",
        [
            ("message", "agent", "...and that is the tail of a reply."),
            ("tool", "t9", None, "other", "completed", "[]"),
        ],
        ("idle", "end_turn"),
        {
            "v1.synthetic-message-id": 1,
            "v1.placeholder-tool-call": 1,
            "v1.unmatched-response": 1,
        },
    ),
    # Modes (removed in v2), v1 config options, usage mid-stream, real and reserved ids.
    "modes_config_usage.jsonl": (
        "sess_misc",
        [
            ("message", "user", "Switch to architect mode and plan"),
            ("message", "agent", "Planning now."),
            ("message", "agent", "odd id"),
        ],
        ("idle", "end_turn"),
        {"v1.unknown-kind": 1, "v1.escaped-id": 1},
    ),
    # The prompt fails with a JSON-RPC error.
    "prompt_error.jsonl": (
        "sess_err",
        [("message", "user", "Do the impossible"), ("message", "agent", "Trying")],
        ("idle", None),
        {"v1.synthetic-message-id": 1},
    ),
    # A codex bridge: the reply as id-less deltas, then the whole text again, also id-less
    # (thoughts too); two identical deltas ("ha", "ha") are a stutter, not a re-send.
    "codex_full_reply_no_id.jsonl": (
        "sess_codex",
        [
            ("message", "user", "Say hi"),
            ("message", "agent", "Hello!"),
            ("message", "user", "List the files"),
            ("message", "thought", "Use ls."),
            ("message", "agent", "Running ls."),
            ("tool", "exec_1", "ls", "execute", "completed", _content("README.md\nsrc\n")),
            ("message", "agent", "Two entries."),
            ("message", "user", "Laugh"),
            ("message", "agent", "haha"),
        ],
        ("idle", "end_turn"),
        {"v1.duplicate-full-reply": 4, "v1.synthetic-message-id": 5, "v1.invalid-message": 0},
    ),
    # A Cursor adapter: a heartbeat thought (or a plan) first, then the prompt's echo.
    "cursor_echo_after_thought.jsonl": (
        "sess_cursor",
        [
            ("message", "user", "Rename foo to bar"),
            ("message", "thought", "Thinking about the rename."),
            ("tool", "edit_1", "Edit util.py", "edit", "completed", "[]"),
            ("message", "agent", "Renamed."),
            ("message", "user", "Now run the tests"),
            ("message", "thought", "Thinking"),
            ("plan", "main", (("Run pytest", "in_progress"),)),
            ("message", "agent", "All pass."),
        ],
        ("idle", "end_turn"),
        {"v1.echo-suppressed": 3, "v1.synthetic-message-id": 4},
    ),
    # The handshake and a session/new whose result names the session (and v1 modes).
    "session_new.jsonl": (
        "sess_new",
        [("message", "user", "Hi"), ("message", "agent", "Hello.")],
        ("idle", "end_turn"),
        {"v1.invalid-message": 0, "v1.synthetic-message-id": 1},
    ),
    # Elicitations answered (accept, decline), and one with no session to show it in.
    "elicitation.jsonl": (
        "sess_elicit",
        [
            ("message", "user", "Deploy it"),
            ("message", "agent", "Which environment?"),
            ("message", "agent", "Deploying to staging."),
            ("message", "agent", " Done."),
        ],
        ("idle", "end_turn"),
        {"v1.unanswerable-elicitation": 1, "v1.synthetic-message-id": 3},
    ),
    # Client-owned terminals: created, waited on, read, released (one never waited on).
    "terminals.jsonl": (
        "sess_term",
        [
            ("message", "user", "Run the tests, then start the server"),
            ("tool", "run_1", "pytest -q", "execute", "completed", _TERMINAL % 1),
            ("tool", "run_2", "python -m http.server", "execute", "completed", _TERMINAL % 2),
            ("message", "agent", "Tests pass; the server ran."),
        ],
        ("idle", "end_turn"),
        {"v1.terminal-reference": 2, "v1.terminal-released": 1, "v1.invalid-message": 0},
    ),
    # A terminal tool call ends `failed` and the agent never asks for the exit status: the
    # terminal must not stay `running` in the view (issue 25, seen from a real v1 adapter).
    "terminal_tool_failed.jsonl": (
        "sess_fail",
        [
            ("message", "user", "Build it"),
            ("tool", "make_1", "make", "execute", "failed", _TERMINAL % 9),
            ("message", "agent", "The build failed."),
        ],
        ("idle", "end_turn"),
        {"v1.terminal-ended-with-tool": 1, "v1.terminal-released": 0, "v1.invalid-message": 0},
    ),
    # The trace ends while a permission request and an elicitation wait for the user.
    "pending_requests.jsonl": (
        "sess_wait",
        [
            ("message", "user", "Clean up"),
            ("message", "agent", "I need to delete build/."),
            ("tool", "rm_1", "rm -rf build", "delete", "pending", "[]"),
        ],
        ("requires_action", None),
        {"v1.placeholder-tool-call": 1, "v1.invalid-message": 0},
    ),
}


def test_the_corpus_is_complete() -> None:
    assert sorted(p.name for p in TRACES.glob("*.jsonl")) == sorted(CORPUS)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_trace_normalizes_to_the_expected_view(name: str) -> None:
    session_id, timeline, foreground, diagnostics = CORPUS[name]
    entries = load_trace(name)
    out = acp.normalize_v1(entries)
    assert out.session_ids == (session_id,)
    got = view(fold_session(out.updates_for(session_id), session_id))
    assert got["timeline"] == timeline
    assert got["foreground"] == foreground
    counts = Counter(d.rule for d in out.diagnostics)
    for rule, n in diagnostics.items():
        assert counts[rule] == n, (rule, counts)
    assert acp.looks_like_v1(entries)


@pytest.mark.parametrize("name", sorted(CORPUS))
def test_corpus_updates_are_valid_v2(name: str, spec_schema: dict[str, Any]) -> None:
    jsonschema = pytest.importorskip("jsonschema")
    out = acp.normalize_v1(load_trace(name))
    validator = jsonschema.Draft202012Validator(
        {"$ref": "#/$defs/SessionUpdate", "$defs": spec_schema["$defs"]}
    )
    for item in out.updates:
        wire = acp.encode_update(item.update)
        if wire["sessionUpdate"] == "current_mode_update":
            continue  # a removed v1 kind kept raw on purpose (v1.unknown-kind)
        errors = list(validator.iter_errors(wire))
        assert not errors, (wire, errors[0].message)


def test_a_terminal_ends_with_its_tool_call_when_no_exit_is_seen() -> None:
    out = acp.normalize_v1(load_trace("terminal_tool_failed.jsonl"))
    state = fold_session(out.updates_for("sess_fail"), "sess_fail")
    terminal = state.terminals["term_9"]
    assert terminal.exit_status is not None  # shown exited (no code), not running forever
    # A terminal whose exit the client reported keeps that exit (terminals.jsonl).
    released = fold_session(
        acp.normalize_v1(load_trace("terminals.jsonl")).updates_for("sess_term"), "sess_term"
    )
    assert all(t.exit_status is not None for t in released.terminals.values())


def test_cancel_trace_events() -> None:
    out = acp.normalize_v1(load_trace("cancel.jsonl"))
    kinds = [type(e.event).__name__ for e in out.events]
    assert kinds == ["RequestPermissionRequest", "CancelSessionNotification"]
    permission = out.events[0].event
    assert isinstance(permission, acp.RequestPermissionRequest)
    assert permission.title == "Permission requested"  # the v1 toolCall carried no title
    foreground = [
        type(u.update).__name__
        for u in out.updates
        if isinstance(
            u.update, (acp.RunningStateUpdate, acp.RequiresActionStateUpdate, acp.IdleStateUpdate)
        )
    ]
    assert foreground == [
        "RunningStateUpdate",
        "RequiresActionStateUpdate",
        "RunningStateUpdate",
        "IdleStateUpdate",
    ]


def test_prompt_error_trace_surfaces_the_error() -> None:
    out = acp.normalize_v1(load_trace("prompt_error.jsonl"))
    (event,) = out.events
    assert event.session_id == "sess_err"
    assert event.event == acp.PromptError("req-1", acp.RpcError(-32603, "model overloaded"))
    assert out.updates[-1].update == acp.IdleStateUpdate()


def test_modes_config_usage_trace_keeps_what_v2_has_no_place_for() -> None:
    out = acp.normalize_v1(load_trace("modes_config_usage.jsonl"))
    state = fold_session(out.updates_for("sess_misc"), "sess_misc")
    assert [u.session_update for u in state.unknown] == ["current_mode_update"]
    (option,) = state.config_options or ()
    assert isinstance(option, acp.SessionConfigSelect)
    assert option.config_id == "model"
    assert [g.group_id for g in option.options] == ["hosted"]  # type: ignore[union-attr]
    assert state.usage is not None
    assert (state.usage.used, state.usage.size) == (1200, 200000)
    assert state.info.title == "Architecture plan"
    assert set(state.messages) == {"v1:prompt:1", "m1", "v1:id:v1:agent:1"}


def test_interleaved_trace_converts_commands_and_the_permission_request() -> None:
    out = acp.normalize_v1(load_trace("interleaved_no_ids.jsonl"))
    state = fold_session(out.updates_for("sess_claude"), "sess_claude")
    (command,) = state.available_commands or ()
    assert command.input == acp.TextCommandInput("what to focus on")
    (event,) = out.events
    assert isinstance(event.event, acp.RequestPermissionRequest)
    assert event.event.title == "Edit calc.py"
    assert event.event.subject == acp.ToolCallPermissionSubject(
        acp.ToolCallUpdate("toolu_02", title="Edit calc.py")
    )


def test_views_come_from_the_prompt_not_an_invented_message() -> None:
    # The user message of a live turn is the prompt request itself, under a prefixed id.
    out = acp.normalize_v1(load_trace("delta_then_full.jsonl"))
    users = [u.update for u in out.updates if isinstance(u.update, acp.UserMessage)]
    assert [u.message_id for u in users] == ["v1:prompt:1", "v1:prompt:2", "v1:prompt:3"]


def test_session_new_opens_the_session_its_result_names() -> None:
    entries = load_trace("session_new.jsonl")
    state, _ = acp.normalize_v1_step(acp.new_v1_state(), entries[2]["message"], sender="client")
    state, out = acp.normalize_v1_step(state, entries[3]["message"], sender="agent", index=3)
    assert out == acp.V1Output()
    assert list(state.sessions) == ["sess_new"]  # known before its first update
    bad = {"jsonrpc": "2.0", "id": 1, "result": {"modes": None}}
    _, out = acp.normalize_v1_step(
        acp.normalize_v1_step(acp.new_v1_state(), entries[2]["message"])[0], bad, index=3
    )
    assert [d.message for d in out.diagnostics] == ["session/new result without a sessionId"]


def test_elicitations_are_request_answer_pairs_that_block_the_turn() -> None:
    out = acp.normalize_v1(load_trace("elicitation.jsonl"))
    events = [(e.index, e.event) for e in out.events]
    schema = {
        "type": "object",
        "properties": {"env": {"type": "string", "enum": ["staging", "production"]}},
        "required": ["env"],
    }
    assert events == [
        (
            6,
            acp.V1Elicitation(
                10,
                "Choose the target environment",
                acp.freeze_json(
                    {
                        "sessionId": "sess_elicit",
                        "message": "Choose the target environment",
                        "requestedSchema": schema,
                    }
                ),  # type: ignore[arg-type]
            ),
        ),
        (
            7,
            acp.V1ElicitationAnswer(
                10, "accept", acp.freeze_json({"action": "accept", "content": {"env": "staging"}})
            ),
        ),
        (11, acp.V1Elicitation(12, "Tag the release?", events[2][1].params)),  # type: ignore[union-attr]
        (12, acp.V1ElicitationAnswer(12, "decline", acp.freeze_json({"action": "decline"}))),
    ]
    foreground = [
        (u.index, type(u.update).__name__)
        for u in out.updates
        if isinstance(
            u.update, (acp.RunningStateUpdate, acp.RequiresActionStateUpdate, acp.IdleStateUpdate)
        )
    ]
    assert foreground == [
        (4, "RunningStateUpdate"),
        (6, "RequiresActionStateUpdate"),
        (7, "RunningStateUpdate"),
        (11, "RequiresActionStateUpdate"),
        (12, "RunningStateUpdate"),
        (14, "IdleStateUpdate"),
    ]
    (unanswerable,) = [d for d in out.diagnostics if d.rule == "v1.unanswerable-elicitation"]
    assert unanswerable.path == "$[9].message.params"


def test_v1_terminals_show_what_the_client_answered() -> None:
    out = acp.normalize_v1(load_trace("terminals.jsonl"))
    state = fold_session(out.updates_for("sess_term"), "sess_term")
    one, two = state.terminals["term_1"], state.terminals["term_2"]
    assert (one.command, one.cwd, acp.terminal_bytes(one)) == (
        "pytest -q",
        "/home/user/app",
        b"3 passed\n",
    )
    assert one.exit_status == acp.TerminalExitStatus(exit_code=0)  # waited on
    assert two.command == "python -m http.server"
    assert acp.terminal_bytes(two) == b"Serving HTTP on 0.0.0.0 port 8000\n"
    assert two.exit_status == acp.TerminalExitStatus()  # released, no exit code seen
    (released,) = [d for d in out.diagnostics if d.rule == "v1.terminal-released"]
    assert released.path == "$[21].message"
    assert "running" not in acp.render_session(state)


def test_requests_still_waiting_at_the_end_are_in_the_state() -> None:
    out = acp.normalize_v1(load_trace("pending_requests.jsonl"))
    waiting = {
        p.kind: (p.request_id, p.label) for p in out.state.requests.values() if p.kind != "prompt"
    }
    assert waiting == {
        "permission": (30, "rm -rf build"),
        "elicitation": (31, "Also delete dist/?"),
    }
