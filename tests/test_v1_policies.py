"""Table tests for each v1 normalizer policy, on the updates the normalizer emits.

Traces are written in a small script: `a`/`t`/`u` are agent/thought/user chunks (`a#m1`
carries messageId `m1`), `tool`/`upd` a tool call and an update to it, `plan`, `usage`,
`mode` (a removed kind) and `prompt` a new `session/prompt`. The expected column lists the
emitted message updates as (type, message id, text).
"""

from __future__ import annotations

from collections import Counter
from typing import Any

import pytest
from v1_view import chunk, prompt, result, text, update

import acp_core as acp

S = "s"
_KINDS = {"a": "agent_message_chunk", "t": "agent_thought_chunk", "u": "user_message_chunk"}


def _entry(step: tuple[Any, ...], n: int) -> dict[str, Any]:
    op = step[0]
    if op == "tool":
        return update(
            S,
            {
                "sessionUpdate": "tool_call",
                "toolCallId": f"c{n}",
                "title": "T",
                "status": "pending",
            },
        )
    if op == "upd":
        return update(
            S, {"sessionUpdate": "tool_call_update", "toolCallId": "c", "status": "completed"}
        )
    if op == "plan":
        return update(S, {"sessionUpdate": "plan", "entries": []})
    if op == "usage":
        return update(S, {"sessionUpdate": "usage_update", "used": 1, "size": 10})
    if op == "mode":
        return update(S, {"sessionUpdate": "current_mode_update", "currentModeId": "x"})
    if op == "prompt":
        return prompt(S, n, *[text(t) for t in step[1:]])
    if op == "end":
        return result(step[1])
    if op == "raw":
        return update(S, step[1])
    kind, _, message_id = op.partition("#")
    return chunk(S, _KINDS[kind], step[1], message_id or None)


def run(steps: list[tuple[Any, ...]], **policy: Any) -> acp.V1Result:
    entries = [_entry(step, n) for n, step in enumerate(steps)]
    return acp.normalize_v1(entries, acp.V1Policy(**policy))


def messages(out: acp.V1Result) -> list[tuple[Any, ...]]:
    """The emitted message updates as (type, id, text); other updates are left out."""
    rows: list[tuple[Any, ...]] = []
    for item in out.updates:
        u = item.update
        if isinstance(u, (acp.AgentMessageChunk, acp.AgentThoughtChunk, acp.UserMessageChunk)):
            block = u.content
            rows.append(
                (
                    type(u).__name__,
                    u.message_id,
                    block.text if isinstance(block, acp.TextContent) else "*",
                )
            )
        elif isinstance(u, (acp.AgentMessage, acp.AgentThought, acp.UserMessage)):
            assert isinstance(u.content, tuple)
            body = "".join(b.text for b in u.content if isinstance(b, acp.TextContent))
            rows.append((type(u).__name__, u.message_id, body))
    return rows


def chunk_ids(out: acp.V1Result) -> list[str]:
    return [row[1] for row in messages(out) if row[0].endswith("Chunk")]


# -- the boundary rule ---------------------------------------------------------------------

A1, A2, A3 = "v1:agent:1", "v1:agent:2", "v1:agent:3"

