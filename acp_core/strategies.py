"""Hypothesis strategies for every acp-core value: generate valid ACP v2 traffic.

Public but optional: this module imports hypothesis (install `acp-core[strategies]`), and
`import acp_core` never imports it. Use it to property-test code built on acp-core or to
produce realistic, schema-valid session traffic for experiments:

    from acp_core import strategies as acps
    @given(acps.session_updates())
    def test_my_renderer(update): ...

What the strategies draw:
- every value type, including each `Other*` variant with an unknown tag (never a known one);
- tri-state fields: `UNSET` (absent), `None` (null) and values;
- open enums: known constants, `_`-prefixed extension values and unknown future strings;
- `extra` maps with keys no ACP type uses (`_x...`, `zz...`), so values round-trip exactly;
- what the stable schema constrains (uint32/uint64/int64 ranges, `currency` `^[A-Z]{3}$`,
  non-empty permission options, base64 payloads, RFC 3339 timestamps), so every encoded value
  validates against the stable v2 schema. The one shape acp-core tolerates but the stable
  schema rejects (plan types `file` and `markdown`, digest Q9) is drawn only when a strategy
  is called with `tolerated=True`.
"""

from __future__ import annotations

import base64
from collections.abc import Iterable, Mapping
from typing import Any, Final, TypeVar

import attrs
import immutables
from hypothesis import strategies as st

from . import _content as c
from . import _jsonrpc as j
from . import _updates as u
from ._codec import encode_message, encode_update
from ._json import EMPTY_OBJECT, UNSET, JsonObject, JsonValue, Meta, Patch, Unset
from ._revision import DEFAULT_REVISION, REVISIONS, Revision
from ._wire import WIRE

__all__ = [
    "agent_message_chunks",
    "agent_messages",
    "agent_thought_chunks",
    "agent_thoughts",
    "audio_contents",
    "available_commands",
    "available_commands_updates",
    "blob_resource_contents",
    "cancel_request_notifications",
    "cancel_session_notifications",
    "cancelled_outcomes",
    "command_inputs",
    "command_permission_subjects",
    "config_option_updates",
    "content_annotations",
    "content_blocks",
    "costs",
    "diff_changes",
    "diff_patches",
    "diffs",
    "embedded_resources",
    "error_responses",
    "extras",
    "icons",
    "idle_state_updates",
    "image_contents",
    "json_objects",
    "json_values",
    "messages",
    "metas",
    "notifications",
    "open_enum_values",
    "other_command_inputs",
    "other_contents",
    "other_diff_changes",
    "other_permission_outcomes",
    "other_permission_subjects",
    "other_plans",
    "other_session_config_options",
    "other_state_updates",
    "other_tool_call_contents",
    "other_updates",
    "patches",
    "permission_options",
    "permission_outcomes",
    "permission_subjects",
    "plan_entries",
    "plan_items",
    "plan_updates",
    "prompt_requests",
    "prompt_results",
    "request_ids",
    "request_permission_requests",
    "request_permission_results",
    "requests",
    "requires_action_state_updates",
    "resource_links",
    "responses",
    "rpc_errors",
    "running_state_updates",
    "selected_outcomes",
    "session_config_booleans",
    "session_config_options",
    "session_config_select_groups",
    "session_config_select_options",
    "session_config_selects",
    "session_info_updates",
    "session_updates",
    "state_updates",
    "terminal_exit_statuses",
    "terminal_output_chunks",
    "terminal_outputs",
    "terminal_refs",
    "terminal_updates",
    "text_command_inputs",
    "text_contents",
    "text_resource_contents",
    "tool_call_content_chunks",
    "tool_call_contents",
    "tool_call_locations",
    "tool_call_permission_subjects",
    "tool_call_updates",
    "tool_contents",
    "unknown_tags",
    "update_session_notifications",
    "usage_updates",
    "user_message_chunks",
    "user_messages",
    "wire_messages",
    "wire_updates",
]

T = TypeVar("T")

_INT64_MIN: Final = -(2**63)
_INT64_MAX: Final = 2**63 - 1
_UINT32_MAX: Final = 2**32 - 1
_UINT64_MAX: Final = 2**64 - 1
_INT32_MIN: Final = -(2**31)
_INT32_MAX: Final = 2**31 - 1

# -- known tags (what an unknown tag must never be) -------------------------------------

_CONTENT_TAGS: Final = frozenset({"text", "image", "audio", "resource_link", "resource"})
_TOOL_CONTENT_TAGS: Final = frozenset({"content", "diff", "terminal"})
_DIFF_OPERATIONS: Final = (
    c.DiffOperation.ADD,
    c.DiffOperation.DELETE,
    c.DiffOperation.MODIFY,
    c.DiffOperation.MOVE,
    c.DiffOperation.COPY,
)
# Every update kind any revision defines: an "unknown" tag must be unknown to all of them.
_UPDATE_TAGS: Final = frozenset().union(*(r.update_kinds for r in REVISIONS.values()))
# `file` and `markdown` are reserved plan types the stable schema rejects (digest Q9).
_RESERVED_PLAN_TYPES: Final = ("file", "markdown")
_TYPED_REQUESTS: Final = frozenset({j.Method.SESSION_PROMPT, j.Method.REQUEST_PERMISSION})
_TYPED_NOTIFICATIONS: Final = frozenset(
    {j.Method.SESSION_UPDATE, j.Method.SESSION_CANCEL, j.Method.CANCEL_REQUEST}
)

