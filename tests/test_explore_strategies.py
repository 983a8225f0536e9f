"""The public strategies that reach interesting states (`acp_core.strategies`): update
sequences over small id pools, the states they fold to, whole traces at a revision, and the
intents valid in a pair state. Each promise is checked, and each can fail: the pools are
honoured, entities are hit twice, traces break no MUST rule, enabled intents step."""

from __future__ import annotations

from typing import Any

import pytest
from hypothesis import Phase, given, settings
from hypothesis import find as _find
from hypothesis import strategies as st

import acp_core as acp
from acp_core import strategies as acps
from acp_core._engines._connection import connection_step
from acp_core.explore import ACTION_NAMES

# Derandomized: a search over 30 update variants must not pass or fail by luck.
_SEARCH = settings(phases=[Phase.generate], database=None, max_examples=1000, derandomize=True)
POOLS = acps.IdPools(messages=("m1", "m2"), tool_calls=("t1",), terminals=("x1",), plans=("p1",))


def _ids(update: Any) -> list[str]:
    out = [getattr(update, f, None) for f in ("message_id", "tool_call_id", "terminal_id")]
    plan = getattr(update, "plan", None)
    out.append(getattr(plan, "plan_id", None))
    return [i for i in out if isinstance(i, str)]


@settings(max_examples=60, deadline=None)
@given(acps.update_sequences(pools=POOLS, revision=acp.V2_2026_11))
def test_update_sequences_draw_ids_from_the_pools(updates: tuple[Any, ...]) -> None:
    allowed = {"m1", "m2", "t1", "x1", "p1"}
    for update in updates:
        assert set(_ids(update)) <= allowed
        # still a value the codec takes back unchanged
        wire = acp.encode_update(update)
        assert acp.decode_update(wire, revision=acp.V2_2026_11) == update


def test_update_sequences_hit_an_entity_twice() -> None:
    def tool_call_patched(updates: tuple[Any, ...]) -> bool:
        calls = [x for x in updates if isinstance(x, acp.ToolCallUpdate)]
        return len(calls) >= 2 and len({c.tool_call_id for c in calls}) == 1

    _find(acps.update_sequences(pools=POOLS), tool_call_patched, settings=_SEARCH)


def test_session_states_reach_a_message_built_from_several_updates() -> None:
    state = _find(
        acps.session_states(pools=POOLS),
        lambda s: any(len(m.content) >= 2 for m in s.messages.values()),
        settings=_SEARCH,
    )
    assert state.session_id == "sess_1"


@pytest.mark.parametrize("revision", [acp.V2_2026_08, acp.V2_2026_11], ids=lambda r: r.name)
@pytest.mark.parametrize("side", ["client", "agent"])
def test_traces_break_no_must_rule(revision: acp.Revision, side: str) -> None:
    @settings(max_examples=20, deadline=None)
    @given(acps.traces(revision=revision, sessions=2, max_steps=14, side=side))
    def prop(trace: tuple[Any, ...]) -> None:
        assert trace[0]["message"]["method"] == "initialize"
        found = acp.check_trace(list(trace), revision=revision, side=side)  # type: ignore[arg-type]
        assert [v for v in found if v.mandatory] == []

    prop()


_ONLY = ("prompt", "accept", "text", "end", "deliver")


@settings(max_examples=25, deadline=None)
@given(acps.pair_runs(max_steps=16, actions=_ONLY))
def test_pair_runs_take_only_the_actions_named(run: acps.PairRun) -> None:
    # As explore_levels(actions=...): the alphabet restricted to these names.
    names = {label.split(" ")[0].split(">")[0] for label in run.path}
    assert names <= set(_ONLY)


def test_pair_runs_actions_reach_what_they_name_and_refuse_unknown_names() -> None:
    run = _find(
        acps.pair_runs(
            max_steps=16, actions=("prompt", "deny", "ask", "accept", "tool", "deliver")
        ),
        lambda r: any(label.startswith("deny") for label in r.path),
        settings=settings(database=None, max_examples=400, phases=[Phase.generate]),
    )
    assert any(label.startswith("deny") for label in run.path)  # deny: the strategies' own
    trace = _find(
        acps.traces(max_steps=8, actions=("prompt", "deliver")),
        lambda t: len(t) > 4,
        settings=settings(database=None, max_examples=200, phases=[Phase.generate]),
    )
    assert {e["message"].get("method") for e in trace} <= {
        "initialize",
        "session/new",
        "session/prompt",
        None,
    }
    with pytest.raises(acp.ArgumentError, match="actions"):
        acps.pair_runs(actions=("prompt", "dance"))
    with pytest.raises(acp.ArgumentError, match="actions"):
        acps.traces(actions=("fly",))


def test_traces_side_is_checked() -> None:
    with pytest.raises(acp.ArgumentError, match="proxy"):
        acps.traces(side="proxy")


@settings(max_examples=25, deadline=None)
@given(st.data(), acps.pair_runs(sessions=2, max_steps=10))
def test_enabled_intents_step(data: st.DataObject, run: acps.PairRun) -> None:
    chosen = data.draw(acps.enabled_intents(run.state, sessions=2))
    conn = run.state.agent if chosen.side == "agent" else run.state.client
    step = connection_step(conn, chosen.intent)  # never an AcpError
    assert step.connection is not conn
    assert chosen.label.split()[0] in ACTION_NAMES
