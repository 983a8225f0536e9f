"""`acp_core.explore`: the default alphabet finds nothing, shards change nothing, the CLI.

The planted bugs it must find are in tests/test_explore_mutants.py.
"""

from __future__ import annotations

import argparse
import json
import sys
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path
from typing import Any

import pytest

import acp_core as acp
from acp_core.__main__ import main
from acp_core._research._explore_model import initial_node, successors
from acp_core._rules._check import IncrementalCheck
from acp_core.explore import ACTION_NAMES, explore, explore_levels


@pytest.mark.parametrize(
    "revision", [acp.V2_2026_08, acp.V2_2026_11, acp.V2_PREVIEW], ids=lambda r: r.name
)
def test_the_default_alphabet_breaks_no_rule(revision: acp.Revision) -> None:
    result = explore(revision=revision, depth=6, sessions=1)
    assert result.depth == 6
    assert result.violations == ()
    assert result.states > 100
    assert result.transitions >= result.states - 1


def test_two_sessions_break_no_rule() -> None:
    assert explore(depth=4, sessions=2).violations == ()


def test_levels_grow_and_deduplicate() -> None:
    levels = list(explore_levels(depth=5))
    assert [lv.depth for lv in levels] == [1, 2, 3, 4, 5]
    states = [lv.states for lv in levels]
    assert states == sorted(states)
    # Deduplication: interleavings that commute meet in one state.
    assert levels[-1].transitions > levels[-1].states


def test_shards_give_the_same_result_as_one() -> None:
    one = explore(depth=5, sessions=2)
    assert explore(depth=5, sessions=2, shards=3) == one


def test_local_processes_give_the_same_result_as_one() -> None:
    one = explore(depth=4, sessions=2)
    with ProcessPoolExecutor(2) as pool:
        many = explore(
            depth=4, sessions=2, shards=2, map_shards=lambda fn, tasks: list(pool.map(fn, tasks))
        )
    assert many == one


