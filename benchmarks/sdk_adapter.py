"""Adapter for the official Python SDK's accumulator (`agent-client-protocol`, import `acp`).

Owns: finding the SDK (optional: the `bench` extra), turning v1 update dicts into its
`SessionNotification` models, and driving `acp.contrib.session_state.SessionAccumulator`.
Must not know: acp_core.

The SDK speaks v1, so it is fed the v1 traffic each workload generates beside its v2 traffic.
Its public `apply()` returns a snapshot that deep-copies every accumulated chunk, so the cost
of one event grows with the session: a full workload would take hours. The harness measures a
short prefix and says how long; a rate on a prefix flatters the SDK (later events are dearer).
"""

from __future__ import annotations

from typing import Any

__all__ = [
    "NAME",
    "apply_private",
    "apply_public",
    "decode_apply_public",
    "load",
    "public_rate_at_end",
    "to_wire",
]

NAME = "python_sdk"


def load() -> tuple[Any, Any, str] | None:
    """(SessionNotification, SessionAccumulator, version), or None when not installed."""
    try:
        from importlib.metadata import version

        from acp.contrib.session_state import SessionAccumulator
        from acp.schema import SessionNotification
    except ImportError:
        return None
    return SessionNotification, SessionAccumulator, version("agent-client-protocol")


def to_wire(session_id: str, updates: list[dict[str, Any]]) -> list[dict[str, Any]]:
    """v1 `session/update` params for each update (what the SDK validates)."""
    return [{"sessionId": session_id, "update": u} for u in updates]


def apply_public(accumulator_cls: Any, notifications: list[Any]) -> Any:
    """Feed validated notifications through the public `apply()`; return the accumulator."""
    acc = accumulator_cls()
    apply = acc.apply
    for n in notifications:
        apply(n)
    return acc


def decode_apply_public(
    notification_cls: Any, accumulator_cls: Any, wire: list[dict[str, Any]]
) -> Any:
    """Validate each wire dict with pydantic, then `apply()` it."""
    acc = accumulator_cls()
    apply = acc.apply
    validate = notification_cls.model_validate
    for w in wire:
        apply(validate(w))
    return acc


def apply_private(accumulator_cls: Any, notifications: list[Any]) -> Any:
    """The accumulator's private merge step without the per-event snapshot (for context only:
    not public API, and a caller of it gets no snapshot to render)."""
    acc = accumulator_cls()
    ensure = acc._ensure_session
    merge = acc._apply_update
    for n in notifications:
        ensure(n)
        merge(n.update)
    return acc


def public_rate_at_end(accumulator_cls: Any, notifications: list[Any], tail: int) -> float:
    """Events/s of the public `apply()` over the last `tail` events of a whole workload.

    The session up to there is built with the private merge (untimed), so this is the rate
    the public API reaches once the session has the workload's full size, without hours of
    waiting for the quadratic prefix. Measured once: apply() mutates the accumulator.
    """
    import time

    head, last = notifications[:-tail], notifications[-tail:]
    acc = apply_private(accumulator_cls, head)
    apply = acc.apply
    t0 = time.perf_counter()
    for n in last:
        apply(n)
    return len(last) / (time.perf_counter() - t0)
