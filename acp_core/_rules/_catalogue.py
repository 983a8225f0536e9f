"""The rule catalogue: every obligation of ACP v2 that acp-core enforces, reports or documents.

Owns: `Rule`, `RULES` (id -> Rule) and `rules_markdown()`, the text of `docs/rules.md`; each
rule's revision scope (`Rule.since`, `Rule.until`), declared to the revisions at import
(`_wire._revision.declare_rule_scopes`: `Revision.applies` answers from it, `_wire` cannot
import this module); and the registry the checker declares what it decides into
(`declare_checked`).
Must not know: how a rule is checked (`_rules/_check.py`) or enforced (the engines); wire values.

Which rules `check_trace` reports (`Rule.checked`, the `checked` column) is what the checker
declares (`_check.py` collects its guards' and message checks' rule ids and calls
`declare_checked` when it is loaded; `_rules/__init__.py` loads it with the first rule-layer
module), so it cannot drift from what is tested and this module imports no checker.

Theory of operation. The agent engine raises `LocalProtocolError(rule_id)` when an intent
would break a rule, the trace checker reports `Violation(rule_id, ...)` when a recorded
conversation breaks one, and `docs/rules.md` is generated from this table, so the three can
only disagree by naming a rule that is not here (tests make that impossible).

Ids are stable and never reused:
- `R1`..`R46`: agent-side rules, `C1`..`C26`: client-side rules, numbered as in section 4 of
  the requirements digest (docs/acp-v2-digest.md in the shared folder).
- `D1`, `J1`, `J2`, `S1`, `S2`: rules the checker needs that the digest states elsewhere
  (decoding, JSON-RPC framing, the unusual transitions of its section 5.2).
- `E0`..`E4`: policies of the engines (what they refuse beyond the R and C rules).
Levels are RFC 2119 words. Where the digest gives no keyword ("—", "normative", a checklist
item) the level chosen here is said in `note`. Where the docs say MUST and the schema's
description says SHOULD (the stop reason on a turn-ending idle), the docs win (digest Q1).
`kit_id` names the official conformance kit's requirement (agentclientprotocol/acp-tck,
`src/tck/v2/requirements.py`) that tests the same obligation, where there is one. The kit's
STATE-203 allows five stop reasons; 2026-11 and the Preview add `error` (said in docs/rules.md).
"""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Final, Literal

from acp_core._errors import AcpError, ArgumentError
from acp_core._wire._fields import BASE_REVISION
from acp_core._wire._revision import Revision, RuleScope, declare_rule_scopes, revision_argument
from acp_core._wire._value import frozen

from ._catalogue_preview import KIT_IDS, PREVIEW_ROWS, UNCHECKED, UNCHECKED_KINDS, UncheckedKind
from ._severity import CLASSES, SPEC_TAGS

__all__ = [
    "LEVELS",
    "RULES",
    "SIDES",
    "UNCHECKED_KINDS",
    "Level",
    "Rule",
    "Side",
    "UncheckedKind",
    "declare_checked",
    "rules_markdown",
    "side_argument",
]

Level = Literal["MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY"]
Side = Literal["agent", "client", "both"]


def side_argument(side: object, function: str) -> None:
    """Refuse a `side=` that is neither None, `"agent"` nor `"client"` (a typo would judge
    no side's rules and pass a trace that breaks them).

    Raises:
        ArgumentError: it is not one of them.
    """
    if side is not None and side not in ("agent", "client"):  # a tuple: `side` may not hash
        msg = f"{function}: side must be None, 'agent' or 'client', not {side!r:.40}"
        raise ArgumentError(msg)


#: The RFC 2119 levels a rule may have; MUST and MUST NOT decide conformance.
LEVELS: Final[tuple[Level, ...]] = ("MUST", "MUST NOT", "SHOULD", "SHOULD NOT", "MAY")
#: Who a rule binds.
SIDES: Final[tuple[Side, ...]] = ("agent", "client", "both")


@frozen
class Rule:
    """One obligation of the protocol.

    Attributes:
        id: stable id (`R4`, `C15`, `D1`, ...).
        level: `MUST`, `MUST NOT`, `SHOULD`, `SHOULD NOT` or `MAY`.
        side: who it binds: `agent`, `client` or `both`.
        summary: the rule in one line.
        section: where the spec says it (the digest's source tags; see `docs/rules.md`).
        kit_id: the official conformance kit's requirement id, or None.
        also_kit_ids: the kit's other requirements this rule's finding decides whole (a kit
            requirement that restates a rule of another kit id: CANCEL-205 is J1's on a
            cancel); `kit_ids` is both.
        note: why the level or the reading differs from the plain text, if it does.
        unchecked: for a rule `check_trace` does not report, why a recording cannot show
            it: `(kind, reason)`, the kind one of `UNCHECKED_KINDS` (Preview rules carry
            one each). None: no reason given.
        since: the revision the rule comes with (`Revision.applies` is true in it and every
            revision built on it), or None: it applies from the base revision on.
        until: the last revision the rule applies to, or None: every later one too.
    """

    id: str
    level: Level
    side: Side
    summary: str
    section: str
    kit_id: str | None = None
    note: str = ""
    unchecked: tuple[UncheckedKind, str] | None = None
    since: str | None = None
    until: str | None = None
    also_kit_ids: tuple[str, ...] = ()

    @property
    def kit_ids(self) -> tuple[str, ...]:
        """Every kit requirement this rule decides: `kit_id`, then `also_kit_ids`."""
        return (self.kit_id, *self.also_kit_ids) if self.kit_id else self.also_kit_ids

    @property
    def checked(self) -> bool:
        """Whether `check_trace` reports breaches of it: what the checker declares it
        decides (its guards and message checks), never kept by hand."""
        return self.id in _decided()

    @property
    def checked_by(self) -> tuple[str, ...]:
        """The functions (`module:function`) that decide this rule in `check_trace`, as the
        checker declares them (`_rules/_deciders.py`); empty for a rule it does not report."""
        return _decided().get(self.id, ())

    @property
    def mandatory(self) -> bool:
        """True for MUST and MUST NOT: breaking it makes an implementation non-conformant."""
        return self.level in ("MUST", "MUST NOT")


_CHECKLIST: Final = (
    "the digest lists it as a checklist item without a keyword; catalogued as SHOULD"
)
_NORMATIVE: Final = "the digest marks it normative without a keyword; catalogued as MUST"

