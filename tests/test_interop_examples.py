"""The examples' `--revision` flag and cancel behaviour, seen from the wire (no Node needed).

Black-box: the example agent runs as a subprocess and is driven with raw JSON-RPC lines by a
scripted peer that does what a strict SDK client may do (hold a permission request open after
cancelling), so these tests keep holding when the examples are rebuilt on another connection.
"""

from __future__ import annotations

import asyncio
import json
import subprocess
import sys
from pathlib import Path
from typing import Any

import pytest

import acp_core as acp

EXAMPLES = Path(__file__).resolve().parents[1] / "examples"
AGENT = EXAMPLES / "stdio_agent.py"
CLIENT = EXAMPLES / "stdio_client.py"
TIMEOUT = 20.0  # per read; never reached when things work
#: Every name `--revision` accepts (dated names and the alias `preview`) and what it names.
REVISIONS = {name: acp.revision_named(name) for name in acp.REVISION_CHOICES}


def _read(path: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in path.read_text().splitlines() if line.strip()]


class RawPeer:
    """A client that writes and reads JSON-RPC lines itself and keeps what it received."""

    def __init__(self, process: asyncio.subprocess.Process) -> None:
        assert process.stdin is not None
        assert process.stdout is not None
        self.stdin, self.stdout = process.stdin, process.stdout
        self.received: list[dict[str, Any]] = []

    async def send(self, message: dict[str, Any]) -> None:
        self.stdin.write(json.dumps(message).encode() + b"\n")
        await self.stdin.drain()

    async def until(self, wanted: Any) -> dict[str, Any]:
        """Read until a message for which `wanted(message)` holds; return it."""
        while True:
            line = await asyncio.wait_for(self.stdout.readline(), TIMEOUT)
            assert line, "the agent closed its output"
            message = json.loads(line)
            self.received.append(message)
            if wanted(message):
                return message


def _request(request_id: int, method: str, params: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": request_id, "method": method, "params": params}


def _update(message: dict[str, Any]) -> dict[str, Any]:
    if message.get("method") != "session/update":
        return {}
    update: dict[str, Any] = message["params"]["update"]
    return update


def _is_idle_update(update: dict[str, Any]) -> bool:
    return update.get("sessionUpdate") == "state_update" and update.get("state") == "idle"


def _is_idle(message: dict[str, Any]) -> bool:
    return _is_idle_update(_update(message))


async def _cancel_with_permission_held_open(revision: str, trace: Path) -> RawPeer:
    process = await asyncio.create_subprocess_exec(
        sys.executable,
        str(AGENT),
        "--revision",
        revision,
        "--trace",
        str(trace),
        stdin=asyncio.subprocess.PIPE,
        stdout=asyncio.subprocess.PIPE,
    )
    peer = RawPeer(process)
    try:
        info = {"name": "raw-peer", "version": "0"}
        await peer.send(_request(0, "initialize", {"protocolVersion": 2, "info": info}))
        await peer.until(lambda m: m.get("id") == 0)
        await peer.send(_request(1, "session/new", {"cwd": "/tmp", "mcpServers": []}))
        session_id = (await peer.until(lambda m: m.get("id") == 1))["result"]["sessionId"]
        text = [{"type": "text", "text": "wait for me"}]
        await peer.send(_request(2, "session/prompt", {"sessionId": session_id, "prompt": text}))
        asked = await peer.until(lambda m: m.get("method") == "session/request_permission")
        # Cancel, and leave the request open until the agent withdraws it.
        cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session_id}}
        await peer.send(cancel)
        await peer.until(
            lambda m: (
                m.get("method") == "$/cancel_request" and m["params"]["requestId"] == asked["id"]
            )
        )
        answer = {"outcome": {"outcome": "cancelled"}}
        await peer.send({"jsonrpc": "2.0", "id": asked["id"], "result": answer})
        if not any(_is_idle(m) for m in peer.received):
            await peer.until(_is_idle)
        if not any(m.get("id") == 2 for m in peer.received):
            await peer.until(lambda m: m.get("id") == 2)
        return peer
    finally:
        process.stdin.close()  # type: ignore[union-attr]
        try:
            await asyncio.wait_for(process.wait(), TIMEOUT)
        except TimeoutError:
            process.kill()
            await process.wait()


@pytest.mark.parametrize("revision", sorted(REVISIONS))
def test_the_agent_withdraws_an_open_permission_request_when_cancelled(
    revision: str, tmp_path: Path
) -> None:
    trace = tmp_path / "agent.jsonl"
    peer = asyncio.run(_cancel_with_permission_held_open(revision, trace))
    updates = [_update(m) for m in peer.received if _update(m)]
    idles = [u.get("stopReason") for u in updates if _is_idle_update(u)]
    assert idles == ["cancelled"]
    (tool,) = {u["toolCallId"] for u in updates if u["sessionUpdate"] == "tool_call_update"}
    statuses = [u.get("status") for u in updates if u.get("toolCallId") == tool]
    assert statuses[-1] == "cancelled"
    assert "completed" not in statuses
    # the agent's own recording, judged at the revision it spoke, breaks no rule
    assert acp.check_trace(_read(trace), revision=REVISIONS[revision]) == ()


@pytest.mark.parametrize("revision", sorted(REVISIONS))
def test_the_prompt_result_has_the_revisions_shape(revision: str, tmp_path: Path) -> None:
    trace = tmp_path / "agent.jsonl"
    peer = asyncio.run(_cancel_with_permission_held_open(revision, trace))
    (result,) = [m["result"] for m in peer.received if m.get("id") == 2]
    updates = [_update(m) for m in peer.received]
    user_ids = [u["messageId"] for u in updates if u.get("sessionUpdate") == "user_message"]
    if REVISIONS[revision].prompt_result_has_message_id:
        assert result == {"messageId": user_ids[0]}
    else:
        assert result == {}


def test_the_client_speaks_the_revision_it_is_given(tmp_path: Path) -> None:
    trace = tmp_path / "client.jsonl"
    run = subprocess.run(
        [sys.executable, str(CLIENT), "--revision", "2026-11", "--trace", str(trace)],
        capture_output=True,
        text=True,
        timeout=120,
        check=False,
    )
    assert run.returncode == 0, run.stdout + run.stderr
    entries = _read(trace)
    prompt_ids = {
        e["message"]["id"] for e in entries if e["message"].get("method") == "session/prompt"
    }
    results = [
        e["message"]["result"]
        for e in entries
        if e["from"] == "agent" and e["message"].get("id") in prompt_ids
    ]
    # the default agent was started at the same revision: every receipt names a message
    assert len(results) == 2
    assert all(set(r) == {"messageId"} for r in results)
    assert "stop reason: cancelled" in run.stdout
