"""More rows of the Preview checker's trace table (tests/preview_traces.py appends them):
R49, R50, R54, R72, R73, R80. Same shape: `(rule, good, bad, index)`."""

from __future__ import annotations

from trace_builders import (
    BG_T1,
    CAN,
    NEW,
    Entry,
    K,
    P,
    announce,
    cancel,
    chunk,
    prompt,
    request,
    result,
    state,
    tool,
    upd,
    withdraw,
)

G = "sess_grandchild"
BG_K = [{"type": "subagent", "sessionId": K}]
TEXT = {"type": "text", "text": "x"}


def elicit(rid: object, sid: str = P, tool_call: str | None = "t1") -> Entry:
    params: dict[str, object] = {"sessionId": sid, "mode": "form", "message": "Which?"}
    params["requestedSchema"] = {"type": "object", "properties": {}}
    if tool_call is not None:
        params["toolCallId"] = tool_call
    return request("agent", rid, "elicitation/create", **params)


def with_elicitation(*middle: Entry, final: str = "cancelled") -> list[Entry]:
    # A turn whose tool call asks the user (elicitation tied to it); the client cancels, the
    # tool call ends, then `middle`, then the cancelled work ends.
    return [
        prompt(1),
        upd(P, "user_message", messageId="u1", content=[TEXT]),
        result("agent", 1, {"messageId": "u1"}),
        state(P, "running"),
        tool(P, title="ask", status="in_progress"),
        elicit(7),
        cancel(P),
        tool(P, status=final),
        *middle,
        state(P, "idle", stopReason="cancelled"),
    ]


def item_cancelled(*middle: Entry) -> list[Entry]:
    # The client cancels the asking tool call (not the session); `middle`; the turn ends.
    return [
        prompt(1),
        upd(P, "user_message", messageId="u1", content=[TEXT]),
        result("agent", 1, {"messageId": "u1"}),
        state(P, "running"),
        tool(P, title="ask", status="in_progress", capabilities=CAN),
        elicit(7),
        request("client", 9, "tool_call/cancel", sessionId=P, toolCallId="t1"),
        result("agent", 9),
        tool(P, status="cancelled", capabilities=None),
        *middle,
        upd(P, "agent_message", messageId="a1", content=[TEXT]),
        state(P, "idle"),
    ]


def background_tool(*middle: Entry) -> list[Entry]:
    # A listed background tool call, a session/cancel, `middle`, the end of the foreground.
    return [
        tool(P, title="watch", status="in_progress", capabilities=CAN),
        state(P, "running", background=BG_T1),
        cancel(P),
        *middle,
        state(P, "idle", stopReason="cancelled", background=[]),
    ]


def background_child(*middle: Entry) -> list[Entry]:
    return [
        announce(P, K, capabilities=CAN),
        state(K, "running"),
        state(P, "running", background=BG_K),
        cancel(P),
        *middle,
        state(K, "idle", stopReason="cancelled"),
        state(P, "idle", stopReason="cancelled", background=[]),
    ]


CASES_B: list[tuple[str, list[Entry], list[Entry], int]] = [
    (
        "R49",
        [announce(P, K), announce(K, G), announce(K, G, title="t")],
        [announce(P, K), announce(K, G), announce(P, G, title="t")],
        2,
    ),
    (
        "R50",
        [*NEW, announce(P, K), state(K, "running"), chunk(K), state(K, "idle")],
        [*NEW, announce(P, K), chunk(K), state(K, "idle")],
        4,
    ),
    (
        "R50",  # a grandchild of a fresh session is fresh too
        [*NEW, announce(P, K), announce(K, G), state(G, "running"), chunk(G), state(G, "idle")],
        [*NEW, announce(P, K), announce(K, G), chunk(G, kind="agent_thought_chunk"), state(G)],
        5,
    ),
    (
        "R54",
        [announce(P, K), upd(K, "session_message_chunk", messageId="m", content=TEXT)],
        [
            announce(P, K),
            upd(K, "session_message_chunk", messageId="m", content=TEXT, senderSessionId=P),
        ],
        1,
    ),
    (
        "R72",
        with_elicitation(withdraw(7), result("client", 7, {"action": "cancel"})),
        with_elicitation(),
        8,
    ),
    (
        "R72",
        with_elicitation(result("client", 7, {"action": "cancel"}), final="completed"),
        with_elicitation(final="completed"),
        8,
    ),
    (
        "R72",  # a tool_call/cancel makes the tool call's elicitation one of cancelled work
        item_cancelled(withdraw(7), result("client", 7, {"action": "cancel"})),
        item_cancelled(),
        10,
    ),
    (
        "R73",
        background_tool(
            request("client", 9, "tool_call/cancel", sessionId=P, toolCallId="t1"),
            result("agent", 9),
            tool(P, status="cancelled"),
        ),
        background_tool(tool(P, status="cancelled")),
        3,
    ),
    (
        "R73",
        background_tool(tool(P, status="completed")),
        background_tool(chunk(P), tool(P, status="cancelled")),
        4,
    ),
    ("R73", background_child(cancel(K)), background_child(), 4),
    (
        "R73",  # the listed child ends after its parent: judged until its own next state
        [
            *background_child(cancel(K))[:4],
            state(P, "idle", stopReason="cancelled", background=BG_K),
            cancel(K),
            state(K, "idle", stopReason="cancelled"),
        ],
        [
            *background_child()[:4],
            state(P, "idle", stopReason="cancelled", background=BG_K),
            state(K, "idle", stopReason="cancelled"),
        ],
        5,
    ),
    (
        "R80",
        [
            upd(P, "compaction_update", compactionId="c"),
            upd(P, "compaction_update", compactionId="c", status="completed"),
        ],
        [upd(P, "compaction_update", status="completed")],
        0,
    ),
]
