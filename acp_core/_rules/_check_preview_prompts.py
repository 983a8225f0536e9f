"""The Preview trace checks of prompts: keys and retries, held prompts at a cancel, the replay
window.

Owns: `PromptBook` (a frozen value: the recording's memory of every session's prompts so far:
the attempts of each idempotency key, the prompts pending at a `session/cancel`, the user
message ids the agent reported, the prompts sent inside a replay window) and the findings C43,
R59, R67, R68 and R70 (docs/semantics.md, "Prompts, retries and held prompts in a trace");
`BookDraft`, its in-call view (`_rules/_draft.py`).
Must not know: one session's turn lifecycle (`_rules/_conversation*.py`), children, items or
background work (`_rules/_check_preview*.py`), files. It reads the replay windows the
draft keeps and reports through the draft (the revision gate): of the draft it knows only
that much, `Reporting`, so it imports no module that imports it.

What a trace can show (each finding needs ordering the recording cannot get wrong: what the
client sent reaches the agent in the recorded order, and so does what the agent sent):
- R67: a retry sent after its key's insertion is answered with another `messageId`.
- R68: a retry sent while its original is unanswered resolves otherwise than the original:
  another `messageId`, an error where the original succeeded, or, answered before the
  original, success or another error where the original fails. (A retry answered after its
  original's error may have reached the agent after the key was freed: a new attempt, P15.)
  A client `$/cancel_request` for any attempt of the key exempts it (it may split outcomes).
- R70: a prompt sent after a `session/cancel` answered -32800 though nothing cancels it (no
  later cancel or close of its session, no `$/cancel_request` for it or its key); and a
  prompt pending at the cancel that the agent inserts only after it answered another prompt
  pending at the same cancel -32800 (the agent had swept the held prompts; a user message is
  reported when inserted, digest Q4, so neither the answer nor the user message before the
  sweep means it was held then).
- R59: a prompt without a key sent inside a replay window (after the resume request, before
  the marker) whose user message (the `messageId` its answer names) comes before the marker:
  a live update in the window. A keyed prompt may be a retry of history (R69), so it is left
  out.
"""

from __future__ import annotations

from collections.abc import Mapping
from typing import Final, Protocol

from acp_core._state._pcoll import PMap
from acp_core._wire import _jsonrpc as j
from acp_core._wire._fastnew import fast_evolve
from acp_core._wire._value import frozen

from ._check_preview_records import HistoryWindow, window_request
from ._draft import EMPTY, ppop, twins
from ._predicates import RequestKey, request_key, shown
from ._recent import EMPTY_RECENT, Recent

__all__ = [
    "CHECKED",
    "BookDraft",
    "PromptBook",
    "Reporting",
    "c43_breach",
    "freeze_book",
    "thaw_book",
]

#: The rules these checks report (a part of `_check_preview.CHECKED`).
CHECKED: Final = frozenset({"C43", "R59", "R67", "R68", "R70"})

_CANCELLED: Final = j.ErrorCode.REQUEST_CANCELLED
Outcome = tuple[str, object]  # ("ok", messageId) or ("error", code)


class Reporting(Protocol):
    """What these checks use of the draft they run in (`_rules/_check_preview_draft.
    PreviewMemory` is one): the open replay windows, and where findings go."""

    @property
    def replaying(self) -> PMap[str, HistoryWindow]: ...

    def report(self, rule: str, at: int, message: str) -> None: ...


@frozen(slots=True)
class _Attempt:
    """One `session/prompt` request, from its sending to its answer."""

    sid: str
    at: int
    key: str | None
    group: int | None = None  # the key's attempts while the original is pending (`groups`)
    cancel_at: int | None = None  # the last session/cancel it was pending at
    closed: bool = False  # a session/close came while it was pending (R76's)
    withdrawn: bool = False  # a $/cancel_request named it or another attempt of its key
    swept: tuple[int, int] | None = None  # (line, prompt line) of a sibling's -32800
    window: RequestKey | None = None  # the replay window it was sent in (R59)


