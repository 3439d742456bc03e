/**
 * The server-rendered sections of `report.html`: tables built when the
 * report is written, so the page reads without its script too.
 *
 * @module
 */

import type { IndexingRecord } from "../../retrieval/registry.ts";
import { pairOf, type RunStats } from "../../score/comparison.ts";
import { flipRate, MIN_DIFFERING, verdictOf } from "../../score/significance.ts";
import type { Recommendation } from "../recommendation.ts";
import { comparisonSentence, metricLabel, pClause, signed, small } from "../verdict_text.ts";
import { escapeHtml as h } from "./escape.ts";
import type { ReportLine } from "./question_data.ts";

/** A row of a generic table: column name -> value. */
export type Row = Readonly<Record<string, unknown>>;

/** The systems' headline table with 95 % intervals. */
export function summarySection(
  systems: ReadonlyArray<{ name: string; model: string | null }>,
  summaries: readonly Row[],
  stats: RunStats,
): string {
  const byName = new Map(summaries.map((s) => [String(s.system), s]));
  const rows = systems.map((system) => {
    const s = byName.get(system.name) ?? {};
    const st = stats.systems.find((x) => x.system === system.name);
    return `<tr data-system="${h(system.name)}"><th scope="row">${h(system.name)}</th><td>${
      h(system.model ?? "-")
    }</td>${
      [
        num(s.questions, 0),
        interval(st?.score),
        interval(st?.accuracy),
        // Unknown (no price for its model): empty, never $0.
        s.cost_per_question === null && Number(s.questions) > 0 ? "" : money(s.cost_per_question),
        num(s.p50_latency_ms, 1),
        num(s.avg_tool_calls, 2),
        num(s.errors, 0),
        pct(s.best_effort_rate),
        pct(st?.flip_rate ?? null),
      ].map((c) => `<td class="num">${c}</td>`).join("")
    }</tr>`;
  });
  return section(
    "summary",
    "Systems",
    `<table id="summary-table"><thead><tr><th>system</th><th>model</th><th>questions</th>` +
      `<th>${h(metricLabel(stats.metric))} [95 % CI]</th><th>accuracy [95 % CI]</th>` +
      `<th>$/question</th><th>p50 ms</th>` +
      `<th>tool calls/q</th><th>errors</th><th>best effort</th><th>flip rate</th></tr></thead>` +
      `<tbody>${rows.join("")}</tbody></table>` +
      `<p class="note">Intervals: percentile bootstrap over questions (repeats averaged within a ` +
      `question). Flip rate: how often a question's verdict changed between repeats.</p>`,
  );
}

/** The recommendation and its warnings. */
export function recommendationSection(rec: Recommendation): string {
  if (rec.lines.length === 0) return "";
  return section(
    "recommendation",
    "Recommendation",
    `<ul>${
      rec.lines.map((l) => `<li${l.startsWith("warning:") ? ' class="warning"' : ""}>${h(l)}</li>`)
        .join("")
    }</ul>`,
  );
}

/** The matrix of paired differences (row − column), each cell coloured by its verdict. */
export function comparisonSection(systems: readonly string[], stats: RunStats): string {
  const scored = systems.filter((s) => stats.systems.find((x) => x.system === s)?.score);
  if (scored.length < 2) return "";
  const head = scored.map((s) => `<th>${h(s)}</th>`).join("");
  const body = scored.map((a) => {
    const cells = scored.map((b) => {
      if (a === b) return `<td class="diag">—</td>`;
      const pair = pairOf(stats, a, b);
      if (!pair) return `<td>-</td>`;
      const { diff, p_value } = pair.score;
      const verdict = verdictOf(pair.score);
      const cls = verdict === "higher" ? "better" : verdict === "lower" ? "worse" : "level";
      const note = verdict === "too_few"
        ? `only ${pair.score.differing} differ`
        : verdict === "same"
        ? "no question differs"
        : pClause(p_value);
      return `<td class="${cls}" title="${h(comparisonSentence(pair))}">${signed(diff.mean)}` +
        `<br><small>[${signed(diff.low)}, ${signed(diff.high)}] ${h(note)}</small></td>`;
    }).join("");
    return `<tr><th scope="row">${h(a)}</th>${cells}</tr>`;
  }).join("");
  return section(
    "comparisons",
    "Paired comparisons",
    `<p class="note">Each cell: mean ${h(metricLabel(stats.metric))} difference row − column on ` +
      `the questions both ran, with the 95 % interval and p-value of one test (the sign-flip ` +
      `permutation test, the interval being every difference it does not reject), so a cell is ` +
      `green or red exactly when its interval excludes 0. Green: row significantly better; red: ` +
      `significantly worse. Hover a cell for its sentence.</p><table class="matrix"><thead><tr>` +
      `<th></th>${head}</tr></thead><tbody>${body}</tbody></table>${noiseNote(stats)}`,
  );
}

