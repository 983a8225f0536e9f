"""`decode_part` and `encode_part` take a part name they do not know (or a name that is no
string) as an `ArgumentError` naming the parts there are.

Found by calling every public function with values of the wrong type (session s6, attack):
`decode_part("Nope", {})` raised `KeyError`, `decode_part([], {})` `TypeError: unhashable`,
and `encode_part` the same.
"""

from __future__ import annotations

import pytest

import acp_core as acp
from acp_core import codec


@pytest.mark.parametrize("name", ["Nope", "", None, [], {}], ids=repr)
def test_an_unknown_part_name_is_an_argument_error(name: object) -> None:
    with pytest.raises(acp.ArgumentError, match="ContentBlock"):
        codec.decode_part(name, {"type": "text", "text": "t"})  # type: ignore[arg-type]
    with pytest.raises(acp.ArgumentError, match="ContentBlock"):
        codec.encode_part(name, acp.TextContent("t"))  # type: ignore[arg-type]


def test_a_known_part_is_still_decoded_and_encoded() -> None:
    block = codec.decode_part("ContentBlock", {"type": "text", "text": "t"})
    assert block == acp.TextContent("t")
    assert codec.encode_part("ContentBlock", block) == {"type": "text", "text": "t"}
