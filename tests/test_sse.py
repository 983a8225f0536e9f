"""Server-Sent Events: bytes in any split give the WHATWG event-stream events, and back.

Tables: the standard's rules (section 9.2.6), one case each. Laws: encoding events then
decoding them under any split gives the events back; any bytes give events or `SseError`,
never another exception; what the decoder holds stays under its bound.
"""

from __future__ import annotations

import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_core._errors import AcpError, ArgumentError, SseError
from acp_core._wire._sse import (
    DEFAULT_MAX_SSE_BUFFER,
    SseDecoder,
    SseEvent,
    encode_comment,
    encode_event,
    feed_sse,
    finish_sse,
)


def _decode(pieces: list[bytes], decoder: SseDecoder | None = None) -> list[SseEvent]:
    state = SseDecoder() if decoder is None else decoder
    events: list[SseEvent] = []
    for piece in pieces:
        state, out = feed_sse(state, piece)
        events.extend(out)
        assert state.pending_size == sum(map(len, state.pending))
        assert state.pending_size + state.data_size <= state.max_buffer
    return events


def _split(data: bytes, cuts: list[int]) -> list[bytes]:
    points = sorted({c % (len(data) + 1) for c in cuts})
    return [data[a:b] for a, b in zip([0, *points], [*points, len(data)], strict=True)]


E = SseEvent

SPEC_CASES = [
    ("one event", b"data: hi\n\n", [E("hi")]),
    ("no blank line yet: nothing", b"data: hi\n", []),
    ("multi-line data joins with LF", b"data: a\ndata: b\ndata:\n\n", [E("a\nb\n")]),
    ("only one space dropped", b"data:  two\n\n", [E(" two")]),
    ("no space after the colon", b"data:x\n\n", [E("x")]),
    ("colon in the value kept", b"data: a: b\n\n", [E("a: b")]),
    ("empty data line dispatches empty data", b"data\n\n", [E("")]),
    ("field with no colon is the name", b"data\ndata\n\n", [E("\n")]),
    ("no data: no dispatch", b"event: x\nid: 1\n\n", []),
    ("event type", b"event: add\ndata: 1\n\n", [E("1", "add")]),
    ("empty event type is message", b"event:\ndata: 1\n\n", [E("1")]),
    ("event type resets", b"event: a\ndata: 1\n\ndata: 2\n\n", [E("1", "a"), E("2")]),
    ("id persists", b"id: 7\ndata: a\n\ndata: b\n\n", [E("a", id="7"), E("b", id="7")]),
    ("empty id resets", b"id: 7\ndata: a\n\nid\ndata: b\n\n", [E("a", id="7"), E("b", id="")]),
    (
        "id with NUL ignored",
        b"id: 1\ndata: a\n\nid: x\x00\ndata: b\n\n",
        [E("a", "message", "1"), E("b", "message", "1")],
    ),
    ("id without data is kept", b"id: 3\n\ndata: a\n\n", [E("a", id="3")]),
    ("retry digits", b"retry: 1500\ndata: a\n\n", [E("a", retry=1500)]),
    ("retry not digits ignored", b"retry: 15x\ndata: a\n\n", [E("a")]),
    ("retry negative ignored", b"retry: -1\ndata: a\n\n", [E("a")]),
    ("retry empty ignored", b"retry:\ndata: a\n\n", [E("a")]),
    ("retry non-ASCII digits ignored", "retry: \u0661\ndata: a\n\n".encode(), [E("a")]),
    ("retry is per event", b"retry: 5\ndata: a\n\ndata: b\n\n", [E("a", retry=5), E("b")]),
    ("CRLF", b"data: a\r\ndata: b\r\n\r\n", [E("a\nb")]),
    ("CR", b"data: a\rdata: b\r\r", [E("a\nb")]),
    ("mixed line ends", b"data: a\r\n\ndata: b\r\rdata: c\n\r\n", [E("a"), E("b"), E("c")]),
    ("BOM dropped", b"\xef\xbb\xbfdata: a\n\n", [E("a")]),
    ("second BOM kept", b"\xef\xbb\xbf\xef\xbb\xbfdata: a\n\n", []),
    ("comment skipped", b": keep-alive\ndata: a\n:\n\n", [E("a")]),
    ("unknown field ignored", b"foo: bar\ndata: a\n\n", [E("a")]),
    ("field names are case-sensitive", b"Data: a\n\n", []),
    ("unfinished event at end", b"data: a\n\ndata: b", [E("a")]),
    ("invalid UTF-8 replaced", b"data: \xff\xfe\n\n", [E("\ufffd\ufffd")]),
    ("UTF-8 kept", "data: \u00e9\U0001f600\n\n".encode(), [E("\u00e9\U0001f600")]),
]


