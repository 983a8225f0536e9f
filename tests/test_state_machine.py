"""The reducers against a deliberately naive reference model, over random update sequences.

`Model` is the digest's section 3.14 pseudocode written the obvious way: plain dicts and lists,
mutated in place, reading the wire dicts directly (no codec, no persistent collections, no
fast paths). A hypothesis `RuleBasedStateMachine` sends the same wire updates to both and
compares what a client can observe after every step. Bundles of message, tool call and
terminal ids make updates hit existing entities often; fresh ids and unknown variants are
drawn too. At the end, `fold` over the whole history (with its bulk chunk runs) must equal the
step-by-step state.
"""

from __future__ import annotations

import base64
import binascii
import copy
from typing import Any

import state_strategies as ss
from hypothesis import settings
from hypothesis import strategies as st
from hypothesis.stateful import Bundle, RuleBasedStateMachine, invariant, rule

import acp_core as acp
from acp_core import strategies as acps
from acp_core._wire._codec import encode_part

SID = "sess_1"
ROLES = {
    "user_message_chunk": "user",
    "agent_message_chunk": "agent",
    "agent_thought_chunk": "thought",
    "user_message": "user",
    "agent_message": "agent",
    "agent_thought": "thought",
}
KNOWN_STATES = ("idle", "running", "requires_action")
V1_KINDS = ("tool_call", "plan", "current_mode_update")
HANDLED = (
    *ROLES,
    "state_update",
    "tool_call_update",
    "tool_call_content_chunk",
    "terminal_update",
    "terminal_output_chunk",
    "plan_update",
    "available_commands_update",
    "config_option_update",
    "session_info_update",
    "usage_update",
)


def b64decode(data: str) -> bytes | None:
    """RFC 4648 standard alphabet; missing padding tolerated (Q24); None when invalid."""
    try:
        return base64.b64decode(data + "=" * (-len(data) % 4), validate=True)
    except (binascii.Error, ValueError):
        return None


