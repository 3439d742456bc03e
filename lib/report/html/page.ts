/**
 * The page around the report's sections: inline style, and the one inline
 * script — the per-question view, which renders rows from the embedded JSON a
 * page of {@link PAGE_SIZE} at a time, filterable by system, kind and
 * status, and shows a line's checks and trace steps when its row is clicked.
 * The script writes text with `textContent` only, never as HTML, so nothing a
 * model wrote can become markup. Nothing is fetched at view time.
 *
 * @module
 */

import { escapeHtml } from "./escape.ts";

/** Rows of the per-question view shown at once. */
export const PAGE_SIZE = 50;

const STYLE = `
:root { color-scheme: light; --fg: #1d232a; --muted: #5b6570; --line: #d9dee3; --accent: #2563eb; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  margin: 0 auto; max-width: 1280px; padding: 16px 24px 48px; }
h1 { font-size: 22px; margin: 8px 0 4px; } h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
.meta, .note { color: var(--muted); } .note { font-size: 12.5px; }
table { border-collapse: collapse; margin: 6px 0; font-variant-numeric: tabular-nums; }
th, td { border: 1px solid var(--line); padding: 4px 8px; text-align: left; vertical-align: top; }
thead th { background: #f3f5f7; font-weight: 600; } td.num { text-align: right; white-space: nowrap; }
small { color: var(--muted); }
.matrix td { text-align: center; white-space: nowrap; } .matrix td.better { background: #dcfce7; }
.matrix td.worse { background: #fee2e2; } .matrix td.diag { color: var(--muted); }
td.heat { background: color-mix(in srgb, #22c55e calc(var(--v) * 45%), white); }
li.warning { color: #9a3412; }
.plots { display: flex; flex-wrap: wrap; gap: 16px; }
svg.plot { border: 1px solid var(--line); background: white; max-width: 100%; height: auto; }
svg .frame { fill: none; stroke: #9aa4ae; } svg .grid { stroke: #eef1f4; }
svg .tick { font-size: 11px; fill: var(--muted); } svg .axis { font-size: 12px; fill: var(--fg); }
svg .label { font-size: 11.5px; fill: var(--fg); } svg .legend { font-size: 11px; fill: var(--muted); }
svg .point { fill: #94a3b8; stroke: white; } svg .on-front { fill: var(--accent); }
svg .front { fill: none; stroke: var(--accent); stroke-width: 1.5; stroke-dasharray: 4 3; }
.filters { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin: 8px 0; }
#questions-table tr.row { cursor: pointer; } #questions-table tr.row:hover { background: #f6f8fb; }
.status-pass { color: #166534; font-weight: 600; } .status-fail { color: #b91c1c; font-weight: 600; }
.status-error { color: #9a3412; font-weight: 600; } .status-unscored { color: var(--muted); }
tr.trace > td { background: #fafbfc; } .trace pre { white-space: pre-wrap; word-break: break-word; margin: 2px 0 8px; font-size: 12.5px; }
.step { border-left: 3px solid var(--line); padding: 2px 8px; margin: 6px 0; }
.step.tool { border-color: #a855f7; } .step.model { border-color: #3b82f6; } .step.retrieval { border-color: #f59e0b; }
.answer { max-width: 520px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.pager button { margin: 0 4px; }
`;

