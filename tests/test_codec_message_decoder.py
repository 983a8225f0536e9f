"""`message_decoder` (`decode_message` with its strictness and revision bound, the hot
`session/update` shapes checked and built in one call) and `decode_ndjson`'s pure reader
(each line parsed without the `Parsed`, then decoded by it), against the reference.

Laws: `message_decoder(strict, revision)(obj)` gives exactly (==, type, repr) what
`decode_message(obj, strict=strict, revision=revision)` gives, or raises the same
`DecodeError` (path, expected, code); the pure reader gives, line for line, what
`feed_ndjson` and then `decode_message` give. Drawn: every message and update the public
strategies draw at every revision, and hostile mutations of the hot shapes (an unknown member,
`_meta`, a null, a wrong type, a missing member, a member too many). Needs no optional extra.
"""

from __future__ import annotations

import contextlib
import copy
import itertools
from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import acp_core as acp
from acp_core import strategies as acps
from acp_core._errors import DecodeError
from acp_core._wire import _codec_ndjson, _framing
from acp_core._wire._codec import message_decoder
from acp_core._wire._json import thaw_json
from acp_core._wire._revision import REVISIONS

_REVISIONS = st.sampled_from(sorted(REVISIONS.values(), key=lambda r: r.name))


def _outcome(decode: Any, obj: object) -> Any:
    try:
        value = decode(copy.deepcopy(obj))
    except DecodeError as e:
        return ("error", e.path, e.expected, e.code)
    return ("value", type(value), value, repr(value))


def _agrees(obj: object, revision: Any, strict: bool) -> Any:
    bound = message_decoder(strict, revision)
    got = _outcome(bound, obj)
    expected = _outcome(lambda o: acp.decode_message(o, strict=strict, revision=revision), obj)
    assert got == expected, obj
    return got


def _notification(update: Any, session_id: Any = "s") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": session_id, "update": update}}  # fmt: skip


@given(st.data(), st.booleans())
def test_every_update_the_strategies_draw_at_every_revision(
    data: st.DataObject, strict: bool
) -> None:
    revision = data.draw(_REVISIONS)
    update = data.draw(acps.session_updates(revision=revision))
    _agrees(_notification(acp.encode_update(update, revision=revision)), revision, strict)


@given(acps.messages(), _REVISIONS, st.booleans())
def test_every_message_the_strategies_draw(message: Any, revision: Any, strict: bool) -> None:
    _agrees(acp.encode_message(message), revision, strict)


_TEXT = {"type": "text", "text": "hé"}
_HOT = [
    {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": _TEXT},
    {"sessionUpdate": "agent_thought_chunk", "messageId": "m", "content": _TEXT},
    {"sessionUpdate": "user_message_chunk", "messageId": "m", "content": _TEXT},
    {"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c",
     "content": {"type": "content", "content": _TEXT}},
    {"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": "G1sz"},
    {"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": "Read", "kind": "read",
     "status": "pending", "locations": [{"path": "/a"}], "rawInput": {"n": [1, None]}},
    {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"},
]  # fmt: skip
_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), st.text(max_size=4), st.just([]), st.just({}),
    st.sampled_from(["2.0", "session/update", "text", "content", "agent_message_chunk"]),
    st.just(_TEXT), st.just([{"path": "/p"}]), acps.json_values().map(thaw_json),
)  # fmt: skip
_KEYS = st.sampled_from(
    ["_meta", "id", "zz", "type", "text", "content", "messageId", "toolCallId", "sessionUpdate",
     "sessionId", "update", "params", "method", "jsonrpc", "title", "locations", "rawInput",
     "result", "error", "annotations", "name"]
)  # fmt: skip


def _objects(value: Any, found: list[dict[str, Any]]) -> list[dict[str, Any]]:
    if type(value) is dict:
        found.append(value)
        for v in value.values():
            _objects(v, found)
    elif type(value) is list:
        for v in value:
            _objects(v, found)
    return found


def _fresh(value: Any) -> Any:
    # `st.just({})`, `st.just(_TEXT)` hand out one shared object: a later mutation of it must
    # not reach another example (nor put a dict inside itself: a cycle, then RecursionError).
    return copy.deepcopy(value)


