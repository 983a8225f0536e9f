"""Framing, sans-IO: bytes in any split become JSON values or framing errors, and back.

Owns: `NdjsonDecoder` (newline-delimited JSON, the stdio transport), `feed_ndjson` (and
`feed_lines`, its splitting with another reader of each line; `parse_line` and `parse_value`,
its parse of one line), `encode_ndjson`, the
one-message-per-frame pair for WebSocket-like transports (`decode_frame`, `encode_frame`),
`FramingError`, the `-32700` reply, and the JSON parse rules every transport shares (UTF-8
only, no NaN/Infinity, nesting and huge numbers refused, not crashed on).
Must not know: JSON-RPC or ACP beyond the shape of a parse-error reply; sessions, engines.

Theory of operation. The decoder is a frozen value holding the bytes of the line not finished
yet: a short tuple of chunks (the pieces received, merged like a binary counter by
`_pieces.push_piece`), joined once when the newline arrives. A long line fed a byte at a time
is held in a logarithmic number of chunks, each byte copied a logarithmic number of times, so
the feeds cost about the same per byte whatever the length of the line. A line longer than
`max_line` is reported the moment the limit is crossed; the decoder then drops what it holds
and discards bytes up to the next newline, so memory never exceeds the limit whatever the peer
sends. A line that is not UTF-8 or not JSON is reported with the `-32700` reply the receiver
owes (`id: null`); the next line is read as if nothing happened. Blank lines are skipped.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from typing import Any, Final, TypeVar

from acp_core._errors import ArgumentError, bytes_argument

from ._fastnew import fast_constructor
from ._freezing import freezing_fields
from ._pieces import push_piece
from ._value import frozen

__all__ = [
    "DEFAULT_MAX_LINE",
    "JSON_PARSER",
    "FramingError",
    "NdjsonDecoder",
    "Parsed",
    "decode_frame",
    "encode_frame",
    "encode_ndjson",
    "feed_lines",
    "feed_ndjson",
    "finish_ndjson",
    "max_line_argument",
    "parse_error_reply",
    "parse_line",
    "parse_value",
]

#: The official Python SDK's limit on one line (50 MB); a line over it is skipped, not fatal.
DEFAULT_MAX_LINE: Final = 50 * 1024 * 1024


def _no_constant(name: str) -> Any:
    # JSON has no NaN or Infinity; Python's parser accepts them unless told otherwise.
    raise ValueError(f"{name} is not JSON")


_DECODER: Final = json.JSONDecoder(parse_constant=_no_constant)
#: The decoder's scanner (`decode` calls it between two whitespace matches; untyped in typeshed).
_SCAN: Final[Callable[[str, int], tuple[Any, int]]] = _DECODER.scan_once  # type: ignore[attr-defined]
#: What `json` skips as whitespace around a value.
_JSON_SPACE: Final = " \t\n\r"


@frozen
class Parsed:
    """One complete JSON value, freshly parsed (the caller owns it; nothing else holds it)."""

    value: Any


@frozen(field_transformer=freezing_fields)
class FramingError:
    """A line (or frame) that could not become a JSON value.

    Attributes:
        kind: `too_long`, `invalid_utf8` or `invalid_json`.
        detail: what was wrong, for a log line.
        size: bytes of the offending line seen so far (for `too_long`: up to the limit).
    """

    kind: str
    detail: str
    size: int

    @property
    def reply(self) -> dict[str, Any]:
        """The error response owed to the peer (`-32700`, `id: null`), a fresh dict."""
        return parse_error_reply(self.detail)


def parse_error_reply(detail: str) -> dict[str, Any]:
    """The JSON-RPC answer to input that is not a JSON value: `-32700`, `id: null`."""
    error = {"code": -32700, "message": "Parse error", "data": detail}
    return {"jsonrpc": "2.0", "id": None, "error": error}


_MAKE_PARSED: Final = fast_constructor(Parsed)


def _error(kind: str, detail: str, size: int) -> FramingError:
    return FramingError(kind, detail, size)


def _value_stdlib(data: bytes) -> Any:
    """The reference parse: UTF-8 only, then the standard library's JSON (no NaN). The
    value, or the `FramingError` saying why there is none (never a JSON value itself)."""
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError as e:
        return _error("invalid_utf8", f"invalid UTF-8 at byte {e.start}", len(data))
    # `decode` is `scan_once` between two whitespace matches (json/decoder.py): on a line
    # that starts with a value and ends with it, the scanner alone gives the same value,
    # without two regex searches and two calls (phase `bytes`). Anything else, or any
    # error, is parsed again the reference way below, which says what is wrong.
    if text and text[0] not in _JSON_SPACE:
        try:
            value, end = _SCAN(text, 0)
        except Exception:  # any failure is decided again below, with its message
            pass
        else:
            # Only JSON whitespace after the value (a CRLF line's "\r"): what `decode` accepts.
            if end == len(text) or not text[end:].strip(_JSON_SPACE):
                return value
    try:
        return _DECODER.decode(text)
    except RecursionError:
        return _error("invalid_json", "JSON nested too deep to parse", len(data))
    except ValueError as e:  # JSONDecodeError, NaN/Infinity, an integer over the digit limit
        return _error("invalid_json", str(e)[:200], len(data))


def _parse_stdlib(data: bytes) -> Parsed | FramingError:
    value = _value_stdlib(data)
    return value if type(value) is FramingError else _MAKE_PARSED(value)


def _optional_fast_loads() -> Any:
    # The `fast` extra: orjson parses about three times faster. It is stricter than the
    # standard library (no integers beyond 64 bits, no lone-surrogate escapes), so whatever it
    # refuses is parsed again by the reference path: the result never depends on the extra.
    try:
        import orjson
    except ImportError:
        return None
    return orjson.loads


_FAST_LOADS: Final = _optional_fast_loads()
#: The JSON parser in use: `orjson` (the `fast` extra is installed) or `json`.
JSON_PARSER: Final = "json" if _FAST_LOADS is None else "orjson"


# orjson reads an integer beyond 64 bits as a float, silently: a line with a run of 19 or more
# digits (where such an integer could hide) takes the reference path. The run is found by
# mapping every digit to "0" and everything else to " " (one C pass, `bytes.translate`) and
# searching for 19 zeros: several times cheaper than a regex search, and cheaper than the
# parse it guards (benchmarks/run.py, phase `bytes`).
_DIGIT_MASK: Final = bytes(0x30 if 0x30 <= b <= 0x39 else 0x20 for b in range(256))
_LONG_RUN: Final = b"0" * 19


def _has_long_digit_run(data: bytes) -> bool:
    """Whether `data` holds 19 or more digits in a row (where orjson could lose an integer)."""
    return _LONG_RUN in data.translate(_DIGIT_MASK)


def _value_fast(data: bytes) -> Any:
    if _has_long_digit_run(data):
        return _value_stdlib(data)
    try:
        return _FAST_LOADS(data)
    except Exception:
        return _value_stdlib(data)


def _parse_fast(data: bytes) -> Parsed | FramingError:
    value = _value_fast(data)
    return value if type(value) is FramingError else _MAKE_PARSED(value)


_parse: Final = _parse_stdlib if _FAST_LOADS is None else _parse_fast
#: `_parse` without the `Parsed` around the value (a reader that decodes it further).
_value: Final = _value_stdlib if _FAST_LOADS is None else _value_fast


# -- newline-delimited JSON ----------------------------------------------------------------


@frozen(field_transformer=freezing_fields)
class NdjsonDecoder:
    """The state of an NDJSON byte stream between two `feed_ndjson` calls.

    Attributes:
        max_line: longest line accepted, in bytes (newline excluded).
        pending: the unfinished line in chunks, in order (joined they are the line; a few
            long chunks, however small the pieces it arrived in).
        pending_size: their total length (never more than `max_line`).
        skipping: the current line went over the limit; bytes are dropped up to its newline.
    """

    max_line: int = DEFAULT_MAX_LINE
    pending: tuple[bytes, ...] = ()
    pending_size: int = 0
    skipping: bool = False


_MAKE_DECODER: Final = fast_constructor(NdjsonDecoder)


def max_line_argument(max_line: object, function: str) -> int:
    """`max_line` when it is a positive int: the one check of a line limit a host gives.

    Raises:
        ArgumentError: it is not one (a limit of another type would fail every later read).
    """
    if type(max_line) is int and max_line > 0:
        return max_line
    msg = f"{function}: max_line must be a positive int, not {max_line!r:.40}"
    raise ArgumentError(msg)


def _decoder_argument(decoder: object, function: str) -> NdjsonDecoder:
    if type(decoder) is not NdjsonDecoder:
        msg = f"{function} takes an NdjsonDecoder, not {type(decoder).__name__}"
        raise ArgumentError(msg)
    if type(decoder.max_line) is not int:  # built by hand with a limit of another type
        max_line_argument(decoder.max_line, function)
    return decoder


T = TypeVar("T")


def feed_ndjson(
    decoder: NdjsonDecoder, data: bytes
) -> tuple[NdjsonDecoder, tuple[Parsed | FramingError, ...]]:
    """Feed bytes (any split: a byte, a line, many lines): `(decoder', events)` in order.

    Totality: for any bytes the result is a decoder and events, never an exception (a
    non-bytes `data` is an `ArgumentError`, the caller's bug).
    """
    return feed_lines(decoder, bytes_argument(data, "feed_ndjson"), _parse)


def parse_line(line: bytes) -> Parsed | FramingError:
    """One complete line (or frame) as `feed_ndjson` reads it: its value or the error."""
    return _parse(line)


def parse_value(line: bytes) -> Any:
    """`parse_line` without the `Parsed`: the line's JSON value itself, or the
    `FramingError` (which no JSON value is: tell them apart by `type(x) is FramingError`)."""
    return _value(line)


def feed_lines(
    decoder: NdjsonDecoder, data: bytes, read_line: Callable[[bytes], T]
) -> tuple[NdjsonDecoder, tuple[T | FramingError, ...]]:
    """`feed_ndjson` with each complete, non-blank line read by `read_line` instead of
    `parse_line` (for a reader that decodes further, `_wire/_codec_ndjson.py`): the same
    splitting, limits and `too_long` errors. `data` must be bytes.

    Raises:
        ArgumentError: `decoder` is not an `NdjsonDecoder` (with an int `max_line`).
    """
    events: list[T | FramingError] = []
    if type(decoder) is not NdjsonDecoder:  # (inline, not `_decoder_argument`: a call a read)
        _decoder_argument(decoder, "feed_ndjson")  # raises
    limit = decoder.max_line
    if type(limit) is not int:
        max_line_argument(limit, "feed_ndjson")  # raises
    pending = decoder.pending
    size = decoder.pending_size
    skipping = decoder.skipping
    # Splitting in C and looking at each line once is the fast path; only the first line
    # can continue what earlier reads left, and only the last can be unfinished.
    lines = data.split(b"\n")
    tail = lines.pop()
    parse = read_line
    for piece in lines:
        if skipping:  # this newline ends a line already reported as too long
            skipping = False
            continue
        line = piece
        if pending:
            total = size + len(piece)
            line = b"".join((*pending, piece)) if total <= limit else b""
            pending, size = (), 0
            if total > limit:
                events.append(_too_long(limit, total))
                continue
        elif len(piece) > limit:
            events.append(_too_long(limit, len(piece)))
            continue
        if line and not line.isspace():  # blank lines are skipped (no copy)
            events.append(parse(line))
    if tail and not skipping:
        if size + len(tail) > limit:
            # Reported the moment the limit is crossed; the rest of the line is dropped.
            events.append(_too_long(limit, size + len(tail)))
            pending, size, skipping = (), 0, True
        else:
            pending, size = push_piece(pending, tail, b""), size + len(tail)
    # Built without `__init__`: its converters would only copy the frozen tuple again.
    return _MAKE_DECODER(limit, pending, size, skipping), tuple(events)


def _too_long(limit: int, size: int) -> FramingError:
    return _error("too_long", f"line longer than {limit} bytes, skipped", size)


def finish_ndjson(decoder: NdjsonDecoder) -> tuple[Parsed | FramingError, ...]:
    """End of input: the unfinished last line, if any, as a final event (a line without its
    newline is still a line; a peer that dies mid-line leaves a framing error).

    Raises:
        ArgumentError: `decoder` is not an `NdjsonDecoder`.
    """
    _decoder_argument(decoder, "finish_ndjson")
    if decoder.skipping or not decoder.pending:
        return ()
    line = b"".join(decoder.pending)
    return (_parse(line),) if line and not line.isspace() else ()


def _dumps(message: Any, *, ascii_only: bool = False) -> str:
    try:
        return json.dumps(message, separators=(",", ":"), ensure_ascii=ascii_only, allow_nan=False)
    except (TypeError, ValueError, RecursionError) as e:
        msg = f"not a JSON value: {e}"
        raise ArgumentError(msg) from None


def _text(message: Any) -> str:
    text = _dumps(message)
    try:
        text.encode("utf-8")
    except UnicodeEncodeError:
        # A lone surrogate (say, an id echoed from a hostile peer) has no UTF-8 form; the
        # ASCII form writes it as a `\\uXXXX` escape, which is valid JSON.
        return _dumps(message, ascii_only=True)
    return text


def encode_ndjson(message: Any) -> bytes:
    """A wire dict (or list) as one NDJSON line: compact JSON, UTF-8, ending in `\\n`.

    JSON escapes every newline inside strings, so a line never contains one. Strings that
    have no UTF-8 form (lone surrogates) are written as `\\uXXXX` escapes.

    Raises:
        ArgumentError: `message` is not JSON (our own bug, never the peer's; also a
            `TypeError`).
    """
    return _text(message).encode("utf-8") + b"\n"


# -- one message per frame (WebSocket and the like) ----------------------------------------


def decode_frame(frame: bytes | str, *, max_size: int = DEFAULT_MAX_LINE) -> Parsed | FramingError:
    """One frame holding one JSON-RPC message (or batch): its value, or a framing error.

    Raises:
        ArgumentError: `frame` is neither text nor bytes-like (an int would be read as a
            size by `bytes()`: a zero-filled frame of that many bytes).
    """
    if isinstance(frame, str):
        if len(frame) > max_size:
            return _error("too_long", f"frame longer than {max_size} characters", len(frame))
        try:
            data = frame.encode("utf-8")
        except UnicodeEncodeError:
            return _error("invalid_utf8", "frame holds a lone surrogate", len(frame))
    else:
        data = bytes_argument(frame, "decode_frame")
    if len(data) > max_size:
        return _error("too_long", f"frame longer than {max_size} bytes", len(data))
    return _parse(data)


def encode_frame(message: Any) -> str:
    """A wire dict as the text of one frame (no trailing newline); see `encode_ndjson`."""
    return _text(message)
