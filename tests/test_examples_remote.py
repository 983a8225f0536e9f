"""The examples over real loopback sockets: `stdio_agent.py --listen HOST:PORT` (the echo agent
at http://HOST:PORT/acp, under uvicorn) and `stdio_client.py --connect URL`, as separate
processes, on both profiles (http:// Streamable HTTP, ws:// WebSocket), with `--token`.

The conversation, the recorded traffic and the exit statuses are the ones of stdio
(tests/test_examples_e2e.py): two prompts, a permission allowed, the second turn cancelled, the
checker silent on both recordings; a refused or unreachable agent is exit 3 with one line; bad
arguments exit 2. The agent's URL is read from its `listening on URL` line; every wait has a
timeout and the agent is killed in a `finally`.
"""

from __future__ import annotations

import json
import os
import re
import socket
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest

import acp_core as acp

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
AGENT = EXAMPLES / "stdio_agent.py"
CLIENT = EXAMPLES / "stdio_client.py"
TOKEN = "t0ken"
TIMEOUT = 20.0  # per read; never reached when things work


@pytest.fixture(scope="module")
def agent(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[str, Path]]:
    """The example agent listening on 127.0.0.1 (any free port), requiring TOKEN."""
    trace = tmp_path_factory.mktemp("remote") / "agent.jsonl"
    command = [sys.executable, str(AGENT), "--listen", "127.0.0.1:0", "--token", TOKEN]
    command += ["--delay", "0.3", "--trace", str(trace)]
    process = subprocess.Popen(command, stderr=subprocess.PIPE, text=True, env=_env())
    try:
        assert process.stderr is not None
        line = process.stderr.readline()  # blocks until the agent listens (or dies)
        found = re.search(r"listening on (http://\S+)", line)
        assert found, line
        yield found.group(1), trace
    finally:
        process.kill()
        process.wait(10)


def _env() -> dict[str, str]:
    root = str(Path(__file__).resolve().parents[1])
    return {**os.environ, "PYTHONPATH": os.pathsep.join([root, os.environ.get("PYTHONPATH", "")])}


def _client(*args: str) -> subprocess.CompletedProcess[str]:
    command = [sys.executable, str(CLIENT), "--timeout", str(TIMEOUT), *args]
    return subprocess.run(
        command, check=False, capture_output=True, text=True, timeout=120, env=_env()
    )


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


@pytest.mark.parametrize("scheme", ["http", "ws"])
def test_the_conversation_over_a_socket_is_the_stdio_one(
    agent: tuple[str, Path], scheme: str, tmp_path: Path
) -> None:
    url, agent_trace = agent
    url = url.replace("http://", f"{scheme}://")
    before = len(_read(agent_trace)) if agent_trace.exists() else 0
    trace, view = tmp_path / "client.jsonl", tmp_path / "view.json"
    r = _client("--connect", url, "--token", TOKEN, "--trace", str(trace), "--view", str(view))
    assert r.returncode == 0, r.stderr
    assert "You said: Hello, agent!" in r.stdout
    assert "tool call echo-1 'Echo tool' [other]: completed" in r.stdout
    assert "tool call echo-2 'Echo tool' [other]: cancelled" in r.stdout  # the cancel
    assert "foreground: idle (stop reason: cancelled)" in r.stdout
    assert r.stdout.rstrip().endswith("0 violation(s)")
    client = _read(trace)
    methods = [e["message"].get("method") for e in client if e["from"] == "agent"]
    assert "session/request_permission" in methods  # asked, and answered by POST / frame
    assert not list(acp.check_trace(client, side="client"))
    # The agent's own recording of this connection: the same messages, judged for the agent.
    recorded = _read(agent_trace)[before:]
    assert [e["message"] for e in recorded if e["from"] == "client"] == [
        e["message"] for e in client if e["from"] == "client"
    ]
    assert not list(acp.check_trace(recorded, side="agent"))
    assert '"cancelled"' in view.read_text()  # --view: the final view, the cancelled tool in it


@pytest.mark.parametrize("scheme", ["http", "ws"])
@pytest.mark.parametrize("token", [None, "wrong"])
def test_a_refused_client_exits_3_with_one_line(
    agent: tuple[str, Path], scheme: str, token: str | None
) -> None:
    url = agent[0].replace("http://", f"{scheme}://")
    r = _client("--connect", url, *(() if token is None else ("--token", token)))
    assert r.returncode == 3
    expected = "403" if token is not None or scheme == "ws" else "401"
    assert r.stderr.startswith("stdio client: ")
    assert expected in r.stderr
    assert len(r.stderr.strip().splitlines()) == 1
    assert r.stdout == ""


def test_an_unreachable_agent_exits_3() -> None:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]  # closed again: nobody listens there
    for scheme in ("http", "ws"):
        r = _client("--connect", f"{scheme}://127.0.0.1:{port}/acp")
        assert r.returncode == 3
        assert r.stderr.startswith("stdio client: ")
        assert len(r.stderr.strip().splitlines()) == 1


@pytest.mark.parametrize(
    "args",
    [
        ("--connect", "ftp://127.0.0.1/acp"),
        ("--connect", "http://127.0.0.1:1/acp", "--", "some-agent"),
        ("--token", "T"),
    ],
)
def test_bad_remote_arguments_exit_2(args: tuple[str, ...]) -> None:
    r = _client(*args)
    assert r.returncode == 2
    assert "error:" in r.stderr


def test_the_agent_refuses_bad_listen_arguments() -> None:
    for args in (("--listen", "nowhere"), ("--token", "T")):
        command = [sys.executable, str(AGENT), *args]
        r = subprocess.run(
            command, check=False, capture_output=True, text=True, timeout=60, env=_env()
        )
        assert r.returncode == 2
        assert "error:" in r.stderr
