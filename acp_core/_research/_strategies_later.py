"""Hypothesis strategies: the `sessionUpdate` variants the 2026-11 draft and the Preview added.

Owns: strategies for `_wire/_updates_2026_11.py` (notices, compactions) and
`_wire/_updates_preview.py` (children, inter-session messages, the replay marker, plan removal
and markdown plans, prompt suggestions; `state: "unknown"` and the background work of
`_wire/_updates_2026_11.py` are `_strategies_states.py`'s), and `later_updates(revision)`: the
ones `revision` defines, each variant drawn only where its `__wire_since__` is in the
revision's lineage; and `derived_values(cls, revision)`, the strategy a later variant without
a hand-written one gets from its attrs fields (so a new variant needs none, unless its values
must be more specific than its annotations and field names say).
Must not know: JSON-RPC messages, the variants of 2026-08 (`_strategies_updates.py`).
Public surface: `acp_core.strategies`.
"""

from __future__ import annotations

import typing
from collections.abc import Callable
from typing import Any, Final

import attrs

from acp_core._wire import _updates as u
from acp_core._wire import _updates_2026_11 as n
from acp_core._wire import _updates_preview as p
from acp_core._wire._codec_tables import _NAMESPACE
from acp_core._wire._content import ContentBlock
from acp_core._wire._fields import PREVIEW_NAME, WIRE
from acp_core._wire._json import Unset
from acp_core._wire._revision import DEFAULT_REVISION, Revision

from ._strategies_base import (
    _ids,
    _paths,
    _texts,
    _tuples,
    extras,
    metas,
    open_enum_values,
    patches,
)
from ._strategies_content import content_blocks
from ._strategies_states import known_states, unknown_state_updates

TYPE_CHECKING = False
if TYPE_CHECKING:
    from hypothesis import strategies as st
else:
    from ._hypothesis import st  # hypothesis is imported when a strategy is first built

__all__ = [
    "WRITTEN",
    "compaction_summary_chunks",
    "compaction_updates",
    "derived_values",
    "later_updates",
    "markdown_plans",
    "notices",
    "plan_removals",
    "prompt_suggestions_updates",
    "replay_completes",
    "session_message_chunks",
    "session_messages",
    "subagent_updates",
    "unknown_state_updates",
]


def notices() -> st.SearchStrategy[n.Notice]:
    """`notice` updates (2026-11 on): open-enum severity, a title, maybe a description."""
    return st.builds(
        n.Notice,
        severity=open_enum_values(n.NoticeSeverity.KNOWN),
        title=_texts(),
        description=patches(_texts()),
        meta=metas(),
        extra=extras(),
    )


