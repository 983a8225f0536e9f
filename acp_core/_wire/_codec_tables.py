"""The codec's tables for one revision, derived from the value classes on first use.

Owns: what the derivation rules cannot say (the untagged unions, the diff change whose tag is
a field, the request-id codec, the schema names of unions, which JSON-RPC method each typed
message is), and `tables(revision)`, which derives and caches every spec of one revision.
Must not know: the public decode API (`_wire/_codec.py`).

Tables are built lazily, once per revision lineage, so importing acp_core compiles no
decoder; the first decode of a revision pays for its tables (a few milliseconds). A revision
has two: `tables(revision)` decodes (its own fields and variants), `encoding_tables(revision)`
encodes (every known revision's fields and variants, so a value is written as it holds them,
under that revision's keys: a field a revision renames or removes is written its way).
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any, Final, NamedTuple

import attrs

from acp_core._errors import DecodeError

from . import _content as c
from . import _jsonrpc as j
from . import _setup as setup
from . import _updates as u
from . import _updates_2026_11 as u11
from . import _updates_plans as upl
from . import _updates_preview as up
from . import _updates_session as us
from . import _updates_tools as ut
from ._codec_core import OBJECT, REQUEST_ID, Codec, Ctx, ListCodec, Record, Union
from ._codec_derive import Deriver, Members, members_of
from ._codec_fast import TOOL_CALL_KEYS, fast_update
from ._codec_values import JSON, STR
from ._fastnew import fast_constructor
from ._fields import PREVIEW_NAME, since_of
from ._json import Path, render_path
from ._revision import REVISIONS, Revision, revision_argument

__all__ = ["Tables", "Typed", "encoding_tables", "tables"]


class _ResourceContents(Codec):
    """Untagged and closed: text contents (has `text`) or blob contents (has `blob`)."""

    expected = "object (TextResourceContents or BlobResourceContents)"

    def __init__(self, d: Deriver) -> None:
        self.text = d.record(c.TextResourceContents)
        self.blob = d.record(c.BlobResourceContents)

    def decode(self, obj: object, path: Path, ctx: Ctx) -> Any:
        if type(obj) is dict:
            if "text" in obj:
                return self.text.decode(obj, path, ctx)
            if "blob" in obj:
                return self.blob.decode(obj, path, ctx)
        raise self.fail(path)

    def encode(self, value: Any) -> object:
        return (self.text if type(value) is c.TextResourceContents else self.blob).encode(value)


class _SelectOptions(Codec):
    """Untagged and closed: a flat option list, or a list of groups (items have `groupId`)."""

    expected = "array of select options or of option groups"

    def __init__(self, d: Deriver) -> None:
        self.option = d.record(u.SessionConfigSelectOption)
        self.group = d.record(u.SessionConfigSelectGroup)
        self.flat = ListCodec(self.option, skip_invalid=False)
        self.grouped = ListCodec(self.group, skip_invalid=False)

    def decode(self, obj: object, path: Path, ctx: Ctx) -> tuple[Any, ...]:
        if type(obj) is not list:
            raise self.fail(path)
        grouped = any(type(x) is dict and "groupId" in x for x in obj)
        return (self.grouped if grouped else self.flat).decode(obj, path, ctx)

    def encode(self, value: Any) -> object:
        group, option = self.group, self.option
        return [
            (group if type(x) is u.SessionConfigSelectGroup else option).encode(x) for x in value
        ]


def _nested_state(d: Deriver) -> Codec:
    """A state snapshot inside another update (`subagent_update.state`, Preview): the state
    classes' own tag (`state`) without the `sessionUpdate` key they carry at the top level."""
    variants: dict[str, Codec] = {}
    other: type[Any] | None = None
    for cls in typing.get_args(u.StateUpdate):
        if not d.on_wire(since_of(cls)):
            continue
        tag: tuple[tuple[str, str], ...] = cls.__wire_tag__
        if len(tag) < 2:
            other = cls
            continue
        variants[tag[1][1]] = Record(cls, cls.__name__, d.fields(cls), tag[1:])
    return Union("state", "StateUpdate", variants, other)


def _check_diff_change(value: c.DiffChange, path: Path) -> None:
    # move/copy name their source; the other known operations have none.
    if value.operation in ("move", "copy") and not isinstance(value.old_path, str):
        raise DecodeError(render_path((path, "oldPath")), "string (required)")


def _diff_change(d: Deriver) -> Codec:
    # The tag is a field of the one known class: every known operation maps to it.
    record = d.record(c.DiffChange, check=_check_diff_change)
    ops = c.DiffOperation
    operations = (ops.ADD, ops.DELETE, ops.MODIFY, ops.MOVE, ops.COPY)
    return Union("operation", "DiffChange", dict.fromkeys(operations, record), c.OtherDiffChange)


