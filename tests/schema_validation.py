"""Validate what an engine sends, or a whole recorded conversation, against a v2 schema.

`OutboundValidator(spec_schema)` checks one outbound wire message of a given side twice:
- the whole message against that side's branch of the schema root (`Agent` / `Client`:
  JSON-RPC envelope, request / response / notification shapes), and
- its payload against the precise definition of its method, because the root's `anyOf`
  admits extension methods (`ExtRequest`, `ExtNotification`) that would accept almost
  anything:
  requests: `session/request_permission` params against `RequestPermissionRequest`,
  `session/prompt` params against `PromptRequest`; notifications: `session/update` params
  against `UpdateSessionNotification`, `session/cancel` against `CancelSessionNotification`,
  `$/cancel_request` against `CancelRequestNotification`; responses: an agent's result against
  `PromptResponse` (the only request an agent answers with a result), a client's result
  against `RequestPermissionResponse`, any error against `Error`; ids against `RequestId`.

A method the engines never send is a failure: the engines speak only the prompt lifecycle.
"""

from __future__ import annotations

import json
from typing import Any, Final

from jsonschema import Draft202012Validator, ValidationError

__all__ = ["ConversationValidator", "OutboundValidator"]

_REQUEST_PARAMS: Final = {
    "agent": {"session/request_permission": "RequestPermissionRequest"},
    "client": {
        "session/prompt": "PromptRequest",
        "tool_call/cancel": "CancelToolCallRequest",  # 2026-11 on
        "terminal/cancel": "CancelTerminalRequest",
    },
}
_NOTIFICATION_PARAMS: Final = {
    "agent": {
        "session/update": "UpdateSessionNotification",
        "$/cancel_request": "CancelRequestNotification",
    },
    "client": {
        "session/cancel": "CancelSessionNotification",
        "$/cancel_request": "CancelRequestNotification",
    },
}
# What a result may answer (a response does not name its request): the agent answers prompts
# and, from 2026-11 on, item cancellations; the client answers permission requests.
_RESULT: Final = {
    "agent": ("PromptResponse", "CancelToolCallResponse", "CancelTerminalResponse"),
    "client": ("RequestPermissionResponse",),
}
_ENVELOPE_KEYS: Final = frozenset({"jsonrpc", "id", "method", "params", "result", "error"})


class OutboundValidator:
    """`validator(side, wire)`: raise `jsonschema.ValidationError` (or AssertionError for
    envelope problems the schema leaves open) unless `wire` is a valid message from `side`."""

    def __init__(self, spec_schema: dict[str, Any]) -> None:
        self._defs = spec_schema["$defs"]
        self._cache: dict[str, Draft202012Validator] = {}
        # The root is anyOf [Agent, Client, batches..., ProtocolLevel]; pick by title.
        branches = {b.get("title"): b for b in spec_schema["anyOf"]}
        self._roots = {
            side: Draft202012Validator({"$defs": self._defs, **branches[title]})
            for side, title in (("agent", "Agent"), ("client", "Client"))
        }
        self._protocol_level = Draft202012Validator(
            {"$defs": self._defs, **branches["ProtocolLevel"]}
        )
        # Generated scenarios repeat messages (`running`, `{}` results) a lot, and validating
        # against the large unions is slow: remember what already passed.
        self._valid: set[tuple[str, str]] = set()

    def definition(self, name: str, instance: Any) -> None:
        """Validate `instance` against `$defs/<name>`."""
        validator = self._cache.get(name)
        if validator is None:
            assert name in self._defs, f"no definition {name} in the schema"
            validator = Draft202012Validator({"$defs": self._defs, "$ref": f"#/$defs/{name}"})
            self._cache[name] = validator
        validator.validate(instance)

    def envelope(self, side: str, wire: dict[str, Any]) -> None:
        """Validate the whole message against its sender's branch of the schema root."""
        if wire.get("method") == "$/cancel_request":
            self._protocol_level.validate(wire)
        else:
            self._roots[side].validate(wire)

    def __call__(self, side: str, wire: dict[str, Any]) -> None:
        assert side in ("agent", "client"), side
        assert isinstance(wire, dict), f"one message per send, never a batch: {wire!r}"
        key = (side, json.dumps(wire, sort_keys=True))
        if key in self._valid:
            return
        self._check(side, wire)
        self._valid.add(key)

    def _result(self, side: str, result: Any) -> None:
        errors = []
        for name in _RESULT[side]:
            if name not in self._defs:
                continue  # a definition of a later revision
            try:
                self.definition(name, result)
            except ValidationError as e:
                errors.append(e)
            else:
                return
        raise errors[0]

    def _check(self, side: str, wire: dict[str, Any]) -> None:
        assert wire.get("jsonrpc") == "2.0", wire
        assert set(wire) <= _ENVELOPE_KEYS, f"unexpected envelope keys in {wire!r}"
        method = wire.get("method")
        self.envelope(side, wire)
        if "id" in wire:
            self.definition("RequestId", wire["id"])
        if method is not None and "id" in wire:
            name = _REQUEST_PARAMS[side].get(method)
            assert name is not None, f"the {side} engine sent an unexpected request {method!r}"
            self.definition(name, wire["params"])
        elif method is not None:
            name = _NOTIFICATION_PARAMS[side].get(method)
            assert name is not None, f"the {side} engine sent an unexpected notification {method!r}"
            self.definition(name, wire["params"])
        elif "result" in wire:
            assert "error" not in wire, wire
            self._result(side, wire["result"])
        else:
            assert "error" in wire, f"neither request, notification nor response: {wire!r}"
            self.definition("Error", wire["error"])