# fmt: off
_AGENT: Final[tuple[Rule, ...]] = (
    Rule("R1", "MUST", "agent", "Answer `session/prompt` as soon as the prompt is accepted; the result is `{}` (only `_meta` besides), and it is not a completion signal.", "PL §2, SCH PromptResponse, MG", "ACP-PROMPT-201", note="In the 2026-11 draft the result carries the user message's `messageId` instead; the checker follows the revision it is given."),  # noqa: E501
    Rule("R2", "MUST", "agent", "After accepting a prompt, report where the user message landed, with `user_message` or `user_message_chunk`s, before the turn ends.", "PL §2, MG", "ACP-PROMPT-203"),  # noqa: E501
    Rule("R3", "MUST", "agent", "The agent generates the user message's `messageId` (it owns all message ids); clients never mint protocol message ids.", "PL §2, RFD:message-id"),  # noqa: E501
    Rule("R4", "MUST", "agent", "Every message upsert and message chunk (user, agent, thought) carries a non-null opaque `messageId`.", "PL Message IDs, MG, RFD:message-id", "ACP-PATCH-201"),  # noqa: E501
    Rule("R5", "MUST", "agent", "A message id names one message: unique within the session, shared by all its chunks, never reused for a message of another role.", "RFD:message-id, SS", "ACP-PATCH-203"),  # noqa: E501
    Rule("R6", "MUST", "agent", "Send `state_update` `running` whenever foreground work starts or resumes (prompt-driven or agent-initiated).", "PL §3", "ACP-STATE-201"),  # noqa: E501
    Rule("R7", "MUST", "agent", "Send `state_update` `idle` when ready to process a new prompt.", "PL §4", "ACP-STATE-202"),  # noqa: E501
    Rule("R8", "MUST", "agent", "The idle update that ends foreground work carries the matching `stopReason`.", "PL §4 and Stop Reasons, SCH IdleStateUpdate", "ACP-STATE-203", note="The docs say MUST, the schema's field description says SHOULD; the docs win (digest Q1). The kit's ACP-STATE-203 also demands one of its five defined stop reasons (or `_`); acp-core deliberately judges the value by the revision it is given, so under 2026-11 and Preview the sixth, `error` (an `ErrorStopReason`), passes too: the kit pins the 2025 set, the later revisions add it."),  # noqa: E501
    Rule("R9", "MAY", "agent", "Stop foreground work at any time with idle and a stop reason.", "PL §4"),  # noqa: E501
    Rule("R10", "MAY", "agent", "Ask for permission with `session/request_permission` before acting.", "PL §5, TC"),  # noqa: E501
    Rule("R11", "SHOULD", "agent", "Report `requires_action` while foreground work is blocked on a permission answer or other user action.", "PL §5, MG", "ACP-PATCH-209"),  # noqa: E501
    Rule("R12", "SHOULD", "agent", "Report `running` again when blocked work resumes.", "PL §5, MG", "ACP-PATCH-209"),  # noqa: E501
    Rule("R13", "SHOULD", "agent", "Report a model-requested tool invocation with `tool_call_update`, immediately.", "TC Reporting, PL §3"),  # noqa: E501
    Rule("R14", "SHOULD", "agent", "Include `title` the first time a `toolCallId` is reported.", "TC, MG", "ACP-PATCH-208"),  # noqa: E501
    Rule("R15", "SHOULD", "agent", "After permission is granted (if needed), run the tool and mark it `in_progress`.", "PL §5"),  # noqa: E501
    Rule("R16", "MAY", "agent", "Stream complete tool-content items with `tool_call_content_chunk`; send the final status (and content) with `tool_call_update`.", "PL §5, TC"),  # noqa: E501
    Rule("R17", "MUST NOT", "agent", "Send display-terminal bytes through `tool_call_content_chunk`; they go through `terminal_output_chunk`.", "PL §5, TC", note="Implied by the text rather than stated with a keyword."),  # noqa: E501
    Rule("R18", "MUST", "agent", "Custom values of open enums (stop reasons, tool kinds and statuses, plan types, entry priorities and statuses, permission option kinds, content block types, config option and command input types) start with `_`.", "PL, TC, AP, CT, CO, SS", "ACP-ENUM-201", also_kit_ids=('ACP-CANCEL-207',)),  # noqa: E501
    Rule("R19", "MUST NOT", "agent", "Invent non-`_` values anywhere an enum or union is open (`sessionUpdate`, `state`, tool content `type`, ...): unknown non-`_` values belong to future ACP.", "EX", "ACP-ENUM-202", note="The checker reports R18 at the sites R18 names and R19 at the other open sites."),  # noqa: E501
    Rule("R20", "SHOULD", "agent", "On `session/cancel`, stop model requests and tool invocations as soon as possible.", "PL Cancellation", "ACP-CANCEL-204"),  # noqa: E501
    Rule("R21", "MUST", "agent", "After `session/cancel`, abort, flush pending updates, then end the work with idle and `stopReason: \"cancelled\"`.", "PL Cancellation, MG", "ACP-CANCEL-201", also_kit_ids=('ACP-CANCEL-206', 'ACP-CANCEL-207')),  # noqa: E501
    Rule("R22", "MUST", "agent", "Report cancellation as `cancelled` on the idle update, never as an error (catch what aborted operations throw).", "PL Cancellation (warning)", "ACP-CANCEL-203"),  # noqa: E501
    Rule("R23", "MUST", "agent", "Updates sent after receiving `session/cancel` are allowed, but all of them precede the idle+`cancelled` update.", "PL Cancellation", "ACP-CANCEL-202", note="The digest says MAY / MUST: sending them is allowed, their order is required."),  # noqa: E501
    Rule("R24", "MUST", "agent", "`session/close` cancels ongoing work as if `session/cancel` had been received, frees the session and answers `{}` (it MAY error for unknown sessions).", "SS", "ACP-CANCEL-208"),  # noqa: E501
    Rule("R25", "MUST NOT", "agent", "Treat an unknown permission outcome as approval.", "TC, SCH"),
    Rule("R26", "MUST", "agent", "A permission request has a `title` and at least one option, keeps prompt copy in `title`/`description`, and a `command` subject has `command` and an absolute `cwd`.", "TC, MG, SCH", "ACP-PERM-201"),  # noqa: E501
    Rule("R27", "SHOULD", "agent", "Report plans with `plan_update` and progress by resending the same `planId`.", "AP"),  # noqa: E501
    Rule("R28", "MUST", "agent", "An `items` plan update carries the complete entry list with current statuses.", "AP"),  # noqa: E501
    Rule("R29", "MUST", "agent", "Every plan variant, custom and future ones included, carries `planId`.", "AP", "ACP-PATCH-205"),  # noqa: E501
    Rule("R30", "MAY", "agent", "Add, drop or change plan entries as work evolves.", "AP"),
    Rule("R31", "MUST", "agent", "A `terminalId` is unique within the session, stable for the terminal's life and never reused for another terminal.", "TC"),  # noqa: E501
    Rule("R32", "SHOULD", "agent", "Give `command` on the first `terminal_update` of a terminal that runs a command.", "TC"),  # noqa: E501
    Rule("R33", "MUST", "agent", "A terminal `cwd`, when given, is an absolute path.", "TC", "ACP-PATCH-206"),  # noqa: E501
    Rule("R34", "MUST", "agent", "`output.data` is RFC 4648 base64 of the complete bytes to keep; each `terminal_output_chunk.data` is base64 of that chunk alone.", "TC", "ACP-PATCH-207"),  # noqa: E501
    Rule("R35", "MUST NOT", "agent", "Put two order-dependent terminal updates or chunks for the same `terminalId` in one JSON-RPC batch.", "RFD:terminal-output"),  # noqa: E501
    Rule("R36", "SHOULD", "agent", "Give a `git_patch` on diffs when feasible; it MUST agree with `changes`, use absolute paths and carry no commit metadata or mail envelope.", "TC"),  # noqa: E501
    Rule("R37", "MAY", "agent", "Send `usage_update` (with non-null `used` and `size`, and `cost` as `amount` plus ISO 4217 `currency`), but not without a meaningful `size`.", "PL Session Usage Updates, RFD:session-usage"),  # noqa: E501
    Rule("R38", "MUST", "agent", "On `session/resume` with `replayFrom: {type: \"start\"}`, replay the whole conversation as `session/update`s, each message with a unique id, before responding.", "SS", "ACP-RESUME-202"),  # noqa: E501
    Rule("R39", "MUST NOT", "agent", "Replay history when `replayFrom` is omitted or `null`.", "SS", "ACP-RESUME-203"),  # noqa: E501
    Rule("R40", "MAY", "agent", "Keep sending updates for background activity while idle; they do not change the reported state.", "PL Session States, TC"),  # noqa: E501
    Rule("R41", "MUST", "agent", "`config_option_update` and `session/set_config_option` responses carry the complete option set, every option with a current value.", "CO", "ACP-CONFIG-206", note="Whether a select option's current value is one of its values is J61's; whether every option the session reported before is still in a set answer is J62's."),  # noqa: E501
    Rule("R42", "MAY", "agent", "Send `available_commands_update` (the full list) after session creation and whenever the commands change.", "SC"),  # noqa: E501
    Rule("R43", "MUST NOT", "agent", "Add custom keys at the root of spec types (use `_meta`); `traceparent`, `tracestate`, `baggage` in `_meta` SHOULD stay reserved for W3C trace context.", "EX", "ACP-SCHEMA-002"),  # noqa: E501
    Rule("R44", "SHOULD NOT", "both", "Batch `session/prompt` or other lifecycle-sensitive requests (`initialize`, `auth/login`, `session/new`, `session/resume`).", "TR", "ACP-BATCH-208", note="Listed with the agent rules in the digest; it binds whoever sends the batch."),  # noqa: E501
    Rule("R45", "MUST", "agent", "Keep stdout pure ACP on stdio; paths are absolute; line numbers are 1-based.", "TR, OV", "ACP-TRANSPORT-201"),  # noqa: E501
    Rule("R46", "SHOULD NOT", "agent", "Replay `notice` updates (unstable); a notice never carries information needed for correctness.", "DR prompt-lifecycle, DR session-setup", note="Unstable (draft) feature."),  # noqa: E501
)

