"""Which function decides each rule `check_trace` reports: the `checked_by` of docs/rules.md.

Owns: `DECIDED_BY` (rule id -> the `module:function` names where its finding is decided).
Must not know: what any rule says, how a finding is worded.

A guard's rule is decided by its guard's function, read from `GUARDS` (never restated). A
function marked `@decides(...)` (`_rules/_decides.py`; the single-message checks of
`_check_message.py` are) is read from its mark, also never restated. Every other judging
site (the machine's effects and events, the cross-session checks of `_check_preview*.py`, the
checker's own routing) is listed below, by name, next to the checker's sets of checked ids
(`_check.py` declares both to the catalogue, which imports no checker).
tests/test_rule_scope.py resolves every name to a function whose body names the rule, so a
rename or a moved check fails there, not silently in the docs. A rule with more than one
deciding function is a rule with more than one judging home (issue 21 item 5); the test pins
which rules still have several, so a new split cannot appear unseen.
"""

from __future__ import annotations

from collections.abc import Mapping
from functools import partial
from types import MappingProxyType
from typing import Final

from . import _check_message  # noqa: F401  (imported for its `@decides` marks)
from ._conversation_guards import GUARDS
from ._decides import declared

__all__ = ["DECIDED_BY"]

_SITES: Final[Mapping[str, tuple[str, ...]]] = {
    "C2": ("acp_core._rules._check_capabilities:unadvertised_content",),
    "C15": ("acp_core._rules._conversation_effects:c15_breach",),
    "C25": ("acp_core._rules._conversation_events:stray_answer",),
    "C29": ("acp_core._rules._check_preview:c29_breach",),
    "C34": ("acp_core._rules._check_preview:PreviewDraft.client",),
    "C40": ("acp_core._rules._check_preview:_c40",),
    "C41": ("acp_core._rules._check_preview:c41_breach",),
    "C43": ("acp_core._rules._check_preview_prompts:c43_breach",),
    "D1": ("acp_core._rules._check_schema:d1_findings",),
    "J1": ("acp_core._rules._conversation_events:stray_answer",),
    "J2": ("acp_core._rules._conversation_events:j2_breach",),
    "J3": ("acp_core._rules._protocol:ProtocolDraft.message",),
    "J4": ("acp_core._rules._check_sessions:created_finding",),
    "J5": ("acp_core._rules._check_initialize:initialize_findings",),
    "J6": ("acp_core._rules._check_initialize:initialize_findings",),
    "J7": ("acp_core._rules._check_initialize:initialize_findings",),
    "J8": ("acp_core._rules._check_initialize:initialize_findings",),
    "J9": ("acp_core._rules._check_initialize:_terminal_findings",),
    "J10": ("acp_core._rules._check_initialize:initialize_findings",),
    "J31": ("acp_core._rules._check_initialize:handshake_findings",),
    "J32": ("acp_core._rules._check_initialize:handshake_findings",),
    "J33": ("acp_core._rules._check_initialize:handshake_findings",),
    "J34": ("acp_core._rules._check_jsonrpc:Framing._answer",),
    "J35": ("acp_core._rules._check_jsonrpc:Framing.finish",),
    "J36": ("acp_core._rules._check_jsonrpc:Framing._unasked",),
    "J37": ("acp_core._rules._protocol:echoed",),
    "J38": ("acp_core._rules._check_jsonrpc:response_finding",),
    "J39": ("acp_core._rules._check_jsonrpc:_j39",),
    "J40": ("acp_core._rules._check_jsonrpc:_j40",),
    "J41": ("acp_core._rules._check_jsonrpc:Framing._agent_batch",),
    "J42": ("acp_core._rules._check_jsonrpc:_j42",),
    "J43": ("acp_core._rules._check_jsonrpc:Framing._agent_batch",),
    "J44": ("acp_core._rules._check_jsonrpc:Framing._answer",),
    "J45": ("acp_core._rules._check_jsonrpc:meta_finding",),
    "J46": ("acp_core._rules._check_initialize:capability_key_findings",),
    "J47": ("acp_core._rules._check_initialize:schema_findings",),
    "J30": ("acp_core._rules._check_sessions:created_finding",),
    "J50": ("acp_core._rules._check_answers:Answers._page",),
    "J51": ("acp_core._rules._check_answers:Answers._page",),
    "J52": ("acp_core._rules._check_answers:Answers._page",),
    "J53": ("acp_core._rules._check_answers:Answers._close",),
    "J54": ("acp_core._rules._check_answers:Answers._delete",),
    "J55": ("acp_core._rules._check_answers:Answers._page",),
    "J56": ("acp_core._rules._check_answers:Answers._delete",),
    "J57": ("acp_core._rules._check_answers:Answers._directories",),
    "J58": ("acp_core._rules._check_answers:Answers._directories",),
    "J59": ("acp_core._rules._check_answers:Answers._decode",),
    "J60": ("acp_core._rules._check_answers:Answers._decode",),
    "J62": ("acp_core._rules._check_answers:Answers._with_options",),
    "J64": ("acp_core._rules._check_answers:Answers._prompt",),
    "J70": ("acp_core._rules._check_capabilities:prompt_refusal",),
    "J71": ("acp_core._rules._check_capabilities:prompt_refusal",),
    "J72": ("acp_core._rules._check_capabilities:prompt_refusal",),
    "J73": ("acp_core._rules._check_capabilities:prompt_refusal",),
    "J74": ("acp_core._rules._check_capabilities:new_session_refusal",),
    "J75": ("acp_core._rules._check_capabilities:resume_refusal",),
    "J76": ("acp_core._rules._check_capabilities:logout_refusal",),
    "J77": ("acp_core._rules._check_capabilities:login_refusal",),
    "J78": ("acp_core._rules._check_capabilities:new_session_refusal",),
    "J79": ("acp_core._rules._check_capabilities:elicitation",),
    "J80": ("acp_core._rules._check_capabilities:undefined_method",),
    "R4": ("acp_core._rules._check_undecodable:_explain",),
    "R7": ("acp_core._rules._conversation:finish",),
    "R11": ("acp_core._rules._conversation_effects:_on_permission_answer",),
    "R18": ("acp_core._rules._predicates:open_enum_rule",),
    "R19": ("acp_core._rules._predicates:open_enum_rule",),
    "R29": ("acp_core._rules._check_undecodable:_explain",),
    "R47": ("acp_core._rules._naming:naming_rule",),
    "R48": ("acp_core._rules._check_preview_updates:announce_finding",),
    "R49": ("acp_core._rules._check_preview_updates:announce_finding",),
    "R50": ("acp_core._rules._check_preview_updates:_r50",),
    "R53": ("acp_core._rules._check_preview_answers:agent_answer",),
    "R56": ("acp_core._rules._naming:naming_rule",),
    "R57": ("acp_core._rules._check_preview_draft:PreviewMemory.r57",),
    "R58": ("acp_core._rules._check_preview_updates:_marker",),
    "R59": ("acp_core._rules._check_preview_prompts:_r59",),
    "R60": ("acp_core._rules._check_preview_answers:_resume",),
    "R61": ("acp_core._rules._check_preview_updates:_announce",),
    "R62": ("acp_core._rules._check_preview_answers:_resume",),
    "R63": ("acp_core._rules._check_preview_updates:_history",),
    "R64": ("acp_core._rules._check_preview_answers:_resume",),
    "R65": ("acp_core._rules._check_preview_updates:_history",),
    "R66": ("acp_core._rules._check_preview_updates:_history",),
    "R67": ("acp_core._rules._check_preview_prompts:BookDraft.keyed",),
    "R68": ("acp_core._rules._check_preview_prompts:BookDraft.keyed",),
    "R70": ("acp_core._rules._check_preview_prompts:_r70",),
    "R71": ("acp_core._rules._check_preview_updates:_r71",),
    "R72": ("acp_core._rules._check_preview_updates:_state",),
    "R73": ("acp_core._rules._check_preview_updates:_r73",),
    "R74": ("acp_core._rules._check_preview_updates:background_findings",),
    "R75": ("acp_core._rules._check_preview_answers:agent_answer",),
    "R76": ("acp_core._rules._check_preview:r76_breach",),
    "R79": ("acp_core._rules._check_preview_updates:_suggestions",),
    "R80": ("acp_core._rules._check_undecodable:_explain",),
    "R81": ("acp_core._rules._check_preview_updates:recorded_tool",),
}


def _collected() -> Mapping[str, tuple[str, ...]]:
    found: dict[str, list[str]] = {r: list(names) for r, names in _SITES.items()}
    for rule, marked in declared().items():
        names = found.setdefault(rule, [])
        listed = set(names) & set(marked)
        if listed:  # one registration per function: its mark, or a line here, never both
            raise ValueError(f"{rule}: {sorted(listed)} is both marked and listed in _SITES")
        names.extend(marked)
    for guard in GUARDS:
        # A check asked at several points of the order with a parameter is one function.
        check = guard.check.func if isinstance(guard.check, partial) else guard.check
        name = f"{check.__module__}:{check.__qualname__}"
        names = found.setdefault(guard.rule, [])
        if name not in names:
            names.append(name)
    return MappingProxyType({r: tuple(sorted(n)) for r, n in found.items()})


#: Every rule `check_trace` reports -> the functions that decide it, sorted.
DECIDED_BY: Final = _collected()
