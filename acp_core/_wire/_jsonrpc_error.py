"""The `error` member of a JSON-RPC error response, as a frozen value.

Owns: `RpcError`, the one declaration of its wire shape. It has a module of its own because
two surfaces carry it: an error response (`_wire/_jsonrpc.ErrorResponse`) and, from 2026-11
on, an idle state report that ends work with an `error` stop (`_wire/_updates_state.
IdleStateUpdate.error`), and the session-update surface must not import JSON-RPC (which
imports it: `session/update` carries the updates).
Must not know: decoding (`_codec*.py`), the messages that carry it.
"""

from __future__ import annotations

import attrs

from ._fields import wire
from ._freezing import freezing_fields
from ._json import EMPTY_OBJECT, UNSET, JsonObject, JsonValue, Unset
from ._value import frozen

__all__ = ["RpcError"]


@frozen(field_transformer=freezing_fields)
class RpcError:
    """The `error` member of an error response."""

    code: int = attrs.field(metadata=wire(codec="int64"))
    message: str
    data: JsonValue | Unset = attrs.field(default=UNSET, metadata=wire(lenient=False))
    extra: JsonObject = EMPTY_OBJECT
