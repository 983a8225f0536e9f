"""The public strategies draw every wire field of every value they draw, at every revision, and
no field the revision does not carry (issue 21, Build 8).

The regression this pins down: with every variant drawn (tests/test_strategies_variants.py),
fields a later revision adds to a variant were still never drawn (a tool call's
`capabilities`, a `SessionReference` tool content item, then every state's `background`, an
idle state's `error`, a terminal's `size` and `capabilities`, a command's `type`), so a law
"for every drawn update" said nothing about them and a renderer bug behind one hid.

It also pins the other shapes a field takes on the wire: the null of a field that may be
null, the absence of an optional one, and the edges of a ranged value.

What must be drawn is not listed here: it is read from the codec's own tables of the revision
(`tables(r)`), walked from three roots: the `SessionUpdate` union (`session_updates(revision=r)`),
the params of each typed message the revision has (`messages(revision=r)`), and the two typed
results. The walk is generic over the codec's shapes and demands these keys:
- `(record, key)`: every field a record has on that revision's wire, present with a non-null
  value, for every record reachable from the root (through records, lists, tagged unions with
  their nested unions, and the codec's untagged unions: resource contents, select options);
- `(record, key=null)`, `(record, key=absent)`: every field the codec's `Field` of that
  revision marks `nullable` (its type admits `None`: a `Patch[T]`, a `T | None`, a request
  id) held as `None` in some draw, and every field it marks not `required` held as `UNSET`
  in some draw: null is a patch's "clear", absent its "unchanged", and a reducer, the
  snapshot, the generated replay and the renderer each handle the three apart. "May be
  null" is the codec's own word, the decoder's `v is None and nullable`: what the
  revision's strict decoder takes as null. Where the codec takes a shape the revision's
  schema forbids (its `required` is per class, not per revision), the shape is waived by
  name (`WAIVED`; the strategies draw the schema's shape there);
- `(record, key=min)`, `(record, key=max)`: the edges of a ranged codec, cheap to draw
  (`_strategies_base._edged`, `_bounded_texts`): an integer width's least and greatest
  value (uint16 from 1, uint32, uint64, int64), a bounded string's shortest and longest
  length, and a non-empty list (`NonEmpty`) of exactly one item (`key=min` only). Plain
  lists, free JSON and `Other*` raw objects have no edge demanded: an empty list is an
  ordinary draw, and the JSON values are drawn with their int64 edges already;
- `(union, record)`: every known variant of every union reachable (`("ToolCallContent",
  "SessionReference")`, `("StateUpdate", "UnknownStateUpdate")` for a child's state), and
  `(root, record)` for the root's own variants.
Depth: as deep as the records go, each record class walked once per root. A class is keyed by
name, not by where it sits: a field it has is demanded once, not once per path to it (per path,
the content blocks inside every message kind multiply the demand into keys that 40 draws a
variant reach only by luck; the strategies build each class from one strategy wherever it
sits). The walk stops at scalars, raw JSON and `Other*` values (free JSON), and under a typed
message at the update records (a `session/update`'s `update`, a permission subject's tool
call): the message must hold one, the update root walks its fields.

Drawn values are walked the same way, by value, against the same tables: the value's record is
the one the union decodes its class as (a class the revision has no variant for fails). A
field off the revision's wire (added later, or removed) must be `UNSET` in every draw, and
every draw must come back unchanged from the revision's codec (a value out of a field's range
fails: a terminal size of 0 did). Coverage is not left to chance and stays quick (about 4 s a
root and revision): each arm of the root's `one_of` is drawn 40 times from a fixed seed, so
a rare variant gets as many draws as a common one; each key still missing is then searched for
in the arms that drew a record demanding it (up to three more fixed seeds, bounded, no
shrinking). Each case runs in a fresh interpreter, so it draws the same in the whole suite as
alone.
"""

from __future__ import annotations

import contextlib
import json
import os
import subprocess
import sys
import typing
from collections.abc import Callable, Iterator
from pathlib import Path
from typing import Any

