"""acp-core: the pure, IO-free core of the Agent Client Protocol (ACP) v2.

Everything is a value: the codec turns wire JSON into frozen values and back without loss.
See docs/index.md for the picture and docs/concepts.md for the ideas.

The package root holds the common path (`__all__`, a few dozen names). Everything else lives
in documented public submodules: `acp_core.values` (content, updates, JSON-RPC and state
values), `acp_core.intents` (every intent), `acp_core.connection` (connections and framing),
`acp_core.engines`, `acp_core.codec`, `acp_core.sessions`, `acp_core.checker`,
`acp_core.protocol`, `acp_core.v1` and `acp_core.errors`. Every name the root exported in 0.1
is still served here for one release (`acp_core.X`, `from acp_core import X`), see docs/api.md
"Names moved in 0.2".

Nothing is imported until it is used: `__getattr__` below loads a name's defining module on
first access (PEP 562), which keeps `import acp_core` cheap. To add a public name, add it to its
public submodule (the `TYPE_CHECKING` block imports those, so type checkers see it) and to its
module's group in `_DEFINED_IN`, unless that group is `"*"` (every name of the module's
`__all__`, read when a name outside the listed groups is first asked for).
"""

# ruff: noqa: F405  (the names in `__all__` reach type checkers through star imports)
from __future__ import annotations

# Not `from typing import TYPE_CHECKING`: importing typing would cost more than the rest.
TYPE_CHECKING = False

__version__ = "0.1.0"

__all__ = [
    "DEFAULT_REVISION",
    "REVISIONS",
    "RULES",
    "V2_2026_08",
    "V2_2026_11",
    "V2_PREVIEW",
    "AcpError",
    "AgentEngine",
    "ArgumentError",
    "ClientEngine",
    "DecodeError",
    "Diagnostic",
    "FramingError",
    "LocalProtocolError",
    "NdjsonDecoder",
    "ProtocolError",
    "Received",
    "RemoteProtocolError",
    "Revision",
    "SessionState",
    "Step",
    "Violation",
    "check_trace",
    "connection_step",
    "decode_frame",
    "decode_message",
    "decode_update",
    "encode_frame",
    "encode_message",
    "encode_ndjson",
    "encode_update",
    "feed_ndjson",
    "finish_ndjson",
    "fold",
    "looks_like_v1",
    "new_agent",
    "new_agent_connection",
    "new_client",
    "new_client_connection",
    "new_session",
    "normalize_v1",
    "receive_bytes",
    "reduce",
    "render_session",
    "restore",
    "snapshot",
    "step",
]

