"""What lenient decoding tolerates in the peer's line is the checker's finding at the
connection too: D1 (a malformed optional field dropped, an invalid array item dropped, a
batch entry that does not decode) and J45 (the agent's malformed `_meta`), named by the
checker's own deciders, in the checker's order, on every read path; and what a batch breaks
by what it puts together (R35, R44), which no one item's rules can see.

Each line is fed as bytes to a connection opened by its own set-up, and the connection's
findings are compared (rule ids and words, in order) with what the protocol machine (the
fold `check_trace` is) finds reading the same wire line after the same set-up. The client
connection is read three ways: the general path (the line alone), the run path (the line in
the middle of a run of good chunks of one read) and, where msgspec is installed, with the
compiled decoder of the hot lines on (which declines every one of these lines: the pure
path must name them). The agent connection's twin reads the client's lines.
"""

from __future__ import annotations

import json
from typing import Any

import pytest
from conn_pair import Pair
from test_connection_by_hand import _ready
from test_connection_update_runs import _decoder, _one_at_a_time

import acp_core as acp
from acp_core import connection as c
from acp_core.protocol import Protocol, observe

SID = "sess_1"
REVISIONS = (acp.V2_2026_08, acp.V2_2026_11, acp.V2_PREVIEW)


def _update(update: dict[str, Any]) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": SID, "update": update}}  # fmt: skip


def _chunk(text: str = "x", **content: Any) -> dict[str, Any]:
    block = {"type": "text", "text": text, **content}
    return _update({"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": block})


_BAD_ITEM = {"type": 5}
_GOOD_ITEM = {"type": "content", "content": {"type": "text", "text": "a"}}
_ASK = {"sessionId": SID, "title": "Run?",
        "options": [{"optionId": "o1", "name": "Allow", "kind": "allow_once"}]}  # fmt: skip
_LIST = c.SendRequest("session/list", {}, request_id=7)

# (id, what the client sends first (or None), the agent's line, the rules the checker names)
AGENT_LINES = [
    ("chunk-annotations-malformed", None, _chunk(annotations=5), ["D1"]),
    ("thought-annotation-priority-malformed", None,
     _update({"sessionUpdate": "agent_thought_chunk", "messageId": "th",
              "content": {"type": "text", "text": "x", "annotations": {"priority": "hi"}}}),
     ["D1"]),
    ("tool-call-update-content-item-dropped", None,
     _update({"sessionUpdate": "tool_call_update", "toolCallId": "t1", "title": "Run",
              "content": [_GOOD_ITEM, _BAD_ITEM]}), ["D1"]),
    ("command-item-dropped", None,
     _update({"sessionUpdate": "available_commands_update",
              "availableCommands": [{"name": "a", "description": "d"}, {"name": 5}]}), ["D1"]),
    ("two-faults-in-one-update", None, _chunk(annotations=5, _meta=[1]), ["J45", "D1"]),
    ("update-meta-a-string", None,
     _update({"sessionUpdate": "agent_message_chunk", "messageId": "m",
              "content": {"type": "text", "text": "x"}, "_meta": "zz"}), ["J45"]),
    ("content-meta-a-number", None, _chunk(_meta=3), ["J45"]),
    ("permission-request-meta-a-string", None,
     {"jsonrpc": "2.0", "id": "p1", "method": "session/request_permission",
      "params": {**_ASK, "_meta": "x"}}, ["J45"]),
    ("result-meta-a-string", _LIST,
     {"jsonrpc": "2.0", "id": 7, "result": {"sessions": [], "_meta": "zed"}}, ["J45"]),
    ("error-data-meta-a-string", _LIST,
     {"jsonrpc": "2.0", "id": 7, "error": {"code": -32000, "message": "no",
                                           "data": {"_meta": "x"}}}, ["J45"]),
    ("batch-with-one-bad-entry", None, [_chunk(), {"jsonrpc": "2.0", "method": 5}], ["D1"]),
    ("batch-with-a-tolerated-field", None, [_chunk(), _chunk(annotations=5)], ["D1"]),
    # What a batch breaks by what it puts together (R35, R44), before any item's rules.
    ("batch-two-output-chunks-of-one-terminal", None,
     [_update({"sessionUpdate": "terminal_output_chunk", "terminalId": "t1", "data": "YQ=="}),
      _update({"sessionUpdate": "terminal_output_chunk", "terminalId": "t1", "data": "Yg=="})],
     ["R35"]),
    ("batch-output-chunks-of-two-terminals", None,
     [_update({"sessionUpdate": "terminal_output_chunk", "terminalId": "t1", "data": "YQ=="}),
      _update({"sessionUpdate": "terminal_output_chunk", "terminalId": "t2", "data": "Yg=="})],
     []),
    ("a-good-chunk", None, _chunk(), []),
    ("a-good-result", _LIST, {"jsonrpc": "2.0", "id": 7, "result": {"sessions": []}}, []),
]  # fmt: skip


def _bytes(message: object) -> bytes:
    return json.dumps(message).encode() + b"\n"