import attrs
import hypothesis
import pytest
from hypothesis import HealthCheck, Phase, find, given, settings

import acp_core as acp
from acp_core import strategies as acps
from acp_core._wire import _updates as u
from acp_core._wire._codec_core import ListCodec, NonEmpty, Record, Union
from acp_core._wire._codec_tables import (
    UpdateCodec,
    _ResourceContents,
    _SelectOptions,
    tables,
)
from acp_core._wire._codec_values import BoundedStr, _Int
from acp_core.values import UNSET

REVISIONS = list(acp.REVISIONS.values())

#: A key the strategies must reach: `(record, wire key)` or `(record.key, held record)`.
Key = tuple[str, str]

#: Draws per branch of a root's strategy (its `one_of` arms, nested ones flattened), then
#: per branch again for each key still missing; each round's seed is fixed.
PER_BRANCH = 40
SEARCH = 400
ROUNDS = 3  # seeds tried per missing key
_SEED = 20261207
_QUIET = {
    "database": None,
    "phases": [Phase.generate],
    "suppress_health_check": list(HealthCheck),
    "deadline": None,
}


# -- the codec's shapes ----------------------------------------------------------------------


def _inner(codec: Any) -> list[Any]:
    """The codecs a value of `codec` may be decoded by, one level down."""
    if isinstance(codec, UpdateCodec):
        return [codec.union]
    if isinstance(codec, Union):
        return list(codec.variants.values())
    if isinstance(codec, ListCodec):
        return [codec.item]
    if isinstance(codec, NonEmpty):
        return [codec.inner]
    if isinstance(codec, _ResourceContents):
        return [codec.text, codec.blob]
    if isinstance(codec, _SelectOptions):
        return [codec.option, codec.group]
    return []


def _records(codec: Any) -> list[Record]:
    """Every record a value of `codec` may be (through lists and unions), none for scalars."""
    if isinstance(codec, Record):
        return [codec]
    return [r for c in _inner(codec) for r in _records(c)]


def _items(codec: Any, value: Any) -> Iterator[tuple[Any, Any]]:
    """(codec, value) for the value itself or, for a list, each item."""
    if isinstance(codec, NonEmpty):
        yield from _items(codec.inner, value)
    elif isinstance(codec, ListCodec):
        for item in value:
            yield codec.item, item
    elif isinstance(codec, _SelectOptions):
        for item in value:
            yield codec, item
    else:
        yield codec, value


def _record_of(codec: Any, value: Any) -> Record | None:
    """The record `codec` decodes `value`'s class as (None: a scalar, JSON, an `Other*`)."""
    if isinstance(codec, Record):
        return codec
    if isinstance(codec, UpdateCodec):
        return _record_of(codec.union, value)
    if isinstance(codec, Union):
        found = codec.by_type.get(type(value))
        assert found is not None, f"{type(value).__name__} is no variant of {codec.expected}"
        return _record_of(found, value)
    if isinstance(codec, _ResourceContents):
        return codec.text if type(value) is codec.text.cls else codec.blob
    if isinstance(codec, _SelectOptions):
        return codec.group if type(value) is codec.group.cls else codec.option
    return None


# -- what a root demands and what a value supplies ------------------------------------------

#: The suffixes of a field's wire key in the keys of its other shapes: `("IdleStateUpdate",
#: "error=null")` is a draw holding an idle state's `error` as `None`.
NULL, ABSENT, LOW, HIGH = "=null", "=absent", "=min", "=max"


def _shapes(field: Any) -> list[str]:
    """The wire key of `field` suffixed by each shape beyond a value a draw must hold: null
    (`nullable`), absent (not `required`), and the edges of a ranged codec (an integer's
    width, a bounded string's lengths, a non-empty list of one item)."""
    out = []
    if field.nullable:
        out.append(field.key + NULL)
    if not field.required:
        out.append(field.key + ABSENT)
    if isinstance(field.codec, (_Int, BoundedStr)):
        out += [field.key + LOW, field.key + HIGH]
    elif isinstance(field.codec, NonEmpty):
        out.append(field.key + LOW)
    return out


