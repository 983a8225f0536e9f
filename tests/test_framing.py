"""Framing: NDJSON bytes in any split give messages or framing errors, and back.

Laws: splitting the input never changes the events; any bytes give events, never an
exception; what the decoder holds is bounded by the line limit; encoding then decoding is the
identity. Tables: the hostile lines of issue 12.
"""

from __future__ import annotations

import json
import re
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import acp_core as acp
from acp_core._wire._framing import (
    FramingError,
    NdjsonDecoder,
    Parsed,
    decode_frame,
    encode_frame,
    encode_ndjson,
    feed_ndjson,
    finish_ndjson,
)


def _feed_all(pieces: list[bytes], *, max_line: int = 1 << 20) -> tuple[list[Any], NdjsonDecoder]:
    decoder = NdjsonDecoder(max_line)
    events: list[Any] = []
    for piece in pieces:
        decoder, out = feed_ndjson(decoder, piece)
        events.extend(out)
        assert decoder.pending_size <= max_line
        assert decoder.pending_size == sum(map(len, decoder.pending))
    return events, decoder


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    out, last = [], 0
    for p in points:
        out.append(data[last:p])
        last = p
    out.append(data[last:])
    return out


def _summary(events: list[Any]) -> list[Any]:
    return [("ok", e.value) if isinstance(e, Parsed) else ("err", e.kind) for e in events]


# -- tables ----------------------------------------------------------------------------------

HOSTILE = [
    (b"[" * 100_000 + b"]" * 100_000, "invalid_json"),
    (b'{"jsonrpc":"2.0","id":' + b"7" * 5000 + b',"method":"x"}', "invalid_json"),
    (b"\xff\xfe not utf-8", "invalid_utf8"),
    (b'{"a": NaN}', "invalid_json"),
    (b'{"a": Infinity}', "invalid_json"),
    (b"this is not json", "invalid_json"),
    (b'{"a": 1', "invalid_json"),
    (b'{"a": 1} {"b": 2}', "invalid_json"),
]


def test_each_hostile_line_is_a_parse_error_and_the_next_line_still_parses() -> None:
    for line, kind in HOSTILE:
        events, decoder = _feed_all([line + b"\n" + b'{"ok":true}\n'])
        assert _summary(events) == [("err", kind), ("ok", {"ok": True})], line[:40]
        error = events[0]
        assert isinstance(error, FramingError)
        assert error.reply["id"] is None
        assert error.reply["error"]["code"] == -32700
        assert decoder.pending == ()


def test_valid_but_unusual_json_lines_parse() -> None:
    lines = [b"null", b"[]", b"[[1]]", b'"\\ud800"', b"  {}  ", b"{}\r"]
    events, _ = _feed_all([b"\n".join(lines) + b"\n"])
    assert _summary(events) == [
        ("ok", None),
        ("ok", []),
        ("ok", [[1]]),
        ("ok", "\ud800"),
        ("ok", {}),
        ("ok", {}),
    ]


def test_blank_lines_are_skipped() -> None:
    events, _ = _feed_all([b"\n\n  \n\t\r\n{}\n\n"])
    assert _summary(events) == [("ok", {})]


def test_a_line_over_the_limit_is_reported_once_skipped_and_the_stream_goes_on() -> None:
    long = b'{"x":"' + b"a" * 100 + b'"}'
    for pieces in ([long + b"\n{}\n"], [bytes([b]) for b in long + b"\n{}\n"]):
        events, decoder = _feed_all(pieces, max_line=64)
        assert _summary(events) == [("err", "too_long"), ("ok", {})]
        assert events[0].reply["error"]["code"] == -32700
        assert not decoder.skipping


def test_a_line_exactly_at_the_limit_is_accepted() -> None:
    line = b'"' + b"a" * 62 + b'"'
    assert len(line) == 64
    events, _ = _feed_all([line, b"\n"], max_line=64)
    assert _summary(events) == [("ok", "a" * 62)]


