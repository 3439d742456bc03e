/**
 * The summary table printed at the end of a run: one row per system, the
 * figures a person compares first.
 *
 * @module
 */

import type { SystemSummary } from "../score/summary.ts";

/** Renders the systems' summaries as an aligned plain-text table. */
export function summaryTable(rows: readonly SystemSummary[]): string {
  const header = [
    "system",
    "questions",
    "score",
    "accuracy",
    "errors",
    "p50 ms",
    "$/question",
    "tools/q",
  ];
  const body = rows.map((r) => [
    r.system,
    String(r.questions),
    fixed(r.answer_score, 3),
    r.accuracy === null ? "-" : `${Math.round(r.accuracy * r.questions)}/${r.questions}`,
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