#: Every public name, grouped by the module that defines it (full dotted paths, so a later
#: move of files can rewrite them mechanically), in the order docs/api.md lists them.
#: The first group: the 0.1 intent names, aliases for one release (docs/api.md "Names
#: moved in 0.2").
_DEFINED_IN: tuple[tuple[str, str], ...] = (
    ("acp_core._engines._renamed", "UpdatePlan UpdateSessionInfo UpdateTerminal UpdateToolCall"),
    ("acp_core._engines._agent", "AgentEngine"),
    ("acp_core._engines._agent_records", "PendingPermission PermissionDecision Turn"),
    ("acp_core._engines._agent", "new_agent permission_decision"),
    ("acp_core._rules._check", "IncrementalCheck LiveCheck check_trace"),
    ("acp_core._rules._violation", "Violation"),
    ("acp_core._rules._protocol", "Protocol finish observe"),
    ("acp_core._engines._client", "ClientEngine new_client prompt_message_id sent_prompt"),
    ("acp_core._engines._client_records", "SentPrompt"),
    (
        "acp_core._wire._codec",
        "Decoded decode_message decode_message_diagnosed decode_permission_result "
        "decode_prompt_result decode_update decode_update_diagnosed encode_message encode_result "
        "encode_update",
    ),
    ("acp_core._engines._connection", "connection_step receive_bytes"),
    (
        "acp_core._engines._connection_agent",
        "AgentConnection AgentSession OpenSession new_agent_connection",
    ),
    (
        "acp_core._engines._connection_client_intents",
        "CancelRequest CloseSession Initialize NewSession ResumeSession SendNotification "
        "SendRequest SetConfigOption",
    ),
    (
        "acp_core._engines._connection_client_state",
        "ClientConnection ClientSession PendingRequest new_client_connection",
    ),
    (
        "acp_core._engines._connection_values",
        "AnswerRequest CancelReceived CloseRequested ConnectionStep DeleteSession "
        "ExtensionNotification ExtensionRequest FailRequest Finding ForkSession Implementation "
        "Initialized ListSessions Outbound PermissionAnswered PermissionRequested PromptEnded "
        "PromptReceived RequestAnswered RequestCancelled SessionClosed SessionIntent SessionOpened "
        "ViewChanged",
    ),
    (
        "acp_core._wire._content",
        "Annotations AudioContent BlobResourceContents ContentBlock Diff DiffChange DiffFileType "
        "DiffOperation DiffPatch EmbeddedResource Icon ImageContent OtherContent OtherDiffChange "
        "OtherToolCallContent ResourceLink TerminalRef TextContent TextResourceContents "
        "ToolCallContent ToolCallLocation ToolContent SessionReference",
    ),
    (
        "acp_core._errors",
        "AcpError ArgumentError DecodeError Diagnostic LocalProtocolError ProtocolError "
        "RemoteProtocolError SseError UnknownRevisionError",
    ),
    ("acp_core._state._fold", "fold"),
    (
        "acp_core._wire._framing",
        "DEFAULT_MAX_LINE JSON_PARSER FramingError NdjsonDecoder Parsed decode_frame encode_frame "
        "encode_ndjson feed_ndjson finish_ndjson parse_error_reply",
    ),
    ("acp_core._wire._codec_ndjson", "compiled_decoder decode_ndjson"),
    (
        "acp_core._wire._sse",
        "DEFAULT_MAX_SSE_BUFFER SseDecoder SseEvent encode_comment encode_event feed_sse "
        "finish_sse",
    ),
    (
        "acp_core._wire._http",
        "CONNECTION_STREAM HEADER_CONNECTION_ID HEADER_SESSION_ID HttpConnection HttpLimits "
        "HttpReceived HttpRequest HttpResponse HttpSent HttpServer OutboundStream StreamOpened "
        "http_receive http_send http_stream_closed new_http_server",
    ),
    ("acp_core._engines._intents", "AcceptPrompt"),
    ("acp_core._engines._intents_preview", "AgentIntent"),
    ("acp_core._engines._intents", "AnswerPermission CancelPermission"),
    ("acp_core._engines._intents_preview", "ClientIntent"),
    (
        "acp_core._engines._intents",
        "EndTurn FinishToolCall Received RejectPrompt ReportAbort ReportUsage ReportUserMessage "
        "RequestPermission SendAgentMessage SendAgentText SendCancel SendPrompt SendTerminalOutput "
        "SendThought SendToolContent StartToolCall StartWork Step ReportPlan PatchSessionInfo "
        "PatchTerminal PatchToolCall",
    ),
    (
        "acp_core._wire._json",
        "EMPTY_OBJECT UNSET JsonObject JsonValue Patch Unset freeze_json thaw_json",
    ),
    (
        "acp_core._wire._jsonrpc",
        "Batch CancelledOutcome CancelRequestNotification CancelSessionNotification "
        "CommandPermissionSubject ErrorCode ErrorResponse InvalidEntry Message Method Notification "
        "OtherPermissionOutcome OtherPermissionSubject PermissionOption PermissionOptionKind "
        "PermissionOutcome PermissionSubject PromptRequest PromptResult Request RequestId "
        "RequestPermissionRequest RequestPermissionResult Response SelectedOutcome "
        "ToolCallPermissionSubject UpdateSessionNotification",
    ),
    ("acp_core._wire._jsonrpc_error", "RpcError"),
    ("acp_core._cli._mermaid", "mermaid_sequence"),
    ("acp_core._state._pcoll", "PVec"),
    ("acp_core._state._reduce", "reduce"),
    ("acp_core._cli._render", "render_session"),
    ("acp_core._cli._report", "build_report report_path_beside"),
    (
        "acp_core._wire._revision",
        "DEFAULT_REVISION KNOWN_UPDATE_TAGS REVISIONS V2_2026_08 V2_2026_11 Revision",
    ),
    ("acp_core._rules._catalogue", "RULES Rule rules_markdown"),
    ("acp_core._state._snapshot", "restore snapshot"),
    ("acp_core._state._snapshot_keys", "restore_prompt_keys"),
    (
        "acp_core._state._session_state",
        "EntityRef Foreground MessageState PlanState SessionAux SessionInfo SessionState "
        "TerminalState ToolCallState Usage is_active message_text new_session terminal_bytes "
        "turn_tool_calls",
    ),
    ("acp_core._engines._step", "step"),
    (
        "acp_core._wire._updates",
        "AgentMessage AgentMessageChunk AgentThought AgentThoughtChunk ForegroundState "
        "OtherPlan OtherUpdate PlanEntry PlanEntryPriority PlanEntryStatus PlanItems PlanUpdate "
        "SessionConfigOptionCategory SessionUpdate StopReason TerminalExitStatus TerminalOutput "
        "TerminalOutputChunk TerminalUpdate ToolCallContentChunk ToolCallStatus ToolCallUpdate "
        "ToolKind UserMessage UserMessageChunk",
    ),
    (
        "acp_core._wire._updates_state",
        "IdleStateUpdate OtherStateUpdate RequiresActionStateUpdate RunningStateUpdate StateUpdate",
    ),
    (
        "acp_core._wire._updates_session",
        "AvailableCommand AvailableCommandsUpdate ConfigOptionUpdate Cost OtherCommandInput "
        "OtherSessionConfigOption SessionConfigBoolean SessionConfigOption SessionConfigSelect "
        "SessionConfigSelectGroup SessionConfigSelectOption SessionInfoUpdate TextCommandInput "
        "UsageUpdate",
    ),
    ("acp_core._v1._normalize", "looks_like_v1 normalize_v1 normalize_v1_step"),
    ("acp_core._v1._v1_policy", "BoundaryPolicy EchoPolicy V1Policy"),
    ("acp_core._v1._v1_check", "V1_RULES V1Rule check_v1_trace v1_violations"),
    (
        "acp_core._v1._v1_state",
        "NormalizedEvent NormalizedUpdate PromptError V1Elicitation V1ElicitationAnswer V1Output "
        "V1Result V1State new_v1_state",
    ),
    (
        "acp_core._state._reduce_children",
        "CLOSED_SESSION_TRAFFIC REPARENT UNANNOUNCED_SESSION UNKNOWN_SESSION_REFERENCE SessionTree "
        "begin_resume child_link children_of close_session effective_state end_resume new_tree "
        "open_session parent_of reduce_tree",
    ),
    (
        "acp_core._state._reduce_preview",
        "REPLAY_WITHOUT_MARKER UNEXPECTED_REPLAY_MARKER begin_replay end_replay",
    ),
    (
        "acp_core._state._state_extras",
        "ChildLink CompactionState ReplayWindow SessionExtras SessionMessageState",
    ),
    (
        "acp_core._wire._updates_2026_11",
        "BackgroundSubagent BackgroundTerminal BackgroundToolCall BackgroundWork CancelCapability "
        "CompactionStatus CompactionSummaryChunk CompactionUpdate Notice NoticeSeverity "
        "OtherBackgroundWork TerminalCapabilities TerminalSize ToolCallCapabilities",
    ),
    ("acp_core._wire._updates_preview", "*"),
    ("acp_core._wire._codec", "decode_part encode_part"),
    ("acp_core._wire._jsonrpc", "CancelTerminalRequest CancelToolCallRequest"),
    (
        "acp_core._wire._revision",
        "PREVIEW REVISION_ALIASES REVISION_CHOICES V2_PREVIEW revision_named",
    ),
    (
        "acp_core._wire._setup",
        "ClientCapabilities ClientSessionCapabilities ContentTypeCapability NewSessionResult "
        "OtherReplayFrom PromptSuggestionsCapabilities ReplayFromStart ResumeSessionRequest "
        "ResumeSessionResult",
    ),
    ("acp_core._state._reduce_session", "seed_session"),
    (
        "acp_core._engines._intents_preview",
        "CancelChild CancelTerminal CancelToolCall ReportBackground RetryPrompt SendUpdate",
    ),
    ("acp_core._rules._recent", "MAX_REMEMBERED_IDS"),
)

