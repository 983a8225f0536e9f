"""Decode a v2 session update, look at it as a value, and encode it back (no I/O in the core)."""

from __future__ import annotations

import json

import acp_core as acp

WIRE = {
    "sessionUpdate": "agent_message_chunk",
    "messageId": "msg_1",
    "content": {"type": "text", "text": "Hello from the agent"},
    "_meta": {"example.com/trace": "abc"},
}

update = acp.decode_update(WIRE)
assert isinstance(update, acp.AgentMessageChunk)
print("decoded:", update)
print("re-encoded:", json.dumps(acp.encode_update(update)))
assert acp.encode_update(update) == WIRE