def _machine(trace: list[dict[str, Any]], revision: acp.Revision) -> tuple[Protocol, int]:
    protocol = Protocol.start(revision)
    for i, entry in enumerate(trace):
        protocol, _ = observe(protocol, entry["from"], entry["message"], at=i)
    return protocol, len(trace)


def _checked(protocol: Protocol, at: int, lines: list[tuple[str, object]]) -> list[tuple[str, str]]:
    """What the protocol machine finds in `lines` (sender, message), read from line `at`."""
    found = []
    for i, (side, message) in enumerate(lines, start=at):
        protocol, violations = observe(protocol, side, message, at=i)
        found.extend((v.rule, v.message) for v in violations)
    return found


def _findings(step: c.ConnectionStep) -> list[tuple[str, str]]:
    return [(e.rule, e.detail) for e in step.events if isinstance(e, c.Finding)]


def _client(revision: acp.Revision, before: object) -> tuple[c.ClientConnection, Protocol, int]:
    conn, trace = _ready(revision)
    if before is not None:
        step = c.connection_step(conn, before)
        conn = step.connection
        trace.extend({"from": "client", "message": m} for m in step.outbound)
    protocol, at = _machine(trace, revision)
    return conn, protocol, at


def _paths() -> list[bool]:
    return [False, True] if c.compiled_decoder() == "msgspec" else [False]


@pytest.mark.parametrize("compiled", _paths(), ids=lambda on: "compiled" if on else "pure")
@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize(
    ("before", "line", "rules"), [pytest.param(*k[1:], id=k[0]) for k in AGENT_LINES]
)
def test_the_client_connection_names_what_the_checker_names_in_the_agents_line(
    revision: acp.Revision, before: object, line: object, rules: list[str], compiled: bool
) -> None:
    conn, protocol, at = _client(revision, before)
    with _decoder(compiled):
        step = c.receive_bytes(conn, _bytes(line))
    checked = _checked(protocol, at, [("agent", line)])
    assert [rule for rule, _ in checked] == rules
    assert _findings(step) == checked


@pytest.mark.parametrize("compiled", _paths(), ids=lambda on: "compiled" if on else "pure")
@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize(
    ("before", "line", "rules"),
    [pytest.param(*k[1:], id=k[0]) for k in AGENT_LINES if k[1] is None],
)
def test_a_run_of_good_chunks_names_the_bad_line_in_its_middle(
    revision: acp.Revision, before: object, line: object, rules: list[str], compiled: bool
) -> None:
    conn, protocol, at = _client(revision, before)
    good = [_chunk(f"t{i}") for i in range(4)]
    lines = [*good[:2], line, *good[2:]]
    data = b"".join(_bytes(m) for m in lines)
    with _decoder(compiled):
        step = c.receive_bytes(conn, data)
    checked = _checked(protocol, at, [("agent", m) for m in lines])
    assert [rule for rule, _ in checked] == rules
    assert _findings(step) == checked
    # The law of the runs: the read at once is the read one value at a time.
    alone = _one_at_a_time(conn, data)
    assert step.events == alone.events
    assert step.connection == alone.connection


def test_the_compiled_decoder_declines_every_line_of_the_table() -> None:
    # Not vacuous: the good chunk is taken, each line with a fault is left to the pure path.
    pytest.importorskip("msgspec", reason="the optional `fast` extra (msgspec)")
    from acp_core._wire._codec_compiled import compiled_notification

    assert compiled_notification(_bytes(_chunk())) is not None
    for _, _, line, rules in AGENT_LINES:
        if rules:
            assert compiled_notification(_bytes(line)) is None, line


# -- the agent connection: the client's lines ---------------------------------------------------


def _agent(revision: acp.Revision) -> tuple[Pair, str, Protocol, int]:
    pair = Pair(revision=revision)
    sid = pair.open("/w")
    protocol, at = _machine(pair.agent_trace, revision)
    return pair, sid, protocol, at


def _prompt(sid: str, *blocks: dict[str, Any], **params: Any) -> dict[str, Any]:
    return {"jsonrpc": "2.0", "id": 50, "method": "session/prompt",
            "params": {"sessionId": sid, "prompt": list(blocks), **params}}  # fmt: skip


_TEXT = {"type": "text", "text": "hi"}

# (id, the client's line for session `sid`, the rules the checker names)
CLIENT_LINES = [
    ("prompt-block-annotations-malformed",
     lambda sid: _prompt(sid, {**_TEXT, "annotations": 5}), ["D1"]),
    ("prompt-block-meta-a-string", lambda sid: _prompt(sid, {**_TEXT, "_meta": "x"}), ["D1"]),
    ("cancel-meta-a-string",
     lambda sid: {"jsonrpc": "2.0", "method": "session/cancel",
                  "params": {"sessionId": sid, "_meta": "x"}}, ["D1"]),
    ("batch-with-one-bad-entry",
     lambda sid: [{"jsonrpc": "2.0", "method": 5}, {"jsonrpc": "2.0", "method": "_x/ping"}],
     ["D1"]),
    # What a batch breaks by what it puts together (R44), before any item's rules.
    ("batch-a-prompt-and-a-ping",
     lambda sid: [_prompt(sid, _TEXT), {"jsonrpc": "2.0", "method": "_x/ping"}], ["R44"]),
    ("batch-two-pings", lambda sid: [{"jsonrpc": "2.0", "method": "_x/ping"}] * 2, []),
    ("a-good-prompt", lambda sid: _prompt(sid, _TEXT), []),
]  # fmt: skip


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize(("line", "rules"), [pytest.param(*k[1:], id=k[0]) for k in CLIENT_LINES])
def test_the_agent_connection_names_what_the_checker_names_in_the_clients_line(
    revision: acp.Revision, line: Any, rules: list[str]
) -> None:
    pair, sid, protocol, at = _agent(revision)
    message = line(sid)
    step = acp.receive_bytes(pair.agent, _bytes(message))
    checked = _checked(protocol, at, [("client", message)])
    assert [rule for rule, _ in checked] == rules
    assert _findings(step) == checked


