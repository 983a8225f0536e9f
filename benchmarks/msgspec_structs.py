"""Frozen msgspec Structs for the `mixed` workload's `session/update` lines (benchmarks/anchors.py).

Owns: the typed shape msgspec decodes the anchor's bytes into: a tagged union of the update
kinds the workload uses (`sessionUpdate`), content blocks tagged by `type`, camelCase names.
Unknown fields are dropped, as msgspec does by default. Imported only where msgspec is.
Must not know: acp-core, timing.
"""

from __future__ import annotations

from typing import Any

from msgspec import UNSET, Struct, UnsetType


def tagged(tag_field: str) -> dict[str, Any]:
    return {"frozen": True, "rename": "camel", "tag_field": tag_field}


class Text(Struct, tag="text", **tagged("type")):  # type: ignore[call-arg]
    text: str


class Image(Struct, tag="image", **tagged("type")):  # type: ignore[call-arg]
    data: str
    mime_type: str


class ResourceLink(Struct, tag="resource_link", **tagged("type")):  # type: ignore[call-arg]
    uri: str
    name: str


Block = Text | Image | ResourceLink


class Content(Struct, tag="content", **tagged("type")):  # type: ignore[call-arg]
    content: Block  # type: ignore[valid-type]


class Location(Struct, frozen=True):
    path: str
    line: int | UnsetType = UNSET


class CommandInput(Struct, frozen=True):
    type: str
    hint: str


class Command(Struct, frozen=True):
    name: str
    description: str
    input: CommandInput | None = None


class Entry(Struct, frozen=True):
    content: str
    priority: str
    status: str


class Items(Struct, tag="items", **tagged("type")):  # type: ignore[call-arg]
    plan_id: str
    entries: tuple[Entry, ...]


class Cost(Struct, frozen=True):
    amount: float
    currency: str


def update(tag: str) -> dict[str, Any]:
    return {"tag": tag, **tagged("sessionUpdate")}


class UserMessage(Struct, **update("user_message")):  # type: ignore[call-arg]
    message_id: str
    content: tuple[Block, ...]  # type: ignore[valid-type]


class UserChunk(Struct, **update("user_message_chunk")):  # type: ignore[call-arg]
    message_id: str
    content: Block  # type: ignore[valid-type]


class AgentChunk(Struct, **update("agent_message_chunk")):  # type: ignore[call-arg]
    message_id: str
    content: Block  # type: ignore[valid-type]


class ThoughtChunk(Struct, **update("agent_thought_chunk")):  # type: ignore[call-arg]
    message_id: str
    content: Block  # type: ignore[valid-type]


class StateUpdate(Struct, **update("state_update")):  # type: ignore[call-arg]
    state: str
    stop_reason: str | UnsetType = UNSET


class UsageUpdate(Struct, **update("usage_update")):  # type: ignore[call-arg]
    used: int
    size: int
    cost: Cost | None = None


class InfoUpdate(Struct, **update("session_info_update")):  # type: ignore[call-arg]
    title: str | None | UnsetType = UNSET
    updated_at: str | None | UnsetType = UNSET


class CommandsUpdate(Struct, **update("available_commands_update")):  # type: ignore[call-arg]
    available_commands: tuple[Command, ...]


class PlanUpdate(Struct, **update("plan_update")):  # type: ignore[call-arg]
    plan: Items


class ToolCallUpdate(Struct, **update("tool_call_update")):  # type: ignore[call-arg]
    tool_call_id: str
    title: str | UnsetType = UNSET
    kind: str | UnsetType = UNSET
    status: str | UnsetType = UNSET
    content: tuple[Content, ...] | UnsetType = UNSET
    locations: tuple[Location, ...] | UnsetType = UNSET
    raw_input: Any = UNSET
    raw_output: Any = UNSET


class ToolContentChunk(Struct, **update("tool_call_content_chunk")):  # type: ignore[call-arg]
    tool_call_id: str
    content: Content


Update = (
    UserMessage | UserChunk | AgentChunk | ThoughtChunk | StateUpdate | UsageUpdate
    | InfoUpdate | CommandsUpdate | PlanUpdate | ToolCallUpdate | ToolContentChunk
)  # fmt: skip


class Params(Struct, frozen=True, rename="camel"):
    session_id: str
    update: Update  # type: ignore[valid-type]


class Notification(Struct, frozen=True):
    jsonrpc: str
    method: str
    params: Params
