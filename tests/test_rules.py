"""The rule catalogue: ids, levels, the digest's rules all present, docs/rules.md in sync."""

from __future__ import annotations

import re
from pathlib import Path

import attrs
import pytest
from conftest import SPEC_DIR

from acp_core import RULES, Rule, rules_markdown
from acp_core._rules._catalogue import LEVELS, SIDES

ROOT = Path(__file__).resolve().parents[1]
DIGEST = SPEC_DIR.parent / "docs" / "acp-v2-digest.md"
PREVIEW_DIGEST = SPEC_DIR.parent / "docs" / "acp-v2-preview-digest.md"
DIGEST_IDS = (
    [f"R{n}" for n in range(1, 47)]
    + [f"C{n}" for n in range(1, 27)]
    + [f"R{n}" for n in range(47, 82)]  # the Preview digest's section 4
    + [f"C{n}" for n in range(27, 57)]
)


def _digest_rows() -> dict[str, str]:
    """Rule id -> level cell of the digest's section 4 tables."""
    if not DIGEST.exists():
        pytest.skip(f"requirements digest {DIGEST} not found: set ACP_V2_SPEC_DIR")
    rows = re.findall(r"^\| ([RC]\d+) \| ([^|]+) \|", DIGEST.read_text(), flags=re.M)
    found = {rule_id: level.strip() for rule_id, level in rows}
    if PREVIEW_DIGEST.exists():
        text = PREVIEW_DIGEST.read_text()
        for rule_id, level in re.findall(r"^\| ([RC]\d+) \| ([^|]+) \|", text, flags=re.M):
            if int(rule_id[1:]) >= (47 if rule_id[0] == "R" else 27):
                found[rule_id] = level.strip()
    return found


def test_ids_are_unique_well_formed_and_keyed_by_their_own_id() -> None:
    for key, rule in RULES.items():
        assert key == rule.id
        assert re.fullmatch(r"[RCDJS][1-9]\d*|E\d", rule.id), rule.id
    # RULES is a read-only view built from tuples, so a duplicate id would shrink it.
    ids = [r.id for r in RULES.values()]
    assert len(ids) == len(set(ids))


def test_every_digest_rule_is_catalogued_with_the_digest_numbering() -> None:
    assert [i for i in RULES if i[0] in "RC"] == DIGEST_IDS


def test_catalogue_matches_the_digest_tables() -> None:
    rows = _digest_rows()
    assert sorted(rows) == sorted(DIGEST_IDS)
    for rule_id, digest_level in rows.items():
        rule = RULES[rule_id]
        if digest_level in LEVELS:
            assert rule.level == digest_level, rule_id
        else:  # "—", "normative", "MUST (docs) / SHOULD (schema)", ...: say what was chosen
            assert rule.note, f"{rule_id}: digest level {digest_level!r} needs a note"


def test_levels_sides_and_fields_are_from_the_closed_sets() -> None:
    for rule in RULES.values():
        assert rule.level in LEVELS
        assert rule.side in SIDES
        assert rule.summary
        assert rule.section
        assert "\n" not in rule.summary
        assert rule.kit_id is None or re.fullmatch(r"ACP-[A-Z]+-\d{3}", rule.kit_id)
        expected_side = {"R": "agent", "C": "client"}.get(rule.id[0])
        if expected_side is not None and rule.side != expected_side:
            assert rule.note, f"{rule.id} binds {rule.side}; the note must say why"


def test_docs_win_over_schema_for_the_stop_reason_on_idle() -> None:
    # Digest Q1: the docs say MUST, the schema's description SHOULD.
    assert RULES["R8"].level == "MUST"
    assert RULES["R8"].mandatory
    assert not RULES["R11"].mandatory


