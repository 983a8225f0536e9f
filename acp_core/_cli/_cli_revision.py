"""The `--revision` option every CLI command takes, in one place.

Owns: `add_revision_argument` (every dated name and alias of the revision registry, default
the library's default revision), `revision_problem` (the one line a name outside the registry
earns; `__main__` prints it and exits 2 before the command runs) and `chosen_revision` (the
`Revision` an argument names).
Must not know: what a command does with the revision.

The option takes any string rather than argparse `choices`, so that a bad name ends with one
line naming the known ones (argparse would add a usage line), never a traceback.
"""

from __future__ import annotations

import argparse

from acp_core._wire._revision import (
    DEFAULT_REVISION,
    REVISION_ALIASES,
    REVISION_CHOICES,
    Revision,
    revision_named,
)

__all__ = ["add_revision_argument", "chosen_revision", "revision_problem"]


def add_revision_argument(
    parser: argparse.ArgumentParser, purpose: str, *, default: str | None = DEFAULT_REVISION.name
) -> None:
    """Add `--revision NAME` (a dated name such as `2026-11`, or an alias: `preview`).

    `default=None`: the option may be left out, meaning no one revision (`rules`: all rules).
    """
    aliases = ", ".join(f"{alias} = {name}" for alias, name in sorted(REVISION_ALIASES.items()))
    shown = "every revision" if default is None else "%(default)s"
    parser.add_argument(
        "--revision",
        default=default,
        metavar="NAME",
        help=f"protocol revision {purpose}: {', '.join(REVISION_CHOICES)} "
        f"(default: {shown}; {aliases})",
    )


def revision_problem(args: argparse.Namespace) -> str | None:
    """Why `--revision` names no known revision (one line), or None when it does or is absent."""
    name = getattr(args, "revision", None)
    if name is None or name in REVISION_CHOICES:
        return None
    return f"unknown revision {name!r}; known: {', '.join(REVISION_CHOICES)}"


def chosen_revision(args: argparse.Namespace) -> Revision:
    """The revision `--revision` names (the default when the command has no such option).

    Raises:
        KeyError: an unknown name (`revision_problem` catches it before a command runs).
    """
    name = getattr(args, "revision", None)
    return DEFAULT_REVISION if name is None else revision_named(name)