@st.composite
def hostile_messages(draw: st.DrawFn) -> Any:
    message: Any = _notification(copy.deepcopy(draw(st.sampled_from(_HOT))))
    for _ in range(draw(st.integers(0, 3))):
        target = draw(st.sampled_from(_objects(message, [])))
        op = draw(st.sampled_from(["add", "replace", "drop"]))
        if op == "add":
            target[draw(_KEYS)] = _fresh(draw(_VALUES))
        elif op == "replace" and target:
            target[draw(st.sampled_from(sorted(target)))] = _fresh(draw(_VALUES))
        elif op == "drop" and target:
            del target[draw(st.sampled_from(sorted(target)))]
    if draw(st.sampled_from([False] * 9 + [True])):
        message = [message]  # a batch
    return message


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(hostile_messages(), _REVISIONS, st.booleans())
def test_hostile_messages_decode_as_decode_message_decodes_them(
    message: Any, revision: Any, strict: bool
) -> None:
    _agrees(message, revision, strict)


def test_the_hot_shapes_decode_and_the_edges_are_refused_alike() -> None:
    # Without this a bound decoder that refused everything the same way would pass the laws.
    revision = acp.DEFAULT_REVISION
    for update in _HOT:
        assert _agrees(_notification(update), revision, False)[0] == "value", update
    edges = [
        {**_notification(_HOT[0]), "id": 1},  # a request: no longer a notification
        {**_notification(_HOT[0]), "jsonrpc": "1.0"},
        {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": "s"}},
        _notification(None),
        _notification(_HOT[0], None),
        _notification(_HOT[0], 7),
        {"jsonrpc": "2.0", "method": "session/update", "params": [_HOT[0]]},
        {**_notification(_HOT[0]), "params": {"sessionId": "s", "update": _HOT[0], "_meta": {}}},
        _notification({**_HOT[0], "_meta": {"k": 1}}),
        _notification({**_HOT[0], "messageId": None}),
        [],
        [_notification(_HOT[0]), 3],
        "session/update",
    ]  # fmt: skip
    outcomes = {str(edge)[:60]: _agrees(edge, revision, strict)[0]
                for edge in edges for strict in (False, True)}  # fmt: skip
    assert "error" in outcomes.values()
    meta = _agrees(_notification({**_HOT[0], "_meta": {"k": 1}}), revision, False)
    assert thaw_json(meta[2].update.meta) == {"k": 1}  # kept by the general path


# -- decode_ndjson's pure reader ----------------------------------------------------------


def _expected(events: list[Any], revision: Any, strict: bool) -> list[Any]:
    out = []
    for event in events:
        decoded = event  # a FramingError, or a value that does not decode
        if type(event) is _framing.Parsed:
            with contextlib.suppress(DecodeError):
                decoded = acp.decode_message(event.value, strict=strict, revision=revision)
        out.append(decoded)
    return out


_LINES = st.one_of(
    hostile_messages().map(acp.encode_ndjson),
    acps.messages().map(acp.encode_message).map(acp.encode_ndjson),
    st.sampled_from([b"{", b"\xff\n", b"[]\n", b"NaN\n", b" {} \n", b"1 2\n", b"\n", b'"x"\n']),
)


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(st.lists(_LINES, max_size=6), st.lists(st.integers(0, 400), max_size=4), _REVISIONS,
       st.booleans())  # fmt: skip
def test_the_pure_reader_is_feed_ndjson_then_decode_message(
    lines: list[bytes], cuts: list[int], revision: Any, strict: bool
) -> None:
    data = b"\n".join(line.rstrip(b"\n").replace(b"\n", b" ") for line in lines) + b"\n"
    bounds = [0, *sorted(min(c, len(data)) for c in cuts), len(data)]
    read = _codec_ndjson._pure_reader(strict, revision)
    framed_decoder = pure_decoder = acp.NdjsonDecoder(max_line=300)
    framed: list[Any] = []
    decoded: list[Any] = []
    for a, b in itertools.pairwise(bounds):
        framed_decoder, events = acp.feed_ndjson(framed_decoder, data[a:b])
        framed.extend(events)
        pure_decoder, out = _framing.feed_lines(pure_decoder, data[a:b], read)
        decoded.extend(out)
    assert pure_decoder == framed_decoder
    expected = _expected(framed, revision, strict)
    assert decoded == expected
    assert [type(x) for x in decoded] == [type(x) for x in expected]
    assert repr(decoded) == repr(expected)
