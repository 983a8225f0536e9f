"""The inline style and script of the HTML report (static text, no data).

Owns: `CSS` and `SCRIPT`. The script reads the model from `#report-data`, draws the rows as a
virtualised list (only the rows in sight exist in the document; heights are known in advance,
so a prefix sum finds the first row of any scroll position), folds the changes of the rows up
to the selected one into session views, and draws that view in `#panel`.
Must not know: Python, traces, rules. It must put text on the page with `textContent` only
(never `innerHTML`), so nothing in the data can become markup.
"""

from __future__ import annotations

from typing import Final

__all__ = ["CSS", "SCRIPT"]

CSS: Final = """
*{box-sizing:border-box}
body{margin:0;font:13px/1.4 system-ui,sans-serif;color:#1d2330;background:#f6f7f9;
display:flex;flex-direction:column;height:100vh}
#bar{display:flex;gap:16px;align-items:baseline;padding:8px 14px;background:#1d2330;color:#fff}
#bar h1{font-size:15px;margin:0;font-weight:600}
#counts span{margin-right:8px;padding:1px 7px;border-radius:9px;font-weight:600}
.sev-MUST-violation{background:#c62828;color:#fff}
.sev-SHOULD-violation{background:#ef8f00;color:#fff}
.sev-MAY-violation{background:#5c6bc0;color:#fff}
#counts .sev-MUST-warning,#counts .sev-SHOULD-warning,#counts .sev-MAY-warning{
background:transparent;color:#ffd27a;border:1px dashed #ffd27a}
#legend{color:#c9d1e0;font-size:12px}#legend summary{cursor:pointer}
#legend dl{position:absolute;z-index:5;margin:4px 0;padding:8px 12px;background:#fff;
color:#1d2330;border:1px solid #ccd;border-radius:4px;max-width:60ch;
display:grid;grid-template-columns:auto 1fr;gap:2px 10px}
#legend dt{font-weight:600}#legend dd{margin:0}
abbr[title]{text-decoration:underline dotted;cursor:help}
.ok{background:#2e7d32;color:#fff}
#facts{color:#c9d1e0}
#controls{display:flex;gap:14px;padding:6px 14px;background:#e7eaf0;border-bottom:1px solid #ccd}
main{flex:1;display:flex;min-height:0}
#list{flex:3;display:flex;flex-direction:column;min-width:0;outline:none}
#lanes{display:grid;padding:4px 0;background:#eef1f6;border-bottom:1px solid #ccd;
font-weight:600;color:#445}
#scroller{flex:1;overflow-y:auto;position:relative}
#spacer{position:relative}
.row{position:absolute;left:0;right:0;border-bottom:1px solid #e3e6ec;cursor:pointer}
.row:hover{background:#eef3ff}
.row.hist{background:#f1f1ea;font-style:italic}
.chip .tag{color:#fff;background:#8d8d6e;border-radius:8px;padding:0 5px;margin-right:5px}
.row.sel{background:#dbe6ff}
.line{display:grid;height:24px;align-items:center}
.num{color:#889;text-align:right;padding-right:8px;font-variant-numeric:tabular-nums}
.chip{white-space:nowrap;overflow:hidden;text-overflow:ellipsis;padding:0 6px}
.chip b{font-weight:600;margin-right:6px}
.from-client b{color:#1565c0}.from-agent b{color:#6a1b9a}
.chip .run{color:#fff;background:#78909c;border-radius:8px;padding:0 5px;margin-right:5px}
.finding{height:18px;padding-left:64px;white-space:nowrap;overflow:hidden;
text-overflow:ellipsis;font-size:12px}
.finding.lvl-MUST,.finding.lvl-MUST-NOT{background:#fde7e7;color:#8e1010}
.finding.lvl-SHOULD,.finding.lvl-SHOULD-NOT{background:#fff1dc;color:#7a4a00}
.finding.lvl-MAY,.finding.note{background:#eceffd;color:#2a347a}
.finding.warn,.finding-full.warn{background:#f4f4f4;color:#5a4a1a;font-style:italic}
.finding-full{padding:6px 8px;margin:8px 0;border-radius:4px;background:#eceffd;color:#2a347a}
.ff-MUST,.ff-MUST-NOT{background:#fde7e7;color:#8e1010}
.ff-SHOULD,.ff-SHOULD-NOT{background:#fff1dc;color:#7a4a00}
.finding-full .kv{color:inherit}
#panel{flex:2;overflow-y:auto;padding:10px 14px;border-left:1px solid #ccd;background:#fff;
min-width:0}
#panel h2{font-size:14px;margin:4px 0 6px}#panel h3{font-size:13px;margin:12px 0 4px;color:#445}
#panel pre{white-space:pre-wrap;word-break:break-word;background:#f3f4f7;padding:6px;
margin:2px 0 6px;font:12px/1.35 ui-monospace,monospace}
.entity{border-left:3px solid #ccd;padding-left:8px;margin:6px 0}
.role-user{border-color:#1565c0}.role-assistant,.role-agent{border-color:#6a1b9a}
.tool{border-color:#00897b}.plan{border-color:#f9a825}
.kv{color:#556}.hint{color:#778}
button.link{border:0;background:none;color:#1565c0;cursor:pointer;padding:0;font:inherit;
text-decoration:underline}
"""

