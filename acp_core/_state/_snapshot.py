"""Snapshots: a `SessionState` as a documented JSON document, and back.

Owns: the snapshot format of docs/snapshot.md (`snapshot`, `restore`).
Must not know: how updates change state (reducers), engines.

`restore(snapshot(s)) == s` for every state. The document's own keys (`toolCalls`,
`rawInput`, `chunkMeta`, ...) are this format's, pinned by docs/snapshot.md whatever the
revision; the schema parts inside it (content blocks, plans, config options, ...) are wire
values, written as the revision the document records (`revision`) has them and read back at
that revision, so a revision that renames a part's field (`wire(key_since=...)`) needs no
new snapshot version. A document without `revision` has 2026-08 parts, and the Preview's
under the 2026-11 / Preview keys, on both sides. Optional fields that are cleared or were never set
are omitted. Beyond the issue's format the document carries `version`, `chunkMeta` (chunk-scoped
`_meta` by block index), terminal `outputMeta`, `planMeta`, usage `_meta`, the raw object of an
unknown foreground state, and `diagnostics`, so that nothing of the state is lost.
"""

from __future__ import annotations

import base64
from collections.abc import Mapping
from typing import Any, Final

from acp_core._errors import ArgumentError, DecodeError, Diagnostic
from acp_core._wire._codec import decode_part, encode_part
from acp_core._wire._json import JsonObject, Path, freeze_json, render_path, thaw_json
from acp_core._wire._revision import (
    REVISIONS,
    V2_2026_08,
    V2_PREVIEW,
    Revision,
    revision_argument,
)
from acp_core._wire._updates import OtherUpdate

from ._pcoll import EMPTY_VEC, PMap, PVec, extend_encoded, in_order, packed_runs
from ._session_state import (
    EntityRef,
    Foreground,
    MessageState,
    PlanState,
    SessionAux,
    SessionInfo,
    SessionState,
    TerminalState,
    ToolCallState,
    Usage,
    entered,
    terminal_bytes,
)
from ._snapshot_check import check_restorable, parse_block_index
from ._snapshot_keys import put_prompt_keys
from ._snapshot_preview import EXTRA_KINDS, Reader, put_part, restore_extras, snapshot_extras
from ._text_runs import TEXT_RUNS, TOOL_TEXT_RUNS

__all__ = ["SNAPSHOT_VERSION", "restore", "snapshot"]

#: Version of the snapshot format written by `snapshot`.
SNAPSHOT_VERSION: Final = 1

_ROLES: Final = frozenset({"user", "agent", "thought"})
_KINDS: Final = frozenset({"message", "toolCall", "plan", *EXTRA_KINDS})


def _put(out: dict[str, Any], key: str, value: object) -> None:
    if value is not None:
        out[key] = thaw_json(value)  # type: ignore[arg-type]


def _chunk_meta(meta: PMap[int, JsonObject]) -> dict[str, Any]:
    return {str(i): thaw_json(m) for i, m in sorted(meta.items())}


def _content(content: PVec[Any], part: str, revision: Revision) -> list[Any]:
    """A message's content blocks (`part` "ContentBlock") or a tool call's content items
    ("ToolCallContent") as JSON. Plain text kept packed as its string (`_state/_text_runs.py`)
    is written from the string: the block it stands for encodes to exactly that object at
    every revision, and building it again only to encode it was most of a snapshot's time."""
    out: list[Any] = []
    if part == "ContentBlock":
        packing, plain = TEXT_RUNS, _plain_text
    else:
        packing, plain = TOOL_TEXT_RUNS, _plain_tool_text
    for packed, items in packed_runs(content, packing):
        if packed:
            out.extend(
                [
                    plain(x) if type(x) is str else encode_part(part, x, revision=revision)
                    for x in items
                ]
            )
        else:
            out.extend([encode_part(part, x, revision=revision) for x in items])
    return out


def _plain_text(text: str) -> dict[str, Any]:
    return {"type": "text", "text": text}


def _plain_tool_text(text: str) -> dict[str, Any]:
    return {"type": "content", "content": {"type": "text", "text": text}}