#: The names of a `"*"` group: its module's `__all__`.
_WHOLE = "*"

#: Public name -> its defining module, for the listed groups (what `__getattr__` reads first).
_NAMED: dict[str, str] = {
    n: module for module, names in _DEFINED_IN if names != _WHOLE for n in names.split()
}


def _home() -> dict[str, str]:
    """Every public name -> its defining module, in `_DEFINED_IN` order (`acp_core._HOME`);
    the first call imports the modules of the `"*"` groups for their `__all__`."""
    home: dict[str, str] | None = globals().get("_HOME")
    if home is None:
        home = {}
        for module, names in _DEFINED_IN:
            if names == _WHOLE:
                listed = __import__(module, fromlist=("__all__",)).__all__
            else:
                listed = names.split()
            for n in listed:
                home[n] = module
        globals()["_HOME"] = home
    return home


#: The public submodules, loaded on first access like the names.
_SUBMODULES = frozenset(
    {
        "checker",
        "codec",
        "connection",
        "engines",
        "errors",
        "intents",
        "protocol",
        "sessions",
        "strategies",
        "v1",
        "values",
    }
)

if TYPE_CHECKING:  # what type checkers see: every public name, through its submodule
    from . import checker as checker
    from . import codec as codec
    from . import connection as connection
    from . import engines as engines
    from . import errors as errors
    from . import intents as intents
    from . import protocol as protocol
    from . import sessions as sessions
    from . import strategies as strategies
    from . import v1 as v1
    from . import values as values
    from .checker import *  # noqa: F403
    from .codec import *  # noqa: F403
    from .connection import *  # noqa: F403
    from .engines import *  # noqa: F403
    from .errors import *  # noqa: F403
    from .intents import *  # noqa: F403
    from .protocol import *  # noqa: F403
    from .sessions import *  # noqa: F403
    from .v1 import *  # noqa: F403
    from .values import *  # noqa: F403


