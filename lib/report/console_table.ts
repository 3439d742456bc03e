/**
 * The summary table printed at the end of a run: one row per system, the
 * figures a person compares first.
 *
 * @module
 */

import type { SystemSummary } from "../score/summary.ts";

/**
 * Renders the systems' summaries as an aligned plain-text table. Score and
 * accuracy are over the lines with answer checks (accuracy shows passed /
 * checked); when some system has retrieval metrics, nDCG and recall at the
 * largest cut-off `retrievalK` holds are shown too.
 */
export function summaryTable(
  rows: readonly SystemSummary[],
  retrievalK: readonly number[] = [1, 5, 10],
): string {
  const k = Math.max(...retrievalK);
  const ir = rows.some((r) => r[`ndcg@${k}`] != null);
  const header = [
    "system",
    "questions",
    "score",
    "accuracy",
    ...(ir ? [`nDCG@${k}`, `R@${k}`] : []),
    "errors",
    "p50 ms",
    "$/question",
    "tools/q",
  ];
  const body = rows.map((r) => [
    r.system,
    String(r.questions),
    fixed(r.answer_score, 3),
    r.accuracy === null ? "-" : `${Math.round(r.accuracy * r.checked)}/${r.checked}`,
    ...(ir ? [fixed(r[`ndcg@${k}`] ?? null, 3), fixed(r[`recall@${k}`] ?? null, 3)] : []),
    String(r.errors),
    fixed(r.p50_latency_ms, 1),
    fixed(r.cost_per_question, 6),
    fixed(r.avg_tool_calls, 2),
  ]);
  const widths = header.map((h, i) => Math.max(h.length, ...body.map((row) => row[i].length)));
  const line = (cells: string[]) =>
    cells.map((c, i) => (i === 0 ? c.padEnd(widths[i]) : c.padStart(widths[i]))).join("  ")
      .trimEnd();
  return [line(header), line(widths.map((w) => "-".repeat(w))), ...body.map(line)].join("\n");
}

function fixed(value: number | null, digits: number): string {
  return value === null ? "-" : value.toFixed(digits);
}
