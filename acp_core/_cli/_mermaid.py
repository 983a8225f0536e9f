"""A trace as a Mermaid sequence diagram (text), for docs and issue reports.

Owns: `mermaid_sequence` (entries to diagram text) and `mermaid_from_model` (a report model to
diagram text), and the escaping of Mermaid labels.
Must not know: HTML, files, how the model is built (`_cli/_report.py`).

One participant per lane of the report (client, agent, one per child session), with fixed ids
(`L0`, `L1`, ...) so no trace text is ever an id. Requests are `->>`, responses `-->>`,
notifications `-)`; a run of like notifications is one arrow (`xN`), violations are notes over
the sender. Labels go through `escape_label`: Mermaid's entity codes for the characters that
end a statement (`;`, a line break), start an entity or a comment (`#`, `%`) or read as
markup (`<`, `>`, `&`), and no line breaks.
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import Any, Final

from ._report import report_model

__all__ = ["escape_label", "mermaid_from_model", "mermaid_sequence"]

#: Labels longer than this are cut (the report has the whole text).
LABEL: Final = 90

_CODES: Final = {
    ord("#"): "#35;",
    ord(";"): "#59;",
    ord("%"): "#37;",
    ord("<"): "#lt;",
    ord(">"): "#gt;",
    ord("&"): "#amp;",
}


def escape_label(text: str, limit: int = LABEL) -> str:
    """Text safe as a Mermaid participant alias, message or note (one line)."""
    flat = "".join(c if c.isprintable() else " " for c in text)
    flat = " ".join(flat.split())
    if len(flat) > limit:
        flat = flat[: limit - 1] + "…"
    return flat.translate(_CODES)


def _ends(model: dict[str, Any], row: dict[str, Any]) -> tuple[int, int | None]:
    # (from, to) lanes; to is None when the line has no other end (an unknown sender).
    lanes: list[str] = model["lanes"]
    client, agent = lanes.index("client"), lanes.index("agent")
    lane, sender = row["l"], row["f"]
    if lane in (client, agent):
        return lane, (agent if lane == client else client)
    if lanes[lane] in model["children"]:
        return (lane, client) if sender == "agent" else (client, lane)
    return lane, None


def mermaid_from_model(model: dict[str, Any]) -> str:
    """The rows of a report model (see `report_model`) as a Mermaid sequence diagram."""
    out = ["sequenceDiagram"]
    children = set(model["children"])
    for i, lane in enumerate(model["lanes"]):
        label = f"child {lane}" if lane in children else lane
        out.append(f"    participant L{i} as {escape_label(label, 40)}")
    rows: list[dict[str, Any]] = model["rows"]
    kinds: list[str] = model["kinds"]
    pos = 0
    while pos < len(rows):
        row = rows[pos]
        count = row.get("gn", 1)
        last = rows[pos + count - 1]
        kind = kinds[row["k"]]
        where = str(row["n"]) if count == 1 else f"{row['n']}-{last['n']}"
        text = row.get("gt", row["t"]) if count > 1 else row["t"]
        run = f" \u00d7{count}" if count > 1 else ""
        sep = " " if text.startswith("to ") else ": "  # "response to session/prompt: {}"
        label = escape_label(f"{where} {kind}{run}{sep}{text}")
        src, dst = _ends(model, row)
        if dst is None:
            out.append(f"    Note over L{src}: {label}")
        else:
            arrow = "-->>" if "response" in kind else "->>" if "id" in row else "-)"
            out.append(f"    L{src}{arrow}L{dst}: {label}")
        for (rule, level, message), sev in zip(row.get("v", ()), row.get("vs", ()), strict=True):
            # `R21 MUST` / `R7 MUST, warning`: the tag `check` prints, without parentheses.
            tag = f"{level}, warning" if sev.endswith(" warning") else level
            out.append(f"    Note over L{src}: {escape_label(f'{rule} {tag}: {message}')}")
        pos += count
    return "\n".join(out) + "\n"


def mermaid_sequence(entries: Sequence[object], **options: Any) -> str:
    """A trace as a Mermaid sequence diagram (options: those of `report_model`)."""
    return mermaid_from_model(report_model(entries, **options))
