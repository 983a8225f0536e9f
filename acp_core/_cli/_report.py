"""The HTML report of a recorded trace: the model of the page, built by pure functions.

Owns: `report_model` (one row per trace line: who sent it, its lane, kind, session, a short
summary, the request or response it pairs with, the run of like notifications it belongs to,
the violations and decoder notes found at it, and what it changed in the session views),
`build_report` (the model drawn as one self-contained HTML page) and `report_path_beside`.
Must not know: files, streams, terminals (the command line writes the page and decides about
progress), how the page is drawn (`_cli/_report_html.py`), how views are diffed
(`_cli/_report_view.py`).

Replay windows: a line the agent sends about a session between a `session/resume` with
`replayFrom` and its response is history (`h`), drawn apart from live traffic.

Lanes: one per side (`client`, `agent`); a session announced as a child (a `subagent_update`
naming it, Preview) gets its own lane, and every line about that session is drawn there,
whoever sent it. Violations come from `check_trace`, their catalogue entries from `RULES`.
"""

from __future__ import annotations

import base64
import binascii
import json
from collections.abc import Callable, Iterator, Sequence
from typing import Any, Final, TypeVar

from acp_core._errors import AcpError
from acp_core._rules._catalogue import RULES
from acp_core._rules._check import check_trace
from acp_core._rules._severity import CLASSES, RULE_PREFIXES, abbreviations, legend_for
from acp_core._wire import _jsonrpc as j
from acp_core._wire._codec import decode_message_diagnosed
from acp_core._wire._revision import DEFAULT_REVISION, Revision

from ._report_html import render_page
from ._report_view import ViewFold

__all__ = ["Progress", "build_report", "counting", "report_model", "report_path_beside"]

T = TypeVar("T")

#: `progress(phase, done, total)`: told how far a long report is (`check`, `fold`).
Progress = Callable[[str, int, int], None]

#: Summaries are cut to this many characters (the raw message is in the detail panel).
SUMMARY: Final = 240
#: A raw message longer than this (as JSON) is shown cut, as text.
RAW: Final = 20_000

_SIDES: Final = ("client", "agent")
_CHUNK_KINDS: Final = frozenset(
    ("agent_message_chunk", "user_message_chunk", "agent_thought_chunk")
)


def _cut(text: str, limit: int = SUMMARY) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[: limit - 1] + "…"


def _compact(value: Any) -> str:
    try:
        return json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    except (TypeError, ValueError, RecursionError):
        return repr(value)


def _dict(value: Any) -> dict[str, Any]:
    return value if type(value) is dict else {}


def _text_of(content: Any) -> str:
    if type(content) is dict and content.get("type") == "text":
        return str(content.get("text", ""))
    if type(content) is list:
        return "".join(_text_of(c) for c in content)
    return ""


def _words(*parts: Any) -> str:
    return " ".join(str(p) for p in parts if p is not None and p != "")


def _plan_summary(update: dict[str, Any]) -> str:
    plan = _dict(update.get("plan"))
    entries = plan.get("entries")
    if type(entries) is not list:
        return _compact(plan)
    done = sum(_dict(e).get("status") == "completed" for e in entries)
    first = next(
        (_dict(e).get("content") for e in entries if _dict(e).get("status") != "completed"), ""
    )
    return _words(plan.get("planId"), f"{done}/{len(entries)} done", first)


def _terminal_chunk(update: dict[str, Any]) -> str:
    try:
        text = base64.b64decode(str(update.get("data", "")), validate=True).decode(
            "utf-8", "replace"
        )
    except (binascii.Error, ValueError):
        text = "(not base64)"
    return _words(update.get("terminalId"), text)


def _exit(update: dict[str, Any]) -> str:
    status = update.get("exitStatus")
    return f"exit {_compact(status)}" if status is not None else ""