def _shape_of(field: Any, x: Any) -> list[str]:
    """The keys of `_shapes(field)` the value `x` of `field` holds."""
    if x is UNSET:
        return [field.key + ABSENT]
    if x is None:
        return [field.key + NULL]
    codec = field.codec
    if isinstance(codec, _Int):
        edge = {codec.lo: LOW, codec.hi: HIGH}.get(x)
        return [] if edge is None else [field.key + edge]
    if isinstance(codec, BoundedStr):
        edge = {codec.lo: LOW, codec.hi: HIGH}.get(len(x))
        return [] if edge is None else [field.key + edge]
    if isinstance(codec, NonEmpty) and len(x) == 1:
        return [field.key + LOW]
    return []


def _held(codec: Any, union: str | None = None) -> list[tuple[str | None, Record]]:
    """Each record a value of `codec` may be, with the union that chooses it (None: a field
    of one record type, which the field's own key already demands)."""
    if isinstance(codec, Record):
        return [(union, codec)]
    if isinstance(codec, (Union, _ResourceContents, _SelectOptions)):
        union = _name(codec)
    return [x for c in _inner(codec) for x in _held(c, union)]


def _name(union: Any) -> str:
    # "object (ContentBlock)" -> "ContentBlock"
    return str(union.expected).removeprefix("object (").removesuffix(")")


def _union_of(codec: Any) -> str | None:
    codec = codec.union if isinstance(codec, UpdateCodec) else codec
    return None if isinstance(codec, Record) else _name(codec)


def demanded(
    root: Record, stop: object = None, done: frozenset[str] = frozenset()
) -> frozenset[Key]:
    """Every key under `root` at its revision (`stop`: a codec not walked into; `done`:
    records another root walks, demanded to be held but not walked into again)."""
    out: set[Key] = set()
    seen: set[int] = set()

    def walk(record: Record) -> None:
        if id(record) in seen:
            return
        seen.add(id(record))
        for field in record.fields:
            if not field.on_wire:
                continue
            out.add((record.name, field.key))
            out.update((record.name, shape) for shape in _shapes(field))
            if field.codec is stop:
                continue
            for union, held in _held(field.codec):
                if union is not None:
                    out.add((union, held.name))
                if held.name not in done:
                    walk(held)

    walk(root)
    return frozenset(out)


def supplied(
    root: Record, value: Any, stop: object = None, done: frozenset[str] = frozenset()
) -> tuple[set[Key], set[str]]:
    """The keys `value` (decoded by `root`) holds, and the fields off the wire it sets
    (`stop`, `done`: as `demanded`'s)."""
    out: set[Key] = set()
    off: set[str] = set()

    def walk(record: Record, value: Any) -> None:
        for field in record.fields:
            x = getattr(value, field.attr)
            if not field.on_wire:
                if x is not UNSET:
                    off.add(f"{record.name}.{field.attr}")
                continue
            out.update((record.name, shape) for shape in _shape_of(field, x))
            if x is UNSET or x is None:
                continue
            out.add((record.name, field.key))
            if field.codec is stop:
                continue
            for codec, item in _items(field.codec, x):
                held = _record_of(codec, item)
                if held is not None:
                    union = _union_of(codec)
                    if union is not None:
                        out.add((union, held.name))
                    if held.name not in done:
                        walk(held, item)

    walk(root, value)
    return out, off


# -- the roots -------------------------------------------------------------------------------


