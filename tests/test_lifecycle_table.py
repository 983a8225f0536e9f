"""The lifecycle table is total and says what the machine does (h2's tests/test_state_machines.py,
read for one ACP session).

- Every (stage, kind) pair is an entry of `LIFECYCLE` or a named finding of `REFUSED`, never both.
- Over the whole product Stage x Kind x sender: a machine in each stage, built by feeding real
  messages, meets a representative message of each kind from each side. From the kind's own
  sender, the outcome is what the table says: the next stage is one of the entry's, findings come
  only from the entry's guards (and the rules its effect reports), and the pair is refused, with
  the stage's own rule (`STAGE_REFUSES`, read off the stage's meaning), exactly when the probe
  draws that rule. The mode the entry's effect returns is the one `observe` stores, and its
  stage is one of the entry's. From the other side, the message is no lifecycle event: only
  the pairing rules (J1, J2, C25) speak and the stage stays.
- On every checker trace and on shuffled traffic, `observe` gives what the machine gives with
  every guard of the kind run in every stage (the table leaves out only guards that are silent),
  the next stage is one of the entry's, a missing pair reports its rule, and each per-stage field
  is set only in the stages that own it (`HOLDS`); every mode is well formed (a close over a
  window over a base).
- The phase values read back as the eight flags they replaced, moved as the effects moved them,
  with the same stage (every sequence of up to four moves, and longer random ones).
"""

from __future__ import annotations

import copy
import json
import pickle
from pathlib import Path
from typing import Any

import attrs
import pytest
from hypothesis import given
from hypothesis import strategies as st

from acp_core._errors import AcpError
from acp_core._rules import _conversation as machine
from acp_core._rules import _conversation_phases as phases
from acp_core._rules._conversation import (
    GUARDS,
    LIFECYCLE,
    REFUSED,
    TRANSITIONS,
    Conversation,
    Kind,
    Stage,
    entry,
    observe,
)
from acp_core._rules._conversation_effects import _EFFECTS
from acp_core._rules._conversation_events import Obs, classify
from acp_core._rules._conversation_lifecycle import HOLDS
from acp_core._rules._conversation_phases import (
    LIVE,
    Cancelled,
    Cancelling,
    Closed,
    Live,
    Replaying,
    Resuming,
)
from acp_core._rules._conversation_state import _derive_stage
from acp_core._state._pcoll import PMap
from acp_core._wire._codec import decode_message
from acp_core._wire._fastnew import evolve_frozen, fast_evolve
from acp_core._wire._revision import DEFAULT_REVISION, REVISIONS

SID = "sess_1"
Msg = tuple[str, Any]  # (sender, decoded message)


def _agent(message: dict[str, Any]) -> Msg:
    return "agent", decode_message({"jsonrpc": "2.0", **message})


def _client(message: dict[str, Any]) -> Msg:
    return "client", decode_message({"jsonrpc": "2.0", **message})


def _update(tag: str, **fields: Any) -> Msg:
    update = {"sessionUpdate": tag, **fields}
    return _agent({"method": "session/update", "params": {"sessionId": SID, "update": update}})


def _state(name: str, **fields: Any) -> Msg:
    return _update("state_update", state=name, **fields)


def _prompt(rid: int) -> Msg:
    params = {"sessionId": SID, "prompt": [{"type": "text", "text": "hi"}]}
    return _client({"id": rid, "method": "session/prompt", "params": params})


def _request(side: str, rid: int, method: str, **params: Any) -> Msg:
    make = _agent if side == "agent" else _client
    return make({"id": rid, "method": method, "params": {"sessionId": SID, **params}})


def _result(side: str, rid: int, value: Any = None) -> Msg:
    make = _agent if side == "agent" else _client
    return make({"id": rid, "result": {} if value is None else value})


