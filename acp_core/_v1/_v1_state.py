"""The v1 normalizer's values: its output, its state, and their small helpers.

Owns: `NormalizedUpdate`, `NormalizedEvent`, `PromptError`, `V1Output`, `V1Result` (what the
normalizer produces) and `V1State`/`V1Session` with their parts (what it remembers), plus
the names shared by the normalizer's modules (roles, boundary categories, the reserved id
prefix, update kinds that tell v1 from v2).
Must not know: how a message is normalized (`_v1/_normalize.py`, `_v1/_v1_messages.py`,
`_v1/_v1_turn.py`).
"""

from __future__ import annotations

from typing import Final, TypeAlias

import attrs

from acp_core._errors import Diagnostic
from acp_core._rules._conversation import Conversation
from acp_core._rules._predicates import RequestKey, request_key
from acp_core._state._pcoll import PMap, PVec
from acp_core._wire._content import ContentBlock
from acp_core._wire._json import JsonObject, JsonValue
from acp_core._wire._jsonrpc import (
    CancelSessionNotification,
    RequestId,
    RequestPermissionRequest,
    RpcError,
)
from acp_core._wire._updates import SessionUpdate
from acp_core._wire._value import frozen

from ._v1_policy import V1Policy

__all__ = [
    "AGENT",
    "NEW_SESSION",
    "OTHER",
    "PLAN",
    "RESERVED",
    "ROLES",
    "THOUGHT",
    "TOOL",
    "TURN",
    "USER",
    "V1_ONLY",
    "V2_ONLY",
    "Echo",
    "NormalizedEvent",
    "NormalizedUpdate",
    "Pending",
    "PromptError",
    "RequestRef",
    "Run",
    "ToolSeen",
    "V1Elicitation",
    "V1ElicitationAnswer",
    "V1Output",
    "V1Result",
    "V1Session",
    "V1State",
    "id_text",
    "new_v1_state",
    "request_ref",
    "with_runs",
    "with_tools",
]

USER: Final = "user"
AGENT: Final = "agent"
THOUGHT: Final = "thought"
#: Message role of each v1 chunk kind.
ROLES: Final = {
    "user_message_chunk": USER,
    "agent_message_chunk": AGENT,
    "agent_thought_chunk": THOUGHT,
}
#: A request as the normalizer tracks it: (who asked, the id's `request_key`).
RequestRef: TypeAlias = tuple[str, RequestKey]
#: Prefix of every synthetic id; real ids starting with it are escaped to `v1:id:<id>`.
RESERVED: Final = "v1:"
# Boundary categories of non-chunk updates (see BoundaryPolicy).
TOOL: Final = "tool"
PLAN: Final = "plan"
OTHER: Final = "other"
TURN: Final = "turn"
#: Update kinds only v1 has, and kinds only v2 has (for detection and diagnostics).
V1_ONLY: Final = frozenset({"tool_call", "plan", "current_mode_update"})
V2_ONLY: Final = frozenset(
    {
        "state_update",
        "plan_update",
        "user_message",
        "agent_message",
        "agent_thought",
        "tool_call_content_chunk",
        "terminal_update",
        "terminal_output_chunk",
    }
)


# -- output values ---------------------------------------------------------------------------


@frozen
class NormalizedUpdate:
    """A v2 update for `session_id`, from the trace entry `index`."""

    session_id: str
    update: SessionUpdate
    index: int


@frozen
class PromptError:
    """The agent answered the prompt `request_id` with a JSON-RPC error (digest 6.2 r3)."""

    request_id: RequestId
    error: RpcError


@frozen
class V1Elicitation:
    """The agent's `elicitation/create`: a question to the user, waiting for an answer.

    Attributes:
        request_id: its JSON-RPC id (the answer names it).
        message: what the user is asked.
        params: the request's params as sent (the requested schema among them), frozen.
    """

    request_id: RequestId
    message: str
    params: JsonObject


@frozen
class V1ElicitationAnswer:
    """The client's answer to the elicitation `request_id`.

    Attributes:
        action: `accept`, `decline`, `cancel` (or another string the client sent); None when
            the client answered with a JSON-RPC error or without a string action.
        answer: the response's `result` (or `error`) as sent, frozen.
    """

    request_id: RequestId
    action: str | None
    answer: JsonValue


@frozen
class NormalizedEvent:
    """A lifecycle event that is not a session update: a prompt error, the client's
    `session/cancel`, a v1 permission request in its v2 shape (digest 6.2 r18), or an
    elicitation and its answer."""

    session_id: str
    event: (
        PromptError
        | CancelSessionNotification
        | RequestPermissionRequest
        | V1Elicitation
        | V1ElicitationAnswer
    )
    index: int


@frozen
class V1Output:
    """What one step produced, in order within each kind."""

    updates: tuple[NormalizedUpdate, ...] = ()
    events: tuple[NormalizedEvent, ...] = ()
    diagnostics: tuple[Diagnostic, ...] = ()


# -- state -----------------------------------------------------------------------------------


