"""What changed between two v2 JSON schemas, and what of the newer one acp-core does not model.

Owns: `diff_schemas` (two parsed schemas, one `Revision` -> a frozen `SchemaDiff`), its text and
JSON renderings, and the walk that lines a schema up with the codec's own declarations: the
specs `_wire/_codec_tables.tables(revision)` derives from the value classes (records, their
wire keys, tagged unions and their tags), the revision's update kinds, stop reasons and tool
statuses, and the `KNOWN` values of the wire modules' open enums.
Must not know: files, JSON parsing, the command line (`_cli/_cli_schema_diff.py` reads the
files), how any definition is decoded.

How a schema is read: every `$defs` entry becomes a shape: its kind (object, union, enum or a
scalar alias), its own `properties` (each with a one-line type summary and whether it is
required) and its values: the `enum` / `const` strings, and the discriminator values of its
`anyOf` / `oneOf` variants (a variant is an object member whose property holds a `const`).
The update kinds are the values of the `sessionUpdate` discriminator in any definition.

How "not modelled" is derived: the walk starts at every codec record or union whose name is a
definition's name (a codec name ending in `Result` also matches the `...Response` definition,
`RpcError` matches `Error`), then follows the schema (`$ref`, `anyOf`, `allOf`, `items`) and
the codec (fields by wire key, union variants by tag) together. A property of a definition the
walk reaches that the record has no wire key for is an unmodelled field; a variant tag the
union has no variant for is an unmodelled variant; a definition the walk never reaches is an
unmodelled type (scalar aliases such as `SessionId` are left out). An open enum class with
`KNOWN` values models the definition of its name and the discriminator of its lowerCamel name
(`StopReason` -> `stopReason`); a value it does not know is an unmodelled value.
"""

from __future__ import annotations

import json
from collections.abc import Iterable, Iterator, Mapping
from typing import Any, Final

import attrs

from acp_core._errors import ArgumentError
from acp_core._wire import (
    _content,
    _jsonrpc,
    _setup,
    _updates,
    _updates_2026_11,
    _updates_plans,
    _updates_preview,
    _updates_session,
    _updates_tools,
)
from acp_core._wire._codec_core import Codec, Record, Union
from acp_core._wire._codec_tables import tables
from acp_core._wire._freezing import freezing_fields
from acp_core._wire._revision import DEFAULT_REVISION, Revision

__all__ = [
    "FieldChange",
    "KindChange",
    "NotModelled",
    "SchemaDiff",
    "ValueChange",
    "diff_schemas",
    "render_schema_diff",
    "schema_diff_json",
]

#: The discriminator whose values are the session update kinds.
UPDATE_KEY: Final = "sessionUpdate"
#: Deepest nesting a type summary or the walk follows (a schema is a tree of bounded depth;
#: hostile input may nest arbitrarily).
_MAX_DEPTH: Final = 64

# The modules that declare wire values (their open enums carry `KNOWN`).
_WIRE_MODULES: Final = (
    _content,
    _jsonrpc,
    _setup,
    _updates,
    _updates_2026_11,
    _updates_plans,
    _updates_preview,
    _updates_session,
    _updates_tools,
)


@attrs.frozen
class FieldChange:
    """A property of a definition present in both schemas: `change` is added, removed or
    changed; `old` / `new` are `type summary, required|optional` (None when absent)."""

    type_name: str
    field: str
    change: str
    old: str | None
    new: str | None


@attrs.frozen
class ValueChange:
    """An enum / const / discriminator value of a definition, added or removed."""

    type_name: str
    value: str
    change: str


@attrs.frozen
class KindChange:
    """A definition whose kind changed (e.g. object -> union)."""

    type_name: str
    old: str
    new: str


@attrs.frozen(field_transformer=freezing_fields)
class NotModelled:
    """What the newer schema defines that the codec at `revision` does not declare.

    types: definitions the walk from the codec's records never reaches; fields: `Type.key`;
    variants: `Type key=value` (update kinds are listed apart); values: `Type: value` of the
    open enums acp-core knows values of; update_kinds: `sessionUpdate` tags not decoded into
    their own class at `revision`.
    """

    revision: str
    types: tuple[str, ...]
    fields: tuple[str, ...]
    variants: tuple[str, ...]
    values: tuple[str, ...]
    update_kinds: tuple[str, ...]


