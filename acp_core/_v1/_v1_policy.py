"""The v1 normalizer's policies and diagnostic rule ids, as values the caller can change.

Owns: `V1Policy` (with `BoundaryPolicy` and the `EchoPolicy` names) and the `v1.*` rule ids
the normalizer reports. Each policy answers one habit of real v1 agents; docs/v1.md has the
long form.
Must not know: wire shapes, state, how the normalizer applies a policy (`_v1/_normalize.py`).
"""

from __future__ import annotations

from typing import Final

import attrs

from acp_core._wire._value import frozen

__all__ = [
    "DUPLICATE_FULL_REPLY",
    "ECHO_REPLACES_PROMPT",
    "ECHO_SUPPRESSED",
    "ESCAPED_ID",
    "INVALID_MESSAGE",
    "INVALID_UPDATE",
    "LATE_TOOL_CALL",
    "MISSING_STOP_REASON",
    "NULL_IGNORED",
    "PLACEHOLDER_TOOL_CALL",
    "RESULT_FIELD_DROPPED",
    "ROLE_SPLIT",
    "SYNTHETIC_MESSAGE_ID",
    "TERMINAL_ENDED_WITH_TOOL",
    "TERMINAL_REFERENCE",
    "TERMINAL_RELEASED",
    "TOOL_CALL_RESENT",
    "UNANSWERABLE_ELICITATION",
    "UNKNOWN_KIND",
    "UNMATCHED_RESPONSE",
    "V2_KIND",
    "BoundaryPolicy",
    "EchoPolicy",
    "V1Policy",
]

# -- diagnostic rule ids (docs/v1.md lists each with an example) --------------------------

#: An id-less chunk started a synthetic message (`v1:<role>:<n>`); once per message.
SYNTHETIC_MESSAGE_ID: Final = "v1.synthetic-message-id"
#: A chunk with an id repeated the id-less chunks before it and replaced them.
DUPLICATE_FULL_REPLY: Final = "v1.duplicate-full-reply"
#: A user chunk echoing the live prompt was dropped (the prompt already is the user message).
ECHO_SUPPRESSED: Final = "v1.echo-suppressed"
#: The agent's echo of the prompt replaced the prompt's content (echo policy `replace`).
ECHO_REPLACES_PROMPT: Final = "v1.echo-replaces-prompt"
#: A `tool_call_update` for an unseen id created a placeholder tool call.
PLACEHOLDER_TOOL_CALL: Final = "v1.placeholder-tool-call"
#: A `tool_call` arrived after updates for its id; fields the updates had set were kept.
LATE_TOOL_CALL: Final = "v1.late-tool-call"
#: A `tool_call` was sent again for a known id; omitted fields were reset to defaults.
TOOL_CALL_RESENT: Final = "v1.tool-call-resent"
#: v1 `null` on a field has no defined meaning; it was read as "unchanged" (digest 6.2 r9).
NULL_IGNORED: Final = "v1.null-ignored"
#: A v1 terminal reference (client-owned terminal) was kept as a v2 display anchor.
TERMINAL_REFERENCE: Final = "v1.terminal-reference"
#: A v1 terminal was released before its exit status was seen: shown exited without a code.
TERMINAL_RELEASED: Final = "v1.terminal-released"
#: A tool call ended (`completed`/`failed`) while a v1 terminal it shows had no exit seen:
#: shown exited without a code (a later exit status from the client still replaces it).
TERMINAL_ENDED_WITH_TOOL: Final = "v1.terminal-ended-with-tool"
#: An `elicitation/create` the view cannot hold as a request awaiting its answer (no
#: session, no message, an invalid id): nobody could answer it there.
UNANSWERABLE_ELICITATION: Final = "v1.unanswerable-elicitation"
#: An update kind v2 removed or does not know (e.g. `current_mode_update`), kept raw.
UNKNOWN_KIND: Final = "v1.unknown-kind"
#: A v2-only update kind appeared in v1 traffic; passed through as v2.
V2_KIND: Final = "v1.v2-kind"
#: A known v1 update whose payload does not have its shape; kept raw as an unknown update.
INVALID_UPDATE: Final = "v1.invalid-update"
#: A trace entry or JSON-RPC message that could not be read at all; skipped.
INVALID_MESSAGE: Final = "v1.invalid-message"
#: A real message id reused by another role got its own id `v1:id:<role>:<id>`.
ROLE_SPLIT: Final = "v1.role-split"
#: A real message id starting with the reserved `v1:` prefix was escaped to `v1:id:<id>`.
ESCAPED_ID: Final = "v1.escaped-id"
#: A prompt result without a usable `stopReason`: idle without a stop reason.
MISSING_STOP_REASON: Final = "v1.missing-stop-reason"
#: Keys of a prompt result other than `stopReason`/`_meta` have no v2 home and were dropped.
RESULT_FIELD_DROPPED: Final = "v1.result-field-dropped"
#: A prompt result for a request the trace never showed (a trace starting mid-turn).
UNMATCHED_RESPONSE: Final = "v1.unmatched-response"


