"""`check --format tck`: the checker's findings in the official conformance kit's shape.

A table over the hand-written corpus (tests/traces): a trace that exercises a kit requirement
and keeps it -> passed; one that breaks it -> failed, with the line the rule names; one that
never exercises it -> not-observed. Then the kit's verdict, and the command line.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any, cast

import pytest

import acp_core as acp
from acp_core.__main__ import main
from acp_core._rules._tck import (
    KIT_PENDING,
    KIT_PROBES,
    KIT_TIERS,
    KIT_TRIGGERS,
    KIT_UNTRACEABLE,
    exercised,
    kit_markdown,
    tck_report,
    verdict,
)

TRACES = Path(__file__).resolve().parent / "traces"
EXAMPLE = Path(acp.__file__).resolve().parent / "data" / "example-trace.jsonl"


def load(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]


def report(name: str, side: str | None = "agent") -> dict[str, Any]:
    entries = load(TRACES / name)
    found = acp.check_trace(entries, revision=acp.V2_2026_08, side=side)  # type: ignore[arg-type]
    return tck_report(found, exercised(entries), side=side, revision="2026-08")  # type: ignore[arg-type]


def requirement(rep: dict[str, Any], kit_id: str) -> dict[str, Any]:
    (entry,) = [r for r in rep["requirements"] if r["id"] == kit_id]
    return cast("dict[str, Any]", entry)


# The kit ids the answer to `initialize` shows (J5-J10).
_INIT = (
    "ACP-INIT-203",
    "ACP-INIT-204",
    "ACP-AUTH-201",
    "ACP-AUTH-202",
    "ACP-AUTH-206",
    "ACP-AUTH-207",
)

_DOWNGRADE_REFUSED = "bad_J33_1_downgrade_request_answered_with_an_error.jsonl"
_FRAMING = "good_batches_and_extensions_answered.jsonl"
_NO_ANSWER = "good_agent_initiated_and_background.jsonl"  # the agent answers nothing
# The kit ids of the agent's answers to session management (J50-J62, J64) and the lines of
# good_session_management.jsonl that exercise them.
_MANAGED = {
    "ACP-LIST-201": [4, 6, 19],
    "ACP-LIST-203": [4, 6, 19],
    "ACP-LIST-204": [4, 6, 19],
    "ACP-CLOSE-201": [11],
    "ACP-DELETE-201": [15, 17],
    "ACP-DELETE-202": [15, 17],
    "ACP-DELETE-203": [15, 17],
    "ACP-ADDDIRS-201": [2],
    "ACP-ADDDIRS-202": [13],
    "ACP-CONFIG-201": [2],
    "ACP-CONFIG-202": [8],
    "ACP-CONFIG-203": [13],
    "ACP-CONFIG-204": [2, 8, 10, 13],
}
_MANAGED_BAD = [
    ("ACP-LIST-201", "bad_J50_3_session_list_answered_without_sessions.jsonl", [3]),
    ("ACP-LIST-203", "bad_J51_5_list_filtered_by_cwd_lists_another_cwd.jsonl", [5]),
    ("ACP-LIST-204", "bad_J52_3_listed_session_with_a_relative_cwd.jsonl", [3]),
    ("ACP-CLOSE-201", "bad_J53_5_close_of_an_open_session_refused.jsonl", [5]),
    ("ACP-DELETE-201", "bad_J54_5_delete_answered_with_a_non_empty_result.jsonl", [5]),
    ("ACP-DELETE-202", "bad_J55_7_deleted_session_still_listed.jsonl", [7]),
    ("ACP-DELETE-203", "bad_J56_3_delete_of_a_never_created_session_refused.jsonl", [3]),
    ("ACP-ADDDIRS-201", "bad_J57_3_additional_directories_of_session_new_refused.jsonl", [3]),
    ("ACP-ADDDIRS-202", "bad_J58_7_additional_directories_of_session_resume_refused.jsonl", [7]),
    ("ACP-CONFIG-201", "bad_J59_3_session_new_answer_with_a_malformed_select.jsonl", [3]),
    ("ACP-CONFIG-203", "bad_J60_3_resume_answer_with_a_boolean_option_given_a_string.jsonl", [3]),
    ("ACP-CONFIG-204", "bad_J61_0_select_current_value_not_offered.jsonl", [0]),
    ("ACP-CONFIG-204", "bad_J61_3_session_new_answer_with_a_current_value_not_offered.jsonl", [3]),
    ("ACP-CONFIG-202", "bad_J62_5_set_config_option_answer_drops_an_option.jsonl", [5]),
    ("ACP-PATCH-204", "bad_J63_0_tool_call_update_with_an_empty_id.jsonl", [0]),
    ("ACP-ENUM-203", "bad_J64_8_prompt_refused_after_a_custom_permission_outcome.jsonl", [8]),
]
# The kit ids of what `initialize` advertised, held against later traffic (J70-J80): kit id,
# the trace that keeps it, the bad trace that breaks it (at the line its name gives).
_ADVERTISED_ROWS = """
PROMPTCAP-001 good_prompt_content_advertised bad_J70_5_image_prompt_refused_as_invalid
PROMPTCAP-002 good_prompt_content_advertised bad_J71_5_audio_prompt_refused_as_invalid
PROMPTCAP-003 good_prompt_content_advertised bad_J72_5_embedded_resource_prompt_refused_as_invalid
PROMPT-003 good_prompt_content_advertised bad_J73_5_resource_link_prompt_refused_as_invalid
SESSION-203 good_session_setup_and_auth bad_J74_3_session_new_without_mcp_servers_refused
RESUME-201 good_session_setup_and_auth bad_J75_3_resume_answered_method_not_found
AUTH-203 good_session_setup_and_auth bad_J76_3_logout_answered_method_not_found
AUTH-204 good_session_setup_and_auth bad_J77_3_login_answered_method_not_found
AUTH-204 good_session_setup_and_auth bad_J77_5_session_new_unauthenticated_after_login
AUTH-205 good_two_new_sessions bad_J78_3_session_new_unauthenticated_without_auth_methods
CLIENTCAP-201 good_elicitation_enabled bad_J79_4_elicitation_without_the_client_capability
CLIENTCAP-202 good_prompt_turn bad_J80_4_agent_reads_a_file_through_the_client
"""
_ADVERTISED = [
    (f"ACP-{kit}", good, bad, int(bad.split("_")[2]))
    for kit, good, bad in (row.split() for row in _ADVERTISED_ROWS.strip().splitlines())
]

_CANCEL_ALSO = ("ACP-CANCEL-205", "ACP-CANCEL-206", "ACP-CANCEL-207")
# (kit id, trace, status, lines): lines are 0-based line indexes, as `check` prints them.
CASES = [
    # a trace that exercises the requirement and keeps it
    ("ACP-STATE-203", "good_prompt_turn.jsonl", "passed", None),
    ("ACP-CANCEL-201", "good_cancel_turn.jsonl", "passed", None),
    ("ACP-PERM-201", "good_permission_turn.jsonl", "passed", None),
    ("ACP-RESUME-202", "good_resume_with_replay.jsonl", "passed", None),
    ("ACP-CANCEL-208", "good_close_session.jsonl", "passed", None),
    ("ACP-CONFIG-206", "good_config_options.jsonl", "passed", None),
    ("ACP-SESSION-002", "good_two_new_sessions.jsonl", "passed", [2, 4]),
    ("ACP-SESSION-001", "good_two_new_sessions.jsonl", "passed", [2, 4]),
    *((kit, "good_initialize_with_auth_methods.jsonl", "passed", [0]) for kit in _INIT),
    *((kit, "good_session_management.jsonl", "passed", at) for kit, at in _MANAGED.items()),
    ("ACP-PATCH-204", "good_prompt_turn.jsonl", "passed", None),
    ("ACP-ENUM-203", "good_permission_turn.jsonl", "passed", None),
    # one that breaks it: failed, at the line its rule names
    ("ACP-STATE-203", "bad_R8_5_idle_without_stop_reason.jsonl", "failed", [5]),
    ("ACP-CANCEL-201", "bad_R21_7_cancelled_turn_ends_with_end_turn.jsonl", "failed", [7]),
    ("ACP-PERM-201", "bad_R26_4_permission_without_options.jsonl", "failed", [4]),
    ("ACP-RESUME-202", "bad_R38_7_resume_from_start_answered_without_replay.jsonl", "failed", [7]),
    ("ACP-CANCEL-208", "bad_R24_5_close_during_work_ends_with_end_turn.jsonl", "failed", [5]),
    ("ACP-PATCH-201", "bad_R4_4_chunk_without_message_id.jsonl", "failed", [4]),
    ("ACP-PROMPT-201", "bad_R1_1_v1_prompt_result.jsonl", "failed", [1]),
    ("ACP-JSONRPC-003", "bad_J1_2_agent_answers_prompt_twice.jsonl", "failed", [2]),
    ("ACP-SESSION-002", "bad_J4_5_second_session_new_answers_the_first_id.jsonl", "failed", [5]),
    ("ACP-SESSION-001", "bad_J30_3_session_new_answered_with_an_empty_id.jsonl", "failed", [3]),
    ("ACP-SESSION-001", "bad_J30_3_session_new_answered_without_an_id.jsonl", "failed", [3]),
    ("ACP-INIT-203", "bad_J5_1_initialize_answer_without_info.jsonl", "failed", [1]),
    ("ACP-INIT-204", "bad_J6_1_initialize_answer_with_a_boolean_capability.jsonl", "failed", [1]),
    ("ACP-AUTH-201", "bad_J7_1_two_auth_methods_share_a_method_id.jsonl", "failed", [1]),
    ("ACP-AUTH-202", "bad_J8_1_terminal_auth_without_the_client_capability.jsonl", "failed", [1]),
    ("ACP-AUTH-207", "bad_J9_1_terminal_auth_sets_a_variable_twice.jsonl", "failed", [1]),
    ("ACP-AUTH-206", "bad_J10_1_auth_method_of_an_undefined_type.jsonl", "failed", [1]),
    ("ACP-ERROR-001", "bad_J11_1_error_message_on_two_lines.jsonl", "failed", [1]),
    ("ACP-ERROR-001", "good_prompt_refused_with_an_error.jsonl", "passed", [1]),
    ("ACP-INIT-001", "good_initialize_with_auth_methods.jsonl", "passed", [0]),
    ("ACP-INIT-201", "good_initialize_with_auth_methods.jsonl", "passed", [0]),
    ("ACP-INIT-201", "good_initialize_downgrade_answered_with_version_2.jsonl", "passed", [0]),
    ("ACP-INIT-202", "good_initialize_downgrade_answered_with_version_2.jsonl", "passed", [0]),
    ("ACP-INIT-001", "bad_J31_1_initialize_answered_with_an_error.jsonl", "failed", [1]),
    ("ACP-INIT-201", "bad_J32_1_initialize_answers_a_string_version.jsonl", "failed", [1]),
    ("ACP-INIT-202", _DOWNGRADE_REFUSED, "failed", [1]),
    ("ACP-INIT-001", _DOWNGRADE_REFUSED, "not-observed", []),
    ("ACP-INIT-202", "good_initialize_with_auth_methods.jsonl", "not-observed", []),
    ("ACP-INIT-001", "good_prompt_turn.jsonl", "not-observed", []),
    ("ACP-EXT-202", "good_initialize_with_auth_methods.jsonl", "passed", [0]),
    ("ACP-EXT-202", "bad_J46_1_custom_capability_at_the_root.jsonl", "failed", [1]),
    ("ACP-EXT-202", "good_prompt_turn.jsonl", "not-observed", []),
    ("ACP-SCHEMA-001", "good_initialize_with_auth_methods.jsonl", "passed", [0]),
    ("ACP-SCHEMA-001", "bad_J47_1_auth_method_without_a_name.jsonl", "failed", [1]),
    ("ACP-SCHEMA-001", "good_prompt_turn.jsonl", "not-observed", []),
    ("ACP-INIT-201", "good_prompt_turn.jsonl", "not-observed", []),
    # JSON-RPC framing, batches and extensions (J34-J44)
    ("ACP-JSONRPC-001", "good_prompt_turn.jsonl", "passed", None),
    ("ACP-JSONRPC-001", "bad_J37_1_answer_echoes_an_integer_id_as_a_string.jsonl", "failed", [1]),
    ("ACP-JSONRPC-002", "good_prompt_turn.jsonl", "passed", None),
    ("ACP-JSONRPC-002", "bad_J38_1_response_with_both_result_and_error.jsonl", "failed", [1]),
    ("ACP-META-201", "good_prompt_turn.jsonl", "passed", None),
    ("ACP-META-201", "bad_J45_1_result_meta_is_a_string.jsonl", "failed", [1]),
    ("ACP-JSONRPC-001", _NO_ANSWER, "not-observed", []),
    ("ACP-JSONRPC-002", _NO_ANSWER, "not-observed", []),
    ("ACP-JSONRPC-004", _FRAMING, "passed", [6]),
    ("ACP-JSONRPC-004", "bad_J34_1_undefined_method_answered_with_a_result.jsonl", "failed", [1]),
    ("ACP-JSONRPC-004", "good_prompt_turn.jsonl", "not-observed", []),
    ("ACP-EXT-001", _FRAMING, "passed", [4]),
    ("ACP-EXT-001", "bad_J35_0_extension_request_left_unanswered.jsonl", "not-observed", [0]),
    ("ACP-EXT-001", "good_prompt_turn.jsonl", "not-observed", []),
    ("ACP-EXT-201", _FRAMING, "passed", [2, 3]),
    ("ACP-EXT-201", "bad_J36_1_extension_notification_answered.jsonl", "failed", [1]),
    ("ACP-EXT-201", "good_prompt_turn.jsonl", "not-observed", []),
    ("ACP-BATCH-201", "probes/good_empty_batch_answered.jsonl", "passed", [0]),
    ("ACP-BATCH-201", "bad_J39_1_empty_batch_answered_with_an_empty_array.jsonl", "failed", [1]),
    ("ACP-BATCH-201", _FRAMING, "not-observed", []),
    ("ACP-BATCH-202", _FRAMING, "passed", [2]),
    ("ACP-BATCH-202", "bad_J40_1_notification_batch_answered_with_an_empty_array.jsonl", "failed", [1]),  # noqa: E501
    ("ACP-BATCH-202", "good_prompt_turn.jsonl", "not-observed", []),
    ("ACP-BATCH-203", "probes/good_invalid_batch_entry_answered.jsonl", "passed", [0]),
    ("ACP-BATCH-203", "probes/bad_J41_1_invalid_batch_entry_left_unanswered.jsonl", "failed", [1]),
    ("ACP-BATCH-203", _FRAMING, "not-observed", []),
    ("ACP-BATCH-204", _FRAMING, "passed", [0]),
    ("ACP-BATCH-204", "bad_J42_1_one_request_batch_answered_without_an_array.jsonl", "failed", [1]),
    ("ACP-BATCH-204", "good_prompt_turn.jsonl", "not-observed", []),
    ("ACP-BATCH-205", _FRAMING, "passed", [0]),
    ("ACP-BATCH-205", "bad_J43_2_reply_array_answers_a_request_of_no_batch.jsonl", "failed", [2]),
    ("ACP-BATCH-205", "good_prompt_turn.jsonl", "not-observed", []),
    ("ACP-META-001", "good_extensions_and_batches.jsonl", "passed", [0]),
    ("ACP-META-001", "bad_J44_1_prompt_with_meta_refused_as_invalid_params.jsonl", "failed", [1]),
    ("ACP-META-001", "good_prompt_turn.jsonl", "not-observed", []),
    *((kit, name, "failed", at) for kit, name, at in _MANAGED_BAD),
    # a kit requirement a rule of another kit id decides whole (`Rule.also_kit_ids`)
    *((kit, "good_cancel_turn.jsonl", "passed", [7]) for kit in _CANCEL_ALSO),
    ("ACP-CANCEL-205", "bad_J1_5_agent_answers_the_cancel_notification.jsonl", "failed", [5]),
    ("ACP-CANCEL-206", "bad_R21_7_cancelled_turn_ends_with_end_turn.jsonl", "failed", [7]),
    ("ACP-CANCEL-207", "bad_R21_7_cancelled_turn_ends_with_end_turn.jsonl", "failed", [7]),
    *((kit, "good_prompt_turn.jsonl", "not-observed", []) for kit in _CANCEL_ALSO),
    # one that never exercises it
    ("ACP-CANCEL-201", "good_prompt_turn.jsonl", "not-observed", []),
    ("ACP-RESUME-202", "good_prompt_turn.jsonl", "not-observed", []),
    ("ACP-PERM-201", "good_prompt_turn.jsonl", "not-observed", []),
    ("ACP-CANCEL-208", "good_cancel_turn.jsonl", "not-observed", []),
    ("ACP-RESUME-203", "good_permission_turn.jsonl", "not-observed", []),
    ("ACP-SESSION-002", "good_prompt_turn.jsonl", "not-observed", []),
    ("ACP-SESSION-001", "good_prompt_turn.jsonl", "not-observed", []),
    *((kit, "good_prompt_turn.jsonl", "not-observed", []) for kit in _INIT),
    *((kit, "good_prompt_turn.jsonl", "not-observed", []) for kit in _MANAGED),
    ("ACP-PATCH-204", "good_two_new_sessions.jsonl", "not-observed", []),
    ("ACP-ENUM-203", "good_two_new_sessions.jsonl", "not-observed", []),
    *((kit, f"{good}.jsonl", "passed", None) for kit, good, _bad, _line in _ADVERTISED),
    *((kit, f"{bad}.jsonl", "failed", [line]) for kit, _good, bad, line in _ADVERTISED),
    # (CLIENTCAP-202 binds every agent message: any recording exercises it; the prompt turn
    # has `resource` content, accepted: PROMPTCAP-003 passes there)
    *(
        (
            kit,
            f"{'good_two_new_sessions' if 'PROMPT' in kit else 'good_prompt_turn'}.jsonl",
            "not-observed",
            [],
        )
        for kit in sorted({kit for kit, *_ in _ADVERTISED} - {"ACP-CLIENTCAP-202"})
    ),
    # a recording that ends before the requirement can be judged (an R7 warning)
    ("ACP-STATE-202", "bad_R7_3_recording_ends_while_running.jsonl", "not-observed", [3]),
]


@pytest.mark.parametrize(("kit_id", "name", "status", "lines"), CASES)
def test_each_requirement_is_passed_failed_or_not_observed(
    kit_id: str, name: str, status: str, lines: list[int] | None
) -> None:
    entry = requirement(report(name), kit_id)
    assert entry["status"] == status
    assert entry["tier"] == KIT_TIERS[kit_id]
    if lines is not None:
        assert entry["lines"] == lines
    if status == "passed":
        assert entry["lines"], "a passed requirement shows the lines that exercised it"
        assert entry["findings"] == []
    if status == "failed":
        assert {f["line"] for f in entry["findings"]} == set(lines or ())
        assert all(f["rule"] in entry["rules"] and f["message"] for f in entry["findings"])


def test_every_trace_checkable_kit_id_is_checked() -> None:
    # Issue 25's bar: each registry id a recording can show has a rule check_trace reports.
    checked = {k for r in acp.RULES.values() if r.checked for k in r.kit_ids}
    # Not from a trace: the kit ids the module lists, and those whose rules the checker does
    # not report (the catalogue says why: R45's stdout, CANCEL-204's timing).
    beyond = {k for r in acp.RULES.values() for k in r.kit_ids} - checked
    traceable = set(KIT_TIERS) - set(KIT_UNTRACEABLE) - beyond
    assert KIT_PENDING == ()
    assert traceable - checked == set()
    assert len(traceable) == 84


def test_a_rule_that_decides_another_kit_requirement_whole_names_it_apart() -> None:
    # CANCEL-205/206/207 restate J1, R21 and R18 on a cancel: the rules carry them besides
    # their own kit id, and the coverage table lists them under those rules.
    also = {k: r.id for r in acp.RULES.values() for k in r.also_kit_ids}
    assert also == {"ACP-CANCEL-205": "J1", "ACP-CANCEL-206": "R21", "ACP-CANCEL-207": "R21"} | {
        k: also[k] for k in also if k not in ("ACP-CANCEL-205", "ACP-CANCEL-206", "ACP-CANCEL-207")
    }
    for rule in acp.RULES.values():
        assert rule.kit_id not in rule.also_kit_ids, rule.id
        assert set(rule.also_kit_ids) <= set(KIT_TIERS), rule.id
        assert rule.kit_ids[: 1] == ((rule.kit_id,) if rule.kit_id else rule.also_kit_ids[:1])
    assert {r.id for r in acp.RULES.values() if "ACP-CANCEL-207" in r.kit_ids} == {"R18", "R21"}
    table = kit_markdown()
    assert "| ACP-CANCEL-207 | CAPABILITY | R18, R21 | checked |" in table


def test_a_failed_requirement_names_its_rule_and_the_lines_that_show_it() -> None:
    entry = requirement(report("bad_R8_5_idle_without_stop_reason.jsonl"), "ACP-STATE-203")
    assert entry["rules"] == ["R8"]
    (finding,) = entry["findings"]
    assert finding["rule"] == "R8"
    assert finding["line"] == 5


def test_every_kit_id_of_the_catalogue_has_a_tier_and_a_trigger() -> None:
    kit_ids = {k for r in acp.RULES.values() if r.checked for k in r.kit_ids}
    assert kit_ids <= set(KIT_TIERS)
    assert kit_ids <= set(KIT_TRIGGERS)
    assert set(KIT_TRIGGERS) <= set(KIT_TIERS)
    assert len(KIT_TIERS) == 106  # the kit's v2 registry at commit 1314e09


def test_kit_ids_whose_rules_are_not_checked_are_listed_apart() -> None:
    rep = report("good_prompt_turn.jsonl")
    apart = {u["id"] for u in rep["unjudged"]}
    judged = {r["id"] for r in rep["requirements"]}
    assert not apart & judged
    unchecked = {k for r in acp.RULES.values() if r.side != "client" for k in r.kit_ids}
    unchecked -= {k for r in acp.RULES.values() if r.checked for k in r.kit_ids}
    assert apart == unchecked
    assert "ACP-TRANSPORT-201" in apart  # R45 (stdout stays pure ACP) is beyond a recording


def test_side_client_keeps_only_the_kit_ids_of_rules_binding_the_client() -> None:
    rep = report("good_extensions_and_batches.jsonl", side="client")
    ids = {r["id"] for r in rep["requirements"]}
    binding = {
        k for r in acp.RULES.values() if r.checked and r.side != "agent" for k in r.kit_ids
    }
    assert ids == binding
    assert "ACP-STATE-203" not in ids


# -- the verdict -----------------------------------------------------------------------------


def _req(kit_id: str, tier: str, status: str) -> dict[str, object]:
    return {"id": kit_id, "tier": tier, "status": status}


@pytest.mark.parametrize(
    ("tier", "status", "conformant"),
    [
        ("MANDATORY", "passed", True),
        ("MANDATORY", "failed", False),
        ("MANDATORY", "not-observed", False),  # the kit counts an untested MUST as failed
        ("CAPABILITY", "passed", True),
        ("CAPABILITY", "failed", False),
        ("CAPABILITY", "not-observed", True),  # not applicable: never against conformance
        ("ADVISORY", "failed", True),
        ("ADVISORY", "not-observed", True),
        ("INFORMATIONAL", "failed", True),
    ],
)
def test_the_verdict_is_the_kits(tier: str, status: str, conformant: bool) -> None:
    v = verdict([_req("ACP-X-001", tier, status), _req("ACP-Y-001", "MANDATORY", "passed")])
    assert v["conformant"] is conformant
    assert v["failing"] == ([] if conformant else ["ACP-X-001"])
    counts = v["tier_counts"]
    assert isinstance(counts, dict)
    assert counts[tier][status] == 1 + (tier == "MANDATORY" and status == "passed")
    assert v["blocked_by_auth"] is False
    assert v["blocked_by_version_mismatch"] is False


def test_the_packaged_example_is_a_conformant_agent_run() -> None:
    entries = load(EXAMPLE)
    found = acp.check_trace(entries, revision=acp.V2_2026_11, side="agent")
    rep = tck_report(found, exercised(entries), side="agent", revision="2026-11")
    assert rep["verdict"]["conformant"] is True  # type: ignore[index]
    statuses = {r["status"] for r in rep["requirements"]}  # type: ignore[attr-defined]
    assert statuses == {"passed", "not-observed"}


def test_a_mandatory_requirement_never_exercised_blocks_the_verdict() -> None:
    # No client notification in the recording: JSONRPC-003 (MANDATORY) is not observed; nor
    # is an `initialize`, so neither are the MANDATORY ids its answer shows (J5-J10).
    rep = report("good_prompt_turn.jsonl")
    assert requirement(rep, "ACP-JSONRPC-003")["status"] == "not-observed"
    assert rep["verdict"]["conformant"] is False
    shown_by_initialize = (*_INIT, "ACP-INIT-001", "ACP-INIT-201", "ACP-SCHEMA-001")
    unseen = [k for k in shown_by_initialize if KIT_TIERS[k] == "MANDATORY"]
    assert rep["verdict"]["failing"] == sorted([*unseen, "ACP-JSONRPC-003"])


def test_a_probe_never_sent_does_not_block_the_verdict_but_a_failed_one_does() -> None:
    # INIT-202 needs an initialize asking for version 1, which the kit sends on a connection
    # of its own: a recording of an ordinary session never holds it.
    assert "ACP-INIT-202" in KIT_PROBES
    assert all(KIT_TIERS[k] == "MANDATORY" for k in KIT_PROBES)
    unseen = verdict([_req("ACP-INIT-202", "MANDATORY", "not-observed")])
    assert unseen["conformant"] is True
    failed = verdict([_req("ACP-INIT-202", "MANDATORY", "failed")])
    assert failed["failing"] == ["ACP-INIT-202"]


# -- the command line ------------------------------------------------------------------------


def run(capsys: pytest.CaptureFixture[str], *args: str) -> tuple[int, str, str]:
    revision = "2026-11" if str(EXAMPLE) in args else "2026-08"  # as each was recorded
    code = main(["check", "--revision", revision, *args])
    out, err = capsys.readouterr()
    return code, out, err


def test_format_tck_prints_one_json_report_and_exits_by_the_verdict(
    capsys: pytest.CaptureFixture[str],
) -> None:
    code, out, _ = run(capsys, "--format", "tck", "--side", "agent", str(EXAMPLE))
    rep = json.loads(out)
    assert code == 0
    assert rep["format"] == "tck"
    assert rep["verdict"]["conformant"] is True
    assert rep["side"] == "agent"
    assert rep["schema_revision"] == "2026-11"
    assert rep["trace"] == str(EXAMPLE)
    bad = TRACES / "bad_R8_5_idle_without_stop_reason.jsonl"
    code, out, _ = run(capsys, "--format", "tck", "--side", "agent", str(bad))
    rep = json.loads(out)
    assert code == 1
    assert "ACP-STATE-203" in rep["verdict"]["failing"]


def test_json_is_unchanged_and_equals_format_json(capsys: pytest.CaptureFixture[str]) -> None:
    bad = str(TRACES / "bad_R8_5_idle_without_stop_reason.jsonl")
    code_a, out_a, _ = run(capsys, "--json", bad)
    code_b, out_b, _ = run(capsys, "--format", "json", bad)
    assert (code_a, out_a) == (code_b, out_b) == (1, out_a)
    assert [v["rule"] for v in json.loads(out_a)] == ["R8"]


def test_json_and_format_tck_together_are_bad_input(capsys: pytest.CaptureFixture[str]) -> None:
    code, out, err = run(capsys, "--json", "--format", "tck", str(EXAMPLE))
    assert (code, out) == (2, "")
    assert "--format tck" in err


# The ids of the kit's v2 registry (agentclientprotocol/acp-tck, src/tck/v2/requirements.py at
# commit 1314e09), pinned here so a change to `KIT_TIERS` cannot drop one unnoticed.
REGISTRY_1314E09 = frozenset(
    f"ACP-{n}"
    for n in str.split(
        "INIT-001 INIT-201 INIT-003 INIT-202 INIT-203 INIT-204 SCHEMA-001 SESSION-001 "
        "SESSION-002 PROMPT-205 PROMPT-201 PROMPT-203 STATE-201 STATE-202 STATE-203 "
        "PROMPTCAP-001 PROMPTCAP-002 PROMPTCAP-003 PROMPT-003 PERM-201 CLIENTCAP-201 "
        "CLIENTCAP-202 INFO-CONCURRENT-201 INFO-UNKNOWNSESSION-001 CANCEL-201 CANCEL-202 "
        "CANCEL-203 CANCEL-204 CANCEL-205 CANCEL-206 CANCEL-207 CANCEL-208 INFO-CANCEL-201 "
        "INFO-CANCEL-202 TRANSPORT-201 TRANSPORT-002 TRANSPORT-203 JSONRPC-001 JSONRPC-002 "
        "JSONRPC-003 JSONRPC-004 JSONRPC-005 BATCH-201 BATCH-202 BATCH-203 BATCH-204 BATCH-205 "
        "BATCH-206 BATCH-207 BATCH-208 INFO-BATCH-201 INFO-BATCH-202 SESSION-203 RESUME-201 "
        "RESUME-202 RESUME-203 RESUME-204 RESUME-205 LIST-201 LIST-202 LIST-203 LIST-204 "
        "CLOSE-201 CLOSE-202 DELETE-201 DELETE-202 DELETE-203 ADDDIRS-201 ADDDIRS-202 MCP-201 "
        "MCP-202 CONFIG-201 CONFIG-202 CONFIG-203 CONFIG-204 CONFIG-206 AUTH-201 AUTH-202 "
        "AUTH-203 AUTH-204 AUTH-205 AUTH-206 AUTH-207 PATCH-201 PATCH-203 PATCH-204 PATCH-205 "
        "PATCH-206 PATCH-207 PATCH-208 PATCH-209 ENUM-201 ENUM-202 ENUM-203 EXT-001 META-001 "
        "META-201 EXT-201 EXT-202 EXT-203 ERROR-001 SHUTDOWN-001 SCHEMA-002 STDERR-001 "
        "INFO-PARSE-001 INFO-INVALIDREQ-001"
    )
)


def test_every_registry_id_is_mapped_untraceable_or_pending_exactly_once() -> None:
    assert len(REGISTRY_1314E09) == 106
    assert set(KIT_TIERS) == REGISTRY_1314E09
    mapped = {k for r in acp.RULES.values() for k in r.kit_ids}
    untraceable, pending = set(KIT_UNTRACEABLE), set(KIT_PENDING)
    assert len(pending) == len(KIT_PENDING)
    assert not mapped & untraceable
    assert not mapped & pending
    assert not untraceable & pending
    assert mapped | untraceable | pending == REGISTRY_1314E09
    assert all(why for why in KIT_UNTRACEABLE.values())


def test_the_report_lists_untraceable_and_pending_ids_apart() -> None:
    rep = report("good_prompt_turn.jsonl")
    judged = {r["id"] for r in rep["requirements"]} | {u["id"] for u in rep["unjudged"]}
    untraceable = {u["id"]: u for u in rep["untraceable"]}
    assert set(untraceable) == set(KIT_UNTRACEABLE)
    assert {p["id"] for p in rep["pending"]} == set(KIT_PENDING)
    assert not judged & (set(untraceable) | set(KIT_PENDING))
    shutdown = untraceable["ACP-SHUTDOWN-001"]
    assert shutdown["tier"] == "ADVISORY"
    assert shutdown["reason"]


def test_close_202_is_r76_and_shares_its_evidence_with_cancel_208() -> None:
    assert acp.RULES["R76"].kit_id == "ACP-CLOSE-202"
    assert acp.RULES["R24"].kit_id == "ACP-CANCEL-208"
    assert KIT_TRIGGERS["ACP-CLOSE-202"] == KIT_TRIGGERS["ACP-CANCEL-208"]


def test_docs_kit_coverage_md_is_the_generated_table(capsys: pytest.CaptureFixture[str]) -> None:
    text = (Path(__file__).resolve().parents[1] / "docs" / "kit-coverage.md").read_text("utf-8")
    assert text == kit_markdown(), (
        "regenerate: python -m acp_core rules --kit > docs/kit-coverage.md"
    )
    assert main(["rules", "--kit"]) == 0
    assert capsys.readouterr().out == text
    rows = [line for line in text.splitlines() if line.startswith("| ACP-")]
    assert len(rows) == len(REGISTRY_1314E09)
    pending = [r for r in rows if "| pending |" in r]
    assert len(pending) == len(KIT_PENDING)
    assert all(r.split(" | ")[4].strip(" |") for r in rows if "| not from a trace |" in r)
