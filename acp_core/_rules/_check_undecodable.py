"""The rule a message that does not decode breaks.

Owns: `explain_undecodable`, which names a specific rule (R4, R29, R80 where the revision
has it, and R26 as `_rules/_check_message.permission_shape_findings` decides it) when patching
the one field that rule is about makes the message decode, and D1 otherwise (as
`_rules/_check_schema.d1_findings` decides it).
Must not know: the conversation, what decoded messages break (`_rules/_check_message.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Final

from acp_core._errors import DecodeError
from acp_core._wire import _jsonrpc as j
from acp_core._wire._codec import decode_message
from acp_core._wire._revision import DEFAULT_REVISION, Revision

from ._check_message import Finding, permission_shape_findings
from ._check_schema import d1_findings
from ._predicates import MESSAGE_UPDATE_TAGS

__all__ = ["explain_undecodable"]

# A permission option that decodes, to test whether the options were the only problem.
_PLACEHOLDER_OPTION: Final = {"optionId": "x", "name": "x", "kind": "allow_once"}


def explain_undecodable(raw: object, revision: Revision = DEFAULT_REVISION) -> Finding:
    """Name the rule a decode failure breaks: a specific one if patching one field fixes it
    (and the rule applies in `revision`)."""
    found = _explain(raw, revision)
    if found is not None and revision.applies(found[0]):
        return found
    return d1_findings(unexplained=True)[0]


def _explain(raw: object, revision: Revision) -> Finding | None:
    if not isinstance(raw, Mapping) or not isinstance(raw.get("params"), Mapping):
        return None
    params: Mapping[str, Any] = raw["params"]
    method = raw.get("method")
    if method == j.Method.SESSION_UPDATE and isinstance(params.get("update"), Mapping):
        update: Mapping[str, Any] = params["update"]
        tag = update.get("sessionUpdate")
        if isinstance(tag, str) and tag in MESSAGE_UPDATE_TAGS and update.get("messageId") is None:
            patched = {**update, "messageId": "placeholder"}
            if _decodes({**raw, "params": {**params, "update": patched}}):
                return "R4", f": `{tag}` without a messageId"
        plan = update.get("plan")
        if tag == "plan_update" and isinstance(plan, Mapping) and "planId" not in plan:
            patched = {**update, "plan": {**plan, "planId": "placeholder"}}
            if _decodes({**raw, "params": {**params, "update": patched}}):
                return "R29", ": plan without a planId"
        if tag == "compaction_update" and not isinstance(update.get("compactionId"), str):
            patched = {**update, "compactionId": "placeholder"}
            if _decodes({**raw, "params": {**params, "update": patched}}, revision):
                return "R80", ": compaction_update without compactionId, its one required field"
    shape = (
        permission_shape_findings(params.get("title"), params.get("options"))
        if method == j.Method.REQUEST_PERMISSION
        else []
    )
    if shape:
        fixed = dict(params)
        if not isinstance(fixed.get("title"), str):
            fixed["title"] = "placeholder"
        if not fixed.get("options"):
            fixed["options"] = [_PLACEHOLDER_OPTION]
        if _decodes({**raw, "params": fixed}):
            return shape[0][0], f": {shape[0][1]}"
    return None


def _decodes(raw: object, revision: Revision = DEFAULT_REVISION) -> bool:
    try:
        decode_message(raw, revision=revision)
    except DecodeError:
        return False
    return True