class Model:
    """Naive mutable session view (digest 3.0 / 3.14)."""

    def __init__(self) -> None:
        self.foreground: dict[str, Any] = {"state": "idle", "stopReason": None, "meta": None}
        self.foreground_raw: Any = None
        self.timeline: list[tuple[str, str]] = []
        self.messages: dict[str, dict[str, Any]] = {}
        self.tool_calls: dict[str, dict[str, Any]] = {}
        self.terminals: dict[str, dict[str, Any]] = {}
        self.plans: dict[str, Any] = {}
        self.commands: list[Any] | None = None
        self.config: list[Any] | None = None
        self.info: dict[str, Any] = {"title": None, "updatedAt": None, "meta": None}
        self.usage: dict[str, Any] | None = None
        self.unknown: list[Any] = []
        self.diagnostics: list[str] = []

    # -- helpers ------------------------------------------------------------------------

    def add_to_timeline(self, kind: str, entity_id: str) -> None:
        if (kind, entity_id) not in self.timeline:
            self.timeline.append((kind, entity_id))

    def message(self, upd: dict[str, Any]) -> dict[str, Any]:
        mid = upd["messageId"]
        if mid not in self.messages:
            role = ROLES[upd["sessionUpdate"]]
            self.messages[mid] = {"role": role, "content": [], "meta": None, "chunkMeta": {}}
        self.add_to_timeline("message", mid)
        return self.messages[mid]

    def tool_call(self, tid: str) -> dict[str, Any]:
        if tid not in self.tool_calls:
            self.tool_calls[tid] = {
                "title": None,
                "kind": "other",
                "status": "pending",
                "content": [],
                "locations": [],
                "rawInput": None,
                "rawOutput": None,
                "meta": None,
                "chunkMeta": {},
            }
        self.add_to_timeline("toolCall", tid)
        return self.tool_calls[tid]

    def terminal(self, xid: str) -> dict[str, Any]:
        if xid not in self.terminals:
            self.terminals[xid] = {
                "command": None,
                "cwd": None,
                "bytes": bytearray(),
                "snapshotMeta": None,
                "exitStatus": None,
                "meta": None,
            }
        return self.terminals[xid]

    def scan_terminal_refs(self, items: list[Any]) -> None:
        for item in items:
            if item.get("type") == "terminal":
                self.terminal(item["terminalId"])

    # -- the reducer --------------------------------------------------------------------

    def apply(self, upd: dict[str, Any]) -> None:
        kind = upd["sessionUpdate"]
        if kind in ("user_message_chunk", "agent_message_chunk", "agent_thought_chunk"):
            m = self.message(upd)
            if m["role"] != ROLES[kind]:
                self.diagnostics.append("reduce.role-mismatch")
            m["content"].append(upd["content"])
            if upd.get("_meta") is not None:
                m["chunkMeta"][len(m["content"]) - 1] = upd["_meta"]
        elif kind in ("user_message", "agent_message", "agent_thought"):
            m = self.message(upd)
            before = copy.deepcopy(m)
            if "content" in upd and m["role"] != ROLES[kind]:
                m["content"].extend(upd["content"] or [])  # never erases another role's
            elif "content" in upd:
                m["content"] = list(upd["content"] or [])
                m["chunkMeta"] = {}
            if "_meta" in upd:
                m["meta"] = upd["_meta"]
            # an upsert that changes nothing is a no-op, mismatched tag or not
            if m["role"] != ROLES[kind] and m != before:
                self.diagnostics.append("reduce.role-mismatch")
        elif kind == "state_update":
            state = upd["state"]
            known = state in KNOWN_STATES
            self.foreground = {
                "state": state,
                "stopReason": upd.get("stopReason")
                if state == "idle"
                else self.foreground["stopReason"],
                "meta": upd.get("_meta") if isinstance(upd.get("_meta"), dict) else None,
            }
            self.foreground_raw = None if known else upd
        elif kind == "tool_call_update":
            t = self.tool_call(upd["toolCallId"])
            for key in ("title", "rawInput", "rawOutput"):
                if key in upd:
                    t[key] = upd[key]
            if "kind" in upd:
                t["kind"] = upd["kind"] if upd["kind"] is not None else "other"
            if "status" in upd:
                t["status"] = upd["status"] if upd["status"] is not None else "pending"
            if "content" in upd:
                t["content"] = list(upd["content"] or [])
                t["chunkMeta"] = {}
                self.scan_terminal_refs(t["content"])
            if "locations" in upd:
                t["locations"] = list(upd["locations"] or [])
            if "_meta" in upd:
                t["meta"] = upd["_meta"]
        elif kind == "tool_call_content_chunk":
            if upd["toolCallId"] not in self.tool_calls:
                self.diagnostics.append("reduce.chunk-for-unknown-tool-call")
            t = self.tool_call(upd["toolCallId"])
            t["content"].append(upd["content"])
            if upd.get("_meta") is not None:
                t["chunkMeta"][len(t["content"]) - 1] = upd["_meta"]
            self.scan_terminal_refs([upd["content"]])
        elif kind == "terminal_update":
            output = upd.get("output")
            data = b"" if output is None else b64decode(output["data"])
            if data is None:  # Q24: the whole update is rejected
                self.diagnostics.append("reduce.bad-base64")
                return
            x = self.terminal(upd["terminalId"])
            for key in ("command", "cwd", "exitStatus"):
                if key in upd:
                    x[key] = upd[key]
            if "_meta" in upd:
                x["meta"] = upd["_meta"]
            if "output" in upd:
                x["bytes"] = bytearray(data)
                x["snapshotMeta"] = None if output is None else output.get("_meta")
        elif kind == "terminal_output_chunk":
            data = b64decode(upd["data"])
            if data is None:
                self.diagnostics.append("reduce.bad-base64")
                return
            self.terminal(upd["terminalId"])["bytes"] += data
        elif kind == "plan_update":
            plan_id = upd["plan"]["planId"]
            self.plans[plan_id] = (upd["plan"], upd.get("_meta"))
            self.add_to_timeline("plan", plan_id)
        elif kind == "available_commands_update":
            self.commands = upd["availableCommands"]
        elif kind == "config_option_update":
            self.config = upd["configOptions"]
        elif kind == "session_info_update":
            for key, attr in (("title", "title"), ("updatedAt", "updatedAt"), ("_meta", "meta")):
                if key in upd:
                    self.info[attr] = upd[key]
        elif kind == "usage_update":
            previous = None if self.usage is None else self.usage["cost"]
            self.usage = {
                "used": upd["used"],
                "size": upd["size"],
                "cost": upd.get("cost", previous),  # Q11: absent keeps the last cost
                "meta": upd.get("_meta"),
            }
        else:
            assert kind not in HANDLED
            self.unknown.append(upd)
            if kind in V1_KINDS:
                self.diagnostics.append("reduce.v1-kind-on-v2")

    def view(self) -> dict[str, Any]:
        return {
            "foreground": (self.foreground, self.foreground_raw),
            "timeline": self.timeline,
            "messages": self.messages,
            "toolCalls": self.tool_calls,
            "terminals": {k: {**x, "bytes": bytes(x["bytes"])} for k, x in self.terminals.items()},
            "plans": self.plans,
            "commands": self.commands,
            "config": self.config,
            "info": self.info,
            "usage": self.usage,
            "unknown": self.unknown,
            "diagnostics": self.diagnostics,
        }


