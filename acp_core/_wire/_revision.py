"""Protocol revisions: the one registry of what differs between the v2 drafts acp-core speaks.

Owns: `Revision`, the known drafts and `REVISIONS` (by name). Every revision fact lives here:
which revisions a draft builds on (its lineage), the update kinds it knows (cumulative), the
known values of its open enums, the `session/prompt` receipt shape, how `_meta` patches apply,
and which catalogue rules it adds or drops. Decoding, reducers, engines, the checker and the
CLI all take a `Revision` (default `DEFAULT_REVISION`), so a later draft is a parameter.
Must not know: how any of these facts is used.

Which update kinds a revision decodes is not restated: a variant class belongs to the revision
named by its `__wire_since__` (default: the base revision) and every revision whose lineage
includes it (see `_wire/_fields.py`).
"""

from __future__ import annotations

import typing
from collections.abc import Mapping
from typing import Any, Final, SupportsIndex

import attrs
import immutables

from ._fields import BASE_REVISION, PREVIEW_NAME, since_of
from ._freezing import freezing_fields
from ._updates import SessionUpdate, StopReason, ToolCallStatus

__all__ = [
    "DEFAULT_REVISION",
    "KNOWN_UPDATE_TAGS",
    "LATER_RULES",
    "PREVIEW",
    "REVISIONS",
    "REVISION_ALIASES",
    "REVISION_CHOICES",
    "V2_2026_08",
    "V2_2026_11",
    "V2_PREVIEW",
    "Revision",
    "decoded_update_tags",
    "revision_named",
]


def decoded_update_tags(lineage: tuple[str, ...]) -> frozenset[str]:
    """The `sessionUpdate` tags of the variant classes a revision with `lineage` decodes."""
    return frozenset(
        cls.__wire_tag__[0][1]
        for cls in typing.get_args(SessionUpdate)
        if hasattr(cls, "__wire_tag__") and since_of(cls) in lineage
    )


@attrs.frozen(field_transformer=freezing_fields)
class Revision:
    """One v2 draft and the facts that differ in it.

    Attributes:
        name: the draft's date, e.g. ``2026-08``.
        schema_version: the schema version it ships with.
        prompt_result_has_message_id: the receipt shape: the `session/prompt` result carries
            the inserted user message's `messageId` (2026-11) instead of being `{}` (2026-08).
        meta_patch_merges: `_meta` patches merge by top-level key (2026-11) instead of
            replacing the object (2026-08).
        stop_reasons, tool_statuses: the known (non-extension) values of these open enums.
        lineage: the names of the revisions this one includes, oldest first, itself last; a
            class or field with `since` in the lineage is on this revision's wire.
        update_kinds: every `sessionUpdate` tag the revision defines (cumulative), including
            tags acp-core does not decode into a class yet (`decoded_update_kinds`).
        usage_meta_patches: `usage_update._meta` is a metadata patch (Preview) instead of
            being replaced with each report.
        rules_added, rules_dropped: catalogue rule ids that apply only from this revision
            on, or no longer apply in it (relative to the base revision's catalogue).
    """

    name: str
    schema_version: str
    prompt_result_has_message_id: bool
    meta_patch_merges: bool
    stop_reasons: frozenset[str]
    tool_statuses: frozenset[str]
    lineage: tuple[str, ...] = attrs.field()
    update_kinds: frozenset[str] = attrs.field()
    rules_added: frozenset[str] = frozenset()
    rules_dropped: frozenset[str] = frozenset()
    usage_meta_patches: bool = False

    @lineage.default
    def _own_lineage(self) -> tuple[str, ...]:
        return (self.name,)

    @update_kinds.default
    def _decoded_kinds(self) -> frozenset[str]:
        return decoded_update_tags(self.lineage)

    @property
    def decoded_update_kinds(self) -> frozenset[str]:
        """The update tags this revision decodes into their own classes (the rest of
        `update_kinds` decodes to `OtherUpdate`)."""
        return decoded_update_tags(self.lineage)

    def __reduce_ex__(self, protocol: SupportsIndex) -> str | tuple[Any, ...]:
        # A registered revision pickles as its name, so another process (explore's workers)
        # gets its own registry object back: the checker and codec cache per revision by
        # identity, and a copy would miss every cache. Any other revision goes by value.
        if REVISIONS.get(self.name) is self:
            return revision_named, (self.name,)
        return super().__reduce_ex__(protocol)

    def __repr__(self) -> str:
        # A revision is a default argument of many public functions; the generated repr (every
        # field, ~1,000 characters) buried their `help()` signatures. The name identifies a
        # registered revision; an unregistered one says so, since its fields may differ.
        if REVISIONS.get(self.name) is self:
            return f"Revision({self.name!r})"
        return f"Revision({self.name!r}, unregistered)"

    def includes(self, name: str) -> bool:
        """The revision `name` is this one or one it builds on."""
        return name in self.lineage

    def applies(self, rule_id: str) -> bool:
        """Whether a catalogue rule applies in this revision (the machine asks this).

        It does unless this revision drops it, or a later revision brings it (`LATER_RULES`)
        and this one's `rules_added` does not include it."""
        if rule_id in self.rules_dropped:
            return False
        return rule_id in self.rules_added or rule_id not in LATER_RULES


def _ids(prefix: str, numbers: range) -> frozenset[str]:
    return frozenset(f"{prefix}{n}" for n in numbers)


