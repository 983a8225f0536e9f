"""Hypothesis strategies: the `sessionUpdate` variants the 2026-11 draft and the Preview added.

Owns: strategies for `_wire/_updates_2026_11.py` (notices, compactions) and
`_wire/_updates_preview.py` (children, inter-session messages, the replay marker, plan removal
and markdown plans, prompt suggestions, `state: "unknown"`), and `later_updates(revision)`: the
ones `revision` defines, each variant drawn only where its `__wire_since__` is in the
revision's lineage.
Must not know: JSON-RPC messages, the variants of 2026-08 (`_strategies_updates.py`).
Public surface: `acp_core.strategies`.
"""

from __future__ import annotations

from typing import Any

from hypothesis import strategies as st

from acp_core._wire import _updates as u
from acp_core._wire import _updates_2026_11 as n
from acp_core._wire import _updates_preview as p
from acp_core._wire._fields import PREVIEW_NAME
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

__all__ = [
    "compaction_summary_chunks",
    "compaction_updates",
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
        title=_texts,
        description=patches(_texts),
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
        compaction_id=_ids,
        status=patches(status) if revision.includes(PREVIEW_NAME) else status,
        summary=patches(_tuples(content_blocks(), max_size=2)),
        error=patches(_texts),
        meta=metas(),
        extra=extras(),
    )


def compaction_summary_chunks() -> st.SearchStrategy[n.CompactionSummaryChunk]:
    """`compaction_summary_chunk` updates (2026-11 on)."""
    return st.builds(
        n.CompactionSummaryChunk,
        compaction_id=_ids,
        content=content_blocks(),
        meta=metas(),
        extra=extras(),
    )


def unknown_state_updates() -> st.SearchStrategy[p.UnknownStateUpdate]:
    """`state_update` with `state: "unknown"` (Preview)."""
    return st.builds(p.UnknownStateUpdate, meta=metas(), extra=extras())


def _child_states() -> st.SearchStrategy[u.StateUpdate]:
    return st.one_of(
        st.builds(u.RunningStateUpdate),
        st.builds(u.IdleStateUpdate, stop_reason=patches(open_enum_values(u.StopReason.KNOWN))),
        st.builds(u.RequiresActionStateUpdate),
    )


def subagent_updates() -> st.SearchStrategy[p.SubagentUpdate]:
    """`subagent_update` (Preview): announce or patch a child session."""
    capabilities = st.builds(
        p.SubagentSessionCapabilities,
        cancel=patches(st.builds(p.SessionCancelCapabilities, meta=metas(), extra=extras())),
        meta=metas(),
        extra=extras(),
    )
    return st.builds(
        p.SubagentUpdate,
        session_id=_ids,
        title=patches(_texts),
        description=patches(_texts),
        capabilities=patches(capabilities),
        state=patches(_child_states()),
        cwd=patches(_paths),
        additional_directories=patches(_tuples(_paths, max_size=2)),
        meta=metas(),
        extra=extras(),
    )


def session_messages() -> st.SearchStrategy[p.SessionMessage]:
    """`session_message` upserts (Preview)."""
    return st.builds(
        p.SessionMessage,
        message_id=_ids,
        sender_session_id=patches(_ids),
        recipient_session_id=patches(_ids),
        sender_message_id=patches(_ids),
        recipient_message_id=patches(_ids),
        content=patches(_tuples(content_blocks(), max_size=2)),
        meta=metas(),
        extra=extras(),
    )


def session_message_chunks() -> st.SearchStrategy[p.SessionMessageChunk]:
    """`session_message_chunk` updates (Preview)."""
    return st.builds(
        p.SessionMessageChunk,
        message_id=_ids,
        content=content_blocks(),
        meta=metas(),
        extra=extras(),
    )


def replay_completes() -> st.SearchStrategy[p.ReplayComplete]:
    """`replay_complete` markers (Preview)."""
    return st.builds(p.ReplayComplete, meta=metas(), extra=extras())


def plan_removals() -> st.SearchStrategy[p.PlanRemoved]:
    """`plan_removed` updates (Preview)."""
    return st.builds(p.PlanRemoved, plan_id=_ids, meta=metas(), extra=extras())


def markdown_plans() -> st.SearchStrategy[p.PlanMarkdown]:
    """`{"type": "markdown"}` plans (Preview; `path` absolute when given)."""
    return st.builds(
        p.PlanMarkdown,
        plan_id=_ids,
        content=_texts,
        path=patches(_paths),
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


def later_updates(*, revision: Revision = DEFAULT_REVISION) -> list[st.SearchStrategy[Any]]:
    """The strategies of the variants `revision` adds to 2026-08 (each where its
    `__wire_since__` is in the revision's lineage; none at 2026-08)."""
    drawn: list[tuple[type[Any], st.SearchStrategy[Any]]] = [
        (n.Notice, notices()),
        (n.CompactionUpdate, compaction_updates(revision=revision)),
        (n.CompactionSummaryChunk, compaction_summary_chunks()),
        (p.UnknownStateUpdate, unknown_state_updates()),
        (p.SubagentUpdate, subagent_updates()),
        (p.SessionMessage, session_messages()),
        (p.SessionMessageChunk, session_message_chunks()),
        (p.ReplayComplete, replay_completes()),
        (p.PlanRemoved, plan_removals()),
        (p.PromptSuggestionsUpdate, prompt_suggestions_updates()),
    ]
    return [s for cls, s in drawn if revision.includes(cls.__wire_since__)]
