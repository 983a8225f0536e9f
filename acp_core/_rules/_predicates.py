"""Closed sets and value predicates: the one place each such protocol fact is written.

Owns: which values of each open enum are known in a revision, which rule an unknown one
breaks (R18 at the sites R18 names, R19 at the other open sites), permission option kinds
and which of them approve, the lifecycle `sessionUpdate` tags, absolute paths, base64, the
dict key of a JSON-RPC request id, and a safe way to show any value in a message.
Must not know: messages, sessions, engines, the checker. Everything here is a pure function
of its arguments or a frozen set.

Why one home: the agent engine refuses, the client engine records and the checker reports
the same fact; when each wrote its own copy they named different rules for it (an engine
said R19 where the checker said R18 for the stop reason `"weird"`). Each consumer now asks
`open_enum_finding`, so the same value gets the same rule id everywhere.
"""

from __future__ import annotations

import binascii
import re
from collections.abc import Iterable, Mapping
from typing import Final, Literal, TypeAlias

from acp_core._wire import _jsonrpc as j
from acp_core._wire import _updates as u
from acp_core._wire._revision import Revision

__all__ = [
    "APPROVING_OPTION_KINDS",
    "MESSAGE_UPDATE_TAGS",
    "PERMISSION_OPTION_KINDS",
    "Family",
    "RequestKey",
    "custom_root_keys",
    "is_absolute",
    "is_base64",
    "is_custom",
    "known_values",
    "later_revision_of_key",
    "open_enum_finding",
    "open_enum_rule",
    "request_key",
    "shown",
]

#: The known permission option kinds (the set is open: `_`-prefixed kinds are extensions).
PERMISSION_OPTION_KINDS: Final = frozenset(
    {
        j.PermissionOptionKind.ALLOW_ONCE,
        j.PermissionOptionKind.ALLOW_ALWAYS,
        j.PermissionOptionKind.REJECT_ONCE,
        j.PermissionOptionKind.REJECT_ALWAYS,
    }
)
#: The option kinds whose selection is approval; anything else, custom kinds included, is not
#: (R25: only an explicit allow approves).
APPROVING_OPTION_KINDS: Final = frozenset(
    {j.PermissionOptionKind.ALLOW_ONCE, j.PermissionOptionKind.ALLOW_ALWAYS}
)
#: `sessionUpdate` tags of message updates (they carry a `messageId`, R4).
MESSAGE_UPDATE_TAGS: Final = frozenset(
    {
        "user_message_chunk",
        "user_message",
        "agent_message_chunk",
        "agent_message",
        "agent_thought_chunk",
        "agent_thought",
    }
)

# Keys a later revision adds to types 2026-08 already has, while the codec keeps them as
# unknown keys: not custom in that revision (R43), custom in earlier ones.
_LATER_KEYS: Final[Mapping[str, Mapping[str, frozenset[str]]]] = {
    "2026-11": {
        "AvailableCommand": frozenset({"type"}),
        "IdleStateUpdate": frozenset({"background"}),
        "RunningStateUpdate": frozenset({"background"}),
        "RequiresActionStateUpdate": frozenset({"background"}),
        "TerminalUpdate": frozenset({"capabilities", "size"}),
        "ToolCallUpdate": frozenset({"capabilities", "name"}),
    },
}


def custom_root_keys(revision: Revision, type_name: str, keys: Iterable[object]) -> list[str]:
    """The keys among `keys` (unknown keys of a decoded `type_name`) that are custom in
    `revision`: neither `_meta` nor defined by the revision (R43)."""
    allowed = _LATER_KEYS.get(revision.name, {}).get(type_name, frozenset())
    return sorted(k for k in keys if isinstance(k, str) and k != "_meta" and k not in allowed)


# Keys only the unstable schema (`schema.unstable.json`) defines on a type: no revision
# acp-core knows has them, so they are not custom either; the digests' tables name them
# ("unstable" in every revision).
_UNSTABLE_KEYS: Final[Mapping[str, frozenset[str]]] = {
    "IdleStateUpdate": frozenset({"usage"}),  # end-of-turn token usage (RFD still a draft)
    "AgentCapabilities": frozenset({"positionEncoding"}),  # a string, not a marker (J46)
}


def later_revision_of_key(type_name: str, key: str) -> str | None:
    """The later revision that defines `key` on `type_name`, if one does (for hints)."""
    return next(
        (name for name, keys in _LATER_KEYS.items() if key in keys.get(type_name, ())), None
    )


def unstable_key(type_name: str, key: str) -> bool:
    """Whether only the unstable schema defines `key` on `type_name` (for hints)."""
    return key in _UNSTABLE_KEYS.get(type_name, ())


