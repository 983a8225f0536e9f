"""The v1 -> v2 normalizer: recorded or live v1 traffic as v2 session updates.

Owns: the entry points `normalize_v1_step(state, message)` and `normalize_v1(entries)`, and
the dispatch of a JSON-RPC message to the part that handles it: `_v1/_v1_messages.py` (chunks),
`_v1/_v1_turn.py` (tool calls, prompt turn, permissions), `_v1/_v1_requests.py` (session/new,
elicitations, terminals), `_v1/_v1_wire.py` (stateless payload rewrites). Values and state live
in `_v1/_v1_state.py`, policies in `_v1/_v1_policy.py`.
Must not know: how updates change a session (the reducers fold what this emits), I/O.

Theory of operation (digest 6.2; docs/v1.md is the long form).
- One step reads one JSON-RPC message (or batch) with its sender and returns the next state
  plus v2 updates paired with their sessionId, lifecycle events and diagnostics. Nothing is
  raised for bad input: what cannot be read is reported and skipped, what is read but not
  understood is kept raw as an `OtherUpdate`.
- The turn: a `session/prompt` request becomes the user message `v1:prompt:<requestId>` and
  `running`; its result's `stopReason` becomes `idle` + stop reason; an error result becomes
  `idle` without one plus a `PromptError` event. Permission requests apply their `toolCall`
  patch and, inside a turn, show as `requires_action` until the client answers.
- Chunks without an id get deterministic synthetic ids `v1:<role>:<n>` (n counts synthetic
  messages per session); `BoundaryPolicy` says which updates end such a message. Real ids
  that start with the reserved `v1:` are escaped to `v1:id:<id>`, so the two never collide.
- An open id-less message of each role is kept as a *run* (its texts), which the full-reply
  guard compares against a later chunk that repeats it whole (with an id, or without one
  after two deltas or more). Runs ended by another chunk stay guard candidates; runs ended
  by any other update or a turn boundary are forgotten.
- The prompt's echo window lasts until the reply or the work starts (an agent message chunk,
  a tool call, a permission request or an elicitation) or the turn ends; thoughts, plans and
  metadata leave it open.
- Requests other than the turn's (`session/new`, elicitations, `terminal/*`) are kept until
  their answer in `V1State.requests`; `_v1/_v1_requests.py` reads them.
- Tool calls: `tool_call` is an upsert; an update for an unseen id creates a placeholder whose
  fields the late `tool_call` does not overwrite (the update is logically later).
"""

from __future__ import annotations

from collections.abc import Iterable, Iterator
from typing import Any, Final

from acp_core._errors import Diagnostic, entries_argument
from acp_core._wire._updates import OtherUpdate

from ._v1_detect import looks_like_v1
from ._v1_messages import chunk
from ._v1_policy import (
    INVALID_MESSAGE,
    UNANSWERABLE_ELICITATION,
    UNKNOWN_KIND,
    V2_KIND,
    V1Policy,
)
from ._v1_requests import TERMINAL_METHODS, elicitation, session_new, terminal
from ._v1_state import (
    OTHER,
    PLAN,
    ROLES,
    TOOL,
    TURN,
    V2_ONLY,
    NormalizedEvent,
    NormalizedUpdate,
    V1Output,
    V1Result,
    V1State,
    new_v1_state,
)
from ._v1_step import Step
from ._v1_turn import cancel, permission, prompt, response, tool
from ._v1_wire import commands_update, config_option_update, plan_update

__all__ = ["looks_like_v1", "normalize_v1", "normalize_v1_step"]

# Removed by v2 (digest 6.1): kept raw. Any other kind unknown to v1 goes through the v2 codec.
_REMOVED_KINDS: Final = frozenset({"current_mode_update"})
# Session methods whose params carry no sessionId (`session/new`'s result names it).
_SESSIONLESS: Final = frozenset({"session/new", "session/list"})


def _dispatch(step: Step, msg: object, sender: str | None, path: str, *, top: bool = True) -> None:
    if type(msg) is list and top:  # a batch holds messages, not batches: one level only
        for i, item in enumerate(msg):
            _dispatch(step, item, sender, f"{path}[{i}]", top=False)
        return
    if type(msg) is not dict:
        step.diag(INVALID_MESSAGE, path, "not a JSON-RPC message object: skipped")
        return
    method = msg.get("method")
    params = msg.get("params")
    has_id = "id" in msg
    if isinstance(method, str):
        if method in _SESSIONLESS:
            if method == "session/new" and has_id:
                session_new(step, msg, sender or "client")
            return
        if type(params) is not dict or type(params.get("sessionId")) is not str:
            if method.startswith("session/"):
                step.diag(INVALID_MESSAGE, f"{path}.params", f"{method} without a sessionId")
            elif method == "elicitation/create":
                step.diag(
                    UNANSWERABLE_ELICITATION,
                    f"{path}.params",
                    "elicitation/create without a sessionId: no session could show it",
                )
            return
        sid: str = params["sessionId"]
        ppath = f"{path}.params"
        if method == "session/update" and not has_id:
            _session_update(step, sid, params.get("update"), f"{ppath}.update")
        elif method == "session/prompt" and has_id:
            prompt(step, sid, msg, sender or "client", ppath)
        elif method == "session/cancel" and not has_id:
            cancel(step, sid, msg, path)
        elif method == "session/request_permission" and has_id:
            permission(step, sid, msg, sender or "agent", ppath)
        elif method == "session/load" and has_id:
            step.end_runs(sid, TURN)
        elif method == "elicitation/create" and has_id:
            elicitation(step, sid, msg, sender or "agent", ppath)
        elif method in TERMINAL_METHODS and has_id:
            terminal(step, sid, msg, sender or "agent")
        return
    if has_id and ("result" in msg or "error" in msg):
        response(step, msg, sender, path)
        return
    step.diag(INVALID_MESSAGE, path, "neither a request, a notification nor a response")


