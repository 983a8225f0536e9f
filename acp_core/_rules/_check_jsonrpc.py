"""JSON-RPC framing across the two sides: what the agent answers to what the client sent.

Owns: `Framing`, the checker's memory of the client's requests and batches the agent has not
answered yet, and the rules it decides: the answer to a request for a method no ACP schema
defines (J34), to a `_` request (J35), to a `_` notification (J36), to an empty batch (J39),
to a batch of notifications only (J40), to a batch's invalid entries (J41), a batch's
requests answered in one array (J42) that names each of them once (J43), a prompt
carrying `_meta` refused as invalid params (J44); the shape of a response of either side
(J38: one of `result` and `error`) and of the agent's `_meta` values (J45: the decoder's
`_meta` diagnostics, and the JSON it leaves untyped, so they are not D1s as well).
Must not know: the conversation (turns, sessions, which request a lifecycle answer ends:
`_rules/_conversation.py`), how to decode (`Framing` reads the raw JSON: an empty batch
decodes to nothing), files.

Theory of operation. The checker shows `Framing.see` every entry before decoding it. A reply
the agent sends to a message that asked for none (a `_` notification, a batch of
notifications, an empty batch answered with an array) is named here, and `see` says so, so
the checker does not report the same line again as D1 (an empty array) or J1 (a response
to no request): one finding per fault. What only the end shows (a `_` request never
answered, J35; an empty batch never answered, J39) is a warning, as R7 is: a recording may
stop before the answer comes.

Its memory is persistent maps, rebound and never changed in place, so `copy()` (a checker's
draft takes one per call) is O(1) and shares them with the original. Where the order of a
plain dict reached an output it is kept explicitly: a request's `order` (when its id was
first pending: J35's order at the end), the answered ids oldest first (`_answered_order`),
and the unanswered empty batches as a queue (`_empty`, from `_empty_head`).
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

import attrs

from acp_core._errors import Diagnostic
from acp_core._state._pcoll import PMap
from acp_core._wire import _jsonrpc as j
from acp_core._wire._value import frozen

from ._check_message import Finding
from ._draft import SlotDraft
from ._predicates import RequestKey, id_twin, request_key, shown

__all__ = ["CHECKED", "KNOWN_METHODS", "Framing", "meta_finding", "response_finding"]

#: The rules `Framing` reports.
CHECKED: Final = frozenset(
    {"J34", "J35", "J36", "J38", "J39", "J40", "J41", "J42", "J43", "J44", "J45"}
)

#: Every method an ACP schema defines (v1, v2, its drafts and unstable parts), either way:
#: a request for any other method that is not `_` or `$/` names a method no agent knows.
KNOWN_METHODS: Final = frozenset(
    {
        *("initialize", "authenticate", "auth/login", "auth/logout", "session/new"),
        *("session/load", "session/list", "session/resume", "session/fork", "session/close"),
        *("session/delete", "session/prompt", "session/cancel", "session/set_mode"),
        *("session/set_model", "session/set_config_option", "tool_call/cancel"),
        *("terminal/cancel", "session/update", "session/request_permission"),
        *("elicitation/create", "elicitation/complete", "fs/read_text_file"),
        *("fs/write_text_file", "terminal/create", "terminal/output", "terminal/release"),
        *("terminal/wait_for_exit", "terminal/kill"),
    }
)
_METHOD_NOT_FOUND: Final = -32601
_INVALID_REQUEST: Final = -32600
_INVALID_PARAMS: Final = -32602
_RECENT: Final = 64  # answered request ids remembered (a second answer is J1's, not ours)
_MAX_PENDING: Final = 4096  # requests, batches remembered at once (a flood stays bounded)

# What the client's last message was, for a reply that names no request.
_OTHER: Final = "other"
_EXT_NOTIFICATION: Final = "a `_` notification"
_NOTIFICATION_BATCH: Final = "a batch of notifications only"


@frozen
class _Request:
    method: str
    at: int
    batch: int | None  # the line of the batch it came in
    meta_prompt: bool  # a `session/prompt` whose params carry a `_meta` object
    order: int  # when its id became pending (kept while it stays pending): `finish`'s order


@frozen
class _Batch:
    at: int
    requests: PMap[RequestKey, bool]  # not answered yet
    invalid: int  # entries that are no JSON-RPC message


def _is_response(raw: object) -> bool:
    return isinstance(raw, Mapping) and "method" not in raw and "id" in raw


def _is_call(raw: object) -> bool:
    return (
        isinstance(raw, Mapping)
        and raw.get("jsonrpc") == "2.0"
        and isinstance(raw.get("method"), str)
        and (raw.get("id") is None or type(raw.get("id")) in (int, str))
    )


def _error_code(raw: Mapping[str, object]) -> object:
    error = raw.get("error")
    return error.get("code") if isinstance(error, Mapping) else None


class Framing(SlotDraft):
    """What the client asked and the agent has not answered yet. Local to one check."""

    __slots__ = (
        "_answered",
        "_answered_order",
        "_batches",
        "_empty",
        "_empty_head",
        "_last",
        "_line",
        "_order",
        "_requests",
    )

    def __init__(self) -> None:
        self._requests: PMap[RequestKey, _Request] = PMap()
        self._order = 0  # the next request's `order`
        self._answered: PMap[RequestKey, int] = PMap()
        self._answered_order: tuple[RequestKey, ...] = ()  # its keys, oldest first
        self._batches: PMap[int, _Batch] = PMap()
        # Lines of empty batches not answered yet, a queue: position -> line, the oldest at
        # `_empty_head`, the next at `_empty_head + len(_empty)`.
        self._empty: PMap[int, int] = PMap()
        self._empty_head = 0
        self._last = _OTHER
        self._line = 0

    def copy(self) -> Framing:
        """An independent copy (for a checker that forks): O(1), it shares the persistent
        maps, which neither copy changes in place."""
        twin = Framing.__new__(Framing)
        twin._requests = self._requests
        twin._order = self._order
        twin._answered = self._answered
        twin._answered_order = self._answered_order
        twin._batches = self._batches
        twin._empty = self._empty
        twin._empty_head = self._empty_head
        twin._last = self._last
        twin._line = self._line
        return twin

    def _push_empty(self, at: int) -> None:
        self._empty = self._empty.set(self._empty_head + len(self._empty), at)

    def _pop_empty(self) -> int:
        at = self._empty[self._empty_head]
        self._empty = self._empty.delete(self._empty_head)
        self._empty_head += 1
        return at

    def see(self, i: int, side: str, raw: object) -> tuple[list[Finding], bool]:
        """The findings of entry `i`, the message `raw` sent by `side`, and whether they
        name the line's fault (the checker then judges it no further)."""
        self._line = i
        if side == "agent" and type(raw) is dict and "method" in raw:
            return [], False  # the agent's own request or notification: nothing here
        shape = response_finding(raw)
        if shape is not None:
            # Both members decode (`result` wins); neither, or a bad `error`, does not: J38
            # names that line's fault instead of D1.
            both = isinstance(raw, Mapping) and "result" in raw and "error" in raw
            if not both:
                return [shape], True
            found, judged = self.see_message(side, raw)
            return [shape, *found], judged
        return self.see_message(side, raw)

    def see_message(self, side: str, raw: object) -> tuple[list[Finding], bool]:
        if side == "agent":
            return self._agent(raw)
        if side == "client":
            self._client(raw)
            # An empty batch asks for J39's answer; sending one is a SHOULD NOT of the
            # transports page no rule catalogues, so it is no D1 either.
            return [], raw == []
        return [], False

    def _agent(self, raw: object) -> tuple[list[Finding], bool]:
        if isinstance(raw, list):
            return self._agent_batch(raw)
        if _is_response(raw):
            assert isinstance(raw, Mapping)
            return self._answer(raw, None)
        return [], False

    # -- the client ------------------------------------------------------------------------

    def _client(self, raw: object) -> None:
        if isinstance(raw, list):
            self._client_batch(raw)
            return
        self._last = _OTHER
        if not _is_call(raw):
            return
        assert isinstance(raw, Mapping)
        if "id" in raw:
            self._request(raw, None)
        elif str(raw["method"]).startswith("_"):
            self._last = _EXT_NOTIFICATION

    def _client_batch(self, items: list[object]) -> None:
        self._last = _OTHER
        if not items:
            if len(self._empty) < _MAX_PENDING:
                self._push_empty(self._line)
            return
        requests: set[RequestKey] = set()
        invalid = 0
        for item in items:
            if _is_call(item):
                assert isinstance(item, Mapping)
                if "id" in item:
                    requests.add(self._request(item, self._line))
            elif not _is_response(item):
                invalid += 1
        if not requests and not invalid:
            if all(_is_call(item) for item in items):
                self._last = _NOTIFICATION_BATCH
            return
        if len(self._batches) < _MAX_PENDING:
            pending: PMap[RequestKey, bool] = PMap((k, True) for k in requests)
            self._batches = self._batches.set(self._line, _Batch(self._line, pending, invalid))

    def _request(self, raw: Mapping[str, object], batch: int | None) -> RequestKey:
        key = request_key(raw.get("id"))
        method = str(raw["method"])
        params = raw.get("params")
        meta = isinstance(params, Mapping) and isinstance(params.get("_meta"), Mapping)
        if len(self._requests) < _MAX_PENDING:
            old = self._requests.get(key)  # a pending id asked again keeps its place
            if old is not None:
                order = old.order
            else:
                order, self._order = self._order, self._order + 1
            prompt = meta and method == "session/prompt"
            request = _Request(method, self._line, batch, prompt, order)
            self._requests = self._requests.set(key, request)
        return key

    # -- the agent -------------------------------------------------------------------------

    def _answer(
        self, raw: Mapping[str, object], in_batch: int | None
    ) -> tuple[list[Finding], bool]:
        rid = raw.get("id")
        key = request_key(rid)
        code = _error_code(raw)
        found = self._pending(rid)
        if found is None:
            return self._unasked(raw, key, code)
        key, request = found
        self._requests = self._requests.delete(key)
        if key not in self._answered:
            self._answered_order = (*self._answered_order, key)
        self._answered = self._answered.set(key, self._line)
        if len(self._answered) > _RECENT:
            self._answered = self._answered.delete(self._answered_order[0])
            self._answered_order = self._answered_order[1:]
        out: list[Finding] = []
        if request.batch is not None:
            batch = self._batches.get(request.batch)
            if batch is not None and key in batch.requests:
                batch = attrs.evolve(batch, requests=batch.requests.delete(key))
                self._batches = self._batches.set(request.batch, batch)
            if in_batch is None:
                if batch is not None and not batch.requests and not batch.invalid:
                    self._batches = self._batches.delete(request.batch)
                out.append(_j42(request.batch, f"a lone response to request {shown(rid)}"))
        method = request.method
        unknown = not method.startswith(("_", "$/")) and method not in KNOWN_METHODS
        if unknown and code != _METHOD_NOT_FOUND:
            got = "a result" if "result" in raw else f"error {shown(code)}"
            out.append(
                (
                    "J34",
                    f"request {shown(rid)} for `{method}`, a method no ACP schema defines, "
                    f"is answered with {got}: expected error -32601 (method not found)",
                )
            )
        if request.meta_prompt and code == _INVALID_PARAMS:
            out.append(
                (
                    "J44",
                    f"the prompt of line {request.at} carries `_meta` and is refused as "
                    "invalid params (-32602): `_meta` is every request's to carry",
                )
            )
        return out, False

    def _pending(self, rid: object) -> tuple[RequestKey, _Request] | None:
        """The unanswered client request an answer with id `rid` answers: by its id, or by
        its id's twin (a mangled id, J37's, answers all the same)."""
        if rid is None:
            return None
        for candidate in (rid, id_twin(rid)):
            key = request_key(candidate)
            request = self._requests.get(key) if candidate is not None else None
            if request is not None:
                return key, request
        return None

    def _unasked(
        self, raw: Mapping[str, object], key: RequestKey, code: object
    ) -> tuple[list[Finding], bool]:
        rid = raw.get("id")
        if rid is not None and key in self._answered:
            return [], False  # a second answer: J1's
        if rid is None and self._empty:
            at = self._pop_empty()
            if "error" in raw and code == _INVALID_REQUEST:
                return [], False
            got = "a result" if "result" in raw else f"error {shown(code)}"
            return [_j39(at, got)], True
        if rid is None and "error" in raw and self._last == _OTHER:
            return [], False  # an answer to a message that could not be read
        if self._last == _EXT_NOTIFICATION:
            why = "a `_` notification the agent does not know is ignored, never answered"
            return [("J36", f"the agent answers the client's `_` notification: {why}")], True
        if self._last == _NOTIFICATION_BATCH:
            return [_j40("a response")], True
        return [], False

    def _agent_batch(self, items: list[object]) -> tuple[list[Finding], bool]:
        if not items:
            if self._empty:
                return [_j39(self._pop_empty(), "an empty array")], True
            if self._last == _NOTIFICATION_BATCH:
                return [_j40("an empty array")], True
            return [], False
        if not all(_is_response(item) for item in items):
            return [], False  # the agent's own batch (of notifications or requests)
        out: list[Finding] = []
        pending = [self._pending(item.get("id")) for item in items if isinstance(item, Mapping)]
        batch_at = next((p[1].batch for p in pending if p and p[1].batch is not None), None)
        if batch_at is None and self._empty and all(
            isinstance(item, Mapping) and item.get("id") is None for item in items
        ):
            return [_j39(self._pop_empty(), "an array")], True
        if batch_at is None:  # the oldest batch with invalid entries (lines only grow)
            batch_at = min((at for at, b in self._batches.items() if b.invalid), default=None)
        nulls = 0
        for item in items:
            assert isinstance(item, Mapping)
            rid = item.get("id")
            if rid is None:
                nulls += 1
                code = _error_code(item)
                if code != _INVALID_REQUEST:
                    out.append(
                        (
                            "J41",
                            f"a null-id answer in the reply array has code {shown(code)}: "
                            "an invalid batch entry gets its own -32600 error",
                        )
                    )
                continue
            found = self._pending(rid)
            if found is None:
                continue  # it answers no request at all: J1's
            request = found[1]
            if request.batch != batch_at:
                self._answer(item, request.batch)  # answered all the same (as the machine)
                where = "" if batch_at is None else f" of the batch of line {batch_at}"
                out.append(
                    (
                        "J43",
                        f"the reply array answers request {shown(rid)} of line {request.at}, "
                        f"which is no request{where}: responses are matched by id",
                    )
                )
                continue
            out.extend(self._answer(item, batch_at)[0])
        # Read after the answers, which took theirs out of it (none removes it).
        batch = self._batches.get(batch_at) if batch_at is not None else None
        if batch is not None:
            if nulls < batch.invalid:
                out.append(
                    (
                        "J41",
                        f"the batch of line {batch.at} has {batch.invalid} invalid "
                        f"entr{'y' if batch.invalid == 1 else 'ies'}, and the reply array "
                        f"answers {nulls} with a -32600 error of a null id",
                    )
                )
            if batch.requests:
                left = ", ".join(shown(k[1]) for k in sorted(batch.requests, key=str))
                out.append(_j42(batch.at, f"a reply array without the response(s) to {left}"))
                for k in batch.requests:  # answered later on their own: J42 said so once
                    left_out = self._requests.get(k)
                    if left_out is not None:
                        self._requests = self._requests.set(
                            k, attrs.evolve(left_out, batch=None)
                        )
            self._batches = self._batches.delete(batch.at)
        return out, False

    def finish(self) -> list[tuple[str, int, str]]:
        """What only the end shows, as warnings: `(rule, line, message)`."""
        out = [
            (
                "J35",
                r.at,
                f"the recording ends before the agent answers the `{r.method}` request: "
                "every `_` request gets a response",
            )
            for r in sorted(self._requests.values(), key=lambda r: r.order)
            if r.method.startswith("_")
        ]
        head = self._empty_head
        for at in (self._empty[n] for n in range(head, head + len(self._empty))):
            rule, message = _j39(at, "nothing before the recording ends")
            out.append((rule, at, message))
        return out


