"""Rules one message breaks on its own: values, paths, encodings, shapes.

Owns: the checks of a single decoded update, permission request, batch or error answer
(J11; the `initialize` answer's are `_rules/_check_initialize.py`'s); open-enum values against a
revision, absolute paths (R26, R33, and the Preview's R52, R78), base64, first-sight
titles, non-empty tool call ids (J63) and terminal ids (R31), usage cost currencies (R37),
a select option's current value (J61, also asked by
`_rules/_check_answers.py` for the options a session answer carries), message id roles,
batch contents; the naming of decode failures is
`_rules/_check_undecodable.py`. `update_findings` is the one judgement of a single update:
the checker, the client engine (what it receives) and the agent engine (what it sends,
`_engines/_agent_build.Build.obey`) all ask it.
Must not know: the conversation (turns, prompts, answers: `_rules/_protocol.py`), files.
Over the ~600-line guide on purpose: one job, what one message breaks without any memory of
the connection, and its fast-path predicates (`plain_chunk_role`, `plain_tool_chunk`,
`plain_tool_call_update`) beside the checks they must agree with. The seam if it grows: the
Preview's value checks (R52, R78, paths and enums by revision) into a module of their own.

Each check returns `Finding`s, `(rule id, explanation)`; the caller adds the line index.
`Seen` is the little per-session memory these checks need (which message ids and tool calls
were already reported); it lives only as long as one `check_trace` call.
"""

from __future__ import annotations

import re
from collections.abc import Iterator, Mapping
from typing import Any, Final, TypeAlias

import attrs

from acp_core._state._pcoll import PMap
from acp_core._state._session_state import SessionState
from acp_core._wire import _content as c
from acp_core._wire import _jsonrpc as j
from acp_core._wire import _updates as u
from acp_core._wire._json import EMPTY_OBJECT, UNSET
from acp_core._wire._revision import Revision
from acp_core._wire._updates_preview import PlanMarkdown, SessionMessageChunk, SubagentUpdate

from ._decides import decides
from ._predicates import (
    Family,
    custom_root_keys,
    is_absolute,
    is_base64,
    later_revision_of_key,
    open_enum_finding,
    shown,
    unstable_key,
)

__all__ = [
    "CHECKED",
    "Finding",
    "MessageRules",
    "Seen",
    "StateSeen",
    "child_directory_findings",
    "error_finding",
    "permission_shape_findings",
    "plain_chunk_role",
    "plain_tool_call_update",
    "plain_tool_chunk",
    "plan_path_finding",
    "select_value_finding",
    "terminal_cwd_finding",
    "terminal_id_finding",
    "update_findings",
    "usage_cost_finding",
]

#: The rules these checks (and the naming of decode failures) report.
CHECKED: Final = frozenset(
    {
        *("D1", "R4", "R5", "R14", "R18", "R19", "R26", "R29", "R31", "R33", "R34", "R35"),
        *("R37", "R43", "R44", "R52", "R54", "R78", "R80"),
        *("J11", "J61", "J63"),
    }
)
# What travels on a `session_message` upsert only, never on its chunks (R54).
_UPSERT_ONLY: Final = frozenset(
    {"senderSessionId", "recipientSessionId", "senderMessageId", "recipientMessageId"}
)

#: A broken rule without its place: (rule id, readable explanation).
Finding: TypeAlias = tuple[str, str]

# Request methods that should not travel in a batch (transports: lifecycle-sensitive).
_NO_BATCH: Final = frozenset(
    {"initialize", "auth/login", "session/new", "session/resume", j.Method.SESSION_PROMPT}
)
_ROLE: Final[Mapping[type, str]] = {
    u.UserMessageChunk: "user",
    u.UserMessage: "user",
    u.AgentMessageChunk: "agent",
    u.AgentMessage: "agent",
    u.AgentThoughtChunk: "thought",
    u.AgentThought: "thought",
}


_NO_ROLES: Final[PMap[str, str]] = PMap()
_NO_TOOLS: Final[PMap[str, bool]] = PMap()