_SUMMARIES: Final[dict[str, Callable[[dict[str, Any]], str]]] = {
    "tool_call_update": lambda u: _words(
        u.get("toolCallId"),
        u.get("title"),
        f"[{u['kind']}]" if "kind" in u else "",
        u.get("status"),
    ),
    "tool_call_content_chunk": lambda u: _words(
        u.get("toolCallId"),
        _text_of(_dict(u.get("content")).get("content")) or _dict(u.get("content")).get("type"),
    ),
    "terminal_update": lambda u: _words(
        u.get("terminalId"), f"$ {u['command']}" if "command" in u else "", _exit(u)
    ),
    "terminal_output_chunk": _terminal_chunk,
    "plan_update": _plan_summary,
    "usage_update": lambda u: f"{u.get('used')} of {u.get('size')} tokens",
    "session_info_update": lambda u: _words(u.get("title")),
}


def _update_summary(update: dict[str, Any]) -> str:
    kind = update.get("sessionUpdate")
    if kind in _CHUNK_KINDS or kind in ("user_message", "agent_message", "agent_thought"):
        return _text_of(update.get("content"))
    if kind == "state_update":
        stop = update.get("stopReason")
        return f"{update.get('state')}" + (f" ({stop})" if stop else "")
    summary = _SUMMARIES.get(str(kind))
    if summary is not None:
        return summary(update)
    rest = {k: v for k, v in update.items() if k not in ("sessionUpdate", "_meta")}
    return _compact(rest)


class _Rows:
    """The rows under construction (local to one `report_model` call)."""

    def __init__(self, revision: Revision, children: set[str]) -> None:
        self.rows: list[dict[str, Any]] = []
        self.kinds: dict[str, int] = {}
        self.sessions: dict[str, int] = {}
        self.lanes: list[str] = [*_SIDES, *sorted(children)]
        self.children = children
        self.asked: dict[tuple[str, str], tuple[int, str]] = {}  # (asker, id) -> row, method
        self.fold = ViewFold(revision)
        self.replaying: dict[str, int] = {}  # session -> open `session/resume` replay windows

    def kind(self, name: str) -> int:
        return self.kinds.setdefault(name, len(self.kinds))

    def session(self, sid: Any) -> int:
        return self.sessions.setdefault(sid, len(self.sessions)) if type(sid) is str else -1

    def lane(self, sender: str, sid: Any) -> int:
        if type(sid) is str and sid in self.children:
            return self.lanes.index(sid)
        if sender not in self.lanes:
            self.lanes.append(sender)
        return self.lanes.index(sender)

    def add(self, line: int, entry: object) -> None:
        row: dict[str, Any] = {"n": line}
        self.rows.append(row)
        if type(entry) is not dict or "message" not in entry or entry.get("from") not in _SIDES:
            sender = entry.get("from") if type(entry) is dict else None
            row.update(f=str(sender) if type(sender) is str else "?", s=-1, t=_cut(_compact(entry)))
            row.update(k=self.kind("malformed entry"), l=self.lane("?", None), r=_raw(entry))
            return
        sender = entry["from"]
        raw = entry["message"]
        row.update(f=sender, r=_raw(raw))
        items = raw if type(raw) is list else [raw]
        sid = next((_dict(_dict(m).get("params")).get("sessionId") for m in items), None)
        try:
            decoded = decode_message_diagnosed(raw)
        except (AcpError, RecursionError) as e:
            row.update(k=self.kind("undecodable"), t=_cut(str(e)), s=self.session(sid))
            row["l"] = self.lane(sender, sid)
            return
        if decoded.diagnostics:
            row["d"] = [f"{d.rule} @ {d.path}: {d.message}" for d in decoded.diagnostics]
        value = decoded.value
        messages = value.items if isinstance(value, j.Batch) else (value,)
        valid = tuple(m for m in messages if not isinstance(m, j.InvalidEntry))
        if isinstance(value, j.Batch):
            row.update(k=self.kind("batch"), t=f"batch of {len(messages)}: ")
            row["t"] = _cut(row["t"] + ", ".join(self.describe(row, sender, m) for m in items))
        else:
            kind, summary = self.classify(row, sender, raw)
            row.update(k=self.kind(kind), t=_cut(summary))
        sid = row.pop("sid", sid)
        row.update(s=self.session(sid), l=self.lane(sender, sid))
        if sender == "agent" and type(sid) is str and self.replaying.get(sid, 0) > 0:
            row["h"] = 1  # replayed history: the checker applies no turn rules to it
        changes = self.fold.line(sender, valid)
        if changes:
            row["c"] = changes

    def describe(self, row: dict[str, Any], sender: str, raw: Any) -> str:
        return self.classify(row, sender, raw)[0]

    def classify(self, row: dict[str, Any], sender: str, raw: Any) -> tuple[str, str]:
        msg = _dict(raw)
        method = msg.get("method")
        params = _dict(msg.get("params"))
        if type(method) is str:
            if "id" in msg:
                row["id"] = _compact(msg["id"])
                self.asked[(sender, _compact(msg["id"]))] = (len(self.rows) - 1, method)
                if method == "session/resume" and "replayFrom" in params:
                    resumed = params.get("sessionId")
                    if type(resumed) is str:  # a replay window opens until the response
                        self.replaying[resumed] = self.replaying.get(resumed, 0) + 1
            if method == "session/update":
                update = _dict(params.get("update"))
                return f"update {update.get('sessionUpdate')}", _update_summary(update)
            if method == "session/prompt":
                return method, _text_of(params.get("prompt"))
            if method == "session/request_permission":
                return method, str(params.get("title", ""))
            return method, _compact({k: v for k, v in params.items() if k != "sessionId"})
        ident = _compact(msg.get("id"))
        other = "agent" if sender == "client" else "client"
        asked = self.asked.pop((other, ident), None)
        what = "to no request seen before"
        if asked is not None:
            here = len(self.rows) - 1
            row["p"], self.rows[asked[0]]["p"] = asked[0], here
            asker = self.rows[asked[0]].get("s", -1)
            if asked[1] == "session/resume" and asker >= 0:
                closed = list(self.sessions)[asker]
                self.replaying[closed] = max(0, self.replaying.get(closed, 0) - 1)
            row["sid"] = list(self.sessions)[asker] if asker >= 0 else None
            what = f"to {asked[1]}"
        row["id"] = ident
        if "error" in msg:
            error = _dict(msg["error"])
            return "error response", f"{what}: error {error.get('code')} {error.get('message')}"
        return "response", f"{what}: {_compact(msg.get('result'))}"


