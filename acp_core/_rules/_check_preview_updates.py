"""The Preview trace checks of one `session/update`: children, items, background, replay.

Owns: `on_update` (what one update the agent sent breaks across the sessions of the
connection: R47, R48, R49, R50, R56, R57, R58, R60's bookkeeping, R61, R62's, R63, R65,
R66, R71, R74, R79, R81, R19 for background item types; R72 and R73 are asked of
`_rules/_check_preview_cancels.py` here, user messages go on to
`_rules/_check_preview_prompts.py`) and the small readers of update values it uses.

R50 as a recording shows it: a child whose whole life the recording holds (announced on a
session a `session/new` answer gave, or on such a child) reports its own output (a message
or thought, outside any replay) and then, as its first own state, an `idle` with a stop
reason: that work ended without the child ever reporting it `running` on its own session
(a mirror on the parent does not count). A child of a resumed session may have reported its
state on an earlier connection, so it is not judged.
Must not know: answers (`_rules/_check_preview_answers.py`), the client's messages, one
session's turn lifecycle (`_rules/_conversation*.py`).
"""

from __future__ import annotations

from collections.abc import Callable, Container, Mapping
from functools import partial
from typing import Final

from acp_core._state._pcoll import PMap
from acp_core._state._reduce_children import session_names
from acp_core._wire import _content as c
from acp_core._wire import _updates as u
from acp_core._wire import _updates_2026_11 as u11
from acp_core._wire import _updates_preview as up
from acp_core._wire._fastnew import fast_evolve
from acp_core._wire._json import UNSET
from acp_core._wire._revision import Revision

from ._check_preview_draft import PreviewMemory
from ._check_preview_records import (
    EXITED,
    FINAL_TOOL,
    NEW_TERMINAL,
    NEW_TOOL,
    HistoryWindow,
    Terminal,
    Tool,
)
from ._draft import oitems, opop, oset, padd, ppop
from ._naming import naming_rule
from ._predicates import open_enum_finding, shown

__all__ = [
    "announce_finding",
    "background_findings",
    "background_items",
    "has_cancel",
    "on_update",
    "recorded_tool",
]

_STATE_UPDATES: Final = (
    u.RunningStateUpdate,
    u.IdleStateUpdate,
    u.RequiresActionStateUpdate,
    up.UnknownStateUpdate,
)
_CHUNKS: Final = (u.UserMessageChunk, u.AgentMessageChunk, u.AgentThoughtChunk)
_UPSERTS: Final = (u.UserMessage, u.AgentMessage, u.AgentThought)
_CONFIG: Final = (u.ConfigOptionUpdate, u.AvailableCommandsUpdate)
# A child's own output that only foreground work produces (R50).
_OUTPUT: Final = (u.AgentMessageChunk, u.AgentMessage, u.AgentThoughtChunk, u.AgentThought)


def on_update(r: PreviewMemory, i: int, sid: str, upd: object) -> None:
    """Check `upd`, sent by the agent on session `sid` at line `i`, and remember it."""
    if sid in r.replaying:
        _history(r, i, sid, upd)
    if isinstance(upd, (u.UserMessage, u.UserMessageChunk)):
        r.edit_book().user(r, i, sid, upd.message_id)  # insertions and the replay window (R59, R70)
    for ref, how in session_names(upd):  # type: ignore[arg-type]
        if how == "background":
            continue  # a background entry: judged with its list (`_state`, R74)
        known = ref in r.fresh or ref in r.named or ref in r.parents
        if not known and ref not in r.unclaimed:
            r.unclaimed = r.unclaimed.set(ref, (i, how))
    if isinstance(upd, _OUTPUT):
        unreported = sid not in r.child_idle and sid not in r.replaying  # (R50)
        if unreported and sid in r.fresh and sid in r.parents and sid not in r.child_work:
            r.child_work = r.child_work.set(sid, i)
    elif isinstance(upd, up.SubagentUpdate):
        _announce(r, i, sid, upd)
    elif isinstance(upd, u.ToolCallUpdate):
        if sid in r.cancels.windows:
            _r73(r, i, sid, upd)
        _tool(r, i, sid, upd)
    elif isinstance(upd, u.TerminalUpdate):
        term = r.terminals.get((sid, upd.terminal_id), NEW_TERMINAL)
        cancel = has_cancel(upd.capabilities)
        exited = upd.exit_status is not UNSET and upd.exit_status is not None
        r.terminals = r.terminals.set(
            (sid, upd.terminal_id),
            Terminal(term.cancel if cancel is None else cancel, term.exited or exited),
        )
    elif isinstance(upd, _STATE_UPDATES):
        _state(r, i, sid, upd)
    elif isinstance(upd, up.ReplayComplete):
        _marker(r, i, sid)
    elif isinstance(upd, up.PromptSuggestionsUpdate):
        _suggestions(r, i, upd)