class EchoPolicy:
    """What to do with `user_message_chunk`s that echo the live prompt.

    v1 had no user-message update for live prompts, so the normalizer turns the
    `session/prompt` request itself into the user message. Some agents also echo the prompt
    back as user chunks; without reconciliation the user message shows twice.
    """

    #: Drop user chunks that repeat the prompt (text as a running prefix, other blocks by
    #: equality); the first one that does not ends the echo and is kept. Default.
    DROP: Final = "drop"
    #: The agent's echo is canonical (digest Q30): it replaces the prompt's content in the
    #: prompt's user message (for agents whose echo is what they actually stored, e.g. with
    #: @-mentions expanded or attachments removed).
    REPLACE: Final = "replace"
    #: No reconciliation: echoed chunks become a user message of their own.
    KEEP: Final = "keep"
    KNOWN: Final = frozenset({DROP, REPLACE, KEEP})


@frozen
class BoundaryPolicy:
    """Which updates end a synthetic (id-less) message, so the next chunk starts a new one.

    v1 chunks usually carry no `messageId`; message boundaries can only be inferred from the
    stream (digest 6.2 rule 6). A turn boundary (prompt sent, prompt answered, session load)
    and a chunk with a real id of the same role always end the open message.

    Attributes:
        role_change: a chunk of another role ends the open message, so text, thought, text
            gives three messages (default). Off: each role keeps its own open message, for
            agents that interleave thought and reply chunks of one answer token by token.
        tool_calls: a tool call, tool call update or permission request ends open messages
            (default): the text after a tool ran is a new message placed after the tool.
            Off: for agents that report tool progress while one reply keeps streaming.
        plans: a plan update ends open messages (default).
        other_updates: any other update (commands, config options, session info, usage,
            modes, unknown kinds) ends open messages (default, the digest's rule). Off: for
            agents that emit `usage_update` mid-stream, which would otherwise split a reply.
    """

    role_change: bool = True
    tool_calls: bool = True
    plans: bool = True
    other_updates: bool = True


@frozen
class V1Policy:
    """How the normalizer reads v1 traffic; every field has a default matching real agents.

    Attributes:
        boundary: when an id-less message ends (see `BoundaryPolicy`).
        full_reply_guard: agents that stream a reply as id-less deltas and then send it again
            whole as one chunk with a `messageId` (clients that merge naively render it
            twice). When on (default), a chunk with an id whose text equals exactly the joined
            text of the id-less chunks of the same role just before it (only chunks between)
            replaces them: an upsert of the deltas' synthetic message with the full content,
            and the real id becomes an alias of the synthetic one.
        echo: reconciliation of prompt echoes (an `EchoPolicy` value, default `drop`).
    """

    boundary: BoundaryPolicy = BoundaryPolicy()
    full_reply_guard: bool = True
    echo: str = attrs.field(default=EchoPolicy.DROP)

    @echo.validator
    def _check_echo(self, _attribute: object, value: str) -> None:
        if value not in EchoPolicy.KNOWN:
            msg = f"echo must be one of {sorted(EchoPolicy.KNOWN)}, not {value!r}"
            raise ValueError(msg)
