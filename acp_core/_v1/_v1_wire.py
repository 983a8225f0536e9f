"""v1 wire payloads rewritten as v2 wire payloads (plain dicts in, plain dicts out).

Owns: the stateless part of the v1 -> v2 mapping (digest 6.2 rules 8-10, 12, 15, 16): tool
call fields (v1 `null` read as absent, diff items to v2 diffs with a git patch, terminal
references kept), plans under the synthetic id `main`, config option and command renames.
Must not know: normalizer state, message boundaries, policies, the value types (the results
are decoded by the v2 codec afterwards).
"""

from __future__ import annotations

import difflib
from collections.abc import Mapping
from typing import Any, Final

from acp_core._errors import Diagnostic

from ._v1_policy import NULL_IGNORED, TERMINAL_REFERENCE

__all__ = [
    "PLAN_ID",
    "TOOL_FIELDS",
    "V1_DIFF_META_KEY",
    "commands_update",
    "config_option_update",
    "git_patch",
    "plan_update",
    "tool_call_fields",
]

#: The id every v1 plan gets (v1 had one plan per session; [RFD:plan-variants] names `main`).
PLAN_ID: Final = "main"
#: `_meta` key under which a converted v1 diff keeps its original `oldText`/`newText`.
V1_DIFF_META_KEY: Final = "acp.v1/diff"

#: Fields of a v1 ToolCall / ToolCallUpdate, in wire order; the rest is carried as-is.
TOOL_FIELDS: Final = (
    "title",
    "kind",
    "status",
    "content",
    "locations",
    "rawInput",
    "rawOutput",
    "_meta",
)


def git_patch(path: str, old_text: str | None, new_text: str) -> str:
    """A `git_patch` text (absolute paths, no commit headers) turning `old_text` into
    `new_text`; `old_text=None` means the file is new."""
    header = [f"diff --git {path} {path}\n"]
    if old_text is None:
        header.append("new file mode 100644\n")
    lines = difflib.unified_diff(
        (old_text or "").splitlines(keepends=True),
        new_text.splitlines(keepends=True),
        fromfile="/dev/null" if old_text is None else path,
        tofile=path,
    )
    out = header
    for line in lines:
        if line.endswith("\n"):
            out.append(line)
        else:
            # The last line of a file without a final newline (git's own marker).
            out.append(line + "\n\\ No newline at end of file\n")
    return "".join(out)


def _diff_item(item: Mapping[str, Any]) -> dict[str, Any] | None:
    path = item.get("path")
    old_text = item.get("oldText")
    new_text = item.get("newText")
    if type(path) is not str or type(new_text) is not str:
        return None
    if old_text is not None and type(old_text) is not str:
        return None
    out: dict[str, Any] = {
        "type": "diff",
        "changes": [
            {
                "operation": "add" if old_text is None else "modify",
                "path": path,
                "fileType": "text",
            }
        ],
        "patch": {"format": "git_patch", "text": git_patch(path, old_text, new_text)},
    }
    # The patch holds only hunks; keep the full texts so nothing of v1 is lost.
    meta = item.get("_meta")
    kept = dict(meta) if isinstance(meta, Mapping) else {}
    kept[V1_DIFF_META_KEY] = {"oldText": old_text, "newText": new_text}
    out["_meta"] = kept
    for key, value in item.items():
        if key not in ("type", "path", "oldText", "newText", "_meta"):
            out[key] = value
    return out


def _content_items(items: list[Any], path: str, diags: list[Diagnostic]) -> list[Any]:
    out: list[Any] = []
    for i, item in enumerate(items):
        kind = item.get("type") if isinstance(item, Mapping) else None
        if kind == "diff":
            assert isinstance(item, Mapping)
            converted = _diff_item(item)
            # A malformed diff goes on unchanged; the v2 decoder reports and skips it.
            out.append(item if converted is None else converted)
        elif kind == "terminal":
            diags.append(
                Diagnostic(
                    TERMINAL_REFERENCE,
                    f"{path}.content[{i}]",
                    "v1 terminal reference (a client-owned terminal) kept as a v2 display "
                    "anchor; its command, output and exit come from the client's terminal/* "
                    "answers",
                )
            )
            out.append(item)
        else:
            out.append(item)
    return out


def tool_call_fields(obj: Mapping[str, Any], path: str) -> tuple[dict[str, Any], list[Diagnostic]]:
    """A v1 `tool_call`/`tool_call_update` (or a permission request's `toolCall`) as a v2
    `tool_call_update` dict. v1 `null`s become absent (digest 6.2 rule 9), diffs are
    converted (rule 10), unknown keys are kept."""
    diags: list[Diagnostic] = []
    out: dict[str, Any] = {"sessionUpdate": "tool_call_update", "toolCallId": obj.get("toolCallId")}
    nulls: list[str] = []
    for key in TOOL_FIELDS:
        if key not in obj:
            continue
        value = obj[key]
        if value is None:
            nulls.append(key)
            continue
        if key == "content" and type(value) is list:
            value = _content_items(value, path, diags)
        out[key] = value
    for key, value in obj.items():
        if key not in out and key not in TOOL_FIELDS and key != "sessionUpdate":
            out[key] = value
    if nulls:
        diags.append(
            Diagnostic(
                NULL_IGNORED,
                path,
                f"v1 null on {', '.join(nulls)} read as 'unchanged' (v1 gave null no meaning)",
            )
        )
    return out, diags


def plan_update(obj: Mapping[str, Any]) -> dict[str, Any]:
    """v1 `plan {entries, _meta}` -> v2 `plan_update` of the items plan `main` (rule 12)."""
    out: dict[str, Any] = {
        "sessionUpdate": "plan_update",
        "plan": {"type": "items", "planId": PLAN_ID, "entries": obj.get("entries")},
    }
    for key, value in obj.items():
        if key not in ("sessionUpdate", "entries"):
            out[key] = value
    return out


def _rename(obj: Mapping[str, Any], old: str, new: str) -> dict[str, Any]:
    if old not in obj or new in obj:
        return dict(obj)
    return {(new if k == old else k): v for k, v in obj.items()}


def config_option_update(obj: Mapping[str, Any]) -> dict[str, Any]:
    """v1 config options: `id` -> `configId`, select group `group` -> `groupId` (rule 15)."""
    out = dict(obj)
    options = obj.get("configOptions")
    if type(options) is not list:
        return out
    renamed: list[Any] = []
    for option in options:
        if not isinstance(option, Mapping):
            renamed.append(option)
            continue
        new = _rename(option, "id", "configId")
        values = new.get("options")
        if type(values) is list:
            new["options"] = [
                _rename(v, "group", "groupId") if isinstance(v, Mapping) and "group" in v else v
                for v in values
            ]
        renamed.append(new)
    out["configOptions"] = renamed
    return out


def commands_update(obj: Mapping[str, Any]) -> dict[str, Any]:
    """v1 command input `{hint}` (untagged) -> `{type: "text", hint}` (rule 16)."""
    out = dict(obj)
    commands = obj.get("availableCommands")
    if type(commands) is not list:
        return out
    converted: list[Any] = []
    for command in commands:
        hint = command.get("input") if isinstance(command, Mapping) else None
        if isinstance(hint, Mapping) and "type" not in hint:
            converted.append({**command, "input": {"type": "text", **hint}})
        else:
            converted.append(command)
    out["availableCommands"] = converted
    return out
