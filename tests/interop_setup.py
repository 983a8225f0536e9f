"""The official TypeScript SDK for the tests: installed from interop/'s lock file on demand.

`sdk_unavailable()` answers None once `interop/node_modules` holds the pinned
`@agentclientprotocol/sdk` (running `npm ci` first if it does not), or says why it cannot: no
`node`/`npm`, Node older than 20, npm failing (no network, no registry). Tests skip with that
reason; nothing here fails a run. `ACP_INTEROP_NPM=never` forbids the install (CI installs once
in `.ci/run`, so a failed install is not retried by every test module).

The SDK ships the official 2026-11 schema (`schema/v2/schema.json`): `SDK_SCHEMA_2026_11`.
"""

from __future__ import annotations

import functools
import json
import os
import re
import shutil
import subprocess
from pathlib import Path

INTEROP = Path(__file__).resolve().parents[1] / "interop"
SDK_PACKAGE = INTEROP / "node_modules" / "@agentclientprotocol" / "sdk"
#: The 2026-11 draft schema as the SDK package ships it (the same file as the shared draft).
SDK_SCHEMA_2026_11 = SDK_PACKAGE / "schema" / "v2" / "schema.json"
NPM_TIMEOUT = 300  # seconds for `npm ci`; a dead network fails sooner (see --fetch-timeout)


def pinned_version() -> str:
    """The SDK version interop/package.json pins."""
    manifest = json.loads((INTEROP / "package.json").read_text())
    version: str = manifest["dependencies"]["@agentclientprotocol/sdk"]
    return version


def installed_version() -> str | None:
    try:
        version: str = json.loads((SDK_PACKAGE / "package.json").read_text())["version"]
    except (OSError, ValueError, KeyError):
        return None
    return version


def _pins_installed() -> bool:
    """Every package interop/package.json pins is in node_modules at its pinned version (a
    lock file that gained one, `ws` for instance, is installed again)."""
    manifest = json.loads((INTEROP / "package.json").read_text())
    for name, version in manifest["dependencies"].items():
        try:
            found = json.loads((INTEROP / "node_modules" / name / "package.json").read_text())
        except (OSError, ValueError):
            return False
        if found.get("version") != version:
            return False
    return True


def _node_major(node: str) -> int | None:
    try:
        out = subprocess.run(
            [node, "--version"], capture_output=True, text=True, timeout=30, check=False
        ).stdout
    except (OSError, subprocess.TimeoutExpired):
        return None
    found = re.match(r"v(\d+)\.", out.strip())
    return int(found[1]) if found else None


@functools.cache
def sdk_unavailable() -> str | None:
    """None when the pinned SDK is installed (installing it if needed), else why not."""
    node, npm = shutil.which("node"), shutil.which("npm")
    if node is None or npm is None:
        return "the TypeScript SDK interop tests need `node` and `npm` on PATH (Node >= 20)"
    major = _node_major(node)
    if major is None or major < 20:
        return f"the TypeScript SDK interop tests need Node >= 20 (found {major or 'unknown'})"
    wanted = pinned_version()
    if installed_version() == wanted and _pins_installed():
        return None
    if os.environ.get("ACP_INTEROP_NPM") == "never":
        return (
            f"@agentclientprotocol/sdk {wanted} is not installed in interop/node_modules "
            "and ACP_INTEROP_NPM=never (run `npm ci` in interop/)"
        )
    command = [npm, "ci", "--prefer-offline", "--no-audit", "--no-fund", "--fetch-retries=1"]
    command.append("--fetch-timeout=30000")
    try:
        run = subprocess.run(
            command, cwd=INTEROP, capture_output=True, text=True, timeout=NPM_TIMEOUT, check=False
        )
    except (OSError, subprocess.TimeoutExpired) as e:
        return f"`npm ci` in interop/ did not finish: {e}"
    if run.returncode != 0:
        lines = [line for line in run.stderr.splitlines() if "error" in line and "log" not in line]
        return f"`npm ci` in interop/ failed (no network or registry?): {(lines or ['?'])[0]}"
    if installed_version() != wanted or not _pins_installed():
        return "`npm ci` in interop/ did not install the pins of interop/package.json"
    return None
