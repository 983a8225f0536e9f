"""`@decides(...)`: a judging function declares the rules it decides where it is written, and
`DECIDED_BY` (the Checked column of docs/rules.md) reads the marks.

- Every mark resolves to the function that carries it and lands in `DECIDED_BY` once.
- A function is registered once per rule: marked twice, or marked and listed in `_SITES`, fails.
- Every rule the checker reports has a deciding function (tests/test_rule_scope.py checks that
  each one names its rule in its body).
"""

from __future__ import annotations

import importlib

import pytest

from acp_core import RULES
from acp_core._rules import _deciders, _decides
from acp_core._rules._decides import decides, declared


def _resolve(name: str) -> object:
    module, _, qualname = name.partition(":")
    target: object = importlib.import_module(module)
    for part in qualname.split("."):
        target = getattr(target, part)
    return target


def test_every_mark_is_its_function_and_is_in_decided_by_once() -> None:
    marks = declared()
    assert marks  # the single-message checks are marked
    for rule, names in marks.items():
        assert len(names) == len(set(names)), rule
        for name in names:
            assert callable(_resolve(name)), name
            assert _deciders.DECIDED_BY[rule].count(name) == 1, (rule, name)
            assert name not in _deciders._SITES.get(rule, ()), (rule, name)


def test_every_checked_rule_has_a_deciding_function() -> None:
    checked = {r.id for r in RULES.values() if r.checked}
    assert checked <= set(_deciders.DECIDED_BY)
    assert all(_deciders.DECIDED_BY[r] for r in checked)


def test_marking_a_function_twice_for_one_rule_raises() -> None:
    def judge() -> None:
        return None

    try:
        decides("X90")(judge)
        with pytest.raises(ValueError, match="already registered"):
            decides("X90")(judge)
    finally:
        _decides._DECLARED.pop("X90", None)


def test_a_mark_also_listed_in_sites_raises(monkeypatch: pytest.MonkeyPatch) -> None:
    name = "acp_core._rules._check_message:plan_path_finding"
    monkeypatch.setitem(_deciders._SITES, "R78", (name,))  # type: ignore[index]
    with pytest.raises(ValueError, match="both marked and listed"):
        _deciders._collected()


def test_decides_needs_a_rule() -> None:
    with pytest.raises(ValueError, match="at least one"):
        decides()