_CLIENT: Final[tuple[Rule, ...]] = (
    Rule("C1", "MUST", "client", "Finish `initialize` and session setup before sending prompts.", "PL"),  # noqa: E501
    Rule("C2", "MUST", "client", "Send only prompt content types the negotiated prompt capabilities allow (`text` and `resource_link` always).", "PL §1, SCH", note="Judged from the recording's `initialize` on (the agent's `capabilities.session.prompt` markers); a block of an unknown type is not judged. What the agent then does with the content is not prescribed (J70-J72 judge only advertised content)."),  # noqa: E501
    Rule("C3", "SHOULD", "client", "Do not treat the `session/prompt` result as turn completion; drive the UI from `state_update` and take the stop reason from the idle update.", "MG client checklist #3", note=_CHECKLIST),  # noqa: E501
    Rule("C4", "SHOULD", "client", "Render the user's message from the agent's user-message update (its `messageId` is canonical).", "MG client checklist #3", note=_CHECKLIST),  # noqa: E501
    Rule("C5", "MUST", "client", "Apply message upserts and chunks per `messageId` in receive order (content replace, chunk append, `_meta` patch).", "PL Message IDs, SS", note=_NORMATIVE),  # noqa: E501
    Rule("C6", "MUST", "client", "Compare message ids as opaque strings; never parse them.", "RFD:message-id", note="MUST in the message-id RFD."),  # noqa: E501
    Rule("C7", "MUST", "client", "Create a tool call on its first-seen `toolCallId`, apply patches, append content chunks, and let a `content`-bearing update replace accumulated content.", "TC, MG client checklist #5", note=_NORMATIVE),  # noqa: E501
    Rule("C8", "MUST", "client", "Keep terminal state from a first-seen `terminalId`; the reference and the updates may come in any order.", "TC", note=_NORMATIVE),  # noqa: E501
    Rule("C9", "MUST NOT", "client", "Merge or splice old bytes into a new terminal `output` snapshot.", "TC"),  # noqa: E501
    Rule("C10", "MUST NOT", "client", "Concatenate base64 chunk strings before decoding; decode each chunk alone, append in order, keep parser state across chunks.", "TC"),  # noqa: E501
    Rule("C11", "SHOULD", "client", "Render display terminals in an isolated emulator or a sanitized transcript, with no process controls.", "MG client checklist #6", note=_CHECKLIST),  # noqa: E501
    Rule("C12", "MUST", "client", "Handle diffs whose `patch` is missing or `null`; drive file lists from `changes`.", "TC"),  # noqa: E501
    Rule("C13", "MUST", "client", "Replace a plan's contents completely on each `plan_update` for its `planId`.", "AP"),  # noqa: E501
    Rule("C14", "SHOULD", "client", "On sending `session/cancel`, immediately show the unfinished tool calls of the current work as `cancelled`.", "PL Cancellation"),  # noqa: E501
    Rule("C15", "MUST", "client", "When cancelling, answer every pending `session/request_permission` with the `cancelled` outcome.", "PL, TC", until=BASE_REVISION, note="Applies in 2026-08 only: C40 replaces it from 2026-11 on (Preview digest 4.3)."),  # noqa: E501
    Rule("C16", "SHOULD", "client", "Keep accepting tool-call and other updates after sending `session/cancel`; wait for idle + `cancelled` as confirmation.", "PL, MG client checklist #13"),  # noqa: E501
    Rule("C17", "SHOULD", "client", "Keep accepting background updates while idle.", "MG client checklist #3", note=_CHECKLIST),  # noqa: E501
    Rule("C18", "SHOULD", "client", "Preserve unknown enum values, unknown variants and `_meta` when storing, replaying or proxying; fall back to generic UI.", "EX, MG client checklist #14"),  # noqa: E501
    Rule("C19", "MUST NOT", "client", "Treat unknown non-`_` values as extensions.", "EX"),
    Rule("C20", "SHOULD", "client", "Reject malformed payloads of known discriminators instead of routing them to the unknown fallback; keep omitted, `null` and value apart.", "MG SDK checklist #2-#3", note=_CHECKLIST),  # noqa: E501
    Rule("C21", "SHOULD", "client", "Render permission `title`/`description`; apply `tool_call` subjects as tool-call updates; render `command` subjects; prompt generically for absent or unknown subjects.", "MG client checklist #8, TC", note=_CHECKLIST),  # noqa: E501
    Rule("C22", "MAY", "client", "Auto-allow or auto-reject permission requests per user settings.", "TC"),  # noqa: E501
    Rule("C23", "MUST", "client", "Handle missing or unknown config categories gracefully (they never affect correctness), keep option order, and preserve (else ignore) unknown option types.", "CO"),  # noqa: E501
    Rule("C24", "SHOULD", "client", "Use `session/resume` (with `replayFrom: {type: \"start\"}` for history) instead of v1 `session/load`.", "MG client checklist #11", note=_CHECKLIST),  # noqa: E501
    Rule("C25", "MUST NOT", "client", "Respond to notifications (`session/update`, `session/cancel`, custom `_` notifications), or to a request id the agent never sent.", "OV, TR"),  # noqa: E501
    Rule("C26", "SHOULD", "client", "Ignore unrecognized custom notifications; answer unknown custom requests with `-32601`.", "EX"),  # noqa: E501
)

