"""A connected agent engine and client engine, for tests (the h11 ConnectionPair idea).

`AgentClientPair` owns one `AgentEngine` and one `ClientEngine` for the same session. Each
`agent_does(intent)` / `client_does(intent)` steps that side's engine and puts its outbound
wire dicts in flight to the other side as JSON text (`json.dumps`). Delivery parses the text
(`json.loads`), decodes it strictly with `decode_message` and steps the receiving engine with
`Received(message)`; whatever that side answers goes in flight the other way. By default
everything in flight is delivered at once (`auto_deliver=True`); with `auto_deliver=False`
messages stay in flight until `deliver_to_client` / `deliver_to_agent` / `flush`, which lets a
test interleave both sides the way a real connection can (each direction stays FIFO).

The recorded `trace` is in the trace checker's format (`{"from": side, "message": wire}`) and
in the order the *agent's end of the wire* sees it: the agent's messages when it sends them,
the client's when they reach the agent. Every agent action is then recorded after everything
the agent knew, which is what the agent's rules are judged on. `sent` keeps every outbound
message of both sides in send order, for schema validation.

Invariant worth asserting (see `assert_in_sync`): once nothing is in flight towards the
client, both sides hold equal `SessionState`s: the agent folded what it sent, the client
folded what it received.
"""

from __future__ import annotations

import json
from collections import deque
from collections.abc import Callable
from typing import Any

import acp_core as acp
from acp_core import (
    AgentEngine,
    ClientEngine,
    Received,
    Revision,
    decode_message_diagnosed,
    new_agent,
    new_client,
    step,
)

__all__ = ["AGENT", "CLIENT", "AgentClientPair"]

AGENT = "agent"
CLIENT = "client"

Validator = Callable[[str, dict[str, Any]], None]


class AgentClientPair:
    """Two engines joined by an in-memory, JSON-encoded, FIFO wire.

    Attributes:
        agent, client: the current engine values (replaced on every step).
        trace: the conversation as the agent's end of the wire saw it (checker format).
        sent: every outbound message as `(side, wire)`, in send order.
        to_client, to_agent: JSON texts in flight, oldest first.
    """

    def __init__(
        self,
        session_id: str = "sess_1",
        *,
        revision: Revision = acp.DEFAULT_REVISION,
        auto_deliver: bool = True,
        validator: Validator | None = None,
    ) -> None:
        self.agent: AgentEngine = new_agent(session_id, revision=revision)
        self.client: ClientEngine = new_client(session_id, revision=revision)
        self.revision = revision
        self.auto_deliver = auto_deliver
        self.validator = validator
        self.trace: list[dict[str, Any]] = []
        self.sent: list[tuple[str, dict[str, Any]]] = []
        self.to_client: deque[str] = deque()
        self.to_agent: deque[str] = deque()

    # -- acting --------------------------------------------------------------------------

    def agent_does(self, intent: object) -> tuple[dict[str, Any], ...]:
        """Step the agent engine with `intent`; returns what it sent (already in flight).

        Raises whatever the engine raises; then nothing changed.
        """
        self.agent, outbound = step(self.agent, intent)
        self._emit(AGENT, outbound)
        if self.auto_deliver:
            self.flush()
        return outbound

    def client_does(self, intent: object) -> tuple[dict[str, Any], ...]:
        """Step the client engine with `intent`; returns what it sent (already in flight)."""
        self.client, outbound = step(self.client, intent)
        self._emit(CLIENT, outbound)
        if self.auto_deliver:
            self.flush()
        return outbound

    # -- delivering ----------------------------------------------------------------------

    def deliver_to_client(self, n: int | None = None) -> int:
        """Deliver up to `n` (default: all) in-flight messages to the client; returns how many."""
        return self._deliver(CLIENT, n)

    def deliver_to_agent(self, n: int | None = None) -> int:
        """Deliver up to `n` (default: all) in-flight messages to the agent; returns how many."""
        return self._deliver(AGENT, n)

    def flush(self) -> None:
        """Deliver in both directions until nothing is in flight."""
        while self.to_client or self.to_agent:
            self._deliver(CLIENT, None)
            self._deliver(AGENT, None)

    @property
    def quiet(self) -> bool:
        """Nothing is in flight in either direction."""
        return not self.to_client and not self.to_agent

    def assert_in_sync(self) -> None:
        """Both sides hold the same session state (call when nothing flies to the client)."""
        assert not self.to_client, "messages are still in flight to the client"
        assert self.client.session == self.agent.session

    # -- internals -----------------------------------------------------------------------

    def _emit(self, side: str, outbound: tuple[dict[str, Any], ...]) -> None:
        queue = self.to_client if side == AGENT else self.to_agent
        for wire in outbound:
            if self.validator is not None:
                self.validator(side, wire)
            self.sent.append((side, wire))
            text = json.dumps(wire)  # the wire carries JSON text, nothing Python-specific
            if side == AGENT:
                self.trace.append({"from": AGENT, "message": json.loads(text)})
            queue.append(text)

    def _deliver(self, to: str, n: int | None) -> int:
        queue = self.to_client if to == CLIENT else self.to_agent
        count = 0
        while queue and (n is None or count < n):
            raw = json.loads(queue.popleft())
            decoded = decode_message_diagnosed(raw, strict=True)
            assert not decoded.diagnostics, decoded.diagnostics
            message = decoded.value
            assert not isinstance(message, acp.Batch), "engines never send batches"
            if to == AGENT:
                self.trace.append({"from": CLIENT, "message": raw})
                self.agent, outbound = step(self.agent, Received(message))
                self._emit(AGENT, outbound)
            else:
                self.client, outbound = step(self.client, Received(message))
                self._emit(CLIENT, outbound)
            count += 1
        return count


# -- helpers for single-engine table tests -------------------------------------------------


def receive(engine: Any, wire: dict[str, Any]) -> acp.Step:
    """Step `engine` with a message given as a wire dict (decoded strictly first)."""
    message = acp.decode_message(json.loads(json.dumps(wire)), strict=True)
    return step(engine, Received(message))


def updates_of(outbound: tuple[dict[str, Any], ...]) -> list[dict[str, Any]]:
    """The `update` objects of the `session/update` notifications among `outbound`."""
    return [w["params"]["update"] for w in outbound if w.get("method") == "session/update"]


def prompt_wire(
    request_id: int | str | None, session_id: str = "sess_1", text: str = "hello"
) -> dict[str, Any]:
    """A `session/prompt` request with one text block."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "method": "session/prompt",
        "params": {"sessionId": session_id, "prompt": [{"type": "text", "text": text}]},
    }


def cancel_wire(session_id: str = "sess_1") -> dict[str, Any]:
    """A `session/cancel` notification."""
    return {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": session_id}}


def selected_wire(request_id: int | str | None, option_id: str) -> dict[str, Any]:
    """A permission answer selecting `option_id`."""
    return {
        "jsonrpc": "2.0",
        "id": request_id,
        "result": {"outcome": {"outcome": "selected", "optionId": option_id}},
    }


def cancelled_wire(request_id: int | str | None) -> dict[str, Any]:
    """A permission answer with the `cancelled` outcome."""
    return {"jsonrpc": "2.0", "id": request_id, "result": {"outcome": {"outcome": "cancelled"}}}


def error_wire(request_id: int | str | None, code: int = -32800) -> dict[str, Any]:
    """An error response (default: -32800, request cancelled)."""
    return {"jsonrpc": "2.0", "id": request_id, "error": {"code": code, "message": "cancelled"}}