def _permission(rid: int) -> Msg:
    options = [{"optionId": "allow", "name": "Allow", "kind": "allow_once"}]
    call = {"toolCallId": "t9", "title": "Edit", "kind": "edit", "status": "pending"}
    subject = {"type": "tool_call", "toolCall": call}
    return _request(
        "agent", rid, "session/request_permission", title="Edit?", options=options, subject=subject
    )


_SELECTED = {"outcome": {"outcome": "selected", "optionId": "allow"}}
_FROM_START = {"replayFrom": {"type": "start"}}
_RESUME = {"cwd": "/w", "mcpServers": []}
_RUNNING = _state("running")
_END = _state("idle", stopReason="end_turn")
_USER = _update("user_message_chunk", messageId="u1", content={"type": "text", "text": "hi"})
_TOOL = _update("tool_call_update", toolCallId="t1", title="Read", kind="read", status="pending")
HERE = ("here", None)  # where a stage's path takes the requests a probe answers

# A path to each stage from a fresh session (`UNKNOWN`: one that starts mid-session).
PATHS: dict[Stage, list[Msg]] = {
    Stage.IDLE: [_prompt(1), _RUNNING, _result("agent", 1), _USER, HERE, _END],
    Stage.UNKNOWN: [
        _prompt(1),
        HERE,
        _agent({"id": 1, "error": {"code": -32602, "message": "no"}}),
    ],
    Stage.WAITING: [_prompt(1), HERE],
    Stage.WORKING: [_prompt(1), _RUNNING, HERE],
    Stage.BLOCKED: [_prompt(1), _RUNNING, _permission(2), _state("requires_action"), HERE],
    Stage.ANSWERED: [
        *(_prompt(1), _RUNNING, _permission(2), _state("requires_action")),
        *(_result("client", 2, _SELECTED), HERE),
    ],
    Stage.CANCELLING: [
        *(_prompt(1), _RUNNING, _result("agent", 1), _USER, _TOOL),
        *(_client({"method": "session/cancel", "params": {"sessionId": SID}}), HERE),
    ],
    Stage.CANCELLED: [
        *(_prompt(1), _RUNNING, _result("agent", 1), _USER, _TOOL),
        *(_client({"method": "session/cancel", "params": {"sessionId": SID}}), HERE),
        _state("idle", stopReason="cancelled"),
    ],
    Stage.REPLAYING: [HERE, _request("client", 9, "session/resume", **_RESUME, **_FROM_START)],
    Stage.RESUMING: [HERE, _request("client", 9, "session/resume", **_RESUME)],
    Stage.CLOSED: [HERE, _request("client", 8, "session/close"), _result("agent", 8)],
}

# Per kind: the requests sent first (a pair of resumes, a close while idle: they move no stage
# there), the requests sent at the path's HERE, and the probe.
_OPTIONS = {"configOptions": [{"configId": "mode", "name": "Mode", "type": "select"}]}
PROBES: dict[Kind, tuple[list[Msg], list[Msg], Msg]] = {
    Kind.PROMPT: ([], [], _prompt(100)),
    Kind.PROMPT_ANSWER: ([], [_prompt(50)], _result("agent", 50)),
    Kind.CANCEL: ([], [], _client({"method": "session/cancel", "params": {"sessionId": SID}})),
    Kind.PERMISSION: ([], [], _permission(60)),
    Kind.PERMISSION_ANSWER: ([], [_permission(61)], _result("client", 61, _SELECTED)),
    Kind.RESUME: ([], [], _request("client", 70, "session/resume", **_RESUME, **_FROM_START)),
    Kind.RESUME_ANSWER: (
        [
            _request("client", 71, "session/resume", **_RESUME, **_FROM_START),
            _request("client", 72, "session/resume", **_RESUME, **_FROM_START),
            _result("agent", 71),
        ],
        [],
        _result("agent", 72),
    ),
    Kind.CLOSE: ([], [], _request("client", 80, "session/close")),
    Kind.CLOSE_ANSWER: ([_request("client", 81, "session/close")], [], _result("agent", 81)),
    Kind.CONFIG_ANSWER: (
        [],
        [_request("client", 82, "session/set_config_option", configId="mode", value="code")],
        _result("agent", 82, _OPTIONS),
    ),
    Kind.RUNNING: ([], [], _RUNNING),
    Kind.REQUIRES_ACTION: ([], [], _state("requires_action")),
    Kind.IDLE: ([], [], _END),
    Kind.OTHER_STATE: ([], [], _state("paused")),
    Kind.USER_MESSAGE: (
        [],
        [],
        _update("user_message_chunk", messageId="u100", content={"type": "text", "text": "x"}),
    ),
    Kind.WORK: (
        [],
        [],
        _update("agent_message_chunk", messageId="m100", content={"type": "text", "text": "x"}),
    ),
    Kind.BACKGROUND: ([], [], _update("usage_update", used=1, size=10)),
    Kind.OTHER: (
        [],
        [_request("client", 83, "session/set_mode", modeId="code")],
        _result("agent", 83),
    ),
}
# Rules an effect reports itself (not a guard): a permission answer's R11 and C15.
EFFECT_RULES: dict[Kind, set[str]] = {Kind.PERMISSION_ANSWER: {"R11", "C15"}}
PAIRING = {"J1", "J2", "C25"}


