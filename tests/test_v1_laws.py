"""Law: a v1 trace produced from a v2 trace normalizes back to the same session view.

A test-only down-converter (digest 6.3) turns a generated v2 trace into the v1 traffic an
agent of today would have sent for it, in one of several styles: message ids kept, ids
dropped (boundaries must then be inferred), a reply streamed as id-less deltas and re-sent
whole, the prompt echoed back as user chunks, tool updates sent before their tool call. The
normalized v1 trace, folded, must show the same transcript and foreground as the v2 trace.
"""

from __future__ import annotations

from typing import Any

from hypothesis import given
from hypothesis import strategies as st
from v1_view import fold_session, view

import acp_core as acp

S = "sess"
_WORDS = st.sampled_from(["a", "b ", "hello", "  ", "x\n", "ünï"])
_TOOL_STATUS = st.sampled_from(["pending", "in_progress", "completed", "failed"])
_PLAN_STATUS = st.sampled_from(["pending", "in_progress", "completed"])
_SEGMENT = st.one_of(
    st.tuples(
        st.just("msg"),
        st.sampled_from(["agent", "thought"]),
        st.lists(_WORDS, min_size=1, max_size=4),
    ),
    st.tuples(st.just("tool"), st.integers(0, 2), _TOOL_STATUS, st.none() | _WORDS),
    st.tuples(st.just("plan"), st.lists(st.tuples(_WORDS, _PLAN_STATUS), max_size=3)),
)
_TURN = st.tuples(
    st.lists(_WORDS, min_size=1, max_size=2),
    st.lists(_SEGMENT, max_size=6),
    st.sampled_from(["end_turn", "max_tokens", "refusal", "cancelled"]),
)
_STYLES = st.sampled_from(["keep-ids", "drop-ids", "delta-then-full", "echo", "update-first"])


def _t(s: str) -> dict[str, Any]:
    return {"type": "text", "text": s}


def _upd(u: dict[str, Any]) -> dict[str, Any]:
    return {
        "from": "agent",
        "message": {
            "jsonrpc": "2.0",
            "method": "session/update",
            "params": {"sessionId": S, "update": u},
        },
    }


def v2_trace(turns: list[Any]) -> list[dict[str, Any]]:
    """A v2 trace: prompt, the agent's user message and running, the work, idle, `{}`."""
    entries: list[dict[str, Any]] = []
    n = 0
    seen_tools: set[str] = set()
    for r, (prompt, segments, stop) in enumerate(turns):
        blocks = [_t(w) for w in prompt]
        entries.append(
            {
                "from": "client",
                "message": {
                    "jsonrpc": "2.0",
                    "id": r,
                    "method": "session/prompt",
                    "params": {"sessionId": S, "prompt": blocks},
                },
            }
        )
        entries.append(
            _upd({"sessionUpdate": "user_message", "messageId": f"u{r}", "content": blocks})
        )
        entries.append(_upd({"sessionUpdate": "state_update", "state": "running"}))
        last_role = None
        message_id = ""
        for seg in segments:
            if seg[0] == "msg":
                _, role, words = seg
                if role != last_role:  # adjacent runs of one role are one message
                    n += 1
                    message_id = f"m{n}"
                tag = "agent_message_chunk" if role == "agent" else "agent_thought_chunk"
                for w in words:
                    entries.append(
                        _upd({"sessionUpdate": tag, "messageId": message_id, "content": _t(w)})
                    )
                last_role = role
                continue
            last_role = None
            if seg[0] == "tool":
                _, i, status, out = seg
                tool_id = f"tc{i}"
                u: dict[str, Any] = {
                    "sessionUpdate": "tool_call_update",
                    "toolCallId": tool_id,
                    "status": status,
                }
                if tool_id not in seen_tools:
                    u.update(title=f"Tool {i}", kind="execute")
                    seen_tools.add(tool_id)
                if out is not None:
                    u["content"] = [{"type": "content", "content": _t(out)}]
                entries.append(_upd(u))
            else:
                entries.append(
                    _upd(
                        {
                            "sessionUpdate": "plan_update",
                            "plan": {
                                "type": "items",
                                "planId": "main",
                                "entries": [
                                    {"content": c, "priority": "medium", "status": s}
                                    for c, s in seg[1]
                                ],
                            },
                        }
                    )
                )
        entries.append(_upd({"sessionUpdate": "state_update", "state": "idle", "stopReason": stop}))
        entries.append({"from": "agent", "message": {"jsonrpc": "2.0", "id": r, "result": {}}})
    return entries


