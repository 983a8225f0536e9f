"""The protocol machine of one connection, as a value: `observe` a wire line, `finish` at the end.

`Protocol.start(revision)`, then `observe(protocol, sender, message, at=i)` for each line
either end sends, then `finish(protocol)`: every rule the trace checker judges, in its order,
on the side of neither end (`check_trace` is this fold over a recording's entries). A
`Protocol` is frozen and never changes: keep one and observe two continuations from it.

A public submodule of acp-core (docs/api.md lists each name in its home)."""

from __future__ import annotations

from acp_core._rules._protocol import (
    Protocol,
    finish,
    observe,
)

__all__ = [
    "Protocol",
    "finish",
    "observe",
]
