"""`acp_core.strategies` keeps its promises: optional, and drawing what the docs say it draws.

The codec tests (laws, schema, totality, immutability) use the strategies as inputs; these
tests check the strategies themselves: hypothesis is never imported by `import acp_core`,
tri-state fields reach all three states, open enums reach known, extension and future values,
unknown tags and `extra` keys never collide with known ones, and the wire dicts are JSON.
"""

from __future__ import annotations

import json
import subprocess
import sys
from collections.abc import Callable
from typing import Any, TypeVar

import pytest
from hypothesis import Phase, given, settings
from hypothesis import find as _find
from hypothesis import strategies as st

import acp_core as acp
from acp_core import strategies as acps

T = TypeVar("T")

# Only "can it be drawn?" matters here: search, do not shrink what was found.
_SEARCH_ONLY = settings(phases=[Phase.generate], database=None, max_examples=500)


def find(strategy: st.SearchStrategy[T], condition: Callable[[T], bool]) -> T:
    """The first drawn example satisfying `condition` (fails if none in 500 draws)."""
    return _find(strategy, condition, settings=_SEARCH_ONLY)


def test_importing_acp_core_does_not_import_hypothesis() -> None:
    code = "import sys, acp_core; sys.exit('hypothesis' in sys.modules)"
    assert subprocess.run([sys.executable, "-c", code], check=False).returncode == 0


#: Prints whether hypothesis is loaded after importing acp_core.strategies and reading every
#: public name, and after building one strategy.
TOUCH_THEN_BUILD = """
import sys
import acp_core.strategies as acps
names = [getattr(acps, name) for name in acps.__all__]
touched = "hypothesis" in sys.modules
strategy = acps.session_updates()
print(touched, "hypothesis" in sys.modules, type(strategy).__module__.split(".")[0])
"""


def test_touching_the_strategies_does_not_import_hypothesis_building_one_does() -> None:
    run = subprocess.run(
        [sys.executable, "-c", TOUCH_THEN_BUILD], capture_output=True, text=True, check=True
    )
    assert run.stdout.split() == ["False", "True", "hypothesis"]


def test_the_lazy_strategies_module_is_hypothesis_own() -> None:
    from hypothesis import strategies

    from acp_core._research._hypothesis import st as lazy

    assert lazy.text is strategies.text
    assert lazy.composite is strategies.composite
    assert isinstance(acps.pair_runs(), strategies.SearchStrategy)


def test_building_a_strategy_without_hypothesis_names_the_extra(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    from acp_core._research import _hypothesis

    monkeypatch.setitem(sys.modules, "hypothesis", None)  # `import hypothesis` now fails
    fresh = _hypothesis._Strategies()
    with pytest.raises(ImportError, match=r"install acp-core\[strategies\]"):
        fresh.text  # noqa: B018  (the read is what is tested)


def test_patch_fields_draw_absent_null_and_values() -> None:
    updates = acps.tool_call_updates()
    assert find(updates, lambda u: u.title is acp.UNSET).title is acp.UNSET
    assert find(updates, lambda u: u.title is None).title is None
    assert isinstance(find(updates, lambda u: isinstance(u.title, str)).title, str)


def test_open_enums_draw_known_extension_and_future_values() -> None:
    kinds = acps.open_enum_values(acp.ToolKind.KNOWN)
    assert find(kinds, lambda k: k in acp.ToolKind.KNOWN) in acp.ToolKind.KNOWN
    assert find(kinds, lambda k: k.startswith("_")).startswith("_")
    future = find(kinds, lambda k: k not in acp.ToolKind.KNOWN and not k.startswith("_"))
    assert future not in acp.ToolKind.KNOWN


def test_unknown_variants_are_drawn() -> None:
    other_state = find(acps.state_updates(), lambda u: isinstance(u, acp.OtherStateUpdate))
    assert isinstance(other_state, acp.OtherStateUpdate)
    assert other_state.state not in acp.ForegroundState.KNOWN
    other_block = find(acps.content_blocks(), lambda b: isinstance(b, acp.OtherContent))
    assert isinstance(other_block, acp.OtherContent)


@given(acps.other_updates())
def test_an_unknown_update_never_carries_a_known_tag(update: acp.OtherUpdate) -> None:
    assert isinstance(acp.decode_update(acp.encode_update(update)), acp.OtherUpdate)


_WORDS = sorted(acp.ToolKind.KNOWN | acp.StopReason.KNOWN | {"notice", "paused", "error"})


@given(st.data())
def test_an_unknown_tag_is_never_a_known_one(data: st.DataObject) -> None:
    known = data.draw(st.sets(st.sampled_from(_WORDS), min_size=1), label="known")
    tag = data.draw(acps.unknown_tags(known), label="tag")
    assert tag
    assert tag not in known


@given(acps.extras())
def test_extra_keys_are_never_wire_keys(extra: acp.JsonObject) -> None:
    assert all(key.startswith(("_x", "zz")) for key in extra)


@given(acps.other_plans())
def test_unknown_plans_carry_a_plan_id_and_avoid_reserved_types(plan: acp.OtherPlan) -> None:
    assert isinstance(plan.plan_id, str)
    assert plan.type not in {"items", "file", "markdown"}


def test_reserved_plan_types_are_drawn_only_when_tolerated() -> None:
    plan = find(acps.other_plans(tolerated=True), lambda p: p.type in {"file", "markdown"})
    assert plan.type in {"file", "markdown"}


@given(acps.wire_messages())
def test_wire_dicts_are_plain_json(wire: dict[str, Any]) -> None:
    assert json.loads(json.dumps(wire)) == wire
