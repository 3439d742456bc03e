/**
 * The summary table printed at the end of a run: one row per system, the
 * figures a person compares first, with the answer score's 95 % interval
 * when the statistics are given.
 *
 * @module
 */

import { flipRateCell, hasFlipRate, questionsCell } from "./repeat_cells.ts";
import type { RunStats } from "../score/comparison.ts";
import { isShallow } from "../score/shallow_figures.ts";
import type { SystemSummary } from "../score/summary.ts";
import { plural } from "../util/plural.ts";

/**
 * Renders the systems' summaries as an aligned plain-text table. Score and
 * accuracy are over the lines with answer checks (accuracy shows passed /
 * checked); when some system has retrieval metrics, the retrieval headline is
 * shown too: nDCG@10 beside R@100 (see {@link headlineCutoffs} when the run
 * has other cut-offs; `retrievalK` defaults to the cut-offs the rows hold).
 * A figure computed on fewer documents than its cut-off (a system whose
 * `retrieval_depth` is below it) is marked `*`, and a footnote under the
 * table says why.
 */
export function summaryTable(
  rows: readonly SystemSummary[],
  options: {
    stats?: RunStats;
    models?: ReadonlyMap<string, string | null>;
    retrievalK?: readonly number[];
  } = {},
): string {
  const { ndcg: k, recall: rk } = headlineCutoffs(options.retrievalK ?? cutoffsOf(rows));
  const ir = rows.some((r) => r[`ndcg@${k}`] != null);
  const marked = (r: SystemSummary, metric: `${string}@${number}`) => {
    const value = r[metric] ?? null;
    return fixed(value, 3) + (value !== null && isShallow(r.retrieval_depth, metric) ? "*" : "");
  };
  const stat = (r: SystemSummary) => options.stats?.systems.find((s) => s.system === r.system);
  const flips = hasFlipRate(options.stats?.systems);
  const header = [
    "system",
    "questions",
    "score",
    ...(options.stats ? ["95 % CI"] : []),
    "accuracy",
    ...(flips ? ["flip rate"] : []),
    ...(ir ? [`nDCG@${k}`, `R@${rk}`] : []),
    "errors",
    "p50 ms",
    "$/question",
    "tools/q",
    ...(options.models ? ["model"] : []),
  ];
  const body = rows.map((r) => {
    // The statistics' interval is of the answer score only when that is what they rank.
    const interval = options.stats?.metric === "answer_score"
      ? options.stats.systems.find((s) => s.system === r.system)?.score
      : undefined;
    return [
      r.system,
      questionsCell(r.questions, stat(r)),
      fixed(r.answer_score, 3),
      ...(options.stats
        ? [interval ? `[${interval.low.toFixed(3)}, ${interval.high.toFixed(3)}]` : "-"]
        : []),
      r.accuracy === null ? "-" : `${Math.round(r.accuracy * r.checked)}/${r.checked}`,
      ...(flips ? [flipRateCell(stat(r))] : []),
      ...(ir ? [marked(r, `ndcg@${k}`), marked(r, `recall@${rk}`)] : []),
      String(r.errors),
      fixed(r.p50_latency_ms, 1),
      // Unknown (no price for its model): "?", never $0.
      r.cost_per_question === null && r.questions > 0 ? "?" : fixed(r.cost_per_question, 6),
      fixed(r.avg_tool_calls, 2),
      ...(options.models ? [options.models.get(r.system) ?? "-"] : []),
    ];
  });
  const last = header.length - 1;
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const leftAligned = (i: number) => i === 0 || (options.models !== undefined && i === last);
  const line = (cells: string[]) =>
    cells.map((c, i) => (leftAligned(i) ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ")
      .trimEnd();
  const table = [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)];
  const notes = ir ? depthNotes(rows, Math.max(k, rk)).map((n) => `* ${n}`) : [];
  return [...table, ...(notes.length ? ["", ...notes] : [])].join("\n");
}

/**
 * The cut-offs of the console's retrieval headline: nDCG@10 and R@100 (the IR
 * convention) when `cutoffs` holds them; otherwise nDCG at the largest
 * cut-off up to 10 (or the smallest one) and recall at the largest.
 */
export function headlineCutoffs(cutoffs: readonly number[]): { ndcg: number; recall: number } {
  const ks = cutoffs.length ? cutoffs : [10];
  const upTo10 = ks.filter((k) => k <= 10);
  return {
    ndcg: upTo10.length ? Math.max(...upTo10) : Math.min(...ks),
    recall: ks.includes(100) ? 100 : Math.max(...ks),
  };
}

/** The cut-offs the summary rows hold (their `ndcg@k` keys), in increasing order. */
function cutoffsOf(rows: readonly SystemSummary[]): number[] {
  const ks = new Set<number>();
  for (const row of rows) {
    for (const key of Object.keys(row)) {
      if (key.startsWith("ndcg@")) ks.add(Number(key.slice(5)));
    }
  }
  return [...ks].filter((k) => Number.isInteger(k) && k > 0).sort((a, b) => a - b);
}

function fixed(value: number | null, digits: number): string {
  return value === null ? "-" : value.toFixed(digits);
}

/**
 * One note per retrieval depth below `cutoff`, naming every system cut to it
 * (the bench's three `rag` rows share one): why their `*` figures count fewer
 * documents than the metric names. `where` follows the names (`compare`'s
 * " in B").
 */
export function depthNotes(
  rows: ReadonlyArray<{ system: string; retrieval_depth?: number | null }>,
  cutoff: number,
  where = "",
): string[] {
  const byDepth = new Map<number, string[]>();
  for (const r of rows) {
    const depth = r.retrieval_depth;
    if (depth == null || depth >= cutoff) continue;
    byDepth.set(depth, [...(byDepth.get(depth) ?? []), r.system]);
  }
  return [...byDepth].map(([depth, systems]) =>
    `${systems.join(", ")}${where}: a ranking held only ${
      plural(depth, "document")
    } (the retriever's ` +
    `top_k passages came from no more), so metrics at larger cut-offs count fewer documents than ` +
    `they name`
  );
}