def _upserted(window: HistoryWindow, message_id: str) -> HistoryWindow:
    # The window with `message_id`'s whole-message upsert (or its first chunk) shown.
    return HistoryWindow(window.request, window.upserted.set(message_id, True))


def _history(r: PreviewMemory, i: int, sid: str, upd: object) -> None:
    # Updates inside a replay window (after a resume with a cursor, before the marker).
    window = r.replaying[sid]
    seen = window.upserted
    if isinstance(upd, (u.UserMessage, u.UserMessageChunk)):
        rkey = window.request
        resume = r.resumes.get(rkey)
        if resume is not None and resume.session == sid and upd.message_id not in resume.users:
            users = resume.users.set(upd.message_id, True)
            r.resumes = oset(r.resumes, rkey, fast_evolve(resume, users=users))
    if isinstance(upd, _UPSERTS):
        r.replaying = r.replaying.set(sid, _upserted(window, upd.message_id))
    elif isinstance(upd, _CHUNKS) and upd.message_id not in seen:
        r.replaying = r.replaying.set(sid, _upserted(window, upd.message_id))  # reported once
        r.report(
            "R63",
            i,
            f"replayed message {shown(upd.message_id)} starts with a chunk: a replay first "
            "sends the whole-message upsert with `content: []` (reset-before-chunk)",
        )
    elif isinstance(upd, (u11.Notice, up.PromptSuggestionsUpdate)):
        r.report("R65", i, "replayed history carries a notice or prompt suggestions")
    elif isinstance(upd, _CONFIG) and sid in r.parents:
        r.report(
            "R66",
            i,
            f"configuration of child {shown(sid)} inside its replay; it belongs after the "
            "child's replay_complete",
        )


class _TopLevel:
    # The ids set up as top-level sessions: the client's (`named`, bounded) and session/new
    # answers' (`fresh`, which also holds children, in `parents`: never asked of them).
    __slots__ = ("fresh", "named")

    def __init__(self, named: Container[str], fresh: Container[str]) -> None:
        self.named, self.fresh = named, fresh

    def __contains__(self, sid: object) -> bool:
        return sid in self.fresh or sid in self.named


def _announce(r: PreviewMemory, i: int, sid: str, upd: up.SubagentUpdate) -> None:
    child = upd.session_id
    parent = r.parents.get(child)
    found = announce_finding(r.parents, sid, child, _TopLevel(r.named, r.fresh))
    if found is not None:
        r.report(found[0], i, found[1])
        if parent is None:
            return  # a session made its own descendant: no link recorded
    elif parent is None:
        r.unclaimed, first = r.unclaimed.pop(child)
        if first is not None and (first[0], child) in r.j3:
            first = None  # J3 judged that envelope already: one finding per fault
        if first is not None and first[1] in ("envelope", "message") and _resumed(r, sid, first[0]):
            r.report(
                "R61",
                first[0],
                f"{shown(child)} is used here, before the subagent_update that re-announces it "
                f"(line {i}): its ancestor was resumed on this connection, and a resumed "
                "connection announces every live child again before any of its traffic",
            )
        elif first is not None:
            r.report(
                naming_rule(first[1]),
                first[0],
                f"{shown(child)} is used here, before the subagent_update that announces it "
                f"(line {i})",
            )
        r.parents = r.parents.set(child, sid)
        if sid in r.fresh:
            r.fresh = padd(r.fresh, child)
    if r.parents.get(child) == sid:
        # A first announcement, or a re-announcement (R61) of a child the recording already
        # knew, while its parent's resume with a cursor is served: the child is replayed
        # within that resume (R60, P8) and gets its own marker.
        for key, resume in oitems(r.resumes):
            if child in resume.children or not resume.cursor:
                continue
            if resume.session == sid or _descends(r, sid, resume.session):
                children = (*resume.children, child)
                r.resumes = oset(r.resumes, key, fast_evolve(resume, children=children))
                r.replaying = r.replaying.set(child, HistoryWindow(key))
                break
    cancel = has_cancel(upd.capabilities)
    if cancel is not None:
        r.can_cancel = r.can_cancel.set(child, cancel)