# Words a future ACP revision might use; each is filtered against the known tags of its union.
_FUTURE_WORDS: Final = ("notice", "compaction", "paused", "error", "background", "widget")

_LOWER: Final = "abcdefghijklmnopqrstuvwxyz"
_KEY_ALPHABET: Final = _LOWER + "0123456789_"

# -- scalars -----------------------------------------------------------------------------

_texts: Final = st.text(max_size=10)
_ids: Final = st.text(max_size=8)
_uint32: Final = st.integers(0, _UINT32_MAX)
_uint64: Final = st.integers(0, _UINT64_MAX)
_int64: Final = st.integers(_INT64_MIN, _INT64_MAX)
_paths: Final = st.lists(st.text(_LOWER, min_size=1, max_size=5), min_size=1, max_size=3).map(
    lambda parts: "/" + "/".join(parts)
)
_uris: Final = _paths.map(lambda path: "file://" + path)
_mime_types: Final = st.sampled_from(
    ("text/plain", "text/markdown", "image/png", "audio/wav", "application/json")
)
_base64: Final = st.binary(max_size=24).map(lambda b: base64.b64encode(b).decode("ascii"))
_currencies: Final = st.text("ABCDEFGHIJKLMNOPQRSTUVWXYZ", min_size=3, max_size=3)
_timestamps: Final = st.builds(
    "{:04d}-{:02d}-{:02d}T{:02d}:{:02d}:{:02d}Z".format,
    st.integers(1970, 2100),
    st.integers(1, 12),
    st.integers(1, 28),
    st.integers(0, 23),
    st.integers(0, 59),
    st.integers(0, 59),
)
_extra_keys: Final = st.builds(
    str.__add__, st.sampled_from(("_x", "zz")), st.text(_KEY_ALPHABET, max_size=5)
)


def _tuples(
    strategy: st.SearchStrategy[T], *, min_size: int = 0, max_size: int = 3
) -> st.SearchStrategy[tuple[T, ...]]:
    return st.lists(strategy, min_size=min_size, max_size=max_size).map(tuple)


# -- JSON, meta, extra, patches, open enums ------------------------------------------------


def json_values(*, max_leaves: int = 6) -> st.SearchStrategy[JsonValue]:
    """Frozen JSON: None, bools, int64 integers, finite floats, strings, tuples, Maps."""
    leaves: st.SearchStrategy[JsonValue] = st.one_of(
        st.none(),
        st.booleans(),
        _int64,
        st.floats(allow_nan=False, allow_infinity=False),
        st.text(max_size=8),
    )

    def extend(children: st.SearchStrategy[JsonValue]) -> st.SearchStrategy[JsonValue]:
        arrays: st.SearchStrategy[JsonValue] = _tuples(children)
        objects: st.SearchStrategy[JsonValue] = st.dictionaries(
            st.text(max_size=6), children, max_size=3
        ).map(immutables.Map)
        return arrays | objects

    return st.recursive(leaves, extend, max_leaves=max_leaves)


def json_objects(*, max_leaves: int = 6) -> st.SearchStrategy[JsonObject]:
    """Frozen JSON objects (`immutables.Map` with string keys)."""
    return st.dictionaries(st.text(max_size=6), json_values(max_leaves=max_leaves), max_size=3).map(
        immutables.Map
    )


def metas() -> st.SearchStrategy[Meta]:
    """A `_meta` field: `UNSET` (absent), `None` (null) or a JSON object."""
    return st.one_of(st.just(UNSET), st.none(), json_objects(max_leaves=4))


def extras() -> st.SearchStrategy[JsonObject]:
    """An `extra` map of unknown keys; the keys (`_x...`, `zz...`) are no ACP type's wire key."""
    return st.one_of(
        st.just(EMPTY_OBJECT),
        st.dictionaries(_extra_keys, json_values(max_leaves=3), min_size=1, max_size=2).map(
            immutables.Map
        ),
    )


def patches(strategy: st.SearchStrategy[T]) -> st.SearchStrategy[Patch[T]]:
    """A tri-state field: `UNSET` (absent), `None` (null) or a value drawn from `strategy`."""
    absent: st.SearchStrategy[Patch[T]] = st.just(UNSET)
    return st.one_of(absent, st.none(), strategy)


def unknown_tags(known: Iterable[str]) -> st.SearchStrategy[str]:
    """Tags or enum values outside `known`: `_`-prefixed extension ones and future ones."""
    known_set = frozenset(known)
    return st.one_of(
        st.text(max_size=8).map(lambda s: "_" + s),
        st.sampled_from(_FUTURE_WORDS).filter(lambda s: s not in known_set),
        st.text(min_size=1, max_size=10).filter(
            lambda s: not s.startswith("_") and s not in known_set
        ),
    )


