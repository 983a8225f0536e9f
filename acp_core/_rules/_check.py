"""The trace checker: which protocol rules a recorded ACP conversation breaks, and where.

Owns: `check_trace`, `IncrementalCheck` (the checker as a frozen value, fed one entry at a
time: `check_trace` is its fold; a `Protocol` plus what it found and how many entries it read)
with its per-call draft (`_Checker`), `LiveCheck` (the proxy's holder of one), `CHECKED_RULES`
(declared to the catalogue at import: `Rule.checked` reads it), and the shape of a trace entry.
Must not know: files, JSON text or exit codes (`__main__.py`), the order the rules run in or
what any rule says (the protocol machine, `_rules/_protocol.py`, and its components).

Theory of operation. Entries are `{"from": "client" | "agent", "message": <JSON-RPC>}` dicts,
one per recorded line (a batch is one line). `check_trace` is decode + observe + finish:
1. read each entry: an entry that is no object, names no side or holds no message is a `D1`;
2. the protocol machine (`_rules/_protocol.py`) observes the entry's message as line `i`:
   framing, decoding, the single-message rules, the rules across the sessions of the
   connection, the answers to session management, and each session's lifecycle;
3. at the end, `finish` adds what only the end shows (C15 never answered, R7 as a warning
   while work still runs).
Findings are `Violation`s at the line the machine names; they come back sorted by line
index, stable within a line. `side=` keeps the rules that bind one side (and both).
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any, Final, cast

from acp_core._errors import ArgumentError, entries_argument
from acp_core._state._pcoll import PVec
from acp_core._wire._revision import DEFAULT_REVISION, Revision
from acp_core._wire._value import frozen

from ._catalogue import RULES, Side, declare_checked, side_argument
from ._check_answers import CHECKED as ANSWERS_CHECKED
from ._check_capabilities import CHECKED as CAPABILITY_CHECKED
from ._check_initialize import CHECKED as INITIALIZE_CHECKED
from ._check_jsonrpc import CHECKED as FRAMING_CHECKED
from ._check_message import CHECKED as MESSAGE_CHECKED
from ._check_preview import CHECKED as PREVIEW_CHECKED
from ._check_schema import d1_findings
from ._conversation import CHECKED as LIFECYCLE_CHECKED
from ._deciders import DECIDED_BY
from ._protocol import Protocol, ProtocolDraft
from ._violation import Violation

__all__ = ["CHECKED_RULES", "IncrementalCheck", "LiveCheck", "Violation", "check_trace"]

#: Every rule `check_trace` can report (the `checked` column of docs/rules.md).
CHECKED_RULES: Final = (
    LIFECYCLE_CHECKED
    | MESSAGE_CHECKED
    | INITIALIZE_CHECKED
    | PREVIEW_CHECKED
    | FRAMING_CHECKED
    | ANSWERS_CHECKED
    | CAPABILITY_CHECKED
    | {"J3", "J4", "J30", "J37"}
)
# `Rule.checked`/`checked_by` read it; the catalogue imports no checker.
declare_checked(DECIDED_BY)


#: The state of an `IncrementalCheck` before it was the protocol machine's value (its name in
#: tests that read the state's fields).
_Memory = Protocol


class _Checker:
    """Reads entries into the protocol machine's draft: the one draft of a check, local to
    one call. It never changes the values it started from, so the check it started from
    stays what it was (`IncrementalCheck` hands that out)."""

    def __init__(self, protocol: Protocol, found: PVec[Violation], count: int) -> None:
        self.draft = ProtocolDraft(protocol)
        self.found = found
        self.count = count

    @property
    def out(self) -> list[Violation]:
        """Found by this draft, not yet in `found`."""
        return self.draft.out

    def check(self) -> IncrementalCheck:
        """What the draft has read, as a value."""
        return IncrementalCheck(self.draft.value(), self.found.extend(self.draft.out), self.count)

    def read(self, entries: Iterable[object]) -> None:
        for entry in entries_argument(entries, "check_trace"):
            self.entry(self.count, entry)
            self.count += 1

    def entry(self, i: int, entry: object) -> None:
        malformed = d1_findings(entry=entry)
        if malformed:
            for rule, why in malformed:
                self.draft.report(rule, i, why)
            return
        well_formed = cast("Mapping[str, Any]", entry)  # d1_findings found no fault in it
        self.draft.line(i, well_formed["from"], well_formed["message"])

    def finish(self) -> tuple[Violation, ...]:
        """Every violation: what was found, then what only the end shows, by line."""
        self.draft.finish()
        return tuple(sorted((*self.found, *self.draft.out), key=lambda v: v.index))


@frozen(repr=False)
class IncrementalCheck:
    """`check_trace` one entry at a time, as a value: `feed(entry)` returns the check that has
    also read `entry` and leaves this one as it was, so a check forks for free (keep it and
    feed it something else: `explore` extends many recordings from one prefix). Its memory
    is persistent maps and frozen machines: an entry costs what it changes, not what came
    before it.

    `found` is what the entries read so far broke, in the order found; `finish()` adds what
    only the end of a recording shows (C15 never answered, R7 as a warning while work runs)
    and is what `check_trace` of every entry read returns (side=None). The law, tested:
    `check_trace(entries) == reduce(IncrementalCheck.feed, entries, IncrementalCheck.start())
    .finish()`.
    """

    # The protocol machine's value: what the entries read so far set up (`_Memory`).
    _memory: Protocol
    _found: PVec[Violation]  # in the order found
    _count: int  # entries read: the next one's index

    @classmethod
    def start(cls, revision: Revision = DEFAULT_REVISION) -> IncrementalCheck:
        """A check that has read nothing, judging by `revision`."""
        return cls(Protocol.start(revision), PVec(), 0)

    @property
    def protocol(self) -> Protocol:
        """The protocol machine after the entries read so far (`acp_core.protocol`: observe
        it further, or fork it, as this check does)."""
        return self._memory

    @property
    def revision(self) -> Revision:
        """The revision it judges by."""
        return self._memory.revision

    @property
    def count(self) -> int:
        """Entries read so far (the next entry's index)."""
        return self._count

    @property
    def found(self) -> tuple[Violation, ...]:
        """What the entries read so far broke, in the order found (never taken back)."""
        return self._found.to_tuple()

    def feed(self, entry: object) -> IncrementalCheck:
        """The check that has also read `entry` (never raises: a bad entry is a `D1`)."""
        return self.feed_all((entry,))

    def feed_all(self, entries: Iterable[object]) -> IncrementalCheck:
        """The check that has also read `entries`, in order (`feed` of each, in one draft)."""
        draft = self._draft()
        draft.read(entries)
        return draft.check()

    def finish(self) -> tuple[Violation, ...]:
        """Every violation of the recording read so far, as if it ended here, sorted by
        entry index (this check stays as it was: it can still be fed)."""
        return self._draft().finish()

    def _draft(self) -> _Checker:
        return _Checker(self._memory, self._found, self._count)

    def __repr__(self) -> str:
        found = len(self._found)
        name = self.revision.name
        return f"IncrementalCheck(revision={name!r}, count={self.count}, found={found})"


class LiveCheck:
    """`check_trace` of a stream that is still arriving (`python -m acp_core proxy`): each
    `feed(entry)` returns the violations that entry adds, and `finish()` those only the end
    shows. A single-owner holder of an `IncrementalCheck`: the cost of one entry does not
    grow with the sessions or requests the stream has opened."""

    __slots__ = ("_check", "_finished", "_ended")

    def __init__(self, revision: Revision = DEFAULT_REVISION) -> None:
        self._check = IncrementalCheck.start(revision)
        self._finished = False
        self._ended: tuple[Violation, ...] = ()

    @property
    def count(self) -> int:
        """Entries fed so far (the next entry's index)."""
        return self._check.count

    def feed(self, entry: object) -> tuple[Violation, ...]:
        """Check one more entry; the violations it adds, in the order found."""
        if self._finished:
            raise ArgumentError("LiveCheck.feed after finish")
        draft = self._check._draft()
        draft.read((entry,))
        self._check = draft.check()
        return tuple(draft.out)  # what this entry added (slicing `found` would copy it all)

    def finish(self) -> tuple[Violation, ...]:
        """The violations only the end of the stream shows (C15 never answered, R7 while
        work runs); afterwards the check is closed."""
        if self._finished:
            return ()
        self._finished = True
        draft = self._check._draft()
        draft.finish()
        self._ended = tuple(draft.out)
        return self._ended

    def found(self) -> tuple[Violation, ...]:
        """Every violation reported so far, sorted by entry index (after `finish`: what
        `check_trace` of every entry fed returns, side=None)."""
        return tuple(sorted((*self._check.found, *self._ended), key=lambda v: v.index))


def check_trace(
    entries: Iterable[object],
    *,
    revision: Revision = DEFAULT_REVISION,
    side: Side | None = None,
) -> tuple[Violation, ...]:
    """Check a recorded conversation against the rule catalogue.

    Args:
        entries: the trace, one item per line: `{"from": "client" | "agent", "message":
            <JSON-RPC message or batch>}` as parsed from JSON. The trace may start
            mid-session (after `initialize` and session setup): a session it meets without
            seeing it begin may be anywhere in its lifecycle, while one it sees created by
            a `session/new` or `session/fork` answer starts idle, as an engine's does.
        revision: the protocol revision to judge by (default: the default revision, the
            v2 Preview; `DEFAULT_REVISION`).
        side: judge only the rules that bind this side (`"agent"` or `"client"`; rules
            that bind both are always judged). Judge each side on its own recording: the
            order one end sees can differ from the order the other end sent.

    Returns:
        The violations, sorted by entry index. A malformed entry is a violation (`D1`),
        never an exception; the input is not modified.
    """
    # `IncrementalCheck.start(revision).feed_all(entries).finish()`, in one draft
    side_argument(side, "check_trace")
    draft = _Checker(Protocol.start(revision), PVec(), 0)
    draft.read(entries)
    found = draft.finish()
    if side is None:
        return found
    return tuple(v for v in found if RULES[v.rule].side in (side, "both"))