@attrs.frozen(field_transformer=freezing_fields)
class SchemaDiff:
    """The difference OLD -> NEW of two v2 schemas, and what of NEW acp-core does not model."""

    types_added: tuple[str, ...]
    types_removed: tuple[str, ...]
    kinds_changed: tuple[KindChange, ...]
    fields: tuple[FieldChange, ...]
    values: tuple[ValueChange, ...]
    update_kinds_added: tuple[str, ...]
    update_kinds_removed: tuple[str, ...]
    not_modelled: NotModelled


# -- reading one schema ---------------------------------------------------------------------


@attrs.frozen
class _Shape:
    kind: str
    fields: Mapping[str, str]  # key -> "summary, required|optional"
    discriminator: str | None
    values: frozenset[str]


def _obj(x: object) -> dict[str, Any]:
    return x if isinstance(x, dict) else {}


def _list(x: object) -> list[Any]:
    return x if isinstance(x, list) else []


def _text(value: object) -> str:
    return value if isinstance(value, str) else json.dumps(value, sort_keys=True)


def _ref_name(ref: object) -> str | None:
    return ref.rsplit("/", 1)[-1] if isinstance(ref, str) else None


def _summary(frag: object, depth: int = 0) -> str:
    """A one-line type of a schema fragment: `string`, `Name`, `array<Name>`, `"a" | "b"`."""
    f = _obj(frag)
    if not f or depth > _MAX_DEPTH:
        return "any"
    name = _ref_name(f.get("$ref"))
    if name is not None:
        return name
    if "const" in f:
        return _text(f["const"])
    if "enum" in f:
        return " | ".join(_text(v) for v in _list(f["enum"])) or "never"
    for key, sep in (("anyOf", " | "), ("oneOf", " | "), ("allOf", " & ")):
        members = _list(f.get(key))
        if members:
            parts = dict.fromkeys(_summary(m, depth + 1) for m in members)
            return sep.join(parts)
    kinds = f.get("type")
    names = [kinds] if isinstance(kinds, str) else [k for k in _list(kinds) if isinstance(k, str)]
    if not names:
        return "object" if "properties" in f else "any"
    return " | ".join(
        f"array<{_summary(f.get('items'), depth + 1)}>" if k == "array" else k for k in names
    )


def _variant_tag(member: dict[str, Any]) -> tuple[str, str] | None:
    """(key, value) of a variant member: an object member one of whose properties is a const."""
    for key, prop in _obj(member.get("properties")).items():
        p = _obj(prop)
        if "const" in p:
            return key, _text(p["const"])
    return None


def _members(d: dict[str, Any]) -> list[dict[str, Any]]:
    return [_obj(m) for key in ("anyOf", "oneOf") for m in _list(d.get(key))]


def _shape(d: dict[str, Any]) -> _Shape:
    required = {r for r in _list(d.get("required")) if isinstance(r, str)}
    fields = {
        str(key): f"{_summary(prop)}, {'required' if key in required else 'optional'}"
        for key, prop in _obj(d.get("properties")).items()
    }
    values: set[str] = set()
    discriminator: str | None = None
    if "const" in d:
        values.add(_text(d["const"]))
    values.update(_text(v) for v in _list(d.get("enum")))
    plain = False
    for m in _members(d):
        if "const" in m:
            values.add(_text(m["const"]))
            plain = True
            continue
        tag = _variant_tag(m)
        if tag is not None:
            discriminator = discriminator or tag[0]
            if tag[0] == discriminator:
                values.add(tag[1])
    if fields and (discriminator is None or d.get("type") == "object"):
        kind = "object"  # variants that only refine an object (IdleStateUpdate) keep it one
    elif discriminator is not None:
        kind = "union"
    elif d.get("type") == "object":
        kind = "object"
    elif values or plain:
        kind = "enum"
    elif _members(d):
        kind = "union"
    else:
        kind = f"scalar {_summary(d)}"
    return _Shape(kind, fields, discriminator, frozenset(values))


def _defs(schema: object, which: str) -> dict[str, dict[str, Any]]:
    if not isinstance(schema, dict):
        msg = f"{which}: a JSON object expected, not {type(schema).__name__}"
        raise ArgumentError(msg)
    defs = schema.get("$defs", {})
    if not isinstance(defs, dict):
        msg = f"{which}: `$defs` is not an object"
        raise ArgumentError(msg)
    return {str(name): _obj(d) for name, d in defs.items()}


