"""`revision=` that is not a `Revision` (a name string, None, a number) is an `ArgumentError`
(an `AcpError` and a `TypeError`) naming what to pass, from every public function taking it,
never an `AttributeError` from deep inside.

Found by calling every public function that takes `revision=` with values of the wrong type
(session s6, attack): the codec's decoders and encoders, `reduce`, `fold`, `snapshot`,
`rules_markdown`, both engines and both connections raised `AttributeError` (`'str' object has
no attribute 'lineage'`, `... 'meta_patch_merges'`, `... 'includes'`), the connections only at
their first step.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any

import pytest

import acp_core as acp
from acp_core import checker, codec
from acp_core import connection as cx

CHUNK = {
    "sessionUpdate": "agent_message_chunk",
    "messageId": "m",
    "content": {"type": "text", "text": "t"},
}
RESPONSE = {"jsonrpc": "2.0", "id": 1, "result": {}}
INFO = cx.Implementation("a", "1")


def _update() -> acp.SessionUpdate:
    return acp.decode_update(CHUNK)


CALLS: dict[str, Callable[[Any], object]] = {
    "decode_update": lambda r: acp.decode_update(CHUNK, revision=r),
    "decode_update_diagnosed": lambda r: codec.decode_update_diagnosed(CHUNK, revision=r),
    "decode_message": lambda r: acp.decode_message(RESPONSE, revision=r),
    "decode_message_diagnosed": lambda r: codec.decode_message_diagnosed(RESPONSE, revision=r),
    "encode_update": lambda r: acp.encode_update(_update(), revision=r),
    "encode_message": lambda r: acp.encode_message(acp.decode_message(RESPONSE), revision=r),
    "decode_prompt_result": lambda r: codec.decode_prompt_result(
        {"stopReason": "end_turn"}, revision=r
    ),
    "encode_result": lambda r: codec.encode_result(
        codec.decode_prompt_result({"stopReason": "end_turn"}), revision=r
    ),
    "decode_part": lambda r: codec.decode_part(
        "ContentBlock", {"type": "text", "text": "t"}, revision=r
    ),
    "encode_part": lambda r: codec.encode_part("ContentBlock", acp.TextContent("x"), revision=r),
    "decode_ndjson": lambda r: cx.decode_ndjson(cx.NdjsonDecoder(), b"{}\n", revision=r),
    "reduce": lambda r: acp.reduce(acp.new_session("s"), _update(), revision=r),
    "fold": lambda r: acp.fold(acp.new_session("s"), [_update()], revision=r),
    "snapshot": lambda r: acp.snapshot(acp.new_session("s"), revision=r),
    "rules_markdown": lambda r: checker.rules_markdown(revision=r),
    "new_agent": lambda r: acp.new_agent("s", revision=r),
    "new_client": lambda r: acp.new_client("s", revision=r),
    "new_agent_connection": lambda r: acp.new_agent_connection(INFO, revision=r),
    "new_client_connection": lambda r: acp.new_client_connection(INFO, revision=r),
}
#: Where `revision=None` is documented: no revision written (`snapshot`), every rule listed.
TAKE_NONE = {"snapshot", "rules_markdown"}
WRONG = [
    pytest.param(None, id="None"),
    pytest.param("2026-11", id="a-name"),
    pytest.param(5, id="int"),
    pytest.param([], id="list"),
]


@pytest.mark.parametrize("wrong", WRONG)
@pytest.mark.parametrize("name", list(CALLS))
def test_a_revision_that_is_not_a_revision_is_an_argument_error(name: str, wrong: object) -> None:
    if wrong is None and name in TAKE_NONE:
        assert CALLS[name](wrong) is not None  # None means "no revision" there
        return
    with pytest.raises(acp.ArgumentError, match="revision"):
        CALLS[name](wrong)


@pytest.mark.parametrize("name", list(CALLS))
def test_every_revision_is_still_taken(name: str) -> None:
    for revision in acp.REVISIONS.values():
        CALLS[name](revision)


@pytest.mark.parametrize("wrong", [["preview"], None, 2026, b"preview", {"name": "preview"}])
def test_revision_named_of_a_non_string_is_an_argument_error(wrong: object) -> None:
    with pytest.raises(acp.errors.ArgumentError, match="revision_named takes a str"):
        codec.revision_named(wrong)  # type: ignore[arg-type]


def test_revision_named_of_an_unknown_name_is_an_acp_error_and_still_a_key_error() -> None:
    # (before: a bare KeyError; a public function raises an AcpError for any input)
    with pytest.raises(acp.errors.UnknownRevisionError) as raised:
        codec.revision_named("2099-01")
    assert isinstance(raised.value, acp.errors.AcpError)
    assert isinstance(raised.value, KeyError)  # what callers caught before keeps working
    assert str(raised.value).startswith("unknown revision '2099-01'; known: ")
    assert "preview" in str(raised.value)
