"""Smoke tests of the benchmark harness: workloads are deterministic and well-formed, and the
implementations it compares compute the same session. No timing here (see benchmarks/)."""

from __future__ import annotations

import gc
import json
import sys
from pathlib import Path

import pytest

sys.path.insert(0, str(Path(__file__).resolve().parent.parent))

import acp_core
from benchmarks import sdk_adapter, workloads
from benchmarks.floor import (
    floor_message_text,
    floor_terminal_bytes,
    fold_floor,
    new_floor_state,
)
from benchmarks.run import cross_check

SID = workloads.SESSION_ID


def tiny() -> list[workloads.Workload]:
    return [
        workloads.stream("stream_tiny", 50),
        workloads.mixed(600),
        workloads.many_tools(20),
        workloads.terminal(120),
    ]


def test_workloads_are_deterministic() -> None:
    for a, b in zip(tiny(), tiny(), strict=True):
        assert a.v2 == b.v2
        assert a.v1 == b.v1


def test_workloads_have_the_documented_sizes() -> None:
    assert len(workloads.stream_small().v2) == 1_000
    assert len(workloads.mixed(3_000).v2) == 3_000
    assert len(workloads.many_tools(25).v2) == 100
    assert workloads.terminal(200).kinds["terminal_output_chunk"] == 200


def test_mixed_has_about_a_fifth_tool_traffic_and_every_kind() -> None:
    wl = workloads.mixed(5_000)
    tool = wl.kinds["tool_call_update"] + wl.kinds["tool_call_content_chunk"]
    assert 0.15 <= tool / 5_000 <= 0.25
    for kind in (
        "user_message",
        "user_message_chunk",
        "agent_message_chunk",
        "agent_thought_chunk",
        "plan_update",
        "usage_update",
        "state_update",
        "session_info_update",
        "available_commands_update",
    ):
        assert wl.kinds.get(kind, 0) > 0, kind


def test_every_v2_event_decodes_strictly() -> None:
    for wl in tiny():
        for event in wl.v2:
            acp_core.decode_update(event, strict=True)


def test_events_do_not_share_objects() -> None:
    # Each event is fresh (as json.loads gives it), so no implementation gets shared inputs.
    wl = workloads.stream("s", 20)
    contents = [e["content"] for e in wl.v2]
    assert len({id(c) for c in contents}) == len(contents)


@pytest.mark.parametrize("index", range(4))
def test_acp_core_and_the_floor_agree(index: int) -> None:
    wl = tiny()[index]
    decoded = [acp_core.decode_update(e) for e in wl.v2]
    assert cross_check(wl, decoded) == "agree"


def test_agreement_check_sees_a_difference() -> None:
    wl = workloads.stream("s", 10)
    decoded = [acp_core.decode_update(e) for e in wl.v2[:-1]]  # acp_core misses one chunk
    assert cross_check(wl, decoded) == "DISAGREE on message msg_1"


def test_final_text_matches_the_chunks() -> None:
    wl = workloads.stream("s", 30)
    expected = "".join(e["content"]["text"] for e in wl.v2)
    state = acp_core.fold(acp_core.new_session(SID), map(acp_core.decode_update, wl.v2))
    view = fold_floor(new_floor_state(SID), wl.v2)
    assert acp_core.message_text(state.messages["msg_1"]) == expected
    assert floor_message_text(view, "msg_1") == expected


def test_floor_does_not_mutate_its_input() -> None:
    wl = workloads.many_tools(8)
    before = repr(wl.v2)
    fold_floor(new_floor_state(SID), wl.v2)
    assert repr(wl.v2) == before


def test_terminal_bytes_agree() -> None:
    wl = workloads.terminal(50)
    state = acp_core.fold(acp_core.new_session(SID), map(acp_core.decode_update, wl.v2))
    view = fold_floor(new_floor_state(SID), wl.v2)
    data = acp_core.terminal_bytes(state.terminals["term_1"])
    assert data == floor_terminal_bytes(view, "term_1")
    assert data.startswith(b"running tests\r\n")
    assert state.terminals["term_1"].exited


def test_sdk_sees_the_same_agent_text_when_installed() -> None:
    loaded = sdk_adapter.load()
    if loaded is None:
        pytest.skip("agent-client-protocol (the optional `bench` extra) is not installed")
    notification_cls, accumulator_cls, _ = loaded
    wl = workloads.stream("s", 25)
    assert wl.v1 is not None
    acc = sdk_adapter.decode_apply_public(
        notification_cls, accumulator_cls, sdk_adapter.to_wire(SID, wl.v1)
    )
    text = "".join(c.content.text for c in acc.snapshot().agent_messages)
    assert text == "".join(e["content"]["text"] for e in wl.v2)