SCRIPT: Final = r"""
(function () {
"use strict";
var D = JSON.parse(document.getElementById("report-data").textContent);
var rows = D.rows, ROW = 24, FIND = 18, OVERSCAN = 8;
var list = document.getElementById("scroller"), spacer = document.getElementById("spacer");
var panel = document.getElementById("panel"), controls = document.getElementById("controls");
var ui = {session: -1, kind: -1, findings: false, open: {}, selected: -1};
var shown = [], tops = [0];
var cache = {pos: -1, views: Object.create(null)};

function el(tag, cls, text) {
  var e = document.createElement(tag);
  if (cls) e.className = cls;
  if (text !== undefined && text !== null) e.textContent = String(text);
  return e;
}
function findings(r) { return (r.v ? r.v.length : 0) + (r.d ? r.d.length : 0); }
function collapsed(r) { return r.gn !== undefined && !ui.open[r.g]; }
function height(r) { return collapsed(r) ? ROW : ROW + FIND * findings(r); }
function lastOf(pos) { var r = rows[pos]; return collapsed(r) ? pos + r.gn - 1 : pos; }

function select(options, label, onChange) {
  var wrap = el("label", null, label + " "), s = el("select");
  options.forEach(function (o) {
    var opt = el("option", null, o[1]); opt.value = o[0]; s.appendChild(opt);
  });
  s.addEventListener("change", function () { onChange(s.value); });
  wrap.appendChild(s); controls.appendChild(wrap); return s;
}
select([[-1, "all"]].concat(D.sessions.map(function (s, i) { return [i, s]; })), "session",
  function (v) { ui.session = +v; refilter(); });
select([[-1, "all"]].concat(D.kinds.map(function (k, i) { return [i, k]; })), "kind",
  function (v) { ui.kind = +v; refilter(); });
var box = el("label", null, " lines with findings only"), check = el("input");
check.type = "checkbox"; check.id = "only-findings";
check.addEventListener("change", function () {
  ui.findings = check.checked; refilter();
});
box.insertBefore(check, box.firstChild); controls.appendChild(box);

var lanes = document.getElementById("lanes");
var columns = "56px repeat(" + D.lanes.length + ", minmax(0, 1fr))";
lanes.style.gridTemplateColumns = columns;
lanes.appendChild(el("span", "num", "line"));
D.lanes.forEach(function (name, i) {
  lanes.appendChild(el("span", "chip", i < 2 ? name : "child " + name));
});

function layout() {
  shown = []; tops = [0];
  for (var p = 0; p < rows.length; p++) {
    var r = rows[p];
    if (r.g !== undefined && r.g !== p && !ui.open[r.g]) continue;
    if (ui.session >= 0 && r.s !== ui.session) continue;
    if (ui.kind >= 0 && r.k !== ui.kind) continue;
    if (ui.findings && !findings(r)) continue;
    shown.push(p); tops.push(tops[tops.length - 1] + height(r));
  }
  var total = tops[tops.length - 1];
  spacer.style.height = total + "px";
  // A shorter list: clamp now, so this draw does not look past its end.
  list.scrollTop = Math.min(list.scrollTop, Math.max(0, total - list.clientHeight));
  draw();
}

// After a filter change: the selected line stays in sight if it is still shown, else the top.
function refilter() {
  layout();
  var i = shown.indexOf(ui.selected);
  list.scrollTop = i >= 0 ? Math.max(0, tops[i] - list.clientHeight / 3) : 0;
  draw();
}

function firstAt(y) {
  var lo = 0, hi = shown.length;
  while (lo < hi) { var mid = (lo + hi) >> 1; if (tops[mid + 1] <= y) lo = mid + 1; else hi = mid; }
  return lo;
}

function rowElement(i) {
  var p = shown[i], r = rows[p];
  var div = el("div", "row" + (p === ui.selected ? " sel" : "") + (r.h ? " hist" : ""));
  div.style.top = tops[i] + "px"; div.style.height = height(r) + "px";
  div.dataset.pos = p; div.dataset.line = r.n;
  var line = el("div", "line"); line.style.gridTemplateColumns = columns;
  line.appendChild(el("span", "num", r.n));
  // One message per row: its text may run on into the lanes to its right.
  var chip = el("span", "chip from-" + r.f); chip.style.gridColumn = (r.l + 2) + " / -1";
  var arrow = r.f === "client" ? "→ " : r.f === "agent" ? "← " : "";
  chip.appendChild(el("b", null, arrow + D.kinds[r.k]));
  if (r.h) chip.appendChild(el("span", "tag", "history"));
  if (collapsed(r)) chip.appendChild(el("span", "run", "\u00d7" + r.gn));
  chip.appendChild(document.createTextNode(collapsed(r) && r.gt !== undefined ? r.gt : r.t));
  line.appendChild(chip); div.appendChild(line);
  if (!collapsed(r)) {
    (r.v || []).forEach(function (v, i) {
      var rule = D.rules[v[0]], sev = severity(r, i);
      var f = el("div", "finding lvl-" + v[1].replace(" ", "-") + warn(sev));
      f.dataset.rule = v[0]; f.dataset.severity = sev;
      f.textContent = v[0] + " " + sev + ": " + v[2] + (rule ? "  [" + rule.section + "]" : "");
      if (rule) f.title = abbrTitle(v[0]);
      div.appendChild(f);
    });
    (r.d || []).forEach(function (d) { div.appendChild(el("div", "finding note", "note " + d)); });
  }
  return div;
}

function draw() {
  var top = list.scrollTop, bottom = top + list.clientHeight;
  var from = Math.max(0, firstAt(top) - OVERSCAN);
  var to = Math.min(shown.length, firstAt(bottom) + OVERSCAN + 1);
  var frag = document.createDocumentFragment();
  for (var i = from; i < to; i++) frag.appendChild(rowElement(i));
  spacer.replaceChildren(frag);
}
list.addEventListener("scroll", function () { requestAnimationFrame(draw); });
window.addEventListener("resize", draw);

function apply(views, changes) {
  (changes || []).forEach(function (c) {
    var v = views[c.s];
    if (!v) v = views[c.s] = {order: [], ent: Object.create(null), seen: Object.create(null)};
    if (c.a !== undefined) {
      var old = v.ent[c.k] || {role: "?", text: ""};
      v.ent[c.k] = {role: old.role, text: old.text + c.a};
    } else if (c.v === null) {
      delete v.ent[c.k];
    } else {
      if (!v.seen[c.k]) { v.seen[c.k] = 1; v.order.push(c.k); }
      v.ent[c.k] = c.v;
    }
  });
}
function viewsAfter(pos) {
  if (pos < cache.pos) cache = {pos: -1, views: Object.create(null)};
  for (var p = cache.pos + 1; p <= pos; p++) apply(cache.views, rows[p].c);
  cache.pos = pos; return cache.views;
}

// The class of the i-th finding of a row ("MUST violation", "MUST warning": the words of
// `check`), and the legend of a rule's spec reference, for its tooltip.
function severity(r, i) { return r.vs ? r.vs[i] : ""; }
function warn(sev) { return / warning$/.test(sev) ? " warn" : ""; }
function abbrTitle(rule) {
  return (D.legend.abbr[rule] || []).map(function (t) { return t[0] + " = " + t[1]; }).join("; ");
}
function kv(parent, key, value) {
  if (value === "" || value === undefined || value === null) return;
  var p = el("div", "kv"); p.appendChild(el("b", null, key + ": "));
  p.appendChild(document.createTextNode(String(value))); parent.appendChild(p);
}
function entity(key, e) {
  var kind = key.charAt(0), box;
  if (kind === "m") {
    box = el("div", "entity role-" + e.role); box.appendChild(el("b", null, e.role));
    box.appendChild(el("pre", null, e.text || "(empty)"));
  } else if (kind === "t") {
    box = el("div", "entity tool");
    var head = "tool call " + key.slice(2) + " " + e.title + " [" + e.kind + "]: " + e.status;
    box.appendChild(el("b", null, head));
    kv(box, "at", e.at); if (e.body) box.appendChild(el("pre", null, e.body));
  } else if (kind === "p") {
    box = el("div", "entity plan"); box.appendChild(el("b", null, "plan " + key.slice(2)));
    var ul = el("ul");
    (e.entries || []).forEach(function (x) {
      ul.appendChild(el("li", null, "[" + x[0] + "] " + x[1] + " (" + x[2] + ")"));
    });
    box.appendChild(ul);
  } else {
    box = el("div", "entity");
    box.appendChild(el("b", null, "terminal " + key.slice(2) + " $ " + e.command + " " + e.state));
    kv(box, "cwd", e.cwd); box.appendChild(el("pre", null, e.out || "(no output)"));
  }
  return box;
}

function sessionOf(pos) {
  var r = rows[pos];
  if (r.s >= 0) return D.sessions[r.s];
  if (ui.session >= 0) return D.sessions[ui.session];
  return D.sessions.length ? D.sessions[0] : null;
}

function jump(pos) {
  var r = rows[pos];
  if (r.g !== undefined && r.g !== pos) { ui.open[r.g] = true; }
  ui.session = -1; ui.kind = -1; ui.findings = false; check.checked = false;
  controls.querySelectorAll("select").forEach(function (s) { s.value = "-1"; });
  layout(); choose(pos, true);
}

function details(pos) {
  var r = rows[pos], end = lastOf(pos), frag = document.createDocumentFragment();
  var span = end !== pos ? "\u2013" + rows[end].n : "";
  frag.appendChild(el("h2", null, "Line " + r.n + span + " \u00b7 " + D.kinds[r.k]));
  kv(frag, "from", r.f); kv(frag, "lane", D.lanes[r.l]);
  kv(frag, "session", r.s >= 0 ? D.sessions[r.s] : ""); kv(frag, "id", r.id);
  if (r.h) kv(frag, "replayed history", "sent inside a session/resume replay window");
  if (r.p !== undefined) {
    var what = rows[r.p].n > r.n ? "answered at line " : "answers line ";
    var pair = el("div", "kv"), b = el("button", "link", what + rows[r.p].n);
    b.id = "pair"; b.addEventListener("click", function () { jump(r.p); });
    pair.appendChild(b); frag.appendChild(pair);
  }
  frag.appendChild(el("pre", "summary", collapsed(r) && r.gt !== undefined ? r.gt : r.t));
  (r.v || []).forEach(function (v, i) {
    var sev = severity(r, i), rule = D.rules[v[0]];
    var f = el("div", "finding-full ff-" + v[1].replace(" ", "-") + warn(sev));
    f.dataset.severity = sev;
    f.appendChild(el("b", null, v[0] + " (" + sev + ", rule level " + v[1] + ") "));
    f.appendChild(document.createTextNode(v[2]));
    if (rule) {
      kv(f, "rule", rule.summary); kv(f, "binds", rule.side);
      var p = el("div", "kv"), a = el("abbr", null, rule.section);
      a.title = abbrTitle(v[0]); p.appendChild(el("b", null, "spec: ")); p.appendChild(a);
      f.appendChild(p);
    }
    frag.appendChild(f);
  });
  (r.d || []).forEach(function (d) { kv(frag, "decoder note", d); });
  var sid = sessionOf(end), view = viewsAfter(end)[sid];
  var title = "Session " + (sid || "(none)") + " after line " + rows[end].n;
  frag.appendChild(el("h2", "view-title", title));
  var body = el("div", "view");
  if (!view) body.appendChild(el("p", "hint", "Nothing reported for this session yet."));
  else {
    var s = view.ent.s || {};
    kv(body, "foreground", s.fg ? s.fg + (s.stop ? " (" + s.stop + ")" : "") : "");
    kv(body, "title", s.title); kv(body, "usage", s.usage);
    (s.pending || []).forEach(function (p) { kv(body, "awaiting permission", p); });
    if (s.unknown) kv(body, "unknown updates kept", s.unknown);
    var items = view.order.filter(function (k) {
      return k !== "s" && k.charAt(0) !== "x" && k in view.ent;
    });
    var terms = view.order.filter(function (k) { return k.charAt(0) === "x" && k in view.ent; });
    body.appendChild(el("h3", null, "Transcript (" + items.length + ")"));
    if (items.length > 200) {
      body.appendChild(el("p", "hint", (items.length - 200) + " earlier entries not shown"));
    }
    items.slice(-200).forEach(function (k) { body.appendChild(entity(k, view.ent[k])); });
    if (terms.length) body.appendChild(el("h3", null, "Terminals"));
    terms.forEach(function (k) { body.appendChild(entity(k, view.ent[k])); });
    if (s.diag && s.diag.length) {
      body.appendChild(el("h3", null, "Diagnostics"));
      s.diag.forEach(function (d) { body.appendChild(el("div", "kv", d)); });
    }
  }
  frag.appendChild(body);
  frag.appendChild(el("h3", null, "Message as recorded"));
  frag.appendChild(el("pre", "raw", typeof r.r === "string" ? r.r : JSON.stringify(r.r, null, 1)));
  panel.replaceChildren(frag);
}

function choose(pos, scroll) {
  ui.selected = pos; details(pos);
  var i = shown.indexOf(pos);
  var seen = list.scrollTop, end = seen + list.clientHeight;
  var hidden = i >= 0 && (tops[i] < seen || tops[i + 1] > end);
  if (scroll && hidden) {
    list.scrollTop = Math.max(0, tops[i] - list.clientHeight / 3);
  }
  draw();
}
spacer.addEventListener("click", function (ev) {
  var row = ev.target.closest(".row"); if (!row) return;
  var pos = +row.dataset.pos, r = rows[pos];
  if (r.gn !== undefined && ui.selected === pos) { ui.open[pos] = !ui.open[pos]; layout(); }
  choose(pos, false);
});
document.getElementById("list").addEventListener("keydown", function (ev) {
  if (ev.key !== "ArrowDown" && ev.key !== "ArrowUp") return;
  var i = shown.indexOf(ui.selected) + (ev.key === "ArrowDown" ? 1 : -1);
  if (i >= 0 && i < shown.length) { ev.preventDefault(); choose(shown[i], true); }
});
layout();
document.body.dataset.ready = "1";
})();
"""