@frozen(slots=True)
class _Group:
    """The attempts of one key sent while its original was unanswered (R68)."""

    original: RequestKey
    # (attempt, (line, outcome)) in the order answered
    answers: tuple[tuple[RequestKey, tuple[int, Outcome]], ...] = ()
    withdrawn: bool = False  # a $/cancel_request named one of its attempts


@frozen(slots=True)
class PromptBook:
    """The prompt memory of a recording so far (a frozen value)."""

    pending: PMap[RequestKey, _Attempt] = EMPTY
    open: PMap[tuple[str, str], int] = EMPTY  # (session, key) -> its open group
    groups: PMap[int, _Group] = EMPTY  # every group an attempt may name, by number
    next_group: int = 0
    contents: PMap[tuple[str, str], object] = EMPTY  # first prompt of a key (C43)
    inserted: PMap[tuple[str, str], str] = EMPTY  # (session, key) -> first messageId
    # session -> its last session/cancel (R70; at most MAX_REMEMBERED_IDS, the oldest
    # forgotten: a prompt of a session cancelled that long ago is judged as never cancelled)
    cancels: Recent[str, int] = EMPTY_RECENT
    users: PMap[str, PMap[str, int]] = EMPTY  # session -> user message id -> first line
    replayed: PMap[str, tuple[RequestKey, PMap[str, int]]] = EMPTY  # window's user ids
    live: PMap[str, PMap[str, RequestKey]] = EMPTY  # live ids awaited in a window


def c43_breach(key: str, first: object, prompt: object) -> tuple[str, str] | None:
    """C43 (decision P15): a key names one submission, so a prompt carrying `key` has the
    content `first` that the key's first prompt in the session had. Asked by the checker
    (`BookDraft.prompt`) and by the client engine before it sends a keyed prompt
    (`_engines/_client_prompts.py`), so both say the same rule in the same words."""
    if first == prompt:
        return None
    return (
        "C43",
        f"idempotencyKey {shown(key)} is reused for a different prompt in the same session: "
        "one key names one submission",
    )