def test_harness_runs_end_to_end_without_the_sdk(
    monkeypatch: pytest.MonkeyPatch, capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    # Tiny workloads under the real names; the SDK reported absent. Checks the shape of the
    # report and the JSON, never a timing.
    from benchmarks import run

    def tiny_all(*, quick: bool) -> list[workloads.Workload]:
        return [
            workloads.stream("stream_small", 40),
            workloads.stream("stream_large", 120),
            workloads.mixed(300),
            workloads.many_tools(10),
            workloads.terminal(50),
        ]

    monkeypatch.setattr(run, "build_all", tiny_all)
    monkeypatch.setattr(run.sdk_adapter, "load", lambda: None)
    monkeypatch.setattr(run, "MIN_SAMPLE_S", 0.001)
    out_file = tmp_path / "bench.json"
    md_file = tmp_path / "bench.md"
    assert run.main(["--quick", "--repeats", "1", "--json", str(out_file),
                     "--markdown", str(md_file)]) == 0  # fmt: skip
    printed = capsys.readouterr().out
    assert "python_sdk: not installed" in printed
    assert "DISAGREE" not in printed
    doc = json.loads(out_file.read_text())
    # the import time sits in the report beside the bare interpreter it compares with
    assert set(doc["import_ms"]) >= {"bare interpreter", "import acp_core"}
    # Both are times, so only their presence is asserted: which is larger is the benchmark's
    # finding, and on a loaded machine best-of-N can rank them either way (a timed test).
    assert all(ms > 0 for ms in doc["import_ms"].values())
    assert doc["python_sdk"] is None
    assert set(doc["results"]) == {
        "stream_small",
        "stream_large",
        "mixed",
        "many_tools",
        "terminal",
    }
    for res in doc["results"].values():
        assert set(res) == {"acp_core", "mutable_floor"}
        for key in ("apply", "decode+apply", "reduce_loop"):
            assert res["acp_core"][key] > 0
    assert {t["name"] for t in doc["targets"]} >= {
        "mixed apply vs mutable floor",
        "stream_large: every state over final (B/event)",
    }
    assert all(s["round_trip_equal"] for s in doc["snapshot"].values())
    assert set(doc["split"]["us_per_byte"]) == {"1024", "65536"}
    assert doc["split"]["ratio"] > 0
    assert any(t["name"].startswith("split:") for t in doc["targets"])
    assert "| stream_large | acp_core |" in md_file.read_text()
    # The anchors: each present with a time, or absent with the reason; never a failure.
    anchors_doc = doc["anchors"]
    assert anchors_doc["events"] == 300
    assert anchors_doc["client_connection"]["us_per_event"] > 0
    for name in ("msgspec", "ts_sdk"):
        entry = anchors_doc[name]
        assert ("absent" in entry) != ("us_per_event" in entry), entry
        if "absent" in entry:
            assert entry["absent"]
            assert anchors_doc[f"{name}_over_connection"] is None
        else:
            assert entry["us_per_event"] > 0
            assert anchors_doc[f"{name}_over_connection"] > 0
    ts_target = next(t for t in doc["targets"] if "TS SDK" in t["name"])
    assert ts_target["met"] is None if "absent" in anchors_doc["ts_sdk"] else ts_target["value"]
    assert "Anchors, the `mixed` bytes" in md_file.read_text()


def test_absent_anchors_are_reported_with_the_reason(monkeypatch: pytest.MonkeyPatch) -> None:
    from benchmarks import anchors, bytes_phase, run

    monkeypatch.setattr(anchors, "ts_sdk_absent", lambda: "node not found on PATH")
    reads = bytes_phase.ndjson_reads(SID, workloads.mixed(40).v2)
    connection = {"bytes_connection": 1e5, "bytes_connection_median": 1e5,
                  "bytes_connection_cpu": 1e5}  # fmt: skip
    found = run.anchors_result(connection, "msgspec not installed", [], reads, 1)
    assert found["events"] == 40
    assert found["msgspec"] == {"absent": "msgspec not installed"}
    assert found["ts_sdk"] == {"absent": "node not found on PATH"}
    assert found["msgspec_over_connection"] is None is found["ts_sdk_over_connection"]
    rows = run.anchor_rows(found)
    assert ["TypeScript SDK validated path (Node)", "absent", "", "node not found on PATH"] in rows


def test_the_anchors_read_every_line_of_the_same_bytes() -> None:
    from benchmarks import anchors, bytes_phase

    wl = workloads.mixed(300)
    reads = bytes_phase.ndjson_reads(SID, wl.v2)
    found = anchors.msgspec_decoder()
    if isinstance(found, str):
        assert "msgspec not installed" in found
    else:
        decoded = anchors.msgspec_bytes(found[0], reads)
        assert len(decoded) == 300
        kinds = {type(n.params.update).__name__ for n in decoded}
        assert {"AgentChunk", "ToolCallUpdate", "ToolContentChunk", "PlanUpdate"} <= kinds
        text = next(n for n in decoded if type(n.params.update).__name__ == "AgentChunk")
        assert text.params.update.content.text == next(
            u["content"]["text"] for u in wl.v2 if u["sessionUpdate"] == "agent_message_chunk"
        )
    ts = anchors.ts_sdk(reads, 1)
    if "absent" in ts:
        assert ts["absent"] == anchors.ts_sdk_absent()
    else:  # the SDK validated every update of the mixed workload and kept every message
        assert ts["events"] == 300
        assert ts["refused"] == 0
        assert ts["messages"] == len({u["messageId"] for u in wl.v2 if "messageId" in u})
        assert ts["us_per_event"] > 0


def test_the_bytes_phase_readers_build_the_same_session_as_decode_and_fold() -> None:
    from benchmarks import bytes_phase

    for wl in tiny():
        reads = bytes_phase.ndjson_reads(SID, wl.v2)
        assert b"".join(reads).count(b"\n") == len(wl.v2)
        expected = acp_core.fold(acp_core.new_session(SID), map(acp_core.decode_update, wl.v2))
        assert bytes_phase.acp_bytes(SID, reads)[SID] == expected
        conn = bytes_phase.acp_connection(bytes_phase.open_client(SID), reads)
        assert conn.engine(SID).session == expected
        floor = bytes_phase.floor_bytes(SID, reads)[SID]
        assert floor == fold_floor(new_floor_state(SID), wl.v2)


def test_the_split_phase_feeds_one_line_a_byte_at_a_time() -> None:
    from benchmarks import split_phase

    pieces = split_phase.line_pieces(1024)
    assert len(pieces) == 1025
    assert set(map(len, pieces)) == {1}
    assert split_phase.feed_pieces(pieces) == (acp_core.Parsed("x" * 1022),)


def test_the_remote_benchmark_streams_every_update_on_every_transport() -> None:
    import anyio

    from benchmarks import remote

    lines: list[str] = []
    # measure() asserts each turn's view holds every update, in order, on every transport
    rates = anyio.run(remote.measure, 30, 1, lines.append)
    assert set(rates) == {"stdio", "http", "ws"}
    assert all(len(r) == 1 and r[0] > 0 for r in rates.values())
    assert len(lines) == 1
    assert lines[0].startswith("round 1/1: stdio ")


def test_the_incremental_check_benchmark_feeds_a_growing_recording(
    capsys: pytest.CaptureFixture[str],
) -> None:
    from benchmarks import incremental_check

    assert incremental_check.main(["--sessions", "3", "6"]) == 0
    out = json.loads(capsys.readouterr().out)
    assert set(out["feed_us"]) == {"3", "6"}
    # The recording it builds is a clean one: what it times is the checker's bookkeeping.
    entries = incremental_check._SETUP + incremental_check.sessions(0, 6)
    assert acp_core.check_trace(entries, revision=acp_core.V2_PREVIEW) == ()


def test_the_long_stream_benchmark_reports_tenths_and_tracked_objects() -> None:
    from benchmarks import long_stream

    data = long_stream.run_here(2_000, ["reduce", "fold"], ["default", "freeze"])
    assert [(r["path"], r["host"]) for r in data["results"]] == [
        ("reduce", "default"),
        ("reduce", "freeze"),
        ("fold", "default"),
        ("fold", "freeze"),
    ]
    for r in data["results"]:
        assert len(r["us_per_event_by_tenth"]) == 10
        assert all(us > 0 for us in r["us_per_event_by_tenth"])
        # what the state holds, whatever the host did with the collector: since the timeline
        # and tool content are kept packed too (tests/test_packed_entries.py) about 0.53
        # (0.9 before; 1.0-1.8 before finished messages kept plain text as strings). A host
        # that freezes moves packed runs not yet seen by a collection to the permanent
        # generation, where CPython never untracks them (nor walks them): 0.63 alone on
        # `fold` (before, 0.94 alone and 1.02 inside the whole suite, where collections
        # fall elsewhere).
        limit = 0.7 if r["host"] == "default" else 0.9
        assert 0.3 < r["tracked_per_event"] <= limit
        assert r["tracked_types_per_event"].get("TextContent", 0) < 0.2
    assert gc.get_freeze_count() == 0  # the benchmark leaves nothing frozen behind


def test_the_long_stream_benchmark_runs_the_floor_under_the_same_hosts() -> None:
    # The floor beside acp_core, same events, same hosts: whether the last tenth's rise is the
    # collector's (the floor's rises too) or the core's is read off one run.
    from benchmarks import long_stream

    data = long_stream.run_here(2_000, ["floor"], ["default", "freeze"])
    assert [(r["path"], r["host"]) for r in data["results"]] == [
        ("floor", "default"),
        ("floor", "freeze"),
    ]
    for r in data["results"]:
        assert len(r["us_per_event_by_tenth"]) == 10
        assert all(us > 0 for us in r["us_per_event_by_tenth"])
        # the floor keeps plain dicts and lists (about 0.35 tracked an event at 10^6): a
        # path that folded nothing would keep none
        assert 0.1 < r["tracked_per_event"] < 1.0
        assert set(r["tracked_types_per_event"]) <= {"dict", "list", "set", "tuple"}  # no acp_core
    assert gc.get_freeze_count() == 0


def test_the_replay_window_benchmark_measures_live_and_replayed_traffic() -> None:
    from benchmarks import replay_window

    out = replay_window.measure(1)
    assert sorted(out) == ["live", "replay"]
    assert all(us > 0 for us in out.values())