def test_a_named_run_remembers_reached_states_and_changes_nothing(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # With `run`, a shard sends back a successor its process reached at an earlier level as
    # a count; shards in this process, in any order and any number, give the same result,
    # violations (and their shortest paths) included.
    from test_explore_mutants import _wire_mutant, no_running

    one = explore(depth=6, sessions=2)
    assert explore(depth=6, sessions=2, shards=5, run="a") == one
    _wire_mutant(monkeypatch, no_running)
    broken = explore(depth=6)
    assert broken.violations

    def backwards(fn: Any, tasks: list[Any]) -> list[Any]:
        return [fn(t) for t in tasks[::-1]][::-1]

    assert explore(depth=6, shards=4, map_shards=backwards, run="b") == broken


def test_the_cli_s_local_processes_give_the_same_result_as_one() -> None:
    # What `--workers 2` runs: this process takes shards from the front of each level, a
    # process from the back; results come back packed (new lines only) and pickled.
    from acp_core.__main__ import _map_shards, new_run_id
    from acp_core._cli._explore_cli import shards_for

    for revision in (acp.V2_2026_08, acp.V2_PREVIEW):
        one = explore(revision=revision, depth=5, sessions=1)
        with _map_shards(2, "local", None) as map_shards:
            many = explore(
                revision=revision,
                depth=5,
                shards=shards_for(2, "local"),
                map_shards=map_shards,
                run=new_run_id(),
            )
        assert many == one


def test_packed_expansions_unpack_to_what_was_expanded() -> None:
    import pickle

    from acp_core.explore import Options, expand_shard, pack_expansions, unpack_expansions

    nodes = [initial_node(acp.V2_PREVIEW, 1)]
    for _ in range(3):
        nodes = [n for _, n in successors(nodes[0], 1)] + nodes[1:]
    task = (Options(acp.V2_PREVIEW.name, 1), nodes)
    expanded = expand_shard(task)
    unpacked = unpack_expansions(task, pickle.loads(pickle.dumps(pack_expansions(task, expanded))))
    assert unpacked == expanded  # states, recordings, paths and violations
    full = [[(label, n, v) for label, n, v in e] for e in expanded]
    assert len(pickle.dumps(pack_expansions(task, expanded))) < len(pickle.dumps(full))


def test_a_registered_revision_pickles_as_itself() -> None:
    # Explore's workers get the registry's object back (the checker caches per revision by
    # identity); an unregistered revision travels by value.
    import pickle

    import attrs

    for revision in acp.REVISIONS.values():
        assert pickle.loads(pickle.dumps(revision)) is revision
    custom = attrs.evolve(acp.V2_2026_08, name="2099-01")
    assert pickle.loads(pickle.dumps(custom)) == custom


def test_the_symmetry_reduction_keeps_fewer_states_and_the_same_verdict() -> None:
    # 2026-08: no child, so the sessions are alike (the Preview's sess_1 alone has one)
    old = acp.V2_2026_08
    full = explore(revision=old, depth=5, sessions=2)
    reduced = explore(revision=old, depth=5, sessions=2, symmetry=True)
    assert full.violations == reduced.violations == ()
    assert full.depth == reduced.depth == 5
    assert reduced.states < full.states
    # One session has nothing to mirror.
    assert explore(revision=old, depth=5, symmetry=True) == explore(revision=old, depth=5)
    assert explore(revision=old, depth=5, sessions=2, symmetry=True, shards=3) == reduced
    with pytest.raises(acp.ArgumentError, match="child"):
        explore(revision=acp.V2_PREVIEW, depth=1, sessions=2, symmetry=True)


def test_a_restricted_alphabet_is_checked() -> None:
    assert "deliver" in ACTION_NAMES
    with pytest.raises(acp.ArgumentError):
        explore(depth=1, actions=("fly",))
    small = explore(depth=6, actions=("prompt", "deliver"))
    assert small.states < explore(depth=6).states


def test_cli_json(tmp_path: Path, capsys: pytest.CaptureFixture[str]) -> None:
    status = main(["explore", "--depth", "4", "--json", "--out", str(tmp_path)])
    summary: dict[str, Any] = json.loads(capsys.readouterr().out)
    assert status == 0
    assert summary["violations"] == []
    assert summary["depth"] == 4
    assert summary["states"] == explore(depth=4).states
    assert summary["transitions"] == explore(depth=4).transitions


def test_cli_writes_a_counterexample_check_and_replay_accept(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str]
) -> None:
    from test_explore_mutants import _wire_mutant, no_running

    _wire_mutant(monkeypatch, no_running)
    status = main(["explore", "--depth", "5", "--json", "--out", str(tmp_path)])
    summary = json.loads(capsys.readouterr().out)
    assert status == 1
    (violation,) = [
        v for v in summary["violations"] if v["rule"] == summary["violations"][0]["rule"]
    ]
    trace = Path(violation["trace"])
    assert trace.exists()
    assert trace.with_suffix(".html").exists()
    monkeypatch.undo()
    assert main(["check", str(trace)]) == 1
    assert violation["rule"] in capsys.readouterr().out
    assert main(["replay", str(trace)]) in (0, 1)


TRACES = sorted((Path(__file__).resolve().parent / "traces").glob("*.jsonl"))


@pytest.mark.parametrize("path", TRACES, ids=lambda p: p.stem)
def test_a_check_extended_in_stretches_equals_check_trace(path: Path) -> None:
    # explore judges each successor by extending its parent's IncrementalCheck: it gives what
    # check_trace gives for the whole recording, wherever the recording is cut, and leave
    # the check it extends as it was.
    entries = [json.loads(line) for line in path.read_text(encoding="utf-8").splitlines()]
    revision = acp.V2_2026_11 if "_v2026-11_" in path.name else acp.V2_2026_08
    whole = acp.check_trace(entries, revision=revision)
    for cut in range(len(entries) + 1):
        first = IncrementalCheck.start(revision).feed_all(entries[:cut])
        before = first.finish()
        assert first.feed_all(entries[cut:]).finish() == whole
        assert first.finish() == before == acp.check_trace(entries[:cut], revision=revision)