def snapshot(
    state: SessionState,
    *,
    revision: Revision | None = None,
    prompt_keys: Mapping[str, str] | None = None,
) -> dict[str, Any]:
    """The whole state as a JSON-ready dict (format: docs/snapshot.md).

    `revision`: the revision the state was reduced at, written as `revision` so `restore`
    decodes every part as that revision has it (a markdown plan is an unknown plan at
    2026-08); None writes no `revision` (2026-08 parts, the Preview's for the Preview keys).
    `prompt_keys`: an agent's remembered idempotency keys (`engine.keys.remembered()`),
    written as `promptKeys` beside the state (R69; `restore_prompt_keys` reads them back).

    Raises:
        ArgumentError: `state` is not a `SessionState`, or `prompt_keys` maps non-strings.
    """
    if not isinstance(state, SessionState):  # typed callers never get here; others may
        msg = f"snapshot takes a SessionState, not {type(state).__name__}"  # type: ignore[unreachable]
        raise ArgumentError(msg)
    if revision is not None:
        revision_argument(revision)
    base = V2_2026_08 if revision is None else revision  # what `_revision` reads them at
    later = V2_PREVIEW if revision is None else revision
    fg = state.foreground
    foreground: dict[str, Any] = {"state": fg.state}
    _put(foreground, "stopReason", fg.stop_reason)
    _put(foreground, "_meta", fg.meta)
    _put(foreground, "raw", fg.raw)
    if fg.background is not None:
        foreground["background"] = [
            encode_part("BackgroundWork", b, revision=later) for b in fg.background
        ]
    _put(foreground, "lastKnown", fg.last_known)
    put_part(foreground, "error", "RpcError", fg.error, later)
    messages: dict[str, Any] = {}
    for message_id, m in in_order(state.messages):
        doc: dict[str, Any] = {
            "role": m.role,
            "content": _content(m.content, "ContentBlock", base),
        }
        _put(doc, "_meta", m.meta)
        if m.chunk_meta:
            doc["chunkMeta"] = _chunk_meta(m.chunk_meta)
        messages[message_id] = doc
    plans = in_order(state.plans)  # sorted once, for both tables
    tool_calls: dict[str, Any] = {}
    for tool_call_id, t in in_order(state.tool_calls):
        doc = {}
        _put(doc, "title", t.title)
        _put(doc, "name", t.name)
        doc["kind"] = t.kind
        doc["status"] = t.status
        doc["content"] = _content(t.content, "ToolCallContent", base)
        doc["locations"] = [encode_part("ToolCallLocation", x, revision=base) for x in t.locations]
        _put(doc, "rawInput", t.raw_input)
        _put(doc, "rawOutput", t.raw_output)
        _put(doc, "_meta", t.meta)
        if t.chunk_meta:
            doc["chunkMeta"] = _chunk_meta(t.chunk_meta)
        put_part(doc, "capabilities", "ToolCallCapabilities", t.capabilities, later)
        tool_calls[tool_call_id] = doc
    terminals: dict[str, Any] = {}
    for terminal_id, x in in_order(state.terminals):
        doc = {}
        _put(doc, "command", x.command)
        _put(doc, "cwd", x.cwd)
        doc["output"] = base64.b64encode(terminal_bytes(x)).decode("ascii")
        _put(doc, "outputMeta", x.snapshot_meta)
        if x.exit_status is not None:
            doc["exitStatus"] = encode_part("TerminalExitStatus", x.exit_status, revision=base)
        _put(doc, "_meta", x.meta)
        put_part(doc, "size", "TerminalSize", x.size, later)
        put_part(doc, "capabilities", "TerminalCapabilities", x.capabilities, later)
        terminals[terminal_id] = doc
    out: dict[str, Any] = {
        "version": SNAPSHOT_VERSION,
        **({} if revision is None else {"revision": revision.name}),
        "sessionId": state.session_id,
        "foreground": foreground,
        "timeline": [{"kind": r.kind, "id": r.id} for r in state.timeline],
        "messages": messages,
        "toolCalls": tool_calls,
        "terminals": terminals,
        "plans": {
            plan_id: encode_part("PlanUpdateContent", p.plan, revision=base) for plan_id, p in plans
        },
    }
    plan_meta = {plan_id: thaw_json(p.meta) for plan_id, p in plans if p.meta is not None}
    if plan_meta:
        out["planMeta"] = plan_meta
    if state.available_commands is not None:
        out["availableCommands"] = [
            encode_part("AvailableCommand", c, revision=base) for c in state.available_commands
        ]
    if state.config_options is not None:
        out["configOptions"] = [
            encode_part("SessionConfigOption", c, revision=base) for c in state.config_options
        ]
    info: dict[str, Any] = {}
    _put(info, "title", state.info.title)
    _put(info, "updatedAt", state.info.updated_at)
    _put(info, "_meta", state.info.meta)
    out["info"] = info
    if state.usage is not None:
        usage: dict[str, Any] = {"used": state.usage.used, "size": state.usage.size}
        if state.usage.cost is not None:
            usage["cost"] = encode_part("Cost", state.usage.cost, revision=base)
        _put(usage, "_meta", state.usage.meta)
        out["usage"] = usage
    if state.unknown:
        out["unknown"] = [thaw_json(u.raw) for u in state.unknown]
    if state.diagnostics:
        out["diagnostics"] = [
            {"rule": d.rule, "path": d.path, "message": d.message} for d in state.diagnostics
        ]
    extras = snapshot_extras(state.aux.extras, later)
    if extras is not None:
        out["extras"] = extras
    put_prompt_keys(out, prompt_keys)
    return out


