"""Hypothesis strategies for the reducer tests: schema-valid v2 `sessionUpdate` wire dicts.

The reducer tests work on wire dicts first (the reference model of test_state_machine.py reads
them the way the digest's pseudocode does) and decode them for the real reducers. Every dict
drawn here is valid for the strict codec, so `encode_update(decode_update(d)) == d`.

Ids come from small pools so that updates hit existing entities often; message, tool call and
terminal ids share one alphabet on purpose (their namespaces must stay apart).
"""

from __future__ import annotations

import base64
import functools
from typing import Any, Final

from hypothesis import strategies as st

import acp_core as acp

#: The revision these strategies draw wire for: 2026-08 (`notice` and `plan_removed` are
#: unknown kinds there, `_meta` patches replace). The reducer tests that use them reduce,
#: fold and decode with the helpers below, at the same revision.
REVISION: Final = acp.V2_2026_08
reduce = functools.partial(acp.reduce, revision=REVISION)
fold = functools.partial(acp.fold, revision=REVISION)
decode_update = functools.partial(acp.decode_update, revision=REVISION)

# -- ids and small JSON ------------------------------------------------------------------

ID_ALPHABET = "abc01"
ids = st.text(ID_ALPHABET, min_size=1, max_size=3)
message_ids = st.sampled_from(["m1", "m2", "m3"])
tool_call_ids = st.sampled_from(["t1", "t2", "m1"])
terminal_ids = st.sampled_from(["x1", "x2", "t1"])
plan_ids = st.sampled_from(["p1", "p2"])

_scalars = (
    st.none()
    | st.booleans()
    | st.integers(-(2**40), 2**40)
    | st.floats(allow_nan=False, allow_infinity=False, width=32)
    | st.text(max_size=4)
)
json_values: st.SearchStrategy[Any] = st.recursive(
    _scalars,
    lambda inner: (
        st.lists(inner, max_size=2) | st.dictionaries(st.text("kv_", max_size=2), inner, max_size=2)
    ),
    max_leaves=4,
)
metas = st.dictionaries(st.sampled_from(["a", "b", "trace"]), json_values, min_size=0, max_size=2)
texts = st.text(max_size=6)


def record(
    required: dict[str, st.SearchStrategy[Any]], **optional: st.SearchStrategy[Any]
) -> st.SearchStrategy[dict[str, Any]]:
    """A JSON object with `required` keys and any subset of the `optional` ones."""
    return st.fixed_dictionaries(required, optional=optional)


def nullable(s: st.SearchStrategy[Any]) -> st.SearchStrategy[Any]:
    """A patch field value: null or a value (absence comes from `record`'s optional keys)."""
    return st.none() | s


def const(value: Any) -> st.SearchStrategy[Any]:
    return st.just(value)


# -- content ---------------------------------------------------------------------------

text_blocks = record({"type": const("text"), "text": texts}, _meta=nullable(metas))
content_blocks: st.SearchStrategy[dict[str, Any]] = st.one_of(
    text_blocks,
    text_blocks,
    record(
        {"type": const("image"), "data": const("iVBORw0K"), "mimeType": const("image/png")},
        uri=nullable(const("file:///a.png")),
    ),
    record(
        {"type": const("resource_link"), "name": texts, "uri": const("file:///x")},
        size=nullable(st.integers(0, 2**40)),
        title=nullable(texts),
    ),
    record(
        {
            "type": const("resource"),
            "resource": st.one_of(
                record({"uri": const("file:///r"), "text": texts}),
                record({"uri": const("file:///b"), "blob": const("AAE=")}),
            ),
        }
    ),
    record({"type": st.sampled_from(["_custom", "video"])}, payload=json_values),
)

locations = record({"path": const("/src/a.py")}, line=nullable(st.integers(0, 2**32 - 1)))
diff_changes = st.one_of(
    record({"operation": st.sampled_from(["add", "delete", "modify"]), "path": const("/a")}),
    record({"operation": const("move"), "path": const("/b"), "oldPath": const("/a")}),
    record({"operation": const("_rename"), "stuff": json_values}),
)
tool_call_contents: st.SearchStrategy[dict[str, Any]] = st.one_of(
    record({"type": const("content"), "content": content_blocks}, _meta=nullable(metas)),
    record(
        {"type": const("diff"), "changes": st.lists(diff_changes, max_size=2)},
        patch=nullable(record({"format": const("git_patch"), "text": texts})),
    ),
    record({"type": const("terminal"), "terminalId": terminal_ids}, _meta=nullable(metas)),
    record({"type": const("_widget")}, payload=json_values),
)

