"""The trace checks of the agent's answers to session-management requests (J50-J62, J64).

Owns: `Answers`, the checker's record of the client requests the agent has still to answer
(method and params, by request key) and of what the recording showed of the connection's
sessions (set up, closed, deleted, their last config option set, the agent's session
capabilities), and the findings of pairing each answer with its request: a `session/list`
page (J50-J52, J55), a `session/close` or `session/delete` answer (J53, J54, J56),
`additionalDirectories` refused as invalid (J57, J58), the `configOptions` of a session
answer (J59-J62) and a prompt refused after a custom permission outcome (J64).
Must not know: a session's turn lifecycle (`_rules/_conversation.py`: the `{}` of a close
answer is R24's, the option a set answer must carry R41's), which sessions the agent may
name (`_rules/_check_sessions.py`, read here only to tell a never-created session), what a
single message breaks on its own (`_rules/_check_message.py`), files, JSON text.

What it forgets (`_rules/_recent.py`): `closed`, `deleted` and `options` keep at most
`MAX_REMEMBERED_IDS` sessions each, forgetting the oldest half at once (a delete the agent
answers for any id, an option set the agent reports for any id, grow them without the host's
consent); `live` is the host's. A
closed session leaves `live`, so forgetting it can only miss a finding: J54 or J58 for a
session closed long ago, J55 or J56 for one deleted long ago, J62 for options reported long
ago; within the bound every rule judges as before.

Why only what the recording shows: a recording that starts mid-session cannot say which
sessions exist or what the agent advertised, so an error answer is judged only against a
setup, an `initialize` answer or a delete the recording holds; a successful answer's shape
is judged always.
"""

from __future__ import annotations

import ntpath
import posixpath
from collections.abc import Mapping
from typing import Final, TypeVar

from acp_core._errors import DecodeError
from acp_core._state._pcoll import PMap
from acp_core._wire import _jsonrpc as j
from acp_core._wire import _updates as u
from acp_core._wire._codec import decode_update_diagnosed
from acp_core._wire._json import thaw_json
from acp_core._wire._revision import Revision
from acp_core._wire._value import frozen

from ._check_message import Finding, select_value_finding
from ._check_sessions import OpenSessions
from ._draft import SlotDraft
from ._predicates import RequestKey, is_absolute, request_key, shown
from ._recent import EMPTY_RECENT, Recent

__all__ = ["CHECKED", "Answers"]

K = TypeVar("K")
V = TypeVar("V")

#: The rules these checks report.
CHECKED: Final = frozenset(
    {"J50", "J51", "J52", "J53", "J54", "J55", "J56", "J57", "J58", "J59", "J60", "J61", "J62"}
    | {"J64"}
)

_INVALID_PARAMS: Final = -32602
_SETUP: Final = frozenset({"session/new", "session/fork", "session/resume", "session/load"})
_TRACKED: Final = _SETUP | {
    "initialize",
    "session/list",
    "session/close",
    "session/delete",
    "session/set_config_option",
}
_OPTION_RULE: Final[Mapping[str, str]] = {
    "session/new": "J59",
    "session/fork": "J59",
    "session/resume": "J60",
}


def _items(value: object) -> tuple[object, ...] | None:
    return tuple(value) if isinstance(value, (list, tuple)) else None


def _only_meta(result: object) -> bool:
    return isinstance(result, Mapping) and all(k == "_meta" for k in result)


def _same_dir(a: str, b: str) -> bool:
    if a == b:
        return True
    norm = ntpath.normpath if "\\" in a or "\\" in b else posixpath.normpath
    return norm(a) == norm(b)


def _session_capability(result: object, name: str) -> bool:
    caps = result.get("capabilities") if isinstance(result, Mapping) else None
    session = caps.get("session") if isinstance(caps, Mapping) else None
    return isinstance(session, Mapping) and isinstance(session.get(name), Mapping)


@frozen
class _Request:
    method: str
    params: Mapping[str, object]
    deleted: Recent[str, bool]  # sessions deleted before the request was sent (J55)


_NO_SESSIONS: Final[PMap[str, bool]] = PMap()


