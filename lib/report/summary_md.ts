/**
 * `summary.md`: the run's result as Markdown, for a CI job summary or a
 * pull-request comment — the systems table with 95 % intervals, the
 * recommendation and its warnings, and every paired comparison.
 *
 * @module
 */

import type { IndexingRecord } from "../retrieval/registry.ts";
import type { PairStats, SystemStats } from "../score/comparison.ts";
import { comparisonSentence, type Recommendation } from "./recommendation.ts";

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
  const header = [
    "system",
    "model",
    "questions",
    "score [95 % CI]",
    "accuracy [95 % CI]",
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
          String(r.questions),
          interval(r.stats.score),
          interval(r.stats.accuracy),
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
  const out = [`# ragbench: ${cell(run.name)}`, "", `Run directory: \`${run.dir}\``, "", ...table];
  if (costNotes.length) out.push("", ...costNotes.map((n) => `_${cell(n)}_`));
  if (recommendation.lines.length) {
    out.push("", "## Recommendation", "", ...recommendation.lines.map((l) => `- ${cell(l)}`));
  }
  if (pairs.length) {
    out.push(
      "",
      "## Paired comparisons (answer score)",
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

/** The pair turned round when its second system scored higher, so sentences say "beats". */
function betterFirst(pair: PairStats): PairStats {
  if (pair.score.diff.mean >= 0) return pair;
  const { diff } = pair.score;
  return {
    a: pair.b,
    b: pair.a,
    score: { ...pair.score, diff: { mean: -diff.mean, low: -diff.high, high: -diff.low } },
    accuracy: {
      only_a: pair.accuracy.only_b,
      only_b: pair.accuracy.only_a,
      p_value: pair.accuracy.p_value,
    },
  };
}

function interval(i: { mean: number; low: number; high: number } | null): string {
  return i === null ? "-" : `${i.mean.toFixed(3)} [${i.low.toFixed(3)}, ${i.high.toFixed(3)}]`;
}

/** Text safe inside a Markdown table cell or list item. */
function cell(text: string): string {
  // "<" only opens a tag before a letter, "/" or "!": "p < 0.001" stays readable.
  return text.replace(/[\r\n]+/g, " ").replaceAll("|", "\\|").replace(/<(?=[A-Za-z/!])/g, "&lt;");
}
