"""`render_session`: what `demo` and `replay` print for every part of a session (pure)."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import acp_core as acp
from acp_core import strategies as acps


def _state(*updates: dict[str, Any]) -> acp.SessionState:
    return acp.fold(acp.new_session("s1"), [acp.decode_update(u) for u in updates])


def test_a_new_session_says_nothing_was_reported() -> None:
    assert acp.render_session(acp.new_session("s1")) == (
        "Session s1\n  foreground: idle\n\nTranscript\n  (nothing reported yet)"
    )


def test_every_part_of_a_session_is_rendered() -> None:
    state = _state(
        {"sessionUpdate": "state_update", "state": "running"},
        {
            "sessionUpdate": "user_message",
            "messageId": "u1",
            "content": [
                {"type": "text", "text": "Look at "},
                {"type": "text", "text": "this:"},
                {"type": "image", "data": "AAAA", "mimeType": "image/png"},
                {"type": "resource_link", "name": "spec", "uri": "file:///spec.md"},
            ],
        },
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": "a1",
            "content": {"type": "text", "text": "Two\nlines"},
        },
        {
            "sessionUpdate": "tool_call_update",
            "toolCallId": "t1",
            "title": "Edit main.py",
            "kind": "edit",
            "status": "failed",
            "locations": [{"path": "/p/main.py", "line": 3}, {"path": "/p/b.py"}],
            "content": [
                {
                    "type": "diff",
                    "changes": [{"operation": "modify", "path": "/p/main.py"}],
                    "patch": {"format": "unified", "text": "-a\n+b\n"},
                },
                {"type": "_custom", "x": 1},
            ],
        },
        {
            "sessionUpdate": "tool_call_content_chunk",
            "toolCallId": "t9",
            "content": {"type": "content", "content": {"type": "text", "text": "orphan"}},
        },
        {
            "sessionUpdate": "plan_update",
            "plan": {
                "type": "items",
                "planId": "p1",
                "entries": [
                    {"content": "a", "priority": "high", "status": "pending"},
                    {"content": "b", "priority": "low", "status": "_blocked"},
                ],
            },
        },
        {"sessionUpdate": "plan_update", "plan": {"type": "_outline", "planId": "p2"}},
        {
            "sessionUpdate": "terminal_update",
            "terminalId": "k1",
            "command": "sleep 9",
            "exitStatus": {"signal": "SIGKILL"},
        },
        {"sessionUpdate": "terminal_update", "terminalId": "k2"},
        {"sessionUpdate": "usage_update", "used": 10, "size": 0},
        {
            "sessionUpdate": "available_commands_update",
            "availableCommands": [{"name": "web", "description": "Search the web"}],
        },
        {
            "sessionUpdate": "config_option_update",
            "configOptions": [
                {
                    "type": "select",
                    "configId": "mode",
                    "name": "Mode",
                    "currentValue": "ask",
                    "options": [{"value": "ask", "name": "Ask"}, {"value": "code", "name": "Code"}],
                },
                {"type": "boolean", "configId": "fast", "name": "Fast", "currentValue": True},
            ],
        },
        {"sessionUpdate": "_future_thing", "x": 1},
        {"sessionUpdate": "state_update", "state": "_paused"},
    )
    assert acp.render_session(state, pending=["Allow? (request 3)"]) == "\n".join(
        [
            "Session s1",
            "  foreground: _paused (unknown state, treated as busy)",
            "  usage: 10 of 0 tokens",  # no share of an empty window (Q28)
            "  awaiting permission: Allow? (request 3)",
            "",
            "Transcript",
            "  user (u1):",
            "    Look at this:",  # adjacent text blocks read as one (Q23)
            "    [image image/png]",
            "    [link spec <file:///spec.md>]",
            "  agent (a1):",
            "    Two",
            "    lines",
            "  tool call t1 'Edit main.py' [edit]: failed",
            "    at /p/main.py:3",
            "    at /p/b.py",
            "    diff: modify /p/main.py",
            "    -a",
            "    +b",
            "    [_custom: unknown tool content type, kept as sent]",
            "  tool call t9 (untitled) [other]: pending",
            "    orphan",
            "  plan p1:",
            "    [ ] a (high)",
            "    [?] b (low, _blocked)",
            "  plan p2: _outline (unknown plan type, kept as sent)",
            "",
            "Terminals",
            "  k1: $ sleep 9  killed by SIGKILL",
            "  k2: running",
            "",
            "Commands",
            "  /web: Search the web",
            "",
            "Config",
            "  mode = ask (of ask, code)",
            "  fast = true",
            "",
            "Unknown updates (kept as sent)",
            "  _future_thing",
            "",
            "Diagnostics",
            "  reduce.chunk-for-unknown-tool-call @ toolCall t9: content chunk for unseen tool "
            "call 't9': created with defaults",
        ]
    )


def test_foreground_usage_and_terminal_output() -> None:
    state = _state(
        {"sessionUpdate": "state_update", "state": "requires_action"},
        {
            "sessionUpdate": "usage_update",
            "used": 1500,
            "size": 6000,
            "cost": {"amount": 0.25, "currency": "EUR"},
        },
        {"sessionUpdate": "session_info_update", "title": "Fix", "updatedAt": "2026-01-02"},
        {"sessionUpdate": "terminal_update", "terminalId": "k", "cwd": "/w"},
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "k", "data": "b2sKZG9u"},
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "k", "data": "ZQo="},
        {"sessionUpdate": "terminal_update", "terminalId": "k", "exitStatus": {"exitCode": 1}},
    )
    lines = acp.render_session(state).split("\n")
    assert lines[:5] == [
        "Session s1",
        "  foreground: requires_action (waiting for the user)",
        "  title: Fix",
        "  updated at: 2026-01-02",
        "  usage: 1,500 of 6,000 tokens (25.0%), cost 0.25 EUR",
    ]
    assert lines[-3:] == ["  k: (cwd /w)  exited 1", "    | ok", "    | done"]


def test_an_idle_session_shows_its_stop_reason_and_embedded_resources() -> None:
    state = _state(
        {
            "sessionUpdate": "user_message",
            "messageId": "u1",
            "content": [
                {"type": "resource", "resource": {"uri": "file:///a.txt", "text": "hello"}},
                {"type": "resource", "resource": {"uri": "file:///b.bin", "blob": "AA=="}},
                {"type": "_sticker", "id": 7},
            ],
        },
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": "refusal"},
    )
    assert acp.render_session(state).split("\n")[1] == "  foreground: idle (stop reason: refusal)"
    assert acp.render_session(state).split("\n")[-5:] == [
        "  user (u1):",
        "    [resource <file:///a.txt>]",
        "    hello",
        "    [resource <file:///b.bin> (binary)]",
        "    [_sticker: unknown content type, kept as sent]",
    ]


def test_a_markdown_plan_is_rendered_as_its_text() -> None:
    from acp_core.values import PlanMarkdown, PlanUpdate

    plan = PlanMarkdown("p1", "# The plan\n\n- read\n- write\n", path="/w/plan.md")
    state = acp.reduce(acp.new_session("s1"), PlanUpdate(plan))
    lines = acp.render_session(state).split("\n")
    start = lines.index("  plan p1 (/w/plan.md):")
    assert lines[start + 1 : start + 5] == ["    # The plan", "", "    - read", "    - write"]


@pytest.mark.parametrize("revision", list(acp.REVISIONS.values()), ids=lambda r: r.name)
@settings(suppress_health_check=[HealthCheck.too_slow], deadline=None)
@given(data=st.data())
def test_render_session_is_total_over_any_drawn_updates(
    revision: acp.Revision, data: st.DataObject
) -> None:
    # Every variant the strategies draw at the revision, reduced into one session: the
    # transcript renders (a Markdown plan once raised AttributeError here).
    updates = data.draw(st.lists(acps.session_updates(revision=revision), max_size=6))
    state = acp.fold(acp.new_session("s1"), updates, revision=revision)
    assert isinstance(acp.render_session(state), str)


def test_every_tool_content_type_renders_as_one_line_of_its_own() -> None:
    # The renderer's table of tool content types, the Preview's session reference included
    # (it raised AssertionError before: the strategies did not draw one until 2026-12-07).
    from acp_core._cli._render import render_tool_content
    from acp_core.values import (
        OtherToolCallContent,
        SessionReference,
        TerminalRef,
        TextContent,
        ToolContent,
    )

    rows = [
        (ToolContent(TextContent("hi")), "hi"),
        (TerminalRef("t1"), "[terminal t1]"),
        (SessionReference("child-1"), "[session child-1]"),
        (
            OtherToolCallContent(acp.freeze_json({"type": "_x"})),
            "[_x: unknown tool content type, kept as sent]",
        ),
    ]
    for item, text in rows:
        assert render_tool_content(item) == text
