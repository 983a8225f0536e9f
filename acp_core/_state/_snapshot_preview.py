"""Snapshots of the 2026-11 / Preview parts of a session view, and their restore.

Owns: the snapshot keys docs/snapshot.md lists under "2026-11 and Preview": the foreground's
`background`, `lastKnown` and `error`; tool-call `capabilities`; terminal `size` and
`capabilities`; and `extras` (compactions, notices, prompt suggestions, session messages, the
replay window, child links and their order); plus the invariants of those parts that
`restore` checks (each with the reducer behaviour it comes from).
Must not know: the 2026-08 parts of the format (`_state/_snapshot.py`), how updates change
state.

Every key is written only when its value differs from a fresh session's, so a snapshot of a
2026-08 state is exactly what it was before these keys existed. A field of `SessionExtras`
that `snapshot_extras` does not write by hand must be a plain optional scalar (`str`, `int`,
`bool` or None): it is written under its camelCase name when set and read back by its type
(`PLAIN`), so such a field needs no edit here; any other new field fails at import.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

import attrs

from acp_core._errors import DecodeError
from acp_core._wire._codec import decode_part, encode_part
from acp_core._wire._json import JsonObject, Path, render_path, thaw_json
from acp_core._wire._revision import Revision
from acp_core._wire._updates import StateUpdate
from acp_core._wire._updates_2026_11 import Notice

from ._pcoll import EMPTY_VEC, PMap, PVec, in_order
from ._state_extras import (
    COMPACTION,
    NO_EXTRAS,
    REPLAY_COMPLETE,
    REPLAY_NONE,
    REPLAY_REPLAYING,
    REPLAY_TRUNCATED,
    SESSION_MESSAGE,
    ChildLink,
    CompactionState,
    ReplayWindow,
    SessionExtras,
    SessionMessageState,
)

__all__ = [
    "EXTRA_KINDS",
    "PLAIN",
    "Reader",
    "check_extras",
    "parse_block_index",
    "put_part",
    "restore_extras",
    "snapshot_extras",
]

#: Timeline kinds of the Preview entities -> their section under `extras`.
EXTRA_KINDS: Final = {COMPACTION: "compactions", SESSION_MESSAGE: "sessionMessages"}

_PHASES: Final = (REPLAY_NONE, REPLAY_REPLAYING, REPLAY_COMPLETE, REPLAY_TRUNCATED)
_STATE_UPDATES: Final = StateUpdate.__args__

#: The `SessionExtras` fields `snapshot_extras` and `restore_extras` handle by hand.
_BY_HAND: Final = frozenset(
    {
        "compactions",
        "notices",
        "prompt_suggestions",
        "session_messages",
        "replay",
        "children",
        "child_order",
    }
)
_SCALARS: Final[Mapping[str, type[Any]]] = {
    f"{kind.__name__} | None": kind for kind in (str, int, bool)
}


def plain_fields(cls: type[Any], by_hand: frozenset[str]) -> tuple[tuple[str, str, type], ...]:
    """(attribute, snapshot key, JSON type) of each field of the attrs class `cls` outside
    `by_hand`: each must be `str | None`, `int | None` or `bool | None` defaulting to None.

    Raises:
        TypeError: a field of another type or default (write and read it by hand).
    """
    out = []
    for field in attrs.fields(cls):
        if field.name in by_hand:
            continue
        kind = _SCALARS.get(field.type if isinstance(field.type, str) else "")
        if kind is None or field.default is not None:
            raise TypeError(
                f"{cls.__name__}.{field.name}: {field.type} is not a plain optional scalar "
                "defaulting to None; snapshot it by hand in _state/_snapshot_preview.py"
            )
        head, *rest = field.name.split("_")
        out.append((field.name, head + "".join(p.title() for p in rest), kind))
    return tuple(out)


#: The plain fields of `SessionExtras`, written and read without a line of their own.
PLAIN: Final = plain_fields(SessionExtras, _BY_HAND)


def parse_block_index(key: object, path: Path) -> int:
    """A `chunkMeta` key as written by `snapshot`: a block index in canonical decimal.

    Raises:
        DecodeError: anything else ("01", "-1", "²", "1e3", a 5,000-digit number).
    """
    if (
        type(key) is not str
        or not (key.isascii() and key.isdigit())
        or len(key) > 20
        or (len(key) > 1 and key[0] == "0")
    ):
        raise DecodeError(render_path(path), "a block index (canonical decimal) as key")
    return int(key)


def put_json(out: dict[str, Any], key: str, value: object) -> None:
    """`out[key]` = the plain JSON of `value`, unless it is None."""
    if value is not None:
        out[key] = thaw_json(value)  # type: ignore[arg-type]


def put_part(out: dict[str, Any], key: str, part: str, value: object, revision: Revision) -> None:
    """`out[key]` = `value` encoded as the schema part `part` at `revision`, unless None."""
    if value is not None:
        out[key] = encode_part(part, value, revision=revision)


def _blocks(content: PVec[Any], revision: Revision) -> list[Any]:
    return [encode_part("ContentBlock", b, revision=revision) for b in content]


def _chunk_meta(out: dict[str, Any], meta: PMap[int, JsonObject]) -> None:
    if meta:
        out["chunkMeta"] = {str(i): thaw_json(m) for i, m in sorted(meta.items())}


def snapshot_extras(extras: SessionExtras, revision: Revision) -> dict[str, Any] | None:
    """The `extras` object of a snapshot, None when there is nothing to write; its parts as
    `revision` has them (what `restore_extras` reads them at)."""
    if extras == NO_EXTRAS:
        return None
    out: dict[str, Any] = {}
    if extras.compactions:
        compactions = {}
        for cid, c in in_order(extras.compactions):
            doc: dict[str, Any] = {"status": c.status, "summary": _blocks(c.summary, revision)}
            put_json(doc, "error", c.error)
            put_json(doc, "_meta", c.meta)
            _chunk_meta(doc, c.chunk_meta)
            compactions[cid] = doc
        out["compactions"] = compactions
    if extras.notices:
        out["notices"] = [
            encode_part("SessionUpdate", n, revision=revision) for n in extras.notices
        ]
    if extras.prompt_suggestions:
        out["promptSuggestions"] = [
            encode_part("PromptSuggestion", s, revision=revision) for s in extras.prompt_suggestions
        ]
    if extras.session_messages:
        messages = {}
        for mid, m in in_order(extras.session_messages):
            doc = {"content": _blocks(m.content, revision)}
            put_json(doc, "senderSessionId", m.sender_session_id)
            put_json(doc, "recipientSessionId", m.recipient_session_id)
            put_json(doc, "senderMessageId", m.sender_message_id)
            put_json(doc, "recipientMessageId", m.recipient_message_id)
            put_json(doc, "_meta", m.meta)
            _chunk_meta(doc, m.chunk_meta)
            messages[mid] = doc
        out["sessionMessages"] = messages
    if extras.replay != ReplayWindow():
        replay: dict[str, Any] = {"phase": extras.replay.phase}
        put_json(replay, "requestId", extras.replay.request_id)
        out["replay"] = replay
    if extras.children:
        children = {}
        for child_id, link in in_order(extras.children):
            doc = {}
            put_json(doc, "title", link.title)
            put_json(doc, "description", link.description)
            put_part(
                doc, "capabilities", "SubagentSessionCapabilities", link.capabilities, revision
            )
            put_part(doc, "mirroredState", "SessionUpdate", link.mirrored_state, revision)
            put_json(doc, "cwd", link.cwd)
            if link.additional_directories is not None:
                doc["additionalDirectories"] = list(link.additional_directories)
            put_json(doc, "_meta", link.meta)
            children[child_id] = doc
        out["children"] = children
    if extras.child_order:
        out["childOrder"] = list(extras.child_order)
    for name, key, _ in PLAIN:
        put_json(out, key, getattr(extras, name))
    return out


# -- restore -------------------------------------------------------------------------------


class Reader:
    """Typed reads from one snapshot document at one revision (paths into the document)."""

    def __init__(self, revision: Revision) -> None:
        self.revision = revision

    def need(self, obj: Mapping[str, Any], key: str, kind: type[Any], path: Path) -> Any:
        value = obj.get(key)
        if type(value) is not kind:  # exact: a subclass could override what restore reads
            raise DecodeError(render_path((path, key)), f"{kind.__name__} (required)")
        return value

    def opt(self, obj: Mapping[str, Any], key: str, kind: type[Any], path: Path) -> Any:
        return self.need(obj, key, kind, path) if key in obj else None

    def part(self, name: str, value: object, path: Path) -> Any:
        return decode_part(name, value, path, revision=self.revision)

    def opt_part(self, obj: Mapping[str, Any], key: str, name: str, path: Path) -> Any:
        return self.part(name, obj[key], (path, key)) if key in obj else None

    def obj(self, obj: Mapping[str, Any], key: str, path: Path) -> JsonObject | None:
        value = self.opt(obj, key, dict, path)
        return None if value is None else self.part("JsonObject", value, (path, key))

    def blocks(self, obj: Mapping[str, Any], key: str, path: Path) -> PVec[Any]:
        raw = self.need(obj, key, list, path)
        return PVec(self.part("ContentBlock", x, ((path, key), i)) for i, x in enumerate(raw))

    def chunk_meta(self, obj: Mapping[str, Any], path: Path) -> PMap[int, JsonObject]:
        raw = self.opt(obj, "chunkMeta", dict, path)
        if not raw:
            return PMap()
        out: dict[int, JsonObject] = {}
        for k, v in raw.items():
            where: Path = ((path, "chunkMeta"), str(k))
            out[parse_block_index(k, where)] = self.part("JsonObject", v, where)
        return PMap(out)

    def strings(self, obj: Mapping[str, Any], key: str, path: Path) -> tuple[str, ...] | None:
        raw = self.opt(obj, key, list, path)
        if raw is None:
            return None
        for i, item in enumerate(raw):
            if type(item) is not str:
                raise DecodeError(render_path(((path, key), i)), "str")
        return tuple(raw)

    def section(self, obj: Mapping[str, Any], key: str, path: Path) -> dict[str, Any]:
        raw = self.opt(obj, key, dict, path) or {}
        for entry_id, entry in raw.items():
            if type(entry) is not dict:
                raise DecodeError(render_path(((path, key), entry_id)), "object")
        return raw


def restore_extras(doc: Mapping[str, Any], r: Reader) -> SessionExtras:
    """The `extras` of a snapshot document (NO_EXTRAS when absent)."""
    root: Path = None
    raw = r.opt(doc, "extras", dict, root)
    if raw is None:
        return NO_EXTRAS
    path: Path = (root, "extras")
    compactions = {}
    for cid, c in r.section(raw, "compactions", path).items():
        cpath: Path = ((path, "compactions"), cid)
        compactions[cid] = CompactionState(
            r.need(c, "status", str, cpath),
            r.blocks(c, "summary", cpath),
            r.opt(c, "error", str, cpath),
            r.obj(c, "_meta", cpath),
            r.chunk_meta(c, cpath),
        )
    notices = EMPTY_VEC
    for i, n in enumerate(r.opt(raw, "notices", list, path) or ()):
        npath: Path = ((path, "notices"), i)
        notice = r.part("SessionUpdate", n, npath)
        if type(notice) is not Notice:
            raise DecodeError(render_path(npath), "a notice update")
        notices = notices.append(notice)
    suggestions = tuple(
        r.part("PromptSuggestion", s, ((path, "promptSuggestions"), i))
        for i, s in enumerate(r.opt(raw, "promptSuggestions", list, path) or ())
    )
    messages = {}
    for mid, m in r.section(raw, "sessionMessages", path).items():
        mpath: Path = ((path, "sessionMessages"), mid)
        messages[mid] = SessionMessageState(
            r.blocks(m, "content", mpath),
            r.opt(m, "senderSessionId", str, mpath),
            r.opt(m, "recipientSessionId", str, mpath),
            r.opt(m, "senderMessageId", str, mpath),
            r.opt(m, "recipientMessageId", str, mpath),
            r.obj(m, "_meta", mpath),
            r.chunk_meta(m, mpath),
        )
    replay = ReplayWindow()
    replay_doc = r.opt(raw, "replay", dict, path)
    if replay_doc is not None:
        rpath: Path = (path, "replay")
        phase = r.need(replay_doc, "phase", str, rpath)
        if phase not in _PHASES:
            raise DecodeError(render_path((rpath, "phase")), " or ".join(_PHASES))
        request_id = replay_doc.get("requestId")
        if not (request_id is None or type(request_id) in (int, str)):
            raise DecodeError(render_path((rpath, "requestId")), "a JSON-RPC id")
        replay = ReplayWindow(phase, request_id)
    children = {}
    for child_id, link in r.section(raw, "children", path).items():
        lpath: Path = ((path, "children"), child_id)
        mirrored = r.opt_part(link, "mirroredState", "SessionUpdate", lpath)
        if mirrored is not None and not isinstance(mirrored, _STATE_UPDATES):
            raise DecodeError(render_path((lpath, "mirroredState")), "a state update")
        children[child_id] = ChildLink(
            r.opt(link, "title", str, lpath),
            r.opt(link, "description", str, lpath),
            r.opt_part(link, "capabilities", "SubagentSessionCapabilities", lpath),
            mirrored,
            r.opt(link, "cwd", str, lpath),
            r.strings(link, "additionalDirectories", lpath),
            r.obj(link, "_meta", lpath),
        )
    child_order = r.strings(raw, "childOrder", path) or ()
    return SessionExtras(
        PMap(compactions),
        notices,
        suggestions,
        PMap(messages),
        replay,
        PMap(children),
        child_order,
        **{name: r.opt(raw, key, kind, path) for name, key, kind in PLAIN},
    )


def check_extras(extras: SessionExtras, in_timeline: set[tuple[str, str]]) -> None:
    """Refuse extras the reducers could never build.

    - a compaction or session message gets its timeline entry when first seen, and keeps it;
    - chunk-scoped `_meta` sits at the index of a block the entity has;
    - `childOrder` lists every announced child exactly once (its announcement order);
    - a replay that is not running names no resume request only before any began.

    Raises:
        DecodeError: the first invariant broken, with a path into the snapshot document.
    """
    path: Path = (None, "extras")
    tables: dict[str, Mapping[str, Any]] = {
        COMPACTION: extras.compactions,
        SESSION_MESSAGE: extras.session_messages,
    }
    for kind, table in tables.items():
        for entity_id, entity in table.items():
            where: Path = ((path, EXTRA_KINDS[kind]), entity_id)
            if (kind, entity_id) not in in_timeline:
                raise DecodeError(render_path(where), f"a {kind} listed in the timeline")
            content = entity.summary if kind == COMPACTION else entity.content
            for index in entity.chunk_meta:
                if index >= len(content):
                    raise DecodeError(
                        render_path(((where, "chunkMeta"), str(index))),
                        f"the index of one of {len(content)} blocks",
                    )
    for i, child_id in enumerate(extras.child_order):
        if child_id not in extras.children or child_id in extras.child_order[:i]:
            raise DecodeError(
                render_path(((path, "childOrder"), i)), "each announced child once, in order"
            )
    for child_id in extras.children:
        if child_id not in extras.child_order:
            raise DecodeError(
                render_path(((path, "children"), child_id)), "a child listed in childOrder"
            )
    replay = extras.replay
    if replay.phase == REPLAY_NONE and replay.request_id is not None:
        raise DecodeError(
            render_path(((path, "replay"), "requestId")), "no resume request before a replay"
        )