def _machine(stage: Stage, kind: Kind) -> Conversation:
    early, here, _ = PROBES[kind]
    conv = Conversation.mid_session() if stage is Stage.UNKNOWN else Conversation.start()
    path = [m for step in PATHS[stage] for m in (here if step is HERE else [step])]
    for at, (sender, message) in enumerate([*early, *path]):
        conv, _ = observe(conv, sender, message, at=at)  # type: ignore[arg-type]
    assert conv.stage is stage, (stage, kind, conv.stage)
    return conv


def _other(sender: str) -> str:
    return "client" if sender == "agent" else "agent"


def _kind(conv: Conversation, sender: str, message: Any) -> Kind | None:
    event = classify(Obs(conv), sender, message, 999)  # type: ignore[arg-type]
    return None if event is None else event.kind


def test_every_pair_is_an_entry_or_a_named_finding() -> None:
    product = {(s, k) for s in Stage for k in Kind}
    assert set(LIFECYCLE) | set(REFUSED) == product
    assert not set(LIFECYCLE) & set(REFUSED)
    for (stage, kind), rule in REFUSED.items():
        cell = entry(stage, kind)
        assert cell.refused == rule
        assert rule in {g.rule for g in cell.guards}, (stage, kind)


# What each stage refuses, read off the stage's meaning (not off `REFUSED`): the rule a message
# of a refused kind breaks whatever it carries. A pair is refused exactly when its probe, a
# message that breaks nothing else this rule covers, draws this rule.
STAGE_REFUSES = {
    Stage.CLOSED: "R24",  # the session is freed: nothing more is reported for it
    Stage.RESUMING: "R39",  # no history before the answer of a resume without `replayFrom`
    Stage.ANSWERED: "R12",  # output before the `running` a permission answer makes due
    Stage.IDLE: "S1",  # requires_action with nothing reported running
    Stage.WAITING: "S1",
}
# The stage a mode other than `LIVE` puts the session in.
MODE_STAGES = {
    Closed: Stage.CLOSED,
    Resuming: Stage.RESUMING,
    Replaying: Stage.REPLAYING,
    Cancelling: Stage.CANCELLING,
    Cancelled: Stage.CANCELLED,
}


def _effect_returns(conv: Conversation, sender: Any, message: object, cell: Any) -> Any:
    # The mode the cell's effect returns for this message (the machine as the guards saw it).
    o = Obs(conv)
    event = classify(o, sender, message, 999)
    assert event is not None
    if o.changes:
        o.conv = machine._rebuild(conv, o.changes)
        o.changes = {}
    return o.conv.mode if cell.effect is None else cell.effect(o, event)


