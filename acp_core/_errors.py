"""Every exception acp-core raises, and the Diagnostic value for problems that are not fatal.

Owns: the error hierarchy (`AcpError` at the root; nothing else ever escapes a public entry
point) and `Diagnostic`, the record of something the codec or a reducer tolerated.
Must not know: the protocol's types or rules beyond their ids (rule ids are plain strings here).

Who is at fault decides the class, as in h11: `LocalProtocolError` when *our* side asked for
something the protocol forbids (an engine intent), `RemoteProtocolError` when the peer sent it,
`DecodeError` when a wire value does not have the shape the schema requires.
"""

from __future__ import annotations

from collections.abc import Iterable

from acp_core._wire._value import frozen

__all__ = [
    "AcpError",
    "ArgumentError",
    "DecodeError",
    "Diagnostic",
    "LocalProtocolError",
    "ProtocolError",
    "RemoteProtocolError",
    "SseError",
    "UnknownRevisionError",
]


class AcpError(Exception):
    """Root of every error acp-core raises on purpose."""


class ArgumentError(AcpError, TypeError):
    """A public function was handed an argument of the wrong kind (an `object()` where a
    `SessionState` or an update belongs): the caller's bug. Also a `TypeError`, so code that
    catches `TypeError` keeps working, and an `AcpError`, so nothing else escapes."""


class UnknownRevisionError(AcpError, KeyError):
    """`revision_named` was handed a name no revision has. Also a `KeyError` (what it raised
    before), so code that catches `KeyError` keeps working; its message lists the names."""

    def __str__(self) -> str:
        # KeyError quotes its argument (`repr`); this is a sentence, shown as written.
        return str(self.args[0]) if self.args else ""


def bytes_argument(data: object, function: str) -> bytes:
    """`data` as `bytes` (a bytes-like copied once), for the feeding functions of the framings.

    Raises:
        ArgumentError: `data` is not bytes-like (the caller's bug), naming `function`.
    """
    if type(data) is bytes:
        return data
    if not isinstance(data, (bytes, bytearray, memoryview)):
        raise ArgumentError(f"{function} takes bytes, not {type(data).__name__}")
    return bytes(data)


def entries_argument(entries: object, function: str) -> Iterable[object]:
    """`entries` when it can be iterated (a trace: a list, a generator, a file's parsed lines).

    Raises:
        ArgumentError: it cannot (the caller's bug; whatever the entries hold is judged).
    """
    try:
        iter(entries)  # type: ignore[call-overload]
    except Exception:  # TypeError, or whatever a hostile `__iter__` raises
        msg = f"{function} takes an iterable of trace entries, not {type(entries).__name__}"
        raise ArgumentError(msg) from None
    return entries  # type: ignore[return-value]


class DecodeError(AcpError):
    """A wire value does not match the ACP v2 schema.

    Attributes:
        path: JSON path of the offending value, for example ``$.update.content.text``.
        expected: what the schema wanted there, for example ``string``.
        code: the JSON-RPC error code a receiver should answer with (-32602 or -32600).
    """

    def __init__(self, path: str, expected: str, code: int = -32602) -> None:
        super().__init__(path, expected, code)
        self.path = path
        self.expected = expected
        self.code = code

    def __str__(self) -> str:
        return f"expected {self.expected} @ {self.path}"


class SseError(AcpError):
    """A Server-Sent Events stream could not be decoded (the peer's fault).

    Attributes:
        kind: what went wrong; `too_long`: a line or event went over the decoder's buffer limit.
        detail: a readable explanation, for a log line.
    """

    def __init__(self, kind: str, detail: str) -> None:
        super().__init__(kind, detail)
        self.kind = kind
        self.detail = detail

    def __str__(self) -> str:
        return f"SSE {self.kind}: {self.detail}"


class ProtocolError(AcpError):
    """A protocol rule was broken. `rule` is the stable id from the rule catalogue."""

    def __init__(self, rule: str, detail: str, code: int = -32600) -> None:
        if type(self) is ProtocolError:
            msg = "raise LocalProtocolError or RemoteProtocolError, not ProtocolError"
            raise TypeError(msg)
        super().__init__(rule, detail, code)
        self.rule = rule
        self.detail = detail
        self.code = code

    def __str__(self) -> str:
        return f"[{self.rule}] {self.detail}"


class LocalProtocolError(ProtocolError):
    """Our own side asked for something the protocol forbids; nothing was changed."""


class RemoteProtocolError(ProtocolError):
    """The peer sent something the protocol forbids."""


@frozen
class Diagnostic:
    """Something tolerated instead of rejected: a field dropped, an anomaly in a reducer.

    Attributes:
        rule: stable id of what happened (see docs/semantics.md and docs/rules.md).
        path: where: a JSON path for codec findings, an entity reference for reducers.
        message: a readable explanation.
    """

    rule: str
    path: str
    message: str
