"""Rule scope lives on the rule: `Rule.since`/`Rule.until` are declared to the revisions, and
`Revision.applies` answers from that declaration only (issue 21, item 5).

What fails here, and why it matters:
- a `since`/`until` naming a revision no registry holds (the catalogue's import fails, and
  the declaration function refuses it);
- a rule the checker judges, or any id a revision is asked about, whose scope was never
  declared (asking raises instead of answering "applies everywhere", the old number-range
  pitfall of review-2026-12-t3 §3.A);
- a rule of the Preview digest catalogued without `since` (the planted R99 below): every rule
  whose `section` cites the Preview digest comes with a later revision, so it must say which;
- a public way to a revision that does not bring the catalogue's scopes with it;
- a checked rule without a deciding function, a `checked_by` name that does not resolve to a
  function naming the rule, or a new rule decided in several functions (`SEVERAL_HOMES`).
"""

from __future__ import annotations

import ast
import importlib
import inspect
import subprocess
import sys
import warnings
from pathlib import Path

import attrs
import pytest

import acp_core as acp
from acp_core._errors import AcpError, ArgumentError
from acp_core._rules._catalogue import RULES, Rule
from acp_core._rules._check import CHECKED_RULES
from acp_core._wire import _revision
from acp_core._wire._revision import REVISIONS, RuleScope, declare_rule_scopes

PACKAGE = Path(acp.__file__).parent
_PREVIEW_DIGEST = "Preview digest"


def undeclared_later_rules(rules: list[Rule]) -> list[str]:
    """The rules whose section cites the Preview digest but that say no `since`, and the
    rules that say a `since` without citing the digest their scope comes from."""
    return [r.id for r in rules if (_PREVIEW_DIGEST in r.section) != (r.since is not None)]


def test_every_since_and_until_names_a_known_revision() -> None:
    named = {n for r in RULES.values() for n in (r.since, r.until) if n is not None}
    assert named == {"2026-11", acp.PREVIEW.name, "2026-08"}
    assert named <= set(REVISIONS)


def test_declaring_an_unknown_revision_fails_loudly() -> None:
    with pytest.raises(ArgumentError, match="R99 names an unknown revision '2099-01'"):
        declare_rule_scopes({"R99": RuleScope(since="2099-01")})
    with pytest.raises(ArgumentError, match="unknown revision"):
        declare_rule_scopes({"R98": RuleScope(until="2027-13")})


def test_every_catalogue_rule_and_every_checked_rule_has_a_declared_scope() -> None:
    declared = _revision._declared_scopes()
    assert set(declared) == set(RULES)
    assert set(CHECKED_RULES) <= set(declared)
    for rule in RULES.values():
        assert declared[rule.id] == RuleScope(rule.since, rule.until), rule.id