# The rules of the Preview digest's section 4 (R47-R81, C27-C56) that the 2026-11 draft
# already states (its sources are the 2026-11 docs and SDK 2.4.0: background work, item
# cancels, the resume state snapshot, the tool-call name, C40 for C15); the rest come with
# the Preview.
_RULES_2026_11: Final = frozenset(
    {"R62", "R73", "R74", "R75", "R76", "R81", "C40", "C41", "C49", "C50", "C56"}
)
#: Every catalogue rule that applies only from a later revision on (`Revision.applies`).
LATER_RULES: Final = _ids("R", range(47, 82)) | _ids("C", range(27, 57))
_RULES_PREVIEW: Final = LATER_RULES - _RULES_2026_11


def _later(
    base: Revision,
    name: str,
    schema_version: str,
    *,
    new_update_kinds: frozenset[str] = frozenset(),
    new_stop_reasons: frozenset[str] = frozenset(),
    new_tool_statuses: frozenset[str] = frozenset(),
    **changes: object,
) -> Revision:
    """A revision that builds on `base`: every set is cumulative, its lineage extends base's."""
    lineage = (*base.lineage, name)
    fields: dict[str, object] = {
        "name": name,
        "schema_version": schema_version,
        "prompt_result_has_message_id": base.prompt_result_has_message_id,
        "meta_patch_merges": base.meta_patch_merges,
        "stop_reasons": base.stop_reasons | new_stop_reasons,
        "tool_statuses": base.tool_statuses | new_tool_statuses,
        "lineage": lineage,
        "update_kinds": base.update_kinds | decoded_update_tags(lineage) | new_update_kinds,
        "rules_added": base.rules_added,
        "rules_dropped": base.rules_dropped,
        "usage_meta_patches": base.usage_meta_patches,
    }
    fields.update(changes)
    return Revision(**fields)  # type: ignore[arg-type]


#: The stable v2 draft of 2026-08 (schema 2.0.0-alpha.3): `session/prompt` answers `{}`.
V2_2026_08: Final = Revision(
    BASE_REVISION, "2.0.0-alpha.3", False, False, StopReason.KNOWN, ToolCallStatus.KNOWN
)

#: The later draft of 2026-11 (TypeScript SDK 2.4.0): the prompt result carries `messageId`,
#: `_meta` patches merge by key, stop reason `error`, tool status `paused`, the tool-call
#: `name` and three more update kinds exist.
V2_2026_11: Final = _later(
    V2_2026_08,
    "2026-11",
    "2.4.0 (SDK bundle)",
    prompt_result_has_message_id=True,
    meta_patch_merges=True,
    new_stop_reasons=frozenset({StopReason.ERROR}),
    new_tool_statuses=frozenset({ToolCallStatus.PAUSED}),
    rules_dropped=frozenset({"C15"}),  # replaced by C40 (Preview digest 4.3)
    rules_added=_RULES_2026_11,
)

#: The v2 Preview of 2026-11-20 (schema crate 1.20.0, about JSON schema 2.0.0-alpha.17; no
#: machine-readable schema is published, acp-core follows the reconstruction): subagent child
#: sessions, inter-session messages, the replay marker, plan removal and markdown plans, the
#: unknown state, prompt idempotency keys, unstable prompt suggestions; `usage_update._meta`
#: becomes a metadata patch. Also reachable as `preview` (`revision_named`).
V2_PREVIEW: Final = _later(
    V2_2026_11,
    PREVIEW_NAME,
    "1.20.0 (schema crate; reconstructed)",
    usage_meta_patches=True,
    rules_added=_RULES_2026_11 | _RULES_PREVIEW,
)

#: The v2 Preview under its alias (`PREVIEW.name` is its dated name, `2026-11-20`).
PREVIEW: Final = V2_PREVIEW

#: Every known revision by its dated name (what `--revision` offers; tests iterate it).
REVISIONS: Final[Mapping[str, Revision]] = immutables.Map(
    {r.name: r for r in (V2_2026_08, V2_2026_11, V2_PREVIEW)}
)

#: Other names a revision answers to.
REVISION_ALIASES: Final[Mapping[str, str]] = immutables.Map({"preview": PREVIEW_NAME})

#: Every name `revision_named` accepts (dated names and aliases), for `--revision` choices.
REVISION_CHOICES: Final = tuple(sorted((*REVISIONS, *REVISION_ALIASES)))


def revision_named(name: str) -> Revision:
    """The revision called `name` (a dated name such as `2026-11`, or an alias: `preview`).

    Raises:
        KeyError: no revision has that name (`REVISION_CHOICES` lists them).
    """
    found = REVISIONS.get(REVISION_ALIASES.get(name, name))
    if found is None:
        msg = f"unknown revision {name!r}; known: {', '.join(REVISION_CHOICES)}"
        raise KeyError(msg)
    return found


#: The revision used when none is given: the v2 Preview, what current agents speak
#: (docs/revisions.md; until this release it was `V2_2026_08`, which stays
#: available by name).
DEFAULT_REVISION: Final = V2_PREVIEW

#: The `sessionUpdate` tags of the default revision (strategies, checks and tests read it;
#: `Revision.update_kinds` has each revision's).
KNOWN_UPDATE_TAGS: Final = DEFAULT_REVISION.update_kinds