class Seen:
    """What one session already reported: message id -> role, tool call ids (the checker's
    memory; engines use `StateSeen`, since their reducers already remember).

    A draft over two persistent maps: `role` and `first_sight` replace the maps, never change
    them, so the checker keeps `memory()` (a pair of values) and a draft costs nothing to
    start from it (`Seen(*memory)`)."""

    __slots__ = ("roles", "tools")

    def __init__(
        self, roles: PMap[str, str] = _NO_ROLES, tools: PMap[str, bool] = _NO_TOOLS
    ) -> None:
        self.roles = roles
        self.tools = tools

    def role(self, message_id: str, role: str) -> str:
        """The role `message_id` already names; `role` is recorded when it is new."""
        known = self.roles.get(message_id)
        if known is None:
            self.roles = self.roles.set(message_id, role)
            return role
        return known

    def memory(self) -> tuple[PMap[str, str], PMap[str, bool]]:
        """What this draft knows, as values (`Seen(*memory)` starts a draft from it)."""
        return self.roles, self.tools

    def copy(self) -> Seen:
        """An independent copy (the maps are values: shared, never changed)."""
        return Seen(self.roles, self.tools)

    def first_sight(self, tool_call_id: str) -> bool:
        """True the first time `tool_call_id` is seen."""
        if tool_call_id in self.tools:
            return False
        self.tools = self.tools.set(tool_call_id, True)
        return True


class StateSeen(Seen):
    """`Seen` answered from a folded session (what a client engine already applied)."""

    __slots__ = ("state",)

    def __init__(self, state: SessionState) -> None:
        super().__init__()
        self.state = state

    def role(self, message_id: str, role: str) -> str:
        known = self.state.message_role(message_id)
        return known if known is not None else super().role(message_id, role)

    def first_sight(self, tool_call_id: str) -> bool:
        return tool_call_id not in self.state.tool_calls and super().first_sight(tool_call_id)


@decides("R33")
def terminal_cwd_finding(upd: u.TerminalUpdate) -> Finding | None:
    """R33: a terminal's `cwd`, when given, is absolute."""
    if isinstance(upd.cwd, str) and not is_absolute(upd.cwd):
        return ("R33", f"terminal {upd.terminal_id!r} has relative cwd {upd.cwd!r}")
    return None


@decides("R31")
def terminal_id_finding(upd: u.TerminalUpdate | u.TerminalOutputChunk) -> Finding | None:
    """R31: a terminal is named by a non-empty `terminalId` (an empty one cannot stay the
    terminal's own, stable id: it names no terminal, as J63 says of an empty tool call id)."""
    if upd.terminal_id:
        return None
    tag = "terminal_update" if type(upd) is u.TerminalUpdate else "terminal_output_chunk"
    return ("R31", f"{tag} with an empty `terminalId`; a terminal id is non-empty")


#: ISO 4217 currency codes: three capital letters (R37).
_CURRENCY: Final = re.compile(r"[A-Z]{3}")


@decides("R37")
def usage_cost_finding(upd: u.UsageUpdate) -> Finding | None:
    """R37: a usage update's `cost`, when given, names an ISO 4217 `currency` (its counts'
    types are the codec's: a negative `used` does not decode, D1)."""
    cost = upd.cost
    if isinstance(cost, u.Cost) and not _CURRENCY.fullmatch(cost.currency):
        return ("R37", f"usage cost currency {cost.currency!r} is not an ISO 4217 code")
    return None


@decides("R26")
def permission_shape_findings(
    title: object, options: object, cwd: str | None = None
) -> list[Finding]:
    """R26: a permission request has a `title` and at least one option, and a `command`
    subject an absolute `cwd`. Asked of a decoded request (`MessageRules.permission`) and of
    the raw params of one that does not decode (`_rules/_check_undecodable.py`), where a
    missing title or no option is what keeps it from decoding."""
    found: list[Finding] = []
    if not isinstance(title, str) or not options:
        found.append(("R26", "a permission request needs a title and at least one option"))
    elif not title.strip():
        found.append(("R26", "permission request with an empty `title`"))
    if cwd is not None and not is_absolute(cwd):
        found.append(("R26", f"`command` permission subject with relative cwd {cwd!r}"))
    return found


@decides("R78")
def plan_path_finding(plan: PlanMarkdown, revision: Revision) -> Finding | None:
    """R78: a markdown plan's `path`, when given, is absolute (from the revision R78 has)."""
    path = plan.path
    if isinstance(path, str) and not is_absolute(path) and revision.applies("R78"):
        return ("R78", f"markdown plan {shown(plan.plan_id)}: relative path {path!r}")
    return None