def test_an_undeclared_rule_raises_instead_of_applying_everywhere(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    with pytest.raises(ArgumentError, match="'R99' is not a catalogue rule"):
        acp.V2_2026_08.applies("R99")
    # a rule the checker judges whose scope the catalogue did not declare: loud, too
    missing = {k: v for k, v in _revision._declared_scopes().items() if k != "R57"}
    monkeypatch.setattr(_revision, "_SCOPES", [missing])
    with pytest.raises(ArgumentError, match="'R57'"):
        acp.V2_PREVIEW.applies("R57")
    monkeypatch.setattr(_revision, "_SCOPES", [])
    with pytest.raises(AcpError, match="no rule catalogue has declared"):
        acp.V2_PREVIEW.applies("R1")


def test_every_rule_of_the_preview_digest_says_since_and_only_those() -> None:
    assert undeclared_later_rules(list(RULES.values())) == []


def test_a_planted_preview_rule_without_since_is_caught() -> None:
    r99 = Rule("R99", "MUST", "agent", "A planted rule.", "Preview digest §4; [PLANT]")
    assert undeclared_later_rules([*RULES.values(), r99]) == ["R99"]
    assert undeclared_later_rules([*RULES.values(), attrs.evolve(r99, since="2026-11-20")]) == []
    # and a scope from nowhere: since set, no digest cited
    r98 = Rule("R98", "MUST", "agent", "Another.", "PL", since="2026-11")
    assert undeclared_later_rules([*RULES.values(), r98]) == ["R98"]


def test_scopes_match_the_revisions_they_name() -> None:
    assert acp.V2_2026_08.applies("C15")
    assert not acp.V2_2026_11.applies("C15")
    assert not acp.V2_PREVIEW.applies("C15")
    assert acp.V2_2026_11.applies("C40")
    assert not acp.V2_2026_08.applies("C40")
    assert acp.V2_PREVIEW.applies("R47")
    assert not acp.V2_2026_11.applies("R47")
    assert acp.V2_2026_11.applies("R62")
    assert acp.V2_PREVIEW.applies("R62")
    later = _revision._later(acp.V2_PREVIEW, "2099-01", "test")  # unregistered, builds on it
    assert later.applies("R47")
    assert not later.applies("C15")


def test_rules_added_and_dropped_are_derived_and_deprecated() -> None:
    with pytest.warns(DeprecationWarning, match=r"Rule\.since"):
        added = acp.V2_2026_11.rules_added
    with pytest.warns(DeprecationWarning, match=r"Rule\.until"):
        dropped = acp.V2_2026_11.rules_dropped
    assert added == {"R62", "R73", "R74", "R75", "R76", "R81", "C40", "C41", "C49", "C50", "C56"}
    assert dropped == {"C15"}
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", DeprecationWarning)
        assert acp.V2_2026_08.rules_added == acp.V2_2026_08.rules_dropped == frozenset()
        assert acp.V2_PREVIEW.rules_added == {i for i, r in RULES.items() if r.since}
    with pytest.raises(TypeError):
        acp.Revision("x", "y", False, False, frozenset(), frozenset(), rules_added=frozenset())  # type: ignore[call-arg]


def _imports(path: Path) -> set[str]:
    found: set[str] = set()
    for node in ast.walk(ast.parse(path.read_text(encoding="utf-8"))):
        if isinstance(node, ast.ImportFrom) and node.module:
            found.add(node.module.rsplit(".", 1)[-1])
    return found


def test_the_catalogue_imports_no_checker_and_the_revisions_no_catalogue() -> None:
    for name in ("_catalogue.py", "_catalogue_preview.py"):
        judged = {
            m for m in _imports(PACKAGE / "_rules" / name) if m.startswith(("_check", "_conv"))
        }
        assert judged == set(), name
    assert not {m for m in _imports(PACKAGE / "_wire" / "_revision.py") if "catalogue" in m}
    # the planted upward import is seen
    assert "_check" in set(_imports_source("from ._check import CHECKED_RULES\n"))


def _imports_source(source: str) -> set[str]:
    return {
        n.module.rsplit(".", 1)[-1]
        for n in ast.walk(ast.parse(source))
        if isinstance(n, ast.ImportFrom) and n.module
    }


def test_checked_is_what_the_checker_declares() -> None:
    assert {i for i, r in RULES.items() if r.checked} == CHECKED_RULES


# The rules whose breach is still decided in more than one function (several judging homes,
# issue 21 item 5; the protocol machine is to fold them into one). Pinned: a new split fails.
# None is left: R24, the last, is one function (`_r24`) asked at two points of the guard
# order (`_r24_freed` first, for the freed session), which keeps its findings' order.
SEVERAL_HOMES: frozenset[str] = frozenset()


def _resolve(name: str) -> object:
    module, _, qualname = name.partition(":")
    target: object = importlib.import_module(module)
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


def _body(fn: object) -> str:
    """The source of `fn` without its decorator lines."""
    lines = inspect.getsource(fn).splitlines()  # type: ignore[arg-type]
    return "\n".join(line for line in lines if not line.lstrip().startswith("@"))


def test_every_checked_rule_names_its_deciding_functions_and_they_exist() -> None:
    from acp_core._rules._conversation_guards import GUARDS

    guarded = {(g.rule, g.check) for g in GUARDS}
    for rule in RULES.values():
        if not rule.checked:
            assert rule.checked_by == (), rule.id
            continue
        assert rule.checked_by, rule.id
        assert (len(rule.checked_by) == 1) == (rule.id not in SEVERAL_HOMES), (
            rule.id,
            rule.checked_by,
        )
        for name in rule.checked_by:
            fn = _resolve(name)
            assert inspect.isfunction(fn), name
            # the function's body really names the rule (or it is the rule's guard): no stale
            # name, and no `@decides` mark for a rule the function never reports
            assert (rule.id, fn) in guarded or f'"{rule.id}"' in _body(fn), name


def test_a_stale_deciding_function_name_is_caught() -> None:
    with pytest.raises(AttributeError):
        _resolve("acp_core._rules._check_message:MessageRules._no_such_check")
    source = inspect.getsource(_resolve("acp_core._rules._check_message:MessageRules.batch"))
    assert '"R35"' in source
    assert '"R4"' not in source  # a function named for a rule it never decides is refused


def test_docs_name_the_deciding_functions() -> None:
    from acp_core._rules._catalogue import rules_markdown

    md = rules_markdown()
    row = next(line for line in md.splitlines() if line.startswith("| R35 |"))
    assert row.rstrip(" |").endswith("yes: `_rules._check_message:MessageRules.batch`"), row


@pytest.mark.parametrize(
    "reach",
    [
        "import acp_core; r = acp_core.V2_2026_08",
        "from acp_core import V2_2026_08 as r",
        "from acp_core.codec import V2_2026_08 as r",
    ],
)
def test_every_public_way_to_a_revision_brings_the_rule_scopes(reach: str) -> None:
    # In a fresh interpreter (nothing of the rule layer loaded yet): the public facade loads
    # the catalogue with the revision, so `applies` answers instead of raising.
    code = f"{reach}; print(r.applies('C15'), r.applies('C40'))"
    done = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, check=False, timeout=60
    )
    assert done.returncode == 0, done.stderr
    assert done.stdout.split() == ["True", "False"]
