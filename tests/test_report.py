"""The HTML report's pure builder: escaping, no URLs, rows, pairs, runs, lanes and views.

The page is checked as text here (what a hostile trace can and cannot put in it, what the
embedded model says); tests/test_report_browser.py opens it in Chromium.
"""

from __future__ import annotations

import json
import re
from pathlib import Path
from typing import Any

import pytest
from hypothesis import given
from hypothesis import strategies as st

import acp_core as acp
from acp_core._cli._cli_replay import parse_trace, replay_trace
from acp_core._cli._render import render_block
from acp_core._cli._report import build_report, report_model, report_path_beside
from acp_core._cli._report_html import embed_json

TRACES = Path(__file__).resolve().parent / "traces"
EXAMPLE = Path(acp.__file__).resolve().parent / "data" / "example-trace.jsonl"

HOSTILE = (
    "</script><script>alert(1)</script><!-- <img src=x onerror=alert(2)>"
    ' \u2028\u2029 & " \' <a href="https://evil.example/">x</a> ]]> </SCRIPT >'
)


def load(path: Path) -> list[Any]:
    return [json.loads(line) for line in path.read_text("utf-8").splitlines() if line.strip()]


def update(sid: str, body: dict[str, Any]) -> dict[str, Any]:
    message = {"jsonrpc": "2.0", "method": "session/update", "params": {"sessionId": sid}}
    message["params"]["update"] = body  # type: ignore[index]
    return {"from": "agent", "message": message}


def hostile_trace() -> list[Any]:
    sid = "sess" + HOSTILE
    return [
        {"from": "client", "message": {"jsonrpc": "2.0", "id": HOSTILE, "method": "session/prompt",
         "params": {"sessionId": sid, "prompt": [{"type": "text", "text": HOSTILE}]}}},
        {"from": "agent", "message": {"jsonrpc": "2.0", "id": HOSTILE, "result": {HOSTILE: 1}}},
        update(sid, {"sessionUpdate": "user_message", "messageId": "u" + HOSTILE,
                     "content": [{"type": "text", "text": HOSTILE}]}),
        update(sid, {"sessionUpdate": "state_update", "state": "running"}),
        update(sid, {"sessionUpdate": "agent_message_chunk", "messageId": HOSTILE,
                     "content": {"type": "text", "text": HOSTILE}}),
        update(sid, {"sessionUpdate": "agent_message_chunk", "messageId": HOSTILE,
                     "content": {"type": "text", "text": HOSTILE}}),
        update(sid, {"sessionUpdate": "tool_call_update", "toolCallId": HOSTILE,
                     "title": HOSTILE, "kind": HOSTILE, "status": "pending"}),
        update(sid, {"sessionUpdate": "session_info_update", "title": HOSTILE}),
        update(sid, {"sessionUpdate": HOSTILE}),
        {"from": HOSTILE, "message": HOSTILE},
        {"from": "agent", "message": {"jsonrpc": "2.0", "method": HOSTILE, "params": {}}},
        update(sid, {"sessionUpdate": "state_update", "state": HOSTILE}),
    ]  # fmt: skip


def data_block(page: str) -> tuple[str, str]:
    """(the page without its embedded JSON, the JSON text)."""
    start = page.index('<script type="application/json" id="report-data">')
    body_start = page.index(">", start) + 1
    end = page.index("</script>", body_start)
    return page[:start] + page[end:], page[body_start:end]


def test_a_hostile_trace_cannot_add_markup_or_script() -> None:
    entries = hostile_trace()
    page = build_report(entries, name=HOSTILE)
    # Exactly the page's own two script elements open and close; no comment is opened.
    assert page.lower().count("<script") == 2
    assert page.lower().count("</script") == 2
    assert "<!--" not in page
    assert "<img" not in page
    assert "<a " not in page
    # The title and the summary bar show the name as text.
    assert f"<title>{acp._cli._report_html.escape_text(HOSTILE)} · acp-core report</title>" in page
    # The embedded model is lossless: it reads back as the model itself.
    _markup, data = data_block(page)
    assert json.loads(data) == report_model(entries, name=HOSTILE)
    assert "<" not in data
    assert ">" not in data
    assert "&" not in data
    assert "\u2028" not in data
    assert "\u2029" not in data