@frozen
class Run:
    """An id-less message of one role: its synthetic id and the texts its chunks carried."""

    message_id: str
    texts: PVec[str]
    length: int
    text_only: bool
    open: bool


@frozen
class ToolSeen:
    """A tool call seen so far: created by `tool_call`, or a placeholder with the fields
    its updates set (a late `tool_call` must not overwrite them)."""

    created: bool
    set_by_updates: tuple[str, ...] = ()
    terminals: tuple[str, ...] = ()  # the v1 terminals its current content shows


@frozen
class Echo:
    """The live prompt, for recognising an agent's echo of it (until the reply starts)."""

    request: RequestRef
    message_id: str
    text: str
    blocks: tuple[ContentBlock, ...]  # the prompt's non-text blocks
    cursor: int = 0
    replacing: bool = False


@frozen
class V1Session:
    """Normalizer state of one session (all private detail; compare, do not inspect)."""

    seq: int = 0
    runs: PMap[str, Run] = attrs.field(factory=PMap)
    aliases: PMap[str, str] = attrs.field(factory=PMap)
    tools: PMap[str, ToolSeen] = attrs.field(factory=PMap)
    waiting: tuple[RequestRef, ...] = ()  # outstanding permission requests and elicitations
    echo: Echo | None = None
    prompt_ids: PMap[str, int] = attrs.field(factory=PMap)
    id_roles: PMap[str, str] = attrs.field(factory=PMap)  # real message id -> first role
    exited: PMap[str, bool] = attrs.field(factory=PMap)  # v1 terminal id -> exit status seen


@frozen
class Pending:
    """A request awaiting its response, keyed in `V1State.requests` by `request_ref`:
    the client's prompts and `session/new`, the agent's permission requests, elicitations
    and `terminal/*` requests.

    Attributes:
        kind: `prompt`, `permission`, `elicitation`, or the method (`session/new`,
            `terminal/create`, `terminal/output`, `terminal/wait_for_exit`, `terminal/release`).
        label: what `replay` shows while it waits (a permission's title, an elicitation's
            message).
        terminal_id: the terminal a `terminal/*` request names.
        command, cwd: what `terminal/create` asked to run.
    """

    kind: str
    session_id: str
    request_id: RequestId
    label: str | None = None
    terminal_id: str | None = None
    command: str | None = None
    cwd: str | None = None


@frozen
class V1State:
    """The normalizer's state: the policy, per-session state, outstanding requests, and
    each session's conversation machine following the v2 updates emitted for it (the one
    home of the turn's phase: whether a turn is running or blocked)."""

    policy: V1Policy
    sessions: PMap[str, V1Session] = attrs.field(factory=PMap)
    requests: PMap[RequestRef, Pending] = attrs.field(factory=PMap)
    machines: PMap[str, Conversation] = attrs.field(factory=PMap)


@frozen
class V1Result:
    """A whole trace normalized: the final state and everything the steps produced."""

    state: V1State
    updates: tuple[NormalizedUpdate, ...]
    events: tuple[NormalizedEvent, ...]
    diagnostics: tuple[Diagnostic, ...]

    @property
    def session_ids(self) -> tuple[str, ...]:
        """Sessions that received updates, in first-seen order."""
        return tuple(dict.fromkeys(u.session_id for u in self.updates))

    def updates_for(self, session_id: str) -> tuple[SessionUpdate, ...]:
        """The v2 updates of one session, ready for `acp_core.fold`."""
        return tuple(u.update for u in self.updates if u.session_id == session_id)


def new_v1_state(policy: V1Policy | None = None) -> V1State:
    """A normalizer that has seen nothing yet."""
    return V1State(V1Policy() if policy is None else policy)


NEW_SESSION: Final = V1Session()


# Per-chunk and per-tool-update paths rebuild a session positionally: attrs.evolve costs
# several times a constructor call (anchors-style-study 4.2).
def with_runs(s: V1Session, seq: int, runs: PMap[str, Run]) -> V1Session:
    """`s` with a new synthetic-id counter and new runs."""
    return V1Session(
        seq,
        runs,
        s.aliases,
        s.tools,
        s.waiting,
        s.echo,
        s.prompt_ids,
        s.id_roles,
        s.exited,
    )


def with_tools(s: V1Session, tools: PMap[str, ToolSeen]) -> V1Session:
    """`s` with new tool call records."""
    return V1Session(
        s.seq,
        s.runs,
        s.aliases,
        tools,
        s.waiting,
        s.echo,
        s.prompt_ids,
        s.id_roles,
        s.exited,
    )


def request_ref(requester: str, value: object) -> RequestRef | None:
    """A request as the normalizer keys it: who asked, and its id as `request_key` spells it
    (so 1 and "1" stay apart); None when `value` is not a JSON-RPC id."""
    if value is None or type(value) in (int, str):
        return (requester, request_key(value))
    return None


def id_text(value: RequestId) -> str:
    """A request id as it appears in a synthetic message id."""
    if value is None:
        return "null"
    if type(value) is int and value.bit_length() > 2000:  # str() refuses 4,300+ digits
        return f"0x{value:x}"
    return str(value)
