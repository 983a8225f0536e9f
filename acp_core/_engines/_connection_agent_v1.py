"""The agent connection serving a v1 client: the same engines, v1 on the wire.

Owns: the agent side of the negotiation at `initialize` for protocol 1 (`v1_initialize`: the
v1 result shape, `agentInfo` / `agentCapabilities` / `authMethods`), a v1 client's
`session/load` (`v1_load`), `V1Serving` (what the projection remembers between steps) and
`v1_project`, the v2 -> v1 projection of everything a step put on the wire once the
connection speaks v1, with a `Finding` (rule `v1.dropped-*` or `v1.upsert-as-chunks`,
`v1.stop-reason`) for every step that loses something.
Must not know: how an engine decides (`_engines/_agent.py`), which method is answered how
(`_engines/_connection_agent_setup.py`), how v1 traffic is read back (`_v1/`), I/O.

Theory of operation.
- Inbound needs no rewrite: v1 `session/new`, `session/prompt` (no `messageId`: the engine
  names the user message from its own counter), `session/cancel` and permission answers
  decode as their v2 forms, so the engines and the host events are those of a v2 client.
- Outbound, one step at a time: the engine answers a prompt at `AcceptPrompt` (a v2
  receipt); on v1 that receipt is held (`V1Serving.held`) and the turn's ending
  `state_update idle` becomes the prompt's result `{stopReason}`. Every other `state_update`
  is implied by v1 (a prompt or a permission request is open) or dropped with a finding.
- Tool calls: the first `tool_call_update` for an id goes out as v1 `tool_call`, later ones
  as `tool_call_update`; a v2 content chunk (an append) goes out as the whole content list,
  which v1 replaces (`V1Serving.content` keeps what was sent).
- Findings that would repeat for every chunk (`messageId` dropped) are reported once per
  session and rule (`V1Serving.noted`).
- `session/load` (`v1_load`) is the v2 resume with replay, served from the engines' history
  by the connection's own handler; its history is reshaped for a client that rebuilds its
  view (whole messages as fresh chunks, tool calls created again, no marker or state), and
  `initialize` advertises `loadSession`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

import attrs

from acp_core._state._pcoll import PMap
from acp_core._v1._v1_wire import PLAN_ID, TOOL_FIELDS
from acp_core._wire._json import EMPTY_OBJECT, JsonObject, freeze_json, thaw_json
from acp_core._wire._jsonrpc import Request
from acp_core._wire._value import frozen

from ._connection_values import Finding, Initialized, error_reply, params_object, result_reply

__all__ = ["V1Serving", "v1_initialize", "v1_load", "v1_project"]

#: v1's stop reasons (schema 0.12.1); any other v2 one becomes `end_turn` with a finding.
V1_STOP_REASONS: Final = frozenset(
    ("end_turn", "max_tokens", "max_turn_requests", "refusal", "cancelled")
)
# Update kinds v1 has with the same shape (v2-only fields aside).
_SAME: Final = frozenset(("session_info_update", "usage_update"))
_CHUNKS: Final = frozenset(("agent_message_chunk", "agent_thought_chunk", "user_message_chunk"))
_UPSERTS: Final = {
    "agent_message": "agent_message_chunk",
    "agent_thought": "agent_thought_chunk",
    "user_message": "user_message_chunk",
}
#: A v1 tool call's fields: its id, then the fields the v1 reader knows (`_v1/_v1_wire.py`).
_TOOL_FIELDS: Final = ("toolCallId", *TOOL_FIELDS)
_TOOL_CONTENT_TYPES: Final = frozenset(("content", "terminal"))
#: v1's tool call statuses (schema 0.12.1; the TypeScript SDK 2.4.0's v1 `ToolCallStatus`):
#: v2's `cancelled` has no v1 form and goes out as `failed`, with a finding.
V1_TOOL_STATUSES: Final = frozenset(("pending", "in_progress", "completed", "failed"))
_PLAN_ENTRY_FIELDS: Final = ("content", "priority", "status", "_meta")


@frozen
class V1Serving:
    """What the v1 projection of an agent connection remembers between steps.

    Attributes:
        held: session id -> the prompt request ids whose receipt is held until the turn
            ends (v1 answers a prompt with its stop reason), oldest first.
        tool_calls: (session id, tool call id) of the tool calls sent as v1 `tool_call`.
        content: (session id, tool call id) -> the v1 content list last sent for it.
        noted: (session id, rule) of the once-per-session findings already reported.
    """

    held: PMap[str, tuple[int | str | None, ...]] = attrs.field(factory=PMap)
    tool_calls: frozenset[tuple[str, str]] = frozenset()
    content: PMap[tuple[str, str], tuple[Any, ...]] = attrs.field(factory=PMap)
    noted: frozenset[tuple[str, str]] = frozenset()


def _v1_capabilities(caps: JsonObject) -> tuple[dict[str, Any], list[str]]:
    """v2 `capabilities` -> v1 `agentCapabilities`, and the v2 keys that have no v1 form."""
    # `session/load` is served from the engines' own history, as a v2 resume with replay is
    # (`v1_load`): every v1 connection can.
    out: dict[str, Any] = {"loadSession": True}
    dropped = [k for k in caps if k != "session"]
    session = params_object(caps.get("session"))
    if session is not None:
        prompt = params_object(session.get("prompt"))
        if prompt is not None:
            out["promptCapabilities"] = {
                name: params_object(prompt.get(name)) is not None
                for name in ("image", "audio", "embeddedContext")
            }
        dropped.extend(f"session.{k}" for k in session if k != "prompt")
    return out, dropped


def v1_initialize(b: Any, request_id: int | str | None, params: JsonObject) -> None:
    """Answer a v1 client's `initialize` with protocol 1 in the v1 shape; the connection
    speaks v1 from here on (`b.changes["v1"]`)."""
    info = params_object(params.get("clientInfo"))
    caps = params_object(params.get("clientCapabilities"))
    agent_caps, dropped = _v1_capabilities(b.conn.capabilities)
    b.changes.update(
        protocol_version=1,
        peer_info=info,
        peer_capabilities=EMPTY_OBJECT if caps is None else caps,
        v1=V1Serving(),
        refused=None,
    )
    result = {
        "protocolVersion": 1,
        "agentCapabilities": agent_caps,
        "authMethods": [],
        "agentInfo": b.conn.info.to_wire(),
    }
    b.answer(request_id, result_reply(request_id, result))
    if dropped:
        b.finding(
            "v1.dropped-capability",
            f"agent capabilities with no v1 form not advertised: {', '.join(dropped)}",
        )
    b.event(Initialized(1, info, caps, request_id))


# What a v1 `session/load` sends no form of: the end marker (the load's answer is the end of
# the history) and the state snapshot (a v1 session is idle between prompts).
_NOT_LOADED: Final = frozenset(("replay_complete", "state_update"))


def v1_load(b: Any, request: Request, resume: Callable[[Any, Request], None]) -> None:
    """Serve a v1 client's `session/load`: the connection's own v2 `session/resume` with
    replay (`resume`) sends the session's history and answers; the history is then shaped for
    v1 before the step's projection: no end marker or state snapshot, each whole message
    (an upsert) as one chunk per block of a fresh message (a v1 client that loads rebuilds its
    view, so appending is what it needs), and the session's tool calls sent as `tool_call`
    again. On a v2 connection `session/load` stays unknown (`-32601`)."""
    state: V1Serving | None = b.changes.get("v1", b.conn.v1)
    if state is None:
        b.answer(request.id, error_reply(request.id, -32601, "Method not found"))
        return
    params = params_object(request.params)
    resumed: Any = request.params
    if params is not None:
        raw: dict[str, Any] = {k: thaw_json(v) for k, v in params.items() if k != "mcpServers"}
        resumed = freeze_json({**raw, "replayFrom": {"type": "start"}})
    start = len(b.wire)
    resume(b, Request(request.id, "session/resume", resumed))
    sid = None if params is None else params.get("sessionId")
    loaded = [m for sent in b.wire[start:] for m in _loaded(sent, sid)]
    del b.wire[start:]
    b.wire.extend(loaded)
    b.changes["v1"] = attrs.evolve(
        state,
        tool_calls=frozenset(t for t in state.tool_calls if t[0] != sid),
        content=PMap({k: v for k, v in state.content.items() if k[0] != sid}),
    )


def _loaded(message: dict[str, Any], sid: object) -> list[dict[str, Any]]:
    params = message.get("params")
    if message.get("method") != "session/update" or type(params) is not dict:
        return [message]
    if params.get("sessionId") != sid:
        return [message]  # a child's: the projection drops it (`v1.dropped-child`)
    update = params.get("update", {})
    kind = update.get("sessionUpdate")
    if kind in _NOT_LOADED:
        return []
    if kind not in _UPSERTS:
        return [message]
    chunks = []
    for block in update.get("content", ()):
        chunk = {
            "sessionUpdate": _UPSERTS[kind],
            "messageId": update.get("messageId"),
            "content": block,
        }
        chunks.append({**message, "params": {**params, "update": chunk}})
    return chunks


class _Projection:
    """One step's projection (local to one call)."""

    def __init__(self, b: Any, state: V1Serving, prompts: set[int | str | None]) -> None:
        self.b = b
        self.held = state.held
        self.tool_calls = state.tool_calls
        self.content = state.content
        self.noted = state.noted
        self.prompts = prompts  # prompt requests pending when the step began
        self.receipted: set[str] = set()  # sessions whose prompt was receipted this step
        self.out: list[dict[str, Any]] = []

    def finding(self, rule: str, detail: str) -> None:
        self.b.events.append(Finding(rule, detail))

    def once(self, session_id: str, rule: str, detail: str, what: str) -> None:
        """A finding reported once per session and `what` (a chunk kind's dropped field)."""
        if (session_id, what) not in self.noted:
            self.noted = self.noted | {(session_id, what)}
            self.finding(rule, f"{detail} (reported once per session)")

    def update(self, session_id: str, update: dict[str, Any]) -> None:
        self.out.append(
            {
                "jsonrpc": "2.0",
                "method": "session/update",
                "params": {"sessionId": session_id, "update": update},
            }
        )

    def state(self) -> V1Serving:
        return V1Serving(self.held, self.tool_calls, self.content, self.noted)