@decides("R52")
def child_directory_findings(upd: SubagentUpdate, revision: Revision) -> list[Finding]:
    """R52: the `cwd` and `additionalDirectories` reported for a child are absolute (from
    the revision R52 has)."""
    if not revision.applies("R52"):
        return []
    dirs = [upd.cwd] if isinstance(upd.cwd, str) else []
    if isinstance(upd.additional_directories, tuple):
        dirs.extend(upd.additional_directories)
    return [
        ("R52", f"child {shown(upd.session_id)} is reported with relative directory {d!r}")
        for d in dirs
        if not is_absolute(d)
    ]


def _a(role: str) -> str:
    """The role with its article: "a user", "a thought", "an agent"."""
    return f"an {role}" if role == "agent" else f"a {role}"


_CHUNK_ROLE: Final[Mapping[type, str]] = {
    u.UserMessageChunk: "user",
    u.AgentMessageChunk: "agent",
    u.AgentThoughtChunk: "thought",
}


@decides("J61")
def select_value_finding(option: u.SessionConfigSelect) -> Finding | None:
    """J61: a select option's current value is one of its values (flat or grouped), in an
    update or in a session answer (`_rules/_check_answers.py`)."""
    values = {
        v.value
        for item in option.options
        for v in (item.options if isinstance(item, u.SessionConfigSelectGroup) else (item,))
    }
    if option.current_value in values:
        return None
    return (
        "J61",
        f"config option {shown(option.config_id)} has current value "
        f"{shown(option.current_value)}, which is not one of its values",
    )


@decides("J63")
def tool_call_id_finding(upd: u.ToolCallUpdate | u.ToolCallContentChunk) -> Finding | None:
    """J63: a tool call update or content chunk names its tool call by a non-empty id."""
    if upd.tool_call_id:
        return None
    return ("J63", f"{_TAG[type(upd)]} with an empty `toolCallId`; a tool call id is non-empty")


_TAG: Final[Mapping[type, str]] = {
    u.ToolCallUpdate: "tool_call_update",
    u.ToolCallContentChunk: "tool_call_content_chunk",
}


@decides("J11")
def error_finding(error: j.RpcError) -> Finding | None:
    """J11: an error's `message` is a non-empty single line."""
    text = error.message
    if text.strip() and "\n" not in text and "\r" not in text:
        return None
    return "J11", f"error {error.code} has message {shown(text)}: expected one non-empty line"


#: The protocol versions ACP defines (v1 and v2); a request beyond them asks for none.
def update_findings(revision: Revision, state: SessionState, upd: u.SessionUpdate) -> list[Finding]:
    """What an update received into `state` breaks on its own (`MessageRules.update` with
    `StateSeen(state)`), with a fast path for the common case: a plain text chunk.

    A text chunk without unknown keys or annotations can break one rule only, R5 (its
    message id names another role); every other check `update` runs finds nothing in it, so
    the answer is the same without building the checks' memory.
    """
    role = plain_chunk_role(upd)
    if role is not None:
        chunk: Any = upd
        known = state.message_role(chunk.message_id)
        if known is None or known == role:
            return []
    return MessageRules(revision).update(StateSeen(state), upd)


def plain_tool_chunk(upd: object) -> str | None:
    """The tool call id of a plain tool content chunk (a non-empty id; one text block as
    `content`; no unknown keys, annotations or `_meta` anywhere), None for any other update:
    such a chunk breaks no rule of its own once its tool call is known (R14 judges a first
    sight by a chunk; J63 an empty id; R43 unknown keys)."""
    if type(upd) is not u.ToolCallContentChunk or upd.extra or upd.meta is not UNSET:
        return None
    item = upd.content
    if type(item) is not c.ToolContent or item.extra or item.meta is not UNSET:
        return None
    block = item.content
    if type(block) is not c.TextContent or block.annotations is not UNSET or block.extra:
        return None
    return upd.tool_call_id or None


