"""Child sessions (the Preview): announcing them and reporting on the agent's session or theirs.

Owns: the step of `SendUpdate` (any update on the agent's session or on an announced child's:
announce before use R47, references only to known sessions R56; one parent R48 and
grandchildren on their own parent R49 are the checker's `announce_finding`, asked before an
announcement is reduced; every value rule of one update, absolute child paths R52 among
them, is the checker's own judgement, asked by `Build.obey`), `send_update` (what every step
that reports on a child calls), and `Build.children`, the only steps that change it.
Must not know: I/O; the prompt turn (`_engines/_agent_turn.py`), what a cancel reaches in the
children (`_engines/_agent_cancel.py`), the background list and item cancels
(`_engines/_agent_items.py`), permission requests (`_engines/_agent_permissions.py`).

Where each rule lives. What the client knows about sessions is the connection's view,
`SessionTree` (`_state/_reduce_children.py`): the engine reduces what it sends into the same
tree a client keeps and refuses an update whose reduction the tree would diagnose
(`_TREE_RULES`; an announcement is first judged by the checker's own R48/R49 decider and
traffic for a closed session by its R76 decider, `r76_breach`), so
the view's diagnostics and the engine's refusals cannot disagree. Each
child's lifecycle (running, idle, cancel) is its own conversation machine
(`Build.child_machine`), so R21, R23 and the rest apply per child (R50) with their one home.

`AgentEngine.children` is that tree: the agent's own session is its root (it holds the links
of the children announced on it; the session itself is `AgentEngine.session`), the children
hold everything sent on them.
"""

from __future__ import annotations

from collections.abc import Callable
from typing import Any, Final

from acp_core._errors import AcpError
from acp_core._rules._check_preview import r76_breach
from acp_core._rules._check_preview_updates import announce_finding
from acp_core._rules._naming import named_sessions, naming_rule
from acp_core._state._reduce_children import (
    UNANNOUNCED_SESSION,
    UNKNOWN_SESSION_REFERENCE,
    SessionTree,
    open_session,
    reduce_tree,
)
from acp_core._state._session_state import new_session
from acp_core._wire._codec import decode_part, encode_part
from acp_core._wire._revision import V2_PREVIEW, Revision
from acp_core._wire._updates import (
    IdleStateUpdate,
    OtherStateUpdate,
    RequiresActionStateUpdate,
    RunningStateUpdate,
    SessionUpdate,
)
from acp_core._wire._updates_preview import SubagentUpdate, UnknownStateUpdate

from ._agent_build import Build, as_sent, refuse
from ._intents_preview import SendUpdate

__all__ = ["CHILDREN_STEPS", "on_wire", "send_on_child", "send_update", "tree_refusal"]

#: The tree's diagnostics, as the agent rules they report (`reduce_tree` names them), each
#: with what to do instead. An update naming a session nobody announced (the tree's
#: UNKNOWN_SESSION_REFERENCE) is not here: which rule that breaks depends on how it names it
#: (R47, R56, R74), `named_sessions` says, and the engine refuses it first (`Build.update`).
#: Nor is traffic for a closed session (CLOSED_SESSION_TRAFFIC): the checker's `r76_breach`
#: decides it, asked before the tree reduces anything (`_reduce`).
_TREE_RULES: Final = {
    UNANNOUNCED_SESSION: (
        naming_rule("envelope"),
        "announce it first with SendUpdate(SubagentUpdate(...))",
    ),
}
#: What to do instead, after the checker's R48 / R49 finding on an announcement.
_ANNOUNCE_HINT: Final = (
    "announce and patch a child only on its own parent (session_id=<that parent>); "
    "no session becomes its own descendant"
)
_OWN_STATE: Final = (
    RunningStateUpdate,
    IdleStateUpdate,
    RequiresActionStateUpdate,
    UnknownStateUpdate,
    OtherStateUpdate,
)


def on_wire(revision: Revision, update: SessionUpdate) -> bool:
    """Whether `revision`'s wire carries `update` as it is: what the strict decoder of that
    revision reads back is the same value (a later variant would read as unknown, a later
    field would land in `extra`)."""
    try:
        wire = encode_part("SessionUpdate", update, revision=revision)
        back = decode_part("SessionUpdate", wire, revision=revision)
    except AcpError:
        return False
    return bool(back == update)