def _resumed(r: PreviewMemory, parent: str, at: int) -> bool:
    # R61 rather than R47: a session/resume of `parent` or one of its ancestors came before
    # the child's first use, so the child may be one of a previous connection.
    seen, sid = 0, parent
    while seen <= len(r.parents):
        if r.resumed.get(sid, at) < at:
            return True
        up_one = r.parents.get(sid)
        if up_one is None:
            return False
        sid, seen = up_one, seen + 1
    return False


def announce_finding(
    parents: PMap[str, str], sid: str, child: str, top_level: Container[str] = ()
) -> tuple[str, str] | None:
    """R48 and R49 of a `subagent_update` sent on `sid` for `child`, given each known child's
    parent and the asker's top-level sessions (`top_level`: ids a `session/new` answer or the
    client's own traffic set up, which never get a parent): a child keeps its first parent
    (R48), a grandchild's announcement goes on its own parent, not an ancestor of it (R49),
    no session becomes its own descendant (R48) and no top-level session becomes a child
    (R48: it began its life with no parent). Asked by the checker (`_announce`, with the
    ids it saw set up) and by the agent engine before it sends one
    (`_engines/_agent_children.py`, whose tree's root is its only top-level session), so
    both say the same rule in the same words; the client connection's judge is the checker."""
    parent = parents.get(child)
    if parent is not None and parent != sid and descends(parents, parent, sid):
        return (
            "R49",
            f"subagent_update for {shown(child)} is sent on {shown(sid)}, an ancestor of its "
            f"parent {shown(parent)}: a grandchild's subagent_update goes on its own parent",
        )
    if parent is not None and parent != sid:
        return (
            "R48",
            f"child {shown(child)} belongs to {shown(parent)}; subagent_update on "
            f"{shown(sid)} claims it for a second parent",
        )
    if parent is None and (child == sid or descends(parents, sid, child)):
        return ("R48", f"subagent_update on {shown(sid)} makes {shown(child)} its ancestor")
    if parent is None and child in top_level:
        return (
            "R48",
            f"subagent_update on {shown(sid)} announces {shown(child)}, a top-level session, "
            "as a child: a top-level session has no parent",
        )
    return None


def descends(parents: PMap[str, str], sid: str, ancestor: str) -> bool:
    """Whether `ancestor` is above `sid` in the tree `parents` (child -> parent) draws."""
    parent = parents.get(sid)
    seen = 0
    while parent is not None and seen <= len(parents):
        if parent == ancestor:
            return True
        parent = parents.get(parent)
        seen += 1
    return False


def _descends(r: PreviewMemory, sid: str, ancestor: str) -> bool:
    return descends(r.parents, sid, ancestor)


def _tool(r: PreviewMemory, i: int, sid: str, upd: u.ToolCallUpdate) -> None:
    r.tools, found = recorded_tool(r.tools, sid, upd)
    if found is not None:
        r.report(found[0], i, found[1])


def recorded_tool(
    tools: PMap[tuple[str, str], Tool], sid: str, upd: u.ToolCallUpdate
) -> tuple[PMap[tuple[str, str], Tool], tuple[str, str] | None]:
    """The tool call records after `upd` (the same map when its record stays as it is), and
    what it breaks: R81 and why (a named tool call renamed), or None. The one home of both; a
    message that reaches no other rule of the judge (`_check_preview_quiet.only_tool`) is
    judged by this alone."""
    key = (sid, upd.tool_call_id)
    tool = tools.get(key, NEW_TOOL)
    cancel = has_cancel(upd.capabilities)
    final = isinstance(upd.status, str) and upd.status in u.ToolCallStatus.TERMINAL
    name = tool.name
    found = None
    if isinstance(upd.name, str):
        if name is not None and name != upd.name:
            found = (
                "R81",
                f"tool call {shown(upd.tool_call_id)} was named {shown(name)} and is "
                f"renamed {shown(upd.name)}",
            )
        name = upd.name
    new = Tool(tool.cancel if cancel is None else cancel, tool.final or final, name)
    if new != tool or key not in tools:
        tools = tools.set(key, new)
    return tools, found


