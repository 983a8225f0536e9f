"""The Streamable HTTP profile, server side, sans-IO (`acp_core._wire._http`).

Tables of the RFD's answers (as the TypeScript SDK 2.4.0 gives them), the routing of every
agent message to its stream, and a property: a reader that drops its stream anywhere and
resumes with `Last-Event-ID` gets every event exactly once, in order.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_core._errors import ArgumentError
from acp_core._wire._http import (
    CONNECTION_STREAM,
    HttpLimits,
    HttpRequest,
    HttpServer,
    http_receive,
    http_send,
    http_stream_closed,
    new_http_server,
)
from acp_core._wire._sse import SseDecoder, feed_sse

JSON_HEADERS = (("Content-Type", "application/json"),)
INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize", "params": {"protocolVersion": 2}}


def post(message: Any, *headers: tuple[str, str], raw: bytes | None = None) -> HttpRequest:
    body = json.dumps(message).encode() if raw is None else raw
    return HttpRequest("POST", (*JSON_HEADERS, *headers), body)


def get(*headers: tuple[str, str]) -> HttpRequest:
    return HttpRequest("GET", (("Accept", "text/event-stream"), *headers))


def conn(cid: str = "c1") -> tuple[str, str]:
    return ("Acp-Connection-Id", cid)


def sess(sid: str) -> tuple[str, str]:
    return ("Acp-Session-Id", sid)


def initialized(limits: HttpLimits | None = None) -> HttpServer:
    server, received = http_receive(new_http_server(limits), post(INIT), new_connection_id="c1")
    assert received.response is None
    assert received.inbound == INIT
    server, sent = http_send(server, "c1", {"jsonrpc": "2.0", "id": 0, "result": {}})
    assert sent.initialize is not None
    assert sent.initialize.status == 200
    assert ("Acp-Connection-Id", "c1") in sent.initialize.headers
    assert json.loads(sent.initialize.body) == {"jsonrpc": "2.0", "id": 0, "result": {}}
    return server


def events(data: bytes) -> list[tuple[str | None, Any]]:
    _, found = feed_sse(SseDecoder(), data)
    return [(e.id, json.loads(e.data)) for e in found]


def update(sid: str, n: int) -> dict[str, Any]:
    chunk = {"sessionUpdate": "agent_message_chunk", "messageId": "m",
             "content": {"type": "text", "text": str(n)}}  # fmt: skip
    return {"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": sid, "update": chunk}}  # fmt: skip


PROMPT = {"jsonrpc": "2.0", "id": 3, "method": "session/prompt",
          "params": {"sessionId": "s1", "prompt": []}}  # fmt: skip

# (request, status) for requests the endpoint refuses before any agent sees them.
REFUSALS = [
    (HttpRequest("PUT"), 405),
    (HttpRequest("POST", (("Content-Type", "text/plain"),), b"{}"), 415),
    (post(None, raw=b"{not json"), 400),
    (post(None, raw=b"\xff"), 400),
    (post([INIT]), 400),  # a batch: one -32600, nothing run
    (post(5), 400),
    (post(INIT, conn()), 400),  # initialize on an existing connection
    (post({"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {}}), 400),
    (post({"jsonrpc": "2.0", "id": 1, "method": "session/new"}, conn("nope")), 404),
    (post(PROMPT, conn()), 400),  # session-scoped without Acp-Session-Id
    (post(PROMPT, conn(), sess("s2")), 400),  # mismatched
    (HttpRequest("GET", (conn(),)), 406),
    (get(), 400),
    (get(conn("nope")), 404),
    (HttpRequest("DELETE"), 400),
    (HttpRequest("DELETE", (conn("nope"),)), 404),
]


@pytest.mark.parametrize(("request_", "status"), REFUSALS)
def test_the_endpoint_refuses_what_the_rfd_refuses(request_: HttpRequest, status: int) -> None:
    server = initialized()
    after, received = http_receive(server, request_)
    assert received.response is not None
    assert received.response.status == status
    assert received.inbound is None  # nothing reaches an agent
    assert after == server


def test_a_batch_gets_one_json_rpc_error() -> None:
    _, received = http_receive(initialized(), post([INIT]))
    assert received.response is not None
    assert json.loads(received.response.body)["error"]["code"] == -32600


def test_initialize_needs_a_connection_id_from_the_host() -> None:
    _, received = http_receive(new_http_server(), post(INIT))
    assert received.response is not None
    assert received.response.status == 503
    server = initialized()
    _, again = http_receive(server, post(INIT), new_connection_id="c1")  # taken
    assert again.response is not None
    assert again.response.status == 503


def test_each_message_goes_on_its_stream() -> None:
    server = initialized()
    new = {"jsonrpc": "2.0", "id": 1, "method": "session/new", "params": {"cwd": "/"}}
    server, received = http_receive(server, post(new, conn()))
    assert received.response is not None
    assert received.response.status == 202
    assert received.inbound == new
    created = {"jsonrpc": "2.0", "id": 1, "result": {"sessionId": "s1"}}
    server, sent = http_send(server, "c1", created)
    assert sent.stream == CONNECTION_STREAM
    assert sent.data == b""
    server, received = http_receive(server, post(PROMPT, conn(), sess("s1")))
    assert received.response is not None
    assert received.response.status == 202
    server, sent = http_send(server, "c1", update("s1", 1))
    assert sent.stream == "s1"
    asked = {"jsonrpc": "2.0", "id": 9, "method": "session/request_permission",
             "params": {"sessionId": "s1", "options": []}}  # fmt: skip
    server, sent = http_send(server, "c1", asked)
    assert sent.stream == "s1"
    # The client's answer may not name another session than the one its request came on;
    # naming none is taken (the request id names it; the Python SDK 0.12.1 names none).
    answer = {"jsonrpc": "2.0", "id": 9, "result": {"outcome": {"outcome": "cancelled"}}}
    _, wrong = http_receive(server, post(answer, conn(), sess("s2")))
    assert wrong.response is not None
    assert wrong.response.status == 400
    assert wrong.response.body == b"Mismatched Acp-Session-Id"
    _, bare = http_receive(server, post(answer, conn()))
    assert bare.response is not None
    assert bare.response.status == 202
    assert bare.inbound == answer
    server, right = http_receive(server, post(answer, conn(), sess("s1")))
    assert right.response is not None
    assert right.response.status == 202
    assert right.inbound == answer
    server, sent = http_send(server, "c1", {"jsonrpc": "2.0", "id": 3, "result": {}})
    assert sent.stream == "s1"  # a response goes where its request came from
    # The streams hold what was buffered, numbered per stream.
    server, opened = http_receive(server, get(conn()))
    assert opened.opened is not None
    assert opened.opened.stream == CONNECTION_STREAM
    assert opened.response is not None
    assert [i for i, _ in events(opened.response.body)] == ["1"]
    server, opened = http_receive(server, get(conn(), sess("s1")))
    assert opened.response is not None
    assert [(i, m.get("id")) for i, m in events(opened.response.body)] == [
        ("1", None), ("2", 9), ("3", 3),
    ]
    # Now read: the next event is written at once.
    server, sent = http_send(server, "c1", update("s1", 2))
    assert events(sent.data) == [("4", update("s1", 2))]
    _, twice = http_receive(server, get(conn(), sess("s1")))
    assert twice.response is not None
    assert twice.response.status == 409


def test_session_load_answers_on_the_connection_stream() -> None:
    server = initialized()
    load = {"jsonrpc": "2.0", "id": 2, "method": "session/load", "params": {"sessionId": "s1"}}
    server, _ = http_receive(server, post(load, conn(), sess("s1")))
    _, sent = http_send(server, "c1", {"jsonrpc": "2.0", "id": 2, "result": {}})
    assert sent.stream == CONNECTION_STREAM


def test_delete_ends_the_connection() -> None:
    server, received = http_receive(initialized(), HttpRequest("DELETE", (conn(),)))
    assert received.closed
    assert received.response is not None
    assert received.response.status == 202
    assert "c1" not in server.connections
    _, sent = http_send(server, "c1", update("s1", 1))
    assert sent.closed


@given(st.lists(st.booleans(), min_size=1, max_size=40), st.data())
def test_a_reader_that_drops_and_resumes_gets_every_event_once(
    drops: list[bool], data: st.DataObject
) -> None:
    server = initialized()
    server, first = http_receive(server, get(conn(), sess("s1")))
    assert first.response is not None
    seen = events(first.response.body)
    reading = True
    for n, drop in enumerate(drops):
        server, sent = http_send(server, "c1", update("s1", n))
        # A write may fail to reach the reader (its stream broke); nothing after it does
        # until the reader comes back.
        if reading and data.draw(st.booleans()):
            seen += events(sent.data)
        else:
            reading = False
        if drop:
            server = http_stream_closed(server, "c1", "s1")
            last = seen[-1][0] if seen else "0"
            server, again = http_receive(server, get(conn(), sess("s1"), ("Last-Event-ID", last)))
            assert again.response is not None
            assert again.opened is not None
            assert again.opened.missed is None
            seen += events(again.response.body)
            reading = True
    server = http_stream_closed(server, "c1", "s1")
    last = seen[-1][0] if seen else "0"
    _, final = http_receive(server, get(conn(), sess("s1"), ("Last-Event-ID", last)))
    assert final.response is not None
    seen += events(final.response.body)
    assert [int(i or 0) for i, _ in seen] == list(range(1, len(drops) + 1))
    assert [m["params"]["update"]["content"]["text"] for _, m in seen] == [
        str(n) for n in range(len(drops))
    ]


def test_what_is_no_longer_kept_is_said_not_skipped() -> None:
    limits = HttpLimits(replay_bytes=400)
    server = initialized(limits)
    server, _ = http_receive(server, get(conn(), sess("s1")))
    for n in range(20):
        server, _ = http_send(server, "c1", update("s1", n))
    server = http_stream_closed(server, "c1", "s1")
    _, again = http_receive(server, get(conn(), sess("s1"), ("Last-Event-ID", "2")))
    assert again.opened is not None
    assert again.opened.missed is not None
    first, last = again.opened.missed
    assert first == 3
    assert last >= first
    assert again.response is not None
    assert b"no longer kept" in again.response.body
    got = [int(i or 0) for i, _ in events(again.response.body)]
    assert got == list(range(last + 1, 21))


def test_a_read_stream_keeps_a_bounded_window_however_long_it_runs() -> None:
    # What is kept for a resume is trimmed as events are written (no tuple grows per event).
    limits = HttpLimits(replay_bytes=2000)
    server = initialized(limits)
    server, _ = http_receive(server, get(conn(), sess("s1")))
    for n in range(3000):
        server, sent = http_send(server, "c1", update("s1", n))
        assert sent.data
    stream = server.connections["c1"].streams["s1"]
    assert stream.written_bytes <= 2000
    assert len(stream.events) == stream.next_id - stream.first_id < 20
    assert stream.next_id == 3001


def test_buffered_output_is_bounded_and_the_connection_closed_over_it() -> None:
    server = initialized(HttpLimits(max_buffered_bytes=2000))
    closed = False
    for n in range(100):
        server, sent = http_send(server, "c1", update("s1", n))
        if sent.closed:
            closed = True
            break
    assert closed
    assert "c1" not in server.connections
    server = initialized(HttpLimits(max_session_streams=3))
    results = []
    for n in range(5):
        server, sent = http_send(server, "c1", update(f"s{n}", n))
        results.append(sent.closed)
    assert results == [False, False, False, True, True]


def test_arguments_that_are_not_the_values_named_are_the_callers_error() -> None:
    with pytest.raises(ArgumentError):
        http_receive(object(), HttpRequest("GET"))  # type: ignore[arg-type]
    with pytest.raises(ArgumentError):
        http_send(initialized(), "c1", {"x": object()})


@pytest.mark.parametrize("bad", ["abc", "-1", "1.5", "\u0661", "9" * 40, "2"])
def test_a_last_event_id_this_stream_never_gave_is_refused_and_changes_nothing(bad: str) -> None:
    # Ids are 1, 2, 3... per stream; one event was sent, so only "0" and "1" are ids a reader
    # can hold. Anything else gets 400 (replaying from a guess could skip what it never got)
    # and the stream still resumes from a real id afterwards.
    server = initialized()
    server, _ = http_receive(server, get(conn(), sess("s1")))
    server, _ = http_send(server, "c1", update("s1", 0))
    server = http_stream_closed(server, "c1", "s1")
    after, refused = http_receive(server, get(conn(), sess("s1"), ("Last-Event-ID", bad)))
    assert refused.response is not None
    assert refused.response.status == 400
    assert refused.opened is None
    assert after == server
    _, again = http_receive(after, get(conn(), sess("s1"), ("Last-Event-ID", "0")))
    assert again.response is not None
    assert [i for i, _ in events(again.response.body)] == ["1"]


def test_an_answer_to_an_id_already_answered_goes_on_the_connection_stream() -> None:
    # Found by fuzzing the server (session s6, attack): a client that POSTs two requests with
    # one id gets two answers from the agent connection (the second an error); routing the
    # second raised KeyError (the route was gone with the first).
    server = initialized()
    request = {"jsonrpc": "2.0", "id": 7, "method": "session/new", "params": {"cwd": "/w"}}
    for _ in range(2):
        server, received = http_receive(server, post(request, conn()))
        assert received.inbound == request
    server, first = http_send(server, "c1", {"jsonrpc": "2.0", "id": 7, "result": {}})
    error = {"jsonrpc": "2.0", "id": 7, "error": {"code": -32600, "message": "id in use"}}
    server, second = http_send(server, "c1", error)
    assert first.stream == second.stream == CONNECTION_STREAM
    assert not second.closed