def open_enum_values(known: Iterable[str]) -> st.SearchStrategy[str]:
    """A value of an open enum: a known constant, an extension value or a future one."""
    known_sorted = sorted(known)
    return st.one_of(st.sampled_from(known_sorted), unknown_tags(known_sorted))


def _raw_objects(
    tag_key: str,
    tags: st.SearchStrategy[str],
    fields: Mapping[str, st.SearchStrategy[Any]] | None = None,
) -> st.SearchStrategy[JsonObject]:
    """The raw object of an `Other*` variant: unknown tag, required fields, free extras."""
    free = st.dictionaries(_extra_keys, json_values(max_leaves=3), max_size=2)
    required = st.fixed_dictionaries({**(fields or {}), tag_key: tags})
    return st.builds(_merge_raw, free, metas(), required)


def _merge_raw(free: dict[str, JsonValue], meta: Meta, required: dict[str, Any]) -> JsonObject:
    out = dict(free)
    if meta is not UNSET:
        out["_meta"] = meta
    out.update(required)
    return immutables.Map(out)


_ROLES: Final = ("assistant", "user")
_ICON_THEMES: Final = ("light", "dark")
_FILE_TYPES: Final = (
    c.DiffFileType.TEXT,
    c.DiffFileType.BINARY,
    c.DiffFileType.DIRECTORY,
    c.DiffFileType.SYMLINK,
)
_CATEGORIES: Final = (
    u.SessionConfigOptionCategory.MODE,
    u.SessionConfigOptionCategory.MODEL,
    u.SessionConfigOptionCategory.MODEL_CONFIG,
    u.SessionConfigOptionCategory.THOUGHT_LEVEL,
)
_PERMISSION_KINDS: Final = (
    j.PermissionOptionKind.ALLOW_ONCE,
    j.PermissionOptionKind.ALLOW_ALWAYS,
    j.PermissionOptionKind.REJECT_ONCE,
    j.PermissionOptionKind.REJECT_ALWAYS,
)

# -- content -----------------------------------------------------------------------------


def content_annotations() -> st.SearchStrategy[c.Annotations]:
    """`Annotations` (priority within [0, 1], RFC 3339 `lastModified`)."""
    return st.builds(
        c.Annotations,
        audience=patches(_tuples(open_enum_values(_ROLES), max_size=2)),
        last_modified=patches(_timestamps),
        priority=patches(st.floats(0, 1)),
        meta=metas(),
        extra=extras(),
    )


def text_contents() -> st.SearchStrategy[c.TextContent]:
    """`TextContent` blocks."""
    return st.builds(
        c.TextContent,
        text=_texts,
        annotations=patches(content_annotations()),
        meta=metas(),
        extra=extras(),
    )


def image_contents() -> st.SearchStrategy[c.ImageContent]:
    """`ImageContent` blocks (base64 `data`)."""
    return st.builds(
        c.ImageContent,
        data=_base64,
        mime_type=_mime_types,
        uri=patches(_uris),
        annotations=patches(content_annotations()),
        meta=metas(),
        extra=extras(),
    )


def audio_contents() -> st.SearchStrategy[c.AudioContent]:
    """`AudioContent` blocks (base64 `data`)."""
    return st.builds(
        c.AudioContent,
        data=_base64,
        mime_type=_mime_types,
        annotations=patches(content_annotations()),
        meta=metas(),
        extra=extras(),
    )


def icons() -> st.SearchStrategy[c.Icon]:
    """`Icon`s of resource links."""
    return st.builds(
        c.Icon,
        src=_uris,
        mime_type=patches(_mime_types),
        sizes=patches(_tuples(st.sampled_from(("16x16", "48x48", "any")), max_size=2)),
        theme=patches(open_enum_values(_ICON_THEMES)),
        extra=extras(),
    )


def resource_links() -> st.SearchStrategy[c.ResourceLink]:
    """`ResourceLink` blocks (int64 `size`)."""
    return st.builds(
        c.ResourceLink,
        name=_texts,
        uri=_uris,
        title=patches(_texts),
        description=patches(_texts),
        icons=patches(_tuples(icons(), max_size=2)),
        mime_type=patches(_mime_types),
        size=patches(_int64),
        annotations=patches(content_annotations()),
        meta=metas(),
        extra=extras(),
    )


def text_resource_contents() -> st.SearchStrategy[c.TextResourceContents]:
    """Text contents of an embedded resource."""
    return st.builds(
        c.TextResourceContents,
        uri=_uris,
        text=_texts,
        mime_type=patches(_mime_types),
        meta=metas(),
        extra=extras(),
    )


def blob_resource_contents() -> st.SearchStrategy[c.BlobResourceContents]:
    """Binary (base64) contents of an embedded resource."""
    return st.builds(
        c.BlobResourceContents,
        uri=_uris,
        blob=_base64,
        mime_type=patches(_mime_types),
        meta=metas(),
        extra=extras(),
    )


def embedded_resources() -> st.SearchStrategy[c.EmbeddedResource]:
    """`EmbeddedResource` blocks with text or blob contents."""
    return st.builds(
        c.EmbeddedResource,
        resource=text_resource_contents() | blob_resource_contents(),
        annotations=patches(content_annotations()),
        meta=metas(),
        extra=extras(),
    )