def compaction_updates(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[n.CompactionUpdate]:
    """`compaction_update` (2026-11 on): `status` required at 2026-11, a patch in the Preview."""
    status = open_enum_values(n.CompactionStatus.KNOWN)
    return st.builds(
        n.CompactionUpdate,
        compaction_id=_ids(),
        status=patches(status) if revision.includes(PREVIEW_NAME) else status,
        summary=patches(_tuples(content_blocks(), max_size=2)),
        error=patches(_texts()),
        meta=metas(),
        extra=extras(),
    )


def compaction_summary_chunks() -> st.SearchStrategy[n.CompactionSummaryChunk]:
    """`compaction_summary_chunk` updates (2026-11 on)."""
    return st.builds(
        n.CompactionSummaryChunk,
        compaction_id=_ids(),
        content=content_blocks(),
        meta=metas(),
        extra=extras(),
    )


def _child_states(revision: Revision) -> st.SearchStrategy[u.StateUpdate]:
    # A child's mirrored state: every state `revision` knows, with what it carries there.
    return st.one_of(known_states(revision=revision))


def subagent_updates(
    *, revision: Revision = DEFAULT_REVISION
) -> st.SearchStrategy[p.SubagentUpdate]:
    """`subagent_update` (Preview): announce or patch a child session (its mirrored `state`
    any state `revision` knows)."""
    capabilities = st.builds(
        p.SubagentSessionCapabilities,
        cancel=patches(st.builds(p.SessionCancelCapabilities, meta=metas(), extra=extras())),
        meta=metas(),
        extra=extras(),
    )
    return st.builds(
        p.SubagentUpdate,
        session_id=_ids(),
        title=patches(_texts()),
        description=patches(_texts()),
        capabilities=patches(capabilities),
        state=patches(_child_states(revision)),
        cwd=patches(_paths()),
        additional_directories=patches(_tuples(_paths(), max_size=2)),
        meta=metas(),
        extra=extras(),
    )


def session_messages() -> st.SearchStrategy[p.SessionMessage]:
    """`session_message` upserts (Preview)."""
    return st.builds(
        p.SessionMessage,
        message_id=_ids(),
        sender_session_id=patches(_ids()),
        recipient_session_id=patches(_ids()),
        sender_message_id=patches(_ids()),
        recipient_message_id=patches(_ids()),
        content=patches(_tuples(content_blocks(), max_size=2)),
        meta=metas(),
        extra=extras(),
    )


def session_message_chunks() -> st.SearchStrategy[p.SessionMessageChunk]:
    """`session_message_chunk` updates (Preview)."""
    return st.builds(
        p.SessionMessageChunk,
        message_id=_ids(),
        content=content_blocks(),
        meta=metas(),
        extra=extras(),
    )


def replay_completes() -> st.SearchStrategy[p.ReplayComplete]:
    """`replay_complete` markers (Preview)."""
    return st.builds(p.ReplayComplete, meta=metas(), extra=extras())


def plan_removals() -> st.SearchStrategy[p.PlanRemoved]:
    """`plan_removed` updates (Preview)."""
    return st.builds(p.PlanRemoved, plan_id=_ids(), meta=metas(), extra=extras())


def markdown_plans() -> st.SearchStrategy[p.PlanMarkdown]:
    """`{"type": "markdown"}` plans (Preview; `path` absolute when given)."""
    return st.builds(
        p.PlanMarkdown,
        plan_id=_ids(),
        content=_texts(),
        path=patches(_paths()),
        meta=metas(),
        extra=extras(),
    )


def prompt_suggestions_updates() -> st.SearchStrategy[p.PromptSuggestionsUpdate]:
    """`prompt_suggestions_update` (Preview, unstable): `()` withdraws every suggestion."""
    suggestion = st.builds(
        p.PromptSuggestion,
        prompt=_tuples(content_blocks(), min_size=1, max_size=2),
        meta=metas(),
        extra=extras(),
    )
    return st.builds(
        p.PromptSuggestionsUpdate,
        suggestions=_tuples(suggestion, max_size=2),
        meta=metas(),
        extra=extras(),
    )


#: The later variants whose values are more specific than their fields say (an open enum, a
#: shape that changes with the revision, a nested union): variant -> its strategy at a revision.
#: Every other later variant of the union is drawn by `derived_values`.
WRITTEN: Final[dict[type[Any], Callable[[Revision], st.SearchStrategy[Any]]]] = {
    n.Notice: lambda revision: notices(),
    n.CompactionUpdate: lambda revision: compaction_updates(revision=revision),
    n.CompactionSummaryChunk: lambda revision: compaction_summary_chunks(),
    p.UnknownStateUpdate: lambda revision: unknown_state_updates(revision=revision),
    p.SubagentUpdate: lambda revision: subagent_updates(revision=revision),
    p.SessionMessage: lambda revision: session_messages(),
    p.SessionMessageChunk: lambda revision: session_message_chunks(),
    p.ReplayComplete: lambda revision: replay_completes(),
    p.PlanRemoved: lambda revision: plan_removals(),
    p.PromptSuggestionsUpdate: lambda revision: prompt_suggestions_updates(),
}

# -- derived from the attrs fields -----------------------------------------------------------


def _scalar(name: str, kind: object) -> st.SearchStrategy[Any] | None:
    """A field's values by its name and plain type: paths absolute, ids short, text short."""
    if kind is bool:
        return st.booleans()
    if kind is not str:
        return None
    if name in ("path", "cwd") or name.endswith(("_path", "_dir")):
        return _paths()  # every path the protocol carries is absolute (R33, R52, R78)
    if name == "id" or name.endswith("_id"):
        return _ids()
    return _texts()


def _of_type(
    owner: type[Any], name: str, kind: object, revision: Revision, min_size: int = 0
) -> Any:
    scalar = _scalar(name, kind)
    if scalar is not None:
        return scalar
    if kind is ContentBlock:
        return content_blocks()
    args = typing.get_args(kind)
    if typing.get_origin(kind) is tuple and len(args) == 2 and args[1] is Ellipsis:
        items = _of_type(owner, name, args[0], revision)
        return _tuples(items, min_size=min_size, max_size=max(2, min_size))
    rest = [a for a in args if a not in (Unset, type(None))]
    if Unset in args and type(None) in args and len(rest) == 1:  # Patch[T]: absent/null/value
        return patches(_of_type(owner, name, rest[0], revision, min_size))
    if type(None) in args and len(args) == 2:  # T | None
        return st.none() | _of_type(owner, name, rest[0], revision, min_size)
    if isinstance(kind, type) and attrs.has(kind):
        return derived_values(kind, revision=revision)
    raise TypeError(
        f"no derived strategy for {owner.__name__}.{name} ({kind!r}): write one for "
        f"{owner.__name__} in _research/_strategies_later.py"
    )


def derived_values(cls: type[Any], *, revision: Revision = DEFAULT_REVISION) -> Any:
    """Values of the attrs class `cls` drawn from its fields: `meta` and `extra` as every
    value's, `str` by the field's name (`path`/`cwd`/`*_path`: absolute paths; `*_id`: ids;
    else short text), `bool`, content blocks, tuples (at least `wire(min_items=...)` items),
    `Patch[T]`, `T | None`, nested attrs classes. A field a later revision adds is drawn only
    where `revision` carries it.

    Raises:
        TypeError: a field of another type (that class needs a hand-written strategy).
    """
    namespace = dict(_NAMESPACE)  # the names every wire class's annotations use
    fields: dict[str, Any] = {}
    for field in attrs.fields(cls):
        wire = field.metadata.get(WIRE)
        if wire is not None and wire.since is not None and not revision.includes(wire.since):
            continue  # not on this revision's wire: left at its default
        if field.name == "meta":
            fields["meta"] = metas()
        elif field.name == "extra":
            fields["extra"] = extras()
        else:
            kind = field.type
            if isinstance(kind, str):  # `from __future__ import annotations`: our own classes
                kind = eval(kind, namespace)
            least = 0 if wire is None else wire.min_items  # `wire(min_items=1)` lists
            fields[field.name] = _of_type(cls, field.name, kind, revision, least)
    return st.builds(cls, **fields)


def later_updates(*, revision: Revision = DEFAULT_REVISION) -> list[st.SearchStrategy[Any]]:
    """The strategies of the variants `revision` adds to 2026-08 (each where its
    `__wire_since__` is in the revision's lineage; none at 2026-08): the hand-written ones
    below, and `derived_values` for every later variant of the union without one."""
    drawn: list[tuple[type[Any], st.SearchStrategy[Any]]] = []
    for cls in typing.get_args(u.SessionUpdate):
        since = getattr(cls, "__wire_since__", None)
        if since is None or not revision.includes(since):
            continue
        written = WRITTEN.get(cls)
        drawn.append(
            (cls, derived_values(cls, revision=revision) if written is None else written(revision))
        )
    return [s for _, s in drawn]
