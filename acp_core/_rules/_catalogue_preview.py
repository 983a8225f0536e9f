"""The rule catalogue of the 2026-11 draft and the v2 Preview: R47-R81 (agent), C27-C56 (client).

Owns: `PREVIEW_ROWS`, the rows `_catalogue.RULES` adds after the 2026-08 catalogue, numbered as in
section 4 of the Preview digest (`acp-v2-preview-digest.md` in the shared folder). The summaries
are that digest's paraphrases; where its level cell says more than one RFC 2119 word (a decision,
an inference, a changed level), `note` says which level is catalogued. And `UNCHECKED`: for each
of these rules `check_trace` does not report, why a recording cannot show it, as one of the
`UNCHECKED_KINDS` and a sentence; and `KIT_IDS`, the kit's requirement where a section cites one.
Must not know: how a rule is checked or enforced.

Whether `check_trace` reports a rule (`checked`) is read from the checker's guards, as for
every rule; the engines enforce the agent rules (`_engines/_agent_children.py`,
`_engines/_agent_items.py`, `_engines/_agent_cancel.py`) and the views record child-traffic
faults as diagnostics (`_state/_reduce_children.py`).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal

__all__ = ["KIT_IDS", "PREVIEW_ROWS", "UNCHECKED", "UNCHECKED_KINDS", "UncheckedKind"]

#: (id, since, level, side, summary, section, note) per rule, in digest order: `since` names
#: the revision the rule comes with (`Rule.since`): `2026-11` for the rules the 2026-11 draft
#: already states (its sources are the 2026-11 docs and SDK 2.4.0: background work, item
#: cancels, the resume state snapshot, the tool-call name, C40 for C15), the Preview
#: (`2026-11-20`) for the rest.
Row = tuple[str, str, str, str, str, str, str]

# fmt: off
PREVIEW_ROWS: Final[tuple[Row, ...]] = (
    ('R47', '2026-11-20', 'MUST', 'agent', "Before any message that carries a child's `sessionId` — a `session/update` on the child, a `session_message` naming it as sender or recipient, a `session` content item pointing at it, a `background` list entry naming it, a `session/request_permission` or `elicitation/create` for it — send the announcing `subagent_update` on its immediate parent. Applies per connection.", 'Preview digest §4; [SUBA], [RS-SUB]', ''),  # noqa: E501
    ('R48', '2026-11-20', 'MUST', 'agent', 'A child has exactly one parent for its lifetime. Later `subagent_update`s for the same id only patch the association; they never create a second child or move it to another parent. Finishing or cancelling work does not end the association; the parent may message the child again.', 'Preview digest §4; [SUBA], [TS240U]', "the Preview digest gives 'MUST / MUST NOT'; catalogued as MUST"),  # noqa: E501
    ('R49', '2026-11-20', 'MUST', 'agent', "Send the child's own messages, thoughts, plans, tool calls, terminals and state as ordinary `session/update`s whose envelope `sessionId` is the child; send `subagent_update` for a grandchild on its own parent (the child), not on the top-level session.", 'Preview digest §4; [SUBA]', ''),  # noqa: E501
    ('R50', '2026-11-20', 'MUST', 'agent', "Report each child's foreground state with `state_update` on the child session (the full `StateUpdate` contract of 2026-11 applies per session: `running`/`requires_action` when work starts, `idle` when it ends).", 'Preview digest §4; [SUBA], [D11]', ''),  # noqa: E501
    ('R51', '2026-11-20', 'SHOULD', 'agent', "Mirror known child state changes onto the parent's `subagent_update.state`, using the same snapshot object as the child's `state_update`.", 'Preview digest §4; [TS240U]', ''),  # noqa: E501
    ('R52', '2026-11-20', 'MUST', 'agent', "Any `cwd` / `additionalDirectories` reported for a child is absolute; omit them when the child uses the parent's values.", 'Preview digest §4; [TS240U]', ''),  # noqa: E501
    ('R53', '2026-11-20', 'MUST', 'agent', 'Permit client-initiated mutations of a child only through its `capabilities` (today only `cancel`); with no capabilities, none are permitted. Reject restricted requests that name a child, e.g. with `-32602` (decision P14, practice in [CLAUDE] 0.109.1).', 'Preview digest §4; [TS240U], [CLAUDE]', "the Preview digest gives 'MUST; SHOULD (decision)'; catalogued as MUST"),  # noqa: E501
    ('R54', '2026-11-20', 'MUST', 'agent', "`session_message`/`session_message_chunk` ids are scoped to the enclosing session's transcript; a chunk carries only content (participants and cross-references travel on upserts, in any order relative to the chunks).", 'Preview digest §4; [TS240U], [RS-SM]', ''),  # noqa: E501
    ('R55', '2026-11-20', 'MAY', 'agent', 'Show an inter-session message in both transcripts (outgoing on the sender, incoming on the recipient) and cross-link them with `senderMessageId`/`recipientMessageId`, possibly after streaming started.', 'Preview digest §4; [TS240U]', ''),  # noqa: E501
    ('R56', '2026-11-20', 'MUST', 'agent', 'A `session` tool-content item names only a session the client already knows (set up by the client or announced); it confers no control and says nothing about work received or finished.', 'Preview digest §4; [RS-SREF]', ''),  # noqa: E501
    ('R57', '2026-11-20', 'MUST', 'agent', 'For each `session/resume` with a `replayFrom` cursor, send `replay_complete` on that session exactly once, after its last replayed update and before the response — also when nothing was replayed.', 'Preview digest §4; [RS-RC], [RC-RFD]', ''),  # noqa: E501
    ('R58', '2026-11-20', 'MUST NOT', 'agent', 'Send `replay_complete` when `replayFrom` is omitted/`null`, or when the replay cannot be completed (fail the request instead).', 'Preview digest §4; [RS-RC]', ''),  # noqa: E501
    ('R59', '2026-11-20', 'MUST', 'agent', 'From receipt of the resume request until the marker, hold back live updates for the session being replayed. (Updates already sent before the request arrived may still reach the client after it sent the request.)', 'Preview digest §4; [RS-RC]', ''),  # noqa: E501
    ('R60', '2026-11-20', 'MUST', 'agent', "Each child announced while serving the resume request gets its own replay and its own `replay_complete` on the child's `sessionId`; (decision P8) all of them before the resume response.", 'Preview digest §4; [RC-RFD], [CODEX] 2.3.1', ''),  # noqa: E501
    ('R61', '2026-11-20', 'MUST', 'agent', 'On a resumed/new connection, re-announce every live child with `subagent_update` before any child traffic, including before replaying the child.', 'Preview digest §4; follows from R47; [CLAUDE] 0.109.1', ''),  # noqa: E501
    ('R62', '2026-11', 'MUST', 'agent', "After the session's history (and after its marker, when a cursor was given) and before the resume response, send the current `state_update` snapshot of the resumed session — also when no replay was requested (2026-11 rule, now ordered after the marker). Snapshots are idempotent. (decision P8: SHOULD do the same for each replayed child after its marker.)", 'Preview digest §4; [D11], [RC-RFD]', ''),  # noqa: E501
    ('R63', '2026-11-20', 'MUST', 'agent', 'When replaying a user/agent/thought message as chunks, first send a whole-message upsert with `content: []` for that `messageId` (reset-before-chunk).', 'Preview digest §4; [PR2175], [TCK] RESUME-205', ''),  # noqa: E501
    ('R64', '2026-11-20', 'MUST', 'agent', 'A replayed user message keeps the `messageId` its `session/prompt` response returned.', 'Preview digest §4; [D11] `PromptResponse`, [TCK] RESUME-204', ''),  # noqa: E501
    ('R65', '2026-11-20', 'SHOULD NOT', 'agent', 'Include `notice` or `prompt_suggestions_update` in replayed history (extends R46).', 'Preview digest §4; [D11], [RS-PS]', ''),  # noqa: E501
    ('R66', '2026-11-20', 'SHOULD', 'agent', "Send a replayed child's configuration (`config_option_update`, `available_commands_update`) after its replay, not inside it.", 'Preview digest §4; [CLAUDE] 0.109.1', ''),  # noqa: E501
    ('R67', '2026-11-20', 'MUST', 'agent', "Every v2 agent that advertises `capabilities.session` honors `idempotencyKey` whenever present (no extra capability): at most one user message is inserted per (session, key), and every retry is answered with the original insertion's `messageId`.", 'Preview digest §4; [IK-RFD]', ''),  # noqa: E501
    ('R68', '2026-11-20', 'MUST', 'agent', "A retry that arrives while the original attempt is still held or not yet inserted is not inserted separately; it resolves with the original's outcome (MUST, from at-most-once). A `$/cancel_request` for either request withdraws the held prompt (SHOULD, practice of [RHO]).", 'Preview digest §4; [IK-RFD], [RHO]', "the Preview digest gives 'MUST; SHOULD'; catalogued as MUST"),  # noqa: E501
    ('R69', '2026-11-20', 'SHOULD', 'agent', 'Remember keys at least as long as the message they produced is retained, so a retry after reconnect + resume is recognized.', 'Preview digest §4; [RHO] (keys stored with saved messages)', "the Preview digest gives 'SHOULD (decision)'; catalogued as SHOULD"),  # noqa: E501
    ('R70', '2026-11-20', 'MUST', 'agent', '`session/cancel` also cancels earlier prompts of that session that are not yet inserted (held): answer each with `-32800`; prompts already inserted still succeed with their `messageId`; prompts submitted after the cancel are not affected.', 'Preview digest §4; [RS-CN] 1.20.0', ''),  # noqa: E501
    ('R71', '2026-11-20', 'MUST', 'agent', "On `session/cancel`, stop waiting for the cancelled work's pending `session/request_permission` requests, treat them as not approved, and cancel each with `$/cancel_request`.", 'Preview digest §4; [RS-CN] 1.19.0 vs [D11]', "the Preview digest gives 'MUST (was SHOULD in 2026-11)'; catalogued as MUST"),  # noqa: E501
    ('R72', '2026-11-20', 'MUST', 'agent', 'Cancel pending `elicitation/create` requests that cancelled or abandoned work no longer needs.', 'Preview digest §4; [REL120] #2950, [D11]', "the Preview digest gives 'MUST (inferred; was SHOULD)'; catalogued as MUST"),  # noqa: E501
    ('R73', '2026-11', 'MUST NOT', 'agent', "`session/cancel` does not stop work listed in the session's latest `background` list — including listed detached children; it MAY stop background activity it does not list.", 'Preview digest §4; [D11], [RS-CN]', "the Preview digest gives 'MUST NOT (implied) / MAY'; catalogued as MUST NOT"),  # noqa: E501
    ('R74', '2026-11', 'MUST', 'agent', 'Background lists: announce each item before the first snapshot that lists it; finalize it (terminal `exitStatus`, tool call final status, child idle) before the first snapshot that drops it; list each piece once (process-backed work as its terminal only); once reporting, include the list on every `state_update`. List a detached child (`type: "subagent"`) while its state is not idle or its own background list is non-empty or unreported.', 'Preview digest §4; [D11], [TS240U]', ''),  # noqa: E501
    ('R75', '2026-11', 'MUST', 'agent', '`tool_call/cancel` and `terminal/cancel`: respond once the cancellation is accepted (not when work stopped); confirm with a final `tool_call_update` (usually `cancelled`) or a `terminal_update` with `exitStatus`; answer `-32602` for unknown, already final, or non-cancellable items; neither changes the foreground state. SHOULD stop advertising `capabilities.cancel` once final/exited.', 'Preview digest §4; [D11]', "the Preview digest gives 'MUST / SHOULD'; catalogued as MUST"),  # noqa: E501
    ('R76', '2026-11', 'MUST', 'agent', "`session/close` cancels like `session/cancel` and stops the session's background work (including listed children); sends final updates and idle `cancelled` before a successful response when foreground work was active; answers not-yet-inserted (held) prompts with `-32800` and inserted ones with their `messageId`; sends nothing for the session after the close response. (decision P13: nothing for its children either.)", 'Preview digest §4; [D11], [RS-CLOSE]', ''),  # noqa: E501
    ('R77', '2026-11-20', 'MAY', 'agent', 'Report `state: "unknown"` only when foreground activity has become unobservable (not merely quiet); it cancels nothing and resolves no pending request; a later state replaces it normally.', 'Preview digest §4; [TS240U]', ''),  # noqa: E501
    ('R78', '2026-11-20', 'MUST', 'agent', "Markdown plans carry the complete plan in `content`; a supplied `path` is absolute. Plan removal uses `plan_removed` with the plan's `planId`. No client capability gates either in v2.", 'Preview digest §4; [ANN-PLAN], [RS-PLAN]', ''),  # noqa: E501
    ('R79', '2026-11-20', 'MUST', 'agent', "Send `prompt_suggestions_update` only to clients that advertised `session.promptSuggestions`; each suggestion has ≥1 block, no suggestion is only empty/whitespace text, and blocks other than `text`/`resource_link` are used only when both the agent's `session.prompt` and the client's `session.promptSuggestions` advertise that type.", 'Preview digest §4; [RS-PS]', "the Preview digest gives 'MUST (UNSTABLE feature)'; catalogued as MUST"),  # noqa: E501
    ('R80', '2026-11-20', 'MUST', 'agent', '`compaction_update` requires only `compactionId`; `status` may be omitted on updates that do not change it.', 'Preview digest §4; [RS-CU]', "the Preview digest gives 'MUST (shape)'; catalogued as MUST"),  # noqa: E501
    ('R81', '2026-11', 'SHOULD', 'agent', "Keep a tool call's `name` stable once reported; give a `title` on the first report (TCK advisory).", 'Preview digest §4; [TCK] PATCH-208, [D11]', ''),  # noqa: E501
    ('C27', '2026-11-20', 'MUST', 'client', "Understand `subagent_update` and register the announced child under the envelope's session; never drop it as an unknown update (a client may still choose not to show a separate subagent view).", 'Preview digest §4; [SUBA]', ''),  # noqa: E501
    ('C28', '2026-11-20', 'MUST', 'client', "Attribute every request and notification that carries a registered child's `sessionId` to that child (session updates, permission and elicitation requests).", 'Preview digest §4; [SUBA]', ''),  # noqa: E501
    ('C29', '2026-11-20', 'MUST', 'client', "Apply the child restrictions: send no client-initiated session mutation for a child unless the child's current `capabilities` permit it; read-only operations keep their normal rules.", 'Preview digest §4; [SUBA], [TS240U]', ''),  # noqa: E501
    ('C30', '2026-11-20', 'MUST', 'client', 'Understand `session_message` and `session_message_chunk`.', 'Preview digest §4; [SUBA]', ''),  # noqa: E501
    ('C31', '2026-11-20', 'MUST NOT', 'client', 'Read `subagent_update.state: null` (or no state yet) as idle or cancelled; it means activity is unconfirmed.', 'Preview digest §4; [TS240U]', ''),  # noqa: E501
    ('C32', '2026-11-20', 'SHOULD', 'client', "Treat duplicate state reports (child `state_update` and parent mirror) idempotently; prefer the child's own stream (decision P4).", 'Preview digest §4; [TS240U]', ''),  # noqa: E501
    ('C33', '2026-11-20', 'SHOULD', 'client', 'Traffic for an unannounced session id: diagnose, buffer/bucket, never tear down the connection (P3).', 'Preview digest §4; —', "the Preview digest gives 'SHOULD (decision)'; catalogued as SHOULD"),  # noqa: E501
    ('C34', '2026-11-20', 'MUST NOT', 'client', 'Send `session/prompt`, `session/set_config_option`, `session/resume`, `session/close`, `session/delete` or `session/fork` for a child; child events arrive without any load/resume/subscribe step.', 'Preview digest §4; [SUBA], [RS-SUB], P14', "the Preview digest gives 'MUST NOT (decision)'; catalogued as MUST NOT"),  # noqa: E501
    ('C35', '2026-11-20', 'MAY', 'client', "Send `session/cancel` with a child's id, only while that child advertises `capabilities.cancel`; expect the child's idle `cancelled` on the child session; the association stays.", 'Preview digest §4; [ANN-SUB], [TS240U]', ''),  # noqa: E501
    ('C36', '2026-11-20', 'MUST', 'client', "For a resume with a cursor, treat every update for session S received before S's `replay_complete` as history and every later one as live; track this per session, children separately.", 'Preview digest §4; [RC-RFD]', "the Preview digest gives 'MUST (interpretive)'; catalogued as MUST"),  # noqa: E501
    ('C37', '2026-11-20', 'SHOULD', 'client', "If a resume ends without S's marker (error, cancel, connection loss), mark S's replayed history as truncated.", 'Preview digest §4; [RS-RC]', ''),  # noqa: E501
    ('C38', '2026-11-20', 'MUST NOT', 'client', 'Count replayed or repeated idle updates as new completions/cancellations or new usage; fire no turn-finished side effects for history.', 'Preview digest §4; [D11]', ''),  # noqa: E501
    ('C39', '2026-11-20', 'SHOULD', 'client', 'Treat a replayed whole-message upsert as an authoritative reset of that message (makes replay into an existing view duplicate-free).', 'Preview digest §4; [PR2175]', ''),  # noqa: E501
    ('C40', '2026-11', 'MAY', 'client', 'After `session/cancel`, MAY answer permission requests that belong to the cancelled foreground work with `cancelled` right away; MUST leave requests of background work open; MUST still answer a request named by `$/cancel_request` (`cancelled` outcome or `-32800`). Replaces C15.', 'Preview digest §4; [D11], upstream.md §0.4', "the Preview digest gives 'MAY / MUST'; catalogued as MAY"),  # noqa: E501
    ('C41', '2026-11', 'MUST NOT', 'client', 'Send `tool_call/cancel` or `terminal/cancel` unless the item currently advertises `capabilities.cancel` (malformed ⇒ none).', 'Preview digest §4; [D11]', ''),  # noqa: E501
    ('C42', '2026-11-20', 'SHOULD', 'client', 'Create one `idempotencyKey` per user submission, at submit time; store it with the pending input; reuse it on every attempt of that submission.', 'Preview digest §4; [RS-IK]', ''),  # noqa: E501
    ('C43', '2026-11-20', 'MUST', 'client', "Keys are opaque, case-sensitive, 1-255 characters, scoped to the request's `sessionId`; (decision P15) never reuse a key for a different submission in the same session.", 'Preview digest §4; [RS-IK]', ''),  # noqa: E501
    ('C44', '2026-11-20', 'MUST', 'client', 'Bind a retried prompt by the returned `messageId`; do not create a second user message when the same id comes back.', 'Preview digest §4; [IK-RFD]', ''),  # noqa: E501
    ('C45', '2026-11-20', 'SHOULD', 'client', 'When a `session/prompt` response is lost, retry with the same key (after `session/resume` if the connection was lost); without a key, do not retry `session/prompt` automatically.', 'Preview digest §4; [IK-RFD]', ''),  # noqa: E501
    ('C46', '2026-11-20', 'MUST', 'client', 'On `plan_removed`, delete the plan; ignore an unknown `planId`.', 'Preview digest §4; [RS-PLAN] (v1 stable text)', ''),  # noqa: E501
    ('C47', '2026-11-20', 'MUST', 'client', 'Accept `markdown` plans (render `content`; `path` is only a link).', 'Preview digest §4; [ANN-PLAN]', ''),  # noqa: E501
    ('C48', '2026-11-20', 'MUST', 'client', 'On `state: "unknown"`, stop presenting the previous state as current (it may stay visible as "last known"); never treat it, or any unrecognized state, as idle.', 'Preview digest §4; [TS240U], [D11]', ''),  # noqa: E501
    ('C49', '2026-11', 'MUST', 'client', 'A background item of an unknown `type` still means background work is running.', 'Preview digest §4; [TS240U]', ''),  # noqa: E501
    ('C50', '2026-11', 'SHOULD', 'client', 'Use the background list to tell live background items from stale tool calls/terminals and to warn before closing a session.', 'Preview digest §4; [BG-RFD]', ''),  # noqa: E501
    ('C51', '2026-11-20', 'MUST', 'client', 'Prompt suggestions: replace the list on each update, start empty, `[]` withdraws, never store them as history; advertise `session.promptSuggestions` only if they are shown.', 'Preview digest §4; [RS-PS]', "the Preview digest gives 'MUST (UNSTABLE)'; catalogued as MUST"),  # noqa: E501
    ('C52', '2026-11-20', 'MUST NOT', 'client', 'Infer ownership, controls or completed work from a `session` tool-content item.', 'Preview digest §4; [RS-SREF]', ''),  # noqa: E501
    ('C53', '2026-11-20', 'MUST', 'client', '`compaction_update` without `status` keeps the stored status; `status: null` resets to `in_progress`; a new compaction without status is `in_progress`.', 'Preview digest §4; [RS-CU]', ''),  # noqa: E501
    ('C54', '2026-11-20', 'MUST', 'client', 'Apply `MetaPatch` to every upsert entity of §3.1, including `subagent_update`, `session_message` and (new) `usage_update`.', 'Preview digest §4; [META-RFD], [RS-UU]', ''),  # noqa: E501
    ('C55', '2026-11-20', 'SHOULD', 'client', "After the parent's close response or deletion, drop its children and ignore later traffic for them.", 'Preview digest §4; P13', "the Preview digest gives 'SHOULD (decision)'; catalogued as SHOULD"),  # noqa: E501
    ('C56', '2026-11', 'MUST', 'client', 'Treat `paused` and unknown tool statuses as non-terminal.', 'Preview digest §4; [D11]', ''),  # noqa: E501
)
# fmt: on

UncheckedKind = Literal[
    "view",
    "permission",
    "covered",
    "agent-internal",
    "client-internal",
    "one connection",
    "no deadline",
]
#: Why a rule can be out of `check_trace`'s reach, kind -> what the kind means.
UNCHECKED_KINDS: Final[Mapping[UncheckedKind, str]] = MappingProxyType(
    {
        "view": "binds what a client stores, shows or counts; none of it travels on the wire",
        "permission": "a MAY: a recording can show it used, never broken",
        "covered": "its trace-visible part is reported under another rule's id",
        "agent-internal": "needs the agent's own knowledge, which no message carries",
        "client-internal": "needs the client's own knowledge, which no message carries",
        "one connection": "concerns more than the one connection a recording holds",
        "no deadline": "the rule sets no point by which it must be done, so no prefix breaks it",
    }
)

#: The official kit's requirement (acp-tck) for the Preview rules whose section cites one: the
#: kit column of these rows, kept by id as `UNCHECKED` is (the rows have no such column).
KIT_IDS: Final[Mapping[str, str]] = MappingProxyType(
    {"R63": "ACP-RESUME-205", "R64": "ACP-RESUME-204", "R76": "ACP-CLOSE-202"}
)

# fmt: off
#: Why each Preview rule `check_trace` does not report is beyond a recording (a rule it
#: reports has no entry here; tests/test_rules.py keeps both true).
UNCHECKED: Final[Mapping[str, tuple[UncheckedKind, str]]] = MappingProxyType({
    "R51": ("no deadline", "a mirror may lag the child's own report or be skipped (SHOULD); no recording tells a late mirror from a missing one"),  # noqa: E501
    "R55": ("permission", "showing a message in both transcripts, and cross-linking them, is optional"),  # noqa: E501
    "R69": ("one connection", "keys must outlive a reconnect; a recording is one connection, and how long the agent keeps a message is its own"),  # noqa: E501
    "R77": ("agent-internal", "whether foreground activity became unobservable is the agent's knowledge; what a recording shows of the rest (cancelled work that never ends `cancelled`, withdrawals owed) is R21's, R7's, R71's and R72's, which the checker judges across an `unknown` state (tests/test_check_preview_b.py)"),  # noqa: E501
    "C27": ("view", "registering the child under the envelope's session is the client's view (the engines' tests show it)"),  # noqa: E501
    "C28": ("view", "which view a child's traffic lands in is the client's"),
    "C30": ("view", "understanding session messages is the client's reducer"),
    "C31": ("view", "how a client reads `state: null` is its view"),
    "C32": ("view", "idempotent duplicate state reports are the client's reducer"),
    "C33": ("view", "diagnosing and bucketing unannounced traffic is the client's view; the agent's side of it is R47, J3"),  # noqa: E501
    "C35": ("covered", "its restriction (only while the child advertises `capabilities.cancel`) is C29's check; sending the cancel is a MAY"),  # noqa: E501
    "C36": ("view", "what a client counts as history is its view"),
    "C37": ("view", "marking a replay truncated is the client's view"),
    "C38": ("view", "what a client counts as a new completion or usage is its view"),
    "C39": ("view", "resetting a message on a replayed upsert is the client's reducer"),
    "C42": ("client-internal", "which prompts are attempts of one user submission is the client's knowledge; two equal prompts may be two submissions"),  # noqa: E501
    "C44": ("view", "binding a retry by its messageId, without a second user message, is the client's view"),  # noqa: E501
    "C45": ("client-internal", "whether a prompt is an automatic retry of a lost response or a new submission is the client's knowledge"),  # noqa: E501
    "C46": ("view", "deleting a removed plan is the client's reducer"),
    "C47": ("view", "rendering markdown plans is the client's view"),
    "C48": ("view", "what a client presents as the current state is its view"),
    "C49": ("view", "what a client concludes from an unknown background item is its view"),
    "C50": ("view", "using the background list (and warning before a close) is the client's UI"),
    "C51": ("view", "how a client stores and shows suggestions is its view; whether it shows them at all is its own knowledge"),  # noqa: E501
    "C52": ("view", "what a client infers from a `session` content item is its view"),
    "C53": ("view", "the stored compaction status is the client's reducer"),
    "C54": ("view", "applying MetaPatch is the client's reducer"),
    "C55": ("view", "dropping a closed parent's children is the client's view"),
    "C56": ("view", "reading `paused` and unknown tool statuses as non-terminal is the client's view"),  # noqa: E501
})
# fmt: on