def other_contents() -> st.SearchStrategy[c.OtherContent]:
    """Content blocks of unknown `type`."""
    return st.builds(c.OtherContent, _raw_objects("type", unknown_tags(_CONTENT_TAGS)))


def content_blocks() -> st.SearchStrategy[c.ContentBlock]:
    """Any `ContentBlock`, unknown types included."""
    return st.one_of(
        text_contents(),
        image_contents(),
        audio_contents(),
        resource_links(),
        embedded_resources(),
        other_contents(),
    )


# -- tool call content -------------------------------------------------------------------


def diff_changes() -> st.SearchStrategy[c.DiffChange]:
    """`DiffChange`s of the known operations (`move`/`copy` always name their `oldPath`)."""
    single = (c.DiffOperation.ADD, c.DiffOperation.DELETE, c.DiffOperation.MODIFY)
    pair = (c.DiffOperation.MOVE, c.DiffOperation.COPY)
    common: dict[str, st.SearchStrategy[Any]] = {
        "path": _paths,
        "file_type": patches(open_enum_values(_FILE_TYPES)),
        "mime_type": patches(_mime_types),
        "meta": metas(),
        "extra": extras(),
    }
    return st.one_of(
        st.builds(
            c.DiffChange, operation=st.sampled_from(single), old_path=st.just(UNSET), **common
        ),
        st.builds(c.DiffChange, operation=st.sampled_from(pair), old_path=_paths, **common),
    )


def other_diff_changes() -> st.SearchStrategy[c.OtherDiffChange]:
    """Diff changes with an unknown `operation`."""
    return st.builds(c.OtherDiffChange, _raw_objects("operation", unknown_tags(_DIFF_OPERATIONS)))


def diff_patches() -> st.SearchStrategy[c.DiffPatch]:
    """`DiffPatch` texts (format `git_patch` or another)."""
    return st.builds(
        c.DiffPatch, format=open_enum_values(("git_patch",)), text=_texts, extra=extras()
    )


def tool_contents() -> st.SearchStrategy[c.ToolContent]:
    """`{"type": "content"}` tool-call content."""
    return st.builds(c.ToolContent, content=content_blocks(), meta=metas(), extra=extras())


def diffs() -> st.SearchStrategy[c.Diff]:
    """`{"type": "diff"}` tool-call content."""
    return st.builds(
        c.Diff,
        changes=_tuples(diff_changes() | other_diff_changes()),
        patch=patches(diff_patches()),
        meta=metas(),
        extra=extras(),
    )


def terminal_refs() -> st.SearchStrategy[c.TerminalRef]:
    """`{"type": "terminal"}` tool-call content."""
    return st.builds(c.TerminalRef, terminal_id=_ids, meta=metas(), extra=extras())


def other_tool_call_contents() -> st.SearchStrategy[c.OtherToolCallContent]:
    """Tool-call content of unknown `type`."""
    return st.builds(c.OtherToolCallContent, _raw_objects("type", unknown_tags(_TOOL_CONTENT_TAGS)))


def tool_call_contents() -> st.SearchStrategy[c.ToolCallContent]:
    """Any `ToolCallContent`, unknown types included."""
    return st.one_of(tool_contents(), diffs(), terminal_refs(), other_tool_call_contents())


def tool_call_locations() -> st.SearchStrategy[c.ToolCallLocation]:
    """`ToolCallLocation`s (uint32 `line`)."""
    return st.builds(
        c.ToolCallLocation, path=_paths, line=patches(_uint32), meta=metas(), extra=extras()
    )


# -- session updates ---------------------------------------------------------------------


def user_message_chunks() -> st.SearchStrategy[u.UserMessageChunk]:
    """`user_message_chunk` updates."""
    return st.builds(
        u.UserMessageChunk, message_id=_ids, content=content_blocks(), meta=metas(), extra=extras()
    )


def agent_message_chunks() -> st.SearchStrategy[u.AgentMessageChunk]:
    """`agent_message_chunk` updates."""
    return st.builds(
        u.AgentMessageChunk, message_id=_ids, content=content_blocks(), meta=metas(), extra=extras()
    )


def agent_thought_chunks() -> st.SearchStrategy[u.AgentThoughtChunk]:
    """`agent_thought_chunk` updates."""
    return st.builds(
        u.AgentThoughtChunk, message_id=_ids, content=content_blocks(), meta=metas(), extra=extras()
    )


def user_messages() -> st.SearchStrategy[u.UserMessage]:
    """`user_message` upserts (content absent, null or a list)."""
    return st.builds(
        u.UserMessage,
        message_id=_ids,
        content=patches(_tuples(content_blocks())),
        meta=metas(),
        extra=extras(),
    )


def agent_messages() -> st.SearchStrategy[u.AgentMessage]:
    """`agent_message` upserts."""
    return st.builds(
        u.AgentMessage,
        message_id=_ids,
        content=patches(_tuples(content_blocks())),
        meta=metas(),
        extra=extras(),
    )


def agent_thoughts() -> st.SearchStrategy[u.AgentThought]:
    """`agent_thought` upserts."""
    return st.builds(
        u.AgentThought,
        message_id=_ids,
        content=patches(_tuples(content_blocks())),
        meta=metas(),
        extra=extras(),
    )