class UpdateCodec(Codec):
    """The `SessionUpdate` union, trying the fast path for streamed chunks first (and for
    plain tool call updates where this revision keys them as the path assumes)."""

    def __init__(self, union: Union) -> None:
        self.union = union
        self.expected = union.expected
        self.tool_calls = _plain_tool_calls(union)

    def decode(self, obj: object, path: Path, ctx: Ctx) -> Any:
        fast = fast_update(obj, self.tool_calls)
        return self.union.decode(obj, path, ctx) if fast is None else fast

    def encode(self, value: Any) -> object:
        return self.union.encode(value)


def _plain_tool_calls(union: Union) -> bool:
    # Whether this revision's `tool_call_update` reads the fast path's fields as it does:
    # the same keys, plain strings, raw JSON, locations of `{"path": str}`; a revision that
    # renames or retypes one of them (tests/test_revision_rename.py) takes the generic walk.
    record = union.variants.get("tool_call_update")
    if not isinstance(record, Record):
        return False
    fields = {f.attr: f for f in record.fields if f.on_wire}
    if any(fields.get(attr) is None or fields[attr].key != key
           for attr, key in TOOL_CALL_KEYS.items()):  # fmt: skip
        return False
    keys = [f.key for f in fields.values()]
    if len(keys) != len(set(keys)):
        return False
    strings = ("tool_call_id", "title", "kind", "status")
    if any(fields[a].codec is not STR for a in strings) or any(
        fields[a].codec is not JSON for a in ("raw_input", "raw_output")
    ):
        return False
    locations = fields["locations"].codec
    item = locations.item if isinstance(locations, ListCodec) else None
    if not isinstance(item, Record):
        return False
    path = next((f for f in item.fields if f.attr == "path"), None)
    return path is not None and path.key == "path" and path.codec is STR and path.required


_NAMES: Final[dict[Members, str]] = {
    members_of(c.ContentBlock): "ContentBlock",
    members_of(c.ToolCallContent): "ToolCallContent",
    members_of(u.SessionUpdate): "SessionUpdate",
    members_of(u.PlanItems | u.OtherPlan): "PlanUpdateContent",
    members_of(u.TextCommandInput | u.OtherCommandInput): "AvailableCommandInput",
    members_of(u.SessionConfigOption): "SessionConfigOption",
    members_of(j.PermissionSubject): "RequestPermissionSubject",
    members_of(j.PermissionOutcome): "RequestPermissionOutcome",
}


# The names the value classes' annotations use: every module that declares wire types.
_NAMESPACE: Final = {
    **vars(c),
    **vars(us),
    **vars(u),
    **vars(u11),
    **vars(up),
    **vars(upl),
    **vars(ut),
    **vars(j),
    **vars(setup),
}


class Typed(NamedTuple):
    """A typed JSON-RPC message: its class, method, whether it has an id, its params spec,
    and `make`, its generated constructor (the decoded params are frozen already: building
    through `cls` would freeze them a second time)."""

    cls: type[Any]
    method: str
    has_id: bool
    params: Record
    make: Callable[..., Any]


#: The typed messages and their methods; their params are the class's fields after `id`.
#: (The public message strategies draw from this table too: `_research/_strategies_messages.py`.)
TYPED_METHODS: Final = (
    (j.UpdateSessionNotification, j.Method.SESSION_UPDATE),
    (j.PromptRequest, j.Method.SESSION_PROMPT),
    (j.CancelSessionNotification, j.Method.SESSION_CANCEL),
    (j.RequestPermissionRequest, j.Method.REQUEST_PERMISSION),
    (j.CancelRequestNotification, j.Method.CANCEL_REQUEST),
    (j.CancelToolCallRequest, j.Method.TOOL_CALL_CANCEL),
    (j.CancelTerminalRequest, j.Method.TERMINAL_CANCEL),
)


def _typed(d: Deriver, cls: type[Any], method: str) -> Typed:
    # The params record has no class of its own: the message class is (id?, *params, extra,
    # envelope_extra), built by the envelope decoder.
    has_id = "id" in attrs.fields_dict(cls)
    params = d.fields(cls, frozenset({"id"}) if has_id else frozenset())
    return Typed(cls, method, has_id, Record(None, cls.__name__, params), fast_constructor(cls))