class Root(typing.NamedTuple):
    """A strategy, the record each drawn value is walked from (None: not walked), what it
    demands, and where a walk stops."""

    name: str
    strategy: Any
    record_of: Callable[[Any], Record | None]
    tops: tuple[Record, ...]  # the records a drawn value may be
    round_trip: Callable[[Any], Any]  # the value, encoded and decoded at the revision
    stop: object = None
    done: frozenset[str] = frozenset()
    waived: frozenset[Key] = frozenset()  # shapes the revision's schema forbids (`WAIVED`)

    @property
    def demand(self) -> frozenset[Key]:
        return frozenset().union(*(self.demand_of(r) for r in self.tops))

    def demand_of(self, top: Record) -> frozenset[Key]:
        keys = {(self.name, top.name), *demanded(top, self.stop, self.done)}
        return frozenset(keys - self.waived)


#: The shapes the codec takes on a revision's wire though that revision's schema forbids
#: them, by revision name: not demanded (the codec has one `required` per class, not per
#: revision). A compaction's `status` is required at 2026-11 and a patch from the Preview on;
#: the strategies draw it required there (`compaction_updates`).
WAIVED: dict[str, frozenset[Key]] = {
    "2026-11": frozenset(
        {("CompactionUpdate", "status" + NULL), ("CompactionUpdate", "status" + ABSENT)}
    ),
}


def roots(revision: acp.Revision) -> list[Root]:
    """The roots walked at `revision`: every update, every typed message, the typed results."""
    t = tables(revision)

    def update_record(update: Any) -> Record | None:
        return _record_of(t.session_update, update)

    def message_record(message: Any) -> Record | None:
        typed = t.by_class.get(type(message))
        return None if typed is None else typed.params

    def result_record(result: Any) -> Record:
        return t.results[type(result)]

    def update_trip(update: Any) -> Any:
        return acp.decode_update(acp.encode_update(update, revision=revision), revision=revision)

    def message_trip(message: Any) -> Any:
        wire = acp.encode_message(message, revision=revision)
        return acp.decode_message(wire, strict=True, revision=revision)

    updates = tuple(_records(t.session_update))
    messages = tuple(typed.params for typed in t.messages)
    results = acps.prompt_results() | acps.request_permission_results()
    waived = WAIVED.get(revision.name, frozenset())
    return [
        Root(
            "updates",
            acps.session_updates(revision=revision),
            update_record,
            updates,
            update_trip,
            waived=waived,
        ),
        Root(
            "messages",
            acps.messages(revision=revision),
            message_record,
            messages,
            message_trip,
            t.update,
            frozenset(r.name for r in updates),
            waived,
        ),
        # (a result has no codec of its own: it travels as a response's raw `result`)
        Root(
            "results", results, result_record, tuple(t.results.values()), lambda r: r, waived=waived
        ),
    ]


def _keys(root: Root, value: Any) -> set[Key]:
    record = root.record_of(value)
    keys, off = set(), set()
    if record is not None:
        keys, off = supplied(record, value, root.stop, root.done)
    assert not off, f"drawn off this revision's wire: {sorted(off)} in {value!r}"
    # What is drawn is what the revision decodes back unchanged (a field in range included).
    assert root.round_trip(value) == value, value
    if record is None:
        return set()
    keys.add((root.name, record.name))
    return keys


def branches(strategy: Any) -> list[Any]:
    """The arms of `strategy` (a `one_of`, nested ones flattened; else itself): drawn one by
    one, so a rare variant gets as many draws as a common one."""
    return list(strategy.branches)


class _Reached(BaseException):
    """A `BaseException`: hypothesis lets it through at once, where an `Exception` is a failing
    example it first pretty-prints (minutes for a large drawn value)."""


def _draw(
    root: Root,
    arm: Any,
    n: int,
    seed: int,
    reached: set[Key],
    tops: set[str],
    wanted: Key | None = None,
) -> None:
    @hypothesis.seed(seed)
    @settings(max_examples=n, **_QUIET)  # type: ignore[arg-type]
    @given(arm)
    def draw(value: Any) -> None:
        keys = _keys(root, value)
        reached.update(keys)
        tops.update(k[1] for k in keys if k[0] == root.name)
        if wanted in keys:
            raise _Reached

    with contextlib.suppress(_Reached):
        draw()


