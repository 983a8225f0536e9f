"""The trace table of the 2026-11 / Preview checker rules: per rule a good and a bad trace.

`CASES` rows are `(rule, good, bad, index)`: judged on the side the rule binds, `good`
breaks nothing and `bad` breaks exactly `rule`, at line `index`. tests/test_check_preview.py
runs them; tests/test_check.py counts their rules as covered by the corpus.
"""

from __future__ import annotations

from trace_builders import (
    BG_T1,
    CAN,
    CANCELLED,
    MARK,
    NEW,
    Entry,
    K,
    P,
    Q,
    announce,
    cancel,
    chunk,
    error,
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


def _with_permission(*middle: Entry) -> list[Entry]:
    # A turn blocked on a permission request, cancelled by the client.
    return [
        prompt(1),
        upd(P, "user_message", messageId="u1", content=[{"type": "text", "text": "hi"}]),
        result("agent", 1, {"messageId": "u1"}),
        state(P, "running"),
        state(P, "requires_action"),
        permission(7),
        cancel(P),
        *middle,
        state(P, "idle", stopReason="cancelled"),
    ]


def _replayed_user(mid: str) -> list[Entry]:
    # A prompt answered with `u1`, then a resume whose replay shows the user message as `mid`.
    user = [{"type": "text", "text": "hi"}]
    return [
        prompt(1),
        upd(P, "user_message", messageId="u1", content=user),
        result("agent", 1, {"messageId": "u1"}),
        state(P, "running"),
        state(P, "idle"),
        resume(3),
        upd(P, "user_message", messageId=mid, content=user),
        MARK,
        state(P),
        result("agent", 3),
    ]


CASES: list[tuple[str, list[Entry], list[Entry], int]] = [
    ("R64", _replayed_user("u1"), _replayed_user("u9"), 9),
    ("R47", [announce(P, K), chunk(K)], [chunk(K), announce(P, K)], 0),
    (
        "R47",
        [announce(P, K), upd(P, "session_message", messageId="o1", recipientSessionId=K)],
        [upd(P, "session_message", messageId="o1", recipientSessionId=K), announce(P, K)],
        0,
    ),
    ("R48", [announce(P, K), announce(P, K, title="t")], [announce(P, K), announce(Q, K)], 1),
    ("R48", [announce(P, K)], [announce(P, K), announce(K, P)], 1),
    ("R52", [announce(P, K, cwd="/abs")], [announce(P, K, cwd="rel")], 0),
    (
        "R53",
        [announce(P, K), prompt(5, K), error(5)],
        [announce(P, K), prompt(5, K), result("agent", 5, {"messageId": "m"})],
        2,
    ),
    (
        "R56",
        [announce(P, K), tool(P, title="spawn", content=[{"type": "session", "sessionId": K}])],
        [tool(P, title="spawn", content=[{"type": "session", "sessionId": K}]), announce(P, K)],
        0,
    ),
    (
        "R57",
        [resume(3), MARK, state(P), result("agent", 3)],
        [resume(3), state(P), result("agent", 3)],
        2,
    ),
    (
        "R57",
        [resume(3), MARK, state(P), result("agent", 3)],
        [resume(3), MARK, MARK, state(P), result("agent", 3)],
        2,
    ),
    (
        "R58",
        [resume(3), MARK, state(P), result("agent", 3)],
        [resume(3, cursor=False), MARK, state(P), result("agent", 3)],
        1,
    ),
    (
        "R60",
        [resume(3), announce(P, K), upd(K, "replay_complete"), MARK, state(P), result("agent", 3)],
        [resume(3), announce(P, K), MARK, state(P), result("agent", 3)],
        4,
    ),
    (
        "R62",
        [resume(3, cursor=False), state(P), result("agent", 3)],
        [resume(3, cursor=False), result("agent", 3)],
        1,
    ),
    (
        "R63",
        [
            resume(3),
            upd(P, "agent_message", messageId="m2", content=[]),
            chunk(P, "m2"),
            MARK,
            state(P),
            result("agent", 3),
        ],
        [resume(3), chunk(P, "m2"), MARK, state(P), result("agent", 3)],
        1,
    ),
    (
        "R65",
        [resume(3), MARK, upd(P, "notice", severity="info", title="n")],
        [resume(3), upd(P, "notice", severity="info", title="n"), MARK],
        1,
    ),
    (
        "R66",
        [
            resume(3),
            announce(P, K),
            upd(K, "replay_complete"),
            upd(K, "config_option_update", configOptions=[]),
        ],
        [
            resume(3),
            announce(P, K),
            upd(K, "config_option_update", configOptions=[]),
            upd(K, "replay_complete"),
        ],
        2,
    ),
    (
        "R67",
        [
            prompt(1, key="k1"),
            result("agent", 1, {"messageId": "m1"}),
            prompt(2, key="k1"),
            result("agent", 2, {"messageId": "m1"}),
        ],
        [
            prompt(1, key="k1"),
            result("agent", 1, {"messageId": "m1"}),
            prompt(2, key="k1"),
            result("agent", 2, {"messageId": "m2"}),
        ],
        3,
    ),
    ("R71", _with_permission(withdraw(7), result("client", 7, CANCELLED)), _with_permission(), 7),
    (
        "R74",
        [
            tool(P, title="w", status="in_progress"),
            state(P, "running", background=BG_T1),
            tool(P, status="completed"),
            state(P, "running", background=[]),
        ],
        [
            tool(P, title="w", status="in_progress"),
            state(P, "running", background=BG_T1),
            state(P, "running", background=[]),
        ],
        2,
    ),
    (
        "R74",
        [state(P, "running", background=[]), state(P, "running", background=[])],
        [state(P, "running", background=[]), state(P, "running")],
        1,
    ),
    (
        "R74",
        [tool(P, title="w"), state(P, "running", background=BG_T1)],
        [state(P, "running", background=BG_T1)],
        0,
    ),
    (
        "R19",
        [state(P, "running", background=[{"type": "_x.job", "id": "j"}])],
        [state(P, "running", background=[{"type": "job", "id": "j"}])],
        0,
    ),
    (
        "R75",
        [
            tool(P, title="w", capabilities=CAN),
            request("client", 9, "tool_call/cancel", sessionId=P, toolCallId="t1"),
            result("agent", 9),
            tool(P, status="cancelled"),
        ],
        [
            tool(P, title="w"),
            request("client", 9, "tool_call/cancel", sessionId=P, toolCallId="t1"),
            result("agent", 9),
        ],
        2,
    ),
    (
        "R76",
        [
            announce(P, K),
            request("client", 4, "session/close", sessionId=P),
            chunk(K),
            result("agent", 4),
        ],
        [
            announce(P, K),
            request("client", 4, "session/close", sessionId=P),
            result("agent", 4),
            chunk(K),
        ],
        3,
    ),
    (
        "R78",
        [
            upd(
                P,
                "plan_update",
                plan={"type": "markdown", "planId": "p", "content": "#", "path": "/abs/PLAN.md"},
            )
        ],
        [
            upd(
                P,
                "plan_update",
                plan={"type": "markdown", "planId": "p", "content": "#", "path": "PLAN.md"},
            )
        ],
        0,
    ),
    (
        "R79",
        [
            request(
                "client",
                0,
                "initialize",
                protocolVersion=2,
                clientCapabilities={"session": {"promptSuggestions": {}}},
            ),
            *NEW,
            upd(
                P,
                "prompt_suggestions_update",
                suggestions=[{"prompt": [{"type": "text", "text": "go"}]}],
            ),
        ],
        [
            request("client", 0, "initialize", protocolVersion=2, clientCapabilities={}),
            *NEW,
            upd(
                P,
                "prompt_suggestions_update",
                suggestions=[{"prompt": [{"type": "text", "text": "go"}]}],
            ),
        ],
        3,
    ),
    (
        "R79",
        [
            upd(
                P,
                "prompt_suggestions_update",
                suggestions=[{"prompt": [{"type": "text", "text": "go"}]}],
            )
        ],
        [
            upd(
                P,
                "prompt_suggestions_update",
                suggestions=[{"prompt": [{"type": "text", "text": "  "}]}],
            )
        ],
        0,
    ),
    (
        "R81",
        [tool(P, title="w", name="grep"), tool(P, name="grep")],
        [tool(P, title="w", name="grep"), tool(P, name="find")],
        1,
    ),
    ("C29", [announce(P, K, capabilities=CAN), cancel(K)], [announce(P, K), cancel(K)], 1),
    (
        "C29",
        [announce(P, K, capabilities=CAN), cancel(K)],
        [announce(P, K, capabilities=CAN), announce(P, K, capabilities=None), cancel(K)],
        2,
    ),
    ("C34", [announce(P, K), prompt(5, P)], [announce(P, K), prompt(5, K)], 1),
    (
        "C34",
        [announce(P, K), request("client", 5, "session/close", sessionId=P)],
        [announce(P, K), request("client", 5, "session/close", sessionId=K)],
        1,
    ),
    (
        "C40",
        _with_permission(withdraw(7), result("client", 7, CANCELLED)),
        _with_permission(withdraw(7)),
        7,
    ),
    (
        "C41",
        [
            tool(P, title="w", capabilities=CAN),
            request("client", 9, "tool_call/cancel", sessionId=P, toolCallId="t1"),
        ],
        [
            tool(P, title="w"),
            request("client", 9, "tool_call/cancel", sessionId=P, toolCallId="t1"),
        ],
        1,
    ),
    (
        "C41",
        [
            upd(P, "terminal_update", terminalId="x", capabilities=CAN),
            request("client", 9, "terminal/cancel", sessionId=P, terminalId="x"),
        ],
        [
            upd(P, "terminal_update", terminalId="x"),
            request("client", 9, "terminal/cancel", sessionId=P, terminalId="x"),
        ],
        1,
    ),
    (
        "C43",
        [prompt(1, key="k1"), prompt(2, key="k1")],
        [prompt(1, key="k1"), prompt(2, text="other", key="k1")],
        1,
    ),
]

# The rows of R49, R50, R54, R72, R73 and R80 (checks-b) live beside this table.
from preview_traces_b import CASES_B  # noqa: E402

CASES.extend(CASES_B)

# The prompt rules (R59, R61, R68, R70) have their own table.
from preview_prompt_traces import CASES as _PROMPT_CASES  # noqa: E402

CASES += _PROMPT_CASES

# R48 of a top-level session announced as a child (the trace sets `Q` up with its own
# `session/new`): the checker's `announce_finding` with the sessions the connection set up.
_NEW_Q = (
    request("client", 9, "session/new", cwd="/w"),
    result("agent", 9, {"sessionId": Q}),
)
CASES.append(("R48", [*_NEW_Q, announce(P, K)], [*_NEW_Q, announce(P, Q)], 2))