BOUNDARY = [
    # (name, policy, steps, ids the chunks get)
    ("same role continues", {}, [("a", "x"), ("a", "y")], [A1, A1]),
    ("role change splits", {}, [("a", "x"), ("t", "y"), ("a", "z")], [A1, "v1:thought:2", A3]),
    (
        "role change kept together",
        {"role_change": False},
        [("a", "x"), ("t", "y"), ("a", "z")],
        [A1, "v1:thought:2", A1],
    ),
    ("tool call splits", {}, [("a", "x"), ("tool",), ("a", "y")], [A1, A2]),
    ("tool update splits", {}, [("a", "x"), ("upd",), ("a", "y")], [A1, A2]),
    (
        "tool calls ignored",
        {"tool_calls": False},
        [("a", "x"), ("tool",), ("upd",), ("a", "y")],
        [A1, A1],
    ),
    ("plan splits", {}, [("a", "x"), ("plan",), ("a", "y")], [A1, A2]),
    ("plans ignored", {"plans": False}, [("a", "x"), ("plan",), ("a", "y")], [A1, A1]),
    ("other update splits", {}, [("a", "x"), ("usage",), ("a", "y")], [A1, A2]),
    ("removed kind splits", {}, [("a", "x"), ("mode",), ("a", "y")], [A1, A2]),
    (
        "other updates ignored",
        {"other_updates": False},
        [("a", "x"), ("usage",), ("a", "y")],
        [A1, A1],
    ),
    (
        "a turn always splits",
        {"role_change": False, "tool_calls": False, "plans": False, "other_updates": False},
        [("a", "x"), ("prompt", "q"), ("a", "y"), ("end", 1), ("a", "z")],
        [A1, A2, A3],
    ),
    (
        "a real id ends the run of its role",
        {},
        [("a", "x"), ("a#m1", "y"), ("a", "z")],
        [A1, "m1", A2],
    ),
    (
        "a real id of another role splits",
        {},
        [("a", "x"), ("t#m1", "y"), ("a", "z")],
        [A1, "m1", A2],
    ),
    (
        "a real id of another role, role change off",
        {"role_change": False},
        [("a", "x"), ("t#m1", "y"), ("a", "z")],
        [A1, "m1", A1],
    ),
]


@pytest.mark.parametrize(
    ("policy", "steps", "expected"), [row[1:] for row in BOUNDARY], ids=[row[0] for row in BOUNDARY]
)
def test_boundary_policy(policy: dict[str, Any], steps: list[Any], expected: list[str]) -> None:
    out = run(steps, boundary=acp.BoundaryPolicy(**policy))
    assert chunk_ids(out) == expected
    synthetic = {i for i in expected if i.startswith("v1:")}
    counts = Counter(d.rule for d in out.diagnostics)
    assert counts["v1.synthetic-message-id"] == len(synthetic)


# -- the full-reply guard ------------------------------------------------------------------

GUARD = [
    (
        "deltas then the whole reply: replaced",
        True,
        [("a", "Hel"), ("a", "lo"), ("a#m", "Hello")],
        [
            ("AgentMessageChunk", A1, "Hel"),
            ("AgentMessageChunk", A1, "lo"),
            ("AgentMessage", A1, "Hello"),
        ],
        1,
    ),
    (
        "guard off: the reply shows twice",
        False,
        [("a", "Hel"), ("a", "lo"), ("a#m", "Hello")],
        [
            ("AgentMessageChunk", A1, "Hel"),
            ("AgentMessageChunk", A1, "lo"),
            ("AgentMessageChunk", "m", "Hello"),
        ],
        0,
    ),
    (
        "different text is a different message",
        True,
        [("a", "Hel"), ("a#m", "Help")],
        [("AgentMessageChunk", A1, "Hel"), ("AgentMessageChunk", "m", "Help")],
        0,
    ),
    (
        "a tool call in between: not the same reply",
        True,
        [("a", "Hi"), ("tool",), ("a#m", "Hi")],
        [("AgentMessageChunk", A1, "Hi"), ("AgentMessageChunk", "m", "Hi")],
        0,
    ),
    (
        "thought and text re-sent whole",
        True,
        [("t", "x"), ("a", "y"), ("t#m", "x"), ("a#n", "y")],
        [
            ("AgentThoughtChunk", "v1:thought:1", "x"),
            ("AgentMessageChunk", A2, "y"),
            ("AgentThought", "v1:thought:1", "x"),
            ("AgentMessage", A2, "y"),
        ],
        2,
    ),
    (
        "the real id then names the synthetic message",
        True,
        [("a", "Hi"), ("a#m", "Hi"), ("a#m", " more")],
        [
            ("AgentMessageChunk", A1, "Hi"),
            ("AgentMessage", A1, "Hi"),
            ("AgentMessageChunk", A1, " more"),
        ],
        1,
    ),
    (
        "a run with a non-text block is never matched",
        True,
        [
            ("a", "Hi"),
            (
                "raw",
                {
                    "sessionUpdate": "agent_message_chunk",
                    "content": {"type": "image", "data": "AA==", "mimeType": "image/png"},
                },
            ),
            ("a#m", "Hi"),
        ],
        [
            ("AgentMessageChunk", A1, "Hi"),
            ("AgentMessageChunk", A1, "*"),
            ("AgentMessageChunk", "m", "Hi"),
        ],
        0,
    ),
    (
        "empty text is never matched",
        True,
        [("a", ""), ("a#m", "")],
        [("AgentMessageChunk", A1, ""), ("AgentMessageChunk", "m", "")],
        0,
    ),
    (
        "id-less deltas then the whole text, also id-less: replaced",
        True,
        [("a", "Hel"), ("a", "lo"), ("a", "Hello"), ("a", " again")],
        [
            ("AgentMessageChunk", A1, "Hel"),
            ("AgentMessageChunk", A1, "lo"),
            ("AgentMessage", A1, "Hello"),
            ("AgentMessageChunk", A2, " again"),
        ],
        1,
    ),
    (
        "id-less: one chunk said twice is a stutter, kept",
        True,
        [("a", "ha"), ("a", "ha")],
        [("AgentMessageChunk", A1, "ha"), ("AgentMessageChunk", A1, "ha")],
        0,
    ),
    (
        "id-less: a thought and its text re-sent whole",
        True,
        [("t", "x"), ("t", "y"), ("a", "p"), ("a", "q"), ("t", "xy"), ("a", "pq")],
        [
            ("AgentThoughtChunk", "v1:thought:1", "x"),
            ("AgentThoughtChunk", "v1:thought:1", "y"),
            ("AgentMessageChunk", A2, "p"),
            ("AgentMessageChunk", A2, "q"),
            ("AgentThought", "v1:thought:1", "xy"),
            ("AgentMessage", A2, "pq"),
        ],
        2,
    ),
    (
        "id-less, guard off: the reply shows twice",
        False,
        [("a", "Hel"), ("a", "lo"), ("a", "Hello")],
        [
            ("AgentMessageChunk", A1, "Hel"),
            ("AgentMessageChunk", A1, "lo"),
            ("AgentMessageChunk", A1, "Hello"),
        ],
        0,
    ),
    (
        "only the run of the same role counts",
        True,
        [("t", "Hi"), ("a#m", "Hi")],
        [("AgentThoughtChunk", "v1:thought:1", "Hi"), ("AgentMessageChunk", "m", "Hi")],
        0,
    ),
]


