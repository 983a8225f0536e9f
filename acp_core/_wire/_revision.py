"""Protocol revisions: the one registry of what differs between the v2 drafts acp-core speaks.

Owns: `Revision`, the known drafts and `REVISIONS` (by name). Every revision fact lives here:
which revisions a draft builds on (its lineage), the update kinds it knows (cumulative), the
known values of its open enums, the `session/prompt` receipt shape and how `_meta` patches
apply. Decoding, reducers, engines, the checker and the CLI all take a `Revision` (default
`DEFAULT_REVISION`), so a later draft is a parameter.
Must not know: how any of these facts is used; what any catalogue rule says.

Which catalogue rules apply in a revision is not a revision fact: each `Rule` says it
(`Rule.since`, the revision it comes with; `Rule.until`, the last one it applies to). The seam:
`_wire` may not import `_rules`, so the catalogue declares every rule's scope here when it is
loaded (`declare_rule_scopes`, called by `_rules/_catalogue.py`) and `Revision.applies` answers
from that declaration (dependency inversion: the revision asks a registry the catalogue fills;
no import runs upward, no cycle). Every way to reach a revision loads the catalogue with it:
`acp_core/_rules/__init__.py` imports it (any rule-layer caller), the root's lazy `__getattr__`
and the public `codec` submodule do too. A revision asked before any catalogue declared its
scopes (only reachable through a private import of this module) raises instead of guessing,
and so does a rule id the catalogue does not know: a forgotten scope cannot pass silently.

Which update kinds a revision decodes is not restated: a variant class belongs to the revision
named by its `__wire_since__` (default: the base revision) and every revision whose lineage
includes it (see `_wire/_fields.py`).
"""

from __future__ import annotations

import typing
import warnings
from collections.abc import Mapping
from typing import Any, Final, SupportsIndex

import attrs
import immutables

from acp_core._errors import AcpError, ArgumentError, UnknownRevisionError

from ._fields import BASE_REVISION, PREVIEW_NAME, since_of
from ._freezing import freezing_fields
from ._updates import SessionUpdate, StopReason, ToolCallStatus
from ._value import frozen

__all__ = [
    "DEFAULT_REVISION",
    "KNOWN_UPDATE_TAGS",
    "PREVIEW",
    "REVISIONS",
    "REVISION_ALIASES",
    "REVISION_CHOICES",
    "V2_2026_08",
    "V2_2026_11",
    "V2_PREVIEW",
    "Revision",
    "RuleScope",
    "declare_rule_scopes",
    "decoded_update_tags",
    "revision_argument",
    "revision_named",
]


def decoded_update_tags(lineage: tuple[str, ...]) -> frozenset[str]:
    """The `sessionUpdate` tags of the variant classes a revision with `lineage` decodes."""
    return frozenset(
        cls.__wire_tag__[0][1]
        for cls in typing.get_args(SessionUpdate)
        if hasattr(cls, "__wire_tag__") and since_of(cls) in lineage
    )


@frozen(field_transformer=freezing_fields)
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

    Which catalogue rules apply here is said by each rule (`Rule.since`, `Rule.until`) and
    asked with `applies`. `rules_added` and `rules_dropped` (deprecated, derived from those)
    remain for one release as read-only properties.
    """

    name: str
    schema_version: str
    prompt_result_has_message_id: bool
    meta_patch_merges: bool
    stop_reasons: frozenset[str]
    tool_statuses: frozenset[str]
    lineage: tuple[str, ...] = attrs.field()
    update_kinds: frozenset[str] = attrs.field()
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

        It does when this revision includes the one the rule comes with (`Rule.since`; none:
        from the base revision on) and is included in the last one it applies to
        (`Rule.until`; none: every later revision too).

        Raises:
            ArgumentError: `rule_id` is not a catalogue rule.
        """
        scope = _declared_scopes().get(rule_id)
        if scope is None:
            msg = f"{rule_id!r} is not a catalogue rule (acp_core.RULES)"
            raise ArgumentError(msg)
        return scope.covers(self)

    @property
    def rules_added(self) -> frozenset[str]:
        """Deprecated: the rules that apply here and not in the base revision. Each rule
        says its scope now (`Rule.since`; ask `Revision.applies`)."""
        _warn_scope("rules_added", "Rule.since")
        return frozenset(i for i in _declared_scopes() if _added(self, i))

    @property
    def rules_dropped(self) -> frozenset[str]:
        """Deprecated: the base revision's rules that no longer apply here. Each rule says
        its scope now (`Rule.until`; ask `Revision.applies`)."""
        _warn_scope("rules_dropped", "Rule.until")
        return frozenset(i for i in _declared_scopes() if _added(_base(), i, self))