@pytest.mark.parametrize("text", ["</script>", "</SCRIPT", "<!--", "<script>", "\u2028", "&lt;"])
def test_embedded_json_escapes_what_ends_a_script_element(text: str) -> None:
    embedded = embed_json({"k": text, text: [text]})
    assert "<" not in embedded
    assert "&" not in embedded
    assert "\u2028" not in embedded
    assert json.loads(embedded) == {"k": text, text: [text]}


def test_the_page_holds_no_url_but_anchors() -> None:
    for path in (EXAMPLE, *sorted(TRACES.glob("bad_*.jsonl"))[:5]):
        page = build_report(load(path), name=path.name)
        markup, _ = data_block(page)
        for attr, value in re.findall(r'\b(href|src|action|formaction|srcset)\s*=\s*"([^"]*)"',
                                      markup, flags=re.I):  # fmt: skip
            assert attr.lower() == "href", (attr, value)
            assert value.startswith("#"), (attr, value)
        assert "://" not in markup
        assert "url(" not in markup.lower()
        assert "@import" not in markup
        csp = acp._cli._report_html.escape_text(acp._cli._report_html.CSP)
        assert f'http-equiv="Content-Security-Policy" content="{csp}"' in markup  # loads nothing


def test_the_script_puts_text_on_the_page_as_text() -> None:
    script = acp._cli._report_assets.SCRIPT
    assert "innerHTML" not in script
    assert "outerHTML" not in script
    assert "insertAdjacentHTML" not in script
    assert "document.write" not in script
    assert "eval(" not in script
    assert "fetch(" not in script
    assert "XMLHttpRequest" not in script


@pytest.mark.parametrize("path", sorted(TRACES.glob("*.jsonl")), ids=lambda p: p.stem)
def test_violations_sit_at_their_line_with_the_catalogue_entry(path: Path) -> None:
    entries = load(path)
    revision = acp.V2_2026_11 if "v2026-11" in path.stem else acp.V2_2026_08
    model = report_model(entries, revision=revision)
    expected = [
        (v.index, v.rule, v.level, v.message) for v in acp.check_trace(entries, revision=revision)
    ]
    found = [(i, *v) for i, row in enumerate(model["rows"]) for v in row.get("v", ())]
    assert sorted(found) == sorted(expected)
    assert path.stem.startswith("good") or found
    for _, rule, level, _ in found:
        entry = acp.RULES[rule]
        assert level == entry.level
        assert model["rules"][rule] == {
            "summary": entry.summary, "section": entry.section, "side": entry.side,
        }  # fmt: skip
    counts: dict[str, int] = {}
    for v in expected:
        counts[v[2]] = counts.get(v[2], 0) + 1
    assert model["counts"] == counts
    page = build_report(entries, revision=revision)
    classes: dict[str, int] = {}
    for v in acp.check_trace(entries, revision=revision):
        classes[v.severity.label] = classes.get(v.severity.label, 0) + 1
    assert model["severities"] == classes
    for label, count in classes.items():  # one badge per class, in the words of `check`
        assert f">{count} {label}{'' if count == 1 else 's'}</span>" in page


def test_side_keeps_the_rules_that_bind_that_side() -> None:
    entries = load(TRACES / "bad_C25_5_client_answers_a_notification.jsonl")
    rules = {v.rule for v in acp.check_trace(entries)}
    assert "C25" in rules
    assert acp.RULES["C25"].side == "client"
    by_agent = report_model(entries, side="agent")
    by_client = report_model(entries, side="client")
    seen = lambda m: {v[0] for r in m["rows"] for v in r.get("v", ())}  # noqa: E731
    assert "C25" in seen(by_client)
    assert "C25" not in seen(by_agent)
    assert all(acp.RULES[r].side in ("agent", "both") for r in seen(by_agent))


