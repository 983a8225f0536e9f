"""Telling v1 traffic from v2 traffic, for `replay` auto-detection.

Owns: `looks_like_v1`.
Must not know: how v1 traffic is normalized.
"""

from __future__ import annotations

from collections.abc import Iterable

from acp_core._errors import entries_argument

from ._v1_state import ROLES, V1_ONLY, V2_ONLY

__all__ = ["looks_like_v1"]


def looks_like_v1(entries: Iterable[object]) -> bool:
    """Whether a trace looks like ACP v1 traffic (for `replay` auto-detection).

    A negotiated `protocolVersion` in an `initialize` response (or request) decides. Without
    one, v1-only evidence (chunks without `messageId`, `tool_call`/`plan`/
    `current_mode_update`, a prompt result with `stopReason`, a permission request with
    `toolCall` and no `title`) is weighed against v2-only update kinds.
    """
    v1 = v2 = 0
    requested: int | None = None
    for entry in entries_argument(entries, "looks_like_v1"):
        message = entry.get("message") if type(entry) is dict else None
        for msg in message if type(message) is list else (message,):
            if type(msg) is not dict:
                continue
            params = msg.get("params")
            result = msg.get("result")
            if type(result) is dict:
                version = result.get("protocolVersion")
                if type(version) is int:
                    return version == 1
                if "stopReason" in result:
                    v1 += 1
            if type(params) is not dict:
                continue
            method = msg.get("method")
            if method == "initialize" and type(params.get("protocolVersion")) is int:
                requested = params["protocolVersion"]
            elif method == "session/request_permission":
                if "toolCall" in params and "title" not in params:
                    v1 += 1
                elif "title" in params:
                    v2 += 1
            elif method == "session/update" and type(params.get("update")) is dict:
                update = params["update"]
                kind = update.get("sessionUpdate")
                if type(kind) is not str:
                    continue  # a list or an object is no tag (and not hashable)
                if kind in V1_ONLY or (kind in ROLES and update.get("messageId") is None):
                    v1 += 1
                elif kind in V2_ONLY:
                    v2 += 1
    if requested is not None:
        return requested == 1
    return v1 > v2