@pytest.mark.parametrize("kind", list(Kind), ids=[k.name for k in Kind])
@pytest.mark.parametrize("stage", list(Stage), ids=[s.name for s in Stage])
def test_the_product_of_stages_kinds_and_senders(stage: Stage, kind: Kind) -> None:
    conv = _machine(stage, kind)
    _holds_only_its_own(conv)
    sender, probe = PROBES[kind][2]
    assert _kind(conv, sender, probe) is kind
    cell = entry(stage, kind)
    after, found = observe(conv, sender, probe, at=999)  # type: ignore[arg-type]
    rules = {f.rule for f in found}
    assert after.stage in cell.next, (after.stage, cell.next)
    assert rules <= {g.rule for g in cell.guards} | EFFECT_RULES.get(kind, set())
    # The pair is refused (with the stage's rule) exactly when the probe draws that rule.
    refusal = STAGE_REFUSES.get(stage)
    assert cell.refused == (refusal if refusal in rules else None), (cell.refused, rules)
    assert ((stage, kind) in REFUSED) is (cell.refused is not None)
    assert ((stage, kind) in LIFECYCLE) is (cell.refused is None)
    # What the effect really returns is the mode `observe` stores, and a mode other than
    # `LIVE` is itself one of the entry's next stages.
    mode = _effect_returns(conv, sender, probe, cell)
    assert after.mode == mode
    if mode is not LIVE:
        assert MODE_STAGES[type(mode)] in cell.next, (mode, cell.next)
        assert after.stage is MODE_STAGES[type(mode)]
    # From the other side the message is no event of the lifecycle: pairing rules only.
    wrong = _other(sender)
    assert _kind(conv, wrong, probe) is None
    after, found = observe(conv, wrong, probe, at=999)  # type: ignore[arg-type]
    assert {f.rule for f in found} <= PAIRING
    assert after.stage is stage


# -- the table against every guard run everywhere -----------------------------------------------

TRACES = sorted((Path(__file__).resolve().parent / "traces").glob("*.jsonl"))


def _messages(path: Path) -> list[Msg]:
    out = []
    for line in path.read_text(encoding="utf-8").splitlines():
        item = json.loads(line)
        if not isinstance(item, dict) or item.get("from") not in ("agent", "client"):
            continue
        try:
            out.append((item["from"], decode_message(item["message"])))
        except (AcpError, KeyError):
            continue
    return out


MESSAGES = [m for path in TRACES for m in _messages(path)]


def _observe_every_guard(conv: Conversation, sender: Any, message: object, at: int) -> Any:
    # `observe` as it was before the table: every guard of the kind, whatever the stage.
    o = Obs(conv)
    if conv.ended:
        o.set(ended=())
    event = classify(o, sender, message, at)
    if event is not None:
        if o.changes:
            o.conv = machine._rebuild(conv, o.changes)
            o.changes = {}
        revision = conv.revision
        for g in GUARDS:
            if event.kind in g.kinds and revision.applies(g.rule) and g.applies(revision):
                why = g.check(o.conv, event)
                if why is not None:
                    o.report(g.rule, at, why)
        effect = _EFFECTS.get(event.kind)
        if effect is not None:
            mode = effect(o, event)
            if mode is not o.conv.mode:
                o.set(mode=mode)
        target = TRANSITIONS.get((o.conv.phase, event.kind))
        if target is not None and (target is not o.conv.phase or o.conv.phase_at != at):
            o.set(phase=target, phase_at=at)
    return (machine._rebuild(o.conv, o.changes) if o.changes else o.conv), tuple(o.found)


def _holds_only_its_own(conv: Conversation) -> None:
    for name, stages in HOLDS.items():
        value = getattr(conv, name)
        if (
            value is not None
            and value is not False
            and not (hasattr(value, "__len__") and not value)
        ):
            assert conv.stage in stages, (name, conv.stage)