@frozen
class RuleScope:
    """The revisions one catalogue rule applies in, as its `Rule` declares them.

    Attributes:
        since: the revision the rule comes with (it applies in every revision that includes
            it), or None: from the base revision on.
        until: the last revision it applies to (it applies there and in the revisions that
            one builds on), or None: in every later revision too.
    """

    since: str | None = None
    until: str | None = None

    def covers(self, revision: Revision) -> bool:
        """The rule applies in `revision`."""
        if self.since is not None and not revision.includes(self.since):
            return False
        return self.until is None or REVISIONS[self.until].includes(revision.name)


# The catalogue's declaration (`declare_rule_scopes`): empty until a catalogue is loaded, then
# one immutable map. The one mutable cell of this module, set once at the catalogue's import.
_SCOPES: list[Mapping[str, RuleScope]] = []


def declare_rule_scopes(scopes: Mapping[str, RuleScope]) -> None:
    """Declare every catalogue rule's scope (called once, by `_rules/_catalogue.py`).

    Raises:
        ArgumentError: a scope names a revision `REVISIONS` does not hold, or a different
            declaration was made before.
    """
    for rule_id, scope in scopes.items():
        for name in (scope.since, scope.until):
            if name is not None and name not in REVISIONS:
                known = ", ".join(REVISIONS)
                msg = f"rule {rule_id} names an unknown revision {name!r}; known: {known}"
                raise ArgumentError(msg)
    frozen: Mapping[str, RuleScope] = immutables.Map(scopes)
    if _SCOPES and _SCOPES[0] != frozen:
        raise ArgumentError("the rule scopes were declared already, differently")
    _SCOPES[:] = [frozen]


def _declared_scopes() -> Mapping[str, RuleScope]:
    if not _SCOPES:
        msg = "no rule catalogue has declared its scopes yet (import acp_core._rules first)"
        raise AcpError(msg)
    return _SCOPES[0]


def _base() -> Revision:
    return REVISIONS[BASE_REVISION]


def _added(revision: Revision, rule_id: str, base: Revision | None = None) -> bool:
    """`rule_id` applies in `revision` and not in `base` (default: the base revision)."""
    return revision.applies(rule_id) and not (base or _base()).applies(rule_id)


def _warn_scope(name: str, home: str) -> None:
    warnings.warn(
        f"Revision.{name} is deprecated: each rule says its scope ({home}); ask "
        "Revision.applies(rule_id)",
        DeprecationWarning,
        stacklevel=3,
    )


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
        UnknownRevisionError: no revision has that name (`REVISION_CHOICES` lists them; also
            a `KeyError`, as before).
        ArgumentError: `name` is not a string (also a `TypeError`).
    """
    if not isinstance(name, str):
        raise ArgumentError(f"revision_named takes a str, not {type(name).__name__}: {name!r:.60}")
    found = REVISIONS.get(REVISION_ALIASES.get(name, name))
    if found is None:
        msg = f"unknown revision {name!r}; known: {', '.join(REVISION_CHOICES)}"
        raise UnknownRevisionError(msg)
    return found


def revision_argument(revision: object) -> Revision:
    """`revision` when it is a `Revision`: the one check of every public function's
    `revision=` (a name or None given there would fail deep inside with `AttributeError`).

    Raises:
        ArgumentError: it is not one (also a `TypeError`).
    """
    if isinstance(revision, Revision):
        return revision
    msg = (
        f"revision must be a Revision (acp_core.REVISIONS, revision_named(...)), "
        f"not {type(revision).__name__}: {revision!r:.60}"
    )
    raise ArgumentError(msg)


#: The revision used when none is given: the v2 Preview, what current agents speak
#: (docs/revisions.md; until this release it was `V2_2026_08`, which stays
#: available by name).
DEFAULT_REVISION: Final = V2_PREVIEW

#: The `sessionUpdate` tags of the default revision (strategies, checks and tests read it;
#: `Revision.update_kinds` has each revision's).
KNOWN_UPDATE_TAGS: Final = DEFAULT_REVISION.update_kinds
