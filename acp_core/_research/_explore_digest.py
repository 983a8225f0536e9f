"""A stable digest of a frozen value: the same bytes in every process, whatever PYTHONHASHSEED.

Owns: `stable_digest(value)`, used by `explore` to shard a frontier across processes and
machines (Python's `hash()` of a string is salted per process, and the iteration order of a
hash map follows those salted hashes, so neither `hash()` nor a pickle can be compared across
processes).
Must not know: what the value means.

The walk is canonical: attrs instances by class and fields, mappings by their items sorted by
each key's encoding, sets sorted, sequences in order, scalars by type and `repr`. Values equal
under `==` give equal digests (for the values acp-core builds: attrs values, persistent maps and
vectors, tuples, JSON scalars).
"""

from __future__ import annotations

import hashlib
from collections.abc import Mapping
from typing import Any

import attrs

__all__ = ["stable_digest"]


def _encode(value: Any, out: list[bytes]) -> None:
    if value is None or isinstance(value, bool | int | float | str):
        out.append(f"{type(value).__name__}:{value!r};".encode("utf-8", "backslashreplace"))
    elif isinstance(value, bytes):
        out.append(b"b%d:" % len(value) + value)
    elif attrs.has(type(value)):
        out.append(f"<{type(value).__qualname__}".encode())
        for field in attrs.fields(type(value)):
            _encode(getattr(value, field.name), out)
        out.append(b">")
    elif isinstance(value, Mapping) or (hasattr(value, "items") and hasattr(value, "keys")):
        items = []
        for key, item in value.items():
            k: list[bytes] = []
            _encode(key, k)
            v: list[bytes] = []
            _encode(item, v)
            items.append((b"".join(k), b"".join(v)))
        out.append(b"{")
        for k_bytes, v_bytes in sorted(items):
            out.append(k_bytes + b"=" + v_bytes)
        out.append(b"}")
    elif isinstance(value, frozenset | set):
        parts = []
        for item in value:
            p: list[bytes] = []
            _encode(item, p)
            parts.append(b"".join(p))
        out.append(b"s(" + b",".join(sorted(parts)) + b")")
    elif isinstance(value, tuple | list) or hasattr(value, "__iter__"):
        out.append(b"[")
        for item in value:
            _encode(item, out)
        out.append(b"]")
    else:  # sentinels (UNSET) and other plain objects: their type and repr
        out.append(f"?{type(value).__qualname__}:{value!r};".encode("utf-8", "backslashreplace"))


def stable_digest(value: object) -> bytes:
    """16 bytes that depend only on the value, never on the process."""
    out: list[bytes] = []
    _encode(value, out)
    return hashlib.blake2b(b"".join(out), digest_size=16).digest()