def _well_formed(mode: Any) -> None:
    # Each phase holds only its own data, stacked as the modes can be: a close over a window
    # over a base; cancelled work always has items to freeze.
    if type(mode) is Closed:
        mode = mode.under
    if type(mode) in (Replaying, Resuming):
        mode = mode.under
    assert type(mode) in (Live, Cancelling, Cancelled), mode
    if type(mode) is Cancelled:
        assert mode.late


def _follow(messages: list[Msg], revision: Any, mid: bool) -> None:
    conv = Conversation.mid_session(revision) if mid else Conversation.start(revision)
    for at, (sender, message) in enumerate(messages):
        _holds_only_its_own(conv)
        kind = _kind(conv, sender, message)
        expected = _observe_every_guard(conv, sender, message, at)
        got = observe(conv, sender, message, at=at)  # type: ignore[arg-type]
        assert got == expected, (at, conv.stage, kind)
        # The stage a machine remembers is the one its fields give (never a stale copy).
        assert got[0].stage is _derive_stage(got[0]), (at, conv.stage, kind)
        _well_formed(got[0].mode)
        if kind is not None:
            cell = entry(conv.stage, kind)
            assert got[0].stage in cell.next, (at, conv.stage, kind, got[0].stage)
            if cell.refused is not None:
                assert cell.refused in {f.rule for f in got[1]}, (at, conv.stage, kind)
        conv = got[0]


@pytest.mark.parametrize("revision", list(REVISIONS.values()), ids=list(REVISIONS))
@pytest.mark.parametrize("path", TRACES, ids=[p.name for p in TRACES])
def test_the_table_leaves_out_only_silent_guards_on_the_traces(path: Path, revision: Any) -> None:
    for mid in (False, True):
        _follow(_messages(path), revision, mid)


@given(
    st.lists(st.sampled_from(MESSAGES), max_size=40),
    st.sampled_from(list(REVISIONS.values())),
    st.booleans(),
)
def test_the_table_leaves_out_only_silent_guards_on_shuffled_traffic(
    messages: list[Msg], revision: Any, mid: bool
) -> None:
    _follow(messages, revision, mid)


_PROBE_MESSAGES = [
    m for kind in Kind for m in (*PROBES[kind][0], *PROBES[kind][1], PROBES[kind][2])
]
_STEPS = [m for path in PATHS.values() for m in path if m is not HERE]
# Answers of every shape to every id the paths and probes use, and the steps' variants.
_CANCELLED = {"outcome": {"outcome": "cancelled"}}
_VARIANTS = [
    *[
        answer
        for rid in (1, 2, 8, 9, 50, 61, 71, 72, 81)
        for answer in (
            _result("agent", rid),
            _result("client", rid, _SELECTED),
            _result("client", rid, _CANCELLED),
            _agent({"id": rid, "error": {"code": -32800, "message": "cancelled"}}),
            _agent({"id": rid, "error": {"code": -32602, "message": "no"}}),
            _client({"id": rid, "error": {"code": -32800, "message": "cancelled"}}),
        )
    ],
    *[m for rid in (1, 2, 50) for m in (_prompt(rid), _permission(rid))],
    *(_state("idle", stopReason="cancelled"), _state("idle"), _state("idle", stopReason=None)),
    _request(
        "client", 9, "session/resume", **_RESUME, replayFrom={"type": "after", "messageId": "u1"}
    ),
    _update("agent_message_chunk", messageId="m1", content={"type": "text", "text": "x"}),
    _update("tool_call_update", toolCallId="t1", status="completed"),
]


@given(
    st.lists(st.sampled_from(_PROBE_MESSAGES + _STEPS + _VARIANTS), max_size=50),
    st.sampled_from(list(REVISIONS.values())),
    st.booleans(),
)
def test_the_table_leaves_out_only_silent_guards_on_the_probes(
    messages: list[Msg], revision: Any, mid: bool
) -> None:
    _follow(messages, revision, mid)