# -- restore -----------------------------------------------------------------------------


def _need(obj: Mapping[str, Any], key: str, kind: type[Any], path: Path) -> Any:
    value: Any = obj.get(key)
    if type(value) is not kind:  # exact: a subclass could override what restore reads
        raise DecodeError(render_path((path, key)), f"{kind.__name__} (required)")
    if kind is dict:
        # A document built in Python (not parsed JSON) may key an object by a non-string;
        # restoring it used to succeed and leave a state whose render raised TypeError.
        odd = [k for k in value if type(k) is not str]
        if odd:
            expected = f"object with string keys (a key is {type(odd[0]).__name__} {odd[0]!r})"
            raise DecodeError(render_path((path, key)), expected)
    return value


def _opt(obj: Mapping[str, Any], key: str, kind: type[Any], path: Path) -> Any:
    if key not in obj:
        return None
    return _need(obj, key, kind, path)


def _obj(obj: Mapping[str, Any], key: str, path: Path) -> JsonObject | None:
    value = _opt(obj, key, dict, path)
    return None if value is None else decode_part("JsonObject", value, (path, key))


def _revision(doc: Mapping[str, Any]) -> tuple[Reader, Reader]:
    """Readers of the 2026-08 keys and of the later keys, at the document's `revision`
    (without one: 2026-08 and the Preview, the revisions those keys come from)."""
    name = _opt(doc, "revision", str, None)
    if name is None:
        return Reader(V2_2026_08), Reader(V2_PREVIEW)
    if name not in REVISIONS:
        raise DecodeError("$.revision", "the name of a revision (" + ", ".join(REVISIONS) + ")")
    reader = Reader(REVISIONS[name])
    return reader, reader


def _restore_chunk_meta(doc: Mapping[str, Any], path: Path) -> PMap[int, JsonObject]:
    raw = _opt(doc, "chunkMeta", dict, path)
    if not raw:
        return PMap()
    out: dict[int, JsonObject] = {}
    for k, v in raw.items():
        index = parse_block_index(k, ((path, "chunkMeta"), str(k)))
        out[index] = decode_part("JsonObject", v, ((path, "chunkMeta"), k))
    return PMap(out)


def _items(r: Reader, doc: Mapping[str, Any], key: str, part: str, path: Path) -> tuple[Any, ...]:
    raw = _need(doc, key, list, path)
    return tuple(r.part(part, x, ((path, key), i)) for i, x in enumerate(raw))


def _packed_content(r: Reader, doc: Mapping[str, Any], part: str, path: Path) -> PVec[Any]:
    """`doc["content"]` (message blocks, `part` "ContentBlock", or tool call items,
    "ToolCallContent") restored packed, as the reducers keep content (issue 24): a plain text
    block (exactly `type` and `text`) or item is kept as its string without being decoded to
    a value first (`_content` writes it from the string); anything else is decoded at the
    document's revision and packed as the packing would."""
    raw = _need(doc, "content", list, path)
    packing = TEXT_RUNS if part == "ContentBlock" else TOOL_TEXT_RUNS
    encoded: list[object] = []
    for i, x in enumerate(raw):
        text = _plain_text_of(x) if part == "ContentBlock" else _plain_tool_text_of(x)
        if text is not None:
            encoded.append(text)
            continue
        value = r.part(part, x, ((path, "content"), i))
        one = packing.pack((value,))
        encoded.append(value if one is None else one[0])
    return extend_encoded(EMPTY_VEC, encoded, packing)