@pytest.mark.parametrize(
    ("stream", "expected"), [c[1:] for c in SPEC_CASES], ids=[c[0] for c in SPEC_CASES]
)
def test_the_standard_cases(stream: bytes, expected: list[SseEvent]) -> None:
    assert _decode([stream]) == expected
    # ... and the same one byte at a time (CRLF, UTF-8 and BOM cut everywhere)
    assert _decode([stream[i : i + 1] for i in range(len(stream))]) == expected


def test_a_crlf_split_across_feeds_is_one_line_end() -> None:
    # were the LF a second line end, it would dispatch `a` alone and then `b` alone
    assert _decode([b"data: a\r", b"\ndata: b\r\n\r\n"]) == [E("a\nb")]
    assert _decode([b"data: a\r", b"", b"\ndata: b\n\n"]) == [E("a\nb")]


def test_a_cr_then_lf_after_a_line_is_not_swallowed() -> None:
    # only an LF right after the CR is swallowed: `x` is a line (an ignored field) of its own
    assert _decode([b"data: a\r", b"x\n", b"\n"]) == [E("a")]
    assert _decode([b"data: a\r", b"\r"]) == [E("a")]
    assert _decode([b"data: a\r", b"data: b\n", b"\n"]) == [E("a\nb")]


def test_a_bom_split_across_feeds_is_dropped() -> None:
    assert _decode([b"\xef", b"\xbb", b"\xbfdata: a\n\n"]) == [E("a")]


def test_finish_discards_the_unfinished_event_and_keeps_the_id() -> None:
    decoder, events = feed_sse(
        SseDecoder(max_buffer=100), b"id: 9\nretry: 20\ndata: a\n\ndata: b\nda"
    )
    assert events == (E("a", id="9", retry=20),)
    fresh = finish_sse(decoder)
    assert fresh == SseDecoder(max_buffer=100, last_event_id="9", retry=20)
    assert feed_sse(fresh, b"data: c\n\n")[1] == (E("c", id="9"),)


def test_an_unfinished_line_over_the_bound_raises() -> None:
    decoder, _ = feed_sse(SseDecoder(max_buffer=10), b"data: 12")
    decoder, _ = feed_sse(decoder, b"34")  # 10 bytes held: at the bound, fine
    with pytest.raises(SseError, match="over the limit of 10") as info:
        feed_sse(decoder, b"5")
    assert info.value.kind == "too_long"
    assert isinstance(info.value, AcpError)


def test_an_event_whose_data_goes_over_the_bound_raises() -> None:
    decoder, _ = feed_sse(SseDecoder(max_buffer=20), b"data: 12345\n" * 3)
    with pytest.raises(SseError):  # every line is short, but the event never ends
        feed_sse(decoder, b"data: 12345\n")
    assert SseDecoder().max_buffer == DEFAULT_MAX_SSE_BUFFER


def test_a_blank_line_frees_the_event_budget() -> None:
    events = _decode([b"data: 12345\n\n"] * 10, SseDecoder(max_buffer=20))
    assert events == [E("12345")] * 10