def plain_tool_call_update(upd: object, revision: Revision) -> str | None:
    """The tool call id of a plain tool call patch (a non-empty id; a `status` known in
    `revision` or none; `rawInput`, `rawOutput` or neither; nothing else: no title, kind,
    content, locations, name, capabilities, unknown keys or `_meta`), None for any other
    update: such a patch breaks no rule of its own once its tool call is known (R14 judges
    a first sight; J63 an empty id; R18 an unknown status; R43 unknown keys; the raw values
    are opaque JSON no rule looks into). It moves no foreground (only `state_update` does)
    and creates nothing, so its only effect is its own fields on a known tool call."""
    if type(upd) is not u.ToolCallUpdate or upd.extra or upd.meta is not UNSET:
        return None
    status = upd.status
    if status is not UNSET and status not in revision.tool_statuses:
        return None  # None (patched to "pending") and unknown statuses go the general way
    if (
        upd.title is not UNSET
        or upd.kind is not UNSET
        or upd.content is not UNSET
        or upd.locations is not UNSET
        or upd.name is not UNSET
        or upd.capabilities is not UNSET
    ):
        return None
    return upd.tool_call_id or None


def plain_chunk_role(upd: object) -> str | None:
    """The role of a plain text chunk (no unknown keys, no annotations), None for any other
    update: such a chunk breaks R5 at most (`update_findings`), and only when its message id
    names a message of another role."""
    role = _CHUNK_ROLE.get(type(upd))
    if role is None:
        return None
    chunk: Any = upd
    content = chunk.content
    if (
        type(content) is c.TextContent
        and content.annotations is UNSET
        and not content.extra
        and not chunk.extra
    ):
        return role
    return None