def _strip(p: _Projection, sid: str, update: dict[str, Any], keep: tuple[str, ...]) -> Any:
    kind = update.get("sessionUpdate")
    dropped = sorted(k for k in update if k not in keep and k != "sessionUpdate")
    if dropped:
        fields = ", ".join(dropped)
        p.once(sid, "v1.dropped-field", f"v1 {kind} has no {fields}", f"{kind}:{fields}")
    return {k: update[k] for k in keep if k in update}


def _tool_content(p: _Projection, sid: str, items: list[Any]) -> list[Any]:
    kept = []
    for item in items:
        kind = item.get("type") if isinstance(item, dict) else None
        if kind in _TOOL_CONTENT_TYPES:
            kept.append(item)
        elif kind == "diff" and isinstance(item.get("_meta"), dict):
            original = item["_meta"].get("acp.v1/diff")
            if isinstance(original, dict):
                kept.append({"type": "diff", **original})
                continue
            p.finding("v1.dropped-content", f"tool call content {kind!r} has no v1 form")
        else:
            p.finding("v1.dropped-content", f"tool call content {kind!r} has no v1 form")
    return kept


def _tool_update(p: _Projection, sid: str, update: dict[str, Any]) -> None:
    call = _strip(p, sid, update, _TOOL_FIELDS)
    call_id = call.get("toolCallId")
    key = (sid, call_id)
    status = call.get("status")
    if status is not None and status not in V1_TOOL_STATUSES:
        p.finding(
            "v1.tool-status",
            f"tool call {call_id!r} status {status!r} has no v1 form: sent as failed",
        )
        call["status"] = "failed"
    if "content" in call:
        call["content"] = _tool_content(p, sid, list(call["content"]))
        p.content = p.content.set(key, tuple(call["content"]))
    if key in p.tool_calls:
        p.update(sid, {"sessionUpdate": "tool_call_update", **call})
        return
    p.tool_calls = p.tool_calls | {key}
    call.setdefault("title", "")
    p.update(sid, {"sessionUpdate": "tool_call", **call})