def test_the_preview_alphabet_has_the_child() -> None:
    from acp_core._research._explore_model import initial_node, successors

    root = initial_node(acp.V2_PREVIEW, 1)
    first = dict(successors(root, 1))
    assert "announce sess_1" in first
    assert "child sess_1" in dict(successors(first["announce sess_1"], 1))
    assert "announce sess_1" not in dict(successors(initial_node(acp.V2_2026_11, 1), 1))


def test_cli_seconds_stops_inside_a_level(capsys: pytest.CaptureFixture[str]) -> None:
    # A clock that moves one second a look: the budget runs out in the middle of a level,
    # which is dropped; the depth reported is the last completed one, with its counts.
    from contextlib import nullcontext

    from acp_core._cli import _explore_cli

    parser = argparse.ArgumentParser()
    _explore_cli.configure(parser)
    args = parser.parse_args(["--depth", "20", "--seconds", "40", "--json"])
    ticks = iter(range(10**6))
    status = _explore_cli.run(
        args,
        sys.stdout,
        lambda: float(next(ticks)),
        lambda name, example: name,
        lambda workers, executor, scheduler: nullcontext(lambda fn, tasks: [fn(t) for t in tasks]),
    )
    summary = json.loads(capsys.readouterr().out)
    assert status == 0
    assert 0 < summary["depth"] < 20
    assert summary["stopped"] == "seconds"
    assert summary["states"] == explore(depth=summary["depth"]).states


def test_a_child_re_announced_in_a_resume_with_replay_is_replayed_there() -> None:
    # Found by explore at the Preview, depth 7: the checker opened a child's replay window
    # only at the child's first announcement, so the re-announced child's own marker (R60,
    # R61) was reported as R58. The path, replayed; both recordings are clean.
    from acp_core.explore import judged

    path = (
        "close sess_1",
        "announce sess_1",
        "deliver>agent",
        "deliver>client",
        "deliver>client",
        "resume sess_1",
        "deliver>agent",
    )
    node, found = judged(None, initial_node(acp.V2_PREVIEW, 1), acp.V2_PREVIEW)
    for label in path:
        node, found = judged(node, dict(successors(node, 1))[label], acp.V2_PREVIEW)
        assert found == (), (label, found)
    assert any(
        e["message"].get("params", {}).get("update", {}).get("sessionUpdate") == "replay_complete"
        and e["message"]["params"]["sessionId"] == "sess_1.child"
        for e in node.recording.agent_trace()
    )


def _walk(revision: acp.Revision, *labels: str) -> Any:
    node = initial_node(revision, 1)
    for label in labels:
        node = dict(successors(node, 1))[label]
    return node


def test_retry_resends_the_oldest_unanswered_keyed_prompt_once() -> None:
    # Issue 14's "retry with the same key", at the Preview only (keys are a Preview field).
    sent = _walk(acp.V2_PREVIEW, "prompt sess_1")
    assert "retry sess_1" not in dict(successors(sent, 1))  # FIFO: wait for the line in flight
    arrived = _walk(acp.V2_PREVIEW, "prompt sess_1", "deliver>agent")
    retried = dict(successors(arrived, 1))["retry sess_1"]
    first, retry = (json.loads(line) for _, line in retried.recording.client[-2:])
    assert retry["params"] == first["params"]
    assert retry["params"]["idempotencyKey"] == first["params"]["idempotencyKey"]
    assert retry["id"] != first["id"]
    done = dict(successors(retried, 1))["deliver>agent"]
    assert "retry sess_1" not in dict(successors(done, 1))  # at most once per submission
    inserted = _walk(acp.V2_PREVIEW, "prompt sess_1", "deliver>agent", "accept sess_1")
    assert "retry sess_1" in dict(successors(inserted, 1))  # its answer is still in flight
    answered = dict(successors(inserted, 1))["deliver>client"]  # the answer comes first
    assert "retry sess_1" not in dict(successors(answered, 1))  # answered: nothing to retry
    older = _walk(acp.V2_2026_11, "prompt sess_1", "deliver>agent")
    assert "retry sess_1" not in dict(successors(older, 1))  # no key before the Preview
