"""The asking agent of tests/test_aio_client.py on stdio (`acp_core.aio.serve_stdio`).

    python tests/aio_stdio_agent.py asyncio|trio [refuse-new]

`refuse-new`: the link's `keep` refuses every step that opens a session (as a store that
cannot write would), so `session/new` is answered -32603 and no session opens.
`crash`: the agent's `on_event` raises on the first prompt; serve_stdio raises it, and this
exits with status 4.
At the end of input it prints the number of sessions its connection holds on stderr.
"""

from __future__ import annotations

import sys
from pathlib import Path

import anyio

sys.path.insert(0, str(Path(__file__).parent))

from test_aio_client import AskingAgent

from acp_core import connection as c
from acp_core.aio import AgentLink, StoreError, serve_stdio


def refuse_new(step: c.ConnectionStep) -> None:
    if any(isinstance(e, c.SessionOpened) for e in step.events):
        raise StoreError("the store is full")


class CrashingAgent(AskingAgent):
    async def on_event(self, event: object) -> None:
        if isinstance(event, c.PromptReceived):
            raise RuntimeError("boom")
        await super().on_event(event)


def make_agent(link: AgentLink) -> AskingAgent:
    if "refuse-new" in sys.argv[2:]:
        link.keep = refuse_new
    return CrashingAgent(link) if "crash" in sys.argv[2:] else AskingAgent(link)


async def main() -> None:
    try:
        conn = await serve_stdio(make_agent)
    except RuntimeError as e:
        print(f"agent failed: {e}", file=sys.stderr)
        sys.exit(4)
    print(f"sessions: {len(conn.sessions)}", file=sys.stderr)


if __name__ == "__main__":
    anyio.run(main, backend=sys.argv[1])