def running_state_updates() -> st.SearchStrategy[u.RunningStateUpdate]:
    """`state_update` with `state: running`."""
    return st.builds(u.RunningStateUpdate, meta=metas(), extra=extras())


def idle_state_updates() -> st.SearchStrategy[u.IdleStateUpdate]:
    """`state_update` with `state: idle` (stop reason absent, null, known or unknown)."""
    return st.builds(
        u.IdleStateUpdate,
        stop_reason=patches(open_enum_values(u.StopReason.KNOWN)),
        meta=metas(),
        extra=extras(),
    )


def requires_action_state_updates() -> st.SearchStrategy[u.RequiresActionStateUpdate]:
    """`state_update` with `state: requires_action`."""
    return st.builds(u.RequiresActionStateUpdate, meta=metas(), extra=extras())


def other_state_updates() -> st.SearchStrategy[u.OtherStateUpdate]:
    """`state_update` with an unknown `state`."""
    return st.builds(
        u.OtherStateUpdate,
        _raw_objects(
            "state",
            unknown_tags(u.ForegroundState.KNOWN),
            {"sessionUpdate": st.just("state_update")},
        ),
    )


def state_updates() -> st.SearchStrategy[u.StateUpdate]:
    """Any `state_update`, unknown states included."""
    return st.one_of(
        running_state_updates(),
        idle_state_updates(),
        requires_action_state_updates(),
        other_state_updates(),
    )


def _on_wire(cls: type[Any], name: str, revision: Revision) -> bool:
    # A field a later revision adds is drawn only for revisions that carry it.
    since = attrs.fields_dict(cls)[name].metadata.get(WIRE)
    return since is None or since.since is None or revision.includes(since.since)


def _since(
    cls: type[Any], name: str, revision: Revision, strategy: st.SearchStrategy[T]
) -> st.SearchStrategy[T | Unset]:
    absent: st.SearchStrategy[T | Unset] = st.just(UNSET)
    return strategy if _on_wire(cls, name, revision) else absent


