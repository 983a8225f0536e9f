"""The error classes: every public function returns a value or raises an `AcpError`.

A public submodule of acp-core (docs/api.md lists each name in its home)."""

from __future__ import annotations

from acp_core._errors import (
    AcpError,
    ArgumentError,
    DecodeError,
    Diagnostic,
    LocalProtocolError,
    ProtocolError,
    RemoteProtocolError,
    SseError,
    UnknownRevisionError,
)

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
