"""Server-Sent Events, sans-IO: bytes in any split become events, and events become bytes.

Owns: the WHATWG "event stream" format (HTML Living Standard, section 9.2.6): `SseDecoder`,
`feed_sse`, `finish_sse`, `SseEvent`, `encode_event`, `encode_comment` and the bound on what a
decoder buffers (`DEFAULT_MAX_SSE_BUFFER`, overflow raises `SseError`).
Must not know: ACP, JSON-RPC, HTTP (no headers, no status codes, no reconnecting), sessions.

Theory of operation. The decoder is a frozen value holding the bytes of the unfinished line
(in a few chunks, merged as pieces arrive, joined when the line ends: see
`_pieces.push_piece`) and the fields of the unfinished event. Lines end with CRLF, LF or CR; a
CR ending one feed and an LF starting the next are one line end (`after_cr`). Line ends are
ASCII, so a UTF-8 sequence split across feeds is never cut: only complete lines are decoded,
invalid UTF-8 becoming U+FFFD as the standard says. A leading BOM is dropped from the first
line. Then, per line:

- a blank line dispatches the event (nothing when no `data` line came; `data` lines are joined
  with LF, which is the standard's "append LF, then drop the trailing LF");
- a line starting with `:` is a comment (keep-alives): skipped;
- `name:value` (one space after the colon dropped) or `name` alone (empty value): `event`
  sets the type (empty means `message`), `data` adds a line, `id` sets the last event id
  unless it contains NUL (it persists to later events and across `finish_sse`), `retry` sets
  the reconnection time if it is all ASCII digits; any other field is ignored.

The bytes of the pending line plus the `data` of the pending event may not exceed
`max_buffer`: a peer that never ends a line or an event raises `SseError` the moment it goes
over, so memory stays bounded whatever it sends.
"""

from __future__ import annotations

import re
from typing import Final

from acp_core._errors import ArgumentError, SseError, bytes_argument

from ._freezing import freezing_fields
from ._pieces import push_piece
from ._value import frozen

__all__ = [
    "DEFAULT_MAX_SSE_BUFFER",
    "SseDecoder",
    "SseEvent",
    "encode_comment",
    "encode_event",
    "feed_sse",
    "finish_sse",
]

#: Most bytes a decoder holds for one unfinished line plus one unfinished event's data (16 MiB).
DEFAULT_MAX_SSE_BUFFER: Final = 16 * 1024 * 1024

_LINE_END: Final = re.compile(rb"\r\n|\r|\n")
_TEXT_LINE_END: Final = re.compile(r"\r\n|\r|\n")
_BOM: Final = b"\xef\xbb\xbf"


@frozen(field_transformer=freezing_fields)
class SseEvent:
    """One dispatched event.

    Attributes:
        data: the `data` lines joined with LF.
        event: the event type (`message` when the stream named none).
        id: the last event id at dispatch (set by this event or an earlier one), `None` if the
            stream never set one.
        retry: the reconnection time (ms) a `retry` field of this event set, else `None`.
    """

    data: str
    event: str = "message"
    id: str | None = None
    retry: int | None = None


@frozen(field_transformer=freezing_fields)
class SseDecoder:
    """The state of an event stream between two `feed_sse` calls.

    Attributes:
        max_buffer: most bytes held for the pending line plus the pending event's data.
        last_event_id: the last event id the stream set (what a reconnect sends back).
        retry: the last reconnection time the stream set, in ms.
        pending: the unfinished line, in pieces (joined they are the line); `pending_size`
            their length.
        after_cr: the last feed ended with CR (an LF first in the next feed is not a line).
        started: the first line was read (a BOM is only dropped there).
        data, event, event_retry, data_size: the fields of the unfinished event (`data` its
            `data` lines in chunks, each chunk some lines LF-joined).
    """

    max_buffer: int = DEFAULT_MAX_SSE_BUFFER
    last_event_id: str | None = None
    retry: int | None = None
    pending: tuple[bytes, ...] = ()
    pending_size: int = 0
    after_cr: bool = False
    started: bool = False
    data: tuple[str, ...] = ()
    event: str = ""
    event_retry: int | None = None
    data_size: int = 0


def _overflow(limit: int, size: int) -> SseError:
    return SseError("too_long", f"event stream buffers {size} bytes, over the limit of {limit}")