def missing(root: Root, per_branch: int = PER_BRANCH, search: int = SEARCH) -> set[Key]:
    """The keys of `root.demand` no draw reached: `per_branch` draws of each branch of its
    strategy; then, for each key still missing, up to `search` draws of each branch that drew
    a record demanding it, with each of `ROUNDS` other seeds, until one holds it. Every draw
    is checked for fields off the revision's wire and its round trip."""
    reached: set[Key] = set()
    arms = branches(root.strategy)
    drawn: list[set[str]] = [set() for _ in arms]
    for arm, tops in zip(arms, drawn, strict=True):
        _draw(root, arm, per_branch, _SEED, reached, tops)
    demand_of = {top.name: root.demand_of(top) for top in root.tops}
    for key in sorted(root.demand - reached):
        for seed in range(_SEED + 1, _SEED + 1 + ROUNDS):
            for arm, tops in zip(arms, drawn, strict=True):
                if key not in reached and any(key in demand_of[top] for top in tops):
                    _draw(root, arm, search, seed, reached, set(), key)
    return set(root.demand - reached)


def _missing_fresh(revision: acp.Revision, which: str) -> list[list[str]]:
    """`missing` of the root `which` at `revision`, in a fresh interpreter: in a long test
    session the same seeded draws differ (state earlier tests leave in hypothesis; see
    tests/test_strategies_reach.py), and a fresh one draws what this file alone draws."""
    code = (
        "import json, sys; sys.path.insert(0, 'tests')\n"
        "import acp_core as acp\n"
        "from test_strategies_fields import missing, roots\n"
        f"(root,) = [r for r in roots(acp.REVISIONS[{revision.name!r}]) if r.name == {which!r}]\n"
        "print(json.dumps(sorted(missing(root))))\n"
    )
    root = Path(__file__).resolve().parents[1]
    env = {**os.environ, "PYTHONHASHSEED": "0"}
    run = subprocess.run(
        [sys.executable, "-c", code], capture_output=True, text=True, cwd=root, env=env,
        check=False,
    )  # fmt: skip
    assert run.returncode == 0, run.stderr[-4000:]
    found: list[list[str]] = json.loads(run.stdout)
    return found


# -- the tests -------------------------------------------------------------------------------


@pytest.mark.parametrize(
    ("revision", "which"),
    [
        pytest.param(r, w, id=f"{w}@{r.name}")
        for r in REVISIONS
        for w in ("updates", "messages", "results")
    ],
)
def test_every_wire_field_a_revision_decodes_is_drawn_there(
    revision: acp.Revision, which: str
) -> None:
    assert _missing_fresh(revision, which) == []