def _tool_chunk(p: _Projection, sid: str, update: dict[str, Any]) -> None:
    # v2 appends one content item; v1 replaces the list: send the whole list so far.
    key: Any = (sid, update.get("toolCallId"))
    added = _tool_content(p, sid, [update.get("content")])
    content = (*p.content.get(key, ()), *added)
    p.content = p.content.set(key, content)
    extra = sorted(k for k in update if k not in ("sessionUpdate", "toolCallId", "content"))
    if extra:
        fields = ", ".join(extra)
        p.once(sid, "v1.dropped-field", f"v1 tool content has no {fields}", f"chunk:{fields}")
    body = {"toolCallId": update.get("toolCallId"), "content": list(content)}
    if key not in p.tool_calls:
        p.tool_calls = p.tool_calls | {key}
        p.update(sid, {"sessionUpdate": "tool_call", "title": "", **body})
        return
    p.update(sid, {"sessionUpdate": "tool_call_update", **body})


def _plan(p: _Projection, sid: str, update: dict[str, Any]) -> None:
    plan = update.get("plan")
    if not isinstance(plan, dict) or plan.get("type") != "items":
        kind = plan.get("type") if isinstance(plan, dict) else None
        p.finding("v1.dropped-update", f"a {kind!r} plan has no v1 form (v1 plans are entries)")
        return
    if plan.get("planId") != PLAN_ID:
        p.once(sid, "v1.dropped-field", "v1 has one plan per session: planId dropped", "planId")
    entries = [
        {k: e[k] for k in _PLAN_ENTRY_FIELDS if k in e}
        for e in plan.get("entries", ())
        if isinstance(e, dict)
    ]
    p.update(sid, {"sessionUpdate": "plan", "entries": entries})