#: Every method a whole conversation may carry (set-up included): its params definition and,
#: for a request, the definition of its result.
_METHODS: Final = {
    "initialize": ("InitializeRequest", "InitializeResponse"),
    "session/new": ("NewSessionRequest", "NewSessionResponse"),
    "session/prompt": ("PromptRequest", "PromptResponse"),
    "session/resume": ("ResumeSessionRequest", "ResumeSessionResponse"),
    "session/close": ("CloseSessionRequest", "CloseSessionResponse"),
    "session/delete": ("DeleteSessionRequest", "DeleteSessionResponse"),
    "session/list": ("ListSessionsRequest", "ListSessionsResponse"),
    "session/set_config_option": (
        "SetSessionConfigOptionRequest",
        "SetSessionConfigOptionResponse",
    ),
    "tool_call/cancel": ("CancelToolCallRequest", "CancelToolCallResponse"),
    "terminal/cancel": ("CancelTerminalRequest", "CancelTerminalResponse"),
    "session/request_permission": ("RequestPermissionRequest", "RequestPermissionResponse"),
    "elicitation/create": ("CreateElicitationRequest", "CreateElicitationResponse"),
    "session/update": ("UpdateSessionNotification", None),
    "session/cancel": ("CancelSessionNotification", None),
    "$/cancel_request": ("CancelRequestNotification", None),
}


class ConversationValidator:
    """`validator(entries)`: every message of a whole recorded conversation (trace entries
    `{"from", "message"}`, set-up included) against a schema, with the precise definition of
    its method; a result against its request's method (matched by id and direction).

    For the examples, which speak more than the prompt lifecycle: `OutboundValidator` checks
    one engine's sends, this checks what crossed the pipes.
    """

    def __init__(self, spec_schema: dict[str, Any]) -> None:
        self._one = OutboundValidator(spec_schema)

    def __call__(self, entries: list[dict[str, Any]]) -> int:
        """Validate every entry; returns how many messages were checked."""
        asked: dict[tuple[str, str], str] = {}  # (requester, id as JSON) -> method
        for entry in entries:
            side, wire = entry["from"], entry["message"]
            assert side in ("agent", "client"), entry
            assert wire.get("jsonrpc") == "2.0", wire
            method = wire.get("method")
            self._one.envelope(side, wire)
            if method is not None:
                assert method in _METHODS, f"{side} sent an unknown method {method!r}"
                params, result = _METHODS[method]
                self._one.definition(params, wire["params"])
                if "id" in wire:
                    assert result is not None, f"{method} sent as a request: {wire!r}"
                    asked[(side, json.dumps(wire["id"]))] = result
            elif "result" in wire:
                peer = "client" if side == "agent" else "agent"
                name = asked.pop((peer, json.dumps(wire["id"])), None)
                assert name is not None, f"a result no request of the {peer} asked for: {wire!r}"
                self._one.definition(name, wire["result"])
            else:
                self._one.definition("Error", wire["error"])
        return len(entries)