_PROMPT_CONTENT: Final = (
    "Judged from the recording's `initialize` on, for a prompt on a session the recording set up "
    "whose every block is baseline or advertised; what the agent does with content it did not "
    "advertise is not prescribed (the client broke C2), and the kit does not test it either. "
    "Only `-32602` is judged: other refusals (an unknown session, authentication, an internal "
    "error) say nothing about the content."
)

_CHECKER: Final[tuple[Rule, ...]] = (
    Rule("D1", "MUST", "both", "Every message is a JSON-RPC 2.0 message (or non-empty batch) that decodes under the v2 schema; a known tag with a bad payload is invalid, not unknown.", "§1.1, §1.8, SCH", "ACP-PROMPT-205", note="Also reported for a trace line that is not a `{from, message}` entry. A client's empty batch is none: the transports page asks a sender for at least one entry with SHOULD, and JSON-RPC 2.0 defines its answer (J39)."),  # noqa: E501
    Rule("J1", "MUST NOT", "agent", "Respond to a notification, to a request id the client never sent, or twice to one request (the agent-side twin of C25).", "§1.1, OV, TR", "ACP-JSONRPC-003", also_kit_ids=('ACP-CANCEL-205',)),  # noqa: E501
    Rule("J2", "MUST", "both", "Known methods keep their direction and form: `session/prompt` (client) and `session/request_permission` (agent) are requests with an id not already in use; `session/resume` and `session/close` are the client's requests; `session/update` (agent) and `session/cancel` (client) are notifications.", "§1.2-§1.5, SCH"),  # noqa: E501
    Rule("J3", "MUST", "agent", "Name only a session that exists on the connection (in `session/update`, `session/request_permission` and every other agent message with a `sessionId`): one a `session/new` or `session/fork` answer gave, one the client resumed, or (Preview) a child a `subagent_update` announced.", "§1.3, §3.12, Q12", note="Judged when the recording starts with `initialize` (a recording that starts later cannot show its setup); an update racing an unanswered `session/new` is not flagged (Q12), one after `session/close` is R24's; J3 wins over R47: a later `subagent_update` announcing the id adds no R47 for that envelope (one finding per fault)."),  # noqa: E501
    Rule("J4", "MUST", "agent", "Give every session a `session/new` or `session/fork` answer creates an id no session of the connection already has.", "SS, SCH SessionId", "ACP-SESSION-002", note="The kit asks two `session/new` answers for distinct ids; the checker judges every creating answer against every session the recording set up (from the client's `initialize` on, as J3)."),  # noqa: E501
    Rule("J5", "MUST", "agent", "Answer `initialize` with `info`: an object with a non-empty `name` and `version` (`title` optional).", "SCH InitializeResponse, MG", "ACP-INIT-203"),  # noqa: E501
    Rule("J6", "MUST", "agent", "Advertise capabilities as objects: `capabilities` and every marker in it (`session`, `auth` and what they nest) is an object or absent, never a boolean.", "MG, SCH AgentCapabilities", "ACP-INIT-204"),  # noqa: E501
    Rule("J7", "SHOULD", "agent", "Give every advertised auth method its own `methodId`.", "SCH AuthMethod", "ACP-AUTH-201", note="The schema calls the id unique without a keyword; the kit judges it as a SHOULD."),  # noqa: E501
    Rule("J8", "MUST NOT", "agent", "Advertise a `terminal` auth method unless the client's `initialize` enabled `capabilities.auth.terminal`.", "SCH AuthMethodTerminal", "ACP-AUTH-202"),  # noqa: E501
    Rule("J9", "MUST", "agent", "Describe a `terminal` auth method's launch well: `args` an array of strings, `env` an array of `{name, value}` strings with unique names.", "SCH AuthMethodTerminal, EnvVariable", "ACP-AUTH-207"),  # noqa: E501
    Rule("J10", "MUST", "agent", "Give an auth method a `type` the schema defines (`agent`, `terminal`) or a custom `_` value.", "EX, SCH AuthMethod", "ACP-AUTH-206"),  # noqa: E501
    Rule("J11", "SHOULD", "agent", "Word an error answer's `message` as one non-empty line.", "OV, SCH Error", "ACP-ERROR-001", note="The kit also asks `data` to be well-formed JSON; a decoded message always is."),  # noqa: E501
    Rule("J31", "MUST", "agent", "Answer `initialize` with a result, never an error: the handshake succeeds whatever version is asked (an agent that lacks it answers its own latest).", "MG, SCH InitializeResponse", "ACP-INIT-001", note="An error to a request for version 1 is J33's (one finding per fault)."),  # noqa: E501
    Rule("J32", "MUST", "agent", "Answer `initialize` with an integer `protocolVersion` (0..65535): the requested version if supported, else the agent's own latest, never a version ACP does not define echoed back.", "MG, SCH InitializeResponse, ProtocolVersion", "ACP-INIT-201", note="One recording shows one handshake: the checker judges the type and an echo of a version beyond 2; the kit also compares two handshakes of one agent."),  # noqa: E501
    Rule("J33", "MUST", "agent", "Answer an `initialize` that asks for protocol version 1 with a result whose `protocolVersion` is 1, or 2 for an agent without version 1.", "MG, SCH InitializeResponse", "ACP-INIT-202"),  # noqa: E501
    Rule("J34", "SHOULD", "agent", "Answer a request for a method no ACP schema defines (not `_` or `$/`) with error -32601 (method not found).", "EX, SCH ErrorCode", "ACP-JSONRPC-004", note="A `_` method may be one the agent implements, so only methods no schema (v1, v2, drafts, unstable) names are judged."),  # noqa: E501
    Rule("J35", "MUST", "agent", "Answer every `_` request of the client, with a result or an error of any code.", "EX", "ACP-EXT-001", note="Only the end of a recording shows a request never answered, so it is a warning there (as R7): the recording may stop first."),  # noqa: E501
    Rule("J36", "SHOULD NOT", "agent", "Answer a `_` notification: one the agent does not recognize is ignored.", "EX", "ACP-EXT-201", note="A reply names no notification; a response to no request right after a client `_` notification is taken as its reply (as the kit does), and named here instead of J1."),  # noqa: E501
    Rule("J37", "MUST", "both", "Answer a request with its own `id`, echoed exactly: the same value of the same type (`1` is not `\"1\"`), in a batch's reply array too.", "OV, TR, JSON-RPC 2.0 §5", "ACP-JSONRPC-001", note="Judged when an answer names no pending request but would with its id's type changed; it then answers that request (one finding per fault, not J1 or C25 too)."),  # noqa: E501
    Rule("J38", "MUST", "both", "Make a response carry exactly one of `result` and `error`, an error an integer `code` and a string `message`.", "OV, SCH, JSON-RPC 2.0 §5", "ACP-JSONRPC-002", note="Named instead of D1 for a response that does not decode for that reason; a response with both members decodes (its `result`) and is named too. Inside a batch a bad entry stays D1's."),  # noqa: E501
    Rule("J39", "MUST", "agent", "Answer an empty batch (`[]`) with one -32600 (invalid request) error object with a null `id`, never with an array.", "TR, JSON-RPC 2.0 §6", "ACP-BATCH-201", note="Named instead of D1 when the answer is itself an empty array; a recording that ends first gives a warning."),  # noqa: E501
    Rule("J40", "MUST NOT", "agent", "Reply to a batch of notifications only: it gets no response at all, not even an empty array.", "TR", "ACP-BATCH-202", note="Named instead of D1 (an empty array) or J1 (a response to no request)."),  # noqa: E501
    Rule("J41", "SHOULD", "agent", "Answer each invalid entry of a non-empty batch with its own -32600 error with a null `id`, without failing the batch's valid entries.", "TR", "ACP-BATCH-203", note="The transports page gives no keyword; the kit judges it as a SHOULD."),  # noqa: E501
    Rule("J42", "SHOULD", "agent", "Answer a batch holding requests with one array of their responses, sent when all of them are done.", "TR, JSON-RPC 2.0 §6", "ACP-BATCH-204"),  # noqa: E501
    Rule("J43", "SHOULD", "agent", "Make a batch's reply array answer the requests of that batch only, each once, matched by `id` (in any order).", "TR", "ACP-BATCH-205", note="The kit's requirement is the client's (match by id, never by position); what a recording shows is the agent's array naming the batch's ids."),  # noqa: E501
    Rule("J44", "SHOULD", "agent", "Accept a `session/prompt` that carries `_meta`: never refuse it as invalid params (-32602) for that.", "EX", "ACP-META-001", note="Judged on an error -32602 to a prompt whose params carry a `_meta` object; other refusals have other causes."),  # noqa: E501
    Rule("J45", "MUST", "agent", "Send every `_meta` as a JSON object or `null`, never a string, number, boolean or array.", "EX, SCH (every `_meta` is object or null)", "ACP-META-201", note="Judged at every `_meta` the decoder types (updates, permission requests: its findings there are J45s, not D1s) and anywhere in the JSON it leaves untyped (results, error data, other methods' params; not inside a `_meta`, which is free-form), once per message. The kit grades it ADVISORY; the schema types every `_meta` object or null, so a breach is a schema violation (MUST), as D1 was."),  # noqa: E501
    Rule("J46", "SHOULD", "agent", "Advertise custom capabilities in `capabilities._meta` of the `initialize` answer, never as a key of `capabilities` the schema does not define.", "EX Advertising custom capabilities, SCH AgentCapabilities", "ACP-EXT-202", note="Keys only the unstable schema defines (`positionEncoding`) are not custom."),  # noqa: E501
    Rule("J47", "MUST", "agent", "Answer `initialize` with a result the schema's InitializeResponse accepts: an object, `info.title` a string or null, `authMethods` an array of auth methods with string `methodId`, `name` and `type` (beyond what J5-J10, J32, J45, J46 name).", "SCH InitializeResponse, AuthMethod", "ACP-SCHEMA-001", note="D1 decodes every message's envelope, not a response's result (which method it answers is the conversation's): this is the initialize answer's result. Judged for a version 2 answer only, as the kit skips a version mismatch; one finding per answer."),  # noqa: E501
    Rule("J30", "MUST", "agent", "Answer a successful `session/new` or `session/fork` with the new session's id: a non-empty string `sessionId`.", "SS, SCH NewSessionResponse, SessionId", "ACP-SESSION-001", note="Judged when the recording starts with `initialize` (as J3, J4); an error answer is not judged (an agent may refuse a session, e.g. before authentication). The kit also asks the response to validate, which D1 judges for every message."),  # noqa: E501
    Rule("J50", "MUST", "agent", "Answer a successful `session/list` with a page: `sessions` an array of `SessionInfo` objects (each with a string `sessionId` and `cwd`) and `nextCursor`, when given, a string or `null`.", "SCH ListSessionsResponse, SessionInfo, SessionListCursor", "ACP-LIST-201", note="The kit also asks the list to succeed; an error answer is not judged (a recording cannot tell why it was refused)."),  # noqa: E501
    Rule("J51", "MUST", "agent", "Answer a `session/list` filtered by `cwd` only with sessions whose `cwd` is that directory.", "SCH ListSessionsRequest", "ACP-LIST-203", note="Compared after normalizing both paths (a trailing separator, `.` segments): the schema lets agents normalize paths when comparing."),  # noqa: E501
    Rule("J52", "MUST", "agent", "Report a listed session's `cwd`, and each of its `additionalDirectories`, as an absolute path.", "SCH SessionInfo, OV", "ACP-LIST-204", note="The kit judges `cwd` only; the schema says the same of every additional directory."),  # noqa: E501
    Rule("J53", "MUST", "agent", "Answer `session/close` of a session that is open on the connection with a result, not an error.", "SS, SCH CloseSessionResponse", "ACP-CLOSE-201", note="Judged for the sessions the recording shows set up (a successful `session/new`, `session/fork`, `session/resume` or `session/load` answer) and not closed or deleted since; an unknown or inactive session MAY be refused (R24). That the result is `{}` is R24's."),  # noqa: E501
    Rule("J54", "MUST", "agent", "Answer `session/delete` of an existing session with `{}` (only `_meta` besides), not an error.", "SCH DeleteSessionResponse, SessionDeleteCapabilities", "ACP-DELETE-201", note="A non-empty result is judged always; an error only when the agent advertised `capabilities.session.delete` and the recording shows the session set up (as J53) and not deleted since."),  # noqa: E501
    Rule("J55", "MUST", "agent", "Once `session/delete` succeeded, leave the session out of every later `session/list` answer.", "SCH DeleteSessionRequest", "ACP-DELETE-202", note="Judged for a list asked after the delete was answered; a session set up again since (resumed) may be listed."),  # noqa: E501
    Rule("J56", "SHOULD", "agent", "Answer `session/delete` of a session already deleted or never created with success, not an error.", "SCH DeleteSessionRequest", "ACP-DELETE-203", note="Judged when the agent advertised `capabilities.session.delete`; a never-created session only when the recording starts with `initialize` (as J3)."),  # noqa: E501
    Rule("J57", "MUST", "agent", "Having advertised `capabilities.session.additionalDirectories`, accept the field on `session/new`: do not refuse a request whose `additionalDirectories` are absolute paths as invalid params.", "SS, SCH SessionAdditionalDirectoriesCapabilities", "ACP-ADDDIRS-201", note="The kit asks the request to succeed; acp-core judges only a -32602 (invalid params) answer to a request the field alone can make invalid (an absolute `cwd`, no MCP servers), since a recording cannot tell other refusals (authentication, a missing directory) from a rejected field."),  # noqa: E501
    Rule("J58", "MUST", "agent", "Having advertised `capabilities.session.additionalDirectories`, accept the field on `session/resume`: do not refuse a request whose `additionalDirectories` are absolute paths as invalid params.", "SS, SCH SessionAdditionalDirectoriesCapabilities", "ACP-ADDDIRS-202", note="As J57: only a -32602 answer is judged, and only for a session the recording set up (an unknown session may be refused -32602)."),  # noqa: E501
    Rule("J59", "MUST", "agent", "Give well-formed `configOptions` in a `session/new` or `session/fork` answer: each with `configId` and `name`, a `select` with a string `currentValue` and flat or grouped (never mixed) `options`, a `boolean` with a boolean `currentValue`.", "CO, SCH SessionConfigOption", "ACP-CONFIG-201", note="The kit judges `session/new`; a fork answer carries the same list. In updates the same shapes are D1's (they decode as messages)."),  # noqa: E501
    Rule("J60", "MUST", "agent", "Give well-formed `configOptions` in a `session/resume` answer, as J59 asks of `session/new`.", "SS, CO, SCH ResumeSessionResponse", "ACP-CONFIG-203"),  # noqa: E501
    Rule("J61", "MUST", "agent", "Give a `select` config option a `currentValue` that is one of its `options` values (flat or grouped), wherever options are reported: `session/new`, `session/fork`, `session/resume` and `session/set_config_option` answers and `config_option_update`.", "CO, SCH SessionConfigSelect", "ACP-CONFIG-204"),  # noqa: E501
    Rule("J62", "MUST", "agent", "Answer `session/set_config_option` with the complete option set: every `configId` the session last reported is still there.", "CO, SCH SetSessionConfigOptionResponse", "ACP-CONFIG-202", note="Judged against the last list the recording shows for the session (a session answer, `config_option_update` or an earlier set answer); the option the request set is R41's."),  # noqa: E501
    Rule("J63", "MUST", "agent", "Name a tool call with a non-empty `toolCallId` in `tool_call_update` and `tool_call_content_chunk`.", "TC, SCH ToolCallId", "ACP-PATCH-204", note="A chunk without `content` does not decode (D1)."),  # noqa: E501
    Rule("J64", "SHOULD", "agent", "Tolerate a custom `_` permission outcome: do not answer a prompt pending when it was given with -32602 (invalid params).", "EX", "ACP-ENUM-203", note="The kit also asks the turn to reach idle; a recording that ends first is R7's warning."),  # noqa: E501
    Rule("J70", "MUST", "agent", "Accept `image` prompt content after advertising `capabilities.session.prompt.image`: never refuse such a prompt as invalid (`-32602`).", "PL §1, SCH PromptCapabilities", "ACP-PROMPTCAP-001", note=_PROMPT_CONTENT),  # noqa: E501
    Rule("J71", "MUST", "agent", "Accept `audio` prompt content after advertising `capabilities.session.prompt.audio`: never refuse such a prompt as invalid (`-32602`).", "PL §1, SCH PromptCapabilities", "ACP-PROMPTCAP-002", note=_PROMPT_CONTENT),  # noqa: E501
    Rule("J72", "MUST", "agent", "Accept embedded `resource` prompt content after advertising `capabilities.session.prompt.embeddedContext`: never refuse such a prompt as invalid (`-32602`).", "PL §1, SCH PromptCapabilities", "ACP-PROMPTCAP-003", note=_PROMPT_CONTENT),  # noqa: E501
    Rule("J73", "SHOULD", "agent", "Accept the baseline prompt content: never refuse a prompt of `text` and `resource_link` blocks as invalid (`-32602`).", "PL §1, SCH PromptCapabilities, CT", "ACP-PROMPT-003", note="The schema makes `resource_link` baseline for every session agent, the content page requires only `text`; the kit judges it as a SHOULD, so does the catalogue. " + _PROMPT_CONTENT),  # noqa: E501
    Rule("J74", "MUST", "agent", "Accept `session/new` whether `mcpServers` is omitted or `[]` (the two are equivalent in v2): never refuse either form as invalid (`-32602`).", "MG, SCH NewSessionRequest", "ACP-SESSION-203", note="Judged from the recording's `initialize` on, for a request of only an absolute `cwd`, no or no MCP servers and `_meta` (any other field could be what the agent refuses); other refusals (authentication, an internal error) are not this rule's."),  # noqa: E501
    Rule("J75", "MUST", "agent", "Implement `session/resume` after advertising `capabilities.session` (it is a baseline method): never answer it `-32601` (method not found).", "SCH SessionCapabilities, SS", "ACP-RESUME-201", note="Judged from the recording's `initialize` on. The kit also asks a resume of a resumable session to succeed; which sessions can be resumed is the agent's knowledge, so other refusals are not judged."),  # noqa: E501
    Rule("J76", "MUST", "agent", "Implement `auth/logout` after advertising a non-empty `authMethods`: never answer it `-32601` (method not found).", "SCH LogoutAuthRequest", "ACP-AUTH-203", note="Judged from the recording's `initialize` on. The kit asks a successful logout; a recording cannot tell a refused logout from a failed one, so only `-32601` is judged."),  # noqa: E501
    Rule("J77", "MUST", "agent", "Honor `auth/login` with an advertised, non-`terminal` `methodId`: never answer it `-32601` (method not found), and once it succeeded never refuse `session/new` as unauthenticated (`-32000`).", "SCH LoginAuthRequest, AuthMethod", "ACP-AUTH-204", note="Judged from the recording's `initialize` on; a login that fails (bad credentials) is the agent's right and not judged."),  # noqa: E501
    Rule("J78", "SHOULD", "agent", "Do not refuse `session/new` as unauthenticated (`-32000`) after advertising no auth methods: the client has no way to authenticate.", "SCH ErrorCode, AuthMethod", "ACP-AUTH-205", note="Answering `-32000` is a MAY of the schema; with no auth method there is no remedy, and the kit judges it as a SHOULD. Judged from the recording's `initialize` on."),  # noqa: E501
    Rule("J79", "MUST NOT", "agent", "Send `elicitation/create` in a mode the client's `initialize` did not enable (`capabilities.elicitation.form`, `.url`); with no mode enabled, send none.", "SCH ClientCapabilities, ElicitationCapabilities", "ACP-CLIENTCAP-201", note="The kit asks no elicitation at all from a client enabling no mode; the capability gates each mode, so the checker judges the mode too. A custom `_` mode needs some mode enabled. Judged from the recording's `initialize` on."),  # noqa: E501
    Rule("J80", "MUST NOT", "agent", "Call a method no client defines: the agent's requests and notifications are the client's methods (`session/update`, `session/request_permission`, `elicitation/create`, `elicitation/complete`), `$/cancel_request` or custom `_` methods; v2 has no `fs/*` or `terminal/*` client methods.", "EX, MG, SCH", "ACP-CLIENTCAP-202", note="A known agent method sent in the wrong direction (`session/prompt`, `session/cancel`) is J2's."),  # noqa: E501
    Rule("S1", "SHOULD NOT", "agent", "Go from `idle` straight to `requires_action`: foreground work should start with `running`.", "§5.2", note="The mirror does not describe this transition; reducers accept it, the checker flags it as unusual."),  # noqa: E501
    Rule("S2", "SHOULD NOT", "agent", "Repeat `idle` with a `stopReason` while already idle: it reads as a second completion.", "§5.2, Q21", note="Reducers treat repeats as idempotent (digest Q21); the checker flags them as unusual."),  # noqa: E501
)

