"""The compiled decoder of the hot `session/update` lines (the `fast` extra's msgspec) against
the pure path: framing's reference parse, then `decode_message`.

Laws: on every line, the compiled decoder gives None or exactly (==, type, repr) the message
the pure path gives; `decode_ndjson` gives what `feed_ndjson` and then `decode_message` give,
in any split; what the compiled decoder does not take (an unknown member, `_meta`, a null, a
wrong type, a huge integer, a duplicate key that disagrees, a lone surrogate, a cut line) is
read the pure way, so unknown members survive. Drawn: every message and update the public
strategies draw at every revision, and hostile mutations of the hot shapes.
"""

from __future__ import annotations

import contextlib
import itertools
import json
from dataclasses import dataclass
from typing import Any

import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

pytest.importorskip("msgspec", reason="the optional `fast` extra (msgspec) is not installed")

import acp_core as acp
from acp_core import strategies as acps
from acp_core._errors import DecodeError
from acp_core._wire import _framing
from acp_core._wire._codec_compiled import compiled_notification, compiled_reader
from acp_core._wire._json import MAX_DEPTH, thaw_json
from acp_core._wire._revision import DEFAULT_REVISION, REVISIONS
from acp_core.connection import compiled_decoder, decode_ndjson


def _pure(line: bytes) -> Any:
    """The reference: the stdlib parse, then `decode_message` (a message, or the failure)."""
    event = _framing._parse_stdlib(line)
    if type(event) is not _framing.Parsed:
        return event
    try:
        return acp.decode_message(event.value)
    except DecodeError as e:
        return e


def _agrees(line: bytes) -> bool:
    """The law on one line; True when the compiled decoder took it."""
    fast = compiled_notification(line)
    if fast is None:
        return False
    pure = _pure(line)
    assert type(fast) is type(pure), (line[:200], pure)
    assert fast == pure, line[:200]
    assert repr(fast) == repr(pure), line[:200]
    assert type(fast.update) is type(pure.update)
    return True


def _notification(update: Any, session_id: str = "s") -> dict[str, Any]:
    return {"jsonrpc": "2.0", "method": "session/update",
            "params": {"sessionId": session_id, "update": update}}  # fmt: skip


# -- what the strategies draw -------------------------------------------------------------


@given(st.data())
def test_every_update_the_strategies_draw_at_every_revision(data: st.DataObject) -> None:
    revision = data.draw(st.sampled_from(sorted(REVISIONS.values(), key=lambda r: r.name)))
    update = data.draw(acps.session_updates(revision=revision))
    wire = acp.encode_update(update, revision=revision)
    line = acp.encode_ndjson(_notification(wire))
    _agrees(line)


@given(acps.messages())
def test_every_message_the_strategies_draw(message: Any) -> None:
    _agrees(acp.encode_ndjson(acp.encode_message(message)))


