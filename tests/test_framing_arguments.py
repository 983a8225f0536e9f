"""The framing functions and the connections' `max_line` take a wrong kind of argument as an
`ArgumentError` (an `AcpError` and a `TypeError`), at the call that was handed it.

Found by calling every public function with values of the wrong type (session s6, attack):
`decode_frame(10**9)` built a zero-filled billion-byte frame (`bytes(int)`) and
`decode_frame(2**70)` raised `OverflowError`, `decode_frame(-1)` `ValueError`,
`decode_frame(None)` `TypeError`; `feed_ndjson`, `decode_ndjson` and `finish_ndjson` with a
decoder that is not one raised `AttributeError`; `new_agent_connection(..., max_line="x")`
was taken and every later `receive_bytes` raised `TypeError`.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import acp_core as acp
from acp_core import connection as cx

INFO = cx.Implementation("a", "1")
LINE = b'{"jsonrpc":"2.0","id":1,"method":"zz/x"}\n'

CALLS: list[Any] = [
    pytest.param(lambda: cx.decode_frame(10**9), id="decode_frame-int"),
    pytest.param(lambda: cx.decode_frame(2**70), id="decode_frame-huge-int"),
    pytest.param(lambda: cx.decode_frame(-1), id="decode_frame-negative"),
    pytest.param(lambda: cx.decode_frame(None), id="decode_frame-None"),
    pytest.param(lambda: cx.decode_frame([1, 2]), id="decode_frame-list"),
    pytest.param(lambda: cx.feed_ndjson(b"", LINE), id="feed_ndjson-decoder"),
    pytest.param(lambda: cx.decode_ndjson(None, LINE), id="decode_ndjson-decoder"),
    pytest.param(lambda: cx.finish_ndjson(None), id="finish_ndjson-decoder"),
    pytest.param(lambda: acp.new_agent_connection(INFO, max_line="x"), id="agent-max_line-str"),
    pytest.param(lambda: acp.new_agent_connection(INFO, max_line=0), id="agent-max_line-0"),
    pytest.param(lambda: acp.new_client_connection(INFO, max_line=1.5), id="client-max_line"),
    pytest.param(lambda: cx.feed_ndjson(cx.NdjsonDecoder("x"), LINE), id="max_line-str"),
]


@pytest.mark.parametrize("call", CALLS)
def test_a_wrong_kind_of_argument_is_an_argument_error(call: Callable[[], object]) -> None:
    with pytest.raises(acp.ArgumentError):
        call()


def test_the_right_kinds_are_still_taken() -> None:
    assert type(cx.decode_frame(LINE.strip())) is cx.Parsed
    assert type(cx.decode_frame(bytearray(LINE.strip()))) is cx.Parsed
    assert type(cx.decode_frame(LINE.strip().decode())) is cx.Parsed
    decoder, events = cx.feed_ndjson(cx.NdjsonDecoder(64), LINE + b"{")
    assert len(events) == 1
    assert len(cx.finish_ndjson(decoder)) == 1
    for conn in (
        acp.new_agent_connection(INFO, max_line=64),
        acp.new_client_connection(INFO, max_line=64),
    ):
        assert acp.receive_bytes(conn, LINE) is not None