# The engines' own policies: what they refuse beyond the R/C rules, so that every
# LocalProtocolError/RemoteProtocolError they raise names a catalogued rule.
_ENGINE: Final[tuple[Rule, ...]] = (
    Rule("E0", "MUST", "both", "An engine is stepped only with an intent of its own input alphabet or a `Received` message.", "acp-core engines", note="Engine policy: a foreign object is refused, never guessed at."),  # noqa: E501
    Rule("E1", "MUST", "agent", "Run one foreground turn at a time: accept a prompt or start work only when no turn is active; other prompts wait until accepted or rejected, agent-initiated work waits while a received prompt is unanswered, and under 2026-08 prompts are accepted oldest first (the client binds them in order, Q7).", "§7 Q4", note="Engine policy taking Q4's option to hold prompts; the spec itself allows inserting later."),  # noqa: E501
    Rule("E2", "MUST", "both", "JSON-RPC request ids are not reused while pending, and an answer or withdrawal names a pending request.", "§1.1, JSON-RPC 2.0", note="Engine policy for the side's own requests."),  # noqa: E501
    Rule("E3", "MUST", "both", "A received message belongs to this session, travels in its method's direction, and a response answers a request of the receiver.", "§1.1-§1.5, §3.11", note="Raised as RemoteProtocolError by the engines; the checker reports the same faults as J1, J2 and C25."),  # noqa: E501
    Rule("E4", "MUST", "client", "Answer a permission request with one of the options it offered.", "§1.5, TC", note="Engine policy; an unknown option id could never be read by the agent."),  # noqa: E501
    Rule("E5", "MUST", "client", "Speak the one protocol version negotiated at `initialize`: open no session when the agent answered a version the host does not allow, and send only what that version defines (a v1 connection has no `session/resume`, `session/close` or `session/set_config_option`).", "§1, MG", note="Engine policy of the client connection (`new_client_connection(protocols=...)`); the agent's answer is reported as an E5 finding."),  # noqa: E501
    Rule("E6", "MAY", "both", "Refuse a request beyond the first 1,024 of one peer still waiting for this side's answer on the connection (held prompts, permission requests, requests with the host): answer it -32600 under its own id and never hold it.", "acp-core connections", note="Connection policy (`MAX_PEER_REQUESTS`): what a peer can make a connection hold is bounded; reported as a finding too."),  # noqa: E501
)
# fmt: on

