"""acp-core's `ClientConnection` driving a real v1 agent: the official Python SDK 0.12.1.

The agent is `tests/v1_sdk_echo_agent.py` (written on the SDK's `acp.run_agent`, protocol 1),
a separate process on real pipes; the client is the sans-IO connection, fed with
`receive_bytes` and writing `ConnectionStep.data`, as `examples/stdio_client.py` does. The
host uses the v2 intents and reads the v2 view (`conn.view(sid)`); the wire is v1.

Every read waits for a line with a generous limit so a silent agent fails the test instead
of hanging it; nothing asserts on time.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path

import pytest
from v1_peer import V1Peer

import acp_core as acp
from acp_core import connection as c
from acp_core import intents as i

pytest.importorskip("acp", reason="no Python SDK (the `bench` extra; CI installs it)")

AGENT = Path(__file__).resolve().parent / "v1_sdk_echo_agent.py"


@pytest.fixture
def peer() -> Iterator[V1Peer]:
    p = V1Peer()
    try:
        yield p
    finally:
        p.close()


def _messages(view: acp.SessionState) -> list[tuple[str, str]]:
    return [
        (view.messages[ref.id].role, acp.message_text(view.messages[ref.id]))
        for ref in view.timeline
        if ref.kind == "message"
    ]


def _findings(peer: V1Peer) -> list[object]:
    return [e for e in peer.events if type(e) is c.Finding]


def test_initialize_negotiates_v1_and_reads_the_v1_answer(peer: V1Peer) -> None:
    answer = peer.request(c.Initialize())
    assert peer.sent[0]["params"]["protocolVersion"] == 2  # offered v2, the SDK answers 1
    assert answer.error is None
    assert peer.conn.protocol_version == 1
    assert peer.conn.v1 is not None
    assert peer.conn.agent_info is not None
    assert peer.conn.agent_info["name"] == "v1-sdk-echo"  # v1's `agentInfo`, not `info`
    assert _findings(peer) == []


def test_session_new_goes_out_in_v1_shape(peer: V1Peer) -> None:
    sid = peer.start()
    new = next(m for m in peer.sent if m.get("method") == "session/new")
    assert new["params"] == {"cwd": os.getcwd(), "mcpServers": []}
    assert sid == "sdk-sess-1"
    assert sid in peer.conn.sessions


def test_a_streamed_reply_shows_in_the_v2_view_and_ends_the_turn(peer: V1Peer) -> None:
    sid = peer.start()
    record = peer.prompt(sid, "hello there")
    prompt = next(m for m in peer.sent if m.get("method") == "session/prompt")
    assert prompt["params"] == {
        "sessionId": sid,
        "prompt": [{"type": "text", "text": "hello there"}],
    }
    # the SDK streamed two id-less chunks and answered {stopReason: end_turn} (v1)
    chunks = [m for m in peer.received if m.get("method") == "session/update"]
    assert len(chunks) == 2
    assert all("messageId" not in m["params"]["update"] for m in chunks)
    view = peer.conn.view(sid)
    assert _messages(view) == [("user", "hello there"), ("agent", "echo: hello there")]
    assert view.foreground.state == "idle"
    assert view.foreground.stop_reason == "end_turn"
    assert record.state == "accepted"
    assert record.stop_reason == "end_turn"
    assert record.message_id == view.timeline[0].id
    assert peer.conn.engine(sid).violations == ()
    assert _findings(peer) == []
    assert peer.conn.outgoing == type(peer.conn.outgoing)()


def test_a_second_prompt_appends_a_second_turn(peer: V1Peer) -> None:
    sid = peer.start()
    peer.prompt(sid, "one")
    record = peer.prompt(sid, "two")
    view = peer.conn.view(sid)
    assert _messages(view) == [
        ("user", "one"),
        ("agent", "echo: one"),
        ("user", "two"),
        ("agent", "echo: two"),
    ]
    assert view.foreground.stop_reason == "end_turn"
    assert record.ended
    assert [p.state for p in peer.conn.engine(sid).prompts] == ["accepted", "accepted"]
    assert peer.conn.engine(sid).violations == ()
    assert _findings(peer) == []


@pytest.mark.parametrize(
    ("option", "outcome", "status"),
    [("allow", "allowed", "completed"), ("deny", "rejected", "failed")],
)
def test_a_permission_request_is_answered_with_the_v2_intent(
    peer: V1Peer, option: str, outcome: str, status: str
) -> None:
    sid = peer.start()
    peer.prompt(sid, "tool please", choose=option)
    asked = next(m for m in peer.received if m.get("method") == "session/request_permission")
    answer = next(m for m in peer.sent if m.get("id") == asked["id"] and "result" in m)
    assert answer["result"] == {"outcome": {"outcome": "selected", "optionId": option}}
    view = peer.conn.view(sid)
    assert view.tool_calls["call-1"].status == status
    assert view.tool_calls["call-1"].title == "Write notes.txt"
    assert _messages(view)[-1] == ("agent", f"echo: {outcome}")
    assert view.foreground.stop_reason == "end_turn"
    assert peer.conn.engine(sid).pending == type(peer.conn.engine(sid).pending)()
    assert peer.conn.engine(sid).violations == ()
    assert _findings(peer) == []


def test_a_cancel_while_a_permission_request_is_open_ends_the_turn_cancelled(
    peer: V1Peer,
) -> None:
    sid = peer.start()
    peer.step(c.SessionIntent(sid, i.SendPrompt((acp.TextContent("tool please"),))))
    held = peer.conn.engine(sid).prompts[-1].request_id
    peer.until(lambda conn: len(conn.engine(sid).pending) > 0)
    (asked,) = peer.conn.engine(sid).pending
    peer.step(c.SessionIntent(sid, i.SendCancel()))

    def ended(conn: c.ClientConnection) -> bool:
        record = acp.sent_prompt(conn.engine(sid), held)
        return record is not None and record.ended

    peer.until(ended)  # the SDK agent waits for the `cancelled` answer v1 asks of us
    record = acp.sent_prompt(peer.conn.engine(sid), held)
    assert record is not None
    assert record.stop_reason == "cancelled"
    assert {"jsonrpc": "2.0", "id": asked, "result": {"outcome": {"outcome": "cancelled"}}} in (
        peer.sent
    )
    assert c.RequestCancelled(asked) in peer.events
    view = peer.conn.view(sid)
    assert view.tool_calls["call-1"].status == "failed"
    assert _messages(view)[-1] == ("agent", "echo: cancelled")
    assert view.foreground.stop_reason == "cancelled"
    # the connection goes on: a second prompt is an ordinary turn
    assert peer.prompt(sid, "after the cancel").stop_reason == "end_turn"
    assert _findings(peer) == []
    assert acp.v1.check_v1_trace(peer.trace) == ()


def test_resume_with_replay_is_a_session_load_that_rebuilds_the_view(peer: V1Peer) -> None:
    sid = peer.start()
    assert peer.conn.agent_capabilities is not None
    assert peer.conn.agent_capabilities["loadSession"] is True
    peer.prompt(sid, "one")
    peer.prompt(sid, "two")
    said = _messages(peer.conn.view(sid))
    answer = peer.request(c.ResumeSession(sid, os.getcwd(), replay=True))
    assert answer.error is None
    assert peer.sent[-1]["method"] == "session/load"
    assert peer.sent[-1]["params"] == {"sessionId": sid, "cwd": os.getcwd(), "mcpServers": []}
    assert c.SessionOpened(sid, resumed=True, request_id=answer.request_id) in peer.events
    # the replayed history folds into a fresh view: the same messages, once
    assert _messages(peer.conn.view(sid)) == said
    assert peer.conn.replay(sid) == "complete"
    assert _findings(peer) == []
    assert acp.v1.check_v1_trace(peer.trace) == ()
    assert peer.prompt(sid, "three").stop_reason == "end_turn"  # the session goes on


def test_a_new_connection_loads_the_session_with_its_history(peer: V1Peer) -> None:
    sid = peer.start()
    peer.prompt(sid, "one")
    peer.prompt(sid, "tool please", choose="allow")
    said = _messages(peer.conn.view(sid))
    assert said[-1] == ("agent", "echo: allowed")
    peer.reconnect()  # a client that restarted: no sessions, the agent keeps its own
    peer.request(c.Initialize())
    assert sid not in peer.conn.sessions
    answer = peer.request(c.ResumeSession(sid, os.getcwd(), replay=True))
    assert answer.error is None
    assert c.SessionOpened(sid, resumed=True, request_id=answer.request_id) in peer.events
    assert _messages(peer.conn.view(sid)) == said
    assert peer.conn.engine(sid).violations == ()
    assert _findings(peer) == []
    assert acp.v1.check_v1_trace(peer.trace) == ()
    record = peer.prompt(sid, "after the load")
    assert record.stop_reason == "end_turn"
    assert _messages(peer.conn.view(sid))[-2:] == [
        ("user", "after the load"),
        ("agent", "echo: after the load"),
    ]


def test_a_resume_without_replay_is_refused_e5_the_sdk_agent_offers_none(peer: V1Peer) -> None:
    sid = peer.start()
    with pytest.raises(acp.LocalProtocolError) as raised:
        peer.step(c.ResumeSession(sid, os.getcwd()))
    assert raised.value.rule == "E5"
    assert "sessionCapabilities.resume" in str(raised.value)


def test_the_sdk_agent_s_fs_and_terminal_requests_reach_the_host(peer: V1Peer) -> None:
    sid = peer.start()
    answers = {
        "fs/read_text_file": {"content": "file says hi"},
        "terminal/create": {"terminalId": "term-1"},
        "terminal/output": {"output": "listed\n", "truncated": False},
        "terminal/release": {},
    }
    asked: list[c.ExtensionRequest] = []

    def serve(conn: c.ClientConnection) -> bool:
        for event in peer.events:
            if type(event) is c.ExtensionRequest and event not in asked:
                asked.append(event)
                peer.step(c.AnswerRequest(event.request_id, answers[event.method]))
        record = acp.sent_prompt(peer.conn.engine(sid), request_id)
        return record is not None and record.ended

    for text in ("read /tmp/notes.txt", "run ls"):
        peer.step(c.SessionIntent(sid, i.SendPrompt((acp.TextContent(text),))))
        request_id = peer.conn.engine(sid).prompts[-1].request_id
        peer.until(serve)
    assert [(e.method, acp.thaw_json(e.params)) for e in asked] == [
        ("fs/read_text_file", {"sessionId": sid, "path": "/tmp/notes.txt"}),
        ("terminal/create", {"sessionId": sid, "command": "ls"}),
        ("terminal/output", {"sessionId": sid, "terminalId": "term-1"}),
        ("terminal/release", {"sessionId": sid, "terminalId": "term-1"}),
    ]
    # the host's answers went back as given, and the SDK agent read them (its v1 models)
    view = peer.conn.view(sid)
    assert _messages(view)[1] == ("agent", "echo: file says hi")
    assert _messages(view)[3] == ("agent", "echo: listed\n")
    assert view.terminals["term-1"].command == "ls"
    assert _findings(peer) == []
    assert acp.v1.check_v1_trace(peer.trace) == ()


def test_a_v2_only_host_refuses_the_v1_agent_cleanly() -> None:
    peer = V1Peer(protocols=(2,))
    try:
        peer.request(c.Initialize())
        assert peer.conn.protocol_version == 1
        assert peer.conn.v1 is None
        assert [f.rule for f in _findings(peer)] == ["E5"]  # type: ignore[attr-defined]
        with pytest.raises(acp.LocalProtocolError) as raised:
            peer.step(c.NewSession(os.getcwd()))
        assert raised.value.rule == "E5"
        assert not any(m.get("method") == "session/new" for m in peer.sent)
    finally:
        peer.close()


def test_a_v1_only_host_offers_protocol_1_in_v1_names() -> None:
    peer = V1Peer(protocols=(1,))
    try:
        answer = peer.request(c.Initialize())
        params = peer.sent[0]["params"]
        assert params["protocolVersion"] == 1
        assert set(params) == {"protocolVersion", "clientInfo", "clientCapabilities"}
        assert answer.error is None
        assert peer.conn.protocol_version == 1
        peer.request(c.NewSession(os.getcwd()))
        (opened,) = [e for e in peer.events if type(e) is c.SessionOpened]
        record = peer.prompt(opened.session_id, "only v1 here")
        assert record.stop_reason == "end_turn"
        assert _findings(peer) == []
    finally:
        peer.close()


@pytest.mark.parametrize(("protocol", "speaks"), [("auto", True), ("1", True), ("2", False)])
def test_the_example_client_speaks_v1_to_the_sdk_agent_when_allowed(
    protocol: str, speaks: bool, tmp_path: Path
) -> None:
    client = Path(__file__).resolve().parents[1] / "examples" / "stdio_client.py"
    trace = tmp_path / "t.jsonl"
    command = [sys.executable, str(client), "--protocol", protocol, "--trace", str(trace)]
    run = subprocess.run(
        [*command, "--", sys.executable, str(AGENT)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    if not speaks:  # a v2-only client stops at initialize, in one line
        assert run.returncode != 0
        assert "the agent speaks protocol 1, not 2" in run.stderr
        return
    assert run.returncode == 0, run.stderr
    assert "echo: Hello, agent!" in run.stdout
    assert "0 violation(s)" in run.stdout
    entries = [json.loads(line) for line in trace.read_text().splitlines()]
    assert entries[0]["message"]["params"]["protocolVersion"] == (1 if protocol == "1" else 2)
    assert acp.v1.check_v1_trace(entries) == ()