class Answers(SlotDraft):
    """The answer checks of one recording: a draft's record, changed by `see` (every field
    is a persistent value, rebound rather than mutated, so `copy` is O(1) and the copy
    shares everything with the stored record until it reads something)."""

    __slots__ = (
        "capabilities",
        "closed",
        "custom",
        "deleted",
        "live",
        "options",
        "pending",
        "permissions",
        "prompts",
        "revision",
    )

    def __init__(self, revision: Revision) -> None:
        self.revision = revision
        self.pending: PMap[RequestKey, _Request] = PMap()
        self.capabilities: frozenset[str] | None = None  # the agent's session markers
        # Sets of sessions (and of prompts) as maps to True.
        self.live = _NO_SESSIONS  # set up by an answer the recording holds (the host's)
        # What names no live session, or what the agent may report of any id, a peer grows
        # without the host's consent: the newest MAX_REMEMBERED_IDS of each (the header says
        # which rules miss an id forgotten).
        self.closed: Recent[str, bool] = EMPTY_RECENT
        self.deleted: Recent[str, bool] = EMPTY_RECENT
        self.options: Recent[str, frozenset[str]] = EMPTY_RECENT  # session -> last configIds
        self.prompts: PMap[RequestKey, str] = PMap()  # pending prompts -> session
        self.permissions: PMap[RequestKey, str] = PMap()  # the agent's pending asks -> session
        self.custom: PMap[RequestKey, bool] = PMap()  # prompts pending at a custom outcome (J64)

    def copy(self) -> Answers:
        """An independent copy (for a checker that forks): O(1), it shares every persistent
        field with this one (neither is ever changed in place)."""
        twin = Answers.__new__(Answers)
        twin.revision, twin.pending, twin.capabilities = (
            self.revision,
            self.pending,
            self.capabilities,
        )
        twin.live, twin.closed, twin.deleted = self.live, self.closed, self.deleted
        twin.options, twin.prompts = self.options, self.prompts
        twin.permissions, twin.custom = self.permissions, self.custom
        return twin

    def creates(self, side: str, msg: object) -> str | None:
        """The session `msg` creates, if it is the agent's answer to a pending `session/new`
        or `session/fork` that names one: a new session, idle before its first prompt (Q2),
        where one the recording meets otherwise may be mid-way through anything."""
        if side == "client" or type(msg) is not j.Response:
            return None
        request = self.pending.get(request_key(msg.id))
        if request is None or request.method not in ("session/new", "session/fork"):
            return None
        result = msg.result
        sid = result.get("sessionId") if isinstance(result, Mapping) else None
        return sid if isinstance(sid, str) and sid else None

    def see(self, side: str, msg: object, sessions: OpenSessions) -> list[Finding]:
        """Note `msg` (sent by `side`); what it breaks as an answer of the agent."""
        if side == "client":
            self._client(msg)
            return []
        if isinstance(msg, j.RequestPermissionRequest):
            self.permissions = self.permissions.set(request_key(msg.id), msg.session_id)
        elif isinstance(msg, j.UpdateSessionNotification):
            return self._update(msg)
        elif isinstance(msg, (j.Response, j.ErrorResponse)):
            return self._answer(msg, sessions)
        return []

    # -- the client's side -------------------------------------------------------------

    def _client(self, msg: object) -> None:
        if isinstance(msg, j.PromptRequest):
            self.prompts = self.prompts.set(request_key(msg.id), msg.session_id)
        elif isinstance(msg, j.Request) and msg.method in _TRACKED:
            params = msg.params if isinstance(msg.params, Mapping) else {}
            self.pending = self.pending.set(
                request_key(msg.id), _Request(msg.method, params, self.deleted)
            )
        elif isinstance(msg, j.Response):
            sid = self._unask(request_key(msg.id))
            result = msg.result
            outcome = result.get("outcome") if isinstance(result, Mapping) else None
            tag = outcome.get("outcome") if isinstance(outcome, Mapping) else None
            if sid is not None and isinstance(tag, str) and tag.startswith("_"):
                for k, s in self.prompts.items():
                    if s == sid:
                        self.custom = self.custom.set(k, True)
        elif isinstance(msg, j.ErrorResponse):
            self._unask(request_key(msg.id))

    def _unask(self, key: RequestKey) -> str | None:
        """Forget the agent's permission request `key`; the session it asked for."""
        sid = self.permissions.get(key)
        if sid is not None:
            self.permissions = self.permissions.delete(key)
        return sid

    # -- the agent's side --------------------------------------------------------------

    def _update(self, msg: j.UpdateSessionNotification) -> list[Finding]:
        if isinstance(msg.update, u.ConfigOptionUpdate):  # the session's option set now
            self.options = self.options.set(
                msg.session_id, frozenset(_ids(msg.update.config_options))
            )
        return []

    def _answer(self, msg: j.Response | j.ErrorResponse, sessions: OpenSessions) -> list[Finding]:
        key = request_key(msg.id)
        if key in self.prompts:
            return self._prompt(key, msg)
        request = self.pending.get(key)
        if request is None:
            return []
        self.pending = self.pending.delete(key)
        method, result = request.method, msg.result if isinstance(msg, j.Response) else None
        sid_param = request.params.get("sessionId")
        sid = sid_param if isinstance(sid_param, str) else None
        if method == "initialize":
            if isinstance(msg, j.Response):
                self.capabilities = frozenset(
                    name
                    for name in ("delete", "additionalDirectories")
                    if _session_capability(result, name)
                )
            return []
        if method == "session/close":
            return self._close(sid, msg)
        if method == "session/delete":
            return self._delete(sid, msg, sessions)
        if isinstance(msg, j.ErrorResponse):
            return self._directories(request, msg.error.code)
        if method == "session/list":
            return self._page(request, result)
        return self._with_options(request, sid, result)

    def _prompt(self, key: RequestKey, msg: j.Response | j.ErrorResponse) -> list[Finding]:
        sid = self.prompts[key]
        self.prompts = self.prompts.delete(key)
        custom = key in self.custom
        if custom:
            self.custom = self.custom.delete(key)
        if custom and isinstance(msg, j.ErrorResponse) and msg.error.code == _INVALID_PARAMS:
            return [
                (
                    "J64",
                    f"the agent refuses a prompt of session {shown(sid)} with -32602 after the "
                    "client answered a permission request with a custom `_` outcome; a custom "
                    "value is tolerated",
                )
            ]
        return []

    def _close(self, sid: str | None, msg: j.Response | j.ErrorResponse) -> list[Finding]:
        if sid is None:
            return []
        if isinstance(msg, j.Response):
            # (a result other than {} is R24's.) A closed session leaves `live` for the
            # bounded `closed`, so forgetting it can only miss J54 or J58, never add a J53.
            self.live = _without(self.live, sid)
            self.closed = self.closed.set(sid, True)
            return []
        if sid in self.live and sid not in self.closed:
            return [
                (
                    "J53",
                    f"session/close of session {shown(sid)}, open on this connection, is "
                    "answered with an error; closing an open session succeeds with {}",
                )
            ]
        return []

    def _delete(
        self, sid: str | None, msg: j.Response | j.ErrorResponse, sessions: OpenSessions
    ) -> list[Finding]:
        if isinstance(msg, j.Response):
            if not _only_meta(msg.result):
                return [
                    (
                        "J54",
                        f"session/delete is answered with {shown(msg.result)}; the result is "
                        "{} (only `_meta` besides)",
                    )
                ]
            if sid is not None:
                self.deleted = self.deleted.set(sid, True)
                self.live = _without(self.live, sid)
                self.closed = self.closed.delete(sid)
                self.options = self.options.delete(sid)
            return []
        if sid is None or "delete" not in (self.capabilities or ()):
            return []
        if sid in self.live or sid in self.closed:
            return [
                (
                    "J54",
                    f"session/delete of session {shown(sid)}, which this connection set up, is "
                    "answered with an error although the agent advertised "
                    "`capabilities.session.delete`",
                )
            ]
        gone = sid in self.deleted
        if gone or (sessions.judged and sid not in sessions.known):
            return [
                (
                    "J56",
                    f"session/delete of session {shown(sid)}, "
                    f"{'already deleted' if gone else 'never created'}, is answered with an "
                    "error; deleting it succeeds silently",
                )
            ]
        return []

    def _directories(self, request: _Request, code: int) -> list[Finding]:
        # Only a request the field alone can make invalid: an absolute `cwd`, no MCP servers,
        # and for a resume a session the recording set up (an unknown one may be -32602).
        method, params = request.method, request.params
        cwd, sid = params.get("cwd"), params.get("sessionId")
        if (
            method not in ("session/new", "session/resume")
            or code != _INVALID_PARAMS
            or "additionalDirectories" not in (self.capabilities or ())
            or not isinstance(cwd, str)
            or not is_absolute(cwd)
            or _items(params.get("mcpServers"))
            or (method == "session/resume" and sid not in self.live and sid not in self.closed)
        ):
            return []
        dirs = _items(params.get("additionalDirectories"))
        if not dirs or not all(isinstance(d, str) and is_absolute(d) for d in dirs):
            return []
        return [
            (
                "J57" if method == "session/new" else "J58",
                f"{method} with absolute additionalDirectories is refused as invalid params "
                "although the agent advertised `capabilities.session.additionalDirectories`",
            )
        ]

    def _page(self, request: _Request, result: object) -> list[Finding]:
        sessions = result.get("sessions") if isinstance(result, Mapping) else None
        listed = _items(sessions)
        if listed is None:
            return [
                ("J50", f"the session/list answer has `sessions` {shown(sessions)}, not an array")
            ]
        found: list[Finding] = []
        cursor = result.get("nextCursor") if isinstance(result, Mapping) else None
        if cursor is not None and not isinstance(cursor, str):
            found.append(
                (
                    "J50",
                    f"the session/list answer has `nextCursor` {shown(cursor)}, "
                    "not a string or null",
                )
            )
        want = request.params.get("cwd")
        for n, info in enumerate(listed):
            sid = info.get("sessionId") if isinstance(info, Mapping) else None
            cwd = info.get("cwd") if isinstance(info, Mapping) else None
            if not isinstance(sid, str) or not isinstance(cwd, str):
                found.append(
                    (
                        "J50",
                        f"session/list entry {n} is {shown(info)}; a SessionInfo has a string "
                        "`sessionId` and `cwd`",
                    )
                )
                continue
            if not is_absolute(cwd):
                found.append(("J52", f"listed session {shown(sid)} has relative cwd {shown(cwd)}"))
            elif isinstance(want, str) and not _same_dir(cwd, want):
                found.append(
                    (
                        "J51",
                        f"session/list filtered by cwd {shown(want)} lists session {shown(sid)} "
                        f"with cwd {shown(cwd)}",
                    )
                )
            assert isinstance(info, Mapping)  # (a string sessionId says so)
            for d in _items(info.get("additionalDirectories")) or ():
                if isinstance(d, str) and not is_absolute(d):
                    found.append(
                        (
                            "J52",
                            f"listed session {shown(sid)} has relative additional directory "
                            f"{shown(d)}",
                        )
                    )
            if sid in request.deleted and sid not in self.live:
                found.append(
                    (
                        "J55",
                        f"session/list still lists session {shown(sid)}, which session/delete "
                        "deleted before the list was asked",
                    )
                )
        return found

    def _with_options(self, request: _Request, sid: str | None, result: object) -> list[Finding]:
        method = request.method
        if method in ("session/new", "session/fork"):
            new = result.get("sessionId") if isinstance(result, Mapping) else None
            sid = new if isinstance(new, str) and new else None
        if sid is None:
            return []
        if method in _SETUP:
            self.live = self.live.set(sid, True)
            self.closed = self.closed.delete(sid)
            self.deleted = self.deleted.delete(sid)
        raw = result.get("configOptions") if isinstance(result, Mapping) else None
        if raw is None:
            return []
        found: list[Finding] = []
        options = self._decode(_OPTION_RULE.get(method), raw, found)
        # (A set answer without a list breaks R41: the lifecycle guard says so.)
        if (
            method == "session/set_config_option"
            and _items(raw) is not None
            and sid in self.options
        ):
            have = set(_raw_ids(raw))
            asked = request.params.get("configId")
            missing = sorted(self.options[sid] - have - {asked}, key=str)
            if missing:
                found.append(
                    (
                        "J62",
                        f"the session/set_config_option answer leaves out "
                        f"{', '.join(shown(m) for m in missing)}, which session "
                        f"{shown(sid)} reported before; it carries the complete option set",
                    )
                )
        for option in options:
            if isinstance(option, u.SessionConfigSelect):
                finding = select_value_finding(option)
                if finding is not None:
                    found.append(finding)
        if _items(raw) is not None:
            self.options = self.options.set(sid, frozenset(_raw_ids(raw)))
        return found

    def _decode(
        self, rule: str | None, raw: object, found: list[Finding]
    ) -> tuple[u.SessionConfigOption, ...]:
        """The answer's options decoded as a `config_option_update` would be; its faults go
        to `found` under `rule` ("J59" for `session/new` and `session/fork`, "J60" for
        `session/resume`; a set answer's shape is not judged here: None means not at all)."""
        try:
            decoded = decode_update_diagnosed(
                {"sessionUpdate": "config_option_update", "configOptions": thaw_json(raw)},  # type: ignore[arg-type]
                revision=self.revision,
            )
        except DecodeError as e:
            if rule is not None:
                found.append((rule, f"the answer's `configOptions` do not decode ({e})"))
            return ()
        if rule is not None:
            for d in decoded.diagnostics:
                found.append((rule, f"the answer's `configOptions` are malformed: {d.message}"))
        upd = decoded.value
        options = upd.config_options if isinstance(upd, u.ConfigOptionUpdate) else ()
        for option in options:
            if rule is not None and isinstance(option, u.OtherSessionConfigOption):
                cid, name = option.raw.get("configId"), option.raw.get("name")
                if not isinstance(cid, str) or not isinstance(name, str):
                    found.append(
                        (
                            rule,
                            f"config option {shown(option.raw)} lacks a string "
                            "`configId` or `name`",
                        )
                    )
        return options


def _without(m: PMap[K, V], key: K) -> PMap[K, V]:
    return m.delete(key) if key in m else m


def _ids(options: tuple[u.SessionConfigOption, ...]) -> list[str]:
    out: list[str] = []
    for option in options:
        cid = (
            option.raw.get("configId")
            if isinstance(option, u.OtherSessionConfigOption)
            else (option.config_id)
        )
        if isinstance(cid, str):
            out.append(cid)
    return out


def _raw_ids(raw: object) -> list[str]:
    return [
        o["configId"]
        for o in _items(raw) or ()
        if isinstance(o, Mapping) and isinstance(o.get("configId"), str)
    ]
