/**
 * The page around the report's sections: inline style, the two views the
 * page's one script renders from the embedded JSON (the matrix of every
 * system's answer to each question, {@link MATRIX_PAGE_SIZE} questions at a
 * time, and the list of result lines, {@link PAGE_SIZE} at a time), and the
 * script itself (`report_script.js`, imported as text so that `deno lint`
 * and `deno fmt` read it). The script writes text with `textContent` only,
 * never as HTML, so nothing a model wrote can become markup. Nothing is
 * fetched at view time.
 *
 * @module
 */

import SCRIPT from "./report_script.js" with { type: "text" };
import { scriptSafe } from "./escape.ts";
import { type Html, joinHtml, markup, raw } from "./html.ts";

/** Rows of the list of result lines shown at once. */
export const PAGE_SIZE = 50;
/** Questions of the matrix shown at once (each row holds one answer per system). */
export const MATRIX_PAGE_SIZE = 20;

const STYLE = `
:root { color-scheme: light; --fg: #1d232a; --muted: #5b6570; --line: #d9dee3; --accent: #2563eb;
  --head: #f3f5f7; --pass: #dcfce7; --fail: #fee2e2; --error: #ffedd5; }
* { box-sizing: border-box; }
body { font: 14px/1.45 system-ui, -apple-system, "Segoe UI", Roboto, sans-serif; color: var(--fg);
  margin: 0 auto; max-width: 1280px; padding: 16px 24px 48px; }
h1 { font-size: 22px; margin: 8px 0 4px; }
h2 { font-size: 18px; margin: 28px 0 8px; border-bottom: 1px solid var(--line); padding-bottom: 4px; }
h3 { font-size: 15px; margin: 16px 0 6px; }
.meta, .note { color: var(--muted); } .note { font-size: 12.5px; }
.table-wrap { overflow-x: auto; max-width: 100%; margin: 6px 0; }
.table-wrap th, .table-wrap td { white-space: nowrap; } .table-wrap thead th { white-space: normal; }
#matrix-table th, #matrix-table td, #questions-table tr.trace td { white-space: normal; }
table { border-collapse: separate; border-spacing: 0; font-variant-numeric: tabular-nums;
  border-top: 1px solid var(--line); border-left: 1px solid var(--line); }
th, td { border-right: 1px solid var(--line); border-bottom: 1px solid var(--line); padding: 4px 8px;
  text-align: left; vertical-align: top; background: white; }
thead th { background: var(--head); font-weight: 600; }
.table-wrap tr > :first-child { position: sticky; left: 0; z-index: 1; box-shadow: 1px 0 0 var(--line); }
.table-wrap thead tr > :first-child { z-index: 3; }
td.num { text-align: right; white-space: nowrap; }
small { color: var(--muted); }
.matrix td { text-align: center; white-space: nowrap; } .matrix td.better { background: var(--pass); }
.matrix td.worse { background: var(--fail); } .matrix td.diag { color: var(--muted); }
td.heat { background: color-mix(in srgb, #22c55e calc(var(--v) * 45%), white); }
li.warning { color: #9a3412; }
.plots { display: flex; flex-wrap: wrap; gap: 16px; }
figure.plot { margin: 0; max-width: 100%; }
svg.plot { border: 1px solid var(--line); background: white; max-width: 100%; height: auto; display: block; }
svg .frame { fill: none; stroke: #9aa4ae; } svg .grid { stroke: #eef1f4; }
svg .tick { font-size: 11px; fill: var(--muted); } svg .axis { font-size: 12px; fill: var(--fg); }
svg .direction { font-size: 11px; fill: var(--muted); font-style: italic; }
svg .label { font-size: 11.5px; fill: var(--fg); } svg .legend { font-size: 11px; fill: var(--muted); }
svg .key-number { font-weight: 600; fill: var(--accent); } svg .leader { stroke: #9aa4ae; stroke-width: 0.8; }
svg .point { fill: #94a3b8; stroke: white; } svg .on-front, svg .legend-dot { fill: var(--accent); }
svg .front { fill: none; stroke: var(--accent); stroke-width: 1.5; stroke-dasharray: 4 3; }
.plot-key { font-size: 12.5px; margin: 6px 0 0; padding-left: 28px; max-width: 560px; }
.filters { display: flex; gap: 12px; align-items: center; flex-wrap: wrap; margin: 8px 0; }
#questions-table tr.row { cursor: pointer; } #questions-table tr.row:hover td { background: #f6f8fb; }
.status-pass { color: #166534; font-weight: 600; } .status-fail { color: #b91c1c; font-weight: 600; }
.status-error { color: #9a3412; font-weight: 600; } .status-unscored { color: var(--muted); }
tr.trace > td { background: #fafbfc; }
pre { white-space: pre-wrap; word-break: break-word; margin: 2px 0 8px; font-size: 12.5px; }
.step { border-left: 3px solid var(--line); padding: 2px 8px; margin: 6px 0; }
.step.tool { border-color: #a855f7; } .step.model { border-color: #3b82f6; } .step.retrieval { border-color: #f59e0b; }
.answer { max-width: 520px; overflow: hidden; text-overflow: ellipsis; white-space: nowrap; }
.pager button { margin: 0 4px; }
.matrix-wrap { max-height: 85vh; overflow: auto; }
#matrix-table thead th { position: sticky; top: 0; z-index: 2; }
#matrix-table th.question { width: 240px; min-width: 240px; max-width: 240px; font-weight: normal; }
#matrix-table .qid { font-weight: 600; word-break: break-all; }
#matrix-table .qtext, #matrix-table .cell-answer { display: -webkit-box; -webkit-box-orient: vertical;
  overflow: hidden; overflow-wrap: anywhere; white-space: pre-wrap; }
#matrix-table .qtext { -webkit-line-clamp: 5; line-clamp: 5; }
#matrix-table .cell-answer { -webkit-line-clamp: 6; line-clamp: 6; margin: 4px 0; }
#matrix-table td.cell { min-width: 220px; max-width: 280px; font-size: 13px; }
#matrix-table td.pass { background: var(--pass); } #matrix-table td.fail { background: var(--fail); }
#matrix-table td.error { background: var(--error); } #matrix-table td.missing { background: #f8fafc; }
.cell-head { display: flex; justify-content: space-between; gap: 6px; font-size: 12px; }
.badge { text-transform: uppercase; font-weight: 700; font-size: 11px; letter-spacing: 0.03em; }
.badge.pass { color: #166534; } .badge.fail { color: #b91c1c; } .badge.error { color: #9a3412; }
.badge.unscored { color: var(--muted); } .figures { color: var(--muted); white-space: nowrap; }
.cell-trace summary { cursor: pointer; color: var(--muted); font-size: 12px; }
.cell-trace .step pre { font-size: 12px; } .cell-trace ul.checks { padding-left: 18px; margin: 4px 0; }
`;