def tool_call_updates(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[u.ToolCallUpdate]:
    """`tool_call_update` patches (every field tri-state; `name` from 2026-11 on)."""
    return st.builds(
        u.ToolCallUpdate,
        tool_call_id=_ids,
        title=patches(_texts),
        kind=patches(open_enum_values(u.ToolKind.KNOWN)),
        status=patches(open_enum_values(u.ToolCallStatus.KNOWN)),
        content=patches(_tuples(tool_call_contents(), max_size=2)),
        locations=patches(_tuples(tool_call_locations(), max_size=2)),
        raw_input=patches(json_values()),
        raw_output=patches(json_values()),
        name=_since(u.ToolCallUpdate, "name", revision, patches(_texts)),
        meta=metas(),
        extra=extras(),
    )


def tool_call_content_chunks() -> st.SearchStrategy[u.ToolCallContentChunk]:
    """`tool_call_content_chunk` updates."""
    return st.builds(
        u.ToolCallContentChunk,
        tool_call_id=_ids,
        content=tool_call_contents(),
        meta=metas(),
        extra=extras(),
    )


def terminal_outputs() -> st.SearchStrategy[u.TerminalOutput]:
    """Terminal output snapshots (base64 `data`)."""
    return st.builds(u.TerminalOutput, data=_base64, meta=metas(), extra=extras())


def terminal_exit_statuses() -> st.SearchStrategy[u.TerminalExitStatus]:
    """Terminal exit statuses (uint32 `exitCode`)."""
    return st.builds(
        u.TerminalExitStatus,
        exit_code=patches(_uint32),
        signal=patches(st.sampled_from(("SIGTERM", "SIGKILL", "SIGINT")) | _texts),
        meta=metas(),
        extra=extras(),
    )


def terminal_updates() -> st.SearchStrategy[u.TerminalUpdate]:
    """`terminal_update` patches."""
    return st.builds(
        u.TerminalUpdate,
        terminal_id=_ids,
        command=patches(_texts),
        cwd=patches(_paths),
        output=patches(terminal_outputs()),
        exit_status=patches(terminal_exit_statuses()),
        meta=metas(),
        extra=extras(),
    )


def terminal_output_chunks() -> st.SearchStrategy[u.TerminalOutputChunk]:
    """`terminal_output_chunk` updates (base64 `data`)."""
    return st.builds(
        u.TerminalOutputChunk, terminal_id=_ids, data=_base64, meta=metas(), extra=extras()
    )


def plan_entries() -> st.SearchStrategy[u.PlanEntry]:
    """Entries of an `items` plan."""
    return st.builds(
        u.PlanEntry,
        content=_texts,
        priority=open_enum_values(u.PlanEntryPriority.KNOWN),
        status=open_enum_values(u.PlanEntryStatus.KNOWN),
        meta=metas(),
        extra=extras(),
    )


def plan_items() -> st.SearchStrategy[u.PlanItems]:
    """`{"type": "items"}` plans."""
    return st.builds(
        u.PlanItems, plan_id=_ids, entries=_tuples(plan_entries()), meta=metas(), extra=extras()
    )


def other_plans(*, tolerated: bool = False) -> st.SearchStrategy[u.OtherPlan]:
    """Plans of unknown `type`, always with a string `planId`.

    With `tolerated=True` the reserved types `file` and `markdown` are drawn too: acp-core
    keeps them (digest Q9) but the stable schema rejects them.
    """
    tags = unknown_tags({"items", *_RESERVED_PLAN_TYPES})
    if tolerated:
        tags = tags | st.sampled_from(_RESERVED_PLAN_TYPES)
    return st.builds(u.OtherPlan, _raw_objects("type", tags, {"planId": _ids}))


def plan_updates(*, tolerated: bool = False) -> st.SearchStrategy[u.PlanUpdate]:
    """`plan_update` updates (see `other_plans` for `tolerated`)."""
    return st.builds(
        u.PlanUpdate,
        plan=plan_items() | other_plans(tolerated=tolerated),
        meta=metas(),
        extra=extras(),
    )


def text_command_inputs() -> st.SearchStrategy[u.TextCommandInput]:
    """`{"type": "text"}` command inputs."""
    return st.builds(u.TextCommandInput, hint=_texts, meta=metas(), extra=extras())


def other_command_inputs() -> st.SearchStrategy[u.OtherCommandInput]:
    """Command inputs of unknown `type`."""
    return st.builds(u.OtherCommandInput, _raw_objects("type", unknown_tags(("text",))))


def command_inputs() -> st.SearchStrategy[u.TextCommandInput | u.OtherCommandInput]:
    """Any command input."""
    return st.one_of(text_command_inputs(), other_command_inputs())


def available_commands() -> st.SearchStrategy[u.AvailableCommand]:
    """Slash commands."""
    return st.builds(
        u.AvailableCommand,
        name=_texts,
        description=_texts,
        input=patches(command_inputs()),
        meta=metas(),
        extra=extras(),
    )


def available_commands_updates() -> st.SearchStrategy[u.AvailableCommandsUpdate]:
    """`available_commands_update` updates."""
    return st.builds(
        u.AvailableCommandsUpdate,
        available_commands=_tuples(available_commands()),
        meta=metas(),
        extra=extras(),
    )


def session_config_select_options() -> st.SearchStrategy[u.SessionConfigSelectOption]:
    """Values of a select config option."""
    return st.builds(
        u.SessionConfigSelectOption,
        value=_ids,
        name=_texts,
        description=patches(_texts),
        meta=metas(),
        extra=extras(),
    )


def session_config_select_groups() -> st.SearchStrategy[u.SessionConfigSelectGroup]:
    """Groups of select values."""
    return st.builds(
        u.SessionConfigSelectGroup,
        group_id=_ids,
        name=_texts,
        options=_tuples(session_config_select_options(), max_size=2),
        meta=metas(),
        extra=extras(),
    )


def session_config_selects() -> st.SearchStrategy[u.SessionConfigSelect]:
    """`{"type": "select"}` config options, flat or grouped."""
    options: st.SearchStrategy[
        tuple[u.SessionConfigSelectOption, ...] | tuple[u.SessionConfigSelectGroup, ...]
    ] = _tuples(session_config_select_options()) | _tuples(
        session_config_select_groups(), max_size=2
    )
    return st.builds(
        u.SessionConfigSelect,
        config_id=_ids,
        name=_texts,
        current_value=_ids,
        options=options,
        description=patches(_texts),
        category=patches(open_enum_values(_CATEGORIES)),
        meta=metas(),
        extra=extras(),
    )


def session_config_booleans() -> st.SearchStrategy[u.SessionConfigBoolean]:
    """`{"type": "boolean"}` config options."""
    return st.builds(
        u.SessionConfigBoolean,
        config_id=_ids,
        name=_texts,
        current_value=st.booleans(),
        description=patches(_texts),
        category=patches(open_enum_values(_CATEGORIES)),
        meta=metas(),
        extra=extras(),
    )


def other_session_config_options() -> st.SearchStrategy[u.OtherSessionConfigOption]:
    """Config options of unknown `type` (with the `configId` and `name` every option has)."""
    return st.builds(
        u.OtherSessionConfigOption,
        _raw_objects(
            "type", unknown_tags(("select", "boolean")), {"configId": _ids, "name": _texts}
        ),
    )


def session_config_options() -> st.SearchStrategy[u.SessionConfigOption]:
    """Any config option, unknown types included."""
    return st.one_of(
        session_config_selects(), session_config_booleans(), other_session_config_options()
    )


def config_option_updates() -> st.SearchStrategy[u.ConfigOptionUpdate]:
    """`config_option_update` updates."""
    return st.builds(
        u.ConfigOptionUpdate,
        config_options=_tuples(session_config_options(), max_size=2),
        meta=metas(),
        extra=extras(),
    )


def session_info_updates() -> st.SearchStrategy[u.SessionInfoUpdate]:
    """`session_info_update` patches (RFC 3339 `updatedAt`)."""
    return st.builds(
        u.SessionInfoUpdate,
        title=patches(_texts),
        updated_at=patches(_timestamps),
        meta=metas(),
        extra=extras(),
    )


def costs() -> st.SearchStrategy[u.Cost]:
    """Session costs (ISO 4217-shaped currency)."""
    amounts: st.SearchStrategy[float] = st.floats(allow_nan=False, allow_infinity=False) | (
        st.integers(0, 10**6)
    )
    return st.builds(u.Cost, amount=amounts, currency=_currencies, meta=metas(), extra=extras())


def usage_updates() -> st.SearchStrategy[u.UsageUpdate]:
    """`usage_update` updates (uint64 `used` and `size`)."""
    return st.builds(
        u.UsageUpdate,
        used=_uint64,
        size=_uint64,
        cost=patches(costs()),
        meta=metas(),
        extra=extras(),
    )


def other_updates() -> st.SearchStrategy[u.OtherUpdate]:
    """Updates with an unknown `sessionUpdate` tag."""
    return st.builds(u.OtherUpdate, _raw_objects("sessionUpdate", unknown_tags(_UPDATE_TAGS)))


def session_updates(
    *, tolerated: bool = False, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[u.SessionUpdate]:
    """Any `SessionUpdate` of `revision`, every variant and unknown ones (see `other_plans`
    for `tolerated`); what `decode_update(..., revision=revision)` gives back unchanged."""
    return st.one_of(
        user_message_chunks(),
        user_messages(),
        agent_message_chunks(),
        agent_messages(),
        agent_thought_chunks(),
        agent_thoughts(),
        state_updates(),
        tool_call_content_chunks(),
        tool_call_updates(revision=revision),
        terminal_updates(),
        terminal_output_chunks(),
        plan_updates(tolerated=tolerated),
        available_commands_updates(),
        config_option_updates(),
        session_info_updates(),
        usage_updates(),
        other_updates(),
    )


def wire_updates(
    *, tolerated: bool = False, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[dict[str, Any]]:
    """Encoded updates: fresh wire dicts as an agent would send them in `update`."""
    return session_updates(tolerated=tolerated, revision=revision).map(encode_update)


# -- permission values and results -------------------------------------------------------


def permission_options() -> st.SearchStrategy[j.PermissionOption]:
    """Choices of a permission prompt."""
    return st.builds(
        j.PermissionOption,
        option_id=_ids,
        name=_texts,
        kind=open_enum_values(_PERMISSION_KINDS),
        meta=metas(),
        extra=extras(),
    )


def tool_call_permission_subjects() -> st.SearchStrategy[j.ToolCallPermissionSubject]:
    """`{"type": "tool_call"}` permission subjects."""
    return st.builds(j.ToolCallPermissionSubject, tool_call=tool_call_updates(), extra=extras())


def command_permission_subjects() -> st.SearchStrategy[j.CommandPermissionSubject]:
    """`{"type": "command"}` permission subjects."""
    return st.builds(
        j.CommandPermissionSubject,
        command=_texts,
        cwd=_paths,
        tool_call_id=patches(_ids),
        terminal_id=patches(_ids),
        meta=metas(),
        extra=extras(),
    )


def other_permission_subjects() -> st.SearchStrategy[j.OtherPermissionSubject]:
    """Permission subjects of unknown `type`."""
    return st.builds(
        j.OtherPermissionSubject, _raw_objects("type", unknown_tags(("tool_call", "command")))
    )


def permission_subjects() -> st.SearchStrategy[j.PermissionSubject]:
    """Any permission subject."""
    return st.one_of(
        tool_call_permission_subjects(), command_permission_subjects(), other_permission_subjects()
    )


def selected_outcomes() -> st.SearchStrategy[j.SelectedOutcome]:
    """`{"outcome": "selected"}`."""
    return st.builds(j.SelectedOutcome, option_id=_ids, meta=metas(), extra=extras())


def cancelled_outcomes() -> st.SearchStrategy[j.CancelledOutcome]:
    """`{"outcome": "cancelled"}`."""
    return st.builds(j.CancelledOutcome, extra=extras())


def other_permission_outcomes() -> st.SearchStrategy[j.OtherPermissionOutcome]:
    """Outcomes this library does not know."""
    return st.builds(
        j.OtherPermissionOutcome, _raw_objects("outcome", unknown_tags(("selected", "cancelled")))
    )


def permission_outcomes() -> st.SearchStrategy[j.PermissionOutcome]:
    """Any permission outcome."""
    return st.one_of(selected_outcomes(), cancelled_outcomes(), other_permission_outcomes())


def request_permission_results() -> st.SearchStrategy[j.RequestPermissionResult]:
    """Results of `session/request_permission`."""
    return st.builds(
        j.RequestPermissionResult, outcome=permission_outcomes(), meta=metas(), extra=extras()
    )


def prompt_results() -> st.SearchStrategy[j.PromptResult]:
    """Results of `session/prompt` (`messageId` absent, as in 2026-08, or a string)."""
    message_ids: st.SearchStrategy[str | Unset] = st.just(UNSET) | _ids
    return st.builds(j.PromptResult, message_id=message_ids, meta=metas(), extra=extras())


# -- messages ----------------------------------------------------------------------------


def request_ids() -> st.SearchStrategy[int | str | None]:
    """JSON-RPC ids: int64 integers, strings or null."""
    return st.one_of(_int64, _ids, st.none())


def update_session_notifications(
    *, tolerated: bool = False
) -> st.SearchStrategy[j.UpdateSessionNotification]:
    """`session/update` notifications (see `other_plans` for `tolerated`)."""
    return st.builds(
        j.UpdateSessionNotification,
        session_id=_ids,
        update=session_updates(tolerated=tolerated),
        meta=metas(),
        extra=extras(),
        envelope_extra=extras(),
    )


def prompt_requests() -> st.SearchStrategy[j.PromptRequest]:
    """`session/prompt` requests."""
    return st.builds(
        j.PromptRequest,
        id=request_ids(),
        session_id=_ids,
        prompt=_tuples(content_blocks()),
        meta=metas(),
        extra=extras(),
        envelope_extra=extras(),
    )


def cancel_session_notifications() -> st.SearchStrategy[j.CancelSessionNotification]:
    """`session/cancel` notifications."""
    return st.builds(
        j.CancelSessionNotification,
        session_id=_ids,
        meta=metas(),
        extra=extras(),
        envelope_extra=extras(),
    )


def request_permission_requests() -> st.SearchStrategy[j.RequestPermissionRequest]:
    """`session/request_permission` requests (at least one option)."""
    return st.builds(
        j.RequestPermissionRequest,
        id=request_ids(),
        session_id=_ids,
        title=_texts,
        options=_tuples(permission_options(), min_size=1),
        description=patches(_texts),
        subject=patches(permission_subjects()),
        meta=metas(),
        extra=extras(),
        envelope_extra=extras(),
    )


def cancel_request_notifications() -> st.SearchStrategy[j.CancelRequestNotification]:
    """`$/cancel_request` notifications."""
    return st.builds(
        j.CancelRequestNotification,
        request_id=request_ids(),
        meta=metas(),
        extra=extras(),
        envelope_extra=extras(),
    )


_OTHER_METHODS: Final = st.sampled_from(
    ("initialize", "session/new", "session/load", "fs/read_text_file", "session/set_config_option")
) | st.text(_KEY_ALPHABET, max_size=8).map(lambda s: "_x/" + s)


def _params() -> st.SearchStrategy[JsonValue | Unset]:
    absent: st.SearchStrategy[JsonValue | Unset] = st.just(UNSET)
    return st.one_of(absent, st.none(), json_objects())


def requests() -> st.SearchStrategy[j.Request]:
    """Requests of methods without a typed message, params kept verbatim."""
    return st.builds(
        j.Request,
        id=request_ids(),
        method=_OTHER_METHODS.filter(lambda m: m not in _TYPED_REQUESTS),
        params=_params(),
        envelope_extra=extras(),
    )


def notifications() -> st.SearchStrategy[j.Notification]:
    """Notifications of methods without a typed message, params kept verbatim."""
    return st.builds(
        j.Notification,
        method=_OTHER_METHODS.filter(lambda m: m not in _TYPED_NOTIFICATIONS),
        params=_params(),
        envelope_extra=extras(),
    )


def responses() -> st.SearchStrategy[j.Response]:
    """Success responses with a raw JSON `result`."""
    return st.builds(j.Response, id=request_ids(), result=json_values(), envelope_extra=extras())


def rpc_errors() -> st.SearchStrategy[j.RpcError]:
    """`error` members (int32 codes, the named ones most often)."""
    codes = st.sampled_from(
        (
            j.ErrorCode.PARSE_ERROR,
            j.ErrorCode.INVALID_REQUEST,
            j.ErrorCode.METHOD_NOT_FOUND,
            j.ErrorCode.INVALID_PARAMS,
            j.ErrorCode.INTERNAL_ERROR,
            j.ErrorCode.REQUEST_CANCELLED,
            j.ErrorCode.AUTH_REQUIRED,
            j.ErrorCode.RESOURCE_NOT_FOUND,
        )
    ) | st.integers(_INT32_MIN, _INT32_MAX)
    data: st.SearchStrategy[JsonValue | Unset] = st.just(UNSET) | json_values()
    return st.builds(j.RpcError, code=codes, message=_texts, data=data, extra=extras())


def error_responses() -> st.SearchStrategy[j.ErrorResponse]:
    """Error responses."""
    return st.builds(j.ErrorResponse, id=request_ids(), error=rpc_errors(), envelope_extra=extras())


def messages(*, tolerated: bool = False) -> st.SearchStrategy[j.Message]:
    """Any single JSON-RPC message of the prompt lifecycle, typed or generic."""
    return st.one_of(
        update_session_notifications(tolerated=tolerated),
        prompt_requests(),
        cancel_session_notifications(),
        request_permission_requests(),
        cancel_request_notifications(),
        requests(),
        notifications(),
        responses(),
        error_responses(),
    )


def wire_messages(*, tolerated: bool = False) -> st.SearchStrategy[dict[str, Any]]:
    """Encoded messages: fresh JSON-RPC wire dicts."""
    encoded: st.SearchStrategy[dict[str, Any]] = messages(tolerated=tolerated).map(encode_message)
    return encoded
