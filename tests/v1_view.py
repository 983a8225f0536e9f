"""Test helpers for the v1 normalizer: trace builders and a canonical session view.

The view is what a user sees: the timeline in order (messages as role + joined text, tool
calls with their fields, plans with their entries) and the foreground. Message ids are
replaced by their rank in the timeline, so a view built from synthetic ids compares equal to
one built from real ids when the transcript is the same.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import acp_core as acp

TRACES = Path(__file__).parent / "v1_traces"


def load_trace(name: str) -> list[dict[str, Any]]:
    """A corpus trace (JSON lines) by file name."""
    with (TRACES / name).open() as f:
        return [json.loads(line) for line in f if line.strip()]


def text(t: str) -> dict[str, Any]:
    return {"type": "text", "text": t}


def agent(message: dict[str, Any]) -> dict[str, Any]:
    return {"from": "agent", "message": {"jsonrpc": "2.0", **message}}


def client(message: dict[str, Any]) -> dict[str, Any]:
    return {"from": "client", "message": {"jsonrpc": "2.0", **message}}


def update(session_id: str, upd: dict[str, Any]) -> dict[str, Any]:
    return agent({"method": "session/update", "params": {"sessionId": session_id, "update": upd}})


def chunk(session_id: str, kind: str, t: str, message_id: str | None = None) -> dict[str, Any]:
    upd: dict[str, Any] = {"sessionUpdate": kind, "content": text(t)}
    if message_id is not None:
        upd["messageId"] = message_id
    return update(session_id, upd)


def prompt(session_id: str, request_id: int | str, *blocks: dict[str, Any]) -> dict[str, Any]:
    return client(
        {
            "id": request_id,
            "method": "session/prompt",
            "params": {"sessionId": session_id, "prompt": list(blocks)},
        }
    )


def result(request_id: int | str, stop_reason: str = "end_turn") -> dict[str, Any]:
    return agent({"id": request_id, "result": {"stopReason": stop_reason}})


def fold_session(updates: Any, session_id: str) -> acp.SessionState:
    return acp.fold(acp.new_session(session_id), updates)


def view(state: acp.SessionState) -> dict[str, Any]:
    """The canonical, id-agnostic view of a session (see the module docstring)."""
    timeline: list[Any] = []
    for ref in state.timeline:
        if ref.kind == "message":
            m = state.messages[ref.id]
            timeline.append(("message", m.role, acp.message_text(m)))
        elif ref.kind == "toolCall":
            t = state.tool_calls[ref.id]
            content = tuple(acp.thaw_json(acp.freeze_json(_enc(c))) for c in t.content)
            timeline.append(
                ("tool", ref.id, t.title, t.kind, t.status, json.dumps(content, sort_keys=True))
            )
        else:
            p = state.plans[ref.id]
            assert isinstance(p.plan, acp.PlanItems)
            timeline.append(("plan", ref.id, tuple((e.content, e.status) for e in p.plan.entries)))
    return {
        "timeline": timeline,
        "foreground": (state.foreground.state, state.foreground.stop_reason),
    }


def _enc(item: Any) -> Any:
    wrapped = acp.encode_update(acp.ToolCallContentChunk("x", item))
    return wrapped["content"]


def normalized_view(entries: list[dict[str, Any]], session_id: str, **policy: Any) -> Any:
    """Normalize a v1 trace and fold the session's updates into its view."""
    out = acp.normalize_v1(entries, acp.V1Policy(**policy) if policy else None)
    return view(fold_session(out.updates_for(session_id), session_id))
