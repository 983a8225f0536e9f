"""`python -m acp_core replay`: output, JSON shapes, exit codes and the error path.

The main shapes and one error run as a user would (subprocess); the many small cases call
the same `main(argv)` in-process, because starting Python costs about a second each here.
"""

from __future__ import annotations

import contextlib
import io
import json
import subprocess
import sys
from pathlib import Path
from typing import Any
from unittest import mock

import pytest

import acp_core as acp
from acp_core.__main__ import main
from acp_core._cli._cli_demo import demo_conversation, trace_lines

ROOT = Path(__file__).resolve().parents[1]
V1_TRACES = Path(__file__).resolve().parent / "v1_traces"


def run(*args: str, stdin: str | None = None) -> subprocess.CompletedProcess[str]:
    return subprocess.run(
        [sys.executable, "-m", "acp_core", "replay", *args],
        capture_output=True,
        text=True,
        input=stdin,
        cwd=ROOT,
        timeout=60,
        check=False,
    )


def call(*args: str, stdin: str = "") -> tuple[int, str, str]:
    """`python -m acp_core replay ARGS` in-process: (exit status, stdout, stderr)."""
    out, err = io.StringIO(), io.StringIO()
    with (
        contextlib.redirect_stdout(out),
        contextlib.redirect_stderr(err),
        mock.patch("sys.stdin", io.StringIO(stdin)),
    ):
        try:
            status = main(["replay", *args])
        except SystemExit as e:  # argparse usage errors
            status = int(e.code or 0)
    return status, out.getvalue(), err.getvalue()


@pytest.fixture(scope="module")
def demo_file(tmp_path_factory: pytest.TempPathFactory) -> Path:
    path = tmp_path_factory.mktemp("replay") / "demo.jsonl"
    path.write_text(trace_lines(demo_conversation().entries))
    return path


def _line(entry: dict[str, Any]) -> str:
    return json.dumps(entry) + "\n"


def _update(session_id: str, update: dict[str, Any]) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "method": "session/update"}
    return {
        "from": "agent",
        "message": message | {"params": {"sessionId": session_id, "update": update}},
    }


def _chunk(session_id: str, message_id: str, text: str) -> dict[str, Any]:
    return _update(
        session_id,
        {
            "sessionUpdate": "agent_message_chunk",
            "messageId": message_id,
            "content": {"type": "text", "text": text},
        },
    )


# -- what it shows (as a user runs it) ------------------------------------------------------


def test_without_a_file_it_replays_the_packaged_example() -> None:
    r = run()
    assert r.returncode == 0, r.stderr
    assert r.stderr == ""
    demo = demo_conversation()
    assert acp.render_session(demo.client.session) in r.stdout


def test_json_maps_each_session_to_the_snapshot_of_its_fold(demo_file: Path) -> None:
    r = run("--json", str(demo_file))
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    assert list(doc) == ["sess_demo"]
    # folding the recording gives exactly the session both engines built live
    assert acp.restore(doc["sess_demo"]) == demo_conversation().client.session


def test_steps_json_has_one_line_per_trace_line_with_what_it_changed(demo_file: Path) -> None:
    r = run("--steps", "--json", str(demo_file))
    assert r.returncode == 0, r.stderr
    *steps, last = [json.loads(line) for line in r.stdout.splitlines()]
    entries = demo_conversation().entries
    assert [s["index"] for s in steps] == list(range(len(entries)))
    assert [s["from"] for s in steps] == [e["from"] for e in entries]
    session = acp.new_session("sess_demo")
    for step, entry in zip(steps, entries, strict=True):
        method = entry["message"].get("method")
        changes = method in ("session/update", "session/request_permission")
        assert bool(step["updates"]) == changes, entry
        for item in step["updates"]:
            assert item["sessionId"] == "sess_demo"
            session = acp.reduce(session, acp.decode_update(item["update"]))
    # the changes, folded, are the session both engines built live, and the final line says so
    assert session == demo_conversation().client.session
    assert acp.restore(last["final"]["sess_demo"]) == session
    assert last["pending"] == {}
    asked = [s for s in steps if "asked" in s]
    (answered,) = [s for s in steps if "answered" in s]
    assert [s["asked"] for s in asked] == [
        [
            {
                "sessionId": "sess_demo",
                "requestId": 0,
                "kind": "permission",
                "label": "Run `ls` in /home/user/project?",
            }
        ]
    ]
    assert answered["answered"] == asked[0]["asked"]
    assert answered["from"] == "client"


