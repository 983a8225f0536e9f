"""Outside anchors for the bytes path: msgspec typed decode, the TypeScript SDK validated path.

Owns: the two anchors `run.py` reports beside acp-core's `bytes_connection` phase, over the
same NDJSON reads of the `mixed` workload (issue 24):
- `msgspec`: each line decoded by `msgspec.json.Decoder` into frozen `msgspec.Struct`s (a
  tagged union of the update kinds the workload uses, content blocks tagged by `type`),
  lines split by hand as the floor does: the fastest typed decode Python has, with no state
  kept (unknown fields are dropped, nothing is folded);
- `ts_sdk`: `benchmarks/ts_sdk_anchor.mjs` under Node, run as a subprocess on the same bytes
  written to a file: the official TypeScript SDK's own validation of every received
  `session/update` and what its ActiveSession keeps (see that script's header).
Either anchor may be absent (msgspec not installed; no `node`, or no SDK under
`interop/node_modules`): the result then says why, and nothing fails.
Must not know: timing of the other phases (run.py times the msgspec anchor with them).
"""

from __future__ import annotations

import json
import shutil
import subprocess
import tempfile
from pathlib import Path
from typing import Any

ROOT = Path(__file__).resolve().parent.parent
SDK_DIR = ROOT / "interop" / "node_modules" / "@agentclientprotocol" / "sdk"
TS_SCRIPT = Path(__file__).resolve().parent / "ts_sdk_anchor.mjs"
TS_TIMEOUT_S = 600


# -- msgspec -------------------------------------------------------------------------------


def msgspec_decoder() -> tuple[Any, str] | str:
    """(a line decoder into frozen Structs, msgspec's version), or why it is absent."""
    try:
        import msgspec
    except ImportError:
        return "msgspec not installed (pip install -e '.[bench]')"
    from benchmarks import msgspec_structs

    return msgspec.json.Decoder(msgspec_structs.Notification).decode, msgspec.__version__


def msgspec_bytes(decode: Any, reads: list[bytes]) -> list[Any]:
    """Every line of `reads` decoded into Structs (lines split by hand, as the floor does)."""
    out = []
    keep = out.append
    pending = b""
    for data in reads:
        *lines, pending = (pending + data).split(b"\n")
        for line in lines:
            keep(decode(line))
    return out


# -- the TypeScript SDK --------------------------------------------------------------------


def ts_sdk_absent() -> str | None:
    """Why the TypeScript SDK anchor cannot run here, or None."""
    if shutil.which("node") is None:
        return "node not found on PATH"
    if not (SDK_DIR / "package.json").is_file():
        return "the SDK is not installed under interop/node_modules (cd interop && npm ci)"
    return None


def ts_sdk(reads: list[bytes], rounds: int) -> dict[str, Any]:
    """The SDK's validated path over `reads`: its result (µs per event and so on), or
    `{"absent": why}` when node or the SDK is missing or the script fails."""
    why = ts_sdk_absent()
    if why is not None:
        return {"absent": why}
    with tempfile.NamedTemporaryFile(suffix=".ndjson") as f:
        f.write(b"".join(reads))
        f.flush()
        cmd = ["node", str(TS_SCRIPT), f.name, str(SDK_DIR), str(rounds)]
        try:
            done = subprocess.run(
                cmd, capture_output=True, text=True, timeout=TS_TIMEOUT_S, check=False
            )
        except (OSError, subprocess.TimeoutExpired) as exc:
            return {"absent": f"node script did not finish: {exc}"}
    if done.returncode != 0:
        tail = done.stderr.strip().splitlines()[-3:]
        return {"absent": f"node script failed ({done.returncode}): {' / '.join(tail)}"}
    result: dict[str, Any] = json.loads(done.stdout.strip().splitlines()[-1])
    return result
