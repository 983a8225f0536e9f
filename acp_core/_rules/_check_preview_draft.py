"""The memory of the rules across a connection's sessions while one call edits it.

Owns: `PreviewMemory`, the fields of `_rules/_check_preview.PreviewState` as one call's draft
edits them (the prompt book and the cancel windows through drafts of their own), and what
every rule module does to that memory besides editing a field: report a finding where the
revision has the rule (`report`), R57's two halves (`r57`: a resume answered before its
marker, a second marker).
Must not know: the dispatch of a message to the rules, or the frozen record itself
(`_rules/_check_preview.py`: `PreviewDraft` extends this class with them), what any other rule
says (each `_check_preview_*` module decides its own).

Why a module of its own: the rule modules (`_check_preview_answers.py`,
`_check_preview_updates.py`) take the draft as `r`, and the draft's dispatch calls them; with
the draft's fields and reporting here, they import what they edit and nothing imports back,
so the four modules form no import cycle (tests/test_import_cycles.py).
"""

from __future__ import annotations

from acp_core._state._pcoll import PMap
from acp_core._wire._revision import Revision

from ._check_preview_cancels import Cancels, CancelsDraft, thaw_cancels
from ._check_preview_prompts import BookDraft, PromptBook, thaw_book
from ._check_preview_records import HistoryWindow, Resume, Terminal, Tool
from ._conversation_state import Finding
from ._draft import OMap
from ._naming import Naming
from ._predicates import RequestKey, shown
from ._recent import Recent

__all__ = ["PreviewMemory", "reported"]


def reported(revision: Revision, rule: str, at: int, why: str) -> list[Finding]:
    """What reporting `rule` at `at` finds where `revision` has the rule."""
    return [Finding(rule, why, at)] if revision.applies(rule) else []


class _Scratch:
    # The draft's own slots besides the record's fields.
    __slots__ = ("book_draft", "cancels_draft", "found")
    found: list[Finding]
    book_draft: BookDraft | None
    cancels_draft: CancelsDraft | None


class PreviewMemory(_Scratch):
    """`PreviewState`'s fields being edited inside one call (`_rules/_draft.twins`): what the
    `_check_preview_*` rule modules take as `r` and edit. A field is replaced, never edited
    in place; `book` and `cancels` are edited through their own drafts (`edit_book()`,
    `edit_cancels()`). The draft itself is `_rules/_check_preview.PreviewDraft`, which adds
    the dispatch."""

    __slots__ = (
        *("revision", "named", "parents", "can_cancel", "child_idle", "unclaimed", "tools"),
        *("terminals", "background", "routes", "resumes", "replaying", "book"),
        *("resumed", "inserted", "permissions", "withdrawn", "cancelled", "closed"),
        *("suggestions", "j3", "fresh", "child_work", "cancels"),
    )

    revision: Revision
    named: Recent[str, bool]
    parents: PMap[str, str]
    can_cancel: PMap[str, bool]
    child_idle: PMap[str, bool]
    unclaimed: Recent[str, tuple[int, Naming]]
    tools: PMap[tuple[str, str], Tool]
    terminals: PMap[tuple[str, str], Terminal]
    background: PMap[str, tuple[tuple[str, str], ...] | None]
    routes: PMap[tuple[str, RequestKey], tuple[str, str | None, object]]
    resumes: OMap[RequestKey, Resume]
    replaying: PMap[str, HistoryWindow]
    book: PromptBook
    resumed: Recent[str, int]
    inserted: PMap[str, PMap[str, bool]]
    permissions: OMap[RequestKey, tuple[str, int, str | None]]
    withdrawn: OMap[RequestKey, int]
    cancelled: OMap[RequestKey, int]
    closed: Recent[str, int]
    suggestions: bool | None
    j3: Recent[tuple[int, str], bool]
    fresh: PMap[str, bool]
    child_work: PMap[str, int]
    cancels: Cancels

    def edit_book(self) -> BookDraft:
        """The prompt book's draft (made on first use in this call)."""
        if self.book_draft is None:
            self.book_draft = thaw_book(self.book)
        return self.book_draft

    def edit_cancels(self) -> CancelsDraft:
        """The cancel windows' draft (made on first use in this call)."""
        if self.cancels_draft is None:
            self.cancels_draft = thaw_cancels(self.cancels)
        return self.cancels_draft

    def report(self, rule: str, at: int, message: str) -> None:
        self.found.extend(reported(self.revision, rule, at, message))

    def r57(self, i: int, *, answered: Resume | None = None, again: str | None = None) -> bool:
        """R57: a resume with a replay cursor gets exactly one `replay_complete` for its
        session before its response. Judged where each half can show: the resume's successful
        answer (`answered`, before any marker arrived) and a second marker for a session
        (`again`) in one resume. Returns whether it reported (R64 waits for the marker)."""
        if answered is not None:
            missing = (
                answered.cursor
                and self.revision.applies("R57")
                and answered.session not in answered.marked
            )
            if missing:
                self.report(
                    "R57",
                    i,
                    f"the resume of line {answered.at} asked for a replay, but is answered "
                    f"before replay_complete on {shown(answered.session)}",
                )
                return True
        if again is not None:
            self.report("R57", i, f"second replay_complete for {shown(again)} in one resume")
            return True
        return False