@pytest.mark.parametrize(
    ("guard", "steps", "expected", "replaced"),
    [row[1:] for row in GUARD],
    ids=[row[0] for row in GUARD],
)
def test_full_reply_guard(
    guard: bool, steps: list[Any], expected: list[Any], replaced: int
) -> None:
    out = run(steps, full_reply_guard=guard)
    assert messages(out) == expected
    assert Counter(d.rule for d in out.diagnostics)["v1.duplicate-full-reply"] == replaced


def test_full_reply_guard_keeps_the_chunks_own_meta() -> None:
    steps = [
        ("a", "Hi"),
        (
            "raw",
            {
                "sessionUpdate": "agent_message_chunk",
                "messageId": "m",
                "content": text("Hi"),
                "_meta": {"k": 1},
            },
        ),
    ]
    out = run(steps)
    updates = [u.update for u in out.updates]
    assert updates[1:] == [
        acp.AgentMessage(A1, ()),
        acp.AgentMessageChunk(A1, acp.TextContent("Hi"), acp.freeze_json({"k": 1})),  # type: ignore[arg-type]
    ]


# -- echo reconciliation -------------------------------------------------------------------

P1 = "v1:prompt:0"
ECHO = [
    # (name, mode, steps after the prompt "hello world", emitted after UserMessage, rule counts)
    (
        "drop: the echo disappears",
        "drop",
        [("u", "hello "), ("u", "world")],
        [],
        {"v1.echo-suppressed": 2},
    ),
    (
        "drop: a chunk that is not the prompt is kept",
        "drop",
        [("u", "hello "), ("u", "there")],
        [("UserMessageChunk", "v1:user:1", "there")],
        {"v1.echo-suppressed": 1},
    ),
    ("drop: an echo with an id", "drop", [("u#e1", "hello world")], [], {"v1.echo-suppressed": 1}),
    (
        "drop: after the reply started it is a user message",
        "drop",
        [("a", "ok"), ("u", "hello world")],
        [
            ("AgentMessageChunk", "v1:agent:1", "ok"),
            ("UserMessageChunk", "v1:user:2", "hello world"),
        ],
        {"v1.echo-suppressed": 0},
    ),
    (
        "drop: a tool call starts the reply too",
        "drop",
        [("tool",), ("u", "hello world")],
        [("UserMessageChunk", "v1:user:1", "hello world")],
        {"v1.echo-suppressed": 0},
    ),
    (
        "drop: a thought does not end the echo window",
        "drop",
        [("t", "..."), ("u", "hello world"), ("t", "more")],
        [
            ("AgentThoughtChunk", "v1:thought:1", "..."),
            ("AgentThoughtChunk", "v1:thought:1", "more"),
        ],
        {"v1.echo-suppressed": 1},
    ),
    (
        "drop: nor does a plan",
        "drop",
        [("plan",), ("u", "hello "), ("u", "world")],
        [],
        {"v1.echo-suppressed": 2},
    ),
    (
        "drop: metadata does not end the echo window",
        "drop",
        [("usage",), ("u", "hello world")],
        [],
        {"v1.echo-suppressed": 1},
    ),
    (
        "replace: the echo becomes the prompt's content",
        "replace",
        [("u", "hello "), ("u#e1", "World")],
        [
            ("UserMessage", P1, ""),
            ("UserMessageChunk", P1, "hello "),
            ("UserMessageChunk", P1, "World"),
        ],
        {"v1.echo-replaces-prompt": 1},
    ),
    (
        "keep: the echo is a second user message",
        "keep",
        [("u", "hello world")],
        [("UserMessageChunk", "v1:user:1", "hello world")],
        {"v1.echo-suppressed": 0, "v1.echo-replaces-prompt": 0},
    ),
]