def test_where_a_session_starts() -> None:
    assert Conversation.start().stage is Stage.IDLE
    assert Conversation.mid_session().stage is Stage.UNKNOWN
    assert Conversation.start(DEFAULT_REVISION, "running").stage is Stage.WORKING
    assert Conversation.start(DEFAULT_REVISION, "requires_action").stage is Stage.BLOCKED


def test_the_remembered_stage_is_no_part_of_the_value_and_copies_start_without_it() -> None:
    fresh, asked = Conversation.start(), Conversation.start()
    assert asked.stage is Stage.IDLE
    assert asked.cached_stage is Stage.IDLE
    assert fresh.cached_stage is None
    assert fresh == asked
    assert hash(fresh) == hash(asked)
    assert repr(fresh) == repr(asked)
    # A copy whose fields say another stage must derive it, not inherit the remembered one.
    freed = Closed(3, LIVE)
    for evolved in (
        attrs.evolve(asked, mode=freed),
        fast_evolve(asked, mode=freed),
        evolve_frozen(asked, mode=freed),
        machine._rebuild(asked, {"mode": freed}),
    ):
        assert evolved.cached_stage is None
        assert evolved.stage is Stage.CLOSED


# -- the phase values against the flag record they replace ---------------------------------------
#
# Before the phases were values, a session's modes were eight flags on `Conversation`
# (closed_at, replay_forbidden, replaying, replay_from_start, replayed, cancel_at,
# cancel_by_close, late_ids) and its stage the first of them set, in that precedence. The
# model below is that record, moved as the effects moved it; every sequence of moves must
# read back the same through the phase values and give the same stage.

_MOVES = st.one_of(
    st.tuples(st.just("cancel"), st.integers(0, 9), st.booleans()),
    st.tuples(st.just("uncancel"), st.sampled_from([None, "t1", "t2"])),
    st.tuples(st.just("fresh_work")),
    st.tuples(st.just("resume"), st.sampled_from([None, False, True])),
    st.tuples(st.just("resume_answer")),
    st.tuples(st.just("close"), st.integers(0, 9)),
    st.tuples(st.just("history")),
)


def _model_move(flags: dict[str, Any], move: tuple[Any, ...]) -> None:
    name = move[0]
    if name == "cancel":
        flags.update(cancel_at=move[1], cancel_by_close=move[2])
    elif name == "uncancel":
        if flags["cancel_at"] is not None and move[1] is not None:
            flags["late_ids"] = {move[1]: True}  # the idle: the ended work's items
        flags.update(cancel_at=None, cancel_by_close=False)
    elif name == "fresh_work":
        flags["late_ids"] = {}
    elif name == "resume":
        flags["closed_at"] = None
        if move[1] is None:
            flags["replay_forbidden"] = True
        else:
            flags.update(replaying=True, replay_from_start=move[1], replayed=False)
    elif name == "resume_answer":
        flags.update(
            replaying=False, replay_forbidden=False, replay_from_start=False, replayed=False
        )
    elif name == "close":
        flags["closed_at"] = move[1]
    elif name == "history" and flags["replaying"]:
        flags["replayed"] = True


def _phase_move(mode: Any, move: tuple[Any, ...], cancel_at: int | None) -> Any:
    name = move[0]
    if name == "cancel":
        return phases.cancelled(mode, move[1], by_close=move[2])
    if name == "uncancel":
        # as the effects call it: the idle names the ended work's items only while cancelling
        late = PMap({move[1]: True}) if cancel_at is not None and move[1] is not None else None
        return phases.uncancelled(mode, late)
    if name == "fresh_work":
        return phases.fresh_work(mode)
    if name == "resume":
        return phases.resumed(mode, None if move[1] is None else phases.Replay(move[1]))
    if name == "resume_answer":
        return phases.window_over(mode)
    if name == "close":
        return phases.closed(mode, move[1])
    return phases.history_seen(mode)


