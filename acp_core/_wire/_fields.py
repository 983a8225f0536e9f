"""How a value class states the exceptions to its derived wire shape.

Owns: `wire_tag(...)` (the tag keys a variant carries), `wire(...)` (per-field exceptions, as
attrs metadata) and `WireField`, the record of one field's exceptions that the codec reads.
Must not know: codecs, decoding, any ACP type.

The codec derives everything else from the attrs class itself (see `_wire/_codec_derive.py`):
- the wire key is the camelCase of the attribute name, `meta` is `_meta`;
- a field without a default is required; a field whose type admits `None` is nullable;
- an optional field is lenient (the schema's `x-deserialize-default-on-error`), a required
  one is not;
- the value codec follows the annotation (`str`, `bool`, `float`, tuples, classes, unions).
So a field needs `wire(...)` only when it departs from these rules: a renamed key, a leniency
annotation the rule gets wrong, an integer width, a list that must not drop bad items, a
field that exists only from a later revision on (`since`), or a field that a later revision
renames or removes (`key_since`). A class that a later revision adds says so with
`__wire_since__ = "<revision name>"`.
"""

from __future__ import annotations

from typing import Final

from ._value import frozen

__all__ = ["BASE_REVISION", "PREVIEW_NAME", "WIRE", "WireField", "since_of", "wire", "wire_tag"]

#: The revision a class or field belongs to when it names no `since`.
BASE_REVISION: Final = "2026-08"

#: The dated name of the v2 Preview (2026-11-20); `preview` is its alias in `_wire/_revision.py`.
PREVIEW_NAME: Final = "2026-11-20"

#: The attrs metadata key under which a field's `WireField` is stored.
WIRE: Final = "acp.wire"

#: Integer codecs by name (JSON numbers carry no width, the schema's `format` does).
INT_CODECS: Final = frozenset({"uint16", "uint32", "uint64", "int64"})


@frozen
class WireField:
    """The exceptions of one field (`None` = follow the derivation rule).

    Attributes:
        key: the wire key, when it is not the camelCase of the attribute.
        codec: an integer width (`uint32`, `uint64`, `int64`); every `int` field needs one.
        lenient: a malformed value is tolerated (dropped with a diagnostic) instead of
            failing the whole object.
        on_error: what a tolerated malformed value becomes (default: absent).
        skip_invalid: a list drops its malformed items (`x-deserialize-skip-invalid-items`);
            on by default for lists.
        min_items: the list's `minItems`.
        since: the first revision (by name) whose wire carries this field; earlier revisions
            keep the key in `extra` like any unknown key.
        length: a string's `(minLength, maxLength)`.
        codec_since: later integer widths, as `(revision, width)` pairs: from that revision
            on the field uses that width (e.g. `exitCode` is uint32, then int64 in 2026-11).
        key_since: later keys, as `(revision, key)` pairs: from that revision on the field
            is read and written under `key` (a rename); a key of None removes the field from
            that revision on (its old key is then an unknown key, kept in `extra`). The
            decoder and the encoder of a revision both pick the latest pair of its lineage.
    """

    key: str | None = None
    codec: str | None = None
    lenient: bool | None = None
    on_error: object = None
    skip_invalid: bool = True
    min_items: int = 0
    since: str | None = None
    codec_since: tuple[tuple[str, str], ...] = ()
    length: tuple[int, int] | None = None
    key_since: tuple[tuple[str, str | None], ...] = ()


def wire(
    *,
    key: str | None = None,
    codec: str | None = None,
    lenient: bool | None = None,
    on_error: object = None,
    skip_invalid: bool = True,
    min_items: int = 0,
    since: str | None = None,
    codec_since: tuple[tuple[str, str], ...] = (),
    length: tuple[int, int] | None = None,
    key_since: tuple[tuple[str, str | None], ...] = (),
) -> dict[str, WireField]:
    """Attrs metadata for a field that departs from the derived wire shape."""
    for width in (codec, *(w for _, w in codec_since)):
        if width is not None and width not in INT_CODECS:
            msg = f"unknown integer codec {width!r}"
            raise ValueError(msg)
    return {
        WIRE: WireField(
            key,
            codec,
            lenient,
            on_error,
            skip_invalid,
            min_items,
            since,
            codec_since,
            length,
            key_since,
        )
    }


def since_of(cls: object) -> str:
    """The first revision whose wire carries the class (`__wire_since__`, else the base)."""
    since: str = getattr(cls, "__wire_since__", BASE_REVISION)
    return since


def wire_tag(**pairs: str) -> tuple[tuple[str, str], ...]:
    """The tag keys a union variant carries, e.g. `wire_tag(sessionUpdate="usage_update")`.

    Nested unions list the outer tag first: `wire_tag(sessionUpdate="state_update",
    state="idle")`. An `Other*` class of a nested union names only the outer tag.
    """
    return tuple(pairs.items())
