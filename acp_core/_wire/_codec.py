"""The wire codec: JSON dicts <-> acp-core values, lossless, per revision.

Owns: the public decode/encode functions (updates, JSON-RPC messages and batches, typed
results, schema parts for snapshots) and the JSON-RPC envelope.
Must not know: what updates mean (reducers), which side we are (engines), the shape of any
value (derived from its class: `_wire/_codec_tables.py`, `_wire/_codec_derive.py`).

Every decode and encode function takes `revision=` (default `DEFAULT_REVISION`): a field or
variant that a later revision adds is an unknown key or tag under an earlier one (kept in
`extra` or as an `Other*` value). Encoding writes whatever a value holds, whatever revision
decoded it, under the keys of the revision it is given: a field that revision renames is
written under its new key, and a field it removes is refused (`ArgumentError`) unless unset
(`wire(key_since=...)`, `_wire/_fields.py`). So `encode_*(decode_*(d, revision=r),
revision=r) == d` at every revision, a renaming one included.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from acp_core._errors import ArgumentError, DecodeError, Diagnostic

from . import _jsonrpc as j
from . import _updates as u
from ._codec_core import MISSING, REQUEST_ID, STRICT, Codec, Ctx, Decoded, shared_ctx
from ._codec_fast import fast_update
from ._codec_tables import Tables, encoding_tables, tables
from ._codec_values import SIGNALLING, Tolerated
from ._fastnew import fast_constructor
from ._json import (
    EMPTY_OBJECT,
    UNSET,
    JsonObject,
    JsonValue,
    Path,
    freeze_json,
    freeze_object,
    render_path,
    thaw_input,
    thaw_json,
)
from ._revision import DEFAULT_REVISION, Revision

__all__ = [
    "Decoded",
    "decode_message",
    "decode_message_diagnosed",
    "decode_message_diagnosed_lazily",
    "decode_permission_result",
    "decode_prompt_result",
    "decode_update",
    "decode_update_diagnosed",
    "encode_message",
    "encode_result",
    "encode_update",
    "message_decoder",
]

_ENVELOPE_KEYS: Final = frozenset(("jsonrpc", "id", "method", "params", "result", "error"))
# The envelope members each kind of message owns; a JSON-RPC member beside them that the kind
# does not own (`result` beside `method`, `error` beside `result`, `params` on a response) is
# refused by strict decoding and kept verbatim in `envelope_extra` by lenient decoding, so
# decoding never drops a member silently.
_CALL_KEYS: Final = frozenset(("jsonrpc", "id", "method", "params"))
_RESULT_KEYS: Final = frozenset(("jsonrpc", "id", "result"))
_ERROR_KEYS: Final = frozenset(("jsonrpc", "id", "error"))


def _envelope_extra(
    obj: dict[str, object], path: Path, owned: frozenset[str], ctx: Ctx
) -> JsonObject:
    if all(k in owned for k in obj):
        return EMPTY_OBJECT
    if ctx.strict:
        for k in obj:
            if k in _ENVELOPE_KEYS and k not in owned:
                raise _invalid((path, k), f"no `{k}` member in this kind of message")
    return freeze_object({k: v for k, v in obj.items() if k not in owned}, path, 1)


def _invalid(path: Path, expected: str) -> DecodeError:
    return DecodeError(render_path(path), expected, -32600)


# Generated constructors: what the decoder builds is frozen already (see `_wire/_freezing.py`).
_MAKE_REQUEST: Final = fast_constructor(j.Request)
_MAKE_NOTIFICATION: Final = fast_constructor(j.Notification)
_MAKE_RESPONSE: Final = fast_constructor(j.Response)
_MAKE_ERROR_RESPONSE: Final = fast_constructor(j.ErrorResponse)
_MAKE_INVALID: Final = fast_constructor(j.InvalidEntry)
_MAKE_BATCH: Final = fast_constructor(j.Batch)


def _decode_one(obj: object, path: Path, ctx: Ctx, t: Tables) -> j.Message:
    if type(obj) is not dict:
        raise _invalid(path, "a JSON-RPC message object")
    version = obj.get("jsonrpc")
    if type(version) is not str or version != "2.0":  # never call a foreign __eq__
        raise _invalid((path, "jsonrpc"), '"2.0"')
    has_id = "id" in obj
    msg_id: int | str | None = None
    if has_id:
        try:
            msg_id = REQUEST_ID.decode(obj["id"], (path, "id"), ctx)
        except DecodeError as e:
            raise _invalid((path, "id"), e.expected) from None
    method = obj.get("method", MISSING)
    if method is not MISSING:
        extra = _envelope_extra(obj, path, _CALL_KEYS, ctx)
        if type(method) is not str:
            raise _invalid((path, "method"), "string")
        params = obj.get("params", MISSING)
        typed = t.by_method.get((method, has_id))
        if typed is None:
            frozen = UNSET if params is MISSING else freeze_json(params, (path, "params"))
            if has_id:
                return _MAKE_REQUEST(msg_id, method, frozen, extra)
            return _MAKE_NOTIFICATION(method, frozen, extra)
        params_path: Path = (path, "params")
        if type(params) is not dict:
            raise DecodeError(render_path(params_path), typed.params.expected)
        args = typed.params.decode_args(params, params_path, ctx)
        if has_id:
            return typed.make(msg_id, *args, extra)  # type: ignore[no-any-return]
        return typed.make(*args, extra)  # type: ignore[no-any-return]
    if not has_id:
        raise _invalid(path, "a request, notification or response")
    if "result" in obj:
        extra = _envelope_extra(obj, path, _RESULT_KEYS, ctx)
        return _MAKE_RESPONSE(msg_id, freeze_json(obj["result"], (path, "result")), extra)
    if "error" in obj:
        extra = _envelope_extra(obj, path, _ERROR_KEYS, ctx)
        error = t.rpc_error.decode(obj["error"], (path, "error"), ctx)
        return _MAKE_ERROR_RESPONSE(msg_id, error, extra)
    raise _invalid(path, "`method`, `result` or `error`")


def _safe_freeze(obj: object) -> JsonValue:
    try:
        return freeze_json(obj)
    except DecodeError:
        return None


# -- public API ------------------------------------------------------------------------


def _plain(obj: object) -> object:
    # Frozen JSON (e.g. `Response.result`, `OtherUpdate.raw`) decodes like the dicts it froze.
    if type(obj) is dict or type(obj) is list:
        return obj
    return thaw_input(obj)  # bounded: deep hostile nesting is a DecodeError


def decode_update_diagnosed(
    obj: object, *, strict: bool = False, revision: Revision = DEFAULT_REVISION
) -> Decoded[u.SessionUpdate]:
    """Decode a `sessionUpdate` object and report what lenient decoding tolerated.

    Paths in errors and diagnostics start at the update object (`$` is the update).

    Raises:
        DecodeError: the object is not a valid update (in strict mode also for anything
            lenient mode would have tolerated).
    """
    t = tables(revision)
    fast = fast_update(obj, t.update.tool_calls)
    if fast is not None:
        return Decoded(fast, ())
    ctx = Ctx(strict=strict)
    value = t.session_update.decode(_plain(obj), None, ctx)
    return Decoded(value, ctx.finish())


def decode_update(
    obj: object, *, strict: bool = False, revision: Revision = DEFAULT_REVISION
) -> u.SessionUpdate:
    """Decode a `sessionUpdate` object (the `update` member of `session/update` params).

    Raises:
        DecodeError: the object is not a valid update; `path` names where.
    """
    t = tables(revision)
    fast = fast_update(obj, t.update.tool_calls)
    if fast is not None:
        return fast
    union = t.session_update
    value: u.SessionUpdate = union.decode(_plain(obj), None, shared_ctx(strict))
    return value


def encode_update(
    update: u.SessionUpdate, *, revision: Revision = DEFAULT_REVISION
) -> dict[str, Any]:
    """Encode an update to its wire dict as `revision` keys it (a fresh dict; lossless for
    values decoded at the same revision).

    Raises:
        ArgumentError: not an update, or it holds a field `revision` removed.
    """
    union = encoding_tables(revision).session_update
    out: dict[str, Any] = union.encode(update)  # type: ignore[assignment]
    return out


def decode_message_diagnosed(
    obj: object, *, strict: bool = False, revision: Revision = DEFAULT_REVISION
) -> Decoded[j.Message | j.Batch]:
    """Decode a JSON-RPC message or batch and report what lenient decoding tolerated.

    A batch (a JSON array) decodes to `Batch`; an entry that does not decode becomes an
    `InvalidEntry` instead of failing the others.

    Raises:
        DecodeError: not a message (code -32600), or bad params of a known method (-32602).
    """
    ctx = Ctx(strict=strict)
    return Decoded(_decode_message(obj, ctx, tables(revision)), ctx.finish())


def decode_message_diagnosed_lazily(
    obj: object, *, revision: Revision = DEFAULT_REVISION
) -> tuple[j.Message | j.Batch, tuple[Diagnostic, ...]]:
    """`decode_message_diagnosed(obj, revision=revision)` (lenient; as a plain pair), at the
    cost of `decode_message` for a message that tolerates nothing: it is decoded once,
    collecting nothing (the `SIGNALLING` context); one that tolerated something is decoded
    again with its diagnostics. For a reader of the peer's lines, most of which are as they
    should be.

    Raises:
        DecodeError: see `decode_message_diagnosed`.
    """
    t = tables(revision)
    try:
        return _decode_message(obj, SIGNALLING, t), ()  # (a pair: a `Decoded` costs more)
    except Tolerated:
        ctx = Ctx(strict=False)
        return _decode_message(obj, ctx, t), ctx.finish()


_UPDATE_PATH: Final[Path] = ((None, "params"), "update")
_MAKE_UPDATE_NOTIFICATION: Final = fast_constructor(j.UpdateSessionNotification)


def _fast_notification(
    obj: dict[str, Any], ctx: Ctx, t: Tables
) -> j.UpdateSessionNotification | None:
    """`session/update` in its plain shape (`jsonrpc`, `method`, `params` with `sessionId`
    and `update`, nothing else): the members the generic walk would check, checked directly,
    and the same value built. Anything else (None) takes the generic walk."""
    if len(obj) != 3 or obj.get("method") != "session/update" or obj.get("jsonrpc") != "2.0":
        return None
    params = obj.get("params")
    if type(params) is not dict or len(params) != 2:
        return None
    session_id = params.get("sessionId")
    update = params.get("update")
    if type(session_id) is not str or update is None:
        return None
    value = t.update.decode(update, _UPDATE_PATH, ctx)  # the update's own fast path first
    return _MAKE_UPDATE_NOTIFICATION(session_id, value, UNSET, EMPTY_OBJECT, EMPTY_OBJECT)


def _decode_message(obj: object, ctx: Ctx, t: Tables) -> j.Message | j.Batch:
    value: j.Message | j.Batch
    if type(obj) is dict:
        fast = _fast_notification(obj, ctx, t)
        if fast is not None:
            return fast
    if type(obj) is list:
        if not obj:
            raise _invalid(None, "a non-empty batch")
        items: list[j.Message | j.InvalidEntry] = []
        for i, entry in enumerate(obj):
            try:
                items.append(_decode_one(entry, (None, i), ctx, t))
            except DecodeError as e:
                items.append(_MAKE_INVALID(_safe_freeze(entry), e.path, e.expected, e.code))
        value = _MAKE_BATCH(tuple(items))
    else:
        value = _decode_one(obj, None, ctx, t)
    return value


def decode_message(
    obj: object, *, strict: bool = False, revision: Revision = DEFAULT_REVISION
) -> j.Message | j.Batch:
    """Decode a JSON-RPC message (or batch) of the prompt lifecycle.

    Known methods (`session/update`, `session/prompt`, `session/cancel`,
    `session/request_permission`, `$/cancel_request`) decode to typed messages; any other
    method to `Request`/`Notification` with its params verbatim; responses to
    `Response`/`ErrorResponse`.

    Raises:
        DecodeError: see `decode_message_diagnosed`.
    """
    return _decode_message(obj, shared_ctx(strict), tables(revision))


def message_decoder(
    strict: bool = False, revision: Revision = DEFAULT_REVISION
) -> Callable[[object], j.Message | j.Batch]:
    """`decode_message` with `strict` and `revision` bound: the same function of `obj` (same
    values, same `DecodeError`s), for a caller that decodes many messages (`decode_ndjson`
    per line). The tables and the context are looked up once, and a plain `session/update`
    (`_fast_notification`'s shape) is checked and built in this one call."""
    ctx = shared_ctx(strict)
    t = tables(revision)
    tool_calls = t.update.tool_calls
    general = t.session_update.decode
    make = _MAKE_UPDATE_NOTIFICATION

    def decode(obj: object) -> j.Message | j.Batch:
        # `_fast_notification` written out (a call costs more than its checks), then
        # `UpdateCodec.decode`'s two steps: the update's fast path, else its generic walk.
        if type(obj) is dict and len(obj) == 3:
            params = obj.get("params")
            if (
                type(params) is dict
                and len(params) == 2
                and obj.get("method") == "session/update"
                and obj.get("jsonrpc") == "2.0"
            ):
                session_id = params.get("sessionId")
                update = params.get("update")
                if type(session_id) is str and update is not None:
                    value = fast_update(update, tool_calls)
                    if value is None:
                        value = general(update, _UPDATE_PATH, ctx)
                    return make(session_id, value, UNSET, EMPTY_OBJECT, EMPTY_OBJECT)
        return _decode_message(obj, ctx, t)

    return decode


def encode_message(message: j.Message | j.Batch, *, revision: Revision = DEFAULT_REVISION) -> Any:
    """Encode a message to its wire dict (a batch to a list), as `revision` keys it.

    Raises:
        ArgumentError: not a message, or it holds a field `revision` removed.
    """
    if type(message) is j.Batch:
        return [
            thaw_json(item.raw)
            if type(item) is j.InvalidEntry
            else encode_message(item, revision=revision)  # type: ignore[arg-type]
            for item in message.items
        ]
    t = encoding_tables(revision)
    out: dict[str, Any] = {"jsonrpc": "2.0"}
    typed = t.by_class.get(type(message))
    if typed is not None:
        if typed.has_id:
            out["id"] = message.id  # type: ignore[union-attr]
        out["method"] = typed.method
        out["params"] = typed.params.encode_into(message, {})
    elif type(message) is j.Request:
        out["id"] = message.id
        out["method"] = message.method
        if message.params is not UNSET:
            out["params"] = thaw_json(message.params)
    elif type(message) is j.Notification:
        out["method"] = message.method
        if message.params is not UNSET:
            out["params"] = thaw_json(message.params)
    elif type(message) is j.Response:
        out["id"] = message.id
        out["result"] = thaw_json(message.result)
    elif type(message) is j.ErrorResponse:
        out["id"] = message.id
        out["error"] = t.rpc_error.encode(message.error)
    else:
        msg = f"cannot encode {type(message).__name__} as a JSON-RPC message"
        raise ArgumentError(msg)
    for k, v in message.envelope_extra.items():  # type: ignore[union-attr]
        out.setdefault(k, thaw_json(v))
    return out


def decode_prompt_result(
    obj: object, *, strict: bool = False, revision: Revision = DEFAULT_REVISION
) -> j.PromptResult:
    """Decode the result of `session/prompt` (`{}`, or `{"messageId"}` in the 2026-11 draft).

    Raises:
        DecodeError: the result is not an object of that shape.
    """
    record = tables(revision).prompt_result
    value: j.PromptResult = record.decode(_plain(obj), None, shared_ctx(strict))
    return value


def decode_permission_result(
    obj: object, *, strict: bool = False, revision: Revision = DEFAULT_REVISION
) -> j.RequestPermissionResult:
    """Decode the result of `session/request_permission`.

    Raises:
        DecodeError: the result is not an object of that shape.
    """
    record = tables(revision).permission_result
    value: j.RequestPermissionResult = record.decode(_plain(obj), None, shared_ctx(strict))
    return value


def encode_result(
    result: j.PromptResult | j.RequestPermissionResult, *, revision: Revision = DEFAULT_REVISION
) -> dict[str, Any]:
    """Encode a typed result to the `result` member of a response, as `revision` keys it.

    Raises:
        ArgumentError: not a typed result, or it holds a field `revision` removed.
    """
    record = encoding_tables(revision).results.get(type(result))
    if record is None:
        msg = f"cannot encode {type(result).__name__} as a result"
        raise ArgumentError(msg)
    return record.encode_into(result, {})


# -- parts, for other layers that store values as JSON (snapshots) ---------------------


def decode_part(
    name: str, obj: object, path: Path = None, *, revision: Revision = DEFAULT_REVISION
) -> Any:
    """Decode one schema part (strict) as `revision` has it, e.g.
    `decode_part("ContentBlock", {...})`. Like every decoder, a later revision's variant is
    an `Other*` value here (a markdown plan is `OtherPlan` at 2026-08), so what a state
    holds restores as it was reduced.

    Raises:
        DecodeError: the object does not match the part.
        ArgumentError: no part has that name.
    """
    return _part(tables(revision), name, "decode_part").decode(_plain(obj), path, STRICT)


def encode_part(name: str, value: Any, *, revision: Revision = DEFAULT_REVISION) -> Any:
    """Encode one schema part to JSON, as `revision` keys it (see `decode_part`).

    Raises:
        ArgumentError: the value does not fit the part, or holds a field `revision` removed,
            or no part has that name.
    """
    return _part(encoding_tables(revision), name, "encode_part").encode(value)


def _part(t: Tables, name: object, function: str) -> Codec:
    part = t.parts.get(name) if type(name) is str else None
    if part is None:
        msg = f"{function}: no schema part {name!r:.60}; the parts: {', '.join(sorted(t.parts))}"
        raise ArgumentError(msg)
    return part