def test_a_line_or_event_fed_a_byte_at_a_time_stays_in_few_chunks() -> None:
    # Regression: the decoder appended every piece to a tuple (copied on each feed), so a long
    # line or event arriving in tiny feeds cost quadratic time. Chunks are merged instead.
    decoder = SseDecoder()
    for _ in range(4096):
        decoder, _ = feed_sse(decoder, b"x")
    assert len(decoder.pending) <= 13
    assert b"".join(decoder.pending) == b"x" * 4096
    decoder = SseDecoder()
    for i in range(4096):
        decoder, _ = feed_sse(decoder, b"data: %d\n" % i)
    assert len(decoder.data) <= 13
    decoder, events = feed_sse(decoder, b"\n")
    assert events == (E("\n".join(map(str, range(4096)))),)


def test_feed_refuses_what_is_not_bytes() -> None:
    with pytest.raises(ArgumentError):
        feed_sse(SseDecoder(), "data: a\n\n")  # type: ignore[arg-type]
    assert feed_sse(SseDecoder(), bytearray(b"data: a\n\n"))[1] == (E("a"),)  # type: ignore[arg-type]


def test_encode_event_writes_the_fields_then_a_blank_line() -> None:
    assert encode_event(E("a\r\nb\rc\nd")) == b"data: a\ndata: b\ndata: c\ndata: d\n\n"
    assert encode_event(E("", "add", "7", 30)) == b"event: add\nid: 7\nretry: 30\ndata: \n\n"
    assert encode_event(E(" x")) == b"data:  x\n\n"  # the decoder drops one space only


@pytest.mark.parametrize(
    "bad", [E("a", "x\ny"), E("a", id="x\ry"), E("a", id="x\0"), E("a", retry=-1), E("\ud800")]
)
def test_encode_event_refuses_what_cannot_round_trip(bad: SseEvent) -> None:
    with pytest.raises(ArgumentError):
        encode_event(bad)


def test_encode_comment_is_skipped_by_the_decoder() -> None:
    assert encode_comment() == b":\n"
    assert encode_comment("ping\npong") == b": ping\n: pong\n"
    stream = encode_comment("ping") + encode_event(E("a")) + encode_comment("x\ny")
    assert _decode([stream]) == [E("a")]


_TEXT = st.text(st.characters(exclude_categories=("Cs",)), max_size=20)
_LINE = _TEXT.filter(lambda s: "\r" not in s and "\n" not in s)
_EVENTS = st.lists(
    st.builds(
        SseEvent,
        data=st.lists(_LINE, min_size=1, max_size=4).map("\n".join),
        event=st.one_of(st.just("message"), _LINE.filter(bool)),
        id=st.one_of(st.none(), _LINE.filter(lambda s: "\0" not in s)),
        retry=st.one_of(st.none(), st.integers(0, 10**12)),
    ),
    max_size=6,
)


def _persisted(events: list[SseEvent]) -> list[SseEvent]:
    # an event that sets no id carries the last one set before it
    out, last = [], None
    for event in events:
        last = event.id if event.id is not None else last
        out.append(SseEvent(event.data, event.event, last, event.retry))
    return out


@given(_EVENTS, st.lists(st.integers(0, 10**6), max_size=8), st.booleans())
def test_encode_then_decode_under_any_split_is_the_events(
    events: list[SseEvent], cuts: list[int], comments: bool
) -> None:
    stream = b"".join((encode_comment("k") if comments else b"") + encode_event(e) for e in events)
    assert _decode(_split(stream, cuts)) == _persisted(events)


@given(st.binary(max_size=200), st.lists(st.integers(0, 10**6), max_size=8), st.integers(0, 64))
def test_any_bytes_give_events_or_sse_error(data: bytes, cuts: list[int], bound: int) -> None:
    pieces = _split(data, cuts)
    try:
        split = _decode(pieces, SseDecoder(max_buffer=bound))
    except SseError:
        return
    # splitting never changes the events
    assert split == _decode([data], SseDecoder(max_buffer=bound))


@given(st.binary(max_size=200), st.lists(st.integers(0, 10**6), max_size=8))
def test_splitting_never_changes_the_events(data: bytes, cuts: list[int]) -> None:
    assert _decode(_split(data, cuts)) == _decode([data])