def test_steps_output_is_the_changes_not_whole_states() -> None:
    # A long streamed message: every step prints its own chunk, not the message so far.
    chunks = 400
    trace = "".join(_line(_chunk("s1", "m1", f"word{i} ")) for i in range(chunks))
    status, out, _ = call("--steps", "-", stdin=trace)
    assert status == 0
    steps, final = out.split("=== final state\n")
    assert steps.count("--- line index ") == chunks
    assert steps.count("word1 ") == 1  # printed once, by its own step
    assert (
        's1: agent_message_chunk {"messageId":"m1","content":{"type":"text","text":"word7 "}}'
        in steps
    )
    assert len(steps) < 200 * chunks
    assert "".join(f"word{i} " for i in range(chunks)).strip() in final


def test_pending_v1_requests_are_shown_like_v2_ones() -> None:
    path = str(V1_TRACES / "pending_requests.jsonl")
    status, out, _ = call(path)
    assert status == 0
    assert "awaiting permission: rm -rf build (request 30)" in out
    assert "awaiting input: Also delete dist/? (request 31)" in out
    status, out, _ = call("--steps", "--json", path)
    *steps, last = [json.loads(line) for line in out.splitlines()]
    assert [w["requestId"] for s in steps for w in s.get("asked", ())] == [30, 31]
    assert [w["kind"] for w in last["pending"]["sess_wait"]] == ["permission", "input"]
    # answered ones are not listed
    status, out, _ = call(str(V1_TRACES / "elicitation.jsonl"))
    assert "awaiting" not in out


def test_protocol_1_goes_through_the_v1_normalizer() -> None:
    path = V1_TRACES / "cancel.jsonl"
    r = run("--protocol", "1", "--json", str(path))
    assert r.returncode == 0, r.stderr
    doc = json.loads(r.stdout)
    entries = [json.loads(line) for line in path.read_text().splitlines() if line.strip()]
    result = acp.normalize_v1(entries)
    assert list(doc) == list(result.session_ids)
    for session_id in result.session_ids:
        expected = acp.fold(acp.new_session(session_id), result.updates_for(session_id))
        assert acp.restore(doc[session_id]) == expected


def test_a_malformed_file_as_a_user_sees_it(tmp_path: Path) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(_GOOD + "\n" + '{"from": "agent", "message": {"jsonrpc": "2.0", "id": }\n')
    r = run(str(path))
    assert (r.returncode, r.stdout) == (2, "")
    assert r.stderr == (
        f"acp_core replay: {path}: line index 2: not JSON: Expecting value (column 55)\n"
    )


# -- the same command in-process -------------------------------------------------------------


def test_sessions_are_shown_in_first_seen_order(tmp_path: Path) -> None:
    path = tmp_path / "two.jsonl"
    path.write_text(
        _line(_chunk("s_b", "m1", "first"))
        + _line(_chunk("s_a", "m1", "second"))
        + _line(_chunk("s_b", "m1", " again"))
    )
    status, out, _ = call("--json", str(path))
    assert status == 0
    doc = json.loads(out)
    assert list(doc) == ["s_b", "s_a"]
    assert acp.message_text(acp.restore(doc["s_b"]).messages["m1"]) == "first again"
    text = call(str(path))[1]
    assert text.index("Session s_b") < text.index("Session s_a")


def test_steps_text_shows_each_line_then_the_final_state(demo_file: Path) -> None:
    status, out, _ = call("--steps", str(demo_file))
    assert status == 0
    assert out.startswith("--- line index 0 (client): initialize\n(no session state changed)\n")
    assert "--- line index 8 (agent): session/update session_info_update\n" in out
    assert out.count("--- line index ") == len(demo_conversation().entries)
    assert "=== final state" in out


def test_a_permission_request_not_yet_answered_is_shown() -> None:
    entries = demo_conversation().entries
    asked = next(
        i
        for i, e in enumerate(entries)
        if e["message"].get("method") == "session/request_permission"
    )
    status, out, _ = call("-", stdin=trace_lines(entries[: asked + 2]))  # + requires_action
    assert status == 0
    assert "foreground: requires_action (waiting for the user)" in out
    assert "awaiting permission: Run `ls` in /home/user/project? (request 0)" in out
    _, answered, _ = call("-", stdin=trace_lines(entries[: asked + 3]))
    assert "awaiting permission" not in answered


def test_decoder_notes_are_listed_with_their_line(tmp_path: Path) -> None:
    path = tmp_path / "lenient.jsonl"
    update = {
        "sessionUpdate": "tool_call_update",
        "toolCallId": "t1",
        "title": "Read",
        "kind": 5,  # malformed optional field: dropped, the rest applies (Q29)
    }
    path.write_text("\n" + _line(_update("s1", update)))
    status, out, _ = call(str(path))
    assert status == 0
    assert "tool call t1 'Read' [other]: pending" in out
    assert "Decoder notes\n  line index 1: codec.default-on-error @ $.params.update.kind" in out


