"""Laws of the agent engine at the Preview, as properties.

- Keys (R67, R68, R70): whatever interleaving of keyed prompts, retries, accepts, rejects and
  cancels, at most one user message is inserted per key, every result for a key names that
  one message, and every prompt request is answered exactly once once the session is
  cancelled.
- Replay (R57-R62): whatever a parent announced and reported on its children, a client that
  folds the resume traffic into a fresh `SessionTree` holds the same children, with the same
  links and the same history, as the agent's own tree.
"""

from __future__ import annotations

import json
from collections import Counter
from typing import Any

from hypothesis import example, given, settings
from hypothesis import strategies as st

import acp_core as acp
from acp_core import Received, step

SID = "sess_1"
P = acp.PREVIEW


def _receive(engine: acp.AgentEngine, wire: dict[str, Any]) -> acp.Step:
    message = acp.decode_message(json.loads(json.dumps(wire)), strict=True, revision=P)
    return step(engine, Received(message))


def _prompt(request_id: int, key: str | None) -> dict[str, Any]:
    params: dict[str, Any] = {"sessionId": SID, "prompt": [{"type": "text", "text": "x"}]}
    if key is not None:
        params["idempotencyKey"] = key
    return {"jsonrpc": "2.0", "id": request_id, "method": "session/prompt", "params": params}


# Prompts and turn ends drawn most often, two keys: retries meet their originals in every
# state (held, inserted, rejected, cancelled) within a few steps.
_OP_NAMES = ("prompt", "prompt", "prompt", "accept", "accept", "end", "end", "reject", "cancel")
_OPS = st.lists(
    st.tuples(st.sampled_from(_OP_NAMES), st.sampled_from(("K1", "K2", "K1", None))),
    max_size=25,
)


@settings(deadline=None)
@given(ops=_OPS)
@example(ops=[("prompt", "K1"), ("prompt", "K1"), ("accept", None), ("end", None)])  # a join
def test_a_key_inserts_at_most_one_message_and_every_prompt_is_answered_once(
    ops: list[tuple[str, str | None]],
) -> None:
    engine = acp.new_agent(SID, revision=P)
    keys: dict[int, str | None] = {}
    wire: list[dict[str, Any]] = []
    for op, key in ops:
        if op == "prompt":
            request_id = len(keys) + 1
            keys[request_id] = key
            engine, out = _receive(engine, _prompt(request_id, key))
        elif op in ("accept", "reject") and engine.prompts and engine.turn is None:
            first = engine.prompts[0].id
            intent = acp.AcceptPrompt(first) if op == "accept" else acp.RejectPrompt(first, "no")
            engine, out = step(engine, intent)
        elif op == "end" and engine.turn is not None:
            engine, out = step(engine, acp.EndTurn())
        elif op == "cancel":
            cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SID}}
            engine, out = _receive(engine, cancel)
        else:
            continue
        wire.extend(out)
    if engine.turn is not None:
        engine, out = step(engine, acp.EndTurn())
        wire.extend(out)
    cancel = {"jsonrpc": "2.0", "method": "session/cancel", "params": {"sessionId": SID}}
    wire.extend(_receive(engine, cancel).outbound)  # the held ones get -32800 (R70)
    answers = Counter(m["id"] for m in wire if "method" not in m)
    assert answers == Counter(dict.fromkeys(keys, 1))  # each prompt exactly once
    inserted: dict[str, set[str]] = {}
    for m in wire:
        if "result" in m and keys[m["id"]] is not None:
            inserted.setdefault(keys[m["id"]], set()).add(m["result"]["messageId"])
    assert all(len(ids) == 1 for ids in inserted.values())  # R67: one message per key
    # R68: once a key's prompt was inserted, nothing with that key is refused any more (a
    # retry joined to the original shares its result; later ones are answered with it).
    answered_with_result: set[str] = set()
    for m in wire:
        key = keys.get(m["id"]) if "method" not in m else None
        if key is None:
            continue
        if "result" in m:
            answered_with_result.add(key)
        else:
            assert key not in answered_with_result, m
    users = [
        m["params"]["update"]["messageId"]
        for m in wire
        if m.get("method") == "session/update"
        and m["params"]["update"]["sessionUpdate"] in ("user_message", "user_message_chunk")
    ]
    keyed_users = {mid for ids in inserted.values() for mid in ids}
    assert len(set(users)) == len(set(users) - keyed_users) + len(keyed_users)
    assert len(users) == len(set(users))  # no user message was inserted twice