def test_the_tables_demand_the_later_fields() -> None:
    # The walk is no tautology: what each revision adds is demanded there and only there.
    def demand(revision: acp.Revision) -> frozenset[Key]:
        return roots(revision)[0].demand

    early, later, preview = (demand(r) for r in (acp.V2_2026_08, acp.V2_2026_11, acp.V2_PREVIEW))
    background = next(k[0] for k in later if k[1] == "BackgroundTerminal")
    assert {
        ("ToolCallUpdate", "capabilities"),
        ("ToolCallCapabilities", "cancel"),
        ("CancelCapability", "_meta"),
        ("TerminalUpdate", "size"),
        ("TerminalSize", "cols"),
        ("IdleStateUpdate", "error"),
        ("RpcError", "code"),
        ("RunningStateUpdate", "background"),
        (background, "BackgroundToolCall"),
        ("AvailableCommand", "type"),
        ("updates", "Notice"),
    } <= later - early
    assert {
        ("ToolCallContent", "SessionReference"),
        ("StateUpdate", "UnknownStateUpdate"),
        (background, "BackgroundSubagent"),
        ("updates", "SubagentUpdate"),
    } <= preview - later
    # deep: the annotations of an embedded resource (a content block of a tool's content)
    assert {
        ("ToolCallContent", "ToolContent"),
        ("ContentBlock", "EmbeddedResource"),
        ("EmbeddedResource", "annotations"),
        ("Annotations", "priority"),
    } <= early
    # the other shapes: a patch's null and absence, an integer's edges, a non-empty list of one
    assert {
        ("IdleStateUpdate", "error=null"),
        ("IdleStateUpdate", "error=absent"),
        ("TerminalUpdate", "size=null"),
        ("TerminalSize", "cols=min"),
        ("TerminalSize", "cols=max"),
        ("RpcError", "code=min"),
        ("RpcError", "data=null"),
    } <= later - early
    assert {("DiffChange", "oldPath=null"), ("ResourceLink", "size=max")} <= early
    assert ("TerminalSize", "cols=absent") not in later  # required
    assert ("CompactionUpdate", "status=null") not in later  # WAIVED: required at 2026-11
    assert ("CompactionUpdate", "status=null") in preview
    messages = roots(acp.V2_PREVIEW)[1].demand
    assert {
        ("RequestPermissionRequest", "options=min"),
        ("PromptRequest", "idempotencyKey=max"),
        ("CancelRequestNotification", "requestId=null"),
    } <= messages
    assert ("CancelRequestNotification", "requestId=absent") not in messages  # required
    assert {("PromptRequest", "idempotencyKey"), ("messages", "CancelToolCallRequest")} <= messages
    assert ("PromptRequest", "idempotencyKey") not in roots(acp.V2_2026_11)[1].demand
    assert ("messages", "CancelToolCallRequest") not in roots(acp.V2_2026_08)[1].demand
    # the update inside `session/update` and the tool call of a permission subject are the
    # update root's: held, but not walked again
    held = {("UpdateSessionNotification", "update"), ("ToolCallPermissionSubject", "toolCall")}
    assert held <= messages
    assert ("ToolCallUpdate", "capabilities") not in messages


def _dropping(strategy: Any, cls: type, attr: str) -> Any:
    def drop(value: Any) -> Any:
        return attrs.evolve(value, **{attr: UNSET}) if type(value) is cls else value

    return strategy.map(drop)


def test_a_field_the_strategies_stop_drawing_is_reported() -> None:
    # The planted bug of this file, kept: a strategy that never draws a terminal's `size`.
    root = roots(acp.V2_2026_11)[0]
    broken = root._replace(strategy=_dropping(root.strategy, u.TerminalUpdate, "size"))
    found = missing(broken, search=20)
    assert {
        ("TerminalUpdate", "size"),
        ("TerminalSize", "cols"),
        ("TerminalSize", "rows"),
        ("TerminalSize", "_meta"),
    } <= found
    assert ("TerminalUpdate", "command") not in found


def test_a_field_drawn_off_the_revision_s_wire_fails() -> None:
    root = roots(acp.V2_2026_08)[0]
    later = acps.session_updates(revision=acp.V2_2026_11)

    def sized(v: Any) -> bool:
        return type(v) is u.TerminalUpdate and v.size is not UNSET and bool(_keys(root, v))

    search = settings(max_examples=2000, derandomize=True, **_QUIET)  # type: ignore[arg-type]
    with pytest.raises(AssertionError, match=r"off this revision's wire: .*'TerminalUpdate\.size'"):
        find(later, sized, settings=search)


def test_a_null_the_strategies_stop_drawing_is_reported() -> None:
    # Planted: an idle state's `error` is never cleared (null drawn as absent instead).
    root = roots(acp.V2_2026_11)[0]

    def never_null(value: Any) -> Any:
        if type(value) is u.IdleStateUpdate and value.error is None:
            return attrs.evolve(value, error=UNSET)
        return value

    broken = root._replace(strategy=root.strategy.map(never_null))
    found = missing(broken, search=20)
    assert ("IdleStateUpdate", "error=null") in found
    assert not {("IdleStateUpdate", "error"), ("IdleStateUpdate", "error=absent")} & found
