"""An in-memory pair of connections: an agent and a client joined by two byte pipes.

Each side's outbound is written as NDJSON bytes into the other's inbox; `deliver_*` feeds
the next line (or all of them) with `receive_bytes`, so the whole path (framing, decoding,
routing, engines) runs. Both ends record what they sent and read, in their own order, as
checker traces, and collect their events.
"""

from __future__ import annotations

import json
from collections import deque
from typing import Any

import acp_core as acp

AGENT_INFO = acp.Implementation("test-agent", "1.0")
CLIENT_INFO = acp.Implementation("test-client", "1.0")


class Pair:
    def __init__(
        self,
        *,
        revision: acp.Revision = acp.DEFAULT_REVISION,
        capabilities: object = None,
        config: tuple[acp.SessionConfigOption, ...] = (),
    ) -> None:
        self.revision = revision
        self.agent = acp.new_agent_connection(
            AGENT_INFO, revision=revision, capabilities=capabilities, new_session_config=config
        )
        self.client = acp.new_client_connection(CLIENT_INFO, revision=revision)
        self.to_agent: deque[bytes] = deque()
        self.to_client: deque[bytes] = deque()
        self.agent_trace: list[dict[str, Any]] = []
        self.client_trace: list[dict[str, Any]] = []
        self.agent_events: list[object] = []
        self.client_events: list[object] = []

    # -- stepping ------------------------------------------------------------------------------

    def _sent(self, side: str, outbound: tuple[dict[str, Any], ...]) -> None:
        inbox = self.to_client if side == "agent" else self.to_agent
        trace = self.agent_trace if side == "agent" else self.client_trace
        for message in outbound:
            line = acp.encode_ndjson(message)
            inbox.append(line)
            trace.append({"from": side, "message": json.loads(line)})

    def agent_do(self, intent: object) -> acp.ConnectionStep:
        result = acp.connection_step(self.agent, intent)
        self.agent = result.connection
        self.agent_events.extend(result.events)
        self._sent("agent", result.outbound)
        return result

    def client_do(self, intent: object) -> acp.ConnectionStep:
        result = acp.connection_step(self.client, intent)
        self.client = result.connection
        self.client_events.extend(result.events)
        self._sent("client", result.outbound)
        return result

    def agent_bytes(self, data: bytes) -> acp.ConnectionStep:
        """Feed raw bytes to the agent (as if the client had written them)."""
        result = acp.receive_bytes(self.agent, data)
        self.agent = result.connection
        self.agent_events.extend(result.events)
        self._sent("agent", result.outbound)
        return result

    def deliver_to_agent(self) -> bool:
        if not self.to_agent:
            return False
        line = self.to_agent.popleft()
        self.agent_trace.append({"from": "client", "message": json.loads(line)})
        self.agent_bytes(line)
        return True

    def deliver_to_client(self) -> bool:
        if not self.to_client:
            return False
        line = self.to_client.popleft()
        self.client_trace.append({"from": "agent", "message": json.loads(line)})
        result = acp.receive_bytes(self.client, line)
        self.client = result.connection
        self.client_events.extend(result.events)
        self._sent("client", result.outbound)
        return True

    def settle(self) -> None:
        """Deliver everything in flight, both ways, until both pipes are empty."""
        while self.deliver_to_agent() or self.deliver_to_client():
            pass

    # -- conveniences ----------------------------------------------------------------------------

    def open(self, cwd: str = "/work") -> str:
        """initialize (once) and session/new; the new session's id."""
        if self.client.protocol_version is None:
            self.client_do(acp.Initialize())
            self.settle()
        self.client_do(acp.NewSession(cwd))
        self.settle()
        opened = [e for e in self.client_events if isinstance(e, acp.SessionOpened)]
        return opened[-1].session_id

    def agent_says(self, session_id: str, intent: object) -> acp.ConnectionStep:
        return self.agent_do(acp.SessionIntent(session_id, intent))

    def client_says(self, session_id: str, intent: object) -> acp.ConnectionStep:
        return self.client_do(acp.SessionIntent(session_id, intent))

    def findings(self, side: str) -> list[acp.Finding]:
        events = self.agent_events if side == "agent" else self.client_events
        return [e for e in events if isinstance(e, acp.Finding)]