def _r73(r: PreviewMemory, i: int, sid: str, upd: object) -> None:
    """R73: an item listed as background work at a `session/cancel` ends `cancelled` though
    nothing cancelled it (a tool call update, or a child's idle state); the cancel windows
    (`_rules/_check_preview_cancels.py`) say which items each window still holds."""
    cancels = r.edit_cancels()
    if isinstance(upd, u.ToolCallUpdate):
        why = cancels.tool(sid, upd)
        whys = [] if why is None else [why]
    else:
        whys = cancels.state(sid, upd)
    for why in whys:
        r.report("R73", i, why)


def _state(r: PreviewMemory, i: int, sid: str, upd: object) -> None:
    idle = isinstance(upd, u.IdleStateUpdate)
    if sid in r.parents:
        _r50(r, i, sid, upd)
        if r.child_idle.get(sid) is not idle:
            r.child_idle = r.child_idle.set(sid, idle)
    if r.cancels.windows:
        _r73(r, i, sid, upd)
    # R62: the state after the history. Where the revision has no replay marker (2026-11),
    # the history ends where the agent chooses, so any state_update of the session counts.
    marker = "replay_complete" in r.revision.update_kinds
    for key, resume in oitems(r.resumes) if r.resumes else ():
        if resume.session == sid:
            snapshot = resume.snapshot or not resume.cursor or not marker or sid in resume.marked
            if not resume.stated or snapshot != resume.snapshot:
                served = fast_evolve(resume, stated=True, snapshot=snapshot)
                r.resumes = oset(r.resumes, key, served)
    if idle:
        _r71(r, i, sid)
        cancels = r.edit_cancels() if r.cancels.elicitations else None
        finished = lambda tool: r.tools.get((sid, tool), NEW_TOOL).final  # noqa: E731
        for why in cancels.idle(sid, finished) if cancels is not None else ():
            r.report("R72", i, why)
    background = getattr(upd, "background", UNSET)
    before = r.background.get(sid)
    if before is not None or background is not UNSET:  # else nothing to judge: no list yet
        known = partial(_known, r, sid)
        for rule, why in background_findings(
            r.revision, before, background, known, partial(_finished, r, sid)
        ):
            r.report(rule, i, why)
    if not isinstance(background, tuple):
        if before is not None or sid not in r.background:
            r.background = r.background.set(sid, None)
        return
    listed = tuple(background_items(background))
    if listed != before:
        r.background = r.background.set(sid, listed)


def background_findings(
    revision: Revision,
    before: tuple[tuple[str, str], ...] | None,
    background: object,
    known: Callable[[str, str], bool],
    finished: Callable[[str, str], bool],
) -> list[tuple[str, str]]:
    """R74 of one state update's `background` (a list, or UNSET) after the list `before` (its
    (kind, id) keys; None: not reporting yet): once reporting, every state update carries the
    list; an item is announced before a list names it, finished before a list drops it (R19
    for an item type the revision does not know). `known(kind, id)` and `finished(kind, id)`
    answer from the asker's own view: the checker's of the connection, the agent engine's of
    its session and children (`_engines/_agent_items.py`), so both say the same rule."""
    found: list[tuple[str, str]] = []
    if not isinstance(background, tuple):
        if before is not None:
            found.append(
                (
                    "R74",
                    "state_update without the background list; once an agent reports it, "
                    "every state_update carries it",
                )
            )
        return found
    now = background_items(background)
    for (kind, ident), item in now.items():
        if kind == "other":
            tag = item.raw.get("type") if isinstance(item, u11.OtherBackgroundWork) else None
            enum = (
                open_enum_finding(revision, "background item type", tag)
                if isinstance(tag, str)
                else None
            )
            if enum is not None:
                found.append((enum[0], f"background item: {enum[1]}"))
        elif not known(kind, ident):
            found.append(("R74", f"background lists {kind} {shown(ident)} before announcing it"))
    for kind, ident in before or {}:
        if (kind, ident) not in now and not finished(kind, ident):
            found.append(
                ("R74", f"background drops {kind} {shown(ident)} before reporting it finished")
            )
    return found