/** What the undecided pairs could not see, and how many had too few differing questions. */
function noiseNote(stats: RunStats): string {
  const undecided = stats.pairs.filter((p) => verdictOf(p.score) === "undecided");
  const tooFew = stats.pairs.filter((p) => verdictOf(p.score) === "too_few").length;
  const notes: string[] = [];
  if (undecided.length) {
    const mdes = undecided.map((p) => p.score.mde!);
    const n = Math.max(...undecided.map((p) => p.score.n));
    notes.push(
      `Of the pairs that cannot be separated, differences under about ${small(Math.min(...mdes))}–${
        small(Math.max(...mdes))
      } cannot be told from noise with ${n} questions (the smallest ` +
        `difference the test separates from 0 at each pair's spread).`,
    );
  }
  if (tooFew) {
    notes.push(
      `${tooFew} ${
        tooFew === 1 ? "pair differs" : "pairs differ"
      } on fewer than ${MIN_DIFFERING} questions: no test at 5 % can decide ${
        tooFew === 1 ? "it" : "them"
      }.`,
    );
  }
  return notes.length ? `<p class="note">${h(notes.join(" "))}</p>` : "";
}

/** Mean answer score per system by question kind and by tag. */
export function breakdownSection(systems: readonly string[], lines: readonly ReportLine[]): string {
  const byKind = groupScores(systems, lines, (l) => [l.kind ?? "(none)"]);
  const byTag = groupScores(systems, lines, (l) => l.tags.length ? l.tags : []);
  if (byKind.groups.length === 0) return "";
  return section(
    "breakdown",
    "Score by question kind and tag",
    breakdownTable("kind", systems, byKind) +
      (byTag.groups.length ? breakdownTable("tag", systems, byTag) : ""),
  );
}

/** Most unstable questions listed. */
const UNSTABLE_LISTED = 50;

/**
 * With repeats: the questions whose verdict changed between repeats, most
 * unstable first, with each one's flip rate (changes between consecutive
 * repeats / (repeats − 1)).
 */
export function stabilitySection(systems: readonly string[], lines: readonly ReportLine[]): string {
  const verdicts = new Map<string, Array<[number, boolean]>>();
  for (const line of lines) {
    if (line.answer_score === null || !systems.includes(line.system)) continue;
    const key = `${line.system}\u0000${line.question_id}`;
    let list = verdicts.get(key);
    if (!list) verdicts.set(key, list = []);
    list.push([line.repeat, line.passed === true]);
  }
  const rows: Row[] = [];
  let repeated = false;
  for (const [key, list] of verdicts) {
    if (list.length < 2) continue;
    repeated = true;
    const ordered = list.sort((a, b) => a[0] - b[0]).map((v) => v[1]);
    const rate = flipRate(ordered)!;
    if (rate === 0) continue;
    const [system, question] = key.split("\u0000");
    rows.push({
      system,
      question,
      repeats: ordered.length,
      passed: ordered.filter(Boolean).length,
      flip_rate: rate,
    });
  }
  if (!repeated) return "";
  rows.sort((a, b) => Number(b.flip_rate) - Number(a.flip_rate));
  const body = rows.length
    ? genericTable(
      ["system", "question", "repeats", "passed", "flip_rate"],
      rows.slice(0, UNSTABLE_LISTED),
    )
    : `<p>Every question got the same verdict in every repeat.</p>`;
  return section(
    "stability",
    "Questions whose verdict changed between repeats",
    `${body}${
      rows.length > UNSTABLE_LISTED
        ? `<p class="note">${rows.length - UNSTABLE_LISTED} more not listed.</p>`
        : ""
    }`,
  );
}