# The 2026-11 draft's and the Preview's rules (R47-R81, C27-C56), kept in their own module.
_PREVIEW: Final = tuple(
    Rule(
        i,
        level,  # type: ignore[arg-type]
        side,  # type: ignore[arg-type]
        summary,
        section,
        KIT_IDS.get(i),
        note=note,
        unchecked=UNCHECKED.get(i),
        since=since,
    )
    for i, since, level, side, summary, section, note in PREVIEW_ROWS
)

#: Every rule by id, in catalogue order (R, C, the Preview's, the checker's own, the
#: engines'); read-only.
RULES: Final[Mapping[str, Rule]] = MappingProxyType(
    {r.id: r for r in (*_AGENT, *_CLIENT, *_PREVIEW, *_CHECKER, *_ENGINE)}
)

declare_rule_scopes({r.id: RuleScope(r.since, r.until) for r in RULES.values()})

# What the checker decides (`declare_checked`): empty until the checker is loaded, then one
# read-only map. The one mutable cell of this module, set once when `_rules/_check.py` loads.
_CHECKED: list[Mapping[str, tuple[str, ...]]] = []


def declare_checked(decided_by: Mapping[str, tuple[str, ...]]) -> None:
    """Declare the rules `check_trace` decides, each with its deciding functions (called
    once, by `_rules/_check.py`).

    Raises:
        ArgumentError: an id is not a catalogue rule, or a different map was declared before.
    """
    unknown = sorted(decided_by.keys() - RULES.keys())
    if unknown:
        raise ArgumentError(f"the checker decides rules the catalogue lacks: {unknown}")
    frozen = MappingProxyType(dict(decided_by))
    if _CHECKED and dict(_CHECKED[0]) != dict(frozen):
        raise ArgumentError("the checked rules were declared already, differently")
    _CHECKED[:] = [frozen]


