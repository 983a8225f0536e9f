"""End to end over real pipes: the examples against hostile peers.

The example agent must survive each hostile line of issue 12 and answer the next request; the
example client must end with one clear line and a documented exit status (0, 1 or 3), never a
traceback, whatever the agent does (`tests/hostile_agent.py` plays the agent).
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
AGENT = EXAMPLES / "stdio_agent.py"
CLIENT = EXAMPLES / "stdio_client.py"
HOSTILE_AGENT = Path(__file__).with_name("hostile_agent.py")
TIMEOUT = 30.0


def _request(request_id: Any, method: str, params: Any) -> bytes:
    message = {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}
    return json.dumps(message).encode() + b"\n"


class Peer:
    """Raw lines to and from the example agent."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdin is not None
        assert process.stdout is not None
        self.process = process
        self.stdin, self.stdout = process.stdin, process.stdout

    async def write(self, data: bytes) -> None:
        self.stdin.write(data)
        await self.stdin.drain()

    async def answer_to(self, request_id: Any) -> dict[str, Any]:
        while True:
            line = await asyncio.wait_for(self.stdout.readline(), TIMEOUT)
            assert line, "the agent closed its output"
            message = json.loads(line)
            if (
                isinstance(message, dict)
                and message.get("id") == request_id
                and "method" not in message
            ):
                return message


def _hostile_lines(session_id: str) -> list[tuple[str, bytes]]:
    prompt = {"sessionId": session_id, "prompt": [{"type": "video", "uri": "file:///v.mp4"}]}
    return [
        ("deep nesting", b"[" * 100_000 + b"]" * 100_000 + b"\n"),
        ("5000-digit id", b'{"jsonrpc":"2.0","id":' + b"7" * 5000 + b',"method":"x"}\n'),
        ("nested batch", b'[[{"jsonrpc":"2.0","id":1,"method":"initialize"}]]\n'),
        ("lone-surrogate id", b'{"jsonrpc":"2.0","id":"\\ud800","method":"_x"}\n'),
        ("17 MiB line", _request("big", "_big", {"blob": "x" * (17 * 1024 * 1024)})),
        ("null", b"null\n"),
        ("invalid UTF-8", b'{"a":"\xff"}\n'),
        ("unknown session", _request("u", "session/prompt", {"sessionId": "nope", "prompt": []})),
        ("video block", _request("v", "session/prompt", prompt)),
    ]


async def _survives_each_line(tmp_path: Path) -> list[tuple[str, dict[str, Any]]]:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(AGENT),
        "--delay",
        "0.01",
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
        stderr=asyncio.subprocess.DEVNULL,
    )
    peer = Peer(process)
    seen: list[tuple[str, dict[str, Any]]] = []
    try:
        info = {"name": "raw", "version": "0"}
        await peer.write(_request(0, "initialize", {"protocolVersion": 2, "info": info}))
        await peer.answer_to(0)
        await peer.write(_request(1, "session/new", {"cwd": "/tmp"}))
        session_id = (await peer.answer_to(1))["result"]["sessionId"]
        for i, (name, line) in enumerate(_hostile_lines(session_id)):
            await peer.write(line)
            ping = f"ping-{i}"
            await peer.write(_request(ping, "_no/such", {}))
            seen.append((name, await peer.answer_to(ping)))
        # the session still takes a prompt and answers it
        text = {"sessionId": session_id, "prompt": [{"type": "text", "text": "still there"}]}
        await peer.write(_request("last", "session/prompt", text))
        seen.append(("a prompt after all that", await peer.answer_to("last")))
        return seen
    finally:
        process.stdin.close()  # type: ignore[union-attr]
        try:
            await asyncio.wait_for(process.wait(), TIMEOUT)
        except TimeoutError:
            process.kill()
            await process.wait()


def test_the_example_agent_survives_each_hostile_line_and_answers_the_next(tmp_path: Path) -> None:
    seen = asyncio.run(_survives_each_line(tmp_path))
    names = [name for name, _ in seen]
    assert names == [name for name, _ in _hostile_lines("s")] + ["a prompt after all that"]
    for name, answer in seen[:-1]:
        assert answer["error"]["code"] == -32601, name  # the ping after it: method not found
    assert "result" in seen[-1][1]


BEHAVIOURS = [
    "exit",
    "garbage",
    "silence",
    "endless-line",
    "null",
    "init-error",
    "init-v1",
    "wrong-id",
    "new-error",
    "new-no-id",
    "reject-prompts",
    "other-session",
    "unknown-request",
    "foreign-permission",
    "bad-update",
    "batch",
    "crash-mid-turn",
    "never-idle",
]


@pytest.mark.parametrize("behaviour", BEHAVIOURS)
def test_the_example_client_ends_with_one_clear_line_whatever_the_agent_does(
    behaviour: str,
) -> None:
    run = subprocess.run(
        [
            sys.executable,
            str(CLIENT),
            "--timeout",
            "2",
            "--",
            sys.executable,
            str(HOSTILE_AGENT),
            behaviour,
        ],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert "Traceback" not in run.stderr + run.stdout
    assert run.returncode in (0, 1, 3), run.stderr
    if run.returncode == 3:
        lines = run.stderr.strip().splitlines()
        assert len(lines) == 1, run.stderr
        assert lines[0].startswith("stdio client: ")
    else:
        assert run.stdout.rstrip().splitlines()[-1].startswith("Checker, client and wire rules:")