if not TYPE_CHECKING:  # hidden from type checkers, so a misspelt name stays an error there
    _COMMON = frozenset(__all__)
    # The revisions' home: `Revision.applies` reads the rule scopes the catalogue declares
    # (`_wire/_revision.py`), so handing out a revision loads the rule layer with it.
    _REVISION_HOME = "acp_core._wire._revision"

    def _warn_moved(name: str) -> None:
        import warnings

        from ._engines._renamed import HOMES, moved_warning

        homes = {}
        for sub in HOMES:
            homes[sub] = tuple(__import__(f"acp_core.{sub}", fromlist=("__all__",)).__all__)
        # stacklevel 3: the caller of `acp_core.X` (past this helper and `__getattr__`).
        warnings.warn(moved_warning("acp_core", name, homes), DeprecationWarning, stacklevel=3)

    def __getattr__(name: str) -> object:
        """Load a public name (or public submodule) on first use and keep it in the namespace."""
        if name == "_HOME":
            return _home()
        module = _NAMED.get(name)
        if module is None and name not in _SUBMODULES:
            module = _home().get(name)
        if module is not None:
            # `__import__` with a fromlist gives the leaf module (importlib is off limits here).
            value = getattr(__import__(module, fromlist=("__name__",)), name)
            if module == _REVISION_HOME:  # a revision answers `applies` from the catalogue
                __import__("acp_core._rules")
            if name not in _COMMON:  # a 0.1 alias: it works, and says where the name lives
                _warn_moved(name)
        elif name in _SUBMODULES:
            value = __import__(f"acp_core.{name}", fromlist=("__name__",))
        else:
            raise AttributeError(f"module 'acp_core' has no attribute {name!r}")
        globals()[name] = value
        return value

    def __dir__() -> list[str]:
        return sorted({*globals(), *_home(), *_SUBMODULES})