# -- plans, commands, config, usage ------------------------------------------------------

plan_entries = record(
    {
        "content": texts,
        "priority": st.sampled_from(["high", "medium", "low", "_urgent"]),
        "status": st.sampled_from(["pending", "in_progress", "completed", "cancelled"]),
    }
)
plans = st.one_of(
    record(
        {"type": const("items"), "planId": plan_ids, "entries": st.lists(plan_entries, max_size=3)},
        _meta=nullable(metas),
    ),
    # `markdown` always with its content: from the Preview on it is a plan type that needs it
    record({"type": const("markdown"), "planId": plan_ids, "content": texts}),
    record({"type": const("_board"), "planId": plan_ids}, content=texts),
)
commands = record(
    {"name": st.sampled_from(["web", "test"]), "description": texts},
    input=nullable(
        st.one_of(record({"type": const("text"), "hint": texts}), record({"type": const("_x")}))
    ),
)
_select_options = record({"value": texts, "name": texts}, description=nullable(texts))
config_options = st.one_of(
    record(
        {
            "type": const("select"),
            "configId": const("mode"),
            "name": texts,
            "currentValue": texts,
            "options": st.lists(_select_options, max_size=2),
        },
        category=nullable(st.sampled_from(["mode", "model", "_x"])),
    ),
    record(
        {
            "type": const("boolean"),
            "configId": const("fast"),
            "name": texts,
            "currentValue": st.booleans(),
        }
    ),
    record({"type": const("_slider"), "configId": const("s"), "name": texts}),
)
costs = record(
    {"amount": st.floats(0, 1e6, allow_nan=False) | st.integers(0, 1000), "currency": const("USD")}
)
exit_statuses = record(
    {},
    exitCode=nullable(st.integers(0, 255)),
    signal=nullable(st.sampled_from(["SIGTERM", "SIGKILL"])),
    _meta=nullable(metas),
)


def b64(data: bytes, *, padded: bool = True) -> str:
    """RFC 4648 base64 text of `data` (optionally without `=` padding, which Q24 tolerates)."""
    text = base64.b64encode(data).decode("ascii")
    return text if padded else text.rstrip("=")


byte_strings = st.binary(max_size=8)
base64_texts = st.builds(b64, byte_strings, padded=st.booleans())
#: Base64 that the reducers must reject (Q24): bad alphabet, impossible length, whitespace.
bad_base64_texts = st.sampled_from(["!!!!", "a", "abcde", "YW Jj", "YW-_", "é==="])
maybe_bad_base64 = st.one_of(base64_texts, base64_texts, base64_texts, bad_base64_texts)

# -- updates -------------------------------------------------------------------------------

MESSAGE_CHUNK_TAGS = ("user_message_chunk", "agent_message_chunk", "agent_thought_chunk")
MESSAGE_UPSERT_TAGS = ("user_message", "agent_message", "agent_thought")
#: Removed v1 kinds: unknown on a v2 session (Q32).
V1_TAGS = ("tool_call", "plan", "current_mode_update")


def message_chunks(mid: st.SearchStrategy[str] = message_ids) -> st.SearchStrategy[dict[str, Any]]:
    return record(
        {
            "sessionUpdate": st.sampled_from(MESSAGE_CHUNK_TAGS),
            "messageId": mid,
            "content": content_blocks,
        },
        _meta=nullable(metas),
    )


def message_upserts(mid: st.SearchStrategy[str] = message_ids) -> st.SearchStrategy[dict[str, Any]]:
    return record(
        {"sessionUpdate": st.sampled_from(MESSAGE_UPSERT_TAGS), "messageId": mid},
        content=nullable(st.lists(content_blocks, max_size=3)),
        _meta=nullable(metas),
    )


stop_reasons = st.sampled_from(["end_turn", "cancelled", "refusal", "_paused", "max_tokens"])
state_updates = st.one_of(
    record(
        {"sessionUpdate": const("state_update"), "state": const("running")}, _meta=nullable(metas)
    ),
    record(
        {"sessionUpdate": const("state_update"), "state": const("requires_action")},
        _meta=nullable(metas),
    ),
    record(
        {"sessionUpdate": const("state_update"), "state": const("idle")},
        stopReason=nullable(stop_reasons),
        _meta=nullable(metas),
    ),
    record(
        {"sessionUpdate": const("state_update"), "state": st.sampled_from(["_busy", "paused"])},
        _meta=nullable(metas),
        detail=json_values,
    ),
).map(dict)  # one branch of `wire_updates`, not four (one_of flattens nested one_of)