def _commands(p: _Projection, sid: str, update: dict[str, Any]) -> None:
    commands = []
    for item in update.get("availableCommands", ()):
        command = dict(item) if isinstance(item, dict) else item
        spec = command.get("input") if isinstance(command, dict) else None
        if isinstance(spec, dict):
            if spec.get("type") == "text":
                command["input"] = {k: v for k, v in spec.items() if k != "type"}
            else:
                del command["input"]
                p.finding("v1.dropped-field", f"command input {spec.get('type')!r}: no v1 form")
        commands.append(command)
    p.update(sid, {"sessionUpdate": "available_commands_update", "availableCommands": commands})


def _config_options(options: Any) -> list[Any]:
    out = []
    for item in options if isinstance(options, list) else ():
        option = item
        if isinstance(item, dict):
            option = {("id" if k == "configId" else k): v for k, v in item.items()}
            if isinstance(option.get("options"), list):
                option["options"] = [
                    {("group" if k == "groupId" else k): v for k, v in o.items()}
                    if isinstance(o, dict)
                    else o
                    for o in option["options"]
                ]
        out.append(option)
    return out


def _state(p: _Projection, sid: str, update: dict[str, Any]) -> None:
    state = update.get("state")
    held = p.held.get(sid, ())
    if state == "idle" and held:
        request_id, rest = held[0], held[1:]
        p.held = p.held.set(sid, rest) if rest else p.held.delete(sid)
        stop = update.get("stopReason")
        if stop not in V1_STOP_REASONS:
            p.finding("v1.stop-reason", f"stop reason {stop!r} has no v1 form: sent as end_turn")
            stop = "end_turn"
        result: dict[str, Any] = {"stopReason": stop}
        if "_meta" in update:
            result["_meta"] = update["_meta"]
        p.out.append(result_reply(request_id, result))
        return
    if held and state in ("running", "requires_action"):
        return  # implied by v1: the prompt is open (and a permission request, if one is)
    p.finding(
        "v1.dropped-state",
        f"state_update {state!r} of {sid!r} outside a v1 prompt has no v1 form: dropped",
    )