class BookDraft:
    """`PromptBook` being edited inside one call (`_rules/_draft.twins`), with the prompt
    rules."""

    __slots__ = (
        *("pending", "open", "groups", "next_group", "contents", "inserted", "cancels"),
        *("users", "replayed", "live"),
    )
    pending: PMap[RequestKey, _Attempt]
    open: PMap[tuple[str, str], int]
    groups: PMap[int, _Group]
    next_group: int
    contents: PMap[tuple[str, str], object]
    inserted: PMap[tuple[str, str], str]
    cancels: Recent[str, int]
    users: PMap[str, PMap[str, int]]
    replayed: PMap[str, tuple[RequestKey, PMap[str, int]]]
    live: PMap[str, PMap[str, RequestKey]]

    # -- the client's messages -----------------------------------------------------------

    def prompt(self, r: Reporting, i: int, sid: str, msg: j.PromptRequest) -> None:
        key = msg.idempotency_key if isinstance(msg.idempotency_key, str) else None
        rkey = request_key(msg.id)
        if key is None:
            self.pending = self.pending.set(
                rkey, _Attempt(sid, i, None, window=window_request(r.replaying, sid))
            )
            return
        first = self.contents.get((sid, key), msg.prompt)
        if (sid, key) not in self.contents:
            self.contents = self.contents.set((sid, key), msg.prompt)
        found = c43_breach(key, first, msg.prompt)
        if found is not None:
            r.report(found[0], i, found[1])
        number = self.open.get((sid, key))
        if number is None and (sid, key) not in self.inserted:
            number = self.next_group
            self.next_group = number + 1
            self.open = self.open.set((sid, key), number)
            self.groups = self.groups.set(number, _Group(rkey))
        # group None: a retry of an inserted prompt (R67); joining a withdrawn original
        # makes the attempt withdrawn too
        withdrawn = number is not None and self.groups[number].withdrawn
        self.pending = self.pending.set(
            rkey, _Attempt(sid, i, key, group=number, withdrawn=withdrawn)
        )

    def cancel(self, i: int, sid: str) -> None:
        self.cancels = self.cancels.set(sid, i)
        edit = self.pending.mutate()  # a transient: this loop's edits, frozen below
        for rkey, attempt in self.pending.items():
            if attempt.sid == sid:
                edit[rkey] = fast_evolve(attempt, cancel_at=i)
        self.pending = edit.finish()

    def close(self, sid: str) -> None:
        edit = self.pending.mutate()
        for rkey, attempt in self.pending.items():
            if attempt.sid == sid and not attempt.closed:
                edit[rkey] = fast_evolve(attempt, closed=True)
        self.pending = edit.finish()

    def withdraw(self, key: RequestKey) -> None:
        # The client's $/cancel_request for a prompt: it may end as -32800, and so may every
        # attempt of its key (R68's SHOULD).
        attempt = self.pending.get(key)
        if attempt is None:
            return
        self.pending = self.pending.set(key, fast_evolve(attempt, withdrawn=True))
        if attempt.group is not None:
            self.groups = self.groups.set(
                attempt.group, fast_evolve(self.groups[attempt.group], withdrawn=True)
            )
        for rkey, other in self.pending.items():
            same = other.sid == attempt.sid and other.key is not None and other.key == attempt.key
            if same and not other.withdrawn:
                self.pending = self.pending.set(rkey, fast_evolve(other, withdrawn=True))

    # -- the agent's messages ------------------------------------------------------------

    def user(self, r: Reporting, i: int, sid: str, mid: str) -> None:
        """The agent reported user message `mid` on `sid` (an upsert or a chunk)."""
        ids = self.users.get(sid, EMPTY)
        if mid not in ids:
            self.users = self.users.set(sid, ids.set(mid, i))
        window = window_request(r.replaying, sid)
        if window is None:
            return
        seen = self.replayed.get(sid)
        if seen is None or seen[0] != window:
            seen = (window, EMPTY)
        if mid not in seen[1]:
            seen = (window, seen[1].set(mid, i))
        self.replayed = self.replayed.set(sid, seen)
        live = self.live.get(sid, EMPTY)
        if live.get(mid) == window:
            self.live = self.live.set(sid, live.delete(mid))
            _r59(r, i, mid)

    def answer(self, r: Reporting, i: int, sid: str, msg: j.Response | j.ErrorResponse) -> None:
        """The agent answered the prompt `msg.id` of session `sid`."""
        self.pending, attempt = ppop(self.pending, request_key(msg.id))
        if attempt is None:
            return
        result = msg.result if isinstance(msg, j.Response) else None
        mid = result.get("messageId") if isinstance(result, Mapping) else None
        if isinstance(msg, j.ErrorResponse):
            outcome: Outcome = ("error", msg.error.code)
        elif isinstance(mid, str):
            outcome = ("ok", mid)
        else:
            return  # not a Preview result: R1's
        if attempt.key is not None:
            self.keyed(r, i, request_key(msg.id), attempt, outcome)
        if outcome == ("error", _CANCELLED):
            self.cancelled(r, i, attempt)
        elif outcome[0] == "ok":
            self.inserted_now(r, i, attempt, str(outcome[1]))

    def keyed(
        self, r: Reporting, i: int, rkey: RequestKey, attempt: _Attempt, outcome: Outcome
    ) -> None:
        assert attempt.key is not None
        slot = (attempt.sid, attempt.key)
        first = None
        if outcome[0] == "ok":
            first = self.inserted.get(slot, str(outcome[1]))
            if slot not in self.inserted:
                self.inserted = self.inserted.set(slot, first)
        if attempt.group is None:  # a retry sent after the key's insertion (R67)
            if first is not None and first != outcome[1]:
                r.report(
                    "R67",
                    i,
                    f"a retry with idempotencyKey {shown(attempt.key)} is answered with "
                    f"messageId {shown(outcome[1])}; the original insertion was {shown(first)}",
                )
            return
        number = attempt.group
        group = self.groups[number]
        answers = dict(group.answers)
        answers[rkey] = (i, outcome)
        group = fast_evolve(group, answers=tuple(answers.items()))
        self.groups = self.groups.set(number, group)
        if rkey == group.original and self.open.get(slot) == number:
            self.open = self.open.delete(
                slot
            )  # an error frees the key (P15); a success inserted it
        if group.withdrawn:
            return
        original = answers.get(group.original)
        if original is None:
            return  # judged when the original is answered
        if rkey == group.original:  # every retry answered so far was answered before it
            judged = [a for k, (_at, a) in answers.items() if k != rkey]
        else:  # after an error of the original, the retry may have come after the key was freed
            judged = [outcome] if original[1][0] == "ok" else []
        for theirs in judged:
            if theirs != original[1]:
                r.report(
                    "R68",
                    i,
                    f"a retry with idempotencyKey {shown(attempt.key)}, sent while the original "
                    f"attempt was unanswered, resolves as {_shown(theirs)}; the original "
                    f"resolves as {_shown(original[1])}: a retry of a held prompt shares its "
                    "outcome",
                )
                return

    def cancelled(self, r: Reporting, i: int, attempt: _Attempt) -> None:
        # -32800 for a prompt: a sweep of the held prompts at a cancel, or a fault (R70). After
        # a $/cancel_request or during a session/close (R76's sweep) it is neither.
        if attempt.closed or attempt.withdrawn:
            return
        c = attempt.cancel_at
        if c is None:
            _r70(r, i, attempt, cancel_before=self.cancels.get(attempt.sid))
            return
        number = attempt.group
        original_key = None if number is None else self.groups[number].original
        edit = self.pending.mutate()
        for key, other in self.pending.items():
            held = other.sid == attempt.sid and other.cancel_at == c  # (closed with `attempt`)
            # The original of this retry's key is R68's: its outcome is judged against this
            original = number is not None and other.group == number and key == original_key
            if held and other.swept is None and not original:
                edit[key] = fast_evolve(other, swept=(i, attempt.at))
        self.pending = edit.finish()

    def inserted_now(self, r: Reporting, i: int, attempt: _Attempt, mid: str) -> None:
        _r70(r, i, attempt, inserted=(mid, self.users.get(attempt.sid, EMPTY).get(mid)))
        window = attempt.window
        if window is None:
            return
        replayed = self.replayed.get(attempt.sid)
        at = replayed[1].get(mid) if replayed is not None and replayed[0] == window else None
        if at is not None and at > attempt.at:
            _r59(r, at, mid)
        elif window_request(r.replaying, attempt.sid) == window:
            self.live = self.live.set(
                attempt.sid, self.live.get(attempt.sid, EMPTY).set(mid, window)
            )