def test_requests_and_responses_point_at_each_other() -> None:
    entries = load(EXAMPLE)
    rows = report_model(entries)["rows"]
    pairs = {i: r["p"] for i, r in enumerate(rows) if "p" in r}
    assert pairs
    assert all(pairs[j] == i for i, j in pairs.items())
    for i, j in pairs.items():
        request, response = sorted((i, j))
        assert "method" in entries[request]["message"]
        assert entries[response]["message"]["id"] == entries[request]["message"]["id"]
        assert entries[response]["from"] != entries[request]["from"]
    kinds = report_model(entries)["kinds"]
    prompt = next(i for i, r in enumerate(rows) if kinds[r["k"]] == "session/prompt")
    # the packaged example speaks the default revision, the Preview: the receipt names the message
    assert rows[rows[prompt]["p"]]["t"] == 'to session/prompt: {"messageId":"user-1"}'


def test_a_run_of_chunks_of_one_message_reads_as_its_text() -> None:
    sid = "s1"
    chunks = ["Hel", "lo, ", "world"]
    entries = [
        update(sid, {"sessionUpdate": "agent_message_chunk", "messageId": "m1",
                     "content": {"type": "text", "text": t}}) for t in chunks
    ] + [update(sid, {"sessionUpdate": "agent_message_chunk", "messageId": "m2",
                      "content": {"type": "text", "text": "next"}})]  # fmt: skip
    rows = report_model(entries)["rows"]
    assert rows[0]["gn"] == 3
    assert rows[0]["gt"] == "Hello, world"
    assert [r.get("g") for r in rows] == [0, 0, 0, None]
    # The view changes send the first chunk whole and the next ones as appends.
    assert [c.get("a") for r in rows[:3] for c in r["c"] if c["k"] == "m:m1"] == [
        None,
        "lo, ",
        "world",
    ]


def replay_changes(model: dict[str, Any]) -> dict[str, dict[str, Any]]:
    """What the page's script does with the changes (the same few rules, in Python)."""
    views: dict[str, dict[str, Any]] = {}
    for row in model["rows"]:
        for c in row.get("c", ()):
            ents = views.setdefault(c["s"], {})
            if "a" in c:
                ents[c["k"]] = {**ents[c["k"]], "text": ents[c["k"]]["text"] + c["a"]}
            elif c["v"] is None:
                ents.pop(c["k"], None)
            else:
                ents[c["k"]] = c["v"]
    return views


@pytest.mark.parametrize(
    "path", [EXAMPLE, *sorted(TRACES.glob("good_*.jsonl"))], ids=lambda p: p.stem
)
def test_the_changes_fold_to_the_replayed_state(path: Path) -> None:
    text = path.read_text("utf-8")
    model = report_model(load(path))
    final = replay_trace(parse_trace(text)).sessions
    views = replay_changes(model)
    assert set(views) == set(final)
    for sid, state in final.items():
        view = views[sid]
        messages = {k[2:]: v for k, v in view.items() if k.startswith("m:")}
        assert set(messages) == set(state.messages.keys())
        for mid, shown in messages.items():
            message = state.message(mid)
            assert message is not None
            assert shown["role"] == message.role
            # The view shows every block as `render_block` words it (text verbatim, an image
            # as `[image image/png]`).
            rendered = "".join(render_block(b) for b in message.content)
            assert shown["text"].replace("\n", "") == rendered.replace("\n", "")
        tools = {k[2:]: v for k, v in view.items() if k.startswith("t:")}
        assert {t: (v["status"], v["kind"]) for t, v in tools.items()} == {
            t: (c.status, c.kind) for t, c in state.tool_calls.items()
        }
        assert view["s"]["fg"] == state.foreground.state
        assert {k[2:] for k in view if k.startswith("x:")} == set(state.terminals.keys())


def test_a_child_session_gets_its_own_lane() -> None:
    parent, child = "sess_parent", "sess_child_1"
    entries = [
        update(parent, {"sessionUpdate": "state_update", "state": "running"}),
        update(child, {"sessionUpdate": "agent_message_chunk", "messageId": "c1",
                       "content": {"type": "text", "text": "from the child"}}),
        update(parent, {"sessionUpdate": "subagent_update", "sessionId": child, "title": "T"}),
        {"from": "client", "message": {"jsonrpc": "2.0", "method": "session/cancel",
                                       "params": {"sessionId": child}}},
    ]  # fmt: skip
    model = report_model(entries)
    assert model["lanes"] == ["client", "agent", child]
    assert model["children"] == [child]
    assert [r["l"] for r in model["rows"]] == [1, 2, 1, 2]
    assert report_model(entries[:2])["lanes"] == ["client", "agent"]


