"""The trace checker's findings as the official conformance kit reports them (`check --format tck`).

Owns: `KIT_TIERS` (the kit's tier of each of its v2 requirement ids), `KIT_TRIGGERS` (what a
recording must hold for a requirement to count as exercised), `KIT_UNTRACEABLE` and
`KIT_PENDING` (the ids no rule maps, and why; empty now), `Exercised` (that bookkeeping over
a trace) and `tck_report`, the JSON report.
Must not know: files, exit codes or printing (`__main__.py`); what any rule says or how it is
checked (the catalogue and `_check.py`); the kit's requirement texts (only its ids and tiers).

Theory of operation. The kit (agentclientprotocol/acp-tck, `src/tck/v2/requirements.py`)
gives every requirement a stable id and a tier: MANDATORY (a MUST), CAPABILITY (a MUST that
applies once the agent advertised the capability it rides on), ADVISORY (a SHOULD) or
INFORMATIONAL (recorded, never judged). The catalogue's `kit_id` column names, per rule, the
kit requirement that tests the same obligation, so one kit id stands for one or more rules.
A requirement's status in a recording is:
- `failed`: `check_trace` reported one of its rules (not as a warning);
- `passed`: none of them was reported and the recording exercised it: it holds one of the
  requirement's triggers (`KIT_TRIGGERS`: a method sent by one side, a `session/update` kind,
  a foreground state, a resume with or without a replay cursor, a prompt content type, a
  batch, a notification);
- `not-observed`: neither. A recording that only ends too early to judge (an R7 warning) is
  not-observed too, unless another line failed the requirement. A kit id without an entry in
  `KIT_TRIGGERS` counts as exercised by any message of the side its rules bind.
Kit ids whose rules `check_trace` does not report are listed apart (`unjudged`): a recording
cannot show them either way, so they neither pass nor fail. Every other registry id is in
`KIT_UNTRACEABLE` (a recording cannot show it, with the reason) or `KIT_PENDING` (it could,
no rule checks it yet); the report lists both apart (`untraceable`, `pending`). The
verdict is the kit's: a run is conformant iff no MANDATORY requirement failed or went
unobserved and no CAPABILITY one failed; ADVISORY and INFORMATIONAL ones never change it.
One departure: a MANDATORY requirement only a probe of the kit exercises (`KIT_PROBES`: a
request for protocol version 1, an empty or notification-only batch, a `_` request; the kit
sends each on a connection of its own, an ordinary client never does) blocks the verdict
when it failed, not when the recording never sent the probe. A
recording is never blocked by authentication or by a version mismatch the way a live run is,
so those two flags are false.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping, Sequence
from types import MappingProxyType
from typing import Final, Literal

from ._catalogue import RULES, Rule, Side
from ._check_jsonrpc import KNOWN_METHODS
from ._violation import Violation

__all__ = [
    "KIT_PENDING",
    "KIT_PROBES",
    "KIT_TIERS",
    "KIT_TRIGGERS",
    "KIT_UNTRACEABLE",
    "STATUSES",
    "TIERS",
    "Exercised",
    "exercised",
    "kit_markdown",
    "tck_report",
    "verdict",
]

Tier = Literal["MANDATORY", "CAPABILITY", "ADVISORY", "INFORMATIONAL"]
Status = Literal["passed", "failed", "not-observed"]

#: The kit's tiers, strongest first.
TIERS: Final[tuple[Tier, ...]] = ("MANDATORY", "CAPABILITY", "ADVISORY", "INFORMATIONAL")
#: A requirement's status in a recording.
STATUSES: Final[tuple[Status, ...]] = ("passed", "failed", "not-observed")
#: Line numbers kept per trigger (enough to show where; a long trace has thousands).
_MAX_LINES: Final = 10


def _tiers(m: str, c: str, a: str, i: str) -> Mapping[str, Tier]:
    out: dict[str, Tier] = {}
    for tier, ids in zip(TIERS, (m, c, a, i), strict=True):
        out.update({f"ACP-{n}": tier for n in ids.split()})
    return MappingProxyType(out)


def _ids(numbers: str) -> tuple[str, ...]:
    return tuple(f"ACP-{n}" for n in numbers.split())


#: The tier of every requirement id of the kit's v2 registry (106 ids, its commit 1314e09).
KIT_TIERS: Final[Mapping[str, Tier]] = _tiers(
    m="INIT-001 INIT-201 INIT-003 INIT-202 INIT-203 INIT-204 SCHEMA-001 TRANSPORT-201 "
    "TRANSPORT-002 TRANSPORT-203 JSONRPC-001 JSONRPC-002 JSONRPC-003 BATCH-201 BATCH-202 "
    "AUTH-202 AUTH-206 AUTH-207 EXT-001",
    c="SESSION-001 SESSION-002 PROMPT-205 PROMPT-201 PROMPT-203 STATE-201 STATE-202 STATE-203 "
    "PROMPTCAP-001 PROMPTCAP-002 PROMPTCAP-003 PERM-201 CLIENTCAP-201 CLIENTCAP-202 "
    "CANCEL-201 CANCEL-202 CANCEL-203 CANCEL-205 CANCEL-206 CANCEL-207 CANCEL-208 SESSION-203 "
    "RESUME-201 RESUME-202 RESUME-203 RESUME-204 RESUME-205 LIST-201 LIST-202 LIST-203 "
    "LIST-204 CLOSE-201 CLOSE-202 DELETE-201 DELETE-202 ADDDIRS-201 ADDDIRS-202 CONFIG-201 "
    "CONFIG-202 CONFIG-203 CONFIG-204 CONFIG-206 AUTH-203 AUTH-204 PATCH-201 PATCH-203 "
    "PATCH-204 PATCH-205 PATCH-206 PATCH-207 ENUM-201",
    a="PROMPT-003 JSONRPC-004 JSONRPC-005 BATCH-203 BATCH-204 BATCH-205 DELETE-203 AUTH-201 "
    "AUTH-205 PATCH-208 PATCH-209 ENUM-202 ENUM-203 META-001 META-201 EXT-201 EXT-202 "
    "ERROR-001 SHUTDOWN-001 SCHEMA-002",
    i="INFO-CONCURRENT-201 INFO-UNKNOWNSESSION-001 CANCEL-204 INFO-CANCEL-201 INFO-CANCEL-202 "
    "BATCH-206 BATCH-207 BATCH-208 INFO-BATCH-201 INFO-BATCH-202 MCP-201 MCP-202 EXT-203 "
    "STDERR-001 INFO-PARSE-001 INFO-INVALIDREQ-001",
)

_MESSAGES: Final = tuple(
    f"update:{kind}"
    for kind in (
        "user_message",
        "user_message_chunk",
        "agent_message",
        "agent_message_chunk",
        "agent_thought",
        "agent_thought_chunk",
    )
)

# Triggers: `client:<method>` / `agent:<method>` (a request or notification that side sent),
# `update:<sessionUpdate>`, `state:<state>` (a state_update), `agent:answer` (a response),
# `agent:error` (an error answer), `resume:replay` / `resume:live` (a session/resume with or
# without a `replayFrom` cursor), `initialize:downgrade` / `initialize:current` (an initialize
# asking for protocol version 1, or for any other), `client:notification`,
# `client:extension-request` / `client:extension-notification` (a `_` method),
# `client:unknown-method` (a request for a method no schema defines), `prompt:meta` (a prompt
# carrying `_meta`), `prompt:<type>` (a session/prompt with a content block of that type),
# `batch`, and of a client batch `batch:empty` / `batch:notifications` (only) /
# `batch:invalid` (an entry that is no message) / `batch:requests`, `agent` / `client` (any
# message of that side).
# Any one of them exercises the requirement;
# where the kit gates a requirement on an observation (STATE-202/203 on `running`, PERM-201 on
# a permission request), the trigger is that observation.
_TRIGGERS: Final[dict[str, tuple[str, ...]]] = {
    "ACP-PROMPT-201": ("client:session/prompt",),
    "ACP-PROMPT-203": ("client:session/prompt",),
    "ACP-PROMPT-205": ("agent:session/update",),
    "ACP-PATCH-201": _MESSAGES,
    "ACP-PATCH-203": _MESSAGES,
    "ACP-STATE-201": ("state:idle",),
    "ACP-STATE-202": ("state:running",),
    "ACP-STATE-203": ("state:running",),
    "ACP-PATCH-209": ("agent:session/request_permission",),
    "ACP-PATCH-208": ("update:tool_call_update",),
    "ACP-ENUM-201": ("update:tool_call_update", "update:plan_update", "state:idle"),
    "ACP-ENUM-202": ("agent:session/update",),
    "ACP-CANCEL-201": ("client:session/cancel",),
    "ACP-CANCEL-202": ("client:session/cancel",),
    "ACP-CANCEL-203": ("client:session/cancel",),
    "ACP-CANCEL-208": ("client:session/close",),
    "ACP-CLOSE-202": ("client:session/close",),
    "ACP-PERM-201": ("agent:session/request_permission",),
    "ACP-PATCH-205": ("update:plan_update",),
    "ACP-PATCH-206": ("update:terminal_update",),
    "ACP-PATCH-207": ("update:terminal_update", "update:terminal_output_chunk"),
    "ACP-RESUME-202": ("resume:replay",),
    "ACP-RESUME-203": ("resume:live",),
    "ACP-RESUME-204": ("resume:replay",),
    "ACP-RESUME-205": ("resume:replay",),
    "ACP-CONFIG-206": ("update:config_option_update", "client:session/set_config_option"),
    **dict.fromkeys(_ids("CANCEL-205 CANCEL-206 CANCEL-207"), ("client:session/cancel",)),
    "ACP-SCHEMA-002": ("agent",),
    "ACP-BATCH-208": ("batch",),
    "ACP-JSONRPC-003": ("client:notification",),
    **dict.fromkeys(_ids("SESSION-001 SESSION-002"), ("client:session/new", "client:session/fork")),
    "ACP-ERROR-001": ("agent:error",),
    "ACP-INIT-001": ("initialize:current",),
    "ACP-INIT-201": ("client:initialize",),
    "ACP-INIT-202": ("initialize:downgrade",),
    "ACP-JSONRPC-001": ("agent:answer",),
    "ACP-JSONRPC-002": ("agent:answer",),
    "ACP-JSONRPC-004": ("client:unknown-method",),
    "ACP-EXT-001": ("client:extension-request",),
    "ACP-EXT-201": ("client:extension-notification",),
    "ACP-BATCH-201": ("batch:empty",),
    "ACP-BATCH-202": ("batch:notifications",),
    "ACP-BATCH-203": ("batch:invalid",),
    "ACP-BATCH-204": ("batch:requests",),
    "ACP-BATCH-205": ("batch:requests",),
    "ACP-META-001": ("prompt:meta",),
    "ACP-META-201": ("agent",),
    "ACP-EXT-202": ("client:initialize",),
    "ACP-SCHEMA-001": ("client:initialize",),
    **dict.fromkeys(_ids("LIST-201 LIST-203 LIST-204"), ("client:session/list",)),
    "ACP-CLOSE-201": ("client:session/close",),
    **dict.fromkeys(_ids("DELETE-201 DELETE-202 DELETE-203"), ("client:session/delete",)),
    "ACP-ADDDIRS-201": ("client:session/new",),
    "ACP-ADDDIRS-202": ("client:session/resume",),
    "ACP-CONFIG-201": ("client:session/new", "client:session/fork"),
    "ACP-CONFIG-202": ("client:session/set_config_option",),
    "ACP-CONFIG-203": ("client:session/resume",),
    "ACP-CONFIG-204": (
        "client:session/new",
        "client:session/fork",
        "client:session/resume",
        "client:session/set_config_option",
        "update:config_option_update",
    ),
    "ACP-PATCH-204": ("update:tool_call_update", "update:tool_call_content_chunk"),
    "ACP-ENUM-203": ("agent:session/request_permission",),
    # J70-J80: what `initialize` advertised, held against later traffic
    "ACP-PROMPTCAP-001": ("prompt:image",),
    "ACP-PROMPTCAP-002": ("prompt:audio",),
    "ACP-PROMPTCAP-003": ("prompt:resource",),
    "ACP-PROMPT-003": ("prompt:resource_link",),
    "ACP-SESSION-203": ("client:session/new",),
    "ACP-RESUME-201": ("client:session/resume",),
    "ACP-AUTH-203": ("client:auth/logout",),
    "ACP-AUTH-204": ("client:auth/login",),
    "ACP-AUTH-205": ("client:session/new",),
    "ACP-CLIENTCAP-201": ("client:initialize",),
    "ACP-CLIENTCAP-202": ("agent",),
    **dict.fromkeys(
        _ids("INIT-203 INIT-204 AUTH-201 AUTH-202 AUTH-206 AUTH-207"), ("client:initialize",)
    ),
}


_FROM_RECORD = "INFORMATIONAL in the kit: it records the behaviour and never judges it"
#: The kit ids no catalogue rule maps because a recording cannot show them, id -> why.
#: (`tests/test_check_tck.py` keeps every registry id in exactly one of: a rule's `kit_id`,
#: this table, `KIT_PENDING`.)
KIT_UNTRACEABLE: Final[Mapping[str, str]] = MappingProxyType(
    {
        "ACP-INIT-003": "compares an unsupported-version handshake with a reference handshake "
        "of the same agent; a recording is one connection with one `initialize`",
        "ACP-TRANSPORT-002": "about the bytes on stdout; a recording holds decoded JSON entries",
        "ACP-TRANSPORT-203": "about line framing; a recording holds one parsed message per entry",
        "ACP-JSONRPC-005": "a liveness property: a recording that ends after the bad request "
        "cannot tell a dead connection from a quiet one",
        "ACP-LIST-202": "needs a `cwd` no session uses, which only the harness knows",
        "ACP-SHUTDOWN-001": "about the process exiting once stdin closes; no message shows it",
        "ACP-STDERR-001": "stderr is not part of a recording (and the kit only records it)",
        **dict.fromkeys(
            _ids(
                "INFO-CONCURRENT-201 INFO-UNKNOWNSESSION-001 INFO-CANCEL-201 INFO-CANCEL-202 "
                "BATCH-206 BATCH-207 INFO-BATCH-201 INFO-BATCH-202 MCP-201 MCP-202 EXT-203 "
                "INFO-PARSE-001 INFO-INVALIDREQ-001"
            ),
            _FROM_RECORD,
        ),
    }
)
#: The kit ids a recording could show that no catalogue rule checks yet (issue 25 item 1):
#: listed apart in the report as `pending`, never silently dropped. Some are partly judged
#: under another kit id's rule (D1 decodes every message, J1 forbids answering notifications).
#: Empty since every traceable id has its rules (a kit requirement that restates a rule of
#: another kit id is in that rule's `also_kit_ids`: CANCEL-205 is J1's, CANCEL-206 R21's,
#: CANCEL-207 R18's and R21's); tests/test_check_tck.py keeps it so.
KIT_PENDING: Final[tuple[str, ...]] = ()

#: The MANDATORY kit ids only a probe exercises, which an ordinary client's recording never
#: sends (see the module's header): unobserved, they do not block the verdict.
KIT_PROBES: Final[frozenset[str]] = frozenset(_ids("INIT-202 BATCH-201 BATCH-202 EXT-001"))


#: What exercises each kit requirement the catalogue maps (see the module's header).
KIT_TRIGGERS: Final[Mapping[str, tuple[str, ...]]] = MappingProxyType(_TRIGGERS)


class Exercised:
    """The triggers a trace holds, with the first lines (0-based entry indexes) of each.

    Fed one entry at a time (`see`), so `check` can keep streaming its input; never raises
    on a malformed entry (the checker reports those).
    """

    __slots__ = ("_at",)

    def __init__(self) -> None:
        self._at: dict[str, list[int]] = {}

    def _add(self, token: str, index: int) -> None:
        at = self._at.setdefault(token, [])
        if len(at) < _MAX_LINES and (not at or at[-1] != index):
            at.append(index)

    def see(self, index: int, entry: object) -> None:
        """Record the triggers of trace entry number `index`."""
        if not isinstance(entry, Mapping):
            return
        side = entry.get("from")
        if side not in ("client", "agent"):
            return
        message = entry.get("message")
        if isinstance(message, list):
            self._add("batch", index)
            if side == "client":
                self._batch(index, message)
            for item in message:
                self._message(index, side, item)
        else:
            self._message(index, side, message)

    def _batch(self, index: int, items: list[object]) -> None:
        if not items:
            self._add("batch:empty", index)
        calls = [i for i in items if isinstance(i, Mapping) and isinstance(i.get("method"), str)]
        if items and len(calls) == len(items) and all("id" not in c for c in calls):
            self._add("batch:notifications", index)
        if any("id" in c for c in calls):
            self._add("batch:requests", index)
        if any(not isinstance(i, Mapping) or not {"method", "id"} & i.keys() for i in items):
            self._add("batch:invalid", index)

    def _message(self, index: int, side: str, message: object) -> None:
        if not isinstance(message, Mapping):
            return
        self._add(side, index)
        if "method" not in message and "id" in message:
            self._add(f"{side}:answer", index)
        if "error" in message and "method" not in message:
            self._add(f"{side}:error", index)
        method = message.get("method")
        if not isinstance(method, str):
            return
        self._add(f"{side}:{method}", index)
        if "id" not in message and side == "client":
            self._add("client:notification", index)
        if side == "client" and method.startswith("_"):
            self._add(f"client:extension-{'request' if 'id' in message else 'notification'}", index)
        elif side == "client" and "id" in message and not _known(method):
            self._add("client:unknown-method", index)
        params = message.get("params")
        params = params if isinstance(params, Mapping) else {}
        if method == "session/update":
            update = params.get("update")
            kind = update.get("sessionUpdate") if isinstance(update, Mapping) else None
            if isinstance(kind, str):
                self._add(f"update:{kind}", index)
            if kind == "state_update" and isinstance(update, Mapping):
                state = update.get("state")
                if isinstance(state, str):
                    self._add(f"state:{state}", index)
        elif method == "session/resume" and side == "client":
            replay = params.get("replayFrom") is not None
            self._add("resume:replay" if replay else "resume:live", index)
        elif method == "session/prompt" and side == "client":
            if isinstance(params.get("_meta"), Mapping):
                self._add("prompt:meta", index)
            blocks = params.get("prompt")
            for block in blocks if isinstance(blocks, list) else ():
                kind = block.get("type") if isinstance(block, Mapping) else None
                if isinstance(kind, str):
                    self._add(f"prompt:{kind}", index)
        elif method == "initialize" and side == "client":
            asked = params.get("protocolVersion")
            downgrade = type(asked) is int and asked == 1
            self._add("initialize:downgrade" if downgrade else "initialize:current", index)

    def lines(self, triggers: Iterable[str]) -> list[int]:
        """The recorded indexes of any of `triggers`, sorted, at most `_MAX_LINES`."""
        return sorted({i for t in triggers for i in self._at.get(t, ())})[:_MAX_LINES]


def _known(method: str) -> bool:
    return method in KNOWN_METHODS or method.startswith("$/")


def exercised(entries: Iterable[object]) -> Exercised:
    """The triggers of a whole trace (for callers that hold every entry)."""
    out = Exercised()
    for index, entry in enumerate(entries):
        out.see(index, entry)
    return out


def _binds(rule: Rule, side: Side | None) -> bool:
    return side is None or rule.side in (side, "both")


def _fallback(rules: Sequence[Rule]) -> tuple[str, ...]:
    sides = {r.side for r in rules}
    return ("agent", "client") if "both" in sides or len(sides) > 1 else tuple(sides)


def _tier(kit_id: str, rules: Sequence[Rule]) -> Tier:
    known = KIT_TIERS.get(kit_id)
    if known is not None:
        return known
    # An id the registry above does not list (a newer kit): the strongest rule's level.
    return "MANDATORY" if any(r.mandatory for r in rules) else "ADVISORY"


def tck_report(
    violations: Iterable[Violation],
    seen: Exercised,
    *,
    lines: Sequence[int] | None = None,
    side: Side | None = None,
    revision: str = "",
) -> dict[str, object]:
    """The kit-shaped JSON report of a checked trace.

    Args:
        violations: what `check_trace` found in the trace (with the same `side`).
        seen: the trace's triggers (`exercised`, or `Exercised.see` per entry).
        lines: line number of each entry index (as `check` prints them); None: the 0-based
            indexes themselves.
        side: the side judged (`--side`); None: both.
        revision: the revision the trace was judged by (`schema_revision` of the report).

    Returns:
        `{"format", "protocol_version", "schema_revision", "side", "requirements",
        "unjudged", "untraceable", "pending", "verdict"}`; each requirement `{"id", "tier",
        "status", "rules", "lines", "findings"}`, in the kit's tier order then by id;
        `untraceable` has `{"id", "tier", "reason"}` per kit id a recording cannot show,
        `pending` `{"id", "tier"}` per one it could that no rule checks yet (neither changes
        the verdict).
    """

    def line(index: int) -> int:
        return lines[index] if lines is not None and 0 <= index < len(lines) else index

    by_kit: dict[str, list[Rule]] = {}
    for rule in RULES.values():
        for kit_id in rule.kit_ids if _binds(rule, side) else ():
            by_kit.setdefault(kit_id, []).append(rule)
    found: dict[str, list[Violation]] = {}
    for v in violations:
        found.setdefault(v.rule, []).append(v)
    requirements: list[dict[str, object]] = []
    unjudged: list[dict[str, object]] = []
    for kit_id, rules in by_kit.items():
        ids = [r.id for r in rules]
        tier = _tier(kit_id, rules)
        if not any(r.checked for r in rules):
            unjudged.append({"id": kit_id, "tier": tier, "rules": ids})
            continue
        hits = [v for r in rules for v in found.get(r.id, ())]
        broken = sorted((v for v in hits if not v.warning), key=lambda v: (v.index, v.rule))
        unsure = [v for v in hits if v.warning]
        triggers = KIT_TRIGGERS.get(kit_id) or _fallback(rules)
        shown = seen.lines(triggers)
        status: Status
        if broken:
            status, at = "failed", [line(v.index) for v in broken]
        elif shown and not unsure:
            status, at = "passed", [line(i) for i in shown]
        else:
            status, at = "not-observed", [line(v.index) for v in unsure]
        requirements.append(
            {
                "id": kit_id,
                "tier": tier,
                "status": status,
                "rules": ids,
                "lines": sorted(set(at)),
                "findings": [
                    {"rule": v.rule, "line": line(v.index), "message": v.message}
                    | ({"warning": True} if v.warning else {})
                    for v in sorted(hits, key=lambda v: (v.index, v.rule))
                ],
            }
        )
    order: dict[str, int] = {t: n for n, t in enumerate(TIERS)}
    requirements.sort(key=lambda r: (order[str(r["tier"])], str(r["id"])))
    unjudged.sort(key=lambda r: (order[str(r["tier"])], str(r["id"])))
    untraceable = [
        {"id": k, "tier": KIT_TIERS[k], "reason": why}
        for k, why in KIT_UNTRACEABLE.items()
        if k not in by_kit
    ]
    pending = [{"id": k, "tier": KIT_TIERS[k]} for k in KIT_PENDING if k not in by_kit]
    for apart in (untraceable, pending):
        apart.sort(key=lambda r: (order[str(r["tier"])], str(r["id"])))
    return {
        "format": "tck",
        "protocol_version": 2,
        "schema_revision": revision,
        "side": side or "both",
        "requirements": requirements,
        "unjudged": unjudged,
        "untraceable": untraceable,
        "pending": pending,
        "verdict": verdict(requirements),
    }


def verdict(requirements: Iterable[Mapping[str, object]]) -> dict[str, object]:
    """The kit's verdict over requirement entries (`id`, `tier`, `status`): conformant iff no
    MANDATORY one failed or went unobserved (a probe's, `KIT_PROBES`: failed) and no
    CAPABILITY one failed."""
    counts: dict[str, dict[str, int]] = {t: dict.fromkeys(STATUSES, 0) for t in TIERS}
    blocking: list[str] = []
    for r in requirements:
        tier, status = str(r["tier"]), str(r["status"])
        counts[tier][status] += 1
        unseen_probe = status == "not-observed" and r.get("id") in KIT_PROBES
        if (tier == "MANDATORY" and status != "passed" and not unseen_probe) or (
            tier == "CAPABILITY" and status == "failed"
        ):
            blocking.append(str(r["id"]))
    return {
        "conformant": not blocking,
        "blocked_by_auth": False,
        "blocked_by_version_mismatch": False,
        "tier_counts": counts,
        "failing": blocking,
    }


def kit_markdown() -> str:
    """The kit coverage table (`python -m acp_core rules --kit`, the text of
    `docs/kit-coverage.md`): every registry id, its tier, the rules that answer it and
    whether `check_trace` judges it, or why a recording cannot show it."""
    by_kit: dict[str, list[Rule]] = {}
    for rule in RULES.values():
        for kit_id in rule.kit_ids:
            by_kit.setdefault(kit_id, []).append(rule)
    order: dict[str, int] = {t: n for n, t in enumerate(TIERS)}
    rows: list[str] = []
    counts = dict.fromkeys(("checked", "not from a trace", "pending"), 0)
    for kit_id in sorted(KIT_TIERS, key=lambda k: (order[KIT_TIERS[k]], k)):
        rules = by_kit.get(kit_id, [])
        if any(r.checked for r in rules):
            kind, why = "checked", ""
        elif rules:
            reasons = [f"{r.id}: {r.unchecked[1]}" for r in rules if r.unchecked]
            kind, why = "not from a trace", "; ".join(reasons) or "its rules are documented only"
        elif kit_id in KIT_UNTRACEABLE:
            kind, why = "not from a trace", KIT_UNTRACEABLE[kit_id]
        else:
            why = "a recording could show it; no rule checks it yet"
            kind = "pending"
        counts[kind] += 1
        names = ", ".join(r.id for r in rules)
        rows.append(f"| {kit_id} | {KIT_TIERS[kit_id]} | {names} | {kind} | {why} |")
    traceable = counts["checked"] + counts["pending"]
    return "\n".join(
        [
            "# Conformance kit coverage",
            "",
            "<!-- Generated from acp_core/_rules/_tck.py and the catalogue by",
            "     `python -m acp_core rules --kit > docs/kit-coverage.md`;",
            "     do not edit by hand (tests/test_check_tck.py keeps the two in sync). -->",
            "",
            "Every requirement id of the official conformance kit's v2 registry (acp-tck,",
            "`src/tck/v2/requirements.py` at commit 1314e09), the catalogue rules that answer",
            "it (`Rule.kit_id`, `Rule.also_kit_ids`), and whether `check_trace` (and `check "
            "--format tck`) judges it.",
            "",
            f"- {len(KIT_TIERS)} ids; {counts['not from a trace']} a recording cannot show;",
            f"  of the {traceable} it can, {counts['checked']} checked and"
            f" {counts['pending']} pending.",
            "- STATE-203: the kit allows five stop reasons; acp-core judges the value by the",
            "  revision given, so under 2026-11 and the Preview `error` passes too (R8's note).",
            "",
            "| Kit id | Tier | Rules | Checked | Why not |",
            "| --- | --- | --- | --- | --- |",
            *rows,
            "",
        ]
    )
