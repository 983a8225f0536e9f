"""The `--revision` flag every example takes: acp-core's revision registry, by name.

    add_revision_flag(parser, "to speak")
    revision = chosen_revision(parser.parse_args(), "stdio agent")

Any dated name of `acp.REVISIONS` (`2026-08`, `2026-11`, `2026-11-20`) or an alias
(`preview`) is accepted; anything else ends the example with one line naming the known ones
and exit status 2, before it starts anything.
"""

from __future__ import annotations

import argparse
import sys

import acp_core as acp
from acp_core import codec

#: Exit status for an unknown revision name (the examples' "bad arguments").
EXIT_USAGE = 2


def add_revision_flag(parser: argparse.ArgumentParser, purpose: str) -> None:
    """Add `--revision NAME` (default: acp-core's default revision)."""
    aliases = ", ".join(f"{a} = {n}" for a, n in sorted(codec.REVISION_ALIASES.items()))
    parser.add_argument(
        "--revision",
        default=acp.DEFAULT_REVISION.name,
        metavar="NAME",
        help=f"the v2 revision {purpose}: {', '.join(codec.REVISION_CHOICES)} "
        f"(default: %(default)s; {aliases})",
    )


def chosen_revision(args: argparse.Namespace, prog: str) -> acp.Revision:
    """The revision `--revision` names; an unknown name: one line on stderr, exit 2."""
    try:
        return codec.revision_named(args.revision)
    except KeyError as e:
        print(f"{prog}: {e.args[0]}", file=sys.stderr)
        raise SystemExit(EXIT_USAGE) from None
