"""The practical floor: a hand-written mutable fold over wire dicts, no validation.

Owns: `fold_floor`, the fastest reasonable Python implementation of the v2 reducer rules
(digest section 3.14): plain dicts and lists mutated in place, wire dicts read with `[]` and
`.get`, no decoding, no copies beyond what correctness needs (a replaced content array is
copied so a later chunk does not append into the caller's wire list).
Must not know: acp_core. It is the yardstick acp_core is measured against.

What it skips that acp_core does: type checks, unknown-field preservation, diagnostics,
immutability (no earlier state survives), lenient-mode repairs. So "within Nx of the
floor" is the price of all of those together.
"""

from __future__ import annotations

import base64
from typing import Any

__all__ = ["floor_message_text", "floor_terminal_bytes", "fold_floor", "new_floor_state"]

Wire = dict[str, Any]

_ROLE = {
    "user_message_chunk": "user",
    "agent_message_chunk": "agent",
    "agent_thought_chunk": "thought",
    "user_message": "user",
    "agent_message": "agent",
    "agent_thought": "thought",
}
_TOOL_FIELDS = (
    ("title", "title"),
    ("kind", "kind"),
    ("status", "status"),
    ("rawInput", "raw_input"),
    ("rawOutput", "raw_output"),
    ("_meta", "meta"),
)
_b64decode = base64.b64decode


def new_floor_state(session_id: str) -> Wire:
    """An empty mutable session view."""
    return {
        "session_id": session_id,
        "foreground": {"state": "idle", "stop_reason": None, "meta": None},
        "timeline": [],
        "seen": set(),
        "messages": {},
        "tool_calls": {},
        "terminals": {},
        "plans": {},
        "commands": None,
        "config": None,
        "info": {},
        "usage": None,
        "unknown": [],
    }


def _new_tool() -> Wire:
    return {
        "title": None,
        "kind": "other",
        "status": "pending",
        "content": [],
        "locations": [],
        "raw_input": None,
        "raw_output": None,
        "meta": None,
        "chunk_meta": {},
    }


def _new_terminal() -> Wire:
    return {
        "command": None,
        "cwd": None,
        "bytes": [],
        "snapshot_meta": None,
        "exit": None,
        "meta": None,
    }


def fold_floor(view: Wire, updates: Any) -> Wire:
    """Apply every wire update to `view` in place and return it."""
    messages = view["messages"]
    tools = view["tool_calls"]
    terminals = view["terminals"]
    timeline = view["timeline"]
    seen = view["seen"]
    for upd in updates:
        tag = upd["sessionUpdate"]
        if tag in ("agent_message_chunk", "agent_thought_chunk", "user_message_chunk"):
            mid = upd["messageId"]
            m = messages.get(mid)
            if m is None:
                m = messages[mid] = {
                    "role": _ROLE[tag],
                    "content": [],
                    "meta": None,
                    "chunk_meta": {},
                }
                key = ("message", mid)
                if key not in seen:
                    seen.add(key)
                    timeline.append(key)
            content = m["content"]
            content.append(upd["content"])
            if "_meta" in upd:
                m["chunk_meta"][len(content) - 1] = upd["_meta"]
        elif tag == "tool_call_update":
            cid = upd["toolCallId"]
            t = tools.get(cid)
            if t is None:
                t = tools[cid] = _new_tool()
                key = ("toolCall", cid)
                if key not in seen:
                    seen.add(key)
                    timeline.append(key)
            for wire, name in _TOOL_FIELDS:
                if wire in upd:
                    t[name] = upd[wire]
            if t["kind"] is None:
                t["kind"] = "other"
            if t["status"] is None:
                t["status"] = "pending"
            if "content" in upd:
                t["content"] = list(upd["content"] or ())
                t["chunk_meta"] = {}
                for item in t["content"]:
                    if item.get("type") == "terminal":
                        terminals.setdefault(item["terminalId"], _new_terminal())
            if "locations" in upd:
                t["locations"] = list(upd["locations"] or ())
        elif tag == "tool_call_content_chunk":
            cid = upd["toolCallId"]
            t = tools.get(cid)
            if t is None:
                t = tools[cid] = _new_tool()
                key = ("toolCall", cid)
                if key not in seen:
                    seen.add(key)
                    timeline.append(key)
            item = upd["content"]
            t["content"].append(item)
            if "_meta" in upd:
                t["chunk_meta"][len(t["content"]) - 1] = upd["_meta"]
            if item.get("type") == "terminal":
                terminals.setdefault(item["terminalId"], _new_terminal())
        elif tag == "terminal_output_chunk":
            x = terminals.get(upd["terminalId"])
            if x is None:
                x = terminals[upd["terminalId"]] = _new_terminal()
            x["bytes"].append(_b64decode(upd["data"]))
        elif tag == "state_update":
            state = upd["state"]
            fg = view["foreground"]
            view["foreground"] = {
                "state": state,
                "stop_reason": upd.get("stopReason") if state == "idle" else fg["stop_reason"],
                "meta": upd.get("_meta"),
            }
        elif tag in ("agent_message", "user_message", "agent_thought"):
            mid = upd["messageId"]
            m = messages.get(mid)
            if m is None:
                m = messages[mid] = {
                    "role": _ROLE[tag],
                    "content": [],
                    "meta": None,
                    "chunk_meta": {},
                }
                key = ("message", mid)
                if key not in seen:
                    seen.add(key)
                    timeline.append(key)
            if "content" in upd:
                m["content"] = list(upd["content"] or ())
                m["chunk_meta"] = {}
            if "_meta" in upd:
                m["meta"] = upd["_meta"]
        elif tag == "terminal_update":
            x = terminals.get(upd["terminalId"])
            if x is None:
                x = terminals[upd["terminalId"]] = _new_terminal()
            if "command" in upd:
                x["command"] = upd["command"]
            if "cwd" in upd:
                x["cwd"] = upd["cwd"]
            if "exitStatus" in upd:
                x["exit"] = upd["exitStatus"]
            if "_meta" in upd:
                x["meta"] = upd["_meta"]
            if "output" in upd:
                out = upd["output"]
                x["bytes"] = [] if out is None else [_b64decode(out["data"])]
                x["snapshot_meta"] = None if out is None else out.get("_meta")
        elif tag == "plan_update":
            plan = upd["plan"]
            pid = plan["planId"]
            view["plans"][pid] = plan
            key = ("plan", pid)
            if key not in seen:
                seen.add(key)
                timeline.append(key)
        elif tag == "usage_update":
            old = view["usage"]
            view["usage"] = {
                "used": upd["used"],
                "size": upd["size"],
                "cost": upd["cost"] if "cost" in upd else (old and old["cost"]),
                "meta": upd.get("_meta"),
            }
        elif tag == "session_info_update":
            info = view["info"]
            for wire in ("title", "updatedAt", "_meta"):
                if wire in upd:
                    info[wire] = upd[wire]
        elif tag == "available_commands_update":
            view["commands"] = upd["availableCommands"]
        elif tag == "config_option_update":
            view["config"] = upd["configOptions"]
        else:
            view["unknown"].append(upd)
    return view


def floor_message_text(view: Wire, message_id: str) -> str:
    """The text blocks of one message, joined (for cross-checking with acp_core)."""
    return "".join(
        b["text"] for b in view["messages"][message_id]["content"] if b.get("type") == "text"
    )


def floor_terminal_bytes(view: Wire, terminal_id: str) -> bytes:
    """All bytes of one terminal."""
    return b"".join(view["terminals"][terminal_id]["bytes"])
