/**
 * The server-rendered sections of `report.html` about the systems (summary,
 * recommendation, comparisons, retrieval, tools, indexing, every metric):
 * tables built when the report is written, so the page reads without its
 * script too. Sections from the per-question lines are question_sections.ts.
 *
 * @module
 */

import { questionsCell } from "../repeat_cells.ts";
import type { IndexingRecord } from "../../retrieval/registry.ts";
import { pairOf, type RunStats } from "../../score/comparison.ts";
import { MIN_DIFFERING, verdictOf } from "../../score/significance.ts";
import type { Recommendation } from "../recommendation.ts";
import { comparisonSentence, metricLabel, pClause, signed, small } from "../verdict_text.ts";
import { type Html, markup } from "./html.ts";
import type { ReportLine } from "./question_data.ts";
import { genericTable, interval, money, num, pct, type Row, section, tableWrap } from "./tables.ts";
import { plural } from "../../util/plural.ts";

/** The systems' headline table with 95 % intervals. */
export function summarySection(
  systems: ReadonlyArray<{ name: string; model: string | null }>,
  summaries: readonly Row[],
  stats: RunStats,
): Html {
  const byName = new Map(summaries.map((s) => [String(s.system), s]));
  const rows = systems.map((system) => {
    const s = byName.get(system.name) ?? {};
    const st = stats.systems.find((x) => x.system === system.name);
    const cells = [
      typeof s.questions === "number" ? questionsCell(s.questions, st) : num(s.questions, 0),
      interval(st?.score),
      interval(st?.accuracy),
      // Unknown (no price for its model): empty, never $0.
      s.cost_per_question === null && Number(s.questions) > 0 ? "" : money(s.cost_per_question),
      num(s.p50_latency_ms, 1),
      num(s.avg_tool_calls, 2),
      num(s.errors, 0),
      pct(s.best_effort_rate),
      pct(st?.flip_rate ?? null),
    ];
    return markup`<tr data-system="${system.name}"><th scope="row">${system.name}</th><td>${
      system.model ?? "-"
    }</td>${cells.map((c) => markup`<td class="num">${c}</td>`)}</tr>`;
  });
  return section(
    "summary",
    "Systems",
    markup`${
      tableWrap(markup`<table id="summary-table">
        <thead><tr>
          <th>system</th><th>model</th><th>questions</th>
          <th>${metricLabel(stats.metric)} [95 % CI]</th><th>accuracy [95 % CI]</th>
          <th>$/question</th><th>p50 ms</th><th>tool calls/q</th><th>errors</th>
          <th>best effort</th><th>flip rate</th>
        </tr></thead>
        <tbody>${rows}</tbody>
      </table>`)
    }
      <p class="note">Intervals: percentile bootstrap over questions (repeats averaged within a 
      question). Flip rate: how often a question's verdict changed between repeats.</p>`,
  );
}

/** The recommendation and its warnings. */
export function recommendationSection(rec: Recommendation): Html | "" {
  if (rec.lines.length === 0) return "";
  return section(
    "recommendation",
    "Recommendation",
    markup`<ul>${
      rec.lines.map((l) =>
        l.startsWith("warning:") ? markup`<li class="warning">${l}</li>` : markup`<li>${l}</li>`
      )
    }</ul>`,
  );
}