def _r50(r: PreviewMemory, i: int, sid: str, upd: object) -> None:
    # The child's own state_update (before `child_idle` records it).
    r.child_work, first = ppop(r.child_work, sid)
    stop = getattr(upd, "stop_reason", None)
    if first is None or not isinstance(stop, str):
        return
    if isinstance(upd, u.IdleStateUpdate) and sid not in r.replaying:
        r.report(
            "R50",
            i,
            f"child {shown(sid)} reports output (line {first}) and ends it with idle "
            f"{shown(stop)}, never having reported `running` on its own session: a child's "
            "foreground state is a state_update on the child",
        )


def _known(r: PreviewMemory, sid: str, kind: str, ident: str) -> bool:
    if kind == "tool_call":
        return (sid, ident) in r.tools
    if kind == "terminal":
        return (sid, ident) in r.terminals
    return ident in r.parents


def _finished(r: PreviewMemory, sid: str, kind: str, ident: str) -> bool:
    if kind == "tool_call":
        return r.tools.get((sid, ident), FINAL_TOOL).final
    if kind == "terminal":
        return r.terminals.get((sid, ident), EXITED).exited
    return kind == "other" or r.child_idle.get(ident, False)


def _r71(r: PreviewMemory, i: int, sid: str) -> None:
    listed = r.background.get(sid) or ()
    for key, cancel_at in oitems(r.cancelled) if r.cancelled else ():
        asked = r.permissions.get(key)
        if asked is None or asked[0] != sid or ("tool_call", asked[2]) in listed:
            continue
        r.cancelled = opop(r.cancelled, key)[0]
        if key not in r.withdrawn:
            r.report(
                "R71",
                i,
                f"the cancelled work ends while permission request {shown(key[1])} (line "
                f"{asked[1]}) is pending since session/cancel (line {cancel_at}) and was "
                "never withdrawn with $/cancel_request",
            )


def _marker(r: PreviewMemory, i: int, sid: str) -> None:
    r.replaying, window = ppop(r.replaying, sid)
    if window is not None:
        key = window.request
        resume = r.resumes.get(key)
        assert resume is not None  # a replay window is its resume's
        r.resumes = oset(r.resumes, key, fast_evolve(resume, marked=resume.marked | {sid}))
        return
    if any(sid in res.marked for _key, res in oitems(r.resumes)):
        r.r57(i, again=sid)
    else:
        r.report(
            "R58",
            i,
            f"replay_complete for {shown(sid)}, but no resume with a replay cursor replays it",
        )


def _suggestions(r: PreviewMemory, i: int, upd: up.PromptSuggestionsUpdate) -> None:
    if r.suggestions is False:
        r.report("R79", i, "prompt_suggestions_update to a client that did not advertise them")
    for s in upd.suggestions:
        if all(isinstance(b, c.TextContent) and not b.text.strip() for b in s.prompt):
            r.report("R79", i, "a prompt suggestion is only empty or whitespace text")


def has_cancel(caps: object) -> bool | None:
    """Whether a capabilities patch permits cancel (None: the patch leaves it unchanged)."""
    if caps is UNSET:
        return None
    cancel = getattr(caps, "cancel", None)
    return cancel is not None and cancel is not UNSET


def background_items(items: tuple[u11.BackgroundWork, ...]) -> dict[tuple[str, str], object]:
    """A background list by (kind, id); items of other types keyed by their raw text."""
    out: dict[tuple[str, str], object] = {}
    for item in items:
        if isinstance(item, u11.BackgroundToolCall):
            out[("tool_call", item.tool_call_id)] = item
        elif isinstance(item, u11.BackgroundTerminal):
            out[("terminal", item.terminal_id)] = item
        elif isinstance(item, u11.BackgroundSubagent):
            out[("subagent", item.session_id)] = item
        else:
            raw = getattr(item, "raw", {})
            out[("other", shown(raw) if isinstance(raw, Mapping) else "")] = item
    return out