def feed_sse(decoder: SseDecoder, data: bytes) -> tuple[SseDecoder, tuple[SseEvent, ...]]:
    """Feed bytes (any split): `(decoder', events)`, the events dispatched, in order.

    Raises:
        SseError: the pending line plus the pending event went over `decoder.max_buffer`
            (the stream is then unusable: drop the connection; `finish_sse(decoder)` gives
            the decoder for the next one, last event id kept).
        ArgumentError: `data` is not bytes (the caller's bug).
    """
    data = bytes_argument(data, "feed_sse")
    if not data:
        return decoder, ()
    if decoder.after_cr and data[:1] == b"\n":
        data = data[1:]  # the LF of a CRLF whose CR ended the previous feed
    limit = decoder.max_buffer
    last_id, retry = decoder.last_event_id, decoder.retry
    pending, size, started = decoder.pending, decoder.pending_size, decoder.started
    chunks, data_size = decoder.data, decoder.data_size
    lines_data: list[str] = []  # this feed's data lines, after what `chunks` holds
    event, event_retry = decoder.event, decoder.event_retry
    events: list[SseEvent] = []
    lines = _LINE_END.split(data)
    tail = lines.pop()
    for piece in lines:
        line = b"".join((*pending, piece)) if pending else piece
        pending, size = (), 0
        if not started:
            started = True
            if line.startswith(_BOM):
                line = line[len(_BOM) :]
        if not line:  # a blank line: dispatch
            if chunks or lines_data:
                text = "\n".join((*chunks, *lines_data))
                events.append(SseEvent(text, event or "message", last_id, event_retry))
            chunks, lines_data, data_size, event, event_retry = (), [], 0, "", None
            continue
        if line[:1] == b":":  # a comment
            continue
        name, colon, value_bytes = line.partition(b":")
        if colon and value_bytes[:1] == b" ":
            value_bytes = value_bytes[1:]
        if name == b"data":
            data_size += len(value_bytes) + 1
            if data_size > limit:
                raise _overflow(limit, data_size)
            lines_data.append(value_bytes.decode("utf-8", "replace"))
            continue
        value = value_bytes.decode("utf-8", "replace")
        if name == b"event":
            event = value
        elif name == b"id" and "\0" not in value:
            last_id = value
        elif name == b"retry" and value.isascii() and value.isdigit():  # "" is not digits
            retry = event_retry = int(value)
        # any other field name (and a refused id or retry) is ignored, as the standard says
    if tail:
        if size + len(tail) + data_size > limit:
            raise _overflow(limit, size + len(tail) + data_size)
        pending, size = push_piece(pending, tail, b""), size + len(tail)
    if lines_data:
        chunks = push_piece(chunks, "\n".join(lines_data), "\n")
    after_cr = data[-1:] == b"\r"
    new = SseDecoder(
        limit,
        last_id,
        retry,
        pending,
        size,
        after_cr,
        started,
        chunks,
        event,
        event_retry,
        data_size,
    )
    return new, tuple(events)


def finish_sse(decoder: SseDecoder) -> SseDecoder:
    """End of stream: the standard discards an unfinished line and event (never dispatched).

    Returns the decoder for the next connection: empty, but keeping `max_buffer`, the last
    event id and the reconnection time, which a reconnecting client sends and waits.
    """
    return SseDecoder(decoder.max_buffer, decoder.last_event_id, decoder.retry)


def _field(name: str, value: str) -> str:
    if _TEXT_LINE_END.search(value) is not None:
        msg = f"an SSE {name} cannot contain a line end: {value!r}"
        raise ArgumentError(msg)
    return f"{name}: {value}\n"


def encode_event(event: SseEvent) -> bytes:
    """An event as UTF-8 bytes: `event`, `id`, `retry` fields, one `data:` line per line of
    `data` (split on CRLF, LF or CR), then the blank line that dispatches it.

    `event` is omitted when it is `message`, `id` and `retry` when `None`.

    Raises:
        ArgumentError: not an `SseEvent`; `event` or `id` holds a line end, `id` a NUL,
            `retry` is negative; or a string has no UTF-8 form (a lone surrogate).
    """
    given: object = event
    if not isinstance(given, SseEvent):
        msg = f"encode_event takes an SseEvent, not {type(given).__name__}"
        raise ArgumentError(msg)
    parts = []
    if event.event != "message":
        parts.append(_field("event", event.event))
    if event.id is not None:
        if "\0" in event.id:
            msg = f"an SSE id cannot contain NUL (a decoder ignores it): {event.id!r}"
            raise ArgumentError(msg)
        parts.append(_field("id", event.id))
    if event.retry is not None:
        if type(event.retry) is not int or event.retry < 0:
            msg = f"an SSE retry is a non-negative int, not {event.retry!r}"
            raise ArgumentError(msg)
        parts.append(f"retry: {event.retry}\n")
    parts.extend(f"data: {line}\n" for line in _TEXT_LINE_END.split(event.data))
    parts.append("\n")
    return _utf8("".join(parts))


def encode_comment(text: str = "") -> bytes:
    """A comment (what a keep-alive sends): one `: ` line per line of `text`; a decoder
    skips it. `encode_comment()` is the shortest keep-alive, `b":\\n"`."""
    given: object = text
    if not isinstance(given, str):
        msg = f"encode_comment takes a str, not {type(given).__name__}"
        raise ArgumentError(msg)
    if not text:
        return b":\n"
    return _utf8("".join(f": {line}\n" for line in _TEXT_LINE_END.split(text)))


def _utf8(text: str) -> bytes:
    try:
        return text.encode("utf-8")
    except UnicodeEncodeError as e:
        msg = f"SSE text has no UTF-8 form: {e}"
        raise ArgumentError(msg) from None