def meta_finding(
    raw: object, value: j.Message | j.Batch, diagnostics: Sequence[Diagnostic]
) -> Finding | None:
    """J45: every `_meta` of the agent's message is an object or null. `value` is `raw`
    decoded, with the decoder's `diagnostics`: where it types a `_meta` (updates, permission
    requests) it has said so; what it leaves as JSON (results, error data, other methods'
    params) is read here (not inside a `_meta`, which is free-form)."""
    if not diagnostics and not isinstance(value, _UNTYPED_OR_BATCH):
        return None  # typed through and through, and its decoder tolerated nothing
    bad = [f"{d.path} is not an object" for d in diagnostics if d.path.endswith("._meta")]
    parts: list[tuple[object, object]] = [(raw, value)]
    if isinstance(value, j.Batch) and isinstance(raw, list):
        parts = list(zip(raw, value.items, strict=False))
    for part, decoded in parts:
        if isinstance(decoded, _UNTYPED) and _any_bad_meta(part):
            bad.extend(_bad_meta_paths(part))
    if not bad:
        return None
    more = f" (and {len(bad) - 1} more)" if len(bad) > 1 else ""
    return "J45", f"{sorted(bad)[0]}{more}: `_meta` is an object or null"


# What the decoder keeps as JSON: a `_meta` in it is no diagnostic of the decoder's.
_UNTYPED: Final = (j.Response, j.ErrorResponse, j.Request, j.Notification)
_UNTYPED_OR_BATCH: Final = (*_UNTYPED, j.Batch)


