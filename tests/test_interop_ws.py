"""Interop over WebSocket: the official TypeScript SDK 2.4.0's client (`experimental/ws-client`,
`createWebSocketStream`, run by `interop/sdk_ws_client.mjs`) against `acp_core.aio.asgi_app`
served on 127.0.0.1 by uvicorn (asyncio, on wsproto) and by hypercorn (trio).

The SDK client initializes, opens a session and sends two prompts; the echo agent of
tests/test_aio_http.py answers each. The SDK must hand over every update in order, the text,
the receipt and the stop reason, and the trace its wire tap recorded must check clean as the
client saw it (`python -m acp_core check`, the client's rules). Needs `node` (Node 20 runs with
`--experimental-websocket`; 22 has `WebSocket` on) and the pinned SDK (see interop_setup).
"""

from __future__ import annotations

import json
import re
import subprocess
import sys
from collections.abc import Iterator
from pathlib import Path
from typing import Any

import pytest
from interop_setup import INTEROP, sdk_unavailable
from test_aio_http import EchoAgent, _hypercorn_trio, _uvicorn

import acp_core as acp
from acp_core.aio import asgi_app

RUN_TIMEOUT = 120  # seconds for the node run; the driver times every wait out sooner


@pytest.fixture(scope="module", autouse=True)
def sdk() -> None:
    why = sdk_unavailable()
    if why is not None:
        pytest.skip(why)


@pytest.fixture(params=["uvicorn", "hypercorn-trio"])
def url(request: pytest.FixtureRequest) -> Iterator[str]:
    serve = _uvicorn if request.param == "uvicorn" else _hypercorn_trio
    for http_url in serve(asgi_app(EchoAgent)):
        yield http_url.replace("http://", "ws://")


def _node() -> list[str]:
    version = subprocess.run(["node", "--version"], capture_output=True, text=True, check=True)
    found = re.match(r"v(\d+)\.", version.stdout.strip())
    assert found is not None, version.stdout
    return ["node"] if int(found[1]) >= 22 else ["node", "--experimental-websocket"]


def _run_client(url: str, trace: Path, *prompts: str) -> tuple[int, dict[str, Any], str]:
    command = [*_node(), str(INTEROP / "sdk_ws_client.mjs"), url, "--trace", str(trace)]
    for prompt in prompts:
        command += ["--prompt", prompt]
    run = subprocess.run(
        command, cwd=INTEROP, capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False
    )
    lines = run.stdout.strip().splitlines()
    assert lines, run.stderr
    return run.returncode, json.loads(lines[-1]), run.stderr


def test_the_sdk_websocket_client_runs_two_turns_against_asgi_app(url: str, tmp_path: Path) -> None:
    trace = tmp_path / "ws.jsonl"
    code, summary, stderr = _run_client(url, trace, "first words", "second words")
    assert summary["problems"] == [], stderr
    assert code == 0
    assert summary["init"]["protocolVersion"] == 2
    assert summary["init"]["info"]["name"] == "aio-echo"
    assert summary["sessionId"] == "sess_1"
    turns = summary["turns"]
    expected = ["user_message", "state_update:running", "agent_message_chunk", "state_update:idle"]
    assert [t["updates"] for t in turns] == [expected, expected]
    assert [t["text"] for t in turns] == ["You said: first words", "You said: second words"]
    assert [t["stopReason"] for t in turns] == ["end_turn", "end_turn"]
    assert all(isinstance(t["receipt"], str) for t in turns)
    assert turns[0]["receipt"] != turns[1]["receipt"]

    recorded = [json.loads(line) for line in trace.read_text().splitlines()]
    assert recorded[0]["from"] == "client"
    assert recorded[0]["message"]["method"] == "initialize"
    assert {e["from"] for e in recorded} == {"client", "agent"}
    command = [sys.executable, "-m", "acp_core", "check", "--json", "--revision", "2026-11"]
    run = subprocess.run(
        [*command, str(trace)], capture_output=True, text=True, timeout=RUN_TIMEOUT, check=False
    )
    assert run.returncode in (0, 1), run.stderr
    found = json.loads(run.stdout)
    assert [v for v in found if acp.RULES[v["rule"]].side in ("client", "both")] == []