def _thaw(value: Any) -> Any:
    return None if value is None else acp.thaw_json(value)


def _wire(part: str, values: Any) -> list[Any]:
    return [encode_part(part, v) for v in values]


def real_view(state: acp.SessionState) -> dict[str, Any]:
    """What a client can observe, in the model's plain shapes (wire dicts for wire values)."""
    fg = state.foreground
    usage = state.usage
    return {
        "foreground": (
            {"state": fg.state, "stopReason": fg.stop_reason, "meta": _thaw(fg.meta)},
            _thaw(fg.raw),
        ),
        "timeline": [(r.kind, r.id) for r in state.timeline],
        "messages": {
            mid: {
                "role": m.role,
                "content": _wire("ContentBlock", m.content),
                "meta": _thaw(m.meta),
                "chunkMeta": {i: _thaw(v) for i, v in m.chunk_meta.items()},
            }
            for mid, m in state.messages.items()
        },
        "toolCalls": {
            tid: {
                "title": t.title,
                "kind": t.kind,
                "status": t.status,
                "content": _wire("ToolCallContent", t.content),
                "locations": _wire("ToolCallLocation", t.locations),
                "rawInput": _thaw(t.raw_input),
                "rawOutput": _thaw(t.raw_output),
                "meta": _thaw(t.meta),
                "chunkMeta": {i: _thaw(v) for i, v in t.chunk_meta.items()},
            }
            for tid, t in state.tool_calls.items()
        },
        "terminals": {
            xid: {
                "command": x.command,
                "cwd": x.cwd,
                "bytes": acp.terminal_bytes(x),
                "snapshotMeta": _thaw(x.snapshot_meta),
                "exitStatus": None
                if x.exit_status is None
                else encode_part("TerminalExitStatus", x.exit_status),
                "meta": _thaw(x.meta),
            }
            for xid, x in state.terminals.items()
        },
        "plans": {
            pid: (encode_part("PlanUpdateContent", p.plan), _thaw(p.meta))
            for pid, p in state.plans.items()
        },
        "commands": None
        if state.available_commands is None
        else _wire("AvailableCommand", state.available_commands),
        "config": None
        if state.config_options is None
        else _wire("SessionConfigOption", state.config_options),
        "info": {
            "title": state.info.title,
            "updatedAt": state.info.updated_at,
            "meta": _thaw(state.info.meta),
        },
        "usage": None
        if usage is None
        else {
            "used": usage.used,
            "size": usage.size,
            "cost": None if usage.cost is None else encode_part("Cost", usage.cost),
            "meta": _thaw(usage.meta),
        },
        "unknown": [_thaw(u.raw) for u in state.unknown],
        "diagnostics": [d.rule for d in state.diagnostics],
    }


# Built once (hypothesis caches work per strategy object), drawn at the revision the machine
# reduces at (`ss.REVISION`): a later revision's value can be off an earlier one's wire (an
# exit code is int64 from 2026-11 on, uint32 before: -1 does not decode at 2026-08).
_ANY_WIRE = acps.wire_updates(revision=ss.REVISION)