def _decided() -> Mapping[str, tuple[str, ...]]:
    if not _CHECKED:
        raise AcpError("the checker has not declared what it decides (import acp_core._rules)")
    return _CHECKED[0]


#: The spec-source tags of the `section` column, kept with the rest of the tools' legend.
_SOURCES: Final = tuple(SPEC_TAGS.items())


def _cell(text: str) -> str:
    return text.replace("|", "\\|")


def _rows(rules: tuple[Rule, ...]) -> list[str]:
    out = [
        "| Id | Level | Side | Rule | Spec | Kit id | Checked |",
        "| --- | --- | --- | --- | --- | --- | --- |",
    ]
    for r in rules:
        text = r.summary + (f" *({r.note})*" if r.note else "")
        out.append(
            f"| {r.id} | {r.level} | {r.side} | {_cell(text)} | {_cell(r.section)} "
            f"| {', '.join(r.kit_ids)} | {_cell(_checked(r))} |"
        )
    return out


def _checked(rule: Rule) -> str:
    if rule.checked:
        where = "; ".join(f"`{name.removeprefix('acp_core.')}`" for name in rule.checked_by)
        return f"yes: {where}"
    if rule.unchecked is None:
        return ""
    kind, why = rule.unchecked
    return f"no, {kind}: {why}"