def test_the_compiled_decoder_takes_every_hot_shape() -> None:
    # Without this a decoder that never takes anything would pass every law above.
    text = {"type": "text", "text": "hé 🙂\n\u001b"}
    hot = [
        {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": text},
        {"sessionUpdate": "agent_thought_chunk", "messageId": "m", "content": text},
        {"sessionUpdate": "user_message_chunk", "messageId": "m", "content": text},
        {"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c",
         "content": {"type": "content", "content": text}},
        {"sessionUpdate": "terminal_output_chunk", "terminalId": "t", "data": "G1sz"},
        {"sessionUpdate": "tool_call_update", "toolCallId": "c"},
        {"sessionUpdate": "tool_call_update", "toolCallId": "c", "title": "Read", "kind": "read",
         "status": "pending", "locations": [{"path": "/a"}, {"path": "/b"}],
         "rawInput": {"path": "/a", "n": [1, 2.5, None, True, {"x": "y"}]}, "rawOutput": None},
        {"sessionUpdate": "tool_call_update", "toolCallId": "c", "locations": [],
         "rawOutput": 18446744073709551616},
        {"sessionUpdate": "user_message", "messageId": "m", "content": [text, text]},
        {"sessionUpdate": "agent_message", "messageId": "m", "content": []},
        {"sessionUpdate": "agent_thought", "messageId": "m", "content": [text]},
        {"sessionUpdate": "state_update", "state": "running"},
        {"sessionUpdate": "state_update", "state": "idle"},
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": "end_turn"},
        {"sessionUpdate": "state_update", "state": "idle", "stopReason": "_x_future"},
    ]  # fmt: skip
    for update in hot:
        line = acp.encode_ndjson(_notification(update))
        assert _agrees(line), update
        # Reordered keys and whitespace are the same JSON: still taken.
        spaced = json.dumps(dict(reversed(_notification(update).items())), indent=1).encode()
        assert _agrees(spaced), update
    assert compiled_decoder() == "msgspec"


def test_the_compiled_reader_reads_the_hot_shapes_and_hands_on_the_rest() -> None:
    # `decode_ndjson`'s reader: the compiled decode in the same call, else the fallback.
    handed: list[bytes] = []

    def fallback(line: bytes) -> str:
        handed.append(line)
        return "fallback"

    read = compiled_reader(fallback)
    text = {"type": "text", "text": "x"}
    for session_id in ("s", "sess-é 1"):
        for update in [
            {"sessionUpdate": "agent_message_chunk", "messageId": "m", "content": text},
            {"sessionUpdate": "tool_call_content_chunk", "toolCallId": "c",
             "content": {"type": "content", "content": text}},
            {"sessionUpdate": "tool_call_update", "toolCallId": "c", "status": "completed"},
        ]:  # fmt: skip
            line = acp.encode_ndjson(_notification(update, session_id))
            got, expected = read(line), _pure(line)
            assert got == expected, update
            assert repr(got) == repr(expected), update
    assert handed == []
    declined = [
        acp.encode_ndjson(_notification({"sessionUpdate": "plan_update", "entries": []})),
        acp.encode_ndjson({**_notification(None), "id": 1}),
        b"{",
    ]
    assert [read(line) for line in declined] == ["fallback"] * 3
    assert handed == declined


# -- hostile lines ------------------------------------------------------------------------


@dataclass
class Obj:
    """A JSON object as written: its members in order, a key possibly twice."""

    pairs: list[tuple[str, Any]]


def _as_obj(value: Any) -> Any:
    if type(value) is dict:
        return Obj([(k, _as_obj(v)) for k, v in value.items()])
    if type(value) is list:
        return [_as_obj(v) for v in value]
    return value


def _dump(value: Any, ascii_only: bool) -> str:
    if isinstance(value, Obj):
        members = (f"{json.dumps(k, ensure_ascii=ascii_only)}:{_dump(v, ascii_only)}"
                   for k, v in value.pairs)  # fmt: skip
        return "{" + ",".join(members) + "}"
    if isinstance(value, list):
        return "[" + ",".join(_dump(v, ascii_only) for v in value) + "]"
    return json.dumps(value, ensure_ascii=ascii_only)


def _objects(value: Any, found: list[Obj]) -> list[Obj]:
    if isinstance(value, Obj):
        found.append(value)
        for _, v in value.pairs:
            _objects(v, found)
    elif isinstance(value, list):
        for v in value:
            _objects(v, found)
    return found


_TEXT = st.one_of(
    st.text(max_size=6), st.sampled_from(["é", "\u0000", "🙂", "text", "\u001b["]),
    st.sampled_from(["\ud800", "\udfff", "a\udc80"]),  # a third of the time: no UTF-8 form
)  # fmt: skip
_HOSTILE_VALUES = st.one_of(
    st.none(), st.booleans(), st.integers(), _TEXT,
    st.floats(allow_nan=False, allow_infinity=False),
    st.sampled_from([2**63, -(2**63) - 1, 2**64, 10**30, 2**14_001, 1.5e300, -0.0, 0]),
    st.lists(st.integers(), max_size=2), st.dictionaries(_TEXT, st.integers(), max_size=2),
    st.just({"type": "text", "text": "x"}), st.just([{"path": "/p"}]),
    st.just({"type": "content", "content": {"type": "text", "text": "x"}}),
)  # fmt: skip
_KEYS = st.sampled_from(
    ["_meta", "type", "text", "content", "messageId", "toolCallId", "sessionUpdate", "title",
     "kind", "status", "locations", "rawInput", "rawOutput", "path", "line", "terminalId", "data",
     "sessionId", "update", "params", "method", "jsonrpc", "id", "annotations", "name", "zz",
     "state", "stopReason", "error", "background"]
) | _TEXT  # fmt: skip
_TAGS = st.sampled_from(
    ["agent_message_chunk", "agent_thought_chunk", "user_message_chunk", "tool_call_update",
     "user_message", "agent_message", "agent_thought", "state_update", "running", "idle",
     "tool_call_content_chunk", "terminal_output_chunk", "agent_message", "plan_update", "text",
     "content", "session/update", "2.0", "1.0"]
)  # fmt: skip


@st.composite
def hot_updates(draw: st.DrawFn) -> dict[str, Any]:
    text = {"type": "text", "text": draw(_TEXT)}
    tag = draw(_TAGS.filter(lambda t: t.endswith(("chunk", "update", "message", "thought"))))
    if tag in ("user_message", "agent_message", "agent_thought"):
        texts = [{"type": "text", "text": t} for t in draw(st.lists(_TEXT, max_size=2))]
        return {"sessionUpdate": tag, "messageId": draw(_TEXT), "content": texts}
    if tag == "state_update":
        update = {"sessionUpdate": tag, "state": draw(st.sampled_from(["running", "idle"]))}
        if draw(st.booleans()):
            update["stopReason"] = draw(st.sampled_from(["end_turn", "cancelled"]) | _TEXT)
        return update
    if tag == "tool_call_update":
        update: dict[str, Any] = {"sessionUpdate": tag, "toolCallId": draw(_TEXT)}
        for key in draw(st.sets(st.sampled_from(["title", "kind", "status"]))):
            update[key] = draw(_TEXT)
        if draw(st.booleans()):
            update["locations"] = [{"path": p} for p in draw(st.lists(_TEXT, max_size=2))]
        for key in draw(st.sets(st.sampled_from(["rawInput", "rawOutput"]))):
            update[key] = draw(_HOSTILE_VALUES)
        return update
    if tag == "tool_call_content_chunk":
        return {"sessionUpdate": tag, "toolCallId": draw(_TEXT),
                "content": {"type": "content", "content": text}}  # fmt: skip
    if tag == "terminal_output_chunk":
        return {"sessionUpdate": tag, "terminalId": draw(_TEXT), "data": draw(_TEXT)}
    return {"sessionUpdate": tag, "messageId": draw(_TEXT), "content": text}


_NOW_AND_THEN = st.sampled_from([False] * 7 + [True])


@st.composite
def hostile_lines(draw: st.DrawFn) -> bytes:
    message = _as_obj(_notification(draw(hot_updates()), draw(_TEXT)))
    for _ in range(draw(st.integers(0, 3))):
        objects = _objects(message, [])
        target = draw(st.sampled_from(objects))
        op = draw(st.sampled_from(["add", "replace", "drop", "duplicate", "retag", "deep"]))
        if op == "add":
            value = draw(_HOSTILE_VALUES | acps.json_values().map(thaw_json))
            target.pairs.append((draw(_KEYS), _as_obj(value)))
        elif op == "replace" and target.pairs:
            i = draw(st.integers(0, len(target.pairs) - 1))
            target.pairs[i] = (target.pairs[i][0], _as_obj(draw(_HOSTILE_VALUES | _TAGS)))
        elif op == "drop" and target.pairs:
            del target.pairs[draw(st.integers(0, len(target.pairs) - 1))]
        elif op == "duplicate" and target.pairs:
            key, _ = draw(st.sampled_from(target.pairs))
            value = draw(_HOSTILE_VALUES | _TAGS | st.sampled_from([v for _, v in target.pairs]))
            target.pairs.insert(draw(st.integers(0, len(target.pairs))), (key, value))
        elif op == "retag" and target.pairs:
            target.pairs.append((draw(st.sampled_from(["sessionUpdate", "type"])), draw(_TAGS)))
        elif op == "deep":
            depth = draw(st.sampled_from([MAX_DEPTH - 2, MAX_DEPTH + 5]))
            target.pairs.append(("rawInput", _nested(depth)))
    line = _dump(message, draw(st.booleans())).encode("utf-8", "surrogatepass")
    # A cut or a changed byte now and then (most of those are no JSON at all).
    if draw(_NOW_AND_THEN):
        line = line[: draw(st.integers(0, len(line)))]
    if draw(_NOW_AND_THEN) and line:
        at = draw(st.integers(0, len(line) - 1))
        line = line[:at] + bytes([draw(st.integers(0, 255))]) + line[at + 1 :]
    return line


def _nested(depth: int) -> list[Any]:
    value: list[Any] = []
    for _ in range(depth):
        value = [value]
    return value


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(hostile_lines())
def test_hostile_lines_give_the_pure_result_or_fall_back(line: bytes) -> None:
    _agrees(line)


def test_the_edges_fall_back_or_agree() -> None:
    chunk = b'"sessionUpdate":"agent_message_chunk","messageId":"m"'
    text = b'"content":{"type":"text","text":"x"}'
    head = b'{"jsonrpc":"2.0","method":"session/update","params":{"sessionId":"s","update":{'
    lines = {
        # What the pure path keeps or refuses, never taken here:
        b"meta": head + chunk + b"," + text + b',"_meta":{"a":1}}}}',
        b"params meta": head + chunk + b"," + text + b'},"_meta":{}}}',
        b"unknown": head + chunk + b',"content":{"type":"text","text":"x","zz":1}}}}',
        b"id": head + chunk + b"," + text + b'}},"id":1}',
        b"null id": head + chunk + b',"content":{"type":"text","text":"x"},"messageId":null}}}',
        b"surrogate": head + chunk + b',"content":{"type":"text","text":"\\ud800"}}}}',
        b"tags disagree": head + chunk + b',"sessionUpdate":"agent_thought_chunk",' + text + b"}}}",
        b"wide": head + b'"sessionUpdate":"tool_call_update","toolCallId":"c","rawInput":'
        + b"9" * 5000 + b"}}}",
        b"annotations": head + chunk + b',"content":{"type":"text","text":"x","annotations":{}}}}}',
        b"image": head + chunk + b',"content":{"type":"image","data":"","mimeType":"a"}}}}',
        b"running stop": head + b'"sessionUpdate":"state_update","state":"running",'
        b'"stopReason":"end_turn"}}}',
        b"requires action": head + b'"sessionUpdate":"state_update","state":"requires_action"}}}',
        b"idle null": head + b'"sessionUpdate":"state_update","state":"idle","stopReason":null}}}',
        b"message image": head + b'"sessionUpdate":"user_message","messageId":"m","content":'
        b'[{"type":"text","text":"x"},{"type":"image","data":"","mimeType":"a"}]}}}',
        # Taken, and the same: the last of two equal tags, the last of two messageIds.
        b"same tags": head + chunk + b',"sessionUpdate":"agent_message_chunk",' + text + b"}}}",
        b"last id": head + chunk + b',"messageId":"n",' + text + b"}}}",
        # Escapes in keys and values are read as the characters they stand for.
        b"escaped": b'{"jsonrpc":"2.0","method":"session\\/update","params":{"sessionId":"s",'
        b'"update":{"sessionUpdat\\u0065":"agent_message_chunk","messageId":"m",'
        b'"content":{"type":"text","text":"x\\u00e9"}}}}',
    }  # fmt: skip
    taken = {name for name, line in lines.items() if _agrees(line)}
    assert taken == {b"same tags", b"last id", b"escaped"}
    assert _pure(lines[b"last id"]).update.message_id == "n"


def test_unknown_members_survive_through_the_fallback() -> None:
    update = {"sessionUpdate": "agent_message_chunk", "messageId": "m", "_meta": {"k": [1]},
              "zz": True, "content": {"type": "text", "text": "x", "_x": "y"}}  # fmt: skip
    message = {**_notification(update), "zz_env": 2}
    message["params"]["_meta"] = {"trace": "t"}
    line = acp.encode_ndjson(message)
    assert compiled_notification(line) is None
    _, events = decode_ndjson(acp.NdjsonDecoder(), line)
    (decoded,) = events
    assert acp.encode_message(decoded) == message
    assert decoded.update.extra["zz"] is True
    assert decoded.update.content.extra["_x"] == "y"


# -- decode_ndjson ------------------------------------------------------------------------


def _expected(events: list[Any], revision: Any, strict: bool) -> list[Any]:
    out = []
    for event in events:
        decoded = event  # a FramingError, or a value that does not decode
        if type(event) is _framing.Parsed:
            with contextlib.suppress(DecodeError):
                decoded = acp.decode_message(event.value, strict=strict, revision=revision)
        out.append(decoded)
    return out


@settings(suppress_health_check=[HealthCheck.too_slow])
@given(
    st.lists(hostile_lines() | acps.messages().map(acp.encode_message).map(acp.encode_ndjson),
             max_size=6),
    st.lists(st.integers(0, 400), max_size=4),
    st.sampled_from(sorted(REVISIONS.values(), key=lambda r: r.name)),
    st.booleans(),
)  # fmt: skip
def test_decode_ndjson_is_feed_ndjson_then_decode_message(
    lines: list[bytes], cuts: list[int], revision: Any, strict: bool
) -> None:
    data = b"\n".join(line.replace(b"\n", b" ") for line in lines) + b"\n"
    bounds = [0, *sorted(min(c, len(data)) for c in cuts), len(data)]
    pieces = [data[a:b] for a, b in itertools.pairwise(bounds)]
    framed_decoder = fast_decoder = acp.NdjsonDecoder(max_line=300)
    framed: list[Any] = []
    decoded: list[Any] = []
    for piece in pieces:
        framed_decoder, events = acp.feed_ndjson(framed_decoder, piece)
        framed.extend(events)
        fast_decoder, out = decode_ndjson(fast_decoder, piece, strict=strict, revision=revision)
        decoded.extend(out)
    assert fast_decoder == framed_decoder
    expected = _expected(framed, revision, strict)
    assert decoded == expected
    assert [type(x) for x in decoded] == [type(x) for x in expected]
    assert repr(decoded) == repr(expected)


def test_decode_ndjson_refuses_what_is_not_bytes() -> None:
    with pytest.raises(acp.ArgumentError):
        decode_ndjson(acp.NdjsonDecoder(), "{}\n")  # type: ignore[arg-type]
    assert decode_ndjson(acp.NdjsonDecoder(), bytearray(b"{}\n"))[1] == (_framing.Parsed({}),)
    assert DEFAULT_REVISION in REVISIONS.values()