def tool_call_updates(
    tid: st.SearchStrategy[str] = tool_call_ids,
) -> st.SearchStrategy[dict[str, Any]]:
    return record(
        {"sessionUpdate": const("tool_call_update"), "toolCallId": tid},
        title=nullable(texts),
        kind=nullable(st.sampled_from(["read", "edit", "execute", "other", "_custom"])),
        status=nullable(st.sampled_from(["pending", "in_progress", "completed", "failed", "_x"])),
        content=nullable(st.lists(tool_call_contents, max_size=3)),
        locations=nullable(st.lists(locations, max_size=2)),
        rawInput=nullable(json_values),
        rawOutput=nullable(json_values),
        _meta=nullable(metas),
    )


def tool_call_chunks(
    tid: st.SearchStrategy[str] = tool_call_ids,
) -> st.SearchStrategy[dict[str, Any]]:
    return record(
        {
            "sessionUpdate": const("tool_call_content_chunk"),
            "toolCallId": tid,
            "content": tool_call_contents,
        },
        _meta=nullable(metas),
    )


def terminal_updates(
    xid: st.SearchStrategy[str] = terminal_ids, data: st.SearchStrategy[str] = maybe_bad_base64
) -> st.SearchStrategy[dict[str, Any]]:
    return record(
        {"sessionUpdate": const("terminal_update"), "terminalId": xid},
        command=nullable(st.sampled_from(["cargo test", "ls"])),
        cwd=nullable(const("/home/user/project")),
        output=nullable(record({"data": data}, _meta=nullable(metas))),
        exitStatus=nullable(exit_statuses),
        _meta=nullable(metas),
    )


def terminal_chunks(
    xid: st.SearchStrategy[str] = terminal_ids, data: st.SearchStrategy[str] = maybe_bad_base64
) -> st.SearchStrategy[dict[str, Any]]:
    return record(
        {"sessionUpdate": const("terminal_output_chunk"), "terminalId": xid, "data": data},
        _meta=nullable(metas),
    )


plan_updates = record({"sessionUpdate": const("plan_update"), "plan": plans}, _meta=nullable(metas))
command_updates = record(
    {
        "sessionUpdate": const("available_commands_update"),
        "availableCommands": st.lists(commands, max_size=2),
    },
    _meta=nullable(metas),
)
config_updates = record(
    {
        "sessionUpdate": const("config_option_update"),
        "configOptions": st.lists(config_options, max_size=2),
    },
    _meta=nullable(metas),
)
info_updates = record(
    {"sessionUpdate": const("session_info_update")},
    title=nullable(texts),
    updatedAt=nullable(const("2026-08-22T10:00:00Z")),
    _meta=nullable(metas),
)
usage_updates = record(
    {
        "sessionUpdate": const("usage_update"),
        "used": st.integers(0, 2**64 - 1),
        "size": st.integers(0, 2**64 - 1),
    },
    cost=nullable(costs),
    _meta=nullable(metas),
)
unknown_updates = record(
    {"sessionUpdate": st.sampled_from(["_custom", "notice", "plan_removed", *V1_TAGS])},
    planId=plan_ids,
    payload=json_values,
)


def wire_updates(
    mid: st.SearchStrategy[str] = message_ids,
    tid: st.SearchStrategy[str] = tool_call_ids,
    xid: st.SearchStrategy[str] = terminal_ids,
) -> st.SearchStrategy[dict[str, Any]]:
    """Any v2 session update as a schema-valid wire dict (unknown kinds included)."""
    return st.one_of(
        message_chunks(mid),
        message_chunks(mid),
        message_upserts(mid),
        state_updates,
        tool_call_updates(tid),
        tool_call_chunks(tid),
        terminal_updates(xid),
        terminal_chunks(xid),
        plan_updates,
        command_updates,
        config_updates,
        info_updates,
        usage_updates,
        unknown_updates,
    )


def session_updates() -> st.SearchStrategy[acp.SessionUpdate]:
    """Decoded session update values."""
    return wire_updates().map(lambda d: decode_update(d, strict=True))


def update_lists(max_size: int = 12) -> st.SearchStrategy[list[acp.SessionUpdate]]:
    return st.lists(session_updates(), max_size=max_size)


def states(max_updates: int = 12) -> st.SearchStrategy[acp.SessionState]:
    """States reached by folding random updates into a new session."""
    return st.builds(lambda us: fold(acp.new_session("sess_1"), us), update_lists(max_updates))
