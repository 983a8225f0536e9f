"""Construction-time freezing for the state records a caller can build (issue 15).

Owns: `freezing_state_fields`, the attrs `field_transformer` of the state records: the rules of
`_wire/_freezing.py`, plus the persistent containers of this layer (a dict given for a `PMap`
field becomes a `PMap`, a list or tuple given for a `PVec` field a `PVec`, their items frozen).
Must not know: how the reducers change state.

A `PMap` or `PVec` given as it is is kept by reference: both are immutable, and walking one
would make every rebuild of a large record linear in its size. The reducers rebuild records
with generated constructors (`fast_constructor`, `fast_replace`, `evolve_frozen`), which skip
`__init__` and its converters.
"""

from __future__ import annotations

from typing import Any, Final

from acp_core._errors import DecodeError
from acp_core._wire._freezing import Converter, freeze_fields_with, freeze_given

from ._pcoll import PMap, PVec

__all__ = ["freezing_state_fields"]


def _map_converter(where: str) -> Converter:
    def convert(value: object) -> object:
        if type(value) is PMap or value is None:
            return value
        if not isinstance(value, dict):
            raise DecodeError(where, f"a persistent map (PMap), not {type(value).__name__}")
        return PMap(
            (freeze_given(key, f"{where}[]"), freeze_given(item, f"{where}[{key!r}]"))
            for key, item in dict.items(value)
        )

    return convert


def _vec_converter(where: str) -> Converter:
    def convert(value: object) -> object:
        if type(value) is PVec or value is None:
            return value
        if not isinstance(value, (list, tuple)):
            raise DecodeError(where, f"a persistent vector (PVec), not {type(value).__name__}")
        return PVec(freeze_given(item, f"{where}[{i}]") for i, item in enumerate(value))

    return convert


def _state_containers(where: str, typed: str) -> Converter | None:
    if typed.startswith("PMap["):
        return _map_converter(where)
    if typed.startswith("PVec["):
        return _vec_converter(where)
    return None


#: `@attrs.frozen(field_transformer=freezing_state_fields)` on every public state record.
freezing_state_fields: Final[Any] = freeze_fields_with(_state_containers)
