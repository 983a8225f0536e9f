"""`schema-diff`: what changed between two v2 schemas, and what of the newer one acp-core does
not model (acp_core/_research/_schema_diff.py, acp_core/_cli/_cli_schema_diff.py).

- A table of tiny hand-made schema pairs, each with its exact diff.
- "Not modelled" comes from the codec's own declarations: a tiny schema naming a codec type
  with a field, a variant or an enum value the codec lacks at a revision lists exactly that.
- The real schemas: 2026-08 -> 2026-11 -> the reconstructed Preview, with the deltas the
  digests name (acp-v2-digest.md section 9, acp-v2-preview-digest.md).
- The command line: exit 0 (text and --json), exit 2 with one line for every bad input.
- Totality: any JSON values in -> a `SchemaDiff` or an `AcpError`.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

import pytest
from conftest import SPEC_DIR, schema_2026_11_path
from hypothesis import given
from hypothesis import strategies as st

import acp_core as acp
from acp_core.__main__ import main
from acp_core._research._schema_diff import (
    FieldChange,
    KindChange,
    SchemaDiff,
    ValueChange,
    diff_schemas,
    render_schema_diff,
    schema_diff_json,
)

# -- tiny schemas -----------------------------------------------------------------------------


def _schema(**defs: Any) -> dict[str, Any]:
    return {"$defs": defs}


def _obj(required: tuple[str, ...] = (), **props: Any) -> dict[str, Any]:
    return {"type": "object", "properties": props, "required": list(required)}


def _enum(*values: str) -> dict[str, Any]:
    return {"anyOf": [{"type": "string", "const": v} for v in values] + [{"type": "string"}]}


def _variant(key: str, value: str, ref: str) -> dict[str, Any]:
    return {
        "type": "object",
        "properties": {key: {"type": "string", "const": value}},
        "required": [key],
        "allOf": [{"$ref": f"#/$defs/{ref}"}],
    }


def _updates(*kinds: str) -> dict[str, Any]:
    return {"anyOf": [_variant("sessionUpdate", k, "Chunk") for k in kinds]}


_STR = {"type": "string"}
_INT = {"type": "integer"}
_CHUNK = _obj(("messageId",), messageId=_STR)


def _changes(diff: SchemaDiff) -> dict[str, Any]:
    """The diff without its "not modelled" part."""
    out = schema_diff_json(diff)
    del out["not_modelled"]
    return out


def _expected(**parts: Any) -> dict[str, Any]:
    out: dict[str, Any] = {
        "types": {"added": [], "removed": []},
        "kinds_changed": [],
        "fields": [],
        "values": [],
        "update_kinds": {"added": [], "removed": []},
    }
    out.update(parts)
    return out


def _field(type_name: str, field: str, change: str, old: str | None, new: str | None) -> Any:
    return {"type_name": type_name, "field": field, "change": change, "old": old, "new": new}


def _value(type_name: str, value: str, change: str) -> Any:
    return {"type_name": type_name, "value": value, "change": change}


TINY = {
    "added type": (
        _schema(),
        _schema(Foo=_obj(("a",), a=_STR)),
        _expected(types={"added": ["Foo"], "removed": []}),
    ),
    "removed type": (
        _schema(Foo=_obj(), Bar=_STR),
        _schema(Bar=_STR),
        _expected(types={"added": [], "removed": ["Foo"]}),
    ),
    "added field": (
        _schema(Foo=_obj(a=_STR)),
        _schema(Foo=_obj(("b",), a=_STR, b={"$ref": "#/$defs/Bar"})),
        _expected(fields=[_field("Foo", "b", "added", None, "Bar, required")]),
    ),
    "removed field": (
        _schema(Foo=_obj(("a",), a=_STR, b=_INT)),
        _schema(Foo=_obj(("a",), a=_STR)),
        _expected(fields=[_field("Foo", "b", "removed", "integer, optional", None)]),
    ),
    "changed field type and required": (
        _schema(Foo=_obj(("a",), a=_STR, b={"type": ["array", "null"], "items": _INT})),
        _schema(Foo=_obj(("b",), a={"type": ["string", "null"]}, b={"type": "array"})),
        _expected(
            fields=[
                _field("Foo", "a", "changed", "string, required", "string | null, optional"),
                _field(
                    "Foo", "b", "changed", "array<integer> | null, optional", "array<any>, required"
                ),
            ]
        ),
    ),
    "changed enum": (
        _schema(Status=_enum("pending", "done")),
        _schema(Status=_enum("pending", "paused")),
        _expected(
            values=[_value("Status", "paused", "added"), _value("Status", "done", "removed")]
        ),
    ),
    "plain enum keyword and const": (
        _schema(A={"enum": ["x"]}, B={"const": 1}),
        _schema(A={"enum": ["x", "y"]}, B={"const": 2}),
        _expected(
            values=[
                _value("A", "y", "added"),
                _value("B", "2", "added"),
                _value("B", "1", "removed"),
            ]
        ),
    ),
    "new update kind": (
        _schema(SessionUpdate=_updates("user_message_chunk"), Chunk=_CHUNK),
        _schema(SessionUpdate=_updates("user_message_chunk", "hologram"), Chunk=_CHUNK),
        _expected(
            values=[_value("SessionUpdate", "hologram", "added")],
            update_kinds={"added": ["hologram"], "removed": []},
        ),
    ),
    "removed update kind": (
        _schema(SessionUpdate=_updates("notice", "user_message"), Chunk=_CHUNK),
        _schema(SessionUpdate=_updates("user_message"), Chunk=_CHUNK),
        _expected(
            values=[_value("SessionUpdate", "notice", "removed")],
            update_kinds={"added": [], "removed": ["notice"]},
        ),
    ),
    "object becomes a union": (
        _schema(Cmd=_obj(("name",), name=_STR)),
        _schema(Cmd={"anyOf": [_variant("type", "command", "Command")]}),
        _expected(
            kinds_changed=[{"type_name": "Cmd", "old": "object", "new": "union"}],
            fields=[_field("Cmd", "name", "removed", "string, required", None)],
            values=[_value("Cmd", "command", "added")],
        ),
    ),
    "no change": (
        _schema(Foo=_obj(("a",), a=_STR), S=_enum("x")),
        _schema(S=_enum("x"), Foo=_obj(("a",), a=_STR)),
        _expected(),
    ),
}


@pytest.mark.parametrize("case", sorted(TINY))
def test_tiny_schema_pairs_have_their_exact_diff(case: str) -> None:
    old, new, expected = TINY[case]
    assert _changes(diff_schemas(old, new)) == expected


def test_the_diff_is_a_frozen_value_of_frozen_parts() -> None:
    old, new, _ = TINY["removed field"]
    diff = diff_schemas(old, new)
    assert diff.fields == (FieldChange("Foo", "b", "removed", "integer, optional", None),)
    assert diff == diff_schemas(old, new)
    with pytest.raises(AttributeError):
        diff.fields = ()  # type: ignore[misc]
    assert hash(diff) == hash(diff_schemas(old, new))


def test_the_text_names_every_change() -> None:
    old, new, _ = TINY["object becomes a union"]
    text = render_schema_diff(diff_schemas(old, new))
    assert text.splitlines()[0] == (
        "types: 0 added, 0 removed; fields: 1 changes; values: 1 changes; "
        "update kinds: 0 added, 0 removed"
    )
    assert "  Cmd: object -> union" in text
    assert "  removed Cmd.name: string, required" in text
    assert "  added Cmd: command" in text


# -- "not modelled", from the codec's declarations --------------------------------------------


def test_an_update_kind_the_codec_lacks_is_not_modelled() -> None:
    new = _schema(SessionUpdate=_updates("user_message", "notice", "hologram"), Chunk=_CHUNK)
    at_2026_08 = diff_schemas(_schema(), new, acp.V2_2026_08).not_modelled
    assert at_2026_08.update_kinds == ("hologram", "notice")  # notice comes with 2026-11
    assert diff_schemas(_schema(), new, acp.V2_2026_11).not_modelled.update_kinds == ("hologram",)


def test_a_field_the_codec_lacks_is_not_modelled() -> None:
    # `ToolCallUpdate` is a codec record: its `name` key comes with 2026-11, `hologram` never
    new = _schema(ToolCallUpdate=_obj(("toolCallId",), toolCallId=_STR, name=_STR, hologram=_INT))
    nm = diff_schemas(_schema(), new, acp.V2_2026_08).not_modelled
    assert nm.fields == ("ToolCallUpdate.hologram", "ToolCallUpdate.name")
    assert nm.types == ()
    nm = diff_schemas(_schema(), new, acp.V2_2026_11).not_modelled
    assert nm.fields == ("ToolCallUpdate.hologram",)


def test_a_variant_and_an_enum_value_the_codec_lacks_are_not_modelled() -> None:
    new = _schema(
        StateUpdate={
            "anyOf": [_variant("state", "running", "Run"), _variant("state", "dreaming", "Run")]
        },
        Run=_obj(),
        ToolCallStatus=_enum("pending", "paused"),
        Lonely=_obj(a=_STR),
        LonelyId=_STR,
    )
    nm = diff_schemas(_schema(), new, acp.V2_2026_08).not_modelled
    assert nm.variants == ("StateUpdate state=dreaming",)
    assert nm.values == ("ToolCallStatus: paused",)  # a 2026-11 status
    assert nm.types == ("Lonely",)  # a scalar alias is never listed
    assert diff_schemas(_schema(), new, acp.V2_2026_11).not_modelled.values == ()


# -- the real schemas ---------------------------------------------------------------------------


def _load(path: Path) -> dict[str, Any]:
    with path.open() as f:
        schema: dict[str, Any] = json.load(f)
    return schema


_PATHS = {
    "2026-08": SPEC_DIR / "schema.json",
    "preview": SPEC_DIR / "preview-reconstructed" / "reconstructed-preview-merged.json",
}


def _path(name: str) -> Path:
    """The schema file of a revision; the test skips, saying why, when it is missing."""
    path = schema_2026_11_path() if name == "2026-11" else _PATHS[name]
    if not path.exists():
        pytest.skip(f"{path} not found: set ACP_V2_SPEC_DIR to the shared acp-v2 folder")
    return path


def _real(name: str) -> dict[str, Any]:
    return _load(_path(name))


def _field_change(diff: SchemaDiff, type_name: str, field: str) -> FieldChange:
    (found,) = [f for f in diff.fields if (f.type_name, f.field) == (type_name, field)]
    return found


def test_2026_08_to_2026_11_names_the_digests_deltas() -> None:
    diff = diff_schemas(_real("2026-08"), _real("2026-11"), acp.V2_2026_11)
    assert diff.update_kinds_added == ("compaction_summary_chunk", "compaction_update", "notice")
    assert diff.update_kinds_removed == ()
    assert _field_change(diff, "PromptResponse", "messageId") == FieldChange(
        "PromptResponse", "messageId", "added", None, "MessageId, required"
    )
    assert _field_change(diff, "ToolCallUpdate", "name").change == "added"
    assert _field_change(diff, "TerminalUpdate", "size").change == "added"
    assert _field_change(diff, "IdleStateUpdate", "background").change == "added"
    assert ValueChange("ToolCallStatus", "paused", "added") in diff.values
    assert ValueChange("IdleStateUpdate", "error", "added") in diff.values
    assert {"BackgroundWork", "Notice", "CompactionUpdate", "CancelToolCallRequest"} <= set(
        diff.types_added
    )
    assert KindChange("AvailableCommand", "object", "union") in diff.kinds_changed
    nm = diff.not_modelled
    assert nm.update_kinds == ()
    assert nm.values == ()
    assert not set(diff.update_kinds_added) & set(nm.update_kinds)


def test_the_2026_11_schema_against_the_2026_08_codec_lists_the_2026_11_additions() -> None:
    nm = diff_schemas(_real("2026-08"), _real("2026-11"), acp.V2_2026_08).not_modelled
    assert nm.update_kinds == ("compaction_summary_chunk", "compaction_update", "notice")
    assert {"ToolCallUpdate.name", "TerminalUpdate.size", "IdleStateUpdate.background"} <= set(
        nm.fields
    )
    assert nm.values == ("IdleStateUpdate: error", "ToolCallStatus: paused")


def test_2026_11_to_the_preview_names_the_digests_deltas() -> None:
    diff = diff_schemas(_real("2026-11"), _real("preview"), acp.PREVIEW)
    assert diff.update_kinds_added == (
        "plan_removed",
        "prompt_suggestions_update",
        "replay_complete",
        "session_message",
        "session_message_chunk",
        "subagent_update",
    )
    assert _field_change(diff, "PromptRequest", "idempotencyKey") == FieldChange(
        "PromptRequest", "idempotencyKey", "added", None, "IdempotencyKey | null, optional"
    )
    assert _field_change(diff, "CompactionUpdate", "status") == FieldChange(
        "CompactionUpdate",
        "status",
        "changed",
        "CompactionStatus, required",
        "CompactionStatus | null, optional",
    )
    assert ValueChange("StateUpdate", "unknown", "added") in diff.values
    assert ValueChange("PlanUpdateContent", "markdown", "added") in diff.values
    assert ValueChange("ToolCallContent", "session", "added") in diff.values
    assert {"SubagentUpdate", "ReplayComplete", "PlanRemoved", "UnknownStateUpdate"} <= set(
        diff.types_added
    )
    # the Preview codec models everything the Preview added
    nm = diff.not_modelled
    assert (nm.update_kinds, nm.variants, nm.values) == ((), (), ())
    assert not set(diff.types_added) & set(nm.types)
    assert not {f"{f.type_name}.{f.field}" for f in diff.fields} & set(nm.fields)


def test_the_preview_schema_against_the_2026_11_codec_lists_the_preview_additions() -> None:
    nm = diff_schemas(_real("2026-11"), _real("preview"), acp.V2_2026_11).not_modelled
    assert len(nm.update_kinds) == 6
    assert {"PromptRequest.idempotencyKey", "ClientCapabilities.session"} <= set(nm.fields)
    assert nm.variants == (
        "BackgroundWork type=subagent",
        "PlanUpdateContent type=markdown",
        "StateUpdate state=unknown",
        "ToolCallContent type=session",
    )
    assert {"SubagentUpdate", "ReplayComplete", "PlanRemoved"} <= set(nm.types)


@pytest.mark.parametrize("name", ["2026-08", "2026-11", "preview"])
def test_each_revision_models_its_own_schemas_update_kinds(name: str) -> None:
    schema = _real(name)
    nm = diff_schemas(schema, schema, acp.revision_named(name)).not_modelled
    assert nm.update_kinds == ()
    assert nm.values == ()
    # the walk reaches the codec's core: none of these is listed as unknown
    assert not {"SessionUpdate", "ToolCallUpdate", "ContentBlock", "PromptRequest"} & set(nm.types)


# -- the command line ---------------------------------------------------------------------------


def _run(capsys: pytest.CaptureFixture[str], *argv: str) -> tuple[int, str, str]:
    status = main(["schema-diff", *argv])
    out, err = capsys.readouterr()
    return status, out, err


def test_the_cli_prints_the_diff(capsys: pytest.CaptureFixture[str]) -> None:
    old, new = str(_path("2026-11")), str(_path("preview"))
    status, out, err = _run(capsys, old, new)
    assert (status, err) == (0, "")
    assert out == render_schema_diff(diff_schemas(_real("2026-11"), _real("preview")))
    assert "not modelled by acp-core at 2026-11-20:" in out
    status, out, err = _run(capsys, "--json", "--revision", "2026-11", old, new)
    assert (status, err) == (0, "")
    expected = diff_schemas(_real("2026-11"), _real("preview"), acp.V2_2026_11)
    assert json.loads(out) == schema_diff_json(expected)


def _write(tmp_path: Path, name: str, text: str) -> str:
    path = tmp_path / name
    path.write_text(text, encoding="utf-8")
    return str(path)


def test_the_cli_compares_tiny_files(capsys: pytest.CaptureFixture[str], tmp_path: Path) -> None:
    old, new, expected = TINY["new update kind"]
    a, b = _write(tmp_path, "a.json", json.dumps(old)), _write(tmp_path, "b.json", json.dumps(new))
    status, out, _ = _run(capsys, "--json", a, b)
    assert status == 0
    got = json.loads(out)
    assert got["update_kinds"] == expected["update_kinds"]
    assert got["not_modelled"]["update_kinds"] == ["hologram"]


@pytest.mark.parametrize(
    ("content", "message"),
    [
        (None, "cannot read: No such file or directory"),
        ("{", "invalid JSON: Expecting property name enclosed in double quotes (line 1, column 2)"),
        ("[1, 2]", "a JSON object expected, not list"),
        ('{"$defs": 3}', "`$defs` is not an object"),
        ("\ud800".encode("utf-8", "surrogatepass"), "cannot read:"),
        ("[" * 200_000, "JSON nested too deeply"),
    ],
    ids=["missing", "not JSON", "not an object", "bad $defs", "not UTF-8", "too deep"],
)
def test_a_bad_file_is_one_line_and_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path, content: str | bytes | None, message: str
) -> None:
    good = _write(tmp_path, "good.json", "{}")
    bad = tmp_path / "bad.json"
    if isinstance(content, str):
        bad.write_text(content, encoding="utf-8")
    elif isinstance(content, bytes):
        bad.write_bytes(content)
    for argv in ((str(bad), good), (good, str(bad))):
        status, out, err = _run(capsys, *argv)
        assert (status, out) == (2, "")
        assert err.startswith(f"acp_core schema-diff: {bad}: {message}")
        assert err.count("\n") == 1
        assert "Traceback" not in err


def test_a_directory_and_an_unknown_revision_are_exit_2(
    capsys: pytest.CaptureFixture[str], tmp_path: Path
) -> None:
    good = _write(tmp_path, "good.json", "{}")
    status, _, err = _run(capsys, str(tmp_path), good)
    assert status == 2
    assert err.startswith(f"acp_core schema-diff: {tmp_path}: cannot read")
    status, _, err = _run(capsys, "--revision", "2099-01", good, good)
    assert status == 2
    assert err.startswith("acp_core schema-diff: unknown revision '2099-01'")


def test_the_two_positional_arguments_are_required(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(SystemExit) as e:
        main(["schema-diff", "only-one.json"])
    assert e.value.code == 2
    assert "NEW.json" in capsys.readouterr().err


# -- totality -----------------------------------------------------------------------------------

_json = st.recursive(
    st.none() | st.booleans() | st.integers() | st.floats(allow_nan=False) | st.text(max_size=4),
    lambda inner: (
        st.lists(inner, max_size=4) | st.dictionaries(st.text(max_size=4), inner, max_size=4)
    ),
    max_leaves=20,
)
_KEYWORDS = [
    "type",
    "properties",
    "required",
    "anyOf",
    "oneOf",
    "allOf",
    "items",
    "$ref",
    "const",
    "enum",
    "sessionUpdate",
    "state",
]
_fragment = st.recursive(
    _json,
    lambda inner: (
        st.dictionaries(
            st.sampled_from(_KEYWORDS) | st.sampled_from(["ToolCallUpdate", "SessionUpdate", "a"]),
            inner,
            max_size=5,
        )
        | st.lists(inner, max_size=3)
        | st.sampled_from(["#/$defs/SessionUpdate", "#/$defs/ToolCallUpdate", "#/$defs/a"])
    ),
    max_leaves=30,
)
_schemas = _json | st.fixed_dictionaries(
    {
        "$defs": st.dictionaries(
            st.sampled_from(
                ["SessionUpdate", "ToolCallUpdate", "StateUpdate", "ToolCallStatus", "a"]
            ),
            _fragment,
            max_size=5,
        )
    }
)


@given(_schemas, _schemas, st.sampled_from(sorted(acp.REVISIONS)))
def test_any_json_in_gives_a_diff_or_an_acp_error(old: Any, new: Any, name: str) -> None:
    try:
        diff = diff_schemas(old, new, acp.REVISIONS[name])
    except acp.AcpError:
        assert not (isinstance(old, dict) and isinstance(new, dict)) or any(
            not isinstance(s.get("$defs", {}), dict) for s in (old, new)
        )
        return
    assert isinstance(diff, SchemaDiff)
    json.dumps(schema_diff_json(diff))
    assert render_schema_diff(diff).endswith("\n")


def test_a_deeply_nested_schema_is_total() -> None:
    deep: Any = {"$ref": "#/$defs/ToolCallUpdate"}
    for _ in range(5000):
        deep = {"anyOf": [deep]}
    schema = _schema(ToolCallUpdate=_obj(toolCallId=deep), SessionUpdate=deep)
    diff = diff_schemas(schema, schema)
    assert diff.fields == ()


def test_a_revision_that_is_not_one_is_an_argument_error() -> None:
    with pytest.raises(acp.ArgumentError):
        diff_schemas({}, {}, "2026-11")  # type: ignore[arg-type]


def test_the_docs_show_lines_of_the_real_run(capsys: pytest.CaptureFixture[str]) -> None:
    page = (Path(__file__).resolve().parents[1] / "docs" / "revisions.md").read_text("utf-8")
    section = page.split("## Tracking a new schema", 1)[1]
    shown = section.split("```text\n", 1)[1].split("```", 1)[0].splitlines()
    status, out, _ = _run(capsys, str(_path("2026-11")), str(_path("preview")))
    assert status == 0
    lines = iter(out.splitlines())
    for line in shown:  # in order, `...` standing for lines left out
        if line.strip() != "...":
            assert line in lines, line