def test_an_unfinished_last_line_is_returned_at_the_end_of_input() -> None:
    _, decoder = _feed_all([b'{"a":1}\n{"b":'])
    assert _summary(list(finish_ndjson(decoder))) == [("err", "invalid_json")]
    _, decoder = _feed_all([b'{"a":1}\n{"b":2}'])
    assert _summary(list(finish_ndjson(decoder))) == [("ok", {"b": 2})]
    assert finish_ndjson(NdjsonDecoder()) == ()


# -- laws ------------------------------------------------------------------------------------

json_values = st.recursive(
    st.none() | st.booleans() | st.integers() | st.text(max_size=8),
    lambda inner: (
        st.lists(inner, max_size=3) | st.dictionaries(st.text(max_size=4), inner, max_size=3)
    ),
    max_leaves=8,
)


@given(st.lists(json_values, max_size=6), st.lists(st.integers(min_value=0), max_size=12))
def test_encoded_messages_decode_to_themselves_in_any_split(
    values: list[Any], cuts: list[int]
) -> None:
    data = b"".join(encode_ndjson(v) for v in values)
    assert data.count(b"\n") == len(values)  # one line each, no newline inside
    events, decoder = _feed_all(_split(data, cuts))
    assert _summary(events) == [("ok", v) for v in values]
    assert decoder.pending == ()


@given(st.binary(max_size=300), st.lists(st.integers(min_value=0), max_size=12), st.integers(1, 40))
def test_any_bytes_in_any_split_give_the_same_events_and_bounded_memory(
    data: bytes, cuts: list[int], max_line: int
) -> None:
    whole, _ = _feed_all([data], max_line=max_line)
    split, _ = _feed_all(_split(data, cuts), max_line=max_line)
    assert all(isinstance(e, (Parsed, FramingError)) for e in whole)
    assert _summary(whole) == _summary(split)
    bytewise, _ = _feed_all([bytes([b]) for b in data], max_line=max_line)
    assert _summary(bytewise) == _summary(whole)


@given(st.text(max_size=20))
def test_strings_without_a_utf8_form_are_escaped_not_crashed_on(text: str) -> None:
    message = {"id": text + "\ud800", "n": "\n\u2028"}
    line = encode_ndjson(message)
    line.decode("utf-8")  # always valid UTF-8
    events, _ = _feed_all([line])
    assert _summary(events) == [("ok", message)]
    assert decode_frame(encode_frame(message)) == Parsed(message)


def test_frames_carry_one_message_each() -> None:
    assert decode_frame('{"a":1}') == Parsed({"a": 1})
    assert decode_frame(b'{"a":1}') == Parsed({"a": 1})
    assert decode_frame(b"\xff").kind == "invalid_utf8"  # type: ignore[union-attr]
    assert decode_frame("\ud800").kind == "invalid_utf8"  # type: ignore[union-attr]
    assert decode_frame('{"a":1}\n{"b":2}').kind == "invalid_json"  # type: ignore[union-attr]
    assert decode_frame("x" * 11, max_size=10).kind == "too_long"  # type: ignore[union-attr]
    assert json.loads(encode_frame({"a": [1, 2]})) == {"a": [1, 2]}


@given(st.one_of(st.binary(max_size=60), json_values.map(lambda v: json.dumps(v).encode())))
def test_the_fast_parser_when_installed_gives_what_the_reference_gives(data: bytes) -> None:
    pytest.importorskip("orjson", reason="the optional `fast` extra is not installed")
    from acp_core._wire import _framing

    edge = [b'"\\ud800"', b"1" * 30, b"-" + b"9" * 19, b"18446744073709551616", b"1e400",
            b"-0", b"1.5e-400", b"[" * 2000 + b"]" * 2000, b'{"a":NaN}', b"\xef\xbb\xbf{}",
            b'{"a":1,"a":2}', b'"\\u0000"', b"[1,]", b"[18446744073709551615]",
            b'{"n":-9223372036854775809}', b"[" + b"9" * 18 + b"]",
            b'"' + b"9" * 40 + b'"']  # fmt: skip
    for sample in (data, *edge):
        fast, reference = _framing._parse_fast(sample), _framing._parse_stdlib(sample)
        assert _summary([fast]) == _summary([reference]), sample[:40]


