"""NDJSON framing in any split: the same events as the whole stream, at a linear cost.

Laws: for any stream built of valid lines (some holding multibyte UTF-8), lines over the limit,
invalid UTF-8 (a multibyte character cut short, a stray continuation byte), invalid JSON,
blank lines and an unfinished last line, every split of the bytes gives the same events, the
same `finish_ndjson` events (a `too_long` error's `size`, what was seen when the limit was
crossed, aside) and the same held line as feeding it whole. Structure (no clock): a
line fed in small pieces is held in a logarithmic number of pieces (each byte is copied a
logarithmic number of times), where appending every piece made the feeds quadratic.
"""

from __future__ import annotations

import itertools
import math
from typing import Any

from hypothesis import given
from hypothesis import strategies as st

from acp_core._wire._framing import (
    FramingError,
    NdjsonDecoder,
    Parsed,
    encode_ndjson,
    feed_ndjson,
    finish_ndjson,
)
from acp_core._wire._pieces import push_piece

MAX_LINE = 24


def _feed(pieces: list[bytes], max_line: int = MAX_LINE) -> tuple[list[Any], NdjsonDecoder]:
    decoder = NdjsonDecoder(max_line)
    events: list[Any] = []
    for piece in pieces:
        decoder, out = feed_ndjson(decoder, piece)
        events.extend(out)
        assert decoder.pending_size == sum(map(len, decoder.pending)) <= max_line
    return events, decoder


def _same(events: list[Any]) -> list[Any]:
    """The events with what depends on the split dropped: a `too_long` error's `size` is the
    bytes seen when the limit was crossed, which the split decides (all it promises is being
    over the limit)."""
    out: list[Any] = []
    for e in events:
        if isinstance(e, FramingError) and e.kind == "too_long":
            assert e.size > MAX_LINE
            out.append(("too_long", e.detail))
        else:
            out.append(e)
    return out


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