class MessageRules:
    """The single-message checks for one revision."""

    def __init__(self, revision: Revision) -> None:
        self.revision = revision
        self._found: list[Finding] = []

    def found(self, rule: str, message: str) -> None:
        self._found.append((rule, message))

    def add(self, finding: Finding | None) -> None:
        if finding is not None:
            self._found.append(finding)

    def _take(self) -> list[Finding]:
        out, self._found = self._found, []
        return out

    def update(self, seen: Seen, upd: u.SessionUpdate) -> list[Finding]:
        """What a `session/update`'s update breaks on its own."""
        self._update(seen, upd)
        self.root_keys(upd)
        return self._take()

    @decides("R54")
    def root_keys(self, value: object) -> None:
        """R43: unknown keys at the root of any spec type in `value` (`_meta` is the place)."""
        for holder, keys in _extras(value):
            name = type(holder).__name__
            custom = custom_root_keys(self.revision, name, keys)
            if type(holder) is SessionMessageChunk and self.revision.applies("R54"):
                moved = [k for k in custom if k in _UPSERT_ONLY]
                if moved:  # one finding per fault: R54 names these keys, not R43
                    custom = [k for k in custom if k not in _UPSERT_ONLY]
                    self.found(
                        "R54",
                        f"session_message_chunk carries {', '.join(shown(k) for k in moved)}: "
                        "a chunk carries only content; participants and cross-references "
                        "travel on session_message upserts",
                    )
            if custom:
                self._r43(name, custom)

    @decides("R43")
    def _r43(self, name: str, keys: list[str]) -> None:
        # Keys a later revision or the unstable schema defines are not custom: they get a
        # hint where the revision stands, not the advice to use `_meta`.
        later = {k: r for k in keys if (r := later_revision_of_key(name, k))}
        unstable = [k for k in keys if k not in later and unstable_key(name, k)]
        custom = [k for k in keys if k not in later and k not in unstable]
        if custom:
            self.found(
                "R43",
                f"custom key(s) {', '.join(shown(k) for k in custom)} at the root of "
                f"{name}; extensions go in `_meta`",
            )
        if later:
            first = next(iter(later.values()))
            self.found(
                "R43",
                f"key(s) {', '.join(shown(k) for k in later)} at the root of {name} are not in "
                f"the {self.revision.name} schema (defined in the {first} draft: check with "
                f"--revision {first})",
            )
        if unstable:
            self.found(
                "R43",
                f"key(s) {', '.join(shown(k) for k in unstable)} at the root of {name} are not "
                f"in the {self.revision.name} schema (defined only by the unstable schema, which "
                "no revision acp-core judges by includes yet)",
            )

    def permission(self, seen: Seen, msg: j.RequestPermissionRequest) -> list[Finding]:
        """What a `session/request_permission` breaks on its own."""
        self.root_keys(msg)
        subject = msg.subject
        cwd = subject.cwd if isinstance(subject, j.CommandPermissionSubject) else None
        shape = permission_shape_findings(msg.title, msg.options, cwd)
        self._found.extend(shape)
        for option in msg.options:
            self.enum("permission option kind", option.kind)
        if isinstance(subject, j.ToolCallPermissionSubject):
            self.tool_call(seen, subject.tool_call)
        elif isinstance(subject, j.OtherPermissionSubject):
            self.raw_tag("permission subject type", subject.raw)
        return self._take()

    @decides("R35", "R44")
    def batch(self, side: str, batch: j.Batch) -> list[Finding]:
        """What a batch breaks by what it puts together."""
        seen: dict[tuple[str, str], int] = {}
        for item in batch.items:
            if isinstance(item, j.PromptRequest):
                method: str | None = j.Method.SESSION_PROMPT
            elif isinstance(item, j.Request):
                method = item.method
            else:
                method = None
            if method in _NO_BATCH:
                self.found("R44", f"{side} batches `{method}`, a lifecycle-sensitive request")
            if isinstance(item, j.UpdateSessionNotification) and isinstance(
                item.update, (u.TerminalUpdate, u.TerminalOutputChunk)
            ):
                key = (item.session_id, item.update.terminal_id)
                seen[key] = seen.get(key, 0) + 1
                if seen[key] == 2:
                    self.found(
                        "R35",
                        f"one batch carries several order-dependent updates of terminal "
                        f"{key[1]!r}; batch entries may be processed in any order",
                    )
        return self._take()

    @decides("R34")
    def _update(self, seen: Seen, upd: u.SessionUpdate) -> None:
        if isinstance(upd, (u.UserMessageChunk, u.AgentMessageChunk, u.AgentThoughtChunk)):
            self.message_id(seen, upd, upd.message_id)
            self.content_block(upd.content)
        elif isinstance(upd, (u.UserMessage, u.AgentMessage, u.AgentThought)):
            self.message_id(seen, upd, upd.message_id)
            if isinstance(upd.content, tuple):
                for block in upd.content:
                    self.content_block(block)
        elif isinstance(upd, u.IdleStateUpdate):
            if isinstance(upd.stop_reason, str):
                self.enum("stop reason", upd.stop_reason)
        elif isinstance(upd, u.OtherStateUpdate):
            self.enum("state", upd.state)
        elif isinstance(upd, u.ToolCallUpdate):
            self.tool_call(seen, upd)
        elif isinstance(upd, u.ToolCallContentChunk):
            self.add(tool_call_id_finding(upd))
            self.first_sight(seen, upd.tool_call_id, UNSET, by_chunk=True)
            self.tool_content(upd.content)
        elif isinstance(upd, u.TerminalUpdate):
            self.add(terminal_id_finding(upd))
            self.add(terminal_cwd_finding(upd))
            if isinstance(upd.output, u.TerminalOutput) and not is_base64(upd.output.data):
                self.found(
                    "R34", f"terminal {upd.terminal_id!r} output snapshot is not valid base64"
                )
        elif isinstance(upd, u.TerminalOutputChunk):
            self.add(terminal_id_finding(upd))
            if not is_base64(upd.data):
                self.found(
                    "R34",
                    f"output chunk of terminal {upd.terminal_id!r} is not valid base64 on its own",
                )
        elif isinstance(upd, u.PlanUpdate):
            self.plan(upd.plan)
        elif isinstance(upd, u.UsageUpdate):
            self.add(usage_cost_finding(upd))
        elif isinstance(upd, SubagentUpdate):
            self._found.extend(child_directory_findings(upd, self.revision))
        elif isinstance(upd, u.AvailableCommandsUpdate):
            for command in upd.available_commands:
                if isinstance(command.input, u.OtherCommandInput):
                    self.raw_tag("command input type", command.input.raw)
        elif isinstance(upd, u.ConfigOptionUpdate):
            for option in upd.config_options:
                if isinstance(option, u.OtherSessionConfigOption):
                    self.raw_tag("config option type", option.raw)
                elif isinstance(option, u.SessionConfigSelect):
                    self.add(select_value_finding(option))
        elif isinstance(upd, u.OtherUpdate):
            self.enum("sessionUpdate", upd.session_update)


    @decides("R5")
    def message_id(self, seen: Seen, upd: u.SessionUpdate, mid: str) -> None:
        role = _ROLE[type(upd)]
        known = seen.role(mid, role)
        if known != role:
            self.found(
                "R5",
                f"message id {mid!r} names {_a(known)} message and is reused for "
                f"{_a(role)} message",
            )

    @decides("R14")
    def first_sight(
        self, seen: Seen, tool_call_id: str, title: object, *, by_chunk: bool = False
    ) -> None:
        """R14: a tool call is first reported with its title (a content chunk has none; an
        empty title "" describes nothing, so it is no title either); an empty id names no
        tool call (J63 says so), R14 does not judge it."""
        # `Seen.first_sight` records the id: call it first, whatever the title
        titled = isinstance(title, str) and title
        if tool_call_id and seen.first_sight(tool_call_id) and not titled:
            how = "by a content chunk, without a title" if by_chunk else "without a title"
            if title == "":
                how = "with an empty title"
            self.found("R14", f"tool call {tool_call_id!r} is first reported {how}")

    def tool_call(self, seen: Seen, upd: u.ToolCallUpdate) -> None:
        self.add(tool_call_id_finding(upd))
        self.first_sight(seen, upd.tool_call_id, upd.title)
        if isinstance(upd.kind, str):
            self.enum("tool kind", upd.kind)
        if isinstance(upd.status, str):
            self.enum("tool call status", upd.status)
        if isinstance(upd.content, tuple):
            for item in upd.content:
                self.tool_content(item)

    def tool_content(self, item: c.ToolCallContent) -> None:
        if isinstance(item, c.ToolContent):
            self.content_block(item.content)
        elif isinstance(item, c.OtherToolCallContent):
            self.enum("tool call content type", item.type)

    def content_block(self, block: c.ContentBlock) -> None:
        if isinstance(block, c.OtherContent):
            self.enum("content block type", block.type)

    def plan(self, plan: u.PlanItems | PlanMarkdown | u.OtherPlan) -> None:
        if isinstance(plan, u.OtherPlan):
            self.raw_tag("plan type", plan.raw)
            return
        if isinstance(plan, PlanMarkdown):
            self.add(plan_path_finding(plan, self.revision))
            return
        for entry in plan.entries:
            self.enum("plan entry priority", entry.priority)
            self.enum("plan entry status", entry.status)

    def raw_tag(self, family: Family, raw: Mapping[str, Any]) -> None:
        tag = raw.get("type")
        if isinstance(tag, str):
            self.enum(family, tag)

    def enum(self, family: Family, value: str) -> None:
        finding = open_enum_finding(self.revision, family, value)
        if finding is not None:
            self._found.append(finding)


