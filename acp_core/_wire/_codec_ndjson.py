"""NDJSON bytes straight to decoded messages: framing and decoding in one pass.

Owns: `decode_ndjson` (and `compiled_decoder()`, which decoder of the hot lines it uses):
`feed_ndjson`'s splitting with each line decoded as it is read, through the compiled decoder
of the hot `session/update` shapes (`_wire/_codec_compiled.py`, when msgspec is installed: the
`fast` extra) and otherwise the framing's parse and `decode_message`.
Must not know: what a message means (engines), how a line is split (`_wire/_framing.py`), the
shapes the compiled decoder takes.

The law (tests/test_codec_compiled.py): each event is what `feed_ndjson` and then
`decode_message(event.value, ...)` give for the same bytes: the decoded message; or, for a
JSON value that does not decode, its `Parsed` (decoding `event.value` raises the
`DecodeError` that says why); or the `FramingError`. The compiled decoder only changes how
fast: a line it does not take is read the pure way.
"""

from __future__ import annotations

import functools
from collections.abc import Callable
from typing import Final

from acp_core._errors import DecodeError, bytes_argument

from . import _jsonrpc as j
from ._codec import message_decoder
from ._framing import FramingError, NdjsonDecoder, Parsed, feed_lines, parse_value
from ._revision import DEFAULT_REVISION, Revision

__all__ = ["compiled_decoder", "decode_ndjson"]


Event = j.Message | j.Batch | Parsed | FramingError
Reader = Callable[[bytes], Event]


@functools.cache
def _compiled() -> Callable[[Reader], Reader] | None:
    # Imported on first use (about 10 ms), so that importing acp-core never pays for msgspec.
    try:
        from ._codec_compiled import compiled_reader
    except ImportError:  # msgspec is not installed: every line is read the pure way
        return None
    return compiled_reader


def compiled_decoder() -> str:
    """The decoder `decode_ndjson` gives the hot `session/update` lines at the default
    revision: `msgspec` (the `fast` extra is installed) or `none` (every line is parsed,
    then decoded by the codec). The first call imports msgspec where it is installed."""
    return "none" if _compiled() is None else "msgspec"


def _pure_reader(strict: bool, revision: Revision) -> Reader:
    decode = message_decoder(strict, revision)

    def read(line: bytes) -> Event:
        # `parse_line` then `decode_message`, without the `Parsed` unless it is the event.
        value = parse_value(line)
        if type(value) is FramingError:
            return value
        try:
            return decode(value)
        except DecodeError:
            return Parsed(value)  # the caller decodes it again to learn why (a peer's fault)

    return read


def _reader(strict: bool, revision: Revision) -> Reader:
    pure = _pure_reader(strict, revision)
    compiled = _compiled() if revision is DEFAULT_REVISION else None
    # A shape the compiled decoder takes is valid in strict decoding too: it holds nothing
    # lenient decoding would tolerate (tests/test_codec_compiled.py). It reads the line, or
    # hands it to the pure reader.
    return pure if compiled is None else compiled(pure)


#: The readers by (strict, revision), built on first use.
_READERS: Final[dict[tuple[bool, Revision], Reader]] = {}


def decode_ndjson(
    decoder: NdjsonDecoder,
    data: bytes,
    *,
    strict: bool = False,
    revision: Revision = DEFAULT_REVISION,
) -> tuple[NdjsonDecoder, tuple[j.Message | j.Batch | Parsed | FramingError, ...]]:
    """Feed bytes (any split) and decode each complete line: `(decoder', events)` in order.

    Each event is the line's decoded message (or batch); or, for a JSON value that is not a
    message `decode_message` takes, its `Parsed` (`decode_message(event.value)` raises the
    `DecodeError` saying why); or a `FramingError`, exactly as `feed_ndjson` reports it. The
    same as `feed_ndjson` followed by `decode_message`, and faster with the `fast` extra.
    Finish a stream with `finish_ndjson` (its last line, unfinished, is a `Parsed`).

    Raises:
        ArgumentError: `data` is not bytes (the caller's bug).
    """
    data = bytes_argument(data, "decode_ndjson")
    read = _READERS.get((strict, revision)) if revision is DEFAULT_REVISION else None
    if read is None:
        read = _reader(strict, revision)
        if revision is DEFAULT_REVISION:  # (other revisions are rare: not kept)
            _READERS[strict, revision] = read
    return feed_lines(decoder, data, read)
