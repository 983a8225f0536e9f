"""The judge's quiet and tool paths (`observe_connection`) against its full path
(`observe_connection_fully`) over generated whole conversations (`acp_core.strategies.traces`
at 2026-11 and the Preview: children, resumes and their replays, cancels, closes), with
tool call updates of every shape put in anywhere (first sights, finishes, names and
renames, capabilities, content null, plain or naming a session, on known, child, closed or
unknown sessions) and some envelopes judged J3: the same state and findings at every
message."""

from __future__ import annotations

from typing import Any

from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

import acp_core as acp
from acp_core._rules import _check_preview as cp
from acp_core.codec import decode_message
from acp_core.strategies import traces

_TOOL_FIELDS = st.fixed_dictionaries(
    {"toolCallId": st.sampled_from(["t1", "t2", ""])},
    optional={
        "title": st.sampled_from(["Read", ""]),
        "status": st.sampled_from(["pending", "in_progress", "completed", "failed", "cancelled"]),
        "name": st.sampled_from(["read", "write"]),
        "capabilities": st.sampled_from([{}, {"cancel": True}, {"cancel": False}]),
        "content": st.sampled_from(
            [
                None,
                [],
                [{"type": "content", "content": {"type": "text", "text": "x"}}],
                [{"type": "session", "sessionId": "SID"}],
                [{"type": "session", "sessionId": "sess_far"}],
                [{"type": "terminal", "terminalId": "x1"}],
                [{"type": "diff", "path": "/a", "oldText": None, "newText": "n"}],
                [{"type": "mystery", "x": 1}],
            ]
        ),
    },
)


_BG = [{"type": "tool_call", "toolCallId": "t1"}, {"type": "tool_call", "toolCallId": "t2"}]
#: A running state listing t1 and t2 as background work.
_LISTED = {"sessionUpdate": "state_update", "state": "running", "background": _BG}


def _agent(sid: str, update: dict[str, Any]) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "method": "session/update",
               "params": {"sessionId": sid, "update": update}}  # fmt: skip
    return {"from": "agent", "message": message}


def _session_ids(trace: tuple[dict[str, Any], ...]) -> list[str]:
    found: list[str] = []
    for entry in trace:
        message = entry["message"]
        for part in (message.get("params"), message.get("result")):
            if isinstance(part, dict):
                sid = part.get("sessionId")
                update = part.get("update")
                child = update.get("sessionId") if isinstance(update, dict) else None
                for s in (sid, child):
                    if isinstance(s, str) and s not in found:
                        found.append(s)
    return found


@st.composite
def _cases(draw: st.DrawFn) -> tuple[acp.Revision, list[dict[str, Any]], list[bool]]:
    revision = draw(st.sampled_from([acp.V2_2026_11, acp.V2_PREVIEW]))
    trace = list(draw(traces(revision=revision, sessions=draw(st.integers(1, 2)))))
    sids = [*_session_ids(tuple(trace)), "sess_unknown"]
    focus = draw(st.sampled_from(sids))  # most insertions go to one session
    for _ in range(draw(st.integers(0, 16))):
        at = draw(st.integers(0, len(trace)))
        sid = draw(st.sampled_from([focus, focus, *sids]))
        kind = draw(st.integers(0, 5))
        if kind == 5:
            # a cancel window over t1 and t2 (R73): both known and running, listed, cancelled
            opened = {"title": "Read", "status": "in_progress", "toolCallId": "t1"}
            block = [
                _agent(sid, {"sessionUpdate": "tool_call_update", **opened}),
                _agent(sid, {**opened, "toolCallId": "t2", "sessionUpdate": "tool_call_update"}),
                _agent(sid, _LISTED),
                {"from": "client", "message": {"jsonrpc": "2.0", "method": "session/cancel",
                                               "params": {"sessionId": sid}}},
                # and an end of one of them, cancelled or not (R73 judges the former)
                _agent(sid, {"sessionUpdate": "tool_call_update",
                             "toolCallId": draw(st.sampled_from(["t1", "t2"])),
                             "status": draw(st.sampled_from(["cancelled", "completed"]))}),
            ]  # fmt: skip
            trace[at:at] = block
            continue
        fields = dict(draw(_TOOL_FIELDS))
        if isinstance(fields.get("content"), list):
            fields["content"] = [
                {**item, "sessionId": draw(st.sampled_from(sids))}
                if item.get("sessionId") == "SID"
                else item
                for item in fields["content"]
            ]
        trace.insert(at, _agent(sid, {"sessionUpdate": "tool_call_update", **fields}))
    j3 = draw(st.lists(st.booleans(), min_size=len(trace), max_size=len(trace)))
    return revision, trace, j3


@settings(max_examples=120, deadline=None, suppress_health_check=[HealthCheck.data_too_large])
@given(_cases())
def test_the_quick_paths_equal_the_full_one_on_generated_conversations(
    case: tuple[acp.Revision, list[dict[str, Any]], list[bool]],
) -> None:
    revision, trace, j3 = case
    quick = full = cp.PreviewState(revision)
    for at, entry in enumerate(trace):
        try:
            message = decode_message(entry["message"], revision=revision)
        except acp.DecodeError:
            continue
        if isinstance(message, list) or type(message).__name__ == "Batch":
            continue
        sid = getattr(message, "session_id", None)
        judged = j3[at] and sid is not None and at % 5 == 0
        quick, found_quick = cp.observe_connection(
            quick, at, entry["from"], message, session=sid, judged_j3=judged
        )
        full, found_full = cp.observe_connection_fully(
            full, at, entry["from"], message, session=sid, judged_j3=judged
        )
        assert found_quick == found_full, (at, entry)
        assert quick == full, (at, entry)
    assert cp.finish_connection(quick) == cp.finish_connection(full)
