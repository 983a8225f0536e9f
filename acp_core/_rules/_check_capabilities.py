"""What the `initialize` exchange advertised, held against the traffic that follows (J70-J80).

Owns: `Capabilities`, the checker's record of what both sides advertised at `initialize` (the
client's `capabilities`, the agent's `capabilities` and `authMethods`), the client requests
whose answers that decides (`session/prompt`, `session/new`, `session/resume`, `auth/login`,
`auth/logout`), the sessions the recording saw set up, and the findings: prompt content the
agent advertised refused as invalid (J70-J73), a `session/new` without MCP servers refused as
invalid (J74), required methods answered "method not found" (J75-J77), authentication
demanded after a login or where none can be given (J77, J78), elicitation in a mode the
client did not enable (J79), agent calls of methods no client defines (J80), and the client's
prompt content the agent did not advertise (C2).
Must not know: the lifecycle of a session (`_rules/_conversation.py`), what a single message
breaks on its own (`_rules/_check_message.py`: the `initialize` answer's own shape, J5-J10),
which sessions the agent may name (`_rules/_check_sessions.py`), decoding, files.

Why only from `initialize` on: what a side advertised is said once, at `initialize`; a
recording that starts later cannot show it, so nothing that depends on it is judged (J80
depends on nothing advertised and is judged throughout). An answer is judged only by the
error code that says what the agent claims: `-32602` (invalid params) for a request the
agent declared it accepts, `-32601` (method not found) for a method it declared it
implements, `-32000` (authentication required) where authentication cannot or need not be
given. Other refusals (an unknown session, a busy agent, an internal error) a recording
cannot tell from a fault, so they are not judged; a prompt is judged only on a session the
recording saw set up, and only when every block is of a type the agent accepts (baseline or
advertised): content the agent did not advertise is the client's fault (C2, reported at the
prompt) and the agent may refuse it however it likes.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Final

from acp_core._state._pcoll import PMap
from acp_core._wire import _content as c
from acp_core._wire import _jsonrpc as j

from ._check_message import Finding
from ._conversation_events import CLIENT_DIRECTED
from ._draft import SlotDraft
from ._predicates import RequestKey, is_absolute, request_key, shown

__all__ = ["CHECKED", "Capabilities"]

#: The rules this module decides (C2 is the client's side of J70-J72).
CHECKED: Final = frozenset({"C2", *(f"J{n}" for n in range(70, 81))})

#: Methods an agent may call: the client's, the protocol's (custom `_` ones aside). `session/prompt`
#: and `session/cancel` sent by the agent are J2's (a known method in the wrong direction).
_CLIENT_METHODS: Final = frozenset(
    {"session/update", "session/request_permission", "elicitation/create", "elicitation/complete"}
)
_PROTOCOL_METHODS: Final = frozenset({"$/cancel_request"})

_BASELINE: Final = (c.TextContent, c.ResourceLink)
#: Prompt content beyond the baseline: block class -> (its type, the capability it needs).
_BEYOND: Final[Mapping[type, tuple[str, str]]] = {
    c.ImageContent: ("image", "image"),
    c.AudioContent: ("audio", "audio"),
    c.EmbeddedResource: ("resource", "embeddedContext"),
}
_NEW_SESSION_KEYS: Final = frozenset({"cwd", "mcpServers", "_meta"})
_TRACKED: Final = frozenset(
    {"session/new", "session/fork", "session/resume", "session/load", "auth/login", "auth/logout"}
)


def _obj(value: object) -> Mapping[str, object]:
    return value if isinstance(value, Mapping) else {}


def _marker(parent: object, key: str) -> bool:
    """A v2 capability marker: an object present (absent or `null`: not advertised)."""
    return isinstance(_obj(parent).get(key), Mapping)


class Capabilities(SlotDraft):
    """What one recording's `initialize` advertised.

    Mutable, but only by rebinding: every attribute holds an immutable value (the
    collections are persistent maps), so `copy` is a shallow copy of the references, O(1),
    and a draft that follows traffic on its copy never changes the one it copied.
    """

    __slots__ = (
        "agent",
        "auth_methods",
        "client",
        "init",
        "judged",
        "logged_in",
        "pending",
        "sessions",
        "started",
    )

    def __init__(self) -> None:
        self.started = False
        self.judged = False  # the recording starts with the client's `initialize`
        self.init: RequestKey | None = None  # the pending `initialize`
        self.client: Mapping[str, object] = PMap()  # the client's `capabilities`
        self.agent: Mapping[str, object] | None = None  # the agent's, once answered
        self.auth_methods: PMap[str, str] = PMap()  # advertised methodId -> type
        self.logged_in = False  # an `auth/login` with an advertised method succeeded
        # client request -> (method, msg)
        self.pending: PMap[RequestKey, tuple[str, object]] = PMap()
        self.sessions: PMap[str, bool] = PMap()  # a set: the sessions seen set up

    def copy(self) -> Capabilities:
        """An independent copy (for a checker that forks): O(1), as every value is immutable."""
        twin = Capabilities.__new__(Capabilities)
        for name in self.__slots__:
            setattr(twin, name, getattr(self, name))
        return twin

    def follow(self, side: str, msg: object) -> list[Finding]:
        """Note what `msg` advertises or asks; the findings its traffic breaks."""
        if not self.started:
            self.started = True
            self.judged = (
                side == "client" and isinstance(msg, j.Request) and msg.method == "initialize"
            )
        out: list[Finding] = []
        if side == "agent" and isinstance(msg, (j.Request, j.Notification)):
            out.extend(undefined_method(msg))
        if not self.judged:
            return out
        if side == "client":
            if isinstance(msg, j.PromptRequest) and self.agent is not None:
                out.extend(unadvertised_content(self.agent, msg.prompt))
            self._client(msg)
        elif isinstance(msg, (j.Response, j.ErrorResponse)):
            out.extend(self._answer(msg))
        elif isinstance(msg, j.Request) and msg.method == "elicitation/create":
            out.extend(elicitation(self.client, self.agent, msg))
        return out

    # -- the client's side -------------------------------------------------------------------

    def _client(self, msg: object) -> None:
        if isinstance(msg, j.PromptRequest):
            self.pending = self.pending.set(request_key(msg.id), ("session/prompt", msg))
        elif isinstance(msg, j.Request) and msg.method == "initialize" and self.init is None:
            self.init = request_key(msg.id)
            self.client = _obj(_obj(msg.params).get("capabilities"))
        elif isinstance(msg, j.Request) and msg.method in _TRACKED:
            self.pending = self.pending.set(request_key(msg.id), (msg.method, msg.params))
        elif isinstance(msg, j.Request) and msg.method in ("session/close", "session/delete"):
            # from the request on, a prompt may be refused as naming no session
            sid = str(_obj(msg.params).get("sessionId"))
            if sid in self.sessions:
                self.sessions = self.sessions.delete(sid)

    # -- the agent's answers -----------------------------------------------------------------

    def _answer(self, msg: j.Response | j.ErrorResponse) -> list[Finding]:
        key = request_key(msg.id)
        if key == self.init and self.agent is None:
            self._advertised(msg)
            return []
        asked = self.pending.get(key)
        if asked is not None:
            self.pending = self.pending.delete(key)
        if asked is None or self.agent is None:
            return []
        method, request = asked
        if isinstance(msg, j.Response):
            self._succeeded(method, request, msg.result)
            return []
        code = msg.error.code
        if method == "session/prompt" and isinstance(request, j.PromptRequest):
            return self._prompt(request, code)
        params = _obj(request)
        if method in ("session/new", "auth/login"):
            login = login_refusal(method, params, code, self.auth_methods, self.logged_in)
            if login or method == "auth/login":
                return login
            return new_session_refusal(params, code, self.auth_methods)
        if method == "session/resume":
            return resume_refusal(self.agent, code)
        if method == "auth/logout":
            return logout_refusal(code, self.auth_methods)
        return []

    def _advertised(self, msg: j.Response | j.ErrorResponse) -> None:
        result = _obj(msg.result) if isinstance(msg, j.Response) else {}
        if not result or result.get("protocolVersion") != 2:
            self.judged = False  # refused, or another protocol: nothing was advertised in v2
            return
        self.agent = _obj(result.get("capabilities"))
        methods = result.get("authMethods")
        for m in methods if isinstance(methods, Sequence) and not isinstance(methods, str) else ():
            method_id = _obj(m).get("methodId")
            if isinstance(method_id, str):
                kind = _obj(m).get("type")
                named = kind if isinstance(kind, str) else "agent"
                self.auth_methods = self.auth_methods.set(method_id, named)

    def _succeeded(self, method: str, request: object, result: object) -> None:
        if method in ("session/new", "session/fork"):
            sid = _obj(result).get("sessionId")
        elif method in ("session/resume", "session/load"):
            sid = _obj(request).get("sessionId")
        else:
            sid = None
            if method == "auth/login" and _login_honoured(_obj(request), self.auth_methods):
                self.logged_in = True
        if isinstance(sid, str):
            self.sessions = self.sessions.set(sid, True)

    def _prompt(self, request: j.PromptRequest, code: int) -> list[Finding]:
        if code != j.ErrorCode.INVALID_PARAMS or request.session_id not in self.sessions:
            return []
        return prompt_refusal(self.agent, request.prompt)


def _login_honoured(params: Mapping[str, object], methods: Mapping[str, str]) -> bool:
    method_id = params.get("methodId")
    return isinstance(method_id, str) and methods.get(method_id, "terminal") != "terminal"


def prompt_refusal(agent: Mapping[str, object] | None, blocks: Sequence[object]) -> list[Finding]:
    """J70-J73: a prompt of content the agent accepts, refused as invalid (`-32602`)."""
    prompt = _obj(_obj(_obj(agent).get("session")).get("prompt"))
    rules = {"image": "J70", "audio": "J71", "resource": "J72"}
    first: tuple[str, str] | None = None
    for block in blocks:
        if isinstance(block, _BASELINE):
            continue
        advertised = _BEYOND.get(type(block))
        if advertised is None or not _marker(prompt, advertised[1]):
            return []  # content the agent did not advertise: the client's fault (C2)
        first = first or advertised
    if first is not None:
        kind, capability = first
        return [
            (
                rules[kind],
                f"the agent refuses a prompt with `{kind}` content as invalid (-32602), though "
                f"it advertised capabilities.session.prompt.{capability}",
            )
        ]
    if any(isinstance(b, c.ResourceLink) for b in blocks):
        return [
            (
                "J73",
                "the agent refuses a prompt of `text` and `resource_link` content as invalid "
                "(-32602): that content is the baseline every session agent takes",
            )
        ]
    return []


def unadvertised_content(
    agent: Mapping[str, object] | None, blocks: Sequence[object]
) -> list[Finding]:
    """C2: a prompt with content beyond the baseline the agent did not advertise."""
    prompt = _obj(_obj(_obj(agent).get("session")).get("prompt"))
    for block in blocks:
        beyond = _BEYOND.get(type(block))
        if beyond is not None and not _marker(prompt, beyond[1]):
            return [
                (
                    "C2",
                    f"the client sends a prompt with `{beyond[0]}` content, but the agent did not "
                    f"advertise capabilities.session.prompt.{beyond[1]}",
                )
            ]
    return []


def new_session_refusal(
    params: Mapping[str, object], code: int, methods: Mapping[str, str]
) -> list[Finding]:
    """J74: `session/new` without MCP servers refused as invalid; J78: refused as
    unauthenticated by an agent with no auth method to log in with."""
    if code == j.ErrorCode.AUTH_REQUIRED and not methods:
        return [
            (
                "J78",
                "the agent refuses session/new as unauthenticated (-32000), but advertised no "
                "auth methods: the client has no way to authenticate",
            )
        ]
    servers = params.get("mcpServers", ())
    cwd = params.get("cwd")
    if (
        code == j.ErrorCode.INVALID_PARAMS
        and set(params) <= _NEW_SESSION_KEYS
        and isinstance(cwd, str)
        and is_absolute(cwd)
        and isinstance(servers, Sequence)
        and not isinstance(servers, str)
        and not servers
    ):
        given = "`mcpServers: []`" if "mcpServers" in params else "no `mcpServers`"
        return [
            (
                "J74",
                f"the agent refuses session/new with {given} as invalid (-32602): omitted and "
                "empty are equivalent and both valid",
            )
        ]
    return []


def resume_refusal(agent: Mapping[str, object] | None, code: int) -> list[Finding]:
    """J75: `session/resume` answered "method not found" by an agent advertising sessions."""
    if code != j.ErrorCode.METHOD_NOT_FOUND or not _marker(agent, "session"):
        return []
    return [
        (
            "J75",
            "the agent answers session/resume with -32601 (method not found), but advertised "
            "capabilities.session, which includes session/resume",
        )
    ]


def logout_refusal(code: int, methods: Mapping[str, str]) -> list[Finding]:
    """J76: `auth/logout` answered "method not found" by an agent advertising auth methods."""
    if code != j.ErrorCode.METHOD_NOT_FOUND or not methods:
        return []
    return [
        (
            "J76",
            "the agent answers auth/logout with -32601 (method not found), but advertised "
            "auth methods, which makes auth/logout required",
        )
    ]


def login_refusal(
    method: str,
    params: Mapping[str, object],
    code: int,
    methods: Mapping[str, str],
    logged_in: bool,
) -> list[Finding]:
    """J77: `auth/login` with an advertised method answered "method not found", or
    `session/new` refused as unauthenticated after such a login succeeded."""
    if method == "auth/login" and code == j.ErrorCode.METHOD_NOT_FOUND:
        if _login_honoured(params, methods):
            return [
                (
                    "J77",
                    f"the agent answers auth/login for its advertised method "
                    f"{shown(params.get('methodId'))} with -32601 (method not found)",
                )
            ]
    elif method == "session/new" and code == j.ErrorCode.AUTH_REQUIRED and logged_in:
        return [
            (
                "J77",
                "the agent refuses session/new as unauthenticated (-32000) after an auth/login "
                "with an advertised method succeeded",
            )
        ]
    return []


def elicitation(
    client: Mapping[str, object], agent: Mapping[str, object] | None, msg: j.Request
) -> list[Finding]:
    """J79: an elicitation in a mode the client's `initialize` did not enable."""
    if agent is None:
        return []  # sent before the agent answered `initialize`: J80's and the lifecycle's
    modes = _obj(client.get("elicitation"))
    enabled = {m for m in ("form", "url") if _marker(modes, m)}
    mode = _obj(msg.params).get("mode")
    if mode in ("form", "url") and mode not in enabled:
        why = f"in mode {shown(mode)}, which the client did not enable"
    elif mode not in ("form", "url") and not enabled:
        why = "though the client enabled no elicitation mode"
    else:
        return []
    return [("J79", f"the agent sends elicitation/create {why} (capabilities.elicitation)")]


def undefined_method(msg: j.Request | j.Notification) -> list[Finding]:
    """J80: an agent request or notification of a method no client defines."""
    method = msg.method
    if (
        method in _CLIENT_METHODS
        or method in _PROTOCOL_METHODS
        or method in CLIENT_DIRECTED  # J2's: a client's method sent by the agent
        or method.startswith("_")
    ):
        return []
    kind = "request" if isinstance(msg, j.Request) else "notification"
    return [
        (
            "J80",
            f"the agent sends a {kind} of method {shown(method)}, which no client defines "
            "(the client's methods are session/update, session/request_permission and "
            "elicitation/*, with $/cancel_request and custom `_` methods)",
        )
    ]