def _update_kinds(shapes: Mapping[str, _Shape]) -> frozenset[str]:
    return frozenset(v for s in shapes.values() if s.discriminator == UPDATE_KEY for v in s.values)


# -- the codec's declarations ---------------------------------------------------------------


def _codec_name(codec: Codec) -> str | None:
    if isinstance(codec, Record):
        return codec.name
    if isinstance(codec, Union):
        return codec.expected.removeprefix("object (").removesuffix(")")
    return None


def _def_names(name: str) -> tuple[str, ...]:
    """The definition names a codec name matches (its own, and the naming conventions)."""
    names = [name]
    if name.endswith("Result"):
        names.append(name.removesuffix("Result") + "Response")
    if name.startswith("Rpc"):
        names.append(name.removeprefix("Rpc"))
    return tuple(names)


def _children(codec: Codec) -> Iterator[Codec]:
    """The codecs a wrapper codec (list, non-empty, custom) holds."""
    for value in vars(codec).values():
        items = value.values() if isinstance(value, dict) else (value,)
        for item in items:
            if isinstance(item, Codec) and item is not codec:
                yield item


def _concrete(codecs: Iterable[Codec], depth: int = 0) -> tuple[Codec, ...]:
    """The records and unions `codecs` are or wrap."""
    out: list[Codec] = []
    for codec in codecs:
        if isinstance(codec, Record | Union):
            out.append(codec)
        elif depth < _MAX_DEPTH:
            out.extend(_concrete(_children(codec), depth + 1))
    return tuple(dict.fromkeys(out))


def _roots(revision: Revision) -> dict[str, list[Codec]]:
    """Every named record and union of the revision's tables, by definition name."""
    t = tables(revision)
    start: list[Codec] = [t.update, *t.results.values(), t.rpc_error, *t.parts.values()]
    start += [m.params for m in t.messages]
    found: dict[str, list[Codec]] = {}
    seen: set[int] = set()
    stack = list(_concrete(start))
    while stack:
        codec = stack.pop()
        if id(codec) in seen:
            continue
        seen.add(id(codec))
        name = _codec_name(codec)
        if name is not None:
            for def_name in _def_names(name):
                found.setdefault(def_name, []).append(codec)
        if isinstance(codec, Record):
            stack.extend(_concrete(f.codec for f in codec.fields))
        elif isinstance(codec, Union):
            stack.extend(_concrete(codec.variants.values()))
    return found


def _known_values(revision: Revision) -> dict[str, frozenset[str]]:
    """The open enums' known values by class name (the revision's own for stop reasons and
    tool statuses)."""
    known: dict[str, frozenset[str]] = {}
    for module in _WIRE_MODULES:
        for name, value in vars(module).items():
            values = getattr(value, "KNOWN", None)
            if isinstance(value, type) and isinstance(values, frozenset):
                known[name] = values
    known[_updates.StopReason.__name__] = revision.stop_reasons
    known[_updates_tools.ToolCallStatus.__name__] = revision.tool_statuses
    return known


def _lower_camel(name: str) -> str:
    return name[:1].lower() + name[1:]