def _any_bad_meta(raw: object) -> bool:
    # Plain JSON (dicts, lists) first: this runs on every message of the agent.
    stack = [raw]
    pop, push = stack.pop, stack.append
    while stack:
        value = pop()
        if type(value) is dict:
            meta = value.get("_meta", _NONE)
            if meta is not _NONE and meta is not None and not isinstance(meta, Mapping):
                return True
            for item in value.values():
                if (type(item) is dict or type(item) is list) and item is not meta:
                    push(item)
        elif type(value) is list:
            stack.extend(value)
        elif isinstance(value, (Mapping, list, tuple)):  # a caller's own containers
            return bool(_bad_meta_paths(value))
    return False


_NONE: Final = object()


def _bad_meta_paths(raw: object) -> list[str]:
    bad: list[str] = []
    stack: list[tuple[object, str]] = [(raw, "$")]
    while stack:
        value, path = stack.pop()
        if isinstance(value, Mapping):
            for key, item in value.items():
                where = f"{path}.{key}"
                if key == "_meta":
                    if item is not None and not isinstance(item, Mapping):
                        bad.append(f"{where} is {shown(item)}")
                elif isinstance(item, (Mapping, list, tuple)):
                    stack.append((item, where))
        elif isinstance(value, (list, tuple)):
            stack.extend((item, f"{path}[{n}]") for n, item in enumerate(value))
    return sorted(bad)


