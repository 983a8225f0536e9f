"""Builders of trace entries for the checker's tables (tests/preview_traces.py): one JSON-RPC
message per call, as a `{"from", "message"}` entry."""

from __future__ import annotations

from typing import Any

P, K, Q = "sess_parent", "sess_child_1", "sess_other"
Entry = dict[str, Any]


def agent(message: dict[str, Any]) -> Entry:
    return {"from": "agent", "message": {"jsonrpc": "2.0", **message}}


def client(message: dict[str, Any]) -> Entry:
    return {"from": "client", "message": {"jsonrpc": "2.0", **message}}


def upd(sid: str, kind: str, **fields: Any) -> Entry:
    update = {"sessionUpdate": kind, **fields}
    return agent({"method": "session/update", "params": {"sessionId": sid, "update": update}})


def announce(parent: str, child: str, **fields: Any) -> Entry:
    return upd(parent, "subagent_update", sessionId=child, **fields)


def chunk(sid: str, mid: str = "m1", kind: str = "agent_message_chunk") -> Entry:
    return upd(sid, kind, messageId=mid, content={"type": "text", "text": "x"})


def state(sid: str, name: str = "idle", **fields: Any) -> Entry:
    if name == "idle" and "stopReason" not in fields:
        fields["stopReason"] = "end_turn"
    return upd(sid, "state_update", state=name, **fields)


def tool(sid: str, tid: str = "t1", **fields: Any) -> Entry:
    return upd(sid, "tool_call_update", toolCallId=tid, **fields)


def request(side: str, rid: object, method: str, **params: Any) -> Entry:
    make = agent if side == "agent" else client
    return make({"id": rid, "method": method, "params": params})


def result(side: str, rid: object, value: Any = None) -> Entry:
    make = agent if side == "agent" else client
    return make({"id": rid, "result": {} if value is None else value})


def error(rid: object, code: int = -32602) -> Entry:
    return agent({"id": rid, "error": {"code": code, "message": "no"}})


def prompt(rid: object, sid: str = P, text: str = "hi", key: str | None = None) -> Entry:
    params: dict[str, Any] = {"sessionId": sid, "prompt": [{"type": "text", "text": text}]}
    if key is not None:
        params["idempotencyKey"] = key
    return client({"id": rid, "method": "session/prompt", "params": params})


def resume(rid: object, sid: str = P, cursor: bool = True) -> Entry:
    params: dict[str, Any] = {"sessionId": sid, "cwd": "/home/u"}
    if cursor:
        params["replayFrom"] = {"type": "start"}
    return request("client", rid, "session/resume", **params)


def permission(rid: object, sid: str = P) -> Entry:
    option = {"optionId": "a", "name": "Allow", "kind": "allow_once"}
    return request(
        "agent", rid, "session/request_permission", sessionId=sid, title="Run?", options=[option]
    )


def cancel(sid: str) -> Entry:
    return client({"method": "session/cancel", "params": {"sessionId": sid}})


def withdraw(rid: object) -> Entry:
    return agent({"method": "$/cancel_request", "params": {"requestId": rid}})


CANCELLED = {"outcome": {"outcome": "cancelled"}}
CAN = {"cancel": {}}
MARK = upd(P, "replay_complete")
BG_T1 = [{"type": "tool_call", "toolCallId": "t1"}]
# Session set-up, for traces that start at `initialize` (from there on J3 judges every id).
NEW = (request("client", 1, "session/new", cwd="/w"), result("agent", 1, {"sessionId": P}))