def _session_update(p: _Projection, message: dict[str, Any]) -> None:
    params = message["params"]
    sid = params.get("sessionId")
    update = dict(params.get("update", {}))
    kind = update.get("sessionUpdate")
    if sid not in p.b.sessions:
        p.finding("v1.dropped-child", f"{kind} of child session {sid!r}: v1 has no subagents")
    elif kind == "state_update":
        _state(p, sid, update)
    elif kind in _CHUNKS:
        p.update(sid, {"sessionUpdate": kind, **_strip(p, sid, update, ("content", "_meta"))})
    elif kind == "user_message" and sid in p.receipted:
        return  # the prompt just accepted: v1 has it as the prompt request itself
    elif kind in _UPSERTS:
        p.finding(
            "v1.upsert-as-chunks",
            f"{kind} (an upsert) sent as {_UPSERTS[kind]}s: a v1 client appends them",
        )
        for block in update.get("content", ()):
            p.update(sid, {"sessionUpdate": _UPSERTS[kind], "content": block})
    elif kind == "tool_call_update":
        _tool_update(p, sid, update)
    elif kind == "tool_call_content_chunk":
        _tool_chunk(p, sid, update)
    elif kind == "plan_update":
        _plan(p, sid, update)
    elif kind == "available_commands_update":
        _commands(p, sid, update)
    elif kind == "config_option_update":
        update["configOptions"] = _config_options(update.get("configOptions"))
        p.update(sid, update)
    elif kind in _SAME:
        p.update(sid, update)
    else:
        p.finding("v1.dropped-update", f"{kind} of {sid!r} has no v1 form: dropped")


def _permission(p: _Projection, message: dict[str, Any]) -> None:
    params = dict(message["params"])
    sid = str(params.get("sessionId"))
    subject = params_object(params.get("subject"))
    call: Any = None if subject is None else subject.get("toolCall")
    if subject is None or subject.get("type") != "tool_call" or not isinstance(call, dict):
        kind = None if subject is None else subject.get("type")
        call = {"toolCallId": f"v1:permission:{message['id']}", "title": params.get("title")}
        p.finding(
            "v1.dropped-field",
            f"a permission subject {kind!r} has no v1 form: asked about a synthetic tool call",
        )
    else:
        call = {k: v for k, v in call.items() if k in _TOOL_FIELDS}
        p.once(
            sid,
            "v1.dropped-field",
            "v1 permission requests carry no title or subject: the tool call stands for them",
            "session/request_permission",
        )
    v1: dict[str, Any] = {"sessionId": sid, "toolCall": call, "options": params.get("options")}
    if "_meta" in params:
        v1["_meta"] = params["_meta"]
    p.out.append({**message, "params": v1})


def _response(p: _Projection, message: dict[str, Any]) -> None:
    rid = message.get("id")
    if "result" in message and rid in p.prompts:
        # A prompt's receipt: held, the turn's end answers the prompt (`{stopReason}`).
        for sid, session in p.b.sessions.items():
            if session.engine.turn is not None and session.engine.turn.prompt_id == rid:
                p.held = p.held.set(sid, (*p.held.get(sid, ()), rid))
                p.receipted.add(sid)
                return
        p.finding("v1.dropped-field", f"prompt {rid!r} answered outside a turn: sent as end_turn")
        p.out.append(result_reply(rid, {"stopReason": "end_turn"}))
        return
    result = message.get("result")
    if isinstance(result, dict) and "configOptions" in result:
        result = {**result, "configOptions": _config_options(result["configOptions"])}
        message = {**message, "result": result}
    p.out.append(message)


def v1_project(b: Any, start: int) -> None:
    """Rewrite what this step put on the wire from `b.wire[start:]` on to v1 (in place), and
    keep the projection's memory in `b.changes["v1"]`."""
    state: V1Serving | None = b.changes.get("v1", b.conn.v1)
    if state is None:
        return  # a new `initialize` just made the connection speak v2
    prompts = {rid for rid, method in b.conn.incoming.items() if method == "session/prompt"}
    p = _Projection(b, state, prompts)
    sent = b.wire[start:]
    del b.wire[start:]
    for message in sent:
        method = message.get("method")
        if method == "session/update":
            _session_update(p, message)
        elif method == "session/request_permission":
            _permission(p, message)
        elif method == "$/cancel_request":
            rid = message.get("params", {}).get("requestId")
            p.finding("v1.dropped-cancel-request", f"$/cancel_request {rid!r}: v1 has none")
        elif method is not None and "id" in message:
            p.finding("v1.dropped-request", f"{method} has no v1 form: not sent")
        elif method is not None:
            p.finding("v1.dropped-update", f"{method} has no v1 form: not sent")
        else:
            _response(p, message)
    b.wire.extend(p.out)
    b.changes["v1"] = p.state()