def down_convert(entries: list[dict[str, Any]], style: str) -> list[dict[str, Any]]:
    """The v1 traffic for a v2 trace (test-only; digest 6.3), in one agent style."""
    out: list[dict[str, Any]] = []
    outstanding: list[Any] = []
    prompts: dict[Any, list[Any]] = {}
    tools: set[str] = set()
    run: list[str] = []  # texts of the agent run being streamed (delta-then-full)
    run_id = ""

    def flush() -> None:
        nonlocal run
        if run:
            full = {
                "sessionUpdate": "agent_message_chunk",
                "messageId": run_id,
                "content": _t("".join(run)),
            }
            out.append(_upd(full))
            run = []

    for entry in entries:
        msg = entry["message"]
        if entry["from"] == "client":
            flush()
            if msg.get("method") == "session/prompt":
                outstanding.append(msg["id"])
                prompts[msg["id"]] = msg["params"]["prompt"]
            out.append(entry)
            continue
        if "result" in msg:
            continue  # v2's `{}`: v1 answers the prompt with the stop reason instead
        u = dict(msg["params"]["update"])
        kind = u["sessionUpdate"]
        if kind in ("agent_message_chunk", "agent_thought_chunk"):
            if style == "delta-then-full" and kind == "agent_message_chunk":
                if u["messageId"] != run_id:
                    flush()
                run_id = u["messageId"]
                run.append(u["content"]["text"])
            elif kind == "agent_thought_chunk":
                flush()
            if style != "keep-ids":
                del u["messageId"]
            out.append(_upd(u))
            continue
        flush()
        if kind == "user_message":
            if style == "echo":  # an agent that echoes the live prompt as user chunks
                out.extend(
                    _upd({"sessionUpdate": "user_message_chunk", "content": b})
                    for b in u["content"]
                )
        elif kind == "state_update":
            if u["state"] == "idle":
                request_id = outstanding.pop(0)
                out.append(
                    {
                        "from": "agent",
                        "message": {
                            "jsonrpc": "2.0",
                            "id": request_id,
                            "result": {"stopReason": u["stopReason"]},
                        },
                    }
                )
        elif kind == "tool_call_update":
            first = u["toolCallId"] not in tools
            tools.add(u["toolCallId"])
            if first and style != "update-first":
                u["sessionUpdate"] = "tool_call"
            out.append(_upd(u))
        elif kind == "plan_update":
            out.append(_upd({"sessionUpdate": "plan", "entries": u["plan"]["entries"]}))
        else:
            raise AssertionError(kind)
    flush()
    return out


def v2_view(entries: list[dict[str, Any]]) -> Any:
    updates = []
    for entry in entries:
        msg = acp.decode_message(entry["message"])
        if isinstance(msg, acp.UpdateSessionNotification):
            updates.append(msg.update)
    return view(fold_session(updates, S))


@given(st.lists(_TURN, min_size=1, max_size=3), _STYLES)
def test_v1_down_conversion_normalizes_back_to_the_same_view(turns: list[Any], style: str) -> None:
    v2 = v2_trace(turns)
    v1 = down_convert(v2, style)
    assert acp.looks_like_v1(v1)
    out = acp.normalize_v1(v1)
    assert view(fold_session(out.updates_for(S), S)) == v2_view(v2)


@given(st.lists(_TURN, min_size=1, max_size=3))
def test_kept_message_ids_survive_normalization(turns: list[Any]) -> None:
    v2 = v2_trace(turns)
    out = acp.normalize_v1(down_convert(v2, "keep-ids"))
    state = fold_session(out.updates_for(S), S)
    expected = fold_session(
        [
            m.update
            for m in (acp.decode_message(e["message"]) for e in v2)
            if isinstance(m, acp.UpdateSessionNotification)
        ],
        S,
    )
    agent_ids = [
        r.id for r in state.timeline if r.kind == "message" and state.messages[r.id].role != "user"
    ]
    assert agent_ids == [
        r.id
        for r in expected.timeline
        if r.kind == "message" and expected.messages[r.id].role != "user"
    ]
    assert not any(d.rule == "v1.synthetic-message-id" for d in out.diagnostics)


@given(st.lists(_TURN, min_size=1, max_size=3), _STYLES, st.integers(0, 60))
def test_the_normalizer_is_online(turns: list[Any], style: str, cut: int) -> None:
    """The output for a prefix of a trace is a prefix of the output for the whole trace:
    nothing already emitted is ever revised, so it can run on a live connection."""
    v1 = down_convert(v2_trace(turns), style)
    whole = acp.normalize_v1(v1)
    head = acp.normalize_v1(v1[:cut])
    assert whole.updates[: len(head.updates)] == head.updates
    assert whole.events[: len(head.events)] == head.events
    assert whole.diagnostics[: len(head.diagnostics)] == head.diagnostics