def test_kit_ids_named_by_the_issue_map_to_their_rules() -> None:
    kit = {r.kit_id: r.id for r in RULES.values() if r.kit_id}
    assert kit["ACP-PROMPT-203"] == "R2"
    assert kit["ACP-STATE-201"] == "R6"
    assert kit["ACP-STATE-203"] == "R8"
    assert kit["ACP-CANCEL-201"] == "R21"
    assert kit["ACP-CANCEL-203"] == "R22"


def test_rule_is_frozen() -> None:
    rule = RULES["R1"]
    with pytest.raises(attrs.exceptions.FrozenInstanceError):
        rule.level = "MAY"  # type: ignore[misc]
    with pytest.raises(TypeError):
        RULES["X1"] = Rule("X1", "MAY", "both", "x", "x")  # type: ignore[index]


def test_docs_rules_md_is_the_generated_catalogue() -> None:
    text = (ROOT / "docs" / "rules.md").read_text(encoding="utf-8")
    assert text == rules_markdown(), "regenerate: python -m acp_core rules > docs/rules.md"


def test_markdown_has_one_row_per_rule_with_its_level() -> None:
    md = rules_markdown()
    for rule in RULES.values():
        rows = [line for line in md.splitlines() if line.startswith(f"| {rule.id} |")]
        assert len(rows) == 1, rule.id
        assert rows[0].startswith(f"| {rule.id} | {rule.level} | {rule.side} |")
        # 7 cells: an unescaped `|` inside a summary would split one
        assert len(re.split(r"(?<!\\)\|", rows[0])) == 9, rows[0]


def test_every_rule_id_the_package_raises_is_catalogued() -> None:
    """Engines name rules by id; each id they can raise must be in RULES."""
    import acp_core

    package = Path(acp_core.__file__).parent
    pattern = re.compile(
        r"(?:\brefuse|_refuse|_remote|LocalProtocolError|RemoteProtocolError)\(\s*\"([A-Z]\d+)\"",
        re.S,
    )
    raised = {m.group(1) for f in package.rglob("*.py") for m in pattern.finditer(f.read_text())}
    assert raised, "the pattern must find the engines' rule ids"
    assert {"E0", "E1", "E2", "E3", "E4", "R1"} <= raised
    assert raised <= set(RULES), sorted(raised - set(RULES))


def test_every_preview_rule_is_checked_or_says_why_a_recording_cannot_show_it() -> None:
    from acp_core._rules._catalogue import UNCHECKED_KINDS
    later_rules = {i for i, r in RULES.items() if r.since is not None}
    assert {
        i for i in RULES if i[0] in "RC" and int(i[1:]) >= (47 if i[0] == "R" else 27)
    } == later_rules
    for rule_id in sorted(later_rules):
        rule = RULES[rule_id]
        assert rule.checked or rule.unchecked is not None, (
            f"{rule_id} is neither checked nor given an `unchecked` reason"
        )
        if rule.unchecked is None:
            continue
        kind, why = rule.unchecked
        assert kind in UNCHECKED_KINDS, rule_id
        assert why.strip(), rule_id
        assert not rule.checked, f"{rule_id} is checked: drop its `unchecked` reason"
        if kind == "covered":  # the reason names the checked rule that reports it
            named = set(re.findall(r"\b[RC]\d+\b", why))
            assert any(RULES[n].checked for n in named if n in RULES), rule_id


def test_unchecked_reasons_are_rendered_in_the_checked_column() -> None:
    md = rules_markdown()
    for rule in RULES.values():
        if rule.unchecked is not None and not rule.checked:
            row = next(line for line in md.splitlines() if line.startswith(f"| {rule.id} |"))
            kind, _why = rule.unchecked
            assert row.rstrip(" |").rsplit("| ", 1)[1].startswith(f"no, {kind}: "), row


def test_rules_citing_a_kit_requirement_carry_its_kit_id() -> None:
    # R63/R64 cite [TCK] RESUME-205/204 in their section but left the kit column blank.
    assert RULES["R63"].kit_id == "ACP-RESUME-205"
    assert RULES["R64"].kit_id == "ACP-RESUME-204"
