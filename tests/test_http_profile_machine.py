"""A stateful property over the sans-IO Streamable HTTP profile (`acp_core.connection`'s
`new_http_server`, `http_receive`, `http_send`, `http_stream_closed`), no sockets.

One connection with two sessions; hypothesis interleaves the agent's messages (session
updates, requests, answers to the client's POSTed prompts, connection-stream notifications),
the client's POSTs (prompts, answers to agent requests), stream opens, bytes that reach the
reader or are lost in flight when its stream drops, resumes with `Last-Event-ID`, a second
reader refused 409, and DELETE. The client here is a correct one: it resumes each stream
with the id of the last event it decoded (0 before any).

Invariant: per stream, what the client decoded is always a prefix of what the agent produced
for that stream, each event once, numbered 1, 2, 3, ...; at the end (and at DELETE), after
one last resume of every stream, it is all of it, in order. A planted bug (a resume that
starts one event late, or one early) is caught by the same machine.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import HealthCheck, Phase, settings
from hypothesis import strategies as st
from hypothesis.stateful import (
    RuleBasedStateMachine,
    invariant,
    precondition,
    rule,
    run_state_machine_as_test,
)

from acp_core import connection as c
from acp_core._wire import _http

CONNECTION = "c1"
SESSIONS = ("s1", "s2")
STREAMS = (c.CONNECTION_STREAM, *SESSIONS)
JSON = (("Content-Type", "application/json"),)
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 2}}


def _post(message: dict[str, Any], *headers: tuple[str, str]) -> c.HttpRequest:
    headers = (*JSON, (c.HEADER_CONNECTION_ID, CONNECTION), *headers)
    return c.HttpRequest("POST", headers, json.dumps(message).encode())


def _get(key: str, last: int) -> c.HttpRequest:
    headers = [("Accept", "text/event-stream"), (c.HEADER_CONNECTION_ID, CONNECTION)]
    if key:
        headers.append((c.HEADER_SESSION_ID, key))
    headers.append(("Last-Event-ID", str(last)))
    return c.HttpRequest("GET", tuple(headers))


class HttpProfileMachine(RuleBasedStateMachine):
    """The endpoint's state, the agent's output per stream, and what the client decoded."""

    def __init__(self) -> None:
        super().__init__()
        server, got = c.http_receive(c.new_http_server(), _post_init(), new_connection_id="c1")
        assert got.response is None
        server, sent = c.http_send(server, CONNECTION, {"jsonrpc": "2.0", "id": 0, "result": {}})
        assert sent.initialize is not None
        self.server = server
        self.produced: dict[str, list[dict[str, Any]]] = {k: [] for k in STREAMS}
        self.seen: dict[str, list[tuple[int, dict[str, Any]]]] = {k: [] for k in STREAMS}
        self.in_flight: dict[str, bytes] = dict.fromkeys(STREAMS, b"")  # written, not yet read
        self.decoders: dict[str, c.SseDecoder] = {k: c.SseDecoder() for k in STREAMS}
        self.reading: dict[str, bool] = dict.fromkeys(STREAMS, False)
        self.prompts: dict[int, str] = {}  # the client's open requests: id -> session
        self.asked: dict[int, str] = {}  # the agent's open requests: id -> session
        self.next_id = 1
        self.deleted = False

    # -- the agent -------------------------------------------------------------------------

    def _send(self, message: dict[str, Any], expected: str) -> None:
        self.server, sent = c.http_send(self.server, CONNECTION, message)
        assert not sent.closed
        assert sent.stream == expected
        self.produced[expected].append(message)
        if self.reading[expected]:
            assert sent.data  # a stream being read is written at once
            self.in_flight[expected] += sent.data
        else:
            assert sent.data == b""  # nobody reads it: kept for the next GET

    @precondition(lambda self: not self.deleted)
    @rule(session=st.sampled_from(SESSIONS), text=st.text(max_size=8))
    def agent_updates(self, session: str, text: str) -> None:
        update = {"sessionUpdate": "agent_message_chunk", "content": {"type": "text", "text": text}}
        message = {"jsonrpc": "2.0", "method": "session/update",
                   "params": {"sessionId": session, "update": update}}  # fmt: skip
        self._send(message, session)

    @precondition(lambda self: not self.deleted)
    @rule(n=st.integers(0, 99))
    def agent_notifies_the_connection(self, n: int) -> None:
        self._send({"jsonrpc": "2.0", "method": "_x/note", "params": {"n": n}}, "")

    @precondition(lambda self: not self.deleted)
    @rule(session=st.sampled_from(SESSIONS))
    def agent_asks(self, session: str) -> None:
        request_id = 1000 + self.next_id
        self.next_id += 1
        message = {"jsonrpc": "2.0", "id": request_id, "method": "session/request_permission",
                   "params": {"sessionId": session, "options": []}}  # fmt: skip
        self._send(message, session)
        self.asked[request_id] = session

    @precondition(lambda self: not self.deleted and self.prompts)
    @rule(data=st.data())
    def agent_answers_a_prompt(self, data: st.DataObject) -> None:
        request_id = data.draw(st.sampled_from(sorted(self.prompts)))
        session = self.prompts.pop(request_id)
        answer = {"jsonrpc": "2.0", "id": request_id, "result": {"stopReason": "end_turn"}}
        self._send(answer, session)  # where its request came from

    # -- the client's POSTs ----------------------------------------------------------------

    @precondition(lambda self: not self.deleted)
    @rule(session=st.sampled_from(SESSIONS))
    def client_prompts(self, session: str) -> None:
        request_id = self.next_id
        self.next_id += 1
        prompt = {"jsonrpc": "2.0", "id": request_id, "method": "session/prompt",
                  "params": {"sessionId": session, "prompt": []}}  # fmt: skip
        self.server, got = c.http_receive(
            self.server, _post(prompt, (c.HEADER_SESSION_ID, session))
        )
        assert got.response is not None
        assert got.response.status == 202
        assert got.inbound == prompt
        self.prompts[request_id] = session

    @precondition(lambda self: not self.deleted and self.asked)
    @rule(data=st.data(), with_header=st.booleans())
    def client_answers(self, data: st.DataObject, with_header: bool) -> None:
        request_id = data.draw(st.sampled_from(sorted(self.asked)))
        session = self.asked.pop(request_id)
        answer = {
            "jsonrpc": "2.0",
            "id": request_id,
            "result": {"outcome": {"outcome": "cancelled"}},
        }
        headers = ((c.HEADER_SESSION_ID, session),) if with_header else ()
        self.server, got = c.http_receive(self.server, _post(answer, *headers))
        assert got.response is not None
        assert got.response.status == 202
        assert got.inbound == answer

    # -- the client's streams ----------------------------------------------------------------

    def _decode(self, key: str, data: bytes) -> None:
        self.decoders[key], events = c.feed_sse(self.decoders[key], data)
        for event in events:
            assert event.id is not None
            self.seen[key].append((int(event.id), json.loads(event.data)))

    def _last(self, key: str) -> int:
        return self.seen[key][-1][0] if self.seen[key] else 0

    @precondition(lambda self: not self.deleted)
    @rule(key=st.sampled_from(STREAMS))
    def client_opens(self, key: str) -> None:
        self.server, got = c.http_receive(self.server, _get(key, self._last(key)))
        assert got.response is not None
        if self.reading[key]:
            assert got.response.status == 409  # one reader per stream
            assert got.opened is None
            return
        assert got.response.status == 200
        assert got.opened == c.StreamOpened(key)  # nothing missed: the window holds it all
        self.reading[key] = True
        self.decoders[key] = c.SseDecoder()  # a new response: a new event stream
        self._decode(key, got.response.body)

    @precondition(lambda self: any(self.in_flight.values()))
    @rule(data=st.data())
    def bytes_reach_the_client(self, data: st.DataObject) -> None:
        key = data.draw(st.sampled_from([k for k in STREAMS if self.in_flight[k]]))
        pending = self.in_flight[key]
        cut = data.draw(st.integers(1, len(pending)))  # any split, mid-event too
        self.in_flight[key] = pending[cut:]
        self._decode(key, pending[:cut])

    @precondition(lambda self: not self.deleted and any(self.reading.values()))
    @rule(data=st.data())
    def a_stream_drops(self, data: st.DataObject) -> None:
        key = data.draw(st.sampled_from([k for k in STREAMS if self.reading[k]]))
        self.in_flight[key] = b""  # what was on the wire is lost, a partial event with it
        self.reading[key] = False
        self.server = c.http_stream_closed(self.server, CONNECTION, key)

    def _drain(self) -> None:
        # The client reads what reached it, then resumes every stream once more.
        for key in STREAMS:
            self._decode(key, self.in_flight[key])
            self.in_flight[key] = b""
            if self.reading[key]:
                self.reading[key] = False
                self.server = c.http_stream_closed(self.server, CONNECTION, key)
            self.client_opens(key)
            assert [m for _, m in self.seen[key]] == self.produced[key]

    @precondition(lambda self: not self.deleted)
    @rule()
    def client_deletes(self) -> None:
        self._drain()
        request = c.HttpRequest("DELETE", ((c.HEADER_CONNECTION_ID, CONNECTION),))
        self.server, got = c.http_receive(self.server, request)
        assert got.closed
        assert got.response is not None
        assert got.response.status == 202
        self.deleted = True
        _, after = c.http_send(self.server, CONNECTION, {"jsonrpc": "2.0", "method": "_x/late"})
        assert after.closed
        _, again = c.http_receive(self.server, _get("", 0))
        assert again.response is not None
        assert again.response.status == 404

    @precondition(lambda self: self.deleted)
    @rule(key=st.sampled_from(STREAMS))
    def the_deleted_connection_is_unknown(self, key: str) -> None:
        note = {"jsonrpc": "2.0", "method": "_x/note", "params": {}}
        _, posted = c.http_receive(self.server, _post(note))
        _, opened = c.http_receive(self.server, _get(key, self._last(key)))
        for got in (posted, opened):
            assert got.response is not None
            assert got.response.status == 404
            assert got.inbound is None

    @invariant()
    def each_stream_is_a_prefix_once_in_order(self) -> None:
        for key in STREAMS:
            ids = [n for n, _ in self.seen[key]]
            assert ids == list(range(1, len(ids) + 1)), (key, ids)
            assert [m for _, m in self.seen[key]] == self.produced[key][: len(ids)], key

    def teardown(self) -> None:
        if not self.deleted:
            self._drain()


def _post_init() -> c.HttpRequest:
    return c.HttpRequest("POST", JSON, json.dumps(INIT).encode())


TestHttpProfile = HttpProfileMachine.TestCase


def _late(value: str | None) -> int | None:
    found = _LAST_EVENT_ID(value)
    return None if found is None else found + 1  # a resume that skips one event


def _early(value: str | None) -> int | None:
    found = _LAST_EVENT_ID(value)
    return None if found is None else max(found - 1, 0)  # a resume that repeats one


_LAST_EVENT_ID = _http._last_event_id


@pytest.mark.parametrize("mutant", [_late, _early], ids=["skips-one", "repeats-one"])
def test_the_machine_catches_a_resume_off_by_one(
    mutant: Any, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setattr(_http, "_last_event_id", mutant)
    found = settings(
        max_examples=200,
        derandomize=True,
        database=None,
        deadline=None,
        suppress_health_check=list(HealthCheck),
        report_multiple_bugs=False,
        phases=(Phase.generate,),  # a failure is all this asks for: no shrinking
    )
    with pytest.raises(AssertionError):
        run_state_machine_as_test(HttpProfileMachine, settings=found)