class _Walk:
    """The schema and the codec followed together (see the module docstring)."""

    def __init__(self, defs: Mapping[str, dict[str, Any]]) -> None:
        self.defs = defs
        self.reached: set[str] = set()
        self.fields: set[str] = set()
        self.variants: set[str] = set()
        self._seen: set[tuple[str, tuple[int, ...]]] = set()

    def definition(self, name: str, codecs: tuple[Codec, ...], depth: int = 0) -> None:
        key = (name, tuple(sorted(id(c) for c in codecs)))
        if name not in self.defs or key in self._seen or not codecs:
            return
        self._seen.add(key)
        self.reached.add(name)
        self.fragment(self.defs[name], codecs, name, depth + 1)

    def fragment(
        self, f: dict[str, Any], codecs: tuple[Codec, ...], where: str, depth: int
    ) -> None:
        if depth > _MAX_DEPTH or not codecs:
            return
        ref = _ref_name(f.get("$ref"))
        if ref is not None:
            self.definition(ref, codecs, depth)
        self.properties(f, codecs, where, depth)
        for m in _members(f):
            tag = _variant_tag(m)
            unions = [c for c in codecs if isinstance(c, Union) and tag and c.tag_key == tag[0]]
            if tag is None or not unions:
                self.fragment(m, codecs, where, depth + 1)  # a plain member, or a refinement
                continue
            key, value = tag
            found = _concrete(u.variants[value] for u in unions if value in u.variants)
            if not found:
                if key != UPDATE_KEY:
                    self.variants.add(f"{where} {key}={value}")
                continue
            self.fragment({k: v for k, v in m.items() if k != "properties"}, found, where, depth)
        for part in _list(f.get("allOf")):
            self.fragment(_obj(part), codecs, where, depth + 1)
        items = f.get("items")
        if isinstance(items, dict):
            self.fragment(items, codecs, where, depth + 1)

    def properties(
        self, f: dict[str, Any], codecs: tuple[Codec, ...], where: str, depth: int
    ) -> None:
        wrapped = [
            r for c in codecs if isinstance(c, Union) for r in _concrete(c.variants.values())
        ]
        records = [r for r in (*codecs, *wrapped) if isinstance(r, Record)]
        tag_keys = {c.tag_key for c in codecs if isinstance(c, Union)}
        for key, prop in _obj(f.get("properties")).items():
            if key in tag_keys:
                continue
            fields = [fd for r in records for fd in r.fields if fd.key == key and fd.on_wire]
            if not fields:
                if records and not any(key in r.known for r in records):
                    self.fields.add(f"{where}.{key}")
                continue
            inner = _concrete(fd.codec for fd in fields)
            if inner:
                self.fragment(_obj(prop), inner, where, depth + 1)
            else:
                self.touch(_obj(prop), depth + 1)  # a scalar field: its enum or alias is known

    def touch(self, f: dict[str, Any], depth: int) -> None:
        """Mark the definitions a scalar field refers to as reached."""
        if depth > _MAX_DEPTH:
            return
        ref = _ref_name(f.get("$ref"))
        if ref is not None and ref in self.defs and ref not in self.reached:
            self.reached.add(ref)
            self.touch(self.defs[ref], depth + 1)
        for part in (*_members(f), *_list(f.get("allOf")), f.get("items")):
            if isinstance(part, dict):
                self.touch(part, depth + 1)


def _not_modelled(
    defs: Mapping[str, dict[str, Any]], shapes: Mapping[str, _Shape], revision: Revision
) -> NotModelled:
    walk = _Walk(defs)
    for name, codecs in sorted(_roots(revision).items()):
        walk.definition(name, tuple(codecs))
    known = _known_values(revision)
    values: set[str] = set()
    for name, shape in shapes.items():
        for enum, allowed in known.items():
            if name == enum or shape.discriminator == _lower_camel(enum):
                values.update(f"{name}: {v}" for v in shape.values - allowed)
    types = sorted(
        name
        for name, shape in shapes.items()
        if name not in walk.reached and name not in known and not shape.kind.startswith("scalar")
    )
    return NotModelled(
        revision.name,
        tuple(types),
        tuple(sorted(walk.fields)),
        tuple(sorted(walk.variants)),
        tuple(sorted(values)),
        tuple(sorted(_update_kinds(shapes) - revision.decoded_update_kinds)),
    )


# -- the diff -------------------------------------------------------------------------------


