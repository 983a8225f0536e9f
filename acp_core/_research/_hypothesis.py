"""hypothesis's `strategies` module, imported the first time a strategy is built.

Owns: `st`, what every strategy module of `acp_core.strategies` builds with (in place of
`from hypothesis import strategies as st`): each attribute is hypothesis's own, looked up on
first use and then kept, so `st.text` is `hypothesis.strategies.text`.
Must not know: any strategy.

Why: importing hypothesis costs about 250 ms (issue 24); `acp_core.strategies` and its names
are touched by hosts and tools that never draw (documentation, `dir()`, the every-public-name
walk of benchmarks/import_time.py). Only building a strategy needs hypothesis, so only that
imports it. Type checkers see hypothesis itself (the `TYPE_CHECKING` branch of each user).
"""

from __future__ import annotations

from typing import Any

__all__ = ["st"]


class _Strategies:
    """`hypothesis.strategies`, imported on the first attribute read."""

    def __getattr__(self, name: str) -> Any:
        try:
            from hypothesis import strategies as module
        except ImportError as exc:
            msg = "acp_core.strategies needs hypothesis: install acp-core[strategies]"
            raise ImportError(msg) from exc
        value = getattr(module, name)
        setattr(self, name, value)  # later reads find it without this call
        return value


st: Any = _Strategies()