const SCRIPT = `
(function () {
  "use strict";
  var data = JSON.parse(document.getElementById("report-data").textContent);
  var PAGE = ${PAGE_SIZE};
  var state = { system: "", kind: "__all__", status: "", page: 0, open: -1 };
  var body = document.querySelector("#questions-table tbody");
  var info = document.getElementById("page-info");

  function el(tag, cls, text) {
    var node = document.createElement(tag);
    if (cls) node.className = cls;
    if (text !== undefined && text !== null) node.textContent = String(text);
    return node;
  }
  function options(select, values) {
    values.forEach(function (v) { var o = el("option", null, v === "" ? "(none)" : v); o.value = v; select.appendChild(o); });
  }
  function unique(values) { return values.filter(function (v, i, a) { return a.indexOf(v) === i; }).sort(); }

  var systemSelect = document.getElementById("filter-system");
  var kindSelect = document.getElementById("filter-kind");
  var statusSelect = document.getElementById("filter-status");
  options(systemSelect, data.systems);
  options(kindSelect, unique(data.lines.map(function (l) { return l.kind; })));

  function matches(line) {
    if (state.system !== "" && data.systems[line.s] !== state.system) return false;
    if (state.kind !== "__all__" && line.kind !== state.kind) return false;
    if (state.status !== "" && line.status !== state.status) return false;
    return true;
  }
  function selected() {
    var out = [];
    for (var i = 0; i < data.lines.length; i++) if (matches(data.lines[i])) out.push(i);
    return out;
  }
  function traceRow(line) {
    var tr = el("tr", "trace");
    var td = el("td");
    td.colSpan = 7;
    var q = data.questions[line.q];
    td.appendChild(el("h3", null, "Question " + q[0]));
    td.appendChild(el("pre", null, q[1]));
    td.appendChild(el("h3", null, "Answer"));
    td.appendChild(el("pre", null, line.answer || "(no answer)"));
    if (line.error) { td.appendChild(el("h3", null, "Error")); td.appendChild(el("pre", null, line.error)); }
    if (line.label) td.appendChild(el("p", null, "Failure label: " + line.label));
    if (line.rowOnly) {
      td.appendChild(el("p", "note", "This run is too large to embed every trace: this line's checks and " + line.more + " steps are in per_question_results.jsonl."));
      tr.appendChild(td);
      return tr;
    }
    td.appendChild(el("h3", null, "Checks"));
    var checks = el("ul");
    line.checks.forEach(function (c) { checks.appendChild(el("li", c[1] ? "status-pass" : "status-fail", (c[1] ? "pass " : "FAIL ") + c[0] + ": " + c[2])); });
    if (line.checks.length === 0) checks.appendChild(el("li", null, "(no answer checks)"));
    td.appendChild(checks);
    td.appendChild(el("h3", null, "Trace (" + line.steps.length + " steps)"));
    var steps = el("div", "trace-steps");
    line.steps.forEach(function (s, i) {
      var box = el("div", "step " + s.k);
      if (s.k === "model") {
        box.appendChild(el("strong", null, (i + 1) + ". model" + (s.final ? " (final answer call)" : "") + " · " + s.ms + " ms"));
        if (s.text) box.appendChild(el("pre", null, s.text));
        s.calls.forEach(function (c) { box.appendChild(el("pre", null, "→ " + c)); });
      } else if (s.k === "tool") {
        box.appendChild(el("strong", null, (i + 1) + ". tool " + s.tool + " · " + s.ms + " ms"));
        box.appendChild(el("pre", null, "args: " + s.args));
        box.appendChild(el("pre", s.err ? "status-error" : null, s.err ? "error " + s.err : s.out));
      } else {
        box.appendChild(el("strong", null, (i + 1) + ". retrieval · " + s.ms + " ms"));
        box.appendChild(el("pre", null, "query: " + s.query));
        box.appendChild(el("pre", s.err ? "status-error" : null, s.err ? "error " + s.err : s.hits.join("\\n")));
      }
      steps.appendChild(box);
    });
    if (line.more) steps.appendChild(el("p", "note", line.more + " more steps are in per_question_results.jsonl"));
    td.appendChild(steps);
    tr.appendChild(td);
    return tr;
  }
  function render() {
    var rows = selected();
    var pages = Math.max(1, Math.ceil(rows.length / PAGE));
    if (state.page >= pages) state.page = pages - 1;
    while (body.firstChild) body.removeChild(body.firstChild);
    rows.slice(state.page * PAGE, (state.page + 1) * PAGE).forEach(function (index) {
      var line = data.lines[index];
      var tr = el("tr", "row");
      tr.dataset.index = String(index);
      tr.appendChild(el("td", null, data.systems[line.s]));
      tr.appendChild(el("td", null, data.questions[line.q][0] + "#" + line.r));
      tr.appendChild(el("td", null, line.kind || "-"));
      tr.appendChild(el("td", "status-" + line.status, line.status));
      tr.appendChild(el("td", "num", line.score === null ? "-" : line.score.toFixed(2)));
      tr.appendChild(el("td", "num", line.ms));
      tr.appendChild(el("td", "answer", line.answer));
      tr.addEventListener("click", function () {
        state.open = state.open === index ? -1 : index;
        render();
      });
      body.appendChild(tr);
      if (state.open === index) body.appendChild(traceRow(line));
    });
    info.textContent = rows.length + " lines · page " + (state.page + 1) + " of " + pages;
  }
  systemSelect.addEventListener("change", function () { state.system = systemSelect.value; state.page = 0; render(); });
  kindSelect.addEventListener("change", function () { state.kind = kindSelect.value; state.page = 0; render(); });
  statusSelect.addEventListener("change", function () { state.status = statusSelect.value; state.page = 0; render(); });
  document.getElementById("prev-page").addEventListener("click", function () { if (state.page > 0) { state.page--; render(); } });
  document.getElementById("next-page").addEventListener("click", function () { state.page++; render(); });
  render();
})();
`;

/** The per-question view's controls and empty table (filled by the script). */
export function questionSection(): string {
  return `<section id="questions"><h2>Questions</h2>
<div class="filters">
<label>system <select id="filter-system"><option value="">all</option></select></label>
<label>kind <select id="filter-kind"><option value="__all__">all</option></select></label>
<label>status <select id="filter-status"><option value="">all</option><option value="pass">pass</option>` +
    `<option value="fail">fail</option><option value="error">error</option>` +
    `<option value="unscored">unscored</option></select></label>
<span class="pager"><button type="button" id="prev-page">previous</button>` +
    `<button type="button" id="next-page">next</button></span> <span id="page-info" class="note"></span>
</div>
<p class="note">Click a row to see its checks and every step of its trace.</p>
<table id="questions-table"><thead><tr><th>system</th><th>question</th><th>kind</th><th>status</th>` +
    `<th>score</th><th>ms</th><th>answer</th></tr></thead><tbody></tbody></table></section>`;
}

/**
 * The whole document around `sections`, in pieces: the head and sections,
 * the data the script reads (`data`, JSON text safe for a script element,
 * possibly in many pieces), then the script.
 */
export function* pageChunks(
  title: string,
  sections: readonly string[],
  data: Iterable<string>,
): Generator<string> {
  yield `<!DOCTYPE html>
<html lang="en"><head><meta charset="utf-8">
<meta name="viewport" content="width=device-width, initial-scale=1">
<title>${escapeHtml(title)}</title>
<style>${STYLE}</style></head>
<body>
${sections.join("\n")}
<script type="application/json" id="report-data">`;
  yield* data;
  yield `</script>
<script>${SCRIPT}</script>
</body></html>
`;
}