/** Failure labels per system, from the lines' `failure_label`. */
export function failureSection(systems: readonly string[], lines: readonly ReportLine[]): string {
  const labels = [...new Set(lines.map((l) => l.failure_label).filter((l): l is string => !!l))]
    .sort();
  if (labels.length === 0) return "";
  const count = (s: string, label: string) =>
    lines.filter((l) => l.system === s && l.failure_label === label).length;
  return section(
    "failures",
    "Why questions failed",
    genericTable(
      ["system", ...labels],
      systems.map((s) => ({
        system: s,
        ...Object.fromEntries(labels.map((l) => [l, count(s, l)])),
      })),
    ),
  );
}

/**
 * Retrieval columns of the summaries (whatever retrieval metrics the run
 * computed), with `retrieval_depth` and, when a system's depth is below a
 * cut-off, a note naming the figures computed on fewer documents.
 */
export function retrievalSection(summaries: readonly Row[]): string {
  if (summaries.length === 0) return "";
  const columns = Object.keys(summaries[0]).filter((c) =>
    /^(evidence_recall|mrr|map|ndcg|recall|precision|hit|mrr_|retrieval_depth)/.test(c)
  );
  if (!summaries.some((s) => columns.some((c) => s[c] !== null && s[c] !== undefined))) return "";
  const notes = summaries.flatMap((s) => {
    const depth = s.retrieval_depth;
    if (typeof depth !== "number") return [];
    const short = columns.filter((c) => /@\d+$/.test(c) && Number(c.split("@")[1]) > depth);
    return short.length
      ? [
        `${s.system}: a ranking held only ${depth} documents (its retriever's top_k cut it), ` +
        `so ${short.join(", ")} count fewer documents than they name.`,
      ]
      : [];
  });
  const table = genericTable(["system", ...columns], summaries);
  return section(
    "retrieval",
    "Retrieval",
    table + notes.map((n) => `<p class="note">${h(n)}</p>`).join(""),
  );
}

/** Tool usage with error, timeout and truncation rates. */
export function toolSection(toolUsage: readonly Row[], lines: readonly ReportLine[]): string {
  if (toolUsage.length === 0) return "";
  const timeouts = new Map<string, number>();
  for (const line of lines) {
    for (const step of line.steps) {
      if (step.type !== "tool") continue;
      if (step.result.error?.kind === "timeout") {
        const key = `${line.system}\u0000${step.tool}`;
        timeouts.set(key, (timeouts.get(key) ?? 0) + 1);
      }
    }
  }
  const rows = toolUsage.map((t) => {
    const calls = Number(t.calls) || 0;
    const out = timeouts.get(`${t.system}\u0000${t.tool}`) ?? 0;
    return {
      system: t.system,
      tool: t.tool,
      calls,
      errors: t.errors,
      error_rate: t.error_rate,
      timeout_rate: calls ? out / calls : null,
      truncated_rate: calls ? (Number(t.truncated) || 0) / calls : null,
      questions_using: t.questions_using,
      avg_latency_ms: t.avg_latency_ms,
      total_cost_usd: t.total_cost_usd,
    };
  });
  return section("tools", "Tool usage", genericTable(Object.keys(rows[0]), rows));
}

/** What embedding the passages cost (run.json's `indexing`), which `$/question` leaves out. */
export function indexingSection(records: readonly IndexingRecord[]): string {
  if (records.length === 0) return "";
  const total = records.reduce<number | null>(
    (sum, r) => sum === null || r.cost_usd === null ? null : sum + r.cost_usd,
    0,
  );
  return section(
    "indexing",
    "Building the indexes",
    `<p>Embedding the passages cost ${
      total === null ? "an unknown amount (no price for an embedding model)" : h(money(total))
    } in all; this is not in $/question. ` +
      "Passages found in the embedding cache cost nothing.</p>" +
      genericTable(
        ["retriever", "embedder", "passages", "cached", "tokens", "cost_usd"],
        records.map((r) => ({ ...r })),
      ),
  );
}