def _reduce(b: Build, target: str, update: SessionUpdate) -> SessionTree:
    """The tree after sending `update` on `target`; refused when the tree would diagnose it."""
    tree = b.children
    if b.engine.session_id not in tree.sessions:  # an engine built without `new_agent`
        tree = open_session(tree, b.engine.session_id, revision=b.engine.revision)
    if target in tree.closed:  # R76: the checker's decider, on the engine's tree
        found = r76_breach(target, True)
        if found is not None:
            raise refuse(found[0], f"{found[1]} (send nothing more for it)")
    if type(update) is SubagentUpdate:  # R48, R49: the checker's decider, on the engine's tree
        found = announce_finding(tree.parents, target, update.session_id)
        if found is not None:
            raise refuse(found[0], f"{found[1]} ({_ANNOUNCE_HINT})")
    after = reduce_tree(tree, target, update, revision=b.engine.revision)
    for diagnostic in after.diagnostics[len(tree.diagnostics) :]:
        if diagnostic.rule == UNKNOWN_SESSION_REFERENCE:
            continue  # a name the client knows elsewhere: `Build.name_known` judged each
        rule, hint = tree_refusal(tree, target, update, diagnostic.rule)
        raise refuse(rule, f"{diagnostic.message} ({diagnostic.path}): {hint}")
    return after


def tree_refusal(
    tree: SessionTree, target: str, update: SessionUpdate, diagnostic: str
) -> tuple[str, str]:
    """The rule, and what to do instead, for the tree's `diagnostic` on `update` sent on
    `target` (the tree before it). The tree's REPARENT never comes here: `_reduce` asks the
    checker's `announce_finding` of every announcement first."""
    known = _TREE_RULES.get(diagnostic)
    if known is not None:
        return known
    # An unknown session named (see `_TREE_RULES`): the rule of how the update names it.
    unknown = (rule for sid, rule in named_sessions(update) if sid not in tree.sessions)
    return next(
        unknown, naming_rule("envelope")
    ), "announce it first with SendUpdate(SubagentUpdate(...))"


def send_on_child(b: Build, target: str, update: SessionUpdate) -> None:
    """Send `update` on the announced child `target`: the tree judges it (R47, R48, R49, R76),
    then the checker's judgement of one update, on the child as it was (`Build.obey`)."""
    update = as_sent(update, b.engine.revision)
    before = b.children.sessions.get(target)
    for named, rule in named_sessions(update):  # before the tree diagnoses the names
        b.name_known(target, named, rule)
    b.children = _reduce(b, target, update)
    b.update_child(target, update, before if before is not None else new_session(target))


def send_update(b: Build, update: SessionUpdate, session_id: str | None) -> None:
    """`SendUpdate`: report `update` on the agent's session or on an announced child's."""
    engine = b.engine
    # The intent's value was read back at the Preview when it was built (`_intents_preview`),
    # so only an earlier revision needs the round trip.
    if engine.revision is not V2_PREVIEW and not on_wire(engine.revision, update):
        raise refuse(
            "E0",
            f"{type(update).__name__} as given is not on the {engine.revision.name} wire "
            "(a later revision's update or field)",
        )
    own = session_id is None or session_id == engine.session_id
    if own and isinstance(update, _OWN_STATE):
        raise refuse("E1", "the agent's own state is reported by StartWork / EndTurn")
    target = engine.session_id if own else session_id
    assert target is not None
    if not own:
        send_on_child(b, target, update)
        return
    if type(update) is SubagentUpdate:  # an announcement on the agent's own session
        b.children = _reduce(b, target, update)
    b.update(update)  # named sessions (R47, R56) and `Build.obey` (R52 ...), for every intent


def _send_update(b: Build, intent: SendUpdate) -> None:
    send_update(b, intent.update, intent.session_id)


CHILDREN_STEPS: Final[dict[type[Any], Callable[[Build, Any], None]]] = {SendUpdate: _send_update}