def _plain_text_of(block: object) -> str | None:
    # The text of a block that is exactly {"type": "text", "text": <str>}, else None.
    if type(block) is dict and len(block) == 2 and block.get("type") == "text":
        text = block.get("text")
        if type(text) is str:
            return text
    return None


def _plain_tool_text_of(item: object) -> str | None:
    # The text of an item that is exactly {"type": "content", "content": <a plain text block>}.
    if type(item) is dict and len(item) == 2 and item.get("type") == "content":
        return _plain_text_of(item.get("content"))
    return None


def _json_field(doc: Mapping[str, Any], key: str, path: Path) -> Any:
    return freeze_json(doc[key], (path, key)) if key in doc else None


def restore(doc: object) -> SessionState:
    """Rebuild a `SessionState` from a snapshot document.

    Raises:
        DecodeError: the document does not follow docs/snapshot.md (path names where).
    """
    if type(doc) is not dict:
        raise DecodeError("$", "object (snapshot)")
    root: Path = None
    r, later = _revision(doc)
    session_id = _need(doc, "sessionId", str, root)
    fg_doc = _need(doc, "foreground", dict, root)
    fg_path: Path = (root, "foreground")
    raw = _obj(fg_doc, "raw", fg_path)
    background = None
    if "background" in fg_doc:
        background = _items(later, fg_doc, "background", "BackgroundWork", fg_path)
    foreground = Foreground(
        _need(fg_doc, "state", str, fg_path),
        _opt(fg_doc, "stopReason", str, fg_path),
        _obj(fg_doc, "_meta", fg_path),
        raw,
        background,
        _opt(fg_doc, "lastKnown", str, fg_path),
        later.opt_part(fg_doc, "error", "RpcError", fg_path),
    )
    timeline = EMPTY_VEC
    for i, ref in enumerate(_need(doc, "timeline", list, root)):
        ref_path: Path = ((root, "timeline"), i)
        if type(ref) is not dict:
            raise DecodeError(render_path(ref_path), "object (timeline entry)")
        kind = _need(ref, "kind", str, ref_path)
        if kind not in _KINDS:
            expected = "message, toolCall, plan, compaction or sessionMessage"
            raise DecodeError(render_path((ref_path, "kind")), expected)
        timeline = entered(timeline, EntityRef(kind, _need(ref, "id", str, ref_path)))
    messages: dict[str, MessageState] = {}
    for message_id, m in _need(doc, "messages", dict, root).items():
        path: Path = ((root, "messages"), message_id)
        if type(m) is not dict:
            raise DecodeError(render_path(path), "object (message)")
        role = _need(m, "role", str, path)
        if role not in _ROLES:
            raise DecodeError(render_path((path, "role")), "user, agent or thought")
        messages[message_id] = MessageState(
            role,
            _packed_content(r, m, "ContentBlock", path),
            _obj(m, "_meta", path),
            _restore_chunk_meta(m, path),
        )
    tool_calls: dict[str, ToolCallState] = {}
    for tool_call_id, t in _need(doc, "toolCalls", dict, root).items():
        path = ((root, "toolCalls"), tool_call_id)
        if type(t) is not dict:
            raise DecodeError(render_path(path), "object (tool call)")
        tool_calls[tool_call_id] = ToolCallState(
            _opt(t, "title", str, path),
            _need(t, "kind", str, path),
            _need(t, "status", str, path),
            # Content kept packed, as the reducers keep it (issue 24; messages too).
            _packed_content(r, t, "ToolCallContent", path),
            _items(r, t, "locations", "ToolCallLocation", path),
            _json_field(t, "rawInput", path),
            _json_field(t, "rawOutput", path),
            _obj(t, "_meta", path),
            _restore_chunk_meta(t, path),
            _opt(t, "name", str, path),
            later.opt_part(t, "capabilities", "ToolCallCapabilities", path),
        )
    terminals: dict[str, TerminalState] = {}
    for terminal_id, x in _need(doc, "terminals", dict, root).items():
        path = ((root, "terminals"), terminal_id)
        if type(x) is not dict:
            raise DecodeError(render_path(path), "object (terminal)")
        try:
            data = base64.b64decode(_need(x, "output", str, path), validate=True)
        except ValueError:
            raise DecodeError(render_path((path, "output")), "base64") from None
        exit_doc = _opt(x, "exitStatus", dict, path)
        terminals[terminal_id] = TerminalState(
            _opt(x, "command", str, path),
            _opt(x, "cwd", str, path),
            EMPTY_VEC.append(data) if data else EMPTY_VEC,
            _obj(x, "outputMeta", path),
            None
            if exit_doc is None
            else r.part("TerminalExitStatus", exit_doc, (path, "exitStatus")),
            _obj(x, "_meta", path),
            later.opt_part(x, "size", "TerminalSize", path),
            later.opt_part(x, "capabilities", "TerminalCapabilities", path),
        )
    plan_meta = _opt(doc, "planMeta", dict, root) or {}
    plans: dict[str, PlanState] = {}
    for plan_id, p in _need(doc, "plans", dict, root).items():
        path = ((root, "plans"), plan_id)
        meta = plan_meta.get(plan_id)
        plans[plan_id] = PlanState(
            r.part("PlanUpdateContent", p, path),
            None
            if meta is None
            else decode_part("JsonObject", meta, ((root, "planMeta"), plan_id)),
        )
    commands = None
    if "availableCommands" in doc:
        commands = _items(r, doc, "availableCommands", "AvailableCommand", root)
    config = None
    if "configOptions" in doc:
        config = _items(r, doc, "configOptions", "SessionConfigOption", root)
    info_doc = _opt(doc, "info", dict, root) or {}
    info_path: Path = (root, "info")
    info = SessionInfo(
        _opt(info_doc, "title", str, info_path),
        _opt(info_doc, "updatedAt", str, info_path),
        _obj(info_doc, "_meta", info_path),
    )
    usage = None
    usage_doc = _opt(doc, "usage", dict, root)
    if usage_doc is not None:
        usage_path: Path = (root, "usage")
        cost_doc = _opt(usage_doc, "cost", dict, usage_path)
        usage = Usage(
            _need(usage_doc, "used", int, usage_path),
            _need(usage_doc, "size", int, usage_path),
            None if cost_doc is None else r.part("Cost", cost_doc, (usage_path, "cost")),
            _obj(usage_doc, "_meta", usage_path),
        )
    unknown = EMPTY_VEC
    for i, raw_update in enumerate(_opt(doc, "unknown", list, root) or ()):
        # Kept as written, whatever the tag: an unknown update stays unknown on restore.
        path = ((root, "unknown"), i)
        if type(raw_update) is not dict or type(raw_update.get("sessionUpdate")) is not str:
            raise DecodeError(render_path(path), "object with a string sessionUpdate")
        unknown = unknown.append(OtherUpdate(decode_part("JsonObject", raw_update, path)))
    diagnostics = EMPTY_VEC
    for i, d in enumerate(_opt(doc, "diagnostics", list, root) or ()):
        path = ((root, "diagnostics"), i)
        if type(d) is not dict:
            raise DecodeError(render_path(path), "object (diagnostic)")
        diagnostics = diagnostics.append(
            Diagnostic(
                _need(d, "rule", str, path),
                _need(d, "path", str, path),
                _need(d, "message", str, path),
            )
        )
    # Every timeline entry names an entity of the document (queries index by these ids).
    extras = restore_extras(doc, later)
    entities: dict[str, Mapping[str, object]] = {
        "message": messages,
        "toolCall": tool_calls,
        "plan": plans,
        "compaction": extras.compactions,
        "sessionMessage": extras.session_messages,
    }
    for i, ref in enumerate(timeline):
        if ref.id not in entities[ref.kind]:
            raise DecodeError(render_path((((root, "timeline"), i), "id")), f"id of a {ref.kind}")
    state = SessionState(
        session_id,
        foreground,
        timeline,
        PMap(messages),
        PMap(tool_calls),
        PMap(terminals),
        PMap(plans),
        SessionAux(commands, config, info, usage, unknown, diagnostics, extras),
    )
    check_restorable(state)
    return state