def diff_schemas(
    old: object,
    new: object,
    revision: Revision = DEFAULT_REVISION,
    *,
    names: tuple[str, str] = ("old schema", "new schema"),
) -> SchemaDiff:
    """The difference OLD -> NEW of two parsed v2 JSON schemas, and what of NEW the codec at
    `revision` does not declare. `names` name the two schemas in error messages.

    Raises:
        ArgumentError: a schema is not a JSON object, or its `$defs` is not an object.
    """
    if not isinstance(revision, Revision):
        msg = f"revision: a Revision expected, not {type(revision).__name__}"  # type: ignore[unreachable]
        raise ArgumentError(msg)
    old_defs, new_defs = _defs(old, names[0]), _defs(new, names[1])
    olds = {name: _shape(d) for name, d in old_defs.items()}
    news = {name: _shape(d) for name, d in new_defs.items()}
    not_modelled = _not_modelled(new_defs, news, revision)
    common = sorted(olds.keys() & news.keys())
    kinds = [
        KindChange(n, olds[n].kind, news[n].kind) for n in common if olds[n].kind != news[n].kind
    ]
    fields: list[FieldChange] = []
    values: list[ValueChange] = []
    for name in common:
        a, b = olds[name].fields, news[name].fields
        for key in sorted(a.keys() | b.keys()):
            if key not in a:
                fields.append(FieldChange(name, key, "added", None, b[key]))
            elif key not in b:
                fields.append(FieldChange(name, key, "removed", a[key], None))
            elif a[key] != b[key]:
                fields.append(FieldChange(name, key, "changed", a[key], b[key]))
        va, vb = olds[name].values, news[name].values
        values += [ValueChange(name, v, "added") for v in sorted(vb - va)]
        values += [ValueChange(name, v, "removed") for v in sorted(va - vb)]
    kinds_old, kinds_new = _update_kinds(olds), _update_kinds(news)
    return SchemaDiff(
        tuple(sorted(news.keys() - olds.keys())),
        tuple(sorted(olds.keys() - news.keys())),
        tuple(kinds),
        tuple(fields),
        tuple(values),
        tuple(sorted(kinds_new - kinds_old)),
        tuple(sorted(kinds_old - kinds_new)),
        not_modelled,
    )


def schema_diff_json(diff: SchemaDiff) -> dict[str, Any]:
    """The diff as plain JSON (what `schema-diff --json` prints)."""
    nm = diff.not_modelled
    return {
        "types": {"added": list(diff.types_added), "removed": list(diff.types_removed)},
        "kinds_changed": [attrs.asdict(k) for k in diff.kinds_changed],
        "fields": [attrs.asdict(f) for f in diff.fields],
        "values": [attrs.asdict(v) for v in diff.values],
        "update_kinds": {
            "added": list(diff.update_kinds_added),
            "removed": list(diff.update_kinds_removed),
        },
        "not_modelled": {
            "revision": nm.revision,
            "types": list(nm.types),
            "fields": list(nm.fields),
            "variants": list(nm.variants),
            "values": list(nm.values),
            "update_kinds": list(nm.update_kinds),
        },
    }


def _section(title: str, lines: list[str], indent: str = "") -> list[str]:
    if not lines:
        return []
    return [f"{indent}{title} ({len(lines)})", *(f"{indent}  {line}" for line in lines)]


def _field_text(f: FieldChange) -> str:
    if f.old is None or f.new is None:
        return f.new or f.old or ""
    return f"{f.old} -> {f.new}"


def render_schema_diff(diff: SchemaDiff) -> str:
    """The diff as text: one section per kind of change, empty sections left out."""
    nm = diff.not_modelled
    out = [
        f"types: {len(diff.types_added)} added, {len(diff.types_removed)} removed; "
        f"fields: {len(diff.fields)} changes; values: {len(diff.values)} changes; "
        f"update kinds: {len(diff.update_kinds_added)} added, "
        f"{len(diff.update_kinds_removed)} removed",
    ]
    out += _section("update kinds added", list(diff.update_kinds_added))
    out += _section("update kinds removed", list(diff.update_kinds_removed))
    out += _section("types added", list(diff.types_added))
    out += _section("types removed", list(diff.types_removed))
    out += _section(
        "kinds changed", [f"{k.type_name}: {k.old} -> {k.new}" for k in diff.kinds_changed]
    )
    out += _section(
        "fields",
        [f"{f.change} {f.type_name}.{f.field}: {_field_text(f)}" for f in diff.fields],
    )
    out += _section("values", [f"{v.change} {v.type_name}: {v.value}" for v in diff.values])
    out.append(f"not modelled by acp-core at {nm.revision}:")
    if not (nm.types or nm.fields or nm.variants or nm.values or nm.update_kinds):
        out.append("  nothing")
    out += _section("update kinds", list(nm.update_kinds), "  ")
    out += _section("fields", list(nm.fields), "  ")
    out += _section("variants", list(nm.variants), "  ")
    out += _section("values", list(nm.values), "  ")
    out += _section("types", list(nm.types), "  ")
    return "\n".join(out) + "\n"