def _session_update(step: Step, sid: str, update: object, path: str) -> None:
    if type(update) is not dict or type(update.get("sessionUpdate")) is not str:
        step.diag(INVALID_MESSAGE, path, "session/update without an update object: skipped")
        return
    kind: str = update["sessionUpdate"]
    role = ROLES.get(kind)
    if role is not None:
        chunk(step, sid, role, update, path)
    elif kind in ("tool_call", "tool_call_update"):
        step.end_runs(sid, TOOL)
        tool(step, sid, update, path, create=kind == "tool_call")
    elif kind == "plan":
        step.end_runs(sid, PLAN)
        step.emit_decoded(sid, plan_update(update), update, path)
    else:
        step.end_runs(sid, OTHER)
        _other(step, sid, kind, update, path)


def _other(step: Step, sid: str, kind: str, update: dict[str, Any], path: str) -> None:
    if kind in _REMOVED_KINDS:
        step.diag(UNKNOWN_KIND, path, f"{kind!r} was removed in v2: kept raw")
        step.keep_raw(sid, update, path)
        return
    if kind == "config_option_update":
        update = config_option_update(update)
    elif kind == "available_commands_update":
        update = commands_update(update)
    decoded = step.decode(update, path)
    if decoded is None:
        step.keep_raw(sid, update, path)
    elif type(decoded) is OtherUpdate:
        step.diag(UNKNOWN_KIND, path, f"unknown update kind {kind!r}: kept raw")
        step.emit(sid, decoded)
    else:
        if kind in V2_ONLY:
            step.diag(V2_KIND, path, f"v2 update kind {kind!r} in v1 traffic: passed through")
        step.emit(sid, decoded)


def normalize_v1_step(
    state: V1State, message: object, *, sender: str | None = None, index: int = 0
) -> tuple[V1State, V1Output]:
    """Normalize one v1 JSON-RPC message (or batch) seen on the wire (pure).

    Args:
        state: the normalizer state after the previous messages.
        message: the decoded JSON of one message: a dict (or a list for a batch).
        sender: `"client"` or `"agent"`; needed to pair responses with requests when both
            sides use the same request ids (inferred from the method when omitted).
        index: the entry's position in its trace, carried into the output.

    Returns:
        The next state and this message's v2 updates, events and diagnostics. Never raises
        for bad input: it is reported as a diagnostic.
    """
    step = Step(state, index)
    _dispatch(step, message, sender, f"$[{index}].message")
    new = V1State(state.policy, step.sessions, step.requests, step.machines)
    return new, V1Output(tuple(step.updates), tuple(step.events), tuple(step.diags))


def normalized_entries(
    entries: Iterable[object], state: V1State
) -> Iterator[tuple[V1State, V1Output]]:
    """Each trace entry normalized in turn from `state`: (the state after it, its output).
    An entry that is not `{"from": ..., "message": ...}` gives a `v1.invalid-message`."""
    for index, entry in enumerate(entries_argument(entries, "the v1 normalizer")):
        if type(entry) is not dict or "message" not in entry:
            message = "not a trace entry: skipped"
            skipped = Diagnostic(INVALID_MESSAGE, f"$[{index}]", message)
            yield state, V1Output(diagnostics=(skipped,))
            continue
        sender = entry.get("from")
        state, out = normalize_v1_step(
            state,
            entry["message"],
            sender=sender if sender in ("client", "agent") else None,
            index=index,
        )
        yield state, out


def normalize_v1(entries: Iterable[object], policy: V1Policy | None = None) -> V1Result:
    """Normalize a v1 trace (entries `{"from": "client"|"agent", "message": {...}}`).

    The trace may start mid-session. Pass a `V1Policy` to change how message boundaries,
    re-sent replies and prompt echoes are read (docs/v1.md).
    """
    state = new_v1_state(policy)
    updates: list[NormalizedUpdate] = []
    events: list[NormalizedEvent] = []
    diags: list[Diagnostic] = []
    for state, out in normalized_entries(entries, new_v1_state(policy)):  # noqa: B007
        updates.extend(out.updates)
        events.extend(out.events)
        diags.extend(out.diagnostics)
    return V1Result(state, tuple(updates), tuple(events), tuple(diags))
