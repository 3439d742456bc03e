/**
 * `summary.md`: the run's result as Markdown, for a CI job summary or a
 * pull-request comment — systems whose every question errored first, the
 * systems table with 95 % intervals (and the headline retrieval metrics when
 * systems retrieve), the recommendation and its warnings, and every paired
 * comparison on the recommendation's metric.
 *
 * @module
 */

import { depthNotes } from "./console_table.ts";
import { flipRateCell, hasFlipRate, questionsCell } from "./repeat_cells.ts";
import type { IndexingRecord } from "../retrieval/registry.ts";
import type { PairStats, SystemStats } from "../score/comparison.ts";
import type { Recommendation } from "./recommendation.ts";
import { markdownText as cell } from "./markdown_text.ts";
import { betterFirst, comparisonSentence, metricLabel } from "./verdict_text.ts";

/** One system's row: its summary figures and its statistics. */
export interface MarkdownRow {
  system: string;
  model: string | null;
  questions: number;
  errors: number;
  cost_per_question: number | null;
  p50_latency_ms: number | null;
  avg_tool_calls: number | null;
  stats: SystemStats;
  /** Headline retrieval metrics (e.g. `ndcg@10`, `recall@100`), when it retrieves. */
  retrieval?: Readonly<Record<string, number | null>>;
  /** The fewest documents a ranking held when top_k cut it (`SystemSummary.retrieval_depth`). */
  retrieval_depth?: number | null;
}

/** The whole `summary.md` text. */
export function summaryMarkdown(
  run: { name: string; dir: string },
  rows: readonly MarkdownRow[],
  recommendation: Recommendation,
  pairs: readonly PairStats[],
  indexing: readonly IndexingRecord[] = [],
  costNotes: readonly string[] = [],
): string {
  const ranked = recommendation.metric !== "answer_score";
  // The ranked metric has its own column, with its interval.
  const retrieval = [...new Set(rows.flatMap((r) => Object.keys(r.retrieval ?? {})))]
    .filter((k) => k !== recommendation.metric);
  const flips = hasFlipRate(rows.map((r) => r.stats));
  const header = [
    "system",
    "model",
    "questions",
    `${ranked ? metricLabel(recommendation.metric) : "score"} [95 % CI]`,
    ...(ranked ? [] : ["accuracy [95 % CI]"]),
    ...(flips ? ["flip rate"] : []),
    ...retrieval.map(metricLabel),
    "$/question",
    "p50 ms",
    "tool calls/q",
    "errors",
  ];
  const table = [
    `| ${header.join(" | ")} |`,
    `| ${header.map((_, i) => (i < 2 ? "---" : "---:")).join(" | ")} |`,
    ...rows.map((r) =>
      `| ${
        [
          r.system,
          r.model ?? "-",
          questionsCell(r.questions, r.stats),
          interval(r.stats.score),
          ...(ranked ? [] : [interval(r.stats.accuracy)]),
          ...(flips ? [flipRateCell(r.stats)] : []),
          ...retrieval.map((k) => {
            const v = r.retrieval?.[k];
            if (typeof v !== "number") return "-";
            const depth = r.retrieval_depth;
            return v.toFixed(3) + (depth != null && depth < cutoffOf(k) ? "\\*" : "");
          }),
          // Unknown (no price for its model): empty, never $0.
          r.cost_per_question === null
            ? r.questions > 0 ? "" : "-"
            : `$${r.cost_per_question.toPrecision(3)}`,
          r.p50_latency_ms === null ? "-" : r.p50_latency_ms.toFixed(1),
          r.avg_tool_calls === null ? "-" : r.avg_tool_calls.toFixed(2),
          String(r.errors),
        ].map(cell).join(" | ")
      } |`
    ),
  ];
  const out = [`# ragbench: ${cell(run.name)}`, "", `Run directory: \`${run.dir}\``, ""];
  for (const failed of recommendation.failed) out.push(`**Failed:** ${cell(failed)}`, "");
  out.push(...table);
  const cutoff = Math.max(0, ...retrieval.map(cutoffOf));
  const depths = depthNotes(rows, cutoff).map((n) => `\\* ${cell(n)}`);
  if (depths.length) out.push("", ...depths);
  if (costNotes.length) out.push("", ...costNotes.map((n) => `_${cell(n)}_`));
  if (recommendation.lines.length) {
    out.push("", "## Recommendation", "", ...recommendation.lines.map((l) => `- ${cell(l)}`));
  }
  if (pairs.length) {
    const label = ranked ? metricLabel(recommendation.metric) : "answer score";
    out.push(
      "",
      `## Paired comparisons (${label})`,
      "",
      ...pairs.map((p) => `- ${cell(comparisonSentence(betterFirst(p)))}`),
    );
  }
  if (indexing.length) out.push("", ...indexingSection(indexing));
  return out.join("\n") + "\n";
}

/** What embedding the passages cost: paid once per run (or not at all, from the cache). */
function indexingSection(records: readonly IndexingRecord[]): string[] {
  const total = records.reduce<number | null>(
    (sum, r) => sum === null || r.cost_usd === null ? null : sum + r.cost_usd,
    0,
  );
  return [
    "## Building the indexes",
    "",
    `Embedding the passages cost ${
      total === null
        ? "an unknown amount (no price for an embedding model)"
        : `$${total.toFixed(4)}`
    } in all; this is not in \`$/question\`. ` +
    "Passages found in the embedding cache cost nothing.",
    "",
    "| retriever | embedder | passages | from the cache | tokens | cost |",
    "| --- | --- | ---: | ---: | ---: | ---: |",
    ...records.map((r) =>
      `| ${
        [
          r.retriever,
          r.embedder,
          String(r.passages),
          String(r.cached),
          String(r.tokens),
          r.cost_usd === null ? "" : `$${r.cost_usd.toFixed(4)}`,
        ].map(cell).join(" | ")
      } |`
    ),
  ];
}

function interval(i: { mean: number; low: number; high: number } | null): string {
  return i === null ? "-" : `${i.mean.toFixed(3)} [${i.low.toFixed(3)}, ${i.high.toFixed(3)}]`;
}

/** The cut-off of a metric named `name@k` (0 for one without). */
function cutoffOf(name: string): number {
  const at = name.lastIndexOf("@");
  return at < 0 ? 0 : Number(name.slice(at + 1)) || 0;
}