#: The open enums and unions a value can be checked against.
Family: TypeAlias = Literal[
    "stop reason",
    "tool kind",
    "tool call status",
    "plan type",
    "plan entry priority",
    "plan entry status",
    "permission option kind",
    "content block type",
    "config option type",
    "command input type",
    "sessionUpdate",
    "state",
    "tool call content type",
    "permission subject type",
    "background item type",
]
# R18 lists these sites by name; every other open site is R19's ("unknown non-`_` values
# belong to future ACP").
_R18_FAMILIES: Final = frozenset(
    {
        "stop reason",
        "tool kind",
        "tool call status",
        "plan type",
        "plan entry priority",
        "plan entry status",
        "permission option kind",
        "content block type",
        "config option type",
        "command input type",
    }
)


_BACKGROUND_DECODED_AS_OTHER: Final = frozenset({"subagent"})


def known_values(revision: Revision, family: Family) -> frozenset[str]:
    """The values of `family` that are not extensions in `revision`.

    Families whose every known value has its own decoded class (content block types, plan
    types, ...) answer the empty set: a value that reached the checker as "other" is unknown.
    """
    if family == "stop reason":
        return revision.stop_reasons
    if family == "tool call status":
        return revision.tool_statuses
    if family == "tool kind":
        return u.ToolKind.KNOWN
    if family == "plan entry priority":
        return u.PlanEntryPriority.KNOWN
    if family == "plan entry status":
        return u.PlanEntryStatus.KNOWN
    if family == "permission option kind":
        return PERMISSION_OPTION_KINDS
    if family == "background item type":
        # Terminals and tool calls decode to their own classes; a subagent entry decodes as
        # "other" where the revision has no class for it (2026-11).
        return _BACKGROUND_DECODED_AS_OTHER
    if family == "sessionUpdate":
        # Every kind the revision defines (an `OtherUpdate` may carry one not decoded yet).
        return revision.update_kinds
    return frozenset()


def is_custom(value: str) -> bool:
    """An extension value: `_`-prefixed (R18, R19)."""
    return value.startswith("_")


def open_enum_rule(family: Family) -> Literal["R18", "R19"]:
    """The rule an unknown non-`_` value of `family` breaks."""
    return "R18" if family in _R18_FAMILIES else "R19"


def open_enum_finding(revision: Revision, family: Family, value: str) -> tuple[str, str] | None:
    """`(rule id, explanation)` when `value` is neither known in `revision` nor custom."""
    if value in known_values(revision, family) or is_custom(value):
        return None
    return (
        open_enum_rule(family),
        f"unknown {family} {shown(value)}: custom values must start with `_`; unknown "
        f"non-`_` values are reserved for future ACP revisions (checked against "
        f"{revision.name})",
    )


_WINDOWS_ABSOLUTE: Final = re.compile(r"[A-Za-z]:[\\/]|\\\\")


def is_absolute(path: str) -> bool:
    """An absolute path, POSIX (`/x`) or Windows (`C:\\x`, `C:/x`, `\\\\server`) (R26, R33)."""
    return path.startswith("/") or _WINDOWS_ABSOLUTE.match(path) is not None


def is_base64(data: str) -> bool:
    """Strict RFC 4648 base64, padding included (R34). The reducers accept unpadded data
    (a documented leniency, Q24); what an agent sends is judged strictly."""
    try:
        binascii.a2b_base64(data.encode("ascii"), strict_mode=True)
    except (binascii.Error, UnicodeEncodeError, ValueError):
        return False
    return True


#: A JSON-RPC id as a dict key (see `request_key`).
RequestKey: TypeAlias = tuple[str, object]


def request_key(request_id: object) -> RequestKey:
    """A JSON-RPC id as a dict key: compared by type and value, so 1 and "1" stay apart and
    `True` is not `1`. Ids that are not ids (lists, objects, floats) all share one key per
    type: they can never be answered, and they must not make a key unhashable."""
    if request_id is None or type(request_id) in (int, str):
        return (type(request_id).__name__, request_id)
    return (type(request_id).__name__, None)


def id_twin(request_id: object) -> int | str | None:
    """The id a peer that does not echo ids exactly may have meant: `1` for `"1"` and `"1"`
    for `1` (J37); None for any other id."""
    if type(request_id) is int:
        return str(request_id) if request_id.bit_length() <= 64 else None
    if type(request_id) is str and request_id.isascii() and request_id.lstrip("-").isdigit():
        text = request_id.lstrip("-")
        if len(text) <= 19 and (text == "0" or not text.startswith("0")):
            return int(request_id)
    return None


_MAX_SHOWN: Final = 80


def shown(value: object) -> str:
    """`repr(value)` for a message, bounded: long strings are cut, huge integers are named by
    their size (their `repr` would raise past Python's 4,300-digit limit), lone surrogates
    come out escaped."""
    if type(value) is int and value.bit_length() > 256:
        return f"<an integer of {value.bit_length()} bits>"
    if isinstance(value, str):
        text = repr(value[:_MAX_SHOWN])
        return text if len(value) <= _MAX_SHOWN else f"{text}... ({len(value)} characters)"
    if value is None or isinstance(value, (bool, int, float)):
        return repr(value)
    if isinstance(value, Mapping):
        return "an object"
    if isinstance(value, (list, tuple)):
        return "an array"
    return f"a {type(value).__name__}"
