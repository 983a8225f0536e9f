"""`plain_fields`: a `SessionExtras` field that is a plain optional scalar is snapshotted
under its camelCase name without a line of its own in `_state/_snapshot_preview.py`; any other
field outside the hand-written ones is refused when the module loads.

The round trip of such a field through `snapshot` / `restore` is shown by the walk-through's
scratch variant (`SessionExtras.focus`, branch wt/walkthrough-scratch2, tests/test_focus_update.py).
"""

from __future__ import annotations

import attrs
import pytest

from acp_core._state import _snapshot_preview as sp
from acp_core._state._state_extras import SessionExtras


def test_plain_optional_scalars_get_camel_case_keys_and_their_json_type() -> None:
    @attrs.frozen
    class Extras:
        kept: tuple[str, ...] = ()
        focus_path: str | None = None
        turn_count: int | None = None
        pinned: bool | None = None

    assert sp.plain_fields(Extras, frozenset({"kept"})) == (
        ("focus_path", "focusPath", str),
        ("turn_count", "turnCount", int),
        ("pinned", "pinned", bool),
    )


@pytest.mark.parametrize(
    ("annotation", "default"),
    [("tuple[str, ...]", ()), ("str", ""), ("str | None", "x"), ("list[int] | None", None)],
)
def test_anything_else_must_be_written_by_hand(annotation: str, default: object) -> None:
    cls = attrs.make_class("Extras", {"odd": attrs.field(type=annotation, default=default)})
    with pytest.raises(TypeError, match=r"Extras\.odd"):
        sp.plain_fields(cls, frozenset())


def test_every_field_of_the_extras_is_written_by_hand_or_plain() -> None:
    names = {f.name for f in attrs.fields(SessionExtras)}
    assert names == sp._BY_HAND | {name for name, _, _ in sp.PLAIN}