# -- replay of children ------------------------------------------------------------------------

_CHILDREN = ("c1", "c2", "c3")
_ACTS = st.lists(
    st.one_of(
        st.tuples(st.just("announce"), st.sampled_from(_CHILDREN), st.sampled_from((SID, "c1"))),
        st.tuples(st.just("say"), st.sampled_from(_CHILDREN), st.text("ab", max_size=3)),
        st.tuples(st.just("state"), st.sampled_from(_CHILDREN), st.sampled_from(("r", "i"))),
        st.tuples(st.just("tool"), st.sampled_from(_CHILDREN), st.sampled_from(("t1", "t2"))),
        st.tuples(st.just("title"), st.sampled_from(_CHILDREN), st.text("xy", max_size=3)),
        st.tuples(st.just("mirror"), st.sampled_from(_CHILDREN), st.sampled_from(("r", "i"))),
    ),
    max_size=20,
)


def _try(engine: acp.AgentEngine, intent: Any) -> acp.AgentEngine:
    try:
        return step(engine, intent).state
    except acp.LocalProtocolError:
        return engine  # an illegal act (unannounced child, a second parent...): skipped


@settings(deadline=None)
@given(acts=_ACTS)
def test_a_resume_rebuilds_every_child_as_the_agent_holds_it(
    acts: list[tuple[str, str, str]],
) -> None:
    engine = acp.new_agent(SID, revision=P)
    for n, (act, child, arg) in enumerate(acts):
        if act == "announce":
            parent = None if arg == SID else arg
            update: Any = acp.SubagentUpdate(child, title=f"t{n}")
            engine = _try(engine, acp.SendUpdate(update, session_id=parent))
        elif act == "say":
            update = acp.AgentMessage(f"m{n}", (acp.TextContent(arg or "-"),))
            engine = _try(engine, acp.SendUpdate(update, session_id=child))
        elif act == "state":
            update = acp.RunningStateUpdate() if arg == "r" else acp.IdleStateUpdate("end_turn")
            engine = _try(engine, acp.SendUpdate(update, session_id=child))
        elif act == "tool":
            update = acp.ToolCallUpdate(arg, title="w", status="in_progress")
            engine = _try(engine, acp.SendUpdate(update, session_id=child))
        else:  # a patch of the link on the child's parent: its title, or the mirrored state
            parent_id = acp.parent_of(engine.children, child) or SID
            mirrored = acp.RunningStateUpdate() if arg == "r" else acp.IdleStateUpdate("end_turn")
            if act == "mirror":
                update = acp.SubagentUpdate(child, state=mirrored)
            else:
                update = acp.SubagentUpdate(child, title=arg or "-")
            on = None if parent_id == SID else parent_id
            engine = _try(engine, acp.SendUpdate(update, session_id=on))
    from acp_core._engines._replay_tree import resume_updates

    tree = acp.begin_resume(acp.new_tree(), SID, 1, replay=True, revision=P)
    for target, update in resume_updates(engine.children, engine.session, P, history=True):
        decoded = acp.decode_update(acp.encode_update(update), strict=True, revision=P)
        tree = acp.reduce_tree(tree, target, decoded, revision=P)
    tree = acp.end_resume(tree, 1, succeeded=True)
    agent = engine.children
    assert tree.diagnostics == acp.new_tree().diagnostics
    for state in tree.sessions.values():  # a marker for every window (R57, R60)
        assert not state.aux.diagnostics, state.aux.diagnostics
        assert state.aux.extras.replay.phase == "complete"
    assert dict(tree.parents) == dict(agent.parents)
    for child in agent.parents:
        mine, theirs = agent.sessions[child], tree.sessions[child]
        assert acp.child_link(tree, child) == acp.child_link(agent, child)
        assert dict(theirs.messages) == dict(mine.messages)
        assert dict(theirs.tool_calls) == dict(mine.tool_calls)
        assert acp.effective_state(tree, child) == acp.effective_state(agent, child)
        assert theirs.aux.extras.replay.phase == "complete"
