"""`python -m acp_core proxy`: every byte forwarded unchanged and in order, each violation told
as it happens, the trace and the report written at the end.

Real processes on real pipes: the proxy is run as `python -m acp_core proxy` between this
test (the client) and an agent process: a byte-for-byte echo (`cat` in Python), the example
agent, or the official Python SDK's v1 agent (tests/v1_sdk_echo_agent.py). The judge (`Judge`)
is also fed directly, split at every byte, for what framing must not change. Nothing asserts
on time: a read that waits past its generous limit fails the test instead of hanging it.
"""

from __future__ import annotations

import itertools
import json
import os
import select
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

import acp_core as acp
from acp_core._cli._cli_proxy import DETECT_LINES, Judge

ROOT = Path(__file__).resolve().parents[1]
AGENT = ROOT / "examples" / "stdio_agent.py"
V1_AGENT = Path(__file__).resolve().parent / "v1_sdk_echo_agent.py"
READ_LIMIT = 30.0  # seconds one read may wait before the test fails (not a timing assert)
#: An agent that writes back every byte it reads, as it reads it.
ECHO = [
    sys.executable,
    "-c",
    "import os\nwhile (b := os.read(0, 65536)):\n    os.write(1, b)",
]
PROXY = [sys.executable, "-m", "acp_core", "proxy"]