def _model_stage(flags: dict[str, Any]) -> Stage | None:
    # The old precedence order (None: no mode, the stage is the live one).
    if flags["closed_at"] is not None:
        return Stage.CLOSED
    if flags["replay_forbidden"]:
        return Stage.RESUMING
    if flags["replaying"]:
        return Stage.REPLAYING
    if flags["cancel_at"] is not None:
        return Stage.CANCELLING
    return Stage.CANCELLED if flags["late_ids"] else None


# Every move once, with the arguments that matter (a cancel by close, an idle that ends work
# with items, the three kinds of resume): every sequence of up to four of them is checked.
_EVERY_MOVE = [
    ("cancel", 1, False),
    ("cancel", 2, True),
    ("uncancel", None),
    ("uncancel", "t1"),
    ("fresh_work",),
    ("resume", None),
    ("resume", False),
    ("resume", True),
    ("resume_answer",),
    ("close", 3),
    ("history",),
]


def test_every_short_sequence_of_phase_moves_reads_back_as_the_flags() -> None:
    def walk(conv: Conversation, flags: dict[str, Any], depth: int, path: list[Any]) -> None:
        if depth == 0:
            return
        for move in _EVERY_MOVE:
            model = {**flags}
            after = _check_move(conv, model, move, [*path, move])
            walk(after, model, depth - 1, [*path, move])

    walk(Conversation.start(), _no_flags(), 4, [])


def _no_flags() -> dict[str, Any]:
    return {
        "closed_at": None,
        "replay_forbidden": False,
        "replaying": False,
        "replay_from_start": False,
        "replayed": False,
        "cancel_at": None,
        "cancel_by_close": False,
        "late_ids": {},
    }


def _check_move(
    conv: Conversation, flags: dict[str, Any], move: tuple[Any, ...], moves: list[Any]
) -> Conversation:
    # One move on both sides (`flags` in place); the machine with the new mode.
    mode = _phase_move(conv.mode, move, conv.cancel_at)
    _model_move(flags, move)
    conv = attrs.evolve(conv, mode=mode)
    _well_formed(mode)
    got = {name: getattr(conv, name) for name in flags}
    assert {**got, "late_ids": dict(got["late_ids"])} == flags, (moves, mode)
    stage = _model_stage(flags)
    assert (mode is LIVE) is (stage is None), (moves, mode, stage)
    if stage is not None:
        assert conv.stage is stage, (moves, mode)
    return conv


@given(st.lists(_MOVES, max_size=30))
def test_the_phase_values_read_back_as_the_flags_they_replace(moves: list[Any]) -> None:
    flags = _no_flags()
    conv = Conversation.start()
    for move in moves:
        conv = _check_move(conv, flags, move, moves)


def test_a_close_answered_inside_a_resume_window_outlives_it() -> None:
    steps = [
        _request("client", 9, "session/resume", **_RESUME, **_FROM_START),
        _request("client", 8, "session/close"),
        _result("agent", 8),
        _result("agent", 9),
    ]
    conv = Conversation.start()
    for at, (sender, message) in enumerate(steps):
        conv, found = observe(conv, sender, message, at=at)  # type: ignore[arg-type]
        assert not found
    assert conv.mode == Closed(2, LIVE)
    _, found = observe(conv, *_TOOL, at=9)  # type: ignore[arg-type]
    assert [f.rule for f in found] == ["R24"]


@pytest.mark.parametrize("stage", list(Stage), ids=[s.name for s in Stage])
def test_a_copied_or_unpickled_machine_keeps_its_phase_and_stage(stage: Stage) -> None:
    # Engines are deep-copied (a refused intent leaves the caller's engine equal) and pickled
    # to worker processes (explore): a copied `LIVE` is another, equal `Live`, and the
    # machine asks the mode's type, so the stage survives both.
    conv = _machine(stage, Kind.OTHER)
    for copied in (pickle.loads(pickle.dumps(conv)), copy.deepcopy(conv), copy.copy(conv)):
        assert copied == conv
        assert copied.stage is stage
        assert (copied.mode == LIVE) is (conv.mode is LIVE)
