"""The HTML page of a report: escaping, the embedded data, the static frame.

Owns: `render_page` (a report model as one self-contained page: inline CSS and script, the
model as JSON in a `<script type="application/json">`, a Content-Security-Policy that lets the
page load nothing), `escape_text` and `embed_json`.
Must not know: traces, rules or sessions (`_cli/_report.py` builds the model), files.

Safety: every string from the trace reaches the page either through `escape_text` (the summary
bar) or inside the JSON block, where `<`, `>`, `&` and the two JavaScript line separators are
written as `\\u` escapes, so no text can close the script element or open a comment; the script
puts strings on the page with `textContent` only. The page holds no URL but `#` anchors.
"""

from __future__ import annotations

import html
import json
from typing import Any, Final

from ._report_assets import CSS, SCRIPT

__all__ = ["embed_json", "escape_text", "render_page"]

#: What the page may load: nothing but its own inline style and script.
CSP: Final = (
    "default-src 'none'; style-src 'unsafe-inline'; script-src 'unsafe-inline'; "
    "img-src data:; base-uri 'none'; form-action 'none'"
)

_JSON_ESCAPES: Final = {
    ord("<"): "\\u003c",
    ord(">"): "\\u003e",
    ord("&"): "\\u0026",
    0x2028: "\\u2028",
    0x2029: "\\u2029",
    # A trace may hold lone surrogates (JSON allows `"\\ud800"`); UTF-8 cannot encode them, so
    # the page keeps them as JSON escapes, which the script decodes back to the same string.
    **{code: f"\\u{code:04x}" for code in range(0xD800, 0xE000)},
}
# In element text there is no escape for a lone surrogate: it shows as U+FFFD.
_TEXT_SURROGATES: Final = dict.fromkeys(range(0xD800, 0xE000), "\ufffd")


def escape_text(text: object) -> str:
    """Text for HTML element content or a quoted attribute value."""
    return html.escape(str(text), quote=True).translate(_TEXT_SURROGATES)


def embed_json(value: Any) -> str:
    """JSON that can stand inside `<script type="application/json">` whatever its strings."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))
    return text.translate(_JSON_ESCAPES)


def _summary(model: dict[str, Any]) -> str:
    # One badge per class of finding (`MUST violation`, `MUST warning`, ...), the words
    # `check` prints; a warning's badge is drawn apart from a violation's.
    meaning = {label: text for label, _, text in model["legend"]["classes"]}
    css = {label: name for label, name, _ in model["legend"]["classes"]}
    parts = [
        f'<span class="sev {escape_text(css[label])}" data-severity="{escape_text(label)}" '
        f'title="{escape_text(meaning[label])}">{count} {escape_text(label)}'
        f"{'' if count == 1 else 's'}</span>"
        for label, count in model["severities"].items()
    ]
    if not parts:
        parts = ['<span class="ok">no violations</span>']
    facts = [
        f"{len(model['rows'])} lines",
        f"revision {model['revision']}",
        f"{len(model['sessions'])} session(s)",
    ]
    if model["children"]:
        facts.append(f"{len(model['children'])} child session(s)")
    if model["side"]:
        facts.append(f"rules binding the {model['side']}")
    return (
        f'<h1>{escape_text(model["name"])}</h1><div id="counts">{"".join(parts)}</div>'
        f'<div id="facts">{escape_text(" · ".join(facts))}</div>{_legend(model["legend"])}'
    )


def _legend(legend: dict[str, Any]) -> str:
    """The legend of what the page abbreviates: classes, rule-id letters, spec tags."""
    entries = [
        *((label, text) for label, _, text in legend["classes"]),
        *((f"{p}…", f"{text} (docs/rules.md)") for p, text in legend["prefixes"]),
        *((tag, text) for tag, text in legend["spec"]),
    ]
    if not entries:
        return ""
    items = "".join(
        f"<dt>{escape_text(term)}</dt><dd>{escape_text(text)}</dd>" for term, text in entries
    )
    return f'<details id="legend"><summary>legend</summary><dl>{items}</dl></details>'


def render_page(model: dict[str, Any]) -> str:
    """The report model (see `report_model`) as one HTML page that opens from disk."""
    return "".join(
        (
            '<!DOCTYPE html>\n<html lang="en"><head><meta charset="utf-8">',
            f'<meta http-equiv="Content-Security-Policy" content="{escape_text(CSP)}">',
            '<meta name="viewport" content="width=device-width, initial-scale=1">',
            f"<title>{escape_text(model['name'])} · acp-core report</title>",
            f"<style>{CSS}</style></head><body>",
            f'<header id="bar">{_summary(model)}</header>',
            '<nav id="controls"></nav>',
            '<main><section id="list" tabindex="0"><div id="lanes"></div>',
            '<div id="scroller"><div id="spacer"></div></div></section>',
            '<aside id="panel"><p class="hint">Select a line to see the session view right after'
            " it (arrow keys step through the fold).</p></aside></main>",
            f'<script type="application/json" id="report-data">{embed_json(model)}</script>',
            f"<script>{SCRIPT}</script></body></html>\n",
        )
    )