@st.composite
def any_wire_update(draw: st.DrawFn) -> dict[str, Any]:
    """Any variant with every field (public strategies), behind a short repr: the strategy's
    own repr is 30 kB, which hypothesis would render for the rule."""
    wire: dict[str, Any] = draw(_ANY_WIRE)
    return wire


class ReducerVersusModel(RuleBasedStateMachine):
    message_ids = Bundle("message_ids")
    tool_call_ids = Bundle("tool_call_ids")
    terminal_ids = Bundle("terminal_ids")

    # existing ids most of the time, a fresh one sometimes
    mids = st.one_of(message_ids, message_ids, ss.ids)
    tids = st.one_of(tool_call_ids, tool_call_ids, ss.ids)
    xids = st.one_of(terminal_ids, terminal_ids, ss.ids)

    def __init__(self) -> None:
        super().__init__()
        self.state = acp.new_session(SID)
        self.model = Model()
        self.history: list[acp.SessionUpdate] = []

    def send(self, wire: dict[str, Any]) -> None:
        update = ss.decode_update(wire, strict=True)
        before = self.state
        self.state = ss.reduce(before, update)
        self.model.apply(copy.deepcopy(wire))
        self.history.append(update)
        # only state updates touch the foreground (3.10, R40)
        if wire["sessionUpdate"] != "state_update":
            assert self.state.foreground is before.foreground
        # the timeline only grows at the end (first-seen order, nothing moves)
        assert list(self.state.timeline)[: len(before.timeline)] == list(before.timeline)

    @rule(target=message_ids, mid=ss.ids)
    def new_message_id(self, mid: str) -> str:
        return mid

    @rule(target=tool_call_ids, tid=ss.ids)
    def new_tool_call_id(self, tid: str) -> str:
        return tid

    @rule(target=terminal_ids, xid=ss.ids)
    def new_terminal_id(self, xid: str) -> str:
        return xid

    @rule(wire=ss.message_chunks(mids))
    def message_chunk(self, wire: dict[str, Any]) -> None:
        self.send(wire)

    @rule(wire=ss.message_upserts(mids))
    def message_upsert(self, wire: dict[str, Any]) -> None:
        self.send(wire)

    @rule(wire=ss.state_updates)
    def state_update(self, wire: dict[str, Any]) -> None:
        self.send(wire)

    @rule(wire=ss.tool_call_updates(tids))
    def tool_call_update(self, wire: dict[str, Any]) -> None:
        self.send(wire)

    @rule(wire=ss.tool_call_chunks(tids))
    def tool_call_chunk(self, wire: dict[str, Any]) -> None:
        self.send(wire)

    @rule(wire=ss.terminal_updates(xids))
    def terminal_update(self, wire: dict[str, Any]) -> None:
        self.send(wire)

    @rule(wire=ss.terminal_chunks(xids))
    def terminal_chunk(self, wire: dict[str, Any]) -> None:
        self.send(wire)

    @rule(
        wire=st.one_of(
            ss.plan_updates,
            ss.command_updates,
            ss.config_updates,
            ss.info_updates,
            ss.usage_updates,
        )
    )
    def session_wide(self, wire: dict[str, Any]) -> None:
        self.send(wire)

    @rule(wire=ss.unknown_updates)
    def unknown(self, wire: dict[str, Any]) -> None:
        self.send(wire)

    @rule(wire=any_wire_update())
    def any_variant(self, wire: dict[str, Any]) -> None:
        # every field of every variant, random ids
        self.send(wire)

    @invariant()
    def observable_views_agree(self) -> None:
        assert real_view(self.state) == self.model.view()

    def teardown(self) -> None:
        # fold (which applies runs of chunks in bulk) equals the step-by-step reduce
        assert ss.fold(acp.new_session(SID), self.history) == self.state


ReducerVersusModel.TestCase.settings = settings(
    ReducerVersusModel.TestCase.settings, stateful_step_count=30
)
TestReducerVersusModel = ReducerVersusModel.TestCase