/** Every column of `metrics_summary.csv`, folded away. */
export function allMetricsSection(summaries: readonly Row[]): string {
  if (summaries.length === 0) return "";
  return section(
    "metrics",
    "All metrics",
    `<details><summary>metrics_summary.csv</summary>${
      genericTable(Object.keys(summaries[0]), summaries)
    }</details>`,
  );
}

/** A `<section>` with its heading. */
export function section(id: string, title: string, body: string): string {
  return `<section id="${h(id)}"><h2>${h(title)}</h2>${body}</section>`;
}

/** Columns holding US dollars (`total_cost_usd`, `cost_per_question`, `cost_usd`). */
const COST_COLUMN = /(^|_)cost(_|$)/;

/** A plain table of `rows` in `columns` order; numbers right-aligned. */
export function genericTable(columns: readonly string[], rows: readonly Row[]): string {
  const head = columns.map((c) => `<th>${h(c)}</th>`).join("");
  const body = rows.map((r) =>
    `<tr>${
      columns.map((c) => {
        const v = r[c];
        // A null cost is an unknown price: empty, as in the CSV (never "$0", nor "-" for n/a).
        const none = v === null && COST_COLUMN.test(c) ? "" : "-";
        return typeof v === "number"
          ? `<td class="num">${h(formatCell(v))}</td>`
          : `<td>${h(v === null || v === undefined ? none : String(v))}</td>`;
      }).join("")
    }</tr>`
  ).join("");
  return `<table><thead><tr>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

interface Groups {
  groups: string[];
  cells: Map<string, { total: number; n: number }>;
}

function groupScores(
  systems: readonly string[],
  lines: readonly ReportLine[],
  keys: (l: ReportLine) => readonly string[],
): Groups {
  const cells = new Map<string, { total: number; n: number }>();
  const groups = new Set<string>();
  for (const line of lines) {
    if (line.answer_score === null || !systems.includes(line.system)) continue;
    for (const key of keys(line)) {
      groups.add(key);
      const id = `${line.system}\u0000${key}`;
      const cell = cells.get(id) ?? { total: 0, n: 0 };
      cell.total += line.answer_score;
      cell.n++;
      cells.set(id, cell);
    }
  }
  return { groups: [...groups].sort(), cells };
}

function breakdownTable(what: string, systems: readonly string[], g: Groups): string {
  const head = g.groups.map((k) => `<th>${h(k)}</th>`).join("");
  const body = systems.map((s) =>
    `<tr><th scope="row">${h(s)}</th>${
      g.groups.map((k) => {
        const c = g.cells.get(`${s}\u0000${k}`);
        if (!c) return "<td>-</td>";
        const mean = c.total / c.n;
        return `<td class="num heat" style="--v:${mean.toFixed(3)}">${
          mean.toFixed(3)
        } <small>(${c.n})</small></td>`;
      }).join("")
    }</tr>`
  ).join("");
  return `<h3>By ${
    h(what)
  }</h3><table><thead><tr><th>system</th>${head}</tr></thead><tbody>${body}</tbody></table>`;
}

function interval(i: { mean: number; low: number; high: number } | null | undefined): string {
  return i
    ? `${i.mean.toFixed(3)} <small>[${i.low.toFixed(3)}, ${i.high.toFixed(3)}]</small>`
    : "-";
}

function num(v: unknown, digits: number): string {
  return typeof v === "number" ? v.toFixed(digits) : "-";
}

function money(v: unknown): string {
  return typeof v === "number" ? `$${v.toPrecision(3)}` : "-";
}

function pct(v: unknown): string {
  return typeof v === "number" ? `${Math.round(v * 100)} %` : "-";
}

function formatCell(v: number): string {
  if (Number.isInteger(v)) return String(v);
  return Math.abs(v) < 0.001 && v !== 0 ? v.toExponential(2) : v.toFixed(4).replace(/0+$/, "");
}
