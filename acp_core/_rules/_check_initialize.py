"""The agent's answer to the client's `initialize`, judged on its own (J5-J10, J31-J33, J46,
J47).

Owns: the handshake (`handshake_findings`: an error answer, J31, or J33 for a request of
version 1; a `protocolVersion` that is no uint16 or echoes a version ACP does not define,
J32), what a v2 answer holds (`initialize_findings`: `info`, J5; capabilities, J6 and their
custom root keys, J46 (`capability_key_findings`); auth method ids, types and terminal
launches, J7-J10) and the rest of its schema shape (`schema_findings`, J47).
Must not know: what came before the answer besides the request's params (the checker pairs
them, `_rules/_protocol.py`; the client connection asks the same functions of the answer it
gets), any later traffic (`_rules/_check_capabilities.py` holds what was advertised), files.

Cut from `_rules/_check_message.py` along the protocol's seam: these read one answer of one
method, the handshake, where that module reads the session's traffic.
"""

from __future__ import annotations

from collections.abc import Iterator, Mapping
from typing import Any, Final

from acp_core._wire import _jsonrpc as j

from ._check_message import Finding
from ._predicates import shown, unstable_key

__all__ = [
    "CHECKED",
    "capability_key_findings",
    "handshake_findings",
    "initialize_findings",
    "schema_findings",
]

#: The rules these checks report.
CHECKED: Final = frozenset(
    {"J5", "J6", "J7", "J8", "J9", "J10", "J31", "J32", "J33", "J46", "J47"}
)


def _booleans(value: object, path: str) -> Iterator[str]:
    """The paths of the booleans in a capabilities tree (`_meta` subtrees are free-form)."""
    if isinstance(value, bool):
        yield path
    elif isinstance(value, Mapping):
        for key, item in value.items():
            if key != "_meta":
                yield from _booleans(item, f"{path}.{key}")


def _terminal_findings(method: Mapping[str, Any], where: str) -> Iterator[Finding]:
    args, env = method.get("args"), method.get("env")
    # (decoded JSON holds arrays as tuples; a hand-made value may hold lists)
    strings = isinstance(args, (list, tuple)) and all(isinstance(a, str) for a in args)
    if args is not None and not strings:
        yield "J9", f"{where} has args {shown(args)}, not an array of strings"
    if env is None:
        return
    ok = isinstance(env, (list, tuple)) and all(
        isinstance(e, Mapping)
        and isinstance(e.get("name"), str)
        and isinstance(e.get("value"), str)
        for e in env
    )
    if not ok:
        yield "J9", f"{where} has env {shown(env)}, not an array of {{name, value}} strings"
        return
    names = [e["name"] for e in env]
    doubled = sorted({n for n in names if names.count(n) > 1})
    if doubled:
        yield "J9", f"{where} names environment variable {shown(doubled[0])} twice"


_VERSIONS: Final = (1, 2)


def _version(value: object) -> int | None:
    return value if type(value) is int and 0 <= value <= 0xFFFF else None


def handshake_findings(params: object, answer: j.Response | j.ErrorResponse) -> list[Finding]:
    """What the agent's `answer` to the client's `initialize` (with `params`) breaks in the
    handshake itself: an error answer (J31; J33 for a request of version 1), a
    `protocolVersion` that is no uint16 or echoes a version ACP does not define (J32), a
    request of version 1 answered with another version than 1 or 2 (J33)."""
    asked = params.get("protocolVersion") if isinstance(params, Mapping) else None
    downgrade = type(asked) is int and asked == 1
    if isinstance(answer, j.ErrorResponse):
        if downgrade:
            return [
                (
                    "J33",
                    f"initialize asking for protocol version 1 is answered with "
                    f"error {answer.error.code}: a downgrade request still succeeds",
                )
            ]
        return [
            (
                "J31",
                f"initialize is answered with error {answer.error.code}: the "
                "handshake succeeds with a result",
            )
        ]
    result = answer.result
    if not isinstance(result, Mapping):
        return []  # not an object at all: J47's
    given = result.get("protocolVersion")
    version = _version(given)
    if version is None:
        return [
            (
                "J32",
                f"the initialize answer's protocolVersion is {shown(given)}, not an "
                "integer version (0..65535)",
            )
        ]
    if version == _version(asked) and version > max(_VERSIONS):
        return [
            (
                "J32",
                f"the initialize answer echoes the requested protocolVersion {version}, "
                "which no ACP version is: an agent answers its own latest version",
            )
        ]
    if downgrade and version not in _VERSIONS:
        return [
            (
                "J33",
                f"initialize asking for protocol version 1 is answered with version "
                f"{version}: expected 1, or 2 for an agent without version 1",
            )
        ]
    return []


# The keys of `AgentCapabilities` (the same in every revision acp-core knows).
_AGENT_CAPABILITIES: Final = frozenset({"session", "auth", "_meta"})