def test_the_lazy_decode_is_the_diagnosed_decode() -> None:
    # The connections' one decode: the value and diagnostics `decode_message_diagnosed` gives.
    from acp_core._wire._codec import decode_message_diagnosed, decode_message_diagnosed_lazily

    lines = [k[2] for k in AGENT_LINES] + [k[1]("s") for k in CLIENT_LINES]
    for revision in REVISIONS:
        for line in lines:
            assert decode_message_diagnosed_lazily(line, revision=revision) == (
                decode_message_diagnosed(line, revision=revision)
            )


# -- the agent connection after a refused `initialize` --------------------------------------

_REFUSED_INIT = {"jsonrpc": "2.0", "id": 0, "method": "initialize",
                 "params": {"protocolVersion": 1, "info": {"name": "c", "version": "1"},
                            "capabilities": {}}}  # fmt: skip

# (id, the client's line after its `initialize` was refused, the schema rules the checker names)
LINES_AFTER_A_REFUSAL = [
    ("cancel-meta-a-string", {"jsonrpc": "2.0", "method": "session/cancel",
                              "params": {"sessionId": "s", "_meta": "x"}}, ["D1"]),
    ("cancel-params-a-number", {"jsonrpc": "2.0", "method": "session/cancel", "params": 5},
     ["D1"]),
    ("a-good-ping", {"jsonrpc": "2.0", "method": "_x/ping"}, []),
]  # fmt: skip


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize(
    ("line", "rules"), [pytest.param(*k[1:], id=k[0]) for k in LINES_AFTER_A_REFUSAL]
)
def test_a_line_served_no_more_is_still_judged_against_the_schema(
    revision: acp.Revision, line: dict[str, Any], rules: list[str]
) -> None:
    # After a refused `initialize` nothing but another `initialize` is served; the checker
    # reads every line all the same, so its schema findings are the connection's too (the
    # connection adds its own E5: the line was ignored).
    conn = c.new_agent_connection(c.Implementation("a", "1"), revision=revision)
    refused = acp.receive_bytes(conn, _bytes(_REFUSED_INIT))
    trace = [{"from": "client", "message": _REFUSED_INIT}]
    trace.extend({"from": "agent", "message": m} for m in refused.outbound)
    protocol, at = _machine(trace, revision)
    step = acp.receive_bytes(refused.connection, _bytes(line))
    checked = _checked(protocol, at, [("client", line)])
    assert [rule for rule, _ in checked] == rules
    assert [f for f in _findings(step) if f[0] != "E5"] == checked
    assert [rule for rule, _ in _findings(step)][-1:] == ["E5"]


# -- a batch the host decoded itself (`Received`) ------------------------------------------

# The batches, and the answers whose `_meta` is left as JSON (the encoding keeps it: J45).
_RECEIVED = [
    k for k in AGENT_LINES
    if "terminal" in k[0] or (k[0].endswith("meta-a-string") and k[1] is not None)
]  # fmt: skip


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize(
    ("before", "line", "rules"), [pytest.param(*k[1:], id=k[0]) for k in _RECEIVED]
)
def test_a_received_message_is_judged_as_a_line_by_the_client_connection(
    revision: acp.Revision, before: object, line: Any, rules: list[str]
) -> None:
    assert len(_RECEIVED) == 4
    conn, protocol, at = _client(revision, before)
    decoded = acp.decode_message(line, revision=revision)
    step = c.connection_step(conn, acp.Received(decoded))
    checked = _checked(protocol, at, [("agent", line)])
    assert [rule for rule, _ in checked] == rules
    assert _findings(step) == checked


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
@pytest.mark.parametrize(
    ("line", "rules"),
    [pytest.param(*k[1:], id=k[0]) for k in CLIENT_LINES if k[0].startswith("batch-")],
)
def test_a_received_batch_is_judged_as_a_line_by_the_agent_connection(
    revision: acp.Revision, line: Any, rules: list[str]
) -> None:
    pair, sid, protocol, at = _agent(revision)
    message = line(sid)
    decoded = acp.decode_message(message, revision=revision)
    step = c.connection_step(pair.agent, acp.Received(decoded))
    checked = _checked(protocol, at, [("client", message)])
    assert [rule for rule, _ in checked] == rules
    assert _findings(step) == checked