DIGIT_HEAVY = st.lists(st.sampled_from([b"0", b"7", b"9", b"-", b".", b" ", b"a", b"\xff"]))


@given(st.one_of(st.binary(max_size=80), DIGIT_HEAVY.map(b"".join)))
def test_the_big_integer_guard_finds_exactly_the_runs_of_19_digits(data: bytes) -> None:
    # The translate-based guard must agree with the plain definition (planted: 18 or 20 fails).
    from acp_core._wire import _framing

    expected = re.search(rb"[0-9]{19}", data) is not None
    assert _framing._has_long_digit_run(data) is expected
    for n in (18, 19, 20):
        line = b'{"a":[' + data + b"," + b"9" * n + b"]}"
        assert _framing._has_long_digit_run(line) is (n >= 19 or expected)


def test_what_is_not_bytes_or_json_is_the_callers_error() -> None:
    with pytest.raises(acp.ArgumentError):
        feed_ndjson(NdjsonDecoder(), 5)  # type: ignore[arg-type]
    with pytest.raises(acp.ArgumentError):
        encode_ndjson({"a": object()})
    with pytest.raises(acp.ArgumentError):
        encode_ndjson({"a": float("nan")})
    with pytest.raises(acp.ArgumentError):
        acp.receive_bytes(object(), b"{}\n")  # type: ignore[arg-type]
    assert feed_ndjson(NdjsonDecoder(), bytearray(b"{}\n"))[1] == (Parsed({}),)


def _reference_stdlib(data: bytes) -> Any:
    """The reference parse as it was before the scanner shortcut: `JSONDecoder.decode`."""
    from acp_core._wire import _framing

    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return ("err", "invalid_utf8", f"invalid UTF-8 at byte {e.start}")
    try:
        return ("ok", _framing._DECODER.decode(text))
    except RecursionError:
        return ("err", "invalid_json", "JSON nested too deep to parse")
    except ValueError as e:
        return ("err", "invalid_json", str(e)[:200])


_SPACE = st.sampled_from(["", " ", "\t", "\r", "\n ", "\u00a0", "\ufeff", "x", "1", "{}", ","])


@given(
    st.one_of(
        st.binary(max_size=40),
        st.tuples(_SPACE, json_values.map(json.dumps), _SPACE).map(lambda p: "".join(p).encode()),
    )
)
def test_the_stdlib_parse_gives_what_json_decode_gives(data: bytes) -> None:
    # `_value_stdlib` reads most lines with the scanner alone; value, error kind and detail
    # must be `JSONDecoder.decode`'s (planted: accepting the scanner's value without checking
    # that it ends the line fails on "1 2" and "{}x"; taking any Unicode space after it as
    # JSON whitespace fails on "1\x0b").
    from acp_core._wire import _framing

    edge = [b"1 2", b"{}x", b"{} ", b" {}", b"\r\n[1]", b"[1]\r", b"NaN", b'{"a":-Infinity}',
            b"[" * 2000 + b"]" * 2000, b"\xef\xbb\xbf{}", b'"\\ud800"', b"", b"  ", b"1" * 5000,
            b'{"a":1,"a":2}', b"[1,]", b'"\\u0000"', b"-", b"tru", b"0x1", b"\xff",
            b"[1]\r\n", b"{} \t\r", b"1\x0b", b"{}\xc2\xa0", b"[]\x1c",
            b"2 \xe2\x80\x83"]  # fmt: skip
    for sample in (data, *edge):
        value = _framing._value_stdlib(sample)
        got = ("err", value.kind, value.detail) if type(value) is FramingError else ("ok", value)
        assert got == _reference_stdlib(sample), sample[:40]
        parsed = _framing._parse_stdlib(sample)
        assert (type(parsed) is Parsed) is (got[0] == "ok")
        assert parsed == (Parsed(got[1]) if got[0] == "ok" else value)