def _raw(value: Any) -> Any:
    text = _compact(value)
    return value if len(text) <= RAW else text[:RAW] + "… (cut)"


def _children(entries: Sequence[object]) -> set[str]:
    # A child session is one a `subagent_update` names (Preview); its lines get their own lane.
    found: set[str] = set()
    for entry in entries:
        message = _dict(entry).get("message")
        for item in message if type(message) is list else [message]:
            update = _dict(_dict(_dict(item).get("params")).get("update"))
            child = update.get("sessionId")
            if update.get("sessionUpdate") == "subagent_update" and type(child) is str:
                found.add(child)
    return found


def counting(items: Sequence[T], phase: str, progress: Progress | None) -> Iterator[T]:
    """The items, telling `progress` how many were taken (about a hundred times in all)."""
    total = len(items)
    every = max(1, -(-total // 100))  # ceil: at most 100 calls, and one at the end
    for i, item in enumerate(items):
        if progress is not None and i % every == 0:
            progress(phase, i, total)
        yield item
    if progress is not None:
        progress(phase, total, total)


def report_model(
    entries: Sequence[object],
    *,
    lines: Sequence[int] | None = None,
    name: str = "trace",
    revision: Revision = DEFAULT_REVISION,
    side: str | None = None,
    progress: Progress | None = None,
) -> dict[str, Any]:
    """The report of a trace as one JSON-compatible value (what the page embeds).

    Args:
        entries: the trace as parsed JSON, one item per line (docs/trace-format.md).
        lines: the line index of each entry in its file (default: 0, 1, 2, ...).
        name: what to call the trace in the page's title.
        revision: the revision to judge and fold by.
        side: `agent` or `client`: show only violations of rules binding that side (and
            both); None shows all.
        progress: told how far the work is, in phases `check` and `fold`.
    """
    numbers = list(lines) if lines is not None else list(range(len(entries)))
    violations = check_trace(counting(entries, "check", progress), revision=revision)
    rows = _Rows(revision, _children(entries))
    for i, entry in enumerate(counting(entries, "fold", progress)):
        rows.add(numbers[i] if i < len(numbers) else i, entry)
    counts: dict[str, int] = {}
    severities: dict[str, int] = {}
    used: dict[str, dict[str, str]] = {}
    for v in violations:
        rule = RULES.get(v.rule)
        if side is not None and rule is not None and rule.side not in (side, "both"):
            continue
        counts[v.level] = counts.get(v.level, 0) + 1
        label = v.severity.label
        severities[label] = severities.get(label, 0) + 1
        row = rows.rows[v.index]
        row.setdefault("v", []).append([v.rule, v.level, v.message])
        row.setdefault("vs", []).append(label)  # the class of each of `v`, in its order
        if rule is not None:
            used[v.rule] = {"summary": rule.summary, "section": rule.section, "side": rule.side}
    _group(rows.rows, rows.kinds)
    return {
        "name": name,
        "revision": revision.name,
        "side": side or "",
        "lanes": rows.lanes,
        "children": sorted(rows.children),
        "kinds": list(rows.kinds),
        "sessions": list(rows.sessions),
        "counts": counts,
        "severities": {s.label: severities[s.label] for s in CLASSES if s.label in severities},
        "legend": _legend(used, severities),
        "rules": used,
        "rows": rows.rows,
    }


def _legend(used: dict[str, dict[str, str]], severities: dict[str, int]) -> dict[str, Any]:
    # What the page's legend explains: the classes counted, the rule-id letters and the spec
    # abbreviations of the rules shown (`abbr`: per rule, its section's, for a tooltip).
    abbr = {
        rule: [[t, legend_for(t) or ""] for t in abbreviations(entry["section"])]
        for rule, entry in used.items()
    }
    tags = {t: m for pairs in abbr.values() for t, m in pairs}
    letters = set(RULE_PREFIXES)
    return {
        "classes": [[s.label, s.css, s.meaning] for s in CLASSES if s.label in severities],
        "prefixes": [[p, RULE_PREFIXES[p]] for p in sorted({r[:1] for r in used} & letters)],
        "spec": [[t, m] for t, m in sorted(tags.items())],
        "abbr": abbr,
    }


def _group_key(row: dict[str, Any], kinds: list[str]) -> tuple[Any, ...] | None:
    kind = kinds[row["k"]]
    if not kind.startswith("update ") or row.get("v") or row.get("d"):
        return None  # a line with findings stands alone, so they show at it
    entity = next((c["k"] for c in row.get("c", ()) if c["k"] != "s"), None)
    chunk = kind[len("update ") :] in _CHUNK_KINDS
    return (row["f"], row["s"], kind, entity if chunk else None, row.get("h"))


def _chunk_text(row: dict[str, Any]) -> str:
    update = _dict(_dict(_dict(row.get("r")).get("params")).get("update"))
    return _text_of(update.get("content")) if update else str(row.get("t", ""))


def _group(rows: list[dict[str, Any]], kinds: dict[str, int]) -> None:
    # Runs of like notifications fold into one row (`g`: the run's first row, `gn` its length
    # at that first row); a run of text chunks of one message reads as its text.
    names = list(kinds)
    start = 0
    while start < len(rows):
        key = _group_key(rows[start], names)
        end = start + 1
        while key is not None and end < len(rows) and _group_key(rows[end], names) == key:
            end += 1
        if end - start > 1:
            head = rows[start]
            head["gn"] = end - start
            for row in rows[start:end]:
                row["g"] = start
            if key is not None and key[3] is not None:
                head["gt"] = _cut("".join(_chunk_text(r) for r in rows[start:end]), 2 * SUMMARY)
        start = end


def build_report(entries: Sequence[object], **options: Any) -> str:
    """The report of a trace as one self-contained HTML page (options: see `report_model`)."""
    return render_page(report_model(entries, **options))


def report_path_beside(trace_path: str) -> str:
    """Where a report of `trace_path` goes: beside it, `.html` instead of `.jsonl`/`.json`."""
    for suffix in (".jsonl", ".json"):
        if trace_path.endswith(suffix):
            return trace_path[: -len(suffix)] + ".html"
    return trace_path + ".html"
