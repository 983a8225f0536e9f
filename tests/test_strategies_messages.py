"""`strategies.messages(revision=r)` draws every kind of JSON-RPC message `r` has, at every
revision of the registry, and none it does not have (issue 21, Build 8).

The regression this pins down: `messages()` took no revision and never drew the item cancels
(`tool_call/cancel`, `terminal/cancel`, 2026-11 on), so every law stated "for every drawn
message" (codec round trips, decoder agreement, immutability) said nothing about them.

The kinds a revision has are not listed here: they are read from the codec's own table of
typed messages at that revision (`tables(r).messages`) plus the generic envelopes every
revision decodes, and that list must cover the `Message` union. So a typed message added to
the codec without a strategy fails here, and so does one a strategy draws where the revision
would decode it as something else. Reaching each kind is not left to chance: a derandomized
`find` searches for it (same draws every run, no shrinking).
"""

from __future__ import annotations

import typing

import pytest
from hypothesis import find, settings
from hypothesis.errors import NoSuchExample
from test_strategies_variants import QUICK as VARIANT_SEARCH

import acp_core as acp
from acp_core import strategies as acps
from acp_core._wire import _jsonrpc as j
from acp_core._wire._codec_tables import tables

REVISIONS = list(acp.REVISIONS.values())
#: The envelopes any method without a typed message decodes into, at every revision.
GENERIC = frozenset({j.Request, j.Notification, j.Response, j.ErrorResponse})
KINDS = typing.get_args(j.Message)

#: Derandomized and without shrinking (the variant searches' settings), 2,000 draws a search.
QUICK = settings(VARIANT_SEARCH, max_examples=2000)


def kinds_of(revision: acp.Revision) -> frozenset[type]:
    """Every message class `revision` decodes, as the codec's tables say."""
    return frozenset(t.cls for t in tables(revision).messages) | GENERIC


def test_the_codec_tables_cover_the_message_union() -> None:
    # A `Message` member no revision decodes would escape every case below.
    assert frozenset(KINDS) == frozenset().union(*(kinds_of(r) for r in REVISIONS))
    # The item cancels are the kinds that differ between revisions.
    assert kinds_of(acp.V2_2026_11) - kinds_of(acp.V2_2026_08) == {
        j.CancelToolCallRequest,
        j.CancelTerminalRequest,
    }


def _cases() -> list[typing.Any]:
    return [
        pytest.param(revision, cls, id=f"{cls.__name__}@{revision.name}")
        for revision in REVISIONS
        for cls in KINDS
    ]


@pytest.mark.parametrize(("revision", "cls"), _cases())
def test_every_message_kind_a_revision_has_is_drawn_there_and_no_other(
    revision: acp.Revision, cls: type
) -> None:
    strategy = acps.messages(revision=revision)
    if cls in kinds_of(revision):
        found = find(strategy, lambda m: type(m) is cls, settings=QUICK)
        # What is drawn is what the revision decodes back unchanged, keyed as it keys it.
        wire = acp.encode_message(found, revision=revision)
        assert acp.decode_message(wire, strict=True, revision=revision) == found
    else:
        with pytest.raises(NoSuchExample):
            find(strategy, lambda m: type(m) is cls, settings=settings(QUICK, max_examples=200))


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_a_method_typed_only_later_is_drawn_as_a_generic_request_before(
    revision: acp.Revision,
) -> None:
    # `tool_call/cancel` is a plain request to 2026-08 (it decodes to `Request`): drawn there
    # as one; from 2026-11 on only as the typed message, never as a generic `Request`.
    def generic_cancel(m: acp.Message) -> bool:
        return type(m) is j.Request and m.method == j.Method.TOOL_CALL_CANCEL

    strategy = acps.messages(revision=revision)
    if revision.includes(acp.V2_2026_11.name):
        with pytest.raises(NoSuchExample):
            find(strategy, generic_cancel, settings=settings(QUICK, max_examples=200))
    else:
        found = find(strategy, generic_cancel, settings=QUICK)
        wire = acp.encode_message(found, revision=revision)
        assert acp.decode_message(wire, strict=True, revision=revision) == found


@pytest.mark.parametrize("revision", REVISIONS, ids=lambda r: r.name)
def test_an_idempotency_key_is_drawn_only_where_the_revision_has_it(
    revision: acp.Revision,
) -> None:
    strategy = acps.prompt_requests(revision=revision)

    def keyed(m: acp.PromptRequest) -> bool:
        return isinstance(m.idempotency_key, str)

    if revision.includes(acp.V2_PREVIEW.name):
        found = find(strategy, keyed, settings=QUICK)
        wire = acp.encode_message(found, revision=revision)
        assert wire["params"]["idempotencyKey"] == found.idempotency_key
        assert acp.decode_message(wire, strict=True, revision=revision) == found
    else:
        with pytest.raises(NoSuchExample):
            find(strategy, keyed, settings=settings(QUICK, max_examples=200))


def test_the_message_strategies_are_built_once_per_arguments() -> None:
    for revision in REVISIONS:
        assert acps.messages(revision=revision) is acps.messages(revision=revision)
        for build in (
            acps.update_session_notifications,
            acps.prompt_requests,
            acps.request_permission_requests,
            acps.requests,
            acps.notifications,
        ):
            assert build(revision=revision) is build(revision=revision)
    assert acps.messages(revision=acp.V2_2026_08) is not acps.messages()
    assert acps.messages(tolerated=True) is acps.messages(tolerated=True)
