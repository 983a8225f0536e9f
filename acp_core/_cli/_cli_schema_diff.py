"""`python -m acp_core schema-diff OLD.json NEW.json`: what changed between two v2 schemas, and
what of the newer one acp-core does not model at a revision.

Owns: the command's arguments (`OLD`, `NEW`, `--json`, `--revision`), parsing the two files'
text as JSON, and printing the diff (text, or JSON with `--json`).
Must not know: how the diff is computed (`_research/_schema_diff.py`), how files are opened
(`__main__` hands `run` a reader).

A schema is read whole (a JSON document cannot be parsed line by line), at most
`MAX_SCHEMA_CHARS` characters. An unreadable file, one that is not JSON, or JSON that is not a
schema object ends with one line on stderr and exit status 2.
"""

from __future__ import annotations

import argparse
import json
from collections.abc import Callable
from typing import Final, TextIO

from acp_core._errors import AcpError
from acp_core._research._schema_diff import diff_schemas, render_schema_diff, schema_diff_json

from ._cli_revision import add_revision_argument, chosen_revision

__all__ = ["HELP", "MAX_SCHEMA_CHARS", "SchemaReadError", "configure", "parse_schema", "run"]

HELP: Final = (
    "compare two ACP v2 JSON schema files: types, fields, enum values and update kinds added, "
    "removed or changed, and what of NEW acp-core does not model at --revision; "
    "exit 0: compared, 2: a file unreadable or not a JSON schema"
)

#: Most characters a schema file may hold (64 Mi; the 2026-11 schema is about 0.2 Mi).
MAX_SCHEMA_CHARS: Final = 64 * 1024 * 1024

#: Reads a file's text, at most `limit` characters past which it need not read.
Reader = Callable[[str, int], str]


class SchemaReadError(AcpError):
    """A schema file that cannot be read or parsed; the message is the one line printed."""


def configure(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("old", metavar="OLD.json", help="the older schema file")
    parser.add_argument("new", metavar="NEW.json", help="the newer schema file")
    parser.add_argument("--json", action="store_true", help="print the diff as one JSON object")
    add_revision_argument(parser, "whose codec declarations NEW is compared against")


def parse_schema(path: str, text: str) -> object:
    """The JSON value of a schema file's text.

    Raises:
        SchemaReadError: the text is too long or not JSON (the message names the file).
    """
    if len(text) > MAX_SCHEMA_CHARS:
        msg = f"{path}: longer than {MAX_SCHEMA_CHARS:,} characters"
        raise SchemaReadError(msg)
    try:
        return json.loads(text)
    except json.JSONDecodeError as e:
        msg = f"{path}: invalid JSON: {e.msg} (line {e.lineno}, column {e.colno})"
        raise SchemaReadError(msg) from None
    except (RecursionError, ValueError) as e:
        what = "JSON nested too deeply" if isinstance(e, RecursionError) else "a number too long"
        msg = f"{path}: {what}"
        raise SchemaReadError(msg) from None


def _load(path: str, read: Reader) -> object:
    try:
        text = read(path, MAX_SCHEMA_CHARS + 1)
    except OSError as e:
        msg = f"{path}: cannot read: {e.strerror or e}"
        raise SchemaReadError(msg) from None
    except UnicodeDecodeError as e:
        msg = f"{path}: cannot read: {e}"
        raise SchemaReadError(msg) from None
    return parse_schema(path, text)


def run(args: argparse.Namespace, out: TextIO, err: TextIO, read: Reader) -> int:
    """Compare the two files; 0 when compared, 2 (one line on `err`) when one is bad."""
    try:
        old, new = _load(args.old, read), _load(args.new, read)
        diff = diff_schemas(old, new, chosen_revision(args), names=(args.old, args.new))
    except AcpError as e:
        err.write(f"acp_core schema-diff: {e}\n")
        return 2
    if args.json:
        out.write(json.dumps(schema_diff_json(diff), indent=2) + "\n")
    else:
        out.write(render_schema_diff(diff))
    return 0