def _extras(value: object) -> Iterator[tuple[object, Mapping[str, Any]]]:
    # Every decoded value in `value` with unknown keys, depth first (values are small trees).
    stack = [value]
    while stack:
        v = stack.pop()
        fields = _FIELDS[type(v)]  # (asked first: most of what is walked is a decoded value)
        if fields is None:
            if isinstance(v, tuple):
                stack.extend(v)
            continue
        extra = getattr(v, "extra", None)
        if extra:
            yield v, extra
        for f in fields:
            x = getattr(v, f)
            if type(x) not in _LEAVES:  # a leaf holds no value with keys of its own
                stack.append(x)


def _descend(cls: type) -> tuple[str, ...] | None:
    if not attrs.has(cls):
        return None
    return tuple(f.name for f in attrs.fields(cls) if f.name not in _OPAQUE)


_OPAQUE: Final = frozenset({"extra", "raw", "meta", "envelope_extra", "chunk_meta"})
# (a frozen JSON object is a leaf too: raw JSON holds plain JSON, never a value with keys)
_LEAVES: Final = frozenset({str, int, float, bool, type(None), type(UNSET), type(EMPTY_OBJECT)})


class _FieldCache(dict[type, "tuple[str, ...] | None"]):
    def __missing__(self, cls: type) -> tuple[str, ...] | None:
        self[cls] = found = _descend(cls)
        return found


_FIELDS: Final = _FieldCache()