# One line each, newline excluded. Lengths are chosen around MAX_LINE so that both sides of the
# limit (and exactly at it) are drawn.
valid = st.one_of(
    st.integers(-(10**6), 10**6).map(lambda n: encode_ndjson(n)[:-1]),
    st.text("aé€😀", max_size=5).map(lambda s: encode_ndjson(s)[:-1]),  # 1- to 4-byte chars
    st.just(b'{"a":[1,2]}'),
)
too_long = st.integers(MAX_LINE + 1, 3 * MAX_LINE).map(lambda n: b'"' + b"x" * (n - 2) + b'"')
at_limit = st.just(b'"' + "é".encode() * ((MAX_LINE - 2) // 2) + b'"')
invalid_utf8 = st.sampled_from([
    b'"\xe2\x82"',  # a 3-byte character cut after two bytes
    b'"\xf0\x9f\x98"',  # a 4-byte character cut after three
    b'"a\x80"',  # a continuation byte alone
    b"\xff",
    '"😀'.encode()[:-1],  # ends inside a character: a split lands inside it too
])  # fmt: skip
invalid_json = st.sampled_from([b"{", b"nope", b'{"a": NaN}', "é".encode()])
blank = st.sampled_from([b"", b" ", b"\t", b"\r", b" \r "])
lines = st.lists(st.one_of(valid, too_long, at_limit, invalid_utf8, invalid_json, blank))
last = st.one_of(st.just(b""), valid, too_long, invalid_utf8, blank)  # no newline after it


@given(lines, last, st.lists(st.integers(min_value=0), max_size=20))
def test_any_split_gives_the_events_of_the_whole_stream(
    body: list[bytes], tail: bytes, cuts: list[int]
) -> None:
    data = b"".join(line + b"\n" for line in body) + tail
    whole, whole_decoder = _feed([data])
    split, split_decoder = _feed(_split(data, cuts))
    assert _same(split) == _same(whole)
    assert all(isinstance(e, (Parsed, FramingError)) for e in whole)
    assert finish_ndjson(split_decoder) == finish_ndjson(whole_decoder)
    assert b"".join(split_decoder.pending) == b"".join(whole_decoder.pending)
    assert split_decoder.pending_size == whole_decoder.pending_size
    assert split_decoder.skipping == whole_decoder.skipping


@given(lines, last)
def test_a_byte_at_a_time_gives_the_events_of_the_whole_stream(
    body: list[bytes], tail: bytes
) -> None:
    data = b"".join(line + b"\n" for line in body) + tail
    whole, whole_decoder = _feed([data])
    split, split_decoder = _feed([data[i : i + 1] for i in range(len(data))])
    assert _same(split) == _same(whole)
    assert finish_ndjson(split_decoder) == finish_ndjson(whole_decoder)


def test_the_kinds_of_line_give_the_events_they_should() -> None:
    # The strategies above are what the laws range over: check they mean what they say.
    data = b'"\xe2\x82"\n' + b'"' + b"x" * 30 + b'"\n' + b" \r \n" + '"é😀"'.encode() + b"\n{"
    events, decoder = _feed([data[i : i + 1] for i in range(len(data))])
    kinds = [e.kind if isinstance(e, FramingError) else e.value for e in events]
    assert kinds == ["invalid_utf8", "too_long", "é😀"]
    assert [e.kind for e in finish_ndjson(decoder)] == ["invalid_json"]  # type: ignore[union-attr]


def _bound(n: int) -> int:
    return int(2 * math.log2(n) + 2)


def test_a_line_fed_a_byte_at_a_time_is_held_in_logarithmically_few_pieces() -> None:
    # Regression: every feed appended its piece to a tuple (copied, and frozen item by item,
    # on each feed), so a 20 KB line fed a byte at a time cost quadratic time.
    n = 20_000
    line = b'"' + "é".encode() * ((n - 2) // 2) + b'"'
    decoder = NdjsonDecoder()
    most = 0
    for i in range(len(line)):
        decoder, events = feed_ndjson(decoder, line[i : i + 1])
        assert events == ()
        most = max(most, len(decoder.pending))
        assert len(decoder.pending) <= _bound(i + 1), i
    assert most <= _bound(n)
    assert b"".join(decoder.pending) == line
    decoder, events = feed_ndjson(decoder, b"\n")
    assert events == (Parsed("é" * ((n - 2) // 2)),)
    assert decoder.pending == ()


def test_pieces_of_any_fixed_size_stay_logarithmically_few() -> None:
    for size in (2, 3, 7, 64):
        decoder = NdjsonDecoder()
        fed = 0
        while fed < 16_384:
            decoder, _ = feed_ndjson(decoder, b"x" * size)
            fed += size
            assert len(decoder.pending) <= _bound(fed // size), (size, fed)
        assert decoder.pending_size == fed


def test_a_long_line_over_the_limit_fed_a_byte_at_a_time_is_reported_once() -> None:
    decoder = NdjsonDecoder(4096)
    events: list[Any] = []
    for _ in range(4096 + 100):
        decoder, out = feed_ndjson(decoder, b"x")
        events.extend(out)
        assert len(decoder.pending) <= _bound(4096)
    assert [e.kind for e in events] == ["too_long"]
    assert events[0].size == 4097
    assert decoder.skipping
    assert decoder.pending == ()
    decoder, out = feed_ndjson(decoder, b'\n{"a":1}\n')
    assert out == (Parsed({"a": 1}),)


@given(st.lists(st.binary(max_size=9)), st.sampled_from([b"", b"\n"]))
def test_pushing_pieces_keeps_their_join_in_chunks_of_decreasing_length(
    pieces: list[bytes], sep: bytes
) -> None:
    # Strictly decreasing lengths are why each byte is copied a logarithmic number of times:
    # a chunk is only ever merged into a piece at least as long, so its bytes' chunk doubles.
    chunks: tuple[bytes, ...] = ()
    for i, piece in enumerate(pieces):
        chunks = push_piece(chunks, piece, sep)
        assert sep.join(chunks) == sep.join(pieces[: i + 1])
        assert all(len(a) > len(b) for a, b in itertools.pairwise(chunks))