def rules_markdown(revision: Revision | None = None) -> str:
    """The rule catalogue as Markdown: the exact text of `docs/rules.md`; with a `revision`,
    only the rules that apply in it (`Revision.applies`: none it drops, none a later
    revision adds), and a line saying which revision that is.

    Raises:
        ArgumentError: `revision` is neither None nor a `Revision`.
    """
    if revision is not None:
        revision_argument(revision)

    def _table(rules: tuple[Rule, ...]) -> list[str]:
        return _rows(tuple(r for r in rules if revision is None or revision.applies(r.id)))

    scope = (
        []
        if revision is None
        else [f"Only the rules that apply in revision `{revision.name}`.", ""]
    )
    lines = [
        "# Rule catalogue",
        "",
        "<!-- Generated from acp_core/_rules/_catalogue.py by",
        "     `python -m acp_core rules > docs/rules.md`;",
        "     do not edit by hand (tests/test_rules.py keeps the two in sync). -->",
        "",
        "Every obligation of ACP v2 that acp-core enforces, reports or documents. The agent",
        "engine raises `LocalProtocolError(rule)` with these ids, `acp_core.check_trace` and",
        "`python -m acp_core check` report `Violation`s with them. Ids are stable: `R` agent",
        "rules and `C` client rules keep the numbers of the requirements digest (section 4);",
        "`D`, `J` and `S` are rules the checker needs that the digest states elsewhere.",
        "",
        "- **Level**: RFC 2119. MUST and MUST NOT decide conformance (the checker exits 1",
        "  when one is broken); SHOULD and SHOULD NOT are reported but do not fail a trace.",
        "- **Severity**: what `check`, `check --json` (`severity`), `report` and `replay` call a",
        "  finding, its grade (the level without NOT) and its kind; only a MUST violation fails:",
        *(f"  - `{c.label}`: {c.meaning}." for c in CLASSES),
        "- **Side**: who the rule binds.",
        "- **Kit id**: the requirement of the official conformance kit (`acp-tck`,",
        "  `src/tck/v2/requirements.py`) that tests the same obligation. Where the kit differs:",
        "  its STATE-203 allows five stop reasons; 2026-11 and the Preview add `error` (R8).",
        "- **Checked**: `check_trace` reports breaches of this rule, decided by the functions",
        "  named (`module:function`; more than one is a rule with several judging homes); for",
        "  a rule of the 2026-11 draft or the Preview it does not, why a recording cannot show it:",
        *(f"  - `{kind}`: {text}." for kind, text in UNCHECKED_KINDS.items()),
        "",
        *scope,
        "## Agent rules",
        "",
        *_table(_AGENT),
        "",
        "## Client rules",
        "",
        *_table(_CLIENT),
        "",
        "## Rules of the 2026-11 draft and the Preview",
        "",
        "Numbered as in section 4 of the Preview digest (`acp-v2-preview-digest.md`). They",
        "apply from the revision that brings them (`Rule.since`, asked with",
        "`Revision.applies`); C15 applies only in 2026-08 (`Rule.until`; C40 replaces it",
        "from 2026-11 on).",
        "",
        *_table(_PREVIEW),
        "",
        "## Rules of the checker",
        "",
        *_table(_CHECKER),
        "",
        "## Rules of the engines",
        "",
        "The agent and client engines refuse these with `LocalProtocolError` (our side) or",
        "`RemoteProtocolError` (the peer), besides the R and C rules above.",
        "",
        *_table(_ENGINE),
        "",
        "## Spec sources",
        "",
        "| Tag | Source |",
        "| --- | --- |",
        *(f"| {tag} | {f'`{src}`' if '/' in src else src} |" for tag, src in _SOURCES),
        "",
    ]
    return "\n".join(lines)