def capability_key_findings(caps: object) -> list[Finding]:
    """J46: the agent advertises its own extensions in `capabilities._meta`, never as a key
    of `capabilities` the schema does not define (the unstable schema's keys are not custom)."""
    if not isinstance(caps, Mapping):
        return []
    custom = sorted(
        k
        for k in caps
        if isinstance(k, str)
        and k not in _AGENT_CAPABILITIES
        and not unstable_key("AgentCapabilities", k)
    )
    if not custom:
        return []
    keys = ", ".join(shown(k) for k in custom)
    return [("J46", f"the initialize answer advertises {keys} at the root of capabilities: "
             "custom capabilities go in capabilities._meta")]


def _optional_string(value: Mapping[str, Any], key: str) -> bool:
    return value.get(key) is None or isinstance(value.get(key), str)


def schema_findings(result: object) -> list[Finding]:
    """J47: what the `initialize` answer's `result` breaks of the schema's InitializeResponse
    beyond what J5-J10, J32, J45 and J46 name: an object; `info.title` a string or null;
    `authMethods` an array of objects with a string `methodId`, `name` and `type`, and a
    string or null `description`. Judged for a version 2 answer only (the kit skips a
    version mismatch: an agent that negotiated version 1 never claimed a v2 shape)."""
    if not isinstance(result, Mapping):
        return [("J47", f"the initialize answer's result is {shown(result)}, not an object")]
    if _version(result.get("protocolVersion")) != 2:
        return []
    out: list[Finding] = []
    info = result.get("info")
    if isinstance(info, Mapping) and not _optional_string(info, "title"):
        out.append(("J47", f"info.title is {shown(info.get('title'))}: a string or null"))
    methods = result.get("authMethods")
    if "authMethods" in result and not isinstance(methods, (list, tuple)):
        out.append(("J47", f"authMethods is {shown(methods)}, not an array"))
        return out
    for n, method in enumerate(methods or ()):
        where = f"authMethods[{n}]"
        if not isinstance(method, Mapping):
            out.append(("J47", f"{where} is {shown(method)}, not an object"))
            continue
        bad = [k for k in ("methodId", "name", "type") if not isinstance(method.get(k), str)]
        if not _optional_string(method, "description"):
            bad.append("description")
        if bad:
            fields = ", ".join(f"{k} {shown(method.get(k))}" for k in bad)
            why = "methodId, name and type are strings, description a string or null"
            out.append(("J47", f"{where} has {fields}: {why}"))
    return out[:1]  # one finding per answer: the first mismatch


def initialize_findings(params: object, result: object) -> list[Finding]:
    """What the agent's answer `result` to the client's `initialize` (with `params`) breaks:
    `info` (J5), boolean capabilities (J6), auth method ids (J7), terminal auth without the
    client's capability (J8) and its launch description (J9), auth method types (J10),
    custom capability keys (J46), the rest of the schema's shape (J47)."""
    out: list[Finding] = schema_findings(result)
    if not isinstance(result, Mapping):
        return out
    info = result.get("info")
    name = info.get("name") if isinstance(info, Mapping) else None
    version = info.get("version") if isinstance(info, Mapping) else None
    if not (isinstance(name, str) and name and isinstance(version, str) and version):
        out.append(
            (
                "J5",
                f"the initialize answer's info is {shown(info)}: expected an object "
                "with a non-empty name and version",
            )
        )
    caps = result.get("capabilities")
    out.extend(capability_key_findings(caps))
    if caps is not None and not isinstance(caps, Mapping):
        out.append(("J6", f"the initialize answer's capabilities are {shown(caps)}, not an object"))
    out.extend(
        ("J6", f"capability {path} is a boolean; v2 capabilities are objects (or absent)")
        for path in list(_booleans(caps, "capabilities"))[:1]
    )
    methods = result.get("authMethods")
    if not isinstance(methods, (list, tuple)):
        return out
    client_caps = params.get("capabilities") if isinstance(params, Mapping) else None
    auth = client_caps.get("auth") if isinstance(client_caps, Mapping) else None
    terminal_ok = isinstance(auth, Mapping) and isinstance(auth.get("terminal"), Mapping)
    ids: set[object] = set()
    for n, method in enumerate(methods):
        if not isinstance(method, Mapping):
            continue
        where = f"authMethods[{n}]"
        mid = method.get("methodId")
        if isinstance(mid, str) and mid in ids:
            out.append(("J7", f"{where} repeats methodId {shown(mid)}"))
        ids.add(mid)
        kind = method.get("type")
        if isinstance(kind, str) and kind not in ("agent", "terminal") and not kind.startswith("_"):
            out.append(
                (
                    "J10",
                    f"{where} has type {shown(kind)}: neither agent, terminal nor a "
                    "custom `_` value",
                )
            )
        if kind == "terminal":
            if not terminal_ok:
                out.append(
                    (
                        "J8",
                        f"{where} is a terminal auth method, but the client's initialize "
                        "did not advertise capabilities.auth.terminal",
                    )
                )
            out.extend(_terminal_findings(method, where))
    return out