/** What the page's script needs besides the data: page sizes, and the per-line nDCG's name. */
export interface PageSettings {
  /** The nDCG each line shows (`nDCG@10`); null when no line has one. */
  ndcg: string | null;
}

/** The matrix of every system's answer to each question (filled by the script). */
export function matrixSection(): Html {
  return markup`<section id="matrix"><h2>Answers side by side</h2>
    <p class="note">One row per question, one column per system: each cell is the system's answer, 
    green when it passed its checks, red when it failed, orange for an error; a line without 
    answer checks (a retrieval-only system) is shaded by its nDCG. Click the line of steps under 
    an answer for its checks and trace. A column's header counts the system's passes.</p>
    <div class="filters">
      <label>show <select id="matrix-show">
        <option value="all">every question</option>
        <option value="disagree">systems disagree</option>
        <option value="some-fail">some system failed</option>
        <option value="all-fail">every system failed</option>
      </select></label>
      <label>kind <select id="matrix-kind"><option value="__all__">all</option></select></label>
      <label>repeat <select id="matrix-repeat"></select></label>
      <label>find <input type="search" id="matrix-find" placeholder="question id or text"></label>
      <span class="pager"><button type="button" id="matrix-prev-page">previous</button>
        <button type="button" id="matrix-next-page">next</button></span>
      <span id="matrix-info" class="note"></span>
    </div>
    <div class="table-wrap matrix-wrap"><table id="matrix-table">
      <thead><tr><th>question</th></tr></thead><tbody></tbody>
    </table></div>
  </section>`;
}

/** The list of result lines' controls and empty table (filled by the script). */
export function questionSection(settings: PageSettings): Html {
  return markup`<section id="questions"><h2>Result lines</h2>
    <div class="filters">
      <label>system <select id="filter-system"><option value="">all</option></select></label>
      <label>kind <select id="filter-kind"><option value="__all__">all</option></select></label>
      <label>status <select id="filter-status">
        <option value="">all</option>
        <option value="pass">pass</option>
        <option value="fail">fail</option>
        <option value="error">error</option>
        <option value="unscored">unscored</option>
      </select></label>
      <span class="pager"><button type="button" id="prev-page">previous</button>
        <button type="button" id="next-page">next</button></span>
      <span id="page-info" class="note"></span>
    </div>
    <p class="note">Every line of per_question_results.jsonl: click a row to see its checks and 
    every step of its trace.</p>
    <div class="table-wrap"><table id="questions-table">
      <thead><tr>
        <th>system</th><th>question</th><th>kind</th><th>status</th><th>score</th>
        ${settings.ndcg ? markup`<th>${settings.ndcg}</th>` : ""}
        <th>ms</th><th>answer</th>
      </tr></thead>
      <tbody></tbody>
    </table></div>
  </section>`;
}

/**
 * The whole document around `sections`, in pieces: the head and sections,
 * the data the script reads (`data`, JSON text already safe for a script
 * element, possibly in many pieces), the script's settings, then the script.
 */
export function* pageChunks(
  title: string,
  sections: readonly Html[],
  data: Iterable<string>,
  settings: PageSettings,
): Generator<string> {
  yield markup`<!DOCTYPE html>${raw("\n")}<html lang="en"><head><meta charset="utf-8">
    <meta name="viewport" content="width=device-width, initial-scale=1">
    <title>${title}</title>
    <style>${raw(STYLE)}</style></head>
    <body>
    ${joinHtml(sections, "\n")}
    <script type="application/json" id="report-data">`.text;
  yield* data;
  const script = { ...settings, listPage: PAGE_SIZE, matrixPage: MATRIX_PAGE_SIZE };
  yield `</script>
<script type="application/json" id="report-settings">${scriptSafe(JSON.stringify(script))}</script>
<script>${SCRIPT}</script>
</body></html>
`;
}
