"""The pieces of an unfinished line or event, held so that tiny feeds cost linear time.

Owns: `push_piece`, the binary-counter merge both byte-stream decoders (`_framing`'s NDJSON,
`_sse`'s event stream) use for what they hold between feeds.
Must not know: any framing (line ends, limits, events), ACP, JSON-RPC.

Why: a decoder is a frozen value, so what it holds is a tuple, and appending to a tuple copies
it: a line arriving a byte per feed would cost quadratic time. Merging like a binary counter (a
chunk is merged into the piece after it while it is no longer than that piece) keeps chunk
lengths strictly decreasing, so each byte is copied only when its chunk at least doubles: a
logarithmic number of times; n pieces of one size (no separator) are held in at most
log2(n) + 1 chunks.
"""

from __future__ import annotations

from typing import AnyStr

__all__ = ["push_piece"]


def push_piece(chunks: tuple[AnyStr, ...], piece: AnyStr, sep: AnyStr) -> tuple[AnyStr, ...]:
    """`chunks` with `piece` after them, in fewer, longer chunks: `sep.join` of the result is
    `sep.join((*chunks, piece))` (`sep` is `b""` for a line's bytes, `"\\n"` for SSE data)."""
    out = list(chunks)
    while out and len(out[-1]) <= len(piece):
        piece = out.pop() + sep + piece
    out.append(piece)
    return tuple(out)