class Tables:
    """Every spec of one revision (what `decode_*` and `encode_*` walk)."""

    def __init__(self, lineage: tuple[str, ...], keys: tuple[str, ...] | None = None) -> None:
        custom: dict[Members, Callable[[Deriver], Codec]] = {
            members_of(c.TextResourceContents | c.BlobResourceContents): _ResourceContents,
            frozenset(
                {tuple[u.SessionConfigSelectOption, ...], tuple[u.SessionConfigSelectGroup, ...]}
            ): _SelectOptions,
            members_of(c.DiffChange | c.OtherDiffChange): _diff_change,
            members_of(u.StateUpdate): _nested_state,
            frozenset({int, str}): lambda d: REQUEST_ID,
            # Built from the alias itself: a variant listed in `SessionUpdate` is decoded.
            members_of(u.SessionUpdate): lambda d: UpdateCodec(
                d.tagged_union(typing.get_args(u.SessionUpdate), "SessionUpdate")
            ),
        }
        d = Deriver(lineage, _NAMESPACE, custom, _NAMES, keys)
        self.update: UpdateCodec = d.of_type(u.SessionUpdate, "SessionUpdate")  # type: ignore[assignment]
        self.session_update: Union = self.update.union
        self.prompt_result = d.record(j.PromptResult)
        self.permission_result = d.record(j.RequestPermissionResult)
        self.rpc_error = d.record(j.RpcError)
        self.results: dict[type[Any], Record] = {
            j.PromptResult: self.prompt_result,
            j.RequestPermissionResult: self.permission_result,
        }
        self.messages = tuple(
            _typed(d, cls, method) for cls, method in TYPED_METHODS if d.on_wire(since_of(cls))
        )
        self.by_method = {(t.method, t.has_id): t for t in self.messages}
        self.by_class = {t.cls: t for t in self.messages}
        #: Schema parts, for other layers that store values as JSON (snapshots).
        self.parts: dict[str, Codec] = {
            "ContentBlock": d.of_type(c.ContentBlock, "parts"),
            "ToolCallContent": d.of_type(c.ToolCallContent, "parts"),
            "ToolCallLocation": d.record(c.ToolCallLocation),
            "PlanUpdateContent": d.of_type(u.PlanItems | up.PlanMarkdown | u.OtherPlan, "parts"),
            "AvailableCommand": d.record(u.AvailableCommand),
            "SessionConfigOption": d.of_type(u.SessionConfigOption, "parts"),
            "Cost": d.record(u.Cost),
            "TerminalExitStatus": d.record(u.TerminalExitStatus),
            "SessionUpdate": self.session_update,
            "ToolCallUpdate": d.record(u.ToolCallUpdate),
            "JsonObject": OBJECT,
            "PermissionOption": d.record(j.PermissionOption),
            "RequestPermissionSubject": d.of_type(j.PermissionSubject, "parts"),
            # Session set-up (read by whoever runs `session/new` / `session/resume`).
            "ResumeSessionRequest": d.record(setup.ResumeSessionRequest),
            "NewSessionResult": d.record(setup.NewSessionResult),
            "ResumeSessionResult": d.record(setup.ResumeSessionResult),
            "ClientCapabilities": d.record(setup.ClientCapabilities),
            "RpcError": self.rpc_error,
        }
        # 2026-11 / Preview parts of the session view (snapshots), where the revision has them
        # (the records are reached through fields that say `since`, not through a class).
        later: dict[str, tuple[str, Callable[[], Codec]]] = {
            "BackgroundWork": ("2026-11", lambda: d.of_type(u11.BackgroundWork, "parts")),
            "ToolCallCapabilities": ("2026-11", lambda: d.record(u11.ToolCallCapabilities)),
            "TerminalSize": ("2026-11", lambda: d.record(u11.TerminalSize)),
            "TerminalCapabilities": ("2026-11", lambda: d.record(u11.TerminalCapabilities)),
            "SubagentSessionCapabilities": (
                PREVIEW_NAME,
                lambda: d.record(up.SubagentSessionCapabilities),
            ),
            "PromptSuggestion": (PREVIEW_NAME, lambda: d.record(up.PromptSuggestion)),
        }
        for name, (since, make) in later.items():
            if since in lineage:
                self.parts[name] = make()


_CACHE: dict[tuple[str, ...], Tables] = {}


# No revision: what the one-entry caches below hold first (so `revision=None` is no hit).
_NOTHING: Final = object()

# The revision asked last and its tables: one identity check on the hot path (hashing the
# lineage tuple on every decode cost ~5% of a decode).
_last: list[Any] = [_NOTHING, None]


def tables(revision: Revision) -> Tables:
    """The tables of `revision`, derived on first use."""
    last = _last
    if revision is last[0]:
        found: Tables = last[1]
        return found
    cached = _CACHE.get(revision_argument(revision).lineage)
    if cached is None:
        cached = _CACHE[revision.lineage] = Tables(revision.lineage)
    last[0], last[1] = revision, cached
    return cached


# The same for the encoders: (every known revision's names, then the revision's own) and the
# revision's lineage for the keys; and the revision asked last.
_ENCODING: dict[tuple[str, ...], Tables] = {}
_last_encoding: list[Any] = [_NOTHING, None]


def encoding_tables(revision: Revision) -> Tables:
    """The encoder of `revision`: tables that know every revision's fields and variants
    (encoding writes what a value holds, whatever revision it was decoded under) and pick
    each field's key as `revision` has it (`wire(key_since=...)`)."""
    last = _last_encoding
    if revision is last[0]:
        found: Tables = last[1]
        return found
    cached = _ENCODING.get(revision_argument(revision).lineage)
    if cached is None:
        names = (*(n for r in REVISIONS.values() for n in r.lineage), *revision.lineage)
        every = tuple(dict.fromkeys(names))
        cached = _ENCODING[revision.lineage] = Tables(every, revision.lineage)
    last[0], last[1] = revision, cached
    return cached