def test_lines_name_file_lines_and_bad_entries_are_rows() -> None:
    entries = load(TRACES / "bad_D1_2_entry_from_unknown_party.jsonl")
    model = report_model(entries, lines=[10 * i for i in range(len(entries))])
    assert [r["n"] for r in model["rows"]] == [10 * i for i in range(len(entries))]
    bad = next(r for r in model["rows"] if model["kinds"][r["k"]] == "malformed entry")
    assert bad["f"] == "server"
    assert model["lanes"][bad["l"]] == "?"
    assert [v[0] for v in bad["v"]] == ["D1"]


def test_progress_is_told_each_phase_to_the_end() -> None:
    calls: list[tuple[str, int, int]] = []
    entries = load(EXAMPLE) * 10
    report_model(entries, progress=lambda *a: calls.append(a))
    for phase in ("check", "fold"):
        mine = [c for c in calls if c[0] == phase]
        assert mine[-1] == (phase, len(entries), len(entries))
        assert [c[1] for c in mine] == sorted(c[1] for c in mine)
        assert len(mine) <= 102


def test_report_path_beside() -> None:
    assert report_path_beside("out/cx_1.jsonl") == "out/cx_1.html"
    assert report_path_beside("t.json") == "t.html"
    assert report_path_beside("trace") == "trace.html"


def test_lines_inside_a_replay_window_are_history() -> None:
    entries = load(TRACES / "good_resume_with_replay.jsonl")
    rows = report_model(entries)["rows"]
    resume = next(
        i for i, e in enumerate(entries) if e["message"].get("method") == "session/resume"
    )
    answer = rows[resume]["p"]
    assert [i for i, r in enumerate(rows) if r.get("h")] == list(range(resume + 1, answer))
    assert answer > resume + 1


def test_summaries_say_what_an_update_did() -> None:
    rows = {model_row["n"]: model_row["t"] for model_row in report_model(load(EXAMPLE))["rows"]}
    assert rows[14] == "call-ls Run ls [execute] pending"
    assert rows[13] == "plan-1 0/2 done List the project directory"
    assert rows[22] == "term-1 README.md acp_core"  # terminal output, decoded from base64
    assert rows[29] == "5210 of 200000 tokens"
    assert rows[41] == "idle (cancelled)"


_TEXT = st.text(alphabet=st.sampled_from("ab<>/&;#\"' \n\u2028!-script"), max_size=12)
_JSON = st.recursive(
    st.none() | st.booleans() | st.integers() | _TEXT,
    lambda inner: st.lists(inner, max_size=3) | st.dictionaries(_TEXT, inner, max_size=3),
    max_leaves=12,
)
_UPDATE = st.fixed_dictionaries(
    {"sessionUpdate": st.sampled_from(["agent_message_chunk", "tool_call_update", "plan_update",
                                       "terminal_output_chunk", "state_update", "x"]) | _TEXT},
    optional={"messageId": _TEXT, "toolCallId": _TEXT, "content": _JSON, "title": _JSON,
              "state": _JSON, "data": _JSON, "plan": _JSON},
)  # fmt: skip
_MESSAGE = st.fixed_dictionaries(
    {"jsonrpc": st.just("2.0")},
    optional={"id": st.integers(0, 3) | _TEXT, "method": st.sampled_from(
        ["session/update", "session/prompt", "session/resume", "session/request_permission"]),
        "params": st.fixed_dictionaries({"sessionId": _TEXT}, optional={"update": _UPDATE}),
        "result": _JSON, "error": _JSON},
)  # fmt: skip
_ENTRY = (
    st.fixed_dictionaries(
        {"from": st.sampled_from(["client", "agent"]) | _TEXT, "message": _MESSAGE | _JSON}
    )
    | _JSON
)


@given(st.lists(_ENTRY, max_size=8))
def test_any_trace_makes_a_page_and_nothing_escapes_the_data(entries: list[Any]) -> None:
    page = build_report(entries, name="t")
    assert page.lower().count("<script") == 2
    assert "<!--" not in page
    _, data = data_block(page)
    assert json.loads(data) == report_model(entries, name="t")