def _r70(
    r: Reporting,
    i: int,
    attempt: _Attempt,
    *,
    cancel_before: int | None = None,
    inserted: tuple[str, int | None] | None = None,
) -> None:
    """R70: a `session/cancel` answers -32800 exactly the prompts it holds. Judged at the two
    lines that can show otherwise: a -32800 answer to a prompt no cancel covers
    (`cancel_before`, the line of its session's last cancel, when that cancel came before the
    prompt), and a held prompt inserted (`inserted`: its `messageId` and the line its user
    message was first seen, if it was) only after another prompt held at the same cancel was
    answered -32800 (the agent had swept the held prompts)."""
    if cancel_before is not None and cancel_before < attempt.at:
        r.report(
            "R70",
            i,
            f"the prompt of line {attempt.at} was sent after session/cancel (line "
            f"{cancel_before}) and is answered -32800: a cancel covers only the prompts "
            "before it",
        )
    swept = attempt.swept
    if inserted is not None and swept is not None:
        mid, seen = inserted
        if seen is None or seen > swept[0]:
            r.report(
                "R70",
                i,
                f"the prompt of line {attempt.at} was held at session/cancel (line "
                f"{attempt.cancel_at}); the agent answered the held prompt of line {swept[1]} "
                f"-32800 (line {swept[0]}) and inserts this one only afterwards, as "
                f"{shown(mid)}: a cancel answers every held prompt -32800",
            )


def _r59(r: Reporting, at: int, mid: str) -> None:
    r.report(
        "R59",
        at,
        f"user message {shown(mid)} of a prompt sent during the replay is reported before "
        "replay_complete: live updates wait for the marker",
    )


def _shown(outcome: Outcome) -> str:
    kind, value = outcome
    return f"messageId {shown(value)}" if kind == "ok" else f"error {shown(value)}"


thaw_book, freeze_book = twins(PromptBook, BookDraft)