def test_v1_traffic_is_detected_without_the_flag() -> None:
    path = str(V1_TRACES / "cancel.jsonl")
    assert call("--json", path) == call("--protocol", "1", "--json", path)
    text = call(path)[1]
    assert text.startswith(f"{path}: read as ACP v1 traffic and normalized to v2")


# -- bad input: one line naming file and line index, exit 2, no traceback ---------------------

_GOOD = _line(_chunk("s1", "m1", "hi"))


@pytest.mark.parametrize(
    ("content", "index", "reason"),
    [
        (_GOOD + "{not json\n", 1, "not JSON: "),
        (_GOOD + "\n[1, 2]\n", 2, "not a trace entry"),
        ('{"from": "server", "message": {}}\n', 0, '"from" must be "client" or "agent"'),
        (
            _line(_update("s1", {"sessionUpdate": "state_update"})),
            0,
            "not an ACP v2 message: expected string (variant tag) @ $.params.update.state",
        ),
        (
            _line({"from": "agent", "message": [_chunk("s1", "m1", "a")["message"], 7]}),
            0,
            "batch entry not an ACP v2 message",
        ),
        ("[" * 100_000 + "\n", 0, "not JSON"),
    ],
    ids=["not-json", "not-an-entry", "unknown-sender", "bad-message", "bad-batch-entry", "deep"],
)
def test_bad_input_is_one_line_with_file_and_line_index(
    tmp_path: Path, content: str, index: int, reason: str
) -> None:
    path = tmp_path / "bad.jsonl"
    path.write_text(content)
    for args in ((str(path),), ("--json", str(path)), ("--steps", str(path))):
        status, out, err = call(*args)
        assert (status, out) == (2, "")
        assert err.count("\n") == 1
        assert err.startswith(f"acp_core replay: {path}: line index {index}: {reason}")


def test_a_missing_file_is_bad_input(tmp_path: Path) -> None:
    path = tmp_path / "missing.jsonl"
    assert call(str(path)) == (
        2,
        "",
        f"acp_core replay: {path}: cannot read: No such file or directory\n",
    )


def test_an_unknown_protocol_is_a_usage_error(demo_file: Path) -> None:
    status, out, err = call("--protocol", "3", str(demo_file))
    assert (status, out) == (2, "")
    assert "argument --protocol: invalid choice: 3" in err


# -- folding through the client engine -------------------------------------------------------

TRACES = Path(__file__).resolve().parent / "traces"


def _plain_fold(lines: Any) -> dict[str, acp.SessionState]:
    """What replay showed before it went through the client engine: every update, and the
    tool call of a permission request (T10), reduced in order."""
    sessions: dict[str, acp.SessionState] = {}
    for line in lines:
        if line.sender != "agent":
            continue
        try:
            value = acp.decode_message_diagnosed(line.message).value
        except acp.AcpError:
            return {}
        for item in value.items if isinstance(value, acp.Batch) else (value,):
            update = None
            if isinstance(item, acp.UpdateSessionNotification):
                update = item.update
            elif isinstance(item, acp.RequestPermissionRequest) and isinstance(
                item.subject, acp.ToolCallPermissionSubject
            ):
                update = item.subject.tool_call
            if update is not None:
                sid = item.session_id
                sessions[sid] = acp.reduce(sessions.get(sid) or acp.new_session(sid), update)
    return sessions


@pytest.mark.parametrize("path", sorted(TRACES.glob("*.jsonl")), ids=lambda p: p.name)
def test_the_client_engine_shows_what_the_agent_reported(path: Path) -> None:
    from acp_core._cli._cli_replay import TraceError, parse_trace, replay_trace

    try:
        lines = parse_trace(path.read_text())
        replay = replay_trace(lines, protocol=2)
    except TraceError:  # unreadable entries or undecodable messages: replay refuses (exit 2)
        return
    expected = _plain_fold(lines)
    shown = {sid: s for sid, s in replay.sessions.items() if sid in expected}
    assert shown == expected


@pytest.mark.parametrize("path", sorted(V1_TRACES.glob("*.jsonl")), ids=lambda p: p.name)
def test_v1_replay_shows_the_normalized_fold(path: Path) -> None:
    from acp_core._cli._cli_replay import parse_trace, replay_trace

    lines = parse_trace(path.read_text())
    replay = replay_trace(lines, steps=True)
    assert replay.protocol == 1
    result = acp.normalize_v1({"from": line.sender, "message": line.message} for line in lines)
    assert list(replay.sessions) == list(result.session_ids)
    for sid in result.session_ids:
        assert replay.sessions[sid] == acp.fold(acp.new_session(sid), result.updates_for(sid))
    # the steps carry exactly the normalized updates, each at its own line
    assert [(s.line.index, u) for s in replay.steps for _, u in s.updates] == [
        (lines[u.index].index, u.update) for u in result.updates
    ]