def response_finding(raw: object) -> Finding | None:
    """J38: a response (an object with `"jsonrpc": "2.0"`, an `id` and no `method`) carries
    exactly one of `result` and `error`, and an error an integer `code` and a string
    `message`."""
    if not isinstance(raw, Mapping) or "method" in raw or "id" not in raw:
        return None
    rid = raw.get("id")
    if raw.get("jsonrpc") != "2.0" or not (rid is None or type(rid) in (int, str)):
        return None  # not a JSON-RPC response at all: D1's
    if "result" in raw and "error" in raw:
        return "J38", f"response {shown(rid)} carries both `result` and `error`: exactly one"
    if "result" not in raw and "error" not in raw:
        return "J38", f"response {shown(rid)} carries neither `result` nor `error`"
    if "result" in raw:
        return None
    error = raw["error"]
    if not isinstance(error, Mapping):
        return "J38", f"response {shown(rid)} has error {shown(error)}, not an object"
    code, message = error.get("code"), error.get("message")
    if type(code) is not int or type(message) is not str:
        return (
            "J38",
            f"response {shown(rid)} has an error with code {shown(code)} and message "
            f"{shown(message)}: expected an integer code and a string message",
        )
    return None


def _j39(at: int, got: str) -> Finding:
    return (
        "J39",
        f"the empty batch of line {at} is answered with {got}: expected one -32600 (invalid "
        "request) error object with a null id, never an array",
    )


def _j40(got: str) -> Finding:
    return ("J40", f"the agent answers a batch of notifications only with {got}: it gets no reply")


def _j42(at: int | None, got: str) -> Finding:
    return (
        "J42",
        f"the batch of line {at} is answered with {got}: a batch's responses come in one array",
    )
