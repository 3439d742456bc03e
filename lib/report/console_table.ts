/**
 * The summary table printed at the end of a run: one row per system, the
 * figures a person compares first, with the answer score's 95 % interval
 * when the statistics are given.
 *
 * @module
 */

import type { RunStats } from "../score/comparison.ts";
import type { SystemSummary } from "../score/summary.ts";

/**
 * Renders the systems' summaries as an aligned plain-text table. Score and
 * accuracy are over the lines with answer checks (accuracy shows passed /
 * checked); when some system has retrieval metrics, nDCG and recall at the
 * largest cut-off `retrievalK` holds are shown too.
 */
export function summaryTable(
  rows: readonly SystemSummary[],
  options: {
    stats?: RunStats;
    models?: ReadonlyMap<string, string | null>;
    retrievalK?: readonly number[];
  } = {},
): string {
  const k = Math.max(...(options.retrievalK ?? [1, 5, 10]));
  const ir = rows.some((r) => r[`ndcg@${k}`] != null);
  const header = [
    "system",
    "questions",
    "score",
    ...(options.stats ? ["95 % CI"] : []),
    "accuracy",
    ...(ir ? [`nDCG@${k}`, `R@${k}`] : []),
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
      String(r.questions),
      fixed(r.answer_score, 3),
      ...(options.stats
        ? [interval ? `[${interval.low.toFixed(3)}, ${interval.high.toFixed(3)}]` : "-"]
        : []),
      r.accuracy === null ? "-" : `${Math.round(r.accuracy * r.checked)}/${r.checked}`,
      ...(ir ? [fixed(r[`ndcg@${k}`] ?? null, 3), fixed(r[`recall@${k}`] ?? null, 3)] : []),
      String(r.errors),
      fixed(r.p50_latency_ms, 1),
      fixed(r.cost_per_question, 6),
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
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

function fixed(value: number | null, digits: number): string {
  return value === null ? "-" : value.toFixed(digits);
}