@pytest.mark.parametrize(
    ("mode", "steps", "expected", "rules"), [row[1:] for row in ECHO], ids=[row[0] for row in ECHO]
)
def test_echo_policy(
    mode: str, steps: list[Any], expected: list[Any], rules: dict[str, int]
) -> None:
    out = run([("prompt", "hello world"), *steps], echo=mode)
    rows = messages(out)
    assert rows[0] == ("UserMessage", P1, "hello world")
    assert rows[1:] == expected
    counts = Counter(d.rule for d in out.diagnostics)
    for rule, n in rules.items():
        assert counts[rule] == n, rule


def test_echo_drop_matches_non_text_blocks_by_equality() -> None:
    link = {"type": "resource_link", "name": "a", "uri": "file:///a"}
    other = {"type": "resource_link", "name": "b", "uri": "file:///b"}
    entries = [
        prompt(S, 1, text("see"), link),
        update(S, {"sessionUpdate": "user_message_chunk", "content": link}),
        update(S, {"sessionUpdate": "user_message_chunk", "content": other}),
    ]
    out = acp.normalize_v1(entries)
    kept = [u.update for u in out.updates if isinstance(u.update, acp.UserMessageChunk)]
    assert [c.content for c in kept] == [acp.ResourceLink("b", "file:///b")]


def test_policy_values_are_checked_and_frozen() -> None:
    with pytest.raises(ValueError, match="echo"):
        acp.V1Policy(echo="sometimes")
    policy = acp.V1Policy()
    with pytest.raises(AttributeError):
        policy.echo = "keep"  # type: ignore[misc]
    assert {"drop", "replace", "keep"} == acp.EchoPolicy.KNOWN


def test_docs_name_every_policy_and_diagnostic() -> None:
    from pathlib import Path

    import attrs

    from acp_core._v1 import _v1_policy

    doc = (Path(__file__).parents[1] / "docs" / "v1.md").read_text()
    rule_ids = [
        getattr(_v1_policy, name)
        for name in _v1_policy.__all__
        if isinstance(getattr(_v1_policy, name), str)
    ]
    assert len(rule_ids) >= 18
    for rule in rule_ids:
        assert f"`{rule}`" in doc, rule
    for field in attrs.fields(acp.BoundaryPolicy):
        assert f"`{field.name}`" in doc, field.name
    for field in attrs.fields(acp.V1Policy):
        assert f"`{field.name}`" in doc or field.name == "boundary", field.name
    for value in acp.EchoPolicy.KNOWN:
        assert f"EchoPolicy.{value.upper()}" in doc, value