def _line(message: dict[str, Any]) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _request(request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


INITIALIZE = _request(
    0,
    "initialize",
    {"protocolVersion": 2, "capabilities": {}, "info": {"name": "proxy-test", "version": "1"}},
)


def _proxy(*options: str, agent: list[str]) -> subprocess.Popen[bytes]:
    return subprocess.Popen(
        [*PROXY, *options, "--", *agent],
        stdin=subprocess.PIPE,
        stdout=subprocess.PIPE,
        stderr=subprocess.PIPE,
        cwd=ROOT,
    )


def _read_exactly(process: subprocess.Popen[bytes], size: int) -> bytes:
    """`size` bytes of the proxy's stdout (whatever reads they come in)."""
    assert process.stdout is not None
    got = b""
    while len(got) < size:
        ready, _, _ = select.select([process.stdout], [], [], READ_LIMIT)
        assert ready, f"no output after {READ_LIMIT} s; have {len(got)} of {size} bytes"
        chunk = os.read(process.stdout.fileno(), size - len(got))
        assert chunk, f"the proxy closed its output after {len(got)} of {size} bytes"
        got += chunk
    return got


def _read_line(process: subprocess.Popen[bytes]) -> dict[str, Any]:
    assert process.stdout is not None
    got = b""
    while not got.endswith(b"\n"):
        got += _read_exactly(process, 1)
    message: dict[str, Any] = json.loads(got)
    return message


def _close(process: subprocess.Popen[bytes]) -> tuple[int, str]:
    assert process.stdin is not None
    assert process.stderr is not None
    process.stdin.close()
    code = process.wait(timeout=READ_LIMIT)
    return code, process.stderr.read().decode()


def _trace(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


# -- forwarding: every byte, unchanged, in order, one read at a time ---------------------------


HOSTILE = [
    b"\xff\xfe not utf-8 \x00\n",
    b"no newline at all",
    b'{"jsonrpc": "2.0", "id": 1, "method": "session/prompt"',  # cut mid-object
    b"[]\n{}\n\n\n",
    b'{"a": "\\ud800"}\n',  # a lone surrogate escape: valid JSON, not UTF-8
    b"9" * 5_000 + b"\n",  # a number orjson and int() refuse
    b"[" * 10_000 + b"\n",  # nested past any recursion limit
    b"x" * 300_000 + b"\n",  # many reads' worth in one write
]


def test_hostile_bytes_pass_unchanged_both_ways_and_the_proxy_keeps_going(
    tmp_path: Path,
) -> None:
    trace = tmp_path / "t.jsonl"
    process = _proxy("--trace", str(trace), agent=ECHO)
    assert process.stdin is not None
    sent = b""
    for data in HOSTILE:
        process.stdin.write(data)
        process.stdin.flush()
        sent += data
        # The echo writes back what it read: everything the client sent comes back whole,
        # before the next write goes out (nothing is held for a line to end).
        assert _read_exactly(process, len(data)) == data
    process.stdin.write(_line(INITIALIZE))
    process.stdin.flush()
    assert _read_exactly(process, len(_line(INITIALIZE))) == _line(INITIALIZE)
    code, stderr = _close(process)
    assert code == 0, stderr
    assert "Traceback" not in stderr
    assert "internal error" not in stderr
    entries = _trace(trace)
    # Each complete line is an entry from both sides (the echo sends it back as the agent).
    assert {e["from"] for e in entries} == {"client", "agent"}
    assert sum(1 for e in entries if e["message"] == INITIALIZE) == 2
    # The live verdicts name the faults: lines that are not JSON-RPC are D1.
    assert "D1" in stderr


@settings(max_examples=10, deadline=None)
@given(
    st.lists(st.binary(min_size=1, max_size=2_000), min_size=1, max_size=6),
)
def test_any_bytes_come_back_exactly_as_sent(chunks: list[bytes]) -> None:
    process = _proxy(agent=ECHO)
    assert process.stdin is not None
    for data in chunks:
        process.stdin.write(data)
        process.stdin.flush()
        assert _read_exactly(process, len(data)) == data
    code, stderr = _close(process)
    assert code == 0, stderr
    assert "Traceback" not in stderr


def test_the_exit_status_is_the_agents() -> None:
    process = _proxy(agent=[sys.executable, "-c", "import sys; sys.exit(7)"])
    code, stderr = _close(process)
    assert code == 7, stderr


def test_an_agent_that_cannot_start_is_exit_2_in_one_line() -> None:
    process = _proxy(agent=["/nonexistent/agent"])
    code, stderr = _close(process)
    assert code == 2
    assert stderr.count("\n") == 1
    assert "cannot start" in stderr
    assert "Traceback" not in stderr


def test_no_agent_command_is_exit_2() -> None:
    run = subprocess.run([*PROXY], capture_output=True, text=True, check=False, cwd=ROOT)
    assert run.returncode == 2
    assert "no agent command" in run.stderr


# -- the judge: framing, detection, verdicts equal to `check` ----------------------------------


def _v2_session() -> list[tuple[str, dict[str, Any]]]:
    """A client-agent exchange at the default revision with one MUST broken by the agent
    (a second answer to the prompt: J1) and one only the end shows (work still running)."""
    return [
        ("client", INITIALIZE),
        (
            "agent",
            {
                "jsonrpc": "2.0",
                "id": 0,
                "result": {"protocolVersion": 2, "capabilities": {}, "info": {"name": "a"}},
            },
        ),
        ("client", _request(1, "session/new", {"cwd": "/w", "mcpServers": []})),
        ("agent", {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s1"}}),
        (
            "client",
            _request(
                2,
                "session/prompt",
                {"sessionId": "s1", "messageId": "m1", "prompt": [{"type": "text", "text": "hi"}]},
            ),
        ),
        ("agent", {"jsonrpc": "2.0", "id": 2, "result": {}}),
        ("agent", {"jsonrpc": "2.0", "id": 2, "result": {}}),
    ]


def _fed(judge: Judge, wire: list[tuple[str, bytes]]) -> list[tuple[str, int]]:
    found = []
    for sender, data in wire:
        _, findings = judge.feed(sender, data)
        found += [(f.rule, f.index) for f in findings]
    return found + [(f.rule, f.index) for f in judge.finish()]


def test_live_verdicts_are_what_check_finds_in_the_recorded_trace() -> None:
    exchange = _v2_session()
    judge = Judge(acp.DEFAULT_REVISION)
    live = _fed(judge, [(sender, _line(m)) for sender, m in exchange])
    entries = [{"from": sender, "message": m} for sender, m in exchange]
    assert judge.entries == entries
    assert judge.protocol == 2
    expected = [(v.rule, v.index) for v in acp.check_trace(entries)]
    assert sorted(live) == sorted(expected)
    assert expected, "the exchange breaks rules: a judge that finds nothing must fail here"


@settings(max_examples=25, deadline=None)
@given(st.data())
def test_any_split_of_the_bytes_gives_the_same_entries_and_verdicts(data: st.DataObject) -> None:
    exchange = _v2_session()
    whole = Judge(acp.DEFAULT_REVISION)
    expected = _fed(whole, [(sender, _line(m)) for sender, m in exchange])
    pieces: list[tuple[str, bytes]] = []
    for sender, message in exchange:
        line = _line(message)
        cuts = sorted(data.draw(st.sets(st.integers(1, len(line) - 1), max_size=4)))
        bounds = [0, *cuts, len(line)]
        pieces += [(sender, line[a:b]) for a, b in itertools.pairwise(bounds)]
    split = Judge(acp.DEFAULT_REVISION)
    assert _fed(split, pieces) == expected
    assert split.entries == whole.entries


@settings(max_examples=50, deadline=None)
@given(st.lists(st.tuples(st.sampled_from(["client", "agent"]), st.binary(max_size=300))))
def test_the_judge_is_total_on_any_bytes(wire: list[tuple[str, bytes]]) -> None:
    judge = Judge(acp.V2_PREVIEW)
    for sender, data in wire:
        entries, _ = judge.feed(sender, data)
        for entry in entries:
            json.dumps(entry)  # every entry can be recorded
    judge.finish()


def test_auto_detects_v1_at_the_initialize_answer() -> None:
    judge = Judge(acp.DEFAULT_REVISION)
    judge.feed("client", _line(_request(0, "initialize", {"protocolVersion": 1})))
    assert judge.protocol is None  # nothing decides before the agent answers
    judge.feed("agent", _line({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}))
    assert judge.protocol == 1
    assert judge.judged == 2  # the waiting entries were judged once it was decided


def test_auto_decides_by_evidence_without_an_initialize() -> None:
    judge = Judge(acp.DEFAULT_REVISION)
    v1_update = {
        "jsonrpc": "2.0",
        "method": "session/update",
        "params": {
            "sessionId": "s1",
            "update": {"sessionUpdate": "agent_message_chunk", "content": {"type": "text"}},
        },
    }
    for _ in range(DETECT_LINES - 1):
        judge.feed("agent", _line(v1_update))
    assert judge.protocol is None
    judge.feed("agent", _line(v1_update))
    assert judge.protocol == 1
    short = Judge(acp.DEFAULT_REVISION)
    short.feed("agent", _line(v1_update))
    short.finish()  # the end decides what is still undecided
    assert short.protocol == 1
    assert short.judged == 1


def test_protocol_given_is_not_second_guessed() -> None:
    judge = Judge(acp.DEFAULT_REVISION, "2")
    judge.feed("client", _line(_request(0, "initialize", {"protocolVersion": 1})))
    judge.feed("agent", _line({"jsonrpc": "2.0", "id": 0, "result": {"protocolVersion": 1}}))
    assert judge.protocol == 2


# -- real agents -------------------------------------------------------------------------------


def test_between_a_client_and_the_example_agent_live_verdicts_trace_and_report(
    tmp_path: Path,
) -> None:
    trace, report = tmp_path / "t.jsonl", tmp_path / "r.html"
    agent_trace = tmp_path / "agent.jsonl"
    process = _proxy(
        "--trace",
        str(trace),
        "--report",
        str(report),
        agent=[sys.executable, str(AGENT), "--trace", str(agent_trace)],
    )
    assert process.stdin is not None
    sent = [
        INITIALIZE,
        _request(1, "session/new", {"cwd": "/w", "mcpServers": []}),
    ]
    received = []
    for message in sent:
        process.stdin.write(_line(message))
        process.stdin.flush()
        received.append(_read_line(process))
    assert "sessionId" in received[1]["result"]
    # A client fault the proxy must tell as it happens: an answer to no request (C25).
    bad = {"jsonrpc": "2.0", "id": 99, "result": {}}
    process.stdin.write(_line(bad))
    process.stdin.flush()
    code, stderr = _close(process)
    assert code == 0, stderr
    entries = _trace(trace)
    client_sent = [e["message"] for e in entries if e["from"] == "client"]
    assert client_sent == [*sent, bad]
    # What the agent recorded it received and sent is what the proxy recorded.
    agent_side = _trace(agent_trace)
    assert [e["message"] for e in agent_side if e["from"] == "client"] == client_sent
    assert [e["message"] for e in agent_side if e["from"] == "agent"] == [
        e["message"] for e in entries if e["from"] == "agent"
    ]
    assert received == [e["message"] for e in entries if e["from"] == "agent"][: len(received)]
    expected = {v.rule for v in acp.check_trace(entries)}
    assert "C25" in expected
    for rule in expected:
        assert f": {rule} (" in stderr, (rule, stderr)
    assert "client sent it" in stderr
    page = report.read_text()
    assert page.startswith("<!DOCTYPE html>") or page.lower().startswith("<!doctype html>")
    assert "report written" in stderr


def test_between_acp_cores_client_and_the_python_sdks_v1_agent(tmp_path: Path) -> None:
    pytest.importorskip("acp", reason="no Python SDK (the `bench` extra; CI installs it)")
    from test_v1_live_client import V1Peer

    trace, report = tmp_path / "t.jsonl", tmp_path / "r.html"
    direct = V1Peer()
    proxied = V1Peer(
        command=[
            *PROXY,
            "--trace",
            str(trace),
            "--report",
            str(report),
            "--",
            sys.executable,
            str(V1_AGENT),
        ]
    )
    for peer in (direct, proxied):
        session_id = peer.start()
        assert peer.prompt(session_id, "hello through the proxy").stop_reason == "end_turn"
        assert peer.prompt(session_id, "tool please", choose="allow").ended
        peer.close()
    # The client read exactly what it reads from the agent directly, byte for byte.
    assert proxied.received_bytes == direct.received_bytes
    assert proxied.sent == direct.sent
    entries = _trace(trace)
    assert [e["message"] for e in entries if e["from"] == "client"] == proxied.sent
    assert [e["message"] for e in entries if e["from"] == "agent"] == proxied.received
    assert proxied.process.stderr is not None
    stderr = proxied.process.stderr.read().decode()
    # v1 traffic is judged by the v1 normalizer; the v2 report is not written for it.
    assert "not written: the traffic was ACP v1" in stderr
    assert not report.exists()
    assert "Traceback" not in stderr


def test_a_judge_that_falls_behind_stops_judging_never_forwarding() -> None:
    import queue
    import threading

    from acp_core._cli._cli_proxy import _pump

    source_read, source_write = os.pipe()
    target_read, target_write = os.pipe()
    chunks: queue.Queue[tuple[str, bytes | None]] = queue.Queue(maxsize=1)
    overrun = threading.Event()
    reads = [b"first\n", b"second\n", b"third\n"]
    pump = threading.Thread(
        target=_pump, args=(source_read, target_write, "client", chunks, overrun, None)
    )
    pump.start()
    forwarded = b""
    for data in reads:  # one read at a time: the judge (this test) takes none of them yet
        os.write(source_write, data)
        while not forwarded.endswith(data):
            ready, _, _ = select.select([target_read], [], [], READ_LIMIT)
            assert ready, "the pump held a read back"
            forwarded += os.read(target_read, 65536)
    os.close(source_write)
    assert forwarded == b"".join(reads)
    assert overrun.is_set()
    assert chunks.get(timeout=READ_LIMIT) == ("client", b"first\n")
    # The end of stream still reaches the judge (after the one read it kept).
    assert chunks.get(timeout=READ_LIMIT) == ("client", None)
    pump.join(READ_LIMIT)
    assert not pump.is_alive()
    for fd in (source_read, target_read, target_write):
        os.close(fd)