/** The matrix of paired differences (row − column), each cell coloured by its verdict. */
export function comparisonSection(systems: readonly string[], stats: RunStats): Html | "" {
  const scored = systems.filter((s) => stats.systems.find((x) => x.system === s)?.score);
  if (scored.length < 2) return "";
  const head = scored.map((s) => markup`<th>${s}</th>`);
  const body = scored.map((a) => {
    const cells = scored.map((b) => {
      if (a === b) return markup`<td class="diag">—</td>`;
      const pair = pairOf(stats, a, b);
      if (!pair) return markup`<td>-</td>`;
      const { diff, p_value } = pair.score;
      const verdict = verdictOf(pair.score);
      const cls = verdict === "higher" ? "better" : verdict === "lower" ? "worse" : "level";
      const note = verdict === "too_few"
        ? `only ${pair.score.differing} differ`
        : verdict === "same"
        ? "no question differs"
        : pClause(p_value);
      const range = `[${signed(diff.low)}, ${signed(diff.high)}] ${note}`;
      return markup`<td class="${cls}" title="${comparisonSentence(pair)}">${signed(diff.mean)}
        <br><small>${range}</small></td>`;
    });
    return markup`<tr><th scope="row">${a}</th>${cells}</tr>`;
  });
  return section(
    "comparisons",
    "Paired comparisons",
    markup`<p class="note">Each cell: mean ${metricLabel(stats.metric)} difference row − column 
      on the questions both ran, with the 95 % interval and p-value of one test (the sign-flip 
      permutation test, the interval being every difference it does not reject), so a cell is 
      green or red exactly when its interval excludes 0. Green: row significantly better; red: 
      significantly worse. Hover a cell for its sentence.</p>
      ${
      tableWrap(markup`<table class="matrix">
        <thead><tr><th></th>${head}</tr></thead>
        <tbody>${body}</tbody>
      </table>`)
    }
      ${noiseNote(stats)}`,
  );
}

/** What the undecided pairs could not see, and how many had too few differing questions. */
function noiseNote(stats: RunStats): Html | "" {
  const undecided = stats.pairs.filter((p) => verdictOf(p.score) === "undecided");
  const tooFew = stats.pairs.filter((p) => verdictOf(p.score) === "too_few").length;
  const notes: string[] = [];
  if (undecided.length) {
    const mdes = undecided.map((p) => p.score.mde!);
    const n = Math.max(...undecided.map((p) => p.score.n));
    notes.push(
      `Of the pairs that cannot be separated, differences under about ${small(Math.min(...mdes))}–${
        small(Math.max(...mdes))
      } cannot be told from noise with ${plural(n, "question")} (the smallest ` +
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
  return notes.length ? markup`<p class="note">${notes.join(" ")}</p>` : "";
}

/**
 * Retrieval columns of the summaries (whatever retrieval metrics the run
 * computed), with `retrieval_depth` and, when a system's depth is below a
 * cut-off, a note naming the figures computed on fewer documents.
 */
export function retrievalSection(summaries: readonly Row[]): Html | "" {
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
        `${s.system}: a ranking held only ${
          plural(depth, "document")
        } (its retriever's top_k passages came from no more), ` +
        `so ${short.join(", ")} count fewer documents than they name.`,
      ]
      : [];
  });
  const table = genericTable(["system", ...columns], summaries);
  return section(
    "retrieval",
    "Retrieval",
    markup`${table}${notes.map((n) => markup`<p class="note">${n}</p>`)}`,
  );
}

/** Tool usage with error, timeout and truncation rates. */
export function toolSection(toolUsage: readonly Row[], lines: readonly ReportLine[]): Html | "" {
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
export function indexingSection(records: readonly IndexingRecord[]): Html | "" {
  if (records.length === 0) return "";
  const total = records.reduce<number | null>(
    (sum, r) => sum === null || r.cost_usd === null ? null : sum + r.cost_usd,
    0,
  );
  return section(
    "indexing",
    "Building the indexes",
    markup`<p>Embedding the passages cost ${
      total === null ? "an unknown amount (no price for an embedding model)" : money(total)
    } in all; this is not in $/question. Passages found in the embedding cache cost nothing.</p>${
      genericTable(
        ["retriever", "embedder", "passages", "cached", "tokens", "cost_usd"],
        records.map((r) => ({ ...r })),
      )
    }`,
  );
}

/** Every column of `metrics_summary.csv`, folded away. */
export function allMetricsSection(summaries: readonly Row[]): Html | "" {
  if (summaries.length === 0) return "";
  return section(
    "metrics",
    "All metrics",
    markup`<details><summary>metrics_summary.csv</summary>${
      genericTable(Object.keys(summaries[0]), summaries)
    }</details>`,
  );
}
